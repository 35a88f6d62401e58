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
  messages too); a tool result is ``tool:NAME``, the function name found from its
  ``tool_call_id`` (or the legacy ``function`` message's ``name``);
- content: ``content`` (string or list of parts; images become ``[image]``) and
  ``refusal``, then one line per call in ``tool_calls`` (or legacy
  ``function_call``): ``[tool call NAME] ARGUMENTS``;
- source id: an explicit per-message index (``index``, ``idx``, ``message_index``,
  ``turn``, ``step``; 0- or 1-based, kept as written), else the message ``id``,
  else the message's 0-based position in the file;
- parent id: a tool result's parent is the source id of the message that made the call.

System messages are kept as steps (agent ``system``): tau-bench-style policies
live there, and keeping them keeps our index equal to the message position.
The question is the metadata's question field, else the first user message's text
(that message stays a step). A file whose every non-tool message carries a
``name`` with two or more distinct names is left to the ``history`` reader.
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..trajectory import Trajectory
from .common import StepBuilder, guarded, join_text, render_tool_call, safe_detect, scalar_id, text_of, tool_calls_of
from .document import Document
from .labels import build_trajectory
from .source import item_list

NAME = "chat"

ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
LIST_KEYS = ("messages", "conversation", "chat", "chat_history", "dialog", "dialogue", "traj", "trajectory")
INDEX_KEYS = ("index", "idx", "message_index", "turn", "step")
ID_KEYS = ("id", "message_id")


def is_message(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("role"), str) and item["role"].lower() in ROLES


def _several_conversations(items: list) -> str | None:
    if len(items) > 1 and all(isinstance(x, dict) and isinstance(x.get("messages"), list) for x in items):
        return f"holds {len(items)} conversations (one log per file expected)"
    return None


def _messages(doc: Document) -> tuple[dict, list] | str:
    """``(metadata, messages)`` or the reason the document holds no chat."""
    return item_list(doc, LIST_KEYS, is_message, missing="no message list (a list or 'messages')",
                     empty="empty message list", bad_item="item {i} has no chat role (system/user/assistant/tool)",
                     extra_check=_several_conversations)


def _multi_agent(items: list[dict]) -> bool:
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


def source_id(item: dict, position: int) -> str:
    """Explicit index, else message id, else the 0-based position (see the module docstring)."""
    for keys in (INDEX_KEYS, ID_KEYS):
        for key in keys:
            sid = scalar_id(item.get(key))
            if sid is not None:
                return sid
    return str(position)


class ToolCalls:
    """Ties tool results to the calls that asked for them."""

    def __init__(self) -> None:
        self.by_id: dict[str, tuple[str, str]] = {}
        self.last: tuple[str, str] | None = None

    def record(self, message: dict, sid: str) -> list[str]:
        """Remember the calls of ``message`` (made at step ``sid``); return their rendered lines."""
        lines = []
        for call_id, name, args in tool_calls_of(message):
            lines.append(render_tool_call(name, args))
            self.last = (name, sid)
            if call_id is not None:
                self.by_id[call_id] = (name, sid)
        return lines

    def result(self, message: dict) -> tuple[str, str | None]:
        """``(tool name, source id of the calling step)`` for a tool/function result."""
        call = self.by_id.get(str(message.get("tool_call_id")))
        if call is None and message.get("role") == "function":
            call = self.last
        name = call[0] if call else None
        if not name and isinstance(message.get("name"), str) and message["name"].strip():
            name = message["name"].strip()
        return name or "tool", call[1] if call else None


def add_message(builder: StepBuilder, calls: ToolCalls, msg: dict, sid: str, label: str | None = None) -> None:
    """Append one chat message as a step (``label`` overrides the agent label rule)."""
    role = msg["role"].lower() if isinstance(msg.get("role"), str) else None
    text = text_of(msg.get("content"))
    if role in ("tool", "function"):
        tool, parent = calls.result(msg)
        builder.add(label or f"tool:{tool}", text, sid, role, parent)
        return
    if isinstance(msg.get("refusal"), str):
        text = join_text(text, msg["refusal"])
    lines = calls.record(msg, sid)
    name = msg.get("name")
    default = "system" if role in ("system", "developer") else (role or "assistant")
    builder.add(label or (name if isinstance(name, str) and name.strip() else default), join_text(text, *lines),
                sid, role)


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
