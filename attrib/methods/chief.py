"""CHIEF: hierarchical causal graph, virtual oracles, top-down backtracking, counterfactual screening."""

from __future__ import annotations

from ..chief.pipeline import run as _run
from ..core.method import method
from ..core.context import MethodResult, RunContext

NAME = "chief"


@method(NAME, needs_model=True)
async def run(ctx: RunContext) -> MethodResult:
    return await _run(ctx)
