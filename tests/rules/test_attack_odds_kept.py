"""An attack's odds are counted once and kept: the same attack asked again (equal by value) gets the same odds.

Kept per attack, variant readings and budget, within `ATTACKS_KEPT` attacks of at most `TOTALS_KEPT` damage totals;
whatever was kept, each attack's chances are its own, checked here against the d20's faces counted one by one.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import pytest

from bot.rules import dnd35 as dnd
from bot.rules.dnd35.odds import _KEPT_ATTACKS as KEPT
from bot.rules.dnd35.odds import ATTACKS_KEPT, TOTALS_KEPT


@pytest.fixture(autouse=True)
def nothing_kept() -> Iterator[None]:
    KEPT.clear()
    yield
    KEPT.clear()


def hit_chance(bonus: int, ac: int) -> Fraction:
    """§6: a natural 20 always hits, a natural 1 always misses, else d20 + bonus reaches the AC; face by face."""
    return Fraction(sum(1 for face in range(1, 21) if face == 20 or (face != 1 and face + bonus >= ac)), 20)


def test_an_attack_asked_again_gets_the_odds_kept_for_it() -> None:
    first = dnd.odds(dnd.quick_attack(9, "2d6+4", 18))
    again = dnd.odds(dnd.quick_attack(9, "2d6+4", 18))  # another object, equal by value
    assert again is first
    KEPT.clear()
    afresh = dnd.odds(dnd.quick_attack(9, "2d6+4", 18))
    assert afresh is not first
    assert (afresh.miss, afresh.hit, afresh.critical, afresh.expected_damage, afresh.damage) == (
        first.miss,
        first.hit,
        first.critical,
        first.expected_damage,
        first.damage,
    )


def test_other_attacks_and_readings_get_their_own_odds() -> None:
    for _ in range(2):  # the second time round, every one of them is kept
        for bonus, ac in ((9, 18), (9, 25), (2, 18), (15, 10)):
            assert dnd.odds(dnd.quick_attack(bonus, "2d6+4", ac)).hit == hit_chance(bonus, ac)
    attack = dnd.quick_attack(20, "1d8", 18, crit="19-20/x2")
    srd = dnd.odds(attack)
    nwn = dnd.odds(attack, variants=dnd.Variants(confirmation=dnd.ConfirmationRule.NWN))
    assert nwn is not srd
    # §7: a threat (19-20) confirms when a second roll hits: a natural 1 misses by the SRD, not in NWN's engine.
    assert srd.critical == Fraction(2, 20) * hit_chance(20, 18) == Fraction(2, 20) * Fraction(19, 20)
    assert nwn.critical == Fraction(2, 20)
    assert dnd.odds(attack, budget=1).approximation is not None  # over its budget: approximated, kept apart
    assert dnd.odds(attack) is srd


def test_the_kept_odds_stay_within_their_bounds() -> None:
    for ac in range(ATTACKS_KEPT + 20):
        dnd.odds(dnd.quick_attack(5, "1d6", ac))
    assert len(KEPT) == ATTACKS_KEPT
    KEPT.clear()
    many = dnd.odds(dnd.quick_attack(5, "20d50", 10))  # up to 1,000 damage: too many totals to keep
    assert len(many.damage) > TOTALS_KEPT
    assert not KEPT
