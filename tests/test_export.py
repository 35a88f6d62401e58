"""Exports of a hand-built CHIEF causal graph: JSON, Mermaid and Graphviz DOT (offline).

``build_case`` is also used by ``test_report.py``.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from attrib.attribution import Attribution, HandoffDecision
from attrib.chief.evidence import LiteralFlow, LoopGroup
from attrib.chief.export import (
    FORMATS,
    columns,
    export,
    mermaid_text,
    step_ranges,
    to_dot,
    to_json,
    to_mermaid,
)
from attrib.chief.graph import (
    AgentEdge,
    AgentNode,
    CausalGraph,
    Oracle,
    Pattern,
    StageView,
    StepEdge,
    Subtask,
    SubtaskEdge,
    Verdict,
)
from attrib.chief.report import render_report
from attrib.errors import ConfigError
from attrib.trajectory import Step, Trajectory

XSS = "<script>alert(1)</script>"
TRICKY = 'Extract "Q1-Q4" [revenue] figures\n(from sheet|tab) #1; 50% `raw`'
_SCRIPT: list[tuple[str, str]] = [
    ("Orchestrator (thought)", "Plan: find the 2019 sales report, read the quarterly revenue, add it up."),
    ("Orchestrator (-> WebSurfer)", "Search the company site for the 2019 annual sales report."),
    ("WebSurfer", "I typed 'acme 2019 sales report' into the search bar. Results show sales_2019.xlsx."),
    ("Orchestrator (-> WebSurfer)", "Download the file sales_2019.xlsx."),
    ("WebSurfer", "I downloaded sales_2019.xlsx to /tmp/sales_2019.xlsx."),
    ("Orchestrator (-> FileSurfer)", "Open sales_2019.xlsx and read the revenue row for Q1-Q4."),
    ("FileSurfer", "Address: file:///tmp/sales_2019.xlsx\nSheet 'Summary' has columns Q1 Q2 Q3 Q4."),
    ("FileSurfer", 'Revenue (column "Units", not "Revenue"): Q1 1,234 Q2 1,100 Q3 980 Q4 1,050 [sic]'),
    ("Orchestrator (-> FileSurfer)", "Open sales_2019.xlsx and read the revenue row for Q1-Q4."),
    ("FileSurfer", "The sheet footer holds an embedded note: " + XSS + " <b>bold</b> & \"quoted\" text"),
    ("Orchestrator (thought)", "FileSurfer reported the quarterly numbers; move on to the sum."),
    ("Orchestrator (-> Coder)", "Write Python that sums 1,234 + 1,100 + 980 + 1,050."),
    ("Coder", "```python\nprint(1234 + 1100 + 980 + 1050)\n```"),
    ("ComputerTerminal", "4364"),
    ("Orchestrator (thought)", "The total is 4364."),
    ("Orchestrator", "FINAL ANSWER: 4364"),
]


def build_traj() -> Trajectory:
    """A 16-step Magentic-One style log; step 9 carries HTML/script text."""
    steps = [Step(index=i, label=label, agent=label.split(" (")[0], content=content, source_id=f"m{i}")
             for i, (label, content) in enumerate(_SCRIPT)]
    return Trajectory(id="case-7<b>", question='What was ACME\'s total 2019 revenue (in $k)? Use the "Revenue" row.',
                      steps=steps, truncated_steps=[12])


def build_graph() -> CausalGraph:
    """3 subtasks, 7 agent nodes, edges at all three levels, oracles, verdicts, candidates, evidence, root at step 7."""
    pat = [Pattern(scenario="data_flow", bias="wrong column read", anomaly="sum is off")]
    return CausalGraph(
        case_id="case-7<b>", n_steps=16, agents=["Orchestrator", "WebSurfer", "FileSurfer", "Coder", "ComputerTerminal"],
        subtasks=[Subtask(id="S1", name="Locate the 2019 sales report", description="search and download", start=0, end=4),
                  Subtask(id="S2", name=TRICKY, description="read <b>quarterly</b> values", start=5, end=10),
                  Subtask(id="S3", name="Compute and report the total", start=11, end=15)],
        agent_nodes=[AgentNode(subtask="S1", agent="Orchestrator", steps=[0, 1, 3], action="delegates the search"),
                     AgentNode(subtask="S1", agent="WebSurfer", steps=[2, 4], result="file downloaded"),
                     AgentNode(subtask="S2", agent="Orchestrator", steps=[5, 8, 10], thought="asks twice"),
                     AgentNode(subtask="S2", agent="FileSurfer", steps=[6, 7, 9], observation="sheet 'Summary'",
                               result='reads the "Units" column ' + XSS),
                     AgentNode(subtask="S3", agent="Orchestrator", steps=[11, 14, 15]),
                     AgentNode(subtask="S3", agent="Coder", steps=[12]),
                     AgentNode(subtask="S3", agent="ComputerTerminal", steps=[13])],
        subtask_edges=[SubtaskEdge(source="S1", target="S2", type="data_dependency", patterns=pat),
                       SubtaskEdge(source="S2", target="S3", type="logical_prereq")],
        agent_edges=[AgentEdge(subtask="S1", source="Orchestrator", target="WebSurfer", type="decision_dependency"),
                     AgentEdge(subtask="S1", source="WebSurfer", target="Orchestrator", type="environment_feedback"),
                     AgentEdge(subtask="S2", source="Orchestrator", target="FileSurfer", type="decision_dependency"),
                     AgentEdge(subtask="S2", source="FileSurfer", target="Orchestrator", type="obs_dependency", patterns=pat),
                     AgentEdge(subtask="S2", source="Orchestrator", target="Orchestrator", type="loop_control"),
                     AgentEdge(subtask="S3", source="Orchestrator", target="Coder", type="reasoning_continuation"),
                     AgentEdge(subtask="S3", source="Coder", target="ComputerTerminal", type="memory_ref")],
        step_edges=[StepEdge(producer=4, consumer=6, data="file sales_2019.xlsx", origin="literal"),
                    StepEdge(producer=7, consumer=12, data='Q1 "1,234" [units]\n<b>|', data_type="numeric"),
                    StepEdge(producer=12, consumer=13, data="python sum", data_type="text")],
        loop_groups=[LoopGroup(agent="Orchestrator", kind="instruction", steps=[5, 8],
                               sample="Open sales_2019.xlsx and read the revenue row for Q1-Q4.")],
        literal_flows=[LiteralFlow(value="1,234", kind="number", producer_step=7, producer_agent="FileSurfer",
                                   consumer_steps=[11, 12])],
        oracles=[Oracle(subtask="S1", goal="Obtain the official 2019 sales report", preconditions=["site reachable"],
                        key_evidence=["file name mentions 2019"], acceptance_criteria=["xlsx saved locally"]),
                 Oracle(subtask="S2", goal="Read the four quarterly revenue values", preconditions=["file downloaded"],
                        key_evidence=['row labelled "Revenue"'], acceptance_criteria=["four numbers from the Revenue row"]),
                 Oracle(subtask="S3", goal="Sum the four values", acceptance_criteria=["total of the Revenue row"])],
        verdicts=[Verdict(level="subtask", target="S3", discrepancy=True, reason="total built on wrong inputs"),
                  Verdict(level="subtask", target="S2", discrepancy=True, reason="values come from the Units column"),
                  Verdict(level="subtask", target="S1", discrepancy=False, reason="report found"),
                  Verdict(level="agent", target="S2:FileSurfer", discrepancy=True, reason="read the wrong row"),
                  Verdict(level="agent", target="S2:Orchestrator", discrepancy=False, reason="instructions were right"),
                  Verdict(level="step", target="7", discrepancy=True, reason="Units instead of Revenue",
                          quote="Units column", quote_found=True),
                  Verdict(level="step", target="12", discrepancy=False, reason="sums what it was given",
                          quote="made-up words", quote_found=False)],
        candidate_subtasks=["S2", "S3"], candidate_agents=["FileSurfer"], candidate_steps=[7, 12],
        root_agent="FileSurfer", root_step=7,
        screening={"local": "step 7 misreads the sheet", "final_screening": "step 7 is the root cause"},
        whole_log_step=12, whole_log_reason="the total is wrong", runner_up_step=12, runner_up_reason="sums <bad> inputs",
        handoffs=[HandoffDecision(upstream_step=6, downstream_step=7, relation="instruction", at_fault="downstream",
                                  reason="the <Revenue> row was asked for")],
        stage_views=[StageView(stage="chief.graph", shown_in_full=list(range(16)), judged=list(range(16))),
                     StageView(stage="chief.backtrack", shown_in_full=list(range(16)), shortened=[12], judged=[7, 12]),
                     StageView(stage="chief.attribute", shown_in_full=list(range(16)), side_by_side=[6, 7], judged=[6, 7, 12])],
        degraded=["oracles: answer invalid after the re-ask (<timeout>); judged against the task only"],
        reflection_rounds=1,
    )


def build_attribution(demo: bool = False) -> Attribution:
    return Attribution(case_id="case-7<b>", method="chief", model="gpt-4o-mini", demo_model=demo, agent="FileSurfer",
                       step=7, reason="FileSurfer read the <Units> column instead of Revenue.")


def build_case() -> tuple[CausalGraph, Trajectory]:
    return build_graph(), build_traj()


# ----------------------------------------------------------------------------- helpers and structure

def test_step_ranges_and_columns() -> None:
    assert step_ranges([7, 1, 2, 3, 9, 10]) == "1-3, 7, 9-10"
    graph, traj = build_case()
    cols = columns(graph, traj)
    assert [c.key for c in cols] == ["S1", "S2", "S3"]
    placed = sorted(i for c in cols for n in c.nodes for i in n.steps)
    assert placed == list(range(16))  # every step drawn exactly once
    assert [n.agent for n in cols[2].nodes] == ["Orchestrator", "Coder", "ComputerTerminal"]


def test_columns_fill_gaps() -> None:
    graph, traj = build_case()
    graph = graph.model_copy(update={"agent_nodes": graph.agent_nodes[:1], "subtasks": graph.subtasks[:2]})
    cols = columns(graph, traj)
    assert cols[-1].key == "(unassigned)"
    assert sorted(i for c in cols for n in c.nodes for i in n.steps) == list(range(16))
    assert all(n.implicit for n in cols[1].nodes)


def test_json_round_trip() -> None:
    graph = build_graph()
    text = to_json(graph)
    assert CausalGraph.model_validate_json(text) == graph
    assert export(graph, None, "json") == text


# ----------------------------------------------------------------------------- Mermaid

_MERMAID_LINE = [re.compile(p) for p in (
    r'%% [^\n]*', r"flowchart LR", r"classDef \w+ [\w#:,.\- ]+", r"direction TB", r"end",
    r'subgraph sub\d+\["[^"\n]*"\]',
    r'sub\d+_a\d+\["[^"\n]*"\]', r'step\d+\(\["\d+"\]\)',
    r'(sub\d+(_a\d+)?|step\d+) (-->|-\.->)\|"[^"|\n]*"\| (sub\d+(_a\d+)?|step\d+)',
    r"sub\d+_a\d+ -\.- step\d+", r"class (sub\d+_a\d+|step\d+) (agent|implicit|step|cand|root)",
    r"style sub\d+ [\w#:,]+",
)]


def test_mermaid_structure_and_escaping() -> None:
    graph, traj = build_case()
    text = to_mermaid(graph, traj)
    lines = [line.strip() for line in text.strip().splitlines()]
    bad = [line for line in lines if not any(p.fullmatch(line) for p in _MERMAID_LINE)]
    assert not bad, bad
    assert sum(line.startswith("subgraph ") for line in lines) == 3 == lines.count("end")
    assert len([x for x in lines if re.fullmatch(r'sub\d+_a\d+\[".*"\]', x)]) == 7
    assert len([x for x in lines if re.fullmatch(r'sub\d+ -->\|".*"\| sub\d+', x)]) == 2
    assert len([x for x in lines if re.fullmatch(r'sub\d+_a\d+ -->\|".*"\| sub\d+_a\d+', x)]) == 7
    assert len([x for x in lines if re.fullmatch(r'step\d+ -\.->\|".*"\| step\d+', x)]) == 3
    assert {int(m) for m in re.findall(r'step(\d+)\(\[', text)} == {4, 6, 7, 12, 13}
    assert "class step7 root" in text and "class sub1_a1 root" in text  # root step and FileSurfer in S2
    assert "class step12 cand" in text
    assert 'sub0 -->|"data_dependency"| sub1' in text
    assert 'Extract #34;Q1-Q4#34; #91;revenue#93; figures #40;from' in text  # quotes, brackets, parens
    assert "#124;tab" in mermaid_text(TRICKY) and "\n" not in mermaid_text(TRICKY)
    assert "<b>" not in text and "case-7#60;b#62;" in text
    assert mermaid_text('a"b\nc') == "a#34;b c"


def test_mermaid_step_modes() -> None:
    graph, traj = build_case()
    assert len(re.findall(r'step\d+\(\[', to_mermaid(graph, traj, steps="all"))) == 16
    none = to_mermaid(graph, traj, steps="none")
    assert not re.search(r"step\d", none)


# ----------------------------------------------------------------------------- DOT

def test_dot_structure_and_escaping() -> None:
    graph, traj = build_case()
    text = to_dot(graph, traj)
    assert text.count("subgraph cluster_") == 3
    assert text.count("{") == text.count("}")
    assert len(re.findall(r"^\s+sub\d+_a\d+ \[label=", text, re.MULTILINE)) == 7
    assert len(re.findall(r"ltail=cluster_\d+, lhead=cluster_\d+", text)) == 2
    assert len(re.findall(r"^\s+sub\d+_a\d+ -> sub\d+_a\d+ \[", text, re.MULTILINE)) == 7
    assert len(re.findall(r"^\s+step\d+ -> step\d+ \[", text, re.MULTILINE)) == 3
    assert 'S2 · Extract \\"Q1-Q4\\" [revenue] figures (from' in text
    assert re.search(r'step7 \[label="7"[^\]]*fillcolor="#d7263d"', text)
    # every double-quoted string closes on its own line: no raw newline inside a label
    for line in text.splitlines():
        assert len(re.findall(r'(?<!\\)"', line)) % 2 == 0, line


def _pydot_counts(text: str) -> tuple[int, int]:
    """(nodes with a label, clusters) of a DOT text, parsed by pydot (pure Python)."""
    import pydot

    (parsed,) = pydot.graph_from_dot_data(text)
    nodes, clusters, todo = 0, 0, [parsed]
    while todo:
        g = todo.pop()
        nodes += sum(1 for n in g.get_nodes() if n.get("label") is not None and n.get("style") != "invis")
        for s in g.get_subgraphs():
            clusters += s.get_name().strip('"').startswith("cluster")
            todo.append(s)
    return nodes, clusters


def test_dot_is_valid_graphviz() -> None:
    """Rendered by Graphviz when ``dot`` is installed (.ci/run installs it), else parsed by pydot."""
    graph, traj = build_case()
    dot = shutil.which("dot")
    if dot is None:
        assert _pydot_counts(to_dot(graph, traj)) == (7 + 5, 3)
        return
    out = subprocess.run([dot, "-Tsvg"], input=to_dot(graph, traj), capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    assert not out.stderr.strip(), out.stderr
    assert out.stdout.count('class="node"') == 7 + 5  # agent nodes and key steps (anchors are invisible)
    assert out.stdout.count('class="cluster"') == 3


# ----------------------------------------------------------------------------- dispatch

def test_export_dispatch() -> None:
    graph, traj = build_case()
    assert export(graph, traj, "mermaid") == to_mermaid(graph, traj)
    assert export(graph, traj, "dot") == to_dot(graph, traj)
    att = build_attribution()
    assert export(graph, traj, "html", attribution=att) == render_report(graph, traj, att)
    assert set(FORMATS) == {"json", "mermaid", "dot", "html"}
    with pytest.raises(ConfigError, match="unknown export format 'svg'"):
        export(graph, traj, "svg")
    with pytest.raises(ValueError):
        export(graph, None, "html")
