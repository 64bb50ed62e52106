"""The AliensRL accuracy core against the rules reference (aliensrl.md), by hand, by enumeration and by sampling.

The oracle below (`reference_*`) is written from the reference's text alone: its own copy of the §3 table,
the §4 formula, the §5 quality and damage rules and the §6 stray rules. It never calls the module's helpers.
"""

from __future__ import annotations

import functools
import math
import random
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import pytest

from bot.rules import aliensrl
from bot.rules.aliensrl import (
    NEIGHBOURS,
    ROLL_TABLE,
    Ring,
    Shooter,
    ShotError,
    angband_distance,
    damage,
    fire,
    may_stray,
    odds,
    quality,
    reaches_target,
    roll_band,
    skill_rating,
    skill_terms,
    stray_offsets,
)
from tests.dice_sources import ScriptedDice
from tests.stats import p_value

# ---------------------------------------------------------------------------------------------------------
# The oracle, from the reference's text.

# §3: (first face, last face, rating); None is the critical (-100). Typed in from the reference's table.
REFERENCE_TABLE = [
    (1, 2, None),
    (3, 5, -3),
    (6, 10, -2),
    (11, 20, -1),
    (21, 80, 0),
    (81, 90, 1),
    (91, 95, 2),
    (96, 98, 3),
    (99, 100, 4),
]
CRIT = None


def reference_rating(face: int, table: list[tuple[int, int, int | None]] = REFERENCE_TABLE) -> int | None:
    for low, high, rating in table:
        if low <= face <= high:
            return rating
    raise AssertionError(face)


def reference_skill(rank: int, pain: int, accuracy: int, d: int, *, old_point_blank: bool = False) -> int:
    # §4: 1 + (ranks or -1) - pain + accuracy - long range + point blank (subtracted under the seed's old rule).
    skill = 1
    skill += rank if rank > 0 else -1
    skill -= pain
    skill += accuracy
    long_range = (d - 5) // 3
    if long_range > 0:
        skill -= long_range
    if d < 4:
        skill += -(4 - d) if old_point_blank else 4 - d
    return skill


def reference_quality(skill: int, rating: int | None) -> int:
    if rating is CRIT:
        return 11
    q = skill - rating
    return 1 if q < 1 else 10 if q > 10 else q


def reference_damage(ammo: int, modifier: int, q: int) -> int:
    share = Fraction(2) if q == 11 else Fraction(q, 10)
    return max(1, math.floor((ammo + modifier) * share))


def reference_strays(skill: int, rating: int | None) -> bool:
    # §6.2: roll rating - skill rating > 0; a critical never strays.
    return rating is not CRIT and rating - skill > 0


NEIGHBOUR_SQUARES = {(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)}
CHEBYSHEV_RING = {(x, y) for x in range(-2, 3) for y in range(-2, 3) if 2 in (abs(x), abs(y))}
# §9.6: "(±2,0), (0,±2), (±2,±1), (±1,±2)".
ANGBAND_RING = {(2, 0), (-2, 0), (0, 2), (0, -2)} | {
    (sx * a, sy * b) for a, b in ((2, 1), (1, 2)) for sx in (1, -1) for sy in (1, -1)
}
WITHIN_TWO = {(x, y) for x in range(-2, 3) for y in range(-2, 3)} - {(0, 0)}
RINGS = {Ring.CHEBYSHEV: CHEBYSHEV_RING, Ring.ANGBAND: ANGBAND_RING, Ring.WITHIN_TWO: WITHIN_TWO}


def reference_squares(d: int, ring: Ring) -> set[tuple[int, int]]:
    if d < 5:
        return set()
    if d < 9:
        return NEIGHBOUR_SQUARES
    return RINGS[ring]


@dataclass
class ReferenceOdds:
    quality: dict[int, Fraction]
    may_stray: Fraction
    landing: dict[tuple[int, int], Fraction]
    on_target: Fraction
    expected_to_target: Fraction
    expected_to_being: Fraction


def reference_odds(
    rank: int,
    pain: int,
    accuracy: int,
    d: int,
    *,
    ammo: int = 10,
    modifier: int = 0,
    intervening: bool = False,
    ring: Ring = Ring.CHEBYSHEV,
    old_point_blank: bool = False,
    table: list[tuple[int, int, int | None]] = REFERENCE_TABLE,
) -> ReferenceOdds:
    """Every d100 face, every stray square, every d10: the chances of one projectile."""
    skill = reference_skill(rank, pain, accuracy, d, old_point_blank=old_point_blank)
    squares = reference_squares(d, ring)
    result = ReferenceOdds({}, Fraction(0), {}, Fraction(0), Fraction(0), Fraction(0))
    for face in range(1, 101):
        chance = Fraction(1, 100)
        rating = reference_rating(face, table)
        q = reference_quality(skill, rating)
        dealt = reference_damage(ammo, modifier, q)
        result.quality[q] = result.quality.get(q, Fraction(0)) + chance
        strays = reference_strays(skill, rating)
        if strays:
            result.may_stray += chance
        moved = strays and bool(squares)
        for square in squares if moved else ():
            result.landing[square] = result.landing.get(square, Fraction(0)) + chance / len(squares)
        for d10 in range(1, 11) if intervening else (None,):
            branch = chance / 10 if intervening else chance
            being_hit = d10 is not None and d10 >= 7  # missed on 1..6 (6 in 10)
            if being_hit:
                result.expected_to_being += branch * dealt
            elif not moved:
                result.on_target += branch
                result.expected_to_target += branch * dealt
    return result


def assert_same_odds(shooter: Shooter, d: int, expected: ReferenceOdds, **options: object) -> None:
    got = odds(shooter, d, **options)
    assert {q: p for q, p in got.quality.items() if p} == expected.quality
    assert sum(got.quality.values()) == 1
    assert got.may_stray == expected.may_stray
    assert got.landing == expected.landing
    assert got.on_target == expected.on_target
    assert got.expected_to_target == expected.expected_to_target
    assert got.expected_to_being == expected.expected_to_being
    assert got.critical == expected.quality.get(11, 0)
    assert got.full == expected.quality.get(10, 0)


# ---------------------------------------------------------------------------------------------------------
# Distance, skill, quality, damage, strays.


@pytest.mark.parametrize(
    ("dx", "dy", "d"),
    [
        (1, 0, 1),
        (0, -1, 1),
        (1, 1, 1),
        (-1, -1, 1),
        (2, 0, 2),
        (2, 1, 2),
        (1, -2, 2),
        (2, 2, 3),
        (3, 1, 3),
        (3, 2, 4),
        (3, 3, 4),
        (4, 0, 4),
        (5, 2, 6),
        (-4, 7, 9),
        (9, 3, 10),
        (6, 6, 9),
        (7, -5, 9),
        (10, 10, 15),
        (0, -7, 7),
        (-1000, 1, 1000),
    ],
)
def test_angband_distance(dx: int, dy: int, d: int) -> None:
    assert angband_distance(dx, dy) == d
    assert angband_distance(dy, dx) == d
    assert angband_distance(-dx, -dy) == d


# (distance, long range term, point blank term), worked by hand from §4's prose:
# "point blank +3/+2/+1 at 1..3, 0 from 4; long range 0 up to 7, 1 at 8-10, 2 at 11-13, 3 at 14-16".
HAND_TERMS = [
    (1, 0, 3),
    (2, 0, 2),
    (3, 0, 1),
    (4, 0, 0),
    (5, 0, 0),
    (6, 0, 0),
    (7, 0, 0),
    (8, -1, 0),
    (9, -1, 0),
    (10, -1, 0),
    (11, -2, 0),
    (13, -2, 0),
    (14, -3, 0),
    (16, -3, 0),
    (17, -4, 0),
    (1000, -331, 0),
]


@pytest.mark.parametrize(("d", "long_range", "point_blank"), HAND_TERMS)
def test_skill_terms_by_distance(d: int, long_range: int, point_blank: int) -> None:
    shooter = Shooter(rank=2, pain=0, accuracy=0)
    terms = skill_terms(shooter, d)
    assert [t.value for t in terms] == [1, 2, 0, 0, long_range, point_blank]
    assert [t.label for t in terms] == [
        "base",
        "advanced skill",
        "pain",
        "weapon accuracy",
        f"long range (d {d})",
        f"point blank (d {d})",
    ]
    assert skill_rating(shooter, d) == 3 + long_range + point_blank == reference_skill(2, 0, 0, d)


@pytest.mark.parametrize(
    ("rank", "name"), [(0, "untrained"), (1, "basic"), (2, "advanced"), (3, "expert"), (4, "master")]
)
def test_rank_terms_untrained_is_minus_one(rank: int, name: str) -> None:
    [_, term, *_] = skill_terms(Shooter(rank=rank, pain=0, accuracy=0), 4)
    assert term.label == (name if rank == 0 else f"{name} skill")
    assert term.value == (-1 if rank == 0 else rank)
    assert skill_rating(Shooter(rank=rank, pain=0, accuracy=0), 4) == (0 if rank == 0 else 1 + rank)


def test_pain_subtracts_and_accuracy_adds() -> None:
    assert skill_rating(Shooter(rank=2, pain=3, accuracy=0), 4) == 0  # "Pain (-3)" means -3
    assert skill_rating(Shooter(rank=2, pain=0, accuracy=-2), 4) == 1
    assert skill_rating(Shooter(rank=2, pain=0, accuracy=4), 4) == 7
    assert skill_rating(Shooter(rank=0, pain=100, accuracy=-20, shots=1), 1000) == 1 - 1 - 100 - 20 - 331
    for rank in range(5):
        for pain in (0, 1, 7):
            for accuracy in (-3, 0, 2):
                for d in range(1, 30):
                    expected = reference_skill(rank, pain, accuracy, d)
                    assert skill_rating(Shooter(rank=rank, pain=pain, accuracy=accuracy), d) == expected


@pytest.mark.parametrize(
    ("skill", "rating", "q"),
    [
        (5, -3, 8),
        (5, 4, 1),
        (5, 0, 5),
        (1, 0, 1),
        (0, 0, 1),  # raw 0 clamps to 1
        (0, 4, 1),  # raw -4 clamps to 1
        (-451, 4, 1),
        (9, 0, 9),
        (10, 0, 10),
        (8, -2, 10),
        (14, -3, 10),  # raw 17 clamps to 10
        (5, -100, 11),  # the critical: 11, not clamped to 10
        (-451, -100, 11),  # nor built from the subtraction
    ],
)
def test_quality_clamps_and_the_critical(skill: int, rating: int, q: int) -> None:
    assert quality(skill, rating) == q


@pytest.mark.parametrize(
    ("ammo", "modifier", "q", "dealt"),
    [
        (10, 0, 1, 1),
        (10, 0, 5, 5),
        (10, 0, 10, 10),
        (10, 0, 11, 20),  # 200%, not 110%
        (3, 0, 1, 1),  # 0.3 -> 0 -> at least 1
        (3, 0, 3, 1),  # 0.9 -> 0 -> 1
        (3, 0, 4, 1),  # 1.2 -> 1
        (3, 0, 7, 2),  # 2.1 -> 2
        (3, 0, 10, 3),
        (3, 0, 11, 6),
        (7, 2, 5, 4),  # (7 + 2) x 0.5 = 4.5 -> 4: the modifier is added before the share
        (7, 2, 9, 8),  # 8.1 -> 8
        (7, 2, 11, 18),
        (1, 0, 10, 1),
        (1, 0, 11, 2),
        (25, 4, 3, 8),  # 8.7 -> 8
    ],
)
def test_damage(ammo: int, modifier: int, q: int, dealt: int) -> None:
    shooter = Shooter(rank=1, pain=0, accuracy=0, ammo_damage=ammo, damage_modifier=modifier)
    assert damage(shooter, q) == dealt == reference_damage(ammo, modifier, q)


@pytest.mark.parametrize(
    ("skill", "rating", "strays"),
    [
        (0, 1, True),
        (3, 4, True),
        (-3, -2, True),  # -2 - (-3) = 1 > 0
        (0, 0, False),  # difference 0 does not stray
        (4, 4, False),
        (-1, -1, False),
        (1, 0, False),
        (5, 4, False),
        (0, -1, False),  # a good roll never strays (the sign of §9.3)
        (5, -100, False),  # the critical never strays ...
        (-200, -100, False),  # ... even when -100 - skill would be positive
        (-451, -100, False),
    ],
)
def test_may_stray_sign_and_equality(skill: int, rating: int, strays: bool) -> None:
    assert may_stray(skill, rating) is strays


def test_stray_offsets_by_distance_and_ring() -> None:
    for d in range(1, 5):
        for ring in Ring:
            assert stray_offsets(d, ring) == ()
    for d in range(5, 9):
        for ring in Ring:
            assert stray_offsets(d, ring) == NEIGHBOURS
            assert len(set(NEIGHBOURS)) == 8 and set(NEIGHBOURS) == NEIGHBOUR_SQUARES
    for d in (9, 10, 14, 1000):
        assert stray_offsets(d) == stray_offsets(d, Ring.CHEBYSHEV)  # the reference's default
        for ring, size in [(Ring.CHEBYSHEV, 16), (Ring.ANGBAND, 12), (Ring.WITHIN_TWO, 24)]:
            squares = stray_offsets(d, ring)
            assert len(squares) == size
            assert len(set(squares)) == size  # all distinct
            assert (0, 0) not in squares
            assert set(squares) == RINGS[ring]
    assert all(angband_distance(*s) == 2 for s in ANGBAND_RING)
    assert all(max(abs(x), abs(y)) == 2 for x, y in CHEBYSHEV_RING)


def test_roll_table_is_the_references_and_covers_every_face() -> None:
    assert [(b.low, b.high, b.rating) for b in ROLL_TABLE] == [
        (low, high, -100 if rating is CRIT else rating) for low, high, rating in REFERENCE_TABLE
    ]
    assert [b.default for b in ROLL_TABLE] == [False, False, False, True, True, True, True, True, True]
    for face in range(1, 101):
        rating = reference_rating(face)
        assert roll_band(face).rating == (-100 if rating is CRIT else rating)
    for face in (0, 101):
        with pytest.raises(ValueError, match="not a d100 face"):
            roll_band(face)


# ---------------------------------------------------------------------------------------------------------
# Exact odds against the independent enumeration.

ODDS_CASES = [
    # rank, pain, accuracy, distance, options
    pytest.param(2, 0, 0, 2, {}, id="worked-example-skill-5"),
    pytest.param(4, 0, 6, 1, {}, id="clamped-at-10"),
    pytest.param(0, 0, 0, 4, {}, id="untrained-may-stray-but-stays"),
    pytest.param(1, 0, 0, 3, {"ammo": 3}, id="minimum-1-damage"),
    pytest.param(0, 2, 0, 9, {}, id="strays-two-tiles"),
    pytest.param(0, 0, 0, 6, {"intervening": True}, id="adjacent-strays-intervening"),
    pytest.param(1, 0, 0, 7, {"ammo": 7, "modifier": 2, "intervening": True}, id="modifier-floors"),
    pytest.param(0, 0, 0, 12, {"ring": Ring.ANGBAND, "intervening": True}, id="angband-ring"),
    pytest.param(3, 5, -1, 14, {"ring": Ring.WITHIN_TWO}, id="within-two-ring"),
    pytest.param(0, 100, -20, 1000, {"intervening": True}, id="hopeless"),
    pytest.param(1, 0, 0, 9, {"intervening": True}, id="statistical-shooter"),
]


@pytest.mark.parametrize(("rank", "pain", "accuracy", "d", "options"), ODDS_CASES)
def test_exact_odds_match_an_independent_enumeration(
    rank: int, pain: int, accuracy: int, d: int, options: dict[str, object]
) -> None:
    options = dict(options)
    ammo = int(options.pop("ammo", 10))
    modifier = int(options.pop("modifier", 0))
    expected = reference_odds(rank, pain, accuracy, d, ammo=ammo, modifier=modifier, **options)
    shooter = Shooter(rank=rank, pain=pain, accuracy=accuracy, ammo_damage=ammo, damage_modifier=modifier)
    assert_same_odds(shooter, d, expected, **options)


def test_odds_cases_cover_strays_and_beings() -> None:
    strayed = reference_odds(0, 2, 0, 9)
    assert strayed.may_stray == Fraction(95, 100)  # skill -3: every rating above -3 strays (all but 1-5)
    assert len(strayed.landing) == 16 and set(strayed.landing.values()) == {Fraction(95, 100) / 16}
    assert strayed.on_target == Fraction(5, 100)
    beside = reference_odds(0, 0, 0, 6, intervening=True)
    assert beside.may_stray == Fraction(20, 100) and set(beside.landing.values()) == {Fraction(20, 100) / 8}
    assert beside.on_target == Fraction(80, 100) * Fraction(6, 10)
    stays = reference_odds(0, 0, 0, 4)
    assert stays.may_stray == Fraction(20, 100) and stays.landing == {} and stays.on_target == 1


def test_worked_example_of_section_7() -> None:
    # Advanced (2), no pain, accuracy 0, two squares away.
    shooter = Shooter(rank=2, pain=0, accuracy=0)
    assert skill_rating(shooter, 2) == 5
    assert quality(5, roll_band(4).rating) == 8 and damage(shooter, 8) == 8  # d100 4: 80%
    assert quality(5, roll_band(1).rating) == 11 and damage(shooter, 11) == 20  # d100 1: 200%
    assert quality(5, roll_band(100).rating) == 1  # worst rating +4: 10%
    chances = odds(shooter, 2)
    assert chances.may_stray == 0 and chances.landing == {} and chances.on_target == 1
    # Expected damage as a share of the ammo damage (10): 0.522 with the correction.
    assert chances.expected_to_target / shooter.ammo_damage == Fraction(522, 1000)
    assert reference_odds(2, 0, 0, 2).expected_to_target / 10 == Fraction(522, 1000)
    # The seed's old rule (point blank subtracted): skill 1 + 2 - 2 = 1, expected 0.167.
    assert reference_skill(2, 0, 0, 2, old_point_blank=True) == 1
    assert reference_odds(2, 0, 0, 2, old_point_blank=True).expected_to_target / 10 == Fraction(167, 1000)
    old = Shooter(rank=2, pain=4, accuracy=0)  # skill 1 under the corrected rule, same as the old shot
    assert skill_rating(old, 2) == 1
    assert odds(old, 2).expected_to_target / 10 == Fraction(167, 1000)


# ---------------------------------------------------------------------------------------------------------
# fire: the order of the dice, the checks.


def test_fire_rolls_d100_then_stray_square_then_d10_per_projectile() -> None:
    dice = ScriptedDice([85, 0, 3, 50, 9, 1, 6])
    shooter = Shooter(rank=0, pain=0, accuracy=0, shots=3)  # skill 0 at distance 6
    shot = fire(shooter, dice, dx=6, dy=0, intervening=True)
    assert dice.calls == [(1, 100), (0, 7), (1, 10), (1, 100), (1, 10), (1, 100), (1, 10)]
    assert dice.exhausted
    first, second, third = shot.projectiles
    # 85: rating 1 > skill 0, strays to the first neighbour; the being in the way is missed on a 3.
    assert (first.quality, first.stray_offset, first.stray_choices) == (1, (-1, -1), 8)
    assert (first.intervening_face, first.intervening_missed) == (3, True)
    # 50: rating 0 = skill 0 does not stray; the being is hit on a 9.
    assert (second.quality, second.may_stray, second.stray_offset, second.intervening_missed) == (1, False, None, False)
    # 1: the critical, on target; the being missed on a 6.
    assert (third.quality, third.damage, third.stray_offset, third.intervening_missed) == (11, 20, None, True)
    assert [reaches_target(p) for p in shot.projectiles] == [False, False, True]
    assert shot.total_to_target == 20
    assert shot.odds == odds(shooter, 6, intervening=True)
    log = shot.to_dict()
    assert log["distance"] == 6 and log["offset"] == [6, 0] and log["total_to_target"] == 20
    assert [p["d100"] for p in log["projectiles"]] == [85, 50, 1]


def test_fire_on_target_without_a_being_rolls_only_the_d100s() -> None:
    dice = ScriptedDice([1, 50, 100])
    shot = fire(Shooter(rank=2, pain=0, accuracy=0, shots=3), dice, distance=2)
    assert dice.calls == [(1, 100)] * 3
    assert [p.quality for p in shot.projectiles] == [11, 5, 1]
    assert [p.damage for p in shot.projectiles] == [20, 5, 1]
    assert shot.total_to_target == 26


def test_a_critical_never_strays_even_for_a_hopeless_shooter() -> None:
    dice = ScriptedDice([1, 50, 15, 2])
    shooter = Shooter(rank=0, pain=100, accuracy=-20, shots=3)  # skill -451 at distance 1000
    shot = fire(shooter, dice, distance=1000)
    assert dice.calls == [(1, 100), (1, 100), (0, 15), (1, 100)]
    critical, bad, again = shot.projectiles
    assert critical.critical and not critical.may_stray and critical.stray_offset is None
    assert bad.may_stray and bad.stray_offset == (2, 2)
    assert again.critical and again.stray_offset is None


@pytest.mark.parametrize(
    ("aim", "message"),
    [
        ({"dx": 1, "distance": 3}, "not both"),
        ({}, "Say where the target is"),
        ({"dx": 0, "dy": 0}, "1 to 1000 squares away, not 0"),
        ({"dx": 1000, "dy": 1000}, "not 1500"),
    ],
)
def test_fire_refuses_bad_aims_before_rolling(aim: dict[str, int], message: str) -> None:
    dice = ScriptedDice([])
    with pytest.raises(ShotError, match=message):
        fire(Shooter(rank=1, pain=0, accuracy=0), dice, **aim)
    assert dice.used == 0


# ---------------------------------------------------------------------------------------------------------
# Sampling: 100,000 projectiles against the exact odds.


THRESHOLD = 1e-6  # a right model fails one run in a million; the wrong ones below score far beyond it


def test_100000_projectiles_follow_the_exact_odds(monkeypatch: pytest.MonkeyPatch) -> None:
    # `fire` recomputes the exact odds on every call (a few ms each); the cache keeps the same values and the
    # run under two seconds.
    exact = aliensrl.odds
    monkeypatch.setattr(aliensrl, "odds", functools.cache(exact))
    shooter = Shooter(rank=1, pain=0, accuracy=0, shots=20)  # skill 1 at distance 9: qualities 1-4 and 11, strays
    rng = random.Random(20260101)
    qualities: Counter[object] = Counter()
    landings: Counter[object] = Counter()
    reached: Counter[object] = Counter()
    beings: Counter[object] = Counter()
    damage_to_target = []
    for _ in range(5000):
        shot = fire(shooter, rng, dx=9, dy=0, intervening=True)
        for p in shot.projectiles:
            qualities[p.quality] += 1
            landings[p.stray_offset] += 1
            reached[reaches_target(p)] += 1
            beings[not p.intervening_missed] += 1
            damage_to_target.append(p.damage if reaches_target(p) else 0)
    n = sum(qualities.values())
    assert n == 100_000

    chances = exact(shooter, 9, intervening=True)
    expected_landing: dict[object, Fraction] = {**chances.landing, None: 1 - sum(chances.landing.values())}
    expected_reached: dict[object, Fraction] = {True: chances.on_target, False: 1 - chances.on_target}
    expected_being: dict[object, Fraction] = {True: Fraction(4, 10), False: Fraction(6, 10)}
    assert len(chances.quality) == 5 and len(expected_landing) == 17
    for observed, expected in [
        (qualities, chances.quality),
        (landings, expected_landing),
        (reached, expected_reached),
        (beings, expected_being),
    ]:
        assert p_value(observed, expected, n) > THRESHOLD, (observed, expected)

    mean = sum(damage_to_target) / n
    variance = sum((x - mean) ** 2 for x in damage_to_target) / (n - 1)
    assert abs(mean - float(chances.expected_to_target)) < 6 * math.sqrt(variance / n)

    # The same counts reject plausible wrong models.
    one_better = exact(Shooter(rank=1, pain=0, accuracy=1), 9, intervening=True)  # long range forgotten
    assert p_value(qualities, one_better.quality, n) < THRESHOLD
    # The -1 row ending at 15 instead of 20 (faces 16-20 read as rating 0): 5 points of quality 2 become 1.
    short_row = [(1, 2, CRIT), (3, 5, -3), (6, 10, -2), (11, 15, -1), (16, 80, 0), *REFERENCE_TABLE[5:]]
    shifted = reference_odds(1, 0, 0, 9, intervening=True, table=short_row)
    assert shifted.quality[2] == Fraction(5, 100)
    assert p_value(qualities, shifted.quality, n) < THRESHOLD
    angband = exact(shooter, 9, intervening=True, ring=Ring.ANGBAND)
    angband_landing = {**angband.landing, None: 1 - sum(angband.landing.values())}
    assert p_value(landings, angband_landing, n) < THRESHOLD
    within = exact(shooter, 9, intervening=True, ring=Ring.WITHIN_TWO)
    within_landing = {**within.landing, None: 1 - sum(within.landing.values())}
    assert p_value(landings, within_landing, n) < THRESHOLD
    always_miss = {True: Fraction(6, 10), False: Fraction(4, 10)}  # 6 in 10 read the other way round
    assert p_value(beings, always_miss, n) < THRESHOLD


# ---------------------------------------------------------------------------------------------------------
# §9.11: which square is "targeted" for a being where a strayed shot lands (the server setting).


def reference_landing(
    rank: int, pain: int, accuracy: int, d: int, *, intervening: bool, aimed_only: bool, ring: Ring = Ring.CHEBYSHEV
) -> tuple[Fraction, Fraction]:
    """The chance that one projectile hits a being standing where it strays, and the damage it deals there.

    Every d100 face, every d10 of a being in the way, every d10 of the being where it lands, one by one.
    """
    skill = reference_skill(rank, pain, accuracy, d)
    squares = reference_squares(d, ring)
    hit = expected = Fraction(0)
    for face in range(1, 101):
        rating = reference_rating(face)
        if not (reference_strays(skill, rating) and squares):
            continue
        dealt = reference_damage(10, 0, reference_quality(skill, rating))
        for way in range(1, 11) if intervening else (None,):
            if way is not None and way >= 7:  # the being in the way took the shot
                continue
            for there in range(1, 11) if aimed_only else (None,):
                if there is not None and there <= 6:  # not on the targeted square: missed on 6 in 10
                    continue
                branch = Fraction(1, 100) / (10 if intervening else 1) / (10 if aimed_only else 1)
                hit += branch
                expected += branch * dealt
    return hit, expected


@pytest.mark.parametrize("intervening", [False, True])
@pytest.mark.parametrize("targeted", list(aliensrl.Targeted))
@pytest.mark.parametrize(("rank", "pain", "d"), [(0, 0, 6), (0, 2, 9), (1, 0, 7), (2, 0, 3)])
def test_landing_odds_match_an_independent_enumeration(
    rank: int, pain: int, d: int, targeted: aliensrl.Targeted, intervening: bool
) -> None:
    shooter = Shooter(rank=rank, pain=pain, accuracy=0)
    got = odds(shooter, d, intervening=intervening, crowded=True, targeted=targeted)
    aimed_only = targeted is aliensrl.Targeted.AIMED
    assert (got.to_landing, got.expected_to_landing) == reference_landing(
        rank, pain, 0, d, intervening=intervening, aimed_only=aimed_only
    )
    # Nothing else changes: the aimed square and the being in the way are read the same under both.
    plain = odds(shooter, d, intervening=intervening)
    assert (got.on_target, got.expected_to_target, got.expected_to_being) == (
        plain.on_target,
        plain.expected_to_target,
        plain.expected_to_being,
    )
    assert plain.to_landing == 0


def test_the_being_where_it_strays_under_each_reading_with_forced_dice() -> None:
    shooter = Shooter(rank=0, pain=0, accuracy=0)  # skill 0 at distance 6: 85 strays to a neighbour
    relocated = fire(shooter, ScriptedDice([85, 2]), dx=6, dy=0, crowded=True)
    (p,) = relocated.projectiles
    assert p.stray_offset == (1, -1) and p.landing_being and p.landing_face is None and p.hits_landing_being
    assert relocated.total_to_landing == 1 and relocated.to_dict()["landing"] == [[True, None, True]]
    dice = ScriptedDice([85, 2, 6])
    aimed = fire(shooter, dice, dx=6, dy=0, crowded=True, targeted=aliensrl.Targeted.AIMED)
    assert dice.exhausted
    (p,) = aimed.projectiles
    assert p.landing_face == 6 and p.landing_missed and not p.hits_landing_being and aimed.total_to_landing == 0
    hit = fire(shooter, ScriptedDice([85, 2, 7]), dx=6, dy=0, crowded=True, targeted=aliensrl.Targeted.AIMED)
    assert hit.projectiles[0].hits_landing_being
    # A being in the way that takes the shot leaves nothing for the landing square; no d10 is rolled for it.
    dice = ScriptedDice([85, 2, 7])
    stopped = fire(shooter, dice, dx=6, dy=0, intervening=True, crowded=True, targeted=aliensrl.Targeted.AIMED)
    assert dice.exhausted and not stopped.projectiles[0].landing_being
    # Without `crowded` the log is as before.
    assert "landing" not in fire(shooter, ScriptedDice([85, 2]), dx=6, dy=0).to_dict()


def test_the_targeted_reading_is_a_server_setting() -> None:
    from bot.rules.settings import SETTINGS, server_settings

    assert SETTINGS["aliensrl.targeted"].default == "relocated"
    assert server_settings({}).variants("aliensrl").targeted is aliensrl.Targeted.RELOCATED
    assert server_settings({"aliensrl.targeted": "aimed"}).variants("aliensrl").targeted is aliensrl.Targeted.AIMED


def test_the_answer_says_which_reading_hit_the_being_where_it_strayed() -> None:
    from bot.ui.aliensrl import shot_answer

    shooter = Shooter(rank=0, pain=0, accuracy=0)
    shot = fire(shooter, ScriptedDice([85, 2, 9]), dx=6, dy=0, crowded=True, targeted=aliensrl.Targeted.AIMED)
    answer = shot_answer(shot, shooter="Hicks", weapon="Pistol")
    assert (answer.full.description or "").endswith(", onto the being there: **barely grazes†**: **1** damage")
    field = {f.name: f.value for f in answer.full.fields}["The shot"]
    assert field.endswith("the being there rolls the 6 in 10 (§9.11); d10 **9** → hit (4 in 10)")
