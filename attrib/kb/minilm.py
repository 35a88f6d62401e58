"""all-MiniLM-L6-v2 in plain numpy: the query-time path of :mod:`attrib.kb.embed`.

Embedding one question with sentence-transformers means importing torch, transformers and
sentence-transformers first (about 6 s cold on a small machine). This module runs the same
network from the same packaged files instead: the WordPiece tokenizer from ``tokenizer.json``
(the ``tokenizers`` library, a small Rust extension) and the BERT encoder from
``model.safetensors`` (read with numpy, memory-mapped), then mean pooling and L2
normalization, as the model's ``modules.json`` prescribes. Its vectors match
sentence-transformers' to about 1e-6 cosine distance (tests/test_kb.py checks 1e-4).

Building the knowledge base still uses sentence-transformers (:func:`attrib.kb.embed.embed`).
"""

from __future__ import annotations

import json
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError

_DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "I64": np.int64, "I32": np.int32}
_PREFIXES = ("", "bert.", "0.auto_model.", "model.")
_lock = threading.Lock()


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a ``.safetensors`` file as read-only arrays over a memory map (no copy)."""
    with path.open("rb") as fh:
        (size,) = struct.unpack("<Q", fh.read(8))
        header = json.loads(fh.read(size))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + size)
    out: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(info["dtype"])
        if dtype is None:
            raise ConfigError(f"{path}: tensor {name} has unsupported dtype {info['dtype']}")
        start, end = info["data_offsets"]
        out[name] = data[start:end].view(dtype).reshape(info["shape"])
    return out


@dataclass(frozen=True)
class _Layer:
    """One encoder layer's weights as ``(in, out)`` C-contiguous matrices and biases.

    Stored weights are ``(out, in)``; multiplying by a transposed view of the memory map is several
    times slower than by a contiguous copy (BLAS and the memmap subclass), so each is copied once.
    """

    q: tuple[np.ndarray, np.ndarray]
    k: tuple[np.ndarray, np.ndarray]
    v: tuple[np.ndarray, np.ndarray]
    out: tuple[np.ndarray, np.ndarray]
    ln1: tuple[np.ndarray, np.ndarray]
    up: tuple[np.ndarray, np.ndarray]
    down: tuple[np.ndarray, np.ndarray]
    ln2: tuple[np.ndarray, np.ndarray]


def _linear(x: np.ndarray, wb: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    out: np.ndarray = x @ wb[0] + wb[1]
    return out


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to ~1e-7 (Abramowitz & Stegun 7.1.26); numpy has no erf and BERT's GELU is the exact one."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    out: np.ndarray = sign * (1.0 - poly * np.exp(-a * a))
    return out


def _gelu(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = 0.5 * x * (1.0 + _erf(x * np.float32(0.7071067811865476)))
    return out


def _layer_norm(x: np.ndarray, ln: tuple[np.ndarray, np.ndarray], eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    out: np.ndarray = (x - mean) / np.sqrt(var + eps) * ln[0] + ln[1]
    return out


class MiniLM:
    """The BERT encoder + mean pooling + normalization of a sentence-transformers model folder."""

    def __init__(self, folder: Path):
        self.folder = folder
        config = _read_json(folder / "config.json")
        if config.get("model_type", "bert") != "bert" or config.get("hidden_act", "gelu") != "gelu":
            raise ConfigError(f"{folder}: not a BERT model with GELU ({config.get('model_type')}, {config.get('hidden_act')})")
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        st = _read_json(folder / "sentence_bert_config.json") if (folder / "sentence_bert_config.json").is_file() else {}
        self.max_len = int(st.get("max_seq_length") or config.get("max_position_embeddings", 512))
        self._check_modules()
        weights = read_safetensors(_weights_file(folder))
        w = _Weights(weights, folder)
        self.word = np.asarray(w["embeddings.word_embeddings.weight"])  # rows read on demand from the memory map
        self.pos = np.array(w["embeddings.position_embeddings.weight"])
        self.type0 = np.array(w["embeddings.token_type_embeddings.weight"][0])
        self.ln0 = (np.array(w["embeddings.LayerNorm.weight"]), np.array(w["embeddings.LayerNorm.bias"]))
        self.layers = [self._layer(w, f"encoder.layer.{i}.") for i in range(int(config["num_hidden_layers"]))]
        self.tokenizer = _tokenizer(folder, self.max_len)

    def _check_modules(self) -> None:
        """Only the Transformer -> mean Pooling -> Normalize pipeline is reproduced here."""
        modules = _read_json(self.folder / "modules.json") if (self.folder / "modules.json").is_file() else []
        kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules] if isinstance(modules, list) else []
        if kinds and kinds != ["Transformer", "Pooling", "Normalize"]:
            raise ConfigError(f"{self.folder}: unexpected sentence-transformers modules {kinds}")
        pooling = self.folder / "1_Pooling" / "config.json"
        if pooling.is_file() and not _read_json(pooling).get("pooling_mode_mean_tokens", False):
            raise ConfigError(f"{pooling}: only mean pooling is supported")

    @staticmethod
    def _layer(w: _Weights, p: str) -> _Layer:
        def pair(name: str, transpose: bool = True) -> tuple[np.ndarray, np.ndarray]:
            weight, bias = np.asarray(w[f"{p}{name}.weight"]), np.array(w[f"{p}{name}.bias"])
            return (np.ascontiguousarray(weight.T) if transpose else np.array(weight)), bias

        return _Layer(q=pair("attention.self.query"), k=pair("attention.self.key"), v=pair("attention.self.value"),
                      out=pair("attention.output.dense"), ln1=pair("attention.output.LayerNorm", False),
                      up=pair("intermediate.dense"), down=pair("output.dense"), ln2=pair("output.LayerNorm", False))

    def token_ids(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text).ids)

    def encode_one(self, text: str) -> np.ndarray:
        """One text -> a ``(384,)`` float32 unit vector, computed on one BLAS thread (see :func:`_one_blas_thread`)."""
        with _one_blas_thread():
            return self._encode(text)

    def _encode(self, text: str) -> np.ndarray:
        ids = self.token_ids(text)
        x = self.word[ids] + self.pos[: len(ids)] + self.type0
        x = _layer_norm(x, self.ln0, self.eps)
        n, hidden = x.shape
        head = hidden // self.heads
        for layer in self.layers:
            q, k, v = (_linear(x, wb).reshape(n, self.heads, head).transpose(1, 0, 2) for wb in (layer.q, layer.k, layer.v))
            scores = q @ k.transpose(0, 2, 1) / np.float32(np.sqrt(head))
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            ctx = (scores / scores.sum(axis=-1, keepdims=True)) @ v
            x = _layer_norm(_linear(ctx.transpose(1, 0, 2).reshape(n, hidden), layer.out) + x, layer.ln1, self.eps)
            x = _layer_norm(_linear(_gelu(_linear(x, layer.up)), layer.down) + x, layer.ln2, self.eps)
        pooled = x.mean(axis=0)
        norm = np.linalg.norm(pooled)
        vector: np.ndarray = (pooled / norm if norm > 0 else pooled).astype(np.float32)
        return vector


class _Weights:
    """Tensor lookup that tolerates the prefixes different exports put before BERT's names."""

    def __init__(self, tensors: dict[str, np.ndarray], folder: Path):
        self.tensors, self.folder = tensors, folder
        prefix = next((p for p in _PREFIXES if f"{p}embeddings.word_embeddings.weight" in tensors), None)
        if prefix is None:
            raise ConfigError(f"{folder}: model.safetensors holds no BERT embeddings")
        self.prefix: str = prefix

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self.tensors[self.prefix + name]
        except KeyError:
            raise ConfigError(f"{self.folder}: model.safetensors has no tensor {self.prefix + name}") from None


@contextmanager
def _one_blas_thread() -> Iterator[None]:
    """Limit numpy's BLAS to one thread inside the block.

    A query is a few dozen tokens: several OpenBLAS threads gain nothing on it, and on a busy
    machine their spin-waits made one query take ~2 s instead of ~0.03 s. ``threadpoolctl``
    comes with the 'chief' extra; without it the query is only slower, never different.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: cannot read the model file ({exc})") from None


def _weights_file(folder: Path) -> Path:
    path = folder / "model.safetensors"
    if not path.is_file():
        raise ConfigError(f"{folder}: no model.safetensors for the light embedding path")
    return path


def _tokenizer(folder: Path, max_len: int) -> Any:
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise ConfigError(f"the 'tokenizers' package is not importable ({exc})") from None
    path = folder / "tokenizer.json"
    if not path.is_file():
        raise ConfigError(f"{folder}: no tokenizer.json for the light embedding path")
    tok = Tokenizer.from_file(str(path))
    tok.no_padding()
    tok.enable_truncation(max_length=max_len)
    return tok


@lru_cache(maxsize=4)
def load(folder: Path) -> MiniLM:
    """The numpy MiniLM of ``folder``, loaded once per process."""
    with _lock:
        return MiniLM(folder)
