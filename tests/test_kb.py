"""Tests for the knowledge base: build / reuse / rebuild, search, CLI, and the leak test.

The sources are made up by ``tests/kb_sources.py`` around the vendored Who&When cases:
GAIA is never copied into the repository. The same checks on the real sources, read
from a user-given path, are ``scripts/check_kb_leaks.py``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from attrib.errors import ConfigError
from attrib.kb import (
    KnowledgeBase,
    build,
    format_exemplars,
    kb_dir,
    load,
    retrieve_exemplars,
)
from attrib.kb.embed import MODEL_NAME, embed
from attrib.kb.entries import GAIA_META
from attrib.kb.retrieve import CUT_MARKER, SAME_TASK_COSINE, same_question
from attrib.kb.store import sha256_file
from attrib.readers import iter_log_paths, load_log

from conftest import WHO_AND_WHEN
from kb_sources import write_sources

CASES = [load_log(p) for p in iter_log_paths([WHO_AND_WHEN])]
N_GAIA_CASES = sum(1 for c in CASES if c.question_id and "-" in c.question_id)


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return write_sources(tmp_path_factory.mktemp("kb-src"), WHO_AND_WHEN)


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, sources: tuple[Path, Path]) -> KnowledgeBase:
    return build(*sources, directory=tmp_path_factory.mktemp("kb"))


@pytest.fixture
def small_sources(tmp_path: Path) -> tuple[Path, Path]:
    """Synthetic sources (a few made-up tasks) for fast rebuild tests."""
    gaia = tmp_path / "src" / "gaia.jsonl"
    ab = tmp_path / "src" / "ab.jsonl"
    gaia.parent.mkdir()
    rows = [
        ("g1", "How many moons does the fourth planet from the sun have?", "1. Search the planet.\n2. Count its moons."),
        ("g2", "What is the tallest building in the capital of France?", "1. Find the capital.\n2. List buildings by height."),
        ("g3", "Which composer wrote the opera about a barber in Seville?", "1. Search the opera.\n2. Read the composer."),
    ]
    gaia.write_text(
        "".join(json.dumps({"task_id": i, "Question": q, GAIA_META: {"Steps": s}}) + "\n" for i, q, s in rows)
    )
    ab.write_text(json.dumps({"id": "a1", "task": "Which cafes near the central station open before 6am?", "explanation": "Use a map and check hours."}) + "\n")
    return gaia, ab


# ----------------------------------------------------------------------------- build, manifest, reuse


def test_build_and_manifest(kb: KnowledgeBase, sources: tuple[Path, Path]) -> None:
    gaia, ab = sources
    n_gaia = 6 + N_GAIA_CASES + 1
    total = n_gaia + 3 + len(CASES) - N_GAIA_CASES
    assert kb.rebuilt and len(kb) == total and kb.index.ntotal == total
    manifest = json.loads((kb.directory / "manifest.json").read_text())
    assert manifest["model"] == MODEL_NAME and manifest["dim"] == 384 and manifest["entry_count"] == total
    assert manifest["sources"]["gaia"] == {"path": str(gaia.resolve()), "sha256": sha256_file(gaia), "entries": n_gaia}
    assert manifest["sources"]["assistantbench"]["sha256"] == sha256_file(ab)
    assert manifest["sources"]["assistantbench"]["entries"] == 3 + len(CASES) - N_GAIA_CASES
    assert manifest["built_at"] and manifest["build_seconds"] > 0
    assert {p.name for p in kb.directory.iterdir()} == {"manifest.json", "index.faiss", "questions.npy", "entries.jsonl"}


def test_second_build_reuses_and_load_round_trips(kb: KnowledgeBase, sources: tuple[Path, Path]) -> None:
    again = build(*sources, directory=kb.directory)
    assert not again.rebuilt
    loaded = load(kb.directory)
    assert loaded is not None and [e.id for e in loaded.entries] == [e.id for e in kb.entries]
    assert np.allclose(loaded.question_vectors, kb.question_vectors)


def test_changed_source_triggers_rebuild(tmp_path: Path, small_sources: tuple[Path, Path]) -> None:
    gaia, ab = small_sources
    folder = tmp_path / "kb"
    first = build(gaia, ab, directory=folder)
    assert first.rebuilt and len(first) == 4
    assert not build(gaia, ab, directory=folder).rebuilt
    with gaia.open("a") as handle:
        handle.write(json.dumps({"task_id": "g4", "Question": "Name a river in Egypt.", GAIA_META: {"Steps": "1. Look."}}) + "\n")
    second = build(gaia, ab, directory=folder)
    assert second.rebuilt and len(second) == 5
    assert second.manifest["sources"]["gaia"]["sha256"] == sha256_file(gaia)
    assert build(gaia, ab, directory=folder, force=True).rebuilt
    # fewer sources than last time is a different base, so it rebuilds too
    assert build(gaia, None, directory=folder).rebuilt


def test_moved_sources_are_reused_and_remembered(tmp_path: Path, small_sources: tuple[Path, Path]) -> None:
    gaia, ab = small_sources
    folder = tmp_path / "kb"
    build(gaia, ab, directory=folder)
    moved = tmp_path / "moved.jsonl"
    shutil.copy(gaia, moved)
    kb = build(moved, ab, directory=folder)
    assert not kb.rebuilt
    assert load(folder).manifest["sources"]["gaia"]["path"] == str(moved.resolve())


def test_default_uses_cache_env_and_refreshes_changed_sources(
    tmp_path: Path, small_sources: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ATTRIB_CACHE_DIR", str(tmp_path / "cache"))
    assert kb_dir() == tmp_path / "cache" / "kb"
    assert kb_dir(tmp_path / "explicit") == tmp_path / "explicit"
    with pytest.raises(ConfigError, match="attrib kb build"):
        KnowledgeBase.default()
    gaia, ab = small_sources
    build(gaia, ab)
    assert len(KnowledgeBase.default()) == 4
    gaia.write_text(gaia.read_text().splitlines()[0] + "\n")
    refreshed = KnowledgeBase.default()
    assert refreshed.rebuilt and len(refreshed) == 2


def test_damaged_base_is_reported_and_rebuilt(tmp_path: Path, small_sources: tuple[Path, Path]) -> None:
    gaia, ab = small_sources
    folder = tmp_path / "kb"
    build(gaia, ab, directory=folder)
    (folder / "entries.jsonl").write_text("")
    with pytest.raises(ConfigError, match="counts disagree"):
        load(folder)
    assert build(gaia, ab, directory=folder).rebuilt
    assert load(tmp_path / "nothing-here") is None


def test_missing_sources_are_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no knowledge-base source"):
        build(None, None, directory=tmp_path)
    with pytest.raises(Exception, match="no such file"):
        build(tmp_path / "absent.jsonl", None, directory=tmp_path)


# ----------------------------------------------------------------------------- search and exemplars


def test_search_returns_sensible_hits(kb: KnowledgeBase) -> None:
    hits = kb.search("Which gyms near a park in New York have fitness classes early in the morning?", k=5)
    assert len(hits) == 5
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert hits[0].entry.source == "AssistantBench" and "gym" in hits[0].entry.question.lower()
    assert all(-1.0 <= h.score <= 1.0001 for h in hits)


def test_near_identical_question_with_other_id_is_excluded(tmp_path: Path) -> None:
    gaia = tmp_path / "g.jsonl"
    question = "How many moons does the fourth planet from the sun have, according to NASA in 2023?"
    rows = [
        {"task_id": "own", "Question": question, GAIA_META: {"Steps": "1. Search."}},
        {"task_id": "copy", "Question": question.upper() + "  ", GAIA_META: {"Steps": "1. Search again."}},
        {"task_id": "other1", "Question": "How many rings does the sixth planet have?", GAIA_META: {"Steps": "1. Look."}},
        {"task_id": "other2", "Question": "Which planet has the most moons?", GAIA_META: {"Steps": "1. Compare."}},
        {"task_id": "other3", "Question": "Who painted the ceiling of a famous chapel?", GAIA_META: {"Steps": "1. Read."}},
    ]
    gaia.write_text("".join(json.dumps(r) + "\n" for r in rows))
    kb = build(gaia, None, directory=tmp_path / "kb")
    hits = retrieve_exemplars(kb, question, "own", k=2)
    assert len(hits) == 2 and not {h.entry.id for h in hits} & {"own", "copy"}
    # asking for more than the base holds returns every other task, still without the own ones
    assert {h.entry.id for h in retrieve_exemplars(kb, question, "own", k=10)} == {"other1", "other2", "other3"}
    assert retrieve_exemplars(kb, question, "own", k=0) == []


def test_same_question_rules() -> None:
    long = "In the fictional language of Tizin, sentences put the verb first and the subject last."
    assert same_question(long, long + " The word for apples is given below.")
    assert same_question("What  is X?", "what is x")
    assert not same_question("What is X?", "What is X and Y?")  # short: containment alone is not enough


def test_format_exemplars_is_compact_and_capped(kb: KnowledgeBase) -> None:
    hits = retrieve_exemplars(kb, "Find the population of the largest city in a country.", None, k=2)
    text = format_exemplars(hits, max_chars=200)
    assert text.startswith("[Exemplar 1]\nSource: ") and "[Exemplar 2]" in text
    for block in text.split("\n\n[Exemplar ")[:2]:
        body = block.split("\n", 2)[2]
        assert len(body) <= 200
    assert CUT_MARKER in format_exemplars(hits, max_chars=50)
    assert format_exemplars([]) == "(no reference exemplars)"
    full = format_exemplars(hits)
    labels = {"GAIA": ("Question: ", "Steps: "), "AssistantBench": ("Task: ", "Explanation: ")}
    for hit in hits:
        assert all(label in full for label in labels[hit.entry.source])


# ----------------------------------------------------------------------------- the leak test


def test_no_case_ever_retrieves_its_own_task(kb: KnowledgeBase) -> None:
    cases = CASES
    assert len(cases) == 19
    question_vecs = embed([c.question for c in cases])
    for case, qvec in zip(cases, question_vecs, strict=True):
        assert case.question_id and kb.get(case.question_id) is not None, f"{case.path}: task not in the knowledge base"
        own = kb.get(case.question_id)

        hits = retrieve_exemplars(kb, case.question, case.question_id, k=2)
        assert len(hits) == 2, case.path
        for hit in hits:
            entry = hit.entry
            assert entry.id != case.question_id, f"{case.path}: own task retrieved by id"
            pos = next(i for i, e in enumerate(kb.entries) if e.id == entry.id)
            assert float(kb.question_vectors[pos] @ qvec) < SAME_TASK_COSINE, f"{case.path}: near-identical question {entry.id}"
            assert not same_question(entry.question, case.question), f"{case.path}: same question text {entry.id}"
            assert not same_question(entry.question, own.question), f"{case.path}: same as the own task's text"


# ----------------------------------------------------------------------------- CLI


def test_cli_build_and_search(tmp_path: Path, small_sources: tuple[Path, Path]) -> None:
    import typer
    from typer.testing import CliRunner

    from attrib.kb.commands import register

    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """test root"""

    register(app)
    runner = CliRunner()
    gaia, ab = small_sources
    folder = tmp_path / "kb"
    result = runner.invoke(app, ["kb", "build", "--gaia", str(gaia), "--assistantbench", str(ab), "--kb-dir", str(folder)])
    assert result.exit_code == 0, result.output
    assert "rebuilt: 4 entries" in result.output and "saved in" in result.output
    result = runner.invoke(app, ["kb", "build", "--gaia", str(gaia), "--assistantbench", str(ab), "--kb-dir", str(folder)])
    assert "reused" in result.output
    result = runner.invoke(app, ["kb", "search", "moons of a planet", "-k", "2", "--json", "--kb-dir", str(folder)])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert len(rows) == 2 and rows[0]["id"] == "g1" and set(rows[0]) == {"score", "source", "id", "question"}
    result = runner.invoke(app, ["kb", "search", "opera composer", "--kb-dir", str(folder)])
    assert result.exit_code == 0 and "g3" in result.output
    result = runner.invoke(app, ["kb", "build", "--kb-dir", str(folder)])
    assert isinstance(result.exception, ConfigError)
