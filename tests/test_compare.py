"""Comparison of run directories: tables in every format, reference rows, plots, commands."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from attrib.errors import InputError
from attrib.evaluation.commands import compare, register
from attrib.evaluation.compare import build_comparison, load_runs
from attrib.evaluation.compare_render import render
from attrib.evaluation.records import CaseRecord, write_jsonl
from attrib.evaluation.reference import find_reference, load_reference
from attrib.evaluation.scoring import score_case


def _records(method: str, gt: bool, right_every: int, cost: float | None) -> list[CaseRecord]:
    out = []
    for i in range(12):
        subset = "hand-crafted" if i % 3 == 0 else "algorithm-generated"
        pred_step = 4 if i % right_every == 0 else 4 + (i % 4)
        status = "invalid" if i == 11 else "ok"
        s = score_case(status, "WebSurfer", pred_step, "WebSurfer", 4)
        out.append(CaseRecord(
            case_id=str(i), subset=subset, n_steps=8 if subset == "algorithm-generated" else 40, method=method,
            model="gpt-4o", with_ground_truth=gt, status=status, pred_agent="WebSurfer", pred_step=pred_step,
            gold_agent="WebSurfer", gold_step=4, calls=2, input_tokens=1000 * right_every,
            cached_input_tokens=256 * (i % 2), output_tokens=50, cost_usd=cost, seconds=1.5, **s.model_dump()))
    return out


def _run_dir(root: Path, name: str, records: list[CaseRecord], prices: dict | None) -> Path:
    d = root / name
    d.mkdir()
    write_jsonl(d / "cases.jsonl", records)
    (d / "config.json").write_text(json.dumps({"prices": prices} if prices else {}))
    return d


@pytest.fixture()
def runs(tmp_path) -> list[Path]:
    a = _run_dir(tmp_path, "run_a", _records("all-at-once", True, 2, 0.01),
                 {"gpt-4o": {"input": 2.5, "cached_input": 1.25, "output": 10.0}})
    b = _run_dir(tmp_path, "run_b", _records("step-by-step", False, 3, None), None)
    return [a, b]


def test_build_comparison_rows(runs):
    comp = build_comparison(load_runs(runs), n_boot=200)
    assert [r.method for r in comp.rows] == ["all-at-once", "step-by-step"]
    a = comp.rows[0]
    assert a.n == 12 and a.invalid == 1 and a.calls_per_case == 2 and a.usd_per_case == pytest.approx(0.01)
    assert a.step.low <= a.step.acc <= a.step.high
    assert comp.rows[1].usd_per_case is None
    assert [(p.model, p.input, p.cached_input, p.output) for p in comp.prices] == [("gpt-4o", 2.5, 1.25, 10.0)]
    assert a.input_tokens_per_case == 2000 and a.cached_input_tokens_per_case == 128 and a.output_tokens_per_case == 50


def test_reference_rows_match_method_and_setting(runs):
    comp = build_comparison(load_runs(runs), reference=True, n_boot=200)
    refs = [r for r in comp.rows if r.kind == "reference"]
    assert refs and all(r.method in ("all-at-once", "step-by-step") for r in refs)
    assert all(r.with_ground_truth in (None, True) for r in refs if r.method == "all-at-once")
    assert all(r.with_ground_truth in (None, False) for r in refs if r.method == "step-by-step")
    by_subset = build_comparison(load_runs(runs), by_subset=True, n_boot=200)
    assert {r.subset for r in by_subset.rows} == {"algorithm-generated", "hand-crafted"}


def test_formats(runs):
    comp = build_comparison(load_runs(runs), reference=True, n_boot=200)
    md = render(comp, "markdown")
    assert "| configuration |" in md and "gpt-4o" in md and "Prices used" in md
    rows = list(csv.DictReader(io.StringIO(render(comp, "csv"))))
    assert len(rows) == len(comp.rows) and "step_k5_acc" in rows[0]
    assert float(rows[0]["cached_input_tokens_per_case"]) == 128 and float(rows[0]["usd_per_case"]) == pytest.approx(0.01)
    assert "cached in/case" in md and "cached input USD/1M" in md and "| 1.2500 |" in md
    table = render(comp, "table")
    assert "cached in/case" in table and "USD/case" in table
    assert json.loads(render(comp, "json"))["prices"][0]["model"] == "gpt-4o"
    assert "all-at-once" in render(comp, "table")


def test_compare_command_writes_table_and_plots(runs, tmp_path):
    out, plots = tmp_path / "cmp.md", tmp_path / "plots"
    compare(runs, to="markdown", out=out, plots=plots, reference=True, subset=None, by_subset=False,
            bootstrap=200, seed=1)
    assert out.read_text().startswith("Accuracy in %")
    for name in ("tolerance.png", "cost_frontier.png"):
        png = plots / name
        assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_register_and_cli_errors(runs, tmp_path):
    app = typer.Typer()
    register(app)
    result = CliRunner().invoke(app, ["compare", str(runs[0]), "--to", "csv", "--bootstrap", "200"])
    assert result.exit_code == 0 and result.output.startswith("kind,label")
    result = CliRunner().invoke(app, ["compare", str(tmp_path / "nope")])
    assert isinstance(result.exception, InputError) and result.exception.exit_code == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="cases.jsonl"):
        load_runs([empty])


def test_reference_table_contents():
    rows = load_reference()
    ww = [r for r in rows if r.paper == "Who&When" and r.table == "Table 1"]
    assert len(ww) == 16
    hc = find_reference("All-at-once", True, "hand-crafted", tables=("Table 1",))
    assert {(r.paper, r.agent_acc, r.step_acc) for r in hc} == {("Who&When", 55.17, 5.26), ("CHIEF", 50.0, 5.17)}
    rnd = find_reference("random", True, "algorithm-generated", model="gpt-4o")
    assert rnd[0].note and "12.00" in rnd[0].note
    hybrid = find_reference("hybrid")
    assert hybrid[0].step_acc == 12.28 and hybrid[0].tokens_per_case == 149177
    assert len(find_reference("chief", True, tables=("Table 3",))) == 12
