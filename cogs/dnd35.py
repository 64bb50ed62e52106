"""/dnd: D&D 3.5 / Neverwinter Nights attacks, full attacks, armor class and exact odds."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, NamedTuple, TypeVar

from discord import app_commands
from discord.ext import commands

from bot.client import DiceBot
from bot.db.characters import CharacterRecord, CharacterRepository
from bot.errors import UserError
from bot.rules import dnd35 as dnd
from bot.rules import encounter as encounter_rules
from bot.rules import luck
from bot.rules.dnd35 import conditions, replay
from bot.rules.dnd35.ruleset import DND35, attack_luck
from bot.rules.dnd35.situation import NOTHING, from_options, suggest
from bot.rules.encounter import Hit
from bot.rules.luck import Luck
from bot.rules.sheets.base import name_key
from bot.rules.sheets.dnd35 import DndSheet
from bot.ui.dnd35 import ac_embed, attack_answer, full_attack_answer, odds_embed
from bot.ui.embeds import Defender, hides
from cogs import _pipeline as pipeline
from cogs._options import Hidden, Named, Shown, notation, option, slash
from cogs._pipeline import Creature, Hurts, Plan, Reading, Strikes
from cogs._replay import RENAMED, ROLLS
from cogs._shared import (
    Drawn,
    Interaction,
    character_choices,
    find_for_roll,
    only_weapon,
    quick_mode,
    secret_to_you,
    weapon_choices,
)

R = TypeVar("R")  # the rules core's result

RULESET = "dnd35"
MAX_THEN = 8  # combatants a full attack may turn to (`then`)
TITLE = "D&D 3.5"
QUICK = ("attack_bonus", "damage", "crit")  # the options that make an attack quick mode
QUICK_NEEDS = "Quick mode needs `attack_bonus` and `damage` (e.g. 1d8+4); `crit` defaults to 20/x2."
QUICK_FULL_NEEDS = (
    "Quick mode needs `attack_bonus` (e.g. +11/+6/+1) and `damage` (e.g. 1d8+4); `crit` defaults to 20/x2."
)


Precision = notation("precision", dnd.parse_dice)
Dr = notation("dr", dnd.parse_dr, longest=40)
Damage = notation("damage", dnd.parse_damage)
Crit = notation("crit", dnd.parse_crit, longest=20)
Bonuses = notation("attack_bonus", dnd.parse_bonuses, longest=40)


class Circumstances(notation("situation", dnd.parse_situation, longest=100)):  # type: ignore[misc]
    """The `situation` text, read as it arrives, completed word by word as it is typed (§11)."""

    # Any client's interaction: discord.py's Transformer methods take any, so an override cannot narrow it.
    async def autocomplete(self, interaction: Any, value: int | float | str, /) -> list[app_commands.Choice[str]]:
        """The text typed so far with its last word completed, or each word that may follow."""
        return [app_commands.Choice(name=text, value=text) for text in suggest(str(value)) if len(text) <= 100]


@dataclass(frozen=True, kw_only=True)
class Against:
    """Whom an attack is against."""

    target_ac: int | None = option(
        "The AC that applies (touch or flat-footed already); with target, that combatant's", None, low=-50, high=200
    )
    target: str | None = option(
        "Or a character or combatant here: its AC is computed (touch, flat-footed, its conditions)", None, high=40
    )
    touch: bool = option("A touch attack: no armor, shield or natural armor", False)
    flat_footed: bool = option("The defender is flat-footed (loses Dex and dodge bonuses)", False)
    crit_immune: bool = option(
        "Immune to critical hits and precision damage (undead, constructs, oozes, plants, elementals)", False
    )


@dataclass(frozen=True, kw_only=True)
class Attacker:
    """Who attacks, with what."""

    weapon: str | None = option("The character's weapon or one from the SRD table", None, high=40)
    character: str | None = option("Who attacks (default: your active D&D character)", None, high=40)


@dataclass(frozen=True, kw_only=True)
class OneAttack:
    """Which attack of a round this one is."""

    attack_number: int = option("1 = the first iterative attack, 2 = the one at -5, ...", 1, low=1, high=8)
    off_hand: bool = option("An off-hand attack (with a character: half Str and the two-weapon penalty)", False)


@dataclass(frozen=True, kw_only=True)
class OffHand:
    """A full attack's second weapon."""

    off_hand_weapon: str | None = option(
        "A second weapon: adds off-hand attacks with the two-weapon penalties", None, high=40
    )


@dataclass(frozen=True, kw_only=True)
class Moment:
    """What only the table knows about the attack."""

    situation: dnd.SituationText | None = option(
        "What the table knows: flanking, charge, cover, prone, concealment, +2 ... (autocomplete lists them)",
        None,
        transform=Circumstances,
    )
    damage_bonus: int = option("Extra flat damage on each damage roll", 0, low=-100, high=100)
    multiplier: int | None = option(
        "A situational damage multiplier, e.g. 2 for a charge with a lance", None, low=2, high=6
    )
    precision: tuple[dnd.Dice, ...] | None = option(
        "Precision dice never multiplied, e.g. 3d6 sneak attack", None, transform=Precision
    )
    dr: dnd.DamageReduction | None = option(
        "The defender's damage reduction, e.g. 5/magic, 10/-, 5/silver and good", None, transform=Dr
    )
    distance: float | None = option("Feet to the target, for a ranged attack's range penalty", None, low=0, high=10000)

    def circumstances(self) -> dnd.Situation:
        """What only the table knows about this attack, as the rules core takes it."""
        given = dnd.Situation(
            damage_bonus=self.damage_bonus,
            multipliers=(self.multiplier,) if self.multiplier else (),
            precision=self.precision or (),
            distance=self.distance,
        )
        return (self.situation or NOTHING).apply(given)


@dataclass(frozen=True, kw_only=True)
class Quick:
    """Quick mode: the numbers instead of a character."""

    attack_bonus: int | None = option("Quick mode: the whole attack bonus", None, low=-100, high=200)
    damage: dnd.WeaponDamage | None = option("Quick mode: damage of one roll, e.g. 1d8+4", None, transform=Damage)
    crit: dnd.Critical | None = option(
        "Quick mode: threat range and multiplier, e.g. 19-20/x2 (default 20/x2)", None, transform=Crit
    )


@dataclass(frozen=True, kw_only=True)
class AttackOdds(Shown, Named, Quick, Moment, OneAttack, Attacker, Against):
    """The options of `/dnd odds`: those of an attack, which it prices without rolling."""

    def quick(self) -> bool:
        """Quick mode: the numbers are given instead of a character (refused when half given, or with one)."""
        return quick_mode(
            (self.attack_bonus, self.damage, self.crit),
            needed=(self.attack_bonus, self.damage),
            needs=QUICK_NEEDS,
            character=self.character,
            weapon=self.weapon,
        )


@dataclass(frozen=True, kw_only=True)
class AttackOptions(Hidden, AttackOdds):
    """The options of `/dnd attack`."""


@dataclass(frozen=True, kw_only=True)
class QuickFull:
    """Quick mode for a monster's full attack: its stat block's bonuses instead of a character."""

    attack_bonus: tuple[int, ...] | None = option(
        "Quick mode: the attack bonuses as the stat block has them, e.g. +11/+6/+1", None, transform=Bonuses
    )
    damage: dnd.WeaponDamage | None = option("Quick mode: damage of one roll, e.g. 1d8+4", None, transform=Damage)
    crit: dnd.Critical | None = option(
        "Quick mode: threat range and multiplier, e.g. 19-20/x2 (default 20/x2)", None, transform=Crit
    )


class Turn(NamedTuple):
    """A target a full attack may turn to: its names, its defense, its hp, and its own situation (its conditions)."""

    name: str
    defender: Defender | None
    target: dnd.Target
    hp: int
    situation: dnd.Situation


@dataclass(frozen=True, kw_only=True)
class Then:
    """Where a full attack turns when its target drops (SRD, Full Attack: each attack may be at another foe)."""

    then: str | None = option(
        "Combatants to turn to, in order, when the target drops: Goblin 2, Goblin 3", None, high=100
    )

    def named(self) -> list[str]:
        """The combatants named, in order."""
        return [" ".join(n.split()) for n in (self.then or "").split(",") if n.strip()]


@dataclass(frozen=True, kw_only=True)
class FullAttackOptions(Then, Hidden, Shown, Named, QuickFull, Moment, OffHand, Attacker, Against):
    """The options of `/dnd full-attack`."""

    def quick(self) -> bool:
        """Quick mode: the stat block's numbers instead of a character (refused when half given, or with one)."""
        return quick_mode(
            (self.attack_bonus, self.damage, self.crit),
            needed=(self.attack_bonus, self.damage),
            needs=QUICK_FULL_NEEDS,
            character=self.character,
            weapon=self.weapon or self.off_hand_weapon,
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

    # -- planners ------------------------------------------------------------------------------------------
    async def target(
        self, reading: Reading, options: Against, dr: dnd.DamageReduction | None, situation: dnd.Situation
    ) -> tuple[dnd.Target, CharacterRecord | None, str | None, Defender | None, dnd.Situation]:
        """The defender, its character here, its name in this channel's fight, its name, and the situation.

        The AC given, else the creature `target` names (`Reading.creature`): a character is its sheet, in this
        channel's fight or out of it; a quick creature is the fight's numbers. The name says whether its numbers
        are a game master's secret, a combatant's too when it is a character. A combatant's conditions go on the
        situation (§14); with `target_ac` too, the AC is the one given and the hit is the combatant's.
        """
        if options.target is None:
            if options.target_ac is None:
                raise UserError(
                    "Give the defender as `target_ac` (a number) or `target` (a character here), one of them.",
                    title="Attack what?",
                )
            return self.given(options, dr), None, None, None, situation
        if options.target_ac is not None and await reading.combatant(options.target, RULESET) is None:
            raise UserError(
                "Give the defender as `target_ac` (a number) or `target` (a character here), one of them; both "
                "only for a combatant of this channel's fight (the AC given, its hit applied).",
                title="Attack what?",
            )
        creature = await reading.creature(options.target, RULESET, TITLE)
        fighting = creature.combatant.name if creature.combatant is not None else None
        situation = replace(situation, defender=conditions.bearer(creature.name, creature.conditions))
        if options.target_ac is not None:
            given = replace(self.given(options, dr), notes=(f"The AC given is {creature.name}'s.",))
            return given, None, fighting, creature.named, situation
        found = defense(creature, options, dr, situation)
        return found, creature.hurt, fighting, creature.named, situation

    @staticmethod
    def given(options: Against, dr: dnd.DamageReduction | None) -> dnd.Target:
        """The AC typed, already in the form the attack uses."""
        assert options.target_ac is not None
        kind = " ".join(w for w, on in (("flat-footed", options.flat_footed), ("touch", options.touch)) if on)
        return dnd.target_ac(
            options.target_ac,
            dr=dr,
            denied_dex=options.flat_footed,
            kind=f"{kind} AC".strip(),
            immune_to_criticals=options.crit_immune,
        )

    async def bearer(self, reading: Reading, record: CharacterRecord | None) -> conditions.Bearer:
        """The attacking character's conditions, when it is a combatant of this channel's fight (§14)."""
        fought = await reading.fighter(record) if record is not None else None
        if fought is None:
            return conditions.NOBODY
        return conditions.bearer(fought[1].name, (c.name for c in fought[1].conditions))

    async def attacker(self, reading: Reading, options: Attacker) -> tuple[CharacterRecord, DndSheet, str]:
        """The attacking character (named, or your active one), its sheet and its weapon (or the one it used last).

        On SQLite the channel's fight is read at the same time, as the attack then looks for the character in it
        (`bearer`): the two reads go to a reader thread in one trip (`bot.db.engine.Readers`), where one after the
        other took two. Elsewhere both read through the roll's one session, which reads one thing at a time. Should
        the character not be found, the fight's read is cancelled: the roll's session closes with its failure.
        """
        if reading.bot.database.reads is None:
            return await self._attacker(reading, options)
        fight = asyncio.ensure_future(reading.fight(RULESET))  # it asks for its read in this turn of the loop too
        try:
            found = await self._attacker(reading, options)
        except BaseException:
            fight.cancel()
            with contextlib.suppress(BaseException):  # the attacker's failure is the one to tell
                await fight
            raise
        await fight
        return found

    async def _attacker(self, reading: Reading, options: Attacker) -> tuple[CharacterRecord, DndSheet, str]:
        record = await find_for_roll(reading.characters, reading.interaction, options.character, RULESET, TITLE)
        sheet = record.sheet
        assert isinstance(sheet, DndSheet)
        carried = [w.name for w in sheet.weapons]
        weapon = await reading.weapon(
            record, RULESET, options.weapon, carried, lambda: only_weapon(record, carried, table="the SRD table")
        )
        return record, sheet, weapon

    async def plan_attack(self, reading: Reading, options: AttackOdds) -> Plan[replay.DndAttackRoll, dnd.AttackResult]:
        """One attack from quick-mode numbers or from a character, priced, with its presenters."""
        variants: dnd.Variants = reading.settings.variants(DND35.key)
        quick = options.quick()
        attacking = None if quick else await self.attacker(reading, options)
        situation = replace(
            options.circumstances(), attacker=await self.bearer(reading, attacking[0] if attacking else None)
        )
        target, defending, fighting, defender, situation = await self.target(reading, options, options.dr, situation)
        name, character_id = options.attacker(reading.user_name, quick=quick), None
        if attacking is None:
            assert options.attack_bonus is not None and options.damage is not None  # quick() makes sure
            built = dnd.quick_attack(
                options.attack_bonus,
                options.damage,
                target,
                situation,
                crit=options.crit or "20/x2",
                attack_number=options.attack_number,
                off_hand=options.off_hand,
                label=f"attack {options.damage}",
            )
        else:
            record, sheet, weapon = attacking
            name, character_id = record.name, record.id
            two_weapon = None
            if options.off_hand:
                used = dnd.effective_weapon(dnd.find_weapon(sheet, weapon), size=sheet.size)
                # §4: a double weapon's off-hand end counts as a light weapon.
                two_weapon = dnd.two_weapon_situation(
                    light_off_hand=used.light or used.double, feat=sheet.two_weapon_fighting
                )
            built = dnd.character_attack(
                sheet,
                weapon,
                target,
                _monk(sheet, weapon, situation),
                attack_number=options.attack_number,
                off_hand=options.off_hand,
                two_weapon=two_weapon,
                variants=variants,
            )
        chances = dnd.odds(built, variants=variants)
        return Plan(
            replay.DND_ATTACK,
            replay.DndAttackRoll(built, variants),
            RULESET,
            answer=lambda result: attack_answer(result, chances, attacker=name, defender=defender),
            luck=lambda drawn: luck.add(attack_luck(drawn.result, chances), drawn.counted.d20_luck()),
            odds=lambda: secret_to_you(
                reading.viewer, defender, odds_embed(built, chances, attacker=name, variants=variants)
            ),
            # A secret defender's owner sees the odds, but not the channel.
            odds_private=hides(defender),
            character_id=character_id,
            hurts=Hurts(defending.id, defending.name, lambda r: r.damage if r.hit else 0) if defending else None,
            strikes=_strikes(fighting, lambda r: r.damage if r.hit else 0),
        )

    async def plan_full_attack(
        self, reading: Reading, options: FullAttackOptions
    ) -> Plan[replay.DndFullAttackRoll, dnd.FullAttackResult]:
        """Every attack of a full attack (a character's, or a stat block's bonuses), priced under one work budget."""
        variants: dnd.Variants = reading.settings.variants(DND35.key)
        quick = options.quick()
        attacking = None if quick else await self.attacker(reading, options)
        situation = replace(
            options.circumstances(), attacker=await self.bearer(reading, attacking[0] if attacking else None)
        )
        target, defending, fighting, defender, situation = await self.target(reading, options, options.dr, situation)
        name, character_id = options.attacker(reading.user_name, quick=quick), None
        # Each target's attacks read its own situation: a prone first target's -4 AC is not the next one's (§14).
        build: Callable[[dnd.Target, dnd.Situation], tuple[dnd.Attack, ...]]
        if attacking is None:
            assert options.attack_bonus is not None and options.damage is not None  # quick() makes sure
            bonuses, damage = options.attack_bonus, options.damage
            weapon = str(options.damage)

            def build(at: dnd.Target, facing: dnd.Situation) -> tuple[dnd.Attack, ...]:
                return tuple(dnd.quick_full_attack(bonuses, damage, at, facing, crit=options.crit or "20/x2"))

        else:
            record, sheet, weapon = attacking
            name, character_id = record.name, record.id

            def build(at: dnd.Target, facing: dnd.Situation) -> tuple[dnd.Attack, ...]:
                monk = _monk(sheet, weapon, facing)
                return tuple(
                    dnd.full_attack(sheet, weapon, at, monk, off_hand_weapon=options.off_hand_weapon, variants=variants)
                )

        attacks = build(target, situation)
        turns = await self.turns(reading, options, situation, fighting)
        then = tuple(build(turn.target, turn.situation) for turn in turns[1:])
        hit_points = tuple(turn.hp for turn in turns) if then else ()
        names = [defender, *(turn.defender for turn in turns[1:])]
        chances = dnd.odds_for(attacks, variants=variants)  # one work budget for the whole command
        expected = sum((c.expected_damage for c in chances), start=Fraction(0))
        exact = all(c.approximation is None or c.approximation.expected_exact for c in chances)

        def tally(drawn: Drawn[dnd.FullAttackResult]) -> Luck:
            counted = drawn.counted.d20_luck()
            for result, odds in zip(drawn.result.results, chances, strict=False):
                luck.add(counted, attack_luck(result, odds))
            return counted

        def at(full: dnd.FullAttackResult) -> list[Defender | None] | None:
            return [names[t] for t in dnd.turned(full.results, hit_points)] if then else None

        return Plan(
            replay.DND_FULL_ATTACK,
            replay.DndFullAttackRoll(attacks, variants, then, hit_points),
            RULESET,
            answer=lambda full: full_attack_answer(
                full, expected, attacker=name, weapon=weapon, exact=exact, defender=defender, at=at(full)
            ),
            luck=tally,
            character_id=character_id,
            hurts=Hurts(defending.id, defending.name, lambda full: full.total_damage) if defending else None,
            strikes=_turning(turns) if then else _strikes(fighting, lambda full: full.total_damage),
        )

    async def turns(
        self, reading: Reading, options: FullAttackOptions, situation: dnd.Situation, fighting: str | None
    ) -> list[Turn]:
        """The targets a full attack may turn to (`then`), the target itself first; empty without `then`.

        Each is a combatant of this channel's fight, read as any defender is (`defense`); a game master's secret
        character cannot be one (its numbers would show in the channel).
        """
        named = options.named()
        if not named:
            return []
        if fighting is None:
            raise UserError("`then` names combatants to turn to: the `target` must be a combatant of this fight too.")
        if len(named) > MAX_THEN:
            raise UserError(f"`then` names at most {MAX_THEN} combatants.")
        found: list[Turn] = []
        for text in [fighting, *named]:
            creature = await reading.creature(text, RULESET, TITLE)
            if creature.combatant is None:
                raise UserError(f"**{creature.name}** is not a combatant of this fight, so `then` cannot name it.")
            if hides(creature.named) or (found and creature.combatant.hidden):
                # Its hit points would be in the roll's input, which a fair log reveals.
                raise UserError(f"**{creature.name}**'s numbers are the game master's: `then` cannot name it.")
            if any(creature.combatant.name == turn.name for turn in found):
                raise UserError(f"**{creature.name}** is named twice among the full attack's targets.")
            # Each target's own conditions change its AC form, as the first target's do (§14).
            turned = replace(situation, defender=conditions.bearer(creature.name, creature.conditions))
            at = defense(creature, options, options.dr, turned)
            found.append(Turn(creature.combatant.name, creature.named, at, creature.combatant.hp, turned))
        return found

    # -- commands ----------------------------------------------------------------------------------------
    @app_commands.autocomplete(weapon=weapons, character=characters, target=anyones)
    @slash("attack", AttackOptions, extras={**ROLLS, RENAMED: from_options})
    async def attack(self, interaction: Interaction, options: AttackOptions) -> None:
        """One attack: d20 + attack bonus against AC, threat and confirmation, damage, every step."""
        await pipeline.roll(self.bot, interaction, options, self.plan_attack)

    @app_commands.autocomplete(weapon=weapons, character=characters, target=anyones)
    @slash("odds", AttackOdds)
    async def odds(self, interaction: Interaction, options: AttackOdds) -> None:
        """The exact odds of an attack, rolling nothing: hit, threat, critical, each damage total."""
        await pipeline.odds(self.bot, interaction, options, self.plan_attack)

    @app_commands.autocomplete(weapon=weapons, off_hand_weapon=weapons, character=characters, target=anyones)
    @slash("full-attack", FullAttackOptions, extras={**ROLLS, RENAMED: from_options})
    async def full_attack(self, interaction: Interaction, options: FullAttackOptions) -> None:
        """Every attack the base attack bonus gives, and off-hand attacks with two weapons; then the total."""
        await pipeline.roll(self.bot, interaction, options, self.plan_full_attack)

    @app_commands.command(name="ac")
    @app_commands.autocomplete(character=anyones)
    async def ac(self, interaction: Interaction, character: app_commands.Range[str, 1, 40] | None = None) -> None:
        """Normal, touch and flat-footed armor class with every component named.

        Args:
            character: Whose AC (default: your active D&D character; #number for anyone's here)
        """
        async with self.bot.database.read() as session:
            characters = CharacterRepository(session, self.bot.database.reads)
            record = await find_for_roll(characters, interaction, character, RULESET, TITLE)
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
        embed = ac_embed(record.name, rows, worn=sheet.worn)
        if sheet.uncanny_dodge:
            embed.set_footer(text="Uncanny Dodge: keeps its Dex bonus while flat-footed.")
        # Only its owner gets this far with a secret character (`find_for_roll`): the channel must not see it.
        await interaction.response.send_message(embed=embed, ephemeral=record.secret)


def defense(
    creature: Creature, options: Against, dr: dnd.DamageReduction | None, situation: dnd.Situation = dnd.NO_SITUATION
) -> dnd.Target:
    """The defender as an attack sees it (§5-§7, §14): the same creature in this channel's fight and out of it.

    A character's AC in every form, damage reduction, critical immunity and Uncanny Dodge are its sheet's
    (`dr` and `crit_immune` given add to them, as outside a fight); a fight adds that the creature is
    flat-footed until its first turn begins, and what its conditions (and the attacker's: an invisible one) do to
    the form of its AC, each said in a note. A quick creature of the fight has the fight's one AC and what the
    options give. `flat_footed:true` holds against anyone. A helpless character's AC counts its Dex as 0 (§5).
    """
    fight, fighting = creature.fight, creature.combatant
    why = encounter_rules.flat_footed_why(fight, fighting, given=options.flat_footed) if fight and fighting else None
    form = conditions.defense_form(situation.defender, situation.attacker)
    sheet = creature.sheet
    if isinstance(sheet, DndSheet) and (situation.helpless or form.dex_zero):
        target = dnd.target_sheet(
            sheet, touch=options.touch, dr=dr, immune_to_criticals=options.crit_immune, helpless=True
        )
        return target if situation.helpless else replace(target, notes=(f"Dex 0: {form.why} (§14).", *target.notes))
    if isinstance(sheet, DndSheet):
        if form.loses_dex and not form.uncanny and sheet.uncanny_dodge:
            sheet = sheet.model_copy(update={"uncanny_dodge": False})  # §14: Uncanny Dodge does not cover these
        target = dnd.target_sheet(
            sheet,
            touch=options.touch,
            flat_footed=options.flat_footed or why is not None or form.loses_dex,
            dr=dr,
            immune_to_criticals=options.crit_immune,
        )
        notes = [] if why is None or options.flat_footed else [f"Flat-footed: {why}."]
        if form.loses_dex:
            notes.append(f"No Dex bonus to AC: {form.why} (§14).")
        return replace(target, notes=(*notes, *target.notes))
    if fight is None or fighting is None:  # a character found is a D&D one (`Reading.creature`)
        raise UserError(f"**{creature.name}** has no D&D stat block to attack.")
    lost = form.why if form.loses_dex or form.dex_zero else ""
    found = encounter_rules.dnd_defense(fight, fighting, touch=options.touch, flat=options.flat_footed, lost=lost)
    quick_notes: tuple[str, ...] = ()
    if form.dex_zero:
        quick_notes = (f"Dex 0: {form.why}; its one AC is taken as flat-footed (`target_ac` gives Dex 0).",)
    return dnd.Target(found.ac, found.kind, found.why, dr, options.crit_immune, found.flat_footed, quick_notes)


def _strikes(fighting: str | None, damage: Callable[[R], int]) -> Strikes[R] | None:
    """An attack on a combatant of this channel's fight (by its name there) applies its damage to it."""
    if fighting is None:
        return None
    return Strikes(fighting, lambda result: Hit(damage(result)) if damage(result) > 0 else None)


def _turning(turns: list[Turn]) -> Strikes[dnd.FullAttackResult]:
    """A full attack that turned (`then`): each target takes the damage of the attacks made at it, one change."""
    hit_points = [turn.hp for turn in turns]

    def dealt(full: dnd.FullAttackResult) -> list[int]:
        damage = [0] * len(turns)
        for result, at in zip(full.results, dnd.turned(full.results, hit_points), strict=True):
            damage[at] += result.damage if result.hit else 0
        return damage

    def first(full: dnd.FullAttackResult) -> Hit | None:
        damage = dealt(full)[0]
        return Hit(damage) if damage > 0 else None

    def others(full: dnd.FullAttackResult) -> list[tuple[str, Hit]]:
        return [(turn.name, Hit(d)) for turn, d in zip(turns[1:], dealt(full)[1:], strict=True) if d > 0]

    return Strikes(turns[0].name, first, others)


def _monk(sheet: DndSheet, weapon: str, situation: dnd.Situation) -> dnd.Situation:
    """A monk's attack unarmed or with a kama takes the monk's step (NWN's -3 where the server plays it, §3)."""
    if sheet.monk and name_key(weapon) in dnd.MONK_WEAPONS:
        return replace(situation, monk_unarmed=True)
    return situation


async def setup(bot: DiceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Dnd(bot))
