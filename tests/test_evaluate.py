"""attrib evaluate: resumable run directory, SIGKILL and resume, failures recorded, budgets, random closed form."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from attrib.evaluation.records import read_jsonl

from mock_answers import make_realistic_responder


def _replace_method(monkeypatch, name, run) -> None:
    """Swap a registered method's function for this test (the registry is restored afterwards)."""
    import dataclasses

    from attrib.methods import METHODS

    items = dict(METHODS._items)
    items[name] = dataclasses.replace(items[name], run=run)
    monkeypatch.setattr(METHODS, "_items", items)


def _cli():
    from attrib.cli import app

    return app


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_sigkill_mid_run_then_resume_loses_nothing_and_pays_nothing_twice(alg_dir, mock_server, tmp_path):
    srv = mock_server(make_realistic_responder(), latency=0.3)
    logs = tmp_path / "logs"
    logs.mkdir()
    names = sorted(int(p.stem) for p in alg_dir.glob("*.json"))
    n = len(names)
    for i in names:
        (logs / f"{i}.json").write_bytes((alg_dir / f"{i}.json").read_bytes())
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "attrib.cli", "evaluate", str(logs), "--method", "all-at-once", "--model", "m",
           "--base-url", srv.url, "--concurrency", "2", "--quiet", "--out", str(out)]
    env = {**os.environ, "ATTRIB_API_KEY": "sk-test"}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cases = out / "cases.jsonl"
    try:
        # a poll, not a timing assertion: the deadline only bounds a hung run
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline and (not cases.exists() or len(cases.read_text().splitlines()) < 4):
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    before = len(_lines(cases))
    assert 4 <= before < n
    sent_before = srv.count
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=900)
    records = read_jsonl(cases)
    assert sorted(int(r.case_id) for r in records) == names  # exactly one line per case
    # every request was answered once; only calls in flight at the kill (at most --concurrency) went out twice
    # (a request cut off by the kill arrives without a readable body: it was never answered)
    bodies = [json.dumps(r.body["messages"], sort_keys=True) for r in srv.requests if isinstance(r.body, dict)]
    assert len(bodies) - len(set(bodies)) <= 2
    # a killed call may reach the server after the snapshot (+2) and is sent again on resume (+2)
    assert srv.count - sent_before <= n - before + 4
    resumed = [r for r in records[before:]]
    assert all(r.status == "ok" for r in records)
    paid_on_resume = sum(r.calls for r in resumed) - sum(r.cached_calls for r in resumed)
    assert srv.count - sent_before - 2 <= paid_on_resume <= srv.count - sent_before


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
    assert 0 < len(recs) < 12
    assert sum(r.cost_usd for r in recs) <= 0.003
    assert "stopped early: budget" in res.stdout


def test_random_over_the_benchmark_matches_its_closed_form(alg_dir, tmp_path):
    data = alg_dir.parent
    res = CliRunner().invoke(_cli(), ["evaluate", str(data), "--method", "random", "--runs", "200",
                                      "--out", str(tmp_path / "run"), "--json"])
    assert res.exit_code == 0, res.output
    from attrib.evaluation.scoring import random_expected
    from attrib.readers import iter_log_paths, load_log

    report = json.loads(res.stdout)["reports"][0]
    for subset in ("algorithm-generated", "hand-crafted"):
        trajs = [load_log(p) for p in iter_log_paths([data / subset])]
        agent, step = random_expected(trajs)
        got = report["subsets"][subset]
        assert abs(got["agent"]["acc"] - agent) <= 3 and abs(got["step"]["acc"] - step) <= 3  # >= 2.5 sd at 200 runs
        # the closed form is the mean over cases of 1/agents and 1/steps
        assert agent == pytest.approx(100 * sum(1 / len(t.agents) for t in trajs) / len(trajs))
        assert step == pytest.approx(100 * sum(1 / t.n_steps for t in trajs) / len(trajs))


def test_deep_nesting_and_a_crashing_method_do_not_stop_the_batch(alg_dir, mock_server, tmp_path, monkeypatch):
    """A hostile file and an unexpected exception inside a method are recorded; every other case finishes."""
    from attrib.methods import METHODS

    srv = mock_server(make_realistic_responder())
    logs = tmp_path / "logs"
    logs.mkdir()
    for name in ("1", "3", "12", "19"):
        (logs / f"{name}.json").write_bytes((alg_dir / f"{name}.json").read_bytes())
    (logs / "2.json").write_bytes(b"[" * 100_000 + b"]" * 100_000)
    original = METHODS.get("all-at-once").run

    async def sometimes_broken(ctx):
        if ctx.traj.id == "12":
            raise KeyError("a bug inside the method")
        return await original(ctx)

    _replace_method(monkeypatch, "all-at-once", sometimes_broken)
    res = CliRunner().invoke(_cli(), ["evaluate", str(logs), "--method", "all-at-once", "--model", "m",
                                      "--base-url", srv.url, "--quiet", "--out", str(tmp_path / "run"), "--json"],
                             env={"ATTRIB_API_KEY": "k"})
    assert res.exit_code == 0, res.output
    recs = {r.case_id: r for r in read_jsonl(tmp_path / "run" / "cases.jsonl")}
    assert set(recs) == {"1", "2", "3", "12", "19"}
    assert (recs["2"].status, recs["2"].error_kind) == ("error", "input") and "nested deeper" in recs["2"].error
    assert (recs["12"].status, recs["12"].error_kind) == ("error", "internal")
    assert recs["12"].error.startswith("internal error: KeyError") and recs["12"].agent_correct is False
    assert all(recs[c].status == "ok" for c in ("1", "3", "19"))
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["cases"] == 5 and summary["reports"][0]["overall"]["failed"] == 2


def test_ctrl_c_still_writes_the_summary(alg_dir, mock_server, tmp_path, monkeypatch):
    from attrib.methods import METHODS

    srv = mock_server(make_realistic_responder())
    logs = tmp_path / "logs"
    logs.mkdir()
    for name in ("1", "3", "12"):
        (logs / f"{name}.json").write_bytes((alg_dir / f"{name}.json").read_bytes())
    original = METHODS.get("all-at-once").run

    async def interrupted_at_12(ctx):
        if ctx.traj.id == "12":
            raise KeyboardInterrupt
        return await original(ctx)

    _replace_method(monkeypatch, "all-at-once", interrupted_at_12)
    res = CliRunner().invoke(_cli(), ["evaluate", str(logs), "--method", "all-at-once", "--model", "m",
                                      "--base-url", srv.url, "--quiet", "--concurrency", "1",
                                      "--out", str(tmp_path / "run")], env={"ATTRIB_API_KEY": "k"})
    assert res.exit_code == 130, res.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["stopped"] == "interrupted"
    assert summary["cases"] == len(read_jsonl(tmp_path / "run" / "cases.jsonl")) >= 1


def test_provider_cached_tokens_reach_cases_summary_and_compare(alg_dir, mock_server, tmp_path):
    """The mock endpoint bills a repeated prefix as cached: a second run over the same logs shows it everywhere."""
    srv = mock_server(make_realistic_responder())
    args = ["evaluate", str(alg_dir), "--method", "all-at-once", "--model", "gpt-4o-mini", "--base-url", srv.url,
            "--concurrency", "2", "--limit", "3", "--no-cache"]
    first = CliRunner().invoke(_cli(), args + ["--out", str(tmp_path / "a"), "--quiet"], env={"ATTRIB_API_KEY": "k"})
    again = CliRunner().invoke(_cli(), args + ["--out", str(tmp_path / "b"), "--quiet"], env={"ATTRIB_API_KEY": "k"})
    assert first.exit_code == 0 and again.exit_code == 0, first.output + again.output
    cold, warm = read_jsonl(tmp_path / "a" / "cases.jsonl"), read_jsonl(tmp_path / "b" / "cases.jsonl")
    assert sum(r.cached_input_tokens for r in cold) == 0
    assert all(0 < r.cached_input_tokens <= r.input_tokens for r in warm)
    by_id = {r.case_id: r for r in cold}
    for r in warm:  # same prompt, same tokens; the cached part billed at half the input price
        c = by_id[r.case_id]
        assert r.input_tokens == c.input_tokens
        assert r.cost_usd == pytest.approx(c.cost_usd - r.cached_input_tokens * (0.15 - 0.075) / 1e6)
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert summary["usage"]["cached_input_tokens"] == sum(r.cached_input_tokens for r in warm)
    assert summary["usage_by_config"][0]["cached_input_tokens"] == summary["usage"]["cached_input_tokens"]
    assert "cached by the provider" in again.stdout
    config = json.loads((tmp_path / "b" / "config.json").read_text())
    assert config["prices"]["gpt-4o-mini"]["cached_input"] == 0.075
    res = CliRunner().invoke(_cli(), ["compare", str(tmp_path / "b"), "--to", "csv"])
    assert res.exit_code == 0, res.output
    row = next(csv.DictReader(io.StringIO(res.stdout)))
    assert float(row["cached_input_tokens_per_case"]) == pytest.approx(summary["usage"]["cached_input_tokens"] / 3)
