"""Content rules of the OpenTelemetry reader: which spans are steps, their agent and their text.

See :mod:`attrib.readers.otel` for the rules in prose; this module applies them
to decoded :class:`Span` objects.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .. import jsonsafe
from .common import arguments_text, first_key, join_text, render_tool_call, text_of, tool_calls_of

AGENT_OPS = {"invoke_agent", "create_agent", "agent"}
ROLE_OF_OP = {"chat": "assistant", "text_completion": "assistant", "generate_content": "assistant",
              "invoke_agent": "assistant", "execute_tool": "tool"}
_KINDS = {"TOOL": "execute_tool", "AGENT": "invoke_agent", "LLM": "chat"}
_GENAI = re.compile(r"^(gen_ai\.|llm\.|openinference\.|input\.value$|output\.value$|tool\.name$)")
_FLAT_COMPLETION = re.compile(r"^gen_ai\.completion\.(\d+)\.(content|role|tool_calls\.(\d+)\.(name|arguments))$")
_FLAT_PROMPT = re.compile(r"^gen_ai\.prompt\.(\d+)\.(role|content)$")


@dataclass
class Span:
    """One span, decoded from either OTLP JSON or a flat span object."""

    span_id: str
    parent_id: str | None
    name: str
    start: int | None
    order: int
    attrs: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    error: str | None = None
    service: str | None = None
    trace_id: str | None = None

    @property
    def op(self) -> str:
        """``gen_ai.operation.name`` (lower case), or the OpenInference span kind mapped onto it."""
        op = self.attrs.get("gen_ai.operation.name")
        if isinstance(op, str) and op:
            return op.lower()
        if isinstance(self.attrs.get("llm.request.type"), str):
            return str(self.attrs["llm.request.type"]).lower()
        return _KINDS.get(str(self.attrs.get("openinference.span.kind", "")).upper(), "")

    @property
    def is_tool(self) -> bool:
        return self.op == "execute_tool" or any(k in self.attrs for k in ("gen_ai.tool.name", "tool.name"))

    @property
    def has_genai(self) -> bool:
        return any(_GENAI.match(k) for k in self.attrs) or any(n.startswith("gen_ai.") for n, _ in self.events)


def parse_json_text(value: Any) -> Any:
    """A JSON value held in a string attribute, parsed; other values unchanged."""
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            return jsonsafe.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def render_message(msg: Any) -> str:
    """One output message: semantic-convention ``parts`` or OpenAI-style ``content`` + ``tool_calls``."""
    msg = parse_json_text(msg)
    if not isinstance(msg, dict):
        return text_of(msg)
    if isinstance(msg.get("message"), dict):  # a choice wrapping its message
        return render_message(msg["message"])
    parts = msg.get("parts")
    if isinstance(parts, list):
        lines = []
        for part in parts:
            if isinstance(part, dict) and part.get("type") == "tool_call":
                lines.append(render_tool_call(str(part.get("name", "tool")), part.get("arguments")))
            elif isinstance(part, dict) and part.get("type") == "tool_call_response":
                lines.append(text_of(part.get("response")))
            else:
                lines.append(text_of(part))
        return join_text(*lines)
    calls = [render_tool_call(name, args) for _, name, args in tool_calls_of(msg)]
    return join_text(text_of(msg.get("content")), *calls)


def render_messages(value: Any) -> str:
    value = parse_json_text(value)
    if isinstance(value, list):
        return join_text(*(render_message(m) for m in value))
    return render_message(value)


def _flat_completion(attrs: dict[str, Any]) -> str:
    """OpenLLMetry-style ``gen_ai.completion.N.content`` / ``.tool_calls.M.name|arguments``."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        m = _FLAT_COMPLETION.match(key)
        if m:
            slot = found.setdefault(int(m.group(1)), {"calls": {}})
            if m.group(3) is not None:
                slot["calls"].setdefault(int(m.group(3)), {})[m.group(4)] = value
            else:
                slot[m.group(2)] = value
    lines = []
    for n in sorted(found):
        slot = found[n]
        lines.append(text_of(slot.get("content")))
        for c in sorted(slot["calls"]):
            call = slot["calls"][c]
            lines.append(render_tool_call(str(call.get("name", "tool")), call.get("arguments")))
    return join_text(*lines)


def _event_text(attrs: dict[str, Any]) -> str:
    """The message a ``gen_ai.choice``-like event carries, under any of the usual attribute names."""
    for key in ("message", "gen_ai.event.content", "content", "body", "gen_ai.output.messages"):
        if key in attrs:
            value = parse_json_text(attrs[key])
            if isinstance(value, dict) and key != "message" and not ({"content", "parts", "message", "tool_calls"} & set(value)):
                return text_of(value)
            return render_messages(value)
    return ""


def output_text(span: Span) -> str:
    """What an LLM or agent span produced (see :mod:`attrib.readers.otel`)."""
    a = span.attrs
    if a.get("gen_ai.output.messages") is not None:
        return render_messages(a["gen_ai.output.messages"])
    choices = [_event_text(attrs) for name, attrs in span.events if name == "gen_ai.choice"]
    if any(choices):
        return join_text(*choices)
    flat = _flat_completion(a)
    if flat:
        return flat
    return render_messages(first_key(a, ("gen_ai.completion", "gen_ai.response.text", "output.value")))


def tool_parts(span: Span) -> tuple[str, Any, str]:
    """``(tool name, arguments, result text)`` of a tool span."""
    a = span.attrs
    name = first_key(a, ("gen_ai.tool.name", "tool.name")) or re.sub(r"^execute_tool\s*", "", span.name) or "tool"
    args = first_key(a, ("gen_ai.tool.call.arguments", "tool.arguments", "tool.parameters", "input.value"))
    result = first_key(a, ("gen_ai.tool.call.result", "tool.result", "output.value"))
    if result is None:
        result = next((_event_text(attrs) for n, attrs in span.events if n == "gen_ai.tool.message"), None)
    return str(name), args, arguments_text(result)


def tool_text(span: Span) -> tuple[str, str]:
    """``(tool name, content)`` of a tool span: the call, then its result."""
    name, args, result_text = tool_parts(span)
    return name, join_text(render_tool_call(name, args), f"[tool result] {result_text}" if result_text else "")


def error_text(span: Span) -> str:
    lines = [f"[error] {span.error}"] if span.error else []
    for name, attrs in span.events:
        if name == "exception":
            kind = attrs.get("exception.type", "exception")
            lines.append(f"[exception] {kind}: {attrs.get('exception.message', '')}".rstrip(": "))
    return join_text(*lines)


def user_question(span: Span) -> str | None:
    """The first user message among the span's inputs, or None."""
    msgs = parse_json_text(span.attrs.get("gen_ai.input.messages"))
    if isinstance(msgs, list):
        for m in msgs:
            if isinstance(m, dict) and m.get("role") == "user":
                return render_message(m) or None
    for name, attrs in span.events:
        if name == "gen_ai.user.message":
            return _event_text(attrs) or None
    prompts: dict[int, dict[str, Any]] = {}
    for key, value in span.attrs.items():
        m = _FLAT_PROMPT.match(key)
        if m:
            prompts.setdefault(int(m.group(1)), {})[m.group(2)] = value
    for n in sorted(prompts):
        if prompts[n].get("role") == "user":
            return text_of(prompts[n].get("content")) or None
    return None


@dataclass
class PlannedStep:
    span: Span
    agent: str
    content: str
    role: str | None


@dataclass
class StepPlan:
    steps: list[PlannedStep]
    question: str | None
    by_id: dict[str, Span]

    def aliases(self, index_of: dict[str, int]) -> dict[str, int]:
        """Span ids that are not steps -> the first step below them (for labels naming a container)."""
        out: dict[str, int] = {}
        for planned in self.steps:
            for ancestor in _ancestors(planned.span, self.by_id):
                if ancestor.span_id not in index_of:
                    out.setdefault(ancestor.span_id.casefold(), index_of[planned.span.span_id])
        return out


def _ancestors(span: Span, by_id: dict[str, Span]) -> list[Span]:
    out, seen = [], {span.span_id}
    current = by_id.get(span.parent_id or "")
    while current is not None and current.span_id not in seen:
        out.append(current)
        seen.add(current.span_id)
        current = by_id.get(current.parent_id or "")
    return out


def agent_of(span: Span, by_id: dict[str, Span]) -> str:
    """``gen_ai.agent.name`` of the span or its nearest ancestor, else its service, else ``agent``."""
    for s in [span, *_ancestors(span, by_id)]:
        name = first_key(s.attrs, ("gen_ai.agent.name", "agent.name"))
        if isinstance(name, str) and name.strip():
            return name
    return span.service or "agent"


def step_spans(spans: list[Span]) -> StepPlan:
    """The spans that are steps, in start order, with agent, content and role."""
    by_id = {s.span_id: s for s in spans}
    ordered = sorted(spans, key=lambda s: (s.start is None, s.start or 0, s.order))
    content: dict[str, tuple[str, str | None]] = {}
    for s in ordered:
        if not s.has_genai:
            continue
        text = tool_text(s)[1] if s.is_tool else output_text(s)
        text = join_text(text, error_text(s))
        if text or s.is_tool:
            content[s.span_id] = (text, "tool" if s.is_tool else ROLE_OF_OP.get(s.op, "assistant"))
    below: set[str] = set()
    for sid in content:
        below.update(a.span_id for a in _ancestors(by_id[sid], by_id))
    question = next((q for q in (user_question(s) for s in ordered) if q), None)
    steps = [PlannedStep(s, agent_of(s, by_id), *content[s.span_id]) for s in ordered
             if s.span_id in content and not (s.op in AGENT_OPS and s.span_id in below)]
    return StepPlan(steps=steps, question=question, by_id=by_id)
