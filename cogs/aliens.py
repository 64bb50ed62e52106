"""/aliens: AliensRL shots (accuracy, damage, strays), melee, and exact odds."""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands
from sqlalchemy.ext.asyncio import AsyncSession

from bot.client import DiceBot
from bot.db.characters import CharacterRepository
from bot.errors import UserError
from bot.rules import aliensrl as rules
from bot.rules import luck, replay
from bot.rules.sheets.aliensrl import AliensSheet
from bot.rules.sheets.aliensrl import Weapon as AliensWeapon
from bot.ui.aliensrl import melee_answer, odds_embed, shot_answer, skill_text
from bot.ui.embeds import clip
from cogs._replay import ROLLS
from cogs._shared import (
    Interaction,
    Rolled,
    answer_roll,
    character_choices,
    draw,
    find_for_roll,
    only_weapon,
    quick_mode,
    weapon_choices,
)

RULESET = "aliensrl"
TITLE = "AliensRL"
QUICK = ("skill_rank", "accuracy", "ammo_damage")  # the options that make a shot quick mode
Offset = app_commands.Range[int, -rules.MAX_DISTANCE, rules.MAX_DISTANCE]


class Aliens(commands.GroupCog, group_name="aliens", group_description="AliensRL shots, melee and odds"):
    """The AliensRL accuracy model, step by step."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        super().__init__()

    async def weapons(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The weapons of the chosen (or active) character."""
        return await weapon_choices(
            self.bot, interaction, current, rules=RULESET, title=TITLE, label=_weapon_label, quick=QUICK
        )

    async def characters(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Your AliensRL characters."""
        return await character_choices(self.bot, interaction, current, rules=RULESET)

    async def ring(self, interaction: Interaction, session: AsyncSession) -> rules.Ring:
        """The server's reading of "two tiles away" (`/settings`; the reference's default elsewhere)."""
        return (await self.bot.server_settings(interaction.guild_id, session)).ring

    async def shooter(
        self,
        interaction: Interaction,
        session: AsyncSession,
        *,
        weapon: str | None,
        character: str | None,
        skill_rank: int | None,
        accuracy: int | None,
        ammo_damage: int | None,
        pain: int | None,
    ) -> tuple[rules.Shooter, str, int | None]:
        """The shooter from quick-mode numbers, or from a character and one of its weapons; their name and id."""
        # Every quick-mode number has a default, so none is needed.
        if quick_mode((skill_rank, accuracy, ammo_damage), needed=(), needs="", character=character, weapon=weapon):
            shooter = rules.Shooter(
                rank=skill_rank or 0,
                pain=pain or 0,
                accuracy=accuracy or 0,
                ammo_damage=rules.DEFAULT_AMMO_DAMAGE if ammo_damage is None else ammo_damage,
            )
            return shooter, interaction.user.display_name, None
        record = await find_for_roll(CharacterRepository(session), interaction, character, RULESET, TITLE)
        sheet = record.sheet
        assert isinstance(sheet, AliensSheet)
        if not sheet.weapons:
            raise UserError(
                f"**{record.name}** carries no weapon: `/character weapon add` gives one.", title="No weapon"
            )
        wanted = weapon or only_weapon(record, [w.name for w in sheet.weapons])
        matches = [w for w in sheet.weapons if w.name.casefold() == wanted.casefold()]
        if not matches:
            names = ", ".join(w.name for w in sheet.weapons)
            raise UserError(f"**{record.name}** has no weapon `{clip(wanted, 40)}`; it carries {names}.")
        chosen = matches[0]
        shooter = rules.Shooter(
            rank=sheet.rank(chosen.type),
            pain=sheet.pain if pain is None else pain,
            accuracy=chosen.accuracy,
            ammo_damage=chosen.ammo_damage,
            damage_modifier=chosen.damage_modifier,
            shots=chosen.shots,
            weapon=chosen.name,
        )
        return shooter, record.name, record.id

    @app_commands.command(name="fire", extras=ROLLS)
    @app_commands.autocomplete(weapon=weapons, character=characters)
    async def fire(
        self,
        interaction: Interaction,
        weapon: app_commands.Range[str, 1, 40] | None = None,
        character: app_commands.Range[str, 1, 40] | None = None,
        dx: Offset | None = None,
        dy: Offset | None = None,
        distance: app_commands.Range[int, 1, rules.MAX_DISTANCE] | None = None,
        intervening: bool = False,
        pain: app_commands.Range[int, 0, 100] | None = None,
        skill_rank: app_commands.Range[int, 0, 4] | None = None,
        accuracy: app_commands.Range[int, -20, 20] | None = None,
        ammo_damage: app_commands.Range[int, 1, 1000] | None = None,
        private: bool = False,
        hidden: bool = False,
    ) -> None:
        """Fire a ranged weapon: d100 roll rating, skill rating, quality, damage and strays, step by step.

        Args:
            weapon: One of the character's weapons (default: its only one)
            character: Who fires (default: your active AliensRL character)
            dx: Squares to the target across (with dy; the distance is Angband's)
            dy: Squares to the target down (with dx)
            distance: Distance to the target in squares, instead of dx and dy
            intervening: A being stands in the shot's way: it is missed on 6 in 10
            pain: The pain on the status line, e.g. 3 for Pain (-3) (default: the character's)
            skill_rank: Quick mode: rank in the weapon's skill, 0 untrained to 4 master
            accuracy: Quick mode: the weapon's accuracy
            ammo_damage: Quick mode: the ammunition's damage (default 10, a proposed default)
            private: Show the result to you only
            hidden: Send the result to the GM channel; this channel only sees that you rolled
        """
        rules.check_aim(dx, dy, distance)  # a bad aim is reported before anything is looked up
        # One read transaction for everything the shot reads; the dice come last, once nothing can fail.
        async with self.bot.database.read() as session:
            shooter, name, character_id = await self.shooter(
                interaction,
                session,
                weapon=weapon,
                character=character,
                skill_rank=skill_rank,
                accuracy=accuracy,
                ammo_damage=ammo_damage,
                pain=pain,
            )
            ring = await self.ring(interaction, session)
            inputs = replay.AliensShot(shooter, dx, dy, distance, intervening, ring)
            drawn = await draw(self.bot, interaction, replay.ALIENS_SHOT, inputs, session)
        shot = drawn.result
        await answer_roll(
            self.bot,
            interaction,
            shot_answer(shot, shooter=name, weapon=shooter.weapon),
            result=drawn.proof.outcome,
            private=private,
            dice=drawn.dice,
            hidden=hidden,
            rolled=Rolled(character_id, RULESET, luck.aliens_shot(shot)),
            proof=drawn.proof,
        )

    @app_commands.command(name="odds")
    @app_commands.autocomplete(weapon=weapons, character=characters)
    async def odds(
        self,
        interaction: Interaction,
        weapon: app_commands.Range[str, 1, 40] | None = None,
        character: app_commands.Range[str, 1, 40] | None = None,
        dx: Offset | None = None,
        dy: Offset | None = None,
        distance: app_commands.Range[int, 1, rules.MAX_DISTANCE] | None = None,
        intervening: bool = False,
        pain: app_commands.Range[int, 0, 100] | None = None,
        skill_rank: app_commands.Range[int, 0, 4] | None = None,
        accuracy: app_commands.Range[int, -20, 20] | None = None,
        ammo_damage: app_commands.Range[int, 1, 1000] | None = None,
        private: bool = False,
    ) -> None:
        """The exact odds of a shot, rolling nothing: quality 1-11, strays, expected damage.

        Args:
            weapon: One of the character's weapons (default: its only one)
            character: Who fires (default: your active AliensRL character)
            dx: Squares to the target across (with dy; the distance is Angband's)
            dy: Squares to the target down (with dx)
            distance: Distance to the target in squares, instead of dx and dy
            intervening: A being stands in the shot's way: it is missed on 6 in 10
            pain: The pain on the status line, e.g. 3 for Pain (-3) (default: the character's)
            skill_rank: Quick mode: rank in the weapon's skill, 0 untrained to 4 master
            accuracy: Quick mode: the weapon's accuracy
            ammo_damage: Quick mode: the ammunition's damage (default 10, a proposed default)
            private: Show the result to you only
        """
        rules.check_aim(dx, dy, distance)  # a bad aim is reported before anything is looked up
        async with self.bot.database.read() as session:
            shooter, name, _ = await self.shooter(
                interaction,
                session,
                weapon=weapon,
                character=character,
                skill_rank=skill_rank,
                accuracy=accuracy,
                ammo_damage=ammo_damage,
                pain=pain,
            )
            ring = await self.ring(interaction, session)
        rules.check_shooter(shooter)
        dx, dy, d = rules.check_aim(dx, dy, distance)
        chances = rules.odds(shooter, d, intervening=intervening, ring=ring)
        aim = f"({dx}, {dy}), distance {d}" if dx is not None else f"distance {d}"
        what = f"{name} with {shooter.weapon}" if shooter.weapon else name
        embed = odds_embed(
            chances,
            title=f"Odds: {what} at {aim}",
            skill=skill_text(rules.skill_terms(shooter, d)),
            shots=shooter.shots,
            distance=d,
        )
        await interaction.response.send_message(embed=embed, ephemeral=private)

    @app_commands.command(name="melee", extras=ROLLS)
    @app_commands.choices(attacker=[app_commands.Choice(name=a.title(), value=a) for a in rules.ALIEN_MELEE_DAMAGE])
    async def melee(
        self,
        interaction: Interaction,
        attacker: str = "warrior",
        damage: app_commands.Range[int, 0, 10000] | None = None,
        private: bool = False,
    ) -> None:
        """A melee attack: it always hits; shows the damage.

        Args:
            attacker: The alien (its damage is a proposed default of 5 until a table corrects it)
            damage: The damage of this attack instead of the alien's default
            private: Show the result to you only
        """
        result = rules.melee(attacker, damage)
        outcome = {"attacker": attacker, "damage": result.damage}
        await answer_roll(
            self.bot, interaction, melee_answer(result), result=outcome, private=private, rolled=Rolled(ruleset=RULESET)
        )


def _weapon_label(weapon: AliensWeapon) -> str:
    return f"{weapon.name} ({weapon.type}, accuracy {weapon.accuracy:+d})"


async def setup(bot: DiceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Aliens(bot))
