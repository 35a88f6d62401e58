"""The one small interface every model backend implements.

A backend sends ONE request and returns the raw answer text with token usage.
Retries, caching, validation and records live in :mod:`attrib.llm.client`; a
backend only says whether a failure is worth retrying (:class:`TransientError`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..registry import Registry

if TYPE_CHECKING:
    from .config import ModelSettings


@dataclass
class BackendRequest:
    messages: list[dict[str, str]]
    schema: dict[str, Any]
    schema_name: str
    max_tokens: int
    temperature: float
    seed: int


@dataclass
class BackendResponse:
    text: str
    input_tokens: int
    output_tokens: int
    response_mode: str
    notes: list[str] = field(default_factory=list)
    #: part of ``input_tokens`` the provider served from its prompt cache (0 when it does not say)
    cached_input_tokens: int = 0


class TransientError(Exception):
    """Rate limit, server error, timeout or dropped connection: retry with backoff."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class Backend(Protocol):
    name: str

    async def complete(self, request: BackendRequest) -> BackendResponse: ...

    def cache_identity(self) -> dict[str, Any]:
        """What besides the request decides the answer (model, endpoint); never secrets."""
        ...


BackendFactory = Callable[["ModelSettings"], Backend]


@dataclass(frozen=True)
class BackendSpec:
    """A registered backend: its name (``ModelSettings.backend``) and how to build one for a model."""

    name: str
    create: BackendFactory
    summary: str = ""


BACKENDS: Registry[BackendSpec] = Registry("backend")


def register_backend(name: str, summary: str = "") -> Callable[[BackendFactory], BackendFactory]:
    """Register the decorated factory as backend ``name``."""

    def register(factory: BackendFactory) -> BackendFactory:
        BACKENDS.register(BackendSpec(name=name, create=factory, summary=summary))
        return factory

    return register
