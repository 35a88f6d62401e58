"""Typed plugin registries: methods, model backends, log readers and graph exporters all register here.

A registry maps a name to one typed plugin object, keeps registration order (readers are tried in
that order), and answers an unknown name with one line listing the known ones. Third-party code
adds a plugin with ``registry.register(obj)`` (or ``before=`` a named one, where order matters).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, Protocol, TypeVar

from .errors import AttribError, ConfigError


class Named(Protocol):
    @property
    def name(self) -> str: ...


T = TypeVar("T", bound=Named)


class Registry(Generic[T]):
    """An ordered, typed name -> plugin table."""

    def __init__(self, kind: str, error: Callable[[str], AttribError] = ConfigError) -> None:
        self.kind = kind
        self._error = error
        self._items: dict[str, T] = {}

    def register(self, item: T, *, before: str | None = None, replace: bool = False) -> T:
        """Add ``item`` under ``item.name`` (at the end, or just before ``before``); returns it."""
        if item.name in self._items and not replace:
            raise ValueError(f"{self.kind} {item.name!r} is already registered")
        if before is None or before not in self._items:
            self._items[item.name] = item
            return item
        ordered = list(self._items.items())
        at = [name for name, _ in ordered].index(before)
        ordered.insert(at, (item.name, item))
        self._items = dict(ordered)
        return item

    def get(self, name: str) -> T:
        try:
            return self._items[name]
        except KeyError:
            raise self._error(f"unknown {self.kind} {name!r} (choose from: {', '.join(self._items)})") from None

    def names(self) -> list[str]:
        return list(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[T]:
        return iter(list(self._items.values()))

    def __len__(self) -> int:
        return len(self._items)
