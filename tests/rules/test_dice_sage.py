"""RPG Sage's tests of a total in words (#30 items 1 and 5): `1d20 gteq 11`, `1d20+5 dc 15`.

Sage lets a player test a total with words where a phone keyboard hides < and >: eq, gt, gteq (gte), lt, lteq
(lte), and, in its game modes, ac, dc and vs for "meets or beats". Read as a label they tested nothing: the roll
was titled "gteq 11" and its total shown as if no test were asked.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from bot.rules.dice import parse, roll
from bot.rules.dice_odds import SAMPLE_SEED, Method, odds
from tests.dice_sources import ScriptedDice
from tests.stats import enumerate_roller


@pytest.mark.parametrize(
    ("text", "face", "total"),
    [
        ("1d20 gteq 11", 11, 1),
        ("1d20 gteq 11", 10, 0),
        ("1d20 gte 11", 11, 1),
        ("1d20 gt 10", 10, 0),  # strictly
        ("1d20 gt 10", 11, 1),
        ("1d20 + 5 lt 15", 9, 1),
        ("1d20 + 5 lt 15", 10, 0),
        ("1d100 lteq 25", 25, 1),
        ("1d100 lte 25", 26, 0),
        ("1d2 eq 1", 1, 1),
        ("1d2 EQ 1", 2, 0),
        ("1d20+5 ac 15", 10, 1),
        ("1d20+5 dc 15", 9, 0),
        ("1d20+4 vs 12", 8, 1),
    ],
)
def test_a_test_in_words_compares_the_total(text: str, face: int, total: int) -> None:
    result = roll(text, ScriptedDice([face]))
    assert result.total == total
    assert result.label is None
    word = text.split()[-2].lower()
    assert any(note.startswith(f"{word} tests the total as in RPG Sage") for note in result.notes), result.notes


def test_the_words_after_the_test_are_the_label() -> None:
    result = roll("1d20+5 dc 15 Perception", ScriptedDice([12]))
    assert (result.total, result.label) == (1, "Perception")


@pytest.mark.parametrize("text", ["1d20 Stealth vs the guard", "1d20 gt", "2d6 AC"])
def test_a_test_word_without_its_number_stays_a_label(text: str) -> None:
    result = roll(text, ScriptedDice([5, 5]))
    assert result.label is not None and result.total in (5, 10)


@pytest.mark.parametrize(
    ("text", "holds"),
    [("1d20+5 dc 15", Fraction(11, 20)), ("1d6 gt 3", Fraction(1, 2)), ("2d4 lteq 5", Fraction(10, 16))],
)
def test_a_tests_odds_are_its_exact_chance(text: str, holds: Fraction) -> None:
    found = odds(parse(text), random.Random(SAMPLE_SEED))
    expected, left_out = enumerate_roller(text, max_draws=4)
    assert found.method is Method.EXACT and left_out == 0
    assert {total: found.exactly(total) for total in expected} == expected
    assert found.exactly(1) == expected[1] == holds
