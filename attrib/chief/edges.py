"""M1 stage 2b: causal edges at three levels.

- subtask edges link consecutive subtasks (data dependency or logical prerequisite);
- agent edges link agents inside one subtask (six types); an edge between two
different agents carries one counterfactual pattern (upstream bias -> downstream
anomaly) tagged with the screening scenario it serves, a self-loop carries none;
- step edges are data snapshots: a producer step, a later consumer step and the data
item the answer depends on. Literal values found mechanically (:mod:`attrib.chief.evidence`)
add step edges of origin ``literal``.

The drafts ask only for what later stages read, in short fields (output tokens are
CHIEF's largest cost).
"""

from __future__ import annotations

import itertools

from pydantic import BaseModel, Field

from ..agents import agent_key
from ..trajectory import Trajectory
from .graph import (
    AgentEdge,
    AgentEdgeType,
    CausalGraph,
    DataType,
    Pattern,
    StepEdge,
    SubtaskEdge,
    SubtaskEdgeType,
)

MAX_LITERAL_EDGES = 20


class SubtaskEdgeDraft(BaseModel):
    source: str
    target: str
    type: SubtaskEdgeType


class AgentEdgeDraft(BaseModel):
    subtask: str
    source: str
    target: str
    type: AgentEdgeType
    patterns: list[Pattern] = Field(description="one pattern between two different agents, none on a self-loop")


class StepEdgeDraft(BaseModel):
    producer: int
    consumer: int
    data: str = Field(description="the value, a few words")


def edge_problems(sub: list[SubtaskEdgeDraft], agt: list[AgentEdgeDraft], steps: list[StepEdgeDraft],
                  traj: Trajectory, graph: CausalGraph) -> list[str]:
    ids = [s.id for s in graph.subtasks]
    problems = []
    for e in sub:
        if e.source not in ids or e.target not in ids:
            problems.append(f"subtask edge {e.source}->{e.target} names an unknown subtask")
        elif ids.index(e.target) != ids.index(e.source) + 1:
            problems.append(f"subtask edge {e.source}->{e.target} does not join consecutive subtasks")
    for a in agt:
        if a.subtask not in ids:
            problems.append(f"agent edge in unknown subtask {a.subtask!r}")
        for name in (a.source, a.target):
            if traj.resolve_agent(name) is None:
                problems.append(f"agent edge names {name!r}, not an agent of this log")
    for s in steps:
        if not (0 <= s.producer < traj.n_steps and 0 <= s.consumer < traj.n_steps):
            problems.append(f"step edge {s.producer}->{s.consumer} is outside the log (0-{traj.n_steps - 1})")
        elif s.producer >= s.consumer:
            problems.append(f"step edge {s.producer}->{s.consumer} must go from an earlier step to a later one")
    return problems


def build_edges(graph: CausalGraph, traj: Trajectory, sub: list[SubtaskEdgeDraft], agt: list[AgentEdgeDraft],
                steps: list[StepEdgeDraft]) -> None:
    graph.subtask_edges = [SubtaskEdge(**e.model_dump()) for e in sub]
    graph.agent_edges = []
    for e in agt:
        crosses = agent_key(e.source) != agent_key(e.target)
        if crosses or e.type == "loop_control":
            graph.agent_edges.append(AgentEdge(subtask=e.subtask, source=traj.resolve_agent(e.source) or e.source,
                                               target=traj.resolve_agent(e.target) or e.target, type=e.type,
                                               patterns=e.patterns[:1] if crosses else []))
    graph.step_edges = [StepEdge(**e.model_dump(), origin="llm") for e in steps]
    graph.step_edges += literal_step_edges(graph)


def literal_step_edges(graph: CausalGraph) -> list[StepEdge]:
    """Step edges from values found mechanically: producer -> first consumers, skipping ones the model gave."""
    have = {(e.producer, e.consumer) for e in graph.step_edges}
    out: list[StepEdge] = []
    for flow in graph.literal_flows:
        for consumer in flow.consumer_steps[:3]:
            if (flow.producer_step, consumer) in have or len(out) >= MAX_LITERAL_EDGES:
                continue
            kind: DataType = "numeric" if flow.kind == "number" else "text"
            out.append(StepEdge(producer=flow.producer_step, consumer=consumer, data=f"{flow.kind} {flow.value}",
                                data_type=kind, origin="literal"))
            have.add((flow.producer_step, consumer))
    return out


def fallback_subtask_edges(graph: CausalGraph) -> list[SubtaskEdge]:
    """Consecutive subtasks linked as logical prerequisites, without patterns (used when the model's edges are unusable)."""
    return [SubtaskEdge(source=a.id, target=b.id, type="logical_prereq") for a, b in itertools.pairwise(graph.subtasks)]
