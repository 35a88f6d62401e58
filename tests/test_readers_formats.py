"""Each log format on a realistic file: agents, order, source ids, tool calls, labels, detection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attrib.errors import InputError
from attrib.readers import Document, detect_format, load_log

DATA = Path(__file__).parent / "data" / "formats"

EXPECTED_FORMAT = {
    "chat_airline.json": "chat",
    "labels_failure_fields.jsonl": "chat",
    "ag2_groupchat.json": "history",
    "crewai_tasks.json": "history",
    "metagpt_history.json": "history",
    "labels_failures.json": "history",
    "otlp_trace.json": "otel",
    "flat_spans.json": "otel",
    "transcript_colon.txt": "transcript",
    "transcript_brackets.txt": "transcript",
    "chatdev_expense_tracker.log": "chatdev",
    "chatdev_died_infrastructure.log": "chatdev",
    "mast_chatdev.json": "mast",
    "taubench_retail_42.json": "tau-bench",
}


@pytest.mark.parametrize("name,fmt", sorted(EXPECTED_FORMAT.items()))
def test_detection_picks_the_right_reader(name: str, fmt: str) -> None:
    assert detect_format(Document.open(DATA / name)) == fmt
    traj = load_log(DATA / name)
    assert traj.source_format == fmt
    assert [s.index for s in traj.steps] == list(range(traj.n_steps))
    assert all(s.source_id for s in traj.steps)


def test_json_of_another_kind_is_refused_in_one_line() -> None:
    with pytest.raises(InputError) as err:
        load_log(DATA / "package.json")
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith(str(DATA / "package.json"))
    for name in ("who-and-when", "attrib-jsonl", "chatdev", "mast", "tau-bench", "otel", "chat", "history", "transcript"):
        assert f"{name}: " in msg


def test_forcing_a_format_that_does_not_fit_gives_one_line() -> None:
    for fmt in ("chat", "otel", "history", "transcript", "attrib-jsonl"):
        other = DATA / ("transcript_colon.txt" if fmt != "transcript" else "package.json")
        with pytest.raises(InputError) as err:
            load_log(other, fmt)
        assert "\n" not in str(err.value)


def test_chat_tau_bench_airline() -> None:
    # τ-bench content exported as a chat ('messages', no 'traj' and no 'info.task'): not a τ-bench result
    # record, so the chat reader reads it (tool results as steps; its label counts 0-based positions)
    t = load_log(DATA / "chat_airline.json")
    assert t.n_steps == 35
    assert t.agents[:3] == ["system", "user", "assistant"]
    assert "tool:get_reservation_details" in t.agents
    assert t.question.startswith("Hi! I need to move my Newark to Seattle flight")
    assert [s.source_id for s in t.steps] == [str(i) for i in range(35)]
    assert t.steps[0].role == "system" and "Basic economy flights cannot be modified" in t.steps[0].content
    # a call with text, two parallel calls, and results tied to the calling step
    call = t.steps[4]
    assert call.agent == "assistant"
    assert call.content.splitlines()[1:] == [
        '[tool call get_reservation_details] {"reservation_id": "K7QZ2M"}',
        '[tool call get_reservation_details] {"reservation_id": "P3LX9A"}',
    ]
    assert [(s.agent, s.parent_id, s.role) for s in t.steps[5:7]] == [("tool:get_reservation_details", "4", "tool")] * 2
    assert t.steps[2].content == '[tool call get_user_details] {"user_id": "olivia_khan_4821"}'
    assert t.steps[14].agent == "tool:update_reservation_flights" and t.steps[14].parent_id == "13"
    assert t.gold is not None and (t.gold.agent, t.gold.step) == ("assistant", 11)
    assert "basic economy" in t.gold.reason
    assert t.question_id == "17" and t.metadata["env"] == "airline"


def test_chat_jsonl_with_header_labels_and_one_based_index() -> None:
    t = load_log(DATA / "labels_failure_fields.jsonl")
    assert [s.source_id for s in t.steps] == [str(i) for i in range(1, 10)]
    assert t.question == "Refund for order 58-2231 (arrived broken)"
    assert t.metadata["conversation_id"] == "conv-0192"
    # legacy function calls: call rendered, result tied to it
    assert t.steps[2].content.endswith('[tool call lookup_order] {"query": "58-2231"}')
    assert (t.steps[3].agent, t.steps[3].parent_id) == ("tool:lookup_order", "3")
    # failure_step 6 is the source's own (1-based) index: our step 5
    assert t.gold is not None and (t.gold.agent, t.gold.step) == ("assistant", 5)
    assert "issue_refund" in t.steps[t.gold.step].content


def test_history_ag2_group_chat() -> None:
    t = load_log(DATA / "ag2_groupchat.json")
    assert t.agents == ["User_proxy", "Planner", "Researcher", "Executor", "Critic"]
    assert [s.agent for s in t.steps[2:5]] == ["Researcher", "Executor", "Researcher"]
    assert "[tool call web_search]" in t.steps[2].content
    assert [(s.parent_id, s.role) for s in t.steps if s.agent == "Executor"] == [("2", "tool"), ("4", "tool"), ("6", "tool")]
    assert t.question.startswith("Using the 2011 and 2021 Portuguese censuses")
    assert t.gold is None


def test_history_crewai_task_outputs() -> None:
    t = load_log(DATA / "crewai_tasks.json")
    assert t.agents == ["Market Research Analyst", "Content Strategist", "Senior Copywriter", "Editor"]
    assert t.steps[0].content.startswith("[task] Research the market for hiking apps")
    assert "- Komoot: freemium" in t.steps[0].content
    assert t.gold is not None and (t.gold.agent, t.gold.step) == ("Market Research Analyst", 0)


def test_history_metagpt_memory() -> None:
    t = load_log(DATA / "metagpt_history.json")
    assert t.agents == ["Human", "Product Manager", "Architect", "Project Manager", "Engineer", "QaEngineer"]
    assert t.steps[1].source_id == "b28e11d0"
    assert t.steps[1].content.startswith("[action WritePRD]\n## Product Goals")
    assert t.question == "Write a CLI snake game in Python. The snake speeds up every 5 points."
    assert [s.agent for s in t.steps].count("Engineer") == 3


def test_history_failure_list_with_root_cause_id() -> None:
    t = load_log(DATA / "labels_failures.json")
    assert t.question.startswith("Fix the off-by-one error")
    assert [s.source_id for s in t.steps] == ["1", "2", "3", "4", "5", "6"]
    assert t.gold is not None and (t.gold.agent, t.gold.step) == ("Editor", 2)  # F1 at the source's step 3
    assert t.gold.reason.startswith("n_pages")


def test_failure_list_flagged_root_cause(tmp_path: Path) -> None:
    data = json.loads((DATA / "labels_failures.json").read_text())
    del data["root_cause_id"]
    data["failures"][1]["root_cause"] = True
    (tmp_path / "flagged.json").write_text(json.dumps(data))
    t = load_log(tmp_path / "flagged.json")
    assert t.gold is not None and (t.gold.agent, t.gold.step) == ("Editor", 4)


def test_label_outside_the_log_is_one_line_error(tmp_path: Path) -> None:
    data = json.loads((DATA / "labels_failures.json").read_text())
    data["failures"][0]["step"] = 40
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(InputError, match="labelled step 40"):
        load_log(tmp_path / "bad.json")


def test_otlp_trace_two_agents_nested_spans() -> None:
    t = load_log(DATA / "otlp_trace.json")
    assert t.agents == ["TripPlanner", "BookingAgent"]
    # 13 spans: HTTP root and two agent containers skipped, four tool spans folded into their callers
    assert t.n_steps == 6 and t.metadata["skipped_spans"] == 3 and t.metadata["folded_spans"] == 4
    assert [s.source_id for s in t.steps[:3]] == ["a0000000000000a2", "a0000000000000a4", "a0000000000000a6"]
    assert {s.parent_id for s in t.steps[:3]} == {"a0000000000000a1"}
    assert {s.parent_id for s in t.steps[3:]} == {"b0000000000000b1"}
    assert t.question.startswith("Plan a day trip from Munich to Salzburg")
    first = t.steps[0]
    assert first.content.splitlines()[1].startswith('[tool call search_trains] {"from": "M')
    # the tool span is the environment: its result is folded into the step that called it
    assert first.role == "assistant" and first.agent == "TripPlanner" and first.observation_ids == ["a0000000000000a3"]
    assert '[tool result search_trains] [{"train": "RJX 61"' in first.content
    # an event-carried choice, then the failing tool's error status and exception event folded into it
    assert t.steps[4].content.splitlines()[1] == '[tool call send_confirmation] {"booking": "DB-7Q2K9"}'
    assert t.steps[4].observation_ids == ["b0000000000000b5"]
    assert "[error] send failed" in t.steps[4].content
    assert "[exception] SMTPRecipientsRefused: mailbox unavailable" in t.steps[4].content
    assert t.gold is not None and (t.gold.agent, t.gold.step) == ("TripPlanner", 2)
    assert t.metadata["trace_id"] == "4bf92f3577b34da6a3ce929d0e0e4736"


def test_otel_label_naming_a_container_span_maps_below_it(tmp_path: Path) -> None:
    data = json.loads((DATA / "otlp_trace.json").read_text())
    data["attribution"]["span_id"] = "b0000000000000b1"
    data["attribution"]["agent"] = "BookingAgent"
    (tmp_path / "trace.json").write_text(json.dumps(data))
    t = load_log(tmp_path / "trace.json")
    assert t.gold is not None and t.gold.step == 3


def test_otel_label_naming_a_folded_tool_span_is_an_error(tmp_path: Path) -> None:
    data = json.loads((DATA / "otlp_trace.json").read_text())
    data["attribution"]["span_id"] = "a0000000000000a3"
    (tmp_path / "trace.json").write_text(json.dumps(data))
    with pytest.raises(InputError, match="tool result folded into step 0"):
        load_log(tmp_path / "trace.json")


def test_flat_spans_ordered_by_start_time_agents_from_services() -> None:
    t = load_log(DATA / "flat_spans.json")
    assert t.agents == ["coder-agent", "reviewer-agent"]
    assert [s.source_id for s in t.steps] == ["3333cccc4444dddd", "5555eeee6666ffff",
                                              "9999cccc0000dddd", "aaaa1111bbbb2222", "cccc3333dddd4444"]
    call = t.steps[1]
    assert call.content.splitlines()[0] == '[tool call run_tests] {"path": "tests/test_duration.py"}'
    assert call.observation_ids == ["7777aaaa8888bbbb"] and call.role == "assistant"
    assert "[tool result run_tests] 2 passed, 1 failed" in call.content
    assert t.question == "Write parse_duration('1h30m') -> seconds, with tests."


def test_transcript_name_colon() -> None:
    t = load_log(DATA / "transcript_colon.txt")
    assert [s.agent for s in t.steps] == ["User", "Planner", "Inspector", "Inspector", "Fixer", "Inspector", "User", "Fixer"]
    assert [s.source_id for s in t.steps[:3]] == ["line 3", "line 4", "line 9"]
    inspector = t.steps[2].content
    assert "Thought: the job name" in inspector and "Observation: Mar 13" in inspector  # not new turns
    assert "[tool call read_log]" in inspector
    assert "Note: cron mails stdout" in t.steps[3].content
    assert t.question.startswith("Our nightly backup job failed again")
    assert t.metadata["preamble"].startswith("# Support-bot evaluation")


def test_transcript_brackets_with_time_stamps() -> None:
    t = load_log(DATA / "transcript_brackets.txt")
    assert t.agents == ["human", "Orchestrator", "WebSurfer", "Assistant"]
    assert t.steps[2].label == "Orchestrator (-> WebSurfer)" and t.steps[2].agent == "Orchestrator"
    assert t.steps[3].source_id == "line 10"
    assert t.steps[8].content == "FINAL ANSWER: 5"
    assert t.question.startswith("How many studio albums")


def test_agent_only_label_gives_no_gold_but_is_kept(tmp_path: Path) -> None:
    msgs = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
    (tmp_path / "c.json").write_text(json.dumps({"messages": msgs, "responsible_agent": "assistant"}))
    t = load_log(tmp_path / "c.json")
    assert t.gold is None and t.metadata["label_agent_only"] == "assistant"


def test_fine_tuning_line_is_one_chat_and_several_are_refused(tmp_path: Path) -> None:
    conv = {"messages": [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"}]}
    (tmp_path / "one.jsonl").write_text(json.dumps(conv) + "\n")
    assert [s.agent for s in load_log(tmp_path / "one.jsonl").steps] == ["user", "assistant"]
    (tmp_path / "two.jsonl").write_text((json.dumps(conv) + "\n") * 2)
    with pytest.raises(InputError, match="chat: holds 2 conversations"):
        load_log(tmp_path / "two.jsonl")
