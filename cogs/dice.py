"""/roll: any dice expression, every die shown."""

from __future__ import annotations

from discord import Interaction, app_commands
from discord.ext import commands

from bot.client import DiceBot
from bot.rules import dice
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
    ) -> None:
        """Roll dice: 4d6kh3, 1d20+5, d20adv, 3d6!, 2d6r1, (1d8+2)*2, d%.

        Args:
            expression: NdM, d%, + - * ( ), kh/kl/dh/dl N keep or drop, ! explode, r/ro reroll, adv/dis on a d20
            label: What the roll is for, shown as its title
            private: Show the result to you only
        """
        source = await self.bot.dice_for(interaction)
        result = dice.roll(expression, source)
        embed = roll_embed(result, roller=interaction.user.display_name, typed=expression, label=label)
        await answer_roll(self.bot, interaction, embed, result=result.to_dict(), private=private, dice=source)


async def setup(bot: DiceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Dice(bot))
