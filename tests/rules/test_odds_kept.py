"""Light odds kept per expression (`bot.rules.dice_odds.light_odds`): what is kept is what a fresh count gives,
equal expressions share one count, and neither the number of expressions nor the totals they hold grow past
their bounds however many new expressions members type."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.rules import dice_odds
from bot.rules.dice import DiceError, parse
from tests.strategies import _EXPRESSION_TEXT, EXPRESSIONS


@pytest.fixture(autouse=True)
def forgotten() -> Iterator[None]:
    dice_odds._KEPT.clear()
    yield
    dice_odds._KEPT.clear()


def fresh(text: str) -> dice_odds.Odds:
    return dice_odds.odds(parse(text), random.Random(dice_odds.SAMPLE_SEED))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(EXPRESSIONS, _EXPRESSION_TEXT))
def test_kept_odds_are_a_fresh_count(text: str) -> None:
    try:
        tree = parse(text)
    except DiceError:
        return
    first = dice_odds.light_odds(tree)
    if not dice_odds.light(tree):
        assert first is None
        return
    assert first == fresh(text)
    again = dice_odds.light_odds(parse(text))
    assert again is first  # counted once
    assert again == fresh(text)


def test_equal_expressions_share_one_count() -> None:
    kept = dice_odds.light_odds(parse("4d6kh3+1d20"))
    assert dice_odds.light_odds(parse("4d6kh3 + 1d20")) is kept
    assert dice_odds.light_odds(parse("4d6kh3+1d20 Roll for Initiative")) is kept  # a label is not rolled
    assert dice_odds.light_odds(parse("4d6kh3+1d20; 2d6")) is kept  # of several rolls, the first
    assert dice_odds.light_odds(parse("4d6kh3+1d19")) != kept
    assert len(dice_odds._KEPT) == 2


def test_heavy_odds_are_neither_counted_nor_kept() -> None:
    assert dice_odds.light_odds(parse("19d300mi2t4kh1")) is None
    assert dice_odds.light_odds(parse("100d100")) is None
    assert len(dice_odds._KEPT) == 0


def test_the_expressions_kept_are_bounded() -> None:
    oldest = dice_odds.light_odds(parse("1d20+0"))
    for bonus in range(1, dice_odds.ODDS_KEPT + 20):
        dice_odds.light_odds(parse(f"1d20+{bonus}"))
    assert len(dice_odds._KEPT) == dice_odds.ODDS_KEPT
    newest = dice_odds.light_odds(parse(f"1d20+{dice_odds.ODDS_KEPT + 19}"))
    assert dice_odds._KEPT.get(parse(f"1d20+{dice_odds.ODDS_KEPT + 19}")) is newest
    again = dice_odds.light_odds(parse("1d20+0"))  # forgotten, so counted again: equal, not the same
    assert again == oldest
    assert again is not oldest


def test_the_most_recently_used_stays() -> None:
    first = dice_odds.light_odds(parse("1d20+0"))
    for bonus in range(1, dice_odds.ODDS_KEPT + 20):
        assert dice_odds.light_odds(parse("1d20+0")) is first  # asked again and again: never the oldest
        dice_odds.light_odds(parse(f"1d20+{bonus}"))
    assert dice_odds.light_odds(parse("1d20+0")) is first


def test_the_totals_kept_are_bounded() -> None:
    wide = dice_odds.light_odds(parse("1d10000"))
    assert wide is not None and len(wide.values) == 10_000
    for bonus in range(1, dice_odds.TOTALS_KEPT // 10_000 + 3):
        dice_odds.light_odds(parse(f"1d10000+{bonus}"))
        assert dice_odds._KEPT.held <= dice_odds.TOTALS_KEPT
    assert dice_odds._KEPT.held == sum(len(kept.values) for kept in dice_odds._KEPT._odds.values())
    assert len(dice_odds._KEPT) == dice_odds.TOTALS_KEPT // 10_000
    assert dice_odds._KEPT.get(parse("1d10000")) is None  # the oldest went first


def test_odds_wider_than_the_bound_are_not_kept() -> None:
    small = dice_odds._Kept(entries=4, totals=15)
    wide, narrow = fresh("1d20"), fresh("1d6")
    small.put(parse("1d6"), narrow)
    small.put(parse("1d20"), wide)
    assert small.get(parse("1d20")) is None
    assert small.get(parse("1d6")) is narrow
    assert small.held == 6
