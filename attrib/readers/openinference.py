"""Reader for OpenInference span trees, as the TRAIL benchmark publishes its traces.

Shape: ``{"trace_id", "spans": [{"span_id", "span_name", "timestamp", "status_code",
"status_message", "span_attributes": {...}, "logs": [...], "child_spans": [...]}], "errors"?: [...]}``
(one object, or a one-line JSON Lines file). Attributes follow OpenInference:
``openinference.span.kind`` (AGENT, CHAIN, LLM, TOOL, RETRIEVER, ...), ``llm.output_messages``
(nested, or flattened as ``llm.output_messages.N.message.content`` and
``...message.tool_calls.M.tool_call.function.name|arguments``), ``llm.input_messages``,
``llm.model_name``, ``tool.name``, ``input.value``/``output.value``.

The tree is walked in time order (children sorted by start ``timestamp``/``start_time``, file
order on ties):

- an LLM span is one step: its output messages (tool calls rendered), else its ``output.value``;
  agent: the name of the nearest AGENT ancestor (``agent.name`` attribute, else the span name
  without ``.run``/``.__call__``), else of the nearest CHAIN ancestor that is not a numbered
  ``Step N``, else ``agent``; source id: the span id;
- a TOOL (or RETRIEVER/EMBEDDING/RERANKER) span is the environment: its ``output.value`` is folded
  into the latest step of the agent that called it (``StepBuilder.observe``), its span id kept in
  that step's ``observation_ids``; a tool span that holds LLM spans (an agent called as a tool) is
  a container instead; a tool span with no step before it becomes a step of its agent;
- AGENT and CHAIN spans are containers; one with no LLM or tool span below it and an
  ``output.value`` is a step of its own;
- a span with ``status_code`` ``Error`` adds ``[error] STATUS_MESSAGE`` to its step (or fold);
- ``logs`` are not read; the task is the root agent's ``input.value`` (its ``task`` field when it
  is JSON), else the first user message of an LLM span's input messages.

Labels: TRAIL's ``errors: [{location, category, evidence, description, impact}]`` (in the trace
object). ``location`` is a span id and maps to the step that span produced; a label on a folded
tool span maps to the step whose action called the tool (TRAIL puts API and tool failures on the
TOOL span; our unit is the agent step that made the call), a label on a container to the first
step below it. The decisive error is the earliest (by step) with impact ``HIGH``, else the
earliest; its ``category`` and evidence are the gold reason. A location that is not a span of the
trace is an error of the file. TRAIL ships its annotations (``{trace_id, errors, scores}``) as
separate files: give them with ``--labels FILE`` (:mod:`attrib.readers.label_file`, which maps
them with :func:`gold_from_errors` over :meth:`Tree.span_steps`), merge ``errors`` into the trace
object, or call :func:`read_tree` with them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import jsonsafe
from ..agents import agent_key
from ..errors import InputError
from ..trajectory import GoldLabel, Step, Trajectory
from .common import (
    StepBuilder,
    as_dict,
    guarded,
    join_text,
    render_tool_call,
    safe_detect,
    scalar_id,
    text_of,
    tool_calls_of,
)
from .document import Document
from .labels import build_trajectory
from .otel import to_ns
from .source import records, structure_reason

NAME = "openinference"
ALIASES = ("trail",)
TOOL_KINDS = frozenset({"TOOL", "RETRIEVER", "EMBEDDING", "RERANKER"})
CONTAINER_KINDS = frozenset({"AGENT", "CHAIN"})
_STEP_NAME = re.compile(r"^\s*step\s*\d+\s*$", re.IGNORECASE)
_FLAT_OUT = re.compile(r"^llm\.output_messages\.(\d+)\.message\.(role|content|tool_calls\.(\d+)\.tool_call\.function\."
                       r"(name|arguments))$")
_FLAT_IN = re.compile(r"^llm\.input_messages\.(\d+)\.message\.(role|content)$")


@dataclass
class Node:
    span_id: str
    name: str
    kind: str
    attrs: dict[str, Any]
    error: str | None
    start: tuple[bool, int, int]
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    has_llm: bool = False  # an LLM span somewhere below this one

    def subtree(self) -> list[Node]:
        out, stack = [], [self]
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(node.children))
        return out


def _is_tree(value: Any) -> tuple[dict[str, Any], list[Any]] | str:
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if not isinstance(value, dict) or not isinstance(value.get("spans"), list):
        return "no object with a 'spans' list"
    spans = value["spans"]
    if not spans:
        return "empty 'spans'"
    if not all(isinstance(s, dict) and "span_id" in s for s in spans):
        return "a span has no 'span_id'"
    if not any(("child_spans" in s or "span_attributes" in s) for s in spans):
        return "spans carry no 'child_spans' or 'span_attributes' (not an OpenInference tree)"
    return value, spans


@safe_detect
def detect(doc: Document) -> str | None:
    """None for an OpenInference/TRAIL span tree, else why not."""
    return structure_reason(doc, _is_tree)


def _build(raw: dict[str, Any], parent: Node | None, counter: list[int]) -> Node:
    attrs = as_dict(raw.get("span_attributes")) or as_dict(raw.get("attributes"))
    status = str(raw.get("status_code") or "").strip().upper()
    error = None
    if status in ("ERROR", "STATUS_CODE_ERROR", "2"):
        error = str(raw.get("status_message") or "span status ERROR")
    start = to_ns(raw.get("timestamp") or raw.get("start_time"))
    counter[0] += 1
    node = Node(span_id=str(scalar_id(raw.get("span_id")) or f"#{counter[0]}"), name=str(raw.get("span_name") or ""),
                kind=str(attrs.get("openinference.span.kind") or "").upper(), attrs=attrs, error=error,
                start=(start is None, start or 0, counter[0]), parent=parent)
    kids = [c for c in raw.get("child_spans") or [] if isinstance(c, dict)]
    node.children = sorted((_build(c, node, counter) for c in kids), key=lambda n: n.start)
    node.has_llm = any(c.kind == "LLM" or c.has_llm for c in node.children)
    return node


def _json(value: Any) -> Any:
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        try:
            return jsonsafe.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _message_text(msg: Any) -> str:
    msg = _json(msg)
    if not isinstance(msg, dict):
        return text_of(msg)
    inner = as_dict(msg.get("message")) or msg
    flat = {k.removeprefix("message."): v for k, v in inner.items()}
    calls = [render_tool_call(name, args) for _, name, args in tool_calls_of(flat)]
    for call in flat.get("tool_calls") or []:
        if isinstance(call, dict) and isinstance(call.get("tool_call.function.name"), str):
            calls.append(render_tool_call(call["tool_call.function.name"], call.get("tool_call.function.arguments")))
    return join_text(text_of(flat.get("content")), *calls)


def llm_output(attrs: dict[str, Any]) -> str:
    """An LLM span's output: nested or flattened ``llm.output_messages``, else ``output.value``."""
    nested = _json(attrs.get("llm.output_messages"))
    if isinstance(nested, list) and nested:
        return join_text(*(_message_text(m) for m in nested))
    slots: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        m = _FLAT_OUT.match(key)
        if m:
            slot = slots.setdefault(int(m.group(1)), {"calls": {}})
            if m.group(3) is not None:
                slot["calls"].setdefault(int(m.group(3)), {})[m.group(4)] = value
            else:
                slot[m.group(2)] = value
    if slots:
        lines = []
        for n in sorted(slots):
            lines.append(text_of(slots[n].get("content")))
            for c in sorted(slots[n]["calls"]):
                call = slots[n]["calls"][c]
                lines.append(render_tool_call(str(call.get("name", "tool")), call.get("arguments")))
        return join_text(*lines)
    return _message_text(attrs.get("output.value"))


def _user_input(attrs: dict[str, Any]) -> str | None:
    nested = _json(attrs.get("llm.input_messages"))
    msgs: list[tuple[Any, Any]] = []
    if isinstance(nested, list):
        for m in nested:
            inner = m.get("message", m) if isinstance(m, dict) else {}
            msgs.append((inner.get("message.role", inner.get("role")), inner.get("message.content", inner.get("content"))))
    else:
        found: dict[int, dict[str, Any]] = {}
        for key, value in attrs.items():
            m = _FLAT_IN.match(key)
            if m:
                found.setdefault(int(m.group(1)), {})[m.group(2)] = value
        msgs = [(found[n].get("role"), found[n].get("content")) for n in sorted(found)]
    return next((text_of(c) for r, c in msgs if r == "user" and text_of(c).strip()), None)


def _question(roots: list[Node]) -> str:
    for root in roots:
        for node in root.subtree():
            if node.kind == "AGENT" and node.attrs.get("input.value") is not None:
                value = _json(node.attrs["input.value"])
                task = value.get("task") if isinstance(value, dict) else None
                if isinstance(task, str):
                    return task
                if isinstance(value, str) and value.strip():
                    return value
    for root in roots:
        for node in root.subtree():
            if node.kind == "LLM" and (q := _user_input(node.attrs)):
                return q
    return ""


def agent_of(node: Node) -> str:
    """The owning agent's name (see the module docstring)."""
    chain = None
    current = node if node.kind == "AGENT" else node.parent
    while current is not None:
        if current.kind == "AGENT":
            return _agent_name(current)
        if current.kind == "CHAIN" and chain is None and current.name and not _STEP_NAME.match(current.name):
            chain = current.name
        current = current.parent
    return chain or "agent"


def _agent_name(node: Node) -> str:
    for key in ("agent.name", "gen_ai.agent.name", "smolagents.name"):
        name = node.attrs.get(key)
        if isinstance(name, str) and name.strip():
            return name.strip()
    return re.sub(r"\.(run|__call__|invoke|ainvoke|arun)$", "", node.name) or "agent"


class Walk:
    """Builds the steps from the ordered tree; records which step each span ended up in."""

    def __init__(self) -> None:
        self.builder = StepBuilder()
        self.step_of: dict[str, int] = {}

    def visit(self, node: Node) -> None:
        if node.kind == "LLM":
            self._add(node, agent_of(node), llm_output(node.attrs))
        elif node.kind in TOOL_KINDS and not node.has_llm:
            self._tool(node)
        elif node.kind in CONTAINER_KINDS and not node.children and node.attrs.get("output.value") is not None:
            self._add(node, agent_of(node), _message_text(node.attrs["output.value"]))
        for child in node.children:
            self.visit(child)

    def _add(self, node: Node, agent: str, text: str) -> None:
        text = join_text(text, f"[error] {node.error}" if node.error else "")
        step = self.builder.add(agent, text, node.span_id, "tool" if node.kind in TOOL_KINDS else "assistant",
                                node.parent.span_id if node.parent else None)
        self.step_of[node.span_id] = step.index

    def _tool(self, node: Node) -> None:
        name = str(node.attrs.get("tool.name") or node.name or "tool")
        result = join_text(text_of(_json(node.attrs.get("output.value"))), f"[error] {node.error}" if node.error else "")
        agent = agent_of(node)
        into = next((s.index for s in reversed(self.builder.steps) if agent_key(s.agent) == agent_key(agent)), None)
        folded = self.builder.observe(result, node.span_id, name, into=into) if into is not None else None
        if folded is not None:
            self.step_of[node.span_id] = folded.index
            return
        args = node.attrs.get("tool.parameters", node.attrs.get("input.value"))
        self._add(node, agent, join_text(render_tool_call(name, args), f"[tool result] {result}" if result else ""))


def gold_from_errors(errors: list[Any], walk_index: dict[str, int], steps: list[Step],
                     path: str | Path | None) -> tuple[GoldLabel, dict[str, Any]]:
    """The decisive error's label and its metadata (see the module docstring)."""
    mapped = []
    for n, err in enumerate(errors):
        if not isinstance(err, dict):
            raise InputError(path, f"error annotation {n} is not an object")
        loc = scalar_id(err.get("location"))
        if loc is None or loc not in walk_index:
            raise InputError(path, f"error annotation {n}: location {err.get('location')!r} is not a span of this trace "
                                   "that produced or fed a step")
        mapped.append((walk_index[loc], n, err))
    high = [m for m in mapped if str(m[2].get("impact", "")).strip().upper() == "HIGH"]
    index, _, err = min(high or mapped)
    category = str(err.get("category") or "").strip()
    evidence = str(err.get("evidence") or err.get("description") or "").strip()
    reason = ": ".join(p for p in (category, evidence) if p) or None
    meta = {"annotated_errors": len(errors), "gold_location": str(err.get("location")), "gold_category": category,
            "gold_impact": str(err.get("impact") or "")}
    return GoldLabel(agent=steps[index].agent, step=index, reason=reason), meta


def _span_index(roots: list[Node], step_of: dict[str, int]) -> dict[str, int]:
    """Every span id -> the step it produced or fed, for a container the first step below it."""
    out: dict[str, int] = {}

    def first(node: Node) -> int | None:
        hits = [h for h in (first(c) for c in node.children) if h is not None]
        own = step_of.get(node.span_id)
        found = own if own is not None else min(hits) if hits else None
        if found is not None:
            out[node.span_id] = found
        return found

    for root in roots:
        first(root)
    return out


@dataclass
class Tree:
    """A read trace: its object, its ordered roots, the walk that built the steps, and the span count."""

    obj: dict[str, Any]
    roots: list[Node]
    walk: Walk
    spans: int

    def span_steps(self) -> dict[str, int]:
        """Every span id -> the step it produced or fed, for a container the first step below it."""
        return _span_index(self.roots, self.walk.step_of)


def read_spans(doc: Document) -> Tree:
    """Build the tree of ``doc`` and walk it (InputError when it is not an OpenInference span tree)."""
    value = records(doc)
    found = _is_tree(value) if value is not None else "not JSON or JSON Lines"
    if isinstance(found, str):
        raise InputError(doc.path, f"not an OpenInference span tree: {found}")
    obj, spans = found
    counter = [0]
    roots = sorted((_build(s, None, counter) for s in spans), key=lambda n: n.start)
    walk = Walk()
    for root in roots:
        walk.visit(root)
    return Tree(obj, roots, walk, counter[0])


@guarded(NAME)
def read(doc: Document) -> Trajectory:
    return read_tree(doc)


def read_tree(doc: Document, errors: list[Any] | None = None) -> Trajectory:
    """The trajectory of ``doc``, labelled by ``errors`` (TRAIL annotations kept in another file)
    when given, else by the trace object's own ``errors``."""
    tree = read_spans(doc)
    steps, truncated = tree.walk.builder.steps, tree.walk.builder.truncated
    meta = {k: v for k, v in tree.obj.items() if k not in ("spans", "errors")}
    extra: dict[str, Any] = {"spans": tree.spans, "folded_spans": len(tree.walk.step_of) - len(steps),
                             "skipped_spans": tree.spans - len(tree.walk.step_of)}
    traj = build_trajectory(doc, NAME, steps, truncated, {"question": _question(tree.roots), **meta}, extra=extra)
    if errors is None:
        own = tree.obj.get("errors")
        errors = own if isinstance(own, list) else None
    if errors:
        gold, gold_meta = gold_from_errors(errors, tree.span_steps(), traj.steps, doc.path)
        traj = traj.model_copy(update={"gold": gold, "metadata": {**traj.metadata, **gold_meta}})
    return traj
