"""Similarity search over the knowledge base, and leak-free exemplar retrieval for CHIEF.

Every Who&When case is itself a GAIA or AssistantBench task, so a naive nearest-neighbour
search returns the case's own solution steps. :func:`retrieve_exemplars` therefore drops
any entry that *is* the case's task: the same id, or a question that is near-identical
to the case question (cosine >= 0.95 between question embeddings, equal after
normalization, or one containing the other when both are long). It over-fetches so that
exactly ``k`` exemplars survive the filter whenever the base holds that many others.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .entries import LABELS, KBEntry
from .queries import embed_query

if TYPE_CHECKING:  # imported for annotations only: store.py imports this module
    from .store import KnowledgeBase

#: cosine similarity between questions at or above which two tasks count as the same task
SAME_TASK_COSINE = 0.95
#: normalized length from which containment of one question in the other means "same task"
CONTAINMENT_MIN_CHARS = 40
#: extra candidates fetched beyond ``k`` before the own-task filter
OVERFETCH = 8
#: default cap of one rendered exemplar, in characters
EXEMPLAR_CHARS = 1200
CUT_MARKER = " [...cut]"

_NON_WORD = re.compile(r"[^0-9a-z]+")


@dataclass(frozen=True)
class Hit:
    """One search result: the entry and its cosine similarity to the query."""

    entry: KBEntry
    score: float


def normalize_question(text: str) -> str:
    """Casefolded words joined by single spaces: punctuation and layout ignored."""
    return _NON_WORD.sub(" ", text.casefold()).strip()


def same_question(a: str, b: str) -> bool:
    """True when two questions are textually the same task (equal, or long and nested)."""
    na, nb = normalize_question(a), normalize_question(b)
    if not na or not nb:
        return False
    if na == nb:
        return True
    shorter, longer = (na, nb) if len(na) <= len(nb) else (nb, na)
    return len(shorter) >= CONTAINMENT_MIN_CHARS and shorter in longer


def _ranked(kb: KnowledgeBase, vector: np.ndarray, count: int) -> list[tuple[int, float]]:
    """``count`` nearest entry positions with their scores, best first."""
    count = min(count, len(kb.entries))
    if count <= 0:
        return []
    scores, positions = kb.index.search(vector.reshape(1, -1).astype(np.float32, copy=False), count)
    return [(int(p), float(s)) for p, s in zip(positions[0], scores[0], strict=True) if p >= 0]


def search(kb: KnowledgeBase, text: str, k: int = 5) -> list[Hit]:
    """The ``k`` entries most similar to ``text`` (cosine over L2-normalized embeddings)."""
    if k <= 0 or not kb.entries:
        return []
    return [Hit(kb.entries[p], s) for p, s in _ranked(kb, embed_query(text, kb.directory), k)]


def is_own_task(kb: KnowledgeBase, position: int, question: str, qvec: np.ndarray, own_task_id: str | None) -> bool:
    """Whether entry ``position`` is the case's own task (by id or near-identical question)."""
    entry = kb.entries[position]
    if own_task_id is not None and entry.id.strip() == str(own_task_id).strip():
        return True
    if float(kb.question_vectors[position] @ qvec) >= SAME_TASK_COSINE:
        return True
    return same_question(entry.question, question)


def retrieve_exemplars(kb: KnowledgeBase, question: str, own_task_id: str | None, k: int = 2) -> list[Hit]:
    """``k`` exemplars for a case, never including the case's own task.

    Ranks entries by similarity of their text to ``question``; drops every entry with
    id ``own_task_id`` or a near-identical question. Returns fewer than ``k`` hits only
    when the base holds fewer than ``k`` other tasks.
    """
    if k <= 0 or not kb.entries:
        return []
    qvec = embed_query(question, kb.directory)
    fetch = k + OVERFETCH
    while True:
        ranked = _ranked(kb, qvec, fetch)
        kept = [Hit(kb.entries[p], s) for p, s in ranked if not is_own_task(kb, p, question, qvec, own_task_id)]
        if len(kept) >= k or fetch >= len(kb.entries):
            return kept[:k]
        fetch = len(kb.entries)


def _cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(CUT_MARKER))].rstrip() + CUT_MARKER


def format_exemplar(entry: KBEntry, max_chars: int = EXEMPLAR_CHARS) -> str:
    """One entry as ``Source / Question|Task / Steps|Explanation`` lines, capped at ``max_chars``."""
    q_label, g_label = LABELS[entry.source]
    body = f"{q_label}: {entry.question}"
    if entry.guide:
        body += f"\n{g_label}: {entry.guide}"
    return f"Source: {entry.source}\n{_cap(body, max_chars)}"


def format_exemplars(hits: list[Hit], max_chars: int = EXEMPLAR_CHARS) -> str:
    """Render exemplars for a prompt, numbered ``[Exemplar 1]``, ``[Exemplar 2]``, ..."""
    if not hits:
        return "(no reference exemplars)"
    blocks = [f"[Exemplar {i}]\n{format_exemplar(h.entry, max_chars)}" for i, h in enumerate(hits, start=1)]
    return "\n\n".join(blocks)
