"""M3 screening, planner or executor: pairs of adjacent candidate steps decided on their text.

The commonest miss on long logs is one step off across a hand-over: the gold label is
the executor's step and the answer the planner's adjacent instruction, or the reverse,
or a tool result against the step that reads it. When a leading candidate has an
adjacent step by a different agent that is also a candidate (or that neighbours one of
the top two), the screening is shown both steps again, side by side, and must decide explicitly which one is at fault
(:class:`attrib.attribution.HandoffDecision`); its final answer must agree with that call.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ..agents import agent_key
from ..attribution import HandoffDecision
from ..trajectory import Trajectory
from .graph import CausalGraph

LEADING = 3  # the first ranked candidates (plus the whole-log reading) that open a pair
CLOSE = 2  # around the first two (and the whole-log reading), a non-candidate neighbour may complete a pair
MAX_PAIRS = 2
PAIR_CHARS = 1500  # each step of a pair is repeated up to this many characters, head and tail (the log above has it whole)


class HandoffAnswer(BaseModel):
    upstream_step: int
    downstream_step: int
    relation: Literal["instruction", "tool_result"] = Field(description="the upstream step gives an instruction, or a result to read")
    at_fault: Literal["upstream", "downstream", "neither"] = Field(
        description="upstream: the instruction or result was wrong; downstream: a sound one was carried out or read wrongly")
    reason: str


def handoff_pairs(traj: Trajectory, graph: CausalGraph) -> list[tuple[int, int]]:
    """Adjacent (earlier, later) steps of different agents around the leading candidates; best-ranked first.

    A pair opens at one of the first ``LEADING`` candidates or the whole-log reading; its other step must be a
    candidate too, unless it neighbours one of the top ``CLOSE`` (the executor/planner one step off the answer,
    the commonest miss), in which case it joins the steps the screening may choose.
    """
    ranked = graph.candidate_steps
    if len(ranked) >= traj.n_steps:  # no backtracking ranking to lead with
        return []
    rank = {s: i for i, s in enumerate(ranked)}
    whole = [graph.whole_log_step] if graph.whole_log_step is not None else []
    leading = list(dict.fromkeys(ranked[:LEADING] + whole))
    close = set(ranked[:CLOSE] + whole)
    found: dict[tuple[int, int], int] = {}
    for c in leading:
        for a, b in ((c - 1, c), (c, c + 1)):
            other = a if b == c else b
            if a < 0 or b >= traj.n_steps or (other not in rank and c not in close):
                continue
            if agent_key(traj.steps[a].agent) == agent_key(traj.steps[b].agent):
                continue
            found[(a, b)] = min(found.get((a, b), 99), rank.get(a, 99), rank.get(b, 99))
    return sorted(found, key=lambda p: (found[p], p))[:MAX_PAIRS]


def handoff_problems(answers: list[HandoffAnswer], pairs: list[tuple[int, int]], step: int) -> list[str]:
    """The decisions must cover exactly the pairs shown, and the final step must not contradict them."""
    given = [(h.upstream_step, h.downstream_step) for h in answers]
    problems = []
    if sorted(given) != sorted(pairs):
        problems.append("decide each shown pair exactly once: " + ", ".join(f"{a} -> {b}" for a, b in pairs) if pairs
                        else "no pair was shown; answer handoffs as an empty list")
    for h in answers:
        if step in (h.upstream_step, h.downstream_step) and (h.upstream_step, h.downstream_step) in pairs:
            blamed = {"upstream": h.upstream_step, "downstream": h.downstream_step}.get(h.at_fault)
            if blamed != step:
                problems.append(f"your answer is step {step}, but for pair {h.upstream_step} -> {h.downstream_step} "
                                f"you put the fault on {h.at_fault}; make them agree")
    return problems


def to_decisions(answers: list[HandoffAnswer]) -> list[HandoffDecision]:
    return [HandoffDecision(**h.model_dump()) for h in answers]


def handoff_rule(pairs: list[tuple[int, int]]) -> str:
    if not pairs:
        return "handoffs: no adjacent instruction/execution pair among the leading candidates; answer an empty list."
    shown = ", ".join(f"{a} -> {b}" for a, b in pairs)
    return ("handoffs: for each pair shown above (" + shown + "), read both steps and decide: relation (instruction: "
            "the upstream step tells the next agent what to do; tool_result: it returns a result the next step reads), "
            "and at_fault: upstream if the instruction or result itself was wrong, downstream if a sound one was carried "
            "out or read wrongly, neither if both were sound. If your final step is in a pair, it must be the one you "
            "put at fault.")
