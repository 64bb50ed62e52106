"""Encounters as the store keeps them: one per channel, every change one compare-and-set on its version.

A combatant that is a character has the character's hit points (Star Frontiers: Stamina): the sheet is the one
place they are kept. Reading a fight reads its characters' sheets in the same transaction and shows their numbers
(`_fighting`); saving a change of a character's hit points writes the sheet in that transaction, version-checked
like any change of a character (`_write_sheets`), and `undo` gives back what the change did to it. So
`/character show` and the tracker never disagree, a change outside the fight (`/character hp`, `/character set`)
shows in it at once, and nothing can drift: the fight's own copy is only what it last saw, kept for a character
that was deleted. Reading the sheets, rather than copying every change of a character into every fight it is in,
keeps one writer per number: the character commands need not know about fights at all.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Row, Table, bindparam, delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.characters import CharacterRecord, CharacterRepository
from bot.db.engine import Readers, changed_rows, read_rows
from bot.db.models import EncounterRow
from bot.rules import encounter as rules
from bot.rules.encounter import Change, Encounter, EncounterError, Hit
from bot.rules.health import given_back

UNDO_DEPTH = 5  # changes `/encounter undo` can take back, newest first
# An undo entry's key (beside the state before the change): what the change did to each character's sheet, as
# {"character id": [hit points before, maximum before, hit points after, maximum after]}, given back by undo.
SHEET_CHANGES = "sheet_changes"
# And what the change was, as the channel saw it ("Goblin 1: 6 → -2 hp (dying) (Aria's longsword)"), and the
# snowflake of the interaction that made it: undo names what it takes back, and sees what came after it.
WHAT = "undo_what"
AT = "undo_at"
KEPT_BESIDE = (SHEET_CHANGES, WHAT, AT)  # an undo entry's keys that are not the fight's state

ENCOUNTERS = cast(Table, EncounterRow.__table__)
# A channel's encounter, which every roll there reads: built once (see `bot.db.characters._ACTIVE`).
_OF_CHANNEL = select(ENCOUNTERS).where(
    ENCOUNTERS.c.channel_id == bindparam("channel_id"), ENCOUNTERS.c.guild_id == bindparam("guild_id")
)
_OF_CHANNEL_LOCKED = _OF_CHANNEL.with_for_update()


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
    characters: tuple[CharacterRecord, ...] = ()  # its combatants' characters, as read with it (their hit points)

    @property
    def undoable(self) -> int:
        """How many changes undo can take back."""
        return len(self.history)

    @property
    def last_change(self) -> tuple[str, int]:
        """What the change undo would take back was, as the channel saw it, and the snowflake that made it.

        ("", 0) when nothing is left to undo, or for a change stored before changes were named.
        """
        if not self.history:
            return "", 0
        entry = self.history[-1]
        return str(entry.get(WHAT, "")), int(entry.get(AT, 0))


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

    def __init__(self, session: AsyncSession, reads: Readers | None = None) -> None:
        self.session = session
        self.reads = reads  # as `CharacterRepository.reads`: only for a session that writes nothing

    async def get(self, *, guild_id: int, channel_id: int, for_update: bool = False) -> EncounterRecord | None:
        """The encounter of a channel of this server; `for_update` locks its row where the database can."""
        values = {"channel_id": channel_id, "guild_id": guild_id}
        if for_update:
            row = (await self.session.execute(_OF_CHANNEL_LOCKED, values)).first()
        else:
            row = next(iter(await read_rows(self.session, self.reads, _OF_CHANNEL, values)), None)
        if row is None:
            return None
        return await self._fighting(_record(row), for_update=for_update)

    async def _fighting(self, record: EncounterRecord, *, for_update: bool) -> EncounterRecord:
        """The record with its characters read, and their hit points as their sheets hold them.

        A character deleted since it joined is not found: the fight keeps the numbers it last saw.
        """
        ids = [c.character_id for c in record.encounter.combatants if c.character_id is not None]
        if not ids:
            return record
        characters_of = CharacterRepository(self.session, self.reads)
        found = await characters_of.several(ids, guild_id=record.guild_id, for_update=for_update)
        characters = tuple(
            r for r in found if r.ruleset.key == record.encounter.ruleset and r.ruleset.health_of(r.sheet) is not None
        )
        encounter = _with_sheets(record.encounter, characters)
        state = record.state if encounter is record.encounter else rules.dump(encounter)
        return dataclasses.replace(record, encounter=encounter, state=state, characters=characters)

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
        self,
        record: EncounterRecord,
        encounter: Encounter,
        *,
        now: datetime,
        undoable: bool = True,
        what: str = "",
        at: int = 0,
    ) -> EncounterRecord:
        """Write the encounter's next state if it is still at the version it was read at.

        The hit points it changed of a combatant that is a character are written to the character's sheet in the
        same transaction (refused if the character changed since it was read). The state it replaces is kept for
        `undo` (the last UNDO_DEPTH of them), with what it did to the sheets, when the change is `undoable`; `what`
        names the change as the channel saw it, and `at` is the snowflake of the interaction that made it.
        """
        encounter, characters, changes = await self._write_sheets(record, encounter, now=now)
        history = record.history
        if undoable:
            before = {**record.state, WHAT: what, AT: at}
            if changes:
                before[SHEET_CHANGES] = changes
            history = (*history, before)[-UNDO_DEPTH:]
        state = rules.dump(encounter)
        await self._update(record, now, state=state, undo=list(history))
        return dataclasses.replace(
            record,
            version=record.version + 1,
            encounter=encounter,
            history=history,
            state=state,
            characters=characters,
        )

    async def _write_sheets(
        self, record: EncounterRecord, encounter: Encounter, *, now: datetime
    ) -> tuple[Encounter, tuple[CharacterRecord, ...], dict[str, list[int]]]:
        """Write the hit points `encounter` gives the record's characters to their sheets, where they changed.

        Returns the encounter with the numbers as the sheets took them (a sheet's range may be narrower than a
        fight's), the characters as saved, and what changed on each sheet, for undo.
        """
        by_id = {r.id: r for r in record.characters}
        repository = CharacterRepository(self.session)
        combatants = list(encounter.combatants)
        changes: dict[str, list[int]] = {}
        for index, combatant in enumerate(combatants):
            character = by_id.get(combatant.character_id) if combatant.character_id is not None else None
            if character is None:
                continue
            had = _health(character)
            if (combatant.hp, combatant.max_hp) == had:
                continue
            sheet = character.ruleset.with_health(character.sheet, combatant.hp, combatant.max_hp)
            saved = await repository.save(character, sheet, now=now)
            hp, top = _health(saved)
            combatants[index] = dataclasses.replace(combatant, hp=hp, max_hp=top)
            changes[str(saved.id)] = [*had, hp, top]
            by_id[saved.id] = saved
        if changes:
            encounter = dataclasses.replace(encounter, combatants=tuple(combatants))
        return encounter, tuple(by_id.values()), changes

    async def undo(self, record: EncounterRecord, *, now: datetime) -> EncounterRecord:
        """Take back the last change: the encounter returns to the state before it.

        Its characters get back what the change did to their hit points; a change made to them outside the fight
        since is kept, not overwritten.
        """
        if not record.history:
            raise EncounterError("There is no change left to undo.", title="Nothing to undo")
        *rest, entry = record.history
        last = {key: value for key, value in entry.items() if key not in KEPT_BESIDE}
        by_id = {r.id: r for r in record.characters}
        repository = CharacterRepository(self.session)
        for key, (hp_before, top_before, hp_after, top_after) in entry.get(SHEET_CHANGES, {}).items():
            character = by_id.get(int(key))
            if character is None:
                continue  # deleted since: nothing to give back
            hp, top = given_back(_health(character), before=(hp_before, top_before), after=(hp_after, top_after))
            sheet = character.ruleset.with_health(character.sheet, hp, top)
            by_id[character.id] = await repository.save(character, sheet, now=now)
        await self._update(record, now, state=last, undo=rest)
        characters = tuple(by_id.values())
        return dataclasses.replace(
            record,
            version=record.version + 1,
            encounter=_with_sheets(rules.load(last), characters),
            history=tuple(rest),
            state=last,
            characters=characters,
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
        self,
        *,
        guild_id: int,
        channel_id: int,
        hits: Sequence[tuple[str, Hit]],
        now: datetime,
        fight: int | None = None,
        describe: Callable[[Encounter, Sequence[Change]], str] | None = None,
        at: int = 0,
    ) -> tuple[EncounterRecord, list[Change]]:
        """Apply a resolved attack's hits (an AliensRL burst may hit several) to the combatants they name.

        One write in the caller's transaction, undone as one change. The row is locked where the database can
        (PostgreSQL), and the write is still version-checked, so a hit is never lost to a concurrent change.
        `fight`: the id of the fight the hits were rolled in (a waiting hit's); another fight here is refused.
        `describe`: the change as the channel sees it, for undo to name (by default whom the hits were on); `at`:
        the snowflake of the interaction that applies them.
        """
        record = await self.current(guild_id=guild_id, channel_id=channel_id, for_update=True)
        if fight is not None and record.id != fight:
            raise EncounterError(
                "The fight this roll was made in has ended: its hit is not for this one. `/encounter hp` changes "
                "hit points by hand.",
                title="Another fight",
            )
        encounter, changes = record.encounter, []
        for target, hit in hits:
            encounter, change = rules.apply_hit(encounter, rules.find(encounter, target).number, hit)
            changes.append(change)
        what = describe(encounter, changes) if describe is not None else _hits_on(changes)
        return await self.save(record, encounter, now=now, what=what, at=at), changes

    async def _update(self, record: EncounterRecord, now: datetime, **values: object) -> None:
        result = await self.session.execute(
            update(EncounterRow)
            .where(EncounterRow.id == record.id, EncounterRow.version == record.version)
            .values(version=record.version + 1, updated_at=now, **values)
        )
        if changed_rows(result) != 1:
            raise EncounterChanged()


def _hits_on(changes: Sequence[Change]) -> str:
    """Whom hits were on, never what they did (a hidden combatant's numbers): "the hit on Goblin 1"."""
    names = list(dict.fromkeys(change.name for change in changes))
    return f"the hit on {names[0]}" if len(names) == 1 else f"the hits on {', '.join(names)}"


def _health(character: CharacterRecord) -> tuple[int, int]:
    health = character.ruleset.health_of(character.sheet)
    assert health is not None  # `_fighting` keeps only characters with hit points
    return health


def _with_sheets(encounter: Encounter, characters: Iterable[CharacterRecord]) -> Encounter:
    """The encounter with each combatant that is one of `characters` at the hit points its sheet holds.

    The same encounter when nothing differs, so a caller can tell without comparing.
    """
    health = {r.id: _health(r) for r in characters}
    combatants = list(encounter.combatants)
    changed = False
    for index, combatant in enumerate(combatants):
        sheet = health.get(combatant.character_id) if combatant.character_id is not None else None
        if sheet is not None and sheet != (combatant.hp, combatant.max_hp):
            combatants[index] = dataclasses.replace(combatant, hp=sheet[0], max_hp=sheet[1])
            changed = True
    return dataclasses.replace(encounter, combatants=tuple(combatants)) if changed else encounter
