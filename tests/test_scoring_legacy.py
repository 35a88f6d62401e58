"""Official Who&When output format and legacy (substring) scoring vs exact scoring."""

from __future__ import annotations

from pathlib import Path

import pytest

from attrib.evaluation.legacy import cut_word, legacy_agent_correct, legacy_step_correct
from attrib.evaluation.official import parse_official
from attrib.evaluation.predictions import load_trajectories, read_predictions
from attrib.evaluation.score_file import score_file

DATA = Path(__file__).resolve().parent / "data" / "who_and_when"  # the vendored subset: 12 + 7 logs
ALG = DATA / "algorithm-generated"

SAMPLE = """Prediction for 12.json:
Agent Name: WebSurfer
Step Number: 12
Reason for Mistake: It clicked the wrong link.
It then kept going.

==================================================

Prediction for 3.json:
**Agent Name:** **Orchestrator (thought)**
**Step Number:**   7
**Reason for Mistake:** planned badly

Prediction for 5.json:
Agent Name:   Assistant
Reason for Mistake: no step given
"""


def test_parse_official_tolerant():
    preds = parse_official(SAMPLE)
    assert list(preds) == ["12.json", "3.json", "5.json"]
    p12 = preds["12.json"]
    assert (p12.case_id, p12.agent, p12.step, p12.step_text) == ("12", "WebSurfer", 12, "12")
    assert p12.reason == "It clicked the wrong link.\nIt then kept going."
    p3 = preds["3.json"]
    assert (p3.agent, p3.step, p3.reason) == ("Orchestrator (thought)", 7, "planned badly")
    assert preds["5.json"].step is None and preds["5.json"].step_text is None


def test_legacy_rules():
    assert cut_word("Orchestrator (thought)") == "Orchestrator"
    assert cut_word("**WebSurfer**") == "WebSurfer"
    assert legacy_agent_correct("Orchestrator", "Orchestrator (thought)")
    assert legacy_agent_correct("Assistant", "Assistant_2")  # substring
    assert not legacy_agent_correct("Websurfer", "WebSurfer")  # case-sensitive
    assert legacy_step_correct("1", "12") and legacy_step_correct(1, "21")
    assert not legacy_step_correct("12", "1") and not legacy_step_correct("1", None)


def _official_text(trajs, override: dict[str, tuple[str, str]]) -> str:
    blocks = []
    for t in trajs:
        agent, step = override.get(t.id, (t.gold.agent, str(t.gold.step)))
        blocks.append(f"Prediction for {t.id}.json:\nAgent Name: {agent}\nStep Number: {step}\n"
                      f"Reason for Mistake: test\n\n{'=' * 50}\n")
    return "\n".join(blocks)


def test_official_file_scored_both_ways(tmp_path):
    trajs = load_trajectories(ALG)
    gold1 = next(t for t in trajs if t.gold.step == 1)
    dropped = next(t for t in trajs if t.id != gold1.id)
    path = tmp_path / "official.txt"
    kept = [t for t in trajs if t.id != dropped.id]
    path.write_text(_official_text(kept, {gold1.id: (gold1.gold.agent, "12")}))
    assert read_predictions(path).kind == "official"

    exact = score_file(path, ALG, legacy=False, n_boot=200).reports
    scored = score_file(path, ALG, legacy=True, n_boot=200)
    legacy, records = scored.reports, scored.records
    n = len(trajs)
    assert exact[0].overall.n == legacy[0].overall.n == n  # denominator: every log of the folder
    assert exact[0].overall.step.correct == n - 2  # the log predicted "12" and the missing one
    assert legacy[0].overall.step.correct == n - 1  # gold "1" is a substring of "12"
    assert legacy[0].overall.agent.correct == exact[0].overall.agent.correct == n - 1
    assert legacy[0].scoring == "legacy" and legacy[0].overall.step_at_k == {}
    rec = next(r for r in records if r.case_id == gold1.id)
    assert rec.step_correct is True and rec.pred_step == 12
    assert f"algorithm-generated/{dropped.id}" in exact[0].overall.failed_ids


def test_official_file_ambiguous_ids_need_subset(tmp_path):
    path = tmp_path / "official.txt"
    path.write_text("Prediction for 1.json:\nAgent Name: WebSurfer\nStep Number: 1\n")
    from attrib.errors import InputError

    with pytest.raises(InputError, match="--subset"):
        score_file(path, DATA, n_boot=200)
    reports = score_file(path, DATA, subset="hand-crafted", n_boot=200).reports
    assert reports[0].overall.n == 7
    path.write_text("Prediction for 999.json:\nAgent Name: WebSurfer\nStep Number: 1\n")
    with pytest.raises(InputError, match="matches a log"):
        score_file(path, DATA, subset="hand-crafted", n_boot=200)
