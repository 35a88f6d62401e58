"""Rich terminal rendering of a scoring :class:`~attrib.evaluation.scoring.Report`."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table

from ..formatting import accuracy

from .compare import gt_text
from .scoring import TOLERANCES, Estimate, GroupReport, Report

MAX_IDS = 20


def _with_ci(e: Estimate) -> str:
    """``'57.1 [51-64]'`` (CI bounds rounded for width; exact values are in the JSON), plus the run sd."""
    return accuracy(e.acc, e.ci_low, e.ci_high, e.run_std, ci_digits=0)


def _group_cells(g: GroupReport, tolerances: tuple[int, ...]) -> list[str]:
    n = str(g.n) + (f" x{len(g.runs)}" if len(g.runs) > 1 else "")
    cells = [g.name, n, _with_ci(g.agent), _with_ci(g.step)]
    cells += [f"{g.step_at_k[k].acc:.1f}" if k in g.step_at_k else "-" for k in tolerances]
    return cells


def report_table(report: Report) -> Table:
    """One table: overall, subsets, log formats (when several), length bands (failed counts per group are in the JSON form)."""
    tolerances = tuple(k for k in TOLERANCES if k > 0) if report.scoring == "exact" else ()
    gt = gt_text(report.with_ground_truth)
    title = f"{report.method} · {report.model} · {gt} — {report.scoring} scoring, accuracy % [95% CI]"
    table = Table(title=title, box=box.SIMPLE_HEAD, padding=(0, 0))
    table.add_column("cases", no_wrap=True)
    table.add_column("n", justify="right", no_wrap=True)
    for h in ["agent", "step"]:
        table.add_column(h, justify="right", no_wrap=True)
    for k in tolerances:
        table.add_column(f"±{k}", justify="right", no_wrap=True, min_width=4)
    table.add_row(*_group_cells(report.overall, tolerances), style="bold")
    if report.subsets:
        table.add_section()
        for g in report.subsets.values():
            table.add_row(*_group_cells(g, tolerances))
    if len(report.sources) > 1:
        table.add_section()
        for name, g in report.sources.items():
            table.add_row(*_group_cells(g.model_copy(update={"name": f"{name} logs"}), tolerances))
    if report.bands:
        table.add_section()
        for name, g in report.bands.items():
            g = g.model_copy(update={"name": f"{name} steps"})
            table.add_row(*_group_cells(g, tolerances))
    return table


def failed_line(report: Report) -> str | None:
    """``'failed (no usable answer): 3 — hand-crafted/4, ...'`` or None when nothing failed."""
    g = report.overall
    if not g.failed:
        return None
    ids = ", ".join(g.failed_ids[:MAX_IDS]) + (" ..." if len(g.failed_ids) > MAX_IDS else "")
    per = ", ".join(f"{name} {s.failed}" for name, s in report.subsets.items() if s.failed)
    return f"failed (no usable answer, counted wrong): {g.failed} record(s){f' ({per})' if per else ''} — {ids}"


def print_report(report: Report, console: Console | None = None, random: tuple[float, float] | None = None) -> None:
    """Print the report table, the failed cases and, when given, the random baseline."""
    console = console or Console()
    console.print(report_table(report))
    line = failed_line(report)
    if line:
        console.print(line, highlight=False)
    if random is not None:
        console.print(f"random guess, expected on these logs: agent {random[0]:.2f}%, step {random[1]:.2f}%", highlight=False)
    if report.scoring == "legacy":
        console.print("legacy scoring: substring matching as in the official Who&When evaluator "
                      "(gold step '1' also matches 10-19); not comparable with exact scores.", highlight=False)
