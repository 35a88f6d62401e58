"""A source file read once: its text, and its JSON value when it is JSON.

``PATH#ID`` names one record of a file that holds several (a τ-bench result list, a MAST/MAD trace
list): :func:`split_record` splits it, and the opened :class:`Document` keeps the selector as
``record`` for the reader to apply (:mod:`attrib.readers.multi`). A name that really contains ``#``
still opens: the string is split (on its last ``#``) only when it is not an existing file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import jsonsafe
from ..errors import InputError

_UNSET = object()


def existing_file(path: str | Path) -> Path:
    """``path`` as a Path, or InputError when it is missing or a directory."""
    p = Path(path)
    if not p.exists():
        raise InputError(p, "no such file")
    if p.is_dir():
        raise InputError(p, "is a directory, expected a log file")
    return p


def split_record(path: str | Path) -> tuple[Path, str | None]:
    """``(file, record selector)`` of ``PATH#ID``; ``(path, None)`` when ``path`` exists or has no ``#``."""
    p = Path(path)
    if p.exists() or "#" not in p.name:
        return p, None
    name, _, selector = p.name.rpartition("#")
    if not name:
        return p, None
    return p.with_name(name), selector.strip()


def log_id(path: str | Path) -> str:
    """The case id a log path gets when it cannot be read: its file stem, ``<stem>#<ID>`` for a record."""
    base, selector = split_record(path)
    return base.stem if selector is None else f"{base.stem}#{selector}"


@dataclass
class Document:
    path: Path
    text: str
    _json: Any = field(default=_UNSET, repr=False)
    _json_error: str | None = field(default=None, repr=False)
    record: str | None = None  # PATH#ID: the id (or 0-based position) of the record to read, None: the file

    @classmethod
    def open(cls, path: str | Path) -> Document:
        p = existing_file(path)
        try:
            raw = p.read_bytes()
        except OSError as exc:
            raise InputError(p, f"cannot read: {exc.strerror or exc}") from None
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InputError(p, f"not UTF-8 (bad byte at offset {exc.start})") from None
        if not text.strip():
            raise InputError(p, "file is empty")
        return cls(path=p, text=text)

    @property
    def json(self) -> Any:
        """The parsed JSON value; raises InputError when the file is not JSON."""
        if self._json is _UNSET:
            try:
                self._json = jsonsafe.loads(self.text)
            except jsonsafe.TooDeep as exc:
                raise InputError(self.path, exc.problem) from None
            except json.JSONDecodeError as exc:
                self._json = None
                self._json_error = jsonsafe.problem(exc)
        if self._json_error:
            raise InputError(self.path, self._json_error)
        return self._json

    @property
    def is_json(self) -> bool:
        try:
            _ = self.json  # parsed once and kept; raises InputError when the text is not JSON
        except InputError:
            return False
        return True
