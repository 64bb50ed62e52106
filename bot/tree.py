"""The command tree with the one error funnel every slash command goes through."""

from __future__ import annotations

import logging
from typing import Any, cast

import discord
from discord import app_commands

from bot.errors import UserError
from bot.ui.embeds import error_embed

log = logging.getLogger(__name__)

UNKNOWN_INTERACTION = 10062
ALREADY_ACKNOWLEDGED = 40060
APOLOGY = (
    "Something went wrong on our side and the command did not finish. It has been logged; "
    "please try again, and tell the bot's maintainers if it keeps happening."
)


def unwrap(error: BaseException) -> BaseException:
    """The error that really happened, under discord.py's wrappers."""
    if isinstance(error, app_commands.CommandInvokeError):
        return unwrap(error.original)
    if isinstance(error, app_commands.TransformerError) and isinstance(error.__cause__, UserError):
        return error.__cause__
    return error


def describe(error: BaseException) -> tuple[str, str] | None:
    """The title and message for an error the user can fix, or None for a bug."""
    if isinstance(error, UserError):
        return error.title, error.message
    if isinstance(error, app_commands.TransformerError):
        return "Bad option", f"`{error.value}` is not a valid value here."
    if isinstance(error, app_commands.MissingPermissions):
        needed = ", ".join(p.replace("_", " ").title() for p in error.missing_permissions)
        return "Not allowed", f"This needs the {needed} permission."
    if isinstance(error, app_commands.NoPrivateMessage):
        return "Servers only", "This command works in a server, not in direct messages."
    if isinstance(error, app_commands.CommandOnCooldown):
        return "Slow down", f"Try again in {error.retry_after:.0f} seconds."
    if isinstance(error, app_commands.CommandSignatureMismatch | app_commands.CommandNotFound):
        return "Command out of date", "The bot was updated since Discord last saw this command; try again shortly."
    if isinstance(error, app_commands.CheckFailure):
        return "Not allowed", "You can't use this command here."
    return None


def given_options(interaction: discord.Interaction[Any]) -> dict[str, Any]:
    """The options of a slash command as typed, subcommand levels flattened away.

    A command run again by a button or a saved roll carries the options it runs with in its extras.
    """
    if "options" in interaction.extras:
        return dict(interaction.extras["options"])
    options: list[dict[str, Any]] = cast(dict[str, Any], interaction.data or {}).get("options", [])
    while options and options[0].get("type") in (1, 2):
        options = options[0].get("options", [])
    return {option["name"]: option.get("value") for option in options}


def command_name(interaction: discord.Interaction[Any]) -> str:
    """The command an interaction runs: its own, or the one a button or a saved roll runs again."""
    if "command" in interaction.extras:
        return str(interaction.extras["command"])
    return interaction.command.qualified_name if interaction.command else "?"


async def report(interaction: discord.Interaction[Any], error: BaseException) -> None:
    """Tell the user what went wrong, whether or not the interaction was answered already.

    The one place failures of commands, buttons and forms end up: errors the user can fix become an
    ephemeral red embed; anything else is logged once, with the command and its options, and apologised for.
    """
    cause = unwrap(error)
    known = describe(cause)
    command = command_name(interaction)
    if isinstance(cause, discord.NotFound) and cause.code == UNKNOWN_INTERACTION:
        # Too late to answer at all: Discord has dropped the interaction and shows the user a failure.
        log.warning("/%s missed Discord's 3-second deadline for a first response", command)
        return
    if known is None:
        log.error("Unhandled error in /%s with options %s", command, given_options(interaction), exc_info=cause)
    if interaction.type is discord.InteractionType.autocomplete:
        # Autocomplete can only answer with choices: offer none rather than leave the menu spinning.
        if not interaction.response.is_done():
            await interaction.response.autocomplete([])
        return
    title, message = known or ("Sorry", APOLOGY)
    embed = error_embed(title, message)
    try:
        # A 40060 means Discord has the first response even though discord.py does not know it.
        answered = isinstance(cause, discord.HTTPException) and cause.code == ALREADY_ACKNOWLEDGED
        if answered or interaction.response.is_done():
            await interaction.followup.send(embed=embed, ephemeral=True)
        else:
            await interaction.response.send_message(embed=embed, ephemeral=True)
    except discord.HTTPException:
        log.warning("Could not tell the user about an error in /%s", command, exc_info=True)


class BotTree(app_commands.CommandTree[Any]):
    """Routes every failure of a slash command to `report`."""

    async def on_error(self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError) -> None:
        """Report the failure to the user (and the log, if it is a bug)."""
        await report(interaction, error)
