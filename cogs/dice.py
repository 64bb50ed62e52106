"""/roll: any dice expression, every die shown, with its odds; /odds: the whole distribution, rolling nothing."""

from __future__ import annotations

import io
from dataclasses import dataclass

import discord
from discord.ext import commands

from bot import offload
from bot.client import DiceBot
from bot.rules import dice, dice_odds, replay
from bot.rules.dice import DiceSource
from bot.rules.dice_odds import Method, Odds
from bot.rules.odds_bars import Bars, View, bars
from bot.ui.chart import odds_chart
from bot.ui.dice import ODDS_CHART, ODDS_ROWS, chart_lines, odds_embed, odds_line, odds_title, roll_answer
from bot.ui.embeds import Answer, fit
from cogs import _pipeline as pipeline
from cogs._options import Hidden, Shown, option, slash
from cogs._pipeline import Plan, Reading
from cogs._replay import ROLLS, ApplyDamage, Details, Page, RollAgain
from cogs._shared import Interaction


@dataclass(frozen=True, kw_only=True)
class Typed:
    """What to roll, and what for."""

    expression: str = option(
        "4d6k3, 1d20+5 adv, 3d6!, 6d10 t7, 4d6/2, 1d20+5; 2d6 ... Text after the roll is its label",
        high=dice.MAX_EXPRESSION_LENGTH,
    )
    label: str | None = option("What the roll is for, shown as its title", None, high=100)


@dataclass(frozen=True, kw_only=True)
class Target:
    """A total to reach, whose exact chance the answer shows."""

    target: int | None = option(
        "Also show the exact chance to reach at least this total (or this many successes)", None
    )


@dataclass(frozen=True, kw_only=True)
class Asked:
    """The expression whose odds /odds shows."""

    expression: str = option(
        "Any /roll expression: 4d6k3, 1d20+5 adv, 3d6!, 6d10 t7 (of several rolls, the first)",
        high=dice.MAX_EXPRESSION_LENGTH,
    )


@dataclass(frozen=True, kw_only=True)
class Viewed:
    """Which chance the chart's bars show."""

    view: View = option("The chance of each total (normal), of at least it, or of at most it", View.NORMAL)


@dataclass(frozen=True, kw_only=True)
class OddsOptions(Shown, Target, Viewed, Asked):
    """The options of `/odds`: the expression, the view, the target, private."""


@dataclass(frozen=True, kw_only=True)
class RollOptions(Target, Hidden, Shown, Typed):
    """The options of `/roll`, in the order Discord shows them: the expression first, the target last."""


class Dice(commands.Cog):
    """Plain dice rolls."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot

    @slash("roll", RollOptions, extras=ROLLS)
    async def roll(self, interaction: Interaction, options: RollOptions) -> None:
        """Roll dice the way Roll20, Avrae or Dice Maiden read them: 4d6k3, 1d20+5 adv, 6d10 t7, 4dF."""
        await pipeline.roll(self.bot, interaction, options, self.plan_roll)

    async def plan_roll(self, reading: Reading, options: RollOptions) -> Plan[replay.DiceRoll, dice.RollResult]:
        """A roll of the expression, its odds counted from the expression alone before any die is drawn.

        The text is parsed once (`dice.parse` keeps what it read for the rules core's roll of the same text). A
        text that does not read is rolled all the same: the rules core refuses it with the dice taken, so that a
        fair session's log says why that roll number went unanswered.
        """
        try:
            tree = dice.parse(options.expression)
        except dice.DiceError:
            tree = None
        found = None if tree is None else await roll_odds(self.bot, tree)

        def answer(result: dice.RollResult) -> Answer:
            assert found is not None  # the rules core read the same text
            line = odds_line(result, found, target=options.target)
            return roll_answer(
                result, roller=reading.user_name, typed=options.expression, label=options.label, odds=line
            )

        return Plan(
            replay.DICE,
            replay.DiceRoll(options.expression),
            None,
            answer=answer,
            luck=lambda drawn: drawn.counted.d20_luck() or None,
            logged=lambda result: result.to_dict(),
        )

    @slash("odds", OddsOptions)
    async def odds(self, interaction: Interaction, options: OddsOptions) -> None:
        """The whole distribution of a roll as a chart, with the chance to reach each total; rolls nothing."""
        tree = dice.parse(options.expression)  # a refused expression is answered before any work
        of = {dice.Repeat: "each roll", dice.Several: "the first roll"}.get(type(tree))
        # Counting (up to tens of milliseconds) and drawing the chart (about 20) run in the worker process,
        # so that the event loop, which every server shares, stays free meanwhile.
        found, shown, png = await offload.in_process(
            odds_report, options.expression, options.target, self.bot.estimate_dice(), tree, options.view
        )
        embed = fit(odds_embed(found, shown, typed=options.expression, target=options.target, of=of, view=options.view))
        chart = discord.File(io.BytesIO(png), filename=ODDS_CHART)
        await interaction.response.send_message(embed=embed, file=chart, ephemeral=options.private)


def odds_report(
    expression: str,
    target: int | None,
    estimate_dice: DiceSource,
    tree: dice.Expression | None = None,
    view: View = View.NORMAL,
) -> tuple[Odds, Bars, bytes]:
    """The odds of `expression`, the bars of its chart and table, and the chart (run in the worker process).

    `tree`: the expression as the command read it (small: its size is bounded by the text's), so the worker does
    not parse it again.
    """
    found = dice_odds.odds(dice.parse(expression) if tree is None else tree, estimate_dice)
    shown = bars(found, ODDS_ROWS)
    lines = chart_lines(found, shown, view)
    sampled = found.method is Method.SAMPLED
    return found, shown, odds_chart(odds_title(expression, view), lines, shown, view, target, intervals=sampled)


async def roll_odds(bot: DiceBot, tree: dice.Expression) -> Odds:
    """The odds of a roll's expression: on the loop (kept per expression) when light to count, else in the worker.

    They come from the expression alone: no die is drawn, so the roll's dice (and a fair session's log) never
    see them.
    """
    found = dice_odds.light_odds(tree)
    if found is not None:
        return found
    return await offload.in_process(dice_odds.odds, tree, bot.estimate_dice())


async def setup(bot: DiceBot) -> None:
    """Load the cog, and the buttons under every roll (they outlive any one answer)."""
    bot.add_dynamic_items(RollAgain, Details, Page, ApplyDamage)
    await bot.add_cog(Dice(bot))
