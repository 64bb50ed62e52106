"""/dnd: D&D 3.5 / Neverwinter Nights attacks, full attacks, armor class and exact odds."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from discord import app_commands
from discord.ext import commands
from sqlalchemy.ext.asyncio import AsyncSession

from bot.client import DiceBot
from bot.db.characters import CharacterRecord, CharacterRepository
from bot.errors import UserError
from bot.rules import dnd35 as dnd
from bot.rules import luck, replay
from bot.rules.sheets.dnd35 import DndSheet
from bot.ui.dnd35 import Defender, ac_embed, attack_answer, full_attack_answer, odds_embed
from cogs._replay import ROLLS
from cogs._shared import (
    Interaction,
    Rolled,
    answer_roll,
    can_moderate,
    character_choices,
    draw,
    find,
    find_for_roll,
    only_weapon,
    quick_mode,
    weapon_choices,
)

RULESET = "dnd35"
TITLE = "D&D 3.5"
QUICK = ("attack_bonus", "damage", "crit")  # the options that make an attack quick mode
QUICK_NEEDS = "Quick mode needs `attack_bonus` and `damage` (e.g. 1d8+4); `crit` defaults to 20/x2."


@dataclass(frozen=True, slots=True)
class Options:
    """The options `attack` and `odds` share, as typed."""

    target_ac: int | None = None
    target: str | None = None
    touch: bool = False
    flat_footed: bool = False
    weapon: str | None = None
    character: str | None = None
    attack_number: int = 1
    off_hand: bool = False
    modifier: int = 0
    damage_bonus: int = 0
    multiplier: int | None = None
    precision: str | None = None
    dr: str | None = None
    flanking: bool = False
    sneak_attack: bool = False
    distance: float | None = None
    two_hands: bool = False
    attack_bonus: int | None = None
    damage: str | None = None
    crit: str | None = None

    def quick(self) -> bool:
        """Quick mode: the numbers are given instead of a character (refused when half given, or with one)."""
        return quick_mode(
            (self.attack_bonus, self.damage, self.crit),
            needed=(self.attack_bonus, self.damage),
            needs=QUICK_NEEDS,
            character=self.character,
            weapon=self.weapon,
        )

    def situation(self) -> dnd.Situation:
        """What only the table knows about this attack."""
        return dnd.Situation(
            modifier=self.modifier,
            damage_bonus=self.damage_bonus,
            multipliers=(self.multiplier,) if self.multiplier else (),
            precision=dnd.parse_dice(self.precision) if self.precision else (),
            sneak_attack=self.sneak_attack,
            flanking=self.flanking,
            distance=self.distance,
            two_hands=self.two_hands,
        )


class Dnd(commands.GroupCog, group_name="dnd", group_description="D&D 3.5 / NWN attacks, armor class and odds"):
    """D&D 3.5 attacks exactly as the reference writes them, every step shown."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        super().__init__()

    # -- autocomplete ------------------------------------------------------------------------------------
    async def weapons(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The character's weapons first, then the SRD table."""
        return await weapon_choices(
            self.bot, interaction, current, rules=RULESET, title=TITLE, table=dnd.weapon_names(), quick=QUICK
        )

    async def characters(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Your D&D characters."""
        return await character_choices(self.bot, interaction, current, rules=RULESET)

    async def anyones(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """D&D characters of anyone in this server (a monster the game master keeps, say)."""
        return await character_choices(self.bot, interaction, current, rules=RULESET, anyone=True)

    # -- shared --------------------------------------------------------------------------------------------
    async def variants(self, interaction: Interaction, session: AsyncSession) -> dnd.Variants:
        """The server's readings (`/settings`)."""
        return (await self.bot.server_settings(interaction.guild_id, session)).dnd

    async def target(
        self, interaction: Interaction, options: Options, session: AsyncSession
    ) -> tuple[dnd.Target, Defender | None]:
        """The defender and its character: a character here (its AC computed), or the AC given."""
        if options.target_ac is not None and options.target is None:
            kind = " ".join(w for w, on in (("flat-footed", options.flat_footed), ("touch", options.touch)) if on)
            given = dnd.target_ac(
                options.target_ac, dr=options.dr, denied_dex=options.flat_footed, kind=f"{kind} AC".strip()
            )
            return given, None
        if options.target is None or options.target_ac is not None:
            raise UserError(
                "Give the defender as `target_ac` (a number) or `target` (a character here), one of them.",
                title="Attack what?",
            )
        record = await find(CharacterRepository(session), interaction, options.target)
        if not isinstance(record.sheet, DndSheet):
            raise UserError(f"**{record.name}** is a {record.ruleset.title} character, not {TITLE}.")
        sheet = record.sheet
        target = dnd.target_sheet(sheet, touch=options.touch, flat_footed=options.flat_footed, dr=options.dr)
        return target, Defender(record.name, record.secret, record.owner_id)

    async def attacker(self, interaction: Interaction, text: str | None, session: AsyncSession) -> CharacterRecord:
        """The attacking character: named, or your active one."""
        return await find_for_roll(CharacterRepository(session), interaction, text, RULESET, TITLE)

    async def build(
        self, interaction: Interaction, options: Options, variants: dnd.Variants, session: AsyncSession
    ) -> tuple[dnd.Attack, str, int | None, Defender | None]:
        """One attack from quick-mode numbers or from a character: who makes it, its id, the defender's name."""
        target, defender = await self.target(interaction, options, session)
        situation = options.situation()
        if options.quick():
            assert options.attack_bonus is not None and options.damage is not None  # quick() makes sure
            attack = dnd.quick_attack(
                options.attack_bonus,
                options.damage,
                target,
                situation,
                crit=options.crit or "20/x2",
                attack_number=options.attack_number,
                off_hand=options.off_hand,
                label=f"attack {options.damage}",
            )
            return attack, interaction.user.display_name, None, defender
        record = await self.attacker(interaction, options.character, session)
        sheet = record.sheet
        assert isinstance(sheet, DndSheet)
        weapon = options.weapon or only_weapon(record, [w.name for w in sheet.weapons], table="the SRD table")
        two_weapon = None
        if options.off_hand:
            used = dnd.effective_weapon(dnd.find_weapon(sheet, weapon), size=sheet.size)
            # §4: a double weapon's off-hand end counts as a light weapon.
            two_weapon = dnd.two_weapon_situation(
                light_off_hand=used.light or used.double, feat=sheet.two_weapon_fighting
            )
        attack = dnd.character_attack(
            sheet,
            weapon,
            target,
            situation,
            attack_number=options.attack_number,
            off_hand=options.off_hand,
            two_weapon=two_weapon,
            variants=variants,
        )
        return attack, record.name, record.id, defender

    # -- commands ----------------------------------------------------------------------------------------
    @app_commands.command(name="attack", extras=ROLLS)
    @app_commands.autocomplete(weapon=weapons, character=characters, target=anyones)
    async def attack(
        self,
        interaction: Interaction,
        target_ac: app_commands.Range[int, -50, 200] | None = None,
        target: app_commands.Range[str, 1, 40] | None = None,
        touch: bool = False,
        flat_footed: bool = False,
        weapon: app_commands.Range[str, 1, 40] | None = None,
        character: app_commands.Range[str, 1, 40] | None = None,
        attack_number: app_commands.Range[int, 1, 8] = 1,
        off_hand: bool = False,
        modifier: app_commands.Range[int, -100, 100] = 0,
        damage_bonus: app_commands.Range[int, -100, 100] = 0,
        multiplier: app_commands.Range[int, 2, 6] | None = None,
        precision: app_commands.Range[str, 1, 30] | None = None,
        dr: app_commands.Range[str, 1, 40] | None = None,
        flanking: bool = False,
        sneak_attack: bool = False,
        distance: app_commands.Range[float, 0, 10000] | None = None,
        two_hands: bool = False,
        attack_bonus: app_commands.Range[int, -100, 200] | None = None,
        damage: app_commands.Range[str, 1, 30] | None = None,
        crit: app_commands.Range[str, 1, 20] | None = None,
        private: bool = False,
        hidden: bool = False,
    ) -> None:
        """One attack: d20 + attack bonus against AC, threat and confirmation, damage, every step.

        Args:
            target_ac: The AC that applies (already touch or flat-footed if the attack is)
            target: Or a character here: its AC is computed (touch, flat-footed, Uncanny Dodge)
            touch: A touch attack: no armor, shield or natural armor
            flat_footed: The defender is flat-footed (loses Dex and dodge bonuses)
            weapon: The character's weapon or one from the SRD table
            character: Who attacks (default: your active D&D character)
            attack_number: 1 = the first iterative attack, 2 = the one at -5, ...
            off_hand: An off-hand attack (with a character: half Str and the two-weapon penalty)
            modifier: A situational attack modifier
            damage_bonus: Extra flat damage on each damage roll
            multiplier: A situational damage multiplier, e.g. 2 for a charge with a lance
            precision: Precision dice never multiplied, e.g. 3d6 sneak attack
            dr: The defender's damage reduction, e.g. 5/magic, 10/-, 5/silver and good
            flanking: Flanking the defender (+2 in melee; allows sneak attack)
            sneak_attack: Add the character's sneak attack dice
            distance: Feet to the target, for a ranged attack's range penalty
            two_hands: A one-handed weapon held in two hands (1.5x Str)
            attack_bonus: Quick mode: the whole attack bonus
            damage: Quick mode: damage of one roll, e.g. 1d8+4
            crit: Quick mode: threat range and multiplier, e.g. 19-20/x2 (default 20/x2)
            private: Show the result to you only
            hidden: Send the result to the GM channel; this channel only sees that you rolled
        """
        options = Options(
            target_ac=target_ac,
            target=target,
            touch=touch,
            flat_footed=flat_footed,
            weapon=weapon,
            character=character,
            attack_number=attack_number,
            off_hand=off_hand,
            modifier=modifier,
            damage_bonus=damage_bonus,
            multiplier=multiplier,
            precision=precision,
            dr=dr,
            flanking=flanking,
            sneak_attack=sneak_attack,
            distance=distance,
            two_hands=two_hands,
            attack_bonus=attack_bonus,
            damage=damage,
            crit=crit,
        )
        # One read transaction for everything the attack reads: each transaction costs round trips. The dice
        # come last, once nothing can fail any more, so that a fair session never skips a roll number.
        async with self.bot.database.read() as session:
            variants = await self.variants(interaction, session)
            built, name, character_id, defender = await self.build(interaction, options, variants, session)
            chances = dnd.odds(built, variants=variants)
            drawn = await draw(self.bot, interaction, replay.DND_ATTACK, replay.DndAttackRoll(built, variants), session)
        result = drawn.result
        answer = attack_answer(result, chances, attacker=name, defender=defender)
        tally = luck.add(luck.dnd_attack(result, chances), drawn.counted.d20_luck())
        rolled = Rolled(character_id, RULESET, tally)
        await answer_roll(
            self.bot,
            interaction,
            answer,
            result=drawn.proof.outcome,
            private=private,
            dice=drawn.dice,
            hidden=hidden,
            rolled=rolled,
            proof=drawn.proof,
        )

    @app_commands.command(name="odds")
    @app_commands.autocomplete(weapon=weapons, character=characters, target=anyones)
    async def odds(
        self,
        interaction: Interaction,
        target_ac: app_commands.Range[int, -50, 200] | None = None,
        target: app_commands.Range[str, 1, 40] | None = None,
        touch: bool = False,
        flat_footed: bool = False,
        weapon: app_commands.Range[str, 1, 40] | None = None,
        character: app_commands.Range[str, 1, 40] | None = None,
        attack_number: app_commands.Range[int, 1, 8] = 1,
        off_hand: bool = False,
        modifier: app_commands.Range[int, -100, 100] = 0,
        damage_bonus: app_commands.Range[int, -100, 100] = 0,
        multiplier: app_commands.Range[int, 2, 6] | None = None,
        precision: app_commands.Range[str, 1, 30] | None = None,
        dr: app_commands.Range[str, 1, 40] | None = None,
        flanking: bool = False,
        sneak_attack: bool = False,
        distance: app_commands.Range[float, 0, 10000] | None = None,
        two_hands: bool = False,
        attack_bonus: app_commands.Range[int, -100, 200] | None = None,
        damage: app_commands.Range[str, 1, 30] | None = None,
        crit: app_commands.Range[str, 1, 20] | None = None,
        private: bool = False,
    ) -> None:
        """The exact odds of an attack, rolling nothing: hit, threat, critical, each damage total.

        Args:
            target_ac: The AC that applies (already touch or flat-footed if the attack is)
            target: Or a character here: its AC is computed (touch, flat-footed, Uncanny Dodge)
            touch: A touch attack: no armor, shield or natural armor
            flat_footed: The defender is flat-footed (loses Dex and dodge bonuses)
            weapon: The character's weapon or one from the SRD table
            character: Who attacks (default: your active D&D character)
            attack_number: 1 = the first iterative attack, 2 = the one at -5, ...
            off_hand: An off-hand attack (with a character: half Str and the two-weapon penalty)
            modifier: A situational attack modifier
            damage_bonus: Extra flat damage on each damage roll
            multiplier: A situational damage multiplier, e.g. 2 for a charge with a lance
            precision: Precision dice never multiplied, e.g. 3d6 sneak attack
            dr: The defender's damage reduction, e.g. 5/magic, 10/-, 5/silver and good
            flanking: Flanking the defender (+2 in melee; allows sneak attack)
            sneak_attack: Add the character's sneak attack dice
            distance: Feet to the target, for a ranged attack's range penalty
            two_hands: A one-handed weapon held in two hands (1.5x Str)
            attack_bonus: Quick mode: the whole attack bonus
            damage: Quick mode: damage of one roll, e.g. 1d8+4
            crit: Quick mode: threat range and multiplier, e.g. 19-20/x2 (default 20/x2)
            private: Show the result to you only
        """
        options = Options(
            target_ac=target_ac,
            target=target,
            touch=touch,
            flat_footed=flat_footed,
            weapon=weapon,
            character=character,
            attack_number=attack_number,
            off_hand=off_hand,
            modifier=modifier,
            damage_bonus=damage_bonus,
            multiplier=multiplier,
            precision=precision,
            dr=dr,
            flanking=flanking,
            sneak_attack=sneak_attack,
            distance=distance,
            two_hands=two_hands,
            attack_bonus=attack_bonus,
            damage=damage,
            crit=crit,
        )
        async with self.bot.database.read() as session:
            variants = await self.variants(interaction, session)
            built, name, _, defender = await self.build(interaction, options, variants, session)
        secret_to_you(interaction, defender)
        chances = dnd.odds(built, variants=variants)
        embed = odds_embed(built, chances, attacker=name, variants=variants)
        # A secret defender's owner sees the odds, but not the channel.
        await interaction.response.send_message(embed=embed, ephemeral=private or bool(defender and defender.secret))

    @app_commands.command(name="full-attack", extras=ROLLS)
    @app_commands.autocomplete(weapon=weapons, off_hand_weapon=weapons, character=characters, target=anyones)
    async def full_attack(
        self,
        interaction: Interaction,
        target_ac: app_commands.Range[int, -50, 200] | None = None,
        target: app_commands.Range[str, 1, 40] | None = None,
        touch: bool = False,
        flat_footed: bool = False,
        weapon: app_commands.Range[str, 1, 40] | None = None,
        off_hand_weapon: app_commands.Range[str, 1, 40] | None = None,
        character: app_commands.Range[str, 1, 40] | None = None,
        modifier: app_commands.Range[int, -100, 100] = 0,
        damage_bonus: app_commands.Range[int, -100, 100] = 0,
        precision: app_commands.Range[str, 1, 30] | None = None,
        dr: app_commands.Range[str, 1, 40] | None = None,
        flanking: bool = False,
        two_hands: bool = False,
        private: bool = False,
        hidden: bool = False,
    ) -> None:
        """Every attack the base attack bonus gives, and off-hand attacks with two weapons; then the total.

        Args:
            target_ac: The AC that applies (already touch or flat-footed if the attacks are)
            target: Or a character here: its AC is computed
            touch: Touch attacks
            flat_footed: The defender is flat-footed
            weapon: The primary weapon (the character's or from the SRD table)
            off_hand_weapon: A second weapon: adds off-hand attacks with the two-weapon penalties
            character: Who attacks (default: your active D&D character)
            modifier: A situational modifier to every attack
            damage_bonus: Extra flat damage on each damage roll
            precision: Precision dice on every hit, e.g. 1d6
            dr: The defender's damage reduction, e.g. 5/magic
            flanking: Flanking the defender
            two_hands: The primary weapon in two hands (1.5x Str)
            private: Show the result to you only
            hidden: Send the result to the GM channel; this channel only sees that you rolled
        """
        options = Options(
            target_ac=target_ac,
            target=target,
            touch=touch,
            flat_footed=flat_footed,
            weapon=weapon,
            character=character,
            modifier=modifier,
            damage_bonus=damage_bonus,
            precision=precision,
            dr=dr,
            flanking=flanking,
            two_hands=two_hands,
        )
        async with self.bot.database.read() as session:
            variants = await self.variants(interaction, session)
            target_now, defender = await self.target(interaction, options, session)
            record = await self.attacker(interaction, character, session)
            sheet = record.sheet
            assert isinstance(sheet, DndSheet)
            primary = weapon or only_weapon(record, [w.name for w in sheet.weapons], table="the SRD table")
            attacks = dnd.full_attack(
                sheet, primary, target_now, options.situation(), off_hand_weapon=off_hand_weapon, variants=variants
            )
            chances = dnd.odds_for(attacks, variants=variants)  # one work budget for the whole command
            expected = sum((c.expected_damage for c in chances), start=Fraction(0))
            exact = all(c.approximation is None or c.approximation.expected_exact for c in chances)
            inputs = replay.DndFullAttackRoll(tuple(attacks), variants)
            drawn = await draw(self.bot, interaction, replay.DND_FULL_ATTACK, inputs, session)
        full = drawn.result
        answer = full_attack_answer(
            full,
            expected,
            attacker=record.name,
            weapon=primary,
            exact=exact,
            defender=defender,
        )
        tally = drawn.counted.d20_luck()
        for result, odds in zip(full.results, chances, strict=False):
            luck.add(tally, luck.dnd_attack(result, odds))
        await answer_roll(
            self.bot,
            interaction,
            answer,
            result=drawn.proof.outcome,
            private=private,
            dice=drawn.dice,
            hidden=hidden,
            rolled=Rolled(record.id, RULESET, tally),
            proof=drawn.proof,
        )

    @app_commands.command(name="ac")
    @app_commands.autocomplete(character=anyones)
    async def ac(self, interaction: Interaction, character: app_commands.Range[str, 1, 40] | None = None) -> None:
        """Normal, touch and flat-footed armor class with every component named.

        Args:
            character: Whose AC (default: your active D&D character; #number for anyone's here)
        """
        async with self.bot.database.read() as session:
            record = await self.attacker(interaction, character, session)
        sheet = record.sheet
        assert isinstance(sheet, DndSheet)
        rows = [
            (label, sheet.ac(touch=touch, flat_footed=flat), sheet.ac_explained(touch=touch, flat_footed=flat))
            for label, touch, flat in (
                ("AC", False, False),
                ("Touch AC", True, False),
                ("Flat-footed AC", False, True),
                ("Flat-footed touch AC", True, True),
            )
        ]
        embed = ac_embed(record.name, rows)
        if sheet.uncanny_dodge:
            embed.set_footer(text="Uncanny Dodge: keeps its Dex bonus while flat-footed.")
        # Only its owner gets this far with a secret character (`find_for_roll`): the channel must not see it.
        await interaction.response.send_message(embed=embed, ephemeral=record.secret)


def secret_to_you(interaction: Interaction, defender: Defender | None) -> None:
    """Refuse the odds against a game master's secret character to anyone but its owner: they give its AC away."""
    if defender and defender.secret and interaction.user.id != defender.owner_id and not can_moderate(interaction):
        raise UserError(
            f"**{defender.name}**'s numbers are the game master's secret, and the odds against it would tell "
            "them. Roll the attack: its answer says whether it hit.",
            title="A secret",
        )


async def setup(bot: DiceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Dnd(bot))
