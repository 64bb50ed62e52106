"""Each ruleset's presentation, registered beside it (`bot.rules.rulesets`): /history lines, /help, odds pairs.

Each game's presenter module (`bot/ui/<game>.py`) declares its `Presenters` once; `BUILT_IN` names them, and
they register when this registry is first read. A test registers its own with `registered(...)`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Final

from bot.rules import rulesets
from bot.rules.registry import Registry

# The presenters of the games that ship with the bot (module:name).
BUILT_IN: Final = ("bot.ui.dnd35:PRESENTERS", "bot.ui.star_frontiers:PRESENTERS", "bot.ui.aliensrl:PRESENTERS")

Summary = Callable[[Any, bool], str]  # a result, and whether it was against a secret, to its one-line summary


@dataclass(frozen=True, slots=True)
class Start:
    """How a new player begins with one ruleset: a few command lines in order, and a line for no sheet at all."""

    key: str
    title: str
    steps: tuple[str, ...]
    quick: str | None  # one roll with the numbers typed in, no character needed
    more: str


@dataclass(frozen=True, slots=True)
class Presenters:
    """A ruleset's presentation: what the shared answers, lists and pages ask of it.

    Attributes:
        key: The ruleset's key (`bot.rules.rulesets.Ruleset.key`).
        summaries: Each kind of roll it makes (`Ruleset.kinds`) to its one-line summary (/history, a fair log).
        start: Its /help page: a new player's first commands, each run by tests/cogs/test_help.py.
        odds: Each roll command with the odds command that prices it without rolling ("dnd attack", "dnd odds").
    """

    key: str
    summaries: Mapping[str, Summary]
    start: Start
    odds: tuple[tuple[str, str], ...] = field(default=())

    @property
    def ruleset(self) -> rulesets.Ruleset:
        """The ruleset these present."""
        return rulesets.get(self.key)


_REGISTRY: Final = Registry[Presenters]("presenters", BUILT_IN)


def register(presenters: Presenters) -> Presenters:
    """Add a ruleset's presenters, after the built-in ones; returns them."""
    return _REGISTRY.register(presenters)


def every() -> tuple[Presenters, ...]:
    """Every registered ruleset's presenters, in the order of the rulesets' registry."""
    return tuple(found for key in rulesets.registered_keys() if (found := _REGISTRY.find(key)) is not None)


def get(key: str) -> Presenters:
    """The presenters of the ruleset `key`."""
    found = _REGISTRY.find(key)
    if found is None:
        raise KeyError(key)
    return found


def registered(presenters: Presenters) -> AbstractContextManager[Presenters]:
    """Presenters registered for the time of a `with` block (a test's own ruleset's), and unregistered after it."""
    return _REGISTRY.registered(presenters)
