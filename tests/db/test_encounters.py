"""The encounter store: one per channel, compare-and-set on the version, undo, a hit applied in one transaction."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.db.encounters import UNDO_DEPTH, EncounterChanged, EncounterRepository
from bot.db.engine import Database
from bot.rules import encounter as rules
from bot.rules.encounter import EncounterError, Hit, Side
from tests.dice_sources import NoDice

NOW = datetime(2026, 1, 1, tzinfo=UTC)
GUILD, CHANNEL = 10, 20


def ogres() -> rules.Encounter:
    fighters = [
        rules.combatant("dnd35", name, owner_id=1, side=Side.FOES, hp=30, max_hp=30)
        for name in rules.numbered("Ogre", 2, [])
    ]
    return rules.add(rules.new_encounter("dnd35", "Cave", 1), fighters, NoDice())


async def test_one_encounter_per_channel_and_only_in_its_server(database: Database) -> None:
    async with database.write.begin() as session:
        await EncounterRepository(session).start(guild_id=GUILD, channel_id=CHANNEL, encounter=ogres(), now=NOW)
    with pytest.raises(EncounterError, match="already runs"):
        async with database.write.begin() as session:
            await EncounterRepository(session).start(guild_id=GUILD, channel_id=CHANNEL, encounter=ogres(), now=NOW)
    async with database.read() as session:
        repository = EncounterRepository(session)
        assert (await repository.current(guild_id=GUILD, channel_id=CHANNEL)).encounter == ogres()
        assert await repository.get(guild_id=GUILD + 1, channel_id=CHANNEL) is None
        assert await repository.get(guild_id=GUILD, channel_id=CHANNEL + 1) is None


async def test_a_change_prepared_against_an_older_version_is_refused(database: Database) -> None:
    async with database.write.begin() as session:
        record = await EncounterRepository(session).start(
            guild_id=GUILD, channel_id=CHANNEL, encounter=ogres(), now=NOW
        )
    changed, _ = rules.apply_hit(record.encounter, 1, Hit(damage=5))
    async with database.write.begin() as session:
        saved = await EncounterRepository(session).save(record, changed, now=NOW)
    assert saved.version == 2
    with pytest.raises(EncounterChanged):
        async with database.write.begin() as session:
            await EncounterRepository(session).save(record, changed, now=NOW)  # still at version 1
    async with database.read() as session:
        stored = await EncounterRepository(session).current(guild_id=GUILD, channel_id=CHANNEL)
    assert stored.version == 2 and rules.find(stored.encounter, "Ogre 1").hp == 25


async def test_apply_hit_and_undo(database: Database) -> None:
    async with database.write.begin() as session:
        await EncounterRepository(session).start(guild_id=GUILD, channel_id=CHANNEL, encounter=ogres(), now=NOW)
    async with database.write.begin() as session:
        record, change = await EncounterRepository(session).apply_hit(
            guild_id=GUILD, channel_id=CHANNEL, target="ogre 2", hit=Hit(damage=12), now=NOW
        )
    assert change.summary == "Ogre 2: 30 → 18 hp" and record.undoable == 1
    async with database.write.begin() as session:
        repository = EncounterRepository(session)
        undone = await repository.undo(await repository.current(guild_id=GUILD, channel_id=CHANNEL), now=NOW)
    assert undone.encounter == ogres() and undone.undoable == 0
    with pytest.raises(EncounterError, match="no change left"):
        async with database.write.begin() as session:
            await EncounterRepository(session).undo(undone, now=NOW)


async def test_undo_keeps_the_last_changes_only(database: Database) -> None:
    async with database.write.begin() as session:
        record = await EncounterRepository(session).start(
            guild_id=GUILD, channel_id=CHANNEL, encounter=ogres(), now=NOW
        )
    for _ in range(UNDO_DEPTH + 3):
        changed, _ = rules.apply_hit(record.encounter, 1, Hit(damage=1))
        async with database.write.begin() as session:
            record = await EncounterRepository(session).save(record, changed, now=NOW)
    assert record.undoable == UNDO_DEPTH
    async with database.write.begin() as session:
        repository = EncounterRepository(session)
        await repository.end(await repository.current(guild_id=GUILD, channel_id=CHANNEL))
    async with database.read() as session:
        assert await EncounterRepository(session).get(guild_id=GUILD, channel_id=CHANNEL) is None
