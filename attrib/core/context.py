"""What a method gets to work with: the trajectory, the LLM client, the settings, and a call log."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from .. import prompts
from ..attribution import CallRecord, Candidate, Confidence, HandoffDecision, Status
from ..errors import LLMError
from ..llm.client import LLMClient, PromptTooLong
from ..render import BUDGETS, agents_line, neutralize
from ..trajectory import Trajectory
from .options import MethodOptions

T = TypeVar("T", bound=BaseModel)


class InvalidAnswer(Exception):
    """A call whose answer stayed invalid after the re-ask."""

    def __init__(self, stage: str, error: str):
        super().__init__(f"{stage}: {error}")
        self.stage = stage


@dataclass
class MethodResult:
    status: Status = "ok"
    agent: str | None = None
    step: int | None = None
    reason: str | None = None
    candidates: list[Candidate] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    confidence: Confidence | None = None
    handoffs: list[HandoffDecision] = field(default_factory=list)


@dataclass
class RunContext:
    traj: Trajectory
    client: LLMClient | None
    with_ground_truth: bool = True
    seed: int = 0
    options: MethodOptions = field(default_factory=MethodOptions)
    calls: list[CallRecord] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    def notice(self, text: str) -> None:
        if text not in self.notices:
            self.notices.append(text)

    def task_values(self) -> dict[str, Any]:
        """Values of the shared ``task`` block: question, ground truth (or its absence), agents, size."""
        t = self.traj
        if self.with_ground_truth and t.ground_truth:
            gt = f"The correct final answer is: {neutralize(t.ground_truth)}\nThe team did not reach it."
        else:
            gt = "The correct final answer is not given; judge the steps on their own merits."
        return dict(question=neutralize(t.question) if t.question else "(no task text in the log)", ground_truth=gt,
                    agents=agents_line(t), n_steps=t.n_steps, last_step=t.n_steps - 1)

    def messages(self, template: str, **values: Any) -> list[dict[str, str]]:
        return [{"role": "system", "content": prompts.template("system")},
                {"role": "user", "content": prompts.render(template, **{**self.task_values(), **values})}]

    async def ask(self, stage: str, build: Callable[[int | None], list[dict[str, str]]], answer: type[T], *,
                  schema: dict | None = None, validate: Callable | None = None, max_tokens: int | None = None) -> T:
        """Build the prompt at the largest step budget that fits, ask, record; raise InvalidAnswer if invalid."""
        if self.client is None:
            raise LLMError(f"{stage}: this method needs a model")
        for budget in BUDGETS:
            msgs = build(budget)
            estimate = await asyncio.to_thread(self.client.estimate, msgs, schema or answer, max_tokens)
            if self.client.fits_estimate(estimate, max_tokens):
                break
        else:
            raise PromptTooLong(f"{stage}: prompt does not fit the context window even with steps cut to {BUDGETS[-1]} characters")
        if budget is not None:
            self.notice(f"step contents were shortened to {budget} characters each (head and tail kept) to fit the context window")
        result = await self.client.ask(stage=stage, messages=msgs, answer=answer, schema=schema, validate=validate,
                                       max_tokens=max_tokens, truncated=budget is not None, estimate=estimate)
        self.calls.append(result.record)
        if result.value is None:
            raise InvalidAnswer(stage, result.record.error or "invalid answer")
        return result.value
