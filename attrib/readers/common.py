"""Helpers shared by the readers: step building, text of message parts, tool-call rendering.

The readers of foreign formats build their steps through :class:`StepBuilder`, so they get
the same agent display rule as the Who&When reader (the suffix-free label as it first
appears, :func:`attrib.agents.strip_suffix`), the same shortening of enormous contents
(:mod:`attrib.readers.shorten`), the same record of which steps were shortened, and the
same rule for tool output (:meth:`StepBuilder.observe`). The Who&When reader shortens with
the same function; attrib's own JSON Lines are read back as written.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from ..agents import agent_key, strip_suffix
from ..errors import InputError
from ..trajectory import Step, Trajectory
from .document import Document
from .shorten import DEFAULT_LIMIT, shorten_content


class StepBuilder:
    """Accumulates steps in order: 0-based indexes, display names, shortening, source ids."""

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self.steps: list[Step] = []
        self.truncated: list[int] = []
        self.limit = limit
        self._display: dict[str, str] = {}

    def add(self, label: str, content: str, source_id: str | None, role: str | None = None,
            parent_id: str | None = None, phase: str | None = None) -> Step:
        """Append one step; ``label`` is the raw agent label as the source writes it."""
        label = label.strip() or "unknown"
        agent = self._display.setdefault(agent_key(label), strip_suffix(label))
        index = len(self.steps)
        content, cut = shorten_content(content, self.limit)
        if cut:
            self.truncated.append(index)
        step = Step(index=index, label=label, agent=agent, content=content, source_id=source_id,
                    role=role, parent_id=parent_id, phase=phase)
        self.steps.append(step)
        return step

    def observe(self, text: str, source_id: str | None, name: str | None = None,
                into: int | None = None) -> Step | None:
        """Fold a tool result / environment output into the latest step (the one that acted),
        or into step ``into`` when the reader knows the caller (e.g. the calling agent's latest step).

        The rule every reader follows: the environment is not an agent. Its output is shown
        inside the step whose action produced it, as ``[tool result NAME] TEXT``, and its
        source id is kept in ``Step.observation_ids`` (a label pointing at it is not an agent
        step). Returns the updated step, or None when no step precedes the output.
        """
        if not self.steps:
            return None
        last = self.steps[-1 if into is None else into]
        head = f"[tool result {name}]" if name else "[tool result]"
        content, cut = shorten_content(join_text(last.content, f"{head} {text.strip()}".rstrip()), self.limit)
        if cut and last.index not in self.truncated:
            self.truncated.append(last.index)
        ids = [*last.observation_ids, source_id] if source_id is not None else last.observation_ids
        step = last.model_copy(update={"content": content, "observation_ids": ids})
        self.steps[last.index] = step
        return step


def text_of(value: Any) -> str:
    """Text of a content value: a string, ``None``, a list of parts, or any JSON value."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (_part_text(p) for p in value) if t)
    if isinstance(value, dict):
        return _part_text(value)
    return json.dumps(value, ensure_ascii=False)


def _part_text(part: Any) -> str:
    """One content part: ``{"type": "text", "text": ...}``, an image, or anything else as JSON."""
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return "" if part is None else json.dumps(part, ensure_ascii=False)
    kind = str(part.get("type", ""))
    for key in ("text", "content", "refusal"):
        if isinstance(part.get(key), str):
            return part[key]
    if "image" in kind or "image_url" in part:
        return "[image]"
    if "audio" in kind:
        return "[audio]"
    if kind in ("file", "input_file"):
        return "[file]"
    return json.dumps(part, ensure_ascii=False)


def arguments_text(arguments: Any) -> str:
    """Tool-call arguments as one compact string (JSON strings are kept as written, trimmed)."""
    if arguments is None:
        return ""
    if isinstance(arguments, str):
        return arguments.strip()
    return json.dumps(arguments, ensure_ascii=False)


def render_tool_call(name: str, arguments: Any) -> str:
    """``[tool call search] {"query": "..."}``: how an action appears in a step's content."""
    args = arguments_text(arguments)
    return f"[tool call {name}] {args}".rstrip()


def tool_calls_of(message: dict) -> list[tuple[str | None, str, Any]]:
    """``(call id, function name, arguments)`` of an OpenAI-style message (``tool_calls`` or ``function_call``)."""
    calls: list[tuple[str | None, str, Any]] = []
    for call in message.get("tool_calls") or []:
        if not isinstance(call, dict):
            continue
        fn = call.get("function") if isinstance(call.get("function"), dict) else call
        name = fn.get("name") or call.get("type") or "tool"
        call_id = call.get("id")
        calls.append((str(call_id) if call_id is not None else None, str(name), fn.get("arguments")))
    fc = message.get("function_call")
    if isinstance(fc, dict) and fc.get("name"):
        calls.append((None, str(fc["name"]), fc.get("arguments")))
    return calls


def join_text(*parts: str) -> str:
    """Non-empty parts, one per line."""
    return "\n".join(p for p in parts if p)


def scalar_id(value: Any) -> str | None:
    """An id given as a string or an integer, as a string; None for anything else."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def norm_id(value: str) -> str:
    """Comparison form of a source id: trimmed, case-folded, without a ``0x`` prefix."""
    v = value.strip().casefold()
    return v[2:] if v.startswith("0x") else v


def as_dict(value: Any) -> dict:
    """``value`` when it is a JSON object, else an empty one (optional nested objects of a source)."""
    return value if isinstance(value, dict) else {}


def first_key(item: dict, keys: tuple[str, ...]) -> Any:
    """The value of the first of ``keys`` present in ``item`` with a non-null value."""
    for key in keys:
        if item.get(key) is not None:
            return item[key]
    return None


def guarded(name: str) -> Callable[[Callable[[Document], Trajectory]], Callable[[Document], Trajectory]]:
    """Turn any unexpected error of a reader into a one-line InputError (never a traceback)."""

    def wrap(read: Callable[[Document], Trajectory]) -> Callable[[Document], Trajectory]:
        @functools.wraps(read)
        def guarded_read(doc: Document) -> Trajectory:
            try:
                return read(doc)
            except InputError:
                raise
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
                problem = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                raise InputError(doc.path, f"cannot read as {name}: {problem}") from None

        return guarded_read

    return wrap


def safe_detect(detect: Callable[[Document], str | None]) -> Callable[[Document], str | None]:
    """A detector that answers with a reason instead of raising."""

    @functools.wraps(detect)
    def wrapper(doc: Document) -> str | None:
        try:
            return detect(doc)
        except InputError as exc:
            return exc.problem
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            return f"unreadable structure ({type(exc).__name__})"

    return wrapper
