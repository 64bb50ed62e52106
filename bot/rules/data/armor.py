"""The SRD armor and shield table (docs/rules/dnd35.md §10): `srd_armor.json`, loaded once, looked up by name.

Its own module, below both readers: the stat block (`bot.rules.sheets.dnd35`, which fills an armor from it) and
the D&D tables (`bot.rules.dnd35.tables`, which re-exports it) import it, and it imports neither, so the two
never import each other.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

from bot.rules.names import name_key


@dataclass(frozen=True, slots=True)
class TableArmor:
    """A row of the SRD armor and shield table (§10)."""

    name: str
    srd_name: str
    kind: Literal["light", "medium", "heavy", "shield"]
    shield: Literal["buckler", "light", "heavy", "tower"] | None
    bonus: int
    max_dex: int | None
    check_penalty: int
    spell_failure: int  # percent
    speed_30: int | None
    speed_20: int | None
    attack_penalty: int  # the tower shield's -2 whenever it is employed


def load(name: str) -> Any:
    """A JSON table of this package, read as it is."""
    return json.loads(resources.files("bot.rules.data").joinpath(name).read_text(encoding="utf-8"))


@functools.cache
def armor_table() -> tuple[TableArmor, ...]:
    """§10, in the reference's order (light, medium, heavy, shields)."""
    return tuple(TableArmor(**row) for row in load("srd_armor.json")["armor"])


@functools.cache
def _armor_by_key() -> dict[str, TableArmor]:
    return {name_key(n): a for a in armor_table() for n in (a.name, a.srd_name)}


def table_armor(name: str) -> TableArmor | None:
    """The SRD armor or shield called `name` in any case; None if unknown."""
    return _armor_by_key().get(name_key(" ".join(name.split())))


@functools.cache
def armor_names() -> tuple[str, ...]:
    """Every SRD armor and shield name, in the table's order, for autocomplete."""
    return tuple(a.name for a in armor_table())
