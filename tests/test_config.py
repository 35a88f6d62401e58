"""Where the model comes from (flags > env > attrib.toml > embedded demo), prices, and fitting the context window."""

from __future__ import annotations

import pytest

from attrib.api import predict
from attrib.errors import ConfigError
from attrib.llm.config import load_config, resolve
from attrib.readers import load_log

from mock_answers import make_realistic_responder

TOML = """
default_profile = "team"

[profiles.team]
model = "team-model"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "TEAM_KEY"
context_window = 32000

[prices."team-model"]
input = 1.0
output = 2.0
"""


def test_nothing_configured_means_the_embedded_demo_model():
    ms = resolve(None, None)
    assert ms.backend == "local" and ms.is_demo and ms.context_window == 8192


def test_profile_from_attrib_toml_with_key_from_its_variable(tmp_path, monkeypatch):
    cfg_path = tmp_path / "attrib.toml"
    cfg_path.write_text(TOML)
    monkeypatch.setenv("TEAM_KEY", "sk-team-secret")
    cfg = load_config(cfg_path)
    ms = resolve(None, None, config=cfg)
    assert (ms.model, ms.base_url, ms.context_window, ms.profile) == ("team-model", "http://127.0.0.1:9/v1", 32000, "team")
    assert ms.api_key.get_secret_value() == "sk-team-secret"
    assert "sk-team-secret" not in repr(ms) and "sk-team-secret" not in ms.model_dump_json()
    assert cfg.prices["team-model"].cost(1_000_000, 1_000_000) == 3.0


def test_cached_input_price_builtin_and_overridden_in_attrib_toml(tmp_path):
    from attrib.llm.pricing import BUILTIN_PRICES, price_for

    mini = price_for("gpt-4o-mini-2024-07-18", BUILTIN_PRICES)
    assert mini is not None and mini.cached_input == 0.075  # half of OpenAI's 0.15 list price
    assert mini.cost(1_000_000, 0, cached_input_tokens=400_000) == pytest.approx(0.6 * 0.15 + 0.4 * 0.075)
    assert mini.cost(100, 0, cached_input_tokens=500) == mini.cost(100, 0, cached_input_tokens=100)  # capped
    assert all(p.cached_input is not None and p.cached_input <= p.input for p in BUILTIN_PRICES.values())
    (tmp_path / "attrib.toml").write_text('[prices."gpt-4o-mini"]\ninput = 1.0\ncached_input = 0.1\noutput = 2.0\n'
                                          '[prices."plain"]\ninput = 1.0\noutput = 2.0\n'
                                          '[prices."bad"]\ninput = 1.0\ncached_input = -1\noutput = 2.0\n')
    with pytest.raises(ConfigError, match="bad"):
        load_config(tmp_path / "attrib.toml")
    text = (tmp_path / "attrib.toml").read_text()
    (tmp_path / "attrib.toml").write_text(text[: text.index('[prices."bad"]')])
    cfg = load_config(tmp_path / "attrib.toml")
    assert cfg.prices["gpt-4o-mini"].cost(1_000_000, 1_000_000, 1_000_000) == pytest.approx(2.1)
    assert cfg.prices["plain"].cached_input == 1.0  # no cached price given: no discount assumed


def test_flags_beat_env_beat_file(tmp_path, monkeypatch):
    (tmp_path / "attrib.toml").write_text(TOML)
    cfg = load_config(tmp_path / "attrib.toml")
    monkeypatch.setenv("ATTRIB_MODEL", "env-model")
    monkeypatch.setenv("ATTRIB_BASE_URL", "http://127.0.0.1:8/v1")
    assert resolve(None, None, config=cfg).model == "env-model"
    assert resolve("flag-model", "http://127.0.0.1:7/v1", config=cfg).base_url == "http://127.0.0.1:7/v1"
    assert resolve("team", None, config=cfg).model == "team-model"  # a profile named by --model


def test_config_errors_are_one_line(tmp_path):
    bad = tmp_path / "attrib.toml"
    bad.write_text("this is = = not toml")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)
    with pytest.raises(ConfigError, match="GGUF model file not found"):
        resolve("gguf:/nonexistent/model.gguf")
    with pytest.raises(ConfigError, match="needs an endpoint"):
        resolve("gpt-4o-mini", None)


def test_gguf_path_runs_on_the_local_backend():
    pytest.importorskip("llama_cpp")
    from attrib.llm.local_backend import smollm2_path

    ms = resolve(f"gguf:{smollm2_path()}")
    assert ms.backend == "local" and ms.gguf_path and not ms.is_demo


def test_prompt_too_long_is_shortened_head_and_tail_and_recorded(hand_dir, mock_server, make_llm):
    traj = load_log(hand_dir / "1.json")
    srv = mock_server(make_realistic_responder())
    client = make_llm(srv, context_window=4000)
    att = predict(traj, "all-at-once", client=client)
    assert att.status == "ok"
    call = att.calls[0]
    assert call.truncated and call.estimated_input_tokens is not None and call.estimated_input_tokens <= 4000 - 1024
    assert any("shortened" in n for n in att.notices)
    assert "characters cut by attrib" in srv.requests[0].body["messages"][-1]["content"]


def test_cached_answers_cost_nothing(alg_dir, mock_server, make_llm):
    srv = mock_server(make_realistic_responder())
    first = predict(load_log(alg_dir / "1.json"), "all-at-once", client=make_llm(srv, "gpt-4o-mini"))
    again = predict(load_log(alg_dir / "1.json"), "all-at-once", client=make_llm(srv, "gpt-4o-mini"))
    assert first.usage.cost_usd > 0 and again.usage.cost_usd == 0 and again.calls[0].cached
    assert again.usage.input_tokens == first.usage.input_tokens  # the tokens the answer took are still reported
