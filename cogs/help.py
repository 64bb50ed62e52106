"""/help: where a new player starts, per ruleset."""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.client import DiceBot
from bot.deadline import INSTANT
from bot.ui.help import help_embed, starts
from cogs._shared import Interaction


class Help(commands.Cog):
    """First steps for new players; answers to the asker only and touches neither the database nor the dice."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot

    @app_commands.command(name="help", extras={INSTANT: True})
    @app_commands.choices(ruleset=[app_commands.Choice(name=s.title, value=s.key) for s in starts()])
    async def help(self, interaction: Interaction, ruleset: str | None = None) -> None:
        """Where to start: the first commands for dice, D&D 3.5, Star Frontiers or AliensRL.

        Args:
            ruleset: The game to start with (default: a line for each)
        """
        await interaction.response.send_message(embed=help_embed(ruleset), ephemeral=True)


async def setup(bot: DiceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Help(bot))
