"""Export a CHIEF causal graph as JSON, Mermaid, Graphviz DOT or a self-contained HTML report.

All text that comes from the log or from a model is escaped for the target syntax, so
quotes, brackets, pipes, angle brackets and newlines in labels cannot break the output.
Node identifiers are generated (``sub0``, ``sub0_a1``, ``step12``) and never contain
log text.

Exporters are plugins (:class:`Exporter` in :data:`EXPORTERS`); the layout they share with the
HTML report lives in :mod:`attrib.chief.layout`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..agents import agent_key
from ..attribution import Attribution
from ..errors import AttribError
from ..formatting import step_ranges
from ..registry import Registry
from ..trajectory import Trajectory
from .graph import CausalGraph
from .layout import LABEL_CHARS, Column, NodeView, columns, flat, key_steps, root_nodes

StepMode = Literal["key", "all", "none"]

# ----------------------------------------------------------------------------- JSON


def to_json(graph: CausalGraph) -> str:
    """The whole graph as indented JSON (``CausalGraph.model_validate_json`` reads it back)."""
    return graph.model_dump_json(indent=2)


# ----------------------------------------------------------------------------- Mermaid

_MERMAID_SPECIAL = set('"#<>|`&%\\;{}[]()')


def mermaid_text(text: str, limit: int = LABEL_CHARS) -> str:
    """Text safe inside a double-quoted Mermaid label: one line, specials as ``#NN;`` entity codes."""
    return "".join(f"#{ord(ch)};" if ch in _MERMAID_SPECIAL else ch for ch in flat(text, limit))


@dataclass
class _Plan:
    """What both text exporters draw: columns, shown steps, highlight sets and generated ids."""

    cols: list[Column]
    shown: set[int]
    roots: set[tuple[str, str]]
    cand_steps: set[int]
    cand_agents: set[str]
    col_id: dict[str, str]


def _plan(graph: CausalGraph, traj: Trajectory | None, steps: StepMode) -> _Plan:
    cols = columns(graph, traj)
    placed = {i for c in cols for n in c.nodes for i in n.steps}
    if steps == "all":
        shown = placed
    elif steps == "key":
        shown = key_steps(graph) & placed
    else:
        shown = set()
    return _Plan(cols=cols, shown=shown, roots=root_nodes(graph, cols), cand_steps=set(graph.candidate_steps),
                 cand_agents={agent_key(a) for a in graph.candidate_agents},
                 col_id={c.key: f"sub{i}" for i, c in enumerate(cols)})


def to_mermaid(graph: CausalGraph, traj: Trajectory | None = None, *, steps: StepMode = "key") -> str:
    """A Mermaid ``flowchart LR``: one subgraph per subtask holding its agent nodes (and step nodes).

    ``steps`` chooses the step nodes: ``key`` (data-flow ends, candidates, root; default),
    ``all`` or ``none``. Step nodes hang off their agent node with a dotted link; data-flow
    edges are dotted arrows labelled with the data. The root-cause agent node and step
    node get the ``root`` class, candidates the ``cand`` class.
    """
    plan = _plan(graph, traj, steps)
    cols, shown, roots, cand_steps, cand_agents, col_id = (plan.cols, plan.shown, plan.roots, plan.cand_steps,
                                                           plan.cand_agents, plan.col_id)
    node_id: dict[tuple[str, str], str] = {}
    lines = [f"%% CHIEF causal graph, case {mermaid_text(graph.case_id, 80)}", "flowchart LR",
             "  classDef agent fill:#ffffff,stroke:#4b5b7a,color:#1d2433",
             "  classDef implicit fill:#f7f7f7,stroke:#9aa3b5,stroke-dasharray:4 3,color:#4b5563",
             "  classDef step fill:#eef2ff,stroke:#8a94b8,color:#1d2433",
             "  classDef cand fill:#fff3d6,stroke:#d08a00,color:#3d2a00",
             "  classDef root fill:#d7263d,stroke:#7a0010,color:#ffffff,stroke-width:3px"]
    classes: list[str] = []
    links: list[str] = []
    for col in cols:
        sid = col_id[col.key]
        span = f" (steps {col.subtask.start}-{col.subtask.end})" if col.subtask else ""
        lines.append(f'  subgraph {sid}["{mermaid_text(flat(col.title, 48) + span, 80)}"]')
        lines.append("    direction TB")
        for ni, view in enumerate(col.nodes):
            nid = f"{sid}_a{ni}"
            node_id[(col.key, agent_key(view.agent))] = nid
            detail = f"steps {step_ranges(view.steps)}" if view.steps else "no steps"
            lines.append(f'    {nid}["{mermaid_text(view.agent, 40)}<br/>{mermaid_text(detail, 40)}"]')
            is_cand = col.key in graph.candidate_subtasks and agent_key(view.agent) in cand_agents
            kind = "root" if (col.key, agent_key(view.agent)) in roots else "cand" if is_cand else \
                "implicit" if view.implicit else "agent"
            classes.append(f"  class {nid} {kind}")
            for i in view.steps:
                if i in shown:
                    lines.append(f'    step{i}(["{i}"])')
                    links.append(f"  {nid} -.- step{i}")
                    kind = "root" if i == graph.root_step else "cand" if i in cand_steps else "step"
                    classes.append(f"  class step{i} {kind}")
        lines.append("  end")
        if col.subtask is not None and col.key in graph.candidate_subtasks:
            classes.append(f"  style {sid} fill:#fff8e6,stroke:#d08a00")
    for se in graph.subtask_edges:
        if se.source in col_id and se.target in col_id:
            lines.append(f'  {col_id[se.source]} -->|"{mermaid_text(se.type)}"| {col_id[se.target]}')
    for ae in graph.agent_edges:
        a, b = node_id.get((ae.subtask, agent_key(ae.source))), node_id.get((ae.subtask, agent_key(ae.target)))
        if a and b:
            lines.append(f'  {a} -->|"{mermaid_text(ae.type)}"| {b}')
    lines += links
    for fe in graph.step_edges:
        if fe.producer in shown and fe.consumer in shown:
            lines.append(f'  step{fe.producer} -.->|"{mermaid_text(fe.data, 40)}"| step{fe.consumer}')
    return "\n".join(lines + classes) + "\n"


# ----------------------------------------------------------------------------- Graphviz DOT


def dot_text(text: str, limit: int = LABEL_CHARS) -> str:
    """Text safe inside a double-quoted DOT string: one line, backslashes and quotes escaped."""
    return flat(text, limit).replace("\\", "\\\\").replace('"', '\\"')


def to_dot(graph: CausalGraph, traj: Trajectory | None = None, *, steps: StepMode = "key") -> str:
    """Graphviz ``digraph``: one cluster per subtask with its agent (and step) nodes, edges at three levels.

    Each cluster holds an invisible anchor node so subtask edges can join clusters
    (``compound=true`` with ``ltail``/``lhead``). Colours and ``steps`` match :func:`to_mermaid`.
    """
    plan = _plan(graph, traj, steps)
    cols, shown, roots, cand_steps, cand_agents, col_id = (plan.cols, plan.shown, plan.roots, plan.cand_steps,
                                                           plan.cand_agents, plan.col_id)
    node_id: dict[tuple[str, str], str] = {}
    lines = ["digraph chief {",
             (f'  graph [rankdir=LR, compound=true, fontname="Helvetica", fontsize=12, labelloc=t, '
              f'label="CHIEF causal graph: {dot_text(graph.case_id, 80)}"];'),
             ('  node [fontname="Helvetica", fontsize=11, shape=box, style="rounded,filled", '
              'fillcolor="#ffffff", color="#4b5b7a"];'),
             '  edge [fontname="Helvetica", fontsize=9, color="#55606e"];']
    for ci, col in enumerate(cols):
        sid = col_id[col.key]
        span = f" (steps {col.subtask.start}-{col.subtask.end})" if col.subtask else ""
        cand = col.subtask is not None and col.key in graph.candidate_subtasks
        lines += [f"  subgraph cluster_{ci} {{",
                  (f'    label="{dot_text(flat(col.title, 48) + span, 80)}"; style="rounded,filled"; '
                   f'fillcolor="{"#fff8e6" if cand else "#f3f5fa"}"; color="{"#d08a00" if cand else "#9aa5bd"}";'),
                  f'    {sid} [shape=point, style=invis, width=0.01, label=""];']
        for ni, view in enumerate(col.nodes):
            nid = f"{sid}_a{ni}"
            node_id[(col.key, agent_key(view.agent))] = nid
            detail = f"steps {step_ranges(view.steps)}" if view.steps else "no steps"
            attrs = f'label="{dot_text(view.agent, 40)}\\n{dot_text(detail, 40)}"'
            if (col.key, agent_key(view.agent)) in roots:
                attrs += ', fillcolor="#d7263d", fontcolor="#ffffff", color="#7a0010", penwidth=3'
            elif cand and agent_key(view.agent) in cand_agents:
                attrs += ', fillcolor="#fff3d6", color="#d08a00"'
            elif view.implicit:
                attrs += ', style="rounded,dashed", color="#9aa3b5"'
            lines.append(f"    {nid} [{attrs}];")
            for i in view.steps:
                if i not in shown:
                    continue
                fill = '"#d7263d", fontcolor="#ffffff", penwidth=3' if i == graph.root_step else \
                    '"#fff3d6"' if i in cand_steps else '"#eef2ff"'
                lines.append(f'    step{i} [label="{i}", shape=circle, fontsize=9, fillcolor={fill}];')
                lines.append(f"    {nid} -> step{i} [style=dotted, arrowhead=none];")
        lines.append("  }")
    for se in graph.subtask_edges:
        if se.source in col_id and se.target in col_id:
            a, b = col_id[se.source], col_id[se.target]
            ta, tb = a.replace("sub", "cluster_"), b.replace("sub", "cluster_")
            lines.append(f'  {a} -> {b} [ltail={ta}, lhead={tb}, label="{dot_text(se.type)}", penwidth=2];')
    for ae in graph.agent_edges:
        src, dst = node_id.get((ae.subtask, agent_key(ae.source))), node_id.get((ae.subtask, agent_key(ae.target)))
        if src and dst:
            lines.append(f'  {src} -> {dst} [label="{dot_text(ae.type)}", color="#3b6fb6"];')
    for fe in graph.step_edges:
        if fe.producer in shown and fe.consumer in shown:
            style = "dashed" if fe.origin == "literal" else "solid"
            lines.append(f'  step{fe.producer} -> step{fe.consumer} [label="{dot_text(fe.data, 40)}", '
                         f'style={style}, color="#2a9d8f", constraint=false];')
    lines.append("}")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class Exporter:
    """A graph output format: ``render(graph, traj, attribution)`` returns the file's text."""

    name: str
    render: Callable[[CausalGraph, Trajectory | None, Attribution | None], str]
    needs_log: bool = False


def _html(graph: CausalGraph, traj: Trajectory | None, attribution: Attribution | None) -> str:
    from .report import render_report  # the report's assets are only loaded when a report is asked for

    assert traj is not None
    return render_report(graph, traj, attribution)


EXPORTERS: Registry[Exporter] = Registry("export format")
EXPORTERS.register(Exporter("json", lambda g, t, a: to_json(g)))
EXPORTERS.register(Exporter("mermaid", lambda g, t, a: to_mermaid(g, t)))
EXPORTERS.register(Exporter("dot", lambda g, t, a: to_dot(g, t)))
EXPORTERS.register(Exporter("html", _html, needs_log=True))
FORMATS: tuple[str, ...] = tuple(EXPORTERS.names())


def graph_of(att: Attribution) -> CausalGraph:
    """The causal graph a CHIEF attribution carries (AttribError when it has none, e.g. another method)."""
    data = att.details.get("graph")
    if not data:
        raise AttribError(f"{att.case_id}: no causal graph in this attribution ({att.status}: {att.error or 'no details'})")
    return CausalGraph.model_validate(data)


def write_report(att: Attribution, traj: Trajectory, path: str | Path) -> None:
    """Write the self-contained HTML report of a CHIEF attribution."""
    Path(path).write_text(export(graph_of(att), traj, "html", attribution=att), encoding="utf-8")


def export(graph: CausalGraph, traj: Trajectory | None, fmt: str, *, attribution: Attribution | None = None) -> str:
    """Render ``graph`` with the exporter ``fmt`` (json, mermaid, dot, html; the report needs ``traj``)."""
    exporter = EXPORTERS.get(fmt)
    if exporter.needs_log and traj is None:
        raise ValueError(f"the {fmt} export needs the trajectory (step texts)")
    return exporter.render(graph, traj, attribution)


__all__ = ["EXPORTERS", "FORMATS", "Column", "Exporter", "NodeView", "columns", "dot_text", "export", "key_steps",
           "graph_of", "mermaid_text", "root_nodes", "step_ranges", "to_dot", "to_json", "to_mermaid", "write_report"]
