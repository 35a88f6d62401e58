"""Attribution methods. Each module has NAME, NEEDS_MODEL and ``async run(ctx) -> MethodResult``."""

from __future__ import annotations

from types import ModuleType

from . import all_at_once, binary_search, chief, hybrid, random_baseline, step_by_step

METHODS: dict[str, ModuleType] = {m.NAME: m for m in (random_baseline, all_at_once, step_by_step, binary_search, hybrid, chief)}


def register(module: ModuleType) -> None:
    METHODS[module.NAME] = module


def get(name: str) -> ModuleType:
    from ..errors import ConfigError

    if name not in METHODS:
        raise ConfigError(f"unknown method {name!r} (choose from: {', '.join(METHODS)})")
    return METHODS[name]
