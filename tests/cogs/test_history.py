"""/history lists the channel's public rolls with links to their answers, newest first."""

from __future__ import annotations

from bot.local.driver import LocalDiscord
from bot.local.payloads import user_object
from tests.dice_sources import ScriptedDice
from tests.helpers import BOB


async def test_history_lists_public_rolls_newest_first_with_links(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([3, 4, 5, 12])
    first = await local.command("roll", {"expression": "2d6"})
    await local.command("roll", {"expression": "1d6", "private": True})
    await local.command("dnd attack", {"attack_bonus": 5, "damage": "1d8", "target_ac": 30}, actor=local.as_user(BOB))
    shown = await local.command("history")
    assert shown.ephemeral
    lines = shown.embed["description"].splitlines()
    assert len(lines) == 2  # the private roll is not listed
    assert f"<@{BOB}> `/dnd attack`: Miss" in lines[0]
    message_id = local.original(first)["id"]
    guild, channel = local.actor.guild_id, local.actor.channel_id
    assert "`/roll`: 2d6 (3, 4) = 7" in lines[1]
    assert lines[1].endswith(f"[jump](https://discord.com/channels/{guild}/{channel}/{message_id})")


async def test_history_of_one_user_and_a_count(local: LocalDiscord) -> None:
    for _ in range(3):
        await local.command("roll", {"expression": "1d4"})
    await local.command("roll", {"expression": "1d4"}, actor=local.as_user(BOB))
    options = [{"name": "user", "type": 6, "value": BOB}, {"name": "count", "type": 4, "value": 5}]
    bobs = await local.command("history", options, resolved={"users": {BOB: user_object(BOB)}})
    assert len(bobs.embed["description"].splitlines()) == 1
    two = await local.command("history", {"count": 2})
    assert len(two.embed["description"].splitlines()) == 2


async def test_an_empty_channel_says_so(local: LocalDiscord) -> None:
    shown = await local.command("history")
    assert shown.embed["description"] == "No public rolls here yet."
