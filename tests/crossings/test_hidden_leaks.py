"""Hidden means hidden, and every button checks the roll it names: one test per leak once measured on main.

The players here are Alice (the default actor) and Bob; the GM has Manage Server and a GM channel. Nothing
about a hidden roll (command, options, faces, outcome) may reach anyone but its roller and the GM channel, and
a button's custom id, which any client can make up, reaches only rolls the presser may see where they press.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from sqlalchemy import select

from bot.db.engine import Database
from bot.db.models import RollLog
from bot.local.driver import Exchange, LocalDiscord
from bot.local.payloads import MANAGER_PERMISSIONS, Actor, user_object
from bot.rules.fair_log import parse_log
from tests.dice_sources import NoDice, ScriptedDice
from tests.helpers import (
    BOB,
    GM_CHANNEL,
    MOD,
    NOT_FOUND,
    OTHER_GUILD,
    QUICK_ATTACK,
    count,
    forged,
    gm_post,
    in_gm_channel,
    set_gm_channel,
)

OTHER_CHANNEL = "300000000000000099"
# +4 against AC 14 with 1d8: a d20 of 15 hits.


def shown(exchange: Exchange) -> str:
    """Everything an exchange showed, files included."""
    text = json.dumps(exchange.messages) + json.dumps(exchange.response.get("data") or {})
    return text + "".join(data.decode(errors="replace") for data in exchange.files.values())


def said(exchange: Exchange) -> str:
    """The words of every embed an exchange showed (titles, descriptions, fields, footers)."""
    parts = []
    for message in exchange.messages:
        for embed in message.get("embeds", []):
            parts += [embed.get("title", ""), embed.get("description", ""), embed.get("footer", {}).get("text", "")]
            parts += [f"{f['name']} {f['value']}" for f in embed.get("fields", [])]
    return "\n".join(parts)


def faces(seed_hex: str, interaction: str, sides: list[int]) -> list[int]:
    """docs/fair.md's derivation, independently of the bot's code: by the roll's interaction id."""
    seed, out = bytes.fromhex(seed_hex), []
    for k, n in enumerate(sides):
        attempt = 0
        while True:
            x = int.from_bytes(hmac.new(seed, f"{interaction}:{k}:{attempt}".encode(), hashlib.sha256).digest(), "big")
            if x < 2**256 - 2**256 % n:
                break
            attempt += 1
        out.append(1 + x % n)
    return out


def about(user_id: str, **more: Any) -> dict[str, Any]:
    """/stats options about one user, with the resolved data Discord sends."""
    options = [{"name": "user", "type": 6, "value": user_id}]
    options += [{"name": k, "type": 5, "value": v} for k, v in more.items()]
    return {"options": options, "resolved": {"users": {user_id: user_object(user_id)}}}


def hits(exchange: Exchange) -> str:
    """The Hits row of a /stats table."""
    [row] = [line for line in exchange.embed["description"].split("\n") if line.startswith("Hits ")]
    return row


# ---------------------------------------------------------------------------------------------------------
# /stats.


async def test_stats_never_count_hidden_rolls(local: LocalDiscord) -> None:
    await set_gm_channel(local)
    local.bot.dice = ScriptedDice([15, 5, 15, 5, 15, 5])
    await local.command("dnd attack", QUICK_ATTACK)
    for _ in range(2):
        await local.command("dnd attack", {**QUICK_ATTACK, "hidden": True})
    alice = local.actor.user_id
    # Measured on main: the public answer about yourself said 3 hits over 3 rolls.
    public = await local.command("stats", **about(alice))
    assert not public.ephemeral and "over 1 rolls" in public.embed["description"]
    assert hits(public).split()[1] == "1"
    # Not in a private answer either: the roller of a hidden roll is not told its outcome.
    private = await local.command("stats", **about(alice, private=True))
    assert private.ephemeral and "over 1 rolls" in private.embed["description"]
    server = await local.command("stats", actor=local.as_user(BOB))
    assert "over 1 rolls" in server.embed["description"]


# ---------------------------------------------------------------------------------------------------------
# Roll again and Details on a hidden roll.


async def test_roll_again_on_someone_elses_hidden_notice_says_nothing_of_the_roll(
    local: LocalDiscord, database: Database
) -> None:
    await set_gm_channel(local)
    local.bot.dice = ScriptedDice([15, 5, 16, 6])
    first = await local.command("dnd attack", {**QUICK_ATTACK, "hidden": True})
    notice = local.original(first)
    custom_ids = [c["custom_id"] for row in notice["components"] for c in row["components"]]
    assert custom_ids == [f"again:{first.payload['id']}"]
    refused = await local.click(notice, custom_ids[0], actor=local.as_user(BOB))
    assert refused.ephemeral and refused.embed["title"] == "Not your roll"
    text = said(refused)
    # Measured on main: "Run `/dnd attack` yourself".
    for secret in ("dnd", "attack", "1d8", "15", "Hit", "damage"):
        assert secret not in text, (secret, text)
    assert await count(database, RollLog) == 1
    # Details cannot be forced onto the notice either, by anyone: it would edit the roll into the channel.
    for actor in (local.actor, local.as_user(BOB)):
        custom_id = f"details:{first.payload['id']}:full"
        forced = await local.click(forged(notice, custom_id), custom_id, actor=actor)
        assert forced.ephemeral and forced.response["type"] == 4
        assert "1d8" not in said(forced) and "Hit" not in said(forced)
    assert local.original(first) == notice
    # The roller rolls it again: hidden again, a new notice and a new post in the GM channel.
    again = await local.click(notice, custom_ids[0])
    assert again.embed["description"] == f"<@{local.actor.user_id}> made a hidden roll."
    assert not again.ephemeral
    assert len([r for r in local.double.requests if r.path == f"/channels/{GM_CHANNEL}/messages"]) == 2


# ---------------------------------------------------------------------------------------------------------
# Fair sessions: hidden rolls never join a session a player can reveal; they draw from the GM channel's.


async def test_a_hidden_roll_never_joins_a_session_a_player_started(local: LocalDiscord) -> None:
    await set_gm_channel(local)
    bob = local.as_user(BOB)
    assert not (await local.command("fair start", actor=bob)).ephemeral  # `fair.who` is `anyone` by default
    local.bot.dice = ScriptedDice([17, 6])  # no session runs in the GM channel: the bot's own dice
    gm_in_play = local.as_user(MOD, permissions=MANAGER_PERMISSIONS)
    hidden = await local.command("dnd attack", {**QUICK_ATTACK, "hidden": True}, actor=gm_in_play)
    assert hidden.embed["description"] == f"<@{MOD}> made a hidden roll."
    assert local.bot.dice.exhausted
    revealed = await local.command("fair reveal", actor=bob)
    assert "0 rolls were made" in revealed.embed["description"]
    [log] = revealed.files.values()
    assert parse_log(log).rolls == ()
    # Measured on main: roll #1 was the GM's hidden attack, its faces 17 and 6 posted to the channel.
    checked = await local.command("fair verify", {"roll": 1}, actor=bob)
    assert checked.embed["description"] == "The session has no roll #1; it made 0."
    downloaded = await local.command("fair log", actor=bob)
    assert parse_log(downloaded.files[next(iter(downloaded.files))]).rolls == ()


async def test_hidden_rolls_stay_provable_through_the_gm_channels_own_session(local: LocalDiscord) -> None:
    await set_gm_channel(local)
    started = await local.command("fair start", actor=in_gm_channel(local))
    commitment = started.embed["description"].split("`")[1]
    local.bot.dice = NoDice()  # every die comes from the GM's seed
    gm_in_play = local.as_user(MOD, permissions=MANAGER_PERMISSIONS)
    hidden = await local.command("dnd attack", {**QUICK_ATTACK, "hidden": True}, actor=gm_in_play)
    assert hidden.embed["description"] == (
        f"<@{MOD}> made a hidden roll (the GM's fair roll #1, commitment `{commitment[:16]}…`)."
    )
    posted = gm_post(local).body["embeds"][0]
    assert f"Fair roll #1 · commitment {commitment[:16]}…" in posted["footer"]["text"]
    # The play channel has no session: nothing of the roll can be checked there.
    nothing = await local.command("fair verify", {"roll": 1}, actor=local.as_user(BOB))
    assert nothing.embed["description"] == "This channel has had no fair session."
    # The GM reveals when they choose, in the GM channel; the roll then checks against the commitment.
    revealed = await local.command("fair reveal", actor=in_gm_channel(local))
    seed, key = revealed.embed["description"].split("`")[1:4:2]
    domain = b"rules-dice-bot/fair-session/4\n"
    assert hashlib.sha256(domain + bytes.fromhex(seed) + bytes.fromhex(key)).hexdigest() == commitment
    [entry] = parse_log(next(iter(revealed.files.values()))).rolls
    assert entry.roll == 1 and entry.private and entry.options is None
    d20 = faces(seed, hidden.payload["id"], [20])[0]
    assert entry.draws[0] == (1, 20, d20)
    checked = await local.command("fair verify", {"roll": 1}, actor=in_gm_channel(local))
    assert checked.embed["title"] == "Fair roll #1: verified"


async def test_who_starts_and_reveals_fair_sessions_is_a_server_setting(local: LocalDiscord) -> None:
    bob = local.as_user(BOB)
    moderator = local.as_user(MOD, permissions=MANAGER_PERMISSIONS)
    await local.command("fair start", actor=bob)  # by default anyone starts one...
    saved = await local.command("settings set", {"setting": "fair.who", "value": "managers"}, actor=moderator)
    assert saved.embed["title"] == "Setting saved"
    # ...but with `managers` not even its starter reveals it,
    refused = await local.command("fair reveal", actor=bob)
    assert refused.ephemeral and "only members with Manage Server reveal" in refused.embed["description"]
    assert (await local.command("fair reveal", actor=moderator)).embed["title"] == "Fair dice: seed revealed"
    # and a player cannot start one.
    start = await local.command("fair start", actor=bob)
    assert start.ephemeral and "only members with Manage Server start" in start.embed["description"]
    assert not (await local.command("fair start", actor=moderator)).ephemeral
    shown_settings = await local.command("house-rules")
    [field] = [f for f in shown_settings.embed["fields"] if f["value"].startswith("`fair.who`")]
    assert field["value"].startswith("`fair.who` = **managers**: only members with Manage Server")


# ---------------------------------------------------------------------------------------------------------
# hidden with private: fully private.


async def test_hidden_and_private_is_fully_private(local: LocalDiscord, database: Database) -> None:
    await set_gm_channel(local)
    local.bot.dice = ScriptedDice([17])
    exchange = await local.command("roll", {"expression": "1d20+3", "hidden": True, "private": True})
    # Measured on main: a public notice in the channel. Now every message of the exchange is the roller's alone.
    assert exchange.messages and all(m.get("flags", 0) & 64 for m in exchange.messages)
    assert exchange.embed["description"] == "You made a hidden roll: only the GM channel sees it."
    assert gm_post(local).body["embeds"][0]["description"].split("\n")[0] == "1d20 (17) + 3 = **20**"
    async with database.read() as session:
        row = (await session.scalars(select(RollLog))).one()
    assert row.hidden and row.private


# ---------------------------------------------------------------------------------------------------------
# Made-up custom ids: another server, another channel, someone else's private or hidden roll.


async def test_details_of_a_roll_of_another_server_or_channel_is_refused(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([15, 5])
    first = await local.command("dnd attack", QUICK_ATTACK)
    message = local.original(first)
    secret = "Attack bonus +4 ="  # a step of the full breakdown, not in the compact answer
    assert secret not in json.dumps(message)
    custom_id = f"details:{first.payload['id']}:full"
    for actor in (
        Actor(user_id=BOB, guild_id=OTHER_GUILD, channel_id="400000000000000002"),
        Actor(user_id=BOB, guild_id=local.actor.guild_id, channel_id=OTHER_CHANNEL),
        Actor(user_id=local.actor.user_id, guild_id=OTHER_GUILD, channel_id="400000000000000002"),
    ):
        crafted = await local.click(message, custom_id, actor=actor)
        assert crafted.ephemeral and crafted.embed["description"] == NOT_FOUND, actor
        assert secret not in shown(crafted)
    # Where it was made, anyone may see a public roll's breakdown (privately).
    peek = await local.click(message, custom_id, actor=local.as_user(BOB))
    assert peek.ephemeral and secret in shown(peek)


async def test_roll_again_of_a_roll_of_another_server_is_refused(local: LocalDiscord, database: Database) -> None:
    local.bot.dice = ScriptedDice([15, 5])
    first = await local.command("dnd attack", QUICK_ATTACK)
    elsewhere = Actor(user_id=local.actor.user_id, guild_id=OTHER_GUILD, channel_id="400000000000000002")
    crafted = await local.click(local.original(first), f"again:{first.payload['id']}", actor=elsewhere)
    assert crafted.ephemeral and crafted.embed["description"] == NOT_FOUND
    assert await count(database, RollLog) == 1


async def test_buttons_of_someone_elses_private_roll_are_refused(local: LocalDiscord, database: Database) -> None:
    local.bot.dice = ScriptedDice([15, 5])
    first = await local.command("dnd attack", {**QUICK_ATTACK, "private": True})
    message = local.original(first)
    bob = local.as_user(BOB)
    # Measured on main: a made-up Details id showed Bob the full breakdown of Alice's private roll.
    details = await local.click(message, f"details:{first.payload['id']}:full", actor=bob)
    again = await local.click(message, f"again:{first.payload['id']}", actor=bob)
    for crafted in (details, again):
        assert crafted.ephemeral and crafted.embed["description"] == NOT_FOUND
        assert "d20" not in said(crafted) and "attack" not in said(crafted)
    assert await count(database, RollLog) == 1
    # Alice's own buttons still work.
    mine = await local.click(message, f"details:{first.payload['id']}:full")
    assert mine.response["type"] == 7 and "d20 **15** +4" in said(mine)


async def test_buttons_of_a_hidden_roll_of_another_server_are_refused(local: LocalDiscord) -> None:
    await set_gm_channel(local)
    local.bot.dice = ScriptedDice([15, 5])
    first = await local.command("dnd attack", {**QUICK_ATTACK, "hidden": True})
    elsewhere = Actor(user_id=BOB, guild_id=OTHER_GUILD, channel_id="400000000000000002")
    for custom_id in (f"again:{first.payload['id']}", f"details:{first.payload['id']}:full"):
        crafted = await local.click(forged(local.original(first), custom_id), custom_id, actor=elsewhere)
        assert crafted.ephemeral and crafted.embed["description"] == NOT_FOUND


async def test_an_edit_form_submitted_from_another_server_is_refused(local: LocalDiscord, database: Database) -> None:
    await local.command("character create", {"ruleset": "aliensrl", "name": "Vasquez"})
    form = (await local.command("character edit", {"character": "Vasquez"})).modal
    elsewhere = Actor(user_id=local.actor.user_id, guild_id=OTHER_GUILD, channel_id="400000000000000002")
    crafted = await local.submit(form, {"pain": "99"}, actor=elsewhere)
    assert crafted.ephemeral and crafted.embed["title"] == "Not your form"
    shown_sheet = await local.command("character show", {"character": "Vasquez"})
    assert "version 1" in shown_sheet.embed["footer"]["text"]
    # The form still saves where it was opened.
    saved = await local.submit(form, {"pain": "7"})
    assert saved.embed["title"] == "Vasquez", saved.embed


async def test_saved_and_repeated_hidden_rolls_draw_from_the_gm_channels_session_too(local: LocalDiscord) -> None:
    await set_gm_channel(local)
    await local.command("fair start", actor=local.as_user(BOB))  # a player's session in the play channel
    started = await local.command("fair start", actor=in_gm_channel(local))
    commitment = started.embed["description"].split("`")[1][:16]
    local.bot.dice = NoDice()
    await local.command("macro save", {"name": "sneak", "command": "/roll expression:1d20+7 hidden:true"})
    ran = await local.command("macro run", {"name": "sneak"})
    assert ran.embed["description"].endswith(f"made a hidden roll (the GM's fair roll #1, commitment `{commitment}…`).")
    again = await local.click(local.original(ran), f"again:{ran.payload['id']}")
    assert again.embed["description"].endswith(
        f"made a hidden roll (the GM's fair roll #2, commitment `{commitment}…`)."
    )
    # The player's session got none of them.
    revealed = await local.command("fair reveal", actor=local.as_user(BOB))
    assert "0 rolls were made" in revealed.embed["description"]
