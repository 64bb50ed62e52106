"""/sf: Star Frontiers ranged and melee attacks, and their exact odds."""

from __future__ import annotations

from typing import Literal, get_args

from discord import app_commands
from discord.ext import commands
from sqlalchemy.ext.asyncio import AsyncSession

from bot.client import DiceBot
from bot.db.characters import CharacterRecord, CharacterRepository
from bot.errors import UserError
from bot.rules import luck, replay
from bot.rules import star_frontiers as sf
from bot.rules.sheets.star_frontiers import SfSheet
from bot.ui.star_frontiers import attack_answer, odds_embed
from cogs._replay import ROLLS
from cogs._shared import (
    Interaction,
    Rolled,
    answer_roll,
    character_choices,
    draw,
    find,
    find_for_roll,
    only_weapon,
    quick_mode,
    weapon_choices,
)

RULESET = "sf"
TITLE = "Star Frontiers"
QUICK = ("score", "skill", "damage")  # the options that make an attack quick mode
Race = Literal["human", "dralasite", "vrusk", "yazirian"]
TARGET_MOVEMENT = [app_commands.Choice(name=m.value.replace("_", " "), value=m.value) for m in sf.TargetMovement]
ATTACKER_MOVEMENT = [app_commands.Choice(name=m.value.replace("_", " "), value=m.value) for m in sf.AttackerMovement]
BANDS = [app_commands.Choice(name=b.label, value=b.value) for b in sf.Band]
COVERS = [app_commands.Choice(name=c.value, value=c.value) for c in sf.Cover]
SIZES = [app_commands.Choice(name=s.value, value=s.value) for s in sf.Size]
RACE_NAMES: tuple[Race, ...] = get_args(Race)
RACES = [app_commands.Choice(name=r.title(), value=r) for r in RACE_NAMES]
HELPLESS = [
    app_commands.Choice(name="no", value="none"),
    app_commands.Choice(name="from behind or unaware", value="unaware"),
    app_commands.Choice(name="stunned", value="stunned"),
]


class StarFrontiers(commands.GroupCog, group_name="sf", group_description="Star Frontiers attacks and odds"):
    """The Star Frontiers hit procedures, step by step."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        super().__init__()

    # -- autocomplete ------------------------------------------------------------------------------------
    async def weapons(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The character's weapons first, then the weapon table."""
        return await weapon_choices(
            self.bot, interaction, current, rules=RULESET, title=TITLE, table=sf.weapon_names(), quick=QUICK
        )

    async def characters(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Your Star Frontiers characters."""
        return await character_choices(self.bot, interaction, current, rules=RULESET)

    async def targets(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Star Frontiers characters of anyone in this server (for their encumbrance)."""
        return await character_choices(self.bot, interaction, current, rules=RULESET, anyone=True)

    # -- shared --------------------------------------------------------------------------------------------
    async def variants(self, interaction: Interaction, session: AsyncSession) -> sf.Variants:
        """The server's readings (`/settings`)."""
        return (await self.bot.server_settings(interaction.guild_id, session)).sf

    async def character(self, interaction: Interaction, text: str | None, session: AsyncSession) -> CharacterRecord:
        """The attacking character: named, or the active one."""
        return await find_for_roll(CharacterRepository(session), interaction, text, RULESET, TITLE)

    async def ranged(
        self,
        interaction: Interaction,
        session: AsyncSession,
        *,
        weapon: str | None,
        character: str | None,
        distance: float | None,
        range: str | None,
        situation: sf.RangedSituation,
        score: int | None,
        skill: int | None,
        damage: str | None,
        race: str | None,
        wounded: bool,
        heavy: bool,
    ) -> tuple[sf.RangedAttack, str, int | None]:
        """A shot from quick-mode numbers, or from a character and one of its (or the table's) weapons."""
        if (distance is None) == (range is None):
            raise UserError(
                "Give the distance in metres (`distance`) or the range band (`range`), one of them.",
                title="Where is the target?",
            )
        needs = "Quick mode needs `score` (the RW score), `skill` (the level), `damage` (dice) and `range`."
        quick = (score, skill, damage)
        if quick_mode(quick, needed=(*quick, range), needs=needs, character=character, weapon=weapon):
            assert score is not None and skill is not None and damage is not None and range is not None
            attack = sf.quick_ranged(
                score, skill, damage, sf.Band(range), situation, heavy=heavy, wounded=wounded, race=_race(race)
            )
            return attack, interaction.user.display_name, None
        record = await self.character(interaction, character, session)
        sheet = record.sheet
        assert isinstance(sheet, SfSheet)
        chosen = weapon or only_weapon(record, _weapons(sheet, melee=False), table="the table")
        if distance is None:
            raise UserError("A character's shot takes the `distance` in metres; its weapon's bands give the range.")
        return sf.ranged_attack(sheet, chosen, distance, situation, name=record.name), record.name, record.id

    # -- commands ----------------------------------------------------------------------------------------
    @app_commands.command(name="shoot", extras=ROLLS)
    @app_commands.autocomplete(weapon=weapons, character=characters)
    @app_commands.choices(
        range=BANDS,
        target_movement=TARGET_MOVEMENT,
        attacker_movement=ATTACKER_MOVEMENT,
        cover=COVERS,
        target_size=SIZES,
        race=RACES,
    )
    async def shoot(
        self,
        interaction: Interaction,
        weapon: app_commands.Range[str, 1, 40] | None = None,
        character: app_commands.Range[str, 1, 40] | None = None,
        distance: app_commands.Range[float, 0, 100000] | None = None,
        range: str | None = None,
        target_movement: str = "walking",
        attacker_movement: str = "standing",
        aim: bool = False,
        burst: bool = False,
        targets: app_commands.Range[int, 1, 5] = 1,
        seu: app_commands.Range[int, 1, 20] | None = None,
        cover: str = "none",
        target_size: str = "medium",
        prone: bool = False,
        wrong_hand: bool = False,
        two_weapons: bool = False,
        telescopic_sight: bool = False,
        modifier: app_commands.Range[int, -100, 100] = 0,
        score: app_commands.Range[int, 0, 100] | None = None,
        skill: app_commands.Range[int, 0, 6] | None = None,
        damage: app_commands.Range[str, 1, 20] | None = None,
        race: str | None = None,
        wounded: bool = False,
        heavy: bool = False,
        private: bool = False,
        hidden: bool = False,
    ) -> None:
        """Shoot: the 12-step ranged procedure, the d100, knock-out and damage, step by step.

        Args:
            weapon: The character's weapon or one from the table (default: its only ranged weapon)
            character: Who shoots (default: your active Star Frontiers character)
            distance: Metres to the target; the weapon's bands give the range
            range: The range band instead of a distance (quick mode)
            target_movement: How the target moves
            attacker_movement: How you move
            aim: Careful aim, standing still (+15)
            burst: Fire a burst (+20; automatic weapons)
            targets: Adjacent targets a burst covers (damage is split)
            seu: A laser's dial: SEU per shot (1d10 damage each)
            cover: The target's cover
            target_size: The target's size
            prone: The target lies prone (-5)
            wrong_hand: Firing with the wrong hand (-10)
            two_weapons: Firing two weapons (-10 each)
            telescopic_sight: A telescopic sight: one range class closer
            modifier: Anything else the referee rules
            score: Quick mode: the RW score
            skill: Quick mode: the weapon skill level
            damage: Quick mode: damage dice, e.g. 2d10
            race: Quick mode: the race (Vrusk ignore the wrong-hand penalty)
            wounded: Quick mode: the attacker is wounded (-10)
            heavy: Quick mode: a heavy weapon (skill counts one level lower)
            private: Show the result to you only
            hidden: Send the result to the GM channel; this channel only sees that you rolled
        """
        situation = sf.RangedSituation(
            target=sf.TargetMovement(target_movement),
            attacker=sf.AttackerMovement(attacker_movement),
            aim=aim,
            burst=burst,
            targets=targets,
            cover=sf.Cover(cover),
            size=sf.Size(target_size),
            prone=prone,
            wrong_hand=wrong_hand,
            two_weapons=two_weapons,
            sight=telescopic_sight,
            seu=seu,
            modifier=modifier,
        )
        # One read transaction for everything the shot reads; the dice come last, once nothing can fail.
        async with self.bot.database.read() as session:
            attack, name, character_id = await self.ranged(
                interaction,
                session,
                weapon=weapon,
                character=character,
                distance=distance,
                range=range,
                situation=situation,
                score=score,
                skill=skill,
                damage=damage,
                race=race,
                wounded=wounded,
                heavy=heavy,
            )
            variants = await self.variants(interaction, session)
            odds = sf.odds(attack, variants)
            drawn = await draw(self.bot, interaction, replay.SF_SHOT, replay.SfShot(attack, variants), session)
        result = drawn.result
        await answer_roll(
            self.bot,
            interaction,
            attack_answer(result, odds, attacker=name),
            result=drawn.proof.outcome,
            private=private,
            dice=drawn.dice,
            hidden=hidden,
            rolled=Rolled(character_id, RULESET, luck.sf_attack(result, odds)),
            proof=drawn.proof,
        )

    async def melee_attack(
        self,
        interaction: Interaction,
        session: AsyncSession,
        *,
        weapon: str | None,
        character: str | None,
        situation: sf.MeleeSituation,
        score: int | None,
        skill: int | None,
        weapon_modifier: int,
        damage: str | None,
        blunt: bool,
        race: str | None,
        wounded: bool,
    ) -> tuple[sf.MeleeAttack, str, int | None]:
        """A melee attack from quick-mode numbers or from a character."""
        needs = "Quick mode needs `score` (the MW score), `skill` (the level) and `damage` (dice)."
        quick = (score, skill, damage)
        if quick_mode(quick, needed=quick, needs=needs, character=character, weapon=weapon):
            assert score is not None and skill is not None and damage is not None
            attack = sf.quick_melee(
                score,
                skill,
                damage,
                situation,
                weapon_modifier=weapon_modifier,
                blunt=blunt,
                wounded=wounded,
                race=_race(race),
            )
            return attack, interaction.user.display_name, None
        record = await self.character(interaction, character, session)
        sheet = record.sheet
        assert isinstance(sheet, SfSheet)
        chosen = weapon or "Bare hands"
        return sf.melee_attack(sheet, chosen, situation, name=record.name), record.name, record.id

    async def target_encumbered(
        self, interaction: Interaction, target: str | None, given: bool, session: AsyncSession
    ) -> bool:
        """Whether the target is encumbered: from its character when one is named, else as given."""
        if target is None:
            return given
        record = await find(CharacterRepository(session), interaction, target)
        if not isinstance(record.sheet, SfSheet):
            raise UserError(f"**{record.name}** is a {record.ruleset.title} character, not {TITLE}.")
        return record.sheet.encumbered

    @app_commands.command(name="melee", extras=ROLLS)
    @app_commands.autocomplete(weapon=weapons, character=characters, target=targets)
    @app_commands.choices(helpless=HELPLESS, race=RACES)
    async def melee(
        self,
        interaction: Interaction,
        weapon: app_commands.Range[str, 1, 40] | None = None,
        character: app_commands.Range[str, 1, 40] | None = None,
        target: app_commands.Range[str, 1, 40] | None = None,
        target_encumbered: bool = False,
        helpless: str = "none",
        battle_rage: bool = False,
        target_defending: bool = False,
        modifier: app_commands.Range[int, -100, 100] = 0,
        score: app_commands.Range[int, 0, 100] | None = None,
        skill: app_commands.Range[int, 0, 6] | None = None,
        weapon_modifier: app_commands.Range[int, -100, 100] = 0,
        damage: app_commands.Range[str, 1, 20] | None = None,
        blunt: bool = False,
        race: str | None = None,
        wounded: bool = False,
        private: bool = False,
        hidden: bool = False,
    ) -> None:
        """Melee: the 9-step procedure, the d100, knock-out and damage, step by step.

        Args:
            weapon: The character's melee weapon or one from the table (default: bare hands)
            character: Who attacks (default: your active Star Frontiers character)
            target: The defender's character here, for its encumbrance
            target_encumbered: The defender carries over half its capacity (+10)
            helpless: The defender is attacked from behind or unaware, or stunned (+20)
            battle_rage: A Yazirian in battle rage (+20)
            target_defending: The defender defends instead of attacking (-15)
            modifier: Anything else the referee rules
            score: Quick mode: the MW score
            skill: Quick mode: the melee skill level
            weapon_modifier: Quick mode: the weapon's modifier
            damage: Quick mode: damage dice, e.g. 1d10
            blunt: Quick mode: a blunt weapon (a hit on a roll ending in 0 knocks out)
            race: Quick mode: the race (battle rage is for Yazirians)
            wounded: Quick mode: the attacker is wounded (-10)
            private: Show the result to you only
            hidden: Send the result to the GM channel; this channel only sees that you rolled
        """
        # One read transaction for everything the attack reads; the dice come last, once nothing can fail.
        async with self.bot.database.read() as session:
            situation = sf.MeleeSituation(
                unaware=helpless == "unaware",
                stunned=helpless == "stunned",
                battle_rage=battle_rage,
                target_encumbered=await self.target_encumbered(interaction, target, target_encumbered, session),
                defending=target_defending,
                modifier=modifier,
            )
            attack, name, character_id = await self.melee_attack(
                interaction,
                session,
                weapon=weapon,
                character=character,
                situation=situation,
                score=score,
                skill=skill,
                weapon_modifier=weapon_modifier,
                damage=damage,
                blunt=blunt,
                race=race,
                wounded=wounded,
            )
            variants = await self.variants(interaction, session)
            odds = sf.odds(attack, variants)
            drawn = await draw(self.bot, interaction, replay.SF_MELEE, replay.SfMelee(attack, variants), session)
        result = drawn.result
        await answer_roll(
            self.bot,
            interaction,
            attack_answer(result, odds, attacker=name),
            result=drawn.proof.outcome,
            private=private,
            dice=drawn.dice,
            hidden=hidden,
            rolled=Rolled(character_id, RULESET, luck.sf_attack(result, odds)),
            proof=drawn.proof,
        )

    @app_commands.command(name="odds")
    @app_commands.autocomplete(weapon=weapons, character=characters)
    @app_commands.choices(
        kind=[app_commands.Choice(name="shoot", value="shoot"), app_commands.Choice(name="melee", value="melee")],
        range=BANDS,
        target_movement=TARGET_MOVEMENT,
        cover=COVERS,
        target_size=SIZES,
        helpless=HELPLESS,
    )
    async def odds(
        self,
        interaction: Interaction,
        kind: str,
        weapon: app_commands.Range[str, 1, 40] | None = None,
        character: app_commands.Range[str, 1, 40] | None = None,
        distance: app_commands.Range[float, 0, 100000] | None = None,
        range: str | None = None,
        target_movement: str = "walking",
        aim: bool = False,
        seu: app_commands.Range[int, 1, 20] | None = None,
        cover: str = "none",
        target_size: str = "medium",
        helpless: str = "none",
        battle_rage: bool = False,
        target_defending: bool = False,
        modifier: app_commands.Range[int, -100, 100] = 0,
        score: app_commands.Range[int, 0, 100] | None = None,
        skill: app_commands.Range[int, 0, 6] | None = None,
        damage: app_commands.Range[str, 1, 20] | None = None,
        weapon_modifier: app_commands.Range[int, -100, 100] = 0,
        blunt: bool = False,
        race: str | None = None,
        private: bool = False,
    ) -> None:
        """The exact odds of a shot or melee attack, rolling nothing: hit, knock-out, expected damage.

        Args:
            kind: A shot or a melee attack
            weapon: The character's weapon or one from the table
            character: Who attacks (default: your active Star Frontiers character)
            distance: Shot: metres to the target
            range: Shot: the range band instead of a distance (quick mode)
            target_movement: Shot: how the target moves
            aim: Shot: careful aim, standing still (+15)
            seu: Shot: a laser's dial, SEU per shot
            cover: Shot: the target's cover
            target_size: Shot: the target's size
            helpless: Melee: the defender is unaware or stunned (+20)
            battle_rage: Melee: a Yazirian in battle rage (+20)
            target_defending: Melee: the defender defends (-15)
            modifier: Anything else the referee rules
            score: Quick mode: the RW (shot) or MW (melee) score
            skill: Quick mode: the skill level
            damage: Quick mode: damage dice, e.g. 2d10
            weapon_modifier: Quick mode, melee: the weapon's modifier
            blunt: Quick mode, melee: a blunt weapon
            race: Quick mode: the race
            private: Show the result to you only
        """
        attack: sf.Attack
        async with self.bot.database.read() as session:
            if kind == "shoot":
                situation = sf.RangedSituation(
                    target=sf.TargetMovement(target_movement),
                    aim=aim,
                    seu=seu,
                    cover=sf.Cover(cover),
                    size=sf.Size(target_size),
                    modifier=modifier,
                )
                attack, name, _ = await self.ranged(
                    interaction,
                    session,
                    weapon=weapon,
                    character=character,
                    distance=distance,
                    range=range,
                    situation=situation,
                    score=score,
                    skill=skill,
                    damage=damage,
                    race=race,
                    wounded=False,
                    heavy=False,
                )
            else:
                melee_situation = sf.MeleeSituation(
                    unaware=helpless == "unaware",
                    stunned=helpless == "stunned",
                    battle_rage=battle_rage,
                    defending=target_defending,
                    modifier=modifier,
                )
                attack, name, _ = await self.melee_attack(
                    interaction,
                    session,
                    weapon=weapon,
                    character=character,
                    situation=melee_situation,
                    score=score,
                    skill=skill,
                    weapon_modifier=weapon_modifier,
                    damage=damage,
                    blunt=blunt,
                    race=race,
                    wounded=False,
                )
            variants = await self.variants(interaction, session)
        chances = sf.odds(attack, variants)
        steps = sf.attack_steps(attack, variants)
        what = "shot" if kind == "shoot" else "melee attack"
        embed = odds_embed(chances, steps, title=f"Odds: {name}'s {what} with {attack.weapon.name}", variants=variants)
        await interaction.response.send_message(embed=embed, ephemeral=private)


def _race(text: str | None) -> Race | None:
    """The race a `race` option names (Discord sends only its choices, RACES)."""
    if text is None:
        return None
    for race in RACE_NAMES:
        if race == text:
            return race
    raise UserError(f"There is no race `{text}`: pick one of {', '.join(RACE_NAMES)}.", title="No such race")


def _weapons(sheet: SfSheet, *, melee: bool) -> list[str]:
    """The character's weapons of one kind (melee or ranged) that can be used as they stand."""
    fitting = []
    for weapon in sheet.weapons:
        try:
            if sf.character_weapon(sheet, weapon.name).melee == melee:
                fitting.append(weapon.name)
        except sf.AttackError:
            continue  # a weapon that cannot be used as it stands is never the default
    return fitting


async def setup(bot: DiceBot) -> None:
    """Load the cog."""
    await bot.add_cog(StarFrontiers(bot))
