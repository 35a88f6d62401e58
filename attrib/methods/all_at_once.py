"""All-at-Once: one call over the whole log, steps shown with explicit indices and agents."""

from __future__ import annotations

from ..render import render_steps
from ..trajectory import Trajectory
from ..core.answers import AgentStepAnswer, agent_step_schema, agent_step_validator
from ..core.method import method
from ..core.context import MethodResult, RunContext

NAME = "all-at-once"


async def ask_agent_step(ctx: RunContext, stage: str = NAME) -> AgentStepAnswer:
    t: Trajectory = ctx.traj
    return await ctx.ask(
        stage,
        lambda budget: ctx.messages("all_at_once", steps=render_steps(t.steps, budget)),
        AgentStepAnswer,
        schema=agent_step_schema(t),
        validate=agent_step_validator(t),
    )


@method(NAME, needs_model=True)
async def run(ctx: RunContext) -> MethodResult:
    ans = await ask_agent_step(ctx)
    return MethodResult(agent=ctx.traj.resolve_agent(ans.agent), step=ans.step, reason=ans.reason)
