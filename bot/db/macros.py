"""Saved rolls: a user's roll command lines per server, under names of their own."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.characters import lock_user
from bot.db.engine import changed_rows
from bot.db.models import Macro
from bot.errors import UserError
from bot.rules.names import MACRO, clean_name, name_key

MAX_MACROS = 50  # per user per server
NAME_LENGTH = MACRO.max_length
LINE_LENGTH = 1000


class MacroError(UserError):
    """Something about a saved roll the user asked for."""

    title = "Saved roll"


@dataclass(frozen=True, slots=True)
class SavedRoll:
    """A saved roll as the store keeps it."""

    name: str
    command: str
    line: str


class MacroRepository:
    """Reads and writes saved rolls inside the caller's session (the caller owns the transaction)."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def save(
        self, *, guild_id: int, user_id: int, name: str, command: str, line: str, now: datetime
    ) -> SavedRoll:
        """Save a new roll under `name` (the name policy applies); refused past MAX_MACROS or when taken (any case)."""
        name = clean_name(name, MACRO)
        await lock_user(self.session, "macros", guild_id=guild_id, user_id=user_id)
        count = await self.session.scalar(
            select(func.count()).select_from(Macro).where(Macro.guild_id == guild_id, Macro.user_id == user_id)
        )
        if (count or 0) >= MAX_MACROS:
            raise MacroError(
                f"You have {MAX_MACROS} saved rolls here, the most there can be: `/macro delete` one first.",
                title="Too many saved rolls",
            )
        self.session.add(
            Macro(
                guild_id=guild_id,
                user_id=user_id,
                name=name,
                name_key=name_key(name),
                command=command,
                line=line,
                created_at=now,
            )
        )
        try:
            async with self.session.begin_nested():
                await self.session.flush()
        except IntegrityError:
            raise MacroError(
                f"You already have a saved roll called **{name}**: `/macro delete` it first, or pick another name.",
                title="Name taken",
            ) from None
        return SavedRoll(name, command, line)

    async def get(self, *, guild_id: int, user_id: int, name: str) -> SavedRoll | None:
        """The user's saved roll called `name` (any case)."""
        row = await self.session.scalar(
            select(Macro).where(Macro.guild_id == guild_id, Macro.user_id == user_id, Macro.name_key == name_key(name))
        )
        return None if row is None else SavedRoll(row.name, row.command, row.line)

    async def list(self, *, guild_id: int, user_id: int, text: str = "") -> list[SavedRoll]:
        """The user's saved rolls here, by name; only those whose name contains `text` when given."""
        query = select(Macro).where(Macro.guild_id == guild_id, Macro.user_id == user_id)
        if text:
            query = query.where(Macro.name_key.contains(name_key(text), autoescape=True))
        rows = await self.session.scalars(query.order_by(Macro.name_key))
        return [SavedRoll(row.name, row.command, row.line) for row in rows]

    async def delete(self, *, guild_id: int, user_id: int, name: str) -> bool:
        """Delete the user's saved roll called `name`; whether there was one."""
        done = await self.session.execute(
            delete(Macro).where(Macro.guild_id == guild_id, Macro.user_id == user_id, Macro.name_key == name_key(name))
        )
        return bool(changed_rows(done))
