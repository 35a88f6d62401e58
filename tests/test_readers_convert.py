"""attrib convert / show, round trips through Who&When and attrib JSON Lines, shortening of huge steps."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from attrib.convert import to_jsonl, to_who_and_when
from attrib.errors import InputError
from attrib.readers import load_log, open_lean
from attrib.readers.commands import register
from attrib.readers.shorten import HTML_MARKER, shorten_content

DATA = Path(__file__).parent / "data" / "formats"
WHO_AND_WHEN = Path(__file__).resolve().parent / "data" / "who_and_when"
OTHER_FORMATS = ["chat_airline.json", "labels_failure_fields.jsonl", "ag2_groupchat.json", "crewai_tasks.json",
                 "metagpt_history.json", "labels_failures.json", "otlp_trace.json", "flat_spans.json",
                 "transcript_colon.txt", "transcript_brackets.txt", "chatdev_expense_tracker.log",
                 "chatdev_died_infrastructure.log", "mast_chatdev.json", "taubench_retail_42.json"]


def _app() -> typer.Typer:
    app = typer.Typer()
    register(app)
    return app


def _run(*args: str):
    return CliRunner().invoke(_app(), list(args), catch_exceptions=True)


@pytest.mark.parametrize("case", ["hand-crafted/1.json", "algorithm-generated/1.json"])
def test_who_and_when_round_trip(case: str, tmp_path: Path) -> None:
    src = WHO_AND_WHEN / case
    out = tmp_path / "out" / "1.json"
    result = _run("convert", str(src), "--to", "who-and-when", "--out", str(out))
    assert result.exit_code == 0, result.output
    before, after = load_log(src), load_log(out)
    assert after.steps == before.steps
    assert after.gold == before.gold
    assert (after.subset, after.question, after.question_id, after.ground_truth) == (
        before.subset, before.question, before.question_id, before.ground_truth)
    written = json.loads(out.read_text())
    assert isinstance(written["mistake_step"], str)
    original = json.loads(src.read_text())
    assert [h.get("name", h["role"]) for h in written["history"]] == [h.get("name", h["role"]) for h in original["history"]]


@pytest.mark.parametrize("name", OTHER_FORMATS)
def test_convert_other_formats_and_read_back(name: str, tmp_path: Path) -> None:
    original = load_log(DATA / name)
    ww = tmp_path / "ww.json"
    ww.write_text(json.dumps(to_who_and_when(original)))
    back = load_log(ww)
    assert back.source_format == "who-and-when"
    assert [(s.agent, s.label, s.content) for s in back.steps] == [(s.agent, s.label, s.content) for s in original.steps]
    assert back.gold == original.gold
    assert back.question == original.question
    jl = tmp_path / "steps.jsonl"
    jl.write_text(to_jsonl(original))
    again = load_log(jl)
    assert again.steps == original.steps  # source ids, roles and parents too
    assert (again.gold, again.source_format, again.question, again.metadata) == (
        original.gold, original.source_format, original.question, original.metadata)
    assert again.infrastructure_failure == original.infrastructure_failure  # a dead run stays dead


def test_convert_to_jsonl_via_cli_then_show(tmp_path: Path) -> None:
    out = tmp_path / "airline.jsonl"
    result = _run("convert", str(DATA / "chat_airline.json"), "--to", "jsonl", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "35 steps" in result.output and "gold: assistant @ step 11" in result.output
    header = json.loads(out.read_text().splitlines()[0])
    assert header["format"] == "attrib-jsonl" and header["gold"]["step"] == 11
    shown = _run("show", str(out), "--json")
    data = json.loads(shown.output)
    assert data["source_format"] == "chat" and data["n_steps"] == 35
    assert data["steps"][5]["source_id"] == "5" and data["steps"][5]["parent_id"] == "4"


def test_show_table_and_limit() -> None:
    result = _run("show", str(DATA / "otlp_trace.json"), "--limit", "3")
    assert result.exit_code == 0, result.output
    assert "otel, 6 steps, agents: TripPlanner, BookingAgent" in result.output
    assert "a0000000000000a2" in result.output and "TripPlanner" in result.output
    assert "gold: TripPlanner @ step 2 (source id a0000000000000a6)" in result.output
    assert "3 more steps" in result.output


def test_show_refuses_an_unknown_file_in_one_line() -> None:
    result = _run("show", str(DATA / "package.json"))
    assert isinstance(result.exception, InputError)
    assert "\n" not in str(result.exception) and "unrecognized log format" in str(result.exception)
    bad = _run("show", str(DATA / "chat_airline.json"), "--format", "nope")
    assert isinstance(bad.exception, InputError) and "unknown format 'nope'" in str(bad.exception)


def test_convert_rejects_an_unknown_target(tmp_path: Path) -> None:
    result = _run("convert", str(DATA / "chat_airline.json"), "--to", "csv", "--out", str(tmp_path / "x"))
    assert result.exit_code == 2


# ---- shortening -------------------------------------------------------------------------------

def test_short_content_is_untouched() -> None:
    text = "x" * 500 + " data:image/png;base64," + "A" * 300
    assert shorten_content(text, limit=2000) == (text, False)


def test_base64_is_replaced_before_cutting() -> None:
    payload = base64.b64encode(bytes(range(256)) * 400).decode()
    text = f"Screenshot taken.\n![page](data:image/png;base64,{payload})\nThe button is at the top right."
    out, cut = shorten_content(text, limit=2000)
    assert cut and "[base64 data, " in out and "chars removed]" in out
    assert out.startswith("Screenshot taken.") and out.endswith("The button is at the top right.")
    assert "characters cut by attrib" not in out


def test_html_page_is_stripped_then_cut() -> None:
    rows = "".join(f"<tr><td class='c'>{i}</td><td>item {i}</td></tr>\n" for i in range(4000))
    head = "<head><script>var x = 1;</script><style>td {}</style></head>"
    page = f"<!DOCTYPE html><html>{head}<body><table>{rows}</table></body></html>"
    out, cut = shorten_content(page, limit=5000)
    assert cut and out.startswith(HTML_MARKER)
    assert "<td" not in out and "var x" not in out and "item 0" in out and "item 3999" in out
    assert "characters cut by attrib ...]" in out and len(out) <= 5000


def test_reader_shortens_huge_steps_and_records_them(tmp_path: Path) -> None:
    page = "<html><body>" + "".join(f"<p>paragraph {i} of the page</p>" for i in range(6000)) + "</body></html>"
    image = "data:image/jpeg;base64," + base64.b64encode(b"\xff\xd8" * 60000).decode()
    messages = [
        {"role": "user", "content": "What does the page say?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "fetch", "arguments": "{\"url\": \"https://example.org\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": page},
        {"role": "assistant", "content": [{"type": "text", "text": "Here is a screenshot."}, {"type": "text", "text": image}]},
        {"role": "assistant", "content": "The page lists paragraphs."},
    ]
    path = tmp_path / "big.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in messages))
    t = load_log(path)
    assert t.truncated_steps == [2, 3]
    assert t.steps[2].content.startswith(HTML_MARKER) and len(t.steps[2].content) <= 20000
    assert t.steps[3].content.startswith("Here is a screenshot.\n[base64 data, ")
    assert t.steps[4].content == "The page lists paragraphs."
    doc = open_lean(path)
    assert doc.text == ""  # JSON Lines parsed line by line, no text kept


def test_lean_json_keeps_no_text() -> None:
    doc = open_lean(DATA / "otlp_trace.json")
    assert doc.text == "" and isinstance(doc.json, dict)
    assert open_lean(DATA / "transcript_colon.txt").text.startswith("# Support-bot")
