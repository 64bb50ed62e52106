"""Small keeps of large dice are counted exactly: `5d100kh1`, `8d100d3`, `12d100kh3` used to be sampled.

The keep count now follows only the dice still to be kept (once they are placed, the rest show any face not
reached yet), each state one packed integer: the work grows with the number kept, not with the pool. Checked
against brute force: every tuple of faces, and every sequence of draws of the real roller.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bot.rules.dice import DiceError, parse
from bot.rules.dice_odds import LIGHT_WORK, ODDS_BUDGET, Method, odds, odds_work
from tests.stats import enumerate_roller


def brute_force(count: int, sides: int, mode: str, amount: int) -> dict[int, Fraction]:
    """Every tuple of faces, sorted, the kept ones summed: the chance of each total."""
    totals: Counter[int] = Counter()
    amount = min(amount, count)
    for faces in itertools.product(range(1, sides + 1), repeat=count):
        ranked = sorted(faces, reverse=mode in ("kh", "dh"))
        kept = ranked[:amount] if mode in ("kh", "kl") else ranked[amount:]
        totals[sum(kept)] += 1
    return {total: Fraction(weight, sides**count) for total, weight in totals.items()}


def exact_odds(text: str) -> dict[int, Fraction]:
    found = odds(parse(text), random.Random(0))
    assert found.method is Method.EXACT, text
    return {value: Fraction(count, found.denominator) for value, count in zip(found.values, found.counts, strict=True)}


@pytest.mark.parametrize("text", ["5d100kh1", "8d100d3", "4d100kh1", "12d100kh3", "20d20kh2", "200d20kh5", "1000d6kh1"])
def test_small_keeps_of_large_dice_are_exact_within_the_budget(text: str) -> None:
    work = odds_work(parse(text))
    assert work is not None and work <= ODDS_BUDGET
    assert odds(parse(text), random.Random(0)).method is Method.EXACT


def test_keeping_the_highest_of_five_d100() -> None:
    # P(max <= m) = (m/100)^5: the mean is the sum over m of P(max >= m).
    found = odds(parse("5d100kh1"), random.Random(0))
    assert found.mean == sum(1 - Fraction(m - 1, 100) ** 5 for m in range(1, 101))
    assert found.at_least(100) == 1 - Fraction(99, 100) ** 5


@pytest.mark.parametrize(
    ("text", "count", "sides", "mode", "amount"), [("3d20kh1", 3, 20, "kh", 1), ("4d10dl3", 4, 10, "dl", 3)]
)
def test_against_every_tuple_of_faces(text: str, count: int, sides: int, mode: str, amount: int) -> None:
    assert exact_odds(text) == brute_force(count, sides, mode, amount)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 4),
    st.integers(1, 9),
    st.sampled_from(["kh", "kl", "dh", "dl"]),
    st.integers(1, 5),
)
def test_random_keeps_match_brute_force(count: int, sides: int, mode: str, amount: int) -> None:
    assert exact_odds(f"{count}d{sides}{mode}{amount}") == brute_force(count, sides, mode, amount)


@pytest.mark.slow
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(1, 3),
    st.sampled_from([2, 3, 4, 6]),
    st.sampled_from(["kh1", "kl2", "dh1", "dl2", "kh3"]),
    st.sampled_from(["", "ro1", "r1", "mi2", "ma3", "t3", "t4f1", "!!", "ro<2mi2"]),
)
def test_random_keeps_with_other_modifiers_match_the_roller(count: int, sides: int, keep: str, other: str) -> None:
    text = f"{count}d{sides}{other}{keep}"
    try:
        parse(text)
    except DiceError:
        assume(False)
        return
    found, left_out = enumerate_roller(text, max_draws=8)
    assume(left_out < Fraction(1, 100))
    counted = odds(parse(text), random.Random(0))
    assert counted.method is Method.EXACT
    slack = left_out + Fraction(counted.error)
    for total, chance in found.items():
        assert abs(counted.exactly(total) - chance) <= slack, (text, total)


def test_a_keep_the_loop_can_afford_is_still_counted_there() -> None:
    work = odds_work(parse("4d6k3"))
    assert work is not None and work <= LIGHT_WORK
