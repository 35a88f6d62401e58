"""Any OpenAI-compatible endpoint (OpenAI, DeepSeek, vLLM, Ollama, llama.cpp server) via the ``openai`` SDK.

Structured output is asked for as ``response_format={"type": "json_schema", ...}``.
An endpoint that refuses it (HTTP 400/422 naming the response format) is asked
again with ``json_object``, then with plain text; the mode that worked is kept
for later calls. The SDK's own retries are off: :mod:`attrib.llm.client` retries.
"""

from __future__ import annotations

import asyncio
from typing import Any

import openai

from ..errors import LLMError
from .backend import BackendRequest, BackendResponse, TransientError
from .config import ModelSettings

MODES = ("json_schema", "json_object", "text")


def _retry_after(exc: openai.APIStatusError) -> float | None:
    headers = exc.response.headers if exc.response is not None else {}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value:
            try:
                return max(0.0, float(value) * scale)
            except ValueError:
                continue
    return None


def _refuses_format(exc: openai.APIStatusError) -> bool:
    if exc.status_code not in (400, 415, 422, 501):
        return False
    text = str(exc).lower()
    return any(w in text for w in ("response_format", "json_schema", "json_object", "response format", "not supported"))


class OpenAIBackend:
    name = "openai"

    def __init__(self, settings: ModelSettings):
        self.settings = settings
        self._client: openai.AsyncOpenAI | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
        self._mode = 0

    def _sdk(self) -> openai.AsyncOpenAI:
        """The SDK client of the running event loop: pooled keep-alive connections must not outlive their loop."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            key = self.settings.api_key.get_secret_value() if self.settings.api_key else "not-needed"
            self._client = openai.AsyncOpenAI(base_url=self.settings.base_url, api_key=key,
                                              timeout=self.settings.timeout, max_retries=0)
            self._client_loop = loop
        return self._client

    async def aclose(self) -> None:
        """Close the SDK client's connections while its event loop still runs."""
        if self._client is not None and self._client_loop is asyncio.get_running_loop():
            await self._client.close()
        self._client = self._client_loop = None

    def cache_identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.settings.model, "base_url": self.settings.base_url or "api.openai.com"}

    def _format(self, mode: str, request: BackendRequest) -> dict[str, Any] | None:
        if mode == "json_schema":
            return {"type": "json_schema", "json_schema": {"name": request.schema_name, "schema": request.schema, "strict": True}}
        if mode == "json_object":
            return {"type": "json_object"}
        return None

    async def complete(self, request: BackendRequest) -> BackendResponse:
        notes: list[str] = []
        while True:
            mode = MODES[self._mode]
            # The messages travel in ``extra_body``, which the SDK merges into the JSON body as is: the request
            # sent is the same, but the SDK does not walk a prompt of up to ~300 KB with its TypedDict
            # transformer on every call (about a tenth of the evaluate throughput on Who&When).
            kwargs: dict[str, Any] = dict(model=self.settings.model, messages=[], extra_body={"messages": request.messages},
                                          temperature=request.temperature, seed=request.seed, max_tokens=request.max_tokens)
            fmt = self._format(mode, request)
            if fmt:
                kwargs["response_format"] = fmt
            try:
                resp = await self._sdk().chat.completions.create(**kwargs)
            except openai.APIStatusError as exc:
                if _refuses_format(exc) and self._mode < len(MODES) - 1:
                    self._mode += 1
                    notes.append(f"endpoint refused response_format={mode}; using {MODES[self._mode]}")
                    continue
                if exc.status_code == 429 or exc.status_code >= 500 or exc.status_code == 408:
                    raise TransientError(f"HTTP {exc.status_code}", _retry_after(exc)) from None
                raise LLMError(f"endpoint answered HTTP {exc.status_code}: {_short(exc)}") from None
            except (openai.APITimeoutError, openai.APIConnectionError) as exc:
                raise TransientError(type(exc).__name__) from None
            except openai.APIResponseValidationError as exc:
                raise TransientError(f"malformed response body ({type(exc).__name__})") from None
            except (ValueError, TypeError) as exc:  # body that is not JSON
                raise TransientError(f"malformed response body ({type(exc).__name__})") from None
            return self._response(resp, mode, notes)

    @staticmethod
    def _response(resp: Any, mode: str, notes: list[str]) -> BackendResponse:
        if isinstance(resp, str) or not getattr(resp, "choices", None):
            raise TransientError("malformed response body (no choices)")
        text = resp.choices[0].message.content or ""
        usage = getattr(resp, "usage", None)
        input_tokens = _count(usage, "prompt_tokens")
        return BackendResponse(
            text=text,
            input_tokens=input_tokens,
            output_tokens=_count(usage, "completion_tokens"),
            response_mode=mode,
            notes=notes,
            cached_input_tokens=min(cached_tokens(usage), input_tokens),
        )


def _field(obj: Any, name: str) -> Any:
    """``obj.name`` for SDK models (declared or extra fields) and plain dicts alike; None when absent."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "model_extra", None) or {}
        value = extra.get(name) if isinstance(extra, dict) else None
    return value


def _count(obj: Any, name: str) -> int:
    value = _field(obj, name)
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else 0


def cached_tokens(usage: Any) -> int:
    """Prompt tokens the provider served from its prompt cache.

    OpenAI (and vLLM, xAI, ...) report ``usage.prompt_tokens_details.cached_tokens``;
    DeepSeek reports ``usage.prompt_cache_hit_tokens``. Absent: 0.
    """
    details = _count(_field(usage, "prompt_tokens_details"), "cached_tokens")
    return details or _count(usage, "prompt_cache_hit_tokens")


def _short(exc: openai.APIStatusError) -> str:
    body = exc.body if isinstance(exc.body, dict) else {}
    err = body.get("error", body) if isinstance(body, dict) else {}
    msg = err.get("message") if isinstance(err, dict) else None
    return (msg or str(exc.message))[:200]
