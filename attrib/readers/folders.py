"""Logs that are folders: a task folder holding several JSON files read as one case.

A TraceElephant task folder holds ``trace_metadata.json`` and ``step_records.json``. The
folder, or either of the two files, opens as one :class:`Document` whose path is the folder
and whose JSON value is ``{"trace_metadata": ..., "step_records": ...}`` (each file parsed
with the depth-limited parser). ``iter_log_paths`` yields such a folder once, not its files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .. import jsonsafe
from ..errors import InputError
from .document import Document

MEMBERS = ("trace_metadata.json", "step_records.json")


def task_folder(path: str | Path) -> Path | None:
    """The task folder ``path`` names (the folder, or one of its member files), or None."""
    p = Path(path)
    folder = p if p.is_dir() else p.parent if p.name in MEMBERS else None
    if folder is not None and all((folder / name).is_file() for name in MEMBERS):
        return folder
    return None


def _load(p: Path) -> Any:
    try:
        with p.open(encoding="utf-8-sig") as fh:
            return jsonsafe.load(fh)
    except jsonsafe.TooDeep as exc:
        raise InputError(p, exc.problem) from None
    except json.JSONDecodeError as exc:
        raise InputError(p, jsonsafe.problem(exc)) from None
    except UnicodeDecodeError as exc:
        raise InputError(p, f"not UTF-8 (bad byte at offset {exc.start})") from None
    except OSError as exc:
        raise InputError(p, f"cannot read: {exc.strerror or exc}") from None


def open_folder(folder: Path) -> Document:
    """The folder as one document (see the module docstring)."""
    value = {Path(name).stem: _load(folder / name) for name in MEMBERS}
    return Document(path=folder, text="", _json=value)
