"""Every method runs on every supported format, and converting a log does not change the prediction."""

from __future__ import annotations

from pathlib import Path

import pytest

from attrib.api import predict
from attrib.convert import dumps
from attrib.methods import METHODS
from attrib.readers import load_log

from mock_answers import make_realistic_responder

FORMATS = Path(__file__).parent / "data" / "formats"
# not attributable on purpose: another kind of JSON, a run that died on infrastructure (see
# test_readers_chatdev.py), and a MAST record of a MAS attrib has no reader for (see test_readers_mast.py)
NOT_ATTRIBUTED = {"package.json", "chatdev_died_infrastructure.log", "mast_hyperagent.json"}
FILES = sorted(p.name for p in FORMATS.iterdir() if p.name not in NOT_ATTRIBUTED)


def test_new_formats_are_covered():
    for name in ("chatdev_expense_tracker.log", "mast_chatdev.json", "taubench_retail_42.json"):
        assert name in FILES


def test_benchmark_formats_are_covered() -> None:
    # a task folder (TraceElephant) is one log, like a file
    assert {"swe_agent_tempora.traj", "trajdebug_retail.json", "traceelephant_task", "trail_gaia.json"} <= set(FILES)
    assert {load_log(FORMATS / n).source_format for n in FILES} >= {"swe-agent", "trajdebug", "traceelephant",
                                                                    "openinference"}


@pytest.mark.parametrize("name", FILES)
def test_each_method_on_each_format_and_its_conversions(name, mock_server, make_llm, tmp_path):
    original = load_log(FORMATS / name)
    srv = mock_server(make_realistic_responder())
    for target, suffix in (("who-and-when", ".json"), ("jsonl", ".jsonl")):
        converted_path = tmp_path / target / f"{original.id}{suffix}"  # same case id: random is seeded by it
        converted_path.parent.mkdir()
        converted_path.write_text(dumps(original, target), encoding="utf-8")
        converted = load_log(converted_path)
        for method in METHODS.names():
            a = predict(original, method, client=make_llm(srv, cache=False))
            b = predict(converted, method, client=make_llm(srv, cache=False))
            assert a.status in ("ok", "no_error_found"), (name, method, a.error)
            if a.step is not None:
                assert a.agent in original.agents and 0 <= a.step < original.n_steps
            assert (a.status, a.agent, a.step) == (b.status, b.agent, b.step), (name, target, method)
