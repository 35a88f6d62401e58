"""Log readers: every supported format becomes one :class:`~attrib.trajectory.Trajectory`.

Each reader module exposes ``NAME``, ``detect(doc) -> None | reason`` and ``read(doc) -> Trajectory``.
``load_log`` picks the reader by structure (``format="auto"``) or by name.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from types import ModuleType

from ..errors import InputError
from ..trajectory import Trajectory
from . import (
    attrib_jsonl,
    chat,
    chatdev,
    history,
    mast,
    otel,
    taubench,
    transcript,
    whowhen,
)
from .document import Document
from .source import open_lean

# Detection order matters: the first reader whose detect() accepts the document wins.
READERS: list[ModuleType] = [whowhen, attrib_jsonl, chatdev, mast, taubench, otel, chat, history, transcript]
LOG_SUFFIXES = {".json", ".jsonl", ".txt", ".log"}


def register(reader: ModuleType) -> None:
    if reader not in READERS:
        READERS.append(reader)


def format_names() -> list[str]:
    return [r.NAME for r in READERS]


def _reader(name: str) -> ModuleType:
    for r in READERS:
        if r.NAME == name:
            return r
    raise InputError(None, f"unknown format {name!r} (known: {', '.join(format_names())})")


def detect_format(doc: Document) -> str:
    reasons = []
    for r in READERS:
        why = r.detect(doc)
        if why is None:
            return r.NAME
        reasons.append(f"{r.NAME}: {why}")
    raise InputError(doc.path, "unrecognized log format; tried " + "; ".join(reasons))


def load_log(path: str | Path, format: str = "auto") -> Trajectory:
    """Read one log file into a Trajectory; raises InputError with a one-line message.

    Big inputs are read lean (one copy in memory: JSON parsed from the file, JSON Lines line by line).
    """
    doc = open_lean(path)
    name = detect_format(doc) if format == "auto" else format
    return _reader(name).read(doc)


def load_log_lean(path: str | Path, format: str = "auto") -> Trajectory:
    """Like :func:`load_log`, holding one copy of a big input: JSON parsed straight from the file,
    JSON Lines parsed line by line, no text kept (see :mod:`attrib.readers.source`)."""
    doc = open_lean(path)
    name = detect_format(doc) if format == "auto" else format
    return _reader(name).read(doc)


def iter_log_paths(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Expand files and folders (recursively, sorted naturally) into log files."""
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise InputError(p, "no such file or directory")
        if p.is_dir():
            found = sorted((f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in LOG_SUFFIXES), key=_natural)
            if not found:
                raise InputError(p, "directory holds no log files (*.json, *.jsonl, *.txt, *.log)")
            yield from found
        else:
            yield p


def _natural(p: Path) -> tuple:
    stem = p.stem
    return (str(p.parent), (0, int(stem), "") if stem.isdigit() else (1, 0, stem))


__all__ = ["Document", "READERS", "detect_format", "format_names", "iter_log_paths", "load_log", "load_log_lean",
           "open_lean", "register"]
