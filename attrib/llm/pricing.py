"""USD prices per 1M tokens, so every answer carries its cost.

Providers bill a prompt prefix they have seen recently (their *prompt cache*) at a
lower price: OpenAI reports those tokens as ``usage.prompt_tokens_details.cached_tokens``,
DeepSeek as ``usage.prompt_cache_hit_tokens``. They are part of ``prompt_tokens``, so
one call costs::

    (input - cached) * input + cached * cached_input + output * output      (per 1M tokens)

The built-in table holds list prices as published by the providers when this table
was written; prices change, so override or extend them in ``attrib.toml``::

    [prices."my-model"]
    input = 0.50          # USD per 1M input tokens
    cached_input = 0.05   # USD per 1M input tokens served from the provider's prompt cache
    output = 1.50         # USD per 1M output tokens

``cached_input`` may be left out: cached tokens are then billed at the full ``input``
price (no discount is assumed). A model with no price gets ``cost_usd = None``
(shown as "unknown"), never a guess.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, model_validator


class Price(BaseModel):
    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cached_input: float | None = Field(None, ge=0, description="USD per 1M prompt-cache hits; None = the input price")

    @model_validator(mode="after")
    def _fill_cached(self) -> Price:
        if self.cached_input is None:
            self.cached_input = self.input
        return self

    def cost(self, input_tokens: int, output_tokens: int, cached_input_tokens: int = 0) -> float:
        """USD of one call; ``cached_input_tokens`` is the part of ``input_tokens`` served from the prompt cache."""
        cached = max(0, min(cached_input_tokens, input_tokens))
        cached_price = self.input if self.cached_input is None else self.cached_input
        usd = (input_tokens - cached) * self.input + cached * cached_price + output_tokens * self.output
        return round(usd / 1_000_000, 8)


BUILTIN_PRICES: dict[str, Price] = {
    "local": Price(input=0.0, cached_input=0.0, output=0.0),
    "mock": Price(input=0.0, cached_input=0.0, output=0.0),
    "gpt-4o": Price(input=2.50, cached_input=1.25, output=10.00),
    "gpt-4o-mini": Price(input=0.15, cached_input=0.075, output=0.60),
    "gpt-4.1": Price(input=2.00, cached_input=0.50, output=8.00),
    "gpt-4.1-mini": Price(input=0.40, cached_input=0.10, output=1.60),
    "gpt-4.1-nano": Price(input=0.10, cached_input=0.025, output=0.40),
    "deepseek-chat": Price(input=0.28, cached_input=0.028, output=0.42),
    "deepseek-reasoner": Price(input=0.28, cached_input=0.028, output=0.42),
}


# In-process backends are priced by exact name only: "mock-model" on an endpoint is not the free mock.
_EXACT_ONLY = frozenset({"local", "mock"})


def price_for(model: str, table: dict[str, Price]) -> Price | None:
    """Exact match first, then the longest table key that prefixes the model name."""
    if model in table:
        return table[model]
    if model.startswith("gguf:"):
        return table.get("local")
    matches = [k for k in table if model.startswith(k) and k not in _EXACT_ONLY]
    return table[max(matches, key=len)] if matches else None
