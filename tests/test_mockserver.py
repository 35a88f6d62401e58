"""Tests for the test mock server (tests/mockserver.py), driven through the real ``openai`` SDK."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from enum import StrEnum
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, Field

openai = pytest.importorskip("openai")

from attrib.llm.tokens import count_message_tokens, count_tokens  # noqa: E402

from mockserver import MockServer, PromptCache, Reply, make_schema_responder, prompt_token_ids, schema_responder  # noqa: E402

MSGS = [{"role": "system", "content": "You judge agent logs."}, {"role": "user", "content": "Step 3 failed?"}]


def client(srv: MockServer, **kw) -> openai.OpenAI:
    kw.setdefault("max_retries", 0)
    kw.setdefault("timeout", 5.0)
    return openai.OpenAI(base_url=srv.url, api_key="test-key", **kw)


def chat(c, **kw):
    kw.setdefault("model", "judge-1")
    kw.setdefault("messages", MSGS)
    return c.chat.completions.create(**kw)


# ----------------------------------------------------------------- basic round trip
def test_scripted_text_round_trip_with_usage() -> None:
    with MockServer(["Agent B erred at step 3.", {"agent": "B"}]) as srv:
        assert srv.url.startswith("http://127.0.0.1:") and srv.url.endswith("/v1")
        c = client(srv)
        r = chat(c)
        assert r.object == "chat.completion" and r.model == "judge-1"
        assert r.choices[0].message.role == "assistant"
        assert r.choices[0].message.content == "Agent B erred at step 3."
        assert r.choices[0].finish_reason == "stop"
        assert r.usage.prompt_tokens == count_message_tokens(MSGS)  # attrib's own tokenizer
        assert r.usage.completion_tokens == count_tokens("Agent B erred at step 3.")
        assert r.usage.prompt_tokens_details.cached_tokens == 0  # far below the 1,024-token minimum
        assert r.usage.total_tokens == r.usage.prompt_tokens + r.usage.completion_tokens
        # dict items are JSON-encoded; the last script item repeats
        assert json.loads(chat(c).choices[0].message.content) == {"agent": "B"}
        assert json.loads(chat(c).choices[0].message.content) == {"agent": "B"}
        assert srv.count == 3
        req = srv.requests[0]
        assert req.path == "/v1/chat/completions" and req.body["model"] == "judge-1"
        assert req.body["messages"] == MSGS
        assert req.headers["authorization"] == "Bearer test-key"
        assert "test-key" not in repr(req)
        srv.reset()
        assert srv.count == 0 and srv.requests == []


def test_reply_overrides_and_callable_responder() -> None:
    seen: list[str] = []

    def responder(body: dict) -> Reply:
        seen.append(body["model"])
        return Reply(content="ok", prompt_tokens=111, completion_tokens=7, headers={"X-Mock": "1"})

    with MockServer(responder) as srv:
        raw = client(srv).chat.completions.with_raw_response.create(model="m2", messages=MSGS)
        assert raw.headers["x-mock"] == "1"
        r = raw.parse()
        assert (r.usage.prompt_tokens, r.usage.completion_tokens, r.usage.total_tokens) == (111, 7, 118)
        assert seen == ["m2"]


def test_responder_exception_and_stream_become_errors() -> None:
    def broken(body: dict) -> str:
        raise KeyError("oops")

    with MockServer(broken) as srv:
        c = client(srv)
        with pytest.raises(openai.InternalServerError, match="oops"):
            chat(c)
        with pytest.raises(openai.BadRequestError, match="Streaming"):
            chat(c, stream=True)
        assert srv.count == 2


def test_models_endpoint() -> None:
    with MockServer(models=("a", "b")) as srv:
        assert [m.id for m in client(srv).models.list()] == ["a", "b"]
        assert srv.count == 0 and srv.requests[0].method == "GET"


# ----------------------------------------------------------------- prompt cache
LOG = " ".join(f"step {i}: the agent searched the web for item {i} and reported price {i * 7} USD." for i in range(300))


def _common(a: list[int], b: list[int]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def test_repeated_prefix_is_reported_cached_in_128_token_blocks() -> None:
    first = [{"role": "system", "content": "You judge agent logs."}, {"role": "user", "content": LOG + "\nWhich step failed?"}]
    second = [first[0], {"role": "user", "content": LOG + "\nWhich agent failed first, and why?"}]
    with MockServer("ok") as srv:
        c = client(srv)
        r1, r2, r3 = chat(c, messages=first), chat(c, messages=second), chat(c, messages=second)
    ids1, ids2 = prompt_token_ids(first), prompt_token_ids(second)
    assert r1.usage.prompt_tokens == len(ids1) + 2 == count_message_tokens(first)
    assert r1.usage.prompt_tokens_details.cached_tokens == 0  # nothing seen before
    shared = _common(ids1, ids2)
    assert shared > 1024
    assert r2.usage.prompt_tokens_details.cached_tokens == shared // 128 * 128  # whole blocks of the shared prefix
    assert 0 < r2.usage.prompt_tokens - r2.usage.prompt_tokens_details.cached_tokens < 128 + len(ids2) - shared
    assert r3.usage.prompt_tokens_details.cached_tokens == len(ids2) // 128 * 128  # the same prompt again


def test_prompt_cache_minimum_block_and_reset() -> None:
    cache = PromptCache(block=4, minimum=8)
    assert cache.lookup(list(range(20))) == 0
    assert cache.lookup(list(range(10)) + [99] * 10) == 8  # 10 shared tokens: two whole 4-token blocks
    assert cache.lookup(list(range(6)) + [98] * 10) == 0  # 4 cached tokens are below the minimum
    assert cache.lookup([1] + list(range(1, 20))) == 0  # a different first token shares no prefix
    cache.clear()
    assert cache.lookup(list(range(20))) == 0
    with MockServer("ok") as srv:
        c = client(srv)
        msgs = [{"role": "user", "content": LOG}]
        chat(c, messages=msgs)
        assert chat(c, messages=msgs).usage.prompt_tokens_details.cached_tokens > 0
        srv.reset()
        assert chat(c, messages=msgs).usage.prompt_tokens_details.cached_tokens == 0


def test_deepseek_usage_style_and_scripted_cached_tokens() -> None:
    msgs = [{"role": "user", "content": LOG}]
    with MockServer("ok", usage_style="deepseek", cache_block=64) as srv:
        c = client(srv)
        chat(c, messages=msgs)
        extra = chat(c, messages=msgs).usage.model_extra
        n = len(prompt_token_ids(msgs))
        assert extra["prompt_cache_hit_tokens"] == n // 64 * 64
        assert extra["prompt_cache_miss_tokens"] == n + 2 - n // 64 * 64
    with MockServer(Reply(content="ok", prompt_tokens=500, cached_tokens=900)) as srv:
        u = chat(client(srv)).usage
        assert (u.prompt_tokens, u.prompt_tokens_details.cached_tokens) == (500, 500)  # never more than the prompt


# ----------------------------------------------------------------- faults
def test_rate_limited_carries_retry_after() -> None:
    with MockServer([Reply.rate_limited(retry_after=3), "fine"]) as srv:
        c = client(srv)
        with pytest.raises(openai.RateLimitError) as ei:
            chat(c)
        exc = ei.value
        assert exc.status_code == 429
        assert exc.response.headers["retry-after"] == "3"
        assert exc.code == "rate_limit_exceeded" and exc.type == "rate_limit_error"
        assert chat(c).choices[0].message.content == "fine"


def test_server_error_is_internal_server_error() -> None:
    with MockServer([Reply.server_error()]) as srv:
        with pytest.raises(openai.InternalServerError) as ei:
            chat(client(srv))
        assert ei.value.status_code == 500


def test_malformed_json_body() -> None:
    # A 200 with Content-Type application/json and a broken body is NOT turned into
    # an openai.APIError: the SDK lets the json.JSONDecodeError escape as-is.
    with MockServer([Reply.malformed(), Reply.malformed("text/plain"), "ok"]) as srv:
        c = client(srv, max_retries=2)
        with pytest.raises(json.JSONDecodeError) as ei:
            chat(c)
        assert not isinstance(ei.value, openai.APIError)
        assert srv.count == 1  # parsing happens after the retry loop: no retry either
        # With a non-JSON content type the SDK silently returns the raw text (a str!)
        # instead of a ChatCompletion object.
        out = chat(c)
        assert isinstance(out, str) and out.startswith('{"id": "chatcmpl-broken"')
        assert chat(c).choices[0].message.content == "ok"


def test_timeout_then_recovery() -> None:
    with MockServer([Reply.timeout(3.0), "on time"]) as srv:
        c = client(srv, timeout=0.3)
        with pytest.raises(openai.APITimeoutError):
            chat(c)
        assert chat(c).choices[0].message.content == "on time"


def test_stop_does_not_wait_for_sleeping_handlers() -> None:
    srv = MockServer([Reply.timeout(30.0)]).start()
    c = client(srv, timeout=10.0)
    worker = threading.Thread(target=lambda: pytest.raises(openai.APIError, chat, c), daemon=True)
    worker.start()
    while srv.count == 0:
        time.sleep(0.01)
    srv.stop()  # the handler sleeping 30 s wakes up and sends nothing: the client sees a closed connection
    worker.join(timeout=300)  # a bound for a hung test, not a timing assertion (the reply would take 30 s)
    assert not worker.is_alive() and srv.count == 1


# ----------------------------------------------------------------- response_format refusals
SCHEMA_FMT = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object",
              "properties": {"a": {"type": "string"}}, "required": ["a"]}}}


def test_refuse_json_schema_then_fallbacks() -> None:
    with MockServer(refuse_json_schema=True) as srv:
        c = client(srv)
        with pytest.raises(openai.BadRequestError) as ei:
            chat(c, response_format=SCHEMA_FMT)
        assert "json_schema" in ei.value.message and ei.value.status_code == 400
        obj = json.loads(chat(c, response_format={"type": "json_object"}).choices[0].message.content)
        assert set(obj) == {"answer"} and isinstance(obj["answer"], str)
        assert json.loads(chat(c).choices[0].message.content)["answer"]
    with MockServer(refuse_json_object=True) as srv:
        c = client(srv)
        with pytest.raises(openai.BadRequestError):
            chat(c, response_format={"type": "json_object"})
        assert json.loads(chat(c, response_format=SCHEMA_FMT).choices[0].message.content)["a"]


# ----------------------------------------------------------------- schema responder
class Verdict(StrEnum):
    agent = "agent"
    tool = "tool"
    none = "none"


class Evidence(BaseModel):
    step: int = Field(ge=0, le=40)
    quote: str


class Attribution(BaseModel):
    agent: Literal["Orchestrator", "WebSurfer", "Coder"]
    verdict: Verdict
    step: int = Field(ge=3, le=7)
    confidence: float = Field(ge=0.0, le=1.0)
    decisive: bool
    reason: str
    evidence: list[Evidence] = Field(min_length=1, max_length=2)
    note: str | None = None


def schema_fmt(model: type[BaseModel]) -> dict:
    return {"type": "json_schema", "json_schema": {"name": model.__name__, "schema": model.model_json_schema()}}


def test_schema_responder_validates_and_is_deterministic() -> None:
    with MockServer(schema_responder) as srv:
        c = client(srv)
        contents = [chat(c, response_format=schema_fmt(Attribution)).choices[0].message.content for _ in range(2)]
        assert contents[0] == contents[1]
        a = Attribution.model_validate_json(contents[0])
        assert 3 <= a.step <= 7 and 1 <= len(a.evidence) <= 2 and all(0 <= e.step <= 40 for e in a.evidence)
        assert 25 <= len(a.reason.split()) <= 60
        assert all(3 <= len(e.quote.split()) <= 8 for e in a.evidence)
        other = chat(c, response_format=schema_fmt(Attribution),
                     messages=[{"role": "user", "content": "a different log"}]).choices[0].message.content
        Attribution.model_validate_json(other)
        assert other != contents[0]


def test_schema_responder_values_spread_and_seed() -> None:
    respond = make_schema_responder(seed=1, words=(5, 6))
    seen_agents, seen_steps = set(), set()
    for i in range(40):
        body = {"messages": [{"role": "user", "content": f"log {i}"}], "response_format": schema_fmt(Attribution)}
        a = Attribution.model_validate_json(respond(body))
        seen_agents.add(a.agent)
        seen_steps.add(a.step)
        assert 5 <= len(a.reason.split()) <= 6
    assert len(seen_agents) == 3 and seen_steps <= set(range(3, 8)) and len(seen_steps) >= 3
    body = {"messages": MSGS, "response_format": schema_fmt(Attribution)}
    assert make_schema_responder(seed=2)(body) != make_schema_responder(seed=3)(body)


def test_sdk_parse_helper_with_strict_schema() -> None:
    with MockServer() as srv:  # default responder = schema responder
        c = client(srv)
        parse = getattr(c.chat.completions, "parse", None) or c.beta.chat.completions.parse
        r = parse(model="judge-1", messages=MSGS, response_format=Attribution)
        parsed = r.choices[0].message.parsed
        assert isinstance(parsed, Attribution)
        sent = srv.requests[-1].body["response_format"]
        assert sent["type"] == "json_schema" and sent["json_schema"]["strict"] is True


# ----------------------------------------------------------------- concurrency and fault injection
def test_requests_are_served_concurrently() -> None:
    # every handler waits until all eight are in flight at once: a serial server would break the barrier
    barrier = threading.Barrier(8, timeout=300)

    def together(body: dict) -> str:
        barrier.wait()
        return "x"

    with MockServer(together, latency=0.05) as srv:
        c = client(srv, timeout=600)
        with ThreadPoolExecutor(8) as pool:
            outs = list(pool.map(lambda _: chat(c).choices[0].message.content, range(8)))
        assert outs == ["x"] * 8 and srv.count == 8 and not barrier.broken


def test_fault_rate_is_seeded() -> None:
    def run(seed: int) -> tuple[int, list[int]]:
        statuses = []
        with MockServer(["ok"], fault_rate=0.3, seed=seed) as srv:
            c = client(srv)
            for _ in range(50):
                try:
                    chat(c)
                    statuses.append(200)
                except openai.RateLimitError as exc:
                    assert exc.response.headers["retry-after"] == "0"
                    statuses.append(429)
                except openai.InternalServerError:
                    statuses.append(500)
            assert srv.count == 50
            return srv.faults, statuses

    faults, statuses = run(7)
    assert 5 <= faults <= 25 and faults == sum(s != 200 for s in statuses)
    assert {429, 500} <= set(statuses)
    assert run(7) == (faults, statuses)


def test_sdk_retries_recover_from_faults() -> None:
    # The SDK only honours Retry-After values > 0; "0" falls back to its own
    # exponential backoff (0.5 s, 1 s, ... minus up to 25% jitter).
    with MockServer([Reply.rate_limited(0), "done"]) as srv:
        t0 = time.monotonic()
        r = chat(client(srv, max_retries=1))
        assert r.choices[0].message.content == "done" and srv.count == 2
        assert time.monotonic() - t0 >= 0.35
    with MockServer([Reply.server_error(), "done"]) as srv:
        assert chat(client(srv, max_retries=1)).choices[0].message.content == "done"


# ----------------------------------------------------------------- command line
def test_cli_serves_until_interrupted() -> None:
    proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name("mockserver.py")), "--port", "0", "--latency", "0"],
                            stdout=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        c = openai.OpenAI(base_url=url, api_key="k", max_retries=0, timeout=5)
        assert "answer" in json.loads(c.chat.completions.create(model="m", messages=MSGS).choices[0].message.content)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out, _ = proc.communicate(timeout=300)  # generous: a loaded machine can be slow to exit
        finally:
            if proc.poll() is None:  # never leave the server running, even when the test fails
                proc.kill()
                proc.wait()
    assert proc.returncode == 0 and out.split() == ["stopped"]  # only the URL and this are printed
