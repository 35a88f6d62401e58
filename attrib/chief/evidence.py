"""Deterministic evidence for CHIEF's causal graph: loop groups and literal data flows.

No LLM is involved. Both extractors read a :class:`~attrib.trajectory.Trajectory` and
return small, prompt-ready records:

- :func:`loop_groups` finds steps where one agent repeats the same instruction, action
  or message (CHIEF section 4.3.2 aggregates such repetitions into a *Loop Group* to
  decide between planner and executor responsibility);
- :func:`literal_flows` finds literal values (numbers, URLs, file names, quoted strings)
  that first appear at one step and are reused by later steps, a cheap stand-in for the
  step-level data-flow edges of section 4.1.2 / 4.3.3.

How a step is classified (``kind``) and which part of it is compared:

- ``instruction``: the label carries an arrow suffix (``Orchestrator (-> WebSurfer)``);
  the whole content is compared;
- ``action``: the content holds fenced code (the code is compared) or opens with a
  narrated browser/file action such as ``I clicked ...`` / ``Address: file://...``
  (that first line is compared);
- ``message``: anything else; the content is compared.

Comparison uses the first 500 characters after normalization (casefold, whitespace
collapsed; URLs and digits optionally masked), plus embedding cosine when an
``embed_fn`` is given.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, computed_field

from ..agents import agent_key
from ..text import clip
from ..trajectory import Step, Trajectory

LoopKind = Literal["instruction", "action", "message"]
LiteralKind = Literal["number", "url", "file", "quote"]
EmbedFn = Callable[[Sequence[str]], np.ndarray]

#: characters of a step's compared text used for equality and embeddings
COMPARE_CHARS = 500
#: default cap on literal flows returned by :func:`literal_flows`
MAX_FLOWS = 40

_WS = re.compile(r"\s+")
_URL = re.compile(r"(?:https?|ftp|file)://[^\s<>\"'`()\[\]{}|\\^]+", re.IGNORECASE)
_DIGITS = re.compile(r"\d+")
_FENCE = re.compile(r"```[^\n`]*\n(.*?)```", re.DOTALL)
_ACTION_LINE = re.compile(
    r"^\s*(?:I\s+(?:typed|clicked|scrolled|visited|navigated|searched|opened|hovered|pressed|went|selected|"
    r"entered|answered|ran|executed|downloaded|uploaded|viewed|asked|tried)\b|Address:\s)",
    re.IGNORECASE,
)
_FILE_EXT = (
    "csv|tsv|xlsx|xls|xlsm|json|jsonl|xml|yaml|yml|txt|md|pdf|docx|doc|pptx|ppt|odt|ods|html|htm|"
    "png|jpe?g|gif|bmp|svg|webp|tiff?|mp3|wav|m4a|flac|ogg|mp4|mov|avi|mkv|webm|zip|tar|gz|tgz|7z|rar|"
    "py|ipynb|js|ts|java|cpp|c|h|rb|go|rs|sh|sql|db|sqlite|pdb|parquet|log|ini|cfg|toml|tex|bib|epub"
)
_FILE = re.compile(
    rf"(?<![\w.\-])(?:[\w.\-~]*/)*([\w\-]+(?:\.[\w\-]+)*\.(?:{_FILE_EXT}))(?![\w\-/]|\.\w)", re.IGNORECASE
)
_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?!\w|[.,]\d)")
_QUOTES = (
    re.compile(r'"([^"\n]{3,80})"(?!\s*:)'),
    re.compile(r"\u201c([^\u201d\n]{3,80})\u201d"),
    re.compile(r"(?<![\w'])'([^'\n]{3,80})'(?![\w'])"),
)
_QUOTE_STOP = {"true", "false", "null", "none", "yes", "no"}


# ----------------------------------------------------------------------------- loop groups


class LoopGroup(BaseModel):
    """Steps where one agent repeats near-identical text."""

    model_config = ConfigDict(frozen=True)

    agent: str
    kind: LoopKind
    steps: list[int]
    sample: str
    matched_by: Literal["text", "embedding"] = "text"

    @computed_field  # type: ignore[prop-decorator]
    @property
    def entry(self) -> int:
        """First step of the repetition."""
        return self.steps[0]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def exit(self) -> int:
        """Last step of the repetition (the loop is left after it)."""
        return self.steps[-1]

    def render(self) -> str:
        """One line for a prompt."""
        steps = ", ".join(map(str, self.steps))
        return f"- {self.agent} repeats the same {self.kind} {len(self.steps)}x at steps {steps}: \"{self.sample}\""


def step_kind(step: Step) -> tuple[LoopKind, str]:
    """Classify a step and return the part of its text that repetitions are judged on."""
    if "->" in step.label:
        return "instruction", step.content
    code = _FENCE.findall(step.content)
    if code:
        return "action", "\n".join(c.strip() for c in code)
    if _ACTION_LINE.match(step.content):
        stripped = step.content.strip()
        return "action", stripped.split("\n", 1)[0]
    return "message", step.content


def normalize_text(text: str, *, strip_urls: bool = False, strip_digits: bool = False) -> str:
    """Casefold and collapse white space; optionally mask URLs and digit runs."""
    if strip_urls:
        text = _URL.sub(" <url> ", text)
    if strip_digits:
        text = _DIGITS.sub("0", text)
    return _WS.sub(" ", text.casefold()).strip()



def loop_groups(
    traj: Trajectory,
    embed_fn: EmbedFn | None = None,
    threshold: float = 0.92,
    *,
    strip_urls: bool = False,
    strip_digits: bool = False,
    min_chars: int = 4,
) -> list[LoopGroup]:
    """Groups of >= 2 steps where the same agent repeats near-identical text of one kind.

    Steps match when their compared text (see the module docstring) is equal after
    normalization or, with ``embed_fn``, when the cosine of the embeddings of their first
    500 characters is >= ``threshold``. A step joins the first earlier group of the same
    agent and kind whose first step it matches. Groups are returned by entry step.
    """
    items: list[tuple[Step, LoopKind, str, str]] = []  # step, kind, compared text, normalized key
    for step in traj.steps:
        kind, text = step_kind(step)
        key = normalize_text(text, strip_urls=strip_urls, strip_digits=strip_digits)[:COMPARE_CHARS]
        if len(key) >= min_chars:
            items.append((step, kind, text, key))
    vectors: np.ndarray | None = None
    if embed_fn is not None and items:
        vectors = np.asarray(embed_fn([_WS.sub(" ", t).strip()[:COMPARE_CHARS] for _, _, t, _ in items]), dtype=np.float32)

    # per (agent, kind): list of groups, each a list of item positions; the first is the leader
    buckets: dict[tuple[str, LoopKind], list[list[int]]] = defaultdict(list)
    by_embedding: set[int] = set()  # leaders of groups that needed the embedding match
    for pos, (step, kind, _text, key) in enumerate(items):
        groups = buckets[(agent_key(step.agent), kind)]
        for group in groups:
            leader = group[0]
            if items[leader][3] == key:
                group.append(pos)
                break
            if vectors is not None and float(vectors[leader] @ vectors[pos]) >= threshold:
                group.append(pos)
                by_embedding.add(leader)
                break
        else:
            groups.append([pos])

    result: list[LoopGroup] = []
    for (_agent, kind), groups in buckets.items():
        for group in groups:
            if len(group) < 2:
                continue
            leader_step, _, leader_text, _ = items[group[0]]
            result.append(
                LoopGroup(
                    agent=leader_step.agent,
                    kind=kind,
                    steps=sorted(items[p][0].index for p in group),
                    sample=clip(leader_text, 160),
                    matched_by="embedding" if group[0] in by_embedding else "text",
                )
            )
    result.sort(key=lambda g: (g.entry, g.agent))
    return result


def render_loop_groups(groups: Sequence[LoopGroup], limit: int = 12) -> str:
    """Prompt text for loop groups: the largest ``limit`` groups, listed by entry step."""
    if not groups:
        return "(no repeated instructions, actions or messages found)"
    shown = sorted(sorted(groups, key=lambda g: -len(g.steps))[:limit], key=lambda g: g.entry)
    lines = [g.render() for g in shown]
    if len(groups) > len(shown):
        lines.append(f"(+{len(groups) - len(shown)} smaller groups not shown)")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- literal flows


class LiteralFlow(BaseModel):
    """A literal value first produced at one step and reused by later steps."""

    model_config = ConfigDict(frozen=True)

    value: str
    kind: LiteralKind
    producer_step: int
    producer_agent: str
    consumer_steps: list[int]

    def render(self, max_steps: int = 12) -> str:
        """One line for a prompt."""
        shown = ", ".join(map(str, self.consumer_steps[:max_steps]))
        more = f" (+{len(self.consumer_steps) - max_steps} more)" if len(self.consumer_steps) > max_steps else ""
        value = clip(self.value, 100)
        return f"- {self.kind} {value!r}: step {self.producer_step} ({self.producer_agent}) -> steps {shown}{more}"


def _number_key(raw: str) -> str | None:
    """Canonical form of a number literal, or None when it is too small to be telling."""
    plain = raw.replace(",", "")
    if "." in plain:
        whole, frac = plain.split(".", 1)
        whole = whole.lstrip("0") or "0"
        frac = frac.rstrip("0")
        return f"{whole}.{frac}" if frac else whole
    digits = plain.lstrip("0")
    return digits if len(digits) >= 2 else None


def extract_literals(text: str) -> dict[tuple[LiteralKind, str], str]:
    """Literals in ``text`` as ``{(kind, match key): value as first written}``."""
    found: dict[tuple[LiteralKind, str], str] = {}

    def add(kind: LiteralKind, key: str, value: str) -> None:
        found.setdefault((kind, key), value)

    for m in _URL.finditer(text):
        url = m.group(0).rstrip(".,;:!?'\"")
        if len(url) > 12:
            add("url", url.rstrip("/"), url)
    rest = _URL.sub(" ", text)
    for m in _FILE.finditer(rest):
        add("file", m.group(1).casefold(), m.group(0))  # matched by base name: dir/a.csv == a.csv
    for pattern in _QUOTES:
        for m in pattern.finditer(rest):
            value = m.group(1).strip()
            key = _WS.sub(" ", value.casefold())
            if len(key) >= 3 and key not in _QUOTE_STOP and not _NUMBER.fullmatch(key):
                add("quote", key, value)
    rest = _FILE.sub(" ", rest)
    for m in _NUMBER.finditer(rest):
        key = _number_key(m.group(1))
        if key is not None:
            add("number", key, m.group(1))
    return found


def _in_question(kind: LiteralKind, key: str, question_keys: set[tuple[str, str]], question_text: str) -> bool:
    if (kind, key) in question_keys:
        return True
    return kind != "number" and len(key) >= 4 and key in question_text


def literal_flows(traj: Trajectory, max_flows: int = MAX_FLOWS, boilerplate_share: float = 0.6) -> list[LiteralFlow]:
    """Literal values produced at one step and reused at later steps, most reused first.

    A value's producer is the first step that mentions it; its consumers are all later
    steps that mention it again. Skipped: values found in the question (inputs, not
    products), quoted agent names and JSON keys, and boilerplate values mentioned in at
    least ``boilerplate_share`` of the steps (and at least 8 steps). Returns at most
    ``max_flows`` flows: those reaching another agent first, then by number of consumers,
    by number of consumers that are other agents, and by producer step.
    """
    question = traj.question or ""
    q_literals = extract_literals(question)
    question_keys = {(k, key) for (k, key) in q_literals}
    question_text = _WS.sub(" ", question.casefold())
    agent_names = {agent_key(s.agent) for s in traj.steps} | {agent_key(s.label) for s in traj.steps}

    occurrences: dict[tuple[LiteralKind, str], list[int]] = defaultdict(list)
    first_value: dict[tuple[LiteralKind, str], str] = {}
    for step in traj.steps:
        for lit, value in extract_literals(step.content).items():
            occurrences[lit].append(step.index)
            first_value.setdefault(lit, value)

    limit = max(8, boilerplate_share * len(traj.steps))
    agents = {s.index: s.agent for s in traj.steps}
    flows: list[tuple[tuple[int, int, int], LiteralFlow]] = []
    for (kind, key), steps in occurrences.items():
        if len(steps) < 2 or len(steps) >= limit:
            continue
        if _in_question(kind, key, question_keys, question_text):
            continue
        if kind == "quote" and agent_key(key) in agent_names:
            continue
        producer, consumers = steps[0], steps[1:]
        producer_agent = agents[producer]
        cross = sum(1 for c in consumers if agent_key(agents[c]) != agent_key(producer_agent))
        flow = LiteralFlow(
            value=first_value[(kind, key)],
            kind=kind,
            producer_step=producer,
            producer_agent=producer_agent,
            consumer_steps=consumers,
        )
        flows.append(((-min(cross, 1), -len(consumers), -cross, producer), flow))
    flows.sort(key=lambda item: item[0])
    return [flow for _, flow in flows[:max_flows]]


def render_literal_flows(flows: Sequence[LiteralFlow], limit: int = MAX_FLOWS) -> str:
    """Prompt text for literal flows, in the given order, at most ``limit`` lines."""
    if not flows:
        return "(no literal values passed between steps)"
    lines = [f.render() for f in flows[:limit]]
    if len(flows) > limit:
        lines.append(f"(+{len(flows) - limit} more not shown)")
    return "\n".join(lines)
