"""`attrib kb build --from-runs`: the user's solved runs become CHIEF exemplars; own task still excluded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import attrib.cli as cli
from attrib.api import predict
from attrib.errors import InputError
from attrib.kb import KnowledgeBase, build
from attrib.kb.retrieve import retrieve_exemplars
from attrib.kb.runs import read_runs
from attrib.readers import load_log

from conftest import WHO_AND_WHEN
from kb_sources import write_sources
from mock_answers import make_realistic_responder

DATA = Path(__file__).parent / "data"
RUNS = DATA / "solved_runs"
TAU = DATA / "formats" / "taubench_retail_42.json"


def test_solved_runs_and_task_rows_become_entries() -> None:
    report = read_runs(RUNS)
    assert [e.id for e in report.entries] == ["19", "7", "playbook-exchange-gift-card", "playbook-address-change"]
    assert report.unsolved == 1  # retail_failed_23.json has reward 0
    assert {e.source for e in report.entries} == {"Runs"}
    run7 = next(e for e in report.entries if e.id == "7")
    assert run7.question.startswith("You are Mei Tanaka")
    assert "exchange_delivered_order_items" in run7.guide and "Retail agent policy" not in run7.guide
    assert run7.text.startswith("Task: You are Mei Tanaka") and "\nSolution: 1. user: Hi, I want to swap" in run7.text


def test_folder_without_solved_runs_is_an_input_error(tmp_path: Path) -> None:
    shutil.copy(RUNS / "retail_failed_23.json", tmp_path / "failed.json")
    with pytest.raises(InputError, match="holds no solved run .1 logs not marked solved"):
        read_runs(tmp_path)
    with pytest.raises(InputError, match="no such directory"):
        read_runs(tmp_path / "absent")


@pytest.fixture(scope="module")
def kb_with_runs(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    gaia, ab = write_sources(tmp_path_factory.mktemp("kb-src"), WHO_AND_WHEN)
    runs = tmp_path_factory.mktemp("runs")
    for f in RUNS.iterdir():
        shutil.copy(f, runs / f.name)
    return build(gaia, ab, directory=tmp_path_factory.mktemp("kb"), runs=runs)


def test_build_records_the_runs_source_and_reuses_it(kb_with_runs: KnowledgeBase) -> None:
    runs = Path(kb_with_runs.sources["runs"]["path"])
    assert kb_with_runs.sources["runs"]["entries"] == 4
    assert sum(e.source == "Runs" for e in kb_with_runs.entries) == 4
    gaia, ab = (kb_with_runs.sources[n]["path"] for n in ("gaia", "assistantbench"))
    again = build(gaia, ab, directory=kb_with_runs.directory, runs=runs)
    assert not again.rebuilt
    # a new solved run in the folder changes the source: the base is rebuilt with it
    rec = json.loads((runs / "retail_solved_7.json").read_text())
    (runs / "retail_solved_8.json").write_text(json.dumps({**rec, "task_id": 8}))
    try:
        grown = build(gaia, ab, directory=kb_with_runs.directory, runs=runs)
        assert grown.rebuilt and grown.sources["runs"]["entries"] == 5
    finally:
        (runs / "retail_solved_8.json").unlink()
        build(gaia, ab, directory=kb_with_runs.directory, runs=runs)


def test_retrieval_excludes_a_solved_run_of_the_same_task(kb_with_runs: KnowledgeBase) -> None:
    run7 = load_log(RUNS / "retail_solved_7.json")
    hits = retrieve_exemplars(kb_with_runs, run7.question, run7.question_id, k=3)
    assert hits and all(h.entry.id != "7" for h in hits)


def test_chief_exemplars_on_a_tau_bench_log_come_from_the_runs(kb_with_runs, mock_server, make_llm) -> None:
    srv = mock_server(make_realistic_responder())
    att = predict(load_log(TAU), "chief", client=make_llm(srv, cache=False), kb_dir=kb_with_runs.directory)
    assert att.status in ("ok", "no_error_found"), att.error
    exemplars = att.details["graph"]["exemplars"]
    assert len(exemplars) == 2 and {x["source"] for x in exemplars} == {"Runs"}
    assert {x["id"] for x in exemplars} <= {"7", "19", "playbook-exchange-gift-card", "playbook-address-change"}
    # and the exemplars reach the prompt CHIEF sends
    graph_prompt = json.dumps(srv.requests[0].body["messages"])
    assert "Source: Runs" in graph_prompt


def test_cli_build_from_runs(tmp_path: Path) -> None:
    folder = tmp_path / "kb"
    result = CliRunner().invoke(cli.app, ["kb", "build", "--from-runs", str(RUNS), "--kb-dir", str(folder)])
    assert result.exit_code == 0, result.output
    assert "rebuilt: 4 entries (4 runs)" in result.output
    result = CliRunner().invoke(cli.app, ["kb", "search", "exchange an item and refund to gift card", "-k", "1",
                                          "--json", "--kb-dir", str(folder)])
    rows = json.loads(result.output)
    assert rows[0]["source"] == "Runs" and rows[0]["id"] == "playbook-exchange-gift-card"
    bad = CliRunner().invoke(cli.app, ["kb", "build", "--from-runs", str(TAU), "--kb-dir", str(folder)])
    assert bad.exit_code == 2 and "not a directory" in bad.output


def test_runs_folder_holding_a_task_folder_is_hashed_and_built(tmp_path: Path) -> None:
    """A TraceElephant task folder among the runs is one log: hashed file by file, never opened as a file."""
    import shutil

    runs = tmp_path / "runs"
    shutil.copytree(RUNS, runs)
    shutil.copytree(Path(__file__).parent / "data" / "formats" / "traceelephant_task", runs / "te_task")
    result = CliRunner().invoke(cli.app, ["kb", "build", "--from-runs", str(runs), "--kb-dir", str(tmp_path / "kb")])
    assert result.exit_code == 0, result.output
    assert "4 entries (4 runs)" in result.output  # the task folder's run is not marked solved
