"""What many test files share: the people and places of the test server, reading an answer, making characters,
secrets and fights through the commands, and reading the database.

Put a helper here once a second file needs it; a test file never imports another test file. Fixtures live in
tests/conftest.py; the dice sources in tests/dice_sources.py, the shard processes in tests/shards.py and the
statistics in tests/stats.py.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import random
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import discord
import pytest
from PIL import Image
from sqlalchemy import func, select, update

from bot.client import DiceBot
from bot.config import Settings
from bot.db.characters import CharacterRepository
from bot.db.encounters import EncounterRepository
from bot.db.engine import Database, Readers, open_database
from bot.db.models import FairSession, RollLog
from bot.db.rolls import RollRepository
from bot.local import payloads
from bot.local.double import Captured, DiscordDouble
from bot.local.driver import DEFAULT_CHANNEL, DEFAULT_GUILD, DEFAULT_USER, Exchange, LocalDiscord
from bot.local.limits import sync_payload
from bot.local.payloads import GM_ROLE, MANAGER_PERMISSIONS, Actor, role_object, user_object
from bot.rules import encounter as rules
from bot.rules.encounter import Encounter
from bot.rules.fair_log import LogRoll, parse_log
from bot.ui.embeds import phone_lines
from bot.ui.map import View
from tests.dice_sources import NoDice, ScriptedDice
from tests.shards import environment

ROOT = Path(__file__).resolve().parents[1]  # the repository

# ---------------------------------------------------------------------------------------------------------
# The test server's people and places (the driver's default user, server and channel are bot.local.driver's).

ALICE = DEFAULT_USER  # the driver's default user: she rolls, owns the characters, starts every fight
BOB = "200000000000000002"  # another member: a player, or a stranger to Alice's things
MOD = "200000000000000003"  # a member with Manage Server
GM = "200000000000000010"  # a game master who keeps secret characters
CAROL = "200000000000000012"  # a member who is neither the roller, the owner nor a game master
MANAGER = "200000000000000099"  # a member with Manage Server who takes no part in the fight
GM_CHANNEL = "300000000000000077"  # the server's game master channel, once named
OTHER_GUILD = "400000000000000001"

# Embed colours: what an answer means.
RED = 0xE74C3C  # an error
GREY = 0x607D8B  # a miss
GREEN = 0x2ECC71  # a hit
BLURPLE = 0x5865F2  # a plain roll

# ---------------------------------------------------------------------------------------------------------
# Reading an answer.


def ok(exchange: Exchange) -> dict[str, Any]:
    """The answer's embed, after checking Discord took everything and it is not an error."""
    assert exchange.rejected == [], exchange.requests
    embed = exchange.embed
    assert embed.get("color") != RED, embed
    return embed


def fields(exchange: Exchange) -> dict[str, str]:
    """The fields of the answer's embed, value by name."""
    return {f["name"]: f["value"] for f in exchange.embed["fields"]}


def field_lines(exchange: Exchange, field: str) -> list[str]:
    """The lines of one field of the answer's embed."""
    return fields(exchange)[field].split("\n")


def described(message: dict[str, Any]) -> str:
    """The description of a message's first embed."""
    return str(message["embeds"][0]["description"])


def text(exchange: Exchange | dict[str, Any]) -> str:
    """Everything a message shows, as one string to search."""
    return json.dumps(exchange if isinstance(exchange, dict) else exchange.response, ensure_ascii=False)


def height(embed: dict[str, Any]) -> int:
    """How many lines an embed takes on a phone screen."""
    return phone_lines(discord.Embed.from_dict(embed))


def buttons(message: dict[str, Any]) -> dict[str, str]:
    """Label -> custom id of every button on a message."""
    return {c["label"]: c["custom_id"] for row in message.get("components", []) for c in row["components"]}


def button(message: dict[str, Any], label: str) -> str | None:
    """The custom id of the button labelled `label` on a message, if it has one."""
    return buttons(message).get(label)


async def pages(
    local: LocalDiscord, exchange: Exchange, *, actor: Actor | None = None, first: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Every page of an answer, first to last, pressing its Page buttons in turn (as `actor`, default the user).

    `first`: the message showing page 1 (default: the answer as the double holds it now). A page shown in
    place edits that message; one shown privately is a new message, whose buttons are pressed next.
    """
    message = first if first is not None else local.original(exchange)
    embeds = [message["embeds"][0]]
    while (next_page := button(message, f"Page {len(embeds) + 1}")) is not None:
        clicked = await local.click(message, next_page, actor=actor)
        [shown] = clicked.messages
        embeds.append(shown["embeds"][0])
        message = local.original(exchange) if clicked.response["type"] == 7 else {**shown, "id": message["id"]}
    return embeds


def forged(message: dict[str, Any], custom_id: str) -> dict[str, Any]:
    """`message` as a crafted payload carries it: with a button of any custom id (discord.py dispatches a
    button only if the message in the payload has it, and the payload is the client's to make up)."""
    button = {"type": 2, "style": 2, "label": "Details", "custom_id": custom_id}
    return {**message, "components": [{"type": 1, "components": [button]}]}


def user_option(user_id: str) -> list[dict[str, Any]]:
    """A user option as Discord sends it."""
    return [{"name": "user", "type": 6, "value": user_id}]


def resolved(user_id: str) -> dict[str, Any]:
    """The resolved data Discord sends with a user option."""
    return {"users": {user_id: user_object(user_id)}}


def role_option(role_id: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A role option as Discord sends it, and its resolved data."""
    return [{"name": "role", "type": 8, "value": role_id}], {"roles": {role_id: role_object(role_id)}}


# ---------------------------------------------------------------------------------------------------------
# Rolls with forced dice.

ODDS_LINE = re.compile(r"Odds: hit \d{1,3}\.\d% · crit \d{1,3}\.\d% · avg \d+\.\d\d")
# dnd35.md §8's worked example: AB +5 against AC 15 with a longsword's 19-20/x2 and 1d8+3.
WORKED = {"attack_bonus": 5, "damage": "1d8+3", "crit": "19-20/x2", "target_ac": 15}
# Star Frontiers quick mode: RW 40 + skill level 1 (+10) at point blank (0) = 50 before the situation.
QUICK_SHOT = {"score": 40, "skill": 1, "damage": "1d10", "distance": "point_blank"}
# Star Frontiers quick mode melee: MW 40 + skill level 1 (+10) = 50 before the situation.
QUICK_MELEE = {"score": 40, "skill": 1, "damage": "1d10"}
# +4 against AC 14 with 1d8: a d20 of 15 hits.
QUICK_ATTACK = {"attack_bonus": 4, "damage": "1d8", "target_ac": 14}
NOT_FOUND = "I can't find that roll in the log (it may still be being saved); try again in a moment."


async def attack(
    local: LocalDiscord, faces: list[int], options: dict[str, Any], *, command: str = "dnd attack"
) -> tuple[Exchange, ScriptedDice]:
    """One D&D command with forced dice: every face used, a public answer that fits Discord, the odds line."""
    dice = ScriptedDice(faces)
    local.bot.dice = dice
    exchange = await local.command(command, options)
    assert exchange.rejected == [], exchange.requests
    assert exchange.embed["color"] != RED, exchange.embed
    assert dice.exhausted, (dice.calls, faces)
    assert exchange.ephemeral is bool(options.get("private")), exchange.embed
    description = exchange.embed["description"].split("\n")
    if command == "dnd attack":
        assert len(description) == 2 and ODDS_LINE.fullmatch(description[1]), description
    else:
        assert re.fullmatch(r"Odds: avg \d+\.\d\d for the whole full attack", description[-1]), description
    return exchange, dice


async def set_variant(local: LocalDiscord, setting: str, value: str) -> None:
    """A moderator sets one of the server's rules variants."""
    moderator = local.as_user(MOD, permissions=MANAGER_PERMISSIONS)
    saved = await local.command("settings set", {"setting": setting, "value": value}, actor=moderator)
    assert saved.embed["title"] == "Setting saved", saved.embed


def rolls(local: LocalDiscord, count: int, *, first_user: int) -> list[dict[str, Any]]:
    """`count` interactions of `/roll 1d20`, each from another member (`first_user`, the next, ...)."""
    return [
        payloads.interaction(
            local.ids,
            local.as_user(str(first_user + i)),
            payloads.APPLICATION_COMMAND,
            payloads.command_data("roll", [{"name": "expression", "type": 3, "value": "1d20"}]),
        )
        for i in range(count)
    ]


def deliver(local: LocalDiscord, burst: list[dict[str, Any]]) -> None:
    """All at once, as a gateway hands over a backlog: nothing else runs between two arrivals (over the in-process
    gateway, sending would wait for the bot)."""
    for payload in burst:
        local.double.track(payload)
        local.bot._connection.parse_interaction_create(payload)


# ---------------------------------------------------------------------------------------------------------
# Characters, as a player makes them.


async def character(
    local: LocalDiscord,
    ruleset: str,
    name: str,
    *,
    actor: Actor | None = None,
    weapons: Mapping[str, str | None] | Iterable[tuple[str, str | None]] = (),
    **values: object,
) -> int:
    """A character made with `/character create`, its fields set one by one and its weapons added (a weapon's
    details, or None for none); its number."""
    created = await local.command("character create", {"ruleset": ruleset, "name": name}, actor=actor)
    assert created.rejected == [] and created.ephemeral and created.embed["color"] != RED, created.embed
    for field, value in values.items():
        changed = await local.command(
            "character set", {"character": name, "field": field, "value": str(value)}, actor=actor
        )
        assert changed.embed["title"] == "Saved", changed.embed
    for weapon, details in dict(weapons).items():
        options = {"character": name, "name": weapon} | ({} if details is None else {"details": details})
        added = await local.command("character weapon add", options, actor=actor)
        assert added.rejected == [] and weapon in json.dumps(added.messages), added.requests
        assert all(e.get("color") != RED for m in added.messages for e in m.get("embeds", [])), added.messages
    return int(created.embed["footer"]["text"].split()[0].lstrip("#"))


async def sheet(local: LocalDiscord, ruleset: str, name: str, values: str, *, actor: str | None = None) -> str:
    """A character made with `/character create` and one `/character set values:` line (by the user `actor`);
    its number as autocomplete fills it in ("#12")."""
    who = local.as_user(actor) if actor else None
    created = await local.command("character create", {"ruleset": ruleset, "name": name}, actor=who)
    assert created.rejected == [] and created.embed.get("color") != RED, created.embed
    number = "#" + created.embed["footer"]["text"].split()[0].lstrip("#")
    saved = await local.command("character set", {"character": number, "values": values}, actor=who)
    assert saved.embed["title"] == "Saved", saved.embed
    return number


async def dnd_character(
    local: LocalDiscord, name: str, weapons: Mapping[str, str | None] = {}, **values: object
) -> int:
    """A D&D 3.5 character (see `character`)."""
    return await character(local, "dnd35", name, weapons=weapons, **values)


async def sf_character(
    local: LocalDiscord, name: str, weapons: Iterable[tuple[str, str]] = (), **values: object
) -> int:
    """A Star Frontiers character (see `character`)."""
    return await character(local, "sf", name, weapons=weapons, **values)


async def create_vasquez(local: LocalDiscord, *, heavy: int = 2, pain: int = 1, details: str | None = None) -> None:
    """Vasquez, an AliensRL marine, with a Smartgun of the details given, if any."""
    await character(local, "aliensrl", "Vasquez", heavy=heavy, pain=pain)
    if details is not None:
        added = await local.command(
            "character weapon add", {"character": "Vasquez", "name": "Smartgun", "details": details}
        )
        assert "Smartgun" in fields(added)["Weapons"]


async def heaviest_fighter(local: LocalDiscord) -> None:
    """Max: BAB 60 and every two-weapon feat, two 99d999 weapons threatening on 2-20 at x6: the largest full attack."""
    heavy = "damage=99d999 threat=2 multiplier=6"
    await dnd_character(
        local,
        "Max",
        {"Longsword": heavy, "Short sword": heavy},
        bab=60,
        two_weapon_fighting=1,
        improved_two_weapon_fighting=1,
        greater_two_weapon_fighting=1,
    )


async def export(local: LocalDiscord, actor: Actor | None = None) -> bytes:
    """The file `/character export` attaches."""
    exchange = await local.command("character export", actor=actor)
    assert exchange.ephemeral
    return exchange.files["characters.json"]


async def import_(local: LocalDiscord, data: bytes, filename: str = "characters.json") -> Exchange:
    """`/character import` of a file holding `data`."""
    value, resolved = local.upload(filename, data)
    options = [{"name": "file", "type": 11, "value": value}]
    return await local.command("character import", options, resolved=resolved)


# ---------------------------------------------------------------------------------------------------------
# Game masters: their channel, their role, their secrets.

OGRE = "hp=15/30 natural_armor=5 dr=5/magic"  # the secret ogre's sheet
# A player's laser shot at the secret Sathar (Star Frontiers).
LASER = {"target": "Sathar", "score": 60, "skill": 2, "damage": "2d10 laser", "distance": "short"}


async def set_gm_channel(local: LocalDiscord, *, permissions: str = MANAGER_PERMISSIONS) -> Exchange:
    """A moderator names GM_CHANNEL the server's game master channel."""
    channel: dict[str, Any] = {
        "id": GM_CHANNEL,
        "type": 0,
        "name": "gm-screen",
        "guild_id": local.actor.guild_id,
        "permissions": permissions,
        "parent_id": None,
    }
    options = [{"name": "channel", "type": 7, "value": GM_CHANNEL}]
    return await local.command(
        "settings gm-channel",
        options,
        actor=local.as_user(MOD, permissions=permissions),
        resolved={"channels": {GM_CHANNEL: channel}},
    )


def in_gm_channel(local: LocalDiscord) -> Actor:
    """The moderator, in the GM channel."""
    return Actor(user_id=MOD, guild_id=local.actor.guild_id, channel_id=GM_CHANNEL, permissions=MANAGER_PERMISSIONS)


def gm_copy(local: LocalDiscord) -> dict[str, Any]:
    """The GM channel's latest copy of a hidden roll, as the double holds it now."""
    found = [m for m in local.double.messages.values() if m.get("channel_id") == GM_CHANNEL]
    return max(found, key=lambda m: int(m["id"]))


def gm_post(local: LocalDiscord) -> Captured:
    """The message the bot posted in the GM channel (it carries no interaction token)."""
    [posted] = [r for r in local.double.requests if r.method == "POST" and r.path == f"/channels/{GM_CHANNEL}/messages"]
    assert posted.status == 200  # the double checked it against Discord's limits
    return posted


async def name_gm_role(local: LocalDiscord, role_id: str = GM_ROLE) -> dict[str, Any]:
    """A moderator names the server's game master role; the answer's embed."""
    options, resolved = role_option(role_id)
    moderator = local.as_user(MOD, permissions=MANAGER_PERMISSIONS)
    return (await local.command("settings gm-role", options, resolved=resolved, actor=moderator)).embed


async def secret_ogre(local: LocalDiscord) -> str:
    """The game master's ogre, secret; its number as autocomplete fills it in."""
    gm = local.as_user(GM)
    created = await local.command("character create", {"ruleset": "dnd35", "name": "Ogre"}, actor=gm)
    assert created.rejected == [], created.requests
    ogre = "#" + created.embed["footer"]["text"].split()[0].lstrip("#")
    saved = await local.command("character set", {"character": ogre, "values": OGRE}, actor=gm)
    assert saved.embed["title"] == "Saved", saved.embed
    await local.command("character weapon add", {"character": ogre, "name": "Greatclub"}, actor=gm)
    marked = await local.command("character secret", {"character": ogre}, actor=gm)
    assert marked.ephemeral and "is now yours and the game masters'" in marked.embed["description"]
    return ogre


async def secret_sathar(local: LocalDiscord) -> str:
    """The game master's Sathar, secret; its number."""
    gm = local.as_user(GM)
    created = await local.command("character create", {"ruleset": "sf", "name": "Sathar"}, actor=gm)
    assert created.rejected == [], created.requests
    sathar = "#" + created.embed["footer"]["text"].split()[0].lstrip("#")
    for field, value in (("stamina", "50"), ("current_stamina", "37"), ("defenses", "albedo suit, skeinsuit")):
        saved = await local.command("character set", {"character": sathar, "field": field, "value": value}, actor=gm)
        assert saved.embed["title"] == "Saved", saved.embed
    marked = await local.command("character secret", {"character": sathar}, actor=gm)
    assert marked.ephemeral and "is now yours and the game masters'" in marked.embed["description"]
    return sathar


async def ogre(local: LocalDiscord, gm: Actor) -> int:
    """A game master's ogre (not secret), 30 of 30 hit points, AC 10; its number."""
    created = await local.command("character create", {"ruleset": "dnd35", "name": "Ogre"}, actor=gm)
    assert created.embed["color"] != RED, created.embed
    changed = await local.command("character set", {"character": "Ogre", "values": "hp=30/30"}, actor=gm)
    assert changed.embed["color"] != RED, changed.embed
    async with local.bot.database.read() as session:
        [found] = await CharacterRepository(session).named(guild_id=int(gm.guild_id or 0), owner_id=None, name="Ogre")
    return found.id


# ---------------------------------------------------------------------------------------------------------
# Fair sessions.

SLITH_HP = 41  # secret_session's quick creature's Stamina: the fight hides it


async def start_fair(local: LocalDiscord) -> str:
    """`/fair start` by the user; the session's commitment."""
    started = await local.command("fair start")
    assert not started.ephemeral
    return started.embed["description"].split("`")[1]


async def secret_session(local: LocalDiscord) -> tuple[Exchange, dict[str, int]]:
    """A player's fair session: a roll, then attacks at three secrets; its reveal, and each roll's number."""
    await secret_ogre(local)
    await secret_sathar(local)
    gm = local.as_user(GM)
    ok(await local.command("encounter start", {"ruleset": "sf", "name": "Port Loren", "hide_hp": True}, actor=gm))
    ok(await local.command("encounter add", {"name": "Slith", "hp": SLITH_HP, "rs": 40}, actor=gm))
    player = local.as_user(CAROL)
    local.bot.dice = NoDice()  # every die comes from the session's seed
    started = await local.command("fair start", actor=player)
    assert started.embed["title"] == "Fair dice: session started", started.embed
    await local.command("roll", {"expression": "2d6"}, actor=player)
    await local.command("dnd attack", {"attack_bonus": 30, "damage": "2d8+2", "target": "Ogre"}, actor=player)
    await local.command("sf shoot", {**LASER, "score": 90}, actor=player)
    await local.command("sf shoot", {**LASER, "score": 90, "target": "Slith"}, actor=player)
    revealed = await local.command("fair reveal", actor=player)
    assert revealed.embed["title"] == "Fair dice: seed revealed", revealed.embed
    return revealed, {"roll": 1, "ogre": 2, "sathar": 3, "slith": 4}


def attached(exchange: Exchange) -> bytes:
    """The one file an answer attached."""
    [data] = exchange.files.values()
    return data


async def copy_for(local: LocalDiscord, actor: Any) -> bytes:
    """The log `/fair log` gives `actor`; its note says whether it opens seals, so to keep it to oneself."""
    asked = await local.command("fair log", actor=actor)
    assert asked.ephemeral
    data = attached(asked)
    note = asked.messages[-1]["embeds"][0]["description"]
    opened = any(r.sealed.opened for r in parse_log(data).rolls if isinstance(r, LogRoll) and r.sealed)
    assert "(3 against a secret)" in note, note
    assert ("3 sealed rolls opened for you (keep this copy to yourself)" in note) is opened, note
    assert ("the sealed rolls' inputs and outcomes are left out" in note) is not opened, note
    return data


# ---------------------------------------------------------------------------------------------------------
# Fights.

ON_GOBLIN = {"target": "Goblin", "attack_bonus": 5, "damage": "1d8+3"}  # an attack on goblin_fight's Goblin


async def goblin_fight(local: LocalDiscord) -> dict[str, Any]:
    """A D&D fight with a Goblin of 30 hit points (AC 10) whose tracker the channel sees; that tracker."""
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    ok(await local.command("encounter add", {"name": "Goblin", "hp": 30, "ac": 10}))
    tracker = local.original(await local.command("encounter show"))
    assert "30/30 hp" in described(tracker)
    return tracker


async def stored(database: Database, channel: str = DEFAULT_CHANNEL) -> Encounter:
    """The fight of a channel of the test server, as the store holds it."""
    async with database.read() as session:
        record = await EncounterRepository(session).current(guild_id=int(DEFAULT_GUILD), channel_id=int(channel))
    return record.encounter


async def fight_id(database: Database, channel: str = DEFAULT_CHANNEL) -> int:
    """The id of the fight running in a channel of the test server (what its buttons name)."""
    async with database.read() as session:
        record = await EncounterRepository(session).current(guild_id=int(DEFAULT_GUILD), channel_id=int(channel))
    return record.id


def state(encounter: Encounter) -> list[tuple[str, int]]:
    """The turn order with hit points."""
    return [(c.name, c.hp) for c in encounter.combatants]


def conditions(combatant: rules.Combatant) -> list[tuple[str, int | None]]:
    """A combatant's conditions with the rounds they have left."""
    return [(c.name, c.rounds) for c in combatant.conditions]


def tracker_of(exchange: Exchange) -> dict[str, Any]:
    """The channel's tracker as an exchange last edited it in place (a pass of the turn, a change)."""
    edits = [r.body for r in exchange.requests if r.method == "PATCH" and r.path.startswith("/channels/")]
    assert edits, exchange.requests
    embed: dict[str, Any] = edits[-1]["embeds"][0]
    return embed


def whose_turn(encounter: Encounter) -> tuple[int, str | None]:
    """The round and whose turn it is."""
    return encounter.round, encounter.current.name if encounter.current else None


# ---------------------------------------------------------------------------------------------------------
# Pictures (the AliensRL map).


def near(pixel: Any, colour: tuple[int, int, int], tolerance: int = 10) -> bool:
    """Within `tolerance` of `colour` in every channel (the picture is drawn large and scaled down)."""
    return all(abs(int(a) - b) <= tolerance for a, b in zip(pixel[:3], colour, strict=True))


def middle(shown: View, square: tuple[int, int]) -> tuple[int, int]:
    """The pixel at the middle of a square."""
    x, y = shown.centre(square)
    return round(x), round(y)


def picture(png: bytes) -> Image.Image:
    """A PNG the bot attached, checked to be one, as RGB pixels."""
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.format == "PNG"
    return image.convert("RGB")


# ---------------------------------------------------------------------------------------------------------
# The database.


async def logged(database: Database) -> list[RollLog]:
    """Every row of the roll log, oldest first."""
    async with database.read() as session:
        return list((await session.scalars(select(RollLog).order_by(RollLog.id))).all())


async def count(database: Database, model: type[object], *where: Any) -> int:
    """How many rows of `model` the database holds, of those matching `where` if given."""
    async with database.read() as session:
        query = select(func.count()).select_from(model).where(*where)
        found: int = (await session.execute(query)).scalar_one()
        return found


# ---------------------------------------------------------------------------------------------------------
# The heaviest inputs (tests/test_free_loop.py runs them; tests/perf/bench_offloop.py times them).

ROLLS = 2_000  # rolls of a large fair session
LARGE = "1000d10000"  # each of its rolls


def command_payload(local: LocalDiscord, name: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The payload of a slash command `name` with integer and text options, as Discord would send it."""
    raw = [{"name": k, "type": 4 if isinstance(v, int) else 3, "value": v} for k, v in (options or {}).items()]
    return payloads.interaction(local.ids, local.actor, payloads.APPLICATION_COMMAND, payloads.command_data(name, raw))


async def large_session(local: LocalDiscord, database: Database, rolls: int = ROLLS) -> str:
    """A session of 2,000 rolls of 1000d10000 to reveal: one rolled, the rest its copies, inserted directly."""
    started = await local.command("fair start")
    commitment: str = started.embed["description"].split("`")[1]
    rolled = await local.command("roll", {"expression": LARGE})
    assert "Fair roll #1" in rolled.embed["footer"]["text"]
    async with database.write.begin() as session:
        row = (await session.scalars(select(RollLog).where(RollLog.fair_roll == 1))).one()
        assert row.draws is not None and len(row.draws) == 1000
        kept = "guild_id channel_id user_id command inputs result private created_at fair_session_id draws summary"
        copy = {column: getattr(row, column) for column in kept.split()}
        repository = RollRepository(session)
        base = int(rolled.payload["id"])
        for first in range(2, rolls + 1, 250):
            numbers = range(first, min(first + 250, rolls + 1))
            # Each copy under an interaction of its own, newer than the commitment's message, as a real roll's is.
            await repository.add_many([{**copy, "interaction_id": base + n, "fair_roll": n} for n in numbers])
        await session.execute(
            update(FairSession).where(FairSession.id == row.fair_session_id).values(next_roll=rolls + 1)
        )
    return commitment


TALLY = {
    "hits": [1.0, 0.55, 0.2475],
    "crits": [0.0, 0.0275, 0.02674375],
    "damage": [11.0, 4.33, 19.7],
    "nat20": [0.0, 0.05, 0.0475],
    "nat1": [1.0, 0.05, 0.0475],
}


async def many_tallies(local: LocalDiscord, database: Database, count: int = 20_000) -> None:
    """`count` logged attacks with a luck tally each: one rolled, the rest its copies, inserted directly."""
    await local.command("dnd attack", {"attack_bonus": 5, "damage": "1d8+3", "target_ac": 15})
    async with database.write.begin() as session:
        row = (await session.scalars(select(RollLog).order_by(RollLog.id.desc()))).first()
        assert row is not None
        copy = {c: getattr(row, c) for c in ("guild_id", "channel_id", "user_id", "command", "inputs", "result")}
        copy |= {"private": False, "created_at": row.created_at, "ruleset": "dnd35", "luck": TALLY}
        for first in range(0, count, 2_000):
            numbers = range(first, min(first + 2_000, count))
            await RollRepository(session).add_many([{**copy, "interaction_id": n} for n in numbers])


# The largest exact count the odds budget lets through (tests/perf/bench_hostile.py); more dice are approximated.
HEAVIEST_ODDS = {"attack_bonus": 5, "damage": "7d999", "target_ac": 15}


# ---------------------------------------------------------------------------------------------------------
# Bot processes.


async def start_bot(double: DiscordDouble, database_url: str, folder: Path, log: str) -> asyncio.subprocess.Process:
    """`python -m bot` connected to `double`, over `database_url`, logging to `folder / log`."""
    # A file, not a pipe: a pipe nobody reads would stall the bot once full.
    with open(folder / log, "wb") as output:  # noqa: ASYNC230 - opened once, before the process starts
        return await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", env=environment(double, database_url), cwd=folder, stderr=output
        )


def _leaf_commands() -> list[tuple[str, dict[str, Any]]]:
    """Every command a user can invoke, as Discord knows it from the sync: ("group sub", schema)."""

    async def schema() -> list[dict[str, Any]]:
        database = open_database("sqlite+aiosqlite://")  # never connected: loading cogs reads nothing
        bot = DiceBot(settings=Settings(database_url="sqlite+aiosqlite://"), database=database, dice=random.Random())
        await bot.load_cogs()
        payload = sync_payload(bot.tree)
        await database.dispose()
        return payload

    def walk(prefix: str, option: dict[str, Any], top: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
        options = option.get("options") or []
        if options and options[0]["type"] in (1, 2):
            for sub in options:
                yield from walk(f"{prefix} {sub['name']}", sub, top)
        else:
            yield prefix, {**option, "dm_permission": top.get("dm_permission", True)}

    return [leaf for command in asyncio.run(schema()) for leaf in walk(command["name"], command, command)]


COMMANDS = dict(_leaf_commands())


# -- what every answer must satisfy -----------------------------------------------------------------------
def autocomplete_problems(response: dict[str, Any]) -> list[str]:
    """Discord's limits on autocomplete results: at most 25 choices, names 1-100, string values up to 100."""
    choices = (response.get("data") or {}).get("choices", [])
    problems = [f"{len(choices)} choices > 25"] if len(choices) > 25 else []
    for choice in choices:
        if not 1 <= len(choice["name"]) <= 100:
            problems.append(f"choice name of {len(choice['name'])} characters")
        if isinstance(choice["value"], str) and len(choice["value"]) > 100:
            problems.append(f"choice value of {len(choice['value'])} characters")
    return problems


def modal_problems(response: dict[str, Any]) -> list[str]:
    """Discord's limits on a form: title up to 45, at most 5 inputs, labels up to 45, placeholders up to 100."""
    data = response.get("data") or {}
    problems = [] if 1 <= len(data.get("title", "")) <= 45 else ["modal title length"]
    rows = data.get("components", [])
    if len(rows) > 5:
        problems.append(f"{len(rows)} inputs > 5")
    for row in rows:
        component = row.get("component") or (row.get("components") or [{}])[0]
        label = row.get("label", component.get("label", ""))
        if not 1 <= len(label) <= 45:
            problems.append(f"label {label!r}")
        if len(component.get("placeholder") or "") > 100:
            problems.append("placeholder > 100")
        if len(component.get("value") or "") > component.get("max_length", 4000):
            problems.append("default value longer than the input allows")
    return problems


async def answered_cleanly(local: LocalDiscord, payload: dict[str, Any], caplog: pytest.LogCaptureFixture) -> Exchange:
    """Send one interaction and fail on anything Discord or the maintainers would call a bug."""
    caplog.clear()
    mark = len(local.double.requests)
    exchange = await local.send(payload)
    refused = [f"{r.status} {r.method} {r.path}: {r.body}" for r in local.double.requests[mark:] if r.status >= 400]
    assert refused == [], refused  # limits (400 / 50035), the 3-second deadline (404 / 10062), double answers
    logged = [
        f"{r.name}: {r.getMessage()} {r.exc_info[1] if r.exc_info else ''}"
        for r in caplog.records
        if r.levelno >= logging.ERROR or (r.levelno >= logging.WARNING and r.name.startswith("bot"))
    ]
    assert logged == [], logged  # the funnel logs bugs; discord.py logs what escapes it
    callbacks = [r for r in exchange.requests if r.path.endswith("/callback")]
    assert len(callbacks) == 1, f"expected one answer, got {len(callbacks)}"  # an exception that escaped
    response: dict[str, Any] = callbacks[0].body
    if response["type"] == 8:
        assert autocomplete_problems(response) == []
    if response["type"] == 9:
        assert modal_problems(response) == []
    return exchange


def trips(reads: Readers, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many reads each trip to a reader thread carries, from now on (`Readers`)."""
    carried: list[int] = []
    read = reads._read

    def counted(asked: list[Any]) -> list[Any]:
        carried.append(len(asked))
        return read(asked)

    monkeypatch.setattr(reads, "_read", counted)
    return carried
