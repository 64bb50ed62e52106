"""/history: the latest rolls of this channel, or of one user in it, each with a link to its answer."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import DiceBot
from bot.db.characters import CharacterRecord, CharacterRepository
from bot.db.rolls import LoggedRoll, RollRepository
from bot.ui.embeds import ROLL_COLOUR
from bot.ui.lists import line_pages
from cogs._audience import viewer
from cogs._lists import ListPage, page_view
from cogs._shared import Interaction, any_character_choices, find

MAX_COUNT = 25  # rolls on a page of /history at most


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
        count: app_commands.Range[int, 1, MAX_COUNT] = 10,
    ) -> None:
        """The latest public rolls in this channel, newest first, each with a link to its answer.

        Args:
            user: Only this user's rolls
            character: Only the rolls made with this character (yours by name, anyone's by #number)
            count: How many (1 to 25, default 10)
        """
        owner = user.id if user else 0
        record = await history_character(self.bot, interaction, character, owner) if character else None
        pages = await history_pages(self.bot, interaction, count=count, user_id=owner, character=record)
        view = page_view(HistoryPage, interaction.user.id, 1, len(pages), count, owner, record.id if record else 0)
        await interaction.response.send_message(embed=pages[0], view=view, ephemeral=True)


async def history_character(bot: DiceBot, interaction: Interaction, character: str, user_id: int) -> CharacterRecord:
    """The character a /history names, if the asker may see it named (the answer is theirs alone)."""
    async with bot.database.read() as session:
        return await find(
            CharacterRepository(session),
            interaction,
            character,
            owner_id=user_id or None,
            shown_to=await viewer(bot, interaction),
        )


async def history_pages(
    bot: DiceBot, interaction: Interaction, *, count: int, user_id: int, character: CharacterRecord | None
) -> list[discord.Embed]:
    """The latest public rolls of this channel (of `user_id` if not 0, with `character` if given), in pages."""
    if interaction.channel_id is None:
        raise app_commands.NoPrivateMessage()
    async with bot.database.read() as session:
        rolls = await RollRepository(session).recent(
            channel_id=interaction.channel_id, user_id=user_id or None, character=character, limit=count
        )
    # A page turned after a restart knows the user by id alone: every line names them anyway.
    title = "Latest rolls of one member" if user_id else "Latest rolls in this channel"
    return line_pages(
        f"Latest rolls with {character.name}" if character else title,
        [line(roll, interaction.guild_id) for roll in rolls],
        empty="No public rolls here yet.",
        footer="Private rolls are never listed.",
        colour=ROLL_COLOUR,
    )


class HistoryPage(
    ListPage,
    template=r"history:(?P<asker>[0-9]{1,20}):(?P<page>[0-9]{1,3}):(?P<count>[0-9]{1,2}):(?P<user>[0-9]{1,20})"
    r":(?P<character>[0-9]{1,20})",
):
    """A page of /history, read again from the log: the channel's rolls as they are now."""

    prefix = "history"

    async def pages(self, interaction: Interaction) -> list[discord.Embed]:
        """The rolls the asker asked for, in the channel the button is pressed in."""
        count, user_id, character_id = self.args
        count = max(1, min(count, MAX_COUNT))  # as `/history count:` allows: a crafted id may say up to 99
        record = None
        if character_id:
            record = await history_character(interaction.client, interaction, f"#{character_id}", user_id)
        return await history_pages(interaction.client, interaction, count=count, user_id=user_id, character=record)


async def setup(bot: DiceBot) -> None:
    """Load the cog."""
    await bot.add_cog(History(bot))
    bot.add_dynamic_items(HistoryPage)
