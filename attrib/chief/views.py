"""Compact text views of a log and of the causal graph, sized for CHIEF's prompts.

Only the graph stage sees the whole log; the other stages get an *outline* (the
start of every step, sized to a token budget), the graph in compact form, and
the full text of just the steps they must judge. Views are deterministic, so
identical inputs give byte-identical prompts (and cache hits).
"""

from __future__ import annotations

import re

from ..render import render_steps, shorten
from ..trajectory import Trajectory
from .evidence import render_literal_flows, render_loop_groups
from .graph import CausalGraph

_WS = re.compile(r"\s+")
FIELD_CHARS = 220


def _flat(text: str, limit: int) -> str:
    text = _WS.sub(" ", text).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def outline(traj: Trajectory, budget_tokens: int, *, min_chars: int = 60, max_chars: int = 400) -> str:
    """One line per step: ``[i] Agent: first N characters``, N chosen so the outline fits ``budget_tokens``."""
    n = traj.n_steps
    chars = max(min_chars, min(max_chars, (budget_tokens * 4) // max(n, 1) - 20))
    return "\n".join(f"[{s.index}] {s.agent}: {_flat(s.content, chars)}" for s in traj.steps)


def subtasks_text(graph: CausalGraph) -> str:
    return "\n".join(f"{s.id} {s.name} (steps {s.start}-{s.end}): {s.description}" for s in graph.subtasks)


def evidence_text(graph: CausalGraph) -> str:
    parts = []
    if graph.loop_groups:
        parts.append("Loop groups (repeated near-identical behaviour):\n" + render_loop_groups(graph.loop_groups, limit=8))
    if graph.literal_flows:
        parts.append("Values produced at one step and reused later:\n" + render_literal_flows(graph.literal_flows, limit=15))
    return "\n".join(parts) or "(none found)"


def graph_text(graph: CausalGraph, *, patterns: bool = True, evidence: bool = True, field_chars: int = FIELD_CHARS) -> str:
    """The graph in compact lines: subtasks with their agent nodes, then edges, then evidence."""
    lines: list[str] = []
    for s in graph.subtasks:
        lines.append(f"{s.id} {s.name} (steps {s.start}-{s.end}): {_flat(s.description, field_chars)}")
        for node in (n for n in graph.agent_nodes if n.subtask == s.id):
            steps = ",".join(map(str, node.steps))
            lines.append(f"  - {node.agent} [steps {steps}] O: {_flat(node.observation, field_chars)} | "
                         f"T: {_flat(node.thought, field_chars)} | A: {_flat(node.action, field_chars)} | "
                         f"R: {_flat(node.result, field_chars)}")
    if graph.subtask_edges or graph.agent_edges:
        lines.append("Edges:")
    for e in graph.subtask_edges:
        lines.append(f"  {e.source} -> {e.target} ({e.type})" + _patterns(e.patterns, patterns, field_chars))
    for e in graph.agent_edges:
        lines.append(f"  {e.subtask}: {e.source} -> {e.target} ({e.type})" + _patterns(e.patterns, patterns, field_chars))
    if graph.step_edges:
        lines.append("Data flow between steps: " + "; ".join(
            f"{e.producer}->{e.consumer} {_flat(e.data, 80)} ({e.data_type})" for e in graph.step_edges[:30]))
    if evidence:
        lines.append(evidence_text(graph))
    return "\n".join(lines)


def _patterns(patterns, on: bool, limit: int) -> str:
    if not on or not patterns:
        return ""
    return " " + " ".join(f"[{p.scenario}] if {_flat(p.bias, limit // 2)} then {_flat(p.anomaly, limit // 2)}." for p in patterns[:2])


def oracles_text(graph: CausalGraph) -> str:
    out = []
    for o in graph.oracles:
        out.append(f"{o.subtask}: goal: {_flat(o.goal, FIELD_CHARS)}")
        for label, items in (("pre", o.preconditions), ("evidence", o.key_evidence), ("accept", o.acceptance_criteria)):
            if items:
                out.append(f"  {label}: " + "; ".join(_flat(i, 140) for i in items[:3]))
    return "\n".join(out)


def candidate_steps_text(traj: Trajectory, steps: list[int], budget_tokens: int) -> str:
    """Full text of the candidate steps, each cut to an equal share of the budget."""
    chosen = [traj.steps[i] for i in sorted(set(steps)) if 0 <= i < traj.n_steps]
    if not chosen:
        return "(none)"
    per_step = max(300, (budget_tokens * 4) // len(chosen))
    return render_steps(chosen, per_step)


def full_log_text(traj: Trajectory, limit: int | None) -> str:
    return render_steps(traj.steps, limit)


__all__ = ["candidate_steps_text", "evidence_text", "full_log_text", "graph_text", "oracles_text", "outline",
           "shorten", "subtasks_text"]
