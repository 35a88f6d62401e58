"""M2: oracle-guided hierarchical backtracking, subtask -> agent -> step.

One call first writes the virtual oracles (:mod:`attrib.chief.oracle`), then
judges subtasks in reverse order against their goal and acceptance criteria,
the agents of failing subtasks against preconditions and key evidence, and those
agents' steps against the whole oracle, ending with the flagged steps ranked.
The candidate sets are derived in code, narrowing level by level; a level that
comes back empty widens to the next larger set, and that is recorded.
"""

from __future__ import annotations

from pydantic import BaseModel

from ..llm.schema import constrain_defs, schema_for
from ..core.context import InvalidAnswer, RunContext
from .graph import CausalGraph, Oracle, Verdict
from .oracle import oracle_problems, ordered
from .views import graph_text

MAX_CANDIDATES = 4


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
    oracles: list[Oracle]
    subtask_verdicts: list[SubtaskVerdict]
    agent_verdicts: list[AgentVerdict]
    step_verdicts: list[StepVerdict]
    ranked_steps: list[int]


def _problems(ans: Backtracking, ctx: RunContext, graph: CausalGraph) -> list[str]:
    ids = [s.id for s in graph.subtasks]
    n = ctx.traj.n_steps
    out = oracle_problems(ans.oracles, ids)
    out += [f"unknown subtask {v.subtask!r}" for v in ans.subtask_verdicts + ans.agent_verdicts if v.subtask not in ids]
    out += [f"agent {v.agent!r} is not in this log" for v in ans.agent_verdicts if ctx.traj.resolve_agent(v.agent) is None]
    out += [f"step {s} is outside the log (0-{n - 1})" for s in [v.step for v in ans.step_verdicts] + ans.ranked_steps
            if not 0 <= s < n]
    if {v.subtask for v in ans.subtask_verdicts} != set(ids):
        out.append(f"give one subtask verdict for each of {', '.join(ids)}")
    return out[:8]


def backtrack_schema(ctx: RunContext, graph: CausalGraph) -> dict:
    ids = {"enum": [s.id for s in graph.subtasks]}
    steps = {"minimum": 0, "maximum": ctx.traj.n_steps - 1}
    schema = constrain_defs(schema_for(Backtracking), {
        "Oracle": {"subtask": ids}, "SubtaskVerdict": {"subtask": ids},
        "AgentVerdict": {"subtask": ids, "agent": {"enum": list(ctx.traj.agents)}}, "StepVerdict": {"step": steps}})
    schema["properties"]["ranked_steps"]["items"].update(steps)
    schema["properties"]["ranked_steps"]["maxItems"] = MAX_CANDIDATES
    return schema


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
    flagged = [v.step for v in ans.step_verdicts if v.discrepancy]
    steps = list(dict.fromkeys([s for s in ans.ranked_steps + flagged if 0 <= s < t.n_steps]))
    if steps:
        graph.candidate_steps = steps[:MAX_CANDIDATES]
    else:
        graph.candidate_steps = sorted({i for n in graph.agent_nodes if (n.subtask, n.agent) in agents for i in n.steps})
        notes.append("no step was flagged; the steps of the candidate agents stay candidates")
    return notes


async def backtrack(ctx: RunContext, graph: CausalGraph, exemplars: str) -> list[str]:
    view = graph_text(graph, agent_patterns=False)
    try:
        ans = await ctx.ask("chief.backtrack",
                            lambda b: ctx.messages("chief/backtrack", exemplars=exemplars, graph=view,
                                                   max_candidates=MAX_CANDIDATES),
                            Backtracking, schema=backtrack_schema(ctx, graph),
                            validate=lambda a: _problems(a, ctx, graph), max_tokens=3000)
    except InvalidAnswer as exc:
        graph.degraded.append(f"backtrack: oracles and verdicts invalid after the re-ask ({str(exc)[:200]}); "
                              "every step stays a candidate")
        graph.candidate_subtasks = [s.id for s in graph.subtasks]
        graph.candidate_agents = list(ctx.traj.agents)
        graph.candidate_steps = list(range(ctx.traj.n_steps))
        return []
    graph.oracles = ordered(ans.oracles, [s.id for s in graph.subtasks])
    graph.verdicts = ([Verdict(level="subtask", target=v.subtask, discrepancy=v.discrepancy, reason=v.reason) for v in ans.subtask_verdicts]
                      + [Verdict(level="agent", target=f"{v.subtask}:{v.agent}", discrepancy=v.discrepancy, reason=v.reason) for v in ans.agent_verdicts]
                      + [Verdict(level="step", target=str(v.step), discrepancy=v.discrepancy, reason=v.reason) for v in ans.step_verdicts])
    return derive_candidates(ans, ctx, graph)
