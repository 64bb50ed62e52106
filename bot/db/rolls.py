"""The roll log: every roll, written once, read back as plain records."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.models import RollLog


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
        )
        self.session.add(row)
        await self.session.flush()
        return row.id

    async def recent(self, *, channel_id: int, user_id: int | None = None, limit: int = 10) -> list[LoggedRoll]:
        """The latest public rolls made in a channel (by one user, if given), newest first."""
        query = select(RollLog).where(RollLog.channel_id == channel_id, RollLog.private.is_(False))
        if user_id is not None:
            query = query.where(RollLog.user_id == user_id)
        rows = await self.session.scalars(query.order_by(RollLog.id.desc()).limit(limit))
        return [_record(row) for row in rows]
