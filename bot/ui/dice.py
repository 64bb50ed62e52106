"""A rolled dice expression as Markdown: every die shown, dropped and rerolled dice struck through; its odds."""

from __future__ import annotations

import math
import re
from collections import OrderedDict
from fractions import Fraction
from typing import Final

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
    ResultNode,
    RollResult,
    RollsResult,
    SetResult,
)
from bot.rules.dice_odds import CONFIDENCE, MIN_SAMPLES, Method, Odds
from bot.rules.odds_bars import TAIL, Bar, Bars, Fold, View, bars
from bot.ui.embeds import DESCRIPTION_LIMIT, ROLL_COLOUR, TITLE_LIMIT, Answer, clip, fixed, history_text, percent

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
            op = str(node.op).replace("*", "\\*")
            return f"{breakdown(node.left, every_die=every_die)} {op} {breakdown(node.right, every_die=every_die)}"
        case GroupResult():
            return f"{node.function}({breakdown(node.inner, every_die=every_die)})"
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


def chance(value: Fraction) -> str:
    """A chance as a percentage with one decimal, never rounded to a certainty it is not: <0.1%, >99.9%."""
    if 0 < value < Fraction(1, 2000):
        return "<0.1%"
    if Fraction(1999, 2000) <= value < 1:
        return ">99.9%"
    return percent(value)


def odds_method(odds: Odds) -> str:
    """How the odds were found, for an estimate: `sampled: 358 rolls, 99% intervals`; empty when exact."""
    if odds.method is Method.EXACT:
        return ""
    if odds.method is Method.NORMAL:
        return "normal approximation, Berry-Esseen bounds"
    if odds.method is Method.TOO_COSTLY:
        return f"too costly to estimate: not even {MIN_SAMPLES} sample rolls fit the budget"
    return f"sampled: {odds.denominator:,} rolls, {CONFIDENCE:.0%} intervals"


def span(low: float, high: float) -> str:
    """An interval of chances, widened to the next 0.1% on each side so that rounding never narrows it."""
    return f"{math.floor(low * 1000 + 1e-9) / 10:.1f}–{math.ceil(high * 1000 - 1e-9) / 10:.1f}%"


def estimated(odds: Odds, value: Fraction, interval: tuple[float, float]) -> str:
    """A chance as shown, followed for an estimate by where its true value lies: `64.5% (58.0-70.6%)`."""
    text = chance(value)
    if odds.method in (Method.NORMAL, Method.SAMPLED):
        text += f" ({span(*interval)})"
    return text


def _first_roll(result: RollResult) -> tuple[ResultNode, str | None]:
    """The roll the odds are about: the only one, else the first (with its text)."""
    if isinstance(result.tree, RollsResult):
        return result.tree.items[0], result.tree.texts[0]
    return result.tree, None


def _counts_successes(node: ResultNode) -> bool:
    while isinstance(node, GroupResult | AnnotatedResult):
        node = node.inner
    if isinstance(node, DiceResult):
        return node.term.success is not None
    return isinstance(node, SetResult) and node.term.success is not None


def odds_line(result: RollResult, odds: Odds, *, target: int | None = None) -> str:
    """Where the roll falls among every roll of its expression, its mean, and the chance to reach `target`.

    `Odds: mean 12.24 · better than 88.0% of rolls · 7.3% roll exactly 16 · at least 15: 30.4%`; for several
    rolls the first roll's; an estimate says so, and how close it is.
    """
    node, text = _first_roll(result)
    estimate = odds_method(odds)
    head = "Odds" if text is None else f"Odds of the first roll ({escape_markdown(clip(text, 60))})"
    if odds.method is Method.TOO_COSTLY:
        return f"{head}: {estimate}."
    head += f" ({estimate}):" if estimate else ":"
    return f"{head} " + _chances(odds, node.total, target, target is not None and _counts_successes(node))


# The chances shown for a total, kept per odds: most rolls repeat an expression, whose odds are the same object each
# time (`light_odds` keeps them), and a total's chances from Fractions took 80 µs of the loop against a look-up's 3.
# By the odds' id, as hashing odds hashes all their totals; each entry holds its odds, so the id is not reused, and
# only odds of a few totals are held, so that this never holds much more than `light_odds` does.
CHANCES_ODDS: Final = 64  # odds whose chances are kept
CHANCES_KEPT: Final = 1_024  # totals and targets kept per odds
CHANCES_TOTALS: Final = 2_000  # odds with more totals than this are not held: their chances are worked out afresh
_shown: OrderedDict[int, tuple[Odds, dict[tuple[int, int | None, bool], str]]] = OrderedDict()


def _chances(odds: Odds, total: int, target: int | None, successes: bool) -> str:
    """`mean 12.24 · better than 88.0% of rolls · 7.3% roll exactly 16 · at least 15: 30.4%`, kept per odds."""
    if len(odds.values) > CHANCES_TOTALS:
        return _count_chances(odds, total, target, successes)
    entry = _shown.get(id(odds))
    if entry is None or entry[0] is not odds:
        entry = _shown[id(odds)] = (odds, {})
        while len(_shown) > CHANCES_ODDS:
            _shown.popitem(last=False)
    else:
        _shown.move_to_end(id(odds))
    kept = entry[1]
    key = (total, target, successes)
    found = kept.get(key)
    if found is None:
        if len(kept) >= CHANCES_KEPT:
            kept.clear()
        found = kept[key] = _count_chances(odds, total, target, successes)
    return found


def _count_chances(odds: Odds, total: int, target: int | None, successes: bool) -> str:
    mean = fixed(odds.mean, 2)
    parts = [f"mean {mean}"]
    if odds.method is Method.SAMPLED:
        low, high = odds.mean_interval()
        parts = [f"mean ≈{mean} ({low:.2f} to {high:.2f})"]
    # The total was rolled, so it can happen: a chance of 0 or a certainty here is a cut chain or a sample
    # that missed it (both tiny), and is shown as the smallest amount instead. The interval is the chance's own.
    tiny = Fraction(1, 10**9)
    below, exactly = odds.below(total), odds.exactly(total)
    parts.append(f"better than {estimated(odds, min(below, 1 - tiny), odds.below_interval(total))} of rolls")
    parts.append(f"{estimated(odds, max(exactly, tiny), odds.exactly_interval(total))} roll exactly {total}")
    if target is not None:
        what = f"{target} successes" if successes else str(target)
        parts.append(f"at least {what}: {estimated(odds, odds.at_least(target), odds.at_least_interval(target))}")
    return " · ".join(parts)


def roll_description(result: RollResult, odds: str | None = None) -> str:
    """The breakdown and the total in bold, then the `odds` line, short enough for an embed description.

    The odds come second, so that the compact answer (the first two lines) keeps them: after the total of a
    single roll, after the totals of several.
    """
    room = DESCRIPTION_LIMIT - _TOTAL_ROOM - (len(odds) + 1 if odds else 0)
    text = breakdown(result.tree)
    if len(text) > room:
        text = breakdown(result.tree, every_die=False)
    if isinstance(result.tree, RollsResult):
        # The totals come first, so that the compact answer (its first lines) shows every roll's outcome.
        totals = "Totals: " + ", ".join(f"**{item.total}**" for item in result.tree.items)
        if len(text) > room:
            text = _totals_only(result.tree)
        head = totals if odds is None else f"{clip(totals, room)}\n{odds}"
        return clip(f"{head}\n{text}", DESCRIPTION_LIMIT)
    line = f"{clip(text, room)} = **{result.total}**"
    return line if odds is None else f"{line}\n{odds}"


def roll_footer(result: RollResult) -> str | None:
    """The cap, if it was reached, and which reading was used where dice bots disagree; None when neither."""
    lines = list(result.notes)
    if result.capped:
        lines.insert(0, f"Exploding and rerolled dice stopped at the limit of {MAX_EXTRA_ROLLS} extra rolls.")
    return clip("\n".join(lines), _FOOTER_ROOM) if lines else None


def roll_embed(
    result: RollResult, *, roller: str, typed: str, label: str | None, odds: str | None = None
) -> discord.Embed:
    """The answer to /roll: the label (the option, else the text after the roll, else the expression) as title."""
    title = label or result.label or typed
    description = roll_description(result, odds)
    embed = discord.Embed(title=clip(title, TITLE_LIMIT), description=description, colour=ROLL_COLOUR)
    embed.set_author(name=clip(f"{roller} rolls", 256))
    footer = roll_footer(result)
    if footer is not None:
        embed.set_footer(text=footer)
    return embed


ODDS_CHART = "odds.png"
ODDS_ROWS = 30  # rows of the table and bars of the chart; a wider spread has its tails folded, then bins
VIEWS = {
    View.NORMAL: "height: the chance of the bar's totals",
    View.AT_LEAST: "height: the chance of at least the bar's first total",
    View.AT_MOST: "height: the chance of at most the bar's last total",
}


def odds_summary(odds: Odds, rows: int = ODDS_ROWS) -> str:
    """`exact · mean 12.24 · totals 3 to 18`, the line under the chart's title and in the embed.

    An estimate says how far the chances of the table (`rows` of them) may be from the truth.
    """
    how = odds_method(odds) or "exact"
    if odds.method is Method.TOO_COSTLY:
        return how
    mean = fixed(odds.mean, 2)
    if odds.method is Method.SAMPLED:
        low, high = odds.mean_interval()
        mean = f"≈{mean} ({low:.2f} to {high:.2f})"
    text = f"{how} · mean {mean} · totals {odds.low:,} to {odds.high:,}"
    if odds.method is not Method.EXACT:
        widest = 0.0
        for bar in bars(odds, rows).bars:
            for view in View:
                low, high = bar.interval(view)
                widest = max(widest, float(bar.value(view)) - low, high - float(bar.value(view)))
        sure = "at 99% confidence" if odds.method is Method.SAMPLED else "for certain"
        text += f" · each chance within ±{math.ceil(widest * 1000 - 1e-9) / 10:.1f}% {sure}"
    return text


def row_label(bar: Bar) -> str:
    """A row's total, bin of totals (`11-15`) or folded tail (`8 or less`, `31 or more`)."""
    if bar.fold is not Fold.NONE:
        return f"{bar.last if bar.fold is Fold.LOW else bar.first:,} {bar.fold}"
    return f"{bar.first:,}" if bar.first == bar.last else f"{bar.first:,}-{bar.last:,}"


def odds_table(shown: Bars, view: View) -> str:
    """A monospace table of the chart's bars: each one's totals, its chance, and at least (or at most) them."""
    if not shown.bars:
        return ""
    column = "at most" if view is View.AT_MOST else "at least"
    labels = [row_label(bar) for bar in shown.bars]
    width = max(len("total"), *(len(label) for label in labels))
    lines = [f"{'total':>{width}}  {'chance':>7}  {column:>8}"]
    for label, bar in zip(labels, shown.bars, strict=True):
        cumulative = bar.at_most if view is View.AT_MOST else bar.at_least
        lines.append(f"{label:>{width}}  {chance(bar.chance):>7}  {chance(cumulative):>8}")
    return "```\n" + "\n".join(lines) + "\n```"


def bars_note(shown: Bars, noun: str) -> str:
    """How many totals a bar (or row) spans and what its end ones fold; empty when each is one total."""
    parts = []
    if shown.width > 1:
        last = f" (the last {shown.short})" if shown.short else ""
        parts.append(f"each {noun}: {shown.width:,} totals{last}")
    if shown.folded:
        parts.append(f"tails of under {percent(TAIL, trim=True)} folded into the end {noun}s, each its exact share")
    return "; ".join(parts)


def chart_lines(odds: Odds, shown: Bars, view: View) -> list[str]:
    """The lines under the chart's title: how the odds were found, what a bar's height and width say."""
    if not shown.bars:
        return [odds_summary(odds)]
    what = [VIEWS[view]]
    if shown.width == 1:
        what.append("each bar: one total")
    if odds.method is Method.SAMPLED:
        what.append(f"lines: {CONFIDENCE:.0%} intervals")
    note = bars_note(shown, "bar")
    return [odds_summary(odds), " · ".join(what), *([note] if note else [])]


def odds_title(typed: str, view: View) -> str:
    """`Odds of 3d6!`, with the view when it is not the chance of each total: `Odds of 3d6! (at least)`."""
    return f"Odds of {typed}" + ("" if view is View.NORMAL else f" ({view.replace('_', ' ')})")


def odds_embed(
    odds: Odds, shown: Bars, *, typed: str, target: int | None, of: str | None = None, view: View = View.NORMAL
) -> discord.Embed:
    """The answer to /odds: how the odds were found, the chance to reach `target`, the table and the chart.

    `shown`: the chart's bars, one row each. `of` names the roll they are about when the text holds several
    (`the first roll`, `each roll`).
    """
    lines = [odds_summary(odds) if of is None else f"Of {of}: {odds_summary(odds)}"]
    if target is not None and odds.method is not Method.TOO_COSTLY:
        lines.append(
            f"At least {target:,}: **{estimated(odds, odds.at_least(target), odds.at_least_interval(target))}**"
        )
    table = odds_table(shown, view)
    if table:
        lines.append(table)
    note = bars_note(shown, "row")
    if note:
        lines.append(note[0].upper() + note[1:] + ".")
    title = clip(odds_title(typed, view), TITLE_LIMIT)
    embed = discord.Embed(title=title, description="\n".join(lines), colour=ROLL_COLOUR)
    embed.set_image(url=f"attachment://{ODDS_CHART}")
    embed.set_footer(text="Nothing was rolled. docs/dice.md says how the odds are found and how close estimates are.")
    return embed


def roll_answer(result: RollResult, *, roller: str, typed: str, label: str | None, odds: str | None = None) -> Answer:
    """The answer to /roll in its three forms; only several rolls have a shorter one than the full answer.

    The compact form of several rolls is their totals and the `odds` line, every die behind Details.
    """
    full = roll_embed(result, roller=roller, typed=typed, label=label, odds=odds)
    compact = None
    if isinstance(result.tree, RollsResult) and len(result.tree.items) > 1:
        compact = roll_embed(result, roller=roller, typed=typed, label=label, odds=odds)
        totals = _totals(result.tree)
        compact.description = clip(totals if odds is None else f"{totals}\n{odds}", DESCRIPTION_LIMIT)
    return Answer(full=full, compact=compact)  # its /history line: `bot.ui.summaries`


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
