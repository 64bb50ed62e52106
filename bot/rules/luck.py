"""Luck: what the dice gave against what the odds shown at the time of each roll promised.

Each roll records, per outcome it can have (a hit, a critical hit, damage, a natural 20 or 1), three numbers:
what happened, what was expected, and the variance of what could have happened. The expectation and the
variance come from the exact odds the roll showed before it was made, so they are exact too. Summed over
many independent rolls they give a z-score, (observed - expected) / sqrt(variance): the number of standard
deviations the dice were away from their promise.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Final, NamedTuple

from bot.rules.dice import DiceSource

# The outcomes /stats knows, in the order it shows them, with the words it uses.
OUTCOMES: Final = {
    "hits": "Hits",
    "crits": "Critical hits",
    "damage": "Damage",
    "nat20": "Natural 20s",
    "nat1": "Natural 1s",
}
# Outcomes where more is worse for the roller: a natural 1 is bad luck.
UNLUCKY: Final = frozenset({"nat1"})
# |z| below this is ordinary luck; from here on unusual, and from REMARKABLE on remarkable.
UNUSUAL: Final = 2.0
REMARKABLE: Final = 3.0


class Tally(NamedTuple):
    """One outcome of a roll, or summed over rolls: what happened, what was expected, the variance."""

    observed: float
    expected: float
    variance: float

    def plus(self, other: Tally) -> Tally:
        """The two tallies summed (of independent rolls, so the variances add too)."""
        return Tally(self.observed + other.observed, self.expected + other.expected, self.variance + other.variance)


Luck = dict[str, Tally]  # outcome -> its tally: what a roll log row keeps (as [observed, expected, variance])


def event(happened: bool, chance: Fraction) -> Tally:
    """A yes/no outcome with a known chance: observed 0 or 1, expected p, variance p(1 - p)."""
    return Tally(float(happened), float(chance), float(chance * (1 - chance)))


def amount(value: int, distribution: Mapping[int, Fraction]) -> Tally:
    """A number drawn from a known distribution (e.g. damage): observed, its mean and its variance.

    Exact, in whole numbers over one common denominator D: with p = n / D, the mean is sum(v n) / D and the
    variance (D sum(v^2 n) - sum(v n)^2) / D^2. Summing `Fraction`s instead reduces every partial sum, which
    took 0.6 s for a distribution of 20,000 totals (10d999 damage with a critical).
    """
    if not distribution:
        return Tally(float(value), 0.0, 0.0)
    common = math.lcm(*(p.denominator for p in distribution.values()))
    first = second = 0
    for v, p in distribution.items():
        ways = p.numerator * (common // p.denominator)
        first += v * ways
        second += v * v * ways
    mean = Fraction(first, common)
    variance = Fraction(common * second - first * first, common * common)
    return Tally(float(value), float(mean), float(variance))


def d20_faces(faces: Iterable[int]) -> Luck:
    """Natural 20s and 1s among d20 faces, each with chance 1/20."""
    faces = list(faces)
    tally: Luck = {}
    for key, face in (("nat20", 20), ("nat1", 1)):
        for rolled in faces:
            add(tally, {key: _NATURAL[rolled == face]})
    return tally


# A d20's tally of one natural face (chance 1/20), missed and rolled, worked out once: nearly every roll counts
# them, and from Fractions each face took some 20 µs of the loop.
_NATURAL: Final = {happened: event(happened, Fraction(1, 20)) for happened in (False, True)}


def add(total: Luck, more: Mapping[str, Tally]) -> Luck:
    """Add one roll's tally (or several rolls') into `total`, in place; returns `total`."""
    for key, tally in more.items():
        before = total.get(key)
        total[key] = tally if before is None else before.plus(tally)
    return total


@dataclass(frozen=True, slots=True)
class Row:
    """One outcome over many rolls."""

    key: str
    observed: float
    expected: float
    variance: float
    rolls: int  # how many rolls had this outcome to give

    @property
    def label(self) -> str:
        """The outcome's name as /stats shows it."""
        return OUTCOMES.get(self.key, self.key)

    @property
    def z(self) -> float | None:
        """Standard deviations from the expectation; None when nothing could vary."""
        if self.variance <= 0:
            return None
        return (self.observed - self.expected) / math.sqrt(self.variance)

    @property
    def lucky_z(self) -> float | None:
        """The z-score turned so that positive is good for the roller."""
        z = self.z
        return None if z is None else (-z if self.key in UNLUCKY else z)


def rows(tallies: Iterable[Mapping[str, Tally]]) -> list[Row]:
    """Sum many rolls' tallies into one row per outcome, in the order of OUTCOMES."""
    total: Luck = {}
    counts: dict[str, int] = {}
    for tally in tallies:
        add(total, tally)
        for key in tally:
            counts[key] = counts.get(key, 0) + 1
    order = [k for k in OUTCOMES if k in total] + sorted(k for k in total if k not in OUTCOMES)
    return [Row(k, *total[k], rolls=counts[k]) for k in order]


def verdict(z: float | None) -> str:
    """Plain words for a z-score where positive is good for the roller."""
    if z is None:
        return "nothing to judge yet"
    size = abs(z)
    if size < UNUSUAL:
        return "within ordinary luck"
    strength = "remarkably" if size >= REMARKABLE else "unusually"
    return f"{strength} {'lucky' if z > 0 else 'unlucky'}"


def overall(found: Iterable[Row]) -> float | None:
    """The headline z: of the hits when there are any, else of the first outcome that can vary."""
    candidates = [r for r in found if r.lucky_z is not None]
    for row in candidates:
        if row.key == "hits":
            return row.lucky_z
    return candidates[0].lucky_z if candidates else None


class CountingDice:
    """A dice source that passes draws through from another and keeps every (a, b, face), for the d20 tally."""

    __slots__ = ("draws", "source")

    def __init__(self, source: DiceSource) -> None:
        self.source = source
        self.draws: list[tuple[int, int, int]] = []

    def randint(self, a: int, b: int) -> int:
        """The next face from the wrapped source, recorded."""
        face = self.source.randint(a, b)
        self.draws.append((a, b, face))
        return face

    def d20_luck(self) -> Luck:
        """Natural 20s and 1s among every d20 drawn so far (confirmations and rerolls included)."""
        return d20_faces(face for a, b, face in self.draws if (a, b) == (1, 20))
