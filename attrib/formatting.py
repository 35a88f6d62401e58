"""Formatting numbers for people: accuracies with confidence intervals, step ranges, money and counts."""

from __future__ import annotations

from collections.abc import Iterable


def accuracy(acc: float | None, low: float | None = None, high: float | None = None, std: float | None = None,
             *, ci_digits: int = 1) -> str:
    """``'54.3 [47.1-61.2] ±1.2'``: percent, its CI (``ci_digits`` 0 for narrow tables), run std; ``'-'`` if unknown."""
    if acc is None:
        return "-"
    out = f"{acc:.1f}"
    if low is not None and high is not None:
        out += f" [{low:.{ci_digits}f}-{high:.{ci_digits}f}]"
    return out + (f" ±{std:.1f}" if std is not None else "")


def step_ranges(steps: Iterable[int]) -> str:
    """``[1, 2, 3, 7, 9, 10]`` -> ``'1-3, 7, 9-10'``."""
    out: list[str] = []
    for i in sorted(set(steps)):
        if out and out[-1].split("-")[-1] == str(i - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{i}"
        else:
            out.append(str(i))
    return ", ".join(out)


def number(value: float | None, digits: int = 1) -> str:
    """``'12,345.6'``, or ``'-'`` when unknown."""
    return "-" if value is None else f"{value:,.{digits}f}"


def usd(value: float | None, digits: int = 4) -> str:
    """``'0.0123'`` dollars, or ``'-'`` when unknown (a price is missing)."""
    return "-" if value is None else f"{value:.{digits}f}"
