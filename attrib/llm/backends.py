"""The built-in model backends, registered by name. A backend's heavy imports happen when it is built.

``openai``: any OpenAI-compatible endpoint; ``local``: a GGUF model in process (llama-cpp-python);
``mock``: schema-valid sample answers in process, for a zero-cost dry run of a pipeline.
"""

from __future__ import annotations

from .backend import Backend, register_backend
from .config import ModelSettings


@register_backend("openai", "any OpenAI-compatible endpoint, through the openai SDK")
def _openai(settings: ModelSettings) -> Backend:
    from .openai_backend import OpenAIBackend

    return OpenAIBackend(settings)


@register_backend("local", "a GGUF model in this process (llama-cpp-python); the default demo is SmolLM2-135M")
def _local(settings: ModelSettings) -> Backend:
    from .local_backend import LocalBackend

    return LocalBackend(settings)


@register_backend("mock", "schema-valid sample answers, no model: a zero-cost dry run")
def _mock(settings: ModelSettings) -> Backend:
    from .mock_backend import MockBackend

    return MockBackend(settings)
