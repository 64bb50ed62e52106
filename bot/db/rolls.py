"""The roll log: every roll, written once, read back as plain records."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Text, cast, insert, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Writers
from bot.db.models import Base, RollLog

LUCK_ROLLS = 20_000  # /stats reads at most this many of the latest rolls


@dataclass(frozen=True, slots=True)
class LoggedRoll:
    """A roll as the log keeps it."""

    id: int
    interaction_id: int
    guild_id: int | None
    channel_id: int | None
    user_id: int
    command: str
    inputs: dict[str, Any]
    result: dict[str, Any]
    private: bool
    created_at: datetime
    message_id: int | None = None
    summary: str | None = None
    fair_roll: int | None = None
    character_id: int | None = None
    ruleset: str | None = None
    details: dict[str, Any] | None = None


def _record(row: RollLog) -> LoggedRoll:
    return LoggedRoll(
        id=row.id,
        interaction_id=row.interaction_id,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        user_id=row.user_id,
        command=row.command,
        inputs=row.inputs,
        result=row.result,
        private=row.private,
        created_at=row.created_at,
        message_id=row.message_id,
        summary=row.summary,
        fair_roll=row.fair_roll,
        character_id=row.character_id,
        ruleset=row.ruleset,
        details=row.details,
    )


class RollRepository:
    """Reads and writes the roll log inside the caller's session (the caller owns the transaction)."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def add(
        self,
        *,
        interaction_id: int,
        guild_id: int | None,
        channel_id: int | None,
        user_id: int,
        command: str,
        inputs: dict[str, Any],
        result: dict[str, Any],
        private: bool,
        created_at: datetime,
        fair_session_id: int | None = None,
        fair_roll: int | None = None,
        draws: list[list[int]] | None = None,
        message_id: int | None = None,
        summary: str | None = None,
        character_id: int | None = None,
        ruleset: str | None = None,
        luck: dict[str, list[float]] | None = None,
        details: dict[str, Any] | None = None,
    ) -> int:
        """Log one roll and return its number in the log."""
        row = RollLog(
            interaction_id=interaction_id,
            guild_id=guild_id,
            channel_id=channel_id,
            user_id=user_id,
            command=command,
            inputs=inputs,
            result=result,
            private=private,
            created_at=created_at,
            fair_session_id=fair_session_id,
            fair_roll=fair_roll,
            draws=draws,
            message_id=message_id,
            summary=summary,
            character_id=character_id,
            ruleset=ruleset,
            luck=luck,
            details=details,
        )
        self.session.add(row)
        await self.session.flush()
        return row.id

    async def add_many(self, rolls: list[dict[str, Any]]) -> None:
        """Log several rolls (each given as `add`'s keyword arguments) with one statement."""
        # The table, not the mapped class: a plain executemany, without the ORM's bulk-insert bookkeeping.
        await self.session.execute(insert(Base.metadata.tables[RollLog.__tablename__]), rolls)

    async def recent(
        self, *, channel_id: int, user_id: int | None = None, character_id: int | None = None, limit: int = 10
    ) -> list[LoggedRoll]:
        """The latest public rolls made in a channel (by one user, with one character, if given), newest first."""
        query = select(RollLog).where(RollLog.channel_id == channel_id, RollLog.private.is_(False))
        if user_id is not None:
            query = query.where(RollLog.user_id == user_id)
        if character_id is not None:
            query = query.where(RollLog.character_id == character_id)
        rows = await self.session.scalars(query.order_by(RollLog.id.desc()).limit(limit))
        return [_record(row) for row in rows]

    async def made_by(self, interaction_id: int) -> LoggedRoll | None:
        """The roll an interaction made (what a button under its answer refers to)."""
        row = await self.session.scalar(
            select(RollLog).where(RollLog.interaction_id == interaction_id).order_by(RollLog.id).limit(1)
        )
        return None if row is None else _record(row)

    async def luck(
        self,
        *,
        guild_id: int | None,
        user_id: int | None = None,
        character_id: int | None = None,
        ruleset: str | None = None,
        include_private_of: int | None = None,
        limit: int = LUCK_ROLLS,
    ) -> list[str]:
        """The luck tallies of the latest `limit` rolls in a server that kept one, newest first.

        As JSON text, some perhaps `null`: `luck_tallies` decodes them and drops those.

        Private rolls count only for `include_private_of` (the user asking about themselves).
        """
        query = select(RollLog.luck).where(RollLog.guild_id == guild_id, RollLog.luck.is_not(None))
        if user_id is not None:
            query = query.where(RollLog.user_id == user_id)
        if character_id is not None:
            query = query.where(RollLog.character_id == character_id)
        if ruleset is not None:
            query = query.where(RollLog.ruleset == ruleset)
        if include_private_of is None:
            query = query.where(RollLog.private.is_(False))
        else:
            query = query.where(or_(RollLog.private.is_(False), RollLog.user_id == include_private_of))
        # As JSON text (asyncpg would decode it itself, on the loop): decoding 20,000 tallies takes a second of
        # CPU, which `luck_tallies` spends where the caller chooses, off the loop every server shares.
        texts = await self.session.scalars(
            query.with_only_columns(cast(RollLog.luck, Text)).order_by(RollLog.id.desc()).limit(limit)
        )
        return [text for text in texts if text]


def luck_tallies(texts: Iterable[str]) -> list[dict[str, list[float]]]:
    """The tallies `RollRepository.luck` read, decoded (a roll without one is skipped)."""
    return [tally for text in texts if (tally := json.loads(text))]


class RollLogWriter:
    """Writes the roll log in batches: the rolls that arrive while one write runs all go into the next.

    Every roll used to be a write transaction of its own, and SQLite takes one writer at a time: under load
    the writers queued on SQLite's lock, polling it from their threads, until some gave up with "database is
    locked". Now each roll still waits until it is committed, but a burst costs a few transactions and
    statements instead of one of each per roll.
    """

    def __init__(self, write: Writers) -> None:
        self.write = write
        self._waiting: list[tuple[dict[str, Any], asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def add(self, **roll: Any) -> None:
        """Log one roll (the arguments of `RollRepository.add`); returns once it is committed."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((roll, future))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_all(), name="roll log writer")
        return await future

    async def _write_all(self) -> None:
        while self._waiting:
            batch, self._waiting = self._waiting, []
            try:
                await self._write(batch)
            except Exception as error:
                if len(batch) == 1:
                    _settle(batch[0][1], error=error)
                    continue
                # One bad roll must not fail the others: write them one by one, each failing on its own.
                for one in batch:
                    try:
                        await self._write([one])
                    except Exception as single:
                        _settle(one[1], error=single)

    async def _write(self, batch: list[tuple[dict[str, Any], asyncio.Future[None]]]) -> None:
        async with self.write.begin() as session:
            await RollRepository(session).add_many([roll for roll, _ in batch])
        for _, future in batch:
            _settle(future)


def _settle(future: asyncio.Future[None], *, error: BaseException | None = None) -> None:
    if future.done():  # the command was cancelled meanwhile
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(None)
