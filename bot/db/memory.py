"""A character's habits: the weapon it used last for each kind of roll, and the dial each laser was set to.

Kept apart from the stat block: remembering is a side effect of rolling, and must never collide with the owner
editing the sheet, nor travel in an export.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import CharacterMemory
from bot.rules.sheets.base import name_key

MAX_REMEMBERED = 50  # weapons and dials per character: a sheet carries at most that many weapons


@dataclass(frozen=True, slots=True)
class Remembered:
    """What a character used last; empty for one that never rolled."""

    weapons: dict[str, str] = field(default_factory=dict)  # kind of roll ("sf shoot") -> weapon name
    dials: dict[str, int] = field(default_factory=dict)  # weapon name key -> SEU per shot

    def weapon(self, kind: str) -> str | None:
        """The weapon this kind of roll used last."""
        return self.weapons.get(kind)

    def dial(self, weapon: str) -> int | None:
        """The dial `weapon` was set to last."""
        return self.dials.get(name_key(weapon))

    def with_weapon(self, kind: str, weapon: str) -> Remembered:
        """These habits after a roll of `kind` with `weapon`."""
        weapons = {k: v for k, v in self.weapons.items() if k != kind}
        return Remembered(_last({**weapons, kind: weapon}), self.dials)

    def with_dial(self, weapon: str, dial: int) -> Remembered:
        """These habits after a shot with `weapon`'s dial at `dial`."""
        key = name_key(weapon)
        dials = {k: v for k, v in self.dials.items() if k != key}
        return Remembered(self.weapons, _last({**dials, key: dial}))

    def to_json(self) -> dict[str, Any]:
        """As stored."""
        return {"weapons": self.weapons, "dials": self.dials}


def _last(kept: dict[str, Any]) -> dict[str, Any]:
    """The newest MAX_REMEMBERED entries (a dict keeps the order they were set in)."""
    return dict(list(kept.items())[-MAX_REMEMBERED:])


def _remembered(data: dict[str, Any] | None) -> Remembered:
    if not isinstance(data, dict):
        return Remembered()
    weapons = {str(k): str(v) for k, v in (data.get("weapons") or {}).items()}
    dials = {str(k): int(v) for k, v in (data.get("dials") or {}).items() if isinstance(v, int)}
    return Remembered(weapons, dials)


class MemoryRepository:
    """Reads and writes characters' habits inside the caller's session."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def get(self, character_id: int) -> Remembered:
        """What the character used last (nothing, for one that never rolled)."""
        query = select(CharacterMemory.memory).where(CharacterMemory.character_id == character_id)
        return _remembered((await self.session.execute(query)).scalar_one_or_none())

    async def put(self, character_id: int, remembered: Remembered) -> None:
        """Keep these habits (last write wins: they are habits, not records)."""
        row = await self.session.get(CharacterMemory, character_id)
        if row is None:
            self.session.add(CharacterMemory(character_id=character_id, memory=remembered.to_json()))
        else:
            row.memory = remembered.to_json()
