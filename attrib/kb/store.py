"""Building, saving and loading the knowledge base (a faiss inner-product index).

Layout of a knowledge-base folder::

    manifest.json    model, dim, entry_count, sources {name: path, sha256, entries}, built_at, build_seconds
    index.faiss      IndexFlatIP over the L2-normalized embeddings of each entry's text
    questions.npy    L2-normalized embeddings of each entry's question alone (own-task filter)
    entries.jsonl    the entries, in index order

The folder is, by precedence: the explicit ``directory`` argument, ``$ATTRIB_CACHE_DIR/kb``,
``platformdirs.user_cache_dir("attrib")/kb``. The manifest is written last, so a folder
without one is treated as not built. :func:`build` rebuilds only when a source file's
sha256 changed (or ``force``); otherwise it loads what is saved.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError, InputError
from ..paths import cache_root
from .embed import DIM, MODEL_NAME, embed
from .entries import READERS, KBEntry
from .retrieve import Hit, search
from .runs import folder_sha256, read_runs

#: the source holding the user's own solved runs (a folder, see attrib.kb.runs)
RUNS = "runs"
#: every source, in the order its entries are stored
SOURCE_NAMES = (*READERS, RUNS)

FORMAT_VERSION = 1
MANIFEST = "manifest.json"
INDEX = "index.faiss"
QUESTIONS = "questions.npy"
ENTRIES = "entries.jsonl"
BUILD_HINT = "build one with: attrib kb build --gaia FILE --assistantbench FILE [--from-runs DIR]"


# KnowledgeBase.default() results per folder, with the manifest mtime they were loaded at
_DEFAULT_CACHE: dict[Path, tuple[int, KnowledgeBase]] = {}


def _faiss() -> Any:
    try:
        import faiss
    except ImportError:
        raise ConfigError("faiss is not installed; install the 'chief' extra: pip install 'attrib[chief]'") from None
    return faiss


def kb_dir(directory: str | Path | None = None) -> Path:
    """Where the knowledge base lives (see the module docstring for the precedence)."""
    if directory is not None:
        return Path(directory).expanduser()
    return cache_root() / "kb"


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    return digest.hexdigest()


@dataclass
class KnowledgeBase:
    """Entries plus their embeddings, ready for similarity search."""

    entries: list[KBEntry]
    index: Any  # faiss.IndexFlatIP
    question_vectors: np.ndarray
    manifest: dict[str, Any]
    directory: Path
    rebuilt: bool = False
    _by_id: dict[str, KBEntry] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_id = {e.id: e for e in self.entries}

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, entry_id: str) -> KBEntry | None:
        """The entry with this id, or None."""
        return self._by_id.get(entry_id)

    def search(self, text: str, k: int = 5) -> list[Hit]:
        """The ``k`` entries most similar to ``text``, best first."""
        return search(self, text, k)

    @property
    def sources(self) -> dict[str, dict[str, Any]]:
        """Per-source manifest records: ``{name: {path, sha256, entries}}``."""
        return dict(self.manifest.get("sources", {}))

    @classmethod
    def default(cls, directory: str | Path | None = None) -> KnowledgeBase:
        """The saved knowledge base, refreshed from its remembered sources if they changed.

        Raises ConfigError when none has been built yet. The loaded base is kept for the
        process (until its manifest changes), so calling this once per case is cheap.
        """
        folder = kb_dir(directory)
        try:
            stamp = (folder / MANIFEST).stat().st_mtime_ns
        except OSError:
            stamp = None
        cached = _DEFAULT_CACHE.get(folder)
        kb = cached[1] if cached is not None and stamp is not None and cached[0] == stamp else load(folder)
        if kb is None:
            raise ConfigError(f"no knowledge base in {folder}; {BUILD_HINT}")
        remembered = {name: Path(rec["path"]) for name, rec in kb.sources.items() if rec.get("path")}
        if remembered and all(p.exists() for p in remembered.values()):
            changed = any(source_sha256(n, p) != kb.sources[n].get("sha256") for n, p in remembered.items())
            if changed:
                kb = build(remembered.get("gaia"), remembered.get("assistantbench"), directory=folder,
                           runs=remembered.get("runs"))
        _DEFAULT_CACHE[folder] = ((folder / MANIFEST).stat().st_mtime_ns, kb)
        return kb


def _write_atomic(path: Path, write: Any) -> None:
    """Write through a temporary file in the same folder, then rename over ``path``."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _save_array(path: Path, array: np.ndarray) -> None:
    with path.open("wb") as handle:  # a handle, so numpy does not append another ".npy"
        np.save(handle, array, allow_pickle=False)


def _save(directory: Path, entries: list[KBEntry], index: Any, qvecs: np.ndarray, manifest: dict[str, Any]) -> None:
    faiss = _faiss()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        (directory / MANIFEST).unlink(missing_ok=True)  # the folder is invalid until the manifest is back
        _write_atomic(directory / INDEX, lambda p: faiss.write_index(index, str(p)))
        _write_atomic(directory / QUESTIONS, lambda p: _save_array(p, qvecs))
        lines = "".join(e.model_dump_json() + "\n" for e in entries)
        _write_atomic(directory / ENTRIES, lambda p: p.write_text(lines, encoding="utf-8"))
        text = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
        _write_atomic(directory / MANIFEST, lambda p: p.write_text(text, encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot write the knowledge base to {directory}: {exc.strerror or exc}") from None


def load(directory: str | Path | None = None) -> KnowledgeBase | None:
    """The saved knowledge base, or None when none was built there.

    Raises ConfigError when a manifest exists but the folder is damaged or was built
    with another model.
    """
    folder = kb_dir(directory)
    manifest_path = folder / MANIFEST
    if not manifest_path.is_file():
        return None
    damaged = f"knowledge base in {folder} is damaged"
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if not isinstance(manifest, dict):
            raise TypeError("manifest is not an object")
        entries = [KBEntry.model_validate_json(line) for line in (folder / ENTRIES).read_text(encoding="utf-8").splitlines() if line.strip()]
        qvecs = np.load(folder / QUESTIONS, allow_pickle=False).astype(np.float32, copy=False)
        index = _faiss().read_index(str(folder / INDEX))
    except ConfigError:
        raise
    except Exception as exc:  # noqa: BLE001 - any unreadable file means the folder is damaged
        raise ConfigError(f"{damaged} ({type(exc).__name__}: {exc}); rebuild with: attrib kb build --force ...") from None
    if manifest.get("model") != MODEL_NAME or manifest.get("dim") != DIM:
        raise ConfigError(f"knowledge base in {folder} was built with {manifest.get('model')!r}; rebuild with --force")
    count = manifest.get("entry_count")
    if not (count == len(entries) == index.ntotal == qvecs.shape[0]) or qvecs.shape[1:] != (DIM,):
        raise ConfigError(f"{damaged} (entry counts disagree); rebuild with: attrib kb build --force ...")
    return KnowledgeBase(entries=entries, index=index, question_vectors=qvecs, manifest=manifest, directory=folder)


def _source_paths(gaia: str | Path | None, assistantbench: str | Path | None,
                  runs: str | Path | None = None) -> dict[str, Path]:
    given = {"gaia": gaia, "assistantbench": assistantbench, RUNS: runs}
    paths = {name: Path(p).expanduser().resolve() for name, p in given.items() if p is not None}
    if not paths:
        raise ConfigError(f"no knowledge-base source given; {BUILD_HINT}")
    for name, path in paths.items():
        if name == RUNS and not path.is_dir():
            raise InputError(path, "no such directory" if not path.exists() else "not a directory")
        if name != RUNS and not path.is_file():
            raise InputError(path, "no such file" if not path.exists() else "not a file")
    return paths


def source_sha256(name: str, path: Path) -> str:
    """The digest a source is remembered by: the file's bytes, or for the runs folder all its log files."""
    return folder_sha256(path) if name == RUNS else sha256_file(path)


def _read_source(name: str, path: Path) -> list[KBEntry]:
    return read_runs(path).entries if name == RUNS else READERS[name](path)


def _reusable(kb: KnowledgeBase, hashes: dict[str, str]) -> bool:
    saved = {name: rec.get("sha256") for name, rec in kb.sources.items()}
    return saved == hashes and kb.manifest.get("format") == FORMAT_VERSION


def build(
    gaia: str | Path | None,
    assistantbench: str | Path | None,
    directory: str | Path | None = None,
    force: bool = False,
    runs: str | Path | None = None,
) -> KnowledgeBase:
    """Build (or reuse) the knowledge base from the given source files (and folder of solved runs).

    Reuses the saved base when the same sources with the same sha256 were used to build
    it, unless ``force``. The returned base's ``rebuilt`` says which happened.
    """
    folder = kb_dir(directory)
    paths = _source_paths(gaia, assistantbench, runs)
    hashes = {name: source_sha256(name, path) for name, path in paths.items()}
    if not force:
        try:
            existing = load(folder)
        except ConfigError:
            existing = None  # damaged or another model: rebuild below
        if existing is not None and _reusable(existing, hashes):
            saved_paths = {n: r.get("path") for n, r in existing.sources.items()}
            if saved_paths != {n: str(p) for n, p in paths.items()}:  # same bytes, moved: remember new paths
                for name, path in paths.items():
                    existing.manifest["sources"][name]["path"] = str(path)
                _write_atomic(folder / MANIFEST, lambda p: p.write_text(json.dumps(existing.manifest, indent=2, sort_keys=True) + "\n"))
            return existing

    started = time.perf_counter()
    entries: list[KBEntry] = []
    sources: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    for name in SOURCE_NAMES:
        if name not in paths:
            continue
        read = _read_source(name, paths[name])
        clash = next((e.id for e in read if e.id in seen), None)
        if clash is not None:
            raise InputError(paths[name], f"id {clash!r} also appears in another source")
        seen.update(e.id for e in read)
        entries.extend(read)
        sources[name] = {"path": str(paths[name]), "sha256": hashes[name], "entries": len(read)}

    # one call: the encoder sorts all texts by length, so batches pad less
    vectors = embed([e.text for e in entries] + [e.question for e in entries])
    text_vecs, question_vecs = vectors[: len(entries)], np.ascontiguousarray(vectors[len(entries) :])
    index = _faiss().IndexFlatIP(DIM)
    index.add(text_vecs)
    manifest = {
        "format": FORMAT_VERSION,
        "model": MODEL_NAME,
        "dim": DIM,
        "entry_count": len(entries),
        "sources": sources,
        "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "build_seconds": round(time.perf_counter() - started, 3),
    }
    _save(folder, entries, index, question_vecs, manifest)
    return KnowledgeBase(entries, index, question_vecs, manifest, folder, rebuilt=True)
