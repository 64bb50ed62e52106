"""/roll: any dice expression, every die shown."""

from __future__ import annotations

from typing import Any

from discord import Interaction, app_commands
from discord.ext import commands

from bot.client import DiceBot
from bot.rules import dice, replay
from bot.ui.dice import roll_answer
from cogs._replay import ROLLS, Details, RollAgain
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
    ) -> None:
        """Roll dice the way Roll20, Avrae or Dice Maiden read them: 4d6k3, 1d20+5 adv, 6d10 t7, 4dF.

        Args:
            expression: 4d6k3, 1d20+5 adv, 3d6!, 6d10 t7, 4d6/2, 1d20+5; 2d6 ... Text after the roll is its label
            label: What the roll is for, shown as its title
            private: Show the result to you only
            hidden: Send the result to the GM channel; this channel only sees that you rolled
        """
        await roll_and_answer(self.bot, interaction, expression, label=label, private=private, hidden=hidden)


async def roll_and_answer(
    bot: DiceBot,
    interaction: Interaction[Any],
    expression: str,
    *,
    label: str | None,
    private: bool,
    hidden: bool = False,
) -> None:
    """Roll an expression for whoever asked, answer with every die, and log it with its d20 tally."""
    drawn = await draw(bot, interaction, replay.DICE, replay.DiceRoll(expression))
    answer = roll_answer(drawn.result, roller=interaction.user.display_name, typed=expression, label=label)
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
    bot.add_dynamic_items(RollAgain, Details)
    await bot.add_cog(Dice(bot))
