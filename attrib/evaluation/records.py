"""One scored prediction per JSONL line: :class:`CaseRecord`, and reading/writing such files.

A record is one (case, method, model, ground-truth setting, run). Files are appended to line by
line while an evaluation runs, so a killed writer can leave a truncated last line:
:func:`read_jsonl` skips it and reports it; a malformed line elsewhere is an input error.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any, Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError

from .. import jsonsafe
from ..attribution import Attribution, Status
from ..errors import InputError
from ..trajectory import Trajectory
from .scoring import score_case

Subset = Literal["algorithm-generated", "hand-crafted"]
M = TypeVar("M", bound=BaseModel)

# error_kind of an attribution that came back without an answer, by its status
FAILED_KINDS = {"invalid": "invalid_answer", "error": "llm", "infrastructure_failure": "infrastructure"}


def as_subset(value: str | None) -> Subset | None:
    """``value`` if it names a Who&When subset, else None."""
    if value == "algorithm-generated":
        return "algorithm-generated"
    if value == "hand-crafted":
        return "hand-crafted"
    return None


class CaseRecord(BaseModel):
    """The prediction of one configuration on one case, with its gold label and its cost."""

    case_id: str
    path: str | None = None
    subset: Subset | None = None
    source_format: str | None = Field(default=None, description="the reader that read the log (who-and-when, tau-bench, ...)")
    n_steps: int
    method: str
    model: str
    with_ground_truth: bool
    run: int = 0
    status: Status = "ok"
    pred_agent: str | None = None
    pred_step: int | None = None
    gold_agent: str | None = None
    gold_step: int | None = None
    agent_correct: bool | None = Field(default=None, description="None when the case has no gold label")
    step_correct: bool | None = None
    step_distance: int | None = Field(default=None, description="|pred - gold|; None without a usable step")
    calls: int = 0
    cached_calls: int = 0
    input_tokens: int = Field(0, description="prompt tokens reported by the API, cached ones included")
    cached_input_tokens: int = Field(0, description="part of input_tokens served from the provider's prompt cache")
    output_tokens: int = 0
    cost_usd: float | None = Field(None, description="USD paid, cached input at its own price; None without a price")
    seconds: float = 0.0
    error: str | None = None
    error_kind: str | None = Field(default=None, description="stable class of a failed case: input, config, llm, "
                                           "invalid_answer, infrastructure (the run died on infrastructure), internal "
                                           "(see attrib.evaluation.runner.error_kind)")

    @classmethod
    def from_attribution(cls, att: Attribution, traj: Trajectory, run: int = 0) -> CaseRecord:
        """Score ``att`` against ``traj.gold`` (exact rules of :mod:`attrib.evaluation.scoring`)."""
        gold = traj.gold
        score = score_case(
            att.status, att.agent, att.step,
            gold.agent if gold else None, gold.step if gold else None,
        )
        usage = att.usage
        return cls(
            case_id=traj.id,
            path=traj.path or att.log_path,
            subset=as_subset(traj.subset),
            source_format=traj.source_format,
            n_steps=traj.n_steps,
            method=att.method,
            model=att.model,
            with_ground_truth=att.with_ground_truth,
            run=run,
            status=att.status,
            pred_agent=att.agent,
            pred_step=att.step,
            gold_agent=gold.agent if gold else None,
            gold_step=gold.step if gold else None,
            agent_correct=score.agent_correct,
            step_correct=score.step_correct,
            step_distance=score.step_distance,
            calls=usage.calls,
            cached_calls=usage.cached_calls,
            input_tokens=usage.input_tokens,
            cached_input_tokens=usage.cached_input_tokens,
            output_tokens=usage.output_tokens,
            cost_usd=usage.cost_usd,
            seconds=usage.seconds,
            error=att.error,
        )

    def rescored(self, traj: Trajectory) -> CaseRecord:
        """This prediction scored again against ``traj`` (gold, size and subset taken from the log)."""
        gold = traj.gold
        score = score_case(
            self.status, self.pred_agent, self.pred_step,
            gold.agent if gold else None, gold.step if gold else None,
        )
        return self.model_copy(update={
            "n_steps": traj.n_steps,
            "subset": as_subset(traj.subset) or self.subset,
            "path": traj.path or self.path,
            "source_format": traj.source_format,
            "gold_agent": gold.agent if gold else None,
            "gold_step": gold.step if gold else None,
            **score.model_dump(),
        })


class UsageTotals(BaseModel):
    """What a set of records cost: calls, input (of which cached by the provider), output, USD."""

    cases: int = 0
    calls: int = 0
    cached_calls: int = Field(0, description="calls answered from attrib's own disk cache (cost 0)")
    input_tokens: int = 0
    cached_input_tokens: int = Field(0, description="input tokens served from the provider's prompt cache")
    output_tokens: int = 0
    cost_usd: float | None = Field(None, description="None when some record has no price")

    @classmethod
    def of(cls, records: list[CaseRecord]) -> UsageTotals:
        costs = [r.cost_usd for r in records]
        return cls(
            cases=len(records), calls=sum(r.calls for r in records), cached_calls=sum(r.cached_calls for r in records),
            input_tokens=sum(r.input_tokens for r in records),
            cached_input_tokens=sum(r.cached_input_tokens for r in records),
            output_tokens=sum(r.output_tokens for r in records),
            cost_usd=None if any(c is None for c in costs) else round(sum(c or 0.0 for c in costs), 8),
        )

    def line(self) -> str:
        """``'12 calls, 30,100 in (20,480 cached) / 1,200 out tokens, $0.0042'``."""
        usd = "USD unknown" if self.cost_usd is None else f"${self.cost_usd:.4f}"
        return (f"{self.calls} calls ({self.cached_calls} from attrib's cache), {self.input_tokens:,} in "
                f"({self.cached_input_tokens:,} cached by the provider) / {self.output_tokens:,} out tokens, {usd}")


def _stderr_warning(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def parse_jsonl(
    path: str | Path, parse: Callable[[dict[str, Any]], M], on_warning: Callable[[str], None] | None = None
) -> list[M]:
    """Parse a JSONL file line by line with ``parse``; a bad *last* line is skipped and reported."""
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(p, "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(p, f"cannot read: {exc}") from None
    numbered = [(i + 1, line) for i, line in enumerate(lines) if line.strip()]
    out: list[M] = []
    for pos, (lineno, line) in enumerate(numbered):
        try:
            data = jsonsafe.loads(line)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            out.append(parse(data))
        except (ValueError, ValidationError) as exc:
            problem = _first_line(exc)
            if pos == len(numbered) - 1:
                (on_warning or _stderr_warning)(f"{p}: line {lineno}: skipped truncated or malformed last line ({problem})")
                break
            raise InputError(p, f"line {lineno}: {problem}") from None
    return out


def _first_line(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err.get("loc", ()))
        return f"{loc}: {err.get('msg')}" if loc else str(err.get("msg"))
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def read_jsonl(path: str | Path, on_warning: Callable[[str], None] | None = None) -> list[CaseRecord]:
    """All CaseRecords of a JSONL file, skipping (and reporting) a truncated last line."""
    return parse_jsonl(path, CaseRecord.model_validate, on_warning)


def write_record(stream: IO[str], record: CaseRecord) -> None:
    """Append one record as one JSON line and flush (safe to kill between lines)."""
    stream.write(record.model_dump_json() + "\n")
    stream.flush()


def write_jsonl(path: str | Path, records: Iterable[CaseRecord]) -> None:
    """Write ``records`` to ``path`` (replacing it), one JSON object per line."""
    with open(path, "w", encoding="utf-8") as fh:
        for r in records:
            write_record(fh, r)
