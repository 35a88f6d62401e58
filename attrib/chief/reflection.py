"""M1: subtask decomposition checks and trajectory-aligned reflection.

The model proposes subtasks (with two retrieved exemplars) in the graph call
(:mod:`attrib.chief.decompose`), since that call reads the whole log anyway. The
ranges are then checked here, in code: in order, starting at 0, contiguous,
non-overlapping, ending at the last step. Any problem goes back to the model,
stated exactly, behind the case's shared prefix (the whole log), for at most
``MAX_REFLECTIONS`` rounds. Still wrong: the stage degrades to one subtask spanning the log, and says so.
"""

from __future__ import annotations

import itertools

from pydantic import BaseModel, Field

from ..core.context import InvalidAnswer, RunContext
from ..llm.schema import constrain_defs, schema_for
from .graph import CausalGraph, StageView, Subtask
from .prefix import Prefix

MAX_REFLECTIONS = 2
MAX_SUBTASKS = 8


class SubtaskDraft(BaseModel):
    name: str = Field(description="a few words")
    start: int = Field(description="first step, inclusive")
    end: int = Field(description="last step, inclusive")


class Decomposition(BaseModel):
    subtasks: list[SubtaskDraft]


def max_subtasks(n_steps: int) -> int:
    return min(MAX_SUBTASKS, n_steps)


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
            problems.append(f"subtask S{i} '{d.name}' starts at {d.start} after its end {d.end}")
        if d.start < 0 or d.end > last:
            problems.append(f"subtask S{i} '{d.name}' ({d.start}-{d.end}) is outside the log (steps 0-{last})")
    for i, (a, b) in enumerate(itertools.pairwise(drafts), 1):
        if b.start > a.end + 1:
            problems.append(f"steps {a.end + 1}-{b.start - 1} between S{i} and S{i + 1} belong to no subtask")
        elif b.start <= a.end:
            problems.append(f"S{i + 1} '{b.name}' starts at {b.start} but S{i} already covers up to {a.end} (overlap)")
    if drafts[-1].end != last:
        problems.append(f"the last subtask ends at step {drafts[-1].end}, it must end at {last}")
    if len(drafts) > max_subtasks(n_steps):
        problems.append(f"{len(drafts)} subtasks; use at most {max_subtasks(n_steps)}")
    return problems


def to_subtasks(drafts: list[SubtaskDraft]) -> list[Subtask]:
    return [Subtask(id=f"S{i}", name=d.name.strip() or f"Subtask {i}", start=d.start, end=d.end)
            for i, d in enumerate(drafts, 1)]


def draft_rules(n_steps: int) -> dict:
    steps = {"minimum": 0, "maximum": n_steps - 1}
    return {"SubtaskDraft": {"start": steps, "end": steps}}


def _listing(drafts: list[SubtaskDraft]) -> str:
    return "\n".join(f"S{i} {d.name} (steps {d.start}-{d.end})" for i, d in enumerate(drafts, 1))


async def reflect(ctx: RunContext, graph: CausalGraph, drafts: list[SubtaskDraft], prefix: Prefix) -> list[SubtaskDraft]:
    """Return ranges that tile the log: the model's, corrected by reflection, or one whole-log subtask."""
    t = ctx.traj
    problems = range_problems(drafts, t.n_steps)
    schema = constrain_defs(schema_for(Decomposition), draft_rules(t.n_steps))
    schema["properties"]["subtasks"].update(minItems=1, maxItems=max_subtasks(t.n_steps))
    try:
        for round_ in range(1, MAX_REFLECTIONS + 1):
            if not problems:
                break
            graph.reflection_rounds = round_
            current, issues = _listing(drafts), "\n".join(f"- {p}" for p in problems)
            ans = await ctx.ask(f"chief.reflect[{round_}]",
                                prefix.build(ctx, "chief/reflect", subtasks=current, problems=issues),
                                Decomposition, schema=schema, max_tokens=800)
            drafts = ans.subtasks
            problems = range_problems(drafts, t.n_steps)
    except InvalidAnswer as exc:
        problems = [str(exc)]
    if graph.reflection_rounds:
        graph.stage_views.append(StageView(stage="chief.reflect", shown_in_full=list(range(t.n_steps)),
                                           shortened=prefix.shortened))
    if problems:
        graph.degraded.append("decompose: ranges still invalid after reflection (" + "; ".join(problems)[:300]
                              + "); using one subtask spanning the whole log")
        drafts = [SubtaskDraft(name="Whole run", start=0, end=t.n_steps - 1)]
    return drafts


def remap(old: list[Subtask], new: list[Subtask]) -> dict[str, str]:
    """Old subtask id -> the new subtask sharing most steps with it (after reflection changed the ranges)."""
    mapping = {}
    for o in old:
        overlaps = [(len(set(o.steps) & set(n.steps)), n.id) for n in new]
        best = max(overlaps) if overlaps else (0, new[0].id)
        mapping[o.id] = best[1] if best[0] else new[0].id
    return mapping
