"""Hybrid (Who&When): All-at-Once names the agent, then Step-by-Step checks only that agent's steps."""

from __future__ import annotations

from ..attribution import Candidate
from .all_at_once import ask_agent_step
from ..core.method import method
from ..core.context import MethodResult, RunContext
from .step_by_step import first_decisive

NAME = "hybrid"


@method(NAME, needs_model=True)
async def run(ctx: RunContext) -> MethodResult:
    first = await ask_agent_step(ctx, stage=f"{NAME}.agent")
    agent = ctx.traj.resolve_agent(first.agent)
    assert agent is not None  # validated by the client
    own_steps = ctx.traj.steps_of(agent)
    focus = f" The agent {agent} is suspected of causing the failure; judge whether this step of theirs is where it happened."
    step, reason, judged = await first_decisive(ctx, own_steps, f"{NAME}.step", focus)
    candidates = [Candidate(agent=agent, step=first.step, note="all-at-once choice")]
    details = {"all_at_once": first.model_dump(), "steps_judged": judged}
    if step is None:
        return MethodResult(status="no_error_found", agent=agent, candidates=candidates, details=details,
                            reason=f"all-at-once blamed {agent}, but none of its {judged} steps was judged a decisive mistake")
    return MethodResult(agent=agent, step=step.index, reason=reason, candidates=candidates, details=details)
