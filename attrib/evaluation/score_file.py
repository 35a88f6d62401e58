"""Scoring a predictions file against labelled logs (the library side of ``attrib score``)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from ..errors import InputError
from .predictions import load_trajectories, read_predictions, score_predictions
from .records import CaseRecord
from .scoring import N_BOOTSTRAP, SEED, Report, build_report, check_subset, group_by_config, random_expected


class ScoreResult(BaseModel):
    """One report per configuration found in the predictions, the scored records, and chance level."""

    reports: list[Report]
    records: list[CaseRecord]
    random_expected: tuple[float, float]


def score_file(predictions: str | Path, data: str | Path, *, legacy: bool = False, subset: str | None = None,
               model: str = "unknown", with_ground_truth: bool = True, n_boot: int = N_BOOTSTRAP,
               seed: int = SEED, labels: str | Path | None = None) -> ScoreResult:
    """Score ``predictions`` against the labelled logs of ``data``; every log counts, a missing one is wrong.

    ``labels``: gold labels kept in a separate file (see :mod:`attrib.readers.label_file`)."""
    check_subset(subset)
    trajectories = load_trajectories(data, subset, Path(labels) if labels else None)
    preds = read_predictions(Path(predictions), model=model, with_ground_truth=with_ground_truth)
    if not preds.records:
        raise InputError(predictions, "holds no predictions")
    records = score_predictions(preds, trajectories, legacy=legacy)
    scoring = "legacy" if legacy else "exact"
    reports = [build_report(recs, scoring, n_boot, seed) for recs in group_by_config(records).values()]
    return ScoreResult(reports=reports, records=records, random_expected=random_expected(trajectories))
