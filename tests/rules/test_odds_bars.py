"""The bars of /odds: each bar's chance, at-least and at-most shares, and every folded tail, against an
independent enumeration of the faces (itertools.product), never against `dice_odds` itself."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from itertools import product
from math import prod

import pytest

from bot.rules import dice, dice_odds
from bot.rules.dice_odds import Method, Odds
from bot.rules.odds_bars import TAIL, Bar, Bars, Fold, View, bars, sampled_bars

ROWS = 30


def found(expression: str) -> Odds:
    return dice_odds.odds(dice.parse(expression), random.Random(dice_odds.SAMPLE_SEED))


def enumerated(sides: list[int], total: Callable[[tuple[int, ...]], int]) -> dict[int, Fraction]:
    """The exact chance of each total, from every combination of faces."""
    counts = Counter(total(faces) for faces in product(*(range(1, s + 1) for s in sides)))
    outcomes = prod(sides)
    return {t: Fraction(c, outcomes) for t, c in sorted(counts.items())}


# expression, the dice's sides, the total from the faces
ENUMERATED: list[tuple[str, list[int], Callable[[tuple[int, ...]], int]]] = [
    ("3d6", [6] * 3, sum),
    ("4d6k3", [6] * 4, lambda f: sum(sorted(f)[1:])),
    ("2d6*10", [6] * 2, lambda f: 10 * sum(f)),  # a total in ten can happen: one bar each, no empty bins
    ("6d6", [6] * 6, sum),  # 31 totals: one tail folded, every other total its own bar
    ("2d20", [20] * 2, sum),  # 39 totals: bins of 2, the last one total
    ("1d100", [100], sum),  # no tail under 1%: bins of 5
    ("1d45", [45], sum),  # bins of 2, the last one total
    ("1d20*1d20*1d6", [20, 20, 6], prod),  # 1 to 2,400: bins of 100, which folding would not narrow
    ("2d6*2d6*2d6", [6] * 6, lambda f: (f[0] + f[1]) * (f[2] + f[3]) * (f[4] + f[5])),  # folds, then bins of 50
    ("2d10-2d10", [10] * 4, lambda f: f[0] + f[1] - f[2] - f[3]),
]


def check_against(shown: Bars, exact: dict[int, Fraction], limit: int = ROWS) -> None:
    """Every bar's three shares are sums over the enumeration; the bars cover every total, once, in order."""
    assert 0 < len(shown.bars) <= limit
    assert shown.bars[0].first == min(exact) and shown.bars[-1].last == max(exact)
    for before, after in zip(shown.bars, shown.bars[1:], strict=False):
        assert before.last < after.first
        assert not [t for t in exact if before.last < t < after.first]  # nothing falls between two bars
    for bar in shown.bars:
        assert bar.chance == sum(p for t, p in exact.items() if bar.first <= t <= bar.last)
        assert bar.at_least == sum(p for t, p in exact.items() if t >= bar.first)
        assert bar.at_most == sum(p for t, p in exact.items() if t <= bar.last)
        if bar.fold is not Fold.NONE:
            assert bar.chance < TAIL  # a fold holds a tail of under 1%
            assert len([t for t in exact if bar.first <= t <= bar.last]) >= 2  # a tail of one total is its own bar
    inner = [bar for bar in shown.bars if bar.fold is Fold.NONE]
    assert all(bar.last - bar.first + 1 == shown.width for bar in inner[:-1])
    assert inner[-1].last - inner[-1].first + 1 == (shown.short or shown.width)


@pytest.mark.parametrize(("expression", "sides", "total"), ENUMERATED, ids=[e[0] for e in ENUMERATED])
def test_each_bar_holds_the_enumerated_shares(
    expression: str, sides: list[int], total: Callable[[tuple[int, ...]], int]
) -> None:
    check_against(bars(found(expression), ROWS), enumerated(sides, total))


@pytest.mark.parametrize("limit", [5, 7, 10, 13, 20, 29])
@pytest.mark.parametrize(("expression", "sides", "total"), ENUMERATED[2:], ids=[e[0] for e in ENUMERATED[2:]])
def test_any_number_of_bars_keeps_the_shares_exact(
    expression: str, sides: list[int], total: Callable[[tuple[int, ...]], int], limit: int
) -> None:
    check_against(bars(found(expression), limit), enumerated(sides, total), limit)


def test_totals_that_fit_are_one_bar_each_and_nothing_is_folded() -> None:
    shown = bars(found("4d6k3"), ROWS)
    assert [(b.first, b.last) for b in shown.bars] == [(t, t) for t in range(3, 19)]
    assert not shown.folded and shown.width == 1
    assert [b.first for b in bars(found("2d6*10"), ROWS).bars] == list(range(20, 121, 10))


def test_folding_gives_back_the_room_it_does_not_need() -> None:
    # 6d6 has 31 totals for 30 bars: one tail folds two totals, the least likely end (6 and 7, or 35 and 36).
    shown = bars(found("6d6"), ROWS)
    assert len(shown.bars) == ROWS and shown.width == 1
    folds = [bar for bar in shown.bars if bar.fold is not Fold.NONE]
    assert len(folds) == 1
    assert (folds[0].first, folds[0].last) in ((6, 7), (35, 36))
    assert folds[0].chance == Fraction(1 + 6, 6**6)


def test_a_wide_spread_folds_both_tails_under_the_share_when_that_narrows_the_bins() -> None:
    shown = bars(found("2d6*2d6*2d6"), ROWS)  # 8 to 1,728: bins of 100 over all, of 50 between the folds
    assert shown.bars[0].fold is Fold.LOW and shown.bars[-1].fold is Fold.HIGH and shown.width == 50
    assert shown.bars[0].last == 24 and shown.bars[-1].first == 1056
    # A bin from 0 would start below the lowest total, 8: they start at a multiple of half their width.
    assert [(b.first, b.last) for b in shown.bars[1:3]] == [(25, 74), (75, 124)]
    plain = bars(found("1d20*1d20*1d6"), ROWS)  # 1 to 2,400: bins of 100 either way, so nothing is folded
    assert not plain.folded and plain.width == 100 and len(plain.bars) == 24
    assert [(b.first, b.last) for b in bars(found("1d1000"), ROWS).bars][:2] == [(1, 50), (51, 100)]
    # The bins start at a multiple of their width when the low fold can give the totals up.
    huge = bars(found("1000d10000!"), ROWS)  # a normal approximation, 1,000 to 50,000,000
    assert huge.bars[0].fold is Fold.LOW and huge.bars[-1].fold is Fold.HIGH
    assert huge.width in (10_000, 20_000, 50_000) and huge.short == 0
    assert all(bar.first % huge.width == 0 for bar in huge.bars[1:-1])
    assert huge.bars[0].chance < TAIL and huge.bars[-1].chance < TAIL


def exploding_d6(depth: int) -> dict[int, Fraction]:
    """One d6! followed `depth` explosions deep: 6k + f with chance 6^-(k+1) for f in 1..5."""
    return {6 * k + f: Fraction(1, 6 ** (k + 1)) for k in range(depth) for f in range(1, 6)}


def test_3d6_explode_stops_at_the_totals_a_roll_reaches_with_the_exact_tail() -> None:
    die = exploding_d6(12)  # what it leaves out, 6^-13 a die, lies past total 72
    below: dict[int, Fraction] = Counter()
    for faces in product(die.items(), repeat=3):
        below[sum(t for t, _ in faces)] += prod(p for _, p in faces)
    shown = bars(found("3d6!"), ROWS)
    fold = shown.bars[-1]
    assert fold.fold is Fold.HIGH and fold.first <= 40  # it drew bars out to 270
    assert len(shown.bars) == ROWS and shown.width == 1
    tail = 1 - sum(p for t, p in below.items() if t < fold.first)
    assert fold.chance == tail == Fraction(239, 31104)  # 0.8%: the sum of every total it holds, to the last digit
    assert all(bar.chance >= Fraction(1, 2000) for bar in shown.bars)  # no row of "<0.1%" (there were 25)


def test_a_sample_gets_the_bars_it_can_fill() -> None:
    assert [sampled_bars(n) for n in (100, 358, 2_000)] == [9, 14, 25]
    odds = found("8d10!d2")  # a keep among exploding dice: sampled
    assert odds.method is Method.SAMPLED and len(odds.values) > sampled_bars(odds.denominator)
    shown = bars(odds, ROWS)
    assert len(shown.bars) <= sampled_bars(odds.denominator)
    for bar in shown.bars:  # each bar's 99% interval holds its share
        for low, high in bar.intervals:
            assert 0 <= low <= high <= 1
        assert bar.intervals[0][0] <= bar.chance <= bar.intervals[0][1]


def test_too_costly_odds_have_no_bars() -> None:
    assert bars(found("1000d2r1"), ROWS) == Bars(())


def test_a_bar_shows_each_view() -> None:
    bar = Bar(3, 4, Fraction(1, 10), Fraction(9, 10), Fraction(2, 10))
    assert [bar.value(view) for view in (View.NORMAL, View.AT_LEAST, View.AT_MOST)] == [
        Fraction(1, 10),
        Fraction(9, 10),
        Fraction(2, 10),
    ]
