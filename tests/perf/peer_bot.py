"""The minimal bot the load benchmark measures the bot against: discord.py, the d20 library, no database.

    <.bench/d20-venv>/bin/python tests/perf/peer_bot.py      (bench_process starts it; DISCORD_* as for the bot)

It imports nothing from this project and runs in the benchmark's own virtual environment (d20 and the same
discord.py as the bot's, `bench_peer.peer_python`). `/roll expression` answers d20's breakdown in an embed at
once, as a bot built on d20 would; `/ping` a fixed embed. No rate limit, no log, no odds, no deferral: what it
costs is discord.py's and d20's, over the same loopback Discord and gateway as the bot.
"""

import asyncio
import logging
import os

import d20
import discord
import discord.gateway
import discord.http
import yarl
from discord import app_commands


def point_discord_at(api_base: str, gateway_url: str) -> None:
    """As the bot's `bot.discord_api.point_discord_at`: the double's REST endpoint and gateway."""
    discord.http.Route.BASE = api_base.rstrip("/")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


class Peer(discord.Client):
    def __init__(self) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(intents=intents)
        self.tree = app_commands.CommandTree(self)

        @self.tree.command(name="roll")
        async def roll(interaction: discord.Interaction, expression: str) -> None:
            """Roll dice with d20."""
            result = d20.roll(expression)
            embed = discord.Embed(title=f"{interaction.user.display_name} rolls", description=str(result))
            await interaction.response.send_message(embed=embed)

        @self.tree.command(name="ping")
        async def ping(interaction: discord.Interaction) -> None:
            """Answer at once."""
            await interaction.response.send_message(embed=discord.Embed(title="Pong"))


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    point_discord_at(os.environ["DISCORD_API_BASE"], os.environ["DISCORD_GATEWAY_URL"])
    asyncio.run(Peer().start(os.environ["DISCORD_TOKEN"]))


if __name__ == "__main__":
    main()
