"""TraceElephant task folders: one case per folder, ChatCompletion reprs decoded, mistake_step 0-based."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from attrib.errors import InputError
from attrib.readers import detect_format, iter_log_paths, load_log
from attrib.readers.completion_repr import message_of
from attrib.readers.source import open_lean

DATA = Path(__file__).parent / "data" / "formats"
TASK = DATA / "traceelephant_task"


@pytest.mark.parametrize("path", [TASK, TASK / "trace_metadata.json", TASK / "step_records.json"])
def test_folder_or_either_file_is_the_same_case(path: Path) -> None:
    assert detect_format(open_lean(path)) == "traceelephant"
    t = load_log(path)
    assert t.id == "traceelephant_task" and t.path == str(TASK)


def test_steps_agents_and_label() -> None:
    t = load_log(TASK)
    assert t.agents == ["Orchestrator", "WebSurfer", "Coder"]
    assert [s.source_id for s in t.steps] == [str(i) for i in range(7)]
    assert t.question.startswith("In the 2019 edition of the 'Open Data Barometer'")
    assert t.ground_truth == "Australia" and t.question_id == "odb-2019-canada"
    # mistake_step "3" is the 0-based record position, Who&When's convention
    assert t.gold is not None and (t.gold.agent, t.gold.step) == ("WebSurfer", 3)
    assert t.steps[3].agent == "WebSurfer" and "4th Edition" in t.steps[3].content
    assert t.gold.reason.startswith("WebSurfer read the 4th Edition")


def test_completion_reprs_are_decoded() -> None:
    t = load_log(TASK)
    assert "ChatCompletion(" not in "".join(s.content for s in t.steps[:6])
    assert t.steps[0].content.startswith("Initial plan:\n1. WebSurfer: find")  # "..." literal, '\n' decoded
    assert t.steps[2].content == '[tool call web_search] {"query": "Open Data Barometer 2019 country ranking"}'
    assert t.steps[4].content.startswith('Ledger update: WebSurfer\'s reading of the table says "France"')
    assert "\u2013 4th Edition" in t.steps[3].content  # non-ASCII kept as written
    assert t.steps[5].content == "The answer should be the bare country name without quotes: France"  # plain text


def test_cut_off_repr_falls_back_to_raw_text_with_a_note() -> None:
    t = load_log(TASK)
    last = t.steps[6].content
    assert last.startswith("[raw completion object: message not extracted]\nChatCompletion(id=")
    assert t.metadata["raw_outputs"] == [6]


def test_extractor_handles_escapes_and_parentheses_in_arguments() -> None:
    text = ("ChatCompletion(id='x', choices=[Choice(index=0, message=ChatCompletionMessage(content='it\\'s \"done\"\\n)',"
            " role='assistant', tool_calls=[ChatCompletionMessageToolCall(id='c1', function=Function(arguments="
            "'{\"expr\": \"f(1)\"}', name='python'), type='function')]))])")
    assert message_of(text) == 'it\'s "done"\n)\n[tool call python] {"expr": "f(1)"}'
    assert message_of("ChatCompletion(choices=[Choice(message=ChatCompletionMessage(content=None, role='a'))])") is None


def test_evaluate_walk_yields_the_folder_once(tmp_path: Path) -> None:
    shutil.copytree(TASK, tmp_path / "cases" / "task_07")
    (tmp_path / "cases" / "other.json").write_text("{}")
    found = list(iter_log_paths([tmp_path / "cases"]))
    assert found == [tmp_path / "cases" / "other.json", tmp_path / "cases" / "task_07"]
    assert list(iter_log_paths([tmp_path / "cases" / "task_07" / "step_records.json",
                                tmp_path / "cases" / "task_07"])) == [tmp_path / "cases" / "task_07"]


def test_step_records_alone_read_without_a_label(tmp_path: Path) -> None:
    shutil.copy(TASK / "step_records.json", tmp_path / "step_records.json")
    t = load_log(tmp_path / "step_records.json")
    assert t.source_format == "traceelephant" and t.gold is None and t.n_steps == 7


def test_broken_metadata_names_the_file(tmp_path: Path) -> None:
    shutil.copytree(TASK, tmp_path / "t")
    (tmp_path / "t" / "trace_metadata.json").write_text("{ nope")
    with pytest.raises(InputError) as err:
        load_log(tmp_path / "t")
    assert str(err.value).startswith(str(tmp_path / "t" / "trace_metadata.json")) and "\n" not in str(err.value)


def test_label_outside_the_records_is_an_error(tmp_path: Path) -> None:
    shutil.copytree(TASK, tmp_path / "t")
    meta = json.loads((TASK / "trace_metadata.json").read_text())
    meta["mistake_step"] = "12"
    (tmp_path / "t" / "trace_metadata.json").write_text(json.dumps(meta))
    with pytest.raises(InputError, match="labelled step '12' is not a step of this log"):
        load_log(tmp_path / "t")


def test_a_plain_folder_is_not_a_log(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        load_log(tmp_path)
