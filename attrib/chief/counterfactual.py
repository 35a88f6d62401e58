"""M3: counterfactual attribution over the candidate steps, in four screening stages.

local (is the anomaly explained by an upstream step?), planning-control (loop
groups: planner repeating itself vs executor failing valid strategy shifts),
data-flow (the earliest step where valid inputs became a corrupted value), and a
deviation-aware final screening (a deviation later corrected carries little blame).
The model may choose a candidate or a step that produces data a candidate consumes
(the data-flow stage may trace the corruption upstream); anything else is rejected.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..core.answers import check_agent, check_step
from ..llm.schema import constrain, schema_for
from ..core.context import RunContext
from .graph import CausalGraph
from .views import candidate_steps_text, graph_text, oracles_text


class Screening(BaseModel):
    local: str = Field(description="what local attribution concluded")
    planning_control: str
    data_flow: str
    final_screening: str
    agent: str = Field(json_schema_extra={"aliases": ["agent name"]})
    step: int = Field(json_schema_extra={"aliases": ["step number"]})
    reason: str = Field(json_schema_extra={"aliases": ["reason for mistake"]})


def allowed_steps(graph: CausalGraph) -> list[int]:
    cands = set(graph.candidate_steps)
    upstream = {e.producer for e in graph.step_edges if e.consumer in cands}
    return sorted(cands | upstream)


async def attribute(ctx: RunContext, graph: CausalGraph, budget_tokens: int) -> Screening:
    allowed = allowed_steps(graph)
    every_step = len(allowed) == ctx.traj.n_steps
    choose = ("Choose any step of the log." if every_step else
              f"Choose among the candidate steps ({', '.join(map(str, graph.candidate_steps))}) or an upstream step "
              f"that produced data they consumed ({', '.join(str(s) for s in allowed if s not in graph.candidate_steps) or 'none'}).")
    focus = None if every_step else set(allowed)
    view = graph_text(graph, focus=focus, field_chars=90)
    keep = {s.id for s in graph.subtasks if focus is None or focus & set(s.steps)}
    orc = f"Virtual oracles of these subtasks:\n{oracles_text(graph, keep)}\n" if graph.oracles else ""
    shown = graph.candidate_steps if not every_step else list(range(ctx.traj.n_steps))
    text = candidate_steps_text(ctx.traj, shown, budget_tokens)

    def validate(ans: Screening) -> list[str]:
        return check_agent(ctx.traj, ans.agent) + check_step(ctx.traj, ans.step, None if every_step else allowed)

    ans = await ctx.ask("chief.attribute",
                        lambda b: ctx.messages("chief/attribute", graph=view, oracles=orc, candidates=text, choose_from=choose),
                        Screening, validate=validate, max_tokens=1200,
                        schema=constrain(schema_for(Screening), agent={"enum": list(ctx.traj.agents)},
                                         step={"minimum": 0, "maximum": ctx.traj.n_steps - 1} if every_step else {"enum": allowed}))
    graph.screening = {"local": ans.local, "planning_control": ans.planning_control, "data_flow": ans.data_flow,
                       "final_screening": ans.final_screening}
    return ans
