"""attrib evaluate over one folder mixing τ-bench (labels in a separate AgentRx file), TrajDebug, a TraceElephant
task folder, a TRAIL trace and Who&When logs: every case is scored, and accuracy is reported per source format."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from attrib.evaluation.records import read_jsonl

from mock_answers import make_realistic_responder

FORMATS = Path(__file__).parent / "data" / "formats"
LABELS = Path(__file__).parent / "data" / "labels"


def _cli():
    from attrib.cli import app

    return app


def test_evaluate_scores_every_case_of_a_mixed_folder(alg_dir, mock_server, tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(FORMATS / "trajdebug_retail.json", logs / "trajdebug_retail.json")
    shutil.copytree(FORMATS / "traceelephant_task", logs / "te_odb")
    shutil.copy(FORMATS / "trail_gaia.json", logs / "trail_gaia.json")
    shutil.copy(alg_dir / "1.json", logs / "1.json")
    srv = mock_server(make_realistic_responder())
    for method in ("all-at-once", "random"):
        out = tmp_path / f"run-{method}"
        res = CliRunner().invoke(_cli(), ["evaluate", str(logs), "--method", method, "--model", "m",
                                          "--base-url", srv.url, "--quiet", "--out", str(out), "--json"],
                                 env={"ATTRIB_API_KEY": "k"})
        assert res.exit_code == 0, res.output
        recs = {r.case_id: r for r in read_jsonl(out / "cases.jsonl")}
        assert set(recs) == {"1", "te_odb", "trail_gaia", "trajdebug_retail"}  # the folder is one case
        assert all(r.status == "ok" and r.error is None for r in recs.values()), recs
        assert all(r.agent_correct is not None and r.step_correct is not None for r in recs.values())
        assert (recs["te_odb"].gold_agent, recs["te_odb"].gold_step) == ("WebSurfer", 3)
        assert (recs["trajdebug_retail"].gold_agent, recs["trajdebug_retail"].gold_step) == ("retail_agent", 5)
        assert (recs["trail_gaia"].gold_agent, recs["trail_gaia"].gold_step) == ("search_agent", 3)
        assert recs["te_odb"].n_steps == 7 and recs["trajdebug_retail"].n_steps == 10
        summary = json.loads(res.stdout)
        assert summary["reports"][0]["overall"]["failed"] == 0


def test_evaluate_reports_accuracy_per_source_over_every_labelled_format(alg_dir, mock_server, tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(FORMATS / "taubench_retail_42.json", logs / "taubench_retail_42.json")
    shutil.copy(FORMATS / "trajdebug_retail.json", logs / "trajdebug_retail.json")
    shutil.copytree(FORMATS / "traceelephant_task", logs / "te_odb")
    for name in ("1", "3"):
        shutil.copy(alg_dir / f"{name}.json", logs / f"{name}.json")
    srv = mock_server(make_realistic_responder())
    out = tmp_path / "run"
    res = CliRunner().invoke(_cli(), ["evaluate", str(logs), "--method", "all-at-once", "--model", "m",
                                      "--base-url", srv.url, "--labels", str(LABELS / "taubench_retail_42.agentrx.json"),
                                      "--quiet", "--out", str(out), "--json"], env={"ATTRIB_API_KEY": "k"})
    assert res.exit_code == 0, res.output
    recs = {r.case_id: r for r in read_jsonl(out / "cases.jsonl")}
    assert {r.source_format for r in recs.values()} == {"tau-bench", "trajdebug", "traceelephant", "who-and-when"}
    assert all(r.status == "ok" and r.agent_correct is not None for r in recs.values()), recs
    tau = recs["taubench_retail_42"]
    assert tau.gold_agent == "assistant" and tau.gold_step is not None  # the label came from the AgentRx file
    sources = json.loads(res.stdout)["reports"][0]["sources"]
    assert {k: v["n"] for k, v in sources.items()} == {"tau-bench": 1, "trajdebug": 1, "traceelephant": 1,
                                                       "who-and-when": 2}
    for fmt, group in sources.items():
        correct = [bool(r.agent_correct) for r in recs.values() if r.source_format == fmt]
        assert group["agent"]["acc"] == pytest.approx(100 * sum(correct) / len(correct))
