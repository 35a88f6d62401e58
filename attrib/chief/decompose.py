"""M1 stage 1: RAG-guided task decomposition with trajectory-aligned reflection.

The model splits the run into subtasks from the task, two retrieved exemplars and
an outline of the log. The ranges are then checked in code (in order, starting
at 0, contiguous, non-overlapping, ending at the last step); any problem goes back
to the model, stated exactly, for at most ``MAX_REFLECTIONS`` rounds. If the
ranges are still wrong, the stage degrades to one subtask spanning the whole log
and says so.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..llm.schema import constrain_defs, schema_for
from ..methods.context import InvalidAnswer, RunContext
from .graph import CausalGraph, Subtask
from .views import outline, subtasks_text

MAX_REFLECTIONS = 2
MAX_SUBTASKS = 8


class SubtaskDraft(BaseModel):
    name: str
    description: str
    start: int = Field(description="first step, inclusive")
    end: int = Field(description="last step, inclusive")


class Decomposition(BaseModel):
    subtasks: list[SubtaskDraft]


def range_problems(drafts: list[SubtaskDraft], n_steps: int) -> list[str]:
    """Every way the ranges fail to tile steps 0..n_steps-1 in order; empty when they do."""
    if not drafts:
        return ["there are no subtasks"]
    problems = []
    last = n_steps - 1
    if drafts[0].start != 0:
        problems.append(f"the first subtask starts at step {drafts[0].start}, it must start at 0")
    for i, d in enumerate(drafts, 1):
        if d.start > d.end:
            problems.append(f"subtask {i} '{d.name}' starts at {d.start} after its end {d.end}")
        if d.start < 0 or d.end > last:
            problems.append(f"subtask {i} '{d.name}' ({d.start}-{d.end}) is outside the log (steps 0-{last})")
    for i, (a, b) in enumerate(zip(drafts, drafts[1:]), 1):
        if b.start > a.end + 1:
            problems.append(f"steps {a.end + 1}-{b.start - 1} between subtask {i} and {i + 1} belong to no subtask")
        elif b.start <= a.end:
            problems.append(f"subtask {i + 1} '{b.name}' starts at {b.start} but subtask {i} already covers up to {a.end} (overlap)")
    if drafts[-1].end != last:
        problems.append(f"the last subtask ends at step {drafts[-1].end}, it must end at {last}")
    if len(drafts) > MAX_SUBTASKS:
        problems.append(f"{len(drafts)} subtasks; use at most {MAX_SUBTASKS}")
    return problems


def _subtasks(drafts: list[SubtaskDraft]) -> list[Subtask]:
    return [Subtask(id=f"S{i}", name=d.name.strip() or f"Subtask {i}", description=d.description, start=d.start, end=d.end)
            for i, d in enumerate(drafts, 1)]


def decomposition_schema(n_steps: int) -> dict:
    steps = {"minimum": 0, "maximum": n_steps - 1}
    schema = constrain_defs(schema_for(Decomposition), {"SubtaskDraft": {"start": steps, "end": steps}})
    schema["properties"]["subtasks"].update(minItems=1, maxItems=min(MAX_SUBTASKS, n_steps))
    return schema


def _schema_check(n_steps: int):
    def validate(ans: Decomposition) -> list[str]:
        return [] if ans.subtasks else ["give at least one subtask"]
    return validate


async def decompose(ctx: RunContext, graph: CausalGraph, exemplars: str, outline_budget: int) -> None:
    """Fill ``graph.subtasks`` (and ``graph.reflection_rounds`` / ``graph.degraded``)."""
    t = ctx.traj
    view = outline(t, outline_budget)
    common = dict(last_step=t.n_steps - 1)
    try:
        ans = await ctx.ask("chief.decompose",
                            lambda b: ctx.messages("chief/decompose", exemplars=exemplars, outline=view,
                                                   max_subtasks=min(MAX_SUBTASKS, t.n_steps), **common),
                            Decomposition, schema=decomposition_schema(t.n_steps), validate=_schema_check(t.n_steps),
                            max_tokens=1200)
        drafts = ans.subtasks
        problems = range_problems(drafts, t.n_steps)
        for round_ in range(1, MAX_REFLECTIONS + 1):
            if not problems:
                break
            graph.reflection_rounds = round_
            current = subtasks_text(CausalGraph(case_id=t.id, n_steps=t.n_steps, agents=t.agents, subtasks=_subtasks(drafts)))
            ans = await ctx.ask(f"chief.reflect[{round_}]",
                                lambda b: ctx.messages("chief/reflect", outline=view, subtasks=current,
                                                       problems="\n".join(f"- {p}" for p in problems), **common),
                                Decomposition, schema=decomposition_schema(t.n_steps), validate=_schema_check(t.n_steps),
                            max_tokens=1200)
            drafts = ans.subtasks
            problems = range_problems(drafts, t.n_steps)
    except InvalidAnswer as exc:
        problems = [str(exc)]
    if problems:
        graph.degraded.append("decompose: ranges still invalid after reflection ("
                              + "; ".join(problems)[:300] + "); using one subtask spanning the whole log")
        drafts = [SubtaskDraft(name="Whole run", description="the entire log as one subtask", start=0, end=t.n_steps - 1)]
    graph.subtasks = _subtasks(drafts)
