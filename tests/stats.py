"""Statistics for the sampling tests: Pearson's chi-square test and its distribution (scipy is not a dependency),
and the exact distribution of a roll from every sequence of faces the real roller can draw (`enumerate_roller`)."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from typing import Any

from bot.rules import dice
from bot.rules.dice import parse


def p_value(observed: Counter[Any], expected: dict[Any, Fraction], n: int) -> float:
    """Pearson's chi-square test of `n` draws against exact chances; one in a zero-chance category fails outright."""
    assert sum(expected.values()) == 1
    if any(expected.get(k, 0) == 0 for k in observed):
        return 0.0
    statistic = sum((observed[k] - n * float(p)) ** 2 / (n * float(p)) for k, p in expected.items())
    return chi2_sf(statistic, len(expected) - 1)


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square with df degrees of freedom: the regularized upper incomplete gamma Q(df/2, x/2).

    Series for the lower function when x < a + 1, Lentz's continued fraction otherwise (Numerical Recipes §6.2).
    """
    a, z = df / 2, x / 2
    if z <= 0:
        return 1.0
    prefix = math.exp(-z + a * math.log(z) - math.lgamma(a))
    if z < a + 1:
        term = total = 1 / a
        n = a
        while abs(term) > abs(total) * 1e-16:
            n += 1
            term *= z / n
            total += term
        return max(0.0, 1 - prefix * total)
    tiny = 1e-300
    b = z + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return prefix * h


class _Branch(Exception):
    def __init__(self, low: int, high: int) -> None:
        self.low, self.high = low, high


class _Prefix:
    """Dice that show the faces of `prefix`, then stop the roll at the first draw it does not know."""

    def __init__(self, prefix: list[int]) -> None:
        self.prefix = prefix
        self.drawn = 0

    def randint(self, a: int, b: int) -> int:
        if self.drawn == len(self.prefix):
            raise _Branch(a, b)
        face = self.prefix[self.drawn]
        self.drawn += 1
        return face


def enumerate_roller(text: str, max_draws: int = 12) -> tuple[dict[int, Fraction], Fraction]:
    """Every sequence of faces the real roller can draw for `text`, each with its chance: the distribution of
    the first roll's total, and the chance left out because a sequence needed more than `max_draws` dice."""
    expression = parse(text)
    first = expression
    while isinstance(first, dice.Several | dice.Repeat):
        first = first.items[0] if isinstance(first, dice.Several) else first.inner
    # Each sequence's chance is 1 / (the product of its dice's sides): counted by that denominator, in integers,
    # and made Fractions once at the end (Fraction arithmetic per sequence was a third of the time).
    counts: dict[int, dict[int, int]] = {}
    left_out: dict[int, int] = {}
    stack: list[tuple[list[int], int]] = [([], 1)]
    while stack:
        prefix, denominator = stack.pop()
        source = _Prefix(prefix)
        try:
            total = dice.roll(first, source).total
        except _Branch as branch:
            if len(prefix) >= max_draws:
                left_out[denominator] = left_out.get(denominator, 0) + 1
                continue
            sides = branch.high - branch.low + 1
            stack.extend(([*prefix, face], denominator * sides) for face in range(branch.low, branch.high + 1))
            continue
        by_denominator = counts.setdefault(total, {})
        by_denominator[denominator] = by_denominator.get(denominator, 0) + 1

    def chance(by_denominator: dict[int, int]) -> Fraction:
        return sum((Fraction(count, denominator) for denominator, count in by_denominator.items()), Fraction(0))

    return {total: chance(by_denominator) for total, by_denominator in counts.items()}, chance(left_out)
