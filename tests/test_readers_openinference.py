"""OpenInference / TRAIL span trees: LLM spans are steps of their agent, tool spans fold in, errors map to steps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attrib.errors import InputError
from attrib.readers import Document, detect_format, load_log
from attrib.readers.openinference import read_tree
from attrib.readers.source import open_lean

from conftest import write_variant

DATA = Path(__file__).parent / "data" / "formats"
FILE = DATA / "trail_gaia.json"


def _variant(tmp_path: Path, change) -> Path:
    return write_variant(FILE, tmp_path, change)


def test_detected_before_the_otel_reader() -> None:
    # TRAIL spans carry span_id and trace_id, which the generic otel reader would also take
    assert detect_format(Document.open(FILE)) == "openinference"
    assert load_log(FILE, "trail").source_format == "openinference"


def test_steps_in_time_order_with_owning_agents() -> None:
    t = load_log(FILE)
    assert t.agents == ["CodeAgent", "search_agent"]
    assert [(s.agent, s.source_id) for s in t.steps] == [
        ("CodeAgent", "0000000000000011"), ("search_agent", "0000000000000a11"), ("search_agent", "0000000000000a21"),
        ("search_agent", "0000000000000a31"), ("CodeAgent", "0000000000000021")]
    assert t.metadata["spans"] == 17 and t.metadata["folded_spans"] == 4
    assert t.question.startswith("How many more volumes did the Penguin Classics")
    assert t.metadata["trace_id"] == "7d3f0c2a9b1e4f6a8c5d2e1f0a9b8c7d"


def test_tool_spans_fold_into_the_calling_step() -> None:
    t = load_log(FILE)
    search = t.steps[1]
    assert search.content.splitlines()[0] == '[tool call web_search] {"query": "Penguin Little Black Classics number of volumes"}'
    assert search.content.splitlines()[1] == "[tool result web_search] ## Search Results"
    assert search.observation_ids == ["0000000000000a12"]
    visit = t.steps[2]
    assert "[tool result visit_page] Error fetching the page: 429" in visit.content
    assert visit.content.endswith("[error] HTTPError: 429 Too Many Requests")
    # the manager's final_answer tool folds into the manager's step, not the sub-agent's
    assert t.steps[4].observation_ids == ["0000000000000022"] and t.steps[4].content.endswith("[tool result final_answer] 60")


def test_decisive_error_is_the_earliest_high_impact_one() -> None:
    t = load_log(FILE)
    assert t.gold is not None and (t.gold.agent, t.gold.step) == ("search_agent", 3)
    assert t.gold.reason.startswith("Language-only: I recall Pocket Penguins")
    assert t.metadata["annotated_errors"] == 3 and t.metadata["gold_impact"] == "HIGH"


def test_without_high_impact_the_earliest_error_wins_and_tool_labels_map_to_the_caller(tmp_path: Path) -> None:
    def no_high(raw: dict) -> None:
        raw["errors"] = [e for e in raw["errors"] if e["impact"] != "HIGH"][:1]  # the rate limit, on a tool span
    t = load_log(_variant(tmp_path, no_high))
    assert t.gold is not None and (t.gold.agent, t.gold.step) == ("search_agent", 2)
    assert t.gold.reason.startswith("Rate Limiting")


def test_label_on_a_container_maps_to_the_first_step_below(tmp_path: Path) -> None:
    def on_agent(raw: dict) -> None:
        raw["errors"] = [{"category": "Goal Deviation", "location": "00000000000000a0", "evidence": "...", "impact": "HIGH"}]
    t = load_log(_variant(tmp_path, on_agent))
    assert t.gold is not None and t.gold.step == 1


def test_location_outside_the_trace_is_an_error(tmp_path: Path) -> None:
    def bad(raw: dict) -> None:
        raw["errors"][0]["location"] = "ffffffffffffffff"
    with pytest.raises(InputError, match="location 'ffffffffffffffff' is not a span of this trace"):
        load_log(_variant(tmp_path, bad))


def test_nested_output_messages_and_no_labels(tmp_path: Path) -> None:
    tree = {"trace_id": "t1", "spans": [{
        "span_id": "r", "span_name": "Planner", "timestamp": "2025-01-01T00:00:00Z",
        "span_attributes": {"openinference.span.kind": "AGENT", "input.value": "Sum 2 and 3."},
        "child_spans": [
            {"span_id": "l2", "span_name": "llm", "timestamp": "2025-01-01T00:00:02Z", "child_spans": [],
             "span_attributes": {"openinference.span.kind": "LLM", "llm.output_messages": [
                 {"message.role": "assistant", "message.content": "The answer is 5."}]}},
            {"span_id": "l1", "span_name": "llm", "timestamp": "2025-01-01T00:00:01Z", "child_spans": [],
             "span_attributes": {"openinference.span.kind": "LLM", "output.value": json.dumps(
                 {"role": "assistant", "content": None, "tool_calls": [
                     {"id": "c", "function": {"name": "add", "arguments": "{\"a\": 2, \"b\": 3}"}}]})}},
            {"span_id": "t", "span_name": "add", "timestamp": "2025-01-01T00:00:01.5Z", "child_spans": [],
             "span_attributes": {"openinference.span.kind": "TOOL", "tool.name": "add", "output.value": "5"}},
        ]}]}
    (tmp_path / "tree.json").write_text(json.dumps(tree))
    t = load_log(tmp_path / "tree.json")
    assert [s.source_id for s in t.steps] == ["l1", "l2"] and t.agents == ["Planner"]
    assert t.steps[0].content == '[tool call add] {"a": 2, "b": 3}\n[tool result add] 5'
    assert t.question == "Sum 2 and 3." and t.gold is None


def test_annotations_kept_apart_label_the_trace(tmp_path: Path) -> None:
    raw = json.loads(FILE.read_text())
    errors = raw.pop("errors")
    (tmp_path / "trace.json").write_text(json.dumps(raw))
    assert load_log(tmp_path / "trace.json").gold is None
    t = read_tree(open_lean(tmp_path / "trace.json"), errors)
    assert t.gold is not None and (t.gold.agent, t.gold.step) == ("search_agent", 3)
