"""M2 stage 2: hierarchical backtracking, subtask -> agent -> step.

One call judges subtasks in reverse order against their oracles' goal and
acceptance criteria, then the agents of failing subtasks against preconditions and
key evidence, then those agents' steps against the whole oracle; it ends with the
flagged steps ranked. The candidate sets are then derived in code, narrowing level
by level; when a level comes back empty the next wider set is used and recorded.
"""

from __future__ import annotations

from pydantic import BaseModel

from ..llm.schema import constrain_defs, schema_for
from ..methods.context import InvalidAnswer, RunContext
from .graph import CausalGraph, Verdict
from .views import graph_text, oracles_text, outline

MAX_CANDIDATES = 6


class SubtaskVerdict(BaseModel):
    subtask: str
    discrepancy: bool
    reason: str


class AgentVerdict(BaseModel):
    subtask: str
    agent: str
    discrepancy: bool
    reason: str


class StepVerdict(BaseModel):
    step: int
    discrepancy: bool
    reason: str


class Backtracking(BaseModel):
    subtask_verdicts: list[SubtaskVerdict]
    agent_verdicts: list[AgentVerdict]
    step_verdicts: list[StepVerdict]
    ranked_steps: list[int]


def _problems(ans: Backtracking, ctx: RunContext, graph: CausalGraph) -> list[str]:
    ids = {s.id for s in graph.subtasks}
    n = ctx.traj.n_steps
    out = [f"unknown subtask {v.subtask!r}" for v in ans.subtask_verdicts + ans.agent_verdicts if v.subtask not in ids]
    out += [f"agent {v.agent!r} is not in this log" for v in ans.agent_verdicts if ctx.traj.resolve_agent(v.agent) is None]
    out += [f"step {s} is outside the log (0-{n - 1})" for s in [v.step for v in ans.step_verdicts] + ans.ranked_steps
            if not 0 <= s < n]
    if not ans.subtask_verdicts:
        out.append("give a verdict for every subtask")
    return out[:8]


def derive_candidates(ans: Backtracking, ctx: RunContext, graph: CausalGraph) -> list[str]:
    """Fill the graph's candidate sets from the verdicts; return notes on any widening."""
    t, notes = ctx.traj, []
    subs = [v.subtask for v in ans.subtask_verdicts if v.discrepancy]
    if not subs:
        subs = [s.id for s in graph.subtasks]
        notes.append("no subtask was flagged; all subtasks stay candidates")
    graph.candidate_subtasks = [s.id for s in graph.subtasks if s.id in subs]
    agents = {(v.subtask, t.resolve_agent(v.agent)) for v in ans.agent_verdicts if v.discrepancy and v.subtask in subs}
    if not agents:
        agents = {(n.subtask, n.agent) for n in graph.agent_nodes if n.subtask in subs}
        notes.append("no agent was flagged in the candidate subtasks; all their agents stay candidates")
    graph.candidate_agents = sorted({a for _, a in agents if a})
    allowed = sorted({i for n in graph.agent_nodes if (n.subtask, n.agent) in agents for i in n.steps})
    flagged = [v.step for v in ans.step_verdicts if v.discrepancy]
    ranked = [s for s in ans.ranked_steps if 0 <= s < t.n_steps] + [s for s in flagged if s not in ans.ranked_steps]
    steps = list(dict.fromkeys(ranked))
    if not steps:
        steps = allowed or list(range(t.n_steps))
        notes.append("no step was flagged; every step of the candidate agents stays a candidate")
    graph.candidate_steps = steps[:MAX_CANDIDATES] if ranked else steps
    return notes


def backtrack_schema(ctx: RunContext, graph: CausalGraph) -> dict:
    ids = {"enum": [s.id for s in graph.subtasks]}
    steps = {"minimum": 0, "maximum": ctx.traj.n_steps - 1}
    schema = constrain_defs(schema_for(Backtracking), {
        "SubtaskVerdict": {"subtask": ids}, "AgentVerdict": {"subtask": ids, "agent": {"enum": list(ctx.traj.agents)}},
        "StepVerdict": {"step": steps}})
    schema["properties"]["ranked_steps"]["items"].update(steps)
    schema["properties"]["ranked_steps"]["maxItems"] = MAX_CANDIDATES
    return schema


async def backtrack(ctx: RunContext, graph: CausalGraph, outline_budget: int) -> list[str]:
    view = graph_text(graph)
    orc = oracles_text(graph) or "(no oracles: judge each subtask against the task itself)"
    brief = outline(ctx.traj, outline_budget)
    try:
        ans = await ctx.ask("chief.backtrack",
                            lambda b: ctx.messages("chief/backtrack", graph=view, oracles=orc, outline=brief,
                                                   max_candidates=MAX_CANDIDATES),
                            Backtracking, schema=backtrack_schema(ctx, graph),
                            validate=lambda a: _problems(a, ctx, graph), max_tokens=2500)
    except InvalidAnswer as exc:
        graph.degraded.append(f"backtrack: answer invalid after the re-ask ({str(exc)[:200]}); every step stays a candidate")
        graph.candidate_subtasks = [s.id for s in graph.subtasks]
        graph.candidate_agents = list(ctx.traj.agents)
        graph.candidate_steps = list(range(ctx.traj.n_steps))
        return []
    graph.verdicts = ([Verdict(level="subtask", target=v.subtask, discrepancy=v.discrepancy, reason=v.reason) for v in ans.subtask_verdicts]
                      + [Verdict(level="agent", target=f"{v.subtask}:{v.agent}", discrepancy=v.discrepancy, reason=v.reason) for v in ans.agent_verdicts]
                      + [Verdict(level="step", target=str(v.step), discrepancy=v.discrepancy, reason=v.reason) for v in ans.step_verdicts])
    return derive_candidates(ans, ctx, graph)
