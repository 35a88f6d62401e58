"""ChatDev run logs and MAST records: agents, phases, source ids, infrastructure records and failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import API_KEY
from mock_answers import make_realistic_responder
from typer.testing import CliRunner

import attrib.cli as cli
from attrib.api import predict
from attrib.errors import InputError
from attrib.readers import Document, detect_format, load_log

DATA = Path(__file__).parent / "data" / "formats"
FULL = DATA / "chatdev_expense_tracker.log"
DIED = DATA / "chatdev_died_infrastructure.log"
ROLES = ["Chief Product Officer", "Chief Executive Officer", "Chief Technology Officer", "Programmer",
         "Code Reviewer", "Software Test Engineer", "Counselor"]


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_agents_steps_phases_and_source_ids() -> None:
    t = load_log(FULL)
    assert t.source_format == "chatdev" and detect_format(Document.open(FULL)) == "chatdev"
    assert t.n_steps == 31 and t.agents == ROLES  # no Timestamp, config_path, ChatEnvConfig... agents
    assert t.question.startswith("Build a command-line expense tracker")
    assert t.metadata["phases"] == ["DemandAnalysis", "LanguageChoose", "Coding", "CodeComplete", "CodeReviewComment",
                                    "CodeReviewModification", "TestErrorSummary", "TestModification",
                                    "EnvironmentDoc", "Manual", "Reflection"]
    lines = _lines(FULL)
    for step in t.steps:  # every source id is the line of an agent-turn header naming that agent and phase
        header = lines[int(step.source_id.removeprefix("line ")) - 1]
        assert f"INFO] {step.agent}: **" in header and f" on : {step.phase}, turn " in header
    coding = [s for s in t.steps if s.phase == "Coding"]
    assert [s.agent for s in coding] == ["Chief Technology Officer", "Programmer"]
    assert 'datetime.strptime(row["date"], "%d/%m/%Y")' in coding[1].content
    assert not any("flask app.py" in s.content or "HTTP Request" in s.content for s in t.steps)


def test_infrastructure_records_are_kept_as_ids_not_steps() -> None:
    t = load_log(FULL)
    infra = t.metadata["infrastructure"]
    kinds = infra["kinds"]
    assert kinds["chatting"] == kinds["start_chat"] == 13 and kinds["preprocessing"] == 1
    assert kinds["retry"] == 1 and kinds["http_error"] == 1 and kinds["http_ok"] == 31
    lines = _lines(FULL)
    assert any("Retrying request to /chat/completions" in lines[int(i[5:]) - 1] for i in infra["ids"])
    assert set(infra["ids"]).isdisjoint(s.source_id for s in t.steps)
    assert t.metadata["started_at"] == "2024-06-17T09:14:05"  # written day before month
    # a retry the run recovered from (an agent spoke after it) is not an infrastructure failure
    assert t.infrastructure_failure is None


def test_run_that_died_on_infrastructure() -> None:
    t = load_log(DIED)
    assert t.agents == ROLES[:3] and t.n_steps == 4
    assert t.question.startswith("Write a Pomodoro timer")
    reason = t.infrastructure_failure
    assert reason is not None and "\n" not in reason
    assert "3 retried requests" in reason and "HTTP 500/502/503" in reason and "1 ERROR record" in reason
    assert "Chief Technology Officer (LanguageChoose, turn 0)" in reason


def test_no_agent_turn_is_refused_with_the_reason(tmp_path: Path) -> None:
    lines = _lines(DIED)
    first_turn = next(i for i, line in enumerate(lines) if "on : DemandAnalysis, turn 0" in line)
    start = next(i for i, line in enumerate(lines) if "HTTP/1.1 500" in line)
    (tmp_path / "dead.log").write_text("\n".join(lines[: first_turn - 4] + lines[start:]) + "\n")
    with pytest.raises(InputError, match="no agent turn in this ChatDev log .run died on infrastructure"):
        load_log(tmp_path / "dead.log")


def test_plain_transcripts_are_not_chatdev() -> None:
    assert detect_format(Document.open(DATA / "transcript_brackets.txt")) == "transcript"
    with pytest.raises(InputError, match="chatdev: is JSON"):
        load_log(DATA / "package.json")


@pytest.mark.parametrize("method", ["random", "all-at-once", "step-by-step", "binary-search", "hybrid", "chief"])
def test_predict_reports_infrastructure_failure_without_calling_a_model(method, mock_server, make_llm) -> None:
    srv = mock_server(make_realistic_responder())
    att = predict(load_log(DIED), method, client=make_llm(srv, cache=False))
    assert att.status == "infrastructure_failure" and att.agent is None and att.step is None
    assert "retried requests" in att.error and att.usage.calls == 0
    assert srv.count == 0


def test_cli_predict_exit_code_and_json_for_infrastructure_failure(mock_server, monkeypatch) -> None:
    monkeypatch.setenv("ATTRIB_API_KEY", API_KEY)
    srv = mock_server(make_realistic_responder())
    result = CliRunner().invoke(cli.app, ["predict", str(DIED), "--json", "--model", "mock-model", "--base-url", srv.url])
    assert result.exit_code == cli.EXIT_INFRASTRUCTURE_FAILURE == 4
    data = json.loads(result.stdout)
    assert data["status"] == "infrastructure_failure" and data["agent"] is None
    assert data["error"].startswith("run died on infrastructure after Chief Technology Officer")
    ok = CliRunner().invoke(cli.app, ["predict", str(FULL), "--json", "--model", "mock-model", "--base-url", srv.url])
    assert ok.exit_code == 0 and json.loads(ok.stdout)["status"] in ("ok", "no_error_found")


def test_show_and_validate_on_chatdev() -> None:
    shown = CliRunner().invoke(cli.app, ["show", str(FULL), "--json"])
    data = json.loads(shown.stdout)
    assert data["n_steps"] == 31 and data["steps"][0]["phase"] == "DemandAnalysis"
    checked = CliRunner().invoke(cli.app, ["validate", str(DIED)])
    assert checked.exit_code == 0 and "note: run died on infrastructure" in checked.stdout


def test_an_error_record_alone_is_not_an_infrastructure_failure(tmp_path: Path) -> None:
    lines = [ln for ln in _lines(DIED) if "HTTP/1.1 5" not in ln and "Retrying request" not in ln]
    (tmp_path / "crash.log").write_text("\n".join(lines) + "\n")
    t = load_log(tmp_path / "crash.log")
    assert t.metadata["infrastructure"]["kinds"]["error"] == 1 and t.infrastructure_failure is None
