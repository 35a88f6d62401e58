"""Schema-valid sample answers: a value for any JSON Schema of the subset pydantic and OpenAI use.

The in-process ``mock`` backend answers with these (a zero-cost dry run of a pipeline), and the
test suite's HTTP mock server uses the same sampler. Samples are deterministic for a given RNG.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from typing import Any

_LONG_FIELDS = ("reason", "explanation", "summary", "thought", "observation", "result", "goal",
                "criteria", "evidence", "rationale", "analysis", "description")
_VOCAB = ("the agent step tool call output plan query result error answer message task user verified "
          "missed assumed returned expected value search code data check final wrong because after "
          "before which handoff instruction context retrieved evidence failed correct incomplete file "
          "number orchestrator assistant web page later earlier constraint did not use request "
          "requirement mismatch log trace decision").split()


class SchemaSampler:
    """Produces a value matching a JSON Schema (the subset pydantic and OpenAI use)."""

    def __init__(self, root: dict[str, Any], rng: random.Random, words: tuple[int, int]) -> None:
        self.root, self.rng, self.words = root, rng, words

    def resolve(self, s: dict[str, Any]) -> dict[str, Any]:
        """Follow local ``$ref`` pointers; sibling keys override the target."""
        while isinstance(s.get("$ref"), str) and s["$ref"].startswith("#/"):
            node: Any = self.root
            for part in s["$ref"][2:].split("/"):
                node = node[part.replace("~1", "/").replace("~0", "~")]
            s = {**node, **{k: v for k, v in s.items() if k != "$ref"}}
        return s

    def text(self, name: str, lo: int | None = None, hi: int | None = None) -> str:
        """Filler prose; long for reason-like field names, short otherwise."""
        n = self.rng.randint(*(self.words if any(k in name.lower() for k in _LONG_FIELDS) else (3, 8)))
        out = " ".join(self.rng.choice(_VOCAB) for _ in range(n)).capitalize() + "."
        out += " x" * ((lo - len(out) + 1) // 2) if lo and len(out) < lo else ""
        return out if hi is None else out[:hi]

    def number(self, s: dict[str, Any], integer: bool) -> int | float:
        step, span = (1, 10) if integer else (1e-6, 1.0)
        lo = s.get("minimum", s["exclusiveMinimum"] + step if "exclusiveMinimum" in s else None)
        hi = s.get("maximum", s["exclusiveMaximum"] - step if "exclusiveMaximum" in s else None)
        lo = lo if lo is not None else (min(0, hi - span) if hi is not None else 0)
        hi = hi if hi is not None else max(span, lo + span)
        if integer:
            return self.rng.randint(math.ceil(lo), math.floor(hi))
        return min(max(round(self.rng.uniform(lo, hi), 3), lo), hi)

    def value(self, s: Any, name: str = "") -> Any:
        """A value for schema ``s``; ``name`` is the property it fills (for string length)."""
        if not isinstance(s, dict):
            return None
        s = self.resolve(s)
        if "const" in s:
            return s["const"]
        if "enum" in s:
            return self.rng.choice(s["enum"])
        if "anyOf" in s or "oneOf" in s:  # prefer the first non-null branch
            opts = [o for o in map(self.resolve, s.get("anyOf") or s["oneOf"]) if o.get("type") != "null"]
            return self.value(opts[0], name) if opts else None
        if "allOf" in s:
            return self.value({k: v for part in s["allOf"] for k, v in self.resolve(part).items()}, name)
        t = s.get("type") or ("object" if "properties" in s else "array" if "items" in s else "string")
        if isinstance(t, list):
            t = next((x for x in t if x != "null"), "null")
        if t == "object":
            return {k: self.value(v, k) for k, v in s.get("properties", {}).items()}
        if t == "array":
            n = min(max(self.rng.randint(2, 3), s.get("minItems", 0)), s.get("maxItems", 10**6))
            return [self.value(s.get("items", {}), name) for _ in range(n)]
        if t in ("integer", "number"):
            return self.number(s, t == "integer")
        if t == "boolean":
            return self.rng.random() < 0.5
        return None if t == "null" else self.text(name, s.get("minLength"), s.get("maxLength"))


def sample_answer(schema: dict[str, Any] | None, key: object, seed: int = 0,
                  words: tuple[int, int] = (25, 60)) -> str:
    """JSON text valid for ``schema`` (or ``{"answer": ...}`` without one), fixed by ``key`` and ``seed``."""
    digest = hashlib.sha256(f"{seed}:{json.dumps(key, sort_keys=True, default=str)}".encode()).hexdigest()
    gen = SchemaSampler(schema if isinstance(schema, dict) else {}, random.Random(int(digest[:16], 16)), words)
    return json.dumps(gen.value(schema) if isinstance(schema, dict) else {"answer": gen.text("answer")})
