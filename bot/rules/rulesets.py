"""The ruleset registry: each game declares itself once, as one `Ruleset`, and shared code reads it from here.

A ruleset is one object: its key (as stored: a character's, a fight's, a roll log row's), its title, its health
word and the health word's short form, its character sheet (`bot.rules.sheets.base.Ruleset`, which it extends),
the server settings it reads and the typed variants they become, the kinds of roll it makes (`bot.rules.replay`),
and how it fights (`Fighting`: initiative, health states, joining with a sheet, a quick creature). Each game
declares it in its own package (`bot/rules/<game>/ruleset.py`); `BUILT_IN` names each declaration, one line a
game, and they register in that order when the registry is first read. A test registers one of its own with
`registered(...)`.

Presentation (answers, /history lines, help pages) registers beside it at the ui level (`bot.ui.rulesets`), so
that this module stays pure: no Discord, no database.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from bot.rules.registry import Registry
from bot.rules.sheets.base import Ruleset as Sheets
from bot.rules.sheets.base import SheetError

if TYPE_CHECKING:
    from bot.rules.encounter import Combatant, Health, Modifier, Side, StoredAttack
    from bot.rules.replay import Kind
    from bot.rules.settings import Setting

# The games that ship with the bot: where each is declared (module:name), in the order lists show them.
BUILT_IN: Final = (
    "bot.rules.dnd35.ruleset:DND35",
    "bot.rules.star_frontiers.ruleset:STAR_FRONTIERS",
    "bot.rules.aliensrl.ruleset:ALIENSRL",
)


def _no_tiebreak(modifiers: tuple[Modifier, ...], stats: Mapping[str, int]) -> int:
    return 0


def _no_condition(name: str) -> str | None:
    return None


def _never_by_side(values: Mapping[str, str]) -> bool:
    return False


@dataclass(frozen=True, slots=True)
class Quick:
    """A quick creature's numbers as `/encounter add` took them; each ruleset reads the ones it knows."""

    hp: int
    ac: int | None = None
    initiative: int = 0
    rs: int | None = None
    rw: int | None = None
    mw: int | None = None
    rank: int | None = None
    improved_initiative: bool = False


@dataclass(frozen=True, slots=True)
class Fighting:
    """How a ruleset fights in the encounter tracker (`bot.rules.encounter`).

    Attributes:
        join: A character's sheet as a combatant: (name, sheet, owner, side, character id, Improved Initiative,
            any other initiative modifier) to its hit points, initiative modifiers and the numbers attacks read.
        quick: A quick creature from the numbers `/encounter add` took.
        health: The state hit points put a combatant in (default: up above 0, dead at 0 or less).
        die: The die each initiative check rolls; None: no initiative, combatants act in the order they entered.
        tiebreak: A check's tie-breaking value from its modifiers and the combatant's stats.
        every_round: Initiative is rolled again at the start of every round.
        sides: Initiative may be rolled by side, each side one check (a fight's `by_side`).
        by_side: Whether a new fight rolls initiative by side, from the server's settings (effective values).
        flat_footed: A combatant is flat-footed until its first turn (D&D).
        has_map: The fight has a map of squares its shots stray onto.
        initiative_options: The typed initiative options of join and add (`initiative_bonus`, ...) enter its checks.
        conditions: The names of the conditions its rules give effects (autocompleted; any other is a label).
        condition: What a condition's name does under its rules, in a few words (None: a label).
        attacks: A quick creature's stored attacks from the notation `/encounter add attacks:` took
            (`bot.rules.encounter_attacks`); None: its creatures carry none.
        sheet_attacks: A character's attacks in a fight, from its sheet's weapons: (sheet, character id) to them.
    """

    join: Callable[[str, Any, int, Side, int, bool, int], Combatant]
    quick: Callable[[str, Quick], Combatant]
    health: Callable[[int], Health] | None = None
    die: int | None = None
    tiebreak: Callable[[tuple[Modifier, ...], Mapping[str, int]], int] = _no_tiebreak
    every_round: bool = False
    sides: bool = False
    by_side: Callable[[Mapping[str, str]], bool] = _never_by_side
    flat_footed: bool = False
    has_map: bool = False
    initiative_options: bool = False
    conditions: tuple[str, ...] = ()
    condition: Callable[[str], str | None] = _no_condition
    attacks: Callable[[str], tuple[StoredAttack, ...]] | None = None
    sheet_attacks: Callable[[Any, int], tuple[StoredAttack, ...]] | None = None


def _no_variants(values: Mapping[str, str]) -> None:
    return None


def _no_table() -> tuple[str, ...]:
    return ()


def _not_in_table(name: str) -> bool:
    return False


@dataclass(frozen=True, slots=True)
class Ruleset(Sheets):
    """A game, declared once: what the character store, the settings, the replay registry and the tracker read.

    Attributes (beyond the sheet's key, title, sheet class, version and upgrades):
        short_title: The title where room is short (the tracker's); the title when empty.
        health: What its hit points are called in a sentence ("Hit points"; the tests' pool game says "Grit").
        health_short: Their short form after a number ("hp"; the pool game "grit").
        reference: Its rules reference, docs/rules/<reference>.md, whose sections the code cites; None: none.
        settings: The server settings it reads (`bot.rules.settings.Setting`), in the order /house-rules shows them.
        variants: The typed readings its rolls take, from every setting's effective value.
        kinds: The kinds of roll it makes (`bot.rules.replay.Kind`): logged, replayed, checked.
        fighting: How it fights in the encounter tracker; None: it has no fights.
        weapon_table: Its weapon table, every entry's name (a weapon added by name alone must be one).
        reads_weapon: A name the table reads though it is not an entry as written (D&D: "+1 longsword").
    """

    short_title: str = ""
    health: str = "Hit points"
    health_short: str = "hp"
    reference: str | None = None
    settings: tuple[Setting, ...] = ()
    variants: Callable[[Mapping[str, str]], Any] = _no_variants
    kinds: tuple[Kind[Any, Any], ...] = ()
    fighting: Fighting | None = field(default=None)
    weapon_table: Callable[[], tuple[str, ...]] = _no_table
    reads_weapon: Callable[[str], bool] = _not_in_table

    @property
    def brief_title(self) -> str:
        """`short_title`, else the title."""
        return self.short_title or self.title


_REGISTRY: Final = Registry[Ruleset]("rulesets", BUILT_IN)


def register(ruleset: Ruleset) -> Ruleset:
    """Add a ruleset to the registry, after the built-in ones; returns it."""
    return _REGISTRY.register(ruleset)


def every() -> tuple[Ruleset, ...]:
    """Every registered ruleset, built-in ones first, in the order they registered."""
    return _REGISTRY.every()


def registered_keys() -> tuple[str, ...]:
    """Every registered ruleset's key."""
    return _REGISTRY.keys()


def find(key: str) -> Ruleset | None:
    """The ruleset with this key, if one is registered."""
    return _REGISTRY.find(key)


def get(key: str) -> Ruleset:
    """The ruleset with this key; the error lists the keys there are."""
    found = find(key)
    if found is None:
        raise SheetError(f"There is no ruleset `{key}`; there are {', '.join(registered_keys())}.")
    return found


def fighting(key: str) -> Fighting:
    """How the ruleset `key` fights; the error says it has no fights."""
    rules = find(key)
    if rules is None or rules.fighting is None:
        raise SheetError(f"There is no ruleset `{key[:20]}` with fights.")
    return rules.fighting


def registered(ruleset: Ruleset) -> AbstractContextManager[Ruleset]:
    """A ruleset registered for the time of a `with` block (a test's own), and unregistered after it."""
    return _REGISTRY.registered(ruleset)
