"""Reader for SWE-agent trajectory files (``*.traj``).

Shape: ``{"trajectory": [{"action", "observation", "thought", "response", "state", ...}],
"history": [{"role", "content", "agent"?, ...}], "info": {"exit_status", "submission", ...}}``.

- one step per ``trajectory`` entry, in file order; source id: the entry's 0-based position;
- agent: ``SWE-agent``, or the ``agent`` name its assistant messages carry in ``history``
  when they all carry the same one (SWE-agent's default names ``main`` and ``primary`` count as none);
- content: the ``thought`` (else the raw ``response``; a leading ``DISCUSSION`` heading
  dropped), then ``[action] ACTION``;
- the environment's ``observation`` is folded into that step
  (:meth:`~attrib.readers.common.StepBuilder.observe`), id ``N.observation``;
- task: ``problem_statement`` (top level or under ``info``), else the issue text of the first
  user message in ``history`` with SWE-agent's instruction template stripped where recognised
  (``<pr_description>``/``<issue>`` blocks, or the text between ``ISSUE:`` and ``INSTRUCTIONS:``),
  else that message whole;
- metadata: ``exit_status``, ``model``, ``submission_chars`` from ``info``.

SWE-agent files carry no attribution label.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import InputError
from ..trajectory import Trajectory
from .common import StepBuilder, as_dict, guarded, join_text, safe_detect, text_of
from .document import Document
from .labels import build_trajectory
from .source import records, structure_reason

NAME = "swe-agent"
DEFAULT_AGENT = "SWE-agent"
DEFAULT_NAMES = frozenset({"main", "primary"})  # SWE-agent's own names for its single agent (1.x, 0.x)
_ENTRY_KEYS = ("observation", "thought", "response")
_DISCUSSION = re.compile(r"^DISCUSSION\s*\n")  # SWE-agent 0.x's heading of the thought
_TEMPLATES = (
    re.compile(r"<pr_description>\s*(.*?)\s*</pr_description>", re.DOTALL),
    re.compile(r"<issue>\s*(.*?)\s*</issue>", re.DOTALL),
    re.compile(r"ISSUE:\s*\n(.*?)\n\s*INSTRUCTIONS:", re.DOTALL),
)


def _entries(value: Any) -> tuple[dict[str, Any], list[dict[str, Any]]] | str:
    if not isinstance(value, dict):
        return "not a JSON object"
    traj = value.get("trajectory")
    if not isinstance(traj, list):
        return "no 'trajectory' list"
    if not traj:
        return "empty 'trajectory'"
    for i, entry in enumerate(traj):
        if not isinstance(entry, dict) or "role" in entry:
            return f"trajectory item {i} is not an action record (a chat message?)"
        if "action" not in entry or not any(k in entry for k in _ENTRY_KEYS):
            return f"trajectory item {i} has no 'action' with 'observation'/'thought'/'response'"
    if not any(k in value for k in ("history", "info")):
        return "no 'history' or 'info' beside 'trajectory'"
    return value, traj


@safe_detect
def detect(doc: Document) -> str | None:
    """None for a SWE-agent trajectory, else why not."""
    return structure_reason(doc, _entries)


def agent_name(history: Any) -> str:
    """The one agent name of the history's assistant messages, or ``SWE-agent``."""
    names = {str(m["agent"]).strip() for m in history or [] if isinstance(m, dict)
             and m.get("role") == "assistant" and isinstance(m.get("agent"), str) and m["agent"].strip()}
    if len(names) == 1:
        (name,) = names
        if name.casefold() not in DEFAULT_NAMES:
            return name
    return DEFAULT_AGENT


def issue_text(value: dict[str, Any]) -> str:
    """The task: problem statement, else the issue inside the first user message (see module docstring)."""
    info = as_dict(value.get("info"))
    for source in (value, info):
        ps = source.get("problem_statement")
        if isinstance(ps, str) and ps.strip():
            return ps.strip()
        text = ps.get("text") if isinstance(ps, dict) else None
        if isinstance(text, str):
            return text.strip()
    for msg in value.get("history") or []:
        if isinstance(msg, dict) and msg.get("role") == "user":
            text = text_of(msg.get("content"))
            for pattern in _TEMPLATES:
                m = pattern.search(text)
                if m and m.group(1).strip():
                    return m.group(1).strip()
            return text.strip()
    return ""


def _meta(value: dict[str, Any]) -> dict[str, Any]:
    info = as_dict(value.get("info"))
    out: dict[str, Any] = {}
    if isinstance(info.get("exit_status"), str):
        out["exit_status"] = info["exit_status"]
    if isinstance(info.get("submission"), str):
        out["submission_chars"] = len(info["submission"])
    stats = as_dict(info.get("model_stats"))
    for key in ("api_calls", "instance_cost"):
        if isinstance(stats.get(key), (int, float)) and not isinstance(stats.get(key), bool):
            out[key] = stats[key]
    for key in ("instance_id", "model_name_or_path"):
        if isinstance(value.get(key), str):
            out[key] = value[key]
    return out


@guarded(NAME)
def read(doc: Document) -> Trajectory:
    value = records(doc)
    found = _entries(value) if value is not None else "not JSON"
    if isinstance(found, str):
        raise InputError(doc.path, f"not a SWE-agent trajectory: {found}")
    obj, entries = found
    agent = agent_name(obj.get("history"))
    builder = StepBuilder()
    for i, entry in enumerate(entries):
        thought = _DISCUSSION.sub("", text_of(entry.get("thought")).strip() or text_of(entry.get("response")).strip())
        action = text_of(entry.get("action")).strip()
        builder.add(agent, join_text(thought, f"[action] {action}" if action else ""), str(i), "assistant")
        observation = entry.get("observation")
        if observation is not None:
            builder.observe(text_of(observation), f"{i}.observation")
    meta = _meta(obj)
    instance = meta.pop("instance_id", None)
    return build_trajectory(doc, NAME, builder.steps, builder.truncated,
                            {"question": issue_text(obj), **({"instance_id": instance} if instance else {})},
                            extra=meta)
