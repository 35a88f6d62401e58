"""Reader for OpenTelemetry traces of agent runs (GenAI semantic conventions).

Accepted shapes:

- OTLP JSON: ``{"resourceSpans": [{"resource": {"attributes": [...]}, "scopeSpans":
  [{"spans": [...]}]}]}`` (``instrumentationLibrarySpans`` too), or JSON Lines of such
  objects as the OTLP file exporter writes them; attributes are key/value lists
  with ``stringValue``/``intValue``/``doubleValue``/``boolValue``/``arrayValue``/``kvlistValue``;
- flat span lists: a JSON list (or JSON Lines, or an object's ``spans``/``data``)
  of span objects, e.g. as the SDK console exporter writes them: ids under
  ``spanId``/``span_id``/``context.span_id`` (a ``0x`` prefix is dropped), parent
  under ``parentSpanId``/``parent_span_id``/``parent_id``/``parentId``, start under
  ``startTimeUnixNano``/``start_time`` (ISO 8601 or epoch s/ms/us/ns)/``startTime``/
  ``timestamp``; attributes as an object or a key/value list.

What is read (the rest of a span is ignored):

- order: by start time (file order on ties);
- agent: ``gen_ai.agent.name`` on the span or its nearest ancestor, else the resource's
  ``service.name``;
- kind: ``gen_ai.operation.name`` (``invoke_agent``, ``chat``, ``execute_tool``, ...)
  or OpenInference's ``openinference.span.kind``;
- tool spans (``execute_tool``, or a ``gen_ai.tool.name``/``tool.name``) are the environment,
  not steps: their result (``gen_ai.tool.call.result``, else ``output.value``) and errors are
  folded into the latest step of the calling agent (the span's or an ancestor's) as
  ``[tool result NAME] RESULT`` (``StepBuilder.observe``; the span id goes to the step's
  ``observation_ids``, and a label naming it is an error). A tool span before any step of its
  agent stays a step: ``[tool call NAME] ARGUMENTS`` then ``[tool result] RESULT``;
- other spans: their output, from ``gen_ai.output.messages`` (parts or OpenAI-style
  messages, tool calls rendered), else ``gen_ai.choice`` events, else flattened
  ``gen_ai.completion.N.content``/``.tool_calls.M.name|arguments``, else
  ``gen_ai.completion``/``output.value``;
- errors: ``[error] ...`` for a span with error status, ``[exception] ...`` per exception event;
- question: the first user message among ``gen_ai.input.messages``,
  ``gen_ai.user.message`` events and ``gen_ai.prompt.N.*`` (input messages are
  otherwise not shown, they repeat the conversation).

A span becomes a step when it carries GenAI data (``gen_ai.*``, ``llm.*``,
OpenInference attributes or events) and has content, except an agent span
(``invoke_agent``/``create_agent``/AGENT) with such spans below it: it is a container.
Source id: the span id; parent id: the parent span id, kept even when the parent
is not a step. Labels may name a span that is not a step: they map to the first
step below it. Metadata of an OTLP object (or a JSON Lines header) may carry labels.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from ..agents import agent_key
from ..errors import InputError
from ..trajectory import Step, Trajectory
from .common import StepBuilder, as_dict, first_key, guarded, join_text, safe_detect
from .document import Document
from .labels import build_trajectory
from .otel_content import PlannedStep, Span, error_text, step_spans, tool_parts
from .source import find_list, records, split_header, structure_reason

NAME = "otel"


# ---- decoding -----------------------------------------------------------------------------------

def any_value(v: Any) -> Any:
    """An OTLP AnyValue (``{"stringValue": ...}``) as a plain value; plain values pass through."""
    if not isinstance(v, dict) or len(v) != 1:
        return v
    (kind, inner), = v.items()
    if kind == "intValue":
        return int(inner)
    if kind == "arrayValue":
        return [any_value(x) for x in (inner or {}).get("values", [])]
    if kind == "kvlistValue":
        return attributes((inner or {}).get("values", []))
    if kind in ("stringValue", "doubleValue", "boolValue", "bytesValue"):
        return inner
    return v


def attributes(raw: Any) -> dict[str, Any]:
    """Attributes given as an OTLP key/value list or as an object."""
    if isinstance(raw, dict):
        return dict(raw)
    out: dict[str, Any] = {}
    for kv in raw or []:
        if isinstance(kv, dict) and isinstance(kv.get("key"), str):
            out[kv["key"]] = any_value(kv.get("value"))
    return out


def _id(value: Any) -> str | None:
    if value is None or value == "":
        return None
    s = str(value).strip()
    return s[2:] if s.lower().startswith("0x") else s


def to_ns(value: Any) -> int | None:
    """A start time as epoch nanoseconds: integers by magnitude (s, ms, us, ns) or ISO 8601."""
    if isinstance(value, str) and re.fullmatch(r"\d+(\.\d+)?", value.strip()):
        value = float(value) if "." in value else int(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        for bound, scale in ((1e17, 1), (1e14, 1_000), (1e11, 1_000_000)):
            if value >= bound:
                return int(value * scale)
        return int(value * 1_000_000_000)
    if isinstance(value, str):
        m = re.fullmatch(r"(.+?T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)?", value.strip())
        if m:
            tz = m.group(3) or "+00:00"
            base = datetime.fromisoformat(m.group(1) + ("+00:00" if tz == "Z" else tz))
            if base.tzinfo is None:
                base = base.replace(tzinfo=UTC)
            frac = int((m.group(2) or "0")[:9].ljust(9, "0"))
            return int(base.timestamp()) * 1_000_000_000 + frac
    return None


def _status_error(raw: dict[str, Any]) -> str | None:
    status = raw.get("status")
    if not isinstance(status, dict):
        return None
    code = str(first_key(status, ("code", "status_code", "statusCode")) or "").upper()
    if code in ("2", "STATUS_CODE_ERROR", "ERROR"):
        return str(first_key(status, ("message", "description")) or "span status ERROR")
    return None


def make_span(raw: dict[str, Any], order: int, service: str | None = None) -> Span:
    ctx = as_dict(raw.get("context"))
    attrs = attributes(raw.get("attributes"))
    attrs.update(attributes(raw.get("tags")) if isinstance(raw.get("tags"), dict) else {})
    resource = as_dict(raw.get("resource"))
    service = (attributes(resource.get("attributes")).get("service.name") or service
               or as_dict(raw.get("localEndpoint")).get("serviceName") or attrs.get("service.name"))
    events = [(str(e.get("name", "")), attributes(e.get("attributes"))) for e in raw.get("events") or []
              if isinstance(e, dict)]
    return Span(
        span_id=_id(first_key(raw, ("spanId", "span_id")) or ctx.get("span_id") or raw.get("id")) or f"#{order}",
        parent_id=_id(first_key(raw, ("parentSpanId", "parent_span_id", "parent_id", "parentId"))),
        name=str(first_key(raw, ("name", "operationName")) or ""),
        start=to_ns(first_key(raw, ("startTimeUnixNano", "start_time_unix_nano", "start_time", "startTime",
                                    "timestamp"))),
        order=order,
        attrs=attrs,
        events=events,
        error=_status_error(raw),
        service=str(service) if service else None,
        trace_id=_id(first_key(raw, ("traceId", "trace_id")) or ctx.get("trace_id")),
    )


def is_span(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    ctx = as_dict(item.get("context"))
    has_id = any(k in item for k in ("spanId", "span_id")) or "span_id" in ctx
    has_more = any(k in item for k in ("traceId", "trace_id", "startTimeUnixNano", "start_time")) or "trace_id" in ctx
    return has_id and has_more


def _otlp_batches(value: Any) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    if isinstance(value, dict) and isinstance(value.get("resourceSpans"), list):
        return {k: v for k, v in value.items() if k != "resourceSpans"}, [value]
    if isinstance(value, list) and value:
        header, batches = split_header(value, lambda x: isinstance(x, dict) and "resourceSpans" in x)
        if batches and all(isinstance(b, dict) and isinstance(b.get("resourceSpans"), list) for b in batches):
            return header, batches
    return None


def collect(value: Any) -> tuple[dict[str, Any], list[Span]] | str:
    """``(metadata, spans in file order)`` or the reason ``value`` holds no trace."""
    otlp = _otlp_batches(value)
    if otlp is not None:
        meta, batches = otlp
        spans: list[Span] = []
        for batch in batches:
            for rs in batch["resourceSpans"]:
                service = attributes((rs.get("resource") or {}).get("attributes")).get("service.name")
                for ss in rs.get("scopeSpans") or rs.get("instrumentationLibrarySpans") or []:
                    for raw in ss.get("spans") or []:
                        spans.append(make_span(raw, len(spans), service))
        return (meta, spans) if spans else "OTLP object without spans"
    found = find_list(value, ("spans", "data"))
    if found is not None:
        meta, items = found
        header, items = split_header(items, is_span)
        if items and all(is_span(x) for x in items):
            return {**meta, **header}, [make_span(raw, i) for i, raw in enumerate(items)]
    return "no 'resourceSpans' and no list of spans (spanId/span_id with a trace id or start time)"


@safe_detect
def detect(doc: Document) -> str | None:
    """None for an OpenTelemetry trace, else why not."""
    return structure_reason(doc, collect)


def _fold_tool(builder: StepBuilder, item: PlannedStep) -> Step | None:
    """Fold a tool span's result into its calling agent's latest step; None when that agent has no step yet."""
    into = next((s.index for s in reversed(builder.steps) if agent_key(s.agent) == agent_key(item.agent)), None)
    if into is None:
        return None
    name, _, result = tool_parts(item.span)
    return builder.observe(join_text(result, error_text(item.span)), item.span.span_id, name, into=into)


@guarded(NAME)
def read(doc: Document) -> Trajectory:
    value = records(doc)
    found = collect(value) if value is not None else "not JSON or JSON Lines"
    if isinstance(found, str):
        raise InputError(doc.path, f"not an OpenTelemetry trace: {found}")
    meta, spans = found
    plan = step_spans(spans)
    builder = StepBuilder()
    index_of: dict[str, int] = {}
    for item in plan.steps:
        folded = _fold_tool(builder, item) if item.role == "tool" else None
        step = folded or builder.add(item.agent, item.content, item.span.span_id, item.role, item.span.parent_id)
        index_of[item.span.span_id] = step.index
    aliases = plan.aliases(index_of)
    traces = sorted({s.trace_id for s in spans if s.trace_id})
    extra: dict[str, Any] = {"spans": len(spans), "skipped_spans": len(spans) - len(plan.steps),
                             "folded_spans": len(plan.steps) - len(builder.steps)}
    if traces:
        extra["trace_id" if len(traces) == 1 else "trace_ids"] = traces[0] if len(traces) == 1 else traces
    return build_trajectory(doc, NAME, builder.steps, builder.truncated, meta, question=plan.question,
                            aliases=aliases, extra=extra)
