"""Read predictions in any supported form and score them against a data folder.

Supported prediction files (detected from the content):

- JSONL of :class:`~attrib.evaluation.records.CaseRecord` (the ``cases.jsonl`` of a run);
- JSONL, a JSON object or a JSON array of :class:`~attrib.attribution.Attribution` objects
  (``attrib predict --json``);
- the text output of the official Who&When scripts (``Prediction for 12.json:`` blocks).

Every log of the data folder is a case: a log without a prediction is scored as a failed case
(status ``error``, error ``no prediction``), so the denominator is always the data folder.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from .. import jsonsafe
from ..attribution import Attribution
from ..errors import InputError
from ..readers import iter_log_paths
from ..readers.label_file import load_labelled, load_labels
from ..trajectory import Trajectory
from .legacy import legacy_rescore
from .official import looks_official, read_official
from .records import FAILED_KINDS, CaseRecord, parse_jsonl

Kind = Literal["records", "attributions", "official"]
Warn = Callable[[str], None]
OFFICIAL_METHOD = "official-output"
MISSING = "no prediction"


class Predictions(BaseModel):
    """Parsed predictions, not yet matched to logs (``n_steps`` is 0 until scored)."""

    path: str
    kind: Kind
    records: list[CaseRecord]
    step_texts: dict[int, str] = {}  # index in records -> raw official step text


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def _from_attribution_dict(data: dict[str, Any]) -> CaseRecord:
    att = Attribution.model_validate(data)
    u = att.usage
    return CaseRecord(
        case_id=att.case_id, path=att.log_path, n_steps=0, method=att.method, model=att.model,
        with_ground_truth=att.with_ground_truth, status=att.status, pred_agent=att.agent, pred_step=att.step,
        calls=u.calls, cached_calls=u.cached_calls, input_tokens=u.input_tokens,
        cached_input_tokens=u.cached_input_tokens, output_tokens=u.output_tokens, cost_usd=u.cost_usd,
        seconds=u.seconds, error=att.error, error_kind=FAILED_KINDS.get(att.status),
    )


def _json_kind(data: dict[str, Any]) -> Kind | None:
    if "pred_agent" in data or "agent_correct" in data:
        return "records"
    if "case_id" in data and "method" in data and ("agent" in data or "status" in data):
        return "attributions"
    return None


def _read_json_document(p: Path, text: str) -> Predictions | None:
    """A whole-file JSON object or array of Attribution objects, or None when the text is not one JSON value."""
    try:
        data = jsonsafe.loads(text)
    except jsonsafe.TooDeep as exc:
        raise InputError(p, exc.problem) from None
    except json.JSONDecodeError:
        return None
    items = data if isinstance(data, list) else [data]
    records: list[CaseRecord] = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise InputError(p, f"item {i} is not a JSON object")
        kind = _json_kind(item)
        try:
            records.append(CaseRecord.model_validate(item) if kind == "records" else _from_attribution_dict(item))
        except ValidationError as exc:
            raise InputError(p, f"item {i}: not an attribution or case record ({exc.errors()[0]['msg']})") from None
    return Predictions(path=str(p), kind="records" if items and _json_kind(items[0]) == "records" else "attributions",
                       records=records)


def _read_official(p: Path, model: str, with_ground_truth: bool) -> Predictions:
    records: list[CaseRecord] = []
    texts: dict[int, str] = {}
    for pred in read_official(p).values():
        complete = pred.agent is not None and pred.step is not None
        if pred.step_text is not None:
            texts[len(records)] = pred.step_text
        records.append(CaseRecord(
            case_id=pred.case_id, n_steps=0, method=OFFICIAL_METHOD, model=model, with_ground_truth=with_ground_truth,
            status="ok" if complete else "invalid", pred_agent=pred.agent, pred_step=pred.step,
            error=None if complete else "block lacks an agent name or a step number",
        ))
    return Predictions(path=str(p), kind="official", records=records, step_texts=texts)


def read_predictions(
    path: str | Path, model: str = "unknown", with_ground_truth: bool = True, warn: Warn | None = None
) -> Predictions:
    """Detect the format of ``path`` and parse it (``model``/``with_ground_truth`` label official text)."""
    p = Path(path)
    if not p.is_file():
        raise InputError(p, "no such file" if not p.exists() else "not a file")
    try:
        text = p.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(p, f"cannot read: {exc}") from None
    if not text.strip():
        raise InputError(p, "file is empty")
    stripped = text.lstrip()
    if not stripped.startswith(("{", "[")):
        if looks_official(text):
            return _read_official(p, model, with_ground_truth)
        raise InputError(p, "not JSON/JSONL predictions and no 'Prediction for <file>.json:' blocks")
    whole = _read_json_document(p, text)
    if whole is not None:
        return whole
    if stripped.startswith("["):
        raise InputError(p, "not valid JSON (starts with '[')")
    first_line = stripped.splitlines()[0]
    try:
        first = jsonsafe.loads(first_line)
    except json.JSONDecodeError:
        raise InputError(p, "neither one JSON value nor JSON lines (first line is not a JSON object)") from None
    kind = _json_kind(first) if isinstance(first, dict) else None
    if kind is None:
        raise InputError(p, "first line is neither a case record nor an attribution (no 'pred_agent', or 'case_id' and 'method')")
    parse = CaseRecord.model_validate if kind == "records" else _from_attribution_dict
    return Predictions(path=str(p), kind=kind, records=parse_jsonl(p, parse, warn or _warn))


def load_trajectories(data: str | Path, subset: str | None = None,
                      labels: str | Path | None = None) -> list[Trajectory]:
    """Every labelled log under ``data`` (optionally only one subset), with the labels of a label file applied."""
    gold = load_labels(labels) if labels else None
    trajs = [load_labelled(p, gold) for p in iter_log_paths([data])]
    if subset:
        trajs = [t for t in trajs if t.subset == subset]
        if not trajs:
            raise InputError(data, f"no logs of subset {subset!r}")
    labelled = [t for t in trajs if t.gold is not None]
    if not labelled:
        raise InputError(data, "no log carries a gold label (mistake_agent / mistake_step, or --labels FILE)")
    return labelled


class _Index:
    """Find the log a prediction is about: by path, then (subset, id), then a unique id."""

    def __init__(self, trajectories: Sequence[Trajectory]):
        self.by_path = {str(Path(t.path).resolve()): t for t in trajectories if t.path}
        self.by_key = {(t.subset, t.id): t for t in trajectories}
        self.by_id: dict[str, list[Trajectory]] = {}
        for t in trajectories:
            self.by_id.setdefault(t.id, []).append(t)

    def find(self, rec: CaseRecord, source: str) -> Trajectory | None:
        if rec.path and str(Path(rec.path).resolve()) in self.by_path:
            return self.by_path[str(Path(rec.path).resolve())]
        if rec.subset and (rec.subset, rec.case_id) in self.by_key:
            return self.by_key[(rec.subset, rec.case_id)]
        found = self.by_id.get(rec.case_id, [])
        if len(found) > 1:
            subsets = ", ".join(sorted(str(t.subset) for t in found))
            raise InputError(source, f"case {rec.case_id!r} matches logs of several subsets ({subsets}); pass --subset")
        return found[0] if found else None


def _missing(traj: Trajectory, like: CaseRecord, run: int) -> CaseRecord:
    return CaseRecord(
        case_id=traj.id, path=traj.path, n_steps=traj.n_steps, method=like.method, model=like.model,
        with_ground_truth=like.with_ground_truth, run=run, status="error", error=MISSING,
    ).rescored(traj)


def score_predictions(
    preds: Predictions, trajectories: Sequence[Trajectory], legacy: bool = False, warn: Warn | None = None
) -> list[CaseRecord]:
    """Scored records: one per (configuration, run, log); logs without a prediction count as failed."""
    warn = warn or _warn
    index = _Index(trajectories)
    chosen: dict[tuple[str, str, bool, int, str | None, str], tuple[CaseRecord, str | None]] = {}
    unmatched, duplicates = [], 0
    for i, rec in enumerate(preds.records):
        traj = index.find(rec, preds.path)
        if traj is None:
            unmatched.append(rec.case_id)
            continue
        key = (rec.method, rec.model, rec.with_ground_truth, rec.run, traj.subset, traj.id)
        duplicates += key in chosen
        chosen[key] = (rec.rescored(traj), preds.step_texts.get(i))
    if not chosen:
        raise InputError(preds.path, f"none of its {len(preds.records)} prediction(s) matches a log of the data folder")
    if unmatched:
        warn(f"{preds.path}: {len(unmatched)} prediction(s) match no log in the data folder, ignored: "
             + ", ".join(unmatched[:10]) + (" ..." if len(unmatched) > 10 else ""))
    if duplicates:
        warn(f"{preds.path}: {duplicates} repeated prediction(s) for the same case and run; the last one is used")
    out = [legacy_rescore(r, text) if legacy else r for r, text in chosen.values()]
    seen = {k[:4] for k in chosen}
    for method, model, gt, run in sorted(seen, key=str):
        like = next(r for r, _ in chosen.values() if (r.method, r.model, r.with_ground_truth, r.run) == (method, model, gt, run))
        for traj in trajectories:
            if (method, model, gt, run, traj.subset, traj.id) not in chosen:
                rec = _missing(traj, like, run)
                out.append(legacy_rescore(rec) if legacy else rec)
    return out
