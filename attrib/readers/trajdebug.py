"""Reader for TrajDebug's unified trajectory format.

Shape: ``{"messages": [{"step", "role", "name", "content", "judgable"}], "metadata": {"dataset",
"task_id", "task_description", "reward", "annotation": {"critical_error_step",
"critical_error_type"}}}`` (one object per file, or a one-line JSON Lines file).

- a judgable message is one step; agent: its ``name``, else its ``role``;
- a message that is not judgable and whose role is a tool/environment role (``tool``,
  ``function``, ``environment``, ``env``, ``observation``, ``ipython``) is folded into the
  preceding step (:meth:`~attrib.readers.common.StepBuilder.observe`); other non-judgable
  messages (the user's request, a system prompt) and a tool message with no step before it
  stay steps of their own, so nothing of the log is dropped;
- source id: the message's ``step`` value as written (a second message with the same value
  gets ``STEP#2``, ...), else its 0-based position;
- task: ``task_description``; question id: ``task_id``; ``dataset`` and ``reward`` are kept.

Label mapping. Whether TrajDebug numbers ``step`` from 0 or 1 could not be confirmed from
published data, so ``critical_error_step`` is matched against the messages' own ``step``
values (our source ids), never taken as our index: both numberings map to the message the
annotator meant. The gold agent is the one acting at that step; ``critical_error_type`` is
the gold reason and is kept in ``metadata``. A critical step naming a folded tool message is
an error of the file (tool output is not an agent's step).
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..trajectory import Trajectory
from .common import StepBuilder, as_dict, guarded, safe_detect, scalar_id, text_of
from .document import Document
from .labels import build_trajectory
from .source import records, structure_reason

NAME = "trajdebug"
TOOL_ROLES = frozenset({"tool", "function", "environment", "env", "observation", "ipython"})


def _is_message(item: Any) -> bool:
    return isinstance(item, dict) and "content" in item and ("role" in item or "name" in item)


def _parts(value: Any) -> tuple[list[dict[str, Any]], dict[str, Any]] | str:
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if not isinstance(value, dict):
        return "not a JSON object"
    msgs, meta = value.get("messages"), value.get("metadata")
    if not isinstance(msgs, list) or not isinstance(meta, dict):
        return "no 'messages' list with a 'metadata' object"
    if not msgs:
        return "empty 'messages'"
    if not any(isinstance(m, dict) and "judgable" in m for m in msgs):
        return "no message carries 'judgable'"
    if not any(k in meta for k in ("task_description", "annotation", "dataset")):
        return "metadata has no 'task_description', 'dataset' or 'annotation'"
    for i, m in enumerate(msgs):
        if not _is_message(m):
            return f"message {i} has no role/name and content"
    return msgs, meta


@safe_detect
def detect(doc: Document) -> str | None:
    """None for a TrajDebug unified trajectory, else why not."""
    return structure_reason(doc, _parts)


def _label(msg: dict[str, Any]) -> str:
    for key in ("name", "role"):
        value = msg.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return "unknown"


def _judgable(msg: dict[str, Any]) -> bool:
    flag = msg.get("judgable")
    return flag is True or (isinstance(flag, str) and flag.strip().lower() in ("true", "yes", "1"))


@guarded(NAME)
def read(doc: Document) -> Trajectory:
    value = records(doc)
    found = _parts(value) if value is not None else "not JSON or JSON Lines"
    if isinstance(found, str):
        raise InputError(doc.path, f"not a TrajDebug trajectory: {found}")
    msgs, meta = found
    builder = StepBuilder()
    seen: dict[str, int] = {}
    for pos, msg in enumerate(msgs):
        sid = scalar_id(msg.get("step")) or str(pos)
        seen[sid] = seen.get(sid, 0) + 1
        if seen[sid] > 1:
            sid = f"{sid}#{seen[sid]}"
        role = msg["role"].strip().lower() if isinstance(msg.get("role"), str) else None
        text = text_of(msg.get("content"))
        if not _judgable(msg) and role in TOOL_ROLES and builder.observe(text, sid, _label(msg)) is not None:
            continue
        builder.add(_label(msg), text, sid, role)
    annotation = as_dict(meta.get("annotation"))
    fields: dict[str, Any] = {k: meta[k] for k in ("dataset", "reward") if k in meta}
    fields["question"] = meta.get("task_description")
    fields["task_id"] = meta.get("task_id")
    extra: dict[str, Any] = {}
    if annotation.get("critical_error_step") is not None:
        fields["critical_step"] = annotation["critical_error_step"]
        if isinstance(annotation.get("critical_error_type"), str):
            fields["error_reason"] = annotation["critical_error_type"]
            extra["critical_error_type"] = annotation["critical_error_type"]
    return build_trajectory(doc, NAME, builder.steps, builder.truncated, fields, extra=extra)
