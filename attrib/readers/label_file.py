"""Gold labels kept in a file apart from the logs (``--labels FILE`` on validate, evaluate and score).

Three shapes, in a JSON file (one record or a list) or a JSON Lines file (one record per line):

- **AgentRx**: ``{trajectory_id, failures: [{failure_id, step_number, failed_agent, failure_category,
  description, ...}], root_cause: {failure_id}}``. The decisive step is the failure that ``root_cause``
  names (``root_cause`` may also be the id itself); a record with a single failure and no root cause
  uses it. ``step_number`` is the source's own step number (τ-bench's 1-based ``index``);
- **TRAIL**: ``{trace_id, errors: [{location, category, evidence, description?, impact}], scores?}``, the
  annotations TRAIL publishes apart from its traces. ``location`` is a span id; the errors map onto the
  trace exactly as the OpenInference reader maps a trace's own ``errors``
  (:func:`attrib.readers.openinference.gold_from_errors`): a span maps to the step it produced, a tool
  span to the step whose action called it (TRAIL writes tool failures there by design), a container span
  to the first step below it; the decisive error is the earliest with impact ``HIGH``, else the earliest.
  To map containers the trace file is walked again (:func:`attrib.readers.openinference.read_spans`);
  on a log in another format (e.g. converted to attrib JSON Lines) a location is looked up among the
  steps' source ids and folded ``observation_ids``. A record with an empty ``errors`` list leaves the
  trace without gold (the annotators found no error); ``scores`` are kept in the metadata;
- **plain**: ``{id, agent, step, reason?}``.

A label is matched to a log by id: the log's case id (the file stem, ``<stem>#<ID>`` for one record of a
multi-record file), its ``question_id`` (e.g. τ-bench's ``task_id``), a ``trace_id``/``trajectory_id`` in
its metadata or the record's own id (``record_id``). Its step is resolved as
every label is (:func:`attrib.readers.labels.resolve_step`): first among the steps' source ids, then
as a 0-based index into the log; a step that is a folded tool result (TRAIL locations excepted, see
above) or not in the log is an error of the label file, and so is one naming an infrastructure record (a ChatDev chat table or HTTP
request). The agent is compared under the usual normalization rule; AgentRx's ``agent`` is
the ``assistant`` of a chat log. A label with no agent blames the agent acting at its step.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..agents import agent_key
from ..errors import InputError
from ..trajectory import GoldLabel, Trajectory
from . import load_log, openinference
from .common import norm_id, scalar_id
from .labels import resolve_step
from .source import open_lean, records

LABELS_HELP = ("Gold labels in a separate file: AgentRx JSON/JSONL ({trajectory_id, failures, root_cause}), "
               "TRAIL annotations ({trace_id, errors}) or JSONL of {id, agent, step}; matched to logs by id, "
               "replacing labels the logs carry.")

# Names label files use for the agents of a chat log (AgentRx says "agent" for the assistant).
AGENT_ALIASES = {"agent": "assistant", "assistantagent": "assistant", "usersimulator": "user",
                 "simulateduser": "user", "human": "user"}


class FileLabel(BaseModel):
    """One label read from a label file (step as written: a source id or a 0-based index)."""

    id: str
    agent: str | None = None
    step: str | None = None
    reason: str | None = None
    shape: str = "plain"
    errors: list[dict[str, Any]] = Field(default_factory=list, description="TRAIL: the error annotations")
    scores: dict[str, float] = Field(default_factory=dict, description="TRAIL: the trace's numeric scores")


def load_labels(path: str | Path) -> dict[str, FileLabel]:
    """Labels of a label file by normalized trajectory id; InputError (one line) on a bad file."""
    doc = open_lean(path)
    value = records(doc)
    if value is None:
        raise InputError(path, "not a label file: neither JSON nor JSON Lines")
    items = value if isinstance(value, list) else [value]
    out: dict[str, FileLabel] = {}
    for i, item in enumerate(items):
        label = _label(item, i, path)
        key = norm_id(label.id)
        if key in out:
            raise InputError(path, f"record {i}: trajectory id {label.id!r} is labelled twice")
        out[key] = label
    if not out:
        raise InputError(path, "holds no labels")
    return out


def _label(item: Any, i: int, path: str | Path) -> FileLabel:
    if not isinstance(item, dict):
        raise InputError(path, f"record {i}: not a JSON object")
    if isinstance(item.get("failures"), list):
        return _agentrx(item, i, path)
    if isinstance(item.get("errors"), list) and "trace_id" in item:
        return _trail(item, i, path)
    ident = scalar_id(item.get("id", item.get("trajectory_id")))
    if ident is None or ("agent" not in item and "step" not in item):
        raise InputError(path, f"record {i}: neither an AgentRx record (trajectory_id, failures), "
                               "a TRAIL annotation (trace_id, errors) nor a label {id, agent, step}")
    return FileLabel(id=ident, agent=_text(item.get("agent")), step=scalar_id(item.get("step")),
                     reason=_text(item.get("reason")))


def _agentrx(item: dict[str, Any], i: int, path: str | Path) -> FileLabel:
    ident = scalar_id(item.get("trajectory_id", item.get("id")))
    if ident is None:
        raise InputError(path, f"record {i}: AgentRx record without a trajectory_id")
    failures = [f for f in item["failures"] if isinstance(f, dict)]
    root = item.get("root_cause")
    root_id = scalar_id(root.get("failure_id") if isinstance(root, dict) else root)
    if root_id is not None:
        chosen = [f for f in failures if scalar_id(f.get("failure_id")) == root_id]
        if not chosen:
            raise InputError(path, f"record {i} ({ident}): root_cause names failure {root_id!r}, "
                                   "which is not in its failures")
    elif len(failures) == 1:
        chosen = failures
    else:
        raise InputError(path, f"record {i} ({ident}): {len(failures)} failures and no root_cause")
    f = chosen[0]
    step = scalar_id(f.get("step_number", f.get("step")))
    if step is None:
        raise InputError(path, f"record {i} ({ident}): the root-cause failure has no step_number")
    kind, what = _text(f.get("failure_category")), _text(f.get("description"))
    reason = f"{kind}: {what}" if kind and what else (kind or what)
    return FileLabel(id=ident, agent=_text(f.get("failed_agent", f.get("agent"))), step=step, reason=reason,
                     shape="agentrx")


def _trail(item: dict[str, Any], i: int, path: str | Path) -> FileLabel:
    ident = scalar_id(item.get("trace_id"))
    if ident is None:
        raise InputError(path, f"record {i}: TRAIL annotation without a trace_id")
    errors: list[dict[str, Any]] = []
    for n, err in enumerate(item["errors"]):
        if not isinstance(err, dict) or scalar_id(err.get("location")) is None:
            raise InputError(path, f"record {i} ({ident}): error {n} has no span id under 'location'")
        errors.append(err)
    return FileLabel(id=ident, shape="trail", errors=errors, scores=_scores(item.get("scores")))


def _scores(value: Any) -> dict[str, float]:
    """The numeric fields of TRAIL's ``scores`` (an object, or a list holding one)."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if not isinstance(value, dict):
        return {}
    return {str(k): float(v) for k, v in value.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def label_for(traj: Trajectory, labels: dict[str, FileLabel]) -> FileLabel | None:
    """The label of ``traj``: by case id, then question id, then a trace/trajectory id in its metadata, then
    the own id of the record it was selected as (``PATH#ID``, :mod:`attrib.readers.multi`)."""
    keys = [traj.id, traj.question_id, traj.metadata.get("trace_id"), traj.metadata.get("trajectory_id"),
            traj.metadata.get("record_id")]
    for key in keys:
        sid = scalar_id(key)
        if sid is not None and norm_id(sid) in labels:
            return labels[norm_id(sid)]
    return None


def apply_labels(traj: Trajectory, labels: dict[str, FileLabel]) -> Trajectory:
    """``traj`` with the gold label of its record in ``labels`` (unchanged when it has none there).

    The file's label replaces one the log carries. InputError names the log when the label does not fit it.
    """
    label = label_for(traj, labels)
    if label is None:
        return traj
    if label.shape == "trail":
        return _apply_trail(traj, label)
    if label.step is None:
        raise InputError(traj.path, f"label {label.id!r} has no step")
    try:
        index = resolve_step(label.step, traj.steps)
    except InputError as exc:
        raise InputError(traj.path, f"label {label.id!r}: {exc.problem}") from None
    if index is None and _infrastructure(traj, label.step):
        raise InputError(traj.path, f"label {label.id!r}: step {label.step!r} is an infrastructure record "
                                    "(not an agent step)")
    if index is None:
        raise InputError(traj.path, f"label {label.id!r}: step {label.step!r} is not a step of this log "
                                    f"(source ids, or 0-{traj.n_steps - 1})")
    agent = traj.steps[index].agent if label.agent is None else _log_agent(traj, label.agent)
    if agent is None:
        raise InputError(traj.path, f"label {label.id!r}: agent {label.agent!r} is not an agent of this log "
                                    f"({', '.join(traj.agents)})")
    gold = GoldLabel(agent=agent, step=index, reason=label.reason)
    meta = {**traj.metadata, "label_source": label.shape, "label_step_as_written": label.step}
    return traj.model_copy(update={"gold": gold, "metadata": meta})


def _apply_trail(traj: Trajectory, label: FileLabel) -> Trajectory:
    """``traj`` labelled by TRAIL annotations, with the reader's own rule (see the module docstring)."""
    meta: dict[str, Any] = {**traj.metadata, "label_source": label.shape}
    if label.scores:
        meta["trail_scores"] = label.scores
    if not label.errors:  # no error found: no gold, and none of the log's own gold details
        kept = {k: v for k, v in meta.items() if k not in _TRAIL_GOLD_KEYS}
        return traj.model_copy(update={"gold": None, "metadata": {**kept, "annotated_errors": 0}})
    try:
        gold, gold_meta = openinference.gold_from_errors(label.errors, _span_steps(traj), traj.steps, traj.path)
    except InputError as exc:
        raise InputError(traj.path, f"label {label.id!r}: {exc.problem}") from None
    return traj.model_copy(update={"gold": gold, "metadata": {**meta, **gold_meta}})


_TRAIL_GOLD_KEYS = frozenset({"gold_location", "gold_category", "gold_impact"})


def _span_steps(traj: Trajectory) -> dict[str, int]:
    """Span id -> step: the trace walked again when ``traj`` was read from an OpenInference file, else the
    steps' source ids and folded observation ids."""
    if traj.source_format == openinference.NAME and traj.path is not None:
        doc = open_lean(traj.path)
        if openinference.detect(doc) is None:
            return openinference.read_spans(doc).span_steps()
    out: dict[str, int] = {}
    for step in traj.steps:
        for sid in (step.source_id, *step.observation_ids):
            if sid is not None:
                out.setdefault(sid, step.index)
    return out


def _infrastructure(traj: Trajectory, step: str) -> bool:
    """Whether ``step`` names a record the reader kept as infrastructure (e.g. a ChatDev HTTP request)."""
    infra = traj.metadata.get("infrastructure")
    ids = infra.get("ids") if isinstance(infra, dict) else None
    return isinstance(ids, list) and norm_id(step) in {norm_id(str(i)) for i in ids}


def _log_agent(traj: Trajectory, name: str) -> str | None:
    found = traj.resolve_agent(name)
    if found is None and agent_key(name) in AGENT_ALIASES:
        found = traj.resolve_agent(AGENT_ALIASES[agent_key(name)])
    return found


def load_labelled(path: str | Path, labels: dict[str, FileLabel] | None, fmt: str = "auto") -> Trajectory:
    """Read one log and apply ``labels`` (None: the log's own labels only)."""
    traj = load_log(path, fmt)
    return apply_labels(traj, labels) if labels else traj
