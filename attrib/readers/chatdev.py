"""Reader for ChatDev run logs (the plain-text ``.log`` ChatDev writes, also the raw text of MAST/MAD traces).

A log is a sequence of records, each starting with ``[YYYY-DD-MM HH:MM:SS LEVEL] `` (ChatDev writes the
day before the month) and running up to the next record. Two kinds:

- **agent turns**: ``<Speaker>: **<Role><-><Role> on : <Phase>, turn N**`` followed by the message. Each
  is one step: agent = the speaker (Chief Executive Officer, Chief Product Officer, Chief Technology
  Officer, Programmer, Code Reviewer, Software Test Engineer, Counselor, ...), ``phase`` = the phase
  name, content = the message, source id = ``line N`` (1-based line of the record's header);
- **infrastructure**: everything else (``System: **[chatting]**`` parameter tables, ``**[Preprocessing]**``,
  ``<Role>: **[Start Chat]**`` phase prompts, ``HTTP Request: POST ...``, ``flask app.py did not start
  for online log``, ``Retrying request to /completions in ...``, usage, seminar conclusions, code
  updates, errors). These are not agent steps; their ids are kept in ``metadata["infrastructure"]``.

The task is the ``task_prompt`` of the preprocessing record or of the first chatting table.

A run **died on infrastructure** when, after the first chat started, the records that follow the last
agent turn hold a failed request (a retry, or an HTTP status of 400 or more) and no successful HTTP
response comes after the last such failure (ERROR records there are counted in the reason; alone,
without a failed request, they are a crash of the program, not of the infrastructure). ``Trajectory.infrastructure_failure`` then
says so in one line, and ``attrib predict`` reports that instead of blaming an agent. A log with no
agent turn at all is refused (with that reason when the run died on infrastructure).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import InputError
from ..trajectory import Trajectory
from .common import StepBuilder, guarded, safe_detect
from .document import Document
from .labels import build_trajectory
from .source import records

NAME = "chatdev"

RECORD = re.compile(r"^\[(?P<y>\d{4})-(?P<d>\d{2})-(?P<m>\d{2}) (?P<time>\d{2}:\d{2}:\d{2}) "
                    r"(?P<level>[A-Z]+)\] ?(?P<rest>.*)$")
TURN = re.compile(r"^(?P<speaker>[A-Za-z][\w .'-]{0,60}?): \*\*(?P<left>[^*\n]+?)<->(?P<right>[^*\n]+?) "
                  r"on : (?P<phase>[^,*\n]+), turn (?P<turn>\d+)\*\*\s*$")
HTTP = re.compile(r"^HTTP Request: (?P<verb>[A-Z]+) (?P<url>\S+) \"HTTP/[\d.]+ (?P<code>\d{3})")
RETRY = re.compile(r"^Retrying request to (?P<url>\S+) in (?P<secs>[\d.]+) seconds?")
PREPROCESS_TASK = re.compile(r"^\*\*task_prompt\*\*:\s*(?P<task>.+)$", re.MULTILINE)
TABLE_TASK = re.compile(r"^\|\s*\*\*task_prompt\*\*\s*\|\s*(?P<task>.*?)\s*\|\s*$", re.MULTILINE)
CHAT_MARKERS = ("System: **[chatting]**", "**[Start Chat]**", "**[Preprocessing]**")


@dataclass
class Record:
    line: int  # 1-based line of the header
    stamp: str  # ISO date and time (month and day put back in order)
    level: str
    head: str  # the header line after the stamp
    body: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"line {self.line}"

    @property
    def text(self) -> str:
        return "\n".join(self.body).strip("\n").rstrip()


def _iso(m: re.Match[str]) -> str:
    day, month = m["d"], m["m"]
    if int(month) > 12 >= int(day):  # a log written month-first after all
        day, month = month, day
    return f"{m['y']}-{month}-{day}T{m['time']}"


def parse_records(text: str) -> tuple[str, list[Record]]:
    """``(text before the first record, records)``."""
    lines = text.splitlines()
    out: list[Record] = []
    preamble: list[str] = []
    for i, line in enumerate(lines):
        m = RECORD.match(line)
        if m:
            out.append(Record(line=i + 1, stamp=_iso(m), level=m["level"], head=m["rest"].rstrip()))
        elif out:
            out[-1].body.append(line)
        else:
            preamble.append(line)
    return "\n".join(preamble).strip(), out


def kind_of(rec: Record) -> str:
    """``turn`` for an agent turn, else the kind of infrastructure record."""
    head = rec.head
    if TURN.match(head):
        return "turn"
    if rec.level in ("ERROR", "CRITICAL"):
        return "error"
    if head.startswith("System: **[chatting]**"):
        return "chatting"
    if head.startswith("**[Preprocessing]**"):
        return "preprocessing"
    if head.endswith("**[Start Chat]**"):
        return "start_chat"
    if (h := HTTP.match(head)) is not None:
        return "http_error" if int(h["code"]) >= 400 else "http_ok"
    if RETRY.match(head):
        return "retry"
    if head.startswith("flask app.py did not start"):
        return "flask"
    return "other"


FAILURES = ("retry", "http_error")  # failed requests; ERROR records alone (a crash) are not enough


def infrastructure_failure(recs: list[Record], kinds: list[str]) -> str | None:
    """One line saying why the run died on infrastructure, or None (see the module docstring)."""
    first_chat = next((i for i, k in enumerate(kinds) if k in ("chatting", "start_chat", "turn")), None)
    if first_chat is None:
        return None
    last_turn = max((i for i, k in enumerate(kinds) if k == "turn"), default=first_chat)
    tail = list(range(max(first_chat, last_turn) + 1, len(recs)))
    failed = [i for i in tail if kinds[i] in FAILURES]
    if not failed or any(kinds[i] == "http_ok" for i in tail if i > failed[-1]):
        return None
    retries = sum(kinds[i] == "retry" for i in failed)
    codes = sorted({m["code"] for i in failed if (m := HTTP.match(recs[i].head))})
    errors = sum(kinds[i] == "error" for i in tail)
    parts = [f"{retries} retried request{'s' if retries != 1 else ''}"] if retries else []
    if codes:
        parts.append(f"HTTP {'/'.join(codes)}")
    if errors:
        parts.append(f"{errors} ERROR record{'s' if errors != 1 else ''}")
    after = "the first chat" if last_turn == first_chat and kinds[first_chat] != "turn" else _turn_name(recs[last_turn])
    return (f"run died on infrastructure after {after}: {', '.join(parts)} from {recs[failed[0]].id}, "
            "no agent turn after them")


def _turn_name(rec: Record) -> str:
    m = TURN.match(rec.head)
    return f"{m['speaker']} ({m['phase'].strip()}, turn {m['turn']})" if m else rec.id


def task_of(recs: list[Record]) -> str | None:
    """The ``task_prompt`` of the preprocessing record, else of the first chatting table."""
    for pattern, kind in ((PREPROCESS_TASK, "preprocessing"), (TABLE_TASK, "chatting")):
        for rec in recs:
            if kind_of(rec) == kind and (m := pattern.search(rec.text)) and m["task"].strip():
                return m["task"].strip()
    return None


@safe_detect
def detect(doc: Document) -> str | None:
    """None for a ChatDev run log, else why not."""
    if records(doc) is not None:
        return "is JSON, not a ChatDev run log"
    return why_not(doc.text)


def why_not(text: str) -> str | None:
    """None when ``text`` reads as a ChatDev log (records, and chat markers or agent turns)."""
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    if not RECORD.match(first):
        return "does not start with a '[YYYY-DD-MM HH:MM:SS INFO] ' record"
    _, recs = parse_records(text)
    if not any(kind_of(r) == "turn" or any(mark in r.head for mark in CHAT_MARKERS) for r in recs):
        return "no ChatDev agent turn or chat record"
    return None


@guarded(NAME)
def read(doc: Document) -> Trajectory:
    if records(doc) is not None:
        raise InputError(doc.path, "not a ChatDev log: the file is JSON")
    return read_text(doc, doc.text)


def read_text(doc: Document, text: str) -> Trajectory:
    """The trajectory of a ChatDev log held in ``text`` (``doc`` names the file for errors and the id)."""
    if (why := why_not(text)) is not None:
        raise InputError(doc.path, f"not a ChatDev log: {why}")
    preamble, recs = parse_records(text)
    kinds = [kind_of(r) for r in recs]
    died = infrastructure_failure(recs, kinds)
    builder = StepBuilder()
    infra: list[str] = []
    counts: dict[str, int] = {}
    for rec, kind in zip(recs, kinds):
        if kind == "turn":
            m = TURN.match(rec.head)
            assert m is not None
            builder.add(m["speaker"].strip(), rec.text.strip(), rec.id, phase=m["phase"].strip())
        else:
            infra.append(rec.id)
            counts[kind] = counts.get(kind, 0) + 1
    if not builder.steps:
        raise InputError(doc.path, "no agent turn in this ChatDev log" + (f" ({died})" if died else ""))
    extra: dict = {"infrastructure": {"ids": infra, "kinds": counts}, "started_at": recs[0].stamp,
                   "phases": list(dict.fromkeys(s.phase for s in builder.steps if s.phase))}
    if preamble:
        extra["preamble"] = preamble
    traj = build_trajectory(doc, NAME, builder.steps, builder.truncated, {}, question=task_of(recs), extra=extra)
    return traj.model_copy(update={"infrastructure_failure": died}) if died else traj
