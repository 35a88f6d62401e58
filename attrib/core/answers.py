"""Answer models the baselines ask for, and their validation against the log."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from ..formatting import step_ranges
from ..llm.schema import constrain, schema_for
from ..trajectory import Trajectory


class AgentStepAnswer(BaseModel):
    agent: str = Field(description="responsible agent, exactly as listed", json_schema_extra={"aliases": ["agent name", "mistake agent"]})
    step: int = Field(description="0-based step number", json_schema_extra={"aliases": ["step number", "mistake step", "step id"]})
    reason: str = Field(description="why this step decided the failure", json_schema_extra={"aliases": ["reason for mistake", "explanation"]})


class StepJudgement(BaseModel):
    decisive: bool = Field(description="does the step under review make the decisive mistake", json_schema_extra={"aliases": ["yes/no", "answer", "judgement", "error"]})
    reason: str = Field(json_schema_extra={"aliases": ["reason for the judgment", "explanation"]})


class HalfChoice(BaseModel):
    half: Literal["first", "second"] = Field(json_schema_extra={"aliases": ["answer", "choice"]})
    reason: str = ""


def agent_step_schema(traj: Trajectory, steps: list[int] | None = None) -> dict[str, Any]:
    """The AgentStepAnswer schema narrowed to this log's agents and step range."""
    extra_step: dict[str, Any] = {"minimum": 0, "maximum": traj.n_steps - 1}
    if steps is not None:
        extra_step = {"enum": sorted(steps)}
    return constrain(schema_for(AgentStepAnswer), agent={"enum": traj.agents}, step=extra_step)


def check_agent(traj: Trajectory, name: str) -> list[str]:
    if traj.resolve_agent(name) is None:
        return [f"agent {name!r} is not in this log; use one of: {', '.join(traj.agents)}"]
    return []


def check_step(traj: Trajectory, step: int, allowed: list[int] | None = None) -> list[str]:
    if not 0 <= step < traj.n_steps:
        return [f"step {step} is outside the log (steps 0-{traj.n_steps - 1})"]
    if allowed is not None and step not in allowed:
        return [f"step {step} is not one of the steps under consideration ({step_ranges(allowed)})"]
    return []


def agent_step_validator(traj: Trajectory, allowed: list[int] | None = None):
    def validate(ans: AgentStepAnswer) -> list[str]:
        return check_agent(traj, ans.agent) + check_step(traj, ans.step, allowed)

    return validate


