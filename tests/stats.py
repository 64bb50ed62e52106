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
        self.chance = Fraction(1)

    def randint(self, a: int, b: int) -> int:
        if self.drawn == len(self.prefix):
            raise _Branch(a, b)
        face = self.prefix[self.drawn]
        self.drawn += 1
        self.chance /= b - a + 1
        return face


def enumerate_roller(text: str, max_draws: int = 12) -> tuple[dict[int, Fraction], Fraction]:
    """Every sequence of faces the real roller can draw for `text`, each with its chance: the distribution of
    the first roll's total, and the chance left out because a sequence needed more than `max_draws` dice."""
    expression = parse(text)
    first = expression
    while isinstance(first, dice.Several | dice.Repeat):
        first = first.items[0] if isinstance(first, dice.Several) else first.inner
    found: dict[int, Fraction] = {}
    left_out = Fraction(0)
    stack: list[tuple[list[int], Fraction]] = [([], Fraction(1))]
    while stack:
        prefix, chance = stack.pop()
        source = _Prefix(prefix)
        try:
            total = dice.roll(first, source).total
        except _Branch as branch:
            if len(prefix) >= max_draws:
                left_out += chance
                continue
            share = chance / (branch.high - branch.low + 1)
            stack.extend(([*prefix, face], share) for face in range(branch.low, branch.high + 1))
            continue
        found[total] = found.get(total, Fraction(0)) + chance
    return found, left_out
