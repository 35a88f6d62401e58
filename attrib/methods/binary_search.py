"""Binary Search: halve the step range until one step is left (ceil(log2 n) calls at most).

Each call sees the current segment and is told exactly which step ranges form
its first and second halves; the agent is the one acting at the final step.
"""

from __future__ import annotations

from ..render import render_steps
from ..core.answers import HalfChoice
from ..core.method import method
from ..core.context import MethodResult, RunContext

NAME = "binary-search"


@method(NAME, needs_model=True)
async def run(ctx: RunContext) -> MethodResult:
    t = ctx.traj
    low, high = 0, t.n_steps - 1
    path: list[dict] = []
    reason = ""
    while low < high:
        mid = (low + high) // 2
        segment = t.steps[low : high + 1]
        choice = await ctx.ask(
            f"{NAME}[{low}-{high}]",
            lambda budget: ctx.messages("binary_search", steps=render_steps(segment, budget), low=low, high=high,
                                        mid=mid, next=mid + 1),
            HalfChoice,
            max_tokens=200,
        )
        path.append({"low": low, "high": high, "first": [low, mid], "second": [mid + 1, high], "chose": choice.half})
        reason = choice.reason
        low, high = (low, mid) if choice.half == "first" else (mid + 1, high)
    step = t.steps[low]
    why = f"narrowed to step {low} in {len(path)} halvings" + (f"; last judgement: {reason}" if reason else "")
    return MethodResult(agent=step.agent, step=low, reason=why, details={"search_path": path})
