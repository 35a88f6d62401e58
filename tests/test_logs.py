"""Reading Who&When logs, and refusing bad input through the CLI with one clear line (exit code 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import attrib.cli as cli
from attrib.agents import agent_key
from attrib.readers import iter_log_paths, load_log


# ----------------------------------------------------------------- the real data
def _raw(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_all_who_and_when_logs_load(alg_dir, hand_dir):
    alg = [load_log(p) for p in iter_log_paths([alg_dir])]
    hand = [load_log(p) for p in iter_log_paths([hand_dir])]
    assert (len(alg), len(hand)) == (12, 7)  # the vendored subset (tests/data/who_and_when)
    assert {t.subset for t in alg} == {"algorithm-generated"}
    assert {t.subset for t in hand} == {"hand-crafted"}
    for t in alg + hand:
        assert t.n_steps > 0 and [s.index for s in t.steps] == list(range(t.n_steps))
        assert t.gold is not None and 0 <= t.gold.step < t.n_steps
        assert t.resolve_agent(t.gold.agent) is not None, (t.id, t.gold.agent)


def test_gold_step_string_becomes_int(alg_dir, hand_dir):
    for folder in (alg_dir, hand_dir):
        for path in sorted(folder.glob("*.json")):
            raw = _raw(path)
            gold = load_log(path).gold
            assert isinstance(raw["mistake_step"], str)  # how the benchmark writes it
            assert isinstance(gold.step, int) and gold.step == int(raw["mistake_step"])
            assert agent_key(gold.agent) == agent_key(raw["mistake_agent"])


def test_algorithm_generated_agent_comes_from_name(alg_dir):
    path = alg_dir / "12.json"
    raw, t = _raw(path), load_log(path)
    assert [s.label for s in t.steps] == [item["name"] for item in raw["history"]]
    assert {item["role"] for item in raw["history"]} <= {"user", "assistant"}
    assert "Verification_Expert" in t.agents and "assistant" not in t.agents
    assert t.steps[1].role == raw["history"][1]["role"]


def test_hand_crafted_agent_comes_from_role(hand_dir):
    path = hand_dir / "6.json"
    raw, t = _raw(path), load_log(path)
    assert all("name" not in item for item in raw["history"])
    assert [s.label for s in t.steps] == [item["role"] for item in raw["history"]]
    assert t.agents == ["human", "Orchestrator", "WebSurfer"]


def test_orchestrator_variants_are_one_canonical_agent(hand_dir):
    t = load_log(hand_dir / "6.json")
    by_label = {s.label: s.agent for s in t.steps}
    assert by_label["Orchestrator (thought)"] == "Orchestrator"
    assert by_label["Orchestrator (-> WebSurfer)"] == "Orchestrator"
    assert by_label["Orchestrator (termination condition)"] == "Orchestrator"
    assert [s.index for s in t.steps_of("Orchestrator (thought)")] == [1, 2, 3, 5, 6, 7]


def test_websurfer_gold_label_resolves(hand_dir):
    t = load_log(hand_dir / "11.json")
    assert t.gold.agent == "Websurfer" and t.gold.step == 24
    assert t.resolve_agent(t.gold.agent) == "WebSurfer"
    assert "WebSurfer" in t.agents and "Websurfer" not in t.agents


# ----------------------------------------------------------------- bad input via the CLI
def _json(obj) -> bytes:
    return json.dumps(obj).encode()


BAD_FILES: dict[str, tuple[bytes | None, str]] = {
    # case: (file bytes, or None for a folder / no file; words the one error line must contain)
    "not_json": (b'{"history": [ {"role": "a", "content": "x"', "not json"),
    "not_utf8": (b'{"history": [{"role": "a", "content": "\xff\xfe caf\xe9"}]}', "not utf-8"),
    "no_history": (_json({"question": "q", "steps_missing": True}), "'history'"),
    "empty_history": (_json({"history": []}), "'history' is empty"),
    "history_not_list": (_json({"history": {"role": "a", "content": "x"}}), "must be a list"),
    "content_wrong_type": (_json({"history": [{"role": "a", "content": 5}]}), "content must be a string"),
    "step_outside_log": (_json({"history": [{"role": "a", "content": "x"}, {"role": "b", "content": "y"}],
                                "mistake_agent": "a", "mistake_step": "7"}), "outside the log"),
    "nested_100k_deep": (b"[" * 100_000 + b"]" * 100_000, "nested deeper than"),
    "object_nested_100k_deep": (b'{"a":' * 100_000 + b"1" + b"}" * 100_000, "nested deeper than"),
    "jsonl_line_nested_deep": (b'{"role": "a", "content": "x"}\n' + b"[" * 5_000 + b"]" * 5_000 + b"\n",
                               "nested deeper than"),
    "empty_directory": (None, "directory"),
    "missing_file": (None, "no such file"),
}
COMMANDS = {"validate": ["validate"], "predict": ["predict", "--method", "random"],
            "evaluate": ["evaluate", "--method", "random", "--quiet"]}


def _bad_path(tmp_path: Path, case: str) -> Path:
    data, _ = BAD_FILES[case]
    if case == "empty_directory":
        (tmp_path / "nologs").mkdir()
        (tmp_path / "nologs" / "README.md").write_text("not a log")
        return tmp_path / "nologs"
    path = tmp_path / f"{case}.json"
    if data is not None:
        path.write_bytes(data)
    return path


def _run(args: list[str]):
    result = CliRunner().invoke(cli.app, args)
    stderr = getattr(result, "stderr", "") if _stderr_separate(result) else ""
    return result, result.output, stderr


def _stderr_separate(result) -> bool:
    try:
        _ = result.stderr
    except ValueError:  # click < 8.2 without mix_stderr=False
        return False
    return True


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", BAD_FILES)
def test_bad_input_is_one_line_on_stderr_exit_2(tmp_path, case, command, monkeypatch):
    monkeypatch.chdir(tmp_path)  # evaluate writes its run directory under ./runs
    path = _bad_path(tmp_path, case)
    result, output, stderr = _run(COMMANDS[command] + [str(path)])
    assert result.exit_code == 2, output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in output and "Traceback" not in stderr
    lines = stderr.strip("\n").splitlines()
    assert len(lines) == 1, stderr
    assert str(path) in lines[0] and BAD_FILES[case][1] in lines[0].lower()
    assert "attrib: error:" in lines[0] and stderr not in result.stdout  # not echoed on stdout
