"""Attribution methods. Importing this package registers the built-in ones in :data:`METHODS`.

Each method module registers ``async run(ctx) -> MethodResult`` with :func:`attrib.core.method.method`.
"""

from __future__ import annotations

from ..core.method import METHODS, Method
from . import all_at_once, binary_search, chief, hybrid, random_baseline, step_by_step  # noqa: F401  (registration)


def get(name: str) -> Method:
    return METHODS.get(name)


__all__ = ["METHODS", "Method", "get"]
