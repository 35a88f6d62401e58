"""Reader for per-step histories with agent names (AG2/AutoGen, CrewAI, MetaGPT-style exports).

Accepted shapes: a JSON list (or JSON Lines, optionally after one header record)
of step objects, or an object holding them under ``messages``, ``steps``,
``history``, ``chat_history``, ``tasks_output``, ``turns``, ``trajectory``,
``rounds``, ``log``, ``logs``, ``events``, ``storage`` or ``conversation``, at
the top level or one object down (MetaGPT's ``{"memory": {"storage": [...]}}``).
The other fields of that object are metadata (question, labels).

A step object needs an agent and a content:

- agent label, first found: ``agent``, ``agent_name``, ``name``, ``sender``,
  ``speaker``, ``source``, ``from`` (a string, or an object's ``role``/``name``,
  as CrewAI writes agents); then ``role`` unless it is a generic chat role; then
  MetaGPT's ``sent_from`` (last dotted part); then the generic ``role``;
- content, first found: ``content``, ``message``, ``text``, ``output``, ``raw``,
  ``response``, ``result`` (a string, a list of parts, or any JSON value). Around it:
  a ``thought`` line before; MetaGPT's ``cause_by`` as ``[action WritePRD]`` and a
  CrewAI task's ``description`` as ``[task] ...`` first; tool calls
  (``tool_calls``/``function_call``, CrewAI's ``tool`` + ``tool_input``, AutoGen's
  ``ToolCallRequestEvent`` items) as ``[tool call NAME] ARGUMENTS`` lines; and a
  CrewAI ``result``/``observation`` after its tool call;
- source id: ``step``, ``index``, ``idx``, ``turn``, ``round``, ``step_id``, ``id``,
  ``message_id`` (kept as written), else the 0-based position. When every step has
  a numeric ``step``, steps are ordered by it (stable), else kept in file order;
- parent id: ``parent_id`` when given.

Tool results are not steps (the environment is not an agent): an AG2/AutoGen ``tool`` or
``function`` message (``tool_call_id``, or AG2's ``tool_responses``) and an AutoGen
``ToolCallExecutionEvent`` are folded into the step whose call they answer, matched by call id,
else into the latest step (:func:`attrib.readers.chat.fold_result`); their source ids go to that
step's ``observation_ids``. So AG2's executor agent, which only relays tool responses, does not
appear as an agent; an agent that speaks with another role (e.g. a code executor replying as
``user`` with ``exitcode: 0 ...``) stays an agent, as Who&When keeps ``Computer_terminal``.

The question is the metadata's question field, else the first step's content
when it comes from a user-like agent (user, human, admin, user_proxy, customer)
or a MetaGPT ``UserRequirement``.
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..trajectory import Trajectory
from .chat import ROLES, ToolCalls, fold_result
from .common import StepBuilder, first_key, guarded, join_text, render_tool_call, safe_detect, scalar_id, text_of
from .document import Document
from .labels import build_trajectory
from .source import item_list

NAME = "history"

LIST_KEYS = ("messages", "steps", "history", "chat_history", "tasks_output", "turns", "trajectory", "rounds",
             "log", "logs", "events", "storage", "conversation")
AGENT_KEYS = ("agent", "agent_name", "name", "sender", "speaker", "source", "from")
CONTENT_KEYS = ("content", "message", "text", "output", "raw", "response", "result")
ID_KEYS = ("step", "index", "idx", "turn", "round", "step_id", "id", "message_id")
GENERIC_ROLES = ROLES | {"human", "ai", "model", "bot"}
USER_LIKE = {"user", "human", "admin", "userproxy", "user_proxy", "customer", "client"}


def agent_label(item: dict[str, Any]) -> str | None:
    """The raw agent label of a step object (see the module docstring), or None."""
    for key in AGENT_KEYS:
        value = item.get(key)
        if isinstance(value, dict):
            value = first_key(value, ("role", "name"))
        if isinstance(value, str) and value.strip():
            return value
    role = item.get("role")
    if isinstance(role, str) and role.strip() and role.strip().lower() not in GENERIC_ROLES:
        return role
    sent = item.get("sent_from")
    if isinstance(sent, str) and sent.strip():
        return sent.strip().rsplit(".", 1)[-1]
    return role if isinstance(role, str) and role.strip() else None


def is_step(item: Any) -> bool:
    if not isinstance(item, dict) or agent_label(item) is None:
        return False
    return any(k in item for k in CONTENT_KEYS) or any(k in item for k in ("tool_calls", "tool", "thought"))


def _items(doc: Document) -> tuple[dict[str, Any], list[dict[str, Any]]] | str:
    return item_list(doc, LIST_KEYS, is_step, missing="no list of agent steps", empty="empty list of steps",
                     bad_item="item {i} has no agent name ('name', 'agent', 'role', ...) with a content")


@safe_detect
def detect(doc: Document) -> str | None:
    """None when ``doc`` is a list of named agent steps, else why not."""
    found = _items(doc)
    return found if isinstance(found, str) else None


def source_id(item: dict[str, Any], position: int) -> str:
    for key in ID_KEYS:
        sid = scalar_id(item.get(key))
        if sid is not None:
            return sid
    return str(position)


def _ordered(items: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """``(position, item)`` pairs, sorted by a numeric ``step`` when every item has one."""
    pairs = list(enumerate(items))
    steps = [it.get("step") for it in items]
    if all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in steps):
        pairs.sort(key=lambda p: p[1]["step"])
    return pairs


def _autogen_request(item: dict[str, Any], calls: ToolCalls, sid: str, step: int) -> str | None:
    """The rendered calls of an AutoGen ``ToolCallRequestEvent`` (content: a list of calls), else None."""
    parts = item.get("content")
    if item.get("type") != "ToolCallRequestEvent" or not isinstance(parts, list):
        return None
    msg = {"tool_calls": [{"id": p.get("id"), "function": p} for p in parts if isinstance(p, dict)]}
    return join_text(*calls.record(msg, sid, step))


def tool_result(item: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    """``(message for ToolCalls.result, text)`` when ``item`` is a tool result, else None.

    Tool results are AG2/AutoGen ``tool``/``function`` messages (the call id in ``tool_call_id`` or
    in the first of AG2's ``tool_responses``) and AutoGen ``ToolCallExecutionEvent`` items (a list
    of ``{call_id, content}`` results).
    """
    parts = item.get("content")
    if str(item.get("type", "")) == "ToolCallExecutionEvent" and isinstance(parts, list):
        texts = [text_of(p.get("content")) if isinstance(p, dict) else text_of(p) for p in parts]
        first = next((p for p in parts if isinstance(p, dict)), {})
        return {"role": "tool", "tool_call_id": first.get("call_id"), "name": first.get("name")}, join_text(*texts)
    role = item.get("role")
    if not isinstance(role, str) or role.lower() not in ("tool", "function"):
        return None
    call_id = item.get("tool_call_id")
    responses = item.get("tool_responses")
    if call_id is None and isinstance(responses, list) and responses and isinstance(responses[0], dict):
        call_id = responses[0].get("tool_call_id")
    message = {"role": role.lower(), "tool_call_id": call_id, "name": item.get("name")}
    return message, text_of(first_key(item, CONTENT_KEYS))


def _content(item: dict[str, Any], calls: ToolCalls, sid: str, step: int) -> str:
    """The content of one step object (``step``: the index it will get)."""
    request = _autogen_request(item, calls, sid, step)
    if request is not None:
        return request
    head: list[str] = []
    cause = item.get("cause_by")
    if isinstance(cause, str) and cause.strip():
        head.append(f"[action {cause.strip().rsplit('.', 1)[-1]}]")
    if isinstance(item.get("description"), str) and item["description"].strip():
        head.append(f"[task] {item['description'].strip()}")
    if isinstance(item.get("thought"), str):
        head.append(item["thought"])
    tool = item.get("tool")
    if isinstance(tool, str) and tool.strip() and "tool_input" in item:
        after = text_of(first_key(item, ("result", "observation", "output")))
        return join_text(*head, render_tool_call(tool.strip(), item.get("tool_input")), after)
    main = text_of(first_key(item, CONTENT_KEYS))
    return join_text(*head, main, *calls.record(item, sid, step))


def _question(items: list[dict[str, Any]]) -> str | None:
    first = items[0]
    label = (agent_label(first) or "").strip().lower().replace(" ", "_")
    cause = str(first.get("cause_by", ""))
    if label in USER_LIKE or cause.endswith("UserRequirement"):
        return text_of(first_key(first, CONTENT_KEYS)) or None
    return None


@guarded(NAME)
def read(doc: Document) -> Trajectory:
    found = _items(doc)
    if isinstance(found, str):
        raise InputError(doc.path, f"not an agent history: {found}")
    meta, items = found
    builder = StepBuilder()
    calls = ToolCalls()
    for pos, item in _ordered(items):
        sid = source_id(item, pos)
        result = tool_result(item)
        if result is not None:
            fold_result(builder, calls, result[0], result[1], sid)
            continue
        content = _content(item, calls, sid, len(builder.steps))
        role = item.get("role") if isinstance(item.get("role"), str) and item["role"].lower() in ROLES else None
        builder.add(agent_label(item) or "unknown", content, sid, role, scalar_id(item.get("parent_id")))
    return build_trajectory(doc, NAME, builder.steps, builder.truncated, meta, question=_question(items))
