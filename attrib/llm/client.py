"""The one LLM client: every method's call goes through :meth:`LLMClient.ask`.

It (1) estimates the prompt size and refuses a prompt that does not fit the
context window, (2) answers from the SQLite cache when the same request was
made before, (3) otherwise sends it to the backend under a concurrency limit,
retrying rate limits, server errors, timeouts and dropped connections with
exponential backoff and jitter (honouring ``Retry-After``), (4) parses the answer
into a pydantic model and validates it against the log, re-asking ONCE with the
problem stated, and (5) records what it did in a :class:`CallRecord`. An answer
that stays invalid is recorded as invalid: the caller gets ``None``, never a guess.

Two caches, kept apart: ``CallRecord.cached`` says the answer came from attrib's own
disk cache (no request sent, ``cost_usd`` 0); ``CallRecord.cached_input_tokens`` is what
the provider reported as served from *its* prompt cache when the request was sent (a
replayed answer keeps the usage it was first recorded with, so the tokens stay
comparable across runs while its cost stays 0).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from ..attribution import CallRecord
from ..errors import LLMError
from . import backends as _builtin_backends  # noqa: F401  (registers openai, local, mock)
from .backend import BACKENDS, Backend, BackendRequest, BackendResponse, TransientError
from .cache import Cache, CachedAnswer, request_key
from .config import Config, ModelSettings
from .parsing import ParseError, parse_answer
from .pricing import price_for
from .schema import schema_for, schema_hint
from .tokens import SKIPPED, TOKENIZER_NAME, count_message_tokens, preflight

T = TypeVar("T", bound=BaseModel)
Validator = Callable[[Any], list[str]]


class PromptTooLong(LLMError):
    pass


@dataclass
class Answer(Generic[T]):
    value: T | None
    record: CallRecord
    text: str = ""


def make_backend(settings: ModelSettings) -> Backend:
    """Build the registered backend named by ``settings.backend``."""
    return BACKENDS.get(settings.backend).create(settings)


class LLMClient:
    def __init__(self, settings: ModelSettings, *, config: Config | None = None, cache: Cache | None = None,
                 offline: bool = False, backend: Backend | None = None, retry_base_delay: float = 0.5,
                 retry_max_delay: float = 30.0):
        self.settings = settings
        self.config = config or Config()
        self.cache = cache
        self.offline = offline
        self._backend = backend
        self._sem: asyncio.Semaphore | None = None
        self._sem_loop: asyncio.AbstractEventLoop | None = None
        self.retry_base_delay = retry_base_delay
        self.retry_max_delay = retry_max_delay
        self.price = price_for(settings.model, self.config.prices)
        self.notes: list[str] = []

    @property
    def backend(self) -> Backend:
        if self._backend is None:
            self._backend = make_backend(self.settings)
        return self._backend

    async def aclose(self) -> None:
        """Release the backend's connections (call before the event loop that used them ends)."""
        close = getattr(self._backend, "aclose", None)
        if close is not None:
            await close()

    def estimate(self, messages: list[dict[str, str]], answer: type[BaseModel] | dict[str, Any],
                 max_tokens: int | None = None) -> int | None:
        """Pre-flight token count of the prompt as sent (answer-format hint included); None when its size proves it fits."""
        schema = answer if isinstance(answer, dict) else schema_for(answer)
        room = self.settings.context_window - (max_tokens or self.settings.max_output_tokens)
        return preflight(_with_hint(messages, schema), room)

    def warm_up(self) -> None:
        """Load the backend and the tokenizer now (imports, model files), not inside the first timed call."""
        backend = self.backend
        if hasattr(backend, "load"):
            backend.load()
        count_message_tokens([{"role": "user", "content": "warm up"}])

    def fits_estimate(self, estimate: int | None, max_tokens: int | None = None) -> bool:
        return estimate is None or estimate + (max_tokens or self.settings.max_output_tokens) <= self.settings.context_window

    # -- the one entry point -------------------------------------------------
    async def ask(self, *, stage: str, messages: list[dict[str, str]], answer: type[T],
                  schema: dict[str, Any] | None = None, validate: Validator | None = None,
                  max_tokens: int | None = None, truncated: bool = False, estimate: int | None | bool = False) -> Answer[T]:
        """``estimate``: a count from :meth:`estimate` (None = size already proves the fit); False = count here."""
        schema = schema or schema_for(answer)
        limit = max_tokens or self.settings.max_output_tokens
        if estimate is False:
            estimate = preflight(_with_hint(messages, schema), self.settings.context_window - limit)
        messages = _with_hint(messages, schema)
        if estimate is not None and estimate + limit > self.settings.context_window:
            raise PromptTooLong(f"{stage}: prompt of ~{estimate} tokens does not fit the {self.settings.context_window}-token context window")
        record = CallRecord(stage=stage, model=self.settings.model, backend=self.settings.backend,
                            estimated_input_tokens=estimate, tokenizer=TOKENIZER_NAME if estimate is not None else SKIPPED,
                            truncated=truncated,
                            temperature=self.settings.temperature, seed=self.settings.seed)
        started = time.perf_counter()
        cached_all = True
        value: T | None = None
        text, problems = "", list[str]()
        convo = list(messages)
        for round_ in range(2):
            resp, cached = await self._complete(convo, schema, answer.__name__, limit, record)
            cached_all &= cached
            record.input_tokens += resp.input_tokens
            record.cached_input_tokens += resp.cached_input_tokens
            record.output_tokens += resp.output_tokens
            record.response_mode = resp.response_mode
            text = resp.text
            value, problems = _check(text, answer, validate)
            if not problems:
                break
            if round_ == 0:
                record.reasks = 1
                convo = convo + [
                    {"role": "assistant", "content": text},
                    {"role": "user", "content": "That answer cannot be used: " + "; ".join(problems)
                     + ". Answer again with one JSON object that fixes this."},
                ]
        record.cached = cached_all
        record.seconds = round(time.perf_counter() - started, 3)
        if problems:
            record.valid, record.error, value = False, "; ".join(problems)[:500], None
        if self.price is not None:  # what this call paid: an answer from attrib's own cache costs nothing
            record.cost_usd = 0.0 if cached_all else self.price.cost(record.input_tokens, record.output_tokens,
                                                                     record.cached_input_tokens)
        return Answer(value=value, record=record, text=text)

    # -- cache + retries -----------------------------------------------------
    async def _complete(self, messages: list[dict[str, str]], schema: dict[str, Any], name: str, max_tokens: int,
                        record: CallRecord) -> tuple[BackendResponse, bool]:
        request = BackendRequest(messages=messages, schema=schema, schema_name=name, max_tokens=max_tokens,
                                 temperature=self.settings.temperature, seed=self.settings.seed)
        key = ""
        if self.cache is not None:
            key = request_key({**self.backend.cache_identity(), "messages": messages, "schema": schema,
                               "temperature": request.temperature, "seed": request.seed, "max_tokens": max_tokens})
            hit = self.cache.get(key)
            if hit is not None:
                return BackendResponse(hit.text, hit.input_tokens, hit.output_tokens, hit.response_mode,
                                       cached_input_tokens=hit.cached_input_tokens), True
        if self.offline:
            raise LLMError(f"{record.stage}: --offline and this call is not in the cache")
        resp = await self._send(request, record)
        for note in resp.notes:
            if note not in self.notes:
                self.notes.append(note)
        if self.cache is not None:
            self.cache.put(key, self.settings.model, CachedAnswer(text=resp.text, input_tokens=resp.input_tokens,
                                                                  output_tokens=resp.output_tokens,
                                                                  response_mode=resp.response_mode,
                                                                  cached_input_tokens=resp.cached_input_tokens))
        return resp, False

    async def _send(self, request: BackendRequest, record: CallRecord) -> BackendResponse:
        loop = asyncio.get_running_loop()
        if self._sem is None or self._sem_loop is not loop:  # a semaphore is bound to one event loop
            self._sem, self._sem_loop = asyncio.Semaphore(max(1, self.settings.concurrency)), loop
        last = ""
        for attempt in range(self.settings.max_retries + 1):
            record.attempts += 1
            try:
                async with self._sem:
                    return await self.backend.complete(request)
            except TransientError as exc:
                last = str(exc)
                if attempt == self.settings.max_retries:
                    break
                await asyncio.sleep(self._delay(attempt, exc.retry_after))
        raise LLMError(self.redact(f"{record.stage}: gave up after {record.attempts} attempts ({last})"))

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        backoff = min(self.retry_max_delay, self.retry_base_delay * float(2 ** attempt))
        jittered = backoff * (0.5 + random.random() / 2)
        return max(jittered, retry_after) if retry_after is not None else jittered

    def redact(self, text: str) -> str:
        key = self.settings.api_key.get_secret_value() if self.settings.api_key else None
        return text.replace(key, "***") if key and len(key) > 3 else text


def _with_hint(messages: list[dict[str, str]], schema: dict[str, Any]) -> list[dict[str, str]]:
    """Append the answer format to the last user message, in every response mode (keeps keys stable)."""
    out = [dict(m) for m in messages]
    out[-1]["content"] = out[-1]["content"].rstrip() + "\n\n" + schema_hint(schema)
    return out


def _check(text: str, answer: type[T], validate: Validator | None) -> tuple[T | None, list[str]]:
    try:
        value = parse_answer(text, answer)
    except ParseError as exc:
        return None, [str(exc)]
    problems = validate(value) if validate else []
    return value, problems

