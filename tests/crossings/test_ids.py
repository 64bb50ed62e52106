"""Ids are never reused, and a button or form naming a deleted record says so (#25 item 4).

SQLite gave a new row the id of the newest row deleted before it: an old "Apply 8 damage to Goblin" button then
hit another member's new character, and /history and /stats showed the deleted character's rolls under it.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import JSON, BigInteger, Boolean, DateTime, Integer, String, create_engine, delete, insert, select, text

from bot.db.characters import CharacterRepository
from bot.db.codec import CompactJSON
from bot.db.engine import Database, open_database
from bot.db.migrate import alembic_config, current_revision, head_revision, upgrade
from bot.db.models import Base, Character, EncounterRow, FairSession, Macro
from bot.local.driver import Exchange, LocalDiscord
from bot.local.payloads import MANAGER_PERMISSIONS, Actor
from tests.conftest import FIXED_TIME, POSTGRES
from tests.dice_sources import ScriptedDice
from tests.helpers import RED, button

GM = "300000000000000003"
BOB = "300000000000000004"
DELETED = "**Goblin** was deleted. Nothing was changed."


def ok(exchange: Exchange) -> Exchange:
    assert exchange.rejected == [] and exchange.embed.get("color") != RED, exchange.embed
    return exchange


async def character(local: LocalDiscord, name: str, actor: Actor) -> int:
    """A D&D character of `actor` with 30 of 30 hit points and a longsword; its number."""
    created = ok(await local.command("character create", {"ruleset": "dnd35", "name": name}, actor=actor))
    ok(await local.command("character set", {"character": name, "values": "hp=30/30"}, actor=actor))
    ok(await local.command("character weapon add", {"character": name, "name": "Longsword"}, actor=actor))
    return int(created.embed["footer"]["text"].split()[0][1:])


async def delete_character(local: LocalDiscord, name: str, actor: Actor) -> None:
    asked = await local.command("character delete", {"character": name}, actor=actor)
    deleted = await local.click(local.original(asked), "confirm", actor=actor)
    assert deleted.response["data"]["embeds"][0]["title"] == "Deleted", deleted.response


async def hit_points(database: Database, character_id: int, guild_id: int) -> int:
    async with database.read() as session:
        record = await CharacterRepository(session).get(character_id, guild_id=guild_id)
    assert record is not None
    return int(record.sheet.hit_points)  # type: ignore[attr-defined]


async def hit_goblin(local: LocalDiscord) -> tuple[dict[str, Any], str]:
    """A member's attack that hits the Goblin for 8: its answer and the Apply damage button's custom id."""
    local.bot.dice = ScriptedDice([15, 5])  # 15 + 5 hits; 1d8 → 5 + 3
    attack = await local.command("dnd attack", {"target": "Goblin", "attack_bonus": 5, "damage": "1d8+3"})
    message = local.original(attack)
    buttons = {c["label"]: c["custom_id"] for row in message["components"] for c in row["components"]}
    return message, buttons["Apply 8 damage to Goblin"]


async def test_a_deleted_characters_id_is_never_given_again(local: LocalDiscord) -> None:
    gm, bob = local.as_user(GM), local.as_user(BOB)
    goblin = await character(local, "Goblin", gm)
    await delete_character(local, "Goblin", gm)
    orc = await character(local, "Orc", bob)
    assert orc > goblin
    await delete_character(local, "Orc", bob)
    assert await character(local, "Goblin", gm) > orc


@pytest.mark.parametrize("model", [Character, FairSession, EncounterRow, Macro], ids=lambda m: m.__tablename__)
async def test_no_table_whose_ids_are_kept_elsewhere_gives_an_id_twice(database: Database, model: Any) -> None:
    required = [column for column in model.__table__.columns if column.name != "id" and not column.nullable]
    values = {column.name: _value(column.type) for column in required}
    ids = []
    for _ in range(2):
        async with database.write.begin() as session:
            ids.append(await session.scalar(insert(model).values(**values).returning(model.id)))
            await session.execute(delete(model).where(model.id == ids[-1]))
    assert ids[1] > ids[0]


def _value(kind: Any) -> Any:
    """A value a NOT NULL column of this type takes (one row at a time: unique ones need not differ)."""
    if isinstance(kind, Boolean):
        return False
    if isinstance(kind, Integer | BigInteger):
        return 1
    if isinstance(kind, String):
        return "x"
    if isinstance(kind, DateTime):
        return FIXED_TIME
    if isinstance(kind, JSON | CompactJSON):
        return {}
    raise AssertionError(f"no test value for {kind!r}")


async def test_an_old_apply_damage_button_after_delete_and_create_touches_nobody(
    local: LocalDiscord, database: Database
) -> None:
    gm = local.as_user(GM, permissions=MANAGER_PERMISSIONS)
    goblin = await character(local, "Goblin", gm)
    message, hurt = await hit_goblin(local)
    await delete_character(local, "Goblin", gm)
    orc = await character(local, "Orc", local.as_user(BOB))
    assert orc != goblin

    pressed = await local.click(message, hurt, actor=gm)
    assert pressed.ephemeral and pressed.embed["color"] == RED
    assert (pressed.embed["title"], pressed.embed["description"]) == ("Character deleted", DELETED)
    assert await hit_points(database, orc, int(gm.guild_id or 0)) == 30


async def test_a_reused_id_of_an_old_database_is_told_apart_by_when_it_was_created(
    local: LocalDiscord, database: Database
) -> None:
    """A database from before ids were kept unique may have given a deleted character's id to a newer one."""
    gm = local.as_user(GM, permissions=MANAGER_PERMISSIONS)
    guild_id = int(gm.guild_id or 0)
    goblin = await character(local, "Goblin", gm)
    ok(await local.command("dnd attack", {"character": "Goblin", "target_ac": 10}, actor=gm))
    message, hurt = await hit_goblin(local)
    form = (await local.command("character edit", {"character": "Goblin"}, actor=gm)).modal
    second_thoughts = await local.command("character delete", {"character": "Goblin"}, actor=gm)
    shown = local.original(await local.command("character show", {"character": "Goblin"}, actor=gm))
    async with database.read() as session:
        stored = await session.get(Character, goblin)
        assert stored is not None
        sheet = stored.sheet
    await delete_character(local, "Goblin", gm)

    later = FIXED_TIME + timedelta(hours=1)
    local.bot.clock = lambda: later
    async with database.write.begin() as session:  # as the old database did: Goblin's id for Bob's new Orc
        session.add(
            Character(
                id=goblin, guild_id=guild_id, owner_id=int(BOB), ruleset="dnd35", name="Orc", name_key="orc",
                sheet=sheet, version=1, created_at=later, updated_at=later,
            )
        )  # fmt: skip

    pressed = await local.click(message, hurt, actor=gm)
    assert (pressed.embed["title"], pressed.embed["description"]) == ("Character deleted", DELETED)
    edited = await local.submit(form, {"hit_points": "1/30"}, actor=gm)
    assert edited.embed["description"] == "**Goblin** was deleted. Nothing was saved."
    confirmed = await local.click(local.original(second_thoughts), "confirm", actor=gm)
    assert confirmed.response["data"]["embeds"][0]["title"] == "Already gone"
    assert await hit_points(database, goblin, guild_id) == 30  # the Orc's, untouched and still there
    page = await local.click(shown, button(shown, "Page 2") or "", actor=gm)
    assert page.ephemeral and page.embed["description"] == "This character was deleted."

    # The Goblin's attack is not the Orc's.
    history = ok(await local.command("history", {"character": f"#{goblin}"}, actor=gm))
    assert history.embed["title"] == "Latest rolls with Orc"
    assert history.embed["description"] == "No public rolls here yet."
    stats = ok(await local.command("stats", {"character": f"#{goblin}"}, actor=gm))
    assert stats.embed["description"].startswith("No rolls with odds yet"), stats.embed


async def test_a_sheet_page_of_a_deleted_character_says_so(local: LocalDiscord) -> None:
    gm = local.as_user(GM)
    goblin = await character(local, "Goblin", gm)
    sheet = local.original(await local.command("character show", {"character": "Goblin"}, actor=gm))
    await delete_character(local, "Goblin", gm)
    page = button(sheet, "Page 2")
    assert page is not None and page.startswith(f"sheet:{goblin}:2:")
    # And a message sent before buttons carried when the character was created.
    older = json.loads(json.dumps(sheet).replace(page, f"sheet:{goblin}:2"))
    for message in (sheet, older):
        pressed = await local.click(message, button(message, "Page 2") or "", actor=gm)
        assert pressed.ephemeral and pressed.embed["description"] == "This character was deleted."


# ---------------------------------------------------------------------------------------------------------
# An existing database upgrades, every row with its id, and ids named only by the roll log stay taken.

ROW_TIME = "2026-01-01 12:00:00.000000"


@pytest.mark.skipif(POSTGRES, reason="an SQLite file; PostgreSQL's sequences never reused an id: 0020 is a no-op")
async def test_an_existing_database_keeps_its_rows_and_ids_and_never_reissues_a_logged_id(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    url = f"sqlite:///{path}"
    with create_engine(url).begin() as connection:  # the schema just before ids were kept unique
        command.upgrade(alembic_config(connection), "0019")
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("PRAGMA foreign_keys=ON")
        for number, name in ((1, "Ann"), (2, "Bo"), (4, "Cy"), (5, "Di")):
            db.execute(
                "INSERT INTO characters (id, guild_id, owner_id, ruleset, name, name_key, sheet, version, created_at,"
                " updated_at, secret) VALUES (?, 1, 2, 'dnd35', ?, ?, '{}', 1, ?, ?, 0)",
                (number, name, name.lower(), ROW_TIME, ROW_TIME),
            )
        db.execute("INSERT INTO active_characters VALUES (1, 2, 'dnd35', 4)")
        db.execute("INSERT INTO character_memory VALUES (4, '{\"weapons\": {}}')")
        db.execute("INSERT INTO applied_damage VALUES (77, 1, 4, 3, 2, ?)", (ROW_TIME,))
        # Character 9 was deleted, but the log keeps its rolls; 5 is deleted now, with nothing left naming it.
        db.execute(
            "INSERT INTO roll_log (id, interaction_id, user_id, command, inputs, result, private, created_at,"
            " character_id) VALUES (3, 1, 2, 'roll', x'', x'', 0, ?, 9)",
            (ROW_TIME,),
        )
        db.execute("DELETE FROM characters WHERE id = 5")
        db.execute(
            "INSERT INTO fair_sessions VALUES (6, 1, 1, 'c', 's', 1, 2, ?, NULL)",
            (ROW_TIME,),
        )
    before = _dump(path)

    database = open_database(f"sqlite+aiosqlite:///{path}")
    await upgrade(database)
    assert await current_revision(database) == head_revision()
    # Every row of every table, ids and all: no cascade emptied the characters' rows (columns added since aside).
    assert {
        table: [row[: len(rows[0])] for row in _dump(path)[table]] if rows else [] for table, rows in before.items()
    } == before
    async with database.read() as session:  # off for the migration only: no connection kept that way
        assert (await session.execute(text("PRAGMA foreign_keys"))).scalar() == 1
    async with database.write.begin() as session:
        new = await session.scalar(
            insert(Character)
            .values(guild_id=1, owner_id=2, ruleset="dnd35", name="Ed", name_key="ed", sheet={}, version=1,
                    created_at=FIXED_TIME, updated_at=FIXED_TIME)
            .returning(Character.id)
        )  # fmt: skip
        fair = await session.scalar(
            insert(FairSession)
            .values(channel_id=1, commitment="d", seed="t", next_roll=1, started_by=2, started_at=FIXED_TIME)
            .returning(FairSession.id)
        )
        assert (await session.execute(select(Character.id).order_by(Character.id))).scalars().all() == [1, 2, 4, new]
    assert new == 10  # after the roll log's 9; 5 is not known to have been used, and nothing names it
    assert fair == 7
    await database.dispose()


def _dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the bot, in id order."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        return {table: list(db.execute(f"SELECT * FROM {table} ORDER BY rowid")) for table in Base.metadata.tables}
