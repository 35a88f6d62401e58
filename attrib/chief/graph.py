"""CHIEF's hierarchical causal graph and the oracle/backtracking/attribution results it carries.

Nodes come at two granularities: subtasks (contiguous step ranges of the log) and
agent nodes (one agent inside one subtask, described by Observation / Thought /
Action / Result). Edges come at three: subtask -> subtask, agent -> agent inside a
subtask (six types), and step -> step data flow. Subtask and agent edges carry
counterfactual patterns ("if the upstream node is biased like this, the downstream
node shows this anomaly") tagged with the screening scenario they serve.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ..attribution import HandoffDecision
from .evidence import LiteralFlow, LoopGroup

Scenario = Literal["local", "planning_control", "data_flow", "deviation_aware"]
SubtaskEdgeType = Literal["data_dependency", "logical_prereq"]
AgentEdgeType = Literal["obs_dependency", "reasoning_continuation", "decision_dependency",
                        "environment_feedback", "memory_ref", "loop_control"]
DataType = Literal["text", "numeric", "list", "boolean"]


class Subtask(BaseModel):
    id: str = Field(description="S1, S2, ... in execution order")
    name: str
    description: str = ""
    start: int = Field(description="first step (inclusive)")
    end: int = Field(description="last step (inclusive)")

    @property
    def steps(self) -> range:
        return range(self.start, self.end + 1)


class AgentNode(BaseModel):
    subtask: str
    agent: str
    steps: list[int] = Field(default_factory=list)
    observation: str = ""
    thought: str = ""
    action: str = ""
    result: str = ""

    @property
    def id(self) -> str:
        return f"{self.subtask}:{self.agent}"


class Pattern(BaseModel):
    scenario: Scenario
    bias: str
    anomaly: str


class SubtaskEdge(BaseModel):
    source: str
    target: str
    type: SubtaskEdgeType
    patterns: list[Pattern] = Field(default_factory=list)


class AgentEdge(BaseModel):
    subtask: str
    source: str
    target: str
    type: AgentEdgeType
    patterns: list[Pattern] = Field(default_factory=list)


class StepEdge(BaseModel):
    producer: int
    consumer: int
    data: str
    data_type: DataType = "text"
    origin: Literal["llm", "literal"] = "llm"


class Oracle(BaseModel):
    subtask: str
    goal: str
    preconditions: list[str] = Field(default_factory=list)
    key_evidence: list[str] = Field(default_factory=list)
    acceptance_criteria: list[str] = Field(default_factory=list)


class Verdict(BaseModel):
    """One backtracking decision: a subtask, agent node or step, and whether it deviates from its oracle."""

    level: Literal["subtask", "agent", "step"]
    target: str
    discrepancy: bool
    reason: str = ""
    quote: str = Field(default="", description="step verdicts: words the verdict quotes from the step it judges")
    quote_found: bool | None = Field(default=None, description="step verdicts: whether the quote occurs in that step's text")


class StageView(BaseModel):
    """What one CHIEF call was given and what it judged, so a reader can see why a step was or was not a candidate."""

    stage: str
    shown_in_full: list[int] = Field(default_factory=list, description="steps in the prompt (the whole log, in the shared prefix)")
    shortened: list[int] = Field(default_factory=list, description="of those, steps cut to the per-step cap to fit the context window")
    side_by_side: list[int] = Field(default_factory=list, description="steps shown again, paired, after the prefix")
    judged: list[int] = Field(default_factory=list, description="steps this stage gave a verdict on or chose among")


class Exemplar(BaseModel):
    id: str
    source: str
    score: float
    question: str


class CausalGraph(BaseModel):
    case_id: str
    n_steps: int
    agents: list[str]
    subtasks: list[Subtask] = Field(default_factory=list)
    agent_nodes: list[AgentNode] = Field(default_factory=list)
    subtask_edges: list[SubtaskEdge] = Field(default_factory=list)
    agent_edges: list[AgentEdge] = Field(default_factory=list)
    step_edges: list[StepEdge] = Field(default_factory=list)
    loop_groups: list[LoopGroup] = Field(default_factory=list)
    literal_flows: list[LiteralFlow] = Field(default_factory=list)
    exemplars: list[Exemplar] = Field(default_factory=list)
    oracles: list[Oracle] = Field(default_factory=list)
    verdicts: list[Verdict] = Field(default_factory=list)
    candidate_subtasks: list[str] = Field(default_factory=list)
    candidate_agents: list[str] = Field(default_factory=list)
    candidate_steps: list[int] = Field(default_factory=list)
    root_agent: str | None = None
    root_step: int | None = None
    whole_log_step: int | None = Field(default=None, description="backtracking's most likely step from one whole-log reading, given first")
    whole_log_reason: str = ""
    screening: dict[str, str] = Field(default_factory=dict, description="what each M3 stage concluded")
    handoffs: list[HandoffDecision] = Field(default_factory=list, description="planner-or-executor decisions of the screening")
    runner_up_step: int | None = None
    runner_up_reason: str = ""
    stage_views: list[StageView] = Field(default_factory=list)
    degraded: list[str] = Field(default_factory=list, description="stages that fell back, and how")
    reflection_rounds: int = 0
    step_agents: dict[int, str] = Field(default_factory=dict, description="agent acting at each step")

    def oracle_for(self, subtask_id: str) -> Oracle | None:
        return next((o for o in self.oracles if o.subtask == subtask_id), None)
