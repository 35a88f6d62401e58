"""attrib evaluate: resumable run directory, SIGKILL and resume, failures recorded, budgets, random closed form."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from attrib.evaluation.records import read_jsonl
from attrib.mock_answers import make_realistic_responder


def _cli():
    from attrib.cli import _register_extensions, app

    _register_extensions()
    return app


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_sigkill_mid_run_then_resume_loses_nothing_and_pays_nothing_twice(alg_dir, mock_server, tmp_path):
    srv = mock_server(make_realistic_responder(), latency=0.3)
    logs = tmp_path / "logs"
    logs.mkdir()
    for i in range(1, 21):
        (logs / f"{i}.json").write_bytes((alg_dir / f"{i}.json").read_bytes())
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "attrib.cli", "evaluate", str(logs), "--method", "all-at-once", "--model", "m",
           "--base-url", srv.url, "--concurrency", "2", "--quiet", "--out", str(out)]
    env = {**os.environ, "ATTRIB_API_KEY": "sk-test"}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cases = out / "cases.jsonl"
    deadline = time.time() + 60
    while time.time() < deadline and (not cases.exists() or len(cases.read_text().splitlines()) < 6):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    time.sleep(0.6)  # let the server finish reading requests the killed process had already sent
    before = len(_lines(cases))
    assert 6 <= before < 20
    sent_before = srv.count
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    records = read_jsonl(cases)
    assert sorted(int(r.case_id) for r in records) == list(range(1, 21))  # exactly one line per case
    # every request was answered once; only calls in flight at the kill (at most --concurrency) went out twice
    bodies = [json.dumps(r.body["messages"], sort_keys=True) for r in srv.requests]
    assert len(bodies) - len(set(bodies)) <= 2
    assert srv.count - sent_before <= 20 - before + 2
    resumed = [r for r in records[before:]]
    assert all(r.status == "ok" for r in records)
    assert sum(r.cached_calls for r in resumed) == sum(r.calls for r in resumed) - (srv.count - sent_before)


def test_bad_file_is_recorded_and_batch_goes_on(alg_dir, mock_server, tmp_path):
    srv = mock_server(make_realistic_responder())
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "1.json").write_bytes((alg_dir / "1.json").read_bytes())
    (logs / "2.json").write_text("{ not json")
    (logs / "3.json").write_bytes((alg_dir / "3.json").read_bytes())
    res = CliRunner().invoke(_cli(), ["evaluate", str(logs), "--method", "all-at-once", "--model", "m",
                                      "--base-url", srv.url, "--quiet", "--out", str(tmp_path / "run"), "--json"],
                             env={"ATTRIB_API_KEY": "k"})
    assert res.exit_code == 0, res.output
    recs = {r.case_id: r for r in read_jsonl(tmp_path / "run" / "cases.jsonl")}
    assert set(recs) == {"1", "2", "3"}
    assert recs["2"].status == "error" and "not JSON" in recs["2"].error
    assert recs["2"].agent_correct is False and recs["1"].status == "ok"
    summary = json.loads(res.stdout)
    assert summary["reports"][0]["overall"]["failed"] == 1


def test_budget_stops_cleanly_and_keeps_finished_cases(alg_dir, mock_server, tmp_path):
    srv = mock_server(make_realistic_responder())
    res = CliRunner().invoke(_cli(), ["evaluate", str(alg_dir), "--method", "all-at-once", "--model", "gpt-4o-mini",
                                      "--base-url", srv.url, "--concurrency", "1", "--budget-usd", "0.003",
                                      "--out", str(tmp_path / "run")], env={"ATTRIB_API_KEY": "k"})
    assert res.exit_code == 0, res.output
    recs = read_jsonl(tmp_path / "run" / "cases.jsonl")
    assert 0 < len(recs) < 126
    assert sum(r.cost_usd for r in recs) <= 0.003
    assert "stopped early: budget" in res.stdout


def test_random_over_the_benchmark_matches_its_closed_form(alg_dir, tmp_path):
    data = alg_dir.parent
    res = CliRunner().invoke(_cli(), ["evaluate", str(data), "--method", "random", "--runs", "20",
                                      "--out", str(tmp_path / "run"), "--json"])
    assert res.exit_code == 0, res.output
    from attrib.evaluation.scoring import random_expected
    from attrib.readers import iter_log_paths, load_log

    report = json.loads(res.stdout)["reports"][0]
    for subset in ("algorithm-generated", "hand-crafted"):
        trajs = [load_log(p) for p in iter_log_paths([data / subset])]
        agent, step = random_expected(trajs)
        got = report["subsets"][subset]
        assert abs(got["agent"]["acc"] - agent) <= 2 and abs(got["step"]["acc"] - step) <= 2
    agent, step = random_expected([load_log(p) for p in iter_log_paths([data / "algorithm-generated"])])
    assert (round(agent, 2), round(step, 2)) == (29.10, 12.00)
