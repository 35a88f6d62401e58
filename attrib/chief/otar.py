"""M1 stage 2a: agent nodes, each agent's Observation / Thought / Action / Result inside one subtask.

The agent nodes are asked for in the same call as the edges (:mod:`attrib.chief.decompose`),
because both need the full log and the log is the expensive part of every prompt.
This module owns their answer shape, their validation against the log, and the
deterministic fallback (nodes with steps but no OTAR text) used when that call stays invalid.
"""

from __future__ import annotations

from pydantic import BaseModel

from ..agents import agent_key
from ..trajectory import Trajectory
from .graph import AgentNode, CausalGraph


class AgentNodeDraft(BaseModel):
    subtask: str
    agent: str
    observation: str
    thought: str
    action: str
    result: str


def node_problems(drafts: list[AgentNodeDraft], traj: Trajectory, graph: CausalGraph) -> list[str]:
    ids = {s.id for s in graph.subtasks}
    problems = []
    for d in drafts:
        if d.subtask not in ids:
            problems.append(f"agent node for unknown subtask {d.subtask!r} (use {', '.join(sorted(ids))})")
        if traj.resolve_agent(d.agent) is None:
            problems.append(f"agent node names {d.agent!r}, not an agent of this log ({', '.join(traj.agents)})")
    return problems


def active_agents(traj: Trajectory, graph: CausalGraph) -> dict[str, dict[str, list[int]]]:
    """For each subtask: agent -> the steps it acts in, in log order."""
    out: dict[str, dict[str, list[int]]] = {}
    for s in graph.subtasks:
        acting: dict[str, list[int]] = {}
        for i in s.steps:
            acting.setdefault(traj.steps[i].agent, []).append(i)
        out[s.id] = acting
    return out


def build_nodes(drafts: list[AgentNodeDraft], traj: Trajectory, graph: CausalGraph) -> list[AgentNode]:
    """One node per (subtask, acting agent); OTAR text from the model where it gave one."""
    given = {(d.subtask, agent_key(d.agent)): d for d in drafts}
    nodes = []
    for sid, acting in active_agents(traj, graph).items():
        for agent, steps in acting.items():
            d = given.get((sid, agent_key(agent)))
            nodes.append(AgentNode(subtask=sid, agent=agent, steps=steps,
                                   observation=d.observation if d else "", thought=d.thought if d else "",
                                   action=d.action if d else "", result=d.result if d else ""))
    return nodes
