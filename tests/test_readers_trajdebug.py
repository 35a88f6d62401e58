"""TrajDebug unified files: judgable messages are steps, tool messages fold in, the label maps through `step`."""

from __future__ import annotations

from pathlib import Path

import pytest

from attrib.errors import InputError
from attrib.readers import Document, detect_format, load_log

from conftest import write_variant

DATA = Path(__file__).parent / "data" / "formats"
FILE = DATA / "trajdebug_retail.json"


def _variant(tmp_path: Path, change) -> Path:
    return write_variant(FILE, tmp_path, change)


def test_detected_as_trajdebug() -> None:
    assert detect_format(Document.open(FILE)) == "trajdebug"


def test_steps_agents_and_source_ids() -> None:
    t = load_log(FILE)
    assert t.agents == ["system", "user", "retail_agent"]
    assert t.n_steps == 10  # 14 messages, the four tool results folded into the calls
    assert [s.source_id for s in t.steps] == ["1", "2", "3", "5", "7", "9", "10", "11", "13", "14"]
    assert [s.observation_ids for s in t.steps if s.observation_ids] == [["4"], ["6"], ["8"], ["12"]]
    assert "[tool result get_order_details] {\"order_id\": \"#W4817420\"" in t.steps[3].content
    assert t.question.startswith("Exchange the wireless mouse from my order #W4817420")
    assert t.question_id == "retail_117"
    assert t.metadata["dataset"] == "tau-bench-retail" and t.metadata["reward"] == 0.0


def test_label_maps_through_the_step_numbers_not_our_index() -> None:
    t = load_log(FILE)
    assert t.gold is not None
    # critical_error_step 9 is the message numbered 9 (our step 5), not our step 9 (the user's last turn)
    assert (t.gold.agent, t.gold.step) == ("retail_agent", 5)
    assert t.steps[5].content.startswith("The black wireless mouse is available")
    assert t.gold.reason == "wrong_item_variant" and t.metadata["critical_error_type"] == "wrong_item_variant"


def test_zero_based_numbering_maps_the_same_message(tmp_path: Path) -> None:
    def shift(raw: dict) -> None:
        for m in raw["messages"]:
            m["step"] -= 1
        raw["metadata"]["annotation"]["critical_error_step"] = 8
    t = load_log(_variant(tmp_path, shift))
    assert t.gold is not None and t.gold.step == 5 and t.steps[0].source_id == "0"


def test_label_on_a_tool_message_is_an_error_of_the_file(tmp_path: Path) -> None:
    def on_tool(raw: dict) -> None:
        raw["metadata"]["annotation"]["critical_error_step"] = 8
    with pytest.raises(InputError, match="labelled step '8' is a tool result folded into step 4"):
        load_log(_variant(tmp_path, on_tool))


def test_unlabelled_success_has_no_gold(tmp_path: Path) -> None:
    def success(raw: dict) -> None:
        raw["metadata"]["reward"] = 1.0
        del raw["metadata"]["annotation"]
    t = load_log(_variant(tmp_path, success))
    assert t.gold is None and t.metadata["reward"] == 1.0


def test_messages_without_judgable_flag_are_not_trajdebug(tmp_path: Path) -> None:
    def plain(raw: dict) -> None:
        for m in raw["messages"]:
            del m["judgable"]
    path = _variant(tmp_path, plain)
    with pytest.raises(InputError, match="not a TrajDebug trajectory: no message carries 'judgable'"):
        load_log(path, "trajdebug")
