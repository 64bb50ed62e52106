"""/pool: the test ruleset's commands, on the one roll path (`cogs._pipeline`), as any game's cog is."""

from __future__ import annotations

from dataclasses import dataclass

from discord.ext import commands

from bot.client import DiceBot
from bot.errors import UserError
from bot.rules.encounter import Hit
from cogs import _pipeline as pipeline
from cogs._options import Hidden, Shown, option, slash
from cogs._pipeline import Plan, Reading, Strikes
from cogs._replay import ROLLS
from cogs._shared import Interaction, find
from tests.rulesets.pool import KEY, MAX_DICE, POOL_ROLL, PoolResult, PoolRoll, PoolSheet, odds_embed, pool_answer
from tests.rulesets.pool import pool_luck as tally


@dataclass(frozen=True, kw_only=True)
class Pool:
    """What a pool roll reads."""

    dice: int | None = option("How many d6 (default: the character's pool)", None, low=1, high=MAX_DICE)
    character: str | None = option("A pool character: its pool", None, high=40)
    target: str | None = option("A combatant of this channel's fight: the successes come off it", None, high=40)


@dataclass(frozen=True, kw_only=True)
class PoolOdds(Shown, Pool):
    """The options of `/pool odds`."""


@dataclass(frozen=True, kw_only=True)
class PoolOptions(Hidden, PoolOdds):
    """The options of `/pool roll`."""


class PoolCog(commands.GroupCog, group_name="pool"):
    """A d6 pool: count the 5s and 6s."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        super().__init__()

    async def plan(self, reading: Reading, options: PoolOdds) -> Plan[PoolRoll, PoolResult]:
        """The pool, priced, with its presenters; at a combatant, its successes are the hit."""
        dice, roller, character_id = options.dice, reading.user_name, None
        if options.character is not None:
            record = await find(reading.characters, reading.interaction, options.character)
            if record.ruleset.key != KEY:
                raise UserError(f"**{record.name}** is a {record.ruleset.title} character, not a pool one.")
            sheet = await reading.as_fought(record)
            assert isinstance(sheet, PoolSheet)
            dice, roller, character_id = dice or sheet.dice, record.name, record.id
        if dice is None:
            raise UserError("Give `dice`, or a `character` whose pool it is.")
        inputs = PoolRoll(dice, sixes_twice=reading.settings.variants(KEY))
        strikes = None
        if options.target is not None:
            fought = await reading.combatant(options.target, KEY)
            if fought is None:
                raise UserError(f"Nobody called **{options.target}** fights here.", title="Who?")
            strikes = Strikes(fought[1].name, lambda r: Hit(r.successes) if r.successes else None)
        return Plan(
            POOL_ROLL,
            inputs,
            KEY,
            answer=lambda result: pool_answer(result, roller),
            luck=lambda drawn: tally(drawn.result),
            odds=lambda: odds_embed(inputs, roller),
            character_id=character_id,
            strikes=strikes,
        )

    @slash("roll", PoolOptions, extras=ROLLS)
    async def roll(self, interaction: Interaction, options: PoolOptions) -> None:
        """Roll a pool of d6: each 5 or 6 is a success."""
        await pipeline.roll(self.bot, interaction, options, self.plan)

    @slash("odds", PoolOdds)
    async def odds(self, interaction: Interaction, options: PoolOdds) -> None:
        """The exact odds of a pool, rolling nothing."""
        await pipeline.odds(self.bot, interaction, options, self.plan)


async def setup(bot: DiceBot) -> None:
    """Load the cog."""
    await bot.add_cog(PoolCog(bot))
