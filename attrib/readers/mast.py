"""Reader for MAST/MAD records: one multi-agent trace with its failure-mode annotation.

A record is ``{mas_name, llm_name, benchmark_name, trace_id, trace: {trajectory: RAW TEXT},
mast_annotation: {MODE: 0/1, ...}}``, as a JSON object, or several in a JSON list or JSON Lines file
(as MAST/MAD are distributed). One record of such a file is read as ``traces.jsonl#ID``, ID being its
``trace_id`` (its 0-based position when trace ids are missing or repeat), and becomes the case
``traces#ID``; ``attrib evaluate``/``validate`` run every record as its own case. Without a selector
such a file is a one-line error listing its ids (:mod:`attrib.readers.multi`).

The raw text is the MAS's own log, so it is handed to the reader of that MAS:

- ChatDev: :mod:`attrib.readers.chatdev` (phases, infrastructure records, infrastructure failures);
- AG2 / AutoGen and Magentic-One: :mod:`attrib.readers.transcript` for plain text, or
  :mod:`attrib.readers.history` when the text is a JSON message history;

any other MAS (or a text its reader does not accept) is a one-line error naming the MAS. The
trajectory keeps the inner reader's steps and source ids; ``source_format`` is ``mast``, the inner
format is ``metadata["trace_format"]``, and ``mast_annotation`` is kept as trace-level failure modes:
``metadata["mast_annotation"]`` (as written) and ``metadata["failure_modes"]`` (the modes marked
present). MAST labels no agent and no step, so a record carries no gold label.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeGuard

from ..errors import InputError
from ..trajectory import Trajectory
from . import chatdev, history, multi, transcript
from .common import guarded, safe_detect
from .document import Document
from .source import records

NAME = "mast"
ID_KEY = "trace_id"


def _chatdev(doc: Document) -> Trajectory:
    return chatdev.read_text(doc, doc.text)


def _conversation(doc: Document) -> Trajectory:
    """A JSON trace through the history reader, a plain-text one through the transcript reader."""
    if records(doc) is not None:
        name, detect, read = history.NAME, history.detect, history.read
    else:
        name, detect, read = transcript.NAME, transcript.detect, transcript.read
    why = detect(doc)
    if why is not None:
        raise InputError(doc.path, f"{name}: {why}")
    return read(doc)


ROUTES: dict[str, tuple[str, Callable[[Document], Trajectory]]] = {
    "chatdev": ("chatdev", _chatdev),
    "ag2": ("a transcript or history", _conversation),
    "autogen": ("a transcript or history", _conversation),
    "magenticone": ("a transcript or history", _conversation),
}


def mas_key(name: str) -> str:
    """``Magentic-One`` -> ``magenticone``: the routing key of a MAS name."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def is_record(value: Any) -> TypeGuard[dict[str, Any]]:
    trace = value.get("trace") if isinstance(value, dict) else None
    return (isinstance(value, dict) and isinstance(value.get("mas_name"), str) and isinstance(trace, dict)
            and isinstance(trace.get("trajectory"), str))


def _records(doc: Document) -> list[dict[str, Any]] | str:
    """The MAST records of the document (one or several), or why it holds none."""
    value = records(doc)
    if value is None:
        return "not JSON or JSON Lines"
    if is_record(value):
        return [value]
    if isinstance(value, list) and value and all(is_record(v) for v in value):
        return value
    return "not a MAST record (an object with 'mas_name' and 'trace': {'trajectory': text})"


@safe_detect
def detect(doc: Document) -> str | None:
    """None for a MAST/MAD record or a list of them, else why not."""
    found = _records(doc)
    return found if isinstance(found, str) else None


def failure_modes(annotation: Any) -> list[str]:
    """The failure modes an annotation marks present (value 1/true/'yes'), in its order."""
    if not isinstance(annotation, dict):
        return []
    present = []
    for mode, value in annotation.items():
        if value is True or value == 1 or (isinstance(value, str) and value.strip().lower() in ("1", "yes", "true")):
            present.append(str(mode))
    return present


@guarded(NAME)
def read(doc: Document) -> Trajectory:
    return multi.read_selected(doc, _records(doc), ID_KEY, "MAST", _read_record)


def _read_record(doc: Document, found: dict[str, Any]) -> Trajectory:
    mas = found["mas_name"].strip()
    route = ROUTES.get(mas_key(mas))
    if route is None:
        known = "ChatDev, AG2/AutoGen, Magentic-One"
        raise InputError(doc.path, f"MAST record of MAS {mas!r}: no reader for its traces (readable: {known})")
    inner_name, read_inner = route
    text = found["trace"]["trajectory"]
    if not text.strip():
        raise InputError(doc.path, f"MAST record of MAS {mas!r}: empty trace")
    try:
        inner = read_inner(Document(path=doc.path, text=text))
    except InputError as exc:
        raise InputError(doc.path, f"MAST record of MAS {mas!r}: trace not readable as {inner_name}: "
                                   f"{exc.problem}") from None
    annotation = found.get("mast_annotation")
    meta = dict(inner.metadata)
    meta.update({k: found[k] for k in ("mas_name", "llm_name", "benchmark_name", "trace_id")
                 if isinstance(found.get(k), (str, int))})
    meta.update({"trace_format": inner.source_format, "failure_modes": failure_modes(annotation)})
    if isinstance(annotation, dict):
        meta["mast_annotation"] = annotation
    return inner.model_copy(update={"source_format": NAME, "metadata": meta})
