"""Tolerant parsing of model answers into pydantic models.

Tried in order: the whole text as JSON; JSON inside a code fence; the first
balanced ``{...}`` object in the text; then ``Label: value`` lines (markdown bold,
numbering and trailing prose tolerated), where the labels are a field's name, its
title, or the ``aliases`` listed in its ``json_schema_extra``. Integers are read
from text such as ``Step 5`` or ``step_id: 12``; booleans from yes/no/true/false.
"""

from __future__ import annotations

import json
import re
import typing
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from .. import jsonsafe

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_INT = re.compile(r"-?\d+")


class ParseError(ValueError):
    pass


def _balanced_object(text: str) -> str | None:
    start = text.find("{")
    while start != -1:
        depth, in_str, esc = 0, False, False
        for i in range(start, len(text)):
            ch = text[i]
            if in_str:
                esc = (ch == "\\") and not esc
                if ch == '"' and not esc:
                    in_str = False
                continue
            if ch == '"':
                in_str = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return text[start : i + 1]
        start = text.find("{", start + 1)
    return None


def extract_json(text: str) -> Any | None:
    candidates = [text.strip()] + [m.strip() for m in _FENCE.findall(text)]
    obj = _balanced_object(text)
    if obj:
        candidates.append(obj)
    for c in candidates:
        try:
            return jsonsafe.loads(c)
        except (json.JSONDecodeError, ValueError):
            continue
    return None


def _base_type(annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _base_type(args[0]) if args else annotation
    return annotation


def _coerce(value: Any, annotation: Any) -> Any:
    base = _base_type(annotation)
    if isinstance(value, str):
        v = value.strip().strip("*").strip()
        if base is int:
            m = _INT.search(v)
            return int(m.group()) if m else value
        if base is bool:
            low = v.lower()
            if re.match(r"^(yes|true|y)\b", low):
                return True
            if re.match(r"^(no|false|n)\b", low):
                return False
        if typing.get_origin(base) is typing.Literal:
            options = typing.get_args(base)
            for opt in options:
                if isinstance(opt, str) and v.lower().startswith(opt.lower()):
                    return opt
        return v
    return value


def _labels(name: str, field: FieldInfo) -> list[str]:
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    aliases = extra.get("aliases")
    labels = [name, name.replace("_", " ")] + ([str(a) for a in aliases] if isinstance(aliases, list) else [])
    if field.title:
        labels.append(field.title)
    return sorted({label.lower() for label in labels}, key=len, reverse=True)


def parse_labeled(text: str, model: type[BaseModel]) -> dict[str, Any]:
    clean = text.replace("**", "").replace("__", "")
    out: dict[str, Any] = {}
    lines = clean.splitlines()
    for name, field in model.model_fields.items():
        for label in _labels(name, field):
            pat = re.compile(rf"^[\s>#\-\d\.\)]*{re.escape(label)}\s*[:=\-]\s*(.*)$", re.I)
            for i, line in enumerate(lines):
                m = pat.match(line)
                if m:
                    value = m.group(1).strip()
                    if not value and i + 1 < len(lines):
                        value = lines[i + 1].strip()
                    out[name] = value
                    break
            if name in out:
                break
    return out


def parse_answer(text: str, model: type[T]) -> T:
    """Parse ``text`` into ``model``; raises ParseError with a reason a model can act on."""
    data = extract_json(text)
    if not isinstance(data, dict):
        data = parse_labeled(text, model)
        if not data:
            raise ParseError("the answer is neither a JSON object nor 'Field: value' lines")
    coerced = {}
    for name, field in model.model_fields.items():
        if name in data:
            coerced[name] = _coerce(data[name], field.annotation)
    for key, value in data.items():
        coerced.setdefault(key, value)
    try:
        return model.model_validate(coerced)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'answer'}: {e['msg']}" for e in exc.errors()[:5])
        raise ParseError(f"the answer does not match the expected fields ({problems})") from None
