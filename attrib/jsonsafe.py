"""JSON parsing for untrusted input: depth-limited, never a RecursionError.

The standard decoder recurses once per nesting level, so a file nested 100,000 levels deep
raises ``RecursionError`` from inside it, and a value a few thousand levels deep parses but
breaks any recursive code that walks it later. Every parse of outside data (logs, label
files, predictions, model answers) goes through :func:`loads` / :func:`load`, which raise
:class:`TooDeep` (a ``json.JSONDecodeError``, so existing handlers catch it) instead.
"""

from __future__ import annotations

import json
from typing import IO, Any

MAX_DEPTH = 256


class TooDeep(json.JSONDecodeError):
    """A JSON value nested deeper than :data:`MAX_DEPTH` levels."""

    def __init__(self) -> None:
        super().__init__(f"nested deeper than {MAX_DEPTH} levels", "", 0)
        self.problem = f"JSON nested deeper than {MAX_DEPTH} levels"


def loads(text: str | bytes) -> Any:
    try:
        value = json.loads(text)
    except RecursionError:
        raise TooDeep() from None
    check_depth(value)
    return value


def load(fh: IO[str]) -> Any:
    return loads(fh.read())  # what json.load does too: the decoder works on the whole text


def check_depth(value: Any, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`TooDeep` when ``value`` nests lists/objects deeper than ``limit`` (iterative walk)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            raise TooDeep()
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))


def problem(exc: json.JSONDecodeError) -> str:
    """The one-line description of a parse failure."""
    if isinstance(exc, TooDeep):
        return exc.problem
    return f"not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
