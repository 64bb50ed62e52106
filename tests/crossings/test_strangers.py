"""Strangers: a member without Manage Server tries every command on someone else's data, by name and by #id.

The design (docs/commands.md, cogs/characters.py): anyone in a server may look at a character there, and roll with it
by `#id`; only its owner changes it (moderators may also delete it); characters of other servers do not
exist here; private and hidden rolls are never listed. Afterwards the database must be exactly as before.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import select

from bot.db.engine import Database
from bot.db.models import ActiveCharacter, Character, FairSession, GuildSetting, RollLog
from bot.local.driver import Exchange, LocalDiscord
from bot.local.payloads import MANAGER_PERMISSIONS, Actor, user_object
from tests.helpers import ALICE, BOB, GM_CHANNEL, OTHER_GUILD

SECRET = "Zq7 secret label"


async def snapshot(database: Database) -> dict[str, Any]:
    """Everything the bot keeps, as plain values."""
    async with database.read() as session:
        characters = [
            (c.id, c.guild_id, c.owner_id, c.name, c.version, json.dumps(c.sheet, sort_keys=True))
            for c in (await session.scalars(select(Character).order_by(Character.id))).all()
        ]
        active = [
            (a.guild_id, a.user_id, a.ruleset, a.character_id) for a in (await session.scalars(select(ActiveCharacter)))
        ]
        settings = [(s.guild_id, s.key, s.value) for s in (await session.scalars(select(GuildSetting)))]
        fair = [(f.id, f.revealed_at) for f in (await session.scalars(select(FairSession)))]
        rolls = [(r.id, r.user_id, r.private) for r in (await session.scalars(select(RollLog).order_by(RollLog.id)))]
    return {"characters": characters, "active": active, "settings": settings, "fair": fair, "rolls": rolls}


def channel() -> dict[str, Any]:
    """The GM channel as an option's resolved data."""
    return {"id": GM_CHANNEL, "type": 0, "name": "gm", "permissions": MANAGER_PERMISSIONS, "parent_id": None}


def text_of(exchange: Exchange) -> str:
    """Everything the bot showed in answer, files included."""
    shown = json.dumps(exchange.messages) + json.dumps(exchange.response.get("data") or {})
    return shown + "".join(data.decode(errors="replace") for data in exchange.files.values())


def number(exchange: Exchange) -> int:
    return int(exchange.embed["footer"]["text"].split()[0][1:])


class Table:
    """Alice's data, made by Alice; Bob is the stranger."""

    def __init__(self, local: LocalDiscord) -> None:
        self.local = local
        self.alice = local.actor
        self.bob = local.as_user(BOB)
        self.vasquez = self.regis = self.elsewhere = 0


@pytest_asyncio.fixture
async def table(local: LocalDiscord) -> Table:
    table = Table(local)
    moderator = local.as_user("200000000000000003", permissions=MANAGER_PERMISSIONS)
    await local.command(
        "settings gm-channel",
        [{"name": "channel", "type": 7, "value": GM_CHANNEL}],
        actor=moderator,
        resolved={"channels": {GM_CHANNEL: channel()}},
    )
    create = {"ruleset": "aliensrl", "name": "Vasquez"}
    table.vasquez = number(await local.command("character create", create))
    table.regis = number(await local.command("character create", {"ruleset": "dnd35", "name": "Regis"}))
    await local.command("character set", {"character": "Vasquez", "field": "rifle", "value": "3"})
    await local.command("character weapon add", {"character": "Regis", "name": "Longsword"})
    elsewhere = Actor(user_id=ALICE, guild_id=OTHER_GUILD, channel_id="400000000000000002")
    create = {"ruleset": "aliensrl", "name": "Elsewhere"}
    table.elsewhere = number(await local.command("character create", create, actor=elsewhere))
    await local.command("fair start")
    await local.command("roll", {"expression": "3d6", "label": SECRET, "private": True})
    await local.command("roll", {"expression": "3d6", "label": SECRET, "hidden": True})
    return table


def attempts(table: Table) -> list[tuple[str, dict[str, Any]]]:
    """Every command that reads or changes a character, aimed at Alice's by name and by number."""
    tried = []
    for character in ("Vasquez", f"#{table.vasquez}", "Regis", f"#{table.regis}", f"#{table.elsewhere}", "Elsewhere"):
        tried += [
            ("character show", {"character": character}),
            ("character use", {"character": character}),
            ("character set", {"character": character, "field": "pain", "value": "50"}),
            ("character set", {"character": character, "field": "bab", "value": "10"}),
            ("character edit", {"character": character}),
            ("character rename", {"character": character, "new_name": "Stolen"}),
            ("character weapon add", {"character": character, "name": "Smartgun"}),
            ("character weapon remove", {"character": character, "name": "Longsword"}),
            ("character delete", {"character": character}),
            ("dnd attack", {"character": character, "target_ac": 10}),
            ("dnd ac", {"character": character}),
            ("aliens fire", {"character": character, "distance": 3}),
        ]
    return tried


async def test_a_stranger_changes_nothing_of_anyone_elses(table: Table, database: Database) -> None:
    local, bob = table.local, table.bob
    before = await snapshot(database)
    for name, options in attempts(table):
        exchange = await local.command(name, options, actor=bob)
        assert exchange.rejected == [], (name, options)
        shown = text_of(exchange)
        assert SECRET not in shown, (name, options)
        if options["character"] != "Elsewhere":  # an answer may repeat the name typed, never find it
            assert "Elsewhere" not in shown, (name, options, shown[:300])
        if exchange.response["type"] == 9:  # an edit form: never for someone else's character
            raise AssertionError(f"/{name} {options} opened a form for Bob")
        if name == "character delete" and "Delete" in exchange.embed.get("title", ""):
            raise AssertionError(f"/{name} {options} offered Bob to delete it")
    # Explicitly naming Alice does not help either.
    for name in ("character delete", "character show"):
        options = [{"name": "character", "type": 3, "value": "Vasquez"}, {"name": "user", "type": 6, "value": ALICE}]
        exchange = await local.command(name, options, actor=bob, resolved={"users": {ALICE: user_object(ALICE)}})
        assert "Delete" not in exchange.embed["title"]
    # Bob's own whole-account commands reach only Bob's data.
    exported = await local.command("character export", actor=bob)
    assert json.loads(exported.files["characters.json"])["characters"] == []
    asked = await local.command("character forget-me", actor=bob)
    assert (await local.click(local.original(asked), "confirm", actor=bob)).rejected == []
    # Settings and the fair session are not Bob's to change.
    for name, options in [("settings set", {"setting": "dnd.stacking", "value": "srd"}), ("fair reveal", {})]:
        exchange = await local.command(name, options, actor=bob)
        assert exchange.ephemeral and exchange.embed["color"] == 0xE74C3C, (name, exchange.embed)
    gm = await local.command(
        "settings gm-channel",
        [{"name": "channel", "type": 7, "value": "300000000000000002"}],
        actor=bob,
        resolved={"channels": {"300000000000000002": {**channel(), "id": "300000000000000002", "name": "dice"}}},
    )
    assert gm.embed["title"] == "Not allowed"
    after = await snapshot(database)
    # Bob's own rolls of the fair session stay after his forget-me (they are the channel's proof, #26); nothing of
    # anyone else's changed.
    after["rolls"] = [roll for roll in after["rolls"] if roll[1] != int(bob.user_id)]
    assert after == before


async def test_a_stranger_reads_only_what_the_server_may_see(table: Table) -> None:
    local, bob = table.local, table.bob
    # By design the sheet of a character of this server is public, by number or with the owner named...
    shown = await local.command("character show", {"character": f"#{table.vasquez}"}, actor=bob)
    assert shown.embed["title"] == "Vasquez"
    # ...but a name alone reaches only Bob's own characters, and other servers' characters do not exist here.
    mine = await local.command("character show", {"character": "Vasquez"}, actor=bob)
    assert mine.embed["title"] == "No such character"
    elsewhere = await local.command("character show", {"character": f"#{table.elsewhere}"}, actor=bob)
    assert elsewhere.embed["description"] == f"There is no character #{table.elsewhere} in this server."
    suggested = await local.autocomplete("character show", {"character": ""}, focused="character", actor=bob)
    assert suggested.choices == []  # Bob has none here; Alice's are not offered by name
    # Private and hidden rolls are never listed, not even when asking for Alice's rolls.
    for options, resolved in [
        (None, None),
        ([{"name": "user", "type": 6, "value": ALICE}], {"users": {ALICE: user_object(ALICE)}}),
    ]:
        history = await local.command("history", options, actor=bob, resolved=resolved)
        assert SECRET not in text_of(history)
        assert history.embed["description"] == "No public rolls here yet."


@pytest.mark.parametrize("button", ["confirm", "cancel"])
@pytest.mark.parametrize("command", ["character delete", "character forget-me", "character import"])
async def test_a_stranger_cannot_answer_anyone_elses_question(
    table: Table, database: Database, command: str, button: str
) -> None:
    local = table.local
    if command == "character import":
        exported = await local.command("character export")
        value, resolved = local.upload("characters.json", exported.files["characters.json"])
        asked = await local.command(
            "character import", [{"name": "file", "type": 11, "value": value}], resolved=resolved
        )
    else:
        asked = await local.command(command, {"character": "Vasquez"} if command == "character delete" else None)
    before = await snapshot(database)
    pressed = await local.click(local.original(asked), button, actor=table.bob)
    assert pressed.response["data"]["embeds"][0]["title"] == "Not your question"
    assert await snapshot(database) == before
    # The question is still Alice's to answer.
    answered = await local.click(local.original(asked), button)
    assert answered.response["type"] == 7


async def test_a_strangers_roll_again_and_details_change_nothing(table: Table, database: Database) -> None:
    local = table.local
    first = await local.command("dnd attack", {"attack_bonus": 5, "damage": "1d8+3", "target_ac": 15})
    message = local.original(first)
    before = await snapshot(database)
    again = await local.click(message, f"again:{first.payload['id']}", actor=table.bob)
    assert again.ephemeral and again.embed["title"] == "Not your roll"
    details = await local.click(message, f"details:{first.payload['id']}:full", actor=table.bob)
    assert details.ephemeral and details.response["type"] == 4  # shown to Bob alone, the message untouched
    assert local.original(first) == message
    assert await snapshot(database) == before


async def test_a_stranger_cannot_submit_anyone_elses_edit_form(table: Table, database: Database) -> None:
    local, bob = table.local, table.bob
    troll = number(await local.command("character create", {"ruleset": "aliensrl", "name": "Troll"}, actor=bob))
    alices = (await local.command("character edit", {"character": "Vasquez"})).modal
    bobs = (await local.command("character edit", {"character": f"#{troll}"}, actor=bob)).modal
    assert alices["custom_id"] != bobs["custom_id"]
    before = await snapshot(database)
    # Bob submits a form with the id of Alice's: refused, nothing saved.
    forged = await local.submit(alices, {"pain": "99"}, actor=bob)
    assert forged.embed["title"] == "Not your form"
    assert await snapshot(database) == before
    # Each one's own form saves into their own character only (one fixed id once sent Alice's numbers
    # into the character of whoever opened a form last).
    await local.submit(alices, {"pain": "7"})
    saved = await local.submit(bobs, {"pain": "3"}, actor=bob)
    assert saved.embed["title"] == "Troll", saved.embed
    shown = await local.command("character show", {"character": f"#{table.vasquez}"})
    theirs = await local.command("character show", {"character": f"#{troll}"})
    assert "7" in json.dumps(shown.embed) and "version 3" in shown.embed["footer"]["text"]
    assert "version 2" in theirs.embed["footer"]["text"]
