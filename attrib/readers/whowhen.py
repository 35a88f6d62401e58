"""Reader for the Who&When benchmark format (both subsets).

Quirks handled (checked on the published files):
- algorithm-generated items are ``{content, role: user|assistant, name}``: the agent is ``name``;
  hand-crafted items are ``{content, role}``: the agent is ``role`` (step 0 is the ``human`` question);
- ``mistake_step`` is a string; labels may differ in case from the log (``Websurfer``);
- ``is_correct`` vs ``is_corrected``; ``level`` is a string, an int, or absent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..agents import agent_key, strip_suffix
from ..errors import InputError
from ..trajectory import GoldLabel, Step, Trajectory
from .document import Document
from .shorten import shorten_content

NAME = "who-and-when"


def detect(doc: Document) -> str | None:
    """None when ``doc`` looks like a Who&When log, else why it does not."""
    if not doc.is_json:
        return "not JSON"
    data = doc.json
    if not isinstance(data, dict):
        return "top level is not an object"
    if "history" not in data:
        return "no 'history' field"
    return None


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, list):  # content given as parts
        return "\n".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in value)
    raise TypeError(type(value).__name__)


def _subset(doc: Document, items: list[dict[str, Any]]) -> str:
    parent = doc.path.parent.name.lower()
    if "hand" in parent:
        return "hand-crafted"
    if "algorithm" in parent:
        return "algorithm-generated"
    return "algorithm-generated" if any("name" in it for it in items) else "hand-crafted"


def read(doc: Document) -> Trajectory:
    data = doc.json
    path = doc.path
    if not isinstance(data, dict):
        raise InputError(path, "expected a JSON object with a 'history' list")
    if "history" not in data:
        raise InputError(path, "no 'history' field")
    history = data["history"]
    if not isinstance(history, list):
        raise InputError(path, f"'history' must be a list, got {type(history).__name__}")
    if not history:
        raise InputError(path, "'history' is empty")
    steps: list[Step] = []
    truncated: list[int] = []
    display: dict[str, str] = {}
    for i, item in enumerate(history):
        if not isinstance(item, dict):
            raise InputError(path, f"history[{i}] must be an object, got {type(item).__name__}")
        label = item.get("name") if item.get("name") is not None else item.get("role")
        if not isinstance(label, str) or not label.strip():
            raise InputError(path, f"history[{i}] has no agent ('name' or 'role' string)")
        try:
            content = _text(item.get("content"))
        except TypeError as exc:
            raise InputError(path, f"history[{i}].content must be a string, got {exc}") from None
        content, cut = shorten_content(content)
        if cut:
            truncated.append(i)
        key = agent_key(label)
        agent = display.setdefault(key, strip_suffix(label))
        role = item.get("role") if "name" in item and isinstance(item.get("role"), str) else None
        steps.append(Step(index=i, label=label, agent=agent, content=content, source_id=str(i), role=role))

    for field in ("question", "ground_truth", "question_ID"):
        if field in data and data[field] is not None and not isinstance(data[field], (str, int, float)):
            raise InputError(path, f"'{field}' must be a string, got {type(data[field]).__name__}")

    gold = _gold(data, steps, path)
    meta = {k: data[k] for k in ("level", "is_correct", "is_corrected", "mistake_type") if k in data}
    gt = data.get("ground_truth")
    return Trajectory(
        id=path.stem,
        path=str(path),
        source_format=NAME,
        subset=_subset(doc, history),
        question=str(data.get("question") or ""),
        question_id=str(data["question_ID"]) if data.get("question_ID") is not None else None,
        ground_truth=str(gt) if gt not in (None, "") else None,
        steps=steps,
        gold=gold,
        truncated_steps=truncated,
        metadata=meta,
    )


def _gold(data: dict[str, Any], steps: list[Step], path: str | Path) -> GoldLabel | None:
    agent, step = data.get("mistake_agent"), data.get("mistake_step")
    if agent is None and step is None:
        return None
    if not isinstance(agent, str) or not agent.strip():
        raise InputError(path, "'mistake_agent' must be a non-empty string")
    try:
        step_int = int(str(step).strip())
    except (TypeError, ValueError):
        raise InputError(path, f"'mistake_step' must be an integer (or a string holding one), got {step!r}") from None
    if not 0 <= step_int < len(steps):
        raise InputError(path, f"labelled mistake_step {step_int} is outside the log (steps 0-{len(steps) - 1})")
    if agent_key(agent) not in {agent_key(s.agent) for s in steps}:
        raise InputError(path, f"labelled mistake_agent {agent.strip()!r} is not an agent of this log")
    reason = data.get("mistake_reason")
    return GoldLabel(agent=agent.strip(), step=step_int, reason=reason if isinstance(reason, str) else None)
