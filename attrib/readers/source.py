"""Structured values of a document: JSON, or JSON Lines read line by line; lean opening of big files.

``records(doc)`` is what the JSON-based readers look at: the parsed JSON value,
or, for a JSON Lines file, the list of its records (blank lines skipped). The
result is cached on the document, so detection by several readers parses once.

``open_lean(path)`` opens a log holding one copy of it instead of two: a JSON
file is parsed straight from the file and no text is kept (``doc.text`` is
empty, ``doc.json`` is the value); a JSON Lines file is parsed one line at a
time (only the records are kept); anything else is opened as text with
``Document.open``. A JSON file is still read whole by ``json.load`` while it is
parsed (the standard library has no incremental parser), but the text is freed
as soon as parsing ends.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .. import jsonsafe
from ..errors import InputError
from .document import Document, existing_file, split_record
from .folders import open_folder, task_folder

_RECORDS = "_attrib_records"
_NONE = object()


def records(doc: Document) -> Any | None:
    """The document's JSON value, its JSON Lines records as a list, or None when it is neither."""
    cached = doc.__dict__.get(_RECORDS, _NONE)
    if cached is not _NONE:
        return cached
    value: Any | None
    if doc.is_json:
        value = doc.json
    else:
        try:
            value = _jsonl(doc.text.splitlines())
        except jsonsafe.TooDeep as exc:
            raise InputError(doc.path, exc.problem) from None
    doc.__dict__[_RECORDS] = value
    return value


def _jsonl(lines: Iterable[str]) -> list[Any] | None:
    """Records of JSON Lines (objects or arrays, one per line); None as soon as a line is not JSON."""
    out: list[Any] = []
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if line[0] not in "{[":
            return None
        try:
            out.append(jsonsafe.loads(line))
        except jsonsafe.TooDeep:
            raise
        except json.JSONDecodeError:
            return None
    return out or None


def open_lean(path: str | Path) -> Document:
    """Open ``path`` keeping one copy of its content (see the module docstring).

    A task folder, or one of its member files, opens as the folder (:mod:`attrib.readers.folders`).
    ``PATH#ID`` opens ``PATH`` with ``doc.record`` set to ``ID`` (:func:`attrib.readers.document.split_record`).
    """
    base, selector = split_record(path)
    if selector is not None and not selector:
        raise InputError(path, "empty record selector after '#' (expected PATH#ID)")
    doc = _open_file(base)
    doc.record = selector
    return doc


def _open_file(path: Path) -> Document:
    folder = task_folder(path)
    if folder is not None:
        return open_folder(folder)
    p = existing_file(path)
    try:
        first = first_char(p)
        if first not in ("{", "["):
            return Document.open(p)
        with p.open(encoding="utf-8-sig") as fh:
            try:
                value = jsonsafe.load(fh)
            except jsonsafe.TooDeep as exc:
                raise InputError(p, exc.problem) from None
            except json.JSONDecodeError:
                value = _NONE
        if value is not _NONE:
            return Document(path=p, text="", _json=value)
        with p.open(encoding="utf-8-sig") as fh:
            lines = _jsonl(fh)
    except jsonsafe.TooDeep as exc:
        raise InputError(p, exc.problem) from None
    except UnicodeDecodeError as exc:
        raise InputError(p, f"not UTF-8 (bad byte at offset {exc.start})") from None
    except OSError as exc:
        raise InputError(p, f"cannot read: {exc.strerror or exc}") from None
    if lines is None:
        return Document.open(p)
    doc = Document(path=p, text="", _json=None, _json_error="not JSON (JSON Lines)")
    doc.__dict__[_RECORDS] = lines
    return doc


def first_char(p: Path) -> str:
    """The first non-blank character of the file ('' for an empty or blank file)."""
    with p.open(encoding="utf-8-sig") as fh:
        while True:
            chunk = fh.read(4096)
            if not chunk:
                return ""
            stripped = chunk.lstrip()
            if stripped:
                return stripped[0]


def find_list(value: Any, keys: tuple[str, ...]) -> tuple[dict[str, Any], list[Any]] | None:
    """``(metadata, items)``: the list under the first of ``keys`` (top level or one object down).

    ``value`` may be a list (the items themselves, metadata empty), an object holding
    the list, or a one-record JSON Lines list holding such an object.
    """
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict):
        found = _in_object(value[0], keys)
        if found is not None:
            return found
    if isinstance(value, list):
        return {}, value
    if isinstance(value, dict):
        return _in_object(value, keys)
    return None


def _in_object(obj: dict[str, Any], keys: tuple[str, ...]) -> tuple[dict[str, Any], list[Any]] | None:
    for key in keys:
        if isinstance(obj.get(key), list):
            return {k: v for k, v in obj.items() if k != key}, obj[key]
    for outer, inner in obj.items():
        if isinstance(inner, dict):
            for key in keys:
                if isinstance(inner.get(key), list):
                    meta = {k: v for k, v in obj.items() if k != outer}
                    return meta, inner[key]
    return None


def split_header(items: list[Any], is_item: Callable[[Any], bool]) -> tuple[dict[str, Any], list[Any]]:
    """A JSON Lines file may start with one metadata record (question, labels): split it off."""
    if len(items) > 1 and isinstance(items[0], dict) and not is_item(items[0]) and all(
        isinstance(x, dict) and is_item(x) for x in items[1:3]
    ):
        return items[0], items[1:]
    return {}, items


def item_list(doc: Document, keys: tuple[str, ...], is_item: Callable[[Any], bool], *,
              missing: str, empty: str, bad_item: str,
              extra_check: Callable[[list[Any]], str | None] | None = None) -> tuple[dict[str, Any], list[Any]] | str:
    """``(metadata, items)`` of the document's list of steps/messages, or the reason there is none.

    ``bad_item`` may hold ``{i}`` for the index of the first item ``is_item`` rejects.
    """
    value = records(doc)
    if value is None:
        return "not JSON or JSON Lines"
    found = find_list(value, keys)
    if found is None:
        return missing
    meta, items = found
    header, items = split_header(items, is_item)
    if not items:
        return empty
    if extra_check and (why := extra_check(items)):
        return why
    for i, item in enumerate(items):
        if not is_item(item):
            return bad_item.format(i=i)
    return {**meta, **header}, items


def structure_reason(doc: Document, parts: Callable[[Any], object]) -> str | None:
    """``detect`` for a JSON reader: None when ``parts`` accepts the parsed document, else the reason it gives.

    ``parts(value)`` returns a string saying why ``value`` is not the format, or anything else when it is.
    """
    value = records(doc)
    if value is None:
        return "not JSON or JSON Lines"
    found = parts(value)
    return found if isinstance(found, str) else None
