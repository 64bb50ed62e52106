"""Embed builders shared by every command, and the limits they keep to."""

from __future__ import annotations

import copy
import math
from fractions import Fraction

import discord

# Discord's documented embed limits.
TITLE_LIMIT = 256
DESCRIPTION_LIMIT = 4096
FIELD_VALUE_LIMIT = 1024
FOOTER_LIMIT = 2048
AUTHOR_LIMIT = 256
EMBED_TOTAL_LIMIT = 6000

COMPACT_LINES = 2  # a compact answer keeps the outcome and the odds line
FIELD_KEPT = 80  # characters of a field's value that `fit` keeps at least before it drops whole fields
LEFT_OUT_NAME = "Left out"
LEFT_OUT_VALUE = "{dropped} more part(s) of this answer: Discord takes at most 6,000 characters in one."

ERROR_COLOUR = discord.Colour.red()
ROLL_COLOUR = discord.Colour.blurple()


def fixed(value: Fraction, places: int) -> str:
    """An exact number with `places` decimals, halves rounded up: 5.225 -> "5.23" (float() would say 5.22)."""
    scale = 10**places
    scaled = math.floor(value * scale + Fraction(1, 2))
    sign = "-" if scaled < 0 else ""
    whole, part = divmod(abs(scaled), scale)
    return f"{sign}{whole}.{part:0{places}d}" if places else f"{sign}{whole}"


def percent(chance: Fraction, places: int = 1) -> str:
    """A probability as a percentage with `places` decimals, exactly rounded: 55.0%."""
    return fixed(chance * 100, places) + "%"


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, with an ellipsis when something was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fit(embed: discord.Embed) -> discord.Embed:
    """`embed` cut, in place, to Discord's total of EMBED_TOTAL_LIMIT characters, saying what was cut.

    Each builder keeps to the per-part limits; the total is what many long parts can still break (a full
    attack of seven criticals with hundreds of dice each). The longest field values are cut first, each down
    to FIELD_KEPT characters at least; then the last fields give way to one that says how many were left
    out; the description is cut last.
    """
    excess = len(embed) - EMBED_TOTAL_LIMIT
    if excess <= 0:
        return embed
    fields = [(f.name or "", f.value or "", bool(f.inline)) for f in embed.fields]
    while excess > 0 and fields:
        longest = max(range(len(fields)), key=lambda i: len(fields[i][1]))
        name, value, inline = fields[longest]
        if len(value) <= FIELD_KEPT:
            break
        keep = max(FIELD_KEPT, len(value) - excess)
        excess -= len(value) - keep
        fields[longest] = (name, clip(value, keep), inline)
    _set_fields(embed, fields, dropped=0)
    dropped = 0
    while len(embed) > EMBED_TOTAL_LIMIT and fields:
        fields.pop()
        dropped += 1
        _set_fields(embed, fields, dropped=dropped)
    if (excess := len(embed) - EMBED_TOTAL_LIMIT) > 0 and embed.description:
        embed.description = clip(embed.description, max(1, len(embed.description) - excess))
    return embed


def _set_fields(embed: discord.Embed, fields: list[tuple[str, str, bool]], *, dropped: int) -> None:
    embed.clear_fields()
    for name, value, inline in fields:
        embed.add_field(name=name, value=value, inline=inline)
    if dropped:
        embed.add_field(name=LEFT_OUT_NAME, value=LEFT_OUT_VALUE.format(dropped=dropped), inline=False)


def error_embed(title: str, message: str) -> discord.Embed:
    """The red embed every failure is answered with."""
    return discord.Embed(
        title=clip(title, TITLE_LIMIT), description=clip(message, DESCRIPTION_LIMIT), colour=ERROR_COLOUR
    )


def stamp_fair(embed: discord.Embed, roll_number: int | None, commitment: str | None) -> discord.Embed:
    """Add a fair roll's number and its session's commitment to the footer, so it can be verified later."""
    if roll_number is None or commitment is None:
        return embed
    note = f"Fair roll #{roll_number} · commitment {commitment[:16]}… · /fair verify after the reveal"
    text = f"{embed.footer.text}\n{note}" if embed.footer and embed.footer.text else note
    embed.set_footer(text=clip(text, FOOTER_LIMIT))
    return embed


def compact(embed: discord.Embed) -> discord.Embed | None:
    """The short form of an answer, for a phone: its first lines and footer; None when it is short already."""
    lines = (embed.description or "").split("\n")
    if len(lines) <= COMPACT_LINES and not embed.fields:
        return None
    short = discord.Embed.from_dict(copy.deepcopy(embed.to_dict()))  # to_dict shares the list of fields
    short.clear_fields()
    short.description = "\n".join(lines[:COMPACT_LINES])
    return short
