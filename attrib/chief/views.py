"""Compact text views of the causal graph for CHIEF's prompts: a map, placed after the shared prefix.

Every stage reads the whole log in the shared prefix (:mod:`attrib.chief.prefix`);
these views only help it find its way (subtasks, agent nodes in a few words, edges,
mechanical evidence) and show, side by side, the adjacent steps a stage must weigh
against each other. Views are deterministic, so identical inputs give identical prompts.
"""

from __future__ import annotations

import re

from ..render import render_steps
from ..trajectory import Trajectory
from .evidence import render_literal_flows, render_loop_groups
from .graph import CausalGraph, Pattern

_WS = re.compile(r"\s+")
FIELD_CHARS = 100


def _flat(text: str, limit: int) -> str:
    text = _WS.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def subtasks_text(graph: CausalGraph) -> str:
    return "\n".join(f"{s.id} {s.name} (steps {s.start}-{s.end})" for s in graph.subtasks)


def evidence_text(graph: CausalGraph, steps: set[int] | None = None, flows: bool = True) -> str:
    """Loop groups and (with ``flows``) reused literal values; with ``steps``, only those touching these steps."""
    loops = [g for g in graph.loop_groups if steps is None or steps & set(g.steps)]
    reused = [f for f in graph.literal_flows if flows and (steps is None or steps & {f.producer_step, *f.consumer_steps})]
    parts = []
    if loops:
        parts.append("Loop groups (repeated near-identical behaviour):\n" + render_loop_groups(loops, limit=8))
    if reused:
        parts.append("Values produced at one step and reused later:\n" + render_literal_flows(reused, limit=6))
    return "\n".join(parts) or "(no loops or reused values found)"


def graph_text(graph: CausalGraph, *, patterns: bool = True, evidence: bool = True, field_chars: int = FIELD_CHARS,
               focus: set[int] | None = None, agent_patterns: bool = True, nodes: bool = True) -> str:
    """The graph in compact lines: subtasks with their agent nodes, then edges, then evidence.

    With ``focus`` (a set of steps), only the subtasks holding those steps, the edges touching them
    and the evidence about them are shown; without ``nodes``, agent nodes are listed by name and steps only.
    """
    lines: list[str] = []
    keep = {s.id for s in graph.subtasks if focus is None or focus & set(s.steps)}
    for s in (s for s in graph.subtasks if s.id in keep):
        desc = f": {_flat(s.description, field_chars)}" if s.description else ""
        lines.append(f"{s.id} {s.name} (steps {s.start}-{s.end}){desc}")
        for node in (n for n in graph.agent_nodes if n.subtask == s.id and (focus is None or focus & set(n.steps))):
            steps = ",".join(map(str, node.steps))
            if not nodes:
                lines.append(f"  - {node.agent} [steps {steps}]")
                continue
            lines.append(f"  - {node.agent} [steps {steps}] O: {_flat(node.observation, field_chars)} | "
                         f"T: {_flat(node.thought, field_chars)} | A: {_flat(node.action, field_chars)} | "
                         f"R: {_flat(node.result, field_chars)}")
    if graph.subtask_edges or graph.agent_edges:
        lines.append("Edges:")
    for e in (e for e in graph.subtask_edges if e.source in keep or e.target in keep):
        lines.append(f"  {e.source} -> {e.target} ({e.type})" + _patterns(e.patterns, patterns, field_chars))
    for a in (a for a in graph.agent_edges if a.subtask in keep):
        lines.append(f"  {a.subtask}: {a.source} -> {a.target} ({a.type})" + _patterns(a.patterns, patterns and agent_patterns, field_chars))
    step_edges = [e for e in graph.step_edges if focus is None or {e.producer, e.consumer} & focus]
    if step_edges:
        lines.append("Data flow between steps: " + "; ".join(
            f"{e.producer}->{e.consumer} {_flat(e.data, 80)}" for e in step_edges[:30]))
    if evidence and graph.loop_groups:  # literal flows are already among the step edges above
        lines.append(evidence_text(graph, focus, flows=False))
    return "\n".join(lines)


def _patterns(patterns: list[Pattern], on: bool, limit: int) -> str:
    if not on or not patterns:
        return ""
    return " " + " ".join(f"[{p.scenario}] if {_flat(p.bias, limit // 2)} then {_flat(p.anomaly, limit // 2)}." for p in patterns[:2])


def oracles_text(graph: CausalGraph, subtasks: set[str] | None = None) -> str:
    out = []
    for o in (o for o in graph.oracles if subtasks is None or o.subtask in subtasks):
        out.append(f"{o.subtask}: goal: {_flat(o.goal, FIELD_CHARS)}")
        for label, items in (("evidence", o.key_evidence), ("accept", o.acceptance_criteria)):
            if items:
                out.append(f"  {label}: " + "; ".join(_flat(i, 140) for i in items[:3]))
    return "\n".join(out)


def pair_text(traj: Trajectory, pairs: list[tuple[int, int]], cap: int | None) -> str:
    """Each (upstream, downstream) pair of adjacent steps, both in full (up to ``cap``), one after the other."""
    blocks = []
    for a, b in pairs:
        blocks.append(f"Pair {a} -> {b}:\n" + render_steps([traj.steps[a], traj.steps[b]], cap))
    return "\n".join(blocks)


__all__ = ["evidence_text", "graph_text", "oracles_text", "pair_text", "subtasks_text"]
