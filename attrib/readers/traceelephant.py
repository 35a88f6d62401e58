"""Reader for TraceElephant task folders.

A task folder holds ``trace_metadata.json`` (``task_instruction``, ``ground_truth``,
``mistake_agent``, ``mistake_step``, ``mistake_reason``?) and ``step_records.json``
(``[{"agent_name", "input", "output"}]``). The folder, or either of its two files, is one
case (see :mod:`attrib.readers.folders`); a ``step_records.json`` without its metadata
beside it is read alone, without a label.

- one step per record, in file order; agent: ``agent_name``; source id: the record's
  0-based position;
- content: the agent's output. An ``output`` written as the repr of a ``ChatCompletion(...)``
  object is decoded (:mod:`attrib.readers.completion_repr`): the message content and its
  tool calls. When the repr holds no readable message the raw text is shown after a
  ``[raw completion object: message not extracted]`` note, and the step is listed in
  ``metadata["raw_outputs"]``. An output given as JSON (``choices[0].message``) is read too;
- the ``input`` (the prompt the agent was given, which repeats the earlier outputs) is not
  shown; its size is kept in ``metadata["input_chars"]``;
- task: ``task_instruction``; ``ground_truth`` is the expected answer.

Label mapping: ``mistake_step`` is the 0-based position of the record in ``step_records``,
the Who&When convention TraceElephant builds on (it is matched against the source ids, which
are those positions); ``mistake_agent`` is the gold agent.
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..trajectory import Trajectory
from .common import (
    StepBuilder,
    guarded,
    join_text,
    render_tool_call,
    safe_detect,
    text_of,
    tool_calls_of,
)
from .completion_repr import is_completion_repr, message_of
from .document import Document
from .labels import build_trajectory
from .source import records, structure_reason

NAME = "traceelephant"
RAW_NOTE = "[raw completion object: message not extracted]"


def _is_record(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("agent_name"), str) and "output" in item


def _parts(value: Any) -> tuple[dict[str, Any], list[dict[str, Any]]] | str:
    meta: Any = {}
    if isinstance(value, dict) and "step_records" in value:
        meta, value = value.get("trace_metadata") or {}, value["step_records"]
        if not isinstance(meta, dict):
            return "trace_metadata.json is not a JSON object"
    if not isinstance(value, list):
        return "no task folder (trace_metadata.json + step_records.json) and no list of step records"
    if not value:
        return "empty step records"
    for i, item in enumerate(value):
        if not _is_record(item):
            return f"step record {i} has no 'agent_name' and 'output'"
    return meta, value


@safe_detect
def detect(doc: Document) -> str | None:
    """None for a TraceElephant task folder (or its step records), else why not."""
    return structure_reason(doc, _parts)


def output_text(output: Any) -> tuple[str, bool]:
    """``(text, extracted)`` of a record's output; ``extracted`` is False when a repr could not be decoded."""
    if isinstance(output, dict) and isinstance(output.get("choices"), list) and output["choices"]:
        choice = output["choices"][0]
        msg = choice.get("message") if isinstance(choice, dict) else None
        if isinstance(msg, dict):
            calls = [render_tool_call(name, args) for _, name, args in tool_calls_of(msg)]
            return join_text(text_of(msg.get("content")), *calls), True
    text = text_of(output)
    if not is_completion_repr(text):
        return text, True
    message = message_of(text)
    if message is None:
        return join_text(RAW_NOTE, text), False
    return message, True


@guarded(NAME)
def read(doc: Document) -> Trajectory:
    value = records(doc)
    found = _parts(value) if value is not None else "not JSON"
    if isinstance(found, str):
        raise InputError(doc.path, f"not a TraceElephant task: {found}")
    meta, items = found
    builder = StepBuilder()
    raw: list[int] = []
    input_chars = 0
    for pos, item in enumerate(items):
        text, ok = output_text(item.get("output"))
        step = builder.add(item["agent_name"], text, str(pos), "assistant")
        if not ok:
            raw.append(step.index)
        input_chars += len(text_of(item.get("input")))
    extra: dict[str, Any] = {"input_chars": input_chars}
    if raw:
        extra["raw_outputs"] = raw
    fields = dict(meta)
    instruction = fields.pop("task_instruction", None)
    return build_trajectory(doc, NAME, builder.steps, builder.truncated, fields,
                            question=instruction if isinstance(instruction, str) else None, extra=extra)
