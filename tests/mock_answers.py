"""Realistic, valid answers to every prompt attrib sends, for tests and benchmarks.

:func:`make_realistic_responder` plugs into :class:`mockserver.MockServer`. It
recognises the answer type from the request's ``response_format`` schema name and
answers with a well-formed value of realistic length, deterministic for a given
request and seed. CHIEF's answers follow its lean schemas the way a capable model
does: OTAR fields and patterns of a few words, one node per agent acting in a
subtask (read from the log in the prompt), one pattern per edge between two agents,
step verdicts quoting words of the step they judge, reasons of one or two sentences. It
is what the token benchmarks measure against: how many tokens attrib *sends* does
not depend on the model, but what later CHIEF stages receive depends on the
length of earlier answers.
"""

from __future__ import annotations

import hashlib
import itertools
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
_STEP = re.compile(r"^--- step (\d+) \| agent: ([^\n]*)\n<content>\n(.*?)\n</content>", re.M | re.S)
_PAIR = re.compile(r"^Pair (\d+) -> (\d+):", re.M)
_AGENT_EDGES = ("obs_dependency", "reasoning_continuation", "decision_dependency", "environment_feedback", "memory_ref")
_SCENARIOS = ("local", "planning_control", "data_flow", "deviation_aware")


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
    return [{"name": _text(rng, 2, 4)[:-1], "start": a, "end": b} for a, b in _split(n, k)]


def _log(body: dict) -> dict[int, tuple[str, str]]:
    """step -> (agent, content) as rendered in the request's prompt (CHIEF's shared prefix holds the whole log)."""
    text = " ".join(m.get("content") or "" for m in body.get("messages", []))
    return {int(i): (agent.split(" [")[0], content) for i, agent, content in _STEP.findall(text)}


def _quote(rng: random.Random, content: str) -> str:
    """A few words copied from the step, as a model quoting the step it judges would."""
    words = content.split()
    if len(words) <= 6:
        return " ".join(words) or "(empty step)"
    start = rng.randrange(0, len(words) - 5)
    return " ".join(words[start:start + rng.randint(3, 6)])


def _graph(n: int, schema: dict, body: dict, rng: random.Random) -> dict:
    """A lean graph answer: one node per acting agent per subtask, short OTAR, one pattern per cross-agent edge."""
    subtasks = _subtasks(n, rng)
    ids, allowed = [f"S{i}" for i in range(1, len(subtasks) + 1)], _enum(schema, "AgentNodeDraft", "agent")
    log = _log(body)
    nodes, agt = [], []
    for sid, sub in zip(ids, subtasks, strict=True):
        acting = [log[i][0] for i in range(sub["start"], sub["end"] + 1) if i in log and log[i][0] in allowed] or allowed[:1]
        for agent in dict.fromkeys(acting):
            nodes.append({"subtask": sid, "agent": agent, **{f: _text(rng, 2, 6) for f in ("observation", "thought", "action", "result")}})
        handovers = list(dict.fromkeys((a, b) for a, b in itertools.pairwise(acting) if a != b))[:2]
        agt += [{"subtask": sid, "source": a, "target": b, "type": rng.choice(_AGENT_EDGES),
                 "patterns": [{"scenario": rng.choice(_SCENARIOS), "bias": _text(rng, 2, 5), "anomaly": _text(rng, 2, 5)}]}
                for a, b in handovers]
    sub = [{"source": a, "target": b, "type": rng.choice(["data_dependency", "logical_prereq"])} for a, b in itertools.pairwise(ids)]
    k = min(5, max(1, n // 3))
    producers = sorted(rng.sample(range(max(n - 1, 1)), min(k, max(n - 1, 1))))
    edges = [{"producer": p, "consumer": min(n - 1, p + rng.randint(1, 3)), "data": _text(rng, 2, 5)} for p in producers]
    return {"subtasks": subtasks, "agent_nodes": nodes, "subtask_edges": sub, "agent_edges": agt,
            "step_edges": [e for e in edges if e["producer"] < e["consumer"]]}


def _backtracking(n: int, schema: dict, body: dict, rng: random.Random) -> dict:
    ids, agents = _enum(schema, "SubtaskVerdict", "subtask"), _enum(schema, "AgentVerdict", "agent")
    log = _log(body)
    def items() -> list[str]:
        return [_text(rng, 3, 7) for _ in range(1 if rng.random() < 0.7 else 2)]

    oracles = [{"subtask": s, "goal": _text(rng, 3, 8), "key_evidence": items(), "acceptance_criteria": items()} for s in ids]
    flagged = ids[-1:] if len(ids) < 2 else rng.sample(ids, 2)
    ranked = rng.sample(range(n), min(rng.randint(4, 6), n))
    judged = sorted(ranked[: min(len(ranked), rng.randint(3, 5))])
    return {"most_likely_step": rng.choice(ranked[:2]), "most_likely_reason": _text(rng, 12, 22), "oracles": oracles,
            "subtask_verdicts": [{"subtask": s, "discrepancy": s in flagged,
                                  "reason": _text(rng, 8, 14) if s in flagged else _text(rng, 4, 8)} for s in reversed(ids)],
            "agent_verdicts": [{"subtask": s, "agent": a, "discrepancy": i == 0, "reason": _text(rng, 6, 12)}
                               for s in flagged for i, a in enumerate(rng.sample(agents, min(rng.randint(1, 2), len(agents))))],
            "step_verdicts": [{"step": x, "quote": _quote(rng, log.get(x, ("", ""))[1]), "discrepancy": True,
                               "reason": _text(rng, 8, 14)} for x in judged],
            "ranked_steps": ranked}


def _screening(n: int, schema: dict, body: dict, rng: random.Random) -> dict:
    step_schema = schema["properties"]["step"]
    choices = step_schema.get("enum") or list(range(step_schema.get("minimum", 0), step_schema.get("maximum", n - 1) + 1))
    text = " ".join(m.get("content") or "" for m in body.get("messages", []))
    pairs = [(int(a), int(b)) for a, b in _PAIR.findall(text)]
    step = rng.choice(choices)
    runner = rng.choice([c for c in choices if c != step] or choices)
    handoffs = []
    for a, b in pairs:
        fault = "upstream" if step == a else "downstream" if step == b else rng.choice(["upstream", "downstream", "neither"])
        handoffs.append({"upstream_step": a, "downstream_step": b, "relation": rng.choice(["instruction", "tool_result"]),
                         "at_fault": fault, "reason": _text(rng, 12, 22)})
    return {"local": _text(rng, 10, 18), "planning_control": _text(rng, 10, 18), "data_flow": _text(rng, 10, 18),
            "handoffs": handoffs, "final_screening": _text(rng, 10, 18), "agent": rng.choice(_enum(schema, "", "agent")),
            "step": step, "reason": _text(rng, 25, 40), "runner_up_step": runner, "runner_up_reason": _text(rng, 10, 18)}


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
        return _graph(n, schema, body, rng)
    if name == "Backtracking":
        return _backtracking(n, schema, body, rng)
    if name == "Screening":
        return _screening(n, schema, body, rng)
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
