"""AliensRL shots on a fight's map: the line of fire, the beings found on it, strays onto a square's being.

Checked both ways: forced dice for each step, and the exact odds against an enumeration of every sequence of
dice `fire` can draw (each weighted by its chance), which shares no code with `odds`.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

import pytest

from bot.rules import aliensrl as rules
from bot.rules.aliensrl import Field, Shooter, Targeted
from tests.dice_sources import ScriptedDice

MARINE = Shooter(rank=0, pain=0, accuracy=0)  # skill 0 at distance 5 to 7: a roll rating above 0 may stray


class Path:
    """A dice source that follows a prefix of choices and records the ranges it was asked for."""

    def __init__(self, prefix: list[int]) -> None:
        self.prefix = prefix
        self.asked: list[tuple[int, int]] = []

    def randint(self, a: int, b: int) -> int:
        i = len(self.asked)
        self.asked.append((a, b))
        return self.prefix[i] if i < len(self.prefix) else a


@pytest.fixture(autouse=True)
def _unpriced(monkeypatch: pytest.MonkeyPatch) -> None:
    """`fire` prices each shot with `odds`; the enumeration runs it 10,000s of times and checks `odds` itself."""
    priced = rules.odds
    monkeypatch.setattr(rules, "odds", lambda *a, **k: None)
    monkeypatch.setattr(rules, "priced", priced, raising=False)


def exact(*args: object, **kwargs: object) -> rules.ShotOdds:
    """The odds `fire` prices a shot with (the fixture keeps them out of the enumeration)."""
    return rules.priced(*args, **kwargs)  # type: ignore[attr-defined,no-any-return]


def every_outcome(shooter: Shooter, field: Field, targeted: Targeted) -> dict[str, tuple[Fraction, Fraction]]:
    """Each being's chance to be hit and expected damage, from every dice sequence of one projectile."""
    chance: dict[str, Fraction] = defaultdict(Fraction)
    expected: dict[str, Fraction] = defaultdict(Fraction)
    pending = [[]]
    while pending:
        prefix = pending.pop()
        dice = Path(prefix)
        shot = rules.fire(shooter, dice, field=field, targeted=targeted)
        if len(dice.asked) > len(prefix):  # not a whole sequence yet: branch on the next die
            a, b = dice.asked[len(prefix)]
            pending.extend([*prefix, face] for face in range(a, b + 1))
            continue
        weight = Fraction(1)
        for a, b in dice.asked:
            weight /= b - a + 1
        for being, dealt in shot.damage_to().items():
            chance[being] += weight
            expected[being] += weight * dealt
    return {being: (chance[being], expected[being]) for being in chance}


def test_the_line_of_fire_is_bresenham_s_from_the_shooter_to_the_target() -> None:
    assert rules.line((0, 0), (3, 0)) == ((1, 0), (2, 0), (3, 0))
    assert rules.line((0, 0), (2, 2)) == ((1, 1), (2, 2))
    assert rules.line((0, 0), (6, 3)) == ((1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (6, 3))
    assert rules.line((5, 5), (5, 2)) == ((5, 4), (5, 3), (5, 2))
    assert rules.line((2, 2), (2, 2)) == ()


@pytest.mark.parametrize(
    ("beings", "targeted"),
    [
        ((("A", (6, 0)),), Targeted.RELOCATED),
        ((("A", (6, 0)), ("B", (3, 0)), ("C", (7, 1))), Targeted.RELOCATED),
        ((("A", (6, 0)), ("B", (3, 0)), ("C", (7, 1)), ("D", (5, -1))), Targeted.AIMED),
        ((("A", (6, 0)), ("C", (7, 0)), ("D", (5, 1))), Targeted.AIMED),
    ],
)
def test_map_odds_match_every_dice_sequence(
    beings: tuple[tuple[str, tuple[int, int]], ...], targeted: Targeted
) -> None:
    field = Field((0, 0), (6, 0), beings)
    odds = exact(MARINE, 6, field=field, targeted=targeted)
    assert {being: (chance, mean) for being, chance, mean in odds.beings} == every_outcome(MARINE, field, targeted)


def test_map_odds_at_a_far_target_with_the_two_tile_ring() -> None:
    field = Field((0, 0), (10, 0), (("A", (10, 0)), ("B", (5, 0)), ("C", (12, 2)), ("D", (11, -2))))
    for ring in rules.Ring:
        odds = exact(MARINE, 10, field=field, ring=ring)
        enumerated = every_outcome(MARINE, field, Targeted.RELOCATED) if ring is rules.DEFAULT_RING else None
        if enumerated is not None:
            assert {b: (c, m) for b, c, m in odds.beings} == enumerated
        assert odds.beings[0][0] == "B"  # the being in the way comes first
        assert sum(odds.landing.values()) == odds.may_stray


def test_a_being_in_the_way_missed_on_six_in_ten_then_the_target_is_hit() -> None:
    field = Field((0, 0), (6, 0), (("Alien", (6, 0)), ("Hicks", (3, 0))))
    # d100 50: rating 0, skill 0 -> quality clamped to 1, no stray; Hicks's d10 4: missed; Alien hit outright.
    shot = rules.fire(MARINE, ScriptedDice([50, 4]), field=field)
    (p,) = shot.projectiles
    assert [(m.being, m.face, m.hit, m.at_end) for m in p.meetings] == [
        ("Hicks", 4, False, False),
        ("Alien", None, True, True),
    ]
    assert shot.damage_to() == {"Alien": 1}
    assert rules.reaches_target(p)


def test_a_being_in_the_way_hit_on_seven_to_ten_stops_the_shot() -> None:
    field = Field((0, 0), (6, 0), (("Alien", (6, 0)), ("Hicks", (3, 0))))
    shot = rules.fire(MARINE, ScriptedDice([50, 7]), field=field)
    assert [(m.being, m.hit) for m in shot.projectiles[0].meetings] == [("Hicks", True)]
    assert shot.damage_to() == {"Hicks": 1}
    assert not rules.reaches_target(shot.projectiles[0])


def test_a_stray_lands_on_whoever_stands_there_under_each_reading() -> None:
    # d100 85: rating +1 > skill 0, so it strays at distance 6 to one of the 8 neighbours; choice 4 is (+1, 0).
    assert rules.NEIGHBOURS[4] == (1, 0)
    field = Field((0, 0), (6, 0), (("Alien 1", (6, 0)), ("Alien 2", (7, 0))))
    relocated = rules.fire(MARINE, ScriptedDice([85, 4, 5]), field=field)
    # The path to (7, 0) crosses Alien 1 on (6, 0) first: d10 5 misses it, then Alien 2 is hit outright.
    assert [(m.being, m.face, m.hit) for m in relocated.projectiles[0].meetings] == [
        ("Alien 1", 5, False),
        ("Alien 2", None, True),
    ]
    assert relocated.damage_to() == {"Alien 2": 1}  # quality 0 - 1 clamped to 1: 10% of 10
    aimed = rules.fire(MARINE, ScriptedDice([85, 4, 5, 3]), field=field, targeted=Targeted.AIMED)
    assert [(m.being, m.face, m.hit) for m in aimed.projectiles[0].meetings] == [
        ("Alien 1", 5, False),
        ("Alien 2", 3, False),
    ]
    assert aimed.damage_to() == {}


def test_a_stray_to_an_empty_square_is_spent() -> None:
    field = Field((0, 0), (6, 0), (("Alien", (6, 0)),))
    shot = rules.fire(MARINE, ScriptedDice([85, 0]), field=field)  # strays to (-1, -1) from the aim: (5, -1)
    assert shot.projectiles[0].stray_offset == (-1, -1)
    assert shot.projectiles[0].meetings == ()
    assert shot.damage_to() == {}
    assert shot.to_dict()["damage_to"] == {}


def test_a_burst_adds_each_being_s_damage() -> None:
    burst = Shooter(rank=2, pain=0, accuracy=0, shots=3)  # skill 1 + 2 + 1 point blank at distance 3 = 4
    field = Field((0, 0), (3, 0), (("Alien", (3, 0)), ("Hicks", (1, 0))))
    # Shot 1: d100 1 critical, Hicks d10 2 missed -> Alien 20. Shot 2: d100 50 -> quality 4, Hicks d10 9 hit.
    # Shot 3: d100 4 -> rating -3, quality 7, Hicks d10 1 missed -> Alien 7.
    shot = rules.fire(burst, ScriptedDice([1, 2, 50, 9, 4, 1]), field=field)
    assert shot.damage_to() == {"Alien": 27, "Hicks": 4}
    assert shot.to_dict()["meetings"] == [
        [["Hicks", [1, 0], 2, False], ["Alien", [3, 0], None, True]],
        [["Hicks", [1, 0], 9, True]],
        [["Hicks", [1, 0], 1, False], ["Alien", [3, 0], None, True]],
    ]


def test_the_map_gives_the_aim_so_typed_aims_are_refused() -> None:
    field = Field((0, 0), (3, 4), ())
    for typed in ({"dx": 3}, {"distance": 5}, {"intervening": True}, {"crowded": True}):
        with pytest.raises(rules.ShotError, match="On the map"):
            rules.fire(MARINE, ScriptedDice([]), field=field, **typed)  # type: ignore[arg-type]
    shot = rules.fire(MARINE, ScriptedDice([50]), field=field)
    assert (shot.dx, shot.dy, shot.distance) == (3, 4, 5)  # Angband: 4 + 3 // 2
