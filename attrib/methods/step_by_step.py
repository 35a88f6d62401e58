"""Step-by-Step: judge each step in order, with the history so far; stop at the first decisive one.

When no step is judged decisive the result says so (status ``no_error_found``)
instead of inventing an answer.
"""

from __future__ import annotations

from ..render import render_steps
from ..trajectory import Step
from ..core.answers import StepJudgement
from ..core.method import method
from ..core.context import MethodResult, RunContext

NAME = "step-by-step"


async def judge(ctx: RunContext, step: Step, stage: str, focus: str = "") -> StepJudgement:
    history = ctx.traj.steps[: step.index + 1]
    return await ctx.ask(
        stage,
        lambda budget: ctx.messages("step_by_step", steps=render_steps(history, budget), step=step.index,
                                    agent=step.agent, focus=focus),
        StepJudgement,
        max_tokens=300,
    )


async def first_decisive(ctx: RunContext, steps: list[Step], stage: str, focus: str = "") -> tuple[Step | None, str, int]:
    """Walk ``steps`` in order; return the first judged decisive, its reason, and how many were judged."""
    for n, step in enumerate(steps, 1):
        verdict = await judge(ctx, step, f"{stage}[{step.index}]", focus)
        if verdict.decisive:
            return step, verdict.reason, n
    return None, "", len(steps)


@method(NAME, needs_model=True)
async def run(ctx: RunContext) -> MethodResult:
    step, reason, judged = await first_decisive(ctx, ctx.traj.steps, NAME)
    if step is None:
        return MethodResult(status="no_error_found", reason=f"none of the {judged} steps was judged a decisive mistake",
                            details={"steps_judged": judged})
    return MethodResult(agent=step.agent, step=step.index, reason=reason, details={"steps_judged": judged})
