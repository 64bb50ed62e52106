"""A rolled dice expression as Markdown: every die shown, dropped and rerolled dice struck through."""

from __future__ import annotations

import discord

from bot.rules.dice import (
    MAX_EXTRA_ROLLS,
    BinaryResult,
    DiceResult,
    Die,
    DieState,
    GroupResult,
    NegateResult,
    NumberResult,
    Operator,
    ResultNode,
    RollResult,
)
from bot.ui.embeds import DESCRIPTION_LIMIT, ROLL_COLOUR, TITLE_LIMIT, clip

# Room left in the description for " = **total**" after the breakdown.
_TOTAL_ROOM = 40


def die_text(die: Die) -> str:
    """One die: its face, `!` when it exploded, struck through when it does not count."""
    text = f"{die.face}!" if die.exploded else str(die.face)
    return text if die.state is DieState.KEPT else f"~~{text}~~"


def breakdown(node: ResultNode, *, every_die: bool = True) -> str:
    """The expression with what each term rolled; `every_die=False` shows only each term's sum."""
    match node:
        case NumberResult():
            return str(node.value)
        case DiceResult():
            if not every_die:
                return f"{node.term} ({len(node.dice)} dice: {node.total})"
            return f"{node.term} ({', '.join(die_text(d) for d in node.dice)})"
        case NegateResult():
            return "-" + breakdown(node.operand, every_die=every_die)
        case BinaryResult():
            # A bare * would start italics in Discord's Markdown.
            op = "\\*" if node.op is Operator.MULTIPLY else str(node.op)
            return f"{breakdown(node.left, every_die=every_die)} {op} {breakdown(node.right, every_die=every_die)}"
        case GroupResult():
            return f"({breakdown(node.inner, every_die=every_die)})"
    raise TypeError(f"not a result node: {node!r}")


def roll_description(result: RollResult) -> str:
    """The breakdown and the total in bold, short enough for an embed description."""
    room = DESCRIPTION_LIMIT - _TOTAL_ROOM
    text = breakdown(result.tree)
    if len(text) > room:
        text = breakdown(result.tree, every_die=False)
    return f"{clip(text, room)} = **{result.total}**"


def roll_embed(result: RollResult, *, roller: str, typed: str, label: str | None) -> discord.Embed:
    """The answer to /roll: the label (or the expression) as title, then every die and the total."""
    embed = discord.Embed(
        title=clip(label or typed, TITLE_LIMIT), description=roll_description(result), colour=ROLL_COLOUR
    )
    embed.set_author(name=clip(f"{roller} rolls", 256))
    if result.capped:
        embed.set_footer(text=f"Exploding and rerolled dice stopped at the limit of {MAX_EXTRA_ROLLS} extra rolls.")
    return embed
