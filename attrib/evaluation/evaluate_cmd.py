"""The ``attrib evaluate`` command: a progress bar and a report over :mod:`attrib.evaluation.runner`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..cli_options import (
    ChiefModulesOpt,
    ConfigOpt,
    KbDirOpt,
    LabelsOpt,
    LogFormatOpt,
    NoCacheOpt,
    NoGroundTruthOpt,
    OfflineOpt,
)
from .batch import run_batch
from .records import CaseRecord, UsageTotals
from .render import print_report
from .runner import EvalConfig, Job, Tally
from .scoring import group_by_config

DEFAULT_METHOD = "all-at-once"


def _status(t: Tally) -> str:
    if not t.done:
        return ""
    usd = f"${t.usd:.4f}" if t.usd_known else "$?"
    return (f"agent {100 * t.agent_ok / t.done:.1f}%  step {100 * t.step_ok / t.done:.1f}%  "
            f"failed {t.failed}  {t.tokens:,} tok  {usd}")


def evaluate(
    paths: Annotated[list[Path], typer.Argument(help="Log files or folders (e.g. ../shared/datasets/who_and_when).")],
    method: Annotated[list[str] | None, typer.Option("--method", "-m", help="Method to run; repeat for several.",
                                                     show_default=DEFAULT_METHOD)] = None,
    model: Annotated[list[str] | None, typer.Option("--model", help="Model or profile; repeat to compare models.")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint for every --model.")] = None,
    runs: Annotated[int, typer.Option(help="Seeded repeats of every case (mean and std are reported).")] = 1,
    config_file: ConfigOpt = None,
    no_ground_truth: NoGroundTruthOpt = False,
    both_settings: Annotated[bool, typer.Option("--both-settings", help="Run with AND without the ground truth.")] = False,
    limit: Annotated[int | None, typer.Option(help="Only the first N logs.")] = None,
    concurrency: Annotated[int, typer.Option(help="Cases (and LLM calls) in flight at once.")] = 8,
    budget_usd: Annotated[float | None, typer.Option("--budget-usd", help="Stop starting cases before this spend.")] = None,
    budget_tokens: Annotated[int | None, typer.Option("--budget-tokens", help="Stop starting cases before this many tokens.")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Run directory (default: runs/eval-<methods>-<config hash>).")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Base seed; run r uses seed+r.")] = 0,
    chief_modules: ChiefModulesOpt = "full",
    kb_dir: KbDirOpt = None,
    fmt: LogFormatOpt = "auto",
    no_cache: NoCacheOpt = False,
    offline: OfflineOpt = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
    labels: LabelsOpt = None,
) -> None:
    """Run methods and models over labelled logs; write a resumable run directory and print accuracy and cost."""
    gt = [True, False] if both_settings else [not no_ground_truth]
    models: list[str | None] = [*model] if model else [None]
    config = EvalConfig(paths=[str(p) for p in paths], methods=method or [DEFAULT_METHOD], models=models, base_url=base_url,
                        ground_truth=gt, runs=runs, seed=seed, limit=limit, concurrency=concurrency,
                        budget_usd=budget_usd, budget_tokens=budget_tokens, chief_modules=chief_modules,
                        kb_dir=str(kb_dir) if kb_dir else None, log_format=fmt,
                        config_path=str(config_file) if config_file else None,
                        labels=str(labels) if labels else None)
    err = Console(stderr=True)
    with Progress(TextColumn("[bold]evaluate"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.description}"), console=err, disable=quiet or json_out) as progress:
        task = progress.add_task("", total=None)

        def start(directory: Path, jobs: list[Job], done: int) -> None:
            if done:
                err.print(f"resuming {directory}: {done} of {len(jobs)} cases already finished")
            progress.update(task, total=len(jobs), completed=done)

        def advance(rec: CaseRecord, tally: Tally) -> None:
            progress.update(task, advance=1, description=_status(tally))

        try:
            result = run_batch(config, out, cache=not no_cache, offline=offline, on_start=start, on_record=advance)
        except KeyboardInterrupt:
            err.print("interrupted: finished cases are kept; run the same command to resume")
            raise typer.Exit(130) from None
    summary, reports, directory = result.summary, result.reports, result.directory
    if json_out:
        typer.echo(json.dumps(summary, indent=2))
        return
    console = Console()
    by_config = list(group_by_config(result.records).values())
    for rep, recs in zip(reports, by_config, strict=True):
        print_report(rep, console, random=summary.get("random_expected") if rep.method == "random" else None)
        console.print(f"cost: {UsageTotals.of(recs).line()}", highlight=False)
        if rep.method == "random":
            for subset, (agent, step) in (summary.get("random_expected_by_subset") or {}).items():
                console.print(f"  closed form on {subset}: agent {agent:.2f}%, step {step:.2f}%", highlight=False)
    if result.stopped:
        console.print(f"[yellow]stopped early: {result.stopped}; finished cases are kept, re-run to resume[/]")
    console.print(f"run directory: {directory}  (cases.jsonl, summary.json)")


def register(app: typer.Typer) -> None:
    app.command("evaluate")(evaluate)
