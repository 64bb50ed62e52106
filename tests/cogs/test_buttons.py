"""One base for the bot's buttons (cogs/_buttons.py): every press is checked once, whatever the button.

A custom id is the client's to make up. Each check the buttons had keeps a test here, for every button that has
it: a roll of another server (or channel), someone else's private or hidden roll, and an id past any database
column (2^63 and up), which used to overflow the query and answer "Sorry" as a bug.
"""

from __future__ import annotations

import re
from typing import Any

import discord
import pytest

from bot.db.engine import Database
from bot.db.models import RollLog
from bot.local.driver import Exchange, LocalDiscord
from bot.local.payloads import Actor
from cogs._buttons import MAX_ID, NEVER, OnRoll, Pressed
from cogs.encounter import MOVED_ON
from tests.dice_sources import ScriptedDice
from tests.helpers import (
    BOB,
    GM,
    NOT_FOUND,
    ON_GOBLIN,
    OTHER_GUILD,
    QUICK_ATTACK,
    RED,
    count,
    fight_id,
    forged,
    goblin_fight,
    in_gm_channel,
    ogre,
    set_gm_channel,
    stored,
)
from tests.helpers import BOB as PLAYER
from tests.helpers import MOD as OTHER

SORRY = "Sorry"
# Every button that names a roll, as a custom id of the roll `{}`.
ON_ROLLS = ["again:{}", "details:{}:full", "details:{}:short", "page:{}:2", "hurt:{}", "strike:{}"]
HUGE = [str(MAX_ID + 1), str(2**64 + 5), "9" * 40]


def refused(exchange: Exchange) -> dict[str, Any]:
    """The private refusal an exchange answered with (never the apology of a bug)."""
    assert exchange.ephemeral and exchange.embed["color"] == RED, exchange.response
    assert exchange.embed["title"] != SORRY, exchange.embed
    return exchange.embed


async def press(local: LocalDiscord, on: Exchange, custom_id: str, actor: Actor | None = None) -> Exchange:
    """Press a made-up button on the answer `on`."""
    return await local.click(forged(local.original(on), custom_id), custom_id, actor=actor)


@pytest.mark.parametrize("button", ON_ROLLS)
async def test_an_id_past_the_database_names_no_roll(local: LocalDiscord, button: str) -> None:
    shown = await local.command("roll", {"expression": "1d6"})
    for number in HUGE:
        pressed = await press(local, shown, button.format(number))
        assert refused(pressed)["description"] == NOT_FOUND


@pytest.mark.parametrize("button", ["page:{}:2", "hurt:{}", "strike:{}"])
async def test_a_roll_of_another_server_is_not_found(local: LocalDiscord, database: Database, button: str) -> None:
    await set_gm_channel(local)
    await goblin_fight(local)
    local.bot.dice = ScriptedDice([15, 8])
    attack = await local.command("dnd attack", {**ON_GOBLIN, "private": True})
    elsewhere = Actor(user_id=local.actor.user_id, guild_id=OTHER_GUILD, channel_id="400000000000000002")
    pressed = await press(local, attack, button.format(attack.payload["id"]), actor=elsewhere)
    assert refused(pressed)["description"] == NOT_FOUND
    assert await count(database, RollLog) == 1


@pytest.mark.parametrize("button", ["page:{}:2", "hurt:{}"])
async def test_someone_elses_private_roll_is_not_found(local: LocalDiscord, button: str) -> None:
    local.bot.dice = ScriptedDice([15, 5])
    first = await local.command("dnd attack", {**QUICK_ATTACK, "private": True})
    pressed = await press(local, first, button.format(first.payload["id"]), actor=local.as_user(BOB))
    assert refused(pressed)["description"] == NOT_FOUND


async def test_a_hidden_rolls_page_is_refused_even_to_its_roller(local: LocalDiscord) -> None:
    await set_gm_channel(local)
    local.bot.dice = ScriptedDice([15, 5])
    first = await local.command("dnd attack", {**QUICK_ATTACK, "hidden": True})
    custom_id = f"page:{first.payload['id']}:2"
    mine = await press(local, first, custom_id)
    assert refused(mine)["title"] == "Hidden roll"
    theirs = await press(local, first, custom_id, actor=local.as_user(BOB))
    assert refused(theirs)["title"] == "Not your roll" and "1d8" not in str(theirs.embed)


async def test_apply_damage_is_for_the_characters_owner_or_a_game_master(local: LocalDiscord) -> None:
    game_master = local.as_user(GM, permissions=in_gm_channel(local).permissions)
    await ogre(local, game_master)
    local.bot.dice = ScriptedDice([15, 5])
    attack = await local.command("dnd attack", {"target": "Ogre", "attack_bonus": 5, "damage": "1d8+3"})
    # Bob sees the public roll, but the ogre is not his.
    pressed = await press(local, attack, f"hurt:{attack.payload['id']}", actor=local.as_user(BOB))
    assert refused(pressed)["title"] == "Not your character"


async def test_a_hidden_rolls_hit_is_a_game_masters_to_apply(local: LocalDiscord) -> None:
    await set_gm_channel(local)
    await goblin_fight(local)
    local.bot.dice = ScriptedDice([15, 8])
    roller = local.as_user(PLAYER)
    attack = await local.command("dnd attack", {**ON_GOBLIN, "hidden": True}, actor=roller)
    custom_id = f"strike:{attack.payload['id']}"
    for actor in (roller, local.as_user(OTHER)):
        pressed = await press(local, attack, custom_id, actor=actor)
        assert refused(pressed)["description"] == "Only a game master applies this hidden roll's hit to the fight."


async def test_a_trackers_next_at_a_step_past_any_number_passes_nothing(
    local: LocalDiscord, database: Database
) -> None:
    await goblin_fight(local)
    before = await stored(database)
    fight = await fight_id(database)
    shown = await local.command("roll", {"expression": "1d6"})
    for number in HUGE:
        pressed = await press(local, shown, f"encounter:next:{fight}:{number}")
        assert pressed.response["type"] == 4 and pressed.ephemeral, pressed.response  # the tracker as it stands
        assert MOVED_ON in str(pressed.response["data"]["embeds"])
        # A fight past any number is over, as is any but the one running here.
        assert refused(await press(local, shown, f"encounter:next:{number}:0"))["title"] == "Fight over"
    assert await stored(database) == before


async def test_a_settings_page_outside_a_server_is_refused(local: LocalDiscord) -> None:
    shown = await local.command("roll", {"expression": "1d6"})
    direct = Actor(user_id=local.actor.user_id, guild_id=None, channel_id=local.actor.channel_id)
    pressed = await press(local, shown, "settings:2", actor=direct)
    assert refused(pressed)["title"] == "Servers only"


# ---------------------------------------------------------------------------------------------------------
# The base itself: a button declares its template and what differs.


class Tagged(Pressed, template=r"tag:(?P<number>[0-9]+):(?P<word>[a-z]+)"):
    def __init__(self, number: int, word: str) -> None:
        super().__init__(discord.ui.Button(label=word, custom_id=f"tag:{number}:{word}"))
        self.number, self.word = number, word


async def test_a_buttons_template_groups_are_its_arguments() -> None:
    match = Tagged.__discord_ui_compiled_template__.fullmatch("tag:12:red")
    assert match is not None
    rebuilt = await Tagged.from_custom_id(None, None, match)  # type: ignore[arg-type]
    assert (rebuilt.number, rebuilt.word, rebuilt.custom_id) == (12, "red", "tag:12:red")


def test_the_bases_match_no_custom_id() -> None:
    for base in (Pressed, OnRoll):
        assert base.__discord_ui_compiled_template__.pattern == NEVER
        assert re.fullmatch(NEVER, "again:1") is None and re.fullmatch(NEVER, "") is None
