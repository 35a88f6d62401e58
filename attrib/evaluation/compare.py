"""Compare evaluation runs: one row per (method, model, ground-truth setting), optional paper rows.

A run directory holds ``config.json`` (its ``prices`` key: model -> {input, cached_input, output}
USD per 1M tokens), ``cases.jsonl`` (:class:`~attrib.evaluation.records.CaseRecord` lines) and optionally
``summary.json``. Accuracies use :mod:`attrib.evaluation.scoring`; per-case costs are means
over records (one record = one case in one run). Rendering lives in
:mod:`attrib.evaluation.compare_render`.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..errors import InputError
from ..formatting import accuracy
from .records import CaseRecord, read_jsonl
from .reference import ReferenceRow, find_reference
from .scoring import N_BOOTSTRAP, SEED, TOLERANCES, Estimate, check_subset, group_by_config, group_report

SHOWN_TOLERANCES = (1, 3, 5)


class RunData(BaseModel):
    """One run directory, read."""

    path: str
    config: dict[str, Any] = Field(default_factory=dict)
    records: list[CaseRecord]
    summary: dict[str, Any] | None = None


class Cell(BaseModel):
    """An accuracy (percent) with an optional 95% CI and run standard deviation."""

    acc: float | None = None
    low: float | None = None
    high: float | None = None
    std: float | None = None

    @classmethod
    def of(cls, e: Estimate) -> Cell:
        return cls(acc=e.acc, low=e.ci_low, high=e.ci_high, std=e.run_std)

    def text(self, ci: bool = True) -> str:
        """``'54.3 [47.1-61.2]'``, ``'54.3'`` or ``'-'``."""
        return accuracy(self.acc, self.low if ci else None, self.high if ci else None, self.std)


class CompareRow(BaseModel):
    """One line of the comparison table (measured, or published)."""

    kind: Literal["measured", "reference"]
    label: str
    method: str
    model: str | None
    with_ground_truth: bool | None
    subset: str = Field(default="all", description="'all' or one subset name")
    sources: list[str] = Field(default_factory=list, description="run directories, or the paper and table")
    n: int | None = None
    runs: int | None = None
    agent: Cell = Field(default_factory=Cell)
    step: Cell = Field(default_factory=Cell)
    tolerance: dict[int, Cell] = Field(default_factory=dict, description="k -> step accuracy at |d| <= k")
    calls_per_case: float | None = None
    input_tokens_per_case: float | None = None
    cached_input_tokens_per_case: float | None = Field(
        None, description="part of the input served from the provider's prompt cache")
    output_tokens_per_case: float | None = None
    usd_per_case: float | None = None
    seconds_per_case: float | None = None
    invalid: int | None = Field(default=None, description="records with status 'invalid'")
    failed: int | None = Field(default=None, description="records without a usable answer (any non-ok status)")
    note: str | None = None


class PriceRow(BaseModel):
    model: str
    input: float | None = None
    cached_input: float | None = None
    output: float | None = None
    source: str


class Comparison(BaseModel):
    rows: list[CompareRow]
    prices: list[PriceRow] = Field(default_factory=list)


# --------------------------------------------------------------------------- loading


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not JSON ({exc.msg} at line {exc.lineno})") from None
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None


def load_run(path: str | Path, on_warning: Callable[[str], None] | None = None) -> RunData:
    """Read a run directory; InputError when it has no ``cases.jsonl``."""
    p = Path(path)
    if not p.is_dir():
        raise InputError(p, "not a run directory" if p.exists() else "no such directory")
    cases = p / "cases.jsonl"
    if not cases.is_file():
        raise InputError(p, "no cases.jsonl in this run directory")
    config = _read_json(p / "config.json") if (p / "config.json").is_file() else {}
    if not isinstance(config, dict):
        raise InputError(p / "config.json", "expected a JSON object")
    summary = _read_json(p / "summary.json") if (p / "summary.json").is_file() else None
    records = read_jsonl(cases, on_warning)
    if not records:
        raise InputError(cases, "holds no case records")
    return RunData(path=str(p), config=config, records=records, summary=summary if isinstance(summary, dict) else None)


def load_runs(paths: Sequence[str | Path], on_warning: Callable[[str], None] | None = None) -> list[RunData]:
    return [load_run(p, on_warning) for p in paths]


# --------------------------------------------------------------------------- rows


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _usd(records: list[CaseRecord]) -> float | None:
    known = [r.cost_usd for r in records if r.cost_usd is not None]
    return sum(known) / len(records) if known else None


def gt_text(value: bool | None) -> str:
    return {True: "w/ GT", False: "w/o GT", None: "GT ?"}[value]


def measured_row(
    records: list[CaseRecord], sources: list[str], subset: str = "all", n_boot: int = N_BOOTSTRAP, seed: int = SEED
) -> CompareRow:
    """Accuracy and cost row of the records of one configuration."""
    scored = [r for r in records if r.agent_correct is not None]
    rep = group_report(subset, scored, tolerance=True, n_boot=n_boot, seed=seed)
    first = records[0]
    suffix = "" if subset == "all" else f" [{subset}]"
    return CompareRow(
        kind="measured",
        label=f"{first.method} · {first.model} · {gt_text(first.with_ground_truth)}{suffix}",
        method=first.method, model=first.model, with_ground_truth=first.with_ground_truth, subset=subset,
        sources=sources, n=rep.n, runs=len(rep.runs),
        agent=Cell.of(rep.agent), step=Cell.of(rep.step),
        tolerance={k: Cell.of(e) for k, e in rep.step_at_k.items()},
        calls_per_case=_mean([r.calls for r in records]),
        input_tokens_per_case=_mean([r.input_tokens for r in records]),
        cached_input_tokens_per_case=_mean([r.cached_input_tokens for r in records]),
        output_tokens_per_case=_mean([r.output_tokens for r in records]),
        usd_per_case=_usd(records),
        seconds_per_case=_mean([r.seconds for r in records]),
        invalid=sum(r.status == "invalid" for r in records),
        failed=rep.failed,
    )


def reference_row(ref: ReferenceRow, tokens: ReferenceRow | None = None) -> CompareRow:
    """A published row in comparison form (no CI; tolerance k=0 is the exact step accuracy).

    ``tokens`` is a tokens-only row of the same paper (CHIEF Table 2) whose count is shown here.
    """
    tol = {int(k): Cell(acc=v) for k, v in ref.step_acc_at_k.items()}
    if ref.step_acc is not None:
        tol.setdefault(0, Cell(acc=ref.step_acc))
    label = ref.label(f"{ref.table.replace('Table ', 'T')}+{tokens.table.replace('Table ', 'T')}") if tokens else ref.label()
    return CompareRow(
        kind="reference", label=label, method=ref.method, model=ref.model,
        with_ground_truth=ref.with_ground_truth, subset=ref.subset,
        agent=Cell(acc=ref.agent_acc), step=Cell(acc=ref.step_acc), tolerance=tol,
        input_tokens_per_case=ref.tokens_per_case if tokens is None else tokens.tokens_per_case,
        note=ref.note, sources=[ref.source] + ([tokens.source] if tokens else []),
    )


def _same_setting(a: ReferenceRow, b: ReferenceRow) -> bool:
    return (a.paper, a.subset, a.with_ground_truth, a.model) == (b.paper, b.subset, b.with_ground_truth, b.model)


def reference_rows(refs: Sequence[ReferenceRow]) -> list[CompareRow]:
    """Published rows for display: repeated numbers dropped, tokens-only rows folded into accuracy rows."""
    seen: set[tuple[object, ...]] = set()
    acc_rows: list[ReferenceRow] = []
    for r in refs:
        key = (r.paper, r.method, r.subset, r.with_ground_truth, r.agent_acc, r.step_acc, tuple(r.step_acc_at_k.items()))
        if r.has_accuracy and key not in seen:
            seen.add(key)
            acc_rows.append(r)
    tokens_for: dict[int, ReferenceRow] = {}
    leftover: list[ReferenceRow] = []
    for t in (r for r in refs if not r.has_accuracy and r.tokens_per_case is not None):
        target = next((i for i, r in enumerate(acc_rows)
                       if _same_setting(r, t) and r.tokens_per_case is None and i not in tokens_for), None)
        if target is None:
            leftover.append(t)
        else:
            tokens_for[target] = t
    return [reference_row(r, tokens_for.get(i)) for i, r in enumerate(acc_rows)] + [reference_row(t) for t in leftover]


def _sources(runs: list[RunData], records: list[CaseRecord]) -> list[str]:
    ids = {id(r) for r in records}
    return [run.path for run in runs if any(id(r) in ids for r in run.records)]


def collect_prices(runs: Sequence[RunData]) -> list[PriceRow]:
    """The ``prices`` table of every run's config (model -> {input, cached_input, output} USD per 1M tokens)."""
    out: list[PriceRow] = []
    for run in runs:
        prices = run.config.get("prices") or {}
        if not isinstance(prices, dict):
            continue
        for model, price in prices.items():
            price = price if isinstance(price, dict) else {}
            row = PriceRow(model=str(model), input=_num(price.get("input")), cached_input=_num(price.get("cached_input")),
                           output=_num(price.get("output")), source=run.path)
            if not any((p.model, p.input, p.cached_input, p.output) == (row.model, row.input, row.cached_input, row.output)
                       for p in out):
                out.append(row)
    return out


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def build_comparison(
    runs: Sequence[RunData],
    reference: bool = False,
    subset: str | None = None,
    by_subset: bool = False,
    n_boot: int = N_BOOTSTRAP,
    seed: int = SEED,
) -> Comparison:
    """Measured rows (grouped by method, model, ground-truth setting), each followed by its paper rows."""
    runs = list(runs)
    records = [r for run in runs for r in run.records if subset is None or r.subset == subset]
    if not records:
        raise InputError(runs[0].path if len(runs) == 1 else None, f"no case records{f' of subset {subset!r}' if subset else ''}")
    rows: list[CompareRow] = []
    shown: set[str] = set()
    for _key, recs in group_by_config(records).items():
        srcs = _sources(runs, recs)
        subsets = sorted({r.subset for r in recs if r.subset})
        if by_subset and subsets:
            rows += [measured_row([r for r in recs if r.subset == s], srcs, s, n_boot, seed) for s in subsets]
        else:
            rows.append(measured_row(recs, srcs, subset or "all", n_boot, seed))
        if reference:
            wanted: list[str | None] = [*subsets] if subsets else [None]
            refs = [ref for s in wanted for ref in find_reference(recs[0].method, recs[0].with_ground_truth, s)]
            for row in reference_rows(refs):
                if row.label not in shown:
                    shown.add(row.label)
                    rows.append(row)
    return Comparison(rows=rows, prices=collect_prices(runs))


def compare_runs(run_dirs: Sequence[str | Path], *, reference: bool = False, subset: str | None = None,
                 by_subset: bool = False, n_boot: int = N_BOOTSTRAP, seed: int = SEED,
                 on_warning: Callable[[str], None] | None = None) -> Comparison:
    """Read run directories and compare them (the library side of ``attrib compare``)."""
    check_subset(subset)
    return build_comparison(load_runs(run_dirs, on_warning), reference=reference, subset=subset,
                            by_subset=by_subset, n_boot=n_boot, seed=seed)


__all__ = [
    "Cell", "CompareRow", "Comparison", "PriceRow", "RunData", "SHOWN_TOLERANCES", "TOLERANCES",
    "build_comparison", "collect_prices", "compare_runs", "gt_text", "load_run", "load_runs", "measured_row", "reference_row",
    "reference_rows",
]
