"""The one agent-normalization rule used by prompts, validation and scoring.

Multi-agent logs label the same agent in several ways: Magentic-One writes
``Orchestrator (thought)`` and ``Orchestrator (-> WebSurfer)`` for the
orchestrator, and Who&When gold labels write ``Websurfer`` for ``WebSurfer``.
The rule, applied in this order:

1. drop one trailing parenthesised suffix: ``Orchestrator (-> WebSurfer)`` -> ``Orchestrator``;
2. trim surrounding white space;
3. compare case-insensitively (``str.casefold``), ignoring spaces, underscores and hyphens.

Step 3 gives the *agent key* (``orchestrator``, ``websurfer``). The *display
name* of an agent is the suffix-free label as it first appears in the log.
"""

from __future__ import annotations

import re

_SUFFIX = re.compile(r"\s*\([^()]*\)\s*$")
_IGNORED = re.compile(r"[\s_\-]+")


def strip_suffix(label: str) -> str:
    """``'Orchestrator (-> WebSurfer)'`` -> ``'Orchestrator'``; other labels unchanged but trimmed."""
    stripped = _SUFFIX.sub("", label.strip()).strip()
    return stripped or label.strip()


def agent_key(label: str) -> str:
    """The comparison key of an agent label (see the module docstring)."""
    return _IGNORED.sub("", strip_suffix(label).casefold())

