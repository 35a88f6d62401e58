"""attrib evaluate over a folder mixing a TrajDebug file, a TraceElephant task folder, a TRAIL trace and a Who&When log."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from attrib.evaluation.records import read_jsonl

from mock_answers import make_realistic_responder

FORMATS = Path(__file__).parent / "data" / "formats"


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
