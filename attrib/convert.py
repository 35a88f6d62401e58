"""Write a Trajectory in another format: Who&When JSON, or attrib's own JSON Lines.

``to_who_and_when`` writes what the Who&When reader reads back into the same
steps (agent labels and contents) and the same gold label:

- a hand-crafted source gives hand-crafted items ``{content, role: LABEL}``;
- any other source gives algorithm-generated items ``{content, role, name: LABEL}``,
  ``role`` being the step's chat role (``assistant`` when it has none);
- ``question``, ``ground_truth``, ``question_ID``, and ``mistake_agent``,
  ``mistake_step`` (a string, as in the benchmark), ``mistake_reason`` from the gold;
  Who&When's own ``level``/``is_correct``/``is_corrected``/``mistake_type`` pass through.

Source ids are not part of the Who&When format; ``to_jsonl`` keeps everything:
a header line ``{"format": "attrib-jsonl", "version": 1, id, source_format, subset,
question, question_id, ground_truth, gold, truncated_steps, infrastructure_failure, metadata}``,
then one line per step ``{index, source_id, agent, label, role, parent_id, phase, observation_ids, content}``.
:mod:`attrib.readers.attrib_jsonl` reads it back.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from .trajectory import Trajectory

JSONL_FORMAT = "attrib-jsonl"
JSONL_VERSION = 1
TARGETS = ("who-and-when", "jsonl")
_WW_PASSTHROUGH = ("level", "is_correct", "is_corrected", "mistake_type")


def to_who_and_when(traj: Trajectory) -> dict[str, Any]:
    """The Who&When JSON object of ``traj`` (see the module docstring)."""
    hand = traj.subset == "hand-crafted"
    if hand:
        history = [{"content": s.content, "role": s.label} for s in traj.steps]
    else:
        history = [{"content": s.content, "role": s.role or "assistant", "name": s.label} for s in traj.steps]
    out: dict[str, Any] = {"question": traj.question, "ground_truth": traj.ground_truth or ""}
    for key in _WW_PASSTHROUGH:
        if key in traj.metadata:
            out[key] = traj.metadata[key]
    if traj.question_id is not None:
        out["question_ID"] = traj.question_id
    if traj.gold is not None:
        out["mistake_agent"] = traj.gold.agent
        out["mistake_step"] = str(traj.gold.step)
        if traj.gold.reason is not None:
            out["mistake_reason"] = traj.gold.reason
    out["history"] = history
    return out


def jsonl_header(traj: Trajectory) -> dict[str, Any]:
    return {
        "format": JSONL_FORMAT,
        "version": JSONL_VERSION,
        "id": traj.id,
        "source_format": traj.source_format,
        "subset": traj.subset,
        "question": traj.question,
        "question_id": traj.question_id,
        "ground_truth": traj.ground_truth,
        "gold": traj.gold.model_dump() if traj.gold else None,
        "truncated_steps": list(traj.truncated_steps),
        "infrastructure_failure": traj.infrastructure_failure,
        "metadata": traj.metadata,
    }


def jsonl_lines(traj: Trajectory) -> Iterator[str]:
    """The JSON Lines of ``traj``, one string per line (no newline), header first."""
    yield json.dumps(jsonl_header(traj), ensure_ascii=False, default=str)
    for s in traj.steps:
        row = {"index": s.index, "source_id": s.source_id, "agent": s.agent, "label": s.label, "role": s.role,
               "parent_id": s.parent_id, "phase": s.phase, "observation_ids": s.observation_ids, "content": s.content}
        yield json.dumps(row, ensure_ascii=False)


def to_jsonl(traj: Trajectory) -> str:
    """``traj`` as attrib JSON Lines (see the module docstring), ending with a newline."""
    return "".join(line + "\n" for line in jsonl_lines(traj))


def dumps(traj: Trajectory, target: str) -> str:
    """``traj`` as text in ``target`` (``who-and-when`` or ``jsonl``)."""
    if target == "who-and-when":
        return json.dumps(to_who_and_when(traj), ensure_ascii=False, indent=2) + "\n"
    if target == "jsonl":
        return to_jsonl(traj)
    raise ValueError(f"unknown target {target!r} (known: {', '.join(TARGETS)})")
