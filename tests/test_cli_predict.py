"""`attrib predict` end to end: CLI -> api -> LLM client -> openai SDK -> mock server."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

import attrib.cli as cli
from attrib.attribution import SCHEMA_VERSION

from conftest import API_KEY
from mockserver import Reply

ANSWER = json.dumps({"agent": "WebSurfer", "step": 4, "reason": "It reported a price it never verified."})


@pytest.fixture
def log(hand_dir):
    return hand_dir / "6.json"  # 8 steps; WebSurfer acts at step 4


@pytest.fixture
def srv(mock_server, monkeypatch):
    monkeypatch.setenv("ATTRIB_API_KEY", API_KEY)
    return mock_server(ANSWER)


def run(srv, log, *extra: str):
    args = ["predict", str(log), "--model", "mock-model", "--base-url", srv.url, *extra]
    result = CliRunner().invoke(cli.app, args)
    stderr = result.stderr if _separate(result) else ""
    assert "Traceback" not in result.output + stderr
    assert API_KEY not in result.output + stderr  # the key is in no CLI output
    return result, stderr


def _separate(result) -> bool:
    try:
        _ = result.stderr
    except ValueError:
        return False
    return True


def stdout(result) -> str:
    return result.stdout if hasattr(result, "stdout") else result.output


def test_json_prints_one_attribution_object(srv, log):
    result, stderr = run(srv, log, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(stdout(result))  # exactly one JSON document, nothing else on stdout
    assert isinstance(data, dict) and data["schema_version"] == SCHEMA_VERSION
    assert (data["status"], data["agent"], data["step"]) == ("ok", "WebSurfer", 4)
    assert data["method"] == "all-at-once" and data["model"] == "mock-model" and data["case_id"] == "6"
    assert data["usage"]["calls"] == 1 and data["calls"][0]["backend"] == "openai"
    assert srv.count == 1 and srv.requests[0].headers["authorization"] == f"Bearer {API_KEY}"
    assert stderr == ""


def test_out_writes_the_same_json(srv, log, tmp_path):
    out = tmp_path / "attribution.json"
    result, _ = run(srv, log, "--json", "--out", str(out))
    assert result.exit_code == 0
    written = out.read_text(encoding="utf-8")
    assert json.loads(written) == json.loads(stdout(result))
    assert API_KEY not in written


def test_out_without_json_still_writes_the_file(srv, log, tmp_path):
    out = tmp_path / "sub.json"
    result, _ = run(srv, log, "--out", str(out))
    assert result.exit_code == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["schema_version"] == SCHEMA_VERSION and (data["agent"], data["step"]) == ("WebSurfer", 4)


def test_default_output_is_a_panel_with_agent_and_step(srv, log):
    result, _ = run(srv, log)
    assert result.exit_code == 0, result.output
    text = stdout(result)
    assert "attrib: failure attribution" in text and "╭" in text  # the rich panel
    assert re.search(r"^│\s+agent\s+WebSurfer\s", text, re.M)
    assert re.search(r"^│\s+step\s+4\s", text, re.M)
    assert "It reported a price" in text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)


def test_second_identical_run_makes_no_request(srv, log):
    first, _ = run(srv, log, "--json")
    assert srv.count == 1
    second, _ = run(srv, log, "--json")
    assert srv.count == 1  # answered from the cache in $ATTRIB_CACHE_DIR
    a, b = json.loads(stdout(first)), json.loads(stdout(second))
    assert (b["agent"], b["step"], b["reason"]) == (a["agent"], a["step"], a["reason"])
    assert all(c["cached"] for c in b["calls"]) and b["usage"]["cached_calls"] == 1
    third, _ = run(srv, log, "--json", "--no-cache")
    assert srv.count == 2 and not json.loads(stdout(third))["calls"][0]["cached"]


def test_json_shows_provider_cached_tokens_and_their_price(mock_server, monkeypatch, log):
    monkeypatch.setenv("ATTRIB_API_KEY", API_KEY)
    srv = mock_server(ANSWER)  # reports a repeated prompt prefix as cached, like OpenAI
    args = ["predict", str(log), "--model", "gpt-4o-mini", "--base-url", srv.url, "--json", "--no-cache"]
    first, again = (json.loads(stdout(CliRunner().invoke(cli.app, args))) for _ in range(2))
    call = again["calls"][0]
    assert first["calls"][0]["cached_input_tokens"] == 0 and 0 < call["cached_input_tokens"] <= call["input_tokens"]
    assert again["usage"]["cached_input_tokens"] == call["cached_input_tokens"]
    billed = (call["input_tokens"] - call["cached_input_tokens"]) * 0.15 + call["cached_input_tokens"] * 0.075
    assert call["cost_usd"] == pytest.approx((billed + call["output_tokens"] * 0.60) / 1e6, abs=1e-8)
    text = stdout(CliRunner().invoke(cli.app, args[:-2]))  # the human-readable panel
    assert f"({call['cached_input_tokens']:,} cached)" in text


def test_no_ground_truth_flag(srv, log):
    result, _ = run(srv, log, "--json", "--no-ground-truth")
    assert json.loads(stdout(result))["with_ground_truth"] is False
    prompt = srv.requests[0].body["messages"][-1]["content"]
    assert "The correct final answer is not given" in prompt and "The correct final answer is: " not in prompt


def test_failed_call_exits_1_with_error_status_and_no_key(mock_server, monkeypatch, log):
    monkeypatch.setenv("ATTRIB_API_KEY", API_KEY)
    srv = mock_server(Reply.error(401, f"Incorrect API key provided: {API_KEY}", "invalid_request_error"))
    result, _ = run(srv, log, "--json", "--max-retries", "0")
    assert result.exit_code == 1
    data = json.loads(stdout(result))
    assert data["status"] == "error" and "401" in data["error"] and data["agent"] is None


def test_invalid_answer_exits_1_with_invalid_status(mock_server, monkeypatch, log):
    monkeypatch.setenv("ATTRIB_API_KEY", API_KEY)
    srv = mock_server(json.dumps({"agent": "Nobody", "step": 4, "reason": "?"}))
    result, _ = run(srv, log, "--json")
    assert result.exit_code == 1
    data = json.loads(stdout(result))
    assert (data["status"], data["agent"], data["step"]) == ("invalid", None, None) and srv.count == 2
