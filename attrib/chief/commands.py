"""``attrib graph``: build CHIEF's causal graph for a log and export it (json, mermaid, dot, html)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated

import typer

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
from ..errors import ConfigError
from ..prediction import make_client, predict_async
from ..readers import load_log
from .export import export, graph_of


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
