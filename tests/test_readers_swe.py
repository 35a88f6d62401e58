"""SWE-agent .traj files: one step per action, the environment folded in, the issue as the task."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attrib.errors import InputError
from attrib.readers import Document, detect_format, iter_log_paths, load_log

DATA = Path(__file__).parent / "data" / "formats"
TRAJ = DATA / "swe_agent_tempora.traj"


def test_detected_before_who_and_when_and_chat() -> None:
    # a .traj has 'history' (Who&When's key) and 'trajectory' (a chat list key)
    assert detect_format(Document.open(TRAJ)) == "swe-agent"


def test_one_step_per_action_with_observation_folded() -> None:
    t = load_log(TRAJ)
    raw = json.loads(TRAJ.read_text())
    assert t.source_format == "swe-agent" and t.n_steps == len(raw["trajectory"]) == 18
    assert t.agents == ["SWE-agent"]  # 'primary' is SWE-agent's default name, not a role
    assert [s.source_id for s in t.steps] == [str(i) for i in range(18)]
    assert all(s.observation_ids == [f"{s.index}.observation"] for s in t.steps)
    third = t.steps[2].content.splitlines()
    assert third == ["Let's run it.", "[action] python reproduce.py", "[tool result] ''", "''"]
    assert "[action] edit 43:44\n    if seconds < 0:" in t.steps[8].content
    assert t.gold is None


def test_task_is_the_issue_without_the_instruction_template() -> None:
    t = load_log(TRAJ)
    assert t.question.startswith("`humanize_duration(0)` returns an empty string")
    assert t.question.endswith("they should raise `ValueError`.")
    assert "INSTRUCTIONS" not in t.question and "We're currently solving" not in t.question
    assert t.metadata["exit_status"] == "submitted" and t.metadata["api_calls"] == 18


def test_v1_layout_named_agent_and_problem_statement(tmp_path: Path) -> None:
    raw = json.loads(TRAJ.read_text())
    for msg in raw["history"]:
        msg["agent"] = "swe-coder"
    raw["history"][1]["content"] = ("<uploaded_files>\n/testbed\n</uploaded_files>\nConsider the following PR description:"
                                    "\n\n<pr_description>\nZero durations render as ''.\n</pr_description>\n\nCan you help?")
    (tmp_path / "a.traj").write_text(json.dumps(raw))
    t = load_log(tmp_path / "a.traj")
    assert t.agents == ["swe-coder"] and t.question == "Zero durations render as ''."
    raw["info"]["problem_statement"] = "The issue, as given to the run."
    (tmp_path / "b.traj").write_text(json.dumps(raw))
    assert load_log(tmp_path / "b.traj").question == "The issue, as given to the run."


def test_traj_suffix_is_found_in_folders(tmp_path: Path) -> None:
    (tmp_path / "run.traj").write_bytes(TRAJ.read_bytes())
    assert list(iter_log_paths([tmp_path])) == [tmp_path / "run.traj"]


def test_chat_messages_under_trajectory_are_not_swe_agent(tmp_path: Path) -> None:
    msgs = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    (tmp_path / "c.json").write_text(json.dumps({"trajectory": msgs, "info": {}}))
    assert detect_format(Document.open(tmp_path / "c.json")) == "chat"
    with pytest.raises(InputError, match="trajectory item 0 is not an action record"):
        load_log(tmp_path / "c.json", "swe-agent")


def test_other_json_is_still_refused_in_one_line() -> None:
    with pytest.raises(InputError) as err:
        load_log(DATA / "package.json")
    msg = str(err.value)
    assert "\n" not in msg
    for name in ("swe-agent", "trajdebug", "traceelephant", "openinference"):
        assert f"{name}: " in msg
