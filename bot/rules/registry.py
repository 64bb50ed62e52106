"""Things declared by key: the one registry of the rulesets (`bot.rules.rulesets`) and their presenters.

`bot.ui.rulesets` keeps the presenters in a registry of its own kind.

The built-in ones are named as `module:name` entries and imported when the registry is first read, so that a
game's package may import the registry without a cycle; any registered later follow them, in order.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Generic, Protocol, TypeVar


class Keyed(Protocol):
    """What a registry holds: anything with a key."""

    @property
    def key(self) -> str:
        """The key it is registered and found by."""
        ...


T = TypeVar("T", bound=Keyed)


class Registry(Generic[T]):
    """Declarations by key: the built-in `module:name` entries first, then whatever `register` adds."""

    def __init__(self, what: str, built_in: Sequence[str]) -> None:
        self._what = what  # for the error when two declarations share a key
        self._built_in = tuple(built_in)
        self._found: dict[str, T] | None = None

    def _load(self) -> dict[str, T]:
        if self._found is None:
            self._found = {}
            for entry in self._built_in:
                module, name = entry.split(":")
                declared: T = getattr(importlib.import_module(module), name)
                self._found.setdefault(declared.key, declared)
        return self._found

    def register(self, item: T) -> T:
        """Add `item` after the ones there are; returns it. Another item under its key is refused."""
        found = self._load()
        if item.key in found and found[item.key] is not item:
            raise ValueError(f"two {self._what} are called {item.key!r}")
        found[item.key] = item
        return item

    def every(self) -> tuple[T, ...]:
        """Every item, built-in ones first, in the order they registered."""
        return tuple(self._load().values())

    def keys(self) -> tuple[str, ...]:
        """Every item's key, in that order."""
        return tuple(self._load())

    def find(self, key: str) -> T | None:
        """The item under `key`, if there is one."""
        return self._load().get(key)

    @contextmanager
    def registered(self, item: T) -> Iterator[T]:
        """`item` registered for the time of a `with` block (a test's own), and unregistered after it."""
        self.register(item)
        try:
            yield item
        finally:
            self._load().pop(item.key, None)
