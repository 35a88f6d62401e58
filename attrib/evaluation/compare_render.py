"""Render a :class:`~attrib.evaluation.compare.Comparison` as a rich table, Markdown, CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
from typing import Literal

from rich import box
from rich.console import Console
from rich.table import Table

from ..formatting import accuracy
from .compare import SHOWN_TOLERANCES, Cell, CompareRow, Comparison, gt_text

Format = Literal["table", "markdown", "csv", "json"]
HEADERS = (
    ["configuration", "n", "agent acc", "step acc"]
    + [f"step ±{k}" for k in SHOWN_TOLERANCES]
    + ["calls/case", "in tok/case", "cached in/case", "out tok/case", "USD/case", "s/case", "invalid"]
)
PRICE_HEADERS = ["model", "input USD/1M", "cached input USD/1M", "output USD/1M", "from"]


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _usd(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _compact(cell: Cell) -> str:
    """``'57.1 [51-64]'``: CI bounds rounded to fit a terminal (exact values in CSV/JSON/Markdown)."""
    return accuracy(cell.acc, cell.low, cell.high, cell.std, ci_digits=0)


def row_cells(row: CompareRow, compact: bool = False) -> list[str]:
    """The display cells of one row, in HEADERS order."""
    fmt = _compact if compact else Cell.text
    tol = [fmt(row.tolerance[k]) if k in row.tolerance else "-" for k in SHOWN_TOLERANCES]
    return [
        row.label if row.kind == "measured" else f"paper: {row.label}",
        "-" if row.n is None else str(row.n) + (f" x{row.runs}" if row.runs and row.runs > 1 else ""),
        fmt(row.agent), fmt(row.step), *tol,
        _num(row.calls_per_case), _num(row.input_tokens_per_case, 0), _num(row.cached_input_tokens_per_case, 0),
        _num(row.output_tokens_per_case, 0),
        _usd(row.usd_per_case), _num(row.seconds_per_case), "-" if row.invalid is None else str(row.invalid),
    ]


def price_cells(comp: Comparison) -> list[list[str]]:
    return [[p.model, _usd(p.input), _usd(p.cached_input), _usd(p.output), p.source] for p in comp.prices]


def rich_tables(comp: Comparison) -> list[Table]:
    """The comparison table and, when runs recorded prices, the price table."""
    table = Table(title="Failure attribution: accuracy (%) [95% bootstrap CI] and cost per case",
                  box=box.SIMPLE_HEAD)
    for i, h in enumerate(HEADERS):
        if i == 0:
            table.add_column(h, overflow="fold", min_width=30)
        else:
            table.add_column(h, justify="right", no_wrap=True)
    for row in comp.rows:
        table.add_row(*row_cells(row, compact=True), style="dim" if row.kind == "reference" else None)
    out = [table]
    prices = Table(title="Prices used (USD per 1M tokens, from each run's config.json)", box=box.SIMPLE_HEAD)
    for h in PRICE_HEADERS:
        prices.add_column(h)
    for cells in price_cells(comp):
        prices.add_row(*cells)
    if not comp.prices:
        prices.add_row("(no prices recorded)", "-", "-", "-", "-")
    out.append(prices)
    return out


def print_table(comp: Comparison, console: Console | None = None) -> None:
    console = console or Console()
    for t in rich_tables(comp):
        console.print(t)


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def _md_table(headers: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(["---"] + ["---:"] * (len(headers) - 1)) + "|"]
    lines += ["| " + " | ".join(_md_escape(c) for c in r) + " |" for r in rows]
    return lines


def to_markdown(comp: Comparison) -> str:
    """The comparison (and price) tables as GitHub Markdown; paper rows are italic."""
    rows = []
    for row in comp.rows:
        cells = row_cells(row)
        if row.kind == "reference":
            cells[0] = f"*{cells[0]}*"
        rows.append(cells)
    lines = ["Accuracy in %, [95% bootstrap CI over cases], ±sd over runs when several.", ""]
    lines += _md_table(HEADERS, rows)
    lines += ["", "Prices used (USD per 1M tokens):", ""]
    lines += _md_table(PRICE_HEADERS, price_cells(comp) or [["(none recorded)", "-", "-", "-", "-"]])
    notes = [f"- *{r.label}*: {r.note}" for r in comp.rows if r.kind == "reference" and r.note]
    if notes:
        lines += ["", "Notes on paper rows:", ""] + list(dict.fromkeys(notes))
    return "\n".join(lines) + "\n"


def _csv_fields(row: CompareRow) -> dict[str, object]:
    out: dict[str, object] = {
        "kind": row.kind, "label": row.label, "method": row.method, "model": row.model or "",
        "with_ground_truth": "" if row.with_ground_truth is None else row.with_ground_truth,
        "subset": row.subset, "n": row.n if row.n is not None else "", "runs": row.runs if row.runs is not None else "",
    }
    for name, cell in [("agent", row.agent), ("step", row.step)] + [
        (f"step_k{k}", row.tolerance.get(k)) for k in range(6)
    ]:
        for part in ("acc", "low", "high", "std"):
            value = getattr(cell, part) if cell is not None else None
            out[f"{name}_{part}"] = "" if value is None else round(value, 4)
    for name in ("calls_per_case", "input_tokens_per_case", "cached_input_tokens_per_case", "output_tokens_per_case",
                 "usd_per_case",
                 "seconds_per_case", "invalid", "failed"):
        value = getattr(row, name)
        out[name] = "" if value is None else value
    out["source"] = "; ".join(row.sources)
    return out


def to_csv(comp: Comparison) -> str:
    """One CSV line per row (machine-readable: separate columns for value, CI bounds and sd)."""
    buf = io.StringIO()
    fields = list(_csv_fields(comp.rows[0]).keys()) if comp.rows else ["kind", "label"]
    writer = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for row in comp.rows:
        writer.writerow(_csv_fields(row))
    return buf.getvalue()


def to_json(comp: Comparison) -> str:
    return json.dumps(comp.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"


def render(comp: Comparison, fmt: Format) -> str:
    """Text of ``comp`` in ``fmt`` (``table`` gives the rich table as plain text)."""
    if fmt == "markdown":
        return to_markdown(comp)
    if fmt == "csv":
        return to_csv(comp)
    if fmt == "json":
        return to_json(comp)
    console = Console(record=True, width=200, file=io.StringIO())
    print_table(comp, console)
    return console.export_text()


__all__ = ["Format", "HEADERS", "gt_text", "print_table", "render", "rich_tables", "row_cells",
           "to_csv", "to_json", "to_markdown"]
