"""Gold labels and task fields found in a source's metadata, under the common field names.

A source's metadata is the object around its list of steps (or a JSON Lines
header record). A label is read from, in this order:

1. flat fields: agent under ``mistake_agent``, ``failure_agent``, ``faulty_agent``,
   ``responsible_agent``, ``blamed_agent``, ``culprit_agent``, ``culprit``,
   ``error_agent``, ``decisive_agent``, ``root_cause_agent``; step under
   ``mistake_step``, ``failure_step``, ``faulty_step``, ``decisive_step``,
   ``error_step``, ``critical_step``, ``culprit_step``, ``root_cause_step``,
   ``responsible_step``; reason under ``mistake_reason``, ``failure_reason``,
   ``error_reason``, ``root_cause_reason``, ``reason``, ``explanation``, ``rationale``;
2. an object under ``label``, ``gold``, ``gold_label``, ``annotation``,
   ``attribution``, ``failure_attribution``, ``failure``, ``mistake`` or
   ``root_cause``, holding the same fields or plain ``agent``/``step``/``reason``;
3. a list of failures under ``failures``, ``errors``, ``mistakes``,
   ``failure_modes`` or ``annotations``: the one flagged ``root_cause``/
   ``is_root_cause``/``decisive`` true, else the one whose ``id`` is named by
   ``root_cause_id``/``root_cause``/``root_failure_id``, else the only one.

A step value (integer or string) is looked up first among the steps' source ids
(so labels written in the source's own numbering or span ids work), then among
the reader's aliases (ids of source items that are not steps), then taken as our
0-based index. A label with a step but no agent gets the agent acting at that step;
a label with an agent but no step gives no gold (the agent is kept in
``metadata["label_agent_only"]``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..agents import agent_key
from ..errors import InputError
from ..trajectory import GoldLabel, Step, Trajectory
from .common import norm_id, scalar_id

AGENT_KEYS = ("mistake_agent", "failure_agent", "faulty_agent", "responsible_agent", "blamed_agent",
              "culprit_agent", "culprit", "error_agent", "decisive_agent", "root_cause_agent")
STEP_KEYS = ("mistake_step", "failure_step", "faulty_step", "decisive_step", "error_step", "critical_step",
             "culprit_step", "root_cause_step", "responsible_step")
REASON_KEYS = ("mistake_reason", "failure_reason", "error_reason", "root_cause_reason", "reason",
               "explanation", "rationale")
CONTAINER_KEYS = ("label", "gold", "gold_label", "annotation", "attribution", "failure_attribution",
                  "failure", "mistake", "root_cause")
FAILURE_LIST_KEYS = ("failures", "errors", "mistakes", "failure_modes", "annotations")
ROOT_FLAGS = ("root_cause", "is_root_cause", "decisive", "is_decisive", "root")
ROOT_ID_KEYS = ("root_cause_id", "root_cause", "root_failure_id")
QUESTION_KEYS = ("question", "task", "query", "instruction", "goal", "problem", "user_request")
QUESTION_ID_KEYS = ("question_ID", "question_id", "task_id", "instance_id")
ANSWER_KEYS = ("ground_truth", "expected_answer", "gold_answer", "reference_answer", "answer")

_CONSUMED = frozenset(AGENT_KEYS + STEP_KEYS + REASON_KEYS + QUESTION_KEYS + QUESTION_ID_KEYS + ANSWER_KEYS
                      + ROOT_ID_KEYS)
_PLAIN_AGENT = ("agent", "agent_name")
_PLAIN_STEP = ("step", "step_index", "step_id", "span_id", "spanId", "message_id", "location")
_PLAIN_REASON = ("reason", "description", "explanation", "rationale", "category")


def task_fields(meta: dict[str, Any]) -> dict[str, str | None]:
    """``question``, ``question_id`` and ``ground_truth`` from metadata (None when absent)."""
    return {
        "question": _first_text(meta, QUESTION_KEYS),
        "question_id": _first_text(meta, QUESTION_ID_KEYS),
        "ground_truth": _first_text(meta, ANSWER_KEYS),
    }


def _first_text(meta: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = meta.get(key)
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, (str, int, float)) and str(value).strip():
            return str(value)
    return None


def raw_label(meta: dict[str, Any]) -> tuple[Any, Any, Any] | None:
    """``(agent, step, reason)`` as written in the metadata, or None when it has no label."""
    flat = _fields(meta, AGENT_KEYS, STEP_KEYS, REASON_KEYS)
    if flat:
        return flat
    for key in CONTAINER_KEYS:
        inner = meta.get(key)
        if isinstance(inner, dict):
            found = _fields(inner, AGENT_KEYS + _PLAIN_AGENT, STEP_KEYS + _PLAIN_STEP, REASON_KEYS + _PLAIN_REASON)
            if found:
                return found
    for key in FAILURE_LIST_KEYS:
        failures = meta.get(key)
        if isinstance(failures, list) and failures and all(isinstance(f, dict) for f in failures):
            chosen = _root_failure(meta, failures)
            if chosen is not None:
                return _fields(chosen, AGENT_KEYS + _PLAIN_AGENT, STEP_KEYS + _PLAIN_STEP,
                               REASON_KEYS + _PLAIN_REASON)
    return None


def _fields(obj: dict[str, Any], agents: tuple[str, ...], steps: tuple[str, ...], reasons: tuple[str, ...]) -> tuple[Any, Any, Any] | None:
    agent = next((obj[k] for k in agents if isinstance(obj.get(k), str) and obj[k].strip()), None)
    step = next((obj[k] for k in steps if obj.get(k) is not None and not isinstance(obj[k], (bool, dict, list))), None)
    if agent is None and step is None:
        return None
    reason = next((obj[k] for k in reasons if isinstance(obj.get(k), str) and obj[k].strip()), None)
    return agent, step, reason


def _root_failure(meta: dict[str, Any], failures: list[dict[str, Any]]) -> dict[str, Any] | None:
    flagged = [f for f in failures if any(f.get(k) is True for k in ROOT_FLAGS)]
    if flagged:
        return flagged[0]
    root_id = next((scalar_id(meta[k]) for k in ROOT_ID_KEYS if scalar_id(meta.get(k)) is not None), None)
    if root_id is not None:
        for f in failures:
            fid = scalar_id(f.get("id", f.get("failure_id")))
            if fid is not None and norm_id(fid) == norm_id(root_id):
                return f
    return failures[0] if len(failures) == 1 else None


def resolve_step(value: Any, steps: list[Step], aliases: dict[str, int] | None = None) -> int | None:
    """Our 0-based index for a labelled step value (see the module docstring), or None."""
    wanted = scalar_id(value if not isinstance(value, float) or not value.is_integer() else int(value))
    if wanted is None:
        return None
    key = norm_id(wanted)
    for step in steps:
        if step.source_id is not None and norm_id(step.source_id) == key:
            return step.index
    for step in steps:
        if any(norm_id(o) == key for o in step.observation_ids):
            raise InputError(None, f"labelled step {wanted!r} is a tool result folded into step {step.index}, "
                                   "not an agent step")
    if aliases and key in aliases:
        return aliases[key]
    try:
        index = int(wanted)
    except ValueError:
        return None
    return index if 0 <= index < len(steps) else None


def find_gold(meta: dict[str, Any], steps: list[Step], path: str | Path | None,
              aliases: dict[str, int] | None = None) -> GoldLabel | None:
    """The gold label found in ``meta``, mapped onto ``steps``; InputError when it points outside the log."""
    found = raw_label(meta)
    if found is None:
        return None
    agent, step, reason = found
    if step is None:  # an agent-only label cannot be scored by step; build_trajectory keeps it in metadata
        return None
    try:
        index = resolve_step(step, steps, aliases)
    except InputError as exc:
        raise InputError(path, exc.problem) from None
    if index is None:
        raise InputError(path, f"labelled step {step!r} is not a step of this log (steps 0-{len(steps) - 1}, or a source id)")
    if agent is None:
        agent = steps[index].agent
    agent = agent.strip()
    if agent_key(agent) not in {agent_key(s.agent) for s in steps}:
        raise InputError(path, f"labelled agent {agent!r} is not an agent of this log")
    return GoldLabel(agent=agent, step=index, reason=reason)


def scalar_metadata(meta: dict[str, Any], limit: int = 300) -> dict[str, Any]:
    """The short scalar fields of the source's metadata (kept in ``Trajectory.metadata``)."""
    out: dict[str, Any] = {}
    for key, value in meta.items():
        if key in _CONSUMED:
            continue
        if isinstance(value, (bool, int, float)) or (isinstance(value, str) and len(value) <= limit):
            out[str(key)] = value
    return out


def build_trajectory(doc: Any, fmt: str, steps: list[Step], truncated: list[int], meta: dict[str, Any],
                     question: str | None = None, aliases: dict[str, int] | None = None,
                     extra: dict[str, Any] | None = None) -> Trajectory:
    """The Trajectory of a non-Who&When source: task fields and gold from ``meta``, id from the file stem.

    ``question`` is the reader's fallback when the metadata names none (e.g. the first user message).
    """
    path = doc.path
    if not steps:
        raise InputError(path, f"no steps found (read as {fmt})")
    fields = task_fields(meta)
    metadata = scalar_metadata(meta)
    metadata.update(extra or {})
    label = raw_label(meta)
    if label is not None and label[1] is None:
        metadata["label_agent_only"] = label[0]
    return Trajectory(
        id=Path(path).stem,
        path=str(path),
        source_format=fmt,
        question=fields["question"] or question or "",
        question_id=fields["question_id"],
        ground_truth=fields["ground_truth"],
        steps=steps,
        gold=find_gold(meta, steps, path, aliases),
        truncated_steps=truncated,
        metadata=metadata,
    )
