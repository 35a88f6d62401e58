"""CHIEF's planner-or-executor decision and confidence signal, with scripted answers (tests/mockserver.py).

Hand-crafted log 48: step 3 is the Orchestrator's instruction to WebSurfer, step 4 is WebSurfer
carrying it out (the gold label). Backtracking is scripted to rank both and to name step 4 from
its whole-log reading; the screening must then see both steps side by side and decide the pair,
and an answer whose final step contradicts its own decision is sent back once.
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from attrib.chief.graph import CausalGraph
from attrib.chief.handoff import PAIR_CHARS
from attrib.readers import load_log
from attrib.render import render_steps

from mock_answers import make_realistic_responder


def _name(body: dict) -> str:
    return ((body.get("response_format") or {}).get("json_schema") or {}).get("name", "")


def _backtracking(body: dict) -> str:
    ids = body["response_format"]["json_schema"]["schema"]["$defs"]["SubtaskVerdict"]["properties"]["subtask"]["enum"]
    return json.dumps({
        "most_likely_step": 4, "most_likely_reason": "WebSurfer reports an answer it never found.",
        "oracles": [{"subtask": s, "goal": "find rainy-day data", "key_evidence": ["historical rain records"],
                     "acceptance_criteria": ["a probability backed by data"]} for s in ids],
        "subtask_verdicts": [{"subtask": s, "discrepancy": s == ids[-1], "reason": "no data was found"} for s in reversed(ids)],
        "agent_verdicts": [{"subtask": ids[-1], "agent": "WebSurfer", "discrepancy": True, "reason": "answers without data"}],
        "step_verdicts": [{"step": 4, "quote": "Seattle historical weather data", "discrepancy": True, "reason": "typed a query, found nothing"},
                          {"step": 3, "quote": "Please search for historical weather data", "discrepancy": False, "reason": "a sound request"}],
        "ranked_steps": [4, 3, 2]})


def _screening(at_fault: str) -> dict:
    return {"local": "step 4 had sound inputs", "planning_control": "the instruction at 3 was sound",
            "data_flow": "no value was produced before 4",
            "handoffs": [{"upstream_step": 3, "downstream_step": 4, "relation": "instruction", "at_fault": at_fault,
                          "reason": "the request was clear; WebSurfer did not find the data it asked for"}],
            "final_screening": "nothing later repaired it", "agent": "WebSurfer", "step": 4,
            "reason": "WebSurfer answered without the weather data the Orchestrator asked for.",
            "runner_up_step": 3, "runner_up_reason": "the Orchestrator could have asked for a specific source"}


def test_pair_is_decided_on_its_text_and_recorded(hand_dir, mock_server):
    from attrib.cli import app

    log = hand_dir / "48.json"
    traj = load_log(log)
    base = make_realistic_responder()
    screenings = [_screening("upstream"), _screening("downstream")]  # the first contradicts its own final step

    def respond(body: dict) -> str:
        name = _name(body)
        if name == "Backtracking":
            return _backtracking(body)
        if name == "Screening":
            return json.dumps(screenings.pop(0))
        return base(body)

    srv = mock_server(respond)
    res = CliRunner().invoke(app, ["predict", str(log), "--method", "chief", "--json", "--model", "mock-model",
                                   "--base-url", srv.url])
    assert res.exit_code == 0, res.output
    att = json.loads(res.stdout)
    assert (att["agent"], att["step"]) == ("WebSurfer", 4)

    screening = [r.body["messages"] for r in srv.requests if _name(r.body) == "Screening"]
    assert len(screening) == 2  # asked, then re-asked once
    prompt = screening[0][1]["content"]
    both = render_steps([traj.steps[3], traj.steps[4]], PAIR_CHARS)
    assert "Pair 3 -> 4:\n" + both in prompt  # both steps side by side, after the prefix
    assert prompt.index("Pair 3 -> 4:") > prompt.index("The full log:")
    assert "first step whose mistake" in prompt.lower()  # the decisive-step rule
    feedback = screening[1][-1]["content"]
    assert "your answer is step 4, but for pair 3 -> 4 you put the fault on upstream" in feedback

    assert att["handoffs"] == [{"upstream_step": 3, "downstream_step": 4, "relation": "instruction", "at_fault": "downstream",
                                "reason": "the request was clear; WebSurfer did not find the data it asked for"}]
    conf = att["confidence"]
    assert conf["whole_log_step"] == 4 and conf["agrees"] is True
    assert conf["runner_up"]["step"] == 3 and conf["runner_up"]["agent"] == "Orchestrator"
    assert conf["runner_up"]["note"] == "the Orchestrator could have asked for a specific source"
    views = {v["stage"]: v for v in att["details"]["stage_views"]}
    assert views["chief.attribute"]["side_by_side"] == [3, 4]
    assert views["chief.backtrack"]["judged"] == [3, 4]
    graph = CausalGraph.model_validate(att["details"]["graph"])
    assert {int(v.target): v.quote_found for v in graph.verdicts if v.level == "step"} == {3: True, 4: True}


def test_disagreement_with_the_whole_log_reading_is_reported(hand_dir, mock_server, make_llm):
    from attrib.api import predict

    traj = load_log(hand_dir / "48.json")
    base = make_realistic_responder()
    final = {**_screening("upstream"), "agent": "Orchestrator", "step": 3, "runner_up_step": 4,
             "runner_up_reason": "WebSurfer could still have searched further"}

    def respond(body: dict) -> str:
        name = _name(body)
        return _backtracking(body) if name == "Backtracking" else json.dumps(final) if name == "Screening" else base(body)

    att = predict(traj, "chief", client=make_llm(mock_server(respond)))
    assert att.status == "ok" and att.step == 3
    assert att.handoffs[0].at_fault == "upstream"
    assert att.confidence is not None and att.confidence.agrees is False and att.confidence.whole_log_step == 4
    assert att.confidence.runner_up is not None and att.confidence.runner_up.step == 4


def test_pairs_open_at_leading_candidates_only():
    from attrib.chief.graph import CausalGraph
    from attrib.chief.handoff import handoff_pairs
    from attrib.trajectory import Step, Trajectory

    agents = ["Planner", "Worker", "Planner", "Worker", "Planner", "Worker", "Worker", "Planner"]
    traj = Trajectory(id="t", steps=[Step(index=i, label=a, agent=a, content=f"s{i}") for i, a in enumerate(agents)])

    def graph(cands, whole=None):
        return CausalGraph(case_id="t", n_steps=len(agents), agents=["Planner", "Worker"], candidate_steps=cands,
                           whole_log_step=whole)

    # 5 -> 6 is one agent; 3 neighbours the top candidate 4, so it completes a pair though not a candidate
    assert handoff_pairs(traj, graph([4, 6, 1])) == [(3, 4), (4, 5)]
    # a pair around the third candidate needs both steps among the candidates
    assert handoff_pairs(traj, graph([6, 7, 1, 0])) == [(6, 7), (0, 1)]
    assert handoff_pairs(traj, graph([6, 7, 1])) == [(6, 7)]
    # the whole-log reading leads too, wherever it ranks; at most two pairs, best-ranked first
    assert handoff_pairs(traj, graph([6, 7, 5, 3])) == [(6, 7)]
    assert handoff_pairs(traj, graph([6, 7, 5, 3], whole=3)) == [(6, 7), (2, 3)]
    # no ranking at all (m1+m3) gives no pairs
    assert handoff_pairs(traj, graph(list(range(len(agents))))) == []
