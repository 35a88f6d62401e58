"""The one LLM client, through the real openai SDK against the local mock server.

Retries (429 + Retry-After, 5xx, timeouts), the one re-ask, invalid answers, the
response_format fallback, the answer cache, offline mode, token usage and cost,
and that the API key never leaks.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from attrib.api import predict, predict_async
from attrib.core.answers import AgentStepAnswer, agent_step_validator
from attrib.errors import LLMError
from attrib.readers import iter_log_paths, load_log

from conftest import API_KEY
from mockserver import Reply


def answer(agent: str = "WebSurfer", step: int = 4, reason: str = "It reported the wrong price.") -> str:
    return json.dumps({"agent": agent, "step": step, "reason": reason})


def last_user(request) -> str:
    return [m for m in request.body["messages"] if m["role"] == "user"][-1]["content"]


def formats(srv) -> list[str | None]:
    return [(r.body.get("response_format") or {}).get("type") for r in srv.requests]


def assert_no_key(att) -> None:
    assert API_KEY not in att.model_dump_json()


@pytest.fixture
def traj(hand_dir):
    """hand-crafted 6.json: 8 steps; agents human, Orchestrator, WebSurfer."""
    return load_log(hand_dir / "6.json")


# ----------------------------------------------------------------- retries
def test_429_retry_after_is_honoured(mock_server, make_llm, traj):
    srv = mock_server([Reply.rate_limited(1), answer()])
    started = time.perf_counter()
    att = predict(traj, "all-at-once", client=make_llm(srv))
    assert time.perf_counter() - started >= 1.0
    assert att.status == "ok" and (att.agent, att.step) == ("WebSurfer", 4)
    assert att.calls[0].attempts == 2 and srv.count == 2
    assert srv.requests[0].headers["authorization"] == f"Bearer {API_KEY}"  # the key was really sent...
    assert_no_key(att)  # ...and is in no output


def test_server_error_then_success(mock_server, make_llm, traj):
    srv = mock_server([Reply.server_error(), answer()])
    att = predict(traj, "all-at-once", client=make_llm(srv))
    assert att.status == "ok" and att.calls[0].attempts == 2 and srv.count == 2


def test_malformed_response_body_is_retried(mock_server, make_llm, traj):
    srv = mock_server([Reply.malformed(), answer()])
    att = predict(traj, "all-at-once", client=make_llm(srv))
    assert att.status == "ok" and att.calls[0].attempts == 2 and att.calls[0].reasks == 0


def test_timeout_then_success(mock_server, make_llm, traj):
    srv = mock_server([Reply.timeout(2.0, content=answer()), answer(step=3)])
    att = predict(traj, "all-at-once", client=make_llm(srv, timeout=0.5))
    assert att.status == "ok" and att.step == 3 and att.calls[0].attempts == 2


def test_retries_exhausted_is_an_error_status_without_the_key(mock_server, make_llm, traj):
    srv = mock_server(Reply.server_error(f"upstream failed for key {API_KEY}"))
    att = predict(traj, "all-at-once", client=make_llm(srv, max_retries=2))
    assert att.status == "error" and att.agent is None and att.step is None
    assert "gave up after 3 attempts" in att.error and srv.count == 3
    assert_no_key(att)


def test_auth_error_echoing_the_key_is_redacted(mock_server, make_llm, traj):
    srv = mock_server(Reply.error(401, f"Incorrect API key provided: {API_KEY}.", "invalid_request_error",
                                  "invalid_api_key"))
    att = predict(traj, "all-at-once", client=make_llm(srv))
    assert att.status == "error" and "401" in att.error and srv.count == 1  # not retried
    assert_no_key(att)


# ----------------------------------------------------------------- validation and the one re-ask
def test_malformed_answer_is_reasked_then_valid(mock_server, make_llm, traj):
    srv = mock_server(["I think it was probably somebody, hard to say.", answer()])
    att = predict(traj, "all-at-once", client=make_llm(srv))
    assert att.status == "ok" and (att.agent, att.step) == ("WebSurfer", 4)
    rec = att.calls[0]
    assert (rec.reasks, rec.attempts, rec.valid) == (1, 2, True)
    assert "neither a JSON object" in last_user(srv.requests[1])


def test_unknown_agent_is_reasked_with_the_problem(mock_server, make_llm, traj):
    srv = mock_server([answer(agent="Bob"), answer(agent="orchestrator", step=5)])
    att = predict(traj, "all-at-once", client=make_llm(srv))
    assert att.status == "ok" and (att.agent, att.step) == ("Orchestrator", 5)  # display name of the log
    reask = last_user(srv.requests[1])
    assert "'Bob' is not in this log" in reask and "WebSurfer" in reask
    assert srv.requests[1].body["messages"][-2] == {"role": "assistant", "content": answer(agent="Bob")}


def test_unknown_agent_twice_is_invalid_never_guessed(mock_server, make_llm, traj):
    srv = mock_server(answer(agent="Bob"))
    att = predict(traj, "all-at-once", client=make_llm(srv))
    assert att.status == "invalid" and att.agent is None and att.step is None
    rec = att.calls[0]
    assert rec.valid is False and rec.reasks == 1 and "Bob" in rec.error and "Bob" in att.error
    assert srv.count == 2 and att.usage.invalid_calls == 1


def test_out_of_range_step_twice_is_invalid(mock_server, make_llm, traj):
    srv = mock_server(answer(step=traj.n_steps))
    att = predict(traj, "all-at-once", client=make_llm(srv))
    assert att.status == "invalid" and att.agent is None and att.step is None
    assert att.calls[0].valid is False and "outside the log" in att.error
    assert "outside the log" in last_user(srv.requests[1])


# ----------------------------------------------------------------- response_format fallback
def test_json_schema_refused_falls_back_to_json_object(mock_server, make_llm, traj):
    srv = mock_server(answer(), refuse_json_schema=True)
    client = make_llm(srv, cache=False)
    att = predict(traj, "all-at-once", client=client)
    assert att.status == "ok" and att.calls[0].response_mode == "json_object"
    assert formats(srv) == ["json_schema", "json_object"]
    assert any("refused response_format=json_schema" in n and "json_object" in n for n in att.notices)
    predict(traj, "all-at-once", client=client)  # the mode that worked is kept
    assert formats(srv) == ["json_schema", "json_object", "json_object"]


def test_both_formats_refused_uses_text_mode(mock_server, make_llm, hand_dir):
    traj = load_log(hand_dir / "5.json")  # 20 steps; WebSurfer acts at step 12
    text = "**Agent Name:** WebSurfer\n**Step Number:** Step 12\nReason for Mistake: It opened the wrong page."
    srv = mock_server(text, refuse_json_schema=True, refuse_json_object=True)
    att = predict(traj, "all-at-once", client=make_llm(srv))
    assert att.status == "ok" and (att.agent, att.step) == ("WebSurfer", 12)
    assert att.reason == "It opened the wrong page."
    assert formats(srv) == ["json_schema", "json_object", None]
    assert att.calls[0].response_mode == "text" and att.calls[0].reasks == 0
    assert sum("refused response_format" in n for n in att.notices) == 2


# ----------------------------------------------------------------- cache and offline
def test_cache_hit_makes_no_request_and_no_cache_does(mock_server, make_llm, traj):
    srv = mock_server(answer())
    first = predict(traj, "all-at-once", client=make_llm(srv))
    assert srv.count == 1 and not first.calls[0].cached
    again = predict(traj, "all-at-once", client=make_llm(srv))  # a fresh client, same cache file
    assert srv.count == 1
    assert all(c.cached for c in again.calls) and again.usage.cached_calls == again.usage.calls == 1
    assert (again.agent, again.step, again.reason) == (first.agent, first.step, first.reason)
    assert again.calls[0].attempts == 0
    uncached = predict(traj, "all-at-once", client=make_llm(srv, cache=False))
    assert srv.count == 2 and not uncached.calls[0].cached


def test_offline_with_empty_cache_is_an_error(mock_server, make_llm, traj):
    srv = mock_server(answer())
    client = make_llm(srv, offline=True)
    att = predict(traj, "all-at-once", client=client)
    assert att.status == "error" and "offline" in att.error and srv.count == 0
    with pytest.raises(LLMError, match="offline"):
        asyncio.run(client.ask(stage="t", messages=[{"role": "user", "content": "which step?"}],
                               answer=AgentStepAnswer, validate=agent_step_validator(traj)))


def test_api_key_not_in_cache_file(mock_server, make_llm, traj, cache_dir):
    srv = mock_server(answer())
    client = make_llm(srv)
    predict(traj, "all-at-once", client=client)
    predict(traj, "step-by-step", client=client)
    client.cache.close()
    files = [p for p in cache_dir.rglob("*") if p.is_file()]
    assert any(p.name == "llm-cache.sqlite3" for p in files)
    for path in files:  # the database and any -wal/-shm companions, read raw
        assert API_KEY.encode() not in path.read_bytes(), path


# ----------------------------------------------------------------- faults, concurrency, event loops
def _short_logs(folder, n):
    trajs = [load_log(p) for p in iter_log_paths([folder])]
    return sorted(trajs, key=lambda t: sum(len(s.content) for s in t.steps))[:n]


def test_thirty_percent_faults_every_case_ok(mock_server, make_llm, alg_dir):
    srv = mock_server(fault_rate=0.3, seed=7)  # the schema responder answers valid JSON
    client = make_llm(srv, max_retries=6)
    atts = [predict(t, "all-at-once", client=client) for t in _short_logs(alg_dir, 10)]
    assert [a.status for a in atts] == ["ok"] * 10, [a.error for a in atts]
    assert srv.faults > 0 and srv.count == 10 + srv.faults
    for t, a in zip(_short_logs(alg_dir, 10), atts, strict=True):
        assert a.agent in t.agents and 0 <= a.step < t.n_steps
        assert_no_key(a)


def test_one_client_reused_across_event_loops(mock_server, make_llm, alg_dir):
    """api.predict() runs its own event loop; one client must survive many of them under contention."""
    srv = mock_server()
    client = make_llm(srv, cache=False, concurrency=2)
    trajs = _short_logs(alg_dir, 6)

    async def batch():
        return await asyncio.gather(*(predict_async(t, "all-at-once", client=client) for t in trajs))

    for _ in range(2):
        assert [a.status for a in asyncio.run(batch())] == ["ok"] * 6
    assert srv.count == 12


def test_one_client_reused_across_event_loops_keep_alive(mock_server, make_llm, traj, monkeypatch):
    """With HTTP keep-alive (every real endpoint), a pooled connection must not outlive its event loop."""
    import mockserver as ms

    monkeypatch.setattr(ms._Handler, "protocol_version", "HTTP/1.1")
    srv = mock_server(answer())
    client = make_llm(srv, cache=False)
    atts = [predict(traj, "all-at-once", client=client) for _ in range(3)]
    assert [a.status for a in atts] == ["ok"] * 3 and srv.count == 3


# ----------------------------------------------------------------- usage and cost
def test_usage_from_api_and_cost_when_priced(mock_server, make_llm, traj):
    srv = mock_server(Reply(content=answer(), prompt_tokens=1000, completion_tokens=50))
    att = predict(traj, "all-at-once", client=make_llm(srv, "gpt-4o-mini"))
    rec = att.calls[0]
    assert (rec.input_tokens, rec.output_tokens) == (1000, 50)  # the API's usage, not the estimate
    assert rec.cost_usd == pytest.approx((1000 * 0.15 + 50 * 0.60) / 1e6)
    assert att.usage.cost_usd == pytest.approx(rec.cost_usd) and att.usage.input_tokens == 1000
    assert srv.requests[0].body["model"] == "gpt-4o-mini"


def _priced(rec, inp: float, cached: float, out: float) -> float:
    return ((rec.input_tokens - rec.cached_input_tokens) * inp + rec.cached_input_tokens * cached
            + rec.output_tokens * out) / 1e6


def test_provider_cached_tokens_reach_the_record_and_are_billed_at_the_cached_price(mock_server, make_llm, traj):
    srv = mock_server(answer())  # the mock reports a repeated prefix as cached, in 128-token blocks
    client = make_llm(srv, "gpt-4o-mini", cache=False)
    first, again = (predict(traj, "all-at-once", client=client) for _ in range(2))
    r1, r2 = first.calls[0], again.calls[0]
    assert r1.input_tokens == r2.input_tokens > 1024  # the same prompt, long enough to be cached
    assert r1.cached_input_tokens == 0 and r2.cached_input_tokens == r2.input_tokens // 128 * 128
    assert r1.cost_usd == pytest.approx(_priced(r1, 0.15, 0.075, 0.60), abs=1e-8)
    assert r2.cost_usd == pytest.approx(_priced(r2, 0.15, 0.075, 0.60), abs=1e-8) and r2.cost_usd < r1.cost_usd
    assert not r2.cached  # the provider's prompt cache, not attrib's answer cache
    assert again.usage.cached_input_tokens == r2.cached_input_tokens
    assert again.usage.cost_usd == pytest.approx(r2.cost_usd)


def test_answer_cache_replays_cached_tokens_at_no_cost(mock_server, make_llm, traj):
    srv = mock_server(answer(), usage_style="deepseek", cache_block=64)  # DeepSeek's prompt_cache_hit_tokens
    warm = predict(traj, "all-at-once", client=make_llm(srv, "deepseek-chat", cache=False))
    paid = predict(traj, "all-at-once", client=make_llm(srv, "deepseek-chat"))
    replayed = predict(traj, "all-at-once", client=make_llm(srv, "deepseek-chat"))
    p, r = paid.calls[0], replayed.calls[0]
    assert warm.calls[0].cached_input_tokens == 0 and p.cached_input_tokens == p.input_tokens // 64 * 64 > 0
    assert p.cost_usd == pytest.approx(_priced(p, 0.28, 0.028, 0.42), abs=1e-8) and not p.cached
    assert r.cached and r.cost_usd == 0.0 and srv.count == 2  # no request sent...
    assert (r.input_tokens, r.cached_input_tokens) == (p.input_tokens, p.cached_input_tokens)  # ...usage as recorded


def test_usage_sums_the_reask_and_unpriced_model_costs_none(mock_server, make_llm, traj):
    srv = mock_server([Reply(content="no idea", prompt_tokens=700, completion_tokens=3),
                       Reply(content=answer(), prompt_tokens=800, completion_tokens=40)])
    att = predict(traj, "all-at-once", client=make_llm(srv, "my-model"))
    rec = att.calls[0]
    assert (rec.input_tokens, rec.output_tokens) == (1500, 43)
    assert rec.cost_usd is None and att.usage.cost_usd is None
