"""The local Discord double behaves as Discord does where the bot can tell the difference."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from dataclasses import replace

import discord
from discord import app_commands

from bot.client import ShardedDiceBot
from bot.config import Settings
from bot.db.engine import Database
from bot.local.double import DiscordDouble, discord_pointed_at
from bot.local.driver import LocalDiscord
from bot.local.payloads import APPLICATION_COMMAND, Actor, command_data, interaction
from tests.conftest import POSTGRES

# Two servers that Discord's formula, (guild_id >> 22) % 2, gives to shard 0 and to shard 1.
SHARDED_GUILDS = [("300000000000000001", "300000000000000002"), ("300000000004194305", "300000000004194306")]


async def test_autocomplete_answers_with_choices(local: LocalDiscord) -> None:
    async def suggest(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=f"{current}{n}", value=f"{current}{n}") for n in (1, 2)]

    @app_commands.command(name="pick", description="Pick one")
    @app_commands.autocomplete(thing=suggest)
    async def pick(interaction: discord.Interaction, thing: str) -> None: ...

    local.bot.tree.add_command(pick)
    exchange = await local.autocomplete("pick", {"thing": "d"}, focused="thing")
    assert exchange.choices == [{"name": "d1", "value": "d1"}, {"name": "d2", "value": "d2"}]


async def test_a_button_click_reaches_the_view_of_the_message(local: LocalDiscord) -> None:
    class Again(discord.ui.View):
        @discord.ui.button(label="Again", custom_id="again")
        async def again(self, interaction: discord.Interaction, button: discord.ui.Button[Again]) -> None:
            await interaction.response.edit_message(content="clicked")

    @app_commands.command(name="offer", description="Offer a button")
    async def offer(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("click me", view=Again())

    local.bot.tree.add_command(offer)
    first = await local.command("offer")
    assert first.messages[0]["components"][0]["components"][0]["custom_id"] == "again"
    created = local.double.messages["@original:" + first.payload["token"]]
    clicked = await local.click(created, "again")
    assert clicked.response["type"] == 7 and clicked.response["data"]["content"] == "clicked"


async def test_a_second_initial_response_is_refused(local: LocalDiscord) -> None:
    @app_commands.command(name="again", description="Answers twice through the raw route")
    async def again(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("one")
        interaction.response._response_type = None  # make discord.py try again, as buggy code might
        await interaction.response.send_message("two")

    local.bot.tree.add_command(again)
    exchange = await local.command("again")
    [refused] = exchange.rejected
    assert refused.status == 400 and refused.path.endswith("/callback")
    # The funnel knows the interaction is answered and apologises in a followup instead.
    assert exchange.requests[-1].path.startswith("/webhooks/")
    assert exchange.requests[-1].body["embeds"][0]["title"] == "Sorry"


async def test_the_first_followup_after_defer_replaces_the_thinking_message(local: LocalDiscord) -> None:
    @app_commands.command(name="think", description="Defers, then answers")
    async def think(interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await interaction.followup.send("done")

    local.bot.tree.add_command(think)
    exchange = await local.command("think")
    assert exchange.requests[0].body == {"type": 5}
    assert local.double.messages["@original:" + exchange.payload["token"]]["content"] == "done"


async def test_a_rate_limit_with_retry_after_is_waited_out(local: LocalDiscord) -> None:
    local.double.inject_429("POST", "/interactions/*/callback", retry_after=0.2)
    started = time.monotonic()
    exchange = await local.command("roll", {"expression": "1d6"})
    assert [r.status for r in exchange.requests] == [429, 200]
    assert exchange.requests[1].at - started >= 0.2
    assert exchange.embed["description"].startswith("1d6 (")


async def test_each_shard_gets_only_its_own_guilds_and_interactions(
    settings: Settings, database: Database, dice: random.Random
) -> None:
    async with DiscordDouble(guilds=SHARDED_GUILDS, max_concurrency=1) as double:
        with discord_pointed_at(double.api_base, double.gateway_url):
            bots = [
                ShardedDiceBot(
                    settings=replace(settings, shard_count=2, shard_ids=(shard,), identify_interval=0.2),
                    database=database,
                    dice=dice,
                )
                for shard in (0, 1)
            ]
            for bot in bots:
                await bot.login(double.token)
            runners = [asyncio.create_task(bot.connect()) for bot in bots]
            try:
                await double.wait_for_shards({0, 1})
                for bot in bots:
                    await asyncio.wait_for(bot.wait_until_ready(), 10)
                assert [[str(g.id) for g in bot.guilds] for bot in bots] == [[g] for g, _ in SHARDED_GUILDS]
                for owner, (guild, channel) in enumerate(SHARDED_GUILDS):
                    actor = Actor(user_id="200000000000000001", guild_id=guild, channel_id=channel)
                    data = command_data("roll", [{"name": "expression", "type": 3, "value": "d6"}])
                    payload = interaction(double.ids, actor, APPLICATION_COMMAND, data)
                    await double.dispatch("INTERACTION_CREATE", payload)
                    [answer] = await double.wait_for("POST", f"/interactions/{payload['id']}/*/callback")
                    assert answer.shard == owner
            finally:
                for bot in bots:
                    await bot.close()
                for runner in runners:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(runner, 10)
    identifies = [frame for frame in double.gateway_log if frame["op"] == 2]
    assert sorted(frame["d"]["shard"] for frame in identifies) == [[0, 2], [1, 2]]
    if POSTGRES:
        # Both are their process's first IDENTIFY, which discord.py alone would not space; the row lock does.
        assert identifies[1]["_t"] - identifies[0]["_t"] >= 0.2
    assert [r.path for r in double.requests if r.path == "/gateway/bot"] == (["/gateway/bot"] * 2 if POSTGRES else [])
