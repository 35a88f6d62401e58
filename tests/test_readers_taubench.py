"""τ-bench result records: user simulator and agent as the actors, tool results folded, 1-based source ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attrib.errors import InputError
from attrib.readers import Document, detect_format, load_log

DATA = Path(__file__).parent / "data" / "formats"
TAU = DATA / "taubench_retail_42.json"


def _record() -> dict:
    return json.loads(TAU.read_text(encoding="utf-8"))


def test_actors_steps_and_folded_tool_results() -> None:
    t = load_log(TAU)
    raw = _record()["traj"]
    assert len(raw) == 34 and detect_format(Document.open(TAU)) == "tau-bench"
    assert t.source_format == "tau-bench" and t.agents == ["system", "user", "assistant"]
    assert not any(a.startswith("tool") for a in t.agents)  # tools are not agents
    tool_indexes = [str(m["index"]) for m in raw if m["role"] == "tool"]
    assert t.n_steps == 34 - len(tool_indexes) == 27
    # source ids are τ-bench's own 1-based indexes; the tool results' indexes are observation ids
    assert [s.source_id for s in t.steps] == [str(m["index"]) for m in raw if m["role"] != "tool"]
    assert [o for s in t.steps for o in s.observation_ids] == tool_indexes
    exchange = next(s for s in t.steps if "exchange_delivered_order_items" in s.content)
    assert (exchange.index, exchange.source_id, exchange.observation_ids) == (19, "25", ["26"])
    assert exchange.content.splitlines()[0].startswith('[tool call exchange_delivered_order_items] {"order_id"')
    assert "[tool result exchange_delivered_order_items]" in exchange.content and '"exchange requested"' in exchange.content
    assert t.steps[0].role == "system" and "Retail agent policy" in t.steps[0].content


def test_task_ground_truth_and_metadata() -> None:
    t = load_log(TAU)
    assert t.question.startswith("You are Yara Silva") and t.question_id == "42"
    assert t.ground_truth.startswith("Expected actions: exchange_delivered_order_items(")
    assert '"payment_method_id": "gift_card_7252880"' in t.ground_truth
    assert t.metadata["reward"] == 0.0 and t.metadata["trial"] == 0 and t.gold is None


def test_without_index_the_position_counts_from_one(tmp_path: Path) -> None:
    rec = _record()
    for m in rec["traj"]:
        del m["index"]
    (tmp_path / "noindex.json").write_text(json.dumps(rec))
    t = load_log(tmp_path / "noindex.json")
    assert [s.source_id for s in t.steps] == [s.source_id for s in load_log(TAU).steps]


def test_several_records_in_one_file_need_a_selector(tmp_path: Path) -> None:
    rec = _record()
    (tmp_path / "results.json").write_text(json.dumps([rec, {**rec, "task_id": 43}]))
    with pytest.raises(InputError, match=r"holds 2 tau-bench records \(task_ids 42, 43\); read one as results.json#<id>"):
        load_log(tmp_path / "results.json")
    (tmp_path / "one.jsonl").write_text(json.dumps(rec) + "\n")
    assert load_log(tmp_path / "one.jsonl").n_steps == 27


def test_chat_export_with_messages_stays_a_chat_log() -> None:
    # chat_airline.json holds τ-bench content but as an exported chat ('messages', no 'traj' or 'info.task'):
    # it is not a τ-bench result record, so the chat reader keeps reading it (its label is a 0-based position)
    assert detect_format(Document.open(DATA / "chat_airline.json")) == "chat"


def test_other_json_is_still_refused_in_one_line() -> None:
    with pytest.raises(InputError) as err:
        load_log(DATA / "package.json")
    msg = str(err.value)
    assert "\n" not in msg and "tau-bench: no 'traj' message list" in msg and "mast: not a MAST record" in msg
