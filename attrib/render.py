"""Compact, deterministic rendering of steps for prompts, with head/tail shortening.

Every step is shown with its explicit 0-based index and its agent, because the
models are asked to answer with exactly those (explicit step numbers help, DoVer).
When a prompt does not fit the context window, step contents are cut to a
character budget: the head and tail of each long step are kept and the cut is
marked, so the same input always gives the same prompt.
"""

from __future__ import annotations

from collections.abc import Iterable

from .trajectory import Step, Trajectory

CUT_MARK = "[... {n} characters cut by attrib ...]"
BUDGETS: tuple[int | None, ...] = (None, 12000, 6000, 3000, 1500, 800, 400, 200, 100)


def shorten(text: str, limit: int | None) -> str:
    """Keep the first 2/3 and last 1/3 of ``limit`` characters; mark the cut."""
    if limit is None or len(text) <= limit:
        return text
    head = (limit * 2) // 3
    tail = limit - head
    return text[:head] + "\n" + CUT_MARK.format(n=len(text) - limit) + "\n" + (text[-tail:] if tail else "")


def render_step(step: Step, limit: int | None = None) -> str:
    label = step.agent if step.label == step.agent else f"{step.agent} [{step.label}]"
    return f"--- step {step.index} | agent: {label}\n{shorten(step.content.strip(), limit)}"


def render_steps(steps: Iterable[Step], limit: int | None = None) -> str:
    return "\n".join(render_step(s, limit) for s in steps)


def agents_line(traj: Trajectory) -> str:
    return ", ".join(traj.agents)


def excerpt(text: str, n: int = 400) -> str:
    text = text.strip()
    return text if len(text) <= n else text[: n - 3].rstrip() + "..."
