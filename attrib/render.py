"""Compact, deterministic rendering of steps for prompts, with head/tail shortening.

Every step is shown with its explicit 0-based index and its agent, because the
models are asked to answer with exactly those (explicit step numbers help, DoVer).
When a prompt does not fit the context window, step contents are cut to a
character budget: the head and tail of each long step are kept and the cut is
marked, so the same input always gives the same prompt.

Logs are untrusted data (agents browse the web), so step text cannot forge prompt
structure: each step's content sits between ``<content>`` and ``</content>`` under its
``--- step N | agent: NAME`` header, and inside the content every line that imitates a
step header or an answer object, and every ``<content>``/``</content>`` tag, is escaped
(:func:`neutralize`). Agent labels are flattened to one line. The system prompt tells the
model that the log is data to judge, never instructions.
"""

from __future__ import annotations

import re
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


# A line that could pass for our markup: a step header (also "--- end of step"), or the start of an answer object.
_FORGED_LINE = re.compile(r"^([ \t]*)(?=-{2,}[ \t]*(?:end[ \t]+of[ \t]+)?step\b|\{[ \t]*\"(?:agent|step)\")", re.I | re.M)
_FENCE_TAG = re.compile(r"<([ \t]*/?[ \t]*content[ \t]*)>", re.I)
LABEL_CHARS = 80


def neutralize(text: str) -> str:
    """Escape what in untrusted text could pass for prompt structure (see the module docstring)."""
    text = _FORGED_LINE.sub(lambda m: m.group(1) + "\\", text)
    return _FENCE_TAG.sub(lambda m: "&lt;" + m.group(1) + "&gt;", text)


def one_line(label: str, limit: int = LABEL_CHARS) -> str:
    """An agent label from the log as one short line: no newline, ``|`` or ``---`` to imitate a header."""
    flat = re.sub(r"-{2,}", "-", " ".join(label.split())).replace("|", "/")
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def render_step(step: Step, limit: int | None = None) -> str:
    label = step.agent if step.label == step.agent else f"{step.agent} [{step.label}]"
    body = neutralize(shorten(step.content.strip(), limit))
    return f"--- step {step.index} | agent: {one_line(label)}\n<content>\n{body}\n</content>"


def render_steps(steps: Iterable[Step], limit: int | None = None) -> str:
    return "\n".join(render_step(s, limit) for s in steps)


def agents_line(traj: Trajectory) -> str:
    return ", ".join(one_line(a) for a in traj.agents)


def excerpt(text: str, n: int = 400) -> str:
    text = text.strip()
    return text if len(text) <= n else text[: n - 3].rstrip() + "..."
