"""/roll: any dice expression, every die shown, with its odds; /odds: the whole distribution, rolling nothing."""

from __future__ import annotations

import io

import discord
from discord import Interaction, app_commands
from discord.ext import commands

from bot import offload
from bot.client import DiceBot
from bot.rules import dice, dice_odds, replay
from bot.rules.dice import DiceSource
from bot.rules.dice_odds import Odds
from bot.ui.chart import ODDS_BARS, odds_chart
from bot.ui.dice import ODDS_CHART, odds_embed, odds_line, odds_summary, roll_answer
from bot.ui.embeds import fit
from cogs._replay import ROLLS, ApplyDamage, Details, Page, RollAgain
from cogs._shared import Rolled, answer_roll, draw


class Dice(commands.Cog):
    """Plain dice rolls."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot

    @app_commands.command(name="roll", extras=ROLLS)
    async def roll(
        self,
        interaction: Interaction[DiceBot],
        expression: app_commands.Range[str, 1, dice.MAX_EXPRESSION_LENGTH],
        label: app_commands.Range[str, 1, 100] | None = None,
        private: bool = False,
        hidden: bool = False,
        target: int | None = None,
    ) -> None:
        """Roll dice the way Roll20, Avrae or Dice Maiden read them: 4d6k3, 1d20+5 adv, 6d10 t7, 4dF.

        Args:
            expression: 4d6k3, 1d20+5 adv, 3d6!, 6d10 t7, 4d6/2, 1d20+5; 2d6 ... Text after the roll is its label
            label: What the roll is for, shown as its title
            private: Show the result to you only
            hidden: Send the result to the GM channel; this channel only sees that you rolled
            target: Also show the exact chance to reach at least this total (or this many successes)
        """
        await roll_and_answer(
            self.bot, interaction, expression, label=label, private=private, hidden=hidden, target=target
        )

    @app_commands.command(name="odds")
    async def odds(
        self,
        interaction: Interaction[DiceBot],
        expression: app_commands.Range[str, 1, dice.MAX_EXPRESSION_LENGTH],
        target: int | None = None,
        private: bool = False,
    ) -> None:
        """The whole distribution of a roll as a chart, with the chance to reach each total; rolls nothing.

        Args:
            expression: Any /roll expression: 4d6k3, 1d20+5 adv, 3d6!, 6d10 t7 (of several rolls, the first)
            target: Also show the chance to reach at least this total (or this many successes)
            private: Show the odds to you only
        """
        tree = dice.parse(expression)  # a refused expression is answered before any work
        of = {dice.Repeat: "each roll", dice.Several: "the first roll"}.get(type(tree))
        # Counting (up to tens of milliseconds) and drawing the chart (about 20) run in the worker process,
        # so that the event loop, which every server shares, stays free meanwhile.
        found, png = await offload.in_process(odds_report, expression, target, self.bot.estimate_dice())
        embed = fit(odds_embed(found, typed=expression, target=target, of=of))
        chart = discord.File(io.BytesIO(png), filename=ODDS_CHART)
        await interaction.response.send_message(embed=embed, file=chart, ephemeral=private)


def odds_report(expression: str, target: int | None, estimate_dice: DiceSource) -> tuple[Odds, bytes]:
    """The odds of `expression` and their chart (run in the worker process: text in, plain data out)."""
    found = dice_odds.odds_of(expression, estimate_dice)
    bars = [(first, last, float(p)) for first, last, p in found.points(ODDS_BARS)]
    return found, odds_chart(expression, odds_summary(found), bars, target)


async def roll_odds(bot: DiceBot, expression: str) -> Odds:
    """The odds of a roll's expression: on the loop when they are light to count, else in the worker process.

    They come from the expression alone: no die is drawn, so the roll's dice (and a fair session's log) never
    see them.
    """
    tree = dice.parse(expression)
    if dice_odds.light(tree):
        return dice_odds.odds(tree, bot.estimate_dice())
    return await offload.in_process(dice_odds.odds_of, expression, bot.estimate_dice())


async def roll_and_answer(
    bot: DiceBot,
    interaction: Interaction[DiceBot],
    expression: str,
    *,
    label: str | None,
    private: bool,
    hidden: bool = False,
    target: int | None = None,
) -> None:
    """Roll an expression for whoever asked, answer with every die and its odds, and log it with its d20 tally."""
    drawn = await draw(bot, interaction, replay.DICE, replay.DiceRoll(expression))
    try:
        line = odds_line(drawn.result, await roll_odds(bot, expression), target=target)
    except Exception as error:
        await bot.abandon_roll(drawn.dice, error)  # the roll was drawn: its fair roll number says why it was not shown
        raise
    answer = roll_answer(drawn.result, roller=interaction.user.display_name, typed=expression, label=label, odds=line)
    await answer_roll(
        bot,
        interaction,
        answer,
        result=drawn.result.to_dict(),
        private=private,
        dice=drawn.dice,
        hidden=hidden,
        rolled=Rolled(luck=drawn.counted.d20_luck() or None),
        proof=drawn.proof,
    )


async def setup(bot: DiceBot) -> None:
    """Load the cog, and the buttons under every roll (they outlive any one answer)."""
    bot.add_dynamic_items(RollAgain, Details, Page, ApplyDamage)
    await bot.add_cog(Dice(bot))
