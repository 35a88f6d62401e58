"""Published results (``reference.json``) to show beside measured ones.

Rows come from Who&When (Tables 1-3) and CHIEF (Tables 1-4). Accuracies are percentages;
``with_ground_truth`` is None where the paper does not say which setting a number belongs to;
``model`` is None where the paper does not name it. ``uncertain`` marks values read from a
scrambled PDF table or known to be inconsistent (see each row's ``note``).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, Field

REFERENCE_PATH = Path(__file__).with_name("reference.json")


class ReferenceRow(BaseModel):
    """One published number set: one method, model, setting and subset."""

    source: str = Field(description="paper and table, e.g. 'Who&When (...) Table 1'")
    paper: str
    table: str
    method: str
    model: str | None = None
    with_ground_truth: bool | None = None
    subset: str
    agent_acc: float | None = None
    step_acc: float | None = None
    tokens_per_case: int | None = None
    step_acc_at_k: dict[int, float] = Field(default_factory=dict, description="tolerance k -> step accuracy")
    note: str | None = None
    uncertain: bool = False

    def label(self, tables: str | None = None) -> str:
        """Short display label: ``'Who&When T1 all-at-once gpt-4o (hand-crafted, w/ GT)'``."""
        gt = {True: "w/ GT", False: "w/o GT", None: "GT ?"}[self.with_ground_truth]
        model = f" {self.model}" if self.model else ""
        tables = tables or self.table.replace("Table ", "T")
        return f"{self.paper} {tables} {self.method}{model} ({self.subset}, {gt})"

    @property
    def has_accuracy(self) -> bool:
        return self.agent_acc is not None or self.step_acc is not None or bool(self.step_acc_at_k)


def method_key(name: str) -> str:
    """Normalize a method name for matching: ``'All at once'``, ``'all_at_once'`` -> ``'all-at-once'``."""
    return "-".join(name.strip().lower().replace("_", " ").replace("-", " ").split())


@lru_cache(maxsize=1)
def _load(path: str) -> tuple[ReferenceRow, ...]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return tuple(ReferenceRow.model_validate(r) for r in data["rows"])


def load_reference(path: str | Path = REFERENCE_PATH) -> list[ReferenceRow]:
    """All published rows."""
    return list(_load(str(path)))


def random_note(path: str | Path = REFERENCE_PATH) -> str:
    """The explanation of the mismatch between the published random row and the closed form."""
    return str(json.loads(Path(path).read_text(encoding="utf-8"))["random_note"])


def find_reference(
    method: str,
    with_ground_truth: bool | None = None,
    subset: str | None = None,
    model: str | None = None,
    tables: tuple[str, ...] | None = None,
) -> list[ReferenceRow]:
    """Rows for ``method`` (normalized name); filters that are None match everything.

    A row whose own setting is unknown (``with_ground_truth`` None) matches any requested setting.
    """
    key = method_key(method)
    out = []
    for row in load_reference():
        if method_key(row.method) != key:
            continue
        if with_ground_truth is not None and row.with_ground_truth not in (None, with_ground_truth):
            continue
        if subset is not None and row.subset != subset:
            continue
        if model is not None and (row.model or "").lower() != model.lower():
            continue
        if tables is not None and row.table not in tables:
            continue
        out.append(row)
    return out
