"""M1: the call that maps the whole log into the causal graph.

Mechanical evidence (loop groups, literal values reused across steps) and two
retrieved exemplars are computed first and shown to the model after the shared
prefix (:mod:`attrib.chief.prefix`). It returns the subtasks (RAG-guided
decomposition), the agent nodes (OTAR) and the edges at three levels in one short
answer: later stages read the log again in the same prefix, so the graph is a map,
not a summary standing in for the log. Subtask ranges then go through reflection
(:mod:`attrib.chief.reflection`); nodes and edges are checked against the log.
An answer that stays invalid degrades to one subtask, nodes without OTAR text,
prerequisite edges and literal-value step edges, and the graph says so.
"""

from __future__ import annotations

from pydantic import BaseModel

from ..core.context import InvalidAnswer, RunContext
from ..llm.schema import constrain_defs, schema_for
from .reflection import (
    SubtaskDraft,
    draft_rules,
    max_subtasks,
    range_problems,
    reflect,
    remap,
    to_subtasks,
)
from .edges import (
    AgentEdgeDraft,
    StepEdgeDraft,
    SubtaskEdgeDraft,
    build_edges,
    edge_problems,
    fallback_subtask_edges,
    literal_step_edges,
)
from .evidence import literal_flows, loop_groups
from .graph import CausalGraph
from .otar import AgentNodeDraft, build_nodes, node_problems
from .prefix import Prefix
from .views import evidence_text

MAX_STEP_EDGES = 5


class GraphDraft(BaseModel):
    subtasks: list[SubtaskDraft]
    agent_nodes: list[AgentNodeDraft]
    subtask_edges: list[SubtaskEdgeDraft]
    agent_edges: list[AgentEdgeDraft]
    step_edges: list[StepEdgeDraft]


def add_evidence(ctx: RunContext, graph: CausalGraph) -> None:
    graph.loop_groups = loop_groups(ctx.traj)
    graph.literal_flows = literal_flows(ctx.traj)


def graph_schema(ctx: RunContext) -> dict:
    """The answer schema narrowed to this log: subtask ids, agents and the step range as enums/bounds."""
    t = ctx.traj
    ids = {"enum": [f"S{i}" for i in range(1, max_subtasks(t.n_steps) + 1)]}
    agents = {"enum": list(t.agents)}
    steps = {"minimum": 0, "maximum": t.n_steps - 1}
    schema = constrain_defs(schema_for(GraphDraft), {
        **draft_rules(t.n_steps),
        "AgentNodeDraft": {"subtask": ids, "agent": agents},
        "SubtaskEdgeDraft": {"source": ids, "target": ids},
        "AgentEdgeDraft": {"subtask": ids, "source": agents, "target": agents},
        "StepEdgeDraft": {"producer": steps, "consumer": steps},
    })
    schema["properties"]["subtasks"].update(minItems=1, maxItems=max_subtasks(t.n_steps))
    schema["properties"]["step_edges"]["maxItems"] = MAX_STEP_EDGES
    return schema


async def build_structure(ctx: RunContext, graph: CausalGraph, exemplars: str, prefix: Prefix) -> None:
    t = ctx.traj

    def validate(d: GraphDraft) -> list[str]:
        provisional = CausalGraph(case_id=t.id, n_steps=t.n_steps, agents=t.agents, subtasks=to_subtasks(d.subtasks))
        return (node_problems(d.agent_nodes, t, provisional)
                + edge_problems(d.subtask_edges, d.agent_edges, d.step_edges, t, provisional))[:8]

    try:
        draft = await ctx.ask(
            "chief.graph",
            prefix.build(ctx, "chief/graph", exemplars=exemplars, evidence=evidence_text(graph),
                         max_step_edges=MAX_STEP_EDGES, max_subtasks=max_subtasks(t.n_steps)),
            GraphDraft, schema=graph_schema(ctx), validate=validate, max_tokens=3000)
    except InvalidAnswer as exc:
        graph.degraded.append(f"graph: answer invalid after the re-ask ({str(exc)[:200]}); one subtask spans the log, "
                              "agent nodes carry no OTAR text, step edges come from literal values only")
        graph.subtasks = to_subtasks([SubtaskDraft(name="Whole run", start=0, end=t.n_steps - 1)])
        graph.agent_nodes = build_nodes([], t, graph)
        graph.subtask_edges = fallback_subtask_edges(graph)
        graph.step_edges = literal_step_edges(graph)
        return
    proposed = to_subtasks(draft.subtasks)
    drafts = draft.subtasks
    if range_problems(drafts, t.n_steps):
        drafts = await reflect(ctx, graph, drafts, prefix)
    graph.subtasks = to_subtasks(drafts)
    nodes, sub_edges, agent_edges = draft.agent_nodes, draft.subtask_edges, draft.agent_edges
    if [s.model_dump() for s in graph.subtasks] != [s.model_dump() for s in proposed]:
        ids = remap(proposed, graph.subtasks)
        nodes = [n.model_copy(update={"subtask": ids.get(n.subtask, n.subtask)}) for n in nodes]
        agent_edges = [e.model_copy(update={"subtask": ids.get(e.subtask, e.subtask)}) for e in agent_edges]
        sub_edges = [e for e in sub_edges if ids.get(e.source) != ids.get(e.target)]
        sub_edges = [e.model_copy(update={"source": ids[e.source], "target": ids[e.target]}) for e in sub_edges
                     if e.source in ids and e.target in ids]
    graph.agent_nodes = build_nodes(nodes, t, graph)
    build_edges(graph, t, sub_edges, agent_edges, draft.step_edges)
    _complete_subtask_edges(graph)


def _complete_subtask_edges(graph: CausalGraph) -> None:
    """Keep one edge per consecutive pair: the model's where it gave one, else a plain prerequisite."""
    given = {(e.source, e.target): e for e in graph.subtask_edges}
    fallback = {(e.source, e.target): e for e in fallback_subtask_edges(graph)}
    graph.subtask_edges = [given.get(k, v) for k, v in fallback.items()]
