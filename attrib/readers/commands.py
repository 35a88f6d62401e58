"""``attrib convert`` and ``attrib show``: check how a log is read, and write it in another format.

Both read the log with :func:`attrib.readers.load_log` (one copy of a big
input in memory). Problems are raised as :class:`attrib.errors.InputError`, which
the CLI prints as one line (exit code 2).
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..convert import dumps
from ..cli_options import LogFormatOpt
from ..errors import InputError
from ..text import first_line
from ..trajectory import Step, Trajectory
from . import format_names, is_format, load_log


class Target(str, Enum):
    who_and_when = "who-and-when"
    jsonl = "jsonl"




def _load(path: Path, fmt: str) -> Trajectory:
    if fmt != "auto" and not is_format(fmt):
        raise InputError(None, f"unknown format {fmt!r} (known: auto, {', '.join(format_names())})")
    return load_log(path, fmt)


def convert(
    log: Annotated[Path, typer.Argument(help="The log to convert (any supported format).")],
    to: Annotated[Target, typer.Option("--to", help="who-and-when (JSON) or jsonl (attrib JSON Lines, keeps source ids).")],
    out: Annotated[Path, typer.Option("--out", help="File to write ('-' for standard output).")],
    fmt: LogFormatOpt = "auto",
) -> None:
    """Write LOG in another format (steps, source ids where the format has room, labels)."""
    traj = _load(log, fmt)
    text = dumps(traj, to.value)
    if str(out) == "-":
        sys.stdout.write(text)
        return
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(out, f"cannot write: {exc.strerror or exc}") from None
    typer.echo(f"wrote {out}: {traj.n_steps} steps from {traj.source_format} as {to.value}"
               + (f", gold: {traj.gold.agent} @ step {traj.gold.step}" if traj.gold else ""))



def _step_json(step: Step) -> dict:
    return step.model_dump(mode="json")


def show(
    log: Annotated[Path, typer.Argument(help="The log to read.")],
    fmt: LogFormatOpt = "auto",
    json_out: Annotated[bool, typer.Option("--json", help="Print the normalized trajectory as JSON.")] = False,
    limit: Annotated[Optional[int], typer.Option("--limit", min=0, help="Show at most N steps.")] = None,
) -> None:
    """Print the normalized steps of LOG (index, source id, agent, first line) to check the reading."""
    traj = _load(log, fmt)
    steps = traj.steps if limit is None else traj.steps[:limit]
    if json_out:
        data = traj.model_dump(mode="json", exclude={"steps"})
        data["n_steps"] = traj.n_steps
        data["steps"] = [_step_json(s) for s in steps]
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return
    console = Console()
    console.print(_summary(traj), highlight=False, markup=False, soft_wrap=True)
    console.print(_table(traj, steps, console.width))
    if len(steps) < traj.n_steps:
        console.print(f"... {traj.n_steps - len(steps)} more steps (raise --limit to see them)", highlight=False,
                      markup=False)


def _table(traj: Trajectory, steps: list[Step], width: int) -> Table:
    """One row per step; the content column gets the room the other columns leave."""
    step_w = max(4, len(str(traj.n_steps)))
    sid_w = min(36, max([9] + [len(s.source_id or "") for s in steps]))
    agent_w = min(32, max([5] + [len(s.label) for s in steps]))
    phase_w = min(24, max([len(s.phase or "") for s in steps] + [0]))
    if phase_w:
        phase_w = max(phase_w, 5)
    content_w = max(20, width - step_w - sid_w - agent_w - (phase_w + 3 if phase_w else 0) - 13)
    table = Table(show_lines=False)
    table.add_column("step", justify="right", width=step_w)
    table.add_column("source id", width=sid_w, overflow="fold")
    table.add_column("agent", width=agent_w, overflow="fold")
    if phase_w:  # the source's own phases (ChatDev)
        table.add_column("phase", width=phase_w, overflow="fold")
    table.add_column("content (first line)", width=content_w)
    cut = set(traj.truncated_steps)
    for s in steps:
        mark = " [shortened]" if s.index in cut else ""
        line = first_line(s.content, content_w - len(mark)) + mark
        phase = [Text(s.phase or "")] if phase_w else []
        table.add_row(str(s.index), Text(s.source_id or ""), Text(s.label), *phase, Text(line))
    return table


def _summary(traj: Trajectory) -> str:
    lines = [f"{traj.path}: {traj.source_format}, {traj.n_steps} steps, agents: {', '.join(traj.agents)}"]
    if traj.question:
        lines.append(f"question: {first_line(traj.question, 160)}")
    if traj.gold:
        lines.append(f"gold: {traj.gold.agent} @ step {traj.gold.step}"
                     + (f" (source id {traj.steps[traj.gold.step].source_id})" if traj.steps[traj.gold.step].source_id else ""))
    if traj.infrastructure_failure:
        lines.append(f"infrastructure failure: {traj.infrastructure_failure}")
    if traj.truncated_steps:
        lines.append(f"shortened steps: {', '.join(map(str, traj.truncated_steps))}")
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    """Add ``convert`` and ``show`` to the CLI."""
    app.command("convert")(convert)
    app.command("show")(show)
