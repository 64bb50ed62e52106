"""/macro: a user's saved roll commands in a server, run again by name."""

from __future__ import annotations

import shlex
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import DiceBot
from bot.commandline import ATTACHMENT, Parsed, parse_line
from bot.db.macros import LINE_LENGTH, MAX_MACROS, NAME_LENGTH, MacroError, MacroRepository
from bot.discord_api import sync_payload
from bot.ui.embeds import ROLL_COLOUR, clip
from bot.ui.lists import line_pages
from cogs._lists import ListPage, page_view
from cogs._replay import RENAMED, replay, roll_command
from cogs._shared import Interaction, guild_of


def parse_roll(tree: app_commands.CommandTree[Any], line: str) -> Parsed:
    """A saved roll's line, checked as Discord's client would check it, and that it is a roll command."""
    text = line.strip()
    if text.startswith("@"):
        raise MacroError("A saved roll runs as whoever runs it: leave out the `@user`.")
    parsed = parse_line(renamed_line(tree, text if text.startswith("/") else "/" + text), sync_payload(tree))
    if roll_command(tree, parsed.name) is None:
        raise MacroError(
            f"`/{parsed.name}` does not roll dice; save a roll command such as `/roll`, `/dnd attack`, "
            "`/sf shoot` or `/aliens fire`.",
            title="Not a roll",
        )
    if any(option["type"] == ATTACHMENT for option in parsed.options):
        raise MacroError("A saved roll cannot carry a file.")
    return parsed


def renamed_line(tree: app_commands.CommandTree[Any], line: str) -> str:
    """A saved line in today's option names, when its roll command renamed some since (its `RENAMED` extra).

    A roll saved as `/dnd attack flanking:true modifier:2` runs as `/dnd attack situation:"flanking +2"`: the
    same roll. Anything else is left as it is, for the reader to check.
    """
    try:
        words = shlex.split(line)
    except ValueError:
        return line
    path = [word for word in words if ":" not in word]
    options = [word for word in words if ":" in word]
    command = roll_command(tree, " ".join(path).removeprefix("/"))
    if command is None or RENAMED not in command.extras or words != [*path, *options]:
        return line
    given = dict(word.partition(":")[::2] for word in options)
    today = command.extras[RENAMED](given)
    return line if today == given else shlex.join([*path, *(f"{name}:{value}" for name, value in today.items())])


def with_options(line: str, options: str) -> str:
    """A saved line with this run's `name:value` options: a new option is added, one the line has is replaced."""
    try:
        saved, given = shlex.split(line), shlex.split(options)
    except ValueError as error:
        raise MacroError(f"Could not read the options: {error}.") from None
    if any(word.startswith("/") or ":" not in word for word in given):
        raise MacroError("Give this run's options as `name:value`, e.g. `target_ac:17 private:true`.")
    names = {word.partition(":")[0] for word in given}
    kept = [word for word in saved if word.startswith("/") or word.partition(":")[0] not in names]
    return shlex.join([*kept, *given])


@app_commands.guild_only()
class Macros(commands.GroupCog, group_name="macro", group_description="Your saved rolls in this server"):
    """Saved rolls: a command line under a name, validated when saved, run with one short command."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        super().__init__()

    async def names(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Your saved rolls here whose name contains what was typed, each with its command line."""
        if interaction.guild_id is None:
            return []
        async with self.bot.database.read() as session:
            found = await MacroRepository(session).list(
                guild_id=interaction.guild_id, user_id=interaction.user.id, text=current
            )
        return [app_commands.Choice(name=clip(f"{m.name}: {m.line}", 100), value=m.name) for m in found][:25]

    @app_commands.command(name="save")
    async def save(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, NAME_LENGTH],
        command: app_commands.Range[str, 1, LINE_LENGTH],
    ) -> None:
        """Save a roll command under a name of yours, checked now, run later with /macro run.

        Args:
            name: What to call it, e.g. greataxe (at most 32 characters)
            command: The roll as you would type it, e.g. /dnd attack weapon:greataxe target_ac:17
        """
        guild_id = guild_of(interaction)
        parsed = parse_roll(self.bot.tree, command)
        line = command.strip() if command.strip().startswith("/") else "/" + command.strip()
        async with self.bot.database.write.begin() as session:
            saved = await MacroRepository(session).save(
                guild_id=guild_id,
                user_id=interaction.user.id,
                name=name,
                command=parsed.name,
                line=line,
                now=self.bot.clock(),
            )
        embed = discord.Embed(
            title="Roll saved",
            description=f"**{saved.name}**: `{clip(saved.line, 1000)}`\nRun it with `/macro run name:{saved.name}`.",
            colour=ROLL_COLOUR,
        )
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @app_commands.command(name="run")
    @app_commands.autocomplete(name=names)
    async def run(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, NAME_LENGTH],
        options: app_commands.Range[str, 1, LINE_LENGTH] | None = None,
    ) -> None:
        """Run one of your saved rolls, as if you had typed its command; options fill in or override its own.

        Args:
            name: The saved roll (autocomplete lists yours)
            options: Options for this run, as in the command: target_ac:17 private:true
        """
        guild_id = guild_of(interaction)
        async with self.bot.database.read() as session:
            saved = await MacroRepository(session).get(guild_id=guild_id, user_id=interaction.user.id, name=name)
        if saved is None:
            raise MacroError(
                f"You have no saved roll called **{clip(name, NAME_LENGTH)}** here. `/macro list` shows yours.",
                title="No such saved roll",
            )
        parsed = parse_roll(self.bot.tree, saved.line if options is None else with_options(saved.line, options))
        await replay(interaction, parsed.name, {option["name"]: option["value"] for option in parsed.options})

    @app_commands.command(name="list")
    async def list_saved(self, interaction: Interaction) -> None:
        """List your saved rolls in this server."""
        pages = await macro_pages(self.bot, guild_of(interaction), interaction.user.id)
        view = page_view(MacroPage, interaction.user.id, 1, len(pages))
        await interaction.response.send_message(embed=pages[0], view=view, ephemeral=True)

    @app_commands.command(name="delete")
    @app_commands.autocomplete(name=names)
    async def delete_saved(self, interaction: Interaction, name: app_commands.Range[str, 1, NAME_LENGTH]) -> None:
        """Delete one of your saved rolls.

        Args:
            name: The saved roll (autocomplete lists yours)
        """
        guild_id = guild_of(interaction)
        async with self.bot.database.write.begin() as session:
            gone = await MacroRepository(session).delete(guild_id=guild_id, user_id=interaction.user.id, name=name)
        if not gone:
            raise MacroError(f"You have no saved roll called **{clip(name, NAME_LENGTH)}** here.")
        embed = discord.Embed(title="Saved roll deleted", description=f"**{clip(name, NAME_LENGTH)}** is gone.")
        await interaction.response.send_message(embed=embed, ephemeral=True)


async def macro_pages(bot: DiceBot, guild_id: int, user_id: int) -> list[discord.Embed]:
    """A user's saved rolls in a server, every one of them, in pages."""
    async with bot.database.read() as session:
        found = await MacroRepository(session).list(guild_id=guild_id, user_id=user_id)
    return line_pages(
        f"Your saved rolls ({len(found)} of {MAX_MACROS})",
        [f"**{m.name}**: `{clip(m.line, 200)}`" for m in found],
        empty="None yet: `/macro save` makes one.",
        colour=ROLL_COLOUR,
    )


class MacroPage(ListPage, template=r"macros:(?P<asker>[0-9]{1,20}):(?P<page>[0-9]{1,3})"):
    """A page of /macro list, read again from the store."""

    prefix = "macros"

    async def pages(self, interaction: Interaction) -> list[discord.Embed]:
        """The asker's saved rolls in the server the button is pressed in."""
        return await macro_pages(interaction.client, guild_of(interaction), self.asker)


async def setup(bot: DiceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Macros(bot))
    bot.add_dynamic_items(MacroPage)
