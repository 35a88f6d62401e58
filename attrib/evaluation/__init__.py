"""Evaluation: scoring predictions against gold labels, comparing runs, published reference numbers.

- :mod:`.records` — :class:`CaseRecord`, one JSONL line per (case, method, model, setting, run);
- :mod:`.scoring` — the one scoring module (exact rules, tolerance, bootstrap CIs, McNemar, random baseline);
- :mod:`.legacy` / :mod:`.official` — the official Who&When output format and its substring scoring;
- :mod:`.predictions` — read any prediction file and score it against a data folder;
- :mod:`.compare`, :mod:`.compare_render`, :mod:`.plots` — run comparison tables and PNGs;
- :mod:`.reference` — published rows (``reference.json``);
- :mod:`.commands` — the ``score`` and ``compare`` commands (``register(app)``).
"""

from .records import CaseRecord, read_jsonl, write_jsonl, write_record
from .scoring import (
    Report,
    build_report,
    mcnemar_exact,
    paired_test,
    random_expected,
    score_case,
)

__all__ = [
    "CaseRecord",
    "Report",
    "build_report",
    "mcnemar_exact",
    "paired_test",
    "random_expected",
    "read_jsonl",
    "score_case",
    "write_jsonl",
    "write_record",
]
