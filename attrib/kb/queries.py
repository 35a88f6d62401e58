"""Query embeddings at attribution time: the light numpy path, cached in the knowledge-base folder.

CHIEF embeds one question per case. :func:`embed_query` answers from
``<kb folder>/queries/<sha256>.npy`` when that question was embedded before, else runs
all-MiniLM-L6-v2 through :mod:`attrib.kb.minilm` (no torch import) and saves the vector.
When that path cannot run the packaged model (files missing, another architecture), the
question is embedded by sentence-transformers instead, with a warning: the same vector,
only slower to start.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import warnings
from functools import cache
from pathlib import Path

import numpy as np

from ..errors import ConfigError
from .embed import DIM, MODEL_NAME, embed_one, model_path

QUERY_DIR = "queries"


def query_key(text: str) -> str:
    """Cache key of a query: sha256 over the model name and the text."""
    return hashlib.sha256(f"{MODEL_NAME}\0{text}".encode()).hexdigest()


def light_embed(text: str) -> np.ndarray:
    """``text`` embedded by the numpy MiniLM; by sentence-transformers when the numpy path cannot run this model."""
    from . import minilm

    try:
        model = minilm.load(model_path())
    except ConfigError as exc:
        _warn_once(f"query embedded by sentence-transformers (slower start): {exc}")
        return embed_one(text)
    return model.encode_one(text)


@cache
def _warn_once(message: str) -> None:
    warnings.warn(message, RuntimeWarning, stacklevel=3)


def _read(path: Path) -> np.ndarray | None:
    try:
        vec = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        return None  # absent or half-written by a killed process: embed again
    return vec.astype(np.float32, copy=False) if vec.shape == (DIM,) else None


def _write(path: Path, vec: np.ndarray) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".q.", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            np.save(fh, vec, allow_pickle=False)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only knowledge-base folder only loses the cache


def embed_query(text: str, kb_folder: Path | None = None) -> np.ndarray:
    """One query as a ``(384,)`` float32 unit vector, cached under ``kb_folder/queries`` when given."""
    path = kb_folder / QUERY_DIR / f"{query_key(text)}.npy" if kb_folder is not None else None
    if path is not None:
        cached = _read(path)
        if cached is not None:
            return cached
    vec = light_embed(text)
    if path is not None:
        _write(path, vec)
    return vec
