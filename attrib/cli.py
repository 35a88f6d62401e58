"""The command line: a thin layer over :mod:`attrib.api`. Run ``attrib --help``."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from typer.core import TyperGroup

from . import api
from .agents import agent_key
from .chief.commands import register as chief_commands
from .chief.export import write_report
from .cli_options import (
    BaseUrlOpt,
    ChiefModulesOpt,
    ConfigOpt,
    KbDirOpt,
    LabelsOpt,
    LogFormatOpt,
    ModelOpt,
    NoCacheOpt,
    NoGroundTruthOpt,
    OfflineOpt,
    SeedOpt,
)
from .errors import AttribError, ConfigError, InputError
from .evaluation.commands import register as eval_commands
from .evaluation.evaluate_cmd import register as evaluate_command
from .kb.commands import register as kb_commands
from .methods import METHODS
from .output import show, to_json, write_json
from .readers import iter_log_paths, load_log
from .readers.commands import register as reader_commands
from .readers.label_file import load_labelled, load_labels

err = Console(stderr=True)

# Exit status of `attrib predict` on a log whose run died on infrastructure (nothing to attribute).
EXIT_INFRASTRUCTURE_FAILURE = 4


class _Group(TyperGroup):
    """Turns AttribError (and an unreadable or unwritable file) into one line on stderr and an exit code: never a traceback."""

    # typer.Context is the public subclass of the click Context typer vendors (typer._click), hence the override ignore
    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except AttribError as exc:
            sys.stderr.write(f"attrib: error: {' '.join(str(exc).split())}\n")
            raise typer.Exit(exc.exit_code) from None
        except OSError as exc:  # a file that cannot be read or written: the file and the problem, in one line
            where = f"{exc.filename}: " if exc.filename else ""
            sys.stderr.write(f"attrib: error: {where}{exc.strerror or exc}\n")
            raise typer.Exit(2) from None


app = typer.Typer(cls=_Group, no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False,
                  help="Find which agent made the decisive mistake in a failed multi-agent run, at which step, and why.")

@app.command()
def predict(
    log: Annotated[Path, typer.Argument(help="A failed run's log (Who&When JSON or another supported format).")],
    method: Annotated[str, typer.Option("--method", "-m", help=f"One of: {', '.join(METHODS.names())}.")] = "all-at-once",
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    config: ConfigOpt = None,
    no_ground_truth: NoGroundTruthOpt = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the attribution as one JSON object (schema_version inside).")] = False,
    out: Annotated[Path | None, typer.Option("--out", help="Also write the JSON attribution to this file.")] = None,
    fmt: LogFormatOpt = "auto",
    seed: SeedOpt = 0,
    no_cache: NoCacheOpt = False,
    offline: OfflineOpt = False,
    timeout: Annotated[float, typer.Option(help="Seconds before one request is abandoned and retried.")] = 120.0,
    max_retries: Annotated[int, typer.Option(help="Retries on 429/5xx/timeouts before giving up.")] = 5,
    chief_modules: ChiefModulesOpt = "full",
    kb_dir: KbDirOpt = None,
    report: Annotated[Path | None, typer.Option("--report", help="CHIEF only: write a self-contained HTML report of the graph and the verdicts.")] = None,
) -> None:
    """Attribute one failed run: agent, step (0-based), reason, and the evidence and cost behind them.

    Exit codes: 0 with an attribution (or status no_error_found), 1 when the answer stayed invalid or the
    endpoint failed (the JSON still says why), 2 for unreadable input or configuration, 3 for LLM errors
    outside an attribution, 4 when the log shows the run died on infrastructure (status
    infrastructure_failure: retried or failed requests and no agent turn after them; no agent is blamed).
    """
    if report and method != "chief":
        raise ConfigError("--report needs --method chief (it draws CHIEF's causal graph)")
    traj = load_log(log, fmt)
    client = None
    if METHODS.get(method).needs_model:
        client = api.make_client(model, base_url, config=config, cache=not no_cache, offline=offline,
                                 timeout=timeout, max_retries=max_retries, seed=seed)
        if client.settings.is_demo and not json_out:
            err.print("[yellow]note: no model configured, using the embedded SmolLM2-135M demo model (it does not attribute well; use --model/--base-url)[/]")
    with err.status(f"attributing {traj.id} ({traj.n_steps} steps) with {method}...", spinner="dots") if not json_out \
            else contextlib.nullcontext():
        att = asyncio.run(api.predict_async(traj, method, client=client, with_ground_truth=not no_ground_truth,
                                            seed=seed, chief_modules=chief_modules, kb_dir=kb_dir))
    if report:
        write_report(att, traj, report)
        err.print(f"report written to {report}")
    if out:
        write_json(att, out)
    if json_out:
        sys.stdout.write(to_json(att) + "\n")
    else:
        show(att)
    if att.status in ("invalid", "error"):
        raise typer.Exit(1)
    if att.status == "infrastructure_failure":
        raise typer.Exit(EXIT_INFRASTRUCTURE_FAILURE)


@app.command()
def validate(
    paths: Annotated[list[Path], typer.Argument(help="Log files or folders of logs.")],
    fmt: LogFormatOpt = "auto",
    labels: LabelsOpt = None,
) -> None:
    """Check log files and print what is wrong with each (exit 2 if any is bad)."""
    console = Console()
    bad = 0
    gold_labels = load_labels(labels) if labels else None
    for path in iter_log_paths(paths):
        try:
            t = load_labelled(path, gold_labels, fmt)
        except InputError as exc:
            bad += 1
            sys.stderr.write(f"attrib: error: {' '.join(str(exc).split())}\n")
            continue
        gold = f", gold: {t.gold.agent} @ step {t.gold.step}" if t.gold else ""
        console.print(f"[green]ok[/]  {path}: {t.n_steps} steps, agents: {', '.join(t.agents)}{gold}", highlight=False)
        if t.gold and agent_key(t.steps[t.gold.step].agent) != agent_key(t.gold.agent):
            console.print(f"    note: labelled agent {t.gold.agent} is not the one acting at step {t.gold.step} ({t.steps[t.gold.step].label})", highlight=False)
        if t.infrastructure_failure:
            console.print(f"    note: {t.infrastructure_failure}", highlight=False)
    if bad:
        raise typer.Exit(2)


@app.command("methods")
def list_methods() -> None:
    """List the attribution methods."""
    for m in METHODS:
        typer.echo(f"{m.name:14s} {m.summary}")


for _register in (reader_commands, evaluate_command, eval_commands, chief_commands, kb_commands):
    _register(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
