"""The luck tally behind /stats: exact expectations and variances, z-scores and their plain words."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from bot.rules import luck


def test_an_event_keeps_its_chance_and_variance() -> None:
    assert luck.event(True, Fraction(11, 20)) == luck.Tally(1.0, 0.55, pytest.approx(0.2475))
    assert luck.event(False, Fraction(1)) == luck.Tally(0.0, 1.0, 0.0)


def test_an_amount_keeps_the_mean_and_variance_of_its_distribution() -> None:
    d6 = {face: Fraction(1, 6) for face in range(1, 7)}
    assert luck.amount(6, d6) == luck.Tally(6.0, 3.5, pytest.approx(35 / 12))


def test_rows_add_up_rolls_in_a_fixed_order_and_count_them() -> None:
    first = {"damage": luck.Tally(5.0, 4.0, 2.0), "hits": luck.Tally(1.0, 0.5, 0.25)}
    second = {"hits": luck.Tally(0.0, 0.5, 0.25), "nat1": luck.Tally(1.0, 0.05, 0.0475)}
    found = luck.rows([first, second])
    assert [(r.key, r.observed, r.expected, r.variance, r.rolls) for r in found] == [
        ("hits", 1.0, 1.0, 0.5, 2),
        ("damage", 5.0, 4.0, 2.0, 1),
        ("nat1", 1.0, 0.05, 0.0475, 1),
    ]
    assert found[1].z == pytest.approx(1 / math.sqrt(2))
    assert found[2].lucky_z == pytest.approx(-(0.95 / math.sqrt(0.0475)))  # a natural 1 is bad luck


@pytest.mark.parametrize(
    ("z", "words"),
    [
        (None, "nothing to judge yet"),
        (0.0, "within ordinary luck"),
        (1.99, "within ordinary luck"),
        (-1.99, "within ordinary luck"),
        (2.0, "unusually lucky"),
        (-2.5, "unusually unlucky"),
        (3.0, "remarkably lucky"),
        (-7.0, "remarkably unlucky"),
    ],
)
def test_verdicts(z: float | None, words: str) -> None:
    assert luck.verdict(z) == words


def test_the_headline_is_the_hits_else_the_first_outcome_that_varies() -> None:
    crits, damage = luck.Tally(1.0, 0.0, 0.0), luck.Tally(3.0, 1.0, 1.0)
    rows = luck.rows([{"crits": crits, "damage": damage, "hits": luck.Tally(1.0, 0.5, 0.25)}])
    assert luck.overall(rows) == pytest.approx(1.0)
    assert luck.overall(luck.rows([{"crits": crits, "damage": damage}])) == pytest.approx(2.0)
    assert luck.overall([]) is None


def test_counting_dice_pass_faces_through_and_tally_only_d20s() -> None:
    source = random.Random(7)
    counted = luck.CountingDice(source)
    faces = [counted.randint(1, 20), counted.randint(1, 8), counted.randint(1, 20)]
    again = random.Random(7)
    assert faces == [again.randint(1, 20), again.randint(1, 8), again.randint(1, 20)]
    tally = counted.d20_luck()
    d20s = [faces[0], faces[2]]
    assert tally["nat20"] == luck.Tally(float(d20s.count(20)), 0.1, pytest.approx(2 * 0.05 * 0.95))
    assert tally["nat1"][0] == float(d20s.count(1))


def test_the_tally_over_every_d20_face_is_exactly_its_expectation() -> None:
    """Enumerating all 20 faces: the observed counts average to the expected 1/20 each."""
    observed = [luck.d20_faces([face]) for face in range(1, 21)]
    for key in ("nat20", "nat1"):
        assert sum(t[key][0] for t in observed) / 20 == pytest.approx(observed[0][key][1])
