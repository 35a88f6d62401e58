"""Typed method options: what ``predict`` passes to a method beyond the log and the client.

Unknown names are an error (a misspelt ``chief_modul=`` never runs silently with defaults).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import ConfigError

ChiefModules = Literal["full", "m1", "m1+m2", "m1+m3"]
CHIEF_MODULES: tuple[str, ...] = ("full", "m1", "m1+m2", "m1+m3")
M = TypeVar("M", bound=BaseModel)


def validated(cls: type[M], **values: Any) -> M:
    """``cls(**values)``; an unknown or ill-typed option becomes one ConfigError naming it."""
    try:
        return cls(**values)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'options'}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"bad {cls.__name__} ({problems}; known: {', '.join(cls.model_fields)})") from None


class MethodOptions(BaseModel):
    """Options a method may read; every method ignores the ones that are not its own."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    chief_modules: ChiefModules = "full"
    kb_dir: Path | None = None

    @classmethod
    def of(cls, options: MethodOptions | None = None, **values: Any) -> MethodOptions:
        """``options`` updated with ``values``; an unknown or ill-typed option is a ConfigError."""
        base = options.model_dump() if options is not None else {}
        return validated(cls, **{**base, **{k: v for k, v in values.items() if v is not None}})
