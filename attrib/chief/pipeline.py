"""CHIEF end to end, and its ablations (Table 4 of the paper).

``full``:  M1 graph -> M2 oracles + backtracking -> M3 counterfactual attribution
``m1``:    graph, then one direct attribution call on it
``m1+m2``: graph, oracles, backtracking; the top-ranked candidate step is the answer
``m1+m3``: graph, then counterfactual screening over every step (no oracle pruning)

Token plan: only the graph stage reads the whole log. Decomposition and
backtracking read an outline sized to a fraction of the log, attribution reads the
full text of the candidate steps only, and every prompt starts with the same
system message and task block so provider-side prompt caches can reuse them.
"""

from __future__ import annotations

from ..attribution import Candidate
from ..llm.tokens import count_tokens
from ..core.answers import AgentStepAnswer, agent_step_schema, agent_step_validator
from ..core.options import CHIEF_MODULES
from ..core.context import InvalidAnswer, MethodResult, RunContext
from ..render import render_steps
from .backtrack import backtrack
from .counterfactual import attribute
from .graph import CausalGraph
from .retrieval import exemplars_for
from .structure import add_evidence, build_structure
from .views import graph_text, outline

MODULES = CHIEF_MODULES


def budgets(log_tokens: int) -> tuple[int, int]:
    """(outline tokens, candidate-text tokens) for a log of ``log_tokens``."""
    outline_budget = max(200, min(2500, int(log_tokens * 0.10)))
    candidate_budget = max(250, min(6000, int(log_tokens * 0.15)))
    return outline_budget, candidate_budget


async def build_graph(ctx: RunContext) -> tuple[CausalGraph, str]:
    """M1: evidence, retrieval, decomposition with reflection, nodes and edges.

    Returns the graph and a shorter rendering of the exemplars for the oracle stage.
    """
    t = ctx.traj
    graph = CausalGraph(case_id=t.id, n_steps=t.n_steps, agents=t.agents,
                        step_agents={s.index: s.agent for s in t.steps})
    add_evidence(ctx, graph)
    graph.exemplars, exemplar_texts, notice = exemplars_for(t, ctx.options.kb_dir, chars=(500, 300))
    if notice:
        ctx.notice(notice)
    outline_budget, _ = budgets(count_tokens(render_steps(t.steps)))
    await build_structure(ctx, graph, exemplar_texts[0], outline_budget)
    return graph, exemplar_texts[1]


async def run(ctx: RunContext) -> MethodResult:
    modules = ctx.options.chief_modules
    t = ctx.traj
    outline_budget, candidate_budget = budgets(count_tokens(render_steps(t.steps)))
    graph, exemplar_text = await build_graph(ctx)
    details = {"chief_modules": modules}
    notes: list[str] = []

    if modules == "m1":
        brief = outline(t, outline_budget)
        try:
            ans = await ctx.ask("chief.direct", lambda b: ctx.messages("chief/direct", graph=graph_text(graph), outline=brief),
                                AgentStepAnswer, schema=agent_step_schema(t), validate=agent_step_validator(t))
        except InvalidAnswer as exc:
            return _invalid(graph, details, exc)
        graph.root_agent, graph.root_step = t.resolve_agent(ans.agent), ans.step
        return _result(graph, ans.reason, details, stages="M1 graph + direct attribution")

    if modules in ("full", "m1+m2"):
        notes = await backtrack(ctx, graph, exemplar_text)
    else:
        graph.candidate_steps = list(range(t.n_steps))

    if modules == "m1+m2":
        top = graph.candidate_steps[0]
        graph.root_step, graph.root_agent = top, t.steps[top].agent
        reason = next((v.reason for v in graph.verdicts if v.level == "step" and v.target == str(top)), "")
        return _result(graph, f"top-ranked candidate of oracle-guided backtracking. {reason}".strip(), details,
                       stages="M1 graph + M2 backtracking", notes=notes)

    try:
        ans = await attribute(ctx, graph, candidate_budget)
    except InvalidAnswer as exc:
        return _invalid(graph, details, exc)
    graph.root_agent, graph.root_step = t.resolve_agent(ans.agent), ans.step
    return _result(graph, ans.reason, details, notes=notes,
                   stages="M1 graph + M2 backtracking + M3 screening" if modules == "full" else "M1 graph + M3 screening")


def _result(graph: CausalGraph, reason: str, details: dict, *, stages: str, notes: list[str] | None = None) -> MethodResult:
    details = {**details, "stages": stages, "backtracking_notes": notes or [], "degraded": graph.degraded,
               "graph": graph.model_dump(mode="json")}
    cands = [Candidate(step=s, agent=graph.step_agents.get(s), note="candidate step") for s in graph.candidate_steps[:20]]
    return MethodResult(agent=graph.root_agent, step=graph.root_step, reason=reason, details=details, candidates=cands)


def _invalid(graph: CausalGraph, details: dict, exc: InvalidAnswer) -> MethodResult:
    """The final answer stayed invalid: report it as such (no guess), keeping the graph for inspection."""
    details = {**details, "degraded": graph.degraded, "graph": graph.model_dump(mode="json")}
    return MethodResult(status="invalid", details=details, error=str(exc))
