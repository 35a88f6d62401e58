"""Files holding several records (a τ-bench result list, a MAST/MAD trace list): one record, one case.

One record of such a file is addressed as ``PATH#ID`` (:func:`attrib.readers.document.split_record`).
``ID`` is the record's own id (τ-bench ``task_id``, MAST ``trace_id``) when every record has one, no two
share it and none holds ``#``, ``/`` or ``\\``; otherwise (ids missing or repeated, e.g. several trials of
one τ-bench task) every record of the file is addressed by its 0-based position (``#3``: the fourth).

The trajectory read from ``PATH#ID`` has the id ``<stem>#<ID>`` and the path ``PATH#ID``, so the records
of one file stay distinct cases in ``attrib evaluate``; source ids are the reader's own.
``metadata["record"]`` is the ID and, when records are addressed by their own ids,
``metadata["record_id"]`` too (label files match it, :func:`attrib.readers.label_file.label_for`).
Reading a file of several records without a selector is a one-line error listing some ids;
``iter_log_paths`` expands the file into one ``PATH#ID`` per record (:func:`record_paths`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..trajectory import Trajectory
from .common import scalar_id
from .document import Document

SHOWN_IDS = 5


@dataclass(frozen=True)
class Selected:
    """The record a ``PATH#ID`` selector chose: its key and whether the key is its own id."""

    key: str
    own_id: bool


def record_keys(items: list[Any], id_key: str) -> tuple[list[str], bool]:
    """The selector of every record (their own ids, else their 0-based positions) and which it is."""
    ids = [scalar_id(r.get(id_key)) if isinstance(r, dict) else None for r in items]
    usable = [i for i in ids if i is not None and not any(c in i for c in "#/\\")]
    if len(usable) == len(items) and len(set(usable)) == len(usable):
        return usable, True
    return [str(i) for i in range(len(items))], False


def _shown(keys: list[str]) -> str:
    return ", ".join(keys[:SHOWN_IDS]) + (", ..." if len(keys) > SHOWN_IDS else "")


def pick(doc: Document, items: list[dict[str, Any]], id_key: str, kind: str) -> tuple[dict[str, Any], Selected | None]:
    """The record ``doc.record`` selects (or the file's only record when there is no selector)."""
    keys, own = record_keys(items, id_key)
    what = f"{id_key}s" if own else "positions (records have no distinct ids)"
    if doc.record is None:
        if len(items) == 1:
            return items[0], None
        raise InputError(doc.path, f"holds {len(items)} {kind} records ({what} {_shown(keys)}); "
                                   f"read one as {doc.path.name}#<id>, or all with 'attrib evaluate'")
    if doc.record not in keys:
        raise InputError(doc.path, f"no {kind} record #{doc.record}: its {len(items)} records are "
                                   f"addressed by {what} ({_shown(keys)})")
    return items[keys.index(doc.record)], Selected(doc.record, own)


def tag(traj: Trajectory, doc: Document, selected: Selected | None) -> Trajectory:
    """``traj`` named after the selected record (unchanged when the file was read whole)."""
    if selected is None:
        return traj
    meta = {**traj.metadata, "record": selected.key}
    if selected.own_id:
        meta["record_id"] = selected.key
    return traj.model_copy(update={"id": f"{Path(doc.path).stem}#{selected.key}",
                                   "path": f"{doc.path}#{selected.key}", "metadata": meta})


def record_paths(path: Path, items: list[Any], id_key: str) -> list[Path]:
    """``PATH#ID`` for every record of a file holding several, ``[path]`` for one record."""
    if len(items) < 2:
        return [path]
    keys, _ = record_keys(items, id_key)
    return [Path(f"{path}#{key}") for key in keys]


def read_selected(doc: Document, records: list[dict[str, Any]] | str, id_key: str, kind: str,
                  read_record: Callable[[Document, dict[str, Any]], Trajectory]) -> Trajectory:
    """Read the record ``doc`` selects (or its only one); ``records`` is a reason string when the file holds none."""
    if isinstance(records, str):
        raise InputError(doc.path, f"not a {kind} record: {records}")
    record, selected = pick(doc, records, id_key, kind)
    return tag(read_record(doc, record), doc, selected)
