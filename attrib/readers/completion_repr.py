"""The message text inside a ``ChatCompletion(...)`` Python repr, as logs written with ``str(response)`` hold it.

``message_of(text)`` finds ``content='...'`` (or ``content="..."``) of the first message,
and the ``name``/``arguments`` of its tool calls, and decodes each string literal with
:func:`ast.literal_eval` (literals only, nothing is executed), so escaped quotes, ``\\n``
and ``\\uXXXX`` come out as written by the model. It returns None when the repr holds no
readable message (e.g. it was cut off mid-string); the caller then shows the raw text.
"""

from __future__ import annotations

import ast
import re

from .common import join_text, render_tool_call

_CONTENT = re.compile(r"\bcontent=(?=['\"]|None\b)")
_TOOL_CALL = re.compile(r"\bFunction\(")
_MESSAGE = re.compile(r"\bmessage=\w*Message\(")


def is_completion_repr(text: str) -> bool:
    """True when ``text`` looks like the repr of an OpenAI-style completion object."""
    head = text.lstrip()[:200]
    return head.startswith(("ChatCompletion(", "Completion(", "ModelResponse(")) or bool(_MESSAGE.search(text[:2000]))


def string_literal(text: str, start: int) -> tuple[str, int] | None:
    """The Python string literal starting at ``text[start]`` (a quote): its value and the index after it."""
    if start >= len(text) or text[start] not in "'\"":
        return None
    quote, i = text[start], start + 1
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == quote:
            try:
                value = ast.literal_eval(text[start:i + 1])
            except (ValueError, SyntaxError):
                return None
            return (value, i + 1) if isinstance(value, str) else None
        i += 1
    return None


def _keyword(text: str, name: str, start: int, end: int) -> str | None:
    m = re.compile(rf"\b{name}=(?=['\"])").search(text, start, end)
    if not m:
        return None
    found = string_literal(text, m.end())
    return found[0] if found else None


def message_of(text: str) -> str | None:
    """The first message's content and tool calls, rendered; None when none can be read."""
    m = _MESSAGE.search(text)
    start = m.end() if m else 0
    content_match = _CONTENT.search(text, start)
    if content_match is None:
        return None
    content = ""
    if not text.startswith("None", content_match.end()):
        found = string_literal(text, content_match.end())
        if found is None:
            return None
        content = found[0]
    calls = []
    starts = [c.end() for c in _TOOL_CALL.finditer(text, content_match.end())]
    for n, begin in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(text)
        name = _keyword(text, "name", begin, end)
        if name is not None:
            calls.append(render_tool_call(name, _keyword(text, "arguments", begin, end)))
    if not content and not calls:
        return None
    return join_text(content, *calls)
