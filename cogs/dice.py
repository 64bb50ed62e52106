"""/roll: any dice expression, every die shown."""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import Interaction, app_commands
from discord.ext import commands

from bot.client import DiceBot
from bot.rules import dice
from bot.tree import report
from bot.ui.dice import roll_embed
from cogs._shared import answer_roll


class Dice(commands.Cog):
    """Plain dice rolls."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot

    @app_commands.command(name="roll")
    async def roll(
        self,
        interaction: Interaction[DiceBot],
        expression: app_commands.Range[str, 1, dice.MAX_EXPRESSION_LENGTH],
        label: app_commands.Range[str, 1, 100] | None = None,
        private: bool = False,
        hidden: bool = False,
    ) -> None:
        """Roll dice: 4d6kh3, 1d20+5, d20adv, 3d6!, 2d6r1, (1d8+2)*2, d%.

        Args:
            expression: NdM, d%, + - * ( ), kh/kl/dh/dl N keep or drop, ! explode, r/ro reroll, adv/dis on a d20
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
    """Roll an expression for whoever asked, answer with every die and a Roll again button, and log it."""
    source = await bot.dice_for(interaction)
    result = dice.roll(expression, source)
    embed = roll_embed(result, roller=interaction.user.display_name, typed=expression, label=label)
    view = discord.ui.View(timeout=None)
    if len(RollAgain.custom_id_for(expression)) <= CUSTOM_ID_LIMIT and not (private or hidden):
        view.add_item(RollAgain(expression))
    await answer_roll(
        bot,
        interaction,
        embed,
        result=result.to_dict(),
        private=private,
        dice=source,
        view=view,
        command="roll",
        hidden=hidden,
    )


CUSTOM_ID_LIMIT = 100  # Discord's limit on a component's custom id


# (?s): an expression may hold a line break, and a button whose id the template does not match is never answered.
class RollAgain(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"roll:again:(?P<expression>(?s:.+))"):
    """A button under a /roll answer that rolls the same expression again, for whoever presses it.

    The expression lives in the button's custom id, so the button keeps working after the bot restarts.
    """

    def __init__(self, expression: str) -> None:
        super().__init__(
            discord.ui.Button(
                label="Roll again", style=discord.ButtonStyle.secondary, custom_id=self.custom_id_for(expression)
            )
        )
        self.expression = expression

    @staticmethod
    def custom_id_for(expression: str) -> str:
        """The button's custom id: the expression, prefixed."""
        return f"roll:again:{expression}"

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> RollAgain:
        """Rebuild the button from a click."""
        return cls(match["expression"])

    async def interaction_check(self, interaction: Interaction[Any]) -> bool:
        """A press counts against the presser's rate limit, as a command would."""
        return bool(await interaction.client.tree.admit(interaction))

    async def callback(self, interaction: Interaction[Any]) -> None:
        """Roll the expression again as a new answer; failures go through the error funnel."""
        try:
            await roll_and_answer(interaction.client, interaction, self.expression, label=None, private=False)
        except Exception as error:
            await report(interaction, error)


async def setup(bot: DiceBot) -> None:
    """Load the cog and the button that outlives it."""
    bot.add_dynamic_items(RollAgain)
    await bot.add_cog(Dice(bot))
