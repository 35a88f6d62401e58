"""The report's account of what CHIEF's stages were given and what they decided.

Per stage: the steps it was shown in full (the whole log, in the shared prefix), which
of them were shortened to fit, which were shown again side by side, and which it
judged; then the screening's planner-or-executor decisions and the confidence signal
(whole-log reading, agreement, runner-up). All log text is HTML-escaped.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from .graph import CausalGraph, StageView

StepLinks = Callable[[list[int]], str]


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def table(title: str, headers: list[str], rows: list[list[str]]) -> str:
    """A titled table of already-escaped cells, or a 'none found' note."""
    if not rows:
        return f'<h2>{title}</h2><p class="muted">none found</p>'
    head = "".join(f"<th>{h}</th>" for h in headers)
    return f"<h2>{title}</h2><table><tr>{head}</tr>" + "".join(
        "<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows) + "</table>"


def judged_section(graph: CausalGraph, steps: StepLinks) -> str:
    """Per stage, the steps it was shown and judged; the screening's pair decisions; the confidence signal."""
    def shown(v: StageView) -> str:
        whole = "the whole log" if v.shown_in_full == list(range(graph.n_steps)) else steps(v.shown_in_full)
        return whole + (f" (shortened: {steps(v.shortened)})" if v.shortened else "")

    out = [table("What each stage saw and judged", ["stage", "shown in full", "shown again side by side", "judged"],
                  [[_e(v.stage), shown(v), steps(v.side_by_side) or "—", steps(v.judged) or "—"] for v in graph.stage_views])]
    out.append(table("Planner or executor", ["pair", "relation", "at fault", "reason"],
                      [[f"{steps([h.upstream_step])} → {steps([h.downstream_step])}", _e(h.relation.replace("_", " ")),
                        _e(h.at_fault), _e(h.reason)] for h in graph.handoffs]))
    if graph.whole_log_step is not None or graph.runner_up_step is not None:
        agree = ("—" if graph.whole_log_step is None or graph.root_step is None
                 else "agrees" if graph.whole_log_step == graph.root_step else "differs: look twice")
        whole = "—" if graph.whole_log_step is None else f"{steps([graph.whole_log_step])} {_e(graph.whole_log_reason)}"
        runner = "—" if graph.runner_up_step is None else f"{steps([graph.runner_up_step])} {_e(graph.runner_up_reason)}"
        out.append(f'<h2>Confidence</h2><div class="setrow" id="confidence"><b>whole-log reading:</b> {whole}</div>'
                   f'<div class="setrow"><b>final answer:</b> {_e(agree)}</div>'
                   f'<div class="setrow"><b>runner-up:</b> {runner}</div>')
    return "".join(out)
