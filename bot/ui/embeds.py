"""Embed builders shared by every command, and the limits they keep to."""

from __future__ import annotations

import discord

# Discord's documented embed limits.
TITLE_LIMIT = 256
DESCRIPTION_LIMIT = 4096
FIELD_VALUE_LIMIT = 1024
FOOTER_LIMIT = 2048
AUTHOR_LIMIT = 256
EMBED_TOTAL_LIMIT = 6000

ERROR_COLOUR = discord.Colour.red()
ROLL_COLOUR = discord.Colour.blurple()


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, with an ellipsis when something was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def error_embed(title: str, message: str) -> discord.Embed:
    """The red embed every failure is answered with."""
    return discord.Embed(
        title=clip(title, TITLE_LIMIT), description=clip(message, DESCRIPTION_LIMIT), colour=ERROR_COLOUR
    )
