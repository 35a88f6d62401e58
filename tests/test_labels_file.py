"""Label files (--labels): AgentRx and {id, agent, step} labels mapped onto logs; validate, evaluate, score."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import attrib.cli as cli
from attrib.api import predict
from attrib.errors import InputError
from attrib.readers import load_log
from attrib.readers.label_file import apply_labels, load_labels

DATA = Path(__file__).parent / "data"
TAU = DATA / "formats" / "taubench_retail_42.json"
AGENTRX = DATA / "labels" / "taubench_retail_42.agentrx.json"
PLAIN = DATA / "labels" / "chatdev_plain.jsonl"


def test_agentrx_root_cause_maps_through_source_ids() -> None:
    labels = load_labels(AGENTRX)
    assert list(labels) == ["taubench_retail_42"] and labels["taubench_retail_42"].step == "25"
    t = apply_labels(load_log(TAU), labels)
    # step_number 25 is τ-bench's 1-based index of the exchange call: our 0-based step 19
    assert t.gold is not None and (t.gold.agent, t.gold.step) == ("assistant", 19)
    assert t.steps[19].source_id == "25" and "exchange_delivered_order_items" in t.steps[19].content
    assert t.gold.reason.startswith("Incorrect tool arguments: The user asked for the refund on the gift card")
    assert t.metadata["label_source"] == "agentrx"


def test_plain_jsonl_labels_use_source_ids_then_indexes() -> None:
    labels = load_labels(PLAIN)
    full = apply_labels(load_log(DATA / "formats" / "chatdev_expense_tracker.log"), labels)
    assert (full.gold.agent, full.gold.step) == ("Programmer", 7) and full.steps[7].phase == "Coding"
    died = apply_labels(load_log(DATA / "formats" / "chatdev_died_infrastructure.log"), labels)
    assert (died.gold.agent, died.gold.step) == ("Chief Technology Officer", 3)  # no source id "3": 0-based
    other = load_log(TAU)
    assert apply_labels(other, labels) is other  # no label for this log: unchanged


def _agentrx(tmp_path: Path, **changes) -> Path:
    rec = json.loads(AGENTRX.read_text())
    rec.update(changes)
    path = tmp_path / "labels.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    return path


def test_label_errors_are_errors_of_the_file(tmp_path: Path) -> None:
    failures = json.loads(AGENTRX.read_text())["failures"]
    tool = _agentrx(tmp_path, failures=[{**failures[0], "step_number": 26}])
    with pytest.raises(InputError, match="labelled step '26' is a tool result folded into step 19"):
        apply_labels(load_log(TAU), load_labels(tool))
    outside = _agentrx(tmp_path, failures=[{**failures[0], "step_number": 99}])
    with pytest.raises(InputError, match="step '99' is not a step of this log"):
        apply_labels(load_log(TAU), load_labels(outside))
    stranger = _agentrx(tmp_path, failures=[{**failures[0], "failed_agent": "Orchestrator"}])
    with pytest.raises(InputError, match="agent 'Orchestrator' is not an agent of this log"):
        apply_labels(load_log(TAU), load_labels(stranger))
    with pytest.raises(InputError, match="root_cause names failure 'F9'"):
        load_labels(_agentrx(tmp_path, root_cause={"failure_id": "F9"}))
    with pytest.raises(InputError, match="2 failures and no root_cause"):
        load_labels(_agentrx(tmp_path, root_cause=None))
    (tmp_path / "x.json").write_text('{"name": "not a label"}')
    with pytest.raises(InputError, match="neither an AgentRx record"):
        load_labels(tmp_path / "x.json")


def test_label_on_an_infrastructure_record_is_an_error(tmp_path: Path) -> None:
    log = DATA / "formats" / "chatdev_expense_tracker.log"
    infra = load_log(log).metadata["infrastructure"]["ids"][0]
    (tmp_path / "l.jsonl").write_text(json.dumps({"id": log.stem, "agent": "Programmer", "step": infra}) + "\n")
    with pytest.raises(InputError, match=f"step '{infra}' is an infrastructure record"):
        apply_labels(load_log(log), load_labels(tmp_path / "l.jsonl"))
    bad = CliRunner().invoke(cli.app, ["validate", str(log), "--labels", str(tmp_path / "l.jsonl")])
    assert bad.exit_code == 2 and "infrastructure record" in bad.output


def test_agentrx_agent_name_means_the_assistant(tmp_path: Path) -> None:
    failures = json.loads(AGENTRX.read_text())["failures"]
    path = _agentrx(tmp_path, failures=[{**failures[0], "failed_agent": "agent"}], root_cause=None)
    assert apply_labels(load_log(TAU), load_labels(path)).gold.agent == "assistant"


def test_validate_with_labels_notes_an_agent_not_acting(tmp_path: Path) -> None:
    ok = CliRunner().invoke(cli.app, ["validate", str(TAU), "--labels", str(AGENTRX)])
    assert ok.exit_code == 0 and "gold: assistant @ step 19" in ok.stdout and "note:" not in ok.stdout
    (tmp_path / "user.jsonl").write_text(json.dumps({"id": "taubench_retail_42", "agent": "user", "step": 25}) + "\n")
    noted = CliRunner().invoke(cli.app, ["validate", str(TAU), "--labels", str(tmp_path / "user.jsonl")])
    assert noted.exit_code == 0
    assert "note: labelled agent user is not the one acting at step 19 (assistant)" in noted.stdout


def _mixed(tmp_path: Path) -> Path:
    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copy(TAU, folder / TAU.name)
    for sub, name in (("hand-crafted", "6.json"), ("algorithm-generated", "1.json")):
        shutil.copy(DATA / "who_and_when" / sub / name, folder / f"ww_{name}")
    return folder


def _expected(folder: Path) -> dict[str, list[bool]]:
    """Per format, whether the seeded random method gets each case's agent right."""
    labels = load_labels(AGENTRX)
    out: dict[str, list[bool]] = {}
    for path in sorted(folder.iterdir()):
        t = apply_labels(load_log(path), labels)
        att = predict(t, "random")
        out.setdefault(t.source_format, []).append(att.agent == t.gold.agent)
    return out


def test_evaluate_reports_accuracy_per_source(tmp_path: Path) -> None:
    folder = _mixed(tmp_path)
    out = tmp_path / "run"
    res = CliRunner().invoke(cli.app, ["evaluate", str(folder), "--method", "random", "--labels", str(AGENTRX),
                                       "--quiet", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "tau-bench logs" in res.stdout and "who-and-when logs" in res.stdout
    report = json.loads((out / "summary.json").read_text())["reports"][0]
    sources = report["sources"]
    assert {k: v["n"] for k, v in sources.items()} == {"tau-bench": 1, "who-and-when": 2}
    for fmt, correct in _expected(folder).items():
        assert sources[fmt]["agent"]["acc"] == pytest.approx(100 * sum(correct) / len(correct))
    cases = [json.loads(line) for line in (out / "cases.jsonl").read_text().splitlines()]
    tau = next(c for c in cases if c["source_format"] == "tau-bench")
    assert (tau["gold_agent"], tau["gold_step"]) == ("assistant", 19)
    # without the label file the τ-bench log has no gold: it is not scored
    res2 = CliRunner().invoke(cli.app, ["evaluate", str(folder), "--method", "random", "--quiet", "--out",
                                        str(tmp_path / "run2"), "--json"])
    assert set(json.loads(res2.stdout)["reports"][0]["sources"]) == {"who-and-when"}


def test_score_with_labels(tmp_path: Path) -> None:
    folder = _mixed(tmp_path)
    labels = load_labels(AGENTRX)
    preds = tmp_path / "preds.jsonl"
    with preds.open("w") as fh:
        for path in sorted(folder.iterdir()):
            fh.write(predict(apply_labels(load_log(path), labels), "random").model_dump_json() + "\n")
    res = CliRunner().invoke(cli.app, ["score", str(preds), "--data", str(folder), "--labels", str(AGENTRX), "--json"])
    assert res.exit_code == 0, res.output
    sources = json.loads(res.stdout)["reports"][0]["sources"]
    assert {k: v["n"] for k, v in sources.items()} == {"tau-bench": 1, "who-and-when": 2}
    for fmt, correct in _expected(folder).items():
        assert sources[fmt]["agent"]["acc"] == pytest.approx(100 * sum(correct) / len(correct))


def test_evaluate_counts_infrastructure_failure_with_its_own_kind(tmp_path: Path) -> None:
    folder = tmp_path / "chatdev"
    folder.mkdir()
    for name in ("chatdev_died_infrastructure.log", "chatdev_expense_tracker.log"):
        shutil.copy(DATA / "formats" / name, folder / name)
    out = tmp_path / "run"
    res = CliRunner().invoke(cli.app, ["evaluate", str(folder), "--method", "random", "--labels", str(PLAIN),
                                       "--quiet", "--out", str(out)])
    assert res.exit_code == 0, res.output
    cases = {c["case_id"]: c for c in map(json.loads, (out / "cases.jsonl").read_text().splitlines())}
    died = cases["chatdev_died_infrastructure"]
    assert died["status"] == "infrastructure_failure" and died["error_kind"] == "infrastructure"
    assert died["agent_correct"] is False and died["pred_agent"] is None
    assert cases["chatdev_expense_tracker"]["status"] == "ok" and cases["chatdev_expense_tracker"]["error_kind"] is None
    report = json.loads((out / "summary.json").read_text())["reports"][0]
    assert report["overall"]["failed"] == 1 and report["overall"]["failed_ids"] == ["chatdev_died_infrastructure"]


def test_score_counts_an_infrastructure_failure_with_its_kind(tmp_path: Path) -> None:
    died = DATA / "formats" / "chatdev_died_infrastructure.log"
    labels = load_labels(PLAIN)
    preds = tmp_path / "preds.jsonl"
    preds.write_text(predict(apply_labels(load_log(died), labels), "random").model_dump_json() + "\n")
    res = CliRunner().invoke(cli.app, ["score", str(preds), "--data", str(died), "--labels", str(PLAIN), "--json"])
    assert res.exit_code == 0, res.output
    overall = json.loads(res.stdout)["reports"][0]["overall"]
    assert overall["failed"] == 1 and overall["agent"]["acc"] == 0.0


def test_prediction_file_keeps_the_infrastructure_kind(tmp_path: Path) -> None:
    from attrib.evaluation.predictions import read_predictions

    died = load_log(DATA / "formats" / "chatdev_died_infrastructure.log")
    preds = tmp_path / "preds.jsonl"
    preds.write_text(predict(died, "random").model_dump_json() + "\n")
    (rec,) = read_predictions(preds).records
    assert (rec.status, rec.error_kind) == ("infrastructure_failure", "infrastructure")
