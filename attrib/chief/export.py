"""Export a CHIEF causal graph as JSON, Mermaid, Graphviz DOT or a self-contained HTML report.

All text that comes from the log or from a model is escaped for the target syntax, so
quotes, brackets, pipes, angle brackets and newlines in labels cannot break the output.
Node identifiers are generated (``sub0``, ``sub0_a1``, ``step12``) and never contain
log text.

The helpers :func:`columns` and :func:`step_ranges` are shared with
:mod:`attrib.chief.report`, which draws the same structure as inline SVG.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from ..agents import agent_key
from ..attribution import Attribution
from ..trajectory import Trajectory
from .graph import AgentNode, CausalGraph, Subtask

Format = Literal["json", "mermaid", "dot", "html"]
StepMode = Literal["key", "all", "none"]
FORMATS: tuple[str, ...] = ("json", "mermaid", "dot", "html")

#: longest label text (characters) written into Mermaid / DOT nodes and edges
LABEL_CHARS = 60
_WS = re.compile(r"\s+")


@dataclass
class NodeView:
    """One agent inside one column, with the steps drawn under it."""

    subtask: str
    agent: str
    steps: list[int] = field(default_factory=list)
    node: AgentNode | None = None  # None: implied by steps or edges, not produced by the graph stage

    @property
    def implicit(self) -> bool:
        return self.node is None


@dataclass
class Column:
    """One subtask (or the trailing bucket of steps no subtask covers) and its agent nodes."""

    key: str
    title: str
    subtask: Subtask | None
    nodes: list[NodeView] = field(default_factory=list)

    def node_for(self, agent: str) -> NodeView | None:
        wanted = agent_key(agent)
        return next((n for n in self.nodes if agent_key(n.agent) == wanted), None)

    def ensure(self, agent: str) -> NodeView:
        found = self.node_for(agent)
        if found is None:
            found = NodeView(subtask=self.key, agent=agent)
            self.nodes.append(found)
        return found


UNASSIGNED = "(unassigned)"


def columns(graph: CausalGraph, traj: Trajectory | None = None) -> list[Column]:
    """Subtasks in order, each with its agent nodes and every step of its range placed under one node.

    A step goes to the agent node of its subtask that lists it; otherwise (when ``traj``
    is known) to the node of the agent that wrote it, created if needed. Agents named by
    an agent edge but missing from the subtask get an implicit node. With ``traj``, steps
    outside every subtask land in a final ``(unassigned)`` column.
    """
    n_steps = traj.n_steps if traj is not None else graph.n_steps
    cols = [Column(key=s.id, title=f"{s.id} · {s.name}", subtask=s) for s in graph.subtasks]
    by_key = {c.key: c for c in cols}
    placed: set[int] = set()
    for node in graph.agent_nodes:
        col = by_key.get(node.subtask)
        if col is None:
            continue
        view = col.node_for(node.agent)
        if view is None:
            view = NodeView(subtask=col.key, agent=node.agent, node=node)
            col.nodes.append(view)
        assert col.subtask is not None
        for i in node.steps:
            if col.subtask.start <= i <= col.subtask.end and 0 <= i < n_steps and i not in placed:
                view.steps.append(i)
                placed.add(i)
    if traj is not None:
        for col in cols:
            assert col.subtask is not None
            for i in col.subtask.steps:
                if 0 <= i < n_steps and i not in placed:
                    col.ensure(traj.steps[i].agent).steps.append(i)
                    placed.add(i)
        rest = [i for i in range(n_steps) if i not in placed]
        if rest:
            extra = Column(key=UNASSIGNED, title="steps outside every subtask", subtask=None)
            for i in rest:
                extra.ensure(traj.steps[i].agent).steps.append(i)
            cols.append(extra)
    for edge in graph.agent_edges:
        col = by_key.get(edge.subtask)
        if col is not None:
            col.ensure(edge.source)
            col.ensure(edge.target)
    for col in cols:
        for view in col.nodes:
            view.steps.sort()
    return cols


def step_ranges(steps: list[int]) -> str:
    """``[1, 2, 3, 7, 9, 10]`` -> ``'1-3, 7, 9-10'``."""
    out: list[str] = []
    for i in sorted(set(steps)):
        if out and out[-1].split("-")[-1] == str(i - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{i}"
        else:
            out.append(str(i))
    return ", ".join(out)


def root_nodes(graph: CausalGraph, cols: list[Column]) -> set[tuple[str, str]]:
    """``(column key, agent key)`` of the agent nodes blamed by the graph's root cause.

    The node holding the root step when it is drawn; otherwise the root agent's nodes (in
    candidate subtasks when there are any).
    """
    if graph.root_step is not None:
        hits = {(c.key, agent_key(n.agent)) for c in cols for n in c.nodes if graph.root_step in n.steps}
        if hits:
            return hits
    if graph.root_agent is None:
        return set()
    wanted = agent_key(graph.root_agent)
    hits = {(c.key, agent_key(n.agent)) for c in cols for n in c.nodes if agent_key(n.agent) == wanted}
    narrowed = {h for h in hits if h[0] in graph.candidate_subtasks}
    return narrowed or hits


def key_steps(graph: CausalGraph) -> set[int]:
    """Steps worth drawing in a compact export: data-flow ends, candidates and the root step."""
    out = {e.producer for e in graph.step_edges} | {e.consumer for e in graph.step_edges} | set(graph.candidate_steps)
    if graph.root_step is not None:
        out.add(graph.root_step)
    return out


def flat(text: str, limit: int = LABEL_CHARS) -> str:
    """One line, at most ``limit`` characters (an ellipsis marks a cut)."""
    text = _WS.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


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
    for ci, col in enumerate(cols):
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
    for e in graph.subtask_edges:
        if e.source in col_id and e.target in col_id:
            lines.append(f'  {col_id[e.source]} -->|"{mermaid_text(e.type)}"| {col_id[e.target]}')
    for e in graph.agent_edges:
        a, b = node_id.get((e.subtask, agent_key(e.source))), node_id.get((e.subtask, agent_key(e.target)))
        if a and b:
            lines.append(f'  {a} -->|"{mermaid_text(e.type)}"| {b}')
    lines += links
    for e in graph.step_edges:
        if e.producer in shown and e.consumer in shown:
            lines.append(f'  step{e.producer} -.->|"{mermaid_text(e.data, 40)}"| step{e.consumer}')
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
    for e in graph.subtask_edges:
        if e.source in col_id and e.target in col_id:
            a, b = col_id[e.source], col_id[e.target]
            ta, tb = a.replace("sub", "cluster_"), b.replace("sub", "cluster_")
            lines.append(f'  {a} -> {b} [ltail={ta}, lhead={tb}, label="{dot_text(e.type)}", penwidth=2];')
    for e in graph.agent_edges:
        a, b = node_id.get((e.subtask, agent_key(e.source))), node_id.get((e.subtask, agent_key(e.target)))
        if a and b:
            lines.append(f'  {a} -> {b} [label="{dot_text(e.type)}", color="#3b6fb6"];')
    for e in graph.step_edges:
        if e.producer in shown and e.consumer in shown:
            style = "dashed" if e.origin == "literal" else "solid"
            lines.append(f'  step{e.producer} -> step{e.consumer} [label="{dot_text(e.data, 40)}", '
                         f'style={style}, color="#2a9d8f", constraint=false];')
    lines.append("}")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- dispatch


def export(graph: CausalGraph, traj: Trajectory | None, fmt: Format | str, *,
           attribution: Attribution | None = None) -> str:
    """Render ``graph`` as ``json``, ``mermaid``, ``dot`` or ``html`` (the report needs ``traj``)."""
    if fmt == "json":
        return to_json(graph)
    if fmt == "mermaid":
        return to_mermaid(graph, traj)
    if fmt == "dot":
        return to_dot(graph, traj)
    if fmt == "html":
        if traj is None:
            raise ValueError("the HTML report needs the trajectory (step texts)")
        from .report import render_report  # late import: report imports this module

        return render_report(graph, traj, attribution)
    raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")


__all__ = ["FORMATS", "Column", "NodeView", "columns", "dot_text", "export", "key_steps", "mermaid_text",
           "root_nodes", "step_ranges", "to_dot", "to_json", "to_mermaid"]
