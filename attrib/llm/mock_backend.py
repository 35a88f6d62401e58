"""The ``mock`` backend: answers every request in process with a schema-valid sample, at no cost.

Use it to dry-run a pipeline (``--model mock``): every stage, prompt, cache and record runs for
real, but the answers are samples chosen by a seeded RNG, not judgments, and the attribution says so.
Token counts are the project tokenizer's estimates of the prompt and the answer.
"""

from __future__ import annotations

from typing import Any

from .backend import BackendRequest, BackendResponse
from .config import ModelSettings
from .schema_sample import sample_answer
from .tokens import count_message_tokens, count_tokens

MOCK_NOTICE = ("answered by the mock backend: schema-valid samples from a seeded RNG, not a model's judgment "
               "(a dry run of the pipeline; use --model/--base-url for a real LLM)")


class MockBackend:
    name = "mock"

    def __init__(self, settings: ModelSettings) -> None:
        self.settings = settings

    async def complete(self, request: BackendRequest) -> BackendResponse:
        text = sample_answer(request.schema, [request.messages, request.schema], seed=request.seed, words=(8, 20))
        return BackendResponse(text=text, input_tokens=count_message_tokens(request.messages),
                               output_tokens=count_tokens(text), response_mode="json_schema", notes=[MOCK_NOTICE])

    def cache_identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.settings.model}
