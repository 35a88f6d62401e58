"""Showing an attribution: a readable rich panel, or the documented JSON object."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .attribution import Attribution


def to_json(att: Attribution, indent: int | None = 2) -> str:
    return json.dumps(att.model_dump(mode="json"), ensure_ascii=False, indent=indent)


def write_json(att: Attribution, path: str | Path) -> None:
    Path(path).write_text(to_json(att) + "\n", encoding="utf-8")


def _money(value: float | None) -> str:
    return "unknown (no price for this model)" if value is None else f"${value:.4f}"


def panel(att: Attribution) -> Panel:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold cyan", justify="right")
    grid.add_column()
    model = att.model + ("  [yellow](embedded 135M demo model)[/]" if att.demo_model else "")
    grid.add_row("case", f"{att.case_id}" + (f"  ({att.log_path})" if att.log_path else ""))
    grid.add_row("method", f"{att.method}  ({'with' if att.with_ground_truth else 'without'} ground truth)")
    grid.add_row("model", model)
    status_style = {"ok": "green", "no_error_found": "yellow"}.get(att.status, "red")
    grid.add_row("status", f"[{status_style}]{att.status}[/]")
    if att.agent is not None:
        grid.add_row("agent", f"[bold]{att.agent}[/]")
    if att.step is not None:
        src = f"  (source id {att.step_source_id})" if att.step_source_id not in (None, str(att.step)) else ""
        grid.add_row("step", f"[bold]{att.step}[/]{src}")
    if att.reason:
        grid.add_row("reason", Text(att.reason))
    if att.error:
        grid.add_row("error", Text(att.error, style="red"))
    if att.step_excerpt:
        grid.add_row("step text", Text(att.step_excerpt, style="dim"))
    u = att.usage
    grid.add_row("calls", f"{u.calls} ({u.cached_calls} from cache, {u.invalid_calls} invalid)")
    grid.add_row("tokens", f"{u.input_tokens:,} in ({u.cached_input_tokens:,} cached) / {u.output_tokens:,} out")
    grid.add_row("cost", _money(u.cost_usd))
    grid.add_row("time", f"{u.seconds:.2f} s")
    parts: list[RenderableType] = [grid]
    if att.notices:
        parts.append(Text("\n".join(f"note: {n}" for n in att.notices), style="yellow"))
    return Panel(Group(*parts), title="attrib: failure attribution", expand=False)


def show(att: Attribution, console: Console | None = None) -> None:
    (console or Console()).print(panel(att))
