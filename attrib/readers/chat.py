"""Reader for OpenAI-style chat messages (tau-bench, simple agents, function-calling logs).

Accepted shapes: a JSON list of messages; an object holding the list under
``messages``, ``conversation``, ``chat``, ``chat_history``, ``dialog``,
``dialogue``, ``traj`` or ``trajectory`` (other fields of the object are its
metadata: question, labels, ids); JSON Lines with one message per line,
optionally after one header record without a ``role`` (metadata), or one line
holding a ``{"messages": [...]}`` object.

Each message is one step, in file order:

- ``role``: ``system``/``developer``, ``user``, ``assistant``, ``tool``, ``function``;
- agent label: ``name`` when present, else the role (``system`` for developer
  messages too);
- a ``tool`` (or legacy ``function``) message is not a step: the environment is not an
  agent. Its content is folded into the step that issued the call
  (:meth:`~attrib.readers.common.StepBuilder.observe`): the step whose ``tool_calls``
  hold its ``tool_call_id``, else the latest step; it shows there as
  ``[tool result NAME] ...`` (NAME: the called function, else the message's ``name``) and
  its source id goes to that step's ``observation_ids``, so a label naming it is an error
  of the file. A tool message with no step before it stays a step of agent ``environment``;
- content: ``content`` (string or list of parts; images become ``[image]``) and
  ``refusal``, then one line per call in ``tool_calls`` (or legacy
  ``function_call``): ``[tool call NAME] ARGUMENTS``;
- source id: an explicit per-message index (``index``, ``idx``, ``message_index``,
  ``turn``, ``step``; 0- or 1-based, kept as written), else the message ``id``,
  else the message's 0-based position in the file;

System messages are kept as steps (agent ``system``): tau-bench-style policies
live there. Because tool messages are folded, our 0-based step index differs from the
message position once a tool result has been seen; labels in the source's numbering are
matched against the source ids first (:func:`attrib.readers.labels.resolve_step`).
The question is the metadata's question field, else the first user message's text
(that message stays a step). A file whose every non-tool message carries a
``name`` with two or more distinct names is left to the ``history`` reader.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..errors import InputError
from ..trajectory import Step, Trajectory
from .common import StepBuilder, guarded, join_text, render_tool_call, safe_detect, scalar_id, text_of, tool_calls_of
from .document import Document
from .labels import build_trajectory
from .source import item_list

NAME = "chat"

ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
LIST_KEYS = ("messages", "conversation", "chat", "chat_history", "dialog", "dialogue", "traj", "trajectory")
INDEX_KEYS = ("index", "idx", "message_index", "turn", "step")
ID_KEYS = ("id", "message_id")
ENVIRONMENT = "environment"  # the agent of a tool result that no step precedes


def is_message(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("role"), str) and item["role"].lower() in ROLES


def _several_conversations(items: list[Any]) -> str | None:
    if len(items) > 1 and all(isinstance(x, dict) and isinstance(x.get("messages"), list) for x in items):
        return f"holds {len(items)} conversations (one log per file expected)"
    return None


def _messages(doc: Document) -> tuple[dict[str, Any], list[Any]] | str:
    """``(metadata, messages)`` or the reason the document holds no chat."""
    return item_list(doc, LIST_KEYS, is_message, missing="no message list (a list or 'messages')",
                     empty="empty message list", bad_item="item {i} has no chat role (system/user/assistant/tool)",
                     extra_check=_several_conversations)


def _multi_agent(items: list[dict[str, Any]]) -> bool:
    speakers = [m for m in items if m["role"].lower() not in ("tool", "function", "system", "developer")]
    names = [m.get("name") for m in speakers]
    return bool(speakers) and all(isinstance(n, str) and n.strip() for n in names) and len(set(names)) >= 2


@safe_detect
def detect(doc: Document) -> str | None:
    """None when ``doc`` is a list of chat messages, else why not."""
    found = _messages(doc)
    if isinstance(found, str):
        return found
    if _multi_agent(found[1]):
        return "every message names its speaker (a multi-agent history)"
    return None


def source_id(item: dict[str, Any], position: int) -> str:
    """Explicit index, else message id, else the 0-based position (see the module docstring)."""
    for keys in (INDEX_KEYS, ID_KEYS):
        for key in keys:
            sid = scalar_id(item.get(key))
            if sid is not None:
                return sid
    return str(position)


class Call(NamedTuple):
    """A tool call as made in the log: the function name and the step that made it."""

    name: str
    source_id: str
    step: int


class ToolCalls:
    """Ties tool results to the calls that asked for them."""

    def __init__(self) -> None:
        self.by_id: dict[str, Call] = {}
        self.last: Call | None = None

    def record(self, message: dict[str, Any], sid: str, step: int) -> list[str]:
        """Remember the calls of ``message`` (made at our step ``step``, source id ``sid``); return their lines."""
        lines = []
        for call_id, name, args in tool_calls_of(message):
            lines.append(render_tool_call(name, args))
            self.last = Call(name, sid, step)
            if call_id is not None:
                self.by_id[call_id] = self.last
        return lines

    def result(self, message: dict[str, Any]) -> tuple[str | None, Call | None]:
        """``(tool name, the call its tool_call_id names)`` for a tool/function result message.

        The name is the called function's, else (for a legacy ``function`` message) the latest
        call's, else the message's ``name``, else None. The call is None without a known id.
        """
        call_id = scalar_id(message.get("tool_call_id"))
        call = self.by_id.get(call_id) if call_id is not None else None
        named = call or (self.last if message.get("role") == "function" else None)
        name = named.name if named else None
        if not name and isinstance(message.get("name"), str) and message["name"].strip():
            name = message["name"].strip()
        return name, call


def fold_result(builder: StepBuilder, calls: ToolCalls, message: dict[str, Any], text: str, sid: str) -> Step:
    """Fold a tool/function result into the step that made the call (by ``tool_call_id``), else the latest step.

    A result with no step before it stays a step of agent ``environment`` (role ``tool``).
    """
    name, call = calls.result(message)
    folded = builder.observe(text, sid, name, into=call.step if call is not None else None)
    if folded is not None:
        return folded
    head = f"[tool result {name}]" if name else "[tool result]"
    return builder.add(ENVIRONMENT, f"{head} {text.strip()}".rstrip(), sid, "tool")


def add_message(builder: StepBuilder, calls: ToolCalls, msg: dict[str, Any], sid: str) -> Step:
    """Append one chat message as a step, or fold a tool result into the step that called the tool."""
    role = msg["role"].lower() if isinstance(msg.get("role"), str) else None
    text = text_of(msg.get("content"))
    if role in ("tool", "function"):
        return fold_result(builder, calls, msg, text, sid)
    if isinstance(msg.get("refusal"), str):
        text = join_text(text, msg["refusal"])
    lines = calls.record(msg, sid, len(builder.steps))
    name = msg.get("name")
    default = "system" if role in ("system", "developer") else (role or "assistant")
    return builder.add(name if isinstance(name, str) and name.strip() else default, join_text(text, *lines), sid, role)


@guarded(NAME)
def read(doc: Document) -> Trajectory:
    found = _messages(doc)
    if isinstance(found, str):
        raise InputError(doc.path, f"not a chat log: {found}")
    meta, items = found
    builder = StepBuilder()
    calls = ToolCalls()
    question = None
    for pos, msg in enumerate(items):
        add_message(builder, calls, msg, source_id(msg, pos))
        if question is None and msg["role"].lower() == "user":
            question = text_of(msg.get("content")) or None
    return build_trajectory(doc, NAME, builder.steps, builder.truncated, meta, question=question)
