"""Evaluating a batch: run the configured methods and models over labelled logs, write the run directory.

The library side of ``attrib evaluate`` (the command only adds a progress bar and a printed report).
``summary.json`` is always written: after a normal finish, after Ctrl-C, and after a batch-wide failure.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..errors import InputError
from .records import CaseRecord, UsageTotals
from .runner import EvalConfig, Evaluator, Job, Tally, prepare_dir
from .scoring import Report, build_report, group_by_config, random_expected


class EvalResult(BaseModel):
    """What a finished (or budget-stopped) batch produced; ``summary`` is ``summary.json``'s content."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    directory: Path
    resumed: int
    reports: list[Report]
    records: list[CaseRecord]
    stopped: str | None
    summary: dict[str, Any]


def summary_reports(records: list[CaseRecord]) -> list[Report]:
    return [build_report(recs) for recs in group_by_config(records).values()]


def write_summary(directory: Path, records: list[CaseRecord], stopped: str | None, ev: Evaluator,
                  reports: list[Report]) -> dict[str, Any]:
    trajs = [t for t in ev.logs.values() if not isinstance(t, Exception)]
    summary = {
        "cases": len(records),
        "stopped": stopped,
        "random_expected": random_expected(trajs) if trajs else None,
        "random_expected_by_subset": {s: random_expected(ts) for s in ("algorithm-generated", "hand-crafted")
                                      if (ts := [t for t in trajs if t.subset == s])},
        "reports": [r.model_dump(mode="json") for r in reports],
        "usage": UsageTotals.of(records).model_dump(mode="json"),
        "usage_by_config": [{"method": recs[0].method, "model": recs[0].model,
                             "with_ground_truth": recs[0].with_ground_truth,
                             **UsageTotals.of(recs).model_dump(mode="json")}
                            for recs in group_by_config(records).values()],
    }
    (directory / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return summary


def run_batch(config: EvalConfig, out: Path | None = None, *, cache: bool = True, offline: bool = False,
              on_start: Callable[[Path, list[Job], int], None] | None = None,
              on_record: Callable[[CaseRecord, Tally], None] | None = None) -> EvalResult:
    """Run (or resume) the batch ``config`` describes in ``out`` (default: a folder named by its hash).

    ``on_start(directory, jobs, already_done)`` and ``on_record(record, tally)`` report progress. Raises
    InputError when not one log could be read; KeyboardInterrupt passes through after the summary.
    """
    directory, done = prepare_dir(config, out)
    ev = Evaluator(config, directory, done, cache=cache, offline=offline, on_record=on_record)
    jobs = ev.jobs()
    if on_start:
        on_start(directory, jobs, len(done))
    try:
        tally = asyncio.run(ev.run(jobs))
    except BaseException as exc:  # Ctrl-C or a batch-wide failure: the summary of what finished is still written
        ev.tally.stopped = "interrupted" if isinstance(exc, KeyboardInterrupt) else f"aborted: {exc}"
        write_summary(directory, ev.tally.records, ev.tally.stopped, ev, summary_reports(ev.tally.records))
        raise
    reports = summary_reports(tally.records)
    summary = write_summary(directory, tally.records, tally.stopped, ev, reports)
    unreadable = [r for r in tally.records if r.error_kind == "input"]
    if unreadable and len(unreadable) == len(tally.records):  # nothing could be read: an input error, not a score
        more = f" (and {len(unreadable) - 1} more unreadable logs, see {directory / 'cases.jsonl'})" if len(unreadable) > 1 else ""
        raise InputError(None, f"{unreadable[0].error}{more}")
    return EvalResult(directory=directory, resumed=len(done), reports=reports, records=tally.records,
                      stopped=tally.stopped, summary=summary)
