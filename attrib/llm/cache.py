"""On-disk answer cache (SQLite), keyed by the full request.

The key is a SHA-256 over everything that shapes the answer: backend, model,
base URL, messages, response schema, temperature, seed and output limit. API keys
are not part of a request and are never stored. Location: ``$ATTRIB_CACHE_DIR``
or the user cache directory (``platformdirs``), file ``llm-cache.sqlite3``.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..paths import cache_root


def cache_dir() -> Path:
    return cache_root()


def request_key(request: dict[str, Any]) -> str:
    blob = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class CachedAnswer(BaseModel):
    """An answer as first received, with the usage the provider reported for it then."""

    text: str
    input_tokens: int
    output_tokens: int
    response_mode: str
    cached_input_tokens: int = 0  # answers stored before this field existed read as 0


class Cache:
    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path else cache_dir() / "llm-cache.sqlite3"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, model TEXT, answer TEXT, created REAL)"
        )
        self._db.commit()

    def get(self, key: str) -> CachedAnswer | None:
        with self._lock:
            row = self._db.execute("SELECT answer FROM answers WHERE key = ?", (key,)).fetchone()
        return CachedAnswer.model_validate_json(row[0]) if row else None

    def put(self, key: str, model: str, answer: CachedAnswer) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO answers (key, model, answer, created) VALUES (?, ?, ?, ?)",
                (key, model, answer.model_dump_json(), time.time()),
            )
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
