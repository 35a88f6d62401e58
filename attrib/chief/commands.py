"""``attrib graph``: build CHIEF's causal graph for a log and export it (json, mermaid, dot, html)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..attribution import Attribution
from ..cli_options import (
    BaseUrlOpt,
    ChiefModulesOpt,
    ConfigOpt,
    KbDirOpt,
    LogFormatOpt,
    ModelOpt,
    NoCacheOpt,
    NoGroundTruthOpt,
    OfflineOpt,
)
from ..errors import AttribError, ConfigError
from ..trajectory import Trajectory
from .export import export
from .graph import CausalGraph


def graph_of(att: Attribution) -> CausalGraph:
    data = att.details.get("graph")
    if not data:
        raise AttribError(f"{att.case_id}: no causal graph in this attribution ({att.status}: {att.error or 'no details'})")
    return CausalGraph.model_validate(data)


def write_report(att: Attribution, traj: Trajectory, path: Path) -> None:
    Path(path).write_text(export(graph_of(att), traj, "html", attribution=att), encoding="utf-8")


def graph(
    log: Annotated[Path, typer.Argument(help="A failed run's log.")],
    to: Annotated[str, typer.Option("--to", help="Output: json, mermaid, dot or html.")] = "json",
    out: Annotated[Path | None, typer.Option("--out", help="Write here instead of standard output.")] = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    config: ConfigOpt = None,
    chief_modules: ChiefModulesOpt = "full",
    kb_dir: KbDirOpt = None,
    no_ground_truth: NoGroundTruthOpt = False,
    fmt: LogFormatOpt = "auto",
    no_cache: NoCacheOpt = False,
    offline: OfflineOpt = False,
) -> None:
    """Run CHIEF on LOG and export its hierarchical causal graph (subtasks, agents, steps, edges, oracles, verdicts)."""
    from ..prediction import make_client, predict_async
    from ..readers import load_log

    if to not in ("json", "mermaid", "dot", "html"):
        raise ConfigError(f"--to must be json, mermaid, dot or html, not {to!r}")
    traj = load_log(log, fmt)
    client = make_client(model, base_url, config=config, cache=not no_cache, offline=offline)
    att = asyncio.run(predict_async(traj, "chief", client=client, with_ground_truth=not no_ground_truth,
                                    chief_modules=chief_modules, kb_dir=kb_dir))
    text = export(graph_of(att), traj, to, attribution=att)
    if out:
        out.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {out} ({to})", err=True)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def register(app: typer.Typer) -> None:
    app.command("graph")(graph)
