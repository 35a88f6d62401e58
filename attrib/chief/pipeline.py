"""CHIEF end to end, and its ablations (Table 4 of the paper).

``full``:  M1 graph -> M2 oracles + backtracking -> M3 counterfactual attribution
``m1``:    graph, then one direct attribution call on it
``m1+m2``: graph, oracles, backtracking; the top-ranked candidate step is the answer
``m1+m3``: graph, then counterfactual screening over every step (no oracle pruning)

Token plan: every call of every ablation starts with the same bytes, the shared
prefix of :mod:`attrib.chief.prefix` (system prompt, task block, the whole log rendered
as All-at-Once renders it), so a provider's prompt cache serves the log after the
first call and every stage judges with the evidence in view. What differs per stage
(instructions, exemplars, the graph as a map, candidates, the answer format) follows
the prefix. The graph answer is kept short, since output tokens are not cached.
"""

from __future__ import annotations

from typing import Any

from ..attribution import Candidate, Confidence
from ..core.answers import AgentStepAnswer, agent_step_schema, agent_step_validator
from ..core.context import InvalidAnswer, MethodResult, RunContext
from ..core.options import CHIEF_MODULES
from .backtrack import backtrack
from .counterfactual import attribute
from .decompose import add_evidence, build_structure
from .graph import CausalGraph, StageView
from .prefix import Prefix, shared_prefix
from .retrieval import GRAPH_EXEMPLAR_CHARS, ORACLE_EXEMPLAR_CHARS, exemplars_for
from .views import graph_text

MODULES = CHIEF_MODULES


async def build_graph(ctx: RunContext, prefix: Prefix | None = None) -> tuple[CausalGraph, str, Prefix]:
    """M1: evidence, retrieval, decomposition with reflection, nodes and edges.

    Returns the graph, a shorter rendering of the exemplars for the oracle stage, and the case's shared prefix.
    """
    t = ctx.traj
    prefix = prefix or shared_prefix(ctx)
    graph = CausalGraph(case_id=t.id, n_steps=t.n_steps, agents=t.agents,
                        step_agents={s.index: s.agent for s in t.steps})
    add_evidence(ctx, graph)
    graph.exemplars, exemplar_texts, notice = exemplars_for(t, ctx.options.kb_dir, (GRAPH_EXEMPLAR_CHARS, ORACLE_EXEMPLAR_CHARS))
    if notice:
        ctx.notice(notice)
    await build_structure(ctx, graph, exemplar_texts[0], prefix)
    every = list(range(t.n_steps))
    graph.stage_views.insert(0, StageView(stage="chief.graph", shown_in_full=every, shortened=prefix.shortened, judged=every))
    return graph, exemplar_texts[1], prefix


async def run(ctx: RunContext) -> MethodResult:
    """Run the configured CHIEF modules; a stage whose answer stayed invalid is said in a notice, not hidden."""
    result = await _run(ctx)
    for what in result.details.get("degraded") or []:
        ctx.notice(f"CHIEF ran degraded: {what}")
    return result


async def _run(ctx: RunContext) -> MethodResult:
    modules = ctx.options.chief_modules
    t = ctx.traj
    graph, exemplar_text, prefix = await build_graph(ctx)
    details = {"chief_modules": modules}
    notes: list[str] = []

    if modules == "m1":
        try:
            ans = await ctx.ask("chief.direct", prefix.build(ctx, "chief/direct", graph=graph_text(graph)),
                                AgentStepAnswer, schema=agent_step_schema(t), validate=agent_step_validator(t))
        except InvalidAnswer as exc:
            return _invalid(graph, details, exc)
        every = list(range(t.n_steps))
        graph.stage_views.append(StageView(stage="chief.direct", shown_in_full=every, shortened=prefix.shortened, judged=every))
        graph.root_agent, graph.root_step = t.resolve_agent(ans.agent), ans.step
        return _result(graph, ans.reason, details, stages="M1 graph + direct attribution")

    if modules in ("full", "m1+m2"):
        notes = await backtrack(ctx, graph, exemplar_text, prefix)
    else:
        graph.candidate_steps = list(range(t.n_steps))

    if modules == "m1+m2":
        top = graph.candidate_steps[0]
        graph.root_step, graph.root_agent = top, t.steps[top].agent
        reason = next((v.reason for v in graph.verdicts if v.level == "step" and v.target == str(top)), "")
        if len(graph.candidate_steps) > 1:
            second = graph.candidate_steps[1]
            graph.runner_up_step = second
            graph.runner_up_reason = next((v.reason for v in graph.verdicts if v.level == "step" and v.target == str(second)),
                                          "second in backtracking's ranking")
        return _result(graph, f"top-ranked candidate of oracle-guided backtracking. {reason}".strip(), details,
                       stages="M1 graph + M2 backtracking", notes=notes)

    try:
        final = await attribute(ctx, graph, prefix)
    except InvalidAnswer as exc:
        return _invalid(graph, details, exc)
    graph.root_agent, graph.root_step = t.resolve_agent(final.agent), final.step
    return _result(graph, final.reason, details, notes=notes,
                   stages="M1 graph + M2 backtracking + M3 screening" if modules == "full" else "M1 graph + M3 screening")


def confidence(graph: CausalGraph) -> Confidence | None:
    """Agreement of the final step with backtracking's whole-log reading, and the runner-up (None when neither exists)."""
    if graph.whole_log_step is None and graph.runner_up_step is None:
        return None
    runner = None
    if graph.runner_up_step is not None:
        runner = Candidate(step=graph.runner_up_step, agent=graph.step_agents.get(graph.runner_up_step),
                           note=graph.runner_up_reason)
    agrees = None if graph.whole_log_step is None or graph.root_step is None else graph.whole_log_step == graph.root_step
    return Confidence(whole_log_step=graph.whole_log_step, whole_log_reason=graph.whole_log_reason or None,
                      agrees=agrees, runner_up=runner)


def _result(graph: CausalGraph, reason: str, details: dict[str, Any], *, stages: str, notes: list[str] | None = None) -> MethodResult:
    details = {**details, "stages": stages, "backtracking_notes": notes or [], "degraded": graph.degraded,
               "stage_views": [v.model_dump(mode="json") for v in graph.stage_views],
               "graph": graph.model_dump(mode="json")}
    cands = [Candidate(step=s, agent=graph.step_agents.get(s), note="candidate step") for s in graph.candidate_steps[:20]]
    return MethodResult(agent=graph.root_agent, step=graph.root_step, reason=reason, details=details, candidates=cands,
                        confidence=confidence(graph), handoffs=list(graph.handoffs))


def _invalid(graph: CausalGraph, details: dict[str, Any], exc: InvalidAnswer) -> MethodResult:
    """The final answer stayed invalid: report it as such (no guess), keeping the graph for inspection."""
    details = {**details, "degraded": graph.degraded, "graph": graph.model_dump(mode="json"),
               "stage_views": [v.model_dump(mode="json") for v in graph.stage_views]}
    return MethodResult(status="invalid", details=details, error=str(exc))
