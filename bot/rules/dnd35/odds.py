"""Exact odds of one D&D 3.5 attack (dnd35.md §6-§8, §11), by counting, never by sampling.

1. The d20s (§6): the faces that hit, those that hit inside the threat range, and the faces of the second d20
   that confirm under the server's reading (§13 item 4). The two d20s are independent, so out of 400 pairs a
   critical is (threat faces) x (confirming faces) and a plain hit is 20 x (hitting faces) minus that.
2. The physical part of a hit with n weapon rolls (§7): n x the weapon's dice plus the precision dice, as
   integer counts of each total, built die by die: one more die of s sides turns the counts into sums over a
   window of s consecutive totals (a prefix-sum difference), so k dice cost about k x the support, not s^k;
   then shifted by n x the per-roll bonus.
3. Minimum 1, DR (unless bypassed), floor 0, total by total; then the energy dice convolved on top (§7, §11).
4. Plain hit and critical mixed with their d20 chances, a miss dealing 0; one common denominator, so each
   total becomes a single `Fraction`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate
from math import lcm
from typing import Final

from bot.rules.dnd35.engine import (
    DEFAULT_VARIANTS,
    Attack,
    ConfirmationRule,
    Outcome,
    Variants,
    hits,
    roll_count,
)
from bot.rules.dnd35.tables import AttackError, Dice

# About how many additions the die-by-die counting may take (k dice of s sides: ~ k^2 s / 2). Measured: 99d20
# (374,000) takes 0.4 s and 10d999 (210,000) 0.3 s, as the counts grow into big integers; an ordinary attack
# needs a few hundred (a greatsword 36, a x4 scythe critical with 3d6 sneak attack and fire under 1,000).
MAX_ODDS_WORK: Final = 250_000


class OddsLimitError(AttackError):
    """Too many dice to count the exact damage distribution; the attack itself can still be rolled."""

    title = "Too many dice for exact odds"


@dataclass(frozen=True, slots=True)
class AttackOdds:
    """Exact chances of one attack before it is rolled."""

    miss: Fraction
    hit: Fraction  # any hit, criticals included
    threat: Fraction
    critical: Fraction  # a confirmed critical
    damage: dict[int, Fraction]  # total damage of the attack (0 for a miss) -> chance
    on_hit: dict[int, Fraction]  # damage of a hit that is not a critical -> chance (empty if none can happen)
    on_critical: dict[int, Fraction]  # damage of a critical -> chance (empty if none can happen)
    expected_damage: Fraction
    weapon_rolls: tuple[int, int]  # weapon rolls on a plain hit, on a critical

    @property
    def normal_hit(self) -> Fraction:
        """A hit that is not a confirmed critical."""
        return self.hit - self.critical

    @property
    def outcomes(self) -> dict[Outcome, Fraction]:
        """Miss, plain hit and critical: they add up to 1."""
        return {Outcome.MISS: self.miss, Outcome.HIT: self.normal_hit, Outcome.CRITICAL: self.critical}


def _add_die(counts: list[int], sides: int) -> list[int]:
    """The counts of totals after one more die: each new total sums a window of `sides` old ones."""
    prefix = [0, *accumulate(counts)]
    n = len(counts)
    return [prefix[min(i + 1, n)] - prefix[max(i + 1 - sides, 0)] for i in range(n + sides - 1)]


def _dice_counts(dice: Iterable[Dice]) -> tuple[int, list[int], int]:
    """(lowest total, ways to roll each total from it, number of equally likely outcomes)."""
    offset, counts, outcomes = 0, [1], 1
    for group in dice:
        for _ in range(group.count):
            counts = _add_die(counts, group.sides)
        offset += group.count
        outcomes *= group.sides**group.count
    return offset, counts, outcomes


def _convolve(a: list[int], b: list[int]) -> list[int]:
    if len(b) > len(a):
        a, b = b, a
    out = [0] * (len(a) + len(b) - 1)
    for j, y in enumerate(b):
        if y:
            for i, x in enumerate(a):
                out[i + j] += x * y
    return out


def _work(dice: Iterable[Dice]) -> int:
    total, work = 0, 0
    for group in dice:
        for _ in range(group.count):
            total += group.sides - 1
            work += total
    return work


def _hit_damage(attack: Attack, rolls: int) -> tuple[list[int], int]:
    """§7, §11 steps 5-6: ways to deal each damage (index = damage) on a hit with `rolls` weapon rolls."""
    dice = [Dice(attack.damage.count * rolls, attack.damage.sides)] if attack.damage.count else []
    dice += [r.dice for r in attack.precision]
    energy = [r.dice for r in attack.energy]
    if _work([*dice, *energy]) > MAX_ODDS_WORK:
        raise OddsLimitError("This attack rolls too many dice to count its damage exactly; it can still be rolled.")
    offset, counts, outcomes = _dice_counts(dice)
    offset += rolls * attack.damage_bonus
    dr = attack.target.dr
    reduction = dr.amount if dr is not None and not dr.bypassed_by(attack.properties) else 0
    top = max(offset + len(counts) - 1, 1) - reduction
    after = [0] * (max(top, 0) + 1)
    for i, ways in enumerate(counts):
        after[max(max(offset + i, 1) - reduction, 0)] += ways
    if energy:
        energy_offset, energy_counts, energy_outcomes = _dice_counts(energy)
        after = [0] * energy_offset + _convolve(after, energy_counts)
        outcomes *= energy_outcomes
    return after, outcomes


def odds(attack: Attack, *, variants: Variants = DEFAULT_VARIANTS) -> AttackOdds:
    """§6-§8, §11: the exact chances of a miss, a hit, a threat and a critical, and the damage distribution.

    Raises:
        OddsLimitError: the damage has too many dice to count (`MAX_ODDS_WORK`).
    """
    bonus, ac = attack.attack_bonus, attack.target.ac
    automatic = variants.confirmation is ConfirmationRule.SRD
    hit_faces = sum(hits(face, bonus, ac) for face in range(1, 21))
    threat_faces = sum(hits(face, bonus, ac) for face in range(max(attack.threat, 1), 21))
    confirm_faces = sum(hits(face, bonus, ac, automatic=automatic) for face in range(1, 21))
    critical_pairs = 0 if attack.target.immune_to_criticals else threat_faces * confirm_faces
    plain_pairs = 20 * hit_faces - critical_pairs
    always = [m.value for m in attack.multipliers]
    plain_rolls = roll_count(always, variants.multipliers)
    critical_rolls = roll_count([*always, attack.critical_multiplier], variants.multipliers)

    plain, plain_outcomes = _hit_damage(attack, plain_rolls) if plain_pairs else ([], 1)
    critical, critical_outcomes = _hit_damage(attack, critical_rolls) if critical_pairs else ([], 1)
    common = lcm(plain_outcomes, critical_outcomes)
    numerators = [0] * max(len(plain), len(critical), 1)
    scale = plain_pairs * (common // plain_outcomes)
    for total, ways in enumerate(plain):
        numerators[total] += scale * ways
    scale = critical_pairs * (common // critical_outcomes)
    for total, ways in enumerate(critical):
        numerators[total] += scale * ways
    numerators[0] += (400 - 20 * hit_faces) * common
    denominator = 400 * common
    return AttackOdds(
        miss=Fraction(20 - hit_faces, 20),
        hit=Fraction(hit_faces, 20),
        threat=Fraction(threat_faces, 20),
        critical=Fraction(critical_pairs, 400),
        damage={t: Fraction(n, denominator) for t, n in enumerate(numerators) if n},
        on_hit={t: Fraction(n, plain_outcomes) for t, n in enumerate(plain) if n},
        on_critical={t: Fraction(n, critical_outcomes) for t, n in enumerate(critical) if n},
        expected_damage=Fraction(sum(t * n for t, n in enumerate(numerators)), denominator),
        weapon_rolls=(plain_rolls, critical_rolls),
    )
