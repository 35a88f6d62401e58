"""M2 stage 1: one virtual oracle per subtask (goal, preconditions, key evidence, acceptance criteria).

All oracles come from one call, written in subtask order with the earlier ones as
constraints, from the task, the retrieved exemplars and the graph (the compact
view: the log itself is summarised there). Missing subtasks are an error fed
back to the model; an answer still invalid leaves the graph without oracles and
the backtracking stage judges against the task alone (recorded as degraded).
"""

from __future__ import annotations

from pydantic import BaseModel

from ..llm.schema import constrain_defs, schema_for
from ..methods.context import InvalidAnswer, RunContext
from .graph import CausalGraph, Oracle
from .views import graph_text


class OracleSet(BaseModel):
    oracles: list[Oracle]


async def synthesize_oracles(ctx: RunContext, graph: CausalGraph, exemplars: str) -> None:
    ids = [s.id for s in graph.subtasks]

    def validate(ans: OracleSet) -> list[str]:
        given = [o.subtask for o in ans.oracles]
        missing = [i for i in ids if i not in given]
        unknown = [g for g in given if g not in ids]
        return ([f"no oracle for subtask(s) {', '.join(missing)}"] if missing else []) + \
               ([f"oracle for unknown subtask(s) {', '.join(unknown)}"] if unknown else [])

    view = graph_text(graph, patterns=False, evidence=False)
    try:
        ans = await ctx.ask("chief.oracles",
                            lambda b: ctx.messages("chief/oracles", exemplars=exemplars, graph=view, n_subtasks=len(ids)),
                            OracleSet, schema=constrain_defs(schema_for(OracleSet), {"Oracle": {"subtask": {"enum": ids}}}),
                            validate=validate, max_tokens=2500)
    except InvalidAnswer as exc:
        graph.degraded.append(f"oracles: answer invalid after the re-ask ({str(exc)[:200]}); backtracking judges against the task only")
        return
    by_id = {o.subtask: o for o in ans.oracles}
    graph.oracles = [by_id[i] for i in ids]
