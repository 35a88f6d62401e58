"""MAST/MAD records: the trace goes to its MAS's reader; failure modes kept; no reader -> one-line error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attrib.errors import InputError
from attrib.readers import Document, detect_format, load_log

DATA = Path(__file__).parent / "data" / "formats"


def test_chatdev_trace_is_read_by_the_chatdev_reader() -> None:
    t = load_log(DATA / "mast_chatdev.json")
    inner = load_log(DATA / "chatdev_expense_tracker.log")
    assert detect_format(Document.open(DATA / "mast_chatdev.json")) == "mast" and t.source_format == "mast"
    assert [(s.agent, s.source_id, s.phase) for s in t.steps] == [(s.agent, s.source_id, s.phase) for s in inner.steps]
    assert t.question == inner.question
    assert t.metadata["trace_format"] == "chatdev" and t.metadata["mas_name"] == "ChatDev"
    assert t.metadata["benchmark_name"] == "ProgramDev" and t.metadata["trace_id"] == 117
    assert t.metadata["failure_modes"] == ["2.6", "3.2", "3.3"]
    assert t.metadata["mast_annotation"]["1.1"] == 0 and t.gold is None


def test_mas_without_a_reader_is_named_in_one_line() -> None:
    with pytest.raises(InputError) as err:
        load_log(DATA / "mast_hyperagent.json")
    msg = str(err.value)
    assert "\n" not in msg and "MAST record of MAS 'HyperAgent': no reader for its traces" in msg


def test_transcript_mas_routes_to_the_transcript_reader(tmp_path: Path) -> None:
    text = ("Admin: Find the 2020 population of Lisbon.\n\nPlanner: Step 1: search the census.\n\n"
            "Engineer: The 2020 population is 545,923.\n\nCritic: That figure is from 2021, not 2020.\n")
    rec = {"mas_name": "AG2", "llm_name": "GPT-4o", "benchmark_name": "GSM-Plus", "trace_id": 5,
           "trace": {"trajectory": text}, "mast_annotation": {"1.1": 1}}
    (tmp_path / "ag2.json").write_text(json.dumps(rec))
    t = load_log(tmp_path / "ag2.json")
    assert t.agents == ["Admin", "Planner", "Engineer", "Critic"] and t.metadata["trace_format"] == "transcript"
    rec["trace"]["trajectory"] = "no speaker lines here at all"
    (tmp_path / "bad.json").write_text(json.dumps(rec))
    with pytest.raises(InputError, match="MAST record of MAS 'AG2': trace not readable as a transcript or history: "
                                         "transcript: found 0 speaker lines"):
        load_log(tmp_path / "bad.json")


def test_json_history_trace_routes_to_the_history_reader(tmp_path: Path) -> None:
    history = [{"name": "MagenticOneOrchestrator", "role": "assistant", "content": "Plan: ask WebSurfer for the page."},
               {"name": "WebSurfer", "role": "assistant", "content": "The page lists 3 branches."},
               {"name": "MagenticOneOrchestrator", "role": "assistant", "content": "FINAL ANSWER: 3"}]
    rec = {"mas_name": "Magentic-One", "benchmark_name": "GAIA", "trace_id": 12,
           "trace": {"trajectory": json.dumps(history)}, "mast_annotation": {"3.3": 1}}
    (tmp_path / "m1.json").write_text(json.dumps(rec))
    t = load_log(tmp_path / "m1.json")
    assert t.agents == ["MagenticOneOrchestrator", "WebSurfer"] and t.metadata["trace_format"] == "history"
    assert t.metadata["failure_modes"] == ["3.3"]
