"""D&D 3.5 / NWN attacks: attack bonus, the d20, threat and confirmation, damage and DR (dnd35.md §2-§7, §11).

The steps of one attack (§11), each recorded in the result:

1. The attack bonus, term by term in the reference's order (§2-§4): BAB, the iterative or off-hand step, Str or
   Dex (Dex with Weapon Finesse when higher, §13 item 9), size, enhancement or masterwork, Weapon Focus, -4 not
   proficient, the armor and shield check penalties when not proficient (§13 item 11), the tower shield (§10),
   the shield's check penalty with Weapon Finesse (SRD; not under NWN), -4 into melee without Precise Shot,
   range (-2 per full increment, §13 item 14), flanking, the two-weapon penalty, the situational modifier.
   The AC that applies: normal, touch, flat-footed, or both, with Uncanny Dodge (§5, §13 item 6).
2. d20: a natural 1 misses, a natural 20 hits, otherwise a hit iff d20 + AB >= AC (§6, §13 item 1).
3. Threat: a hit whose d20 is in the threat range, doubled once by keen or Improved Critical (§6, §13 item 5).
   Confirmation: d20 + the same AB against the same AC; a natural 20 / 1 decides it under the SRD (default),
   not under NWN (§13 item 4). Against a target immune to criticals no confirmation is rolled.
4. Weapon rolls: 1 without multipliers; with the always-on multipliers plus, on a critical, the weapon's:
   Σm rolls (the seed, default) or 1 + Σ(m - 1) (the SRD variant) (§7, §11 step 4, §13 items 2-3).
5. Physical part: the weapon rolls (dice + Str share + enhancement + flat bonuses, each) + precision dice
   once, never multiplied (§7, §13 item 12).
6. At least 1 on the physical part as a whole; minus DR unless the attack bypasses it; at least 0; then the
   energy riders, which DR never reduces (§7, §13 item 7).

Order of the calls to the dice source, which scripted tests rely on: the attack d20; the d100 of a concealed
target's miss chance (for a d20 that hits only, §6 item 7); the confirmation d20 (for a threat only); then, on a hit,
each weapon roll's dice in turn, the precision dice, the energy dice.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction
from typing import Any, Final, Literal

from bot.rules.dice import MAX_DICE, DiceSource
from bot.rules.dnd35.conditions import NOBODY, Bearer
from bot.rules.dnd35.tables import (
    MAX_MULTIPLIER,
    AttackError,
    Critical,
    DamageReduction,
    Dice,
    EnergyRider,
    NotationError,
    Weapon,
    WeaponDamage,
    dr_from_text,
    effective_weapon,
    parse_crit,
    parse_damage,
    parse_dr,
    parse_energy,
    parse_properties,
    second_end_damage,
    table_weapon,
    threat_text,
)
from bot.rules.sheets.base import name_key
from bot.rules.sheets.dnd35 import (
    FINESSE_MIN_BAB,
    ITERATIVE_STEP,
    MAX_ITERATIVE_ATTACKS,
    DndSheet,
    DndWeapon,
    explained,
)

NWN_MONK_STEP: Final = 3  # §3 NWN: a monk unarmed (or with a kama) steps down by 3
NOT_PROFICIENT: Final = -4
INTO_MELEE: Final = -4
FLANKING: Final = 2
RANGE_STEP: Final = -2
MAX_INCREMENTS_THROWN, MAX_INCREMENTS_PROJECTILE = 5, 10
SNEAK_ATTACK_RANGE: Final = 30
MAX_OFF_HAND_ATTACKS: Final = 3  # §4: one, and Improved / Greater Two-Weapon Fighting add a 2nd and a 3rd
MAX_QUICK_ATTACKS: Final = 8  # a stat block's full attack: four iterative attacks and as many more
MAX_MULTIPLIERS: Final = 4
MAX_NUMBER: Final = 1000  # bound on an attack bonus, an AC, a modifier or a damage bonus typed in
# The SRD's combat modifiers a table names in `situation` (§2, §5, §6 item 7).
CHARGE: Final = 2
HIGHER_GROUND: Final = 1
PRONE_MELEE, PRONE_RANGED = -4, 4  # the defender's AC
HELPLESS_MELEE: Final = -4  # the defender's AC; its Dex counts as 0 (-5)
HELPLESS_DEX: Final = -5


class Cover(StrEnum):
    """§5: cover between the attacker and the defender, and what it adds to the defender's AC."""

    NONE = "none"
    COVER = "cover"
    IMPROVED = "improved cover"
    SOFT = "soft cover"  # creatures in the way: against ranged attacks only

    @property
    def ac(self) -> int:
        """+4 for cover, +8 for improved cover (an arrow slit), +4 for soft cover (against ranged attacks only)."""
        return {Cover.NONE: 0, Cover.COVER: 4, Cover.IMPROVED: 8, Cover.SOFT: 4}[self]


class Concealment(StrEnum):
    """§6 item 7: concealment, and the chance in 100 that a hit on the concealed defender misses all the same."""

    NONE = "none"
    CONCEALMENT = "concealment"
    TOTAL = "total concealment"

    @property
    def miss_chance(self) -> int:
        """20% for concealment (fog, dim light), 50% for total concealment (darkness, invisibility)."""
        return {Concealment.NONE: 0, Concealment.CONCEALMENT: 20, Concealment.TOTAL: 50}[self]


class MultiplierRule(StrEnum):
    """How several damage multipliers on one hit combine (§7, §13 item 2; a per-server setting)."""

    SEED = "seed"  # total rolls = Σm: x2 and x3 give 5 rolls (the seed's worked example; the default)
    SRD = "srd"  # total rolls = 1 + Σ(m - 1): x2 and x3 give 4 rolls


class ConfirmationRule(StrEnum):
    """Whether a natural 20 / 1 decides the confirmation roll (§6, §13 item 4; a per-server setting)."""

    SRD = "srd"  # it is an attack roll: a natural 20 confirms, a natural 1 fails (the default)
    NWN = "nwn"  # the NWN engine: d20 + AB >= AC only


class FinesseShieldRule(StrEnum):
    """Whether a shield's check penalty applies to finessed attacks (§2, §13 item 9; a per-server setting)."""

    SRD = "srd"  # it applies (the default)
    NWN = "nwn"  # it does not


class MonkStepRule(StrEnum):
    """The iterative step of a monk fighting unarmed or with a kama (§3, §13 item 10; a per-server setting)."""

    SRD = "srd"  # -5 like everyone (the default)
    NWN = "nwn"  # -3 (Neverwinter Nights)


@dataclass(frozen=True, slots=True)
class Variants:
    """The variant readings a server may choose; the defaults are the reference's."""

    multipliers: MultiplierRule = MultiplierRule.SEED
    confirmation: ConfirmationRule = ConfirmationRule.SRD
    finesse_shield: FinesseShieldRule = FinesseShieldRule.SRD  # used when an attack is built, not resolved
    monk_step: MonkStepRule = MonkStepRule.SRD  # used when an attack is built, not resolved


DEFAULT_VARIANTS: Final = Variants()


class TwoWeapon(StrEnum):
    """The rows of the two-weapon fighting table (§4)."""

    NORMAL = "normal"
    LIGHT_OFF_HAND = "light off-hand weapon"
    FEAT = "Two-Weapon Fighting"
    LIGHT_AND_FEAT = "light off-hand weapon and Two-Weapon Fighting"


# §4: (primary hand, off hand).
TWO_WEAPON_PENALTIES: Final[dict[TwoWeapon, tuple[int, int]]] = {
    TwoWeapon.NORMAL: (-6, -10),
    TwoWeapon.LIGHT_OFF_HAND: (-4, -8),
    TwoWeapon.FEAT: (-4, -4),
    TwoWeapon.LIGHT_AND_FEAT: (-2, -2),
}


def two_weapon_situation(*, light_off_hand: bool, feat: bool) -> TwoWeapon:
    """§4: the row for a light (or double-weapon) off hand and the Two-Weapon Fighting feat."""
    if feat:
        return TwoWeapon.LIGHT_AND_FEAT if light_off_hand else TwoWeapon.FEAT
    return TwoWeapon.LIGHT_OFF_HAND if light_off_hand else TwoWeapon.NORMAL


# The attack terms a character's stat block brings without the player asking (§2 proficiency, armor check
# penalties without armor proficiency and with Weapon Finesse and a shield, §10 the tower shield): the short answer
# names them. Read from the names, so that logged attacks keep their form.
UNASKED_TERMS: Final = frozenset(
    {
        "not proficient",
        "armor check (not proficient)",
        "shield check (not proficient)",
        "tower shield",
        "shield check",
    }
)


@dataclass(frozen=True, slots=True)
class Term:
    """One addend of the attack bonus or of each weapon damage roll: what it is, its value, where it is from."""

    name: str
    value: int
    source: str


@dataclass(frozen=True, slots=True)
class Multiplier:
    """A damage multiplier on a hit (§7): x2 for a lance's mounted charge, the weapon's on a critical."""

    value: int
    source: str


@dataclass(frozen=True, slots=True)
class Rider:
    """Dice added once to a hit: precision (sneak attack; DR applies) or energy (fire, ...; DR never applies)."""

    label: str
    dice: Dice


@dataclass(frozen=True, slots=True)
class Target:
    """The defender as one attack sees it: the AC that applies, its DR, and what it is immune to (§5-§7)."""

    ac: int
    kind: str  # "AC", "touch AC", "flat-footed AC", "flat-footed touch AC"
    explanation: str  # how the AC was computed, or "given"
    dr: DamageReduction | None = None
    immune_to_criticals: bool = False
    denied_dex: bool = False  # loses its Dex bonus to AC (flat-footed without Uncanny Dodge): sneak attack works
    notes: tuple[str, ...] = ()
    # §5: what this attack's situation added to the AC (cover, ...); logged when set (`replay.WHEN_SET`).
    adjustments: tuple[Term, ...] = field(default=(), metadata={"log": "when set"})

    @property
    def base_ac(self) -> int:
        """The AC before the situation's adjustments: the one given, or the sheet's."""
        return self.ac - sum(t.value for t in self.adjustments)


def target_ac(
    ac: int,
    *,
    dr: str | DamageReduction | None = None,
    immune_to_criticals: bool = False,
    denied_dex: bool = False,
    kind: str = "AC",
) -> Target:
    """A defender known only by the AC that applies (already touch or flat-footed if the attack is)."""
    _bounded("target AC", ac)
    return Target(ac, kind, "given", _dr(dr), immune_to_criticals, denied_dex)


def target_sheet(
    sheet: DndSheet,
    *,
    touch: bool = False,
    flat_footed: bool = False,
    dr: str | DamageReduction | None = None,
    immune_to_criticals: bool = False,
    helpless: bool = False,
) -> Target:
    """§5: a defender's stat block: normal, touch, flat-footed or flat-footed touch AC, Uncanny Dodge honoured.

    Args:
        sheet: The defender.
        touch: A touch attack: no armor, shield or natural armor.
        flat_footed: The defender is flat-footed: no Dex bonus, no dodge bonuses, unless it has Uncanny Dodge.
        dr: Overrides the defender's own damage reduction.
        immune_to_criticals: Constructs, oozes, plants, undead, elementals, ...; the sheet's own field counts too.
        helpless: §5: the defender is helpless: its Dex counts as 0 (-5) and it has no dodge bonus, Uncanny
            Dodge or not (the -4 against melee is the attack's situation).
    """
    if helpless:
        parts = [
            (value, label)
            for value, label in sheet._ac_parts(touch=touch, flat_footed=False)
            if label != "dodge" and not label.startswith("Dex")
        ]
        parts.append((HELPLESS_DEX, "Dex 0 (helpless)"))
        return Target(
            ac=10 + sum(value for value, _ in parts),
            kind="helpless touch AC" if touch else "helpless AC",
            explanation=explained(10, parts),
            dr=_dr(dr) if dr is not None else dr_from_text(sheet.damage_reduction),
            immune_to_criticals=immune_to_criticals or sheet.immune_to_criticals,
            denied_dex=True,
        )
    kind = " ".join(w for w, on in (("flat-footed", flat_footed), ("touch", touch), ("AC", True)) if on)
    notes: tuple[str, ...] = ()
    if flat_footed and sheet.uncanny_dodge:
        notes = ("Uncanny Dodge: keeps its Dex bonus (and dodge bonuses) while flat-footed.",)
    return Target(
        ac=sheet.ac(touch=touch, flat_footed=flat_footed),
        kind=kind,
        explanation=sheet.ac_explained(touch=touch, flat_footed=flat_footed),
        dr=_dr(dr) if dr is not None else dr_from_text(sheet.damage_reduction),
        immune_to_criticals=immune_to_criticals or sheet.immune_to_criticals,
        denied_dex=flat_footed and not sheet.uncanny_dodge,
        notes=notes,
    )


def _dr(dr: str | DamageReduction | None) -> DamageReduction | None:
    return parse_dr(dr) if isinstance(dr, str) else dr


def _bounded(what: str, value: int) -> None:
    if not -MAX_NUMBER <= value <= MAX_NUMBER:
        raise AttackError(f"The {what} must be between -{MAX_NUMBER} and {MAX_NUMBER}, not {value}.")


@dataclass(frozen=True, slots=True)
class Situation:
    """What only the table knows about one attack; every field defaults to "nothing special"."""

    modifier: int = 0  # situational attack modifier
    damage_bonus: int = 0  # flat damage added to each weapon roll (multiplied on a critical)
    multipliers: tuple[int, ...] = ()  # always-on damage multipliers on this hit (x2 charge, ...)
    precision: tuple[Dice, ...] = ()  # precision dice given as dice ("3d6"): once per hit, never multiplied
    sneak_attack: bool = False  # the character's own ⌈rogue level / 2⌉d6
    flanking: bool = False  # +2 on melee attacks; allows sneak attack
    distance: float | None = None  # feet to the target, for a ranged attack
    into_melee: bool = False  # shooting or throwing into a melee
    throw: bool = False  # throw a melee weapon that can be thrown (dagger, spear, ...)
    two_hands: bool = False  # a one-handed weapon held in two hands: 1½x Str (§7)
    mounted_charge: bool = False  # the lance's x2 (§7)
    monk_unarmed: bool = False  # a monk unarmed or with a kama: -3 steps where the server plays NWN (§3)
    # The SRD's combat modifiers (§2, §5, §6 item 7).
    charge: bool = False  # +2 on a melee attack at the end of a charge (and -2 to the charger's AC)
    higher_ground: bool = False  # +1 on a melee attack from higher ground
    ranged: bool = False  # quick mode: a ranged attack; a character: its weapon at range (thrown)
    cover: Cover = Cover.NONE
    concealment: Concealment = Concealment.NONE
    prone: bool = False  # the defender lies prone: -4 AC against melee, +4 against ranged
    helpless: bool = False  # the defender is helpless: -4 AC against melee, Dex 0, denied its Dex bonus
    # The conditions of a combatant attacked, and of a combatant attacking (§14, `conditions`).
    defender: Bearer = NOBODY
    attacker: Bearer = NOBODY


NO_SITUATION: Final = Situation()


@dataclass(frozen=True, slots=True)
class Attack:
    """One attack, fully described before any die is rolled."""

    label: str
    attack_terms: tuple[Term, ...]
    damage: Dice  # the dice of one weapon roll (count 0 for a flat weapon damage)
    damage_terms: tuple[Term, ...]  # flat terms of one weapon roll
    threat: int  # lowest d20 face that threatens
    threat_source: str
    critical_multiplier: int
    multipliers: tuple[Multiplier, ...]  # always-on, on every hit
    precision: tuple[Rider, ...]
    energy: tuple[Rider, ...]
    target: Target
    properties: frozenset[str]  # what the attack brings against DR
    ranged: bool
    notes: tuple[str, ...] = ()
    # §6 item 7: percent of hits that concealment turns into misses (a d100 after the hit); logged when set.
    miss_chance: int = field(default=0, metadata={"log": "when set"})
    # §14: the condition the miss chance comes from (an invisible defender, a blinded attacker), when it is one's.
    miss_source: str = field(default="", metadata={"log": "when set"})

    @property
    def attack_bonus(self) -> int:
        """The sum of the attack terms."""
        return sum(t.value for t in self.attack_terms)

    @property
    def unasked_penalties(self) -> tuple[Term, ...]:
        """The penalties the stat block brought that the player did not ask for (§2 proficiency, §10 armor)."""
        return tuple(t for t in self.attack_terms if t.name in UNASKED_TERMS and t.value < 0)

    @property
    def damage_bonus(self) -> int:
        """The flat part of each weapon roll."""
        return sum(t.value for t in self.damage_terms)

    @property
    def critical(self) -> Critical:
        """The threat range and multiplier."""
        return Critical(self.threat, self.critical_multiplier)


def roll_count(multipliers: Iterable[int], rule: MultiplierRule) -> int:
    """§7, §11 step 4: how many weapon rolls the multipliers on a hit give; 1 with none, under both rules."""
    values = list(multipliers)
    if not values:
        return 1
    return sum(values) if rule is MultiplierRule.SEED else 1 + sum(m - 1 for m in values)


def _check_common(attack_bonus_terms: Sequence[Term], situation: Situation) -> None:
    _bounded("situational modifier", situation.modifier)
    _bounded("damage bonus", situation.damage_bonus)
    if len(situation.multipliers) > MAX_MULTIPLIERS:
        raise AttackError(f"At most {MAX_MULTIPLIERS} damage multipliers on one hit.")
    for m in situation.multipliers:
        if not 2 <= m <= MAX_MULTIPLIER:
            raise AttackError(f"A damage multiplier is x2 to x{MAX_MULTIPLIER}, not x{m}.")
    _bounded("attack bonus", sum(t.value for t in attack_bonus_terms))


def _check_dice_budget(attack: Attack) -> Attack:
    """Refuse an attack whose critical could roll more than `MAX_DICE` dice (the most rolls: the seed's Σm)."""
    rolls = roll_count([*(m.value for m in attack.multipliers), attack.critical_multiplier], MultiplierRule.SEED)
    total = rolls * attack.damage.count + sum(r.dice.count for r in (*attack.precision, *attack.energy))
    if total > MAX_DICE:
        raise AttackError(f"A critical with this attack would roll {total} dice; the limit is {MAX_DICE}.")
    return attack


def _precision(riders: Sequence[Rider], target: Target, notes: list[str], concealed: str = "") -> tuple[Rider, ...]:
    """§6, §7: precision dice (sneak attack) do nothing against a target immune to critical hits or concealed."""
    if riders and target.immune_to_criticals:
        notes.append("The target is immune to critical hits, so precision damage (sneak attack) does nothing.")
        return ()
    if riders and concealed:
        notes.append(f"{concealed}, so precision damage (sneak attack) does nothing (§6 item 7).")
        return ()
    return tuple(riders)


@dataclass(frozen=True, slots=True)
class _Circumstances:
    """What the situation's SRD modifiers and the fighters' conditions do to one attack (§2, §5, §6, §14)."""

    terms: list[Term]  # added to the attack bonus
    target: Target  # the defender, its AC adjusted
    miss_chance: int
    miss_source: str  # the condition the miss chance comes from, if a condition's is the one that holds
    concealed: str  # why precision damage does nothing, if a miss chance holds ("" when none)
    damage_terms: list[Term]  # added to each weapon damage roll


def _circumstances(situation: Situation, target: Target, *, ranged: bool, notes: list[str]) -> _Circumstances:
    """§2, §5, §6, §14: the attack terms, the AC changes and the miss chance of the situation and the conditions.

    A condition the situation's words say too (`prone` given and the combatant prone) counts once, as the word.
    """
    terms: list[Term] = []
    for on, name, value in (
        (situation.charge, "charge", CHARGE),
        (situation.higher_ground, "higher ground", HIGHER_GROUND),
    ):
        if on and ranged:
            raise AttackError(f"The {name} bonus is for melee attacks (§2).")
        if on:
            terms.append(Term(name, value, "§2"))
    if situation.charge:
        notes.append("Charging: the charger has -2 AC until its next turn (§2).")
    adjustments: list[Term] = []
    against = "ranged" if ranged else "melee"
    if situation.cover is Cover.SOFT:
        adjustments.append(Term(str(situation.cover), situation.cover.ac if ranged else 0, f"§5, against {against}"))
    elif situation.cover is not Cover.NONE:
        adjustments.append(Term(str(situation.cover), situation.cover.ac, "§5"))
    if situation.prone:
        adjustments.append(Term("prone", PRONE_RANGED if ranged else PRONE_MELEE, f"§5 prone, against {against}"))
    helpless = situation.helpless or any(rule.dex_zero for rule in situation.defender.rules)
    if situation.helpless:
        adjustments.append(Term("helpless", 0 if ranged else HELPLESS_MELEE, f"§5 helpless, against {against}"))
    words = {"prone": situation.prone, "helpless": situation.helpless}
    defender, attacker = situation.defender, situation.attacker
    for rule in defender.rules:
        value = rule.ac_ranged if ranged else rule.ac_melee
        if value and not words.get(rule.name, False):
            adjustments.append(Term(rule.name, value, f"{defender.because(rule)}, against {against}"))
    if helpless and "helpless" not in target.kind:
        notes.append(
            "A helpless defender's Dex counts as 0 (-5): the AC given is taken as it is; a character's is "
            "worked out (§5)."
        )
    if adjustments or helpless:
        target = replace(
            target,
            ac=target.ac + sum(t.value for t in adjustments),
            adjustments=(*target.adjustments, *adjustments),
            denied_dex=target.denied_dex or helpless,
        )
    damage_terms: list[Term] = []
    for rule in attacker.rules:
        value = rule.attack_ranged if ranged else rule.attack_melee
        if value:
            terms.append(Term(rule.name, value, attacker.because(rule)))
        if rule.damage:
            damage_terms.append(Term(rule.name, rule.damage, attacker.because(rule)))
        if rule.name == "prone" and ranged:
            notes.append(f"{attacker.who or 'A prone attacker'} is prone: only a crossbow shoots from prone (§14).")
    miss_chance = situation.concealment.miss_chance
    concealed = f"The target has {situation.concealment}" if miss_chance else ""
    miss_source = ""
    chances = [(rule.concealed, f"{defender.who or 'the defender'} is {rule.name}") for rule in defender.rules]
    chances += [(rule.blind, f"{attacker.who or 'the attacker'} is {rule.name}") for rule in attacker.rules]
    for chance, why in chances:
        if chance > miss_chance:
            miss_chance, miss_source, concealed = chance, why, why[0].upper() + why[1:]
    if miss_source:
        notes.append(f"{concealed}: a hit misses on a d100 of {miss_chance} or less (§6 item 7, §14).")
    elif miss_chance:
        notes.append(
            f"{str(situation.concealment).capitalize()}: a hit misses on a d100 of {miss_chance} or less (§6 item 7)."
        )
    return _Circumstances(terms, target, miss_chance, miss_source, concealed, damage_terms)


MONK_WEAPONS: Final = ("unarmed strike", "kama")  # §3 NWN: what a monk's smaller step applies to


def monk_step(situation: Situation, variants: Variants, notes: list[str], weapon: str | None = None) -> int:
    """§3: the step between iterative attacks: -5, or NWN's -3 for a monk unarmed or with a kama (a setting)."""
    if not situation.monk_unarmed:
        return ITERATIVE_STEP
    if weapon is not None and name_key(weapon) not in MONK_WEAPONS:
        raise AttackError(f"NWN's -{NWN_MONK_STEP} step is a monk's, unarmed or with a kama, not with the {weapon}.")
    if variants.monk_step is MonkStepRule.NWN:
        return NWN_MONK_STEP
    notes.append(
        f"This server steps -{ITERATIVE_STEP} for a monk too (the SRD); the setting dnd35.monk_step plays NWN's "
        f"-{NWN_MONK_STEP} (§3)."
    )
    return ITERATIVE_STEP


def _iterative_step(count: int, number: int, step: int, why: str) -> Term | None:
    if not 1 <= number <= count:
        raise AttackError(f"There is no attack {number}: {why}.")
    return Term(f"attack {number}", -step * (number - 1), f"§3 iterative attack, -{step} each") if number > 1 else None


def _two_weapon_term(two_weapon: TwoWeapon | None, off_hand: bool) -> list[Term]:
    if two_weapon is None:
        return []
    penalty = TWO_WEAPON_PENALTIES[two_weapon][1 if off_hand else 0]
    return [Term("two-weapon fighting", penalty, f"§4 {two_weapon}, {'off' if off_hand else 'primary'} hand")]


def quick_attack(
    attack_bonus: int,
    damage: str | WeaponDamage,
    target: Target | int,
    situation: Situation = NO_SITUATION,
    *,
    crit: str | Critical = "20/x2",
    attack_number: int = 1,
    off_hand: bool = False,
    two_weapon: TwoWeapon | None = None,
    energy: str | Sequence[EnergyRider] = (),
    properties: str | Iterable[str] = (),
    dr: str | DamageReduction | None = None,
    label: str = "Attack",
    variants: Variants = DEFAULT_VARIANTS,
) -> Attack:
    """An attack given by its numbers: `+7`, `1d8+4`, `19-20/x2` against AC 18 (§6, §7, §11).

    Args:
        attack_bonus: The whole attack bonus of the first attack.
        damage: One weapon damage roll with its bonus, like `1d8+4`.
        target: The AC that applies, or a `Target`.
        situation: Flanking, a modifier, a damage bonus, multipliers, precision dice (the character-only
            options are refused).
        crit: The critical as printed, like `19-20/x2`.
        attack_number: Which attack of a full attack (the 2nd is -5, §3).
        off_hand: An off-hand attack: with `two_weapon`, the off-hand penalty (the damage is as given).
        two_weapon: The row of the two-weapon table (§4).
        energy: Energy riders, like `1d6 fire`.
        properties: What the attack brings against DR, like `magic, silver`.
        dr: The target's damage reduction, like `5/magic` (replaces the target's).
        label: What to call the attack.
        variants: The server's readings; only `monk_step` matters here (with `situation.monk_unarmed`).
    """
    for flag, name in (
        (situation.sneak_attack, "sneak attack (give the dice as precision, like 3d6)"),
        (situation.distance is not None or situation.throw, "range (put the range penalty in the modifier)"),
        (situation.two_hands, "two hands (put the Str in the damage)"),
        (situation.mounted_charge, "mounted charge (give x2 as a multiplier)"),
    ):
        if flag:
            raise AttackError(f"An attack given by its numbers has no character to work out {name}.")
    _bounded("attack bonus", attack_bonus)
    rolled = parse_damage(damage) if isinstance(damage, str) else damage
    critical = parse_crit(crit) if isinstance(crit, str) else crit
    goal = target if isinstance(target, Target) else target_ac(target)
    if dr is not None:
        goal = _with_dr(goal, dr)
    notes: list[str] = []
    ranged = situation.into_melee or situation.ranged  # all that is known: a ranged attack when said
    moment = _circumstances(situation, goal, ranged=ranged, notes=notes)
    goal = moment.target
    step = monk_step(situation, variants, notes)
    count = MAX_OFF_HAND_ATTACKS if off_hand else MAX_ITERATIVE_ATTACKS
    terms = [Term("attack bonus", attack_bonus, "given")]
    why = f"a full attack has at most {count} {'off-hand ' if off_hand else ''}attacks"
    if (iterative := _iterative_step(count, attack_number, step, why)) is not None:
        terms.append(iterative)
    if situation.into_melee:
        terms.append(Term("into melee", INTO_MELEE, "§2 shooting into melee"))
    if situation.flanking:
        terms.append(Term("flanking", FLANKING, "§2"))
    terms += moment.terms
    terms += _two_weapon_term(two_weapon, off_hand)
    if situation.modifier:
        terms.append(Term("situational", situation.modifier, "given"))
    _check_common(terms, situation)
    damage_terms = []
    if rolled.bonus:
        damage_terms.append(Term("damage bonus", rolled.bonus, f"given: {rolled}"))
    if situation.damage_bonus:
        damage_terms.append(Term("situational", situation.damage_bonus, "given"))
    damage_terms += moment.damage_terms
    riders = energy if not isinstance(energy, str) else parse_energy(energy)
    return _check_dice_budget(
        Attack(
            label=label,
            attack_terms=tuple(terms),
            damage=rolled.dice,
            damage_terms=tuple(damage_terms),
            threat=critical.threat,
            threat_source=f"{threat_text(critical.threat)} (given)",
            critical_multiplier=critical.multiplier,
            multipliers=tuple(Multiplier(m, "situational") for m in situation.multipliers),
            precision=_precision([Rider("precision", d) for d in situation.precision], goal, notes, moment.concealed),
            energy=tuple(Rider(r.energy, r.dice) for r in riders),
            target=goal,
            properties=parse_properties(properties),
            ranged=ranged,
            notes=(*goal.notes, *notes),
            miss_chance=moment.miss_chance,
            miss_source=moment.miss_source,
        )
    )


def parse_bonuses(text: str) -> tuple[int, ...]:
    """A full attack's attack bonuses as a stat block prints them, `+11/+6/+1` (§3: each given, none derived)."""
    values: list[int] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] == " ":
            i += 1
        start = i
        if i < n and text[i] in "+-":
            i += 1
        digits = i
        while i < n and text[i] in "0123456789" and i - digits < 4:
            i += 1
        if i == digits:
            reason = f"Unexpected {text[i]!r}" if i < n else "Missing an attack bonus"
            raise NotationError(text, i, reason, "Write the bonuses as a stat block does, like +11/+6/+1.")
        values.append(int(text[start:i]))
        while i < n and text[i] == " ":
            i += 1
        if i == n:
            break
        if text[i] != "/":
            raise NotationError(text, i, f"Unexpected {text[i]!r}", "Separate the bonuses with /, like +11/+6/+1.")
        i += 1
    if len(values) > MAX_QUICK_ATTACKS:
        raise NotationError(text, n, f"{len(values)} attacks", f"A full attack has at most {MAX_QUICK_ATTACKS} here.")
    return tuple(values)


def quick_full_attack(
    bonuses: Sequence[int],
    damage: str | WeaponDamage,
    target: Target | int,
    situation: Situation = NO_SITUATION,
    *,
    crit: str | Critical = "20/x2",
) -> tuple[Attack, ...]:
    """§3 for a monster by its numbers: one attack for each bonus of its full attack (`+11/+6/+1`), the same damage.

    The bonuses are the stat block's own, so no iterative step is taken off them.
    """
    return tuple(
        quick_attack(bonus, damage, target, situation, crit=crit, label=f"attack {damage}") for bonus in bonuses
    )


def _with_dr(target: Target, dr: str | DamageReduction) -> Target:
    return replace(target, dr=_dr(dr))


@functools.cache
def _as_carried(name: str) -> DndWeapon:
    """An SRD weapon as a sheet would carry it with nothing set: made once (a sheet's weapon checks its name)."""
    return DndWeapon(name=name)


def find_weapon(sheet: DndSheet, name: str) -> DndWeapon:
    """The character's weapon called `name` (any case); an SRD weapon not on the sheet is used as the table's."""
    for weapon in sheet.weapons:
        if name_key(weapon.name) == name_key(name):
            return weapon
    table = table_weapon(name)
    if table is not None:
        return _as_carried(table.name)
    names = ", ".join(w.name for w in sheet.weapons) or "none"
    raise AttackError(f"No weapon called **{name}** on this character, nor in the SRD table. Weapons: {names}.")


Grip = Literal["one-handed", "two-handed", "off-hand"]
_GRIP_WORDS: Final[dict[Grip, str]] = {
    "one-handed": "1x Str",
    "two-handed": "two hands: 1½x a Str bonus, rounded down",
    "off-hand": "off hand: ½x a Str bonus, rounded down",
}


def _grip(weapon: Weapon, situation: Situation, off_hand: bool, two_weapon: TwoWeapon | None) -> Grip:
    """Which Str share the melee or thrown weapon gets (§7), refusing impossible hands."""
    both_hands = weapon.handedness == "two-handed" and not weapon.double
    if both_hands and (off_hand or two_weapon is not None):
        raise AttackError(f"The {weapon.name} needs both hands, so it can't be one of two weapons (§4).")
    if situation.two_hands and (off_hand or two_weapon is not None):
        raise AttackError("A weapon held in two hands leaves no hand for an off-hand weapon.")
    if off_hand:
        return "off-hand"
    if two_weapon is not None:
        return "one-handed"
    if weapon.handedness == "two-handed" or (situation.two_hands and not weapon.light):
        return "two-handed"
    return "one-handed"


def _strength_damage(sheet: DndSheet, weapon: Weapon, launcher: bool, grip: Grip) -> Term:
    """§7, "Strength to damage"."""
    mod = sheet.modifier("strength")
    score = f"Str {sheet.strength}"
    if launcher:
        if weapon.strength == "none":
            return Term("Str", 0, f"{score}: none with a crossbow")
        if weapon.strength == "full":
            return Term("Str", mod, f"{score}: bonus and penalty with a sling")
        if mod > 0:
            value = min(mod, weapon.strength_rating)
            return Term("Str", value, f"{score}: a bow adds a Str bonus up to its rating (+{weapon.strength_rating})")
        return Term("Str", mod, f"{score}: a bow takes the Str penalty")
    return Term("Str", sheet.strength_to_damage(grip), f"{score} ({mod:+d}), {_GRIP_WORDS[grip]}")


def _range(weapon: Weapon, distance: float) -> Term:
    """§2: -2 per full range increment; at most 5 increments thrown, 10 for projectiles (§13 item 14)."""
    increment = weapon.range_increment
    if increment is None:
        raise AttackError(f"The {weapon.name} has no range increment; set `range_increment` on the weapon.")
    if distance < 0:
        raise AttackError("A distance is 0 feet or more.")
    limit = MAX_INCREMENTS_THROWN if weapon.thrown else MAX_INCREMENTS_PROJECTILE
    if distance > limit * increment:
        raise AttackError(
            f"The {weapon.name} reaches {limit} range increments ({limit * increment} ft); "
            f"a target {distance:g} ft away cannot be attacked."
        )
    increments = math.floor(Fraction(distance) / increment)
    return Term("range", RANGE_STEP * increments, f"§2 {distance:g} ft: {increments} full increments of {increment} ft")


def character_attack(
    sheet: DndSheet,
    weapon: str | DndWeapon,
    target: Target | int,
    situation: Situation = NO_SITUATION,
    *,
    attack_number: int = 1,
    off_hand: bool = False,
    two_weapon: TwoWeapon | None = None,
    dr: str | DamageReduction | None = None,
    variants: Variants = DEFAULT_VARIANTS,
) -> Attack:
    """A character's attack with one of its weapons (or any SRD weapon), every term from the stat block.

    Args:
        sheet: The attacker.
        weapon: The weapon's name on the sheet (or in the SRD table), or the weapon itself.
        target: The AC that applies, or a `Target` (see `target_sheet`).
        situation: What only the table knows: flanking, range, modifiers, multipliers, sneak attack, ...
        attack_number: Which attack of the full attack: the BAB steps of §3, or the off-hand attacks of §4.
        off_hand: An attack with the off hand: ½ Str bonus, the off-hand penalty, a double weapon's other end.
        two_weapon: The row of the two-weapon table (§4); see `two_weapon_situation`.
        dr: The target's damage reduction (replaces the target's).
        variants: The server's readings; only `finesse_shield` and `monk_step` matter here.

    Raises:
        AttackError: for what the rules do not allow, with the reason.
    """
    item = find_weapon(sheet, weapon) if isinstance(weapon, str) else weapon
    w = effective_weapon(item, size=sheet.size)
    goal = target if isinstance(target, Target) else target_ac(target)
    if dr is not None:
        goal = _with_dr(goal, dr)
    if situation.throw and not w.thrown:
        raise AttackError(f"The {w.name} is not a thrown weapon.")
    if situation.ranged and not (w.ranged or w.thrown):
        raise AttackError(f"The {w.name} is a melee weapon: it attacks nothing at range.")
    # §2: a melee weapon with a range increment (dagger, spear, club, ...) given a distance is thrown.
    thrown_now = situation.throw or (w.thrown and not w.ranged and (situation.distance is not None or situation.ranged))
    ranged = w.ranged or thrown_now
    launcher = w.ranged and not w.thrown
    grip = _grip(w, situation, off_hand, two_weapon)
    if ranged and grip == "two-handed":
        grip = "one-handed"  # §7: a thrown weapon adds 1x Str, even a two-handed one
    notes: list[str] = []
    moment = _circumstances(situation, goal, ranged=ranged, notes=notes)
    goal = moment.target
    if situation.two_hands and w.light:
        notes.append(f"The {w.name} is a light weapon: no 1½x Str in two hands (§7).")

    # §3-§4: BAB and the step of this attack.
    terms = [Term("BAB", sheet.bab, "character")]
    if off_hand:
        count = sheet.off_hand_attacks
        why = f"{count} off-hand attack{'s' if count > 1 else ''}; Improved and Greater Two-Weapon Fighting add more"
        step = _iterative_step(count, attack_number, ITERATIVE_STEP, why)
        if step is not None:
            step = Term(f"off-hand attack {attack_number}", step.value, "§4 Improved / Greater Two-Weapon Fighting")
    else:
        count = len(sheet.iterative_attacks)
        why = f"BAB {sheet.bab:+d} gives {count} attack{'s' if count > 1 else ''}"
        if situation.monk_unarmed:
            step = _iterative_step(count, attack_number, monk_step(situation, variants, notes, w.name), why)
        else:
            step = _iterative_step(count, attack_number, ITERATIVE_STEP, why)
            assert step is None or sheet.bab + step.value == sheet.iterative_attacks[attack_number - 1]
    if step is not None:
        terms.append(step)

    # §2: ability, size, weapon, feats, proficiency, armor.
    finesse = not ranged and w.finessable and sheet.finesse_uses_dex
    if not ranged and w.finessable and sheet.finesse_wanted and not finesse:
        notes.append(f"Weapon Finesse needs BAB +{FINESSE_MIN_BAB} (§2), not {sheet.bab:+d}: Str is used.")
    if ranged:
        how = "thrown" if thrown_now and not w.ranged else "ranged"
        terms.append(Term("Dex", sheet.modifier("dexterity"), f"Dex {sheet.dexterity}, {how}"))
    elif finesse:
        terms.append(Term("Dex", sheet.modifier("dexterity"), f"Dex {sheet.dexterity}, Weapon Finesse (over Str)"))
    else:
        terms.append(Term("Str", sheet.modifier("strength"), f"Str {sheet.strength}, melee"))
    terms.append(Term("size", sheet.size_modifier, sheet.size))
    if w.enhancement:
        terms.append(Term("enhancement", w.enhancement, f"{w.name} +{w.enhancement}"))
    elif w.masterwork:
        terms.append(Term("masterwork", 1, f"masterwork {w.name}"))
    if sheet.has_focus(w.name):
        terms.append(Term("Weapon Focus", 1, f"feat: Weapon Focus ({w.name})"))
    martial_grip = w.martial_two_handed and grip == "two-handed" and "martial" in sheet.weapon_groups
    if not (sheet.proficient_with(w.name, w.category) or martial_grip):
        terms.append(Term("not proficient", NOT_PROFICIENT, f"§2 {w.category} weapon without the proficiency"))
    for value, label in sheet._armor_attack_parts():
        terms.append(Term(label, value, "§10 tower shield" if label == "tower shield" else "§2 armor not proficient"))
    if finesse and sheet.shield != "none":
        if variants.finesse_shield is FinesseShieldRule.NWN:
            notes.append("NWN: Weapon Finesse takes no shield check penalty.")
        elif sheet.shield_proficient:
            terms.append(Term("shield check", sheet.shield_check_penalty, "§2 Weapon Finesse with a shield"))
        else:
            notes.append("The shield's check penalty applies once, already counted for non-proficiency.")

    # §2: situation.
    if situation.into_melee:
        if not ranged:
            raise AttackError("Shooting into melee is for ranged attacks.")
        if sheet.precise_shot:
            notes.append("Precise Shot: no penalty for shooting into melee.")
        else:
            terms.append(Term("into melee", INTO_MELEE, "§2 shooting into melee without Precise Shot"))
    if situation.distance is not None:
        if not ranged:
            raise AttackError(f"A distance is for ranged attacks; the {w.name} is used in melee here.")
        terms.append(_range(w, situation.distance))
    if situation.flanking:
        if ranged:
            raise AttackError("Flanking helps melee attacks only.")
        terms.append(Term("flanking", FLANKING, "§2"))
    terms += moment.terms
    terms += _two_weapon_term(two_weapon, off_hand)
    if situation.modifier:
        terms.append(Term("situational", situation.modifier, "given"))
    _check_common(terms, situation)

    # §7: damage of one weapon roll.
    other_end = off_hand and w.double
    rolled = second_end_damage(w, sheet.size) if other_end else w.damage
    multiplier = w.second_end.multiplier if other_end and w.second_end else w.multiplier
    damage_terms = [_strength_damage(sheet, w, launcher, grip)]
    if rolled.bonus:
        damage_terms.append(Term("weapon", rolled.bonus, f"{w.name}: {rolled}"))
    if w.enhancement:
        damage_terms.append(Term("enhancement", w.enhancement, f"{w.name} +{w.enhancement}"))
    if situation.damage_bonus:
        damage_terms.append(Term("situational", situation.damage_bonus, "given"))
    damage_terms += moment.damage_terms

    # §6: threat range.
    threat, threat_source = w.threat, f"{threat_text(w.threat)} ({w.name})"
    doublers = [
        name for name, on in (("keen", w.keen), ("Improved Critical", sheet.has_improved_critical(w.name))) if on
    ]
    if doublers:
        threat = max(2 * w.threat - 21, 1)
        threat_source = f"{threat_text(threat)}: {threat_text(w.threat)} doubled by {' and '.join(doublers)}"
        if len(doublers) > 1:
            threat_source += " (they do not stack)"

    # §7: multipliers, precision, energy.
    multipliers = [Multiplier(m, "situational") for m in situation.multipliers]
    if situation.mounted_charge:
        if w.charge_multiplier is None:
            raise AttackError(f"The {w.name} deals no extra damage on a mounted charge; give a multiplier instead.")
        multipliers.append(Multiplier(w.charge_multiplier, f"mounted charge ({w.name})"))
    precision = [Rider("precision", d) for d in situation.precision]
    if situation.sneak_attack:
        precision.append(_sneak_attack(sheet, situation, goal, ranged))
    label = f"{w.name} (off-hand end)" if other_end else w.name
    return _check_dice_budget(
        Attack(
            label=label,
            attack_terms=tuple(terms),
            damage=rolled.dice,
            damage_terms=tuple(damage_terms),
            threat=threat,
            threat_source=threat_source,
            critical_multiplier=multiplier,
            multipliers=tuple(multipliers),
            precision=_precision(precision, goal, notes, moment.concealed),
            energy=tuple(Rider(r.energy, r.dice) for r in w.energy),
            target=goal,
            properties=w.dr_properties,
            ranged=ranged,
            notes=(*goal.notes, *notes),
            miss_chance=moment.miss_chance,
            miss_source=moment.miss_source,
        )
    )


def _sneak_attack(sheet: DndSheet, situation: Situation, target: Target, ranged: bool) -> Rider:
    """§7: ⌈rogue level / 2⌉d6 against a flanked target or one denied its Dex bonus; ranged within 30 ft."""
    if sheet.sneak_attack_dice == 0:
        raise AttackError("Sneak attack needs a rogue level on the character.")
    if not (situation.flanking or target.denied_dex):
        raise AttackError(
            "Sneak attack needs the target flanked or denied its Dex bonus (flat-footed without Uncanny Dodge)."
        )
    if ranged and situation.distance is not None and situation.distance > SNEAK_ATTACK_RANGE:
        raise AttackError(f"A ranged sneak attack works only within {SNEAK_ATTACK_RANGE} ft.")
    return Rider(f"sneak attack (rogue {sheet.rogue_level})", Dice(sheet.sneak_attack_dice, 6))


def full_attack(
    sheet: DndSheet,
    weapon: str,
    target: Target | int,
    situation: Situation = NO_SITUATION,
    *,
    off_hand_weapon: str | None = None,
    dr: str | DamageReduction | None = None,
    variants: Variants = DEFAULT_VARIANTS,
) -> tuple[Attack, ...]:
    """§3-§4: every attack of a full attack: the iterative attacks, then the off-hand ones, each on its own.

    Args:
        sheet: The attacker.
        weapon: The primary weapon.
        target: The AC that applies, or a `Target`.
        situation: Applies to every attack.
        off_hand_weapon: A second weapon (the same name for a double weapon's other end, or a second weapon
            of the same kind): two-weapon fighting, with the row of §4 from the feat and the off-hand weapon.
        dr: The target's damage reduction (replaces the target's).
        variants: The server's readings.
    """
    two_weapon = None
    if off_hand_weapon is not None:
        main = effective_weapon(find_weapon(sheet, weapon), size=sheet.size)
        other = effective_weapon(find_weapon(sheet, off_hand_weapon), size=sheet.size)
        # §4: a double weapon wielded as two weapons counts as having a light off-hand end; it takes both hands.
        double_end = other.double and name_key(other.name) == name_key(main.name)
        if (main.double or other.double) and not double_end:
            raise AttackError("A double weapon takes both hands: fight with its two ends (the same weapon twice).")
        two_weapon = two_weapon_situation(light_off_hand=other.light or double_end, feat=sheet.two_weapon_fighting)
    options: dict[str, Any] = {"dr": dr, "variants": variants, "two_weapon": two_weapon}
    attacks = [
        character_attack(sheet, weapon, target, situation, attack_number=n, **options)
        for n in range(1, len(sheet.iterative_attacks) + 1)
    ]
    if off_hand_weapon is not None:
        attacks += [
            character_attack(sheet, off_hand_weapon, target, situation, attack_number=n, off_hand=True, **options)
            for n in range(1, sheet.off_hand_attacks + 1)
        ]
    return tuple(attacks)


# ------------------------------------------------------------------------------------------------ resolution


class Outcome(StrEnum):
    """What the attack did."""

    MISS = "miss"
    HIT = "hit"  # a hit that is not a confirmed critical
    CRITICAL = "critical"


@dataclass(frozen=True, slots=True)
class Confirmation:
    """§6 step 4: the second roll on a threat."""

    face: int
    total: int
    confirmed: bool
    automatic: bool  # decided by a natural 20 or 1 (SRD reading)


@dataclass(frozen=True, slots=True)
class WeaponRoll:
    """One weapon damage roll: its dice faces and the flat terms of each roll."""

    faces: tuple[int, ...]
    bonus: int

    @property
    def total(self) -> int:
        """Faces plus bonus."""
        return sum(self.faces) + self.bonus


@dataclass(frozen=True, slots=True)
class RiderRoll:
    """Precision or energy dice, rolled once."""

    label: str
    dice: Dice
    faces: tuple[int, ...]

    @property
    def total(self) -> int:
        """The sum of the faces."""
        return sum(self.faces)


@dataclass(frozen=True, slots=True)
class AttackResult:
    """One resolved attack, every step recorded (§11)."""

    attack: Attack
    variants: Variants
    face: int  # the attack d20
    total: int  # d20 + AB
    hit: bool
    threat: bool
    confirmation: Confirmation | None
    critical: bool
    multipliers: tuple[Multiplier, ...] = ()  # those that applied to this hit
    roll_count: int = 0
    weapon_rolls: tuple[WeaponRoll, ...] = ()
    precision: tuple[RiderRoll, ...] = ()
    physical: int = 0  # weapon rolls + precision, before the minimum of 1
    minimum_applied: bool = False
    dr_bypassed: bool = False
    dr_reduction: int = 0  # what DR took away
    energy: tuple[RiderRoll, ...] = ()
    damage: int = 0
    concealment: int | None = None  # §6 item 7: the d100 of the miss chance, rolled when the d20 hit a concealed target

    @property
    def concealed(self) -> bool:
        """The d20 hit, but concealment's d100 turned it into a miss (§6 item 7)."""
        return self.concealment is not None and self.concealment <= self.attack.miss_chance

    @property
    def outcome(self) -> Outcome:
        """Miss, hit or critical."""
        return Outcome.CRITICAL if self.critical else Outcome.HIT if self.hit else Outcome.MISS

    @property
    def automatic(self) -> bool:
        """The d20 decided the hit by itself: a natural 1 or 20."""
        return self.face in (1, 20)

    @property
    def after_dr(self) -> int:
        """The physical part after the minimum and DR."""
        return self.damage - sum(r.total for r in self.energy)

    def to_dict(self) -> dict[str, object]:
        """The attack and its rolls, for the roll log."""
        return {
            "attack": self.attack.label,
            "ab": self.attack.attack_bonus,
            "ac": self.attack.target.ac,
            "d20": self.face,
            "outcome": self.outcome.value,
            "threat": self.threat,
            "confirm_d20": None if self.confirmation is None else self.confirmation.face,
            "rolls": [list(r.faces) for r in self.weapon_rolls],
            "roll_bonus": self.attack.damage_bonus,
            "precision": [list(r.faces) for r in self.precision],
            "energy": [list(r.faces) for r in self.energy],
            "dr": self.dr_reduction,
            "damage": self.damage,
            "variants": [self.variants.multipliers.value, self.variants.confirmation.value],
            # §6 item 7, only when rolled: a roll without concealment is logged as it always was.
            **({"concealment_d100": self.concealment} if self.concealment is not None else {}),
        }


@dataclass(frozen=True, slots=True)
class FullAttackResult:
    """Every attack of a full attack, each resolved on its own."""

    results: tuple[AttackResult, ...] = field(default_factory=tuple)

    @property
    def total_damage(self) -> int:
        """The damage of every hit, added up."""
        return sum(r.damage for r in self.results)


def hits(face: int, attack_bonus: int, ac: int, *, automatic: bool = True) -> bool:
    """§6: natural 1 misses and natural 20 hits (when `automatic`); otherwise d20 + AB >= AC (§13 item 1)."""
    if automatic and face in (1, 20):
        return face == 20
    return face + attack_bonus >= ac


def _roll(rng: DiceSource, dice: Dice) -> tuple[int, ...]:
    return tuple(rng.randint(1, dice.sides) for _ in range(dice.count))


def resolve(attack: Attack, rng: DiceSource, *, variants: Variants = DEFAULT_VARIANTS) -> AttackResult:
    """§11: roll one attack: d20, threat and confirmation, weapon rolls, precision, minimum, DR, energy."""
    bonus = attack.attack_bonus
    ac = attack.target.ac
    face = rng.randint(1, 20)
    hit = hits(face, bonus, ac)
    if not hit:
        return AttackResult(
            attack, variants, face, face + bonus, hit=False, threat=False, confirmation=None, critical=False
        )
    # §6 item 7: a hit on a concealed defender misses on a d100 of the miss chance or less, before anything else.
    concealment = rng.randint(1, 100) if attack.miss_chance else None
    if concealment is not None and concealment <= attack.miss_chance:
        return AttackResult(
            attack,
            variants,
            face,
            face + bonus,
            hit=False,
            threat=False,
            confirmation=None,
            critical=False,
            concealment=concealment,
        )
    threat = face >= attack.threat
    confirmation = None
    if threat and not attack.target.immune_to_criticals:
        automatic = variants.confirmation is ConfirmationRule.SRD
        second = rng.randint(1, 20)
        confirmation = Confirmation(
            second, second + bonus, hits(second, bonus, ac, automatic=automatic), automatic and second in (1, 20)
        )
    critical = confirmation is not None and confirmation.confirmed
    multipliers = attack.multipliers
    if critical:
        multipliers = (*multipliers, Multiplier(attack.critical_multiplier, f"critical x{attack.critical_multiplier}"))
    count = roll_count((m.value for m in multipliers), variants.multipliers)
    per_roll = attack.damage_bonus
    weapon_rolls = tuple(WeaponRoll(_roll(rng, attack.damage), per_roll) for _ in range(count))
    precision = tuple(RiderRoll(r.label, r.dice, _roll(rng, r.dice)) for r in attack.precision)
    energy = tuple(RiderRoll(r.label, r.dice, _roll(rng, r.dice)) for r in attack.energy)
    physical = sum(r.total for r in weapon_rolls) + sum(r.total for r in precision)
    floored = max(physical, 1)
    dr = attack.target.dr
    bypassed = dr is not None and dr.bypassed_by(attack.properties)
    reduction = min(dr.amount, floored) if dr is not None and not bypassed else 0
    return AttackResult(
        attack,
        variants,
        face,
        face + bonus,
        hit=True,
        threat=threat,
        confirmation=confirmation,
        critical=critical,
        multipliers=multipliers,
        roll_count=count,
        weapon_rolls=weapon_rolls,
        precision=precision,
        physical=physical,
        minimum_applied=physical < 1,
        dr_bypassed=bypassed,
        dr_reduction=reduction,
        energy=energy,
        damage=floored - reduction + sum(r.total for r in energy),
        concealment=concealment,
    )


def resolve_all(
    attacks: Iterable[Attack], rng: DiceSource, *, variants: Variants = DEFAULT_VARIANTS
) -> FullAttackResult:
    """§3-§4: each attack of a full attack resolved on its own, in order."""
    return FullAttackResult(tuple(resolve(a, rng, variants=variants) for a in attacks))


def drops(hit_points: int) -> bool:
    """A target a full attack may turn from: at -1 hit points or fewer it is dying, or dead (SRD, Dying; Dead).

    At 0 it is disabled but still standing: the attacks stay on it.
    """
    return hit_points < 0


def turned(results: Sequence[AttackResult], hit_points: Sequence[int]) -> tuple[int, ...]:
    """Which target each attack of a full attack was at: the next of `hit_points` once the one before drops.

    SRD, Full Attack: the iterative attacks are made in order, each may be at another foe; the bot turns the
    later attacks to the next target named (a default: the order given) once the damage so far drops the one it
    was at (`drops`), and stays on the last one.
    """
    return _walk(results, hit_points)[0]


def _walk(results: Sequence[AttackResult], hit_points: Sequence[int]) -> tuple[tuple[int, ...], int]:
    """The target each result was at, and the one the next attack is at."""
    at, dealt, shown = 0, 0, []
    for result in results:
        shown.append(at)
        dealt += result.damage if result.hit else 0
        if at + 1 < len(hit_points) and drops(hit_points[at] - dealt):
            at, dealt = at + 1, 0
    return tuple(shown), at


def resolve_turning(
    targets: Sequence[Sequence[Attack]],
    hit_points: Sequence[int],
    rng: DiceSource,
    *,
    variants: Variants = DEFAULT_VARIANTS,
) -> FullAttackResult:
    """A full attack that turns to the next target when its target drops (`turned`), resolved in order.

    `targets[t][i]`: attack i of the full attack, built against target t; `hit_points[t]`: that target's hit
    points before the full attack. Each attack is resolved against the target it is at when it is made.
    """
    if not targets or len(targets) != len(hit_points) or len({len(t) for t in targets}) != 1:
        raise AttackError("A full attack turning to other targets gives each target its attacks and hit points.")
    results: list[AttackResult] = []
    for i in range(len(targets[0])):
        at = _walk(results, hit_points)[1]
        results.append(resolve(targets[at][i], rng, variants=variants))
    return FullAttackResult(tuple(results))
