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
    # record, so the chat reader reads it; its label counts 0-based message positions (the source ids)
    t = load_log(DATA / "chat_airline.json")
    raw = json.loads((DATA / "chat_airline.json").read_text())["messages"]
    tool_positions = [str(i) for i, m in enumerate(raw) if m["role"] == "tool"]
    assert len(raw) == 35 and len(tool_positions) == 8
    # tool results are not steps (nor agents): each is folded into the step that issued its call
    assert t.n_steps == 35 - 8 == 27
    assert t.agents == ["system", "user", "assistant"]
    assert [s.source_id for s in t.steps] == [str(i) for i, m in enumerate(raw) if m["role"] != "tool"]
    assert [o for s in t.steps for o in s.observation_ids] == tool_positions
    assert t.question.startswith("Hi! I need to move my Newark to Seattle flight")
    assert t.steps[0].role == "system" and "Basic economy flights cannot be modified" in t.steps[0].content
    # a call with text, two parallel calls, both results folded into it (matched by tool_call_id)
    call = t.steps[3]
    assert (call.agent, call.source_id, call.observation_ids, call.parent_id) == ("assistant", "4", ["5", "6"], None)
    assert call.content.splitlines()[1:3] == [
        '[tool call get_reservation_details] {"reservation_id": "K7QZ2M"}',
        '[tool call get_reservation_details] {"reservation_id": "P3LX9A"}',
    ]
    results = [line for line in call.content.splitlines() if line.startswith("[tool result")]
    assert len(results) == 2
    assert results[0].startswith('[tool result get_reservation_details] {"reservation_id": "K7QZ2M"')
    assert results[1].startswith('[tool result get_reservation_details] {"reservation_id": "P3LX9A"')
    assert t.steps[2].content.startswith('[tool call get_user_details] {"user_id": "olivia_khan_4821"}\n'
                                         '[tool result get_user_details] {"user_id": "olivia_khan_4821"')
    update = t.steps[9]
    assert (update.source_id, update.observation_ids) == ("13", ["14"])
    assert "[tool result update_reservation_flights]" in update.content
    # the label's step 11 is the message at position 11 (the source id), our step 7: the offer to modify
    assert t.gold is not None and (t.gold.agent, t.gold.step) == ("assistant", 7)
    assert t.steps[7].source_id == "11" and t.steps[7].content.startswith("Here is the change:")
    assert "basic economy" in t.gold.reason
    assert t.question_id == "17" and t.metadata["env"] == "airline"


def test_chat_jsonl_with_header_labels_and_one_based_index() -> None:
    t = load_log(DATA / "labels_failure_fields.jsonl")
    assert [s.source_id for s in t.steps] == ["1", "2", "3", "5", "6", "8", "9"]
    assert t.question == "Refund for order 58-2231 (arrived broken)"
    assert t.metadata["conversation_id"] == "conv-0192"
    # legacy function calls: call rendered, the function message folded into it
    assert t.steps[2].content.splitlines()[1:] == [
        '[tool call lookup_order] {"query": "58-2231"}',
        '[tool result lookup_order] [{"order": "58-2231", "item": "Tidewater deluxe", "total": 64.0}, '
        '{"order": "58-2213", "item": "Tidewater expansion", "total": 22.5}]']
    assert t.steps[2].observation_ids == ["4"] and t.steps[4].observation_ids == ["7"]
    assert "tool" not in " ".join(t.agents) and "lookup_order" not in t.agents
    # failure_step 6 is the source's own (1-based) index: our step 4, the refund to the wrong order
    assert t.gold is not None and (t.gold.agent, t.gold.step) == ("assistant", 4)
    assert "issue_refund" in t.steps[t.gold.step].content


def _chat(tmp_path: Path, messages: list[dict], **meta: object) -> Path:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"messages": messages, **meta}))
    return path


def _call(call_id: str, name: str, args: str) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}


def test_chat_tool_result_folds_into_the_call_named_by_its_id(tmp_path: Path) -> None:
    msgs = [
        {"role": "user", "content": "Weather in Oslo and Bergen?"},
        {"role": "assistant", "content": None, "tool_calls": [_call("c1", "weather", '{"city": "Oslo"}')]},
        {"role": "assistant", "content": "Also checking Bergen.", "tool_calls": [_call("c2", "weather", '{"city": "Bergen"}')]},
        {"role": "tool", "tool_call_id": "c1", "content": "Oslo: 4 C, rain"},  # answers the earlier step, not the latest
        {"role": "tool", "tool_call_id": "c2", "content": "Bergen: 7 C, wind"},
        {"role": "tool", "tool_call_id": "zz", "content": "orphan result"},  # unknown id: the latest step
        {"role": "assistant", "content": "Oslo 4 C, Bergen 7 C."},
    ]
    t = load_log(_chat(tmp_path, msgs))
    assert [(s.agent, s.source_id, s.observation_ids) for s in t.steps] == [
        ("user", "0", []), ("assistant", "1", ["3"]), ("assistant", "2", ["4", "5"]), ("assistant", "6", [])]
    assert t.steps[1].content.endswith("[tool result weather] Oslo: 4 C, rain")
    assert t.steps[2].content.splitlines()[-2:] == ["[tool result weather] Bergen: 7 C, wind", "[tool result] orphan result"]


def test_chat_tool_result_before_any_step_is_the_environment(tmp_path: Path) -> None:
    msgs = [{"role": "tool", "tool_call_id": "c0", "content": "boot log: 3 services up"},
            {"role": "user", "content": "Is the cluster healthy?"},
            {"role": "assistant", "content": "Yes, 3 services are up."}]
    t = load_log(_chat(tmp_path, msgs))
    assert [(s.agent, s.role) for s in t.steps] == [("environment", "tool"), ("user", "user"), ("assistant", "assistant")]
    assert t.steps[0].content == "[tool result] boot log: 3 services up"


def test_chat_label_on_a_folded_tool_message_is_an_error_of_the_file(tmp_path: Path) -> None:
    msgs = [{"role": "user", "content": "2+3?"},
            {"role": "assistant", "content": None, "tool_calls": [_call("c1", "add", '{"a": 2, "b": 3}')]},
            {"role": "tool", "tool_call_id": "c1", "content": "6"},
            {"role": "assistant", "content": "2+3 = 6"}]
    with pytest.raises(InputError, match="labelled step '2' is a tool result folded into step 1"):
        load_log(_chat(tmp_path, msgs, mistake_step=2))
    assert load_log(_chat(tmp_path, msgs, mistake_step=3)).gold.step == 2  # the source position of the answer


def test_history_ag2_group_chat() -> None:
    t = load_log(DATA / "ag2_groupchat.json")
    # the Executor only relays tool responses (role 'tool'): folded into the Researcher's calls, not an agent
    assert t.agents == ["User_proxy", "Planner", "Researcher", "Critic"]
    assert [s.agent for s in t.steps[2:6]] == ["Researcher"] * 4
    assert [(s.source_id, s.observation_ids) for s in t.steps[2:6]] == [("2", ["3"]), ("4", ["5"]), ("6", ["7"]), ("8", [])]
    assert "[tool call web_search]" in t.steps[2].content
    assert "[tool result web_search] 1. Lisbon (municipality) - census 2021: 545,796" in t.steps[2].content
    assert t.steps[4].content.endswith("[tool call python] {\"code\": \"print(round((2870208-2821876)/2821876*100, 1))\"}\n"
                                       "[tool result python] 1.7")
    assert all(s.role != "tool" for s in t.steps)
    assert t.question.startswith("Using the 2011 and 2021 Portuguese censuses")
    assert t.gold is None


def test_history_autogen_tool_events_fold_into_the_request(tmp_path: Path) -> None:
    events = [
        {"source": "user", "type": "TextMessage", "content": "What is 17 * 23?"},
        {"source": "math_agent", "type": "ToolCallRequestEvent",
         "content": [{"id": "call_1", "name": "multiply", "arguments": "{\"a\": 17, \"b\": 23}"}]},
        {"source": "math_agent", "type": "ToolCallExecutionEvent",
         "content": [{"call_id": "call_1", "content": "391", "is_error": False}]},
        {"source": "math_agent", "type": "TextMessage", "content": "17 * 23 = 391"},
        {"source": "reviewer", "type": "TextMessage", "content": "Correct. TERMINATE"},
    ]
    path = tmp_path / "autogen.json"
    path.write_text(json.dumps({"messages": events}))
    t = load_log(path)
    assert t.source_format == "history" and t.agents == ["user", "math_agent", "reviewer"]
    assert [(s.source_id, s.observation_ids) for s in t.steps] == [("0", []), ("1", ["2"]), ("3", []), ("4", [])]
    assert t.steps[1].content == '[tool call multiply] {"a": 17, "b": 23}\n[tool result multiply] 391'


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
