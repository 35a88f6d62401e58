"""USD prices per 1M tokens, so every answer carries its cost.

The built-in table holds list prices as published by the providers when this
table was written; prices change, so override or extend them in ``attrib.toml``::

    [prices."my-model"]
    input = 0.50    # USD per 1M input tokens
    output = 1.50   # USD per 1M output tokens

A model with no price gets ``cost_usd = None`` (shown as "unknown"), never a guess.
"""

from __future__ import annotations

from pydantic import BaseModel


class Price(BaseModel):
    input: float
    output: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return round((input_tokens * self.input + output_tokens * self.output) / 1_000_000, 8)


BUILTIN_PRICES: dict[str, Price] = {
    "local": Price(input=0.0, output=0.0),
    "gpt-4o": Price(input=2.50, output=10.00),
    "gpt-4o-mini": Price(input=0.15, output=0.60),
    "gpt-4.1": Price(input=2.00, output=8.00),
    "gpt-4.1-mini": Price(input=0.40, output=1.60),
    "gpt-4.1-nano": Price(input=0.10, output=0.40),
    "deepseek-chat": Price(input=0.28, output=0.42),
    "deepseek-reasoner": Price(input=0.28, output=0.42),
}


def price_for(model: str, table: dict[str, Price]) -> Price | None:
    """Exact match first, then the longest table key that prefixes the model name."""
    if model in table:
        return table[model]
    if model.startswith("gguf:"):
        return table.get("local")
    matches = [k for k in table if model.startswith(k)]
    return table[max(matches, key=len)] if matches else None
