"""The library API a notebook uses: typed results, typed options, and the in-process mock backend."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import attrib
from attrib.cli import app
from attrib.errors import ConfigError
from attrib.evaluation.compare import Comparison
from attrib.llm.mock_backend import MOCK_NOTICE


def test_mock_backend_runs_a_method_end_to_end_for_free(alg_dir):
    traj = attrib.load_log(alg_dir / "1.json")
    att = attrib.predict(traj, "all-at-once", model="mock")
    assert att.status == "ok" and att.agent in traj.agents and 0 <= att.step < traj.n_steps
    assert att.model == "mock" and any("mock backend" in n for n in att.notices)
    assert att.calls and att.calls[0].backend == "mock" and att.calls[0].input_tokens > 0
    again = attrib.predict(traj, "all-at-once", model="mock")
    assert (again.agent, again.step) == (att.agent, att.step)  # seeded: a dry run repeats


@pytest.mark.parametrize("method", ["step-by-step", "binary-search", "hybrid", "chief"])
def test_mock_backend_drives_every_llm_method(alg_dir, method):
    att = attrib.predict(attrib.load_log(alg_dir / "3.json"), method, model="mock")
    assert att.status != "error", att.error  # samples may be judged invalid by a validator, never crash
    assert att.calls and all(c.backend == "mock" for c in att.calls)


def test_mock_backend_from_the_command_line(alg_dir):
    res = CliRunner().invoke(app, ["predict", str(alg_dir / "1.json"), "--model", "mock", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["model"] == "mock" and MOCK_NOTICE in data["notices"]


def test_unknown_options_are_errors(alg_dir, tmp_path):
    traj = attrib.load_log(alg_dir / "1.json")
    with pytest.raises(ConfigError, match="chief_modul"):
        attrib.predict(traj, "chief", model="mock", chief_modul="m1")
    with pytest.raises(ConfigError, match="chief_modules"):
        attrib.predict(traj, "chief", model="mock", chief_modules="m9")
    with pytest.raises(ConfigError, match="budget_usdd"):
        attrib.evaluate([alg_dir], methods=["random"], out=tmp_path / "run", budget_usdd=1.0)
    with pytest.raises(ConfigError, match="unknown method 'al-at-once'"):
        attrib.predict(traj, "al-at-once", model="mock")
    with pytest.raises(ConfigError, match="timout"):
        attrib.make_client("mock", timout=5)


def test_evaluate_score_compare_from_a_notebook(alg_dir, tmp_path):
    run = attrib.evaluate([alg_dir], methods=["random", "all-at-once"], models=["mock"], out=tmp_path / "run")
    assert isinstance(run, attrib.EvalResult) and run.stopped is None
    assert len(run.records) == 2 * 12 and (run.directory / "summary.json").is_file()
    by_method = {r.method: r for r in run.reports}
    assert set(by_method) == {"random", "all-at-once"} and by_method["random"].overall.n == 12

    scored = attrib.score(run.directory / "cases.jsonl", alg_dir, n_boot=200)
    assert isinstance(scored, attrib.ScoreResult)
    assert {r.method for r in scored.reports} == {"random", "all-at-once"}
    assert 0 < scored.random_expected[0] < 100

    table = attrib.compare([run.directory], n_boot=200)
    assert isinstance(table, Comparison) and len(table.rows) == 2

    again = attrib.evaluate([alg_dir], methods=["random", "all-at-once"], models=["mock"], out=tmp_path / "run")
    assert again.resumed == 24 and len(again.records) == 24  # resumed: nothing ran twice


def test_graph_from_the_library(alg_dir):
    graph = attrib.graph(alg_dir / "1.json", model="mock")
    assert graph.n_steps == attrib.load_log(alg_dir / "1.json").n_steps
    assert attrib.export_graph(graph, None, "json").startswith("{")


def test_every_command_is_there_at_import_and_shares_flag_names():
    names = {c.name or c.callback.__name__ for c in app.registered_commands} | {g.name for g in app.registered_groups}
    assert {"predict", "validate", "methods", "evaluate", "score", "compare", "graph", "convert", "show", "kb"} <= names
    runner = CliRunner()
    for cmd in (["predict"], ["graph"], ["evaluate"]):
        text = runner.invoke(app, [*cmd, "--help"], env={"COLUMNS": "200"}).output
        for flag in ("--format", "--model", "--base-url", "--config", "--kb-dir", "--chief-modules"):
            assert flag in text, (cmd, flag)
    assert "--to" in runner.invoke(app, ["graph", "--help"], env={"COLUMNS": "200"}).output
    assert "--kb-dir" in runner.invoke(app, ["kb", "search", "--help"], env={"COLUMNS": "200"}).output
