"""/ping: is the bot alive? A fixed answer that touches neither the database nor the dice."""

from __future__ import annotations

import math

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import DiceBot
from bot.deadline import INSTANT
from cogs._shared import Interaction

PING_COLOUR = discord.Colour.green()


def latency_text(seconds: float) -> str:
    """The gateway latency in milliseconds; before the first heartbeat is acknowledged there is none yet."""
    if not math.isfinite(seconds):
        return "not measured yet"
    return f"{seconds * 1000:.0f} ms"


class Ping(commands.Cog):
    """A liveness check; also the floor the benchmarks compare every command with."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot

    @app_commands.command(name="ping", extras={INSTANT: True})
    async def ping(self, interaction: Interaction) -> None:
        """Is the bot alive? Answers with the gateway latency, to you only."""
        embed = discord.Embed(
            title="Pong", description=f"Gateway latency: {latency_text(self.bot.latency)}", colour=PING_COLOUR
        )
        await interaction.response.send_message(embed=embed, ephemeral=True)


async def setup(bot: DiceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Ping(bot))
