"""Odds of D&D 3.5 attacks (dnd35.md §6-§8, §11): exact within a work budget, else a marked approximation.

Exact by counting when the work fits the budget, else a normal approximation with a stated error bound; never
by sampling, never refused.

1. The d20s (§6), always exact: the faces that hit, those that hit inside the threat range, and the faces of the
   second d20 that confirm under the server's reading (§13 item 4). Out of 400 pairs a critical is (threat faces)
   x (confirming faces) and a plain hit is 20 x (hitting faces) minus that.
2. The damage of a hit with n weapon rolls (§7), counted die by die: one more die of s sides turns the integer
   counts of each total into sums over a window of s consecutive totals (a prefix-sum difference), so the work
   grows with the size of the distribution, never with the product of the dice (s^k). The precision dice and the
   plain hit's weapon dice are counted once and the critical continues from there; minimum 1, DR (unless
   bypassed) and floor 0 total by total; then the energy dice are added die by die on top, never convolved.
3. A concealed defender's miss chance (§6 item 7): a d100 after a hit, so every kind of hit keeps (100 - miss chance) of
   its 100 faces, over 400 x 100 outcomes of the two d20s and the d100.
4. Plain hit and critical mixed with their d20 chances over one common denominator; the Fractions of each total
   are only built when someone asks for them (`AttackOdds.damage`): presenting needs sums, not every total.

The work of step 2 is priced from the numbers alone before anything is counted (`odds_work`): per die added,
the totals it touches times the machine words their counts take (counts reach s^k, so big integers). One
budget (`ODDS_BUDGET`) covers a whole command: `odds_for` spends it over every attack of a full attack, plain
and critical damage, precision and energy. An attack whose count would not fit is answered by
`approximate_damage`: each hit's physical dice and energy dice as normal distributions (continuity-corrected),
minimum 1 and DR applied to the physical part, with the Berry-Esseen bound (Shevtsova's constant 0.56 for
independent, not identically distributed summands) as the stated bound on every chance "at most t damage".
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, cached_property
from itertools import accumulate, repeat
from math import lcm
from operator import add, mul, sub
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
from bot.rules.dnd35.tables import Dice

# Work units (`odds_work`) one command may spend on exact counting: one unit is one total of one die addition
# whose count fits a machine word. Measured (python -m tests.perf.bench_hostile): 17-60 ns a unit on a busy
# machine, so at most about 30 ms of CPU, leaving room for the rest of a command within 50 ms. A greatsword needs
# a few hundred, a x4 scythe critical with 3d6 sneak attack and fire a few thousand, 7d999 446,151, 10d999
# 958,148. Above the budget the odds are a marked approximation.
ODDS_BUDGET: Final = 450_000
BERRY_ESSEEN: Final = 0.56  # Shevtsova (2010): sup |F - Φ| <= 0.56 Σ E|X - μ|³ / σ³, independent summands
QUADRATURE_ERROR: Final = 1e-5  # allowance for the numerical integral of the approximation (far below this)
_WORD_BITS: Final = 60


# ------------------------------------------------------------------------------------------------ the dice


def _add_die(counts: list[int], sides: int) -> list[int]:
    """The counts of totals after one more die: each new total sums a window of `sides` old ones (C-level loops)."""
    prefix = list(accumulate(counts))
    high = prefix + list(repeat(prefix[-1], sides - 1))
    low = list(repeat(0, sides)) + prefix[:-1]
    return list(map(sub, high, low))


def _add_dice(counts: list[int], dice: Iterable[Dice]) -> list[int]:
    for group in dice:
        for _ in range(group.count):
            counts = _add_die(counts, group.sides)
    return counts


def _outcomes(dice: Iterable[Dice]) -> int:
    return math.prod(d.sides**d.count for d in dice)


def _reduction(attack: Attack) -> int:
    dr = attack.target.dr
    return dr.amount if dr is not None and not dr.bypassed_by(attack.properties) else 0


def _physical(attack: Attack, rolls: int) -> list[Dice]:
    """The precision dice, then the weapon dice of `rolls` rolls (a sum: the order does not matter)."""
    weapon = [Dice(attack.damage.count * rolls, attack.damage.sides)] if attack.damage.count else []
    return [*(r.dice for r in attack.precision), *weapon]


def _floor_and_dr(offset: int, counts: list[int], reduction: int) -> tuple[int, list[int]]:
    """§7 step 6: at least 1, minus DR, at least 0: every total up to `cut` becomes `cut - reduction` (0 or 1)."""
    cut = max(reduction, 1)
    k = cut - offset  # index of the total `cut`
    if k < 0:
        return offset - reduction, counts
    if k >= len(counts) - 1:
        return cut - reduction, [sum(counts)]
    return cut - reduction, [sum(counts[: k + 1]), *counts[k + 1 :]]


@dataclass(frozen=True, slots=True)
class _Counted:
    """Ways to deal each total from `offset` on, out of `outcomes` equally likely dice outcomes."""

    offset: int
    counts: list[int]
    outcomes: int


def _count_hits(attack: Attack, plain_rolls: int, critical_rolls: int) -> tuple[_Counted, _Counted]:
    """§7, §11 steps 5-6 for a plain hit and a critical, sharing the dice they have in common."""
    reduction = _reduction(attack)
    energy = [r.dice for r in attack.energy]
    extra = Dice(attack.damage.count * (critical_rolls - plain_rolls), attack.damage.sides)
    counts = _add_dice([1], _physical(attack, plain_rolls))
    both: list[_Counted] = []
    for rolls, more in ((plain_rolls, []), (critical_rolls, [extra] if extra.count else [])):
        counts = _add_dice(counts, more)
        dice = _physical(attack, rolls)
        offset = sum(d.count for d in dice) + rolls * attack.damage_bonus
        offset, after = _floor_and_dr(offset, counts, reduction)
        after = _add_dice(after, energy)
        both.append(_Counted(offset + sum(d.count for d in energy), after, _outcomes([*dice, *energy])))
    return both[0], both[1]


def _work_of(dice: Iterable[Dice], support: int, bits: float) -> tuple[int, int, float]:
    """Work units to add `dice` to a distribution of `support` totals whose counts have `bits` bits."""
    work = 0
    for group in dice:
        step = math.log2(group.sides)
        for _ in range(group.count):
            support += group.sides - 1
            bits += step
            work += support * (1 + int(bits) // _WORD_BITS)
    return work, support, bits


# ------------------------------------------------------------------------------------------------ the d20s


PERCENT: Final = 100  # the faces of concealment's d100 (§6 item 7)
OUT_OF: Final = 400 * PERCENT  # the outcomes of the attack d20, the confirmation d20 and the d100


@dataclass(frozen=True, slots=True)
class _D20s:
    hit_faces: int
    threat_faces: int
    critical_pairs: int
    plain_pairs: int
    plain_rolls: int
    critical_rolls: int
    through: int = PERCENT  # §6 item 7: the d100 faces that let a hit on a concealed defender through

    @property
    def plain(self) -> int:
        """Plain hits out of `OUT_OF`."""
        return self.plain_pairs * self.through

    @property
    def critical(self) -> int:
        """Criticals out of `OUT_OF`."""
        return self.critical_pairs * self.through

    @property
    def hit(self) -> Fraction:
        """Any hit, concealment's d100 passed."""
        return Fraction(self.hit_faces * self.through, 20 * PERCENT)

    @property
    def threat(self) -> Fraction:
        """A threat, concealment's d100 passed (a hit it turns into a miss threatens nothing)."""
        return Fraction(self.threat_faces * self.through, 20 * PERCENT)


def _d20s(attack: Attack, variants: Variants) -> _D20s:
    bonus, ac = attack.attack_bonus, attack.target.ac
    automatic = variants.confirmation is ConfirmationRule.SRD
    hit_faces = sum(hits(face, bonus, ac) for face in range(1, 21))
    threat_faces = sum(hits(face, bonus, ac) for face in range(max(attack.threat, 1), 21))
    confirm_faces = sum(hits(face, bonus, ac, automatic=automatic) for face in range(1, 21))
    critical_pairs = 0 if attack.target.immune_to_criticals else threat_faces * confirm_faces
    always = [m.value for m in attack.multipliers]
    return _D20s(
        hit_faces,
        threat_faces,
        critical_pairs,
        20 * hit_faces - critical_pairs,
        roll_count(always, variants.multipliers),
        roll_count([*always, attack.critical_multiplier], variants.multipliers),
        PERCENT - attack.miss_chance,
    )


def odds_work(attack: Attack, *, variants: Variants = DEFAULT_VARIANTS) -> int:
    """The work units the exact odds of `attack` take, from its numbers alone (nothing is counted).

    The cogs may use it to decide where to run a command; `odds_for` uses it to stay within `ODDS_BUDGET`.
    """
    d = _d20s(attack, variants)
    energy = [r.dice for r in attack.energy]
    work, support, bits = _work_of(_physical(attack, d.plain_rolls), 1, 0.0)
    extra = Dice(attack.damage.count * (d.critical_rolls - d.plain_rolls), attack.damage.sides)
    critical, critical_support, critical_bits = _work_of([extra] if extra.count else [], support, bits)
    work += critical
    # Mixing, the mean and the variance run over every total from 0, the flat bonuses included.
    flat = max(0, d.critical_rolls * attack.damage_bonus, d.plain_rolls * attack.damage_bonus)
    for s, b in ((support, bits), (critical_support, critical_bits)):
        energy_work, s, b = _work_of(energy, s, b)
        work += energy_work + 3 * (s + flat) * (2 + int(b) // _WORD_BITS)
    return work


# ------------------------------------------------------------------------------------------------ approximation


@cache
def _third_moment(sides: int) -> float:
    """E|X - μ|³ of one die of `sides` sides."""
    middle = (sides + 1) / 2
    return sum(abs(face - middle) ** 3 for face in range(1, sides + 1)) / sides


@dataclass(frozen=True, slots=True)
class _Normal:
    """A sum of dice plus a constant, seen as a normal distribution, with its Berry-Esseen bound."""

    mean: Fraction
    variance: Fraction
    low: int
    high: int
    bound: float  # sup over every real x of |P(sum <= x) - Φ((x - mean) / sd)|

    @property
    def sd(self) -> float:
        return math.sqrt(self.variance)

    def cdf(self, x: float) -> float:
        """Φ((x - mean) / sd); a step when nothing is random."""
        if self.variance == 0:
            return 1.0 if x >= self.mean else 0.0
        return 0.5 * math.erfc((float(self.mean) - x) / (self.sd * math.sqrt(2)))


def _normal(dice: Sequence[Dice], constant: int) -> _Normal:
    count = sum(d.count for d in dice)
    mean = Fraction(sum(d.count * (d.sides + 1) for d in dice), 2) + constant
    variance = Fraction(sum(d.count * (d.sides**2 - 1) for d in dice), 12)
    high = sum(d.count * d.sides for d in dice) + constant
    if variance == 0:
        return _Normal(mean, variance, count + constant, high, 0.0)
    third = sum(d.count * _third_moment(d.sides) for d in dice)
    return _Normal(mean, variance, count + constant, high, min(1.0, BERRY_ESSEEN * third / float(variance) ** 1.5))


def _phi(z: float) -> float:
    return math.exp(-z * z / 2) / math.sqrt(2 * math.pi)


@dataclass(frozen=True, slots=True)
class _ApproxHit:
    """The damage of one kind of hit: h(P) + E with P the physical sum, h minimum 1 and DR, E the energy."""

    physical: _Normal
    energy: _Normal
    reduction: int

    @property
    def cut(self) -> int:
        return max(self.reduction, 1)  # every physical total up to here deals cut - reduction (0 or 1)

    @property
    def floor(self) -> int:
        return self.cut - self.reduction

    @property
    def hinge_possible(self) -> bool:
        return self.physical.low <= self.cut

    def h(self, physical: int) -> int:
        return max(physical, self.cut) - self.reduction

    @property
    def low(self) -> int:
        return self.h(self.physical.low) + self.energy.low

    @property
    def high(self) -> int:
        return self.h(self.physical.high) + self.energy.high

    @property
    def bound(self) -> float:
        return self.physical.bound + self.energy.bound + (QUADRATURE_ERROR if self.energy.variance else 0.0)

    def _after_dr(self, s: float) -> float:
        """P(h(P) <= s), P seen as its normal."""
        return 0.0 if s < self.floor else self.physical.cdf(s + self.reduction + 0.5)

    def at_most(self, t: int) -> float:
        """P(damage <= t): ∫ φ_E(e) P(h(P) <= t - e) de, Simpson's rule split where h's floor starts."""
        if t < self.low:
            return 0.0
        if t >= self.high:
            return 1.0
        if not self.hinge_possible:
            merged = _Normal(
                self.physical.mean - self.reduction + self.energy.mean,
                self.physical.variance + self.energy.variance,
                self.low,
                self.high,
                0.0,
            )
            return merged.cdf(t + 0.5)
        energy = self.energy
        if energy.variance == 0:
            return self._after_dr(t - float(energy.mean))
        mean, sd = float(energy.mean), energy.sd
        start, end = mean - 9 * sd, min(mean + 9 * sd, t - self.floor)
        if end <= start:
            return 0.0
        steps = 256
        width = (end - start) / steps
        total = 0.0
        for i in range(steps + 1):
            e = start + i * width
            weight = 1 if i in (0, steps) else 4 if i % 2 else 2
            total += weight * _phi((e - mean) / sd) / sd * self._after_dr(t - e)
        return min(1.0, max(0.0, total * width / 3))

    def moments(self) -> tuple[Fraction, Fraction, bool]:
        """Mean and variance of the damage, and whether they are exact (no total can meet the floor or DR)."""
        p, e = self.physical, self.energy
        if not self.hinge_possible:
            return p.mean - self.reduction + e.mean, p.variance + e.variance, True
        if p.variance == 0:
            return self.h(int(p.mean)) + e.mean, e.variance, True
        mu, sd, r, c = float(p.mean), p.sd, self.reduction, self.floor
        a = self.cut + 0.5
        alpha = (a - mu) / sd
        below = p.cdf(a)
        above = 1 - below
        first = mu * above + sd * _phi(alpha)  # E[P; P > a]
        second = (mu * mu + sd * sd) * above + sd * (a + mu) * _phi(alpha)  # E[P²; P > a]
        mean = c * below + first - r * above
        square = c * c * below + second - 2 * r * first + r * r * above
        return Fraction(mean) + e.mean, Fraction(max(square - mean * mean, 0.0)) + e.variance, False


def _approx_hit(attack: Attack, rolls: int) -> _ApproxHit:
    physical = _normal(_physical(attack, rolls), rolls * attack.damage_bonus)
    return _ApproxHit(physical, _normal([r.dice for r in attack.energy], 0), _reduction(attack))


# ------------------------------------------------------------------------------------------------ the result


@dataclass(frozen=True, slots=True)
class Approximation:
    """How approximate odds were computed and how close they are: shown with them."""

    method: str
    error: float  # every chance of "at most t damage" is within this of the truth (a range: twice this)
    expected_exact: bool  # the expected damage is exact all the same
    expected_error: float  # else it is within this of the truth
    work: int  # the exact count would have taken this many work units
    budget: int  # of the budget left for this attack


@dataclass(frozen=True)
class AttackOdds:
    """The chances of one attack before it is rolled.

    The d20 part is always exact, the damage exact unless `approximation` says how it was approximated.
    """

    miss: Fraction
    hit: Fraction  # any hit, criticals included
    threat: Fraction
    critical: Fraction  # a confirmed critical
    expected_damage: Fraction
    weapon_rolls: tuple[int, int]  # weapon rolls on a plain hit, on a critical
    approximation: Approximation | None = None
    damage_variance: Fraction = Fraction(0)  # of the total damage of the attack (0 for a miss)
    # Exact: the numerators of each total from 0 over one denominator, and each kind of hit as counted.
    _numerators: list[int] = field(default_factory=list, repr=False, compare=False)
    _denominator: int = field(default=1, repr=False, compare=False)
    _plain: _Counted | None = field(default=None, repr=False, compare=False)
    _critical: _Counted | None = field(default=None, repr=False, compare=False)
    # Approximate: (weight, damage) of each kind of hit.
    _approx: tuple[tuple[Fraction, _ApproxHit], ...] = field(default=(), repr=False, compare=False)

    @property
    def exact(self) -> bool:
        """Every chance is exact."""
        return self.approximation is None

    @property
    def normal_hit(self) -> Fraction:
        """A hit that is not a confirmed critical."""
        return self.hit - self.critical

    @property
    def outcomes(self) -> dict[Outcome, Fraction]:
        """Miss, plain hit and critical: they add up to 1."""
        return {Outcome.MISS: self.miss, Outcome.HIT: self.normal_hit, Outcome.CRITICAL: self.critical}

    @cached_property
    def damage(self) -> dict[int, Fraction]:
        """Total damage of the attack (0 for a miss) -> chance; exact odds only (empty when approximate)."""
        return {t: Fraction(n, self._denominator) for t, n in enumerate(self._numerators) if n}

    @cached_property
    def on_hit(self) -> dict[int, Fraction]:
        """Damage of a hit that is not a critical -> chance (empty if none can happen, or approximate)."""
        return _as_chances(self._plain)

    @cached_property
    def on_critical(self) -> dict[int, Fraction]:
        """Damage of a critical -> chance (empty if none can happen, or approximate)."""
        return _as_chances(self._critical)

    def damage_range(self) -> tuple[int, int] | None:
        """The lowest and the highest total above 0 that the attack can deal, if any."""
        if self.exact:
            positive = [t for t in (_first(self._numerators, 1), _last(self._numerators)) if t is not None]
            return (positive[0], positive[1]) if positive else None
        ranges = [(max(h.low, 1), h.high) for _, h in self._approx if h.high >= 1]
        return (min(r[0] for r in ranges), max(r[1] for r in ranges)) if ranges else None

    def damage_at_most(self, total: int) -> Fraction:
        """P(damage <= total), a miss dealing 0."""
        if total < 0:
            return Fraction(0)
        if self.exact:
            return Fraction(sum(self._numerators[: total + 1]), self._denominator)
        return self.miss + sum((w * Fraction(h.at_most(total)) for w, h in self._approx), start=Fraction(0))

    def damage_between(self, low: int, high: int) -> Fraction:
        """P(low <= damage <= high)."""
        if self.exact:
            return Fraction(sum(self._numerators[max(low, 0) : high + 1]), self._denominator)
        return max(self.damage_at_most(high) - self.damage_at_most(low - 1), Fraction(0))


def _first(numerators: list[int], start: int) -> int | None:
    return next((t for t in range(start, len(numerators)) if numerators[t]), None)


def _last(numerators: list[int]) -> int | None:
    top = next((t for t in range(len(numerators) - 1, 0, -1) if numerators[t]), None)
    return top


def _as_chances(counted: _Counted | None) -> dict[int, Fraction]:
    if counted is None:
        return {}
    return {counted.offset + i: Fraction(n, counted.outcomes) for i, n in enumerate(counted.counts) if n}


def _exact(attack: Attack, d: _D20s) -> AttackOdds:
    plain, critical = _count_hits(attack, d.plain_rolls, d.critical_rolls)
    kinds = [(ways, c) for ways, c in ((d.plain, plain), (d.critical, critical)) if ways]
    common = lcm(*(c.outcomes for _, c in kinds)) if kinds else 1
    size = max([1, *(c.offset + len(c.counts) for _, c in kinds)])
    numerators = [0] * size
    numerators[0] = (OUT_OF - d.plain - d.critical) * common
    for pairs, c in kinds:
        scaled = [0] * c.offset + list(map(mul, c.counts, repeat(pairs * (common // c.outcomes))))
        scaled += [0] * (size - len(scaled))
        numerators = list(map(add, numerators, scaled))
    denominator = OUT_OF * common
    totals = range(size)
    first = sum(map(mul, numerators, totals))
    second = sum(map(mul, map(mul, numerators, totals), totals))
    mean = Fraction(first, denominator)
    return AttackOdds(
        miss=1 - d.hit,
        hit=d.hit,
        threat=d.threat,
        critical=Fraction(d.critical, OUT_OF),
        expected_damage=mean,
        weapon_rolls=(d.plain_rolls, d.critical_rolls),
        damage_variance=Fraction(second, denominator) - mean * mean,
        _numerators=numerators,
        _denominator=denominator,
        _plain=plain if d.plain else None,
        _critical=critical if d.critical else None,
    )


def approximate_damage(attack: Attack, *, variants: Variants = DEFAULT_VARIANTS, budget: int = 0) -> AttackOdds:
    """§6-§8 with the damage approximated: the d20 chances exact, each hit's damage as normal distributions.

    Work independent of the dice: a few hundred arithmetic steps per chance asked for.
    """
    d = _d20s(attack, variants)
    parts = [
        (Fraction(ways, OUT_OF), _approx_hit(attack, rolls))
        for ways, rolls in ((d.plain, d.plain_rolls), (d.critical, d.critical_rolls))
        if ways
    ]
    mean = variance_in = Fraction(0)
    exact_mean = True
    mean_error = 0.0
    for weight, hit in parts:
        m, v, exact = hit.moments()
        mean += weight * m
        variance_in += weight * (v + m * m)
        exact_mean = exact_mean and exact
        # h(P) = P - DR + (cut - P)⁺ and E[(cut - P)⁺] = Σ P(P <= j) over j from the lowest total to cut - 1:
        # each of those chances is within the physical part's bound.
        mean_error += float(weight) * hit.physical.bound * max(0, hit.cut - hit.physical.low)
    error = float(sum((w * Fraction(h.bound) for w, h in parts), start=Fraction(0)))
    dice = max([0, *(sum(d.count for d in _physical(attack, r)) for r in (d.plain_rolls, d.critical_rolls))])
    dice += sum(r.dice.count for r in attack.energy)
    method = f"normal approximation of up to {dice} dice (too many to count exactly in time)"
    return AttackOdds(
        miss=1 - d.hit,
        hit=d.hit,
        threat=d.threat,
        critical=Fraction(d.critical, OUT_OF),
        expected_damage=mean,
        weapon_rolls=(d.plain_rolls, d.critical_rolls),
        approximation=Approximation(
            method, min(error, 1.0), exact_mean, mean_error, odds_work(attack, variants=variants), budget
        ),
        damage_variance=max(variance_in - mean * mean, Fraction(0)),
        _approx=tuple(parts),
    )


def odds(attack: Attack, *, variants: Variants = DEFAULT_VARIANTS, budget: int = ODDS_BUDGET) -> AttackOdds:
    """§6-§8, §11: the chances of a miss, a hit, a threat and a critical, and the damage distribution.

    Exact when `odds_work` fits `budget`, else `approximate_damage` (marked, with its error bound). A pure function
    of its arguments, which are immutable and compare by value: the odds of an attack asked again (a character's
    usual attack, most of them) are kept (`ATTACKS_KEPT`), and what they work out on demand (the damage by total,
    for the luck tally and the chart) is worked out once.
    """
    key = (attack, variants, budget)
    found = _KEPT_ATTACKS.get(key)
    if found is not None:
        _KEPT_ATTACKS.move_to_end(key)
        return found
    if odds_work(attack, variants=variants) > budget:
        found = approximate_damage(attack, variants=variants, budget=budget)
    else:
        found = _exact(attack, _d20s(attack, variants))
    if len(found._numerators) <= TOTALS_KEPT:
        _KEPT_ATTACKS[key] = found
        if len(_KEPT_ATTACKS) > ATTACKS_KEPT:
            _KEPT_ATTACKS.popitem(last=False)
    return found


# Odds of the attacks asked most recently: the odds of one took 160 µs of the loop (`/dnd attack` quick, 9 to hit,
# 2d6+4, against AC 18) against a look-up's 5 to 10. Only odds of at most `TOTALS_KEPT` damage totals are kept, as
# each total may come to hold a Fraction or two (`damage`, `on_hit`): some 20 MB at most for all of them.
ATTACKS_KEPT: Final = 128
TOTALS_KEPT: Final = 500
_KEPT_ATTACKS: Final[OrderedDict[tuple[Attack, Variants, int], AttackOdds]] = OrderedDict()


def odds_for(
    attacks: Sequence[Attack], *, variants: Variants = DEFAULT_VARIANTS, budget: int = ODDS_BUDGET
) -> tuple[AttackOdds, ...]:
    """The odds of every attack of one command within one budget.

    The attacks are counted exactly in order while the budget lasts; each one that would overrun it is
    approximated (which costs next to nothing).
    """
    results = []
    left = budget
    for attack in attacks:
        work = odds_work(attack, variants=variants)
        if work <= left:
            left -= work
            results.append(_exact(attack, _d20s(attack, variants)))
        else:
            results.append(approximate_damage(attack, variants=variants, budget=left))
    return tuple(results)


def odds_work_for(attacks: Iterable[Attack], *, variants: Variants = DEFAULT_VARIANTS) -> int:
    """What `odds_for` will spend on `attacks`: never more than `ODDS_BUDGET` plus a little for approximations."""
    left = ODDS_BUDGET
    for attack in attacks:
        work = odds_work(attack, variants=variants)
        if work <= left:
            left -= work
    return ODDS_BUDGET - left
