"""Files of several records (a τ-bench result list, a MAST JSON Lines file): PATH#ID selects one record,
a file without a selector is a one-line error, and evaluate/validate run every record as its own case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from attrib.errors import InputError
from attrib.evaluation.records import read_jsonl
from attrib.readers import iter_log_paths, load_log
from attrib.readers.label_file import load_labelled, load_labels

from mock_answers import make_realistic_responder

FORMATS = Path(__file__).parent / "data" / "formats"
TASK_IDS = (12, 42, 7)


def _cli():
    from attrib.cli import app

    return app


def _tau_record(task_id: int) -> dict:
    rec = json.loads((FORMATS / "taubench_retail_42.json").read_text(encoding="utf-8"))
    return {**rec, "task_id": task_id}


@pytest.fixture
def tau_list(tmp_path: Path) -> Path:
    """A τ-bench results file: a JSON list of 3 records (task ids 12, 42, 7), the 42 one with one step less."""
    records = [_tau_record(t) for t in TASK_IDS]
    records[1]["traj"] = records[1]["traj"][:-1]
    path = tmp_path / "logs" / "results.json"
    path.parent.mkdir()
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


@pytest.fixture
def mast_jsonl(tmp_path: Path) -> Path:
    rec = json.loads((FORMATS / "mast_chatdev.json").read_text(encoding="utf-8"))
    path = tmp_path / "traces.jsonl"
    lines = [json.dumps({**rec, "trace_id": tid}) for tid in ("t-a", "t-b")]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_record_is_selected_by_its_own_id(tau_list: Path) -> None:
    whole = load_log(FORMATS / "taubench_retail_42.json")
    t = load_log(f"{tau_list}#12")
    assert (t.id, t.path, t.question_id) == ("results#12", f"{tau_list}#12", "12")
    assert t.metadata["record"] == t.metadata["record_id"] == "12"
    assert [s.source_id for s in t.steps] == [s.source_id for s in whole.steps]  # source ids as the reader makes them
    shorter = load_log(Path(f"{tau_list}#42"))  # a Path works as well as a str
    assert shorter.id == "results#42" and shorter.n_steps == whole.n_steps - 1


def test_a_mast_jsonl_record_is_selected_by_trace_id(mast_jsonl: Path) -> None:
    t = load_log(f"{mast_jsonl}#t-b")
    assert (t.id, t.source_format, t.metadata["trace_id"]) == ("traces#t-b", "mast", "t-b")
    assert t.n_steps == load_log(FORMATS / "mast_chatdev.json").n_steps


def test_records_without_distinct_ids_are_selected_by_position(tmp_path: Path) -> None:
    path = tmp_path / "trials.json"  # two trials of one task: the task id repeats
    first, second = _tau_record(5), _tau_record(5)
    second["traj"] = second["traj"][:-1]
    path.write_text(json.dumps([first, second]), encoding="utf-8")
    t = load_log(f"{path}#1")
    assert t.id == "trials#1" and t.n_steps == load_log(f"{path}#0").n_steps - 1
    assert "record_id" not in t.metadata  # a position is not the record's own id
    with pytest.raises(InputError, match=r"addressed by positions"):
        load_log(f"{path}#5")


def test_a_file_of_several_records_without_selector_is_a_one_line_error(tau_list: Path, mast_jsonl: Path) -> None:
    with pytest.raises(InputError) as info:
        load_log(tau_list)
    msg = str(info.value)
    assert "\n" not in msg and str(tau_list) in msg
    assert "holds 3 tau-bench records (task_ids 12, 42, 7)" in msg and "results.json#<id>" in msg
    assert "attrib evaluate" in msg
    with pytest.raises(InputError, match=r"holds 2 MAST records \(trace_ids t-a, t-b\); read one as traces.jsonl#<id>"):
        load_log(mast_jsonl)


def test_bad_selectors(tau_list: Path) -> None:
    with pytest.raises(InputError, match=r"results.json#99: no tau-bench record #99: its 3 records are addressed by task_ids \(12, 42, 7\)"):
        load_log(f"{tau_list}#99")
    with pytest.raises(InputError, match="empty record selector"):
        load_log(f"{tau_list}#")
    with pytest.raises(InputError, match="'#1' selects one record, but this trajdebug log is one record"):
        load_log(f"{FORMATS / 'trajdebug_retail.json'}#1")
    with pytest.raises(InputError, match="no such file"):
        load_log(f"{tau_list.parent / 'missing.json'}#12")


def test_a_file_name_with_a_hash_still_opens(tmp_path: Path) -> None:
    path = tmp_path / "run#3.json"
    path.write_text((FORMATS / "taubench_retail_42.json").read_text(encoding="utf-8"), encoding="utf-8")
    t = load_log(path)
    assert t.id == "run#3" and "record" not in t.metadata
    assert list(iter_log_paths([tmp_path])) == [path]


def test_iter_log_paths_expands_a_file_into_its_records(tau_list: Path, mast_jsonl: Path) -> None:
    expected = [Path(f"{tau_list}#{t}") for t in TASK_IDS]
    assert list(iter_log_paths([tau_list])) == expected
    assert list(iter_log_paths([tau_list.parent])) == expected
    assert list(iter_log_paths([mast_jsonl])) == [Path(f"{mast_jsonl}#t-a"), Path(f"{mast_jsonl}#t-b")]
    assert list(iter_log_paths([f"{tau_list}#7"])) == [Path(f"{tau_list}#7")]
    single = FORMATS / "taubench_retail_42.json"
    assert list(iter_log_paths([single])) == [single]  # one record: the file itself


def test_evaluate_runs_every_record_as_a_case_and_resumes(tau_list: Path, mock_server, tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text("\n".join(json.dumps({"id": str(t), "agent": "assistant", "step": 25}) for t in TASK_IDS),
                      encoding="utf-8")
    srv = mock_server(make_realistic_responder())
    out = tmp_path / "run"
    args = ["evaluate", str(tau_list), "--method", "all-at-once", "--model", "m", "--base-url", srv.url,
            "--labels", str(labels), "--no-cache", "--quiet", "--out", str(out), "--json"]
    res = CliRunner().invoke(_cli(), args, env={"ATTRIB_API_KEY": "k"})
    assert res.exit_code == 0, res.output
    recs = read_jsonl(out / "cases.jsonl")
    assert sorted(r.case_id for r in recs) == sorted(f"results#{t}" for t in TASK_IDS)
    assert {r.path for r in recs} == {f"{tau_list}#{t}" for t in TASK_IDS}
    assert all(r.status == "ok" and r.gold_agent == "assistant" for r in recs), recs
    sent = srv.count
    assert sent >= 3
    again = CliRunner().invoke(_cli(), args, env={"ATTRIB_API_KEY": "k"})
    assert again.exit_code == 0, again.output
    assert srv.count == sent  # resumed: every case was done, nothing is sent again
    assert len(read_jsonl(out / "cases.jsonl")) == 3


def test_validate_checks_every_record(tau_list: Path) -> None:
    broken = json.loads(tau_list.read_text(encoding="utf-8"))
    broken.append({**broken[0], "task_id": 99, "traj": []})
    tau_list.write_text(json.dumps(broken), encoding="utf-8")
    res = CliRunner().invoke(_cli(), ["validate", str(tau_list)])
    assert res.exit_code == 2
    out = "".join(res.stdout.split())  # the console wraps long paths
    for t in TASK_IDS:
        assert f"ok{tau_list}#{t}:27steps" in out or f"ok{tau_list}#{t}:26steps" in out
    assert "#99" not in out and f"{tau_list}#99: no steps found" in res.stderr


def test_agentrx_label_applies_to_the_selected_record(tau_list: Path, tmp_path: Path) -> None:
    rx = json.loads((Path(__file__).parent / "data" / "labels" / "taubench_retail_42.agentrx.json").read_text())
    labels = tmp_path / "agentrx.json"
    labels.write_text(json.dumps([{**rx, "trajectory_id": "12", "task_id": 12}]), encoding="utf-8")
    gold = load_labels(labels)
    t = load_labelled(f"{tau_list}#12", gold)
    whole = load_labelled(FORMATS / "taubench_retail_42.json", load_labels(Path(__file__).parent / "data" / "labels"
                                                                           / "taubench_retail_42.agentrx.json"))
    assert t.gold is not None and (t.gold.agent, t.gold.step) == ("assistant", whole.gold.step)
    assert t.steps[t.gold.step].source_id == "25"
    assert load_labelled(f"{tau_list}#7", gold).gold is None  # task 7 has no label
    by_case = tmp_path / "by_case.json"
    by_case.write_text(json.dumps({**rx, "trajectory_id": "results#42"}), encoding="utf-8")
    assert load_labelled(f"{tau_list}#42", load_labels(by_case)).gold is not None  # the case id matches too
