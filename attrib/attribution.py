"""What a method returns: the attribution, its evidence, and the record of every LLM call.

The JSON form (``Attribution.model_dump(mode="json")``) is the documented output of
``attrib predict --json``; ``SCHEMA_VERSION`` changes whenever a field changes meaning.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

SCHEMA_VERSION = "1.0"

Status = Literal["ok", "no_error_found", "invalid", "error", "infrastructure_failure"]


class CallRecord(BaseModel):
    """One logical LLM call (a re-ask and HTTP retries are counted inside it)."""

    stage: str = Field(description="which part of the method asked, e.g. 'all-at-once', 'chief.graph' or 'chief.backtrack'")
    model: str
    backend: str = Field(description="'openai' (any OpenAI-compatible endpoint) or 'local' (llama.cpp in process)")
    input_tokens: int = Field(0, description="prompt tokens as the API reported them (cached ones included)")
    cached_input_tokens: int = Field(0, description="part of input_tokens the provider served from its prompt cache "
                                     "(usage.prompt_tokens_details.cached_tokens or DeepSeek's prompt_cache_hit_tokens)")
    output_tokens: int = 0
    estimated_input_tokens: int | None = Field(default=None, description="pre-flight token count of the prompt; None when its byte size already proved it fits")
    tokenizer: str = Field(default="cl100k_base (tiktoken, offline)", description="what made the pre-flight count")
    seconds: float = 0.0
    cached: bool = Field(default=False, description="answered from attrib's own disk cache: no request sent, cost_usd 0 "
                         "(token counts are the ones recorded when it was first asked)")
    attempts: int = Field(default=0, description="HTTP/model requests actually sent (retries included, cache hits excluded)")
    reasks: int = Field(default=0, description="re-asks after an invalid answer (0 or 1)")
    valid: bool = True
    error: str | None = None
    response_mode: str | None = Field(default=None, description="json_schema, json_object or text")
    truncated: bool = Field(default=False, description="step contents were shortened so the prompt fits the context window")
    temperature: float | None = None
    seed: int | None = None
    cost_usd: float | None = Field(None, description="USD this call paid: uncached input x input price + cached input "
                                   "x cached_input price + output x output price; 0 for a cache hit; None when the "
                                   "model has no price in the table")


class Usage(BaseModel):
    calls: int = 0
    cached_calls: int = 0
    input_tokens: int = 0
    cached_input_tokens: int = Field(0, description="part of input_tokens served from the provider's prompt cache")
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    seconds: float = 0.0
    invalid_calls: int = 0

    @classmethod
    def of(cls, calls: list[CallRecord], seconds: float | None = None) -> Usage:
        known = [c.cost_usd for c in calls if c.cost_usd is not None]
        return cls(
            calls=len(calls),
            cached_calls=sum(c.cached for c in calls),
            input_tokens=sum(c.input_tokens for c in calls),
            cached_input_tokens=sum(c.cached_input_tokens for c in calls),
            output_tokens=sum(c.output_tokens for c in calls),
            cost_usd=None if len(known) < len(calls) else round(sum(known), 8),
            seconds=round(seconds if seconds is not None else sum(c.seconds for c in calls), 3),
            invalid_calls=sum(not c.valid for c in calls),
        )


class Candidate(BaseModel):
    agent: str | None = None
    step: int | None = None
    score: float | None = None
    note: str | None = None


class HandoffDecision(BaseModel):
    """CHIEF's explicit call on two adjacent steps of different agents that were both leading candidates:
    an instruction and the step that carries it out, or a tool result and the step that reads it."""

    upstream_step: int = Field(description="the earlier step: the instruction given, or the result produced")
    downstream_step: int = Field(description="the next step: the one that carried the instruction out or read the result")
    relation: Literal["instruction", "tool_result"] = Field(description="what the upstream step hands over")
    at_fault: Literal["upstream", "downstream", "neither"] = Field(
        description="upstream: the instruction (or result) itself was wrong; downstream: a sound one was executed (or read) wrongly")
    reason: str = ""


class Confidence(BaseModel):
    """How settled CHIEF's answer is: did the final screening keep the whole-log reading, and what came second."""

    whole_log_step: int | None = Field(default=None, description="backtracking's most likely step from reading the whole log, given before any verdict")
    whole_log_reason: str | None = None
    agrees: bool | None = Field(default=None, description="the final step equals whole_log_step (None when backtracking did not run)")
    runner_up: Candidate | None = Field(default=None, description="the step the final screening ranked second, with its reason in note")


class Attribution(BaseModel):
    schema_version: str = SCHEMA_VERSION
    case_id: str
    log_path: str | None = None
    method: str
    model: str
    demo_model: bool = Field(default=False, description="True when the answer comes from the embedded 135M demo model")
    with_ground_truth: bool = True
    status: Status = "ok"
    agent: str | None = None
    step: int | None = Field(default=None, description="0-based index into the log")
    step_source_id: str | None = Field(default=None, description="the source's own identifier for that step")
    reason: str | None = None
    step_excerpt: str | None = None
    error: str | None = Field(default=None, description="why status is 'invalid', 'error' or 'infrastructure_failure'")
    candidates: list[Candidate] = Field(default_factory=list)
    notices: list[str] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    calls: list[CallRecord] = Field(default_factory=list)
    confidence: Confidence | None = Field(default=None, description="CHIEF only: agreement with the whole-log reading, and the runner-up")
    handoffs: list[HandoffDecision] = Field(default_factory=list, description="CHIEF only: planner-or-executor decisions on adjacent candidates")
    details: dict[str, Any] = Field(default_factory=dict, description="method-specific evidence (e.g. CHIEF's graph)")
