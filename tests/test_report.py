"""The self-contained CHIEF HTML report: content, escaping, no network, and a headless Chromium render."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from attrib.chief.graph import AgentNode, CausalGraph, StepEdge, Subtask, SubtaskEdge
from attrib.chief.report import render_report, script_json
from attrib.trajectory import Step, Trajectory
from test_export import XSS, build_attribution, build_case

SHOT_COPY = Path("/tmp/attrib_report_shot.png")
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")


def _steps_blob(html: str) -> str:
    m = re.search(r'<script type="application/json" id="steps-data">(.*?)</script>', html, re.DOTALL)
    assert m, "steps-data blob missing"
    return m.group(1)


@pytest.fixture(scope="module")
def report() -> str:
    graph, traj = build_case()
    return render_report(graph, traj, build_attribution())


def test_no_network_references(report: str) -> None:
    assert not re.search(r"""(?:src|href|xlink:href)\s*=\s*["']?\s*(?:https?:)?//""", report, re.IGNORECASE)
    assert not re.search(r"<link\b|@import|url\(\s*['\"]?(?:https?:)?//", report, re.IGNORECASE)
    assert "http://" not in report and "https://" not in report


def test_root_cause_marked(report: str) -> None:
    assert re.search(r'<g class="chip root cand"[^>]*id="root-cause"[^>]*data-step="7"', report)
    assert report.count('id="root-cause"') == 1
    assert "ROOT CAUSE" in report  # tag on the FileSurfer node of S2


def test_log_text_is_escaped(report: str) -> None:
    assert XSS not in report
    assert "<b>bold</b>" not in report and "case-7<b>" not in report
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in report  # chip tooltip of step 9
    assert len(re.findall(r"</script", report, re.IGNORECASE)) == 2  # the data blob and the page script, nothing else
    blob = _steps_blob(report)
    assert "</" not in blob and "<" not in blob
    data = json.loads(blob)
    _, traj = build_case()
    assert [s["content"] for s in data["steps"]] == [s.content for s in traj.steps]
    assert data["root"] == 7 and data["steps"][12]["truncated"] is True
    assert data["steps"][12]["inputs"][0][0] == 7
    assert script_json({"x": "</script><!--"}) == '{"x": "\\u003c/script\\u003e\\u003c!--"}'


def test_report_content(report: str) -> None:
    for text in ("Obtain the official 2019 sales report", "four numbers from the Revenue row", "site reachable",
                 "values come from the Units column", "read the wrong row", "Units instead of Revenue",
                 "step 7 is the root cause", "gpt-4o-mini", "FileSurfer read the &lt;Units&gt; column",
                 "oracles: answer invalid after the re-ask (&lt;timeout&gt;)", "Loop groups", "Literal flows",
                 "1,234", "data dependency", "logical prereq", "Degraded stages"):
        assert text in report, text
    assert report.count('class="chip') == 16
    assert len(re.findall(r'<g class="agent[^"]*" data-node=', report)) == 7
    assert report.count('class="e-step') == 3
    assert report.count('class="e-agent"') == 7
    assert report.count('class="e-sub"') == 2
    assert len(re.findall(r"class=\"card[ \"]", report)) == 3
    assert "Demo model" not in report
    judged = report[report.index("What each stage saw and judged"):report.index("Planner or executor")]
    assert judged.count("<tr>") == 4 and "chief.backtrack" in judged and "the whole log" in judged
    assert 'shortened: <button class="steplink" data-step="12">12</button>' in judged
    attribute = judged[judged.index("chief.attribute"):]
    assert [int(i) for i in re.findall(r'data-step="(\d+)"', attribute)] == [6, 7, 6, 7, 12]
    assert "the &lt;Revenue&gt; row was asked for" in report and "downstream" in report
    assert "differs: look twice" in report and "sums &lt;bad&gt; inputs" in report
    assert "not in the step" in report and "“Units column”" in report
    assert "Demo model" in render_report(*build_case(), build_attribution(demo=True))


def test_report_without_attribution_or_subtasks() -> None:
    graph, traj = build_case()
    bare = graph.model_copy(update={"subtasks": [], "agent_nodes": [], "oracles": [], "verdicts": []})
    html = render_report(bare, traj)
    assert re.search(r'id="root-cause"[^>]*data-step="7"', html)
    assert html.count('class="chip') == 16
    assert "No attribution record" in html
    agent_only = graph.model_copy(update={"root_step": None})
    html = render_report(agent_only, traj)
    assert re.search(r'<g class="agent root[^"]*" data-node="1:1" id="root-cause" data-agent="FileSurfer"', html)


def big_case(n_sub: int = 10, per: int = 13) -> tuple[CausalGraph, Trajectory]:
    """A long run: ``n_sub`` subtasks of ``per`` steps, three agents, a data-flow edge per subtask."""
    agents = ["Orchestrator", "WebSurfer", "Coder"]
    n = n_sub * per
    traj = Trajectory(id="big", question="long task", steps=[
        Step(index=i, label=agents[i % 3], agent=agents[i % 3], content=f"step {i} text " * 20) for i in range(n)])
    subs = [Subtask(id=f"S{k + 1}", name=f"phase {k + 1}", start=k * per, end=k * per + per - 1) for k in range(n_sub)]
    nodes = [AgentNode(subtask=s.id, agent=a, steps=[i for i in s.steps if agents[i % 3] == a]) for s in subs for a in agents]
    return CausalGraph(case_id="big", n_steps=n, agents=agents, subtasks=subs, agent_nodes=nodes,
                       subtask_edges=[SubtaskEdge(source=a.id, target=b.id, type="data_dependency") for a, b in itertools.pairwise(subs)],
                       step_edges=[StepEdge(producer=s.start, consumer=min(s.end + 3, n - 1), data="x") for s in subs],
                       candidate_steps=[90, 91], root_agent="Orchestrator", root_step=90), traj


def test_big_graph_stays_usable() -> None:
    graph, traj = big_case()
    html = render_report(graph, traj)
    assert html.count('class="chip') == 130
    width, height = map(int, re.search(r'<svg id="graph" width="(\d+)" height="(\d+)"', html).groups())
    assert width > 1400 and height < 900  # wide: the graph scrolls horizontally, not vertically
    assert 'id="root-cause"' in html


# ----------------------------------------------------------------------------- headless Chromium


def _chromium() -> str | None:
    for name in CHROMIUM_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def _run_chromium(binary: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--disable-quic", f"--user-data-dir={profile}",
           "--window-size=1400,900", "--virtual-time-budget=2000", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)


def test_chromium_renders_report(tmp_path: Path) -> None:
    binary = _chromium()
    if binary is None:
        pytest.skip("no chromium binary (/usr/bin/chromium); install it with `apt-get install -y chromium`")
    graph, traj = build_case()
    page = tmp_path / "report.html"
    page.write_text(render_report(graph, traj, build_attribution()), encoding="utf-8")
    shot = tmp_path / "shot.png"
    run = _run_chromium(binary, tmp_path / "profile-shot", f"--screenshot={shot}", page.as_uri())
    assert shot.exists(), run.stderr[-2000:]
    assert shot.stat().st_size > 10_000
    shutil.copyfile(shot, SHOT_COPY)
    dom = _run_chromium(binary, tmp_path / "profile-dom", "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'data-ready="1"' in dom.stdout  # the page script ran to the end
    assert re.search(r'id="root-cause"[^>]*data-step="7"', dom.stdout)
    panel = re.search(r'<div id="panel-body">(.*?)</aside>', dom.stdout, re.DOTALL)
    assert panel and "Step 7" in panel.group(1) and "root cause" in panel.group(1)  # root step opened on load
    assert "<script>alert(1)" not in dom.stdout


def test_root_step_outside_the_log_falls_back_to_the_agent() -> None:
    graph, traj = build_case()
    html = render_report(graph.model_copy(update={"root_step": 99}), traj)
    assert re.search(r'class="agent root[^"]*" data-node="1:1" id="root-cause" data-agent="FileSurfer"', html)
