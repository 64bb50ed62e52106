"""Embed builders shared by every command, and the limits they keep to."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from fractions import Fraction

import discord

from bot.rules.audience import Creature

# Discord's documented embed limits.
TITLE_LIMIT = 256
DESCRIPTION_LIMIT = 4096
FIELD_VALUE_LIMIT = 1024
FIELD_NAME_LIMIT = 256
FIELDS_LIMIT = 25
FOOTER_LIMIT = 2048
AUTHOR_LIMIT = 256
EMBED_TOTAL_LIMIT = 6000

PHONE_WIDTH = 38  # characters in one line of an embed on a phone held upright
PHONE_LINES = 25  # lines of an embed that fit one phone screen: an answer's page keeps to them
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
        history: The roll's line in /history, plain text; None for a roll of a replayed kind, whose line is its
            kind's summary of the result (`bot.ui.summaries`, which `answer_roll` logs).
        secret: The full answer with a secret defender's numbers, which the others leave out: for the
            defender's owner (`secret_owner`) and the GM channel only; None when nothing was left out.
    """

    full: discord.Embed
    compact: discord.Embed | None
    history: str | None = None
    secret: discord.Embed | None = None
    secret_owner: int | None = None


@dataclass(frozen=True, slots=True)
class Defender:
    """The character an attack is made against, as its answer names it.

    A `secret` one (the game master's) keeps its numbers out of the answers everyone sees; its ruleset's
    presenter says which numbers those are. The answer in full goes to its `owner_id` and the GM channel only.
    """

    name: str
    secret: bool = False
    owner_id: int | None = None
    hidden_hp: bool = False  # a combatant whose hit points the game master keeps (players see a health word)

    @property
    def creature(self) -> Creature:
        """What the audience policy needs to know of it (`bot.rules.audience`)."""
        return Creature(self.owner_id, secret=self.secret, hidden_hp=self.hidden_hp)


def hides(defender: Defender | None) -> bool:
    """Whether an answer against `defender` keeps its numbers from everyone but its owner and the GM."""
    return defender is not None and defender.secret


# Markup a phone does not show as characters: bold, italics, strike-through, code and spoiler marks.
_MARKS = re.compile(r"\*\*|__|~~|\|\||`")
_MENTION = re.compile(r"<(@[!&]?|#)[0-9]+>")  # shown as a name, about ten characters


def phone_lines(embed: discord.Embed, width: int = PHONE_WIDTH) -> int:
    """How many lines `embed` takes on a phone `width` characters wide, each text wrapped at its words.

    The author, title, description, each field's name and value (a phone stacks inline fields) and the footer
    count; Markdown marks do not, a mention counts as a ten-character name.
    """
    texts = [embed.author.name, embed.title, embed.description]
    for field in embed.fields:
        texts += [field.name, field.value]
    texts.append(embed.footer.text)
    return sum(_wrapped(text, width) for text in texts if text)


def _wrapped(text: str, width: int) -> int:
    shown = _MENTION.sub("@" + "x" * 9, _MARKS.sub("", text))
    return sum(max(1, len(textwrap.wrap(line, width))) for line in shown.split("\n"))


def paged(embed: discord.Embed, lines: int = PHONE_LINES, *, footer_everywhere: bool = False) -> list[discord.Embed]:
    """`embed` laid out as pages of at most `lines` phone lines each, the first page first.

    Each field is a whole step as its presenter made it (an attack, a shot, a section of a sheet): pages take
    whole fields in order, never part of one, so a field longer than a page has a page of its own. The first
    page has the description; every page the title (numbered when there are several) and colour; the last the
    footer, or every page with `footer_everywhere` (a sheet's number and version, which each page is of).
    """
    fields = [(f.name or "", f.value or "", bool(f.inline)) for f in embed.fields]
    footer = _wrapped(embed.footer.text, PHONE_WIDTH) if embed.footer.text else 0
    title = f"{embed.title or ''} · 10/10"  # the longest numbered title a page may get

    def too_long(group: list[tuple[str, str, bool]], first: bool, last: bool) -> bool:
        with_footer = last or footer_everywhere
        return phone_lines(_page(embed, title, group, first=first)) + (footer if with_footer else 0) > lines

    groups: list[list[tuple[str, str, bool]]] = [[]]
    for field in fields:
        if groups[-1] and too_long([*groups[-1], field], len(groups) == 1, False):
            groups.append([field])
        else:
            groups[-1].append(field)
    if len(groups[-1]) > 1 and too_long(groups[-1], len(groups) == 1, True):
        groups.append([groups[-1].pop()])  # the footer needs the room
    if len(groups) == 1:
        return [embed]
    pages = [
        _page(embed, clip(f"{embed.title or ''} · {n}/{len(groups)}", TITLE_LIMIT), group, first=n == 1)
        for n, group in enumerate(groups, start=1)
    ]
    for page in pages if footer_everywhere else pages[-1:]:
        if embed.footer.text:
            page.set_footer(text=embed.footer.text)
    return pages


def _page(embed: discord.Embed, title: str, fields: list[tuple[str, str, bool]], *, first: bool) -> discord.Embed:
    page = discord.Embed(title=title, description=embed.description if first else None, colour=embed.colour)
    if embed.author.name:
        page.set_author(name=embed.author.name)
    for name, value, inline in fields:
        page.add_field(name=name, value=value, inline=inline)
    return page


def signed(value: int) -> str:
    """A modifier with its sign: +3, -2, +0."""
    return f"{value:+d}"


def term(value: int) -> str:
    """A term of a written-out sum: '+ 2' or '- 3'."""
    return f"+ {value}" if value >= 0 else f"- {-value}"


def fixed(value: Fraction, places: int) -> str:
    """An exact number with `places` decimals, halves rounded up: 5.225 -> "5.23" (float() would say 5.22)."""
    return _decimals(value.numerator, value.denominator, places)


def _decimals(numerator: int, denominator: int, places: int) -> str:
    """`numerator / denominator` (a positive denominator) with `places` decimals, halves rounded up, in integers.

    floor(n / d * scale + 1/2) is (2 n scale + d) // 2 d: Fraction arithmetic would reduce by a gcd at every step,
    and a quick attack's answer writes six of them.
    """
    scale = 10**places
    scaled = (2 * numerator * scale + denominator) // (2 * denominator)
    sign = "-" if scaled < 0 else ""
    whole, part = divmod(abs(scaled), scale)
    return f"{sign}{whole}.{part:0{places}d}" if places else f"{sign}{whole}"


def percent(chance: Fraction, places: int = 1, *, trim: bool = False) -> str:
    """A probability as a percentage with `places` decimals, exactly rounded: 55.0%; `trim`: 2%, 0.63%."""
    text = _decimals(chance.numerator * 100, chance.denominator, places)
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
