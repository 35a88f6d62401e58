"""The trajectory model every reader produces and every method consumes."""

from __future__ import annotations

from functools import cached_property

from pydantic import BaseModel, ConfigDict, Field

from .agents import agent_key


class Step(BaseModel):
    """One entry of the log: one agent acting once."""

    model_config = ConfigDict(frozen=True)

    index: int = Field(description="0-based position in the log")
    label: str = Field(description="raw agent label as written in the log")
    agent: str = Field(description="canonical agent display name (attrib.agents rule)")
    content: str
    source_id: str | None = Field(default=None, description="the source's own id for this step (index, message id, span id)")
    role: str | None = Field(default=None, description="chat role when the source has one (user/assistant/tool)")
    parent_id: str | None = Field(default=None, description="parent span / call id when the source nests steps")
    phase: str | None = Field(default=None, description="the source's own phase/subtask of this step (e.g. ChatDev's phase)")
    observation_ids: list[str] = Field(
        default_factory=list,
        description="source ids of tool results / environment output folded into this step (not steps themselves)")


class GoldLabel(BaseModel):
    """Ground-truth attribution, when the log carries one."""

    agent: str
    step: int
    reason: str | None = None


class Trajectory(BaseModel):
    """A failed multi-agent run, normalized."""

    id: str = Field(description="case id: file stem, or the source's own id")
    path: str | None = None
    source_format: str = "who-and-when"
    subset: str | None = Field(default=None, description="'algorithm-generated' / 'hand-crafted' for Who&When logs")
    question: str = ""
    question_id: str | None = None
    ground_truth: str | None = None
    steps: list[Step]
    gold: GoldLabel | None = None
    truncated_steps: list[int] = Field(default_factory=list, description="steps whose content the reader shortened")
    infrastructure_failure: str | None = Field(
        default=None, description="why the run died on infrastructure (retries, HTTP errors) rather than on an agent")
    metadata: dict = Field(default_factory=dict)

    @property
    def n_steps(self) -> int:
        return len(self.steps)

    @cached_property
    def agents(self) -> list[str]:
        """Distinct canonical agents, in order of first appearance."""
        seen: dict[str, str] = {}
        for step in self.steps:
            seen.setdefault(agent_key(step.agent), step.agent)
        return list(seen.values())

    def resolve_agent(self, name: str) -> str | None:
        """The log's display name for ``name`` under the normalization rule, or None."""
        wanted = agent_key(name)
        for agent in self.agents:
            if agent_key(agent) == wanted:
                return agent
        return None

    def steps_of(self, agent: str) -> list[Step]:
        key = agent_key(agent)
        return [s for s in self.steps if agent_key(s.agent) == key]
