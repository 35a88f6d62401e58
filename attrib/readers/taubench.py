"""Reader for τ-bench result records (format name ``tau-bench``).

A record is what τ-bench's runner writes per task and trial::

    {"task_id": 42, "reward": 0.0, "trial": 0,
     "info": {"task": {"user_id": ..., "instruction": ..., "actions": [{"name", "kwargs"}], "outputs": [...]}, ...},
     "traj": [{"role", "content", "index", "tool_calls", "tool_call_id", "name"}, ...]}

A file holds one record (a JSON object) or several (a JSON list, as τ-bench writes its results, or
JSON Lines). One record of a file holding several is read as ``results.json#ID``, where ID is its
``task_id`` (its 0-based position when task ids are missing or repeat, e.g. several trials), and
becomes the case ``results#ID``; ``attrib evaluate``/``validate`` run every record as its own case.
Without a selector such a file is a one-line error listing its ids (:mod:`attrib.readers.multi`).

Steps, in ``traj`` order:

- the actors are ``assistant`` (the agent under test) and ``user`` (the user simulator); the system
  message (the domain policy) is kept as a step of agent ``system``, as the chat reader does;
- an assistant message's content is its text plus one ``[tool call NAME] ARGUMENTS`` line per call;
- a ``tool`` message is not a step: its output is folded into the step that made the call
  (matched by ``tool_call_id``, else the latest step; :func:`attrib.readers.chat.fold_result`) and
  its id kept in ``observation_ids``;
- source id: τ-bench's 1-based ``index`` as written; without it, the 1-based position in ``traj``
  (so AgentRx ``step_number`` values, which count the same way, resolve through source ids).

The task is the user instruction (``info.task.instruction``, else the first user message); the
ground truth is the expected actions and outputs of ``info.task``; ``reward`` and ``trial`` stay in
the metadata (reward 1 marks a solved run, see ``attrib kb build --from-runs``).
"""

from __future__ import annotations

import json
from typing import Any, TypeGuard

from ..trajectory import Trajectory
from . import multi
from .chat import ROLES, ToolCalls, fold_result
from .common import StepBuilder, guarded, join_text, safe_detect, scalar_id, text_of
from .document import Document
from .labels import build_trajectory
from .source import records

NAME = "tau-bench"
RECORD_KEYS = ("task_id", "reward", "info")
ID_KEY = "task_id"


def is_record(value: Any) -> TypeGuard[dict[str, Any]]:
    """A τ-bench result record: a ``traj`` list of chat messages and a task id, reward or info."""
    return (isinstance(value, dict) and isinstance(value.get("traj"), list)
            and any(k in value for k in RECORD_KEYS)
            and all(isinstance(m, dict) and isinstance(m.get("role"), str) and m["role"].lower() in ROLES
                    for m in value["traj"]))


def _records(doc: Document) -> list[dict[str, Any]] | str:
    """The τ-bench records of the document (one or several), or why it holds none."""
    value = records(doc)
    if value is None:
        return "not JSON or JSON Lines"
    if isinstance(value, dict):
        return [value] if is_record(value) else _why(value)
    if isinstance(value, list) and value and all(is_record(v) for v in value):
        return value
    return "not a tau-bench record (an object with 'traj' and 'task_id'/'reward'/'info')"


def _why(value: dict[str, Any]) -> str:
    if not isinstance(value.get("traj"), list):
        return "no 'traj' message list"
    if not any(k in value for k in RECORD_KEYS):
        return "no 'task_id', 'reward' or 'info'"
    return "a 'traj' item has no chat role (system/user/assistant/tool)"


@safe_detect
def detect(doc: Document) -> str | None:
    """None for a τ-bench result record or a list of them, else why not."""
    found = _records(doc)
    return found if isinstance(found, str) else None


def _task(record: dict[str, Any]) -> dict[str, Any]:
    info = record.get("info")
    task = info.get("task") if isinstance(info, dict) else None
    return task if isinstance(task, dict) else {}


def expected_outcome(task: dict[str, Any]) -> str | None:
    """The expected actions and outputs of a τ-bench task, as text (the run's ground truth)."""
    lines = []
    for action in task.get("actions") or []:
        if isinstance(action, dict) and action.get("name"):
            kwargs = action.get("kwargs", action.get("arguments", {}))
            lines.append(f"{action['name']}({json.dumps(kwargs, ensure_ascii=False, sort_keys=True)})")
    outputs = [str(o) for o in task.get("outputs") or [] if str(o).strip()]
    parts = [f"Expected actions: {'; '.join(lines)}" if lines else "",
             f"Expected outputs: {'; '.join(outputs)}" if outputs else ""]
    return join_text(*parts) or None


@guarded(NAME)
def read(doc: Document) -> Trajectory:
    return multi.read_selected(doc, _records(doc), ID_KEY, "tau-bench", read_record)


def read_record(doc: Document, record: dict[str, Any]) -> Trajectory:
    """The trajectory of one τ-bench record (``doc`` names the file)."""
    builder = StepBuilder()
    calls = ToolCalls()
    first_user = None
    for pos, msg in enumerate(record["traj"], start=1):
        sid = scalar_id(msg.get("index")) or str(pos)
        role = msg["role"].lower()
        text = text_of(msg.get("content"))
        if role in ("tool", "function"):
            fold_result(builder, calls, msg, text, sid)
            continue
        label = "system" if role in ("system", "developer") else role
        builder.add(label, join_text(text, *calls.record(msg, sid, len(builder.steps))), sid, role)
        if role == "user" and first_user is None:
            first_user = text or None
    task = _task(record)
    instruction = task.get("instruction") if isinstance(task.get("instruction"), str) else None
    meta = {k: v for k, v in record.items() if k not in ("traj", "info")}
    meta.setdefault("ground_truth", expected_outcome(task))
    if meta["ground_truth"] is None:
        del meta["ground_truth"]
    if isinstance(task.get("user_id"), str):
        meta.setdefault("user_id", task["user_id"])
    return build_trajectory(doc, NAME, builder.steps, builder.truncated, meta, question=instruction or first_user)
