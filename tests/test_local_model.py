"""The embedded demo model end to end: SmolLM2-135M in process, grammar-constrained to valid answers."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")


def test_predict_with_the_embedded_model(alg_dir):
    from attrib.cli import app
    from attrib.readers import load_log

    log = alg_dir / "1.json"
    res = CliRunner().invoke(app, ["predict", str(log), "--method", "all-at-once", "--model", "local", "--json"])
    assert res.exit_code == 0, res.output
    att = json.loads(res.stdout)
    traj = load_log(log)
    assert att["status"] == "ok" and att["schema_version"]
    assert att["agent"] in traj.agents and 0 <= att["step"] < traj.n_steps
    assert att["demo_model"] is True and any("demo model" in n for n in att["notices"])
    call = att["calls"][0]
    assert call["backend"] == "local" and call["input_tokens"] > 0 and call["output_tokens"] > 0
    assert call["response_mode"] == "json_schema (grammar)" and call["valid"]
