"""The ``score`` and ``compare`` commands (plain functions; :func:`register` adds them to a Typer app).

Problems with inputs raise :class:`attrib.errors.InputError` (one line naming the file; exit 2),
which the application's entry point prints.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from ..cli_options import LabelsOpt
from ..errors import ConfigError, InputError
from .compare import compare_runs
from .compare_render import print_table, render
from .render import print_report
from .score_file import score_file
from .scoring import N_BOOTSTRAP, SEED

FORMATS = ("table", "markdown", "csv", "json")


def score(
    predictions: Path = typer.Argument(..., help="Predictions: JSONL of case records or attributions, "
                                       "an attribution JSON, or the official Who&When text output."),
    data: Path = typer.Option(..., "--data", help="Labelled logs (file or folder) to score against; "
                              "every log counts, missing predictions are wrong."),
    legacy_scoring: bool = typer.Option(False, "--legacy-scoring", help="Use the official Who&When substring "
                                        "matching (for comparison with published numbers)."),
    json_output: bool = typer.Option(False, "--json", help="Print the reports as JSON."),
    subset: Optional[str] = typer.Option(None, "--subset", help="Only logs of this subset: "
                                         "algorithm-generated or hand-crafted."),
    model: str = typer.Option("unknown", "--model", help="Model label for official-format predictions."),
    with_ground_truth: bool = typer.Option(True, "--with-ground-truth/--without-ground-truth",
                                           help="Setting label for official-format predictions."),
    bootstrap: int = typer.Option(N_BOOTSTRAP, "--bootstrap", min=100, help="Bootstrap resamples for the CIs."),
    seed: int = typer.Option(SEED, "--seed", help="Bootstrap seed."),
    labels: LabelsOpt = None,
) -> None:
    """Score predictions against gold labels: agent/step accuracy, tolerance curve, CIs, failed cases."""
    result = score_file(predictions, data, legacy=legacy_scoring, subset=subset, model=model,
                        with_ground_truth=with_ground_truth, n_boot=bootstrap, seed=seed, labels=labels)
    reports, rnd = result.reports, result.random_expected
    if json_output:
        payload = {
            "predictions": str(predictions), "data": str(data), "subset": subset,
            "scoring": "legacy" if legacy_scoring else "exact",
            "random_expected": {"agent_acc": rnd[0], "step_acc": rnd[1]},
            "reports": [r.model_dump(mode="json") for r in reports],
        }
        typer.echo(json.dumps(payload, indent=2))
        return
    console = Console()
    for report in reports:
        print_report(report, console, random=rnd)


def compare(
    run_dirs: list[Path] = typer.Argument(..., help="Run directories (config.json + cases.jsonl)."),
    to: str = typer.Option("table", "--to", help="Output: table, markdown, csv or json."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write to this file instead of the terminal."),
    plots: Optional[Path] = typer.Option(None, "--plots", help="Write tolerance.png and cost_frontier.png here."),
    reference: bool = typer.Option(False, "--reference", help="Add published rows for the same method and setting."),
    subset: Optional[str] = typer.Option(None, "--subset", help="Only cases of this subset."),
    by_subset: bool = typer.Option(False, "--by-subset", help="One row per subset for each configuration."),
    bootstrap: int = typer.Option(N_BOOTSTRAP, "--bootstrap", min=100, help="Bootstrap resamples for the CIs."),
    seed: int = typer.Option(SEED, "--seed", help="Bootstrap seed."),
) -> None:
    """Compare runs: accuracy with CIs, tolerance, calls, tokens, USD and seconds per case."""
    if to not in FORMATS:
        raise ConfigError(f"--to must be one of {', '.join(FORMATS)}, got {to!r}")
    comp = compare_runs(run_dirs, reference=reference, subset=subset, by_subset=by_subset,
                            n_boot=bootstrap, seed=seed)
    if out is not None:
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(render(comp, to), encoding="utf-8")  # type: ignore[arg-type]
        except OSError as exc:
            raise InputError(out, f"cannot write: {exc.strerror or exc}") from None
        typer.echo(f"wrote {out}")
    elif to == "table":
        print_table(comp)
    else:
        typer.echo(render(comp, to), nl=False)  # type: ignore[arg-type]
    if plots is not None:
        from .plots import write_plots

        for p in write_plots(comp, plots):
            typer.echo(f"wrote {p}")


def register(app: typer.Typer) -> None:
    """Add the ``score`` and ``compare`` commands to ``app``."""
    app.command("score")(score)
    app.command("compare")(compare)
