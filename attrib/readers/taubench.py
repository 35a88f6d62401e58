"""Reader for τ-bench result records (format name ``tau-bench``).

A record is what τ-bench's runner writes per task and trial::

    {"task_id": 42, "reward": 0.0, "trial": 0,
     "info": {"task": {"user_id": ..., "instruction": ..., "actions": [{"name", "kwargs"}], "outputs": [...]}, ...},
     "traj": [{"role", "content", "index", "tool_calls", "tool_call_id", "name"}, ...]}

One record per file (a JSON object, or a JSON Lines file with one line). A file holding several
records is refused with a message saying so: split it, one record per file, so each run is one case.

Steps, in ``traj`` order:

- the actors are ``assistant`` (the agent under test) and ``user`` (the user simulator); the system
  message (the domain policy) is kept as a step of agent ``system``, as the chat reader does;
- an assistant message's content is its text plus one ``[tool call NAME] ARGUMENTS`` line per call;
- a ``tool`` message is not a step: its output is folded into the step that made the call
  (:meth:`attrib.readers.common.StepBuilder.observe`) and its id kept in ``observation_ids``;
- source id: τ-bench's 1-based ``index`` as written; without it, the 1-based position in ``traj``
  (so AgentRx ``step_number`` values, which count the same way, resolve through source ids).

The task is the user instruction (``info.task.instruction``, else the first user message); the
ground truth is the expected actions and outputs of ``info.task``; ``reward`` and ``trial`` stay in
the metadata (reward 1 marks a solved run, see ``attrib kb build --from-runs``).
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import InputError
from ..trajectory import Trajectory
from .chat import ROLES, ToolCalls
from .common import StepBuilder, guarded, join_text, safe_detect, scalar_id, text_of
from .document import Document
from .labels import build_trajectory
from .source import records

NAME = "tau-bench"
RECORD_KEYS = ("task_id", "reward", "info")


def is_record(value: Any) -> bool:
    """A τ-bench result record: a ``traj`` list of chat messages and a task id, reward or info."""
    return (isinstance(value, dict) and isinstance(value.get("traj"), list)
            and any(k in value for k in RECORD_KEYS)
            and all(isinstance(m, dict) and isinstance(m.get("role"), str) and m["role"].lower() in ROLES
                    for m in value["traj"]))


def _record(doc: Document) -> dict | str:
    """The one record of the document, or why there is none."""
    value = records(doc)
    if value is None:
        return "not JSON or JSON Lines"
    if isinstance(value, dict):
        return value if is_record(value) else _why(value)
    if isinstance(value, list) and value and all(is_record(v) for v in value):
        if len(value) == 1:
            return value[0]
        ids = ", ".join(str(v.get("task_id")) for v in value[:5]) + (", ..." if len(value) > 5 else "")
        raise InputError(doc.path, f"holds {len(value)} tau-bench records (task ids {ids}); "
                                   "one record per file expected: split the file")
    return "not a tau-bench record (an object with 'traj' and 'task_id'/'reward'/'info')"


def _why(value: dict) -> str:
    if not isinstance(value.get("traj"), list):
        return "no 'traj' message list"
    if not any(k in value for k in RECORD_KEYS):
        return "no 'task_id', 'reward' or 'info'"
    return "a 'traj' item has no chat role (system/user/assistant/tool)"


@safe_detect
def detect(doc: Document) -> str | None:
    """None for a τ-bench result record, else why not (several records are claimed, then refused)."""
    value = records(doc)
    if isinstance(value, list) and len(value) > 1 and all(is_record(v) for v in value):
        return None
    found = _record(doc)
    return found if isinstance(found, str) else None


def _task(record: dict) -> dict:
    info = record.get("info")
    task = info.get("task") if isinstance(info, dict) else None
    return task if isinstance(task, dict) else {}


def expected_outcome(task: dict) -> str | None:
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
    found = _record(doc)
    if isinstance(found, str):
        raise InputError(doc.path, f"not a tau-bench record: {found}")
    return read_record(doc, found)


def read_record(doc: Document, record: dict) -> Trajectory:
    """The trajectory of one τ-bench record (``doc`` names the file)."""
    builder = StepBuilder()
    calls = ToolCalls()
    first_user = None
    for pos, msg in enumerate(record["traj"], start=1):
        sid = scalar_id(msg.get("index")) or str(pos)
        role = msg["role"].lower()
        text = text_of(msg.get("content"))
        if role in ("tool", "function"):
            name, _ = calls.result(msg)
            if builder.observe(text, sid, name) is None:
                raise InputError(doc.path, f"traj item {sid} is a tool result before any step")
            continue
        label = "system" if role in ("system", "developer") else role
        builder.add(label, join_text(text, *calls.record(msg, sid)), sid, role)
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
