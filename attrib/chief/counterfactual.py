"""M3: counterfactual attribution over the candidate steps, in four screening passes.

local (is the anomaly explained by an upstream step?), planning-control (loop groups
and instruction/execution pairs: a wrong instruction vs a sound one executed wrongly,
:mod:`attrib.chief.handoff`), data-flow (the earliest step where valid inputs became a
corrupted value), and a deviation-aware final screening (a deviation later corrected
carries little blame). The whole log is in view in the shared prefix; the candidates are
listed with their backtracking verdicts and adjacent pairs are repeated side by side.
The model may choose a candidate or a step that produces data a candidate consumes
(the data-flow pass may trace the corruption upstream, and loop groups widen the same
way); anything else is rejected. It also names its runner-up, with a reason.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..core.answers import check_agent, check_step
from ..core.context import RunContext
from ..llm.schema import constrain, constrain_defs, schema_for
from .graph import CausalGraph, StageView
from .handoff import (
    PAIR_CHARS,
    HandoffAnswer,
    handoff_pairs,
    handoff_problems,
    handoff_rule,
    to_decisions,
)
from .prefix import Prefix
from .views import graph_text, oracles_text, pair_text


class Screening(BaseModel):
    local: str = Field(description="what local attribution concluded")
    planning_control: str
    data_flow: str
    handoffs: list[HandoffAnswer]
    final_screening: str
    agent: str = Field(json_schema_extra={"aliases": ["agent name"]})
    step: int = Field(json_schema_extra={"aliases": ["step number"]})
    reason: str = Field(json_schema_extra={"aliases": ["reason for mistake"]})
    runner_up_step: int
    runner_up_reason: str


def allowed_steps(graph: CausalGraph) -> list[int]:
    """Candidates, the producers of data they consume, and the other members of loop groups they belong to."""
    cands = set(graph.candidate_steps)
    upstream = {e.producer for e in graph.step_edges if e.consumer in cands}
    loops = {i for g in graph.loop_groups if cands & set(g.steps) for i in g.steps if i <= max(cands, default=-1)}
    return sorted(cands | upstream | loops)


def candidates_text(graph: CausalGraph, allowed: list[int]) -> str:
    verdicts = {int(v.target): v for v in graph.verdicts if v.level == "step" and v.target.isdigit()}
    lines = []
    for s in graph.candidate_steps:
        v = verdicts.get(s)
        note = f": {v.reason}" if v else ""
        tag = " (whole-log reading)" if s == graph.whole_log_step else ""
        lines.append(f"- step {s} ({graph.step_agents.get(s, '?')}){tag}{note}")
    extra = [s for s in allowed if s not in graph.candidate_steps]
    if extra:
        lines.append("Also allowed (they feed a candidate data, share its loop, or complete a pair below): "
                     + ", ".join(map(str, extra)))
    return "\n".join(lines)


async def attribute(ctx: RunContext, graph: CausalGraph, prefix: Prefix) -> Screening:
    t = ctx.traj
    pairs = handoff_pairs(t, graph)
    allowed = sorted(set(allowed_steps(graph)) | {i for p in pairs for i in p})
    every_step = len(allowed) == t.n_steps
    choose = ("Choose any step of the log." if every_step else
              f"Choose among the candidates and the steps allowed beside them ({', '.join(map(str, allowed))}).")
    focus = None if every_step else set(allowed)
    view = graph_text(graph, focus=focus, nodes=False)
    keep = {s.id for s in graph.subtasks if focus is None or focus & set(s.steps)}
    orc = f"Virtual oracles of these subtasks:\n{oracles_text(graph, keep)}\n" if graph.oracles else ""
    cands = "every step of the log (no backtracking ran)" if every_step else candidates_text(graph, allowed)
    cap = PAIR_CHARS if prefix.cap is None else min(prefix.cap, PAIR_CHARS)
    shown = (f"Adjacent steps of different agents around the leading candidates, shown again side by side:\n{pair_text(t, pairs, cap)}\n"
             if pairs else "")

    def validate(ans: Screening) -> list[str]:
        scope = None if every_step else allowed
        out = check_agent(t, ans.agent) + check_step(t, ans.step, scope) + check_step(t, ans.runner_up_step, scope)
        if ans.runner_up_step == ans.step and len(allowed) > 1:
            out.append("the runner-up must be a different step from the answer")
        return out + handoff_problems(ans.handoffs, pairs, ans.step)

    step_rule = {"minimum": 0, "maximum": t.n_steps - 1} if every_step else {"enum": allowed}
    schema = constrain(schema_for(Screening), agent={"enum": list(t.agents)}, step=step_rule, runner_up_step=step_rule)
    ups = sorted({a for a, _ in pairs}) or [0]
    downs = sorted({b for _, b in pairs}) or [0]
    schema = constrain_defs(schema, {"HandoffAnswer": {"upstream_step": {"enum": ups}, "downstream_step": {"enum": downs}}})
    schema["properties"]["handoffs"].update(minItems=len(pairs), maxItems=len(pairs))
    ans = await ctx.ask("chief.attribute",
                        prefix.build(ctx, "chief/attribute", graph=view, oracles=orc, candidates=cands,
                                     pairs=shown, handoff_rule=handoff_rule(pairs), choose_from=choose),
                        Screening, validate=validate, max_tokens=1200, schema=schema)
    graph.screening = {"local": ans.local, "planning_control": ans.planning_control, "data_flow": ans.data_flow,
                       "final_screening": ans.final_screening}
    graph.handoffs = to_decisions(ans.handoffs)
    graph.runner_up_step, graph.runner_up_reason = ans.runner_up_step, ans.runner_up_reason
    graph.stage_views.append(StageView(stage="chief.attribute", shown_in_full=list(range(t.n_steps)),
                                       shortened=prefix.shortened, side_by_side=sorted({i for p in pairs for i in p}),
                                       judged=allowed))
    return ans
