"""Log readers: every supported format becomes one :class:`~attrib.trajectory.Trajectory`.

Each reader module exposes ``NAME``, ``detect(doc) -> None | reason`` and ``read(doc) -> Trajectory``,
registered as a :class:`Reader` in :data:`READERS` (third-party readers: :func:`register`).
``load_log`` picks the reader by structure (``format="auto"``) or by name. ``PATH#ID`` reads one
record of a file holding several (τ-bench, MAST; :mod:`attrib.readers.multi`), and ``iter_log_paths``
expands such a file into one ``PATH#ID`` per record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .. import jsonsafe
from ..errors import InputError
from ..registry import Registry
from ..trajectory import Trajectory
from . import (
    attrib_jsonl,
    chat,
    chatdev,
    history,
    mast,
    openinference,
    otel,
    swe_agent,
    taubench,
    traceelephant,
    trajdebug,
    transcript,
    whowhen,
)
from .document import Document, split_record
from .folders import task_folder
from .multi import record_paths
from .source import first_char, open_lean, records


@dataclass(frozen=True)
class Reader:
    """A log-format plugin: ``detect`` returns None when the document is its format, else why not."""

    name: str
    detect: Callable[[Document], str | None]
    read: Callable[[Document], Trajectory]
    aliases: tuple[str, ...] = ()


def _unknown_format(problem: str) -> InputError:
    return InputError(None, problem)


# Detection order matters: the first reader whose detect() accepts the document wins. SWE-agent comes
# before Who&When (a .traj also has 'history'); the benchmark formats before the generic otel/chat readers.
READERS: Registry[Reader] = Registry("log format", error=_unknown_format)
for _module in (swe_agent, whowhen, attrib_jsonl, chatdev, mast, taubench, trajdebug, traceelephant, openinference,
                otel, chat, history, transcript):
    READERS.register(Reader(_module.NAME, _module.detect, _module.read, getattr(_module, "ALIASES", ())))
LOG_SUFFIXES = {".json", ".jsonl", ".txt", ".log", ".traj"}
# Formats whose files may hold several records, each a case: (reader, is_record, the records' id key).
MULTI_RECORD = ((mast.NAME, mast.is_record, mast.ID_KEY), (taubench.NAME, taubench.is_record, taubench.ID_KEY))


def register(reader: Reader, *, before: str | None = None) -> Reader:
    """Add a reader (by default tried last; ``before="chat"`` to be tried before the generic chat reader)."""
    return READERS.register(reader, before=before)


def format_names() -> list[str]:
    return READERS.names()


def is_format(name: str) -> bool:
    """True when ``name`` is a reader's name or one of its aliases (``trail`` for ``openinference``)."""
    return any(name == r.name or name in r.aliases for r in READERS)


def _reader(name: str) -> Reader:
    """The reader named ``name`` or aliased so; InputError listing the known names otherwise."""
    return next((r for r in READERS if name in r.aliases), None) or READERS.get(name)


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
    try:
        traj = _reader(name).read(doc)
    except InputError as exc:
        if doc.record is None or exc.path != str(doc.path):
            raise
        raise InputError(f"{doc.path}#{doc.record}", exc.problem) from None  # name the record that failed
    if doc.record is not None and traj.metadata.get("record") is None:
        raise InputError(doc.path, f"'#{doc.record}' selects one record, but this {name} log is one record "
                                   "(only tau-bench and MAST files hold several)")
    return traj


def iter_log_paths(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Expand files and folders (recursively, sorted naturally) into logs.

    A task folder that is one log (:mod:`attrib.readers.folders`) is yielded once, as the
    folder, instead of its member files; so is one of its member files given by name. A τ-bench or
    MAST file holding several records is yielded once per record, as ``PATH#ID``; ``PATH#ID`` given
    by name is yielded as is.
    """
    yielded: set[Path] = set()
    for raw in paths:
        p = Path(raw)
        base, selector = split_record(p)
        if not base.exists():
            raise InputError(p, "no such file or directory")
        logs = [p] if selector is not None else _logs_in(p) if p.is_dir() else [task_folder(p) or p]
        for log in logs:
            for found in [log] if selector is not None else _records_of(log):
                if found not in yielded:
                    yielded.add(found)
                    yield found


def _records_of(path: Path) -> list[Path]:
    """``PATH#ID`` per record of a τ-bench/MAST file holding several, else ``[path]``.

    Only a JSON list or a JSON Lines file whose first line is such a record is parsed here.
    """
    if not path.is_file():
        return [path]
    try:
        first = first_char(path)
        if first != "[" and not (path.suffix.lower() == ".jsonl" and first == "{" and _first_line_is_record(path)):
            return [path]
        items = records(open_lean(path))
    except (InputError, OSError, UnicodeDecodeError, ValueError):
        return [path]  # unreadable here: the reader says why when the log is loaded
    if not isinstance(items, list):
        return [path]
    for _name, is_record, id_key in MULTI_RECORD:
        if items and all(is_record(v) for v in items):
            return record_paths(path, items, id_key)
    return [path]


def _first_line_is_record(path: Path) -> bool:
    with path.open(encoding="utf-8-sig") as fh:
        line = next((ln for ln in fh if ln.strip()), "")
    value = jsonsafe.loads(line)
    return any(is_record(value) for _name, is_record, _key in MULTI_RECORD)


def _logs_in(folder: Path) -> list[Path]:
    if task_folder(folder):
        return [folder]
    tasks = sorted((d for d in folder.rglob("*") if d.is_dir() and task_folder(d)), key=_natural)
    files = [f for f in folder.rglob("*") if f.is_file() and f.suffix.lower() in LOG_SUFFIXES
             and not any(t in f.parents for t in tasks)]
    found = sorted([*files, *tasks], key=_natural)
    if not found:
        raise InputError(folder, "directory holds no log files (*.json, *.jsonl, *.txt, *.log, *.traj) "
                                 "or task folders")
    return found


def _natural(p: Path) -> tuple[str, tuple[int, int, str]]:
    stem = p.stem
    return (str(p.parent), (0, int(stem), "") if stem.isdigit() else (1, 0, stem))


__all__ = ["READERS", "Document", "Reader", "detect_format", "format_names", "is_format", "iter_log_paths", "load_log",
           "open_lean", "register", "split_record"]
