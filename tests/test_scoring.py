"""Scoring rules, reports, McNemar and the random baseline (offline, hand-made and real logs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attrib.attribution import Attribution
from attrib.errors import InputError
from attrib.evaluation.predictions import load_trajectories, read_predictions, score_predictions
from attrib.evaluation.records import CaseRecord, read_jsonl, write_jsonl
from attrib.evaluation.scoring import (
    band_of,
    build_report,
    is_failed,
    mcnemar_exact,
    paired_test,
    random_expected,
    score_case,
    within,
)
from attrib.trajectory import GoldLabel, Step, Trajectory

DATA = Path(__file__).resolve().parent / "data" / "who_and_when"  # the vendored subset: 12 + 7 logs
FAST = 200  # bootstrap resamples in tests


def rec(case: str, pred_agent, pred_step, gold_agent="WebSurfer", gold_step=5, status="ok", run=0,
        subset="hand-crafted", n_steps=20, method="m") -> CaseRecord:
    s = score_case(status, pred_agent, pred_step, gold_agent, gold_step)
    return CaseRecord(case_id=case, subset=subset, n_steps=n_steps, method=method, model="x", with_ground_truth=True,
                      run=run, status=status, pred_agent=pred_agent, pred_step=pred_step, gold_agent=gold_agent,
                      gold_step=gold_step, **s.model_dump())


# --------------------------------------------------------------------------- one case


@pytest.mark.parametrize("k", [0, 1, 2, 3, 4, 5])
def test_tolerance_edges(k):
    on_edge = rec("a", "WebSurfer", 5 + k)
    past_edge = rec("b", "WebSurfer", 5 - (k + 1))
    assert within(on_edge, k) and not within(past_edge, k)
    assert on_edge.step_correct is (k == 0)


@pytest.mark.parametrize("pred, gold", [
    ("Orchestrator (thought)", "Orchestrator"),
    ("Orchestrator (-> WebSurfer)", "Orchestrator"),
    ("WebSurfer", "Websurfer"),
    ("web_surfer", "WebSurfer"),
])
def test_agent_name_normalization(pred, gold):
    assert score_case("ok", pred, 1, gold, 1).agent_correct is True


def test_different_agents_are_wrong():
    assert score_case("ok", "FileSurfer", 1, "WebSurfer", 1).agent_correct is False


@pytest.mark.parametrize("step", [-1, 20, 999])
def test_out_of_range_step_is_just_wrong(step):
    s = score_case("ok", "WebSurfer", step, "WebSurfer", 19)
    assert s.step_correct is False and s.agent_correct is True


@pytest.mark.parametrize("status", ["invalid", "error", "no_error_found"])
def test_failed_status_is_wrong_even_with_right_answer(status):
    r = rec("a", "WebSurfer", 5, status=status)
    assert r.agent_correct is False and r.step_correct is False and r.step_distance is None
    assert is_failed(r)


def test_no_gold_gives_none():
    assert score_case("ok", "A", 1, None, None).agent_correct is None


def test_bands():
    assert [band_of(n) for n in (1, 10, 11, 20, 21, 50, 51, 100, 101, 130)] == [
        "1-10", "1-10", "11-20", "11-20", "21-50", "21-50", "51-100", "51-100", ">100", ">100"]


# --------------------------------------------------------------------------- reports


def test_report_counts_failed_and_missing():
    records = [rec("1", "WebSurfer", 5), rec("2", None, None, status="no_error_found"), rec("3", "WebSurfer", None)]
    report = build_report(records, n_boot=FAST)
    assert report.overall.n == 3
    assert report.overall.agent.acc == pytest.approx(200 / 3)
    assert report.overall.step.acc == pytest.approx(100 / 3)
    assert report.overall.failed == 2
    assert report.overall.failed_ids == ["hand-crafted/2", "hand-crafted/3"]
    assert set(report.overall.step_at_k) == {0, 1, 2, 3, 4, 5}


def test_report_ci_and_runs():
    records = [rec(str(i), "WebSurfer", 5 if i % 2 else 6, run=r) for i in range(30) for r in (0, 1)]
    records += [rec("99", "WebSurfer", 5, run=0), rec("99", "WebSurfer", 9, run=1)]
    rep = build_report(records, n_boot=FAST).overall
    assert rep.n == 31 and rep.runs == [0, 1]
    assert rep.step.ci_low <= rep.step.acc <= rep.step.ci_high
    assert rep.step.run_mean == pytest.approx(50.0, abs=2) and rep.step.run_std is not None
    assert build_report(records, n_boot=FAST).overall == rep  # seeded: reproducible


def test_report_subsets_and_bands():
    records = [rec("1", "A", 1, "A", 1, subset="algorithm-generated", n_steps=8),
               rec("2", "A", 1, "B", 1, subset="hand-crafted", n_steps=120)]
    rep = build_report(records, n_boot=FAST)
    assert rep.subsets["algorithm-generated"].agent.acc == 100
    assert rep.subsets["hand-crafted"].agent.acc == 0
    assert set(rep.bands) == {"1-10", ">100"}


# --------------------------------------------------------------------------- paired test


def test_mcnemar_known_table():
    a = [False] * 10 + [True] * 2 + [True] * 30
    b = [True] * 10 + [False] * 2 + [True] * 30
    b01, b10, p = mcnemar_exact(a, b)
    assert (b01, b10) == (10, 2)
    assert p == pytest.approx(0.0386, abs=1e-4)
    assert mcnemar_exact([True, False], [True, False])[2] == 1.0


def test_paired_test_matches_by_case():
    a = [rec(str(i), "WebSurfer" if i < 5 else "X", 5, method="a") for i in range(12)]
    b = [rec(str(i), "WebSurfer", 5, method="b") for i in range(12)] + [rec("extra", "X", 1, method="b")]
    res = paired_test(a, list(reversed(b)), level="agent")
    assert (res.n, res.b01, res.b10, res.only_b) == (12, 7, 0, 1)
    assert res.p_value == pytest.approx(2 / 2**7)


# --------------------------------------------------------------------------- records file


def test_read_jsonl_skips_truncated_last_line(tmp_path):
    path = tmp_path / "cases.jsonl"
    write_jsonl(path, [rec("1", "A", 1), rec("2", "B", 2)])
    with open(path, "a") as fh:
        fh.write('{"case_id": "3", "n_st')
    warnings: list[str] = []
    assert [r.case_id for r in read_jsonl(path, warnings.append)] == ["1", "2"]
    assert len(warnings) == 1 and "line 3" in warnings[0]


def test_read_jsonl_bad_middle_line_is_an_error(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text('{"bad": 1}\n' + rec("2", "B", 2).model_dump_json() + "\n")
    with pytest.raises(InputError, match="line 1"):
        read_jsonl(path)


def test_from_attribution():
    traj = Trajectory(id="7", subset="hand-crafted", steps=[
        Step(index=i, label=lab, agent=lab.split(" (")[0], content="") for i, lab in
        enumerate(["human", "Orchestrator (thought)", "WebSurfer", "Orchestrator (-> WebSurfer)"])],
        gold=GoldLabel(agent="Websurfer", step=2))
    att = Attribution(case_id="7", method="all-at-once", model="m", agent="WebSurfer", step=3)
    r = CaseRecord.from_attribution(att, traj, run=2)
    assert (r.agent_correct, r.step_correct, r.step_distance, r.n_steps, r.run) == (True, False, 1, 4, 2)


# --------------------------------------------------------------------------- real logs


@pytest.fixture(scope="module")
def trajectories():
    return load_trajectories(DATA)


def _attributions_file(path: Path, trajectories, shift: int = 0) -> Path:
    with open(path, "w") as fh:
        for t in trajectories:
            att = Attribution(case_id=t.id, log_path=t.path, method="oracle", model="none",
                              agent=t.gold.agent, step=t.gold.step + shift)
            fh.write(att.model_dump_json() + "\n")
    return path


def test_gold_predictions_score_100(tmp_path, trajectories):
    assert len(trajectories) == 19
    preds = read_predictions(_attributions_file(tmp_path / "p.jsonl", trajectories))
    rep = build_report(score_predictions(preds, trajectories), n_boot=FAST)
    assert rep.overall.n == 19
    for sub, n in (("algorithm-generated", 12), ("hand-crafted", 7)):
        g = rep.subsets[sub]
        assert (g.n, g.agent.acc, g.step.acc, g.failed) == (n, 100.0, 100.0, 0)


def test_shifted_steps_tolerance(tmp_path, trajectories):
    preds = read_predictions(_attributions_file(tmp_path / "p.jsonl", trajectories, shift=2))
    rep = build_report(score_predictions(preds, trajectories), n_boot=FAST).overall
    assert rep.step.acc == 0 and rep.step_at_k[1].acc == 0
    assert rep.step_at_k[2].acc == 100 and rep.step_at_k[5].acc == 100
    assert rep.agent.acc == 100


def test_missing_predictions_count_wrong(tmp_path, trajectories):
    hc = [t for t in trajectories if t.subset == "hand-crafted"]
    preds = read_predictions(_attributions_file(tmp_path / "p.jsonl", hc[:3]))
    rep = build_report(score_predictions(preds, hc), n_boot=FAST).overall
    assert rep.n == 7 and rep.agent.acc == pytest.approx(300 / 7) and rep.failed == 4


def test_random_closed_form(trajectories):
    alg = [t for t in trajectories if t.subset == "algorithm-generated"]
    agent, step = random_expected(alg)
    # by definition: the mean over cases of 1/agents and 1/steps (on all 126 logs: 29.10% and 12.00%)
    assert agent == pytest.approx(100 * sum(1 / len(t.agents) for t in alg) / len(alg))
    assert step == pytest.approx(100 * sum(1 / t.n_steps for t in alg) / len(alg))
    assert 0 < step < agent < 100


def test_attribution_json_document(tmp_path):
    att = Attribution(case_id="1", method="m", model="x", agent="A", step=0)
    path = tmp_path / "one.json"
    path.write_text(json.dumps(att.model_dump(mode="json"), indent=2))
    preds = read_predictions(path)
    assert preds.kind == "attributions" and preds.records[0].pred_agent == "A"
