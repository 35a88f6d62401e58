"""The ``attrib evaluate`` command: a progress bar and a report over :mod:`attrib.evaluation.runner`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..errors import InputError
from .records import CaseRecord, UsageTotals
from .render import print_report
from .runner import EvalConfig, Evaluator, Tally, prepare_dir
from .scoring import build_report, group_by_config, random_expected


def _status(t: Tally) -> str:
    if not t.done:
        return ""
    usd = f"${t.usd:.4f}" if t.usd_known else "$?"
    return (f"agent {100 * t.agent_ok / t.done:.1f}%  step {100 * t.step_ok / t.done:.1f}%  "
            f"failed {t.failed}  {t.tokens:,} tok  {usd}")


def evaluate(
    paths: Annotated[list[Path], typer.Argument(help="Log files or folders (e.g. ../shared/datasets/who_and_when).")],
    method: Annotated[list[str], typer.Option("--method", "-m", help="Method to run; repeat for several.")] = ["all-at-once"],
    model: Annotated[Optional[list[str]], typer.Option("--model", help="Model or profile; repeat to compare models.")] = None,
    base_url: Annotated[Optional[str], typer.Option("--base-url", help="OpenAI-compatible endpoint for every --model.")] = None,
    runs: Annotated[int, typer.Option(help="Seeded repeats of every case (mean and std are reported).")] = 1,
    no_ground_truth: Annotated[bool, typer.Option("--no-ground-truth", help="Hide the correct answer from the model.")] = False,
    both_settings: Annotated[bool, typer.Option("--both-settings", help="Run with AND without the ground truth.")] = False,
    limit: Annotated[Optional[int], typer.Option(help="Only the first N logs.")] = None,
    concurrency: Annotated[int, typer.Option(help="Cases (and LLM calls) in flight at once.")] = 8,
    budget_usd: Annotated[Optional[float], typer.Option("--budget-usd", help="Stop starting cases before this spend.")] = None,
    budget_tokens: Annotated[Optional[int], typer.Option("--budget-tokens", help="Stop starting cases before this many tokens.")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="Run directory (default: runs/eval-<methods>-<config hash>).")] = None,
    seed: Annotated[int, typer.Option(help="Base seed; run r uses seed+r.")] = 0,
    chief_modules: Annotated[str, typer.Option("--chief-modules", help="CHIEF ablation: full, m1, m1+m2, m1+m3.")] = "full",
    kb_dir: Annotated[Optional[Path], typer.Option("--kb-dir", help="Knowledge base directory for CHIEF.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not use the LLM answer cache.")] = False,
    offline: Annotated[bool, typer.Option("--offline", help="Cache only: a miss fails the case.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Run methods and models over labelled logs; write a resumable run directory and print accuracy and cost."""
    gt = [True, False] if both_settings else [not no_ground_truth]
    config = EvalConfig(paths=[str(p) for p in paths], methods=method, models=model or [None], base_url=base_url,
                        ground_truth=gt, runs=runs, seed=seed, limit=limit, concurrency=concurrency,
                        budget_usd=budget_usd, budget_tokens=budget_tokens, chief_modules=chief_modules,
                        kb_dir=str(kb_dir) if kb_dir else None)
    directory, done = prepare_dir(config, out)
    err = Console(stderr=True)
    ev = Evaluator(config, directory, done, cache=not no_cache, offline=offline)
    jobs = ev.jobs()
    if done:
        err.print(f"resuming {directory}: {len(done)} of {len(jobs)} cases already finished")
    with Progress(TextColumn("[bold]evaluate"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=err, disable=quiet or json_out) as progress:
        task = progress.add_task(_status(ev.tally), total=len(jobs), completed=len(done))
        ev.on_record = lambda rec, t: progress.update(task, advance=1, description=_status(t))
        try:
            tally = asyncio.run(ev.run(jobs))
        except BaseException as exc:  # Ctrl-C or a batch-wide failure: the summary of what finished is still written
            ev.tally.stopped = "interrupted" if isinstance(exc, KeyboardInterrupt) else f"aborted: {exc}"
            write_summary(directory, ev.tally.records, ev.tally.stopped, ev, summary_reports(ev.tally.records))
            if isinstance(exc, KeyboardInterrupt):
                err.print(f"interrupted: {ev.tally.done} cases kept in {directory}; run the same command to resume")
                raise typer.Exit(130) from None
            raise
    reports = summary_reports(tally.records)
    summary = write_summary(directory, tally.records, tally.stopped, ev, reports)
    unreadable = [r for r in tally.records if r.error_kind == "input"]
    if unreadable and len(unreadable) == len(tally.records):  # nothing could be read: an input error, not a score
        more = f" (and {len(unreadable) - 1} more unreadable logs, see {directory / 'cases.jsonl'})" if len(unreadable) > 1 else ""
        raise InputError(None, f"{unreadable[0].error}{more}")
    if json_out:
        typer.echo(json.dumps(summary, indent=2))
        return
    console = Console()
    by_config = list(group_by_config(tally.records).values())
    for rep, recs in zip(reports, by_config):
        print_report(rep, console, random=summary.get("random_expected") if rep.method == "random" else None)
        console.print(f"cost: {UsageTotals.of(recs).line()}", highlight=False)
        if rep.method == "random":
            for subset, (agent, step) in (summary.get("random_expected_by_subset") or {}).items():
                console.print(f"  closed form on {subset}: agent {agent:.2f}%, step {step:.2f}%", highlight=False)
    if tally.stopped:
        console.print(f"[yellow]stopped early: {tally.stopped}; finished cases are kept, re-run to resume[/]")
    console.print(f"run directory: {directory}  (cases.jsonl, summary.json)")


def summary_reports(records: list[CaseRecord]):
    return [build_report(recs) for recs in group_by_config(records).values()]


def write_summary(directory: Path, records: list[CaseRecord], stopped: str | None, ev: Evaluator, reps: list) -> dict:
    trajs = [t for t in ev.logs.values() if not isinstance(t, Exception)]
    summary = {
        "cases": len(records),
        "stopped": stopped,
        "random_expected": random_expected(trajs) if trajs else None,
        "random_expected_by_subset": {s: random_expected(ts) for s in ("algorithm-generated", "hand-crafted")
                                      if (ts := [t for t in trajs if t.subset == s])},
        "reports": [r.model_dump(mode="json") for r in reps],
        "usage": UsageTotals.of(records).model_dump(mode="json"),
        "usage_by_config": [{"method": recs[0].method, "model": recs[0].model,
                             "with_ground_truth": recs[0].with_ground_truth,
                             **UsageTotals.of(recs).model_dump(mode="json")}
                            for recs in group_by_config(records).values()],
    }
    (directory / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return summary


def register(app: typer.Typer) -> None:
    app.command("evaluate")(evaluate)
