"""M2: virtual oracles, one per subtask (goal, key evidence, acceptance criteria): their answer model and checks.

The oracles are the intermediate supervision the log lacks. They are written in
subtask order, each constrained by the task and the oracles before it, from the
task, the retrieved exemplars and the graph. They are asked for at the head of
the backtracking call (:mod:`attrib.chief.backtrack`), so the model commits to each
subtask's checklist before it judges that subtask, and the graph is sent once.
"""

from __future__ import annotations

from pydantic import BaseModel

from .graph import Oracle


class OracleDraft(BaseModel):
    """One oracle as the model writes it, at the head of the backtracking answer."""

    subtask: str
    goal: str
    key_evidence: list[str]
    acceptance_criteria: list[str]


def to_oracles(drafts: list[OracleDraft]) -> list[Oracle]:
    return [Oracle(**d.model_dump()) for d in drafts]


def oracle_problems(oracles: list[Oracle], subtask_ids: list[str]) -> list[str]:
    given = [o.subtask for o in oracles]
    problems = []
    missing = [i for i in subtask_ids if i not in given]
    if missing:
        problems.append(f"no oracle for subtask(s) {', '.join(missing)}")
    if given != [i for i in subtask_ids if i in given]:
        problems.append("oracles must follow subtask order S1, S2, ...")
    empty = [o.subtask for o in oracles if not o.goal.strip() or not o.acceptance_criteria]
    if empty:
        problems.append(f"oracle(s) {', '.join(empty)} need a goal and acceptance criteria")
    return problems


def ordered(oracles: list[Oracle], subtask_ids: list[str]) -> list[Oracle]:
    by_id = {o.subtask: o for o in oracles}
    return [by_id[i] for i in subtask_ids if i in by_id]
