"""A rolled dice expression as Markdown: every die shown, dropped and rerolled dice struck through."""

from __future__ import annotations

import re

import discord
from discord.utils import escape_markdown

from bot.rules.dice import (
    MAX_EXTRA_ROLLS,
    AnnotatedResult,
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
    RollsResult,
    SetResult,
)
from bot.ui.embeds import DESCRIPTION_LIMIT, ROLL_COLOUR, TITLE_LIMIT, Answer, clip, history_text

# Room left in the description for " = **total**" after the breakdown.
_TOTAL_ROOM = 40
# The footer holds the cap and the readings; kept well inside the embed's 6000 characters in all.
_FOOTER_ROOM = 1000


def die_text(die: Die) -> str:
    """One die: its face, `!` when it exploded, bold when a success, struck through when it does not count."""
    text = f"{die.face}!" if die.exploded else str(die.face)
    if die.success:
        text = f"**{text}**"
    elif die.failure:
        text = f"__{text}__"
    return text if die.state is DieState.KEPT else f"~~{text}~~"


def breakdown(node: ResultNode, *, every_die: bool = True) -> str:
    """The expression with what each term rolled; `every_die=False` shows only each term's sum."""
    match node:
        case NumberResult():
            return str(node.value)
        case DiceResult():
            counted = " successes" if node.term.success is not None else ""
            if not every_die:
                return f"{node.term} ({len(node.dice)} dice: {node.total}{counted})"
            faces = ", ".join(die_text(d) for d in node.dice)
            return f"{node.term} ({faces})" + (f" → {node.total}{counted}" if counted else "")
        case NegateResult():
            return "-" + breakdown(node.operand, every_die=every_die)
        case BinaryResult():
            # A bare * would start italics in Discord's Markdown.
            op = "\\*" if node.op is Operator.MULTIPLY else str(node.op)
            return f"{breakdown(node.left, every_die=every_die)} {op} {breakdown(node.right, every_die=every_die)}"
        case GroupResult():
            return f"({breakdown(node.inner, every_die=every_die)})"
        case AnnotatedResult():
            return f"{breakdown(node.inner, every_die=every_die)} \\[{escape_markdown(node.note)}\\]"
        case SetResult():
            items = []
            for item, kept in zip(node.items, node.kept, strict=True):
                text = f"{breakdown(item, every_die=every_die)} = {item.total}"
                items.append(text if kept else f"~~{text}~~")
            keep = "" if node.term.keep is None else str(node.term.keep)
            target = node.term.success
            if target is None:
                return "{" + ", ".join(items) + "}" + keep
            at = ("=" if target.comparator == "=" else "") + str(target)
            return "{" + ", ".join(items) + "}" + f"{keep}{at} → {node.total} successes"
        case RollsResult():
            return "\n".join(f"{breakdown(item, every_die=every_die)} = **{item.total}**" for item in node.items)
    raise TypeError(f"not a result node: {node!r}")


def _totals_only(node: RollsResult) -> str:
    return "\n".join(f"{text} = **{item.total}**" for text, item in zip(node.texts, node.items, strict=True))


def roll_description(result: RollResult) -> str:
    """The breakdown and the total in bold, short enough for an embed description."""
    room = DESCRIPTION_LIMIT - _TOTAL_ROOM
    text = breakdown(result.tree)
    if len(text) > room:
        text = breakdown(result.tree, every_die=False)
    if isinstance(result.tree, RollsResult):
        # The totals come first, so that the compact answer (its first lines) shows every roll's outcome.
        totals = "Totals: " + ", ".join(f"**{item.total}**" for item in result.tree.items)
        if len(text) > room:
            text = _totals_only(result.tree)
        return clip(f"{totals}\n{text}", DESCRIPTION_LIMIT)
    return f"{clip(text, room)} = **{result.total}**"


def roll_footer(result: RollResult) -> str | None:
    """The cap, if it was reached, and which reading was used where dice bots disagree; None when neither."""
    lines = list(result.notes)
    if result.capped:
        lines.insert(0, f"Exploding and rerolled dice stopped at the limit of {MAX_EXTRA_ROLLS} extra rolls.")
    return clip("\n".join(lines), _FOOTER_ROOM) if lines else None


def roll_embed(result: RollResult, *, roller: str, typed: str, label: str | None) -> discord.Embed:
    """The answer to /roll: the label (the option, else the text after the roll, else the expression) as title."""
    title = label or result.label or typed
    embed = discord.Embed(title=clip(title, TITLE_LIMIT), description=roll_description(result), colour=ROLL_COLOUR)
    embed.set_author(name=clip(f"{roller} rolls", 256))
    footer = roll_footer(result)
    if footer is not None:
        embed.set_footer(text=footer)
    return embed


def roll_answer(result: RollResult, *, roller: str, typed: str, label: str | None) -> Answer:
    """The answer to /roll in its three forms; only several rolls have a shorter one than the full answer."""
    full = roll_embed(result, roller=roller, typed=typed, label=label)
    compact = None
    if isinstance(result.tree, RollsResult) and len(result.tree.items) > 1:
        compact = roll_embed(result, roller=roller, typed=typed, label=label)
        first = f"{breakdown(result.tree.items[0])} = **{result.tree.items[0].total}**"
        compact.description = clip(f"{_totals(result.tree)}\n{first}", DESCRIPTION_LIMIT)
    return Answer(full=full, compact=compact, history=roll_history(result))


def roll_history(result: RollResult) -> str:
    """A roll's /history line: the totals of several rolls, else the breakdown and the total, plain."""
    if isinstance(result.tree, RollsResult):
        return history_text("Totals: " + ", ".join(str(item.total) for item in result.tree.items))
    text = breakdown(result.tree)
    if len(text) > DESCRIPTION_LIMIT - _TOTAL_ROOM:
        text = breakdown(result.tree, every_die=False)
    # The breakdown's own emphasis and escapes, which a plain line does not need.
    text = re.sub(r"\\(.)", r"\1", re.sub(r"\*\*|~~|__", "", text))
    return history_text(f"{text} = {result.total}")


def _totals(tree: RollsResult) -> str:
    return "Totals: " + ", ".join(f"**{item.total}**" for item in tree.items)
