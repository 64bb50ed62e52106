"""A roll's odds line is worked out once per odds, total and target, and is the same line as worked out afresh.

The line's chances come from Fractions (80 µs a roll); they are kept per odds object, by its id, each entry
holding its odds so that an id freed and reused by other odds never shows another expression's chances.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from fractions import Fraction

import pytest

from bot.rules import dice, dice_odds
from bot.ui import dice as ui
from tests.dice_sources import ScriptedDice


@pytest.fixture(autouse=True)
def nothing_kept() -> Iterator[None]:
    ui._shown.clear()
    yield
    ui._shown.clear()


def afresh(result: dice.RollResult, odds: dice_odds.Odds, target: int | None = None) -> str:
    """The line with nothing kept."""
    ui._shown.clear()
    return ui.odds_line(result, odds, target=target)


def enumerated_chances(sides: int, total: int) -> tuple[Fraction, Fraction]:
    """The chance of a total below `total` and of exactly `total` for 2 dice of `sides`, from every pair of faces."""
    pairs = list(itertools.product(range(1, sides + 1), repeat=2))
    below = Fraction(sum(1 for a, b in pairs if a + b < total), len(pairs))
    exactly = Fraction(sum(1 for a, b in pairs if a + b == total), len(pairs))
    return below, exactly


def test_every_total_and_target_shows_the_line_worked_out_afresh() -> None:
    odds = dice_odds.light_odds(dice.parse("2d6"))
    assert odds is not None
    for first, second in itertools.product(range(1, 7), repeat=2):
        result = dice.roll("2d6", ScriptedDice([first, second]))
        for target in (None, 2, 7, 12, 13):
            kept = ui.odds_line(result, odds, target=target)
            assert kept == ui.odds_line(result, odds, target=target) == afresh(result, odds, target)
            below, exactly = enumerated_chances(6, first + second)
            assert f"better than {ui.chance(min(below, 1 - Fraction(1, 10**9)))} of rolls" in kept
            assert f"{ui.chance(exactly)} roll exactly {first + second}" in kept


def test_other_odds_never_show_the_chances_kept_for_one() -> None:
    result = dice.roll("2d6", ScriptedDice([6, 6]))
    six = dice_odds.light_odds(dice.parse("2d6"))
    eight = dice_odds.light_odds(dice.parse("2d8"))
    assert six is not None and eight is not None
    assert "2.8% roll exactly 12" in ui.odds_line(result, six)
    # The same total against other odds: 5/64 for 2d8, whatever the line kept for 2d6.
    assert f"{ui.chance(enumerated_chances(8, 12)[1])} roll exactly 12" in ui.odds_line(result, eight)
    assert "2.8% roll exactly 12" in ui.odds_line(result, six)


def test_odds_whose_id_is_reused_get_their_own_chances() -> None:
    result = dice.roll("2d6", ScriptedDice([6, 6]))
    six = dice_odds.odds(dice.parse("2d6"), random.Random(1))
    ui.odds_line(result, six)
    other = dice_odds.odds(dice.parse("2d8"), random.Random(1))
    # As if `six` had been freed and `other` made at its address: the entry's odds are not `other`.
    ui._shown[id(other)] = (six, ui._shown.pop(id(six))[1])
    assert ui.odds_line(result, other) == afresh(result, other)


def test_the_kept_chances_stay_within_their_bounds() -> None:
    result = dice.roll("1d6", ScriptedDice([3]))
    for sides in range(2, 2 + ui.CHANCES_ODDS + 10):
        found = dice_odds.odds(dice.parse(f"1d{sides}"), random.Random(1))
        ui.odds_line(result, found)
    assert len(ui._shown) == ui.CHANCES_ODDS
    found = dice_odds.odds(dice.parse("1d6"), random.Random(1))
    for target in range(ui.CHANCES_KEPT + 10):
        ui.odds_line(result, found, target=target)
    assert len(ui._shown[id(found)][1]) <= ui.CHANCES_KEPT


def test_odds_of_many_totals_are_not_held() -> None:
    found = dice_odds.light_odds(dice.parse(f"1d{ui.CHANCES_TOTALS + 1}"))
    assert found is not None
    result = dice.roll(f"1d{ui.CHANCES_TOTALS + 1}", ScriptedDice([7]))
    line = ui.odds_line(result, found)
    assert not ui._shown
    assert f"{ui.chance(Fraction(1, ui.CHANCES_TOTALS + 1))} roll exactly 7" in line
