"""The five baselines on real Who&When logs, with scripted responders that read the request."""

from __future__ import annotations

import json
import math
import re

import pytest

from attrib.api import predict
from attrib.readers import load_log

LLM_METHODS = ["all-at-once", "step-by-step", "binary-search", "hybrid"]
REVIEW = re.compile(r"Step under review: step (\d+), by ([^.\n]+)\.")
HALVES = re.compile(r"first half of this segment \(steps (\d+) to (\d+)\) or in the second half \(steps (\d+) to (\d+)\)")
SEGMENT = re.compile(r"Segment of the log, steps (\d+) to (\d+):")


def user_prompt(body: dict) -> str:
    return [m for m in body["messages"] if m["role"] == "user"][-1]["content"]


def schema_name(body: dict) -> str:
    return body["response_format"]["json_schema"]["name"]


class Judge:
    """Answers like a model that blames ``agent`` at ``step``: routes on the answer schema of the request."""

    def __init__(self, agent: str | None, step: int, blame_step: int | None = None):
        self.agent, self.step = agent, step  # step: the one judged decisive (-1: none is)
        self.blame_step = step if blame_step is None else blame_step  # what all-at-once names

    def __call__(self, body: dict) -> str:
        prompt, name = user_prompt(body), schema_name(body)
        if name == "AgentStepAnswer":
            return json.dumps({"agent": self.agent, "step": self.blame_step, "reason": "it decided the failure"})
        if name == "StepJudgement":
            reviewed = int(REVIEW.search(prompt).group(1))
            return json.dumps({"decisive": reviewed == self.step, "reason": f"judged step {reviewed}"})
        if name == "HalfChoice":
            lo, mid, nxt, hi = map(int, HALVES.search(prompt).groups())
            return json.dumps({"half": "first" if self.step <= mid else "second", "reason": "narrowing"})
        raise AssertionError(f"unexpected answer schema {name}")


@pytest.fixture(params=["hand-crafted/6.json", "algorithm-generated/12.json"], ids=["hand6", "alg12"])
def traj(request, hand_dir, alg_dir):
    folder, name = request.param.split("/")
    return load_log((hand_dir if folder == "hand-crafted" else alg_dir) / name)


def reviewed_steps(srv) -> list[tuple[int, str]]:
    out = []
    for r in srv.requests:
        if schema_name(r.body) == "StepJudgement":
            k, agent = REVIEW.search(user_prompt(r.body)).groups()
            out.append((int(k), agent))
    return out


# ----------------------------------------------------------------- every method gives a validated answer
@pytest.mark.parametrize("method", LLM_METHODS)
def test_method_returns_validated_attribution(method, traj, mock_server, make_llm):
    gold = traj.gold  # the scripted model names the gold label
    srv = mock_server(Judge(traj.resolve_agent(gold.agent), gold.step))
    att = predict(traj, method, client=make_llm(srv))
    assert att.status == "ok", att.error
    assert att.agent in traj.agents and 0 <= att.step < traj.n_steps
    assert (att.agent, att.step) == (traj.resolve_agent(gold.agent), gold.step)
    assert att.step_excerpt and att.step_source_id == str(gold.step)
    assert att.calls and all(c.valid and c.reasks == 0 for c in att.calls)
    assert att.usage.calls == len(att.calls) == srv.count
    assert att.method == method and att.model == "mock-model" and att.case_id == traj.id


def test_random_is_seeded_and_reports_expected_accuracy(traj):
    first = predict(traj, "random", seed=3)
    again = predict(traj, "random", seed=3)
    assert (first.agent, first.step) == (again.agent, again.step)
    assert first.status == "ok" and first.agent in traj.agents and 0 <= first.step < traj.n_steps
    assert first.calls == [] and first.model == "none"
    assert first.details["expected_agent_accuracy"] == pytest.approx(1 / len(traj.agents))
    assert first.details["expected_step_accuracy"] == pytest.approx(1 / traj.n_steps)
    picks = {(a.agent, a.step) for a in (predict(traj, "random", seed=s) for s in range(20))}
    assert len(picks) > 1  # the seed matters


# ----------------------------------------------------------------- step-by-step
def test_step_by_step_stops_at_the_first_decisive_step(traj, mock_server, make_llm):
    target = traj.n_steps - 2
    srv = mock_server(Judge(None, target))
    att = predict(traj, "step-by-step", client=make_llm(srv))
    assert (att.status, att.step, att.agent) == ("ok", target, traj.steps[target].agent)
    assert reviewed_steps(srv) == [(s.index, s.agent) for s in traj.steps[: target + 1]]
    assert att.details["steps_judged"] == target + 1


def test_step_by_step_all_false_is_no_error_found(traj, mock_server, make_llm):
    srv = mock_server(Judge(None, -1))
    att = predict(traj, "step-by-step", client=make_llm(srv))
    assert att.status == "no_error_found" and att.step is None and att.agent is None
    assert srv.count == traj.n_steps and att.details["steps_judged"] == traj.n_steps


def test_step_by_step_shows_history_up_to_the_reviewed_step(hand_dir, mock_server, make_llm):
    traj = load_log(hand_dir / "6.json")
    srv = mock_server(Judge(None, 3))
    predict(traj, "step-by-step", client=make_llm(srv))
    for k, r in enumerate(srv.requests):
        prompt = user_prompt(r.body)
        assert f"--- step {k} | agent:" in prompt and f"--- step {k + 1} |" not in prompt


# ----------------------------------------------------------------- binary search
def test_binary_search_finds_any_step_within_log2_calls(traj, mock_server, make_llm):
    bound = math.ceil(math.log2(traj.n_steps))
    for target in range(traj.n_steps):
        srv = mock_server(Judge(None, target))
        att = predict(traj, "binary-search", client=make_llm(srv, cache=False))
        assert (att.status, att.step, att.agent) == ("ok", target, traj.steps[target].agent)
        assert 1 <= srv.count <= bound and len(att.details["search_path"]) == srv.count


def test_binary_search_prompts_spell_out_both_halves(hand_dir, mock_server, make_llm):
    traj = load_log(hand_dir / "6.json")  # 8 steps: 0-7 -> 4-7 -> 4-5 -> 5
    srv = mock_server(Judge(None, 5))
    att = predict(traj, "binary-search", client=make_llm(srv))
    seen = []
    for r in srv.requests:
        prompt = user_prompt(r.body)
        lo, mid, nxt, hi = map(int, HALVES.search(prompt).groups())
        assert tuple(map(int, SEGMENT.search(prompt).groups())) == (lo, hi)
        assert nxt == mid + 1 and mid == (lo + hi) // 2
        assert f'"first" for steps {lo}-{mid}, "second" for steps {nxt}-{hi}' in prompt
        shown = [int(k) for k in re.findall(r"^--- step (\d+) \|", prompt, re.M)]
        assert shown == list(range(lo, hi + 1))  # only the segment is shown
        seen.append((lo, mid, hi))
    assert seen == [(0, 3, 7), (4, 5, 7), (4, 4, 5)] and att.step == 5


# ----------------------------------------------------------------- hybrid
def test_hybrid_judges_only_the_chosen_agents_steps(hand_dir, mock_server, make_llm):
    traj = load_log(hand_dir / "6.json")  # Orchestrator acts at 1, 2, 3, 5, 6, 7
    srv = mock_server(Judge("Orchestrator", 6))
    att = predict(traj, "hybrid", client=make_llm(srv))
    assert (att.status, att.agent, att.step) == ("ok", "Orchestrator", 6)
    assert reviewed_steps(srv) == [(1, "Orchestrator"), (2, "Orchestrator"), (3, "Orchestrator"),
                                   (5, "Orchestrator"), (6, "Orchestrator")]
    assert schema_name(srv.requests[0].body) == "AgentStepAnswer" and att.details["steps_judged"] == 5
    assert all("Orchestrator is suspected" in user_prompt(r.body) for r in srv.requests[1:])


def test_hybrid_with_no_decisive_step_keeps_the_agent_only(hand_dir, mock_server, make_llm):
    traj = load_log(hand_dir / "6.json")
    srv = mock_server(Judge("WebSurfer", -1, blame_step=4))
    att = predict(traj, "hybrid", client=make_llm(srv))
    assert (att.status, att.agent, att.step) == ("no_error_found", "WebSurfer", None)
    assert reviewed_steps(srv) == [(4, "WebSurfer")]


# ----------------------------------------------------------------- ground truth in the prompt
@pytest.mark.parametrize("method", LLM_METHODS)
@pytest.mark.parametrize("with_gt", [True, False], ids=["with_gt", "without_gt"])
def test_ground_truth_is_shown_only_when_asked(method, with_gt, traj, mock_server, make_llm):
    srv = mock_server(Judge(traj.resolve_agent(traj.gold.agent), traj.gold.step))
    att = predict(traj, method, client=make_llm(srv), with_ground_truth=with_gt)
    assert att.status == "ok" and att.with_ground_truth is with_gt
    gt_line = f"The correct final answer is: {traj.ground_truth}\n"
    for r in srv.requests:
        prompt = user_prompt(r.body)
        assert (gt_line in prompt) is with_gt
        assert ("The correct final answer is not given" in prompt) is not with_gt
        assert traj.question[:80] in prompt
