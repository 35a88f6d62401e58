"""``attrib evaluate``: every (method, model, ground-truth setting, run) over every log, resumable.

A run directory holds ``config.json`` (what was asked), ``cases.jsonl`` (one
:class:`CaseRecord` per finished case, appended and fsynced as each finishes) and
``summary.json``. Re-running the same command resumes: finished cases are skipped,
and the LLM cache answers any call a killed run had already paid for. A case that
fails (unreadable log, endpoint down after retries, invalid answer, or any unexpected
exception inside the case) is recorded with its error and a stable ``error_kind`` and
counts as wrong; the batch goes on. A budget in dollars or tokens
stops new cases from starting once the next one could exceed it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ConfigError, InputError, LLMError
from ..llm.client import LLMClient
from ..llm.config import load_config
from ..methods import get as get_method
from ..prediction import make_client, predict_async
from ..readers import iter_log_paths
from ..readers.document import log_id
from ..readers.label_file import load_labelled, load_labels
from ..trajectory import Trajectory
from .records import FAILED_KINDS, CaseRecord, Subset, as_subset, read_jsonl


def _no_model() -> list[str | None]:
    return [None]


class EvalConfig(BaseModel):
    """What a batch runs (``config.json`` of a run directory); unknown fields are an error."""

    model_config = ConfigDict(extra="forbid")

    paths: list[str]
    methods: list[str]
    models: list[str | None] = Field(default_factory=_no_model)
    base_url: str | None = None
    ground_truth: list[bool] = Field(default_factory=lambda: [True])
    runs: int = 1
    seed: int = 0
    limit: int | None = None
    concurrency: int = 8
    budget_usd: float | None = None
    budget_tokens: int | None = None
    chief_modules: str = "full"
    kb_dir: str | None = None
    log_format: str = "auto"
    config_path: str | None = Field(default=None, description="attrib.toml with profiles and prices")
    labels: str | None = None

    def identity(self) -> dict[str, Any]:
        """What decides the results (budgets, limits and concurrency do not)."""
        return self.model_dump(include={"paths", "methods", "models", "base_url", "ground_truth", "runs", "seed",
                                        "chief_modules", "log_format", "labels"})

    def default_dir(self) -> Path:
        digest = hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()[:10]
        return Path("runs") / f"eval-{'-'.join(self.methods)[:40]}-{digest}"


JobKey = tuple[str | None, str, str, bool, int]  # (path, method, model, with_ground_truth, run)


@dataclass(frozen=True)
class Job:
    path: str
    method: str
    model: str | None
    with_ground_truth: bool
    run: int

    def key(self, model_name: str) -> JobKey:
        return (self.path, self.method, model_name, self.with_ground_truth, self.run)


@dataclass
class Tally:
    done: int = 0
    agent_ok: int = 0
    step_ok: int = 0
    failed: int = 0
    tokens: int = 0
    usd: float = 0.0
    usd_known: bool = True
    stopped: str | None = None
    records: list[CaseRecord] = field(default_factory=list)

    def add(self, rec: CaseRecord) -> None:
        self.done += 1
        self.agent_ok += bool(rec.agent_correct)
        self.step_ok += bool(rec.step_correct)
        self.failed += rec.status in ("invalid", "error", "infrastructure_failure")
        self.tokens += rec.input_tokens + rec.output_tokens
        if rec.cost_usd is None:
            self.usd_known = False
        else:
            self.usd += rec.cost_usd
        self.records.append(rec)


class Appender:
    """Appends one JSON line per record in a single write, flushed at once.

    A flushed line is in the operating system's hands: killing the process (even with SIGKILL)
    cannot lose it. The file is also fsynced on close, so a finished run survives a power cut.
    """

    def __init__(self, path: Path):
        self.path = path
        _drop_partial_line(path)
        self._f = path.open("a", encoding="utf-8")
        self._lock = threading.Lock()

    def write(self, rec: CaseRecord) -> None:
        line = rec.model_dump_json() + "\n"
        with self._lock:
            self._f.write(line)
            self._f.flush()

    def close(self) -> None:
        self._f.flush()
        os.fsync(self._f.fileno())
        self._f.close()


def _drop_partial_line(path: Path) -> None:
    """A killed writer may leave half a line: cut the file back to its last newline."""
    if not path.exists() or path.stat().st_size == 0:
        return
    data = path.read_bytes()
    if not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])


def prepare_dir(config: EvalConfig, out: Path | None) -> tuple[Path, list[CaseRecord]]:
    """Create or reopen the run directory; refuse one made for a different configuration."""
    directory = out or config.default_dir()
    directory.mkdir(parents=True, exist_ok=True)
    cfg_path = directory / "config.json"
    if cfg_path.exists():
        old = json.loads(cfg_path.read_text(encoding="utf-8"))
        fields = {k: v for k, v in old.items() if k in EvalConfig.model_fields}  # config.json also records prices
        if EvalConfig(**fields).identity() != config.identity():
            raise ConfigError(f"{directory}: holds a run with a different configuration; choose another --out")
    prices = {name: p.model_dump() for name, p in load_config(config.config_path).prices.items()}
    cfg_path.write_text(json.dumps({**config.model_dump(), "prices": prices}, indent=2), encoding="utf-8")
    cases = directory / "cases.jsonl"
    _drop_partial_line(cases)
    return directory, read_jsonl(cases) if cases.exists() else []


def error_kind(exc: BaseException) -> str:
    """The stable class of a case's failure, for counting and filtering ``cases.jsonl``."""
    if isinstance(exc, InputError):
        return "input"
    if isinstance(exc, ConfigError):
        return "config"
    if isinstance(exc, LLMError):
        return "llm"
    return "internal"


def error_text(exc: BaseException) -> str:
    """One line: our own errors as they read; anything else with its type (a bug of ours or of a plugin)."""
    if isinstance(exc, (InputError, ConfigError, LLMError)):
        return str(exc)
    first = str(exc).splitlines()[0] if str(exc) else ""
    return f"internal error: {type(exc).__name__}" + (f": {first}" if first else "")


def failed_record(job: Job, model: str, exc: BaseException, traj: Trajectory | None) -> CaseRecord:
    """A case that produced no attribution: wrong on both levels, with its error and its kind."""
    subset = as_subset(traj.subset) if traj else _subset_from_path(job.path)
    return CaseRecord(case_id=traj.id if traj else log_id(job.path), path=job.path, subset=subset,
                      source_format=traj.source_format if traj else None, n_steps=traj.n_steps if traj else 0, method=job.method, model=model,
                      with_ground_truth=job.with_ground_truth, run=job.run, status="error",
                      gold_agent=traj.gold.agent if traj and traj.gold else None,
                      gold_step=traj.gold.step if traj and traj.gold else None,
                      agent_correct=False, step_correct=False, error=error_text(exc), error_kind=error_kind(exc))


def _subset_from_path(path: str) -> Subset | None:
    parent = Path(path).parent.name.lower()
    return "hand-crafted" if "hand" in parent else "algorithm-generated" if "algorithm" in parent else None


class Evaluator:
    def __init__(self, config: EvalConfig, directory: Path, done: list[CaseRecord], *,
                 cache: bool = True, offline: bool = False, on_record: Callable[[CaseRecord, Tally], None] | None = None):
        self.config, self.directory = config, directory
        self.cache, self.offline, self.on_record = cache, offline, on_record
        self.tally = Tally()
        for rec in done:
            self.tally.add(rec)
        self.done_keys: set[JobKey] = {(r.path, r.method, r.model, r.with_ground_truth, r.run) for r in done}
        self.clients: dict[str | None, LLMClient] = {}
        self.logs: dict[str, Trajectory | InputError] = {}
        self.labels = load_labels(config.labels) if config.labels else None

    def jobs(self) -> list[Job]:
        paths = [str(p) for p in iter_log_paths(self.config.paths)]
        if self.config.limit:
            paths = paths[: self.config.limit]
        return [Job(p, m, model, gt, r) for m in self.config.methods for model in self.config.models
                for gt in self.config.ground_truth for r in range(self.config.runs) for p in paths]

    def client(self, model: str | None) -> LLMClient:
        if model not in self.clients:
            self.clients[model] = make_client(model, self.config.base_url, config=self.config.config_path,
                                              cache=self.cache, offline=self.offline,
                                              concurrency=self.config.concurrency)
            self.clients[model].warm_up()
        return self.clients[model]

    def model_name(self, job: Job) -> str:
        return "none" if not get_method(job.method).needs_model else self.client(job.model).settings.model

    def log(self, path: str) -> Trajectory | InputError:
        if path not in self.logs:
            try:
                self.logs[path] = load_labelled(path, self.labels, self.config.log_format)
            except InputError as exc:
                self.logs[path] = exc
        return self.logs[path]

    def over_budget(self, inflight: int) -> str | None:
        t, c = self.tally, self.config
        if c.budget_usd is not None and t.usd_known:
            per = (t.usd / t.done) if t.done else 0.0
            if t.usd + per * (inflight + 1) > c.budget_usd:
                return f"budget: ${t.usd:.4f} spent, the next case could pass ${c.budget_usd}"
        if c.budget_tokens is not None:
            per_t = (t.tokens / t.done) if t.done else 0
            if t.tokens + per_t * (inflight + 1) > c.budget_tokens:
                return f"budget: {t.tokens:,} tokens spent, the next case could pass {c.budget_tokens:,}"
        return None

    async def run_job(self, job: Job, model: str) -> CaseRecord:
        """One case, start to record. This is the case boundary: whatever fails inside it
        (reader, method, client, scorer, a bug) becomes a failed record, never the batch's end."""
        traj: Trajectory | None = None
        try:
            loaded = self.log(job.path)
            if isinstance(loaded, InputError):
                return failed_record(job, model, loaded, None)
            traj = loaded
            method = get_method(job.method)
            client = self.client(job.model) if method.needs_model else None
            att = await predict_async(traj, job.method, client=client, with_ground_truth=job.with_ground_truth,
                                      seed=self.config.seed + job.run, chief_modules=self.config.chief_modules,
                                      kb_dir=self.config.kb_dir)
            rec = CaseRecord.from_attribution(att, traj, run=job.run)
        except Exception as exc:  # noqa: BLE001 - the case boundary (see the docstring)
            return failed_record(job, model, exc, traj)
        if att.status in FAILED_KINDS:
            rec = rec.model_copy(update={"agent_correct": False if traj.gold else None,
                                         "step_correct": False if traj.gold else None,
                                         "error_kind": FAILED_KINDS[att.status]})
        return rec

    async def run(self, jobs: list[Job]) -> Tally:
        appender = Appender(self.directory / "cases.jsonl")
        # Twice as many cases as LLM calls in flight: while calls wait on the endpoint, the next cases
        # already read their logs and build their prompts; the client's own limit caps the calls.
        sem = asyncio.Semaphore(2 * max(1, self.config.concurrency))
        inflight = 0
        budgeted = self.config.budget_usd is not None or self.config.budget_tokens is not None
        measured = asyncio.Event()  # with a budget, one case runs alone until a case's cost is known
        if self.tally.done:
            measured.set()

        async def one(job: Job, model: str) -> None:
            nonlocal inflight
            try:
                rec = await self.run_job(job, model)
                appender.write(rec)
                self.tally.add(rec)
                measured.set()
                if self.on_record:
                    self.on_record(rec, self.tally)
            finally:
                inflight -= 1
                sem.release()

        tasks = []
        try:
            for job in jobs:
                model = self.model_name(job)
                if job.key(model) in self.done_keys:
                    continue
                if budgeted and inflight and not measured.is_set():
                    await measured.wait()
                await sem.acquire()
                reason = self.over_budget(inflight)
                if reason:
                    sem.release()
                    self.tally.stopped = reason
                    break
                inflight += 1
                tasks.append(asyncio.create_task(one(job, model)))
            await asyncio.gather(*tasks)
        finally:
            appender.close()
            for client in self.clients.values():
                await client.aclose()
            self.clients.clear()  # a client is bound to this event loop; a later run makes new ones
        return self.tally
