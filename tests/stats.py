"""Statistics for the sampling tests: Pearson's chi-square test and its distribution (scipy is not a dependency)."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from typing import Any


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
