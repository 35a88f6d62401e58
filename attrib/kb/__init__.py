"""Retrieval knowledge base for CHIEF's RAG task decomposition (paper appendix A).

Solved GAIA and AssistantBench tasks are embedded with all-MiniLM-L6-v2 into a faiss
inner-product index kept in the user cache. At attribution time the two most similar
*other* tasks are shown to the LLM as decomposition exemplars.

Modules: ``entries`` (rows -> KBEntry), ``embed`` (offline model), ``store`` (build / save /
load), ``retrieve`` (search, own-task exclusion, prompt rendering), ``commands`` (CLI).
Heavy dependencies (torch, faiss) are imported only when used.
"""

from __future__ import annotations

from .entries import KBEntry, read_assistantbench, read_gaia
from .retrieve import Hit, format_exemplars, retrieve_exemplars
from .store import KnowledgeBase, build, kb_dir, load

__all__ = [
    "Hit",
    "KBEntry",
    "KnowledgeBase",
    "build",
    "format_exemplars",
    "kb_dir",
    "load",
    "read_assistantbench",
    "read_gaia",
    "retrieve_exemplars",
]
