"""/help: the first commands of a new player, per ruleset, as data the tests run one by one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import discord

from bot.ui.embeds import ROLL_COLOUR


@dataclass(frozen=True, slots=True)
class Start:
    """How a new player begins with one ruleset: a few command lines in order, and a line for no sheet at all."""

    key: str
    title: str
    steps: tuple[str, ...]
    quick: str | None  # one roll with the numbers typed in, no character needed
    more: str


# Each line is run in order by tests/test_help.py, through the command tree, so none can go stale.
STARTS: Final = (
    Start(
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
    ),
    Start(
        "dnd35",
        "D&D 3.5 / NWN",
        (
            "/character create ruleset:dnd35 name:Lira",
            '/character set character:Lira values:"str=12 dex=17 hp=28/28 bab=3 finesse=yes weapon_groups=martial"',
            "/dnd attack weapon:Rapier target_ac:15",
        ),
        "/dnd attack attack_bonus:5 damage:1d8+3 target_ac:15",
        "`/dnd full-attack` for every iterative attack, `/dnd odds` before you roll, `/character hp` keeps hit points.",
    ),
    Start(
        "sf",
        "Star Frontiers",
        (
            "/character create ruleset:sf name:Riker",
            '/character set character:Riker values:"dex=55 rs=50 beam=2"',
            '/sf shoot weapon:"Laser pistol" distance:30 setting:2',
        ),
        "/sf shoot score:23 skill:2 damage:2d10 distance:short",
        "`/sf melee` for hand-to-hand, `/sf odds shoot` before you roll.",
    ),
    Start(
        "aliensrl",
        "AliensRL",
        (
            "/character create ruleset:aliensrl name:Hicks",
            '/character set character:Hicks values:"rifle=2 hp=40/40"',
            '/character weapon add character:Hicks name:"Pulse rifle" details:"accuracy=1 shots=3"',
        ),
        "/aliens fire skill_rank:2 distance:6",
        "`/aliens fire` with your weapon, `/aliens melee` for aliens' claws, `/aliens odds` before you roll.",
    ),
)
BY_KEY: Final = {start.key: start for start in STARTS}
EVERYWHERE = (
    "Every roll answers short: press **Details** for every step, **Roll again** to repeat it. "
    "`private:true` shows a roll to you only, `hidden:true` to the game master. "
    "Option descriptions in Discord say what each one takes."
)


def help_embed(key: str | None) -> discord.Embed:
    """One ruleset's first steps, or a short line for each ruleset when none is chosen."""
    if key is not None:
        start = BY_KEY[key]
        lines = [f"{n}. `{line}`" for n, line in enumerate(start.steps, start=1)]
        if start.quick:
            lines.append(f"No character? `{start.quick}`")
        lines += ["", start.more, "", EVERYWHERE]
        return discord.Embed(title=f"Getting started: {start.title}", description="\n".join(lines), colour=ROLL_COLOUR)
    embed = discord.Embed(title="Getting started", description=EVERYWHERE, colour=ROLL_COLOUR)
    for start in STARTS:
        first = f"`{start.quick or start.steps[0]}`"
        embed.add_field(
            name=start.title, value=f"{first}\n`/help ruleset:{start.key}` for the first steps", inline=False
        )
    return embed
