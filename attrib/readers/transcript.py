"""Reader for plain-text transcripts where each turn starts with a speaker line.

Two styles, one per file (the one with more speaker lines wins, brackets on a tie):

- ``[Name] text...`` or ``[Name]`` alone on its line (an optional ``: `` after the bracket);
- ``Name: text...`` or ``Name:`` alone on its line; ``**Name**:`` (Markdown bold) too.

Either may follow a bracketed time stamp (``[12:03:11] Planner: ...``). A name is
1 to 60 characters, starts with a letter, holds at most five words, and may end with
a parenthesised suffix (``Orchestrator (thought)``). In the ``Name:`` style, words
that usually start lines of content (``Thought``, ``Action``, ``Observation``,
``Note``, ``Step 2``, ...) are never speakers, and a name seen only once counts
only when it is one or two capitalised words, at the start of the file, or after
a blank line: "Summary of findings:" inside a turn stays content.

A turn's content is the rest of its speaker line plus the following lines up to
the next speaker line, with surrounding blank lines removed. Its source id is
``line N`` (1-based line of the speaker line). Text before the first speaker
line is kept in ``metadata["preamble"]``. The question is the first turn of a
user-like speaker (user, human, customer, client), which stays a step.
Detection needs at least two speaker lines in a file that is not JSON.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from ..errors import InputError
from ..trajectory import Trajectory
from .common import StepBuilder, guarded, safe_detect
from .document import Document
from .labels import build_trajectory
from .source import records

NAME = "transcript"

_STAMP = r"(?:\[[\d:\-/ T.,Z+]{4,40}\]\s*)?"
_NAME = r"[A-Za-z][\w.'&/\- ]{0,58}?(?:\s*\([^()\n]{1,40}\))?"
BRACKET = re.compile(rf"^\s*{_STAMP}\[(?P<name>{_NAME})\]\s*:?(?:\s+(?P<rest>.*))?$")
COLON = re.compile(rf"^\s*{_STAMP}(?:\*\*)?(?P<name>{_NAME})(?:\*\*)?\s*:(?:\*\*)?(?:\s+(?P<rest>.*))?$")
NOT_SPEAKERS = frozenset("""thought thoughts action action input observation final answer answer question note notes
example output input result results error warning traceback code reason reasoning plan summary task response
file path url source exitcode code output todo important hint info debug status title date time subject step
details description conclusion analysis update next steps explanation expected actual context""".split()) | {
    "action input", "final answer", "code output", "next steps"}
USER_LIKE = {"user", "human", "customer", "client"}


@dataclass
class _Turn:
    name: str
    line: int
    lines: list[str]


def _speaker(line: str, pattern: re.Pattern[str]) -> tuple[str, str] | None:
    m = pattern.match(line)
    if not m:
        return None
    name = m.group("name").strip()
    if len(name.split()) > 5:
        return None
    if pattern is COLON:
        low = re.sub(r"\s*\(.*\)$", "", name).lower()
        if low in NOT_SPEAKERS or re.fullmatch(r"(step|phase|part|round|task|option)\s*\d+", low):
            return None
    return name, (m.group("rest") or "")


def _candidates(lines: list[str], pattern: re.Pattern[str]) -> list[tuple[int, str, str]]:
    """``(line number 0-based, name, rest)`` of the speaker lines in one style."""
    found = [(i, *hit) for i, line in enumerate(lines) if (hit := _speaker(line, pattern))]
    if pattern is not COLON:
        return found
    counts = Counter(name.lower() for _, name, _ in found)
    kept: list[tuple[int, str, str]] = []
    for i, name, rest in found:
        after_blank = i == 0 or not lines[i - 1].strip()
        if counts[name.lower()] >= 2 or after_blank or not kept or _name_like(name):
            kept.append((i, name, rest))
    return kept


def _name_like(name: str) -> bool:
    """One or two capitalised words (``Planner``, ``Web Surfer``): a speaker even when seen once."""
    words = re.sub(r"\s*\(.*\)$", "", name).split()
    return 1 <= len(words) <= 2 and all(w[0].isupper() for w in words)


def _speaker_lines(text: str) -> list[tuple[int, str, str]]:
    lines = text.splitlines()
    bracket = _candidates(lines, BRACKET)
    colon = _candidates(lines, COLON)
    return bracket if len(bracket) >= len(colon) else colon


@safe_detect
def detect(doc: Document) -> str | None:
    """None for a plain-text transcript with at least two speaker lines, else why not."""
    if records(doc) is not None:
        return "is JSON, not a plain-text transcript"
    n = len(_speaker_lines(doc.text))
    if n < 2:
        return f"found {n} speaker line{'s' if n != 1 else ''} ('Name:' or '[Name]' at a line start), need 2"
    return None


def _turns(text: str) -> tuple[str, list[_Turn]]:
    lines = text.splitlines()
    hits = _speaker_lines(text)
    preamble = "\n".join(lines[: hits[0][0]]).strip() if hits else text.strip()
    turns = []
    for k, (i, name, rest) in enumerate(hits):
        end = hits[k + 1][0] if k + 1 < len(hits) else len(lines)
        turns.append(_Turn(name=name, line=i + 1, lines=[rest, *lines[i + 1:end]]))
    return preamble, turns


def _body(lines: list[str]) -> str:
    return "\n".join(lines).strip("\n").rstrip()


@guarded(NAME)
def read(doc: Document) -> Trajectory:
    if records(doc) is not None:
        raise InputError(doc.path, "not a transcript: the file is JSON")
    preamble, turns = _turns(doc.text)
    if not turns:
        raise InputError(doc.path, "not a transcript: no speaker lines ('Name:' or '[Name]' at a line start)")
    builder = StepBuilder()
    question = None
    for turn in turns:
        body = _body(turn.lines).strip()
        builder.add(turn.name, body, f"line {turn.line}")
        if question is None and re.sub(r"\s*\(.*\)$", "", turn.name).lower() in USER_LIKE:
            question = body or None
    extra = {"preamble": preamble} if preamble else {}
    return build_trajectory(doc, NAME, builder.steps, builder.truncated, {}, question=question, extra=extra)
