"""``attrib graph``: build CHIEF's causal graph for a log and export it (json, mermaid, dot, html)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..attribution import Attribution
from ..errors import AttribError
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
    fmt: Annotated[str, typer.Option("--format", help="json, mermaid, dot or html.")] = "json",
    out: Annotated[Optional[Path], typer.Option("--out", help="Write here instead of standard output.")] = None,
    model: Annotated[Optional[str], typer.Option("--model", help="Model or profile (see `attrib predict --help`).")] = None,
    base_url: Annotated[Optional[str], typer.Option("--base-url", help="OpenAI-compatible endpoint.")] = None,
    chief_modules: Annotated[str, typer.Option("--chief-modules", help="full, m1, m1+m2 or m1+m3.")] = "full",
    kb_dir: Annotated[Optional[Path], typer.Option("--kb-dir", help="Knowledge base directory.")] = None,
    no_ground_truth: Annotated[bool, typer.Option("--no-ground-truth", help="Hide the correct answer from the model.")] = False,
    log_format: Annotated[str, typer.Option("--log-format", help="Log format, or 'auto'.")] = "auto",
    offline: Annotated[bool, typer.Option("--offline", help="Answer only from the cache.")] = False,
) -> None:
    """Run CHIEF on LOG and export its hierarchical causal graph (subtasks, agents, steps, edges, oracles, verdicts)."""
    from .. import api
    from ..readers import load_log

    if fmt not in ("json", "mermaid", "dot", "html"):
        raise AttribError(f"--format must be json, mermaid, dot or html, not {fmt!r}")
    traj = load_log(log, log_format)
    client = api.make_client(model, base_url, offline=offline)
    att = asyncio.run(api.predict_async(traj, "chief", client=client, with_ground_truth=not no_ground_truth,
                                        chief_modules=chief_modules, kb_dir=kb_dir))
    text = export(graph_of(att), traj, fmt, attribution=att)
    if out:
        out.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {out} ({fmt})", err=True)
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def register(app: typer.Typer) -> None:
    app.command("graph")(graph)
