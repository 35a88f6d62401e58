"""Realistic, valid answers to every prompt attrib sends, for tests and benchmarks.

:func:`make_realistic_responder` plugs into :class:`mockserver.MockServer`. It
recognises the answer type from the request's ``response_format`` schema name and
answers with a well-formed value of realistic length (sentences of 15-50 words,
a handful of subtasks and edges), deterministic for a given request and seed. It
is what the token benchmarks measure against: how many tokens attrib *sends* does
not depend on the model, but what later CHIEF stages receive depends on the
length of earlier answers.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Callable
from typing import Any

from mockserver import make_schema_responder

_WORDS = ("the agent searched the page and extracted the value that the plan required before reporting a result "
          "to the orchestrator which then asked for verification of the number against the source table while "
          "the constraint from the task was checked and the output was passed to the next step").split()
_LOG_SIZE = re.compile(r"The log has (\d+) steps")
_REVIEW = re.compile(r"Step under review: step (\d+)")


def _text(rng: random.Random, lo: int, hi: int) -> str:
    n = rng.randint(lo, hi)
    return " ".join(rng.choice(_WORDS) for _ in range(n)).capitalize() + "."


def _enum(schema: dict, def_name: str, field: str) -> list:
    node = schema.get("$defs", {}).get(def_name, schema) if def_name else schema
    return node["properties"][field].get("enum", [])


def _n_steps(body: dict) -> int:
    text = " ".join(m.get("content") or "" for m in body.get("messages", []))
    m = _LOG_SIZE.search(text)
    return int(m.group(1)) if m else 1


def _split(n: int, k: int) -> list[tuple[int, int]]:
    k = max(1, min(k, n))
    bounds = [round(i * n / k) for i in range(k + 1)]
    return [(bounds[i], bounds[i + 1] - 1) for i in range(k)]


def _subtasks(n: int, rng: random.Random) -> list[dict]:
    k = min(n, 2 + n // 12, 6)
    return [{"name": _text(rng, 2, 4)[:-1], "description": _text(rng, 12, 20), "start": a, "end": b} for a, b in _split(n, k)]


def answer_for(name: str, schema: dict, body: dict, rng: random.Random, decisive_rate: float) -> Any:
    n = _n_steps(body)
    if name == "AgentStepAnswer":
        steps = schema["properties"]["step"]
        choices = steps.get("enum") or list(range(steps.get("minimum", 0), steps.get("maximum", n - 1) + 1))
        return {"agent": rng.choice(_enum(schema, "", "agent")), "step": rng.choice(choices), "reason": _text(rng, 30, 50)}
    if name == "StepJudgement":
        return {"decisive": rng.random() < decisive_rate, "reason": _text(rng, 15, 30)}
    if name == "HalfChoice":
        return {"half": rng.choice(["first", "second"]), "reason": _text(rng, 10, 20)}
    if name == "Decomposition":
        return {"subtasks": _subtasks(n, rng)}
    if name == "GraphDraft":
        subtasks = _subtasks(n, rng)
        ids, agents = [f"S{i}" for i in range(1, len(subtasks) + 1)], _enum(schema, "AgentNodeDraft", "agent")
        nodes = [{"subtask": s, "agent": a, **{f: _text(rng, 12, 25) for f in ("observation", "thought", "action", "result")}}
                 for s in ids for a in rng.sample(agents, min(2, len(agents)))]
        pattern = lambda sc: {"scenario": sc, "bias": _text(rng, 8, 15), "anomaly": _text(rng, 8, 15)}  # noqa: E731
        sub = [{"source": a, "target": b, "type": "data_dependency", "patterns": [pattern("data_flow")]} for a, b in zip(ids, ids[1:])]
        agt = [{"subtask": s, "source": agents[0], "target": agents[-1], "type": "decision_dependency",
                "patterns": [pattern("local"), pattern("planning_control")]} for s in ids if len(agents) > 1]
        edges = [{"producer": p, "consumer": p + rng.randint(1, 3), "data": _text(rng, 3, 6), "data_type": "text"}
                 for p in sorted(rng.sample(range(max(n - 3, 1)), min(6, max(n - 3, 1))))]
        return {"subtasks": subtasks, "agent_nodes": nodes, "subtask_edges": sub, "agent_edges": agt,
                "step_edges": [e for e in edges if e["consumer"] < n]}
    if name == "Backtracking":
        ids, agents = _enum(schema, "SubtaskVerdict", "subtask"), _enum(schema, "AgentVerdict", "agent")
        oracles = [{"subtask": s, "goal": _text(rng, 12, 20), "preconditions": [_text(rng, 8, 14)],
                    "key_evidence": [_text(rng, 8, 14), _text(rng, 8, 14)],
                    "acceptance_criteria": [_text(rng, 8, 14), _text(rng, 8, 14)]} for s in ids]
        flagged = ids[-1:] if len(ids) < 2 else rng.sample(ids, 2)
        steps = sorted(rng.sample(range(n), min(3, n)))
        return {"oracles": oracles, "subtask_verdicts": [{"subtask": s, "discrepancy": s in flagged, "reason": _text(rng, 15, 25)} for s in reversed(ids)],
                "agent_verdicts": [{"subtask": s, "agent": rng.choice(agents), "discrepancy": True, "reason": _text(rng, 15, 25)} for s in flagged],
                "step_verdicts": [{"step": x, "discrepancy": True, "reason": _text(rng, 15, 25)} for x in steps],
                "ranked_steps": steps}
    if name == "Screening":
        step_schema = schema["properties"]["step"]
        choices = step_schema.get("enum") or list(range(step_schema.get("minimum", 0), step_schema.get("maximum", n - 1) + 1))
        return {"local": _text(rng, 15, 25), "planning_control": _text(rng, 15, 25), "data_flow": _text(rng, 15, 25),
                "final_screening": _text(rng, 15, 25), "agent": rng.choice(_enum(schema, "", "agent")),
                "step": rng.choice(choices), "reason": _text(rng, 30, 50)}
    return None


def make_realistic_responder(seed: int = 0, decisive_rate: float = 0.12) -> Callable[[dict], str]:
    """A MockServer responder giving valid, realistic answers to attrib's prompts (see module docstring)."""
    fallback = make_schema_responder(seed)

    def respond(body: dict) -> str:
        fmt = body.get("response_format") or {}
        spec = fmt.get("json_schema") or {}
        digest = hashlib.sha256(json.dumps([seed, body.get("messages")], sort_keys=True).encode()).hexdigest()
        rng = random.Random(int(digest[:16], 16))
        value = answer_for(spec.get("name", ""), spec.get("schema") or {}, body, rng, decisive_rate)
        return json.dumps(value) if value is not None else fallback(body)

    return respond
