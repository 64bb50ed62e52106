"""Star Frontiers attack descriptions: who attacks with what, and the situation (star_frontiers.md §4-5).

An attack is built from a character (`ranged_attack`, `melee_attack`: RW or MW, the skill, wounds, load and race
come from the stat block) or from bare numbers (`quick_ranged`, `quick_melee`). Construction refuses what the rules
do not allow (aiming while moving, a burst from a weapon that cannot fire one, an unset laser dial, battle rage
for anyone but a Yazirian, melee beyond 2 m), so the engine only ever sees attacks it can resolve.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Final

from bot.rules.sheets.star_frontiers import (
    AMBIDEXTROUS,
    BATTLE_RAGE,
    HEAVY_UNTRAINED,
    MAX_SKILL_LEVEL,
    SKILL_STEP,
    Race,
    SfSheet,
)
from bot.rules.star_frontiers.defenses import NO_DEFENDER, DamageKind, Defender, Setting
from bot.rules.star_frontiers.tables import (
    AttackError,
    Band,
    Dice,
    RangeBand,
    Stun,
    Weapon,
    character_weapon,
    parse_dice,
    range_band,
)

RANGE_MODIFIER: Final = {Band.POINT_BLANK: 0, Band.SHORT: -10, Band.MEDIUM: -20, Band.LONG: -40, Band.EXTREME: -80}
AIM_BONUS: Final = 15
BURST_BONUS: Final = 20
BURST_DICE: Final = Dice(5, 10)  # and 1d10 more for each target after the first (§6)
MAX_BURST_TARGETS: Final = 5
WOUNDED_PENALTY: Final = -10
PRONE_PENALTY: Final = -5
WRONG_HAND_PENALTY: Final = -10
TWO_WEAPONS_PENALTY: Final = -10
HELPLESS_BONUS: Final = 20
BATTLE_RAGE_BONUS: Final = 20
TARGET_ENCUMBERED_BONUS: Final = 10
ATTACKER_ENCUMBERED_PENALTY: Final = -10
DEFENDING_PENALTY: Final = -15
MELEE_REACH_M: Final = 2
MAX_SCORE: Final = 100
MAX_MODIFIER: Final = 100
QUICK_WEAPON: Final = "quick-mode weapon"


class TargetMovement(StrEnum):
    """§4 step 4, the target's row; a running animal or a moving vehicle replaces it."""

    STATIONARY = "stationary"
    WALKING = "walking"
    RUNNING = "running"
    DODGING = "dodging"
    ANIMAL_MEDIUM = "animal_medium"
    ANIMAL_FAST = "animal_fast"
    ANIMAL_VERY_FAST = "animal_very_fast"
    VEHICLE = "vehicle"


TARGET_MOVEMENT: Final = {
    TargetMovement.STATIONARY: (10, "target stationary"),
    TargetMovement.WALKING: (0, "target walking"),
    TargetMovement.RUNNING: (-10, "target running"),
    TargetMovement.DODGING: (-20, "target dodging"),
    TargetMovement.ANIMAL_MEDIUM: (-10, "running animal, medium speed"),
    TargetMovement.ANIMAL_FAST: (-20, "running animal, fast"),
    TargetMovement.ANIMAL_VERY_FAST: (-30, "running animal, very fast"),
    TargetMovement.VEHICLE: (-10, "target is a moving vehicle"),
}


class AttackerMovement(StrEnum):
    """§4 step 4, the attacker's row ("stationary +10" is the target's only)."""

    STANDING = "standing"
    WALKING = "walking"
    RUNNING = "running"
    DODGING = "dodging"
    VEHICLE = "vehicle"
    FAST_VEHICLE = "fast_vehicle"


ATTACKER_MOVEMENT: Final = {
    AttackerMovement.STANDING: (0, "attacker standing still"),
    AttackerMovement.WALKING: (0, "attacker walking"),
    AttackerMovement.RUNNING: (-10, "attacker running"),
    AttackerMovement.DODGING: (-20, "attacker dodging"),
    AttackerMovement.VEHICLE: (-10, "attacker in a moving vehicle, 150 m/turn or less"),
    AttackerMovement.FAST_VEHICLE: (-20, "attacker in a vehicle faster than 150 m/turn"),
}


class Cover(StrEnum):
    """§4 step 7."""

    NONE = "none"
    SOFT = "soft"
    HARD = "hard"


COVER: Final = {Cover.NONE: (0, "no cover"), Cover.SOFT: (-10, "soft cover"), Cover.HARD: (-20, "hard cover")}


class Size(StrEnum):
    """§4 step 8."""

    TINY = "tiny"
    SMALL = "small"
    MEDIUM = "medium"
    LARGE = "large"
    GIANT = "giant"


SIZE: Final = {Size.TINY: -10, Size.SMALL: -5, Size.MEDIUM: 0, Size.LARGE: 5, Size.GIANT: 10}


@dataclass(frozen=True, slots=True)
class Variants:
    """The two per-server choices the reference leaves open (§3, §10 items 3 and 7)."""

    automatic_miss: bool = True  # Expanded rules: 96-00 always misses; False is the Basic game
    sight_to_point_blank: bool = True  # the sight moves short to point blank too; False stops at medium -> short


DEFAULT_VARIANTS: Final = Variants()


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a hit procedure: its number in §4 or §5, what it is, what it adds, and why."""

    number: int
    name: str
    value: int
    reason: str
    default: bool = False  # the number rests on one of the reference's proposed defaults


@dataclass(frozen=True, slots=True)
class Attacker:
    """What the procedures read from the attacker: steps 1-2 worked out, and their condition."""

    name: str
    base: Step
    skill: Step
    wounded: bool
    wounded_reason: str
    encumbered: bool = False
    encumbered_reason: str = "not encumbered"
    race: Race | None = None  # None: not given (quick mode)
    punching_damage: int = 0
    punching_reason: str = ""
    martial_arts: int = 0  # the martial arts level of a bare-handed attack (widens the knock-out range)

    @property
    def ambidextrous(self) -> bool:
        """No wrong-hand penalty (Vrusk, §10 item 9)."""
        return self.race in AMBIDEXTROUS

    @property
    def can_rage(self) -> bool:
        """Only Yazirians fight in battle rage (§5 step 5)."""
        return self.race in BATTLE_RAGE


@dataclass(frozen=True, slots=True)
class RangedSituation:
    """Everything about a shot that only the moment knows (§4 steps 3-12)."""

    target: TargetMovement = TargetMovement.WALKING
    attacker: AttackerMovement = AttackerMovement.STANDING
    aim: bool = False
    burst: bool = False
    targets: int = 1  # a burst may cover up to 5 adjacent targets (§6)
    cover: Cover = Cover.NONE
    size: Size = Size.MEDIUM
    prone: bool = False
    wrong_hand: bool = False
    two_weapons: bool = False
    sight: bool = False  # a telescopic sight
    seu: int | None = None  # a laser's dial, set before the roll (§6)
    modifier: int = 0  # anything else the referee rules, added after the procedure
    setting: Setting = Setting.DAMAGE  # the stun setting of a weapon that has one (§11 item 5)
    # §12: why the target is prone by its conditions in the fight ("Sathar is prone"); logged when set.
    prone_condition: str = field(default="", metadata={"log": "when set"})

    def __post_init__(self) -> None:
        if self.aim and self.attacker is not AttackerMovement.STANDING:
            raise AttackError(
                f"Careful aim needs the attacker standing still (§4 step 5), not {ATTACKER_MOVEMENT[self.attacker][1]}."
            )
        if not 1 <= self.targets <= MAX_BURST_TARGETS:
            raise AttackError(f"A burst covers 1 to {MAX_BURST_TARGETS} adjacent targets, not {self.targets}.")
        if self.targets > 1 and not self.burst:
            raise AttackError("Only a burst covers several targets (§6); a single shot has one.")


@dataclass(frozen=True, slots=True)
class MeleeSituation:
    """Everything about a melee attack that only the moment knows (§5 steps 4-6 and 9)."""

    unaware: bool = False  # attacked from behind or unaware
    stunned: bool = False
    battle_rage: bool = False
    target_encumbered: bool = False
    defending: bool = False  # the target defends instead of attacking this turn
    distance: float | None = None  # metres, when known; melee needs 2 m or less
    modifier: int = 0  # anything else the referee rules, added after the procedure
    setting: Setting = Setting.DAMAGE  # the stun setting of a weapon that has one (§11 item 5)
    # §12: why the defender is helpless by its conditions in the fight ("Sathar is stunned"); logged when set.
    helpless_condition: str = field(default="", metadata={"log": "when set"})

    def __post_init__(self) -> None:
        if self.distance is not None and not (math.isfinite(self.distance) and 0 <= self.distance <= MELEE_REACH_M):
            raise AttackError(
                f"Melee needs the fighters within {MELEE_REACH_M} m of each other (§5), not {self.distance:g} m."
            )


def _damage_check(weapon: Weapon) -> None:
    if weapon.damage is None and not weapon.band_damage:
        raise AttackError(f"The **{weapon.name}** has no damage to roll.")


def _stun_check(weapon: Weapon, setting: Setting, defender: Defender) -> None:
    """§11 item 5: only a weapon with a stun setting stuns, and the avoidance roll needs the target's Stamina."""
    if setting is not Setting.STUN:
        return
    if weapon.stun is None:
        raise AttackError(
            f"The **{weapon.name}** has no stun setting; the electrostunner, stunstick and needler (anesthetic "
            "needles) have (§11 item 5).",
            title="No stun setting",
        )
    if defender.stamina is None:
        raise AttackError(
            "A stun is avoided on a d100 at or under the target's current Stamina (§11 item 5): name the target "
            "character, or give its current Stamina.",
            title="Whose Stamina?",
        )


@dataclass(frozen=True, slots=True)
class RangedAttack:
    """A shot, ready to roll: refused on construction if the weapon cannot fire it that way."""

    attacker: Attacker
    weapon: Weapon
    band: RangeBand
    situation: RangedSituation
    defender: Defender = NO_DEFENDER  # the target's suits and screens, and its Stamina for a stun (§11)

    def __post_init__(self) -> None:
        weapon, situation = self.weapon, self.situation
        if weapon.melee:
            raise AttackError(f"The **{weapon.name}** is a melee weapon: make a melee attack with it.")
        _damage_check(weapon)
        _stun_check(weapon, situation.setting, self.defender)
        if situation.setting is Setting.STUN and situation.burst:
            raise AttackError("A burst fires bullets, not a stun setting (§6, §11 item 5).")
        if situation.burst and not weapon.burst:
            raise AttackError(f"The **{weapon.name}** cannot fire a burst; automatic weapons can (§6).")
        if weapon.per_seu:
            low, high = weapon.seu or (1, 1)
            if situation.seu is None or not low <= situation.seu <= high:
                raise AttackError(
                    f"Set the **{weapon.name}**'s dial before the roll (§6): `setting` from {low} to {high} SEU."
                )
        elif situation.seu is not None:
            raise AttackError(f"Only lasers have an SEU dial; the **{weapon.name}** does {weapon.damage_text}.")
        if weapon.band_damage and self.band.band not in dict(weapon.band_damage):
            raise AttackError(f"The **{weapon.name}** has no damage at {self.band.band.label} range.")


@dataclass(frozen=True, slots=True)
class MeleeAttack:
    """A melee attack, ready to roll: refused on construction if the rules do not allow it."""

    attacker: Attacker
    weapon: Weapon
    situation: MeleeSituation
    defender: Defender = NO_DEFENDER  # the target's suits and screens, and its Stamina for a stun (§11)

    def __post_init__(self) -> None:
        if not self.weapon.melee:
            raise AttackError(f"The **{self.weapon.name}** is not a melee weapon: shoot with it instead.")
        _damage_check(self.weapon)
        _stun_check(self.weapon, self.situation.setting, self.defender)
        if self.situation.battle_rage and not self.attacker.can_rage:
            race = self.attacker.race
            who = f"{self.attacker.name or 'the attacker'} is a {race.title()}" if race else "give the race as yazirian"
            raise AttackError(f"Only Yazirians fight in battle rage (§5 step 5); {who}.", title="No battle rage")


Attack = RangedAttack | MeleeAttack


# ---------------------------------------------------------------------------------------------- the attacker


def skill_reason(skill: str, level: int, *, heavy: bool) -> str:
    """§2 in words: what the skill level adds, and why."""
    if heavy:
        if not level:
            return f"untrained with a heavy weapon: {HEAVY_UNTRAINED}"
        return f"heavy weapon: {skill} level {level} counts as {level - 1}, x {SKILL_STEP}"
    return f"{skill} level {level} x {SKILL_STEP}" if level else f"no {skill} skill"


def _sheet_attacker(sheet: SfSheet, weapon: Weapon, name: str) -> Attacker:
    if sheet.dead:
        raise AttackError(f"{name or 'The attacker'} is dead: Stamina {sheet.current_stamina} (§6).")
    skill = weapon.skill
    if skill is None:  # character_weapon refuses these; kept for the type checker
        raise AttackError(f"The **{weapon.name}** needs a skill.")
    strength, dexterity = sheet.strength, sheet.dexterity
    if weapon.melee:
        stronger = f"STR {strength}" if strength >= dexterity else f"DEX {dexterity}"
        reason = f"MW = ½ {stronger}, rounded up: the greater of STR {strength} and DEX {dexterity}"
        base = Step(1, "Base", sheet.melee_weapon_score, reason)
    else:
        base = Step(1, "Base", sheet.ranged_weapon_score, f"RW = ½ DEX {dexterity}, rounded up")
    heavy = weapon.heavy and not weapon.melee
    level = sheet.level(skill)
    label = skill.replace("_", " ")
    stamina = f"Stamina {sheet.current_stamina} of {sheet.max_stamina}"
    load = f"carrying {sheet.carried_kg} kg of {sheet.capacity_kg} kg"
    return Attacker(
        name=name,
        base=base,
        skill=Step(2, "Skill", sheet.skill_bonus(skill, heavy=heavy), skill_reason(label, level, heavy=heavy)),
        wounded=sheet.wounded,
        wounded_reason=f"{stamina}, " + ("half or less" if sheet.wounded else "more than half"),
        encumbered=sheet.encumbered,
        encumbered_reason=f"{load}, " + ("more than half" if sheet.encumbered else "half or less"),
        race=sheet.race,
        punching_damage=sheet.punching_damage,
        punching_reason=f"punching damage {sheet.punching_damage} (STR {strength})",
        martial_arts=level if skill == "martial_arts" else 0,
    )


def _quick_attacker(
    score: int, level: int, *, melee: bool, heavy: bool, wounded: bool, encumbered: bool, race: Race | None, name: str
) -> Attacker:
    if not 0 <= score <= MAX_SCORE:
        raise AttackError(f"A score is 0 to {MAX_SCORE}, not {score}.")
    if not 0 <= level <= MAX_SKILL_LEVEL:
        raise AttackError(f"A skill level is 0 (untrained) to {MAX_SKILL_LEVEL}, not {level}.")
    # The sheet's skill_bonus rule (§2), for a level given without a stat block.
    bonus = SKILL_STEP * level
    if heavy:
        bonus = SKILL_STEP * (level - 1) if level else HEAVY_UNTRAINED
    return Attacker(
        name=name,
        base=Step(1, "Base", score, "MW given" if melee else "RW given"),
        # Quick mode names no skill: "skill level 2", and for level 0 plainly "untrained", never "no skill skill".
        skill=Step(2, "Skill", bonus, skill_reason("skill", level, heavy=heavy) if level or heavy else "untrained"),
        wounded=wounded,
        wounded_reason="given as wounded" if wounded else "not wounded",
        encumbered=encumbered,
        encumbered_reason="given as encumbered" if encumbered else "not encumbered",
        race=race,
    )


# -------------------------------------------------------------------------------------------------- builders


def ranged_attack(
    sheet: SfSheet,
    weapon: str,
    distance: float,
    situation: RangedSituation | None = None,
    *,
    name: str = "",
    defender: Defender = NO_DEFENDER,
) -> RangedAttack:
    """§4 from a character: RW, skill, wounds and race from the sheet, the band from the weapon's bands.

    `defender` is the target's suits, screens and Stamina (`defenses.defender` from its sheet, §11).
    """
    armed = character_weapon(sheet, weapon)
    if armed.melee:
        raise AttackError(f"The **{armed.name}** is a melee weapon: make a melee attack with it.")
    band = range_band(armed, distance)
    return RangedAttack(_sheet_attacker(sheet, armed, name), armed, band, situation or RangedSituation(), defender)


def melee_attack(
    sheet: SfSheet,
    weapon: str = "Bare hands",
    situation: MeleeSituation | None = None,
    *,
    name: str = "",
    defender: Defender = NO_DEFENDER,
) -> MeleeAttack:
    """§5 from a character: MW, skill, wounds, load and race from the sheet; `defender` as for a shot (§11)."""
    armed = character_weapon(sheet, weapon)
    if not armed.melee:
        raise AttackError(f"The **{armed.name}** is not a melee weapon: shoot with it instead.")
    return MeleeAttack(_sheet_attacker(sheet, armed, name), armed, situation or MeleeSituation(), defender)


def _dice(damage: str | Dice) -> Dice:
    return parse_dice(damage) if isinstance(damage, str) else damage


def _quick_stun(damage: Dice, setting: Setting) -> Stun | None:
    """A quick-mode weapon's stun setting, taken on trust: the damage given is what the stun still does."""
    if setting is not Setting.STUN:
        return None
    return Stun("stun", damage if damage.count or damage.bonus else None)


def quick_ranged(
    score: int,
    skill: int,
    damage: str | Dice,
    band: Band,
    situation: RangedSituation | None = None,
    *,
    heavy: bool = False,
    wounded: bool = False,
    race: Race | None = None,
    name: str = "",
    kind: DamageKind | None = None,
    defender: Defender = NO_DEFENDER,
) -> RangedAttack:
    """§4 from bare numbers: RW, skill level, damage dice and the range band; a burst is taken on trust.

    `kind` says what the hit is to a suit or screen (§11 item 1); on `setting=stun` the damage given (0 for
    none) is what the stun still does.
    """
    situation = situation or RangedSituation()
    dice = _dice(damage)
    weapon = Weapon(
        QUICK_WEAPON,
        damage=dice,
        heavy=heavy,
        burst=True,
        kind=kind,
        stun=_quick_stun(dice, situation.setting),
        source="quick mode",
    )
    attacker = _quick_attacker(
        score, skill, melee=False, heavy=heavy, wounded=wounded, encumbered=False, race=race, name=name
    )
    return RangedAttack(attacker, weapon, RangeBand(band, None), situation, defender)


def quick_melee(
    score: int,
    skill: int,
    damage: str | Dice,
    situation: MeleeSituation | None = None,
    *,
    weapon_modifier: int = 0,
    blunt: bool = False,
    martial_arts: bool = False,
    wounded: bool = False,
    encumbered: bool = False,
    race: Race | None = None,
    name: str = "",
    kind: DamageKind | None = None,
    defender: Defender = NO_DEFENDER,
) -> MeleeAttack:
    """§5 from bare numbers: MW, skill level, weapon modifier, damage, blunt; `martial_arts`: bare-handed.

    `martial_arts` makes the attack bare-handed with the skill level as the martial arts level: blunt, and
    knocking out on 01 to 05 + level (§3). `kind` and a stun setting as for `quick_ranged`.
    """
    if not -MAX_MODIFIER <= weapon_modifier <= MAX_MODIFIER:
        raise AttackError(f"A weapon modifier is {-MAX_MODIFIER} to {MAX_MODIFIER}, not {weapon_modifier}.")
    situation = situation or MeleeSituation()
    dice = _dice(damage)
    weapon = Weapon(
        QUICK_WEAPON,
        skill="martial_arts" if martial_arts else "melee",
        damage=dice,
        modifier=weapon_modifier,
        blunt=blunt or martial_arts,
        kind=kind,
        stun=_quick_stun(dice, situation.setting),
        source="quick mode",
    )
    attacker = _quick_attacker(
        score, skill, melee=True, heavy=False, wounded=wounded, encumbered=encumbered, race=race, name=name
    )
    if martial_arts:
        reason = skill_reason("martial arts", skill, heavy=False)
        attacker = replace(attacker, skill=replace(attacker.skill, reason=reason), martial_arts=skill)
    return MeleeAttack(attacker, weapon, situation, defender)
