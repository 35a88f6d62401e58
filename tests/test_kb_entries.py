"""Tests for attrib.kb.entries: readers and their one-line errors (synthetic rows, no model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attrib.errors import InputError
from attrib.kb.entries import GAIA_META, KBEntry, read_assistantbench, read_gaia


def write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def gaia_row(task_id: str, question: str, steps: str | None = "1. Look it up.\n2. Count.") -> dict:
    meta = {} if steps is None else {"Steps": steps, "Tools": "browser"}
    return {"task_id": task_id, "Question": question, "Level": 1, "Final answer": "x", "file_name": "", GAIA_META: meta}


def test_gaia_entry_text_joins_question_and_steps(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "g.jsonl", [gaia_row("t1", "How many moons?"), "", gaia_row("t2", "Who won?", steps=None)])
    first, second = read_gaia(path)
    assert first == KBEntry(
        id="t1",
        source="GAIA",
        question="How many moons?",
        guide="1. Look it up.\n2. Count.",
        text="Question: How many moons?\nSteps: 1. Look it up.\n2. Count.",
    )
    assert second.guide == "" and second.text == "Question: Who won?"


def test_assistantbench_entry_text_joins_task_and_explanation(tmp_path: Path) -> None:
    row = {"id": "ab1", "set": "dev", "task": "Find a gym.", "answer": "Gym A", "explanation": "Use a map.", "difficulty": "Easy"}
    (entry,) = read_assistantbench(write_jsonl(tmp_path / "a.jsonl", [row]))
    assert (entry.source, entry.question, entry.guide) == ("AssistantBench", "Find a gym.", "Use a map.")
    assert entry.text == "Task: Find a gym.\nExplanation: Use a map."
    assert "Gym A" not in entry.text  # answers are never part of an exemplar


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        ([gaia_row("t1", "Q?"), "{not json"], "line 2: not JSON"),
        ([gaia_row("t1", "Q?"), ["a", "list"]], "line 2: expected a JSON object"),
        ([{"Question": "Q?"}], "line 1: missing field 'task_id'"),
        ([gaia_row("t1", "   ")], "line 1: field 'Question' is empty"),
        ([gaia_row("t1", "Q?"), gaia_row("t1", "Other?")], "line 2: duplicate id 't1' (first on line 1)"),
        ([{**gaia_row("t1", "Q?"), GAIA_META: "oops"}], f"line 1: field '{GAIA_META}' must be an object"),
        ([{**gaia_row("t1", "Q?"), "Question": {"x": 1}}], "line 1: field 'Question' must be a string, got dict"),
        ([""], "holds no GAIA rows"),
    ],
)
def test_bad_gaia_rows_give_one_line_errors(tmp_path: Path, rows: list[object], expected: str) -> None:
    path = write_jsonl(tmp_path / "bad.jsonl", rows)
    with pytest.raises(InputError) as info:
        read_gaia(path)
    message = str(info.value)
    assert message.startswith(str(path) + ": ")
    assert expected in message
    assert "\n" not in message


def test_missing_and_non_utf8_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_assistantbench(tmp_path / "absent.jsonl")
    bad = tmp_path / "latin1.jsonl"
    bad.write_bytes(b'{"id": "\xe9"}\n')
    with pytest.raises(InputError, match="not UTF-8"):
        read_assistantbench(bad)
