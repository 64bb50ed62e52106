"""Embed builders shared by every command, and the limits they keep to."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import discord

# Discord's documented embed limits.
TITLE_LIMIT = 256
DESCRIPTION_LIMIT = 4096
FIELD_VALUE_LIMIT = 1024
FIELD_NAME_LIMIT = 256
FIELDS_LIMIT = 25
FOOTER_LIMIT = 2048
AUTHOR_LIMIT = 256
EMBED_TOTAL_LIMIT = 6000

HISTORY_LIMIT = 200  # characters of a roll's /history line
FIELD_KEPT = 80  # characters of a field's value that `fit` keeps at least before it drops whole fields
LEFT_OUT_NAME = "Left out"
LEFT_OUT_VALUE = "{dropped} more part(s) of this answer: Discord takes at most 6,000 characters in one."

ERROR_COLOUR = discord.Colour.red()
ROLL_COLOUR = discord.Colour.blurple()

DEFAULT_MARK = "†"  # a number the rules source does not give, which the bot proposes
DEFAULT_FOOTER = "† a default: the rules source does not give this number, so the bot proposes one."


@dataclass(frozen=True, slots=True)
class Answer:
    """A roll's answer in every form, each made from the rules core's result by its ruleset's presenter.

    Attributes:
        full: Every step, behind Details (and what a server that prefers full answers, or the GM channel, sees).
        compact: The short form a phone shows first; None when the full answer is that short already.
        history: The roll's line in /history, plain text.
        secret: The full answer with a secret defender's numbers, which the others leave out: for the
            defender's owner (`secret_owner`) and the GM channel only; None when nothing was left out.
    """

    full: discord.Embed
    compact: discord.Embed | None
    history: str
    secret: discord.Embed | None = None
    secret_owner: int | None = None


def signed(value: int) -> str:
    """A modifier with its sign: +3, -2, +0."""
    return f"{value:+d}"


def term(value: int) -> str:
    """A term of a written-out sum: '+ 2' or '- 3'."""
    return f"+ {value}" if value >= 0 else f"- {-value}"


def fixed(value: Fraction, places: int) -> str:
    """An exact number with `places` decimals, halves rounded up: 5.225 -> "5.23" (float() would say 5.22)."""
    scale = 10**places
    scaled = math.floor(value * scale + Fraction(1, 2))
    sign = "-" if scaled < 0 else ""
    whole, part = divmod(abs(scaled), scale)
    return f"{sign}{whole}.{part:0{places}d}" if places else f"{sign}{whole}"


def percent(chance: Fraction, places: int = 1, *, trim: bool = False) -> str:
    """A probability as a percentage with `places` decimals, exactly rounded: 55.0%; `trim`: 2%, 0.63%."""
    text = fixed(chance * 100, places)
    if trim and "." in text:
        text = text.rstrip("0").rstrip(".")
    return text + "%"


def history_text(text: str) -> str:
    """`text` as a /history line: one line of at most HISTORY_LIMIT characters."""
    return clip(" ".join(text.split()), HISTORY_LIMIT)


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, with an ellipsis when something was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fit(embed: discord.Embed) -> discord.Embed:
    """`embed` cut, in place, to Discord's limits, saying what was cut: every answer passes through here.

    First each part is cut to its own limit (title, description, author, footer, 25 fields, each field's name
    and value). Then the total of EMBED_TOTAL_LIMIT characters, which many long parts can still break (a full
    attack of seven criticals with hundreds of dice each): the longest field values are cut first, each down
    to FIELD_KEPT characters at least; then the last fields give way to one that says how many were left
    out; the description is cut last.
    """
    _fit_parts(embed)
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


def _fit_parts(embed: discord.Embed) -> None:
    if embed.title and len(embed.title) > TITLE_LIMIT:
        embed.title = clip(embed.title, TITLE_LIMIT)
    if embed.description and len(embed.description) > DESCRIPTION_LIMIT:
        embed.description = clip(embed.description, DESCRIPTION_LIMIT)
    if embed.author.name and len(embed.author.name) > AUTHOR_LIMIT:
        embed.set_author(
            name=clip(embed.author.name, AUTHOR_LIMIT), url=embed.author.url, icon_url=embed.author.icon_url
        )
    if embed.footer.text and len(embed.footer.text) > FOOTER_LIMIT:
        embed.set_footer(text=clip(embed.footer.text, FOOTER_LIMIT), icon_url=embed.footer.icon_url)
    fields = [(f.name or "", f.value or "", bool(f.inline)) for f in embed.fields]
    fitted = [(clip(name, FIELD_NAME_LIMIT), clip(value, FIELD_VALUE_LIMIT), inline) for name, value, inline in fields]
    if len(fitted) > FIELDS_LIMIT:
        _set_fields(embed, fitted[: FIELDS_LIMIT - 1], dropped=len(fitted) - FIELDS_LIMIT + 1)
    elif fitted != fields:
        _set_fields(embed, fitted, dropped=0)


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
