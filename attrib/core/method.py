"""The method plugin interface and its registry.

A method is an async function of a :class:`~attrib.core.context.RunContext` returning a
:class:`~attrib.core.context.MethodResult`, registered under a name::

    @method("all-at-once", needs_model=True)
    async def run(ctx: RunContext) -> MethodResult: ...
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ..registry import Registry
from .context import MethodResult, RunContext

RunFn = Callable[[RunContext], Awaitable[MethodResult]]


@dataclass(frozen=True)
class Method:
    name: str
    needs_model: bool
    run: RunFn
    summary: str


METHODS: Registry[Method] = Registry("method")


def method(name: str, *, needs_model: bool, summary: str | None = None) -> Callable[[RunFn], RunFn]:
    """Register the decorated function as method ``name`` (summary: the module's first doc line)."""

    def register(fn: RunFn) -> RunFn:
        doc = summary or (sys.modules[fn.__module__].__doc__ or fn.__doc__ or name).strip().splitlines()[0]
        METHODS.register(Method(name=name, needs_model=needs_model, run=fn, summary=doc))
        return fn

    return register
