"""Log readers: every supported format becomes one :class:`~attrib.trajectory.Trajectory`.

Each reader module exposes ``NAME``, ``detect(doc) -> None | reason`` and ``read(doc) -> Trajectory``,
registered as a :class:`Reader` in :data:`READERS` (third-party readers: :func:`register`).
``load_log`` picks the reader by structure (``format="auto"``) or by name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from dataclasses import dataclass

from ..errors import InputError
from ..registry import Registry
from ..trajectory import Trajectory
from . import attrib_jsonl, chat, history, otel, transcript, whowhen
from .document import Document
from .source import open_lean


@dataclass(frozen=True)
class Reader:
    """A log-format plugin: ``detect`` returns None when the document is its format, else why not."""

    name: str
    detect: Callable[[Document], str | None]
    read: Callable[[Document], Trajectory]


def _unknown_format(problem: str) -> InputError:
    return InputError(None, problem)


# Detection order matters: the first reader whose detect() accepts the document wins.
READERS: Registry[Reader] = Registry("log format", error=_unknown_format)
for _module in (whowhen, attrib_jsonl, otel, chat, history, transcript):
    READERS.register(Reader(_module.NAME, _module.detect, _module.read))
LOG_SUFFIXES = {".json", ".jsonl", ".txt", ".log"}


def register(reader: Reader, *, before: str | None = None) -> Reader:
    """Add a reader (by default tried last; ``before="chat"`` to be tried before the generic chat reader)."""
    return READERS.register(reader, before=before)


def format_names() -> list[str]:
    return READERS.names()


def detect_format(doc: Document) -> str:
    reasons = []
    for r in READERS:
        why = r.detect(doc)
        if why is None:
            return r.name
        reasons.append(f"{r.name}: {why}")
    raise InputError(doc.path, "unrecognized log format; tried " + "; ".join(reasons))


def load_log(path: str | Path, format: str = "auto") -> Trajectory:
    """Read one log file into a Trajectory; raises InputError with a one-line message.

    Big inputs are read lean (one copy in memory: JSON parsed straight from the file, JSON Lines
    line by line, no text kept; see :mod:`attrib.readers.source`).
    """
    doc = open_lean(path)
    name = detect_format(doc) if format == "auto" else format
    return READERS.get(name).read(doc)


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


__all__ = ["READERS", "Document", "Reader", "detect_format", "format_names", "iter_log_paths", "load_log",
           "open_lean", "register"]
