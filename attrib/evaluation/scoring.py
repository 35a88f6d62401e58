"""The one scoring module: per-case correctness, accuracy reports, paired tests, random baseline.

Rules (the default, *exact* scoring):

- **agent correct**: ``agent_key(predicted) == agent_key(gold)`` (the rule of :mod:`attrib.agents`:
  parenthesised suffix dropped, case, spaces, underscores and hyphens ignored);
- **step correct**: the predicted 0-based step equals the gold step;
- **step correct at tolerance k**: ``|predicted - gold| <= k``, for k = 0..5 (plain distance). A
  predicted step outside the log is never exactly right (the gold step is inside it) and is judged
  by the same distance at k >= 1; it is not an error of the scorer;
- a case whose status is not ``ok`` (``no_error_found``, ``invalid``, ``error``), or whose prediction
  is missing, is wrong at both levels; such cases are also counted and listed as *failed*.

All accuracies are **percentages** (0-100). With several runs of the same case, a case's value
is its mean over runs, the accuracy is the mean over cases (equal to the pooled accuracy when
every case has the same number of runs), the 95% CI is a seeded case-level bootstrap, and the
mean and sample standard deviation of the per-run accuracies are reported alongside.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from ..agents import agent_key
from ..errors import InputError
from ..formatting import accuracy

if TYPE_CHECKING:
    from ..trajectory import Trajectory
    from .records import CaseRecord

TOLERANCES: tuple[int, ...] = (0, 1, 2, 3, 4, 5)
SUBSETS: tuple[str, ...] = ("algorithm-generated", "hand-crafted")


def check_subset(subset: str | None) -> None:
    """A subset filter must name a Who&When subset (InputError otherwise)."""
    if subset is not None and subset not in SUBSETS:
        raise InputError(None, f"--subset must be one of {', '.join(SUBSETS)}, got {subset!r}")
BANDS: tuple[tuple[str, int, int | None], ...] = (
    ("1-10", 1, 10),
    ("11-20", 11, 20),
    ("21-50", 21, 50),
    ("51-100", 51, 100),
    (">100", 101, None),
)
N_BOOTSTRAP = 2000
SEED = 12345
Level = Literal["agent", "step"]


# --------------------------------------------------------------------------- one case


class CaseScore(BaseModel):
    """Correctness of one prediction (None when the case has no gold label)."""

    agent_correct: bool | None
    step_correct: bool | None
    step_distance: int | None = Field(description="|pred - gold|; None when the step is missing or the case failed")


def step_distance(pred_step: int | None, gold_step: int) -> int | None:
    """``|pred - gold|``, or None when there is no predicted step."""
    return None if pred_step is None else abs(pred_step - gold_step)


def score_case(
    status: str,
    pred_agent: str | None,
    pred_step: int | None,
    gold_agent: str | None,
    gold_step: int | None,
) -> CaseScore:
    """Exact correctness of one prediction against its gold label (see the module rules)."""
    if gold_agent is None or gold_step is None:
        return CaseScore(agent_correct=None, step_correct=None, step_distance=None)
    answered = status == "ok"
    agent_ok = answered and pred_agent is not None and agent_key(pred_agent) == agent_key(gold_agent)
    distance = step_distance(pred_step, gold_step) if answered else None
    return CaseScore(agent_correct=agent_ok, step_correct=distance == 0, step_distance=distance)


def is_failed(record: "CaseRecord") -> bool:
    """A case without a usable answer: status not ``ok`` or a missing agent/step."""
    return record.status != "ok" or record.pred_agent is None or record.pred_step is None


def within(record: "CaseRecord", k: int) -> bool:
    """Step correct at tolerance ``k`` (exact scoring)."""
    return record.step_distance is not None and record.step_distance <= k


def band_of(n_steps: int) -> str:
    """The log-length band name of a log with ``n_steps`` steps."""
    for name, low, high in BANDS:
        if n_steps >= low and (high is None or n_steps <= high):
            return name
    return BANDS[0][0]


# --------------------------------------------------------------------------- estimates


class Estimate(BaseModel):
    """One accuracy (percent) with its bootstrap CI and, for several runs, run mean and std."""

    acc: float
    ci_low: float
    ci_high: float
    correct: float = Field(description="number of correct cases (a mean over runs when there are several)")
    n: int = Field(description="number of cases")
    run_mean: float | None = None
    run_std: float | None = None

    def short(self) -> str:
        """``'54.3 [47.1-61.2]'`` (plus ``±std`` over runs when known)."""
        return accuracy(self.acc, self.ci_low, self.ci_high, self.run_std)


def bootstrap_ci(
    values: Sequence[Sequence[float]], n_boot: int = N_BOOTSTRAP, seed: int = SEED, level: float = 0.95
) -> list[tuple[float, float]]:
    """Percentile bootstrap CIs of the means of several metrics, resampling cases jointly.

    ``values[m][i]`` is metric ``m`` of case ``i`` (0-1). Returns ``(low, high)`` in percent per metric.
    """
    if not values or not values[0]:
        return [(0.0, 0.0) for _ in values]
    import numpy as np

    n = len(values[0])
    idx = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
    lo_q, hi_q = (1 - level) / 2, 1 - (1 - level) / 2
    out = []
    for metric in values:
        means = np.asarray(metric, dtype=float)[idx].mean(axis=1)
        low, high = np.quantile(means, [lo_q, hi_q])
        out.append((100 * float(low), 100 * float(high)))
    return out


# --------------------------------------------------------------------------- reports


class GroupReport(BaseModel):
    """Accuracies over one group of cases (all, one subset, or one length band)."""

    name: str
    n: int = Field(description="cases")
    n_records: int = Field(description="case x run records")
    runs: list[int]
    agent: Estimate
    step: Estimate
    step_at_k: dict[int, Estimate] = Field(default_factory=dict, description="tolerance k -> accuracy (empty for legacy)")
    failed: int = Field(0, description="records without a usable answer")
    failed_ids: list[str] = Field(default_factory=list)


class Report(BaseModel):
    """Overall, per-subset and per-length-band accuracies of one configuration."""

    scoring: Literal["exact", "legacy"] = "exact"
    method: str | None = None
    model: str | None = None
    with_ground_truth: bool | None = None
    n_bootstrap: int = N_BOOTSTRAP
    seed: int = SEED
    overall: GroupReport
    subsets: dict[str, GroupReport] = Field(default_factory=dict)
    bands: dict[str, GroupReport] = Field(default_factory=dict)
    sources: dict[str, GroupReport] = Field(default_factory=dict, description="per log format (source_format)")


def case_label(record: "CaseRecord") -> str:
    """``'hand-crafted/12'`` (or the bare case id when the subset is unknown)."""
    return f"{record.subset}/{record.case_id}" if record.subset else record.case_id


def _by_case(records: Iterable["CaseRecord"]) -> dict[str, list["CaseRecord"]]:
    grouped: dict[str, list[CaseRecord]] = defaultdict(list)
    for r in records:
        grouped[case_label(r)].append(r)
    return grouped


def _metric_fns(tolerance: bool) -> dict[str, object]:
    fns: dict[str, object] = {
        "agent": lambda r: bool(r.agent_correct),
        "step": lambda r: bool(r.step_correct),
    }
    if tolerance:
        for k in TOLERANCES:
            fns[f"k{k}"] = lambda r, k=k: within(r, k)
    return fns


def _run_stats(records: list["CaseRecord"], fn) -> tuple[float | None, float | None]:
    runs: dict[int, list[bool]] = defaultdict(list)
    for r in records:
        runs[r.run].append(fn(r))
    if len(runs) < 2:
        return None, None
    accs = [100 * sum(v) / len(v) for v in runs.values()]
    return statistics.fmean(accs), statistics.stdev(accs)


def group_report(
    name: str, records: list["CaseRecord"], tolerance: bool = True, n_boot: int = N_BOOTSTRAP, seed: int = SEED
) -> GroupReport:
    """Accuracies of ``records`` (scored records; several runs per case allowed)."""
    cases = _by_case(records)
    fns = _metric_fns(tolerance)
    per_case = [[statistics.fmean(fn(r) for r in recs) for recs in cases.values()] for fn in fns.values()]
    cis = bootstrap_ci(per_case, n_boot=n_boot, seed=seed)
    estimates: dict[str, Estimate] = {}
    for (key, fn), vals, (low, high) in zip(fns.items(), per_case, cis):
        mean, std = _run_stats(records, fn)
        n = len(vals)
        estimates[key] = Estimate(
            acc=100 * sum(vals) / n if n else 0.0, ci_low=low, ci_high=high,
            correct=round(sum(vals), 4), n=n, run_mean=mean, run_std=std,
        )
    failed = sorted({case_label(r) for r in records if is_failed(r)}, key=_natural_label)
    return GroupReport(
        name=name, n=len(cases), n_records=len(records), runs=sorted({r.run for r in records}),
        agent=estimates["agent"], step=estimates["step"],
        step_at_k={k: estimates[f"k{k}"] for k in TOLERANCES} if tolerance else {},
        failed=sum(is_failed(r) for r in records), failed_ids=failed,
    )


def _natural_label(label: str) -> tuple:
    head, _, tail = label.rpartition("/")
    return (head, 0, int(tail), "") if tail.isdigit() else (head, 1, 0, tail)


def build_report(
    records: Sequence["CaseRecord"],
    scoring: Literal["exact", "legacy"] = "exact",
    n_boot: int = N_BOOTSTRAP,
    seed: int = SEED,
) -> Report:
    """Overall, per-subset and per-band report of scored records of ONE configuration."""
    recs = [r for r in records if r.agent_correct is not None]
    tol = scoring == "exact"
    first = recs[0] if recs else None
    subsets = {s: [r for r in recs if r.subset == s] for s in SUBSETS}
    bands = {b: [r for r in recs if band_of(r.n_steps) == b] for b, _, _ in BANDS}
    sources: dict[str, list[CaseRecord]] = defaultdict(list)
    for r in recs:
        sources[r.source_format or "unknown"].append(r)
    return Report(
        scoring=scoring,
        method=first.method if first else None,
        model=first.model if first else None,
        with_ground_truth=first.with_ground_truth if first else None,
        n_bootstrap=n_boot, seed=seed,
        overall=group_report("all", recs, tol, n_boot, seed),
        subsets={s: group_report(s, v, tol, n_boot, seed) for s, v in subsets.items() if v},
        bands={b: group_report(b, v, tol, n_boot, seed) for b, v in bands.items() if v},
        sources={s: group_report(s, sources[s], tol, n_boot, seed) for s in sorted(sources)},
    )


ConfigKey = tuple[str, str, bool]


def config_key(record: "CaseRecord") -> ConfigKey:
    """The (method, model, with_ground_truth) configuration a record belongs to."""
    return (record.method, record.model, record.with_ground_truth)


def group_by_config(records: Iterable["CaseRecord"]) -> dict[ConfigKey, list["CaseRecord"]]:
    """Records split by (method, model, with_ground_truth), in first-seen order."""
    grouped: dict[ConfigKey, list[CaseRecord]] = {}
    for r in records:
        grouped.setdefault(config_key(r), []).append(r)
    return grouped


# --------------------------------------------------------------------------- paired test


def _binom_cdf_half(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2), exactly (integer arithmetic)."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2**n


def mcnemar_exact(a_correct: Sequence[bool], b_correct: Sequence[bool]) -> tuple[int, int, float]:
    """Exact two-sided McNemar test on paired outcomes.

    Returns ``(b01, b10, p)``: b01 = pairs where A is wrong and B right, b10 = A right and B wrong,
    p = min(1, 2 * P(X <= min(b01, b10))) with X ~ Binomial(b01 + b10, 1/2); p = 1 with no discordant pair.
    """
    if len(a_correct) != len(b_correct):
        raise ValueError("paired outcomes must have the same length")
    b01 = sum(1 for a, b in zip(a_correct, b_correct) if not a and b)
    b10 = sum(1 for a, b in zip(a_correct, b_correct) if a and not b)
    n = b01 + b10
    p = 1.0 if n == 0 else min(1.0, 2 * _binom_cdf_half(min(b01, b10), n))
    return b01, b10, p


class PairedResult(BaseModel):
    """McNemar comparison of two configurations on the cases both scored."""

    level: str
    n: int
    a_acc: float
    b_acc: float
    b01: int = Field(description="A wrong, B right")
    b10: int = Field(description="A right, B wrong")
    p_value: float
    only_a: int = Field(0, description="cases scored in A only (left out)")
    only_b: int = Field(0, description="cases scored in B only (left out)")


def _first_run(records: Iterable["CaseRecord"]) -> dict[str, "CaseRecord"]:
    chosen: dict[str, CaseRecord] = {}
    for r in records:
        if r.agent_correct is None:
            continue
        key = case_label(r)
        if key not in chosen or r.run < chosen[key].run:
            chosen[key] = r
    return chosen


def paired_test(
    records_a: Iterable["CaseRecord"], records_b: Iterable["CaseRecord"], level: Level = "agent"
) -> PairedResult:
    """McNemar test of A vs B, pairing cases by (subset, case_id); each side's lowest-numbered run is used."""
    if level not in ("agent", "step"):
        raise ValueError(f"level must be 'agent' or 'step', got {level!r}")
    a, b = _first_run(records_a), _first_run(records_b)
    common = [k for k in a if k in b]
    attr = "agent_correct" if level == "agent" else "step_correct"
    av = [bool(getattr(a[k], attr)) for k in common]
    bv = [bool(getattr(b[k], attr)) for k in common]
    b01, b10, p = mcnemar_exact(av, bv)
    n = len(common)
    return PairedResult(
        level=level, n=n,
        a_acc=100 * sum(av) / n if n else 0.0, b_acc=100 * sum(bv) / n if n else 0.0,
        b01=b01, b10=b10, p_value=p, only_a=len(a) - n, only_b=len(b) - n,
    )


# --------------------------------------------------------------------------- random baseline


def random_expected(trajectories: Iterable["Trajectory"]) -> tuple[float, float]:
    """Expected accuracy (percent) of a uniform random guess: (agent, step).

    Closed form: the mean over cases of ``1 / |distinct canonical agents in the log|`` and of
    ``1 / n_steps``. On the Who&When algorithm-generated subset this is 29.10 / 12.00.
    """
    trajs = list(trajectories)
    if not trajs:
        return 0.0, 0.0
    agent = statistics.fmean(1 / len(t.agents) for t in trajs)
    step = statistics.fmean(1 / t.n_steps for t in trajs)
    return 100 * agent, 100 * step
