"""/history: the latest rolls of this channel, or of one user in it, each with a link to its answer."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import DiceBot
from bot.db.characters import CharacterRepository
from bot.db.rolls import LoggedRoll, RollRepository
from bot.ui.embeds import DESCRIPTION_LIMIT, ROLL_COLOUR, clip
from cogs._audience import viewer
from cogs._shared import Interaction, any_character_choices, find


def line(roll: LoggedRoll, guild_id: int | None) -> str:
    """One roll: when, who, which command, what came of it, and a link to the answer."""
    when = discord.utils.format_dt(roll.created_at, "R")
    fair = f" · fair #{roll.fair_roll}" if roll.fair_roll else ""
    text = f"{when} <@{roll.user_id}> `/{roll.command}`: {roll.summary or 'rolled'}{fair}"
    if roll.message_id is not None and roll.channel_id is not None:
        place = guild_id if guild_id is not None else "@me"
        text += f" [jump](https://discord.com/channels/{place}/{roll.channel_id}/{roll.message_id})"
    return text


class History(commands.Cog):
    """What was rolled here."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot

    async def characters(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Characters of this server (of the chosen user, if one is)."""
        return await any_character_choices(self.bot, interaction, current)

    @app_commands.command(name="history")
    @app_commands.autocomplete(character=characters)
    async def history(
        self,
        interaction: Interaction,
        user: discord.User | None = None,
        character: app_commands.Range[str, 1, 40] | None = None,
        count: app_commands.Range[int, 1, 25] = 10,
    ) -> None:
        """The latest public rolls in this channel, newest first, each with a link to its answer.

        Args:
            user: Only this user's rolls
            character: Only the rolls made with this character (yours by name, anyone's by #number)
            count: How many (1 to 25, default 10)
        """
        if interaction.channel_id is None:
            raise app_commands.NoPrivateMessage()
        title = f"Latest rolls of {user.display_name}" if user else "Latest rolls in this channel"
        async with self.bot.database.read() as session:
            record = None
            if character is not None:
                # The answer is the asker's alone, and names the character: a secret one only if they may see it.
                record = await find(
                    CharacterRepository(session),
                    interaction,
                    character,
                    owner_id=user.id if user else None,
                    shown_to=await viewer(self.bot, interaction),
                )
                title = f"Latest rolls with {record.name}"
            rolls = await RollRepository(session).recent(
                channel_id=interaction.channel_id,
                user_id=user.id if user else None,
                character=record,
                limit=count,
            )
        lines = [line(roll, interaction.guild_id) for roll in rolls]
        description = "\n".join(lines) if lines else "No public rolls here yet."
        embed = discord.Embed(title=title, description=clip(description, DESCRIPTION_LIMIT), colour=ROLL_COLOUR)
        embed.set_footer(text="Private rolls are never listed.")
        await interaction.response.send_message(embed=embed, ephemeral=True)


async def setup(bot: DiceBot) -> None:
    """Load the cog."""
    await bot.add_cog(History(bot))
