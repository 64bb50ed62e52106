"""Star Frontiers suits, screens and stun weapons: what a defense does to a hit (star_frontiers.md §6, §11).

A weapon's `DamageKind` (data/sf_weapons.json, `"kind"`) says which defenses concern it; `EFFECTS` says what each
defense does to each kind it concerns: halves the damage (dropping the fraction, §10 item 16) or stops the hit.
A stopped hit does nothing at all: no damage, no stun, no knock-out (§11 item 3). Several halving defenses
halve in turn, each after the burst's split (§10 item 16).

A stun setting (§11 item 5) puts the target out for d100 turns unless its d100 is at or under its current
Stamina; an anti-shock implant makes its wearer immune to an electric stun (the weapon's `stun.immune`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from bot.rules.sheets.star_frontiers import Defense, SfSheet

STUN_DIE: Final = 100  # the avoidance roll and the turns asleep are both d100 (§6)


class DamageKind(StrEnum):
    """What a weapon's hit is, to a suit or a screen (§11 item 1)."""

    LASER = "laser"
    BALLISTIC = "ballistic"  # bullets, gyrojet rounds, archaic and bladed weapons
    NEEDLE = "needle"
    ELECTROSTUNNER = "electrostunner"
    SONIC = "sonic"  # the sonic disruptor's beam
    SONIC_KNIFE = "sonic knife"

    @property
    def label(self) -> str:
        """The kind as the answers say it."""
        return {
            DamageKind.LASER: "laser",
            DamageKind.BALLISTIC: "bullet, archaic or bladed",
            DamageKind.NEEDLE: "needle",
            DamageKind.ELECTROSTUNNER: "electrostunner",
            DamageKind.SONIC: "sonic",
            DamageKind.SONIC_KNIFE: "sonic knife",
        }[self]


class Effect(StrEnum):
    """What a defense does to a hit of a kind it concerns."""

    HALVES = "halves"
    STOPS = "stops"


@dataclass(frozen=True, slots=True)
class Rule:
    """One line of §11 item 2: a defense, a kind of hit, the effect, and whether it is a proposed default."""

    effect: Effect
    default: bool = False


# §11 item 2. Only the sonic screen against the disruptor is proposed: the table names the screen as its
# defense without saying how much it takes.
EFFECTS: Final[dict[tuple[Defense, DamageKind], Rule]] = {
    ("albedo suit", DamageKind.LASER): Rule(Effect.HALVES),
    ("albedo screen", DamageKind.LASER): Rule(Effect.HALVES),
    ("skeinsuit", DamageKind.BALLISTIC): Rule(Effect.HALVES),
    ("inertia screen", DamageKind.BALLISTIC): Rule(Effect.HALVES),
    ("skeinsuit", DamageKind.NEEDLE): Rule(Effect.STOPS),
    ("inertia screen", DamageKind.NEEDLE): Rule(Effect.STOPS),
    ("gauss screen", DamageKind.ELECTROSTUNNER): Rule(Effect.STOPS),
    ("sonic screen", DamageKind.SONIC_KNIFE): Rule(Effect.STOPS),
    ("sonic screen", DamageKind.SONIC): Rule(Effect.HALVES, default=True),
}
# The sheet's order, so that a defender's defenses are always listed and applied the same way.
DEFENSES: Final[tuple[Defense, ...]] = (
    "albedo suit",
    "albedo screen",
    "skeinsuit",
    "inertia screen",
    "gauss screen",
    "sonic screen",
    "anti-shock implant",
)
# Both halving together is stated for the skeinsuit with the inertia screen (a quarter); any other pair halving
# the same hit twice follows the same reading, proposed (§11 item 2).
STATED_PAIR: Final = frozenset({"skeinsuit", "inertia screen"})


@dataclass(frozen=True, slots=True)
class Defender:
    """The target as the damage step sees it: its suits and screens, and its current Stamina for a stun.

    Attributes:
        name: Who the target is ("" when not given).
        defenses: What it wears (the sheet's `defenses`, or the quick-mode `defense`).
        stamina: Its current Stamina, which a stun's avoidance roll must be at or under; None: not known.
    """

    name: str = ""
    defenses: frozenset[Defense] = frozenset()
    stamina: int | None = None

    @property
    def ordered(self) -> tuple[Defense, ...]:
        """The defenses in the sheet's order."""
        return tuple(d for d in DEFENSES if d in self.defenses)

    @property
    def described(self) -> str:
        """Who, wearing what, in words."""
        who = self.name or "the target"
        return f"{who}: {', '.join(self.ordered) or 'no suit or screen'}"


NO_DEFENDER: Final = Defender()


class Setting(StrEnum):
    """A weapon's setting (§11 item 5): its damage, or its stun setting when it has one."""

    DAMAGE = "damage"
    STUN = "stun"


def defender(sheet: SfSheet, *, name: str = "") -> Defender:
    """§11: a target character's suits and screens and current Stamina, from its sheet."""
    return Defender(name, frozenset(sheet.defenses), sheet.current_stamina)


def quick_defender(defense: Defense | None = None, *, stamina: int | None = None, name: str = "") -> Defender:
    """§11 from bare options: one defense (or none) and, for a stun, the target's current Stamina."""
    return Defender(name, frozenset(() if defense is None else (defense,)), stamina)


@dataclass(frozen=True, slots=True)
class DefenseStep:
    """One defense applied to one target's damage: from `before` to `after` points, and why (without the numbers)."""

    defense: Defense
    effect: Effect
    before: int
    after: int
    reason: str
    default: bool = False  # a proposed effect, or a halving that dropped a fraction (§10 item 16)


def stopper(kind: DamageKind | None, defenses: frozenset[Defense]) -> Defense | None:
    """§11 item 2: the first defense (in the sheet's order) that stops a hit of this kind, if any."""
    if kind is None:
        return None
    for defense in DEFENSES:
        rule = EFFECTS.get((defense, kind))
        if defense in defenses and rule is not None and rule.effect is Effect.STOPS:
            return defense
    return None


def halvers(kind: DamageKind | None, defenses: frozenset[Defense]) -> tuple[tuple[Defense, Rule], ...]:
    """§11 item 2: the defenses that halve a hit of this kind, in the sheet's order."""
    if kind is None:
        return ()
    found = []
    for defense in DEFENSES:
        rule = EFFECTS.get((defense, kind))
        if defense in defenses and rule is not None and rule.effect is Effect.HALVES:
            found.append((defense, rule))
    return tuple(found)


def halve(
    points: int, kind: DamageKind | None, defenses: frozenset[Defense], *, kind_default: bool = False
) -> tuple[int, tuple[DefenseStep, ...]]:
    """§10 item 16: each halving defense in turn, fractions dropped; the points left and every step.

    `kind_default`: the weapon's kind is a proposed default (†), so every step resting on it is one too.
    """
    steps = []
    found = halvers(kind, defenses)
    pair_stated = {d for d, _ in found} <= STATED_PAIR
    for index, (defense, rule) in enumerate(found):
        after = points // 2
        second = index > 0 and not pair_stated
        why = f"{defense} halves {kind.label if kind else ''} damage"
        if points % 2:
            why += ", the half point dropped (§10 item 16)"
        if second:
            why += "; halved again, as a skeinsuit and an inertia screen together are (§11 item 2)"
        default = kind_default or rule.default or second or points % 2 == 1
        steps.append(DefenseStep(defense, Effect.HALVES, points, after, why, default))
        points = after
    return points, tuple(steps)


def stop_step(defense: Defense, kind: DamageKind, *, kind_default: bool = False) -> DefenseStep:
    """The step of a defense that stops the hit (§11 items 2-3); `kind_default` as for `halve`."""
    rule = EFFECTS[(defense, kind)]
    reason = f"{defense} stops the {kind.label}: the hit does nothing (§11 item 3)"  # before and after are 0
    return DefenseStep(defense, Effect.STOPS, 0, 0, reason, rule.default or kind_default)


def avoidance(face: int, stamina: int) -> bool:
    """§6: a stun is avoided when the target's d100 is at or under its current Stamina."""
    return face <= stamina
