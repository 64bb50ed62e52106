"""Encounters as the store keeps them: one per channel, every change one compare-and-set on its version."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Row, Table, delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import changed_rows
from bot.db.models import EncounterRow
from bot.rules import encounter as rules
from bot.rules.encounter import Change, Encounter, EncounterError, Hit

UNDO_DEPTH = 5  # changes `/encounter undo` can take back, newest first

ENCOUNTERS = cast(Table, EncounterRow.__table__)


class EncounterChanged(EncounterError):
    """The encounter changed after this change was prepared (another press of Next, another command)."""

    title = "Changed meanwhile"

    def __init__(self) -> None:
        super().__init__("The encounter changed meanwhile (someone else moved it on). Nothing was changed.")


@dataclass(frozen=True, slots=True)
class EncounterRecord:
    """A stored encounter: where it runs, its version, the fight itself and how many changes can be undone."""

    id: int
    guild_id: int
    channel_id: int
    version: int
    encounter: Encounter
    history: tuple[dict[str, Any], ...]  # the states before the last changes, newest last (for undo)
    state: dict[str, Any]  # `encounter` as stored: what undo keeps of it, without dumping it again
    tracker_id: int | None = None  # the message that shows the fight, if one was posted

    @property
    def undoable(self) -> int:
        """How many changes undo can take back."""
        return len(self.history)


def _record(row: Row[Any]) -> EncounterRecord:
    return EncounterRecord(
        id=row.id,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        version=row.version,
        encounter=rules.load(row.state),
        history=tuple(row.undo),
        state=row.state,
        tracker_id=row.tracker_message_id,
    )


class EncounterRepository:
    """Reads and writes encounters inside the caller's session; the caller owns the transaction."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def get(self, *, guild_id: int, channel_id: int, for_update: bool = False) -> EncounterRecord | None:
        """The encounter of a channel of this server; `for_update` locks its row where the database can."""
        query = select(ENCOUNTERS).where(ENCOUNTERS.c.channel_id == channel_id, ENCOUNTERS.c.guild_id == guild_id)
        if for_update:
            query = query.with_for_update()
        row = (await self.session.execute(query)).first()
        return _record(row) if row is not None else None

    async def current(self, *, guild_id: int, channel_id: int, for_update: bool = False) -> EncounterRecord:
        """The channel's encounter; the error says how to start one."""
        record = await self.get(guild_id=guild_id, channel_id=channel_id, for_update=for_update)
        if record is None:
            raise EncounterError("No encounter runs in this channel: `/encounter start` begins one.", title="No fight")
        return record

    async def start(self, *, guild_id: int, channel_id: int, encounter: Encounter, now: datetime) -> EncounterRecord:
        """Store a channel's new encounter; refused while one runs there."""
        state = rules.dump(encounter)
        row = EncounterRow(
            guild_id=guild_id,
            channel_id=channel_id,
            gm_id=encounter.gm_id,
            ruleset=encounter.ruleset,
            state=state,
            undo=[],
            version=1,
            created_at=now,
            updated_at=now,
        )
        self.session.add(row)
        try:
            async with self.session.begin_nested():
                await self.session.flush()
        except IntegrityError:
            raise EncounterError(
                "An encounter already runs in this channel: `/encounter end` it first.", title="Already a fight"
            ) from None
        return EncounterRecord(row.id, guild_id, channel_id, 1, encounter, (), state)

    async def save(
        self, record: EncounterRecord, encounter: Encounter, *, now: datetime, undoable: bool = True
    ) -> EncounterRecord:
        """Write the encounter's next state if it is still at the version it was read at.

        The state it replaces is kept for `undo` (the last UNDO_DEPTH of them) when the change is `undoable`.
        """
        history = record.history
        if undoable:
            history = (*history, record.state)[-UNDO_DEPTH:]
        state = rules.dump(encounter)
        await self._update(record, now, state=state, undo=list(history))
        return EncounterRecord(
            record.id,
            record.guild_id,
            record.channel_id,
            record.version + 1,
            encounter,
            history,
            state,
            record.tracker_id,
        )

    async def undo(self, record: EncounterRecord, *, now: datetime) -> EncounterRecord:
        """Take back the last change: the encounter returns to the state before it."""
        if not record.history:
            raise EncounterError("There is no change left to undo.", title="Nothing to undo")
        *rest, last = record.history
        await self._update(record, now, state=last, undo=rest)
        return EncounterRecord(
            record.id,
            record.guild_id,
            record.channel_id,
            record.version + 1,
            rules.load(last),
            tuple(rest),
            last,
            record.tracker_id,
        )

    async def keep_tracker(self, *, guild_id: int, channel_id: int, message_id: int) -> None:
        """Remember the message that now shows the channel's fight (no version: it is not part of the fight)."""
        await self.session.execute(
            update(EncounterRow)
            .where(EncounterRow.channel_id == channel_id, EncounterRow.guild_id == guild_id)
            .values(tracker_message_id=message_id)
        )

    async def end(self, record: EncounterRecord) -> None:
        """Delete the encounter, unless it changed since it was read."""
        result = await self.session.execute(
            delete(EncounterRow).where(EncounterRow.id == record.id, EncounterRow.version == record.version)
        )
        if changed_rows(result) != 1:
            raise EncounterChanged()

    async def apply_hit(
        self, *, guild_id: int, channel_id: int, target: str, hit: Hit, now: datetime
    ) -> tuple[EncounterRecord, Change]:
        """Apply a resolved attack's hit to the combatant `target` names, in the caller's transaction."""
        record, changes = await self.apply_hits(guild_id=guild_id, channel_id=channel_id, hits=[(target, hit)], now=now)
        return record, changes[0]

    async def apply_hits(
        self, *, guild_id: int, channel_id: int, hits: Sequence[tuple[str, Hit]], now: datetime
    ) -> tuple[EncounterRecord, list[Change]]:
        """Apply a resolved attack's hits (an AliensRL burst may hit several) to the combatants they name.

        One write in the caller's transaction, undone as one change. The row is locked where the database can
        (PostgreSQL), and the write is still version-checked, so a hit is never lost to a concurrent change.
        """
        record = await self.current(guild_id=guild_id, channel_id=channel_id, for_update=True)
        encounter, changes = record.encounter, []
        for target, hit in hits:
            encounter, change = rules.apply_hit(encounter, rules.find(encounter, target).number, hit)
            changes.append(change)
        return await self.save(record, encounter, now=now), changes

    async def _update(self, record: EncounterRecord, now: datetime, **values: object) -> None:
        result = await self.session.execute(
            update(EncounterRow)
            .where(EncounterRow.id == record.id, EncounterRow.version == record.version)
            .values(version=record.version + 1, updated_at=now, **values)
        )
        if changed_rows(result) != 1:
            raise EncounterChanged()
