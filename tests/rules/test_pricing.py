"""The odds' pricing against the work the count really does, counted in operations, never timed.

`bot.rules.dice_odds` prices an expression from its numbers before counting it, and counts it on the shared
event loop when the price is light (`light`). A price far below the work lets one member hold the loop: the
pricing rated `19d300mi2t4kh1`, a 300-sided keep with a success target, as if its die had 2 faces, and its
count took 116-119 ms. So here the count runs under a meter of its operations:

- every line of Python the count executes in the dice modules counts `LINE` units (a Python pass over one face
  is about four lines, which the pricing rates `_FACE` units);
- every list of weights it builds counts one unit per weight per machine word the weights take (the C loops).

The stated factor: the measured work is at most `FACTOR` times the price, over `FLOOR` (what any count costs
however small its numbers: the calls and the tree walk). The other way the pricing may be far too high (it
takes worst cases: every face of a keep by face, every level of an explosion): a price too high makes an
estimate where an exact count would have been cheap, but never holds the loop.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from bot.rules import dice, dice_odds
from bot.rules.dice import DiceError, parse
from tests.strategies import _EXPRESSION_TEXT, _OTHER_TEXT, EXPRESSIONS

FACTOR = 4
FLOOR = 5_000  # work units
LINE = dice_odds._FACE // 4
_COUNTED_FILES = {dice_odds.__file__, dice.__file__}


class Overrun(Exception):
    """The count went past the work it may take; it is stopped there."""


class Meter:
    """The operations of the counting code run inside `metered`, in the pricing's work units."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.lines = 0
        self.words = 0

    @property
    def work(self) -> int:
        return self.words + LINE * self.lines

    def built(self, counts: list[int]) -> None:
        largest = max(counts, default=0)
        self.words += len(counts) * (1 + largest.bit_length() // dice_odds._WORD_BITS)
        if self.work > self.limit:
            raise Overrun

    def line(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            self.lines += 1
            if self.work > self.limit:
                raise Overrun
        return self.line

    def call(self, frame: FrameType, event: str, arg: Any) -> Any:
        return self.line if frame.f_code.co_filename in _COUNTED_FILES else None


@contextmanager
def metered(limit: int) -> Iterator[Meter]:
    """Count the operations of `dice_odds` (and the dice conditions it asks) until the block ends or `limit`."""
    meter = Meter(limit)
    plain = dice_odds._Dist

    class Counted(plain):  # type: ignore[valid-type, misc]
        __slots__ = ()

        def __init__(self, offset: int, counts: list[int]) -> None:
            plain.__init__(self, offset, counts)
            meter.built(counts)

    before = sys.gettrace()
    dice_odds._Dist = Counted  # type: ignore[misc]
    sys.settrace(meter.call)
    try:
        yield meter
    finally:
        sys.settrace(before)
        dice_odds._Dist = plain  # type: ignore[misc]


def measured(node: dice.Expression, limit: int) -> int | None:
    """The work of counting `node` exactly, or None when it went past `limit`."""
    try:
        with metered(limit) as meter:
            dice_odds._count(node)
    except Overrun:
        return None
    return meter.work


def priced(node: dice.Expression) -> int | None:
    """The price of counting `node`; None when it is not counted exactly (out of the budget, or an estimate)."""
    node = dice_odds._first_roll(node)
    work = dice_odds.odds_work(node)
    if work is None or work > dice_odds.ODDS_BUDGET:
        return None
    if dice_odds.cap_error(dice_odds._terms(node)) >= dice_odds.EXACT_ERROR:
        return None
    return work


PRICING = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,  # the same expressions on every run
    database=None,
    phases=[Phase.explicit, Phase.generate, Phase.shrink],  # no explain phase: it traces too
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


# -- the tests -----------------------------------------------------------------------------------------------
def test_the_meter_counts_more_work_for_more_dice() -> None:
    # A sum: each die more is one convolution more. (A small keep is counted by its kept dice, nearly whatever
    # the number of dice: 3d6kh2 and 12d6kh2 cost the same.)
    small = measured(parse("3d6"), 10**9)
    large = measured(parse("30d6"), 10**9)
    assert small is not None and large is not None
    assert 4 * small < large


def test_the_meter_stops_a_count_at_its_limit() -> None:
    assert measured(parse("20d20kh3"), 1_000) is None


@pytest.mark.parametrize(
    "text",
    [
        "19d300mi2t4kh1",  # was priced as a 2-faced die: 49,000 units, counted on the loop in 116-119 ms
        "19d1000t81f1dh3ma198",  # the same keep over successes and failures, 198 faces after ma
        "60d20>=10mi2kh1",
        "1d8ma153 % 5d100",  # a Python pass over every pair of totals, was priced at a quarter of a face each
        "{1d100ma95 / 5d20mi3} - 5",
    ],
)
def test_a_mispriced_expression_is_priced_by_the_numbers_that_drive_its_cost(text: str) -> None:
    node = parse(text)
    price = dice_odds.odds_work(node)
    assert price is not None
    limit = FACTOR * max(price, FLOOR)
    assert measured(node, limit) is not None, f"{text}: counting it took more than {FACTOR} times its price"


def test_a_300_sided_keep_with_a_success_target_is_not_counted_on_the_loop() -> None:
    assert not dice_odds.light(parse("19d300mi2t4kh1"))
    assert dice_odds.light(parse("4d6kh3"))  # the common keep still is


@PRICING
@given(text=EXPRESSIONS)
def test_no_exact_count_does_more_than_a_few_times_its_price(text: str) -> None:
    try:
        node = parse(text)
    except DiceError:
        return
    price = priced(node)
    if price is None:  # estimated: sampling is bounded by SAMPLE_DICE, the normal approximation by formulas
        return
    limit = FACTOR * max(price, FLOOR)
    work = measured(dice_odds._first_roll(node), limit)
    assert work is not None, f"{text}: counting it took more than {limit} units; priced {price}"


# -- every expression the parser accepts rolls, and its odds are found -------------------------------------
ACCEPTED = settings(PRICING, max_examples=300)


@pytest.mark.slow
@ACCEPTED
@given(text=st.one_of(EXPRESSIONS, _EXPRESSION_TEXT, _OTHER_TEXT), seed=st.integers(0, 2**32))
def test_an_expression_the_parser_accepts_rolls_and_has_odds(text: str, seed: int) -> None:
    """No refusal once the text reads: a roll refused after its dice were taken would spend a fair roll number.

    The odds, counted before any die is drawn, may refuse nothing either: `2d2!!>5` (compounding that never
    triggers) and `1d3r<2!=1` (an explosion only on faces the reroll takes away) once raised there.
    """
    try:
        tree = parse(text)
    except DiceError:
        return  # refused before anything is rolled or counted
    result = dice.roll(tree, random.Random(seed))
    assert result.total == result.tree.total
    found = dice_odds.odds(tree, random.Random(dice_odds.SAMPLE_SEED))
    assert found.low <= found.high


@pytest.mark.parametrize("text", ["2d2!!>5", "1d3r<2!=1", "19d300mi2t4kh1", "1d20r<18!"])
def test_the_expressions_that_once_answered_sorry_roll_and_have_odds(text: str) -> None:
    tree = parse(text)
    assert dice.roll(tree, random.Random(1)).total >= 0
    assert dice_odds.odds(tree, random.Random(dice_odds.SAMPLE_SEED)).denominator > 0
