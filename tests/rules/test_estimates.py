"""Estimated odds state an honest error: every shown chance comes with an interval that holds at its confidence.

Of 41 sampled estimates, 24 used to show a chance outside the "±" they printed (one standard error, not a
bound), and some came from 3 rolls. Here the sampled and the normal estimates of expressions whose exact odds
are counted are checked against those exact odds, number by number, with fixed seeds.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction

import pytest

from bot.rules import dice_odds
from bot.rules.dice import parse, roll
from bot.rules.dice_odds import CONFIDENCE, MIN_SAMPLES, Method, Odds, normal, sampled, wilson
from bot.ui.dice import odds_line

# Small expressions the count answers exactly, over every family of notation.
EXPRESSIONS = [
    "3d6",
    "4d6k3",
    "2d20kh1",
    "1d20adv+5",
    "3d6!",
    "2d10r1",
    "4d6ro1",
    "6d10t7",
    "5d10t8f1",
    "1d100",
    "2d6*2",
    "{2d6, 1d12}kh1",
    "4dF",
    "3d8mi2",
    "1d6+1d8+1d10",
    "10d6",
    "3d6!!",
    "4d4-2d4",
    "8d6dl3",
    "5d8kl2",
    "2d6!p",
    "3d10k>5",
    "1d20ra1",
    "(1d8+3)/2",
]
SEEDS = [1, 2, 3]


def exact(text: str) -> Odds:
    found = dice_odds.odds(parse(text), random.Random(0))
    assert found.method is Method.EXACT, text
    return found


def checked_numbers(estimate: Odds, truth: Odds, totals: list[int]) -> list[bool]:
    """Whether each number an answer would show for these totals lies inside the interval shown with it."""
    inside: list[bool] = []
    for total in totals:
        for interval, value in (
            (estimate.below_interval(total), truth.below(total)),
            (estimate.exactly_interval(total), truth.exactly(total)),
            (estimate.at_least_interval(total), truth.at_least(total)),
        ):
            inside.append(interval[0] - 1e-12 <= value <= interval[1] + 1e-12)
    low, high = estimate.mean_interval()
    inside.append(low - 1e-9 <= truth.mean <= high + 1e-9)
    return inside


def test_sampled_intervals_hold_at_their_confidence_against_exact_answers() -> None:
    inside: list[bool] = []
    for text in EXPRESSIONS:
        truth = exact(text)
        for seed in SEEDS:
            estimate = sampled(parse(text), random.Random(seed))
            assert estimate.method is Method.SAMPLED
            assert estimate.denominator >= MIN_SAMPLES
            # The totals an answer would be about: rolled ones, as /roll shows them, and a few targets.
            rolled = [roll(parse(text), random.Random(seed * 100 + i)).total for i in range(8)]
            inside += checked_numbers(estimate, truth, rolled)
    share = sum(inside) / len(inside)
    assert len(inside) >= 1800
    assert share >= CONFIDENCE - 0.01, share


def test_normal_bounds_always_hold() -> None:
    for text in ["3d6", "10d6", "1d6+1d8+1d10", "4d4-2d4", "2d6*2", "3d8mi2", "6d10t7", "4dF", "20d10", "12d8+5"]:
        truth = exact(text)
        approximation = normal(parse(text))
        assert approximation is not None and approximation.method is Method.NORMAL
        totals = list(range(truth.low - 2, truth.high + 3))
        assert all(checked_numbers(approximation, truth, totals)), text


def test_a_keep_has_no_normal_approximation() -> None:
    assert normal(parse("4d6k3")) is None
    assert normal(parse("1d20ra1")) is None


def test_wilson_holds_near_the_ends() -> None:
    # A chance of 1 in 1000 seen 0 times in 100 rolls: the interval still reaches it, where p ± z·se is [0, 0].
    low, high = wilson(0, 100)
    assert low == 0 and high > 0.04
    low, high = wilson(50, 100)
    assert 0.36 < low < 0.5 < high < 0.64


def test_never_an_estimate_from_a_handful_of_rolls() -> None:
    # 1000 d2 rerolling 1s draw some 2,000 dice a roll: a few rolls would fit the sampling budget, so none are shown.
    found = dice_odds.odds(parse("1000d2r1"), random.Random(17))
    assert found.method is Method.TOO_COSTLY
    line = odds_line(roll("1000d2r1", random.Random(1)), found)
    assert line == "Odds: too costly to estimate: not even 100 sample rolls fit the budget."
    assert "rolls," not in line


@pytest.mark.parametrize("text", ["52d100", "1000d10000", "3d6!k2", "100d10000*2", "{1d6, 1d8, 1d10}kh2+40d100"])
def test_the_estimate_that_promises_less_error_is_chosen(text: str) -> None:
    chosen = dice_odds.odds(parse(text), random.Random(17))
    assert chosen.method in (Method.NORMAL, Method.SAMPLED)
    approximation = normal(parse(text))
    if approximation is not None:
        other = sampled(parse(text), random.Random(17))
        errors = {Method.NORMAL: approximation.error, Method.SAMPLED: other.error}
        if other.method is Method.SAMPLED:
            assert chosen.error == min(errors.values())


def test_a_large_sum_is_approximated_rather_than_sampled() -> None:
    # 52d100 was sampled from 74 rolls (±5.8% of one standard error); the approximation is bounded for certain.
    assert dice_odds.odds(parse("52d100"), random.Random(17)).method is Method.NORMAL


_SHOWN = re.compile(r"(<?>?[\d.]+)% \(([\d.]+)–([\d.]+)%\)")


def test_the_line_shows_every_chance_with_its_interval_and_the_truth_lies_inside() -> None:
    inside = []
    for text in EXPRESSIONS[:12]:
        truth = exact(text)
        estimate = sampled(parse(text), random.Random(5))
        result = roll(parse(text), random.Random(6))
        target = result.total
        line = odds_line(result, estimate, target=target)
        assert line.startswith(f"Odds (sampled: {estimate.denominator:,} rolls, 99% intervals): mean ≈")
        shown = _SHOWN.findall(line)
        assert len(shown) == 3, line
        values = [truth.below(result.total), truth.exactly(result.total), truth.at_least(target)]
        for (_, low, high), value in zip(shown, values, strict=True):
            inside.append(Fraction(low) / 100 <= value <= Fraction(high) / 100)
    assert sum(inside) >= len(inside) - 1


@pytest.mark.parametrize("text", ["1d6!", "1d10!>8", "1d4!", "1d100!", "1d20!=1"])
def test_an_exploding_die_in_closed_form_agrees_with_its_count(text: str) -> None:
    # 1000d10000! is approximated from these moments: counting one d10000's chain took 170 ms.
    term = dice_odds._term(parse(text))
    closed = dice_odds._explosion_moments(term)
    truth = exact(text)  # the count, its chain followed until a deeper one is below 10^-9
    centre = float(truth.mean)
    pairs = zip(truth.values, truth.counts, strict=True)
    weights = [(value, Fraction(count, truth.denominator)) for value, count in pairs]
    variance = sum(float(w) * (v - centre) ** 2 for v, w in weights)
    third = sum(float(w) * abs(v - centre) ** 3 for v, w in weights)
    assert abs(closed.mean - truth.mean) < Fraction(1, 10**6)
    assert closed.variance == pytest.approx(variance, rel=1e-6)
    assert closed.third >= third * (1 - 1e-6)  # a bound, never less


def test_a_huge_exploding_sum_is_approximated_with_its_bound() -> None:
    found = dice_odds.odds(parse("1000d10000!"), random.Random(17))
    assert found.method is Method.NORMAL
    assert found.error < 0.03
