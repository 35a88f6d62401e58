"""Knowledge-base entries: one solved benchmark task, normalized to plain text.

CHIEF (appendix A) retrieves worked examples from two public benchmarks and shows
them to the LLM as decomposition prototypes. Each task becomes one :class:`KBEntry`:

- GAIA: the ``Question`` plus the annotator's ``Steps`` (found under the annotator-metadata object);
- AssistantBench: the ``task`` plus its ``explanation``.

The ``text`` field (what gets embedded) joins the two parts with the same labels the
prompt uses. Answers are deliberately not kept: exemplars guide decomposition only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .. import jsonsafe
from ..errors import InputError

#: the GAIA object holding the annotator's solution steps, matched ignoring case, spaces and underscores
#: (GAIA writes it title-cased with a space; snake_case exports are accepted too)
GAIA_META = "annotator_metadata"


def _key_like(row: dict[str, Any], name: str) -> str | None:
    """The key of ``row`` equal to ``name`` once both are casefolded and stripped of spaces and underscores."""
    wanted = name.replace("_", "").replace(" ", "").casefold()
    return next((k for k in row if isinstance(k, str) and k.replace("_", "").replace(" ", "").casefold() == wanted), None)

Source = Literal["GAIA", "AssistantBench", "Runs"]

#: prompt labels of the two parts of an entry, per source
LABELS: dict[str, tuple[str, str]] = {
    "GAIA": ("Question", "Steps"),
    "AssistantBench": ("Task", "Explanation"),
    "Runs": ("Task", "Solution"),
}


class KBEntry(BaseModel):
    """One benchmark task with its human-written solution guide."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="GAIA task_id or AssistantBench id")
    source: Source
    question: str = Field(description="the task as posed to the agents")
    guide: str = Field(description="annotator steps (GAIA) or explanation (AssistantBench)")
    text: str = Field(description="question and guide joined: the text that is embedded")

    @classmethod
    def make(cls, id: str, source: Source, question: str, guide: str) -> KBEntry:
        """Build an entry and derive its ``text`` from the question and guide."""
        q_label, g_label = LABELS[source]
        question, guide = question.strip(), guide.strip()
        text = f"{q_label}: {question}\n{g_label}: {guide}" if guide else f"{q_label}: {question}"
        return cls(id=id, source=source, question=question, guide=guide, text=text)


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line of a JSONL file."""
    if not path.exists():
        raise InputError(path, "no such file")
    if path.is_dir():
        raise InputError(path, "is a directory, expected a JSONL file")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 (bad byte at offset {exc.start})") from None
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = jsonsafe.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(path, f"line {number}: not JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(row, dict):
            raise InputError(path, f"line {number}: expected a JSON object, got {type(row).__name__}")
        yield number, row


def _field(path: Path, number: int, row: dict[str, Any], name: str, *, required: bool = True) -> str:
    """A string field of a row; missing optional fields read as ``''``."""
    value = row.get(name)
    if value is None:
        if required:
            raise InputError(path, f"line {number}: missing field {name!r}")
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise InputError(path, f"line {number}: field {name!r} must be a string, got {type(value).__name__}")
    if required and not value.strip():
        raise InputError(path, f"line {number}: field {name!r} is empty")
    return value


def _read(path: str | Path, parse: Callable[[Path, int, dict[str, Any]], KBEntry], what: str) -> list[KBEntry]:
    """Parse every row with ``parse``; reject duplicate ids and empty files."""
    p = Path(path)
    entries: list[KBEntry] = []
    seen: dict[str, int] = {}
    for number, row in _rows(p):
        entry = parse(p, number, row)
        if entry.id in seen:
            raise InputError(p, f"line {number}: duplicate id {entry.id!r} (first on line {seen[entry.id]})")
        seen[entry.id] = number
        entries.append(entry)
    if not entries:
        raise InputError(p, f"holds no {what} rows")
    return entries


def _gaia_row(path: Path, number: int, row: dict[str, Any]) -> KBEntry:
    key = _key_like(row, GAIA_META)
    meta = row.get(key) if key else None
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise InputError(path, f"line {number}: field '{key}' must be an object")
    steps = _field(path, number, meta, "Steps", required=False)
    return KBEntry.make(
        id=_field(path, number, row, "task_id").strip(),
        source="GAIA",
        question=_field(path, number, row, "Question"),
        guide=steps,
    )


def _assistantbench_row(path: Path, number: int, row: dict[str, Any]) -> KBEntry:
    return KBEntry.make(
        id=_field(path, number, row, "id").strip(),
        source="AssistantBench",
        question=_field(path, number, row, "task"),
        guide=_field(path, number, row, "explanation", required=False),
    )


def read_gaia(path: str | Path) -> list[KBEntry]:
    """Entries from a GAIA metadata JSONL (``task_id``, ``Question``, and the annotator's ``Steps``)."""
    return _read(path, _gaia_row, "GAIA")


def read_assistantbench(path: str | Path) -> list[KBEntry]:
    """Entries from an AssistantBench JSONL (``id``, ``task``, ``explanation``)."""
    return _read(path, _assistantbench_row, "AssistantBench")


#: reader per source name, in the order sources are stored in a knowledge base
READERS: dict[str, Callable[[str | Path], list[KBEntry]]] = {
    "gaia": read_gaia,
    "assistantbench": read_assistantbench,
}
