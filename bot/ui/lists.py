"""Lists in pages: a list of any length laid out as pages that each fit a phone screen, never clipped."""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.ui.embeds import DESCRIPTION_LIMIT, PHONE_LINES, TITLE_LIMIT, clip, phone_lines

LINE_LIMIT = 300  # characters of one entry: a page holds several


def line_pages(
    title: str,
    lines: Sequence[str],
    *,
    empty: str,
    footer: str | None = None,
    colour: discord.Colour | None = None,
) -> list[discord.Embed]:
    """`lines` (whole entries, in order) laid out as pages of at most a phone screen each, every one shown.

    Each page has the title (numbered when there are several) and the footer; `empty` is the one page of an
    empty list.
    """

    def page(title: str, entries: Sequence[str]) -> discord.Embed:
        embed = discord.Embed(title=clip(title, TITLE_LIMIT), description="\n".join(entries), colour=colour)
        if footer:
            embed.set_footer(text=footer)
        return embed

    if not lines:
        return [page(title, [empty])]
    widest = f"{title} · 100/100"  # the longest numbered title a page may get
    groups: list[list[str]] = [[]]
    for entry in (clip(line, LINE_LIMIT) for line in lines):
        trial = [*groups[-1], entry]
        crowded = phone_lines(page(widest, trial)) > PHONE_LINES or len("\n".join(trial)) > DESCRIPTION_LIMIT
        if groups[-1] and crowded:
            groups.append([entry])
        else:
            groups[-1] = trial
    if len(groups) == 1:
        return [page(title, groups[0])]
    return [page(f"{title} · {n}/{len(groups)}", group) for n, group in enumerate(groups, start=1)]
