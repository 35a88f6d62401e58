"""Query embeddings at attribution time: the numpy MiniLM matches sentence-transformers, the cache, lazy imports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attrib.errors import ConfigError
from attrib.kb import minilm
from attrib.kb.embed import DIM, embed, model_path
from attrib.kb.queries import QUERY_DIR, embed_query, light_embed, query_key
from attrib.readers import iter_log_paths, load_log

from conftest import WHO_AND_WHEN

ROOT = Path(__file__).resolve().parents[1]
TEXTS = [
    "How many studio albums did the singer publish between 2000 and 2009?",
    "x",
    "",
    "Ünïcödé, emoji 🚀 and 漢字 in one question?",
    "a long question that runs past the model's 256-token window " * 40,  # truncated the same way
]


def _light(texts: list[str]) -> np.ndarray:
    return np.stack([light_embed(t) for t in texts])


def test_numpy_minilm_matches_sentence_transformers() -> None:
    questions = [c.question for c in (load_log(p) for p in iter_log_paths([WHO_AND_WHEN])) if c.question][:12]
    texts = TEXTS + questions
    light, reference = _light(texts), embed(texts)
    assert light.shape == reference.shape == (len(texts), DIM) and light.dtype == np.float32
    cosine = np.sum(light * reference, axis=1)
    assert np.all(1.0 - cosine < 1e-4), cosine
    assert np.allclose(np.linalg.norm(light, axis=1), 1.0, atol=1e-5)
    model = minilm.load(model_path())
    assert len(model.token_ids(TEXTS[-1])) == model.max_len == 256


def test_query_cache_is_keyed_by_text_and_survives_a_damaged_file(tmp_path: Path) -> None:
    vec = embed_query(TEXTS[0], tmp_path)
    path = tmp_path / QUERY_DIR / f"{query_key(TEXTS[0])}.npy"
    assert path.is_file() and np.array_equal(np.load(path), vec)
    np.save(path, np.full(DIM, 7.0, dtype=np.float32))  # what the cache holds is what is returned...
    assert float(embed_query(TEXTS[0], tmp_path)[0]) == 7.0
    path.write_bytes(b"\x93NUMPY half")  # ...and a half-written file is embedded again
    assert np.allclose(embed_query(TEXTS[0], tmp_path), vec)
    assert query_key(TEXTS[0]) != query_key(TEXTS[0] + " ")
    assert not np.allclose(embed_query(TEXTS[1], tmp_path), vec)
    assert len(list((tmp_path / QUERY_DIR).glob("*.npy"))) == 2


def test_light_path_refuses_a_model_it_does_not_reproduce(tmp_path: Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    for name in ("config.json", "tokenizer.json", "model.safetensors", "sentence_bert_config.json"):
        (folder / name).symlink_to(model_path() / name)
    (folder / "modules.json").write_text(json.dumps([{"type": "sentence_transformers.models.Transformer"},
                                                     {"type": "sentence_transformers.models.Dense"}]))
    with pytest.raises(ConfigError, match="modules"):
        minilm.MiniLM(folder)


def test_query_embedding_does_not_import_torch(tmp_path: Path) -> None:
    code = ("import sys; from pathlib import Path; from attrib.kb.queries import embed_query; "
            f"v = embed_query('Which agent failed?', Path({str(tmp_path)!r})); "
            "print(v.shape, 'torch' in sys.modules, 'sentence_transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert out.stdout.split() == ["(384,)", "False", "False"]


def test_a_model_the_numpy_path_refuses_is_embedded_by_sentence_transformers(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(folder: Path) -> minilm.MiniLM:
        raise ConfigError(f"{folder}: unexpected sentence-transformers modules ['Transformer', 'Dense']")

    monkeypatch.setattr(minilm, "load", refuse)
    with pytest.warns(RuntimeWarning, match="sentence-transformers"):
        vec = light_embed(TEXTS[0])
    assert np.allclose(vec, embed([TEXTS[0]])[0], atol=1e-6)
