"""``--legacy-scoring``: the matching rules of the official Who&When evaluator, for comparability.

The official evaluation script is not available offline; these are the rules it is documented to
apply, implemented here as stated:

1. **Agent.** Both the gold ``mistake_agent`` and the predicted agent are cut at their first
   non-word character (``re.match(r"\\w+", text)``; a prediction is first stripped of surrounding
   markdown such as ``**``). The prediction is correct when the cut gold name is a *substring* of
   the cut predicted name (Python ``in``, case-sensitive). So gold ``Websurfer`` does not match
   ``WebSurfer``, while gold ``Assistant`` matches a predicted ``Assistant_2``.
2. **Step.** The gold ``mistake_step`` string (``str(gold step)``, e.g. ``"1"``) must be a
   *substring* of the predicted step string. The predicted step string is the first run of digits
   of the step text (what the official parser extracts), or ``str(step)`` for our own records.
   So gold ``"1"`` matches predictions 1, 10-19, 21, 31, ...
3. **Denominator.** Every log in the data folder counts; a log without a parsable prediction (no
   block, or no agent / step in its block) is wrong at both levels.
4. No tolerance levels: legacy reports only agent and exact-step accuracy.

The default (exact) scoring in :mod:`attrib.evaluation.scoring` is the correct one; use this only
to reproduce published numbers.
"""

from __future__ import annotations

import re

from .official import official_step_digits
from .records import CaseRecord

_WORD = re.compile(r"\w+")


def cut_word(text: str | None) -> str | None:
    """The leading run of word characters, after surrounding markdown/space; None when there is none."""
    if text is None:
        return None
    m = _WORD.match(text.strip().strip("*`\"' \t"))
    return m.group() if m else None


def legacy_agent_correct(gold_agent: str, pred_agent: str | None) -> bool:
    """Official agent rule: cut(gold) in cut(pred)."""
    gold, pred = cut_word(gold_agent), cut_word(pred_agent)
    return gold is not None and pred is not None and gold in pred


def legacy_step_correct(gold_step: int | str, pred_step_text: str | None) -> bool:
    """Official step rule: str(gold) is a substring of the predicted step string."""
    if pred_step_text is None:
        return False
    return str(gold_step).strip() in pred_step_text


def legacy_step_string(record: CaseRecord, step_text: str | None = None) -> str | None:
    """The predicted step string the official scorer would see for ``record``."""
    if step_text is not None:
        return official_step_digits(step_text)
    return None if record.pred_step is None else str(record.pred_step)


def legacy_rescore(record: CaseRecord, step_text: str | None = None) -> CaseRecord:
    """``record`` (already carrying its gold label) with correctness set by the legacy rules.

    ``step_text`` is the raw step text of an official-format prediction, when there is one.
    Any status other than ``ok`` counts as wrong, as a missing block does in the official script.
    """
    if record.gold_agent is None or record.gold_step is None:
        return record.model_copy(update={"agent_correct": None, "step_correct": None, "step_distance": None})
    ok = record.status == "ok"
    agent_ok = ok and legacy_agent_correct(record.gold_agent, record.pred_agent)
    step_ok = ok and legacy_step_correct(record.gold_step, legacy_step_string(record, step_text))
    return record.model_copy(update={"agent_correct": agent_ok, "step_correct": step_ok, "step_distance": None})
