"""JSON Schemas for structured answers, derived from pydantic models.

``schema_for`` makes a schema acceptable to strict structured-output endpoints
(every property required, no extra properties). ``constrain`` narrows fields to
the log at hand (the agent enum, the step range), so a grammar-constrained
model can only produce valid answers. ``schema_hint`` is the plain-language
answer format appended to every prompt, whichever response mode is used.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

from pydantic import BaseModel


def _strict(node: Any) -> Any:
    if isinstance(node, dict):
        node = {k: _strict(v) for k, v in node.items() if k not in ("title", "default", "aliases")}
        if node.get("type") == "object" and "properties" in node:
            node["required"] = list(node["properties"])
            node["additionalProperties"] = False
        return node
    if isinstance(node, list):
        return [_strict(v) for v in node]
    return node


@cache
def _schema_json(model: type[BaseModel]) -> str:
    return json.dumps(_strict(model.model_json_schema()))


def schema_for(model: type[BaseModel]) -> dict[str, Any]:
    """The strict JSON Schema of ``model`` (a fresh copy: callers may narrow it)."""
    schema: dict[str, Any] = json.loads(_schema_json(model))
    return schema


def constrain(schema: dict[str, Any], **fields: dict[str, Any]) -> dict[str, Any]:
    """Return a copy with extra keywords on top-level properties, e.g. ``agent={"enum": [...]}``."""
    out = copy.deepcopy(schema)
    for name, extra in fields.items():
        prop = out["properties"][name]
        if "anyOf" in prop:  # optional field: constrain the non-null branch
            for branch in prop["anyOf"]:
                if branch.get("type") != "null":
                    branch.update(extra)
        else:
            prop.update(extra)
    return out


def _describe(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        values = prop["enum"]
        if all(isinstance(v, int) for v in values) and len(values) > 6:
            return f"integer {min(values)}-{max(values)}"
        return "one of: " + ", ".join(json.dumps(v, ensure_ascii=False) for v in values)
    if "anyOf" in prop:
        return " or ".join(_describe(b) for b in prop["anyOf"])
    kind = str(prop.get("type", "value"))
    if kind == "integer" and "minimum" in prop and "maximum" in prop:
        return f"integer {prop['minimum']}-{prop['maximum']}"
    return kind


def schema_hint(schema: dict[str, Any]) -> str:
    props = schema.get("properties", {})
    simple = all(p.get("type") in ("string", "integer", "boolean", "number") or "enum" in p or "anyOf" in p
                 for p in props.values()) and "$defs" not in schema
    if simple:
        lines = [f'- "{name}": {_describe(p)}' + (f" ({p['description']})" if p.get("description") else "")
                 for name, p in props.items()]
        return "Reply with only one JSON object with these fields:\n" + "\n".join(lines)
    return ("Reply with only one JSON object of this shape (str = text, int a-b = integer in that range, "
            "A|B = one of those values, [x] = a list of x):\n" + skeleton(schema, schema, {}))


def skeleton(node: Any, root: dict[str, Any], seen: dict[tuple[Any, ...], str], field: str = "") -> str:
    """A compact type sketch of a JSON Schema: far fewer tokens than the schema itself.

    A list of choices is spelled out once; later fields with the same choices say ``like <field>``.
    """
    if "$ref" in node:
        node = root["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    if "anyOf" in node:
        return "|".join(skeleton(b, root, seen, field) for b in node["anyOf"])
    if "enum" in node:
        values = node["enum"]
        if all(isinstance(v, int) for v in values) and len(values) > 6:
            return f"int {min(values)}-{max(values)}"
        key = tuple(values)
        if key in seen and len(values) > 2:
            return f"like {seen[key]}"
        seen.setdefault(key, field)
        return "|".join(json.dumps(v, ensure_ascii=False) for v in values)
    kind = node.get("type")
    if kind == "object":
        return "{" + ", ".join(f'"{k}": {skeleton(v, root, seen, k)}' for k, v in node.get("properties", {}).items()) + "}"
    if kind == "array":
        return "[" + skeleton(node.get("items", {}), root, seen, field) + "]"
    if kind == "integer":
        return f"int {node['minimum']}-{node['maximum']}" if "minimum" in node and "maximum" in node else "int"
    return {"string": "str", "boolean": "true|false", "number": "number", "null": "null"}.get(kind, "value")


def constrain_defs(schema: dict[str, Any], rules: dict[str, dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """Like :func:`constrain` for nested models: ``rules = {"DefName": {"field": {"enum": [...]}}}``.

    ``"DefName"`` is a key of ``$defs``; use ``""`` for the top-level object.
    """
    out = copy.deepcopy(schema)
    for def_name, fields in rules.items():
        node = out if not def_name else out.get("$defs", {}).get(def_name)
        if node is None:
            raise KeyError(f"schema has no definition {def_name!r}")
        for field, extra in fields.items():
            node["properties"][field].update(extra)
    return out
