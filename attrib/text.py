"""Shortening text for display and prompts: the one place that decides how text is cut and marked.

- :func:`clip`: one line (whitespace collapsed), at most ``limit`` characters, ``…`` marks a cut;
- :func:`excerpt`: the start of a text as written (newlines kept), ``...`` marks a cut;
- :func:`first_line`: the first non-blank line, clipped;
- :func:`middle_cut`: keep the head and the tail, say how much was cut in between (prompt budgets).
"""

from __future__ import annotations

import re

_WS = re.compile(r"\s+")
ELLIPSIS = "…"
CUT_MARK = "[... {n} characters cut by attrib ...]"


def clip(text: str, limit: int, mark: str = ELLIPSIS) -> str:
    """``text`` on one line, cut to at most ``limit`` characters including ``mark``."""
    flat = _WS.sub(" ", text).strip()
    if len(flat) <= limit:
        return flat
    return flat[: max(0, limit - len(mark))].rstrip() + mark


def excerpt(text: str, limit: int = 400, mark: str = "...") -> str:
    """The first ``limit`` characters of ``text`` (stripped, line breaks kept), ``mark`` at a cut."""
    text = text.strip()
    return text if len(text) <= limit else text[: max(0, limit - len(mark))].rstrip() + mark


def first_line(text: str, limit: int = 100) -> str:
    """The first non-blank line of ``text``, clipped to ``limit`` characters."""
    return clip(next((ln for ln in text.splitlines() if ln.strip()), ""), limit)


def middle_cut(text: str, limit: int | None) -> str:
    """Keep the first 2/3 and the last 1/3 of ``limit`` characters, with a marker saying how much was cut."""
    if limit is None or len(text) <= limit:
        return text
    head = (limit * 2) // 3
    tail = limit - head
    return text[:head] + "\n" + CUT_MARK.format(n=len(text) - limit) + "\n" + (text[-tail:] if tail else "")
