"""How a causal graph is laid out for drawing: one column per subtask, agent nodes, the steps under them.

Shared by the text exporters (:mod:`attrib.chief.export`) and the HTML report (:mod:`attrib.chief.report`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..agents import agent_key
from ..text import clip
from ..trajectory import Trajectory
from .graph import AgentNode, CausalGraph, Subtask

#: longest label text (characters) written into Mermaid / DOT nodes and edges
LABEL_CHARS = 60


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
    """A drawing label: one line, at most ``limit`` characters (an ellipsis marks a cut)."""
    return clip(text, limit)
