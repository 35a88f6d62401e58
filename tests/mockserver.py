"""A local OpenAI-compatible chat-completions server for tests and benchmarks.

``attrib`` reaches models through the real ``openai`` SDK.  To run that code path
offline, this module serves ``POST /v1/chat/completions`` and ``GET /v1/models``
on 127.0.0.1 from a background thread and lets the caller choose every answer:
scripted text, schema-valid JSON, latency, 429/500 faults, malformed bodies,
answers slower than the client timeout, or refusals of ``response_format`` modes.
Each request is recorded for assertions.

Usage is counted with attrib's own tokenizer (:mod:`attrib.llm.tokens`), and a repeated
prompt prefix is reported as cached the way providers do (:class:`PromptCache`): OpenAI
style ``usage.prompt_tokens_details.cached_tokens`` by default, or DeepSeek style
``usage.prompt_cache_hit_tokens`` / ``prompt_cache_miss_tokens``.  Example::

    with MockServer(["hello", Reply.rate_limited(2)]) as srv:
        client = openai.OpenAI(base_url=srv.url, api_key="x", max_retries=0)

``python tests/mockserver.py --port 8765 --latency 0.2`` serves the schema
responder from a shell until Ctrl-C.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import threading
import time
import zlib
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from attrib.llm.schema_sample import sample_answer
from attrib.llm.tokens import count_tokens, encode

__all__ = ["MockServer", "PromptCache", "RecordedRequest", "Reply", "make_schema_responder", "schema_responder"]


def _error_json(message: str, type_: str, code: str | None = None) -> str:
    """An error body in the shape the OpenAI API uses."""
    return json.dumps({"error": {"message": message, "type": type_, "param": None, "code": code}})


@dataclass
class Reply:
    """What the server sends for one request, after ``delay`` seconds.

    A raw ``body`` overrides everything; otherwise status 200 wraps ``content`` in
    a chat.completion object and an error status wraps it in an error JSON.
    """

    content: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: str | None = None
    delay: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None  # None: what the server's prompt cache says

    @classmethod
    def error(cls, status: int, message: str, type_: str, code: str | None = None,
              headers: dict[str, str] | None = None) -> Reply:
        """Any status with an OpenAI-style error JSON body."""
        return cls(status=status, headers=dict(headers or {}), body=_error_json(message, type_, code))

    @classmethod
    def rate_limited(cls, retry_after: float = 1) -> Reply:
        """HTTP 429 with a ``Retry-After`` header in seconds."""
        value = str(int(retry_after)) if float(retry_after).is_integer() else str(retry_after)
        return cls.error(429, "Rate limit reached (mock).", "rate_limit_error", "rate_limit_exceeded",
                         {"Retry-After": value})

    @classmethod
    def server_error(cls, message: str = "The server had an error processing your request (mock).") -> Reply:
        """HTTP 500 with an error JSON body."""
        return cls.error(500, message, "server_error", "internal_error")

    @classmethod
    def malformed(cls, content_type: str = "application/json") -> Reply:
        """HTTP 200 whose body is truncated, unparseable JSON."""
        return cls(body='{"id": "chatcmpl-broken", "choices": [{"mess', headers={"Content-Type": content_type})

    @classmethod
    def timeout(cls, seconds: float, content: str = "this answer arrived too late") -> Reply:
        """A normal answer sent only after ``seconds`` (pick more than the client timeout)."""
        return cls(content=content, delay=seconds)


ReplyLike = Reply | str | dict | None
Responder = Callable[[dict], ReplyLike]


@dataclass
class RecordedRequest:
    """One request as received; header names are lower-case and kept out of ``repr``."""

    body: Any
    headers: dict[str, str] = field(repr=False)
    path: str
    time: float
    method: str = "POST"


# ------------------------------------------------------------------ schema responder
def make_schema_responder(seed: int = 0, words: tuple[int, int] = (25, 60)) -> Callable[[dict], str]:
    """A responder answering with JSON valid for the request's ``json_schema``.

    Its RNG is keyed by ``seed`` and a hash of the messages and schema, so one
    request always gets one answer.  Without a json_schema (json_object or text
    mode) it answers ``{"answer": "..."}``.  ``words`` bounds long string fields.
    """

    def respond(body: dict) -> str:
        fmt = body.get("response_format") or {}
        schema = (fmt.get("json_schema") or {}).get("schema") if fmt.get("type") == "json_schema" else None
        return sample_answer(schema if isinstance(schema, dict) else None, [body.get("messages"), schema], seed, words)

    return respond


schema_responder: Callable[[dict], str] = make_schema_responder()


# ------------------------------------------------------------------ usage and prompt cache
def _content_text(message: Any) -> str:
    """The text of one message (a string content or its text parts)."""
    c = message.get("content") if isinstance(message, dict) else None
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "".join(str(p.get("text") or "") for p in c if isinstance(p, dict))
    return ""


def _plain_messages(messages: Any) -> list[dict[str, str]]:
    return [{"role": str(m.get("role") if isinstance(m, dict) else ""), "content": _content_text(m)}
            for m in (messages if isinstance(messages, list) else [])]


_ROLES = {"system": 1, "developer": 2, "user": 3, "assistant": 4, "tool": 5}


def prompt_token_ids(messages: Any) -> list[int]:
    """The prompt as a token sequence: per message 4 framing ids naming its role, then its content's tokens.

    Its length + 2 is :func:`attrib.llm.tokens.count_message_tokens` of the same messages, the
    ``prompt_tokens`` this server reports.
    """
    out: list[int] = []
    for m in _plain_messages(messages):
        role = _ROLES.get(m["role"], 10 + zlib.crc32(m["role"].encode()) % 1000)
        out += [-1, -1 - role, -2, -3]
        out += encode(m["content"])
    return out


class PromptCache:
    """Prefix caching as providers bill it: a prompt's longest prefix, in whole ``block``-token blocks,
    that an earlier request already sent; nothing below ``minimum`` tokens.

    OpenAI caches prompts of 1,024 tokens or more in 128-token increments (the defaults);
    DeepSeek caches in 64-token units. Each block is identified by a hash chained over all
    blocks before it (as vLLM does), so a lookup costs one pass over the prompt.
    """

    def __init__(self, block: int = 128, minimum: int = 1024) -> None:
        self.block, self.minimum = block, minimum
        self._seen: set[bytes] = set()
        self._lock = threading.Lock()

    def _chain(self, ids: list[int]) -> list[bytes]:
        h, out = hashlib.sha256(), []
        for start in range(0, len(ids) - self.block + 1, self.block):
            h.update(array("q", ids[start:start + self.block]).tobytes())
            out.append(h.copy().digest())
        return out

    def lookup(self, ids: list[int]) -> int:
        """Tokens of ``ids`` served from the cache; then remember ``ids`` for later requests."""
        chain = self._chain(ids)
        with self._lock:
            hit = next((i for i, d in enumerate(chain) if d not in self._seen), len(chain))
            self._seen.update(chain)
        cached = hit * self.block
        return cached if cached >= self.minimum else 0

    def clear(self) -> None:
        with self._lock:
            self._seen.clear()


UsageStyle = Literal["openai", "deepseek", "none"]


def _usage(pt: int, ct: int, cached: int, style: UsageStyle) -> dict[str, Any]:
    usage: dict[str, Any] = {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}
    if style == "openai":
        usage["prompt_tokens_details"] = {"cached_tokens": cached, "audio_tokens": 0}
    elif style == "deepseek":
        usage.update(prompt_cache_hit_tokens=cached, prompt_cache_miss_tokens=pt - cached)
    return usage


# ------------------------------------------------------------------ HTTP server


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    mock: MockServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet about clients that time out and hang up; report anything else."""
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    """HTTP/1.0 (one request per connection) by default, so a stopped server keeps no live sockets."""

    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - no request logging
        pass

    def _send(self, status: int, body: str, headers: dict[str, str] | None = None) -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        for k, v in {"Content-Type": "application/json", **(headers or {})}.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _route(self, method: str, body: Any) -> str:
        path = self.path.split("?")[0].rstrip("/")
        kind = "chat" if method == "POST" and path.endswith("/chat/completions") else \
            "models" if method == "GET" and path.endswith("/models") else ""
        self.server.mock._record(RecordedRequest(body, {k.lower(): v for k, v in self.headers.items()},
                                                 self.path, time.time(), method), kind == "chat")
        if not kind:
            self._send(404, _error_json(f"Unknown path {self.path}", "invalid_request_error", "not_found"))
        return kind

    def do_GET(self) -> None:  # noqa: N802
        if self._route("GET", None):
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "attrib"} for m in self.server.mock.models]
            self._send(200, json.dumps({"object": "list", "data": data}))

    def do_POST(self) -> None:  # noqa: N802
        mock = self.server.mock
        try:
            body: Any = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"null")
        except ValueError:
            body = None
        if not self._route("POST", body):
            return
        if not isinstance(body, dict) or body.get("stream"):
            why = "Streaming is not supported" if isinstance(body, dict) else "Request body is not a JSON object"
            return self._send(400, _error_json(f"{why} (mock).", "invalid_request_error"))
        reply = mock._decide(body)
        if not mock._stopping.wait(mock.latency + reply.delay):  # a stopping server sends nothing
            self._send(*mock._render(body, reply))


class MockServer:
    """OpenAI-compatible chat-completions server on 127.0.0.1, served from a daemon thread.

    ``responder`` is a callable ``body -> Reply | str | dict`` or a script: a list of
    such values (or callables) used in order, its last element repeating.  It
    defaults to the schema responder.  ``fault_rate`` replaces that share of chat
    requests (seeded by ``seed``) with a 429 (``Retry-After: 0``) or a 500.
    ``usage_style`` says how cached prompt tokens are reported (``"none"``: not at all);
    ``cache_block`` / ``cache_min`` shape the :class:`PromptCache`.
    """

    def __init__(self, responder: Responder | list[Any] | None = None, *, latency: float = 0.0,
                 fault_rate: float = 0.0, seed: int = 0, refuse_json_schema: bool = False,
                 refuse_json_object: bool = False, models: tuple[str, ...] = ("mock-model",),
                 port: int = 0, keep_alive: bool = False, usage_style: UsageStyle = "openai",
                 cache_block: int = 128, cache_min: int = 1024) -> None:
        """``keep_alive``: speak HTTP/1.1 and keep connections open, as real endpoints do (for benchmarks)."""
        self.keep_alive = keep_alive
        self.usage_style = usage_style
        self.prompt_cache = PromptCache(cache_block, cache_min)
        self.responder = responder if responder is not None else make_schema_responder(seed)
        self.latency, self.fault_rate, self.models, self.port = latency, fault_rate, models, port
        self.refuse_json_schema, self.refuse_json_object = refuse_json_schema, refuse_json_object
        self.faults = self._count = self._script_pos = 0
        self._rng, self._lock, self._stopping = random.Random(seed), threading.Lock(), threading.Event()
        self._requests: list[RecordedRequest] = []
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> MockServer:
        """Bind 127.0.0.1 (a free port unless ``port`` was given) and start serving."""
        if self._httpd is None:
            self._stopping.clear()
            handler = type("_KeepAliveHandler", (_Handler,), {"protocol_version": "HTTP/1.1"}) if self.keep_alive else _Handler
            self._httpd = _Server(("127.0.0.1", self.port), handler)
            self._httpd.mock, self.port = self, self._httpd.server_address[1]
            self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,),
                                            name=f"attrib-mockserver-{self.port}", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; handlers still sleeping wake up and send nothing."""
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            self._stopping.set()
            httpd.shutdown()
            httpd.server_close()
            if self._thread is not None:
                self._thread.join(timeout=5)

    def __enter__(self) -> MockServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """Base URL for ``openai.OpenAI(base_url=...)``, ending in ``/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received (chat and others)."""
        with self._lock:
            return list(self._requests)

    @property
    def count(self) -> int:
        """Number of chat-completion requests received, faulted ones included."""
        with self._lock:
            return self._count

    def reset(self) -> None:
        """Forget recorded requests, the fault count, the script position and the prompt cache."""
        with self._lock:
            self._requests.clear()
            self.faults = self._count = self._script_pos = 0
        self.prompt_cache.clear()

    def _record(self, req: RecordedRequest, chat: bool) -> None:
        with self._lock:
            self._requests.append(req)
            self._count += chat

    def _decide(self, body: dict) -> Reply:
        """Choose the Reply: an injected fault, a response_format refusal, or the responder's."""
        with self._lock:
            if self.fault_rate > 0 and self._rng.random() < self.fault_rate:
                self.faults += 1
                return Reply.rate_limited(0) if self._rng.random() < 0.5 else Reply.server_error()
        fmt = (body.get("response_format") or {}).get("type")
        if (fmt == "json_schema" and self.refuse_json_schema) or (fmt == "json_object" and self.refuse_json_object):
            return Reply.error(400, f"response_format type '{fmt}' is not supported by this server (mock).",
                               "invalid_request_error", "unsupported_response_format")
        item: Any = self.responder
        if isinstance(item, (list, tuple)):
            with self._lock:
                item = item[min(self._script_pos, len(item) - 1)] if item else None
                self._script_pos += 1
        try:
            item = item(body) if callable(item) else item
        except Exception as exc:  # surface responder bugs to the client as a 500
            return Reply.error(500, f"mock responder raised {exc!r}", "server_error", "responder_error")
        if isinstance(item, Reply):
            return item
        return Reply(content=json.dumps(item) if isinstance(item, dict) else "" if item is None else str(item))

    def _render(self, body: dict, reply: Reply) -> tuple[int, str, dict[str, str]]:
        """Turn a Reply into (status, body text, headers)."""
        if reply.body is not None:
            return reply.status, reply.body, reply.headers
        content = reply.content or ""
        if reply.status >= 400:
            return reply.status, _error_json(content or "mock error", "invalid_request_error"), reply.headers
        ids = prompt_token_ids(body.get("messages"))
        cached = self.prompt_cache.lookup(ids)  # every answered prompt fills the cache, as providers do
        pt = reply.prompt_tokens if reply.prompt_tokens is not None else len(ids) + 2
        cached = min(pt, reply.cached_tokens if reply.cached_tokens is not None else cached)
        ct = reply.completion_tokens if reply.completion_tokens is not None else count_tokens(content)
        return reply.status, json.dumps({
            "id": f"chatcmpl-mock{self.count:06d}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model") or self.models[0],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "logprobs": None, "finish_reason": "stop"}],
            "usage": _usage(pt, ct, cached, self.usage_style),
        }), reply.headers


def main(argv: list[str] | None = None) -> None:
    """Command line: serve the schema responder until Ctrl-C."""
    p = argparse.ArgumentParser(prog="python tests/mockserver.py", description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--latency", type=float, default=0.0, help="seconds to wait before every answer")
    p.add_argument("--fault-rate", type=float, default=0.0, help="share of requests failing with 429/500")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--refuse-json-schema", action="store_true")
    p.add_argument("--refuse-json-object", action="store_true")
    a = p.parse_args(argv)
    with MockServer(latency=a.latency, fault_rate=a.fault_rate, seed=a.seed, port=a.port,
                    refuse_json_schema=a.refuse_json_schema, refuse_json_object=a.refuse_json_object) as srv:
        print(srv.url, flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            print("stopped", flush=True)


if __name__ == "__main__":
    main()
