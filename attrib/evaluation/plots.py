"""PNG plots of a comparison (matplotlib, Agg backend; matplotlib is an optional dependency).

- ``tolerance.png``: step accuracy vs tolerance k = 0..5, one line per row;
- ``cost_frontier.png``: agent (circle) and step (square) accuracy vs input tokens per case.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from ..errors import ConfigError
from .compare import CompareRow, Comparison
from .scoring import TOLERANCES

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _pyplot() -> ModuleType:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ConfigError("plots need matplotlib: pip install 'attrib[plots]'") from None
    return plt


def _short(row: CompareRow) -> str:
    return row.label if row.kind == "measured" else f"paper: {row.label}"


def plot_tolerance(comp: Comparison, path: str | Path) -> Path:
    """Step accuracy at tolerance k (|pred - gold| <= k) for every row that has such values."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 5))
    drawn = 0
    for row in comp.rows:
        ks = [k for k in TOLERANCES if k in row.tolerance and row.tolerance[k].acc is not None]
        if not ks:
            continue
        ys = [row.tolerance[k].acc for k in ks]
        style = "-" if row.kind == "measured" else "--"
        line = ax.plot(ks, ys, style, marker="o" if row.kind == "measured" else "x", label=_short(row))[0]
        lows = [row.tolerance[k].low for k in ks]
        highs = [row.tolerance[k].high for k in ks]
        if row.kind == "measured" and None not in lows and None not in highs:
            ax.fill_between(ks, lows, highs, color=line.get_color(), alpha=0.12)
        drawn += 1
    ax.set_xlabel("tolerance k (|predicted step - gold step| <= k)")
    ax.set_ylabel("step accuracy (%)")
    ax.set_xticks(list(TOLERANCES))
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    ax.set_title("Step accuracy vs tolerance")
    if drawn:
        ax.legend(fontsize=7, loc="upper left")
    return _save(fig, plt, path)


def plot_cost_frontier(comp: Comparison, path: str | Path) -> Path:
    """Agent (o) and step (s) accuracy against input tokens per case; one colour per row."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 5))
    xs_all: list[float] = []
    for i, row in enumerate(comp.rows):
        x = row.input_tokens_per_case
        if x is None or (row.agent.acc is None and row.step.acc is None):
            continue
        color = f"C{i % 10}"
        hollow = row.kind == "reference"
        for acc, marker in ((row.agent.acc, "o"), (row.step.acc, "s")):
            if acc is not None:
                ax.scatter([x], [acc], marker=marker, s=50, edgecolors=color,
                           facecolors="none" if hollow else color)
        ax.plot([], [], color=color, label=_short(row))
        xs_all.append(x)
    if xs_all and min(xs_all) > 0 and max(xs_all) / min(xs_all) > 20:
        ax.set_xscale("log")
    ax.scatter([], [], marker="o", color="gray", label="agent accuracy")
    ax.scatter([], [], marker="s", color="gray", label="step accuracy")
    ax.set_xlabel("input tokens per case (published rows: token cost per case as reported)")
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    ax.set_title("Accuracy vs cost (hollow markers: published)")
    ax.legend(fontsize=7, loc="upper left")
    return _save(fig, plt, path)


def _save(fig: Figure, plt: ModuleType, path: str | Path) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(p, dpi=120)
    plt.close(fig)
    return p


def write_plots(comp: Comparison, directory: str | Path) -> list[Path]:
    """Write both PNGs into ``directory``; returns their paths."""
    d = Path(directory)
    return [plot_tolerance(comp, d / "tolerance.png"), plot_cost_frontier(comp, d / "cost_frontier.png")]
