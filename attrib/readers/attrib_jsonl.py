"""Reader for attrib's own JSON Lines (what ``attrib convert --to jsonl`` writes).

Line 1 is a header ``{"format": "attrib-jsonl", "version": 1, ...}`` with the
trajectory's id, source format, subset, question, question id, ground truth,
gold (``{agent, step, reason}`` with our 0-based step), shortened steps and
metadata (and ``infrastructure_failure``); every other line is one step ``{index, source_id,
agent, label, role, parent_id, phase, observation_ids, content}`` (``phase`` and
``observation_ids`` optional). Reading it gives back the trajectory exactly: steps are
not shortened again, agents are taken as written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..agents import agent_key
from ..convert import JSONL_FORMAT
from ..errors import InputError
from ..trajectory import GoldLabel, Step, Trajectory
from .common import guarded, safe_detect
from .document import Document
from .source import records

NAME = JSONL_FORMAT


def _header(value: Any) -> dict | None:
    if isinstance(value, list) and value and isinstance(value[0], dict) and value[0].get("format") == JSONL_FORMAT:
        return value[0]
    return None


@safe_detect
def detect(doc: Document) -> str | None:
    """None when the first record is an attrib-jsonl header, else why not."""
    value = records(doc)
    if value is None:
        return "not JSON or JSON Lines"
    if _header(value) is None:
        return "no attrib-jsonl header line"
    return None


def _opt(row: dict, key: str) -> str | None:
    value = row.get(key)
    return None if value is None else str(value)


def _ids(row: dict, n: int, doc: Document) -> list[str]:
    """The ids of tool results folded into the step (``observation_ids``, optional)."""
    ids = row.get("observation_ids", [])
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise InputError(doc.path, f"line {n}: 'observation_ids' must be a list of strings")
    return ids


@guarded(NAME)
def read(doc: Document) -> Trajectory:
    value = records(doc)
    header = _header(value)
    if header is None:
        raise InputError(doc.path, f"not {JSONL_FORMAT}: the first line must be its header")
    steps = []
    for n, row in enumerate(value[1:], start=2):
        if not isinstance(row, dict) or not isinstance(row.get("agent"), str) or not isinstance(row.get("content"), str):
            raise InputError(doc.path, f"line {n}: a step needs 'agent' and 'content' strings")
        index = len(steps)
        if row.get("index", index) != index:
            raise InputError(doc.path, f"line {n}: step index {row.get('index')!r}, expected {index}")
        steps.append(Step(index=index, label=str(row.get("label") or row["agent"]), agent=row["agent"],
                          content=row["content"], source_id=_opt(row, "source_id"), role=_opt(row, "role"),
                          parent_id=_opt(row, "parent_id"), phase=_opt(row, "phase"),
                          observation_ids=_ids(row, n, doc)))
    if not steps:
        raise InputError(doc.path, "no steps after the header")
    gold = _gold(header.get("gold"), steps, doc.path)
    return Trajectory(
        id=str(header.get("id") or Path(doc.path).stem),
        path=str(doc.path),
        source_format=str(header.get("source_format") or NAME),
        subset=_opt(header, "subset"),
        question=str(header.get("question") or ""),
        question_id=_opt(header, "question_id"),
        ground_truth=_opt(header, "ground_truth"),
        steps=steps,
        gold=gold,
        truncated_steps=[int(i) for i in header.get("truncated_steps") or []],
        infrastructure_failure=_opt(header, "infrastructure_failure"),
        metadata=dict(header.get("metadata") or {}),
    )


def _gold(raw: Any, steps: list[Step], path: Path) -> GoldLabel | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise InputError(path, "header 'gold' must be an object {agent, step, reason}")
    gold = GoldLabel.model_validate(raw)
    if not 0 <= gold.step < len(steps):
        raise InputError(path, f"gold step {gold.step} is outside the log (steps 0-{len(steps) - 1})")
    if agent_key(gold.agent) not in {agent_key(s.agent) for s in steps}:
        raise InputError(path, f"gold agent {gold.agent!r} is not an agent of this log")
    return gold
