"""M2: oracle-guided hierarchical backtracking, subtask -> agent -> step, with the log in view.

One call, behind the shared prefix (so the whole log is in view), with the causal
graph as a map. It first names its whole-log ``most_likely_step`` (the reading
All-at-Once would give, kept as a confidence signal and as a candidate), then writes
the virtual oracles (:mod:`attrib.chief.oracle`), judges subtasks in reverse order
against their goal and acceptance criteria, the agents of failing subtasks, and
those agents' steps, each step verdict quoting the step it judges (the quote is
checked against the step's text and the result recorded), and ranks up to
``MAX_CANDIDATES`` steps. The candidate sets are derived in code, narrowing level by
level; a level that comes back empty widens to the next larger set, and that is recorded.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field

from ..core.context import InvalidAnswer, RunContext
from ..llm.schema import constrain_defs, schema_for
from .graph import CausalGraph, StageView, Verdict
from .oracle import OracleDraft, oracle_problems, ordered, to_oracles
from .prefix import Prefix
from .views import graph_text

MAX_CANDIDATES = 8


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
    quote: str = Field(description="a few words copied from that step's text")
    discrepancy: bool
    reason: str


class Backtracking(BaseModel):
    most_likely_step: int = Field(description="the step a whole-log reading finds most likely decisive, before any oracle")
    most_likely_reason: str
    oracles: list[OracleDraft]
    subtask_verdicts: list[SubtaskVerdict]
    agent_verdicts: list[AgentVerdict]
    step_verdicts: list[StepVerdict]
    ranked_steps: list[int]


def _problems(ans: Backtracking, ctx: RunContext, graph: CausalGraph) -> list[str]:
    ids = [s.id for s in graph.subtasks]
    n = ctx.traj.n_steps
    out = oracle_problems(to_oracles(ans.oracles), ids)
    out += [f"unknown subtask {v.subtask!r}" for v in ans.subtask_verdicts + ans.agent_verdicts if v.subtask not in ids]
    out += [f"agent {v.agent!r} is not in this log" for v in ans.agent_verdicts if ctx.traj.resolve_agent(v.agent) is None]
    out += [f"step {s} is outside the log (0-{n - 1})"
            for s in [ans.most_likely_step] + [v.step for v in ans.step_verdicts] + ans.ranked_steps if not 0 <= s < n]
    if {v.subtask for v in ans.subtask_verdicts} != set(ids):
        out.append(f"give one subtask verdict for each of {', '.join(ids)}")
    return out[:8]


def backtrack_schema(ctx: RunContext, graph: CausalGraph) -> dict[str, Any]:
    ids = {"enum": [s.id for s in graph.subtasks]}
    steps = {"minimum": 0, "maximum": ctx.traj.n_steps - 1}
    schema = constrain_defs(schema_for(Backtracking), {
        "OracleDraft": {"subtask": ids}, "SubtaskVerdict": {"subtask": ids},
        "AgentVerdict": {"subtask": ids, "agent": {"enum": list(ctx.traj.agents)}}, "StepVerdict": {"step": steps}})
    schema["properties"]["most_likely_step"].update(steps)
    schema["properties"]["ranked_steps"]["items"].update(steps)
    schema["properties"]["ranked_steps"]["maxItems"] = MAX_CANDIDATES
    return schema


_NORM = re.compile(r"[\W_]+")


def quote_found(quote: str, content: str) -> bool | None:
    """Whether the quoted words occur, in order, in the step's text (case, spacing and punctuation ignored)."""
    q = _NORM.sub(" ", quote.replace("...", " ").replace("…", " ")).strip().lower()
    if not q:
        return None
    return q in _NORM.sub(" ", content).lower()


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
    if not steps:
        steps = sorted({i for n in graph.agent_nodes if (n.subtask, n.agent) in agents for i in n.steps})
        notes.append("no step was flagged; the steps of the candidate agents stay candidates")
    steps = steps[:MAX_CANDIDATES]
    if ans.most_likely_step not in steps:
        steps = steps[: MAX_CANDIDATES - 1] + [ans.most_likely_step]
        notes.append(f"the whole-log most likely step {ans.most_likely_step} was not ranked; kept as the last candidate")
    graph.candidate_steps = steps
    return notes


async def backtrack(ctx: RunContext, graph: CausalGraph, exemplars: str, prefix: Prefix) -> list[str]:
    view = graph_text(graph, agent_patterns=False)
    t = ctx.traj
    try:
        ans = await ctx.ask("chief.backtrack",
                            prefix.build(ctx, "chief/backtrack", exemplars=exemplars, graph=view,
                                         max_candidates=MAX_CANDIDATES),
                            Backtracking, schema=backtrack_schema(ctx, graph),
                            validate=lambda a: _problems(a, ctx, graph), max_tokens=2500)
    except InvalidAnswer as exc:
        graph.degraded.append(f"backtrack: oracles and verdicts invalid after the re-ask ({str(exc)[:200]}); "
                              "every step stays a candidate")
        graph.candidate_subtasks = [s.id for s in graph.subtasks]
        graph.candidate_agents = list(t.agents)
        graph.candidate_steps = list(range(t.n_steps))
        graph.stage_views.append(StageView(stage="chief.backtrack", shown_in_full=list(range(t.n_steps)),
                                           shortened=prefix.shortened))
        return []
    graph.whole_log_step, graph.whole_log_reason = ans.most_likely_step, ans.most_likely_reason
    graph.oracles = ordered(to_oracles(ans.oracles), [s.id for s in graph.subtasks])
    graph.verdicts = ([Verdict(level="subtask", target=v.subtask, discrepancy=v.discrepancy, reason=v.reason) for v in ans.subtask_verdicts]
                      + [Verdict(level="agent", target=f"{v.subtask}:{v.agent}", discrepancy=v.discrepancy, reason=v.reason) for v in ans.agent_verdicts]
                      + [Verdict(level="step", target=str(v.step), discrepancy=v.discrepancy, reason=v.reason, quote=v.quote,
                                 quote_found=quote_found(v.quote, t.steps[v.step].content)) for v in ans.step_verdicts])
    graph.stage_views.append(StageView(stage="chief.backtrack", shown_in_full=list(range(t.n_steps)), shortened=prefix.shortened,
                                       judged=sorted({ans.most_likely_step, *(v.step for v in ans.step_verdicts)})))
    return derive_candidates(ans, ctx, graph)
