"""/help: the first commands of a new player, per ruleset, as data the tests run one by one."""

from __future__ import annotations

from typing import Any, Final

import discord

from bot.ui import rulesets
from bot.ui.embeds import ROLL_COLOUR
from bot.ui.rulesets import Start

# Each line is run in order by tests/cogs/test_help.py, through the command tree, so none can go stale. Each ruleset's
# page is its own (`bot.ui.rulesets.Presenters.start`); this one is /roll's.
DICE: Final = Start(
    "dice",
    "Any dice",
    (
        "/roll expression:4d6k3 label:Strength",
        '/roll expression:"1d20+5 adv"',
        '/macro save name:init command:"/roll expression:1d20+2 label:Initiative"',
    ),
    None,
    "`/roll` reads Roll20, Avrae and Dice Maiden notation and shows each roll's exact odds; `/odds` charts "
    "every total; `/fair start` makes dice provable.",
)


# The encounter tracker's page: a game master's first fight, each line run by tests/test_help.py as the others.
TRACKER: Final = Start(
    "encounter",
    "A fight (the tracker)",
    (
        "/encounter start ruleset:dnd35 name:Cave",
        "/encounter add name:Goblin count:2 hp:6 ac:15 initiative:1",
        "/encounter next",
        '/dnd attack target:"Goblin 1" attack_bonus:4 damage:1d8+2',
        "/encounter undo",
    ),
    None,
    "The tracker is one pinned message, edited after every change. **Next** pings whose turn it is and passes "
    "whoever cannot act (dead, dying, stunned...); a hit on a `target:` comes off its hit points; undo says what "
    "it took back. Players `/encounter join` with their character.",
)


def starts() -> tuple[Start, ...]:
    """Every first-steps page: /roll's, then each registered ruleset's, then the tracker's."""
    return (DICE, *(p.start for p in rulesets.every()), TRACKER)


def __getattr__(name: str) -> Any:
    """`STARTS` and `BY_KEY`: `starts()` as a tuple and by key, as the registry holds the rulesets now."""
    if name == "STARTS":
        return starts()
    if name == "BY_KEY":
        return {start.key: start for start in starts()}
    raise AttributeError(name)


EVERYWHERE = (
    "Every roll answers short: press **Details** for every step, **Roll again** to repeat it. "
    "`private:true` shows a roll to you only, `hidden:true` to the game master. "
    "Option descriptions in Discord say what each one takes."
)


def help_embed(key: str | None) -> discord.Embed:
    """One ruleset's first steps, or a short line for each ruleset when none is chosen."""
    if key is not None:
        start = {s.key: s for s in starts()}[key]
        lines = [f"{n}. `{line}`" for n, line in enumerate(start.steps, start=1)]
        if start.quick:
            lines.append(f"No character? `{start.quick}`")
        lines += ["", start.more, "", EVERYWHERE]
        return discord.Embed(title=f"Getting started: {start.title}", description="\n".join(lines), colour=ROLL_COLOUR)
    embed = discord.Embed(title="Getting started", description=EVERYWHERE, colour=ROLL_COLOUR)
    for start in starts():
        first = f"`{start.quick or start.steps[0]}`"
        embed.add_field(
            name=start.title, value=f"{first}\n`/help ruleset:{start.key}` for the first steps", inline=False
        )
    return embed
