"""M1 stage 2: the one full-log call that turns subtasks into a causal graph.

Mechanical evidence (loop groups, literal values reused across steps) is computed
first and shown to the model; the model returns agent nodes (OTAR) and edges at
three levels. Everything it names is checked against the log and the subtasks;
an answer that stays invalid after the re-ask degrades to nodes without OTAR
text, consecutive prerequisite edges and literal-value step edges, and says so.
"""

from __future__ import annotations

from pydantic import BaseModel

from ..llm.schema import constrain_defs, schema_for
from ..methods.context import InvalidAnswer, RunContext
from ..render import render_steps
from .edges import (AgentEdgeDraft, StepEdgeDraft, SubtaskEdgeDraft, build_edges, edge_problems,
                    fallback_subtask_edges, literal_step_edges)
from .evidence import literal_flows, loop_groups
from .graph import CausalGraph
from .otar import AgentNodeDraft, build_nodes, node_problems
from .views import evidence_text, subtasks_text

MAX_STEP_EDGES = 12


class GraphDraft(BaseModel):
    agent_nodes: list[AgentNodeDraft]
    subtask_edges: list[SubtaskEdgeDraft]
    agent_edges: list[AgentEdgeDraft]
    step_edges: list[StepEdgeDraft]


def add_evidence(ctx: RunContext, graph: CausalGraph) -> None:
    graph.loop_groups = loop_groups(ctx.traj)
    graph.literal_flows = literal_flows(ctx.traj)


def graph_schema(ctx: RunContext, graph: CausalGraph) -> dict:
    """The answer schema narrowed to this log: subtask ids, agents and the step range as enums/bounds."""
    ids = {"enum": [s.id for s in graph.subtasks]}
    agents = {"enum": list(ctx.traj.agents)}
    steps = {"minimum": 0, "maximum": ctx.traj.n_steps - 1}
    return constrain_defs(schema_for(GraphDraft), {
        "AgentNodeDraft": {"subtask": ids, "agent": agents},
        "SubtaskEdgeDraft": {"source": ids, "target": ids},
        "AgentEdgeDraft": {"subtask": ids, "source": agents, "target": agents},
        "StepEdgeDraft": {"producer": steps, "consumer": steps},
    })


async def build_structure(ctx: RunContext, graph: CausalGraph) -> None:
    t = ctx.traj

    def validate(d: GraphDraft) -> list[str]:
        return (node_problems(d.agent_nodes, t, graph)
                + edge_problems(d.subtask_edges, d.agent_edges, d.step_edges, t, graph))[:8]

    try:
        draft = await ctx.ask(
            "chief.graph",
            lambda budget: ctx.messages("chief/graph", steps=render_steps(t.steps, budget), subtasks=subtasks_text(graph),
                                        evidence=evidence_text(graph), max_step_edges=MAX_STEP_EDGES),
            GraphDraft, schema=graph_schema(ctx, graph), validate=validate, max_tokens=3000)
    except InvalidAnswer as exc:
        graph.degraded.append(f"graph: answer invalid after the re-ask ({str(exc)[:200]}); agent nodes carry no "
                              "OTAR text, subtasks are linked as prerequisites, step edges come from literal values only")
        graph.agent_nodes = build_nodes([], t, graph)
        graph.subtask_edges = fallback_subtask_edges(graph)
        graph.step_edges = literal_step_edges(graph)
        return
    graph.agent_nodes = build_nodes(draft.agent_nodes, t, graph)
    build_edges(graph, t, draft.subtask_edges, draft.agent_edges, draft.step_edges)
