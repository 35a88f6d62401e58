"""Tests for attrib.chief.evidence: loop groups and literal data flows (no LLM, no model)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from attrib.chief.evidence import (
    LoopGroup,
    extract_literals,
    literal_flows,
    loop_groups,
    normalize_text,
    render_literal_flows,
    render_loop_groups,
    step_kind,
)
from attrib.trajectory import Step, Trajectory

ROOT = Path(__file__).resolve().parents[1]
WHO_AND_WHEN = ROOT / "tests" / "data" / "who_and_when"


def make_traj(rows: list[tuple[str, str]], question: str = "How many widgets were sold in the northern region?") -> Trajectory:
    steps = [
        Step(index=i, label=label, agent=label.split(" (")[0], content=content) for i, (label, content) in enumerate(rows)
    ]
    return Trajectory(id="handmade", question=question, steps=steps)


@pytest.fixture
def handmade() -> Trajectory:
    return make_traj(
        [
            ("human", "How many widgets were sold in the northern region?"),
            ("Orchestrator (-> WebSurfer)", "Please open the sales report and find the northern region total."),
            ("WebSurfer", "I clicked 'Sales report'.\nThe northern region sold 4,172 widgets in total."),
            ("Orchestrator (-> WebSurfer)", "Please  open the sales report and find the Northern region total."),
            ("WebSurfer", "I scrolled down one page in the browser.\nNothing new."),
            ("Orchestrator (thought)", "The report says 4172 widgets, so the answer is 4172."),
            ("Orchestrator (-> WebSurfer)", "Please open the sales report and find the northern region total."),
            ("Assistant", "FINAL ANSWER: 4172"),
        ]
    )


# ----------------------------------------------------------------------------- loop groups


def test_loop_group_of_identical_instructions(handmade: Trajectory) -> None:
    groups = loop_groups(handmade)
    instr = [g for g in groups if g.kind == "instruction"]
    assert len(instr) == 1
    group = instr[0]
    assert group.agent == "Orchestrator"
    assert group.steps == [1, 3, 6]  # case and white space do not matter
    assert (group.entry, group.exit) == (1, 6)
    assert group.matched_by == "text"
    assert "sales report" in group.sample
    assert "Orchestrator" in group.render() and "1, 3, 6" in group.render()


def test_different_agents_and_kinds_do_not_group() -> None:
    traj = make_traj(
        [
            ("Orchestrator (-> WebSurfer)", "Search for the report."),
            ("Assistant", "Search for the report."),
            ("Orchestrator (thought)", "Search for the report."),
        ]
    )
    assert loop_groups(traj) == []


def test_step_kind_classification() -> None:
    code = Step(index=0, label="Python_Expert", agent="Python_Expert", content="Run this:\n```python\nprint(1)\n```\n")
    click = Step(index=1, label="WebSurfer", agent="WebSurfer", content="I clicked 'Next'.\nPage text...")
    note = Step(index=2, label="Orchestrator (thought)", agent="Orchestrator", content="Updated ledger")
    order = Step(index=3, label="Orchestrator (-> FileSurfer)", agent="Orchestrator", content="Open data.csv")
    assert step_kind(code) == ("action", "print(1)")
    assert step_kind(click) == ("action", "I clicked 'Next'.")
    assert step_kind(note)[0] == "message"
    assert step_kind(order) == ("instruction", "Open data.csv")


def test_repeated_code_groups_even_with_different_prose() -> None:
    traj = make_traj(
        [
            ("Coder", "Let me try:\n```python\nimport pandas as pd\nprint(pd.read_csv('a.csv'))\n```"),
            ("Computer_terminal", "exitcode: 1 (execution failed)"),
            ("Coder", "Trying again now.\n```python\nimport pandas as pd\nprint(pd.read_csv('a.csv'))\n```"),
        ]
    )
    groups = loop_groups(traj)
    assert [(g.agent, g.kind, g.steps) for g in groups] == [("Coder", "action", [0, 2])]


def test_embedding_similarity_groups_paraphrases() -> None:
    traj = make_traj(
        [
            ("Orchestrator (-> WebSurfer)", "Please search the archive for the August 2015 picture."),
            ("WebSurfer", "I typed 'apod august 2015' into the search box."),
            ("Orchestrator (-> WebSurfer)", "Kindly look through the archive for the picture of August 2015."),
        ]
    )
    assert [g for g in loop_groups(traj) if g.kind == "instruction"] == []

    def fake_embed(texts):  # every instruction about the archive maps to one direction
        rows = [[1.0, 0.0] if "archive" in t else [0.0, 1.0] for t in texts]
        return np.asarray(rows, dtype=np.float32)

    groups = [g for g in loop_groups(traj, embed_fn=fake_embed) if g.kind == "instruction"]
    assert len(groups) == 1 and groups[0].steps == [0, 2] and groups[0].matched_by == "embedding"
    assert loop_groups(traj, embed_fn=fake_embed, threshold=1.01) == []


def test_normalize_text_options() -> None:
    text = "See  https://x.org/a?id=7 for Page 12"
    assert normalize_text(text) == "see https://x.org/a?id=7 for page 12"
    assert normalize_text(text, strip_urls=True, strip_digits=True) == "see <url> for page 0"


def test_render_loop_groups_empty_and_limited() -> None:
    assert "no repeated" in render_loop_groups([])
    groups = [LoopGroup(agent="A", kind="message", steps=[i, i + 10], sample="x") for i in range(5)]
    text = render_loop_groups(groups, limit=2)
    assert text.count("\n- ") + text.startswith("- ") == 2 and "+3 smaller" in text


# ----------------------------------------------------------------------------- literal flows


def test_number_produced_at_step_2_reused_at_step_5(handmade: Trajectory) -> None:
    flows = literal_flows(handmade)
    by_value = {(f.kind, f.value): f for f in flows}
    flow = by_value[("number", "4,172")]
    assert flow.producer_step == 2
    assert flow.producer_agent == "WebSurfer"
    assert flow.consumer_steps == [5, 7]  # "4172" matches "4,172"
    assert "step 2 (WebSurfer) -> steps 5, 7" in flow.render()


def test_question_values_are_inputs_not_flows() -> None:
    traj = make_traj(
        [
            ("human", "Which of the 2019 files, report_2019.csv or https://example.org/data, lists 'blue widgets'?"),
            ("Planner", "Open report_2019.csv and https://example.org/data; look for 'blue widgets' in 2019."),
            ("Worker", "report_2019.csv at https://example.org/data mentions 'blue widgets' 37.5 times in 2019."),
            ("Planner", "So 37.5 it is."),
        ],
        question="Which of the 2019 files, report_2019.csv or https://example.org/data, lists 'blue widgets'?",
    )
    flows = literal_flows(traj)
    assert [(f.kind, f.value, f.producer_step, f.consumer_steps) for f in flows] == [("number", "37.5", 2, [3])]


def test_extract_literals_kinds() -> None:
    lits = extract_literals(
        'Saved "final results table" to out/results.xlsx, see https://a.org/x.pdf. Total 1,024 items, ratio 0.5, step 7.'
    )
    kinds = {(kind, key) for kind, key in lits}
    assert ("url", "https://a.org/x.pdf") in kinds
    assert ("file", "results.xlsx") in kinds
    assert ("quote", "final results table") in kinds
    assert ("number", "1024") in kinds and ("number", "0.5") in kinds
    assert ("number", "7") not in kinds  # a single digit is too weak a signal


def test_json_keys_agent_names_and_boilerplate_are_skipped() -> None:
    ledger = '{"is_request_satisfied": {"answer": false}, "next_speaker": {"answer": "WebSurfer"}}'
    rows = [("human", "Find it.")] + [("Orchestrator (thought)", ledger), ("WebSurfer", "I scrolled down.")] * 6
    flows = literal_flows(make_traj(rows, question="Find it."))
    assert all(f.value not in ("is_request_satisfied", "WebSurfer", "answer") for f in flows)


def test_flows_cap_and_render() -> None:
    rows = [("A", " ".join(f"v{i}={100 + i}" for i in range(60)))] + [("B", " ".join(str(100 + i) for i in range(60)))]
    flows = literal_flows(make_traj(rows, question="q"), max_flows=40)
    assert len(flows) == 40
    assert "more not shown" in render_literal_flows(flows, limit=10)
    assert "no literal" in render_literal_flows([])


# ----------------------------------------------------------------------------- Who&When smoke run


def test_smoke_all_who_and_when() -> None:
    """Evidence over every vendored Who&When log is well formed (its speed is measured by scripts/bench_kb.py)."""
    from attrib.readers import iter_log_paths, load_log

    paths = list(iter_log_paths([WHO_AND_WHEN]))
    assert len(paths) == 19
    for path in paths:
        traj = load_log(path)
        groups = loop_groups(traj)
        flows = literal_flows(traj)
        render_loop_groups(groups)
        render_literal_flows(flows)
        assert len(flows) <= 40
        for group in groups:
            assert len(group.steps) >= 2 and group.steps == sorted(group.steps)
            assert all(0 <= s < traj.n_steps for s in group.steps)
        for flow in flows:
            assert flow.consumer_steps and min(flow.consumer_steps) > flow.producer_step
