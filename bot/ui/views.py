"""Buttons: a confirmation that only the person who asked can answer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.tree import report
from bot.ui.embeds import error_embed

if TYPE_CHECKING:  # bot.client imports this module: the bot type only for the checker
    from bot.client import DiceBot

Action = Callable[[discord.Interaction["DiceBot"]], Awaitable[discord.Embed]]
CONFIRM_TIMEOUT = 120.0


class Confirm(discord.ui.View):
    """Confirm / Cancel buttons for a destructive change; `action` runs only on Confirm, once.

    The custom ids are fixed (views are matched per message anyway) so that a seeded console run is
    reproducible byte for byte.
    """

    def __init__(self, author_id: int, action: Action, *, label: str = "Confirm") -> None:
        super().__init__(timeout=CONFIRM_TIMEOUT)
        self.author_id = author_id
        self.action = action
        self.confirm.label = label

    # A view's own methods take any client's interaction: discord.py declares them generic over the client, so an
    # override cannot narrow them to the bot (its buttons' callbacks can).
    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Only the person who asked may answer; every press counts against the presser's rate limit."""
        if not await interaction.client.tree.admit(interaction):
            return False
        if interaction.user.id == self.author_id:
            return True
        embed = error_embed("Not your question", "Only the person who asked can confirm or cancel this.")
        await interaction.response.send_message(embed=embed, ephemeral=True)
        return False

    @discord.ui.button(label="Confirm", style=discord.ButtonStyle.danger, custom_id="confirm")
    async def confirm(self, interaction: discord.Interaction[DiceBot], button: discord.ui.Button[Confirm]) -> None:
        """Do it."""
        self.stop()
        embed = await self.action(interaction)
        await interaction.response.edit_message(embed=embed, view=None)

    @discord.ui.button(label="Cancel", style=discord.ButtonStyle.secondary, custom_id="cancel")
    async def cancel(self, interaction: discord.Interaction[DiceBot], button: discord.ui.Button[Confirm]) -> None:
        """Leave everything as it is."""
        self.stop()
        embed = discord.Embed(title="Cancelled", description="Nothing was changed.", colour=discord.Colour.light_grey())
        await interaction.response.edit_message(embed=embed, view=None)

    async def on_error(
        self, interaction: discord.Interaction[Any], error: Exception, item: discord.ui.Item[Any]
    ) -> None:
        """Failures of the action go through the same funnel as commands."""
        await report(interaction, error)
