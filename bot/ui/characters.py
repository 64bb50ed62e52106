"""Characters shown: a sheet laid out like a character sheet, lists, and import summaries."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import discord

from bot.rules import rulesets
from bot.rules.sheets.base import Ruleset, Sheet
from bot.ui.embeds import FIELD_VALUE_LIMIT, ROLL_COLOUR, TITLE_LIMIT, clip, paged

SHEET_COLOUR = discord.Colour.dark_teal()
# Discord allows 25 fields per embed; a sheet never needs that many sections, but a huge one must still fit.
MAX_SECTIONS = 20


# What an answer shows of a character, as plain values: presentation reads them and never the store that keeps
# them (bot.db's records fit these shapes; a test's or the console's plain values do too).
class ShownCharacter(Protocol):
    """A character with its stat block, as its sheet shows it."""

    @property
    def id(self) -> int:
        """Its number (`#12`)."""
        ...

    @property
    def owner_id(self) -> int:
        """Whose it is."""
        ...

    @property
    def ruleset(self) -> Ruleset:
        """Its ruleset."""
        ...

    @property
    def name(self) -> str:
        """Its name."""
        ...

    @property
    def sheet(self) -> Sheet:
        """Its stat block."""
        ...

    @property
    def version(self) -> int:
        """How many times it was saved."""
        ...

    @property
    def secret(self) -> bool:
        """Whether its numbers are the game master's secret."""
        ...


class ListedCharacter(Protocol):
    """A character as a list names it: its number, name, ruleset's key and whether it is a secret."""

    @property
    def id(self) -> int:
        """Its number (`#12`)."""
        ...

    @property
    def ruleset(self) -> str:
        """Its ruleset's key."""
        ...

    @property
    def name(self) -> str:
        """Its name."""
        ...

    @property
    def secret(self) -> bool:
        """Whether it is the game master's secret."""
        ...


def sheet_embed(record: ShownCharacter, *, active: bool = False) -> discord.Embed:
    """The whole stat block, section by section, derived values included and explained.

    The owner is a mention in the description: Discord shows it as their name (without notifying them),
    which works for any member, cached or not.
    """
    sheet = record.sheet
    # On the first page, which a long sheet's owner sees first: whose it is, and that its numbers are secret.
    whose = f"of <@{record.owner_id}>" + (" · secret: only its owner sees these numbers" if record.secret else "")
    embed = discord.Embed(title=clip(record.name, TITLE_LIMIT), description=whose, colour=SHEET_COLOUR)
    embed.set_author(name=f"{record.ruleset.title} character")
    sections = sheet.sections()
    derived = sheet.derived()
    if derived:
        sections = [*sections, ("Derived", derived)]
    for title, lines in sections[:MAX_SECTIONS]:
        text = "\n".join(f"**{label}**: {value}" for label, value in lines) or "none"
        embed.add_field(name=title, value=clip(text, FIELD_VALUE_LIMIT), inline=title != "Weapons")
    footer = f"#{record.id} · version {record.version}"
    embed.set_footer(text=footer + (" · active" if active else ""))
    return embed


LIST_CHUNK = 10  # characters in one field of a list: a page takes whole fields


def list_pages(summaries: Sequence[ListedCharacter], *, owner_id: int, active: Sequence[int]) -> list[discord.Embed]:
    """A user's characters in this server, by ruleset, every one of them, in pages that fit a phone screen."""
    embed = discord.Embed(title="Characters", description=f"of <@{owner_id}> in this server", colour=ROLL_COLOUR)
    for rules in rulesets.every():
        names = [
            clip(f"{s.name} (#{s.id}){' · secret' if s.secret else ''}{' · active' if s.id in active else ''}", 100)
            for s in summaries
            if s.ruleset == rules.key
        ]
        for start in range(0, len(names), LIST_CHUNK):
            name = rules.title if start == 0 else f"{rules.title} (more)"
            embed.add_field(name=name, value="\n".join(names[start : start + LIST_CHUNK]), inline=False)
    if not summaries:
        embed.description = f"<@{owner_id}> has no characters here yet. `/character create` makes one."
    return paged(embed)


def done_embed(title: str, message: str) -> discord.Embed:
    """A short confirmation of a change."""
    return discord.Embed(title=clip(title, TITLE_LIMIT), description=message, colour=discord.Colour.green())
