"""RAG for CHIEF: two exemplars from the knowledge base, never the case's own task.

The knowledge base (GAIA validation + AssistantBench dev, built by ``attrib kb build``)
is optional: without one CHIEF still runs, without exemplars, and says so.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError
from ..trajectory import Trajectory
from .graph import Exemplar

NO_KB = ("no knowledge base configured (run `attrib kb build --gaia FILE --assistantbench FILE`); "
         "CHIEF ran without retrieved exemplars")
# How much of each exemplar a stage reads: the graph call decomposes like the exemplar, so it reads more;
# the oracles only need the exemplar's shape of a checklist.
GRAPH_EXEMPLAR_CHARS = 500
ORACLE_EXEMPLAR_CHARS = 300


def exemplars_for(traj: Trajectory, kb_dir: str | Path | None, chars: tuple[int, ...], k: int = 2,
                  ) -> tuple[list[Exemplar], list[str], str | None]:
    """(exemplars, one prompt text per entry of ``chars`` (each exemplar capped at that many characters), notice)."""
    try:
        from ..kb.retrieve import format_exemplars, retrieve_exemplars
        from ..kb.store import KnowledgeBase

        kb = KnowledgeBase.default(kb_dir)
    except ConfigError:
        return [], ["(none available)"] * len(chars), NO_KB
    hits = retrieve_exemplars(kb, traj.question, traj.question_id, k=k)
    found = [Exemplar(id=h.entry.id, source=h.entry.source, score=round(float(h.score), 4), question=h.entry.question[:300])
             for h in hits]
    return found, [format_exemplars(hits, c) for c in chars], None
