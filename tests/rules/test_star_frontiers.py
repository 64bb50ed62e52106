"""The Star Frontiers attack core against the rules reference (star_frontiers.md): by hand, by forced dice, by an
independent enumeration and by sampling.

The oracle below (`REF_*`, `ref_*`) is typed in from the reference's tables and text alone; it never calls the
module's helpers.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from bot.errors import UserError
from bot.rules import star_frontiers as sf
from bot.rules.sheets.star_frontiers import SfSheet, SfWeapon
from bot.rules.star_frontiers import (
    AttackerMovement,
    AttackError,
    Band,
    Cover,
    Decision,
    Dice,
    KnockoutRule,
    MeleeSituation,
    RangedSituation,
    Size,
    TargetMovement,
    Variants,
)
from tests.dice_sources import NoDice, ScriptedDice
from tests.stats import p_value

EXPANDED = Variants()
BASIC = Variants(automatic_miss=False)
SIGHT_STOPS_AT_SHORT = Variants(sight_to_point_blank=False)

# ---------------------------------------------------------------------------------------------------------
# The oracle, from the reference's text.

# §4 and §5 modifier tables.
REF_RANGE = {"point_blank": 0, "short": -10, "medium": -20, "long": -40, "extreme": -80}
REF_TARGET = {
    "stationary": 10,
    "walking": 0,
    "running": -10,
    "dodging": -20,
    "animal_medium": -10,
    "animal_fast": -20,
    "animal_very_fast": -30,
    "vehicle": -10,
}
REF_ATTACKER = {"standing": 0, "walking": 0, "running": -10, "dodging": -20, "vehicle": -10, "fast_vehicle": -20}
REF_COVER = {"none": 0, "soft": -10, "hard": -20}
REF_SIZE = {"tiny": -10, "small": -5, "medium": 0, "large": 5, "giant": 10}
# §7: the laser pistol's bands, PB 0-5, S 6-20, M 21-50, L 51-100, X 101-200.
REF_LASER_PISTOL = [("point_blank", 5), ("short", 20), ("medium", 50), ("long", 100), ("extreme", 200)]
REF_CLOSER = {"extreme": "long", "long": "medium", "medium": "short", "short": "point_blank"}


def ref_skill(level: int, heavy: bool) -> int:
    # §2: +10 a level; heavy weapons one level lower, -10 untrained.
    if heavy:
        return -10 if level == 0 else 10 * (level - 1)
    return 10 * level


def ref_ranged_chance(
    dex: int,
    level: int,
    band: str,
    *,
    heavy: bool = False,
    sight: bool = False,
    sight_to_pb: bool = True,
    target: str = "walking",
    attacker: str = "standing",
    aim: bool = False,
    burst: bool = False,
    cover: str = "none",
    size: str = "medium",
    wounded: bool = False,
    prone: bool = False,
    wrong_hand: bool = False,
    vrusk: bool = False,
    two_weapons: bool = False,
) -> int:
    if sight and band != "point_blank" and (sight_to_pb or band != "short"):
        band = REF_CLOSER[band]
    chance = math.ceil(dex / 2) + ref_skill(level, heavy) + REF_RANGE[band]
    chance += REF_TARGET[target] + REF_ATTACKER[attacker] + REF_COVER[cover] + REF_SIZE[size]
    chance += 15 * aim + 20 * burst - 10 * wounded - 5 * prone - 10 * (wrong_hand and not vrusk) - 10 * two_weapons
    return chance


def ref_melee_chance(
    strength: int,
    dex: int,
    level: int,
    modifier: int = 0,
    *,
    helpless: bool = False,
    rage: bool = False,
    target_encumbered: bool = False,
    encumbered: bool = False,
    wounded: bool = False,
    defending: bool = False,
) -> int:
    chance = math.ceil(max(strength, dex) / 2) + 10 * level + modifier
    chance += 20 * helpless + 20 * rage + 10 * target_encumbered - 10 * encumbered - 10 * wounded - 15 * defending
    return chance


def ref_hits(face: int, chance: int, expanded: bool) -> bool:
    # §3: 01-05 always hits; 96-00 always misses under Expanded; else at or under the chance.
    if face <= 5:
        return True
    if expanded and face >= 96:
        return False
    return face <= chance


def ref_knocks_out(face: int, hit: bool, *, melee: bool, blunt: bool, martial_arts: int = 0) -> bool:
    if not hit:
        return False
    if face in (1, 2):
        return True
    if melee and martial_arts and face <= 5 + martial_arts:
        return True
    return melee and blunt and str(face).endswith("0")


def ref_damage(count: int, sides: int, bonus: int = 0) -> dict[int, Fraction]:
    """Every way the dice can fall, counted one by one (itertools.product), or by repeated addition."""
    if count <= 4:
        counts = Counter(sum(faces) + bonus for faces in itertools.product(range(1, sides + 1), repeat=count))
    else:
        counts = Counter({bonus: 1})
        for _ in range(count):
            added: Counter[int] = Counter()
            for total, n in counts.items():
                for face in range(1, sides + 1):
                    added[total + face] += n
            counts = added
    total = sum(counts.values())
    return {t: Fraction(n, total) for t, n in counts.items()}


@dataclass
class RefOdds:
    hit: Fraction
    knockout: Fraction
    on_hit: Fraction
    expected: Fraction
    shares: dict[int, Fraction] = field(default_factory=dict)


def ref_odds(
    chance: int,
    dice: tuple[int, int, int],
    *,
    expanded: bool = True,
    melee: bool = False,
    blunt: bool = False,
    martial_arts: int = 0,
    targets: int = 1,
) -> RefOdds:
    hits = [f for f in range(1, 101) if ref_hits(f, chance, expanded)]
    kos = [f for f in hits if ref_knocks_out(f, True, melee=melee, blunt=blunt, martial_arts=martial_arts)]
    shares: dict[int, Fraction] = {}
    for total, p in ref_damage(*dice).items():
        shares[total // targets] = shares.get(total // targets, Fraction(0)) + p
    on_hit = sum((share * p for share, p in shares.items()), Fraction(0))
    hit = Fraction(len(hits), 100)
    return RefOdds(hit, Fraction(len(kos), 100), on_hit, hit * on_hit, shares)


# ---------------------------------------------------------------------------------------------------------
# Helpers.


def sheet(**fields: Any) -> SfSheet:
    return SfSheet.model_validate(fields)


def laser_shot(situation: RangedSituation | None = None, distance: float = 30, **fields: Any) -> sf.RangedAttack:
    character = sheet(**{"dexterity": 55, "beam": 2, **fields})
    return sf.ranged_attack(character, "Laser pistol", distance, situation or RangedSituation(seu=1))


def values(steps: tuple[sf.Step, ...]) -> list[tuple[int, str, int]]:
    return [(s.number, s.name, s.value) for s in steps]


def chance_of(attack: sf.Attack, variants: Variants = EXPANDED) -> int:
    return sum(s.value for s in sf.attack_steps(attack, variants))


def roll(attack: sf.Attack, faces: list[int], variants: Variants = EXPANDED) -> sf.AttackResult:
    dice = ScriptedDice(faces)
    if isinstance(attack, sf.RangedAttack):
        result = sf.shoot(attack, dice, variants)
    else:
        result = sf.melee(attack, dice, variants)
    assert dice.exhausted, (dice.used, faces)
    return result


# ---------------------------------------------------------------------------------------------------------
# The worked examples of §9.


def test_worked_example_ranged() -> None:
    # A Human with DEX 55 (RW 28) and beam 2 fires a laser pistol at a running target 30 m away, aiming.
    attack = laser_shot(RangedSituation(target=TargetMovement.RUNNING, aim=True, seu=3))
    assert values(sf.ranged_steps(attack)) == [
        (1, "Base", 28),
        (2, "Skill", 20),
        (3, "Range", -20),
        (4, "Target movement", -10),
        (4, "Attacker movement", 0),
        (5, "Careful aim", 15),
        (6, "Burst", 0),
        (7, "Cover", 0),
        (8, "Target size", 0),
        (9, "Attacker wounded", 0),
        (10, "Target prone", 0),
        (11, "Wrong hand", 0),
        (12, "Two weapons", 0),
    ]
    assert chance_of(attack) == 33 == ref_ranged_chance(55, 2, "medium", target="running", aim=True)
    chances = sf.odds(attack)
    assert (chances.chance, chances.hit, chances.knockout) == (33, Fraction(33, 100), Fraction(2, 100))
    assert chances.damage.dice == Dice(3, 10)  # dial 3: 3d10
    assert chances.expected_damage_on_hit == Fraction(33, 2)
    assert chances.expected_damage == Fraction(33, 100) * Fraction(33, 2)

    result = roll(attack, [33, 4, 10, 1])
    assert result.hit and result.decision is Decision.HIT and result.reason == "33 is at or under 33"
    assert result.damage is not None and result.damage.faces == (4, 10, 1) and result.damage.total == 15
    assert result.knockout is None
    miss = roll(attack, [34])
    assert not miss.hit and miss.damage is None and miss.reason == "34 is over 33"


def test_worked_example_club_knocks_out_on_01_02_10_20_30() -> None:
    club = sf.quick_melee(35, 0, "1d10", blunt=True)
    assert chance_of(club) == 35
    knocked = [f for f in range(1, 101) if sf.knockout_rule(f, hit=sf.decide(f, 35).hit, blunt=True) is not None]
    assert knocked == [1, 2, 10, 20, 30]
    assert sf.odds(club).knockout == Fraction(5, 100)
    assert sf.odds(club).hit == Fraction(35, 100)


# ---------------------------------------------------------------------------------------------------------
# Steps 1-2: base and skill from the sheet (and quick mode).


@pytest.mark.parametrize(("dex", "rw"), [(1, 1), (44, 22), (45, 23), (55, 28), (100, 50)])
def test_base_rw_is_half_dex_rounded_up(dex: int, rw: int) -> None:
    attack = laser_shot(dexterity=dex)
    assert attack.attacker.base == sf.Step(1, "Base", rw, f"RW = ½ DEX {dex}, rounded up")
    assert rw == math.ceil(dex / 2)


@pytest.mark.parametrize(
    ("strength", "dex", "mw", "which"), [(60, 41, 30, "STR 60"), (41, 61, 31, "DEX 61"), (45, 45, 23, "STR 45")]
)
def test_base_mw_is_half_the_greater_rounded_up(strength: int, dex: int, mw: int, which: str) -> None:
    attack = sf.melee_attack(sheet(strength=strength, dexterity=dex), "Club")
    assert attack.attacker.base.value == mw == math.ceil(max(strength, dex) / 2)
    assert attack.attacker.base.reason.startswith(f"MW = ½ {which}, rounded up")


@pytest.mark.parametrize(
    ("level", "heavy", "bonus", "reason"),
    [
        (0, False, 0, "no beam skill"),
        (1, False, 10, "beam level 1 x 10"),
        (6, False, 60, "beam level 6 x 10"),
        (0, True, -10, "untrained with a heavy weapon: -10"),
        (1, True, 0, "heavy weapon: beam level 1 counts as 0, x 10"),
        (3, True, 20, "heavy weapon: beam level 3 counts as 2, x 10"),
    ],
)
def test_skill_step_with_heavy_weapons(level: int, heavy: bool, bonus: int, reason: str) -> None:
    weapon = "Heavy laser" if heavy else "Laser pistol"
    situation = RangedSituation(seu=5 if heavy else 1)
    attack = sf.ranged_attack(sheet(dexterity=50, beam=level), weapon, 50, situation)
    assert attack.attacker.skill == sf.Step(2, "Skill", bonus, reason)
    assert bonus == ref_skill(level, heavy)
    quick = sf.quick_ranged(25, level, "1d10", Band.SHORT, heavy=heavy)
    assert quick.attacker.skill.value == bonus


def test_skill_uses_the_weapons_own_skill() -> None:
    character = sheet(dexterity=50, beam=3, gyrojet=1, projectile=2, melee=4, martial_arts=1, strength=60)
    assert sf.ranged_attack(character, "Gyrojet pistol", 10).attacker.skill.value == 10
    assert sf.ranged_attack(character, "automatic PISTOL", 10).attacker.skill.value == 20  # case-insensitive
    assert sf.melee_attack(character, "Sword").attacker.skill.value == 40
    bare = sf.melee_attack(character)  # bare hands: martial arts, MW
    assert bare.weapon.name == "Bare hands" and bare.attacker.skill.value == 10
    assert bare.attacker.base.value == 30 and bare.attacker.martial_arts == 1
    assert sf.melee_attack(character, "Club").attacker.martial_arts == 0


# ---------------------------------------------------------------------------------------------------------
# Step 3: range bands from a distance, and the telescopic sight.


LASER_PISTOL_EDGES = [
    (0, "point_blank"),
    (5, "point_blank"),
    (5.5, "short"),
    (6, "short"),
    (20, "short"),
    (20.01, "medium"),
    (21, "medium"),
    (50, "medium"),
    (51, "long"),
    (100, "long"),
    (100.5, "extreme"),
    (200, "extreme"),
]


def ref_band(bands: list[tuple[str, int]], distance: float) -> str | None:
    for band, upper in bands:
        if distance <= upper:
            return band
    return None


@pytest.mark.parametrize(("distance", "band"), LASER_PISTOL_EDGES)
def test_laser_pistol_bands_with_their_edges(distance: float, band: str) -> None:
    attack = laser_shot(distance=distance)
    assert attack.band.band.value == band == ref_band(REF_LASER_PISTOL, distance)
    step = sf.ranged_steps(attack)[2]
    assert (step.number, step.name, step.value) == (3, "Range", REF_RANGE[band])
    assert not step.default  # the laser pistol's bands are found [AD]
    assert chance_of(attack) == ref_ranged_chance(55, 2, band)


def test_band_text_names_the_edges() -> None:
    assert laser_shot(distance=30).band.text == "medium: 30 m is over 20 m and up to 50 m"
    assert laser_shot(distance=0).band.text == "point blank: 0 m is up to 5 m"
    assert sf.quick_ranged(20, 0, "1d10", Band.LONG).band.text == "long (given)"


@pytest.mark.parametrize("distance", [200.001, 201, 5000])
def test_beyond_the_last_band_there_is_no_shot(distance: float) -> None:
    with pytest.raises(
        AttackError, match=r"out of the \*\*Laser pistol\*\*'s reach: its last band, extreme, ends at 200 m"
    ):
        laser_shot(distance=distance)


@pytest.mark.parametrize("distance", [-1, math.inf, math.nan, 100_001])
def test_impossible_distances_are_refused(distance: float) -> None:
    with pytest.raises(AttackError, match="A distance is 0 to 100,000 metres"):
        laser_shot(distance=distance)


@pytest.mark.parametrize(
    ("weapon", "distance", "band", "default"),
    [
        ("Heavy laser", 0, "short", False),  # no point-blank band: the first band starts at 0
        ("Heavy laser", 100, "short", False),
        ("Heavy laser", 101, "medium", False),
        ("Heavy laser", 2000, "extreme", False),
        ("Electrostunner", 5, "point_blank", False),
        ("Electrostunner", 6, "short", True),  # §10 item 13: the proposed 6-10 / 11-15
        ("Electrostunner", 10, "short", True),
        ("Electrostunner", 15, "medium", True),
        ("Sonic disruptor", 2, "point_blank", False),
        ("Sonic disruptor", 40, "long", False),
        ("Automatic pistol", 150, "extreme", False),
        ("Automatic rifle", 10, "point_blank", True),  # every band a default
        ("Automatic rifle", 400, "extreme", True),
        ("Laser rifle", 500, "extreme", True),
        ("Needler pistol", 5, "point_blank", True),
        ("Gyrojet pistol", 21, "medium", True),
    ],
)
def test_bands_of_other_weapons_and_their_default_flag(weapon: str, distance: float, band: str, default: bool) -> None:
    found = sf.range_band(sf.table_weapon(weapon), distance)
    assert (found.band.value, found.default) == (band, default)


@pytest.mark.parametrize(
    ("weapon", "too_far"), [("Electrostunner", 15.5), ("Sonic disruptor", 41), ("Heavy laser", 2001)]
)
def test_weapons_without_far_bands_cannot_reach(weapon: str, too_far: float) -> None:
    with pytest.raises(AttackError, match="reach"):
        sf.range_band(sf.table_weapon(weapon), too_far)


@pytest.mark.parametrize("band", list(Band))
def test_telescopic_sight_moves_one_class_closer_under_both_variants(band: Band) -> None:
    plain = sf.quick_ranged(30, 0, "1d10", band)
    sighted = sf.quick_ranged(30, 0, "1d10", band, RangedSituation(sight=True))
    for variants, to_pb in ((EXPANDED, True), (SIGHT_STOPS_AT_SHORT, False)):
        expected = ref_ranged_chance(60, 0, band.value, sight=True, sight_to_pb=to_pb)
        assert chance_of(sighted, variants) == expected
        assert chance_of(plain, variants) == ref_ranged_chance(60, 0, band.value)
    step = sf.ranged_steps(sighted)[2]
    if band is Band.POINT_BLANK:
        assert step.value == 0
    else:
        assert step.reason.endswith(f"the telescopic sight moves it to {REF_CLOSER[band.value].replace('_', ' ')}")
    if band is Band.SHORT:
        kept = sf.ranged_steps(sighted, SIGHT_STOPS_AT_SHORT)[2]
        assert kept.value == -10 and kept.reason.endswith("leaves it there under this server's rule")


# ---------------------------------------------------------------------------------------------------------
# Steps 4-12 one at a time, each checked with forced dice at the edge of the chance.

RANGED_CASES: list[tuple[dict[str, Any], dict[str, Any], int, str]] = [
    # situation, oracle keywords, step index, step name
    *[({"target": m}, {"target": m.value}, 3, "Target movement") for m in TargetMovement],
    *[({"attacker": m}, {"attacker": m.value}, 4, "Attacker movement") for m in AttackerMovement],
    ({"aim": True}, {"aim": True}, 5, "Careful aim"),
    *[({"cover": c}, {"cover": c.value}, 7, "Cover") for c in Cover],
    *[({"size": s}, {"size": s.value}, 8, "Target size") for s in Size],
    ({"prone": True}, {"prone": True}, 10, "Target prone"),
    ({"wrong_hand": True}, {"wrong_hand": True}, 11, "Wrong hand"),
    ({"two_weapons": True}, {"two_weapons": True}, 12, "Two weapons"),
]


@pytest.mark.parametrize(("options", "oracle", "index", "name"), RANGED_CASES)
def test_each_ranged_modifier_with_forced_dice(
    options: dict[str, Any], oracle: dict[str, Any], index: int, name: str
) -> None:
    attack = laser_shot(RangedSituation(seu=1, **options), distance=3)  # point blank: 28 + 20 = 48 before the step
    expected = ref_ranged_chance(55, 2, "point_blank", **oracle)
    steps = sf.ranged_steps(attack)
    assert steps[index].name == name
    assert steps[index].value == expected - 48
    assert sum(s.value for s in steps) == expected
    assert roll(attack, [expected, 7]).decision is Decision.HIT
    assert roll(attack, [expected + 1]).decision is Decision.MISS


def test_burst_modifier_and_damage_with_forced_dice() -> None:
    character = sheet(dexterity=50, projectile=1)
    attack = sf.ranged_attack(character, "Automatic pistol", 10, RangedSituation(burst=True, targets=3))
    steps = sf.ranged_steps(attack)
    assert steps[6] == sf.Step(6, "Burst", 20, "10 rounds at 3 targets")
    assert chance_of(attack) == 25 + 10 - 10 + 20 == ref_ranged_chance(50, 1, "short", burst=True)
    # 5d10 + 1d10 for each of the 2 targets after the first: 7d10, split 3 ways, the leftover lost.
    result = roll(attack, [45, 10, 9, 8, 7, 6, 5, 3])
    assert result.damage is not None
    assert result.damage.plan.dice == Dice(7, 10) and result.damage.plan.targets == 3
    assert (result.damage.total, result.damage.share, result.damage.lost) == (48, 16, 0)
    result = roll(attack, [45, 10, 9, 8, 7, 6, 5, 4])
    assert result.damage is not None and (result.damage.total, result.damage.share, result.damage.lost) == (49, 16, 1)
    single = sf.ranged_attack(character, "Automatic pistol", 10, RangedSituation(burst=True))
    assert sf.odds(single).damage.dice == Dice(5, 10)
    assert sf.odds(single).expected_damage_on_hit == Fraction(55, 2)


def test_attacker_wounded_from_the_sheets_stamina() -> None:
    # §10 item 10: current STA x 2 <= STA, an exact half included.
    for current, wounded in [(45, False), (23, False), (22, True), (1, True)]:
        attack = laser_shot(stamina=45, current_stamina=current)
        step = sf.ranged_steps(attack)[9]
        assert (step.number, step.name, step.value) == (9, "Attacker wounded", -10 if wounded else 0)
        assert step.reason.startswith(f"Stamina {current} of 45, ")
    half = laser_shot(stamina=40, current_stamina=20)
    assert sf.ranged_steps(half)[9].value == -10
    assert sf.quick_ranged(30, 0, "1d10", Band.SHORT, wounded=True).attacker.wounded


def test_vrusk_are_ambidextrous() -> None:
    situation = RangedSituation(seu=1, wrong_hand=True, two_weapons=True)
    human = laser_shot(situation, distance=3)
    vrusk = laser_shot(situation, distance=3, race="vrusk")
    assert sf.ranged_steps(human)[11].value == -10 and sf.ranged_steps(human)[12].value == -10
    assert sf.ranged_steps(vrusk)[11] == sf.Step(11, "Wrong hand", 0, "Vrusks are ambidextrous: no penalty")
    assert sf.ranged_steps(vrusk)[12].value == -10  # two weapons still cost -10 on both shots
    assert chance_of(vrusk) == ref_ranged_chance(55, 2, "point_blank", wrong_hand=True, vrusk=True, two_weapons=True)


def test_movement_rows_add_up() -> None:
    # §10 item 8: attacker running (-10) + target dodging (-20) = -30.
    attack = laser_shot(RangedSituation(seu=1, target=TargetMovement.DODGING, attacker=AttackerMovement.RUNNING), 3)
    assert chance_of(attack) == 48 - 30


def test_everything_at_once_against_the_oracle() -> None:
    situation = RangedSituation(
        target=TargetMovement.ANIMAL_FAST,
        attacker=AttackerMovement.STANDING,
        aim=True,
        cover=Cover.SOFT,
        size=Size.LARGE,
        prone=True,
        wrong_hand=True,
        two_weapons=True,
        sight=True,
        seu=4,
    )
    attack = laser_shot(situation, distance=150, current_stamina=10)
    expected = ref_ranged_chance(
        55, 2, "extreme", sight=True, target="animal_fast", aim=True, cover="soft", size="large", prone=True,
        wrong_hand=True, two_weapons=True, wounded=True,
    )  # fmt: skip
    assert chance_of(attack) == expected == 28 + 20 - 40 - 20 + 15 - 10 + 5 - 10 - 5 - 10 - 10


MELEE_CASES: list[tuple[dict[str, Any], dict[str, Any], int, str]] = [
    ({"unaware": True}, {"helpless": True}, 3, "Helpless defender"),
    ({"stunned": True}, {"helpless": True}, 3, "Helpless defender"),
    ({"unaware": True, "stunned": True}, {"helpless": True}, 3, "Helpless defender"),  # +20 once
    ({"target_encumbered": True}, {"target_encumbered": True}, 5, "Target encumbered"),
    ({"defending": True}, {"defending": True}, 8, "Target defending"),
]


@pytest.mark.parametrize(("options", "oracle", "index", "name"), MELEE_CASES)
def test_each_melee_modifier_with_forced_dice(
    options: dict[str, Any], oracle: dict[str, Any], index: int, name: str
) -> None:
    character = sheet(strength=60, dexterity=40, melee=1)
    attack = sf.melee_attack(character, "Sword", MeleeSituation(**options))
    expected = ref_melee_chance(60, 40, 1, **oracle)
    steps = sf.melee_steps(attack)
    assert [s.number for s in steps] == list(range(1, 10))
    assert steps[index].name == name and steps[index].value == expected - 40
    assert roll(attack, [expected, 3, 4]).decision is Decision.HIT
    assert roll(attack, [expected + 1]).decision is Decision.MISS


def test_helpless_counts_once_and_says_why() -> None:
    both = sf.quick_melee(30, 0, "1d10", MeleeSituation(unaware=True, stunned=True))
    assert sf.melee_steps(both)[3] == sf.Step(
        4, "Helpless defender", 20, "attacked from behind or unaware and stunned: +20 once (§10 item 6)"
    )


def test_melee_steps_from_the_sheet_encumbrance_and_wounds() -> None:
    character = sheet(strength=50, dexterity=50, melee=2, carried_kg=26, capacity_kg=50, stamina=50, current_stamina=25)
    attack = sf.melee_attack(character, "Axe", MeleeSituation(target_encumbered=True))
    assert values(sf.melee_steps(attack)) == [
        (1, "Base", 25),
        (2, "Skill", 20),
        (3, "Weapon modifier", 0),
        (4, "Helpless defender", 0),
        (5, "Battle rage", 0),
        (6, "Target encumbered", 10),
        (7, "Attacker encumbered", -10),
        (8, "Attacker wounded", -10),
        (9, "Target defending", 0),
    ]
    assert chance_of(attack) == ref_melee_chance(50, 50, 2, target_encumbered=True, encumbered=True, wounded=True)
    assert sf.melee_steps(attack)[6].reason == "carrying 26 kg of 50 kg, more than half"
    assert sf.melee_steps(attack)[2].default  # the weapon modifier is a proposed default
    light = sf.melee_attack(sheet(carried_kg=25, capacity_kg=50), "Axe")
    assert sf.melee_steps(light)[6].value == 0


def test_weapon_modifier_step_in_quick_mode_and_from_a_characters_weapon() -> None:
    quick = sf.quick_melee(30, 1, "2d10", weapon_modifier=-5)
    assert sf.melee_steps(quick)[2] == sf.Step(3, "Weapon modifier", -5, "quick-mode weapon", default=False)
    assert chance_of(quick) == 35
    own = sheet(strength=40, melee=1, weapons=(SfWeapon(name="Cleaver", skill="melee", damage="1d10", modifier=10),))
    step = sf.melee_steps(sf.melee_attack(own, "cleaver"))[2]
    assert (step.value, step.default) == (10, False)


# ---------------------------------------------------------------------------------------------------------
# Battle rage: Yazirians only.


def test_a_yazirian_in_battle_rage_gets_20() -> None:
    yazirian = sheet(race="yazirian", strength=40, dexterity=60, melee=1)
    attack = sf.melee_attack(yazirian, "Knife", MeleeSituation(battle_rage=True))
    assert sf.melee_steps(attack)[4] == sf.Step(5, "Battle rage", 20, "a Yazirian in battle rage")
    assert chance_of(attack) == ref_melee_chance(40, 60, 1, rage=True) == 60
    assert roll(attack, [60, 5]).hit and not roll(attack, [61]).hit
    quick = sf.quick_melee(30, 0, "1d10", MeleeSituation(battle_rage=True), race="yazirian")
    assert chance_of(quick) == 50


@pytest.mark.parametrize("race", ["human", "dralasite", "vrusk"])
def test_battle_rage_is_refused_for_other_races(race: str) -> None:
    with pytest.raises(AttackError, match=f"Only Yazirians fight in battle rage .*is a {race.title()}") as caught:
        sf.melee_attack(sheet(race=race), "Knife", MeleeSituation(battle_rage=True), name="Zix")
    assert isinstance(caught.value, UserError) and caught.value.title == "No battle rage"
    assert "Zix is a" in caught.value.message


def test_battle_rage_in_quick_mode_needs_the_race() -> None:
    with pytest.raises(AttackError, match="give the race as yazirian"):
        sf.quick_melee(30, 0, "1d10", MeleeSituation(battle_rage=True))


# ---------------------------------------------------------------------------------------------------------
# The roll: automatic results, chances above 100 and below 0.


@pytest.mark.parametrize("face", [1, 2, 3, 4, 5])
def test_01_to_05_always_hit(face: int) -> None:
    hopeless = sf.quick_ranged(0, 0, "1d10", Band.EXTREME, RangedSituation(cover=Cover.HARD))
    assert chance_of(hopeless) == -100
    for variants in (EXPANDED, BASIC):
        faces = [face, 6] + ([50] if face <= 2 else [])
        result = roll(hopeless, faces, variants)
        assert result.decision is Decision.AUTOMATIC_HIT and result.hit
        assert result.reason == f"0{face} is 01-05: always a hit (§3)"


@pytest.mark.parametrize("face", [96, 97, 98, 99, 100])
def test_96_to_00_always_miss_under_expanded_only(face: int) -> None:
    sure = sf.quick_ranged(50, 6, "1d10", Band.POINT_BLANK, RangedSituation(aim=True, target=TargetMovement.STATIONARY))
    assert chance_of(sure) == 50 + 60 + 15 + 10 == 135
    missed = roll(sure, [face], EXPANDED)
    assert missed.decision is Decision.AUTOMATIC_MISS and not missed.hit and missed.damage is None
    assert missed.reason.startswith(f"{'00' if face == 100 else face} is 96-00: always a miss")
    hit = roll(sure, [face, 8], BASIC)
    assert hit.decision is Decision.HIT and hit.damage is not None and hit.damage.total == 8


@pytest.mark.parametrize(
    ("chance", "expanded", "basic"),
    [(120, 95, 100), (100, 95, 100), (97, 95, 97), (95, 95, 95), (33, 33, 33), (5, 5, 5), (0, 5, 5), (-20, 5, 5)],
)
def test_chances_above_100_and_below_0_are_not_clamped(chance: int, expanded: int, basic: int) -> None:
    attack = sf.quick_melee(max(chance - 100, 0), 0, "1d10", weapon_modifier=min(chance, 100))
    assert chance_of(attack) == chance
    assert sf.odds(attack, EXPANDED).hit == Fraction(expanded, 100)
    assert sf.odds(attack, BASIC).hit == Fraction(basic, 100)
    assert sf.odds(attack, EXPANDED).chance == chance


def test_decide_over_every_face() -> None:
    for chance in (-20, 0, 3, 5, 6, 50, 95, 96, 99, 100, 120):
        for face in range(1, 101):
            for variants, expanded in ((EXPANDED, True), (BASIC, False)):
                assert sf.decide(face, chance, variants).hit is ref_hits(face, chance, expanded)


# ---------------------------------------------------------------------------------------------------------
# Knock-outs: shock on 01-02, blunt on a roll ending in 0, martial arts; each needs a hit.


@pytest.mark.parametrize("face", [1, 2])
def test_shock_knocks_out_on_01_02_ranged_and_melee(face: int) -> None:
    shot = roll(laser_shot(), [face, 5, 42])
    assert shot.knockout == sf.Knockout(KnockoutRule.SHOCK, "a hit on 01-02 knocks the target out (§3)", 42)
    assert shot.damage is not None and shot.damage.total == 5  # the target is also damaged
    sword = roll(sf.quick_melee(30, 0, "2d10"), [face, 3, 4, 99])
    assert sword.knockout is not None and sword.knockout.rule is KnockoutRule.SHOCK and sword.knockout.turns == 99


def test_no_knockout_on_03_or_on_a_blunt_face_for_ranged() -> None:
    assert roll(laser_shot(), [3, 5]).knockout is None
    assert roll(laser_shot(), [10, 5]).knockout is None  # blunt knock-outs are a melee rule


def test_blunt_knocks_out_on_a_hit_ending_in_0() -> None:
    club = sf.melee_attack(sheet(strength=70), "Club")  # MW 35
    assert chance_of(club) == 35
    for face in (10, 20, 30):
        result = roll(club, [face, 6, 17])
        assert result.knockout is not None and result.knockout.rule is KnockoutRule.BLUNT
        assert result.knockout.turns == 17 and not result.knockout.default  # the club's blunt is [seed]
    assert roll(club, [31, 6]).knockout is None
    assert roll(sf.melee_attack(sheet(strength=70), "Sword"), [20, 6, 6]).knockout is None  # not blunt
    stick = roll(sf.melee_attack(sheet(strength=70), "Nightstick"), [20, 6, 17])
    assert stick.knockout is not None and stick.knockout.default  # the nightstick's blunt is a proposed default


def test_knockouts_need_a_hit() -> None:
    club = sf.melee_attack(sheet(strength=70), "Club")  # chance 35
    missed = roll(club, [40])  # ends in 0, but over the chance
    assert not missed.hit and missed.knockout is None and missed.damage is None
    for face in range(1, 101):
        assert sf.knockout_rule(face, hit=False, blunt=True, martial_arts=6) is None
    # 00 = 100 ends in 0 (§10 item 4): under Expanded it always misses, so no knock-out ...
    strong = sf.quick_melee(100, 0, "1d10", blunt=True)
    assert roll(strong, [100], EXPANDED).knockout is None
    # ... under Basic it hits a chance of 100 and knocks out.
    basic = roll(strong, [100, 4, 12], BASIC)
    assert basic.hit and basic.knockout is not None and basic.knockout.rule is KnockoutRule.BLUNT
    assert sf.odds(strong, EXPANDED).knockout == Fraction(2 + 9, 100)
    assert sf.odds(strong, BASIC).knockout == Fraction(2 + 10, 100)


def test_martial_arts_widen_the_knockout_range() -> None:
    fighter = sheet(strength=40, dexterity=40, martial_arts=2)
    bare = sf.melee_attack(fighter)  # MW 20 + 20
    assert chance_of(bare) == 40
    for face, rule in [(2, KnockoutRule.SHOCK), (3, KnockoutRule.MARTIAL_ARTS), (7, KnockoutRule.MARTIAL_ARTS)]:
        result = roll(bare, [face, 50])  # bare hands: fixed punching damage, no damage dice
        assert result.knockout is not None and result.knockout.rule is rule
    assert roll(bare, [7, 50]).knockout == sf.Knockout(
        KnockoutRule.MARTIAL_ARTS, "martial arts 2: a hit on 01-07 knocks out", 50
    )
    assert roll(bare, [8]).knockout is None
    assert roll(bare, [30, 1]).knockout is not None  # bare hands are blunt
    assert sf.odds(bare).knockout == Fraction(7 + 4, 100)  # 01-07, 10, 20, 30, 40
    quick = sf.quick_melee(20, 2, "2", martial_arts=True)
    assert sf.odds(quick).knockout == Fraction(11, 100)
    assert quick.attacker.skill.reason == "martial arts level 2 x 10"


# ---------------------------------------------------------------------------------------------------------
# Damage.


def test_laser_damage_is_1d10_per_seu_and_the_dial_is_required() -> None:
    for seu in (1, 10):
        attack = laser_shot(RangedSituation(seu=seu))
        result = roll(attack, [10, *([7] * seu)])
        assert result.damage is not None and result.damage.plan.dice == Dice(seu, 10) and result.damage.total == 7 * seu
        assert result.damage.plan.reason == f"1d10 per SEU at {seu} SEU"
    for bad in (None, 0, 11):
        with pytest.raises(AttackError, match=r"Set the \*\*Laser pistol\*\*'s dial before the roll .*from 1 to 10"):
            laser_shot(RangedSituation(seu=bad))
    with pytest.raises(AttackError, match="from 5 to 20"):
        sf.ranged_attack(sheet(), "Heavy laser", 50, RangedSituation(seu=4))
    with pytest.raises(AttackError, match="Only lasers have an SEU dial"):
        sf.ranged_attack(sheet(), "Automatic pistol", 5, RangedSituation(seu=2))


@pytest.mark.parametrize(("distance", "dice"), [(2, 6), (3, 4), (10, 4), (11, 2), (20, 2), (40, 1)])
def test_sonic_disruptor_damage_by_band(distance: float, dice: int) -> None:
    attack = sf.ranged_attack(sheet(beam=1), "Sonic disruptor", distance)
    assert sf.odds(attack).damage.dice == Dice(dice, 10)
    # The sight changes the modifier, not how far the sound travels: damage stays the real band's.
    sighted = sf.ranged_attack(sheet(beam=1), "Sonic disruptor", distance, RangedSituation(sight=True))
    assert sf.odds(sighted).damage.dice == Dice(dice, 10)
    result = roll(attack, [4, *range(1, dice + 1)])
    assert result.damage is not None and result.damage.faces == tuple(range(1, dice + 1))


def test_bare_hands_do_the_fixed_punching_damage() -> None:
    for strength, punch in [(20, 1), (21, 2), (60, 3), (61, 4), (100, 5)]:
        bare = sf.melee_attack(sheet(strength=strength, dexterity=strength))
        result = roll(bare, [4])  # no damage dice: only the d100
        assert result.damage is not None and result.damage.total == punch and result.damage.faces == ()
        assert result.damage.plan.reason == f"punching damage {punch} (STR {strength})"
        assert sf.odds(bare).expected_damage_on_hit == punch
    knuckles = sf.melee_attack(sheet(strength=45), "Brass knuckles")
    result = roll(knuckles, [4, 5])
    assert result.damage is not None and result.damage.total == 3 + 5 and result.damage.plan.dice == Dice(1, 5, 3)
    assert result.damage.plan.default  # 1d5 is a proposed default
    assert result.damage.plan.reason == "punching damage 3 (STR 45) + 1d5"


def test_dice_order_d100_then_damage_then_knockout_turns() -> None:
    dice = ScriptedDice([2, 9, 1, 77])
    result = sf.melee(sf.quick_melee(30, 0, "2d10"), dice)
    assert dice.calls == [(1, 100), (1, 10), (1, 10), (1, 100)]
    assert result.damage is not None and result.damage.faces == (9, 1) and result.knockout is not None
    assert result.knockout.turns == 77


def test_a_miss_rolls_only_the_d100() -> None:
    dice = ScriptedDice([90])
    result = sf.melee(sf.quick_melee(30, 0, "5d10"), dice)
    assert dice.calls == [(1, 100)] and not result.hit


@pytest.mark.parametrize(
    ("text", "dice"),
    [
        ("2d10", Dice(2, 10)),
        ("1D5+3", Dice(1, 5, 3)),
        (" 3 ", Dice(0, 0, 3)),
        ("1d10 + 2", Dice(1, 10, 2)),
        ("0", Dice(0, 0)),
    ],
)
def test_parse_dice(text: str, dice: Dice) -> None:
    assert sf.parse_dice(text) == dice


@pytest.mark.parametrize("text", ["", "d10", "2d", "2d1", "100d10", "1d10-1", "x", "1d10+1d6", "1d1000", "10000"])
def test_parse_dice_refuses(text: str) -> None:
    with pytest.raises(AttackError):
        sf.parse_dice(text)


# ---------------------------------------------------------------------------------------------------------
# The weapon table and a character's weapons.

DATA = Path(__file__).resolve().parents[2] / "bot" / "rules" / "data" / "sf_weapons.json"


def test_the_table_file_holds_the_references_numbers() -> None:
    raw = json.loads(DATA.read_text(encoding="utf-8"))
    ranged = {r["name"]: r for r in raw["ranged"]}
    assert ranged["Laser pistol"]["bands"] == dict(REF_LASER_PISTOL)
    assert ranged["Laser pistol"]["seu"] == {"min": 1, "max": 10}
    assert ranged["Heavy laser"]["bands"] == {"short": 100, "medium": 500, "long": 1000, "extreme": 2000}
    assert ranged["Automatic pistol"]["bands"] == {
        "point_blank": 5,
        "short": 15,
        "medium": 30,
        "long": 60,
        "extreme": 150,
    }
    assert ranged["Grenade rifle"]["bands"] == {"short": 5, "medium": 75, "long": 150, "extreme": 300}
    assert ranged["Sonic disruptor"]["band_damage"] == {
        "point_blank": "6d10",
        "short": "4d10",
        "medium": "2d10",
        "long": "1d10",
    }
    melee = {r["name"]: r for r in raw["melee"]}
    assert melee["Sonic sword"]["damage"] == "5d10" and melee["Stunstick"]["damage"] == "3d10"
    assert melee["Club"]["blunt"] is True and melee["Bare hands"]["blunt"] is True
    assert {r["name"] for r in raw["not_found"]} == {
        "Gyrojet rifle",
        "Needler rifle",
        "Sonic stunner",
        "Sonic devastator",
        "Grenade mortar",
        "Rocket launcher",
        "Recoilless rifle",
    }


def test_defaults_are_marked_field_by_field() -> None:
    weapon = sf.table_weapon
    assert weapon("Laser pistol").defaults == frozenset()
    assert weapon("Electrostunner").defaults == {"bands.short", "bands.medium"}
    assert weapon("Automatic rifle").defaults == {f"bands.{b.value}" for b in Band}
    assert weapon("Laser rifle").defaults == {"seu.max", "rate_of_fire", *(f"bands.{b.value}" for b in Band)}
    assert weapon("Needler pistol").is_default("bands") and weapon("Needler pistol").is_default("rate_of_fire")
    assert not weapon("Needler pistol").is_default("damage")
    assert weapon("Sonic disruptor").defaults == {"rate_of_fire"}
    assert weapon("Club").defaults == {"damage", "modifier", "kind"}
    assert weapon("Bare hands").defaults == {"modifier"}
    assert weapon("Sonic sword").defaults == {"modifier", "blunt"}
    assert weapon("Whip").defaults == {"damage", "modifier", "blunt", "kind"} and not weapon("Whip").blunt
    for name in sf.weapon_names(melee=True):
        assert weapon(name).modifier == 0 and weapon(name).is_default("modifier")  # the whole column is proposed


def test_names_and_lookup() -> None:
    assert sf.weapon_names()[:2] == ("Laser pistol", "Heavy laser")
    assert "Grenade rifle" not in sf.weapon_names()  # damage by grenade: a character must give it
    assert "Grenade rifle" in sf.weapon_names(ready=False) and "Rocket launcher" in sf.weapon_names(ready=False)
    assert all(sf.table_weapon(n).melee for n in sf.weapon_names(melee=True))
    assert not any(sf.table_weapon(n).melee for n in sf.weapon_names(melee=False))
    assert sf.table_weapon("sOnIc SwOrD").name == "Sonic sword"
    assert sf.table_weapon("Bare hands").damage_text == "punching damage"
    assert sf.table_weapon("Brass knuckles").damage_text == "punching damage + 1d5"
    assert sf.table_weapon("Laser pistol").damage_text == "1d10 per SEU"
    assert sf.table_weapon("Sonic disruptor").damage_text == "point blank 6d10, short 4d10, medium 2d10, long 1d10"
    with pytest.raises(AttackError, match=r"There is no \*\*Blaster\*\* in the Star Frontiers weapon table"):
        sf.table_weapon("Blaster")


def test_effective_weapon_falls_back_to_the_table_field_by_field() -> None:
    plain = sf.effective_weapon(SfWeapon(name="laser PISTOL"))
    assert plain.name == "laser PISTOL" and plain.per_seu and plain.seu == (1, 10) and plain.skill == "beam"
    assert plain.bands == tuple((Band(b), u) for b, u in REF_LASER_PISTOL)
    # Damage given: fixed dice, no dial; the table's bands kept.
    hot = sf.effective_weapon(SfWeapon(name="Laser pistol", damage="2d10"))
    assert hot.damage == Dice(2, 10) and not hot.per_seu and hot.seu is None and hot.bands == plain.bands
    # Bands given replace the table's as a whole, and their default marks go with them.
    rifle = sf.effective_weapon(SfWeapon(name="Automatic rifle", short=50, long=300))
    assert rifle.bands == ((Band.SHORT, 50), (Band.LONG, 300)) and not rifle.is_default("bands")
    assert rifle.burst and rifle.damage == Dice(1, 10)
    club = sf.effective_weapon(SfWeapon(name="club", modifier=5, blunt=False))
    assert (club.modifier, club.blunt, club.defaults) == (5, False, frozenset({"damage", "kind"}))
    heavy = sf.effective_weapon(SfWeapon(name="Rocket launcher", damage="6d10", short=50, medium=150, long=300))
    assert heavy.heavy and heavy.skill == "gyrojet"  # the table knows it is a heavy gyrojet weapon
    grenade = sf.effective_weapon(SfWeapon(name="Grenade rifle", skill="gyrojet", damage="5d10"))
    assert grenade.bands[0] == (Band.SHORT, 5)
    own = sf.effective_weapon(SfWeapon(name="Blaster", skill="beam", damage="3d10", point_blank=10, short=30))
    assert own.source == "character" and own.defaults == frozenset() and own.modifier == 0


@pytest.mark.parametrize(
    ("weapon", "message"),
    [
        (
            SfWeapon(name="Blaster"),
            r"\*\*Blaster\*\* is not in the Star Frontiers weapon table.*skill and damage and range bands",
        ),
        (SfWeapon(name="Blaster", skill="beam", damage="2d10"), "add its range bands"),
        (SfWeapon(name="Stick", skill="melee"), "add its damage to the character's weapon, like `damage=2d10`"),
        (
            SfWeapon(name="Grenade rifle"),
            r"gives no skill and damage for the \*\*Grenade rifle\*\* \(damage by grenade\)",
        ),
        (
            SfWeapon(name="Rocket launcher"),
            r"no stats for the \*\*Rocket launcher\*\* \(NOT FOUND\).*damage and range bands",
        ),
        (SfWeapon(name="Grenade mortar", damage="4d10", short=100), "add its skill"),
    ],
)
def test_unknown_weapons_need_their_stats(weapon: SfWeapon, message: str) -> None:
    with pytest.raises(AttackError, match=message):
        sf.effective_weapon(weapon)


def test_a_characters_weapon_else_the_table() -> None:
    own = sheet(dexterity=60, beam=1, weapons=(SfWeapon(name="Zapper", skill="beam", damage="1d10", point_blank=3),))
    attack = sf.ranged_attack(own, "zapper", 2)
    assert attack.weapon.name == "Zapper" and attack.band.band is Band.POINT_BLANK
    assert sf.ranged_attack(own, "Electrostunner", 9).weapon.name == "Electrostunner"  # picked up from the table
    with pytest.raises(AttackError, match=r"no weapon called \*\*Phaser\*\*.*Theirs: Zapper"):
        sf.ranged_attack(own, "Phaser", 2)
    with pytest.raises(AttackError, match="gives no skill and damage"):
        sf.ranged_attack(own, "Grenade rifle", 20)


# ---------------------------------------------------------------------------------------------------------
# Refusals, before any die is rolled.


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: RangedSituation(aim=True, attacker=AttackerMovement.WALKING),
            "Careful aim needs the attacker standing",
        ),
        (lambda: RangedSituation(burst=True, targets=6), "1 to 5 adjacent targets"),
        (lambda: RangedSituation(burst=True, targets=0), "1 to 5 adjacent targets"),
        (lambda: RangedSituation(targets=2), "Only a burst covers several targets"),
        (lambda: laser_shot(RangedSituation(burst=True, seu=1)), "cannot fire a burst"),
        (lambda: MeleeSituation(distance=2.5), "within 2 m"),
        (lambda: sf.ranged_attack(sheet(), "Sword", 1), "is a melee weapon"),
        (lambda: sf.melee_attack(sheet(), "Laser pistol"), "is not a melee weapon"),
        (lambda: laser_shot(current_stamina=0), "dead: Stamina 0"),
        (lambda: sf.quick_ranged(101, 0, "1d10", Band.SHORT), "A score is 0 to 100"),
        (lambda: sf.quick_ranged(30, 7, "1d10", Band.SHORT), r"A skill level is 0 \(untrained\) to 6"),
        (lambda: sf.quick_melee(30, 0, "1d10", weapon_modifier=101), "A weapon modifier is -100 to 100"),
        (lambda: sf.quick_melee(30, 0, "lots"), "Write damage as dice"),
    ],
)
def test_refusals(build: Any, message: str) -> None:
    with pytest.raises(AttackError, match=message):
        build()


def test_melee_within_2_m_is_fine() -> None:
    assert MeleeSituation(distance=2).distance == 2
    assert MeleeSituation(distance=0).distance == 0


def test_refused_attacks_roll_nothing() -> None:
    # The checks live in construction, so a refused attack never reaches the dice.
    with pytest.raises(AttackError):
        sf.shoot(laser_shot(RangedSituation(seu=None)), NoDice())


# ---------------------------------------------------------------------------------------------------------
# The roll log.


def test_to_dict() -> None:
    result = roll(laser_shot(RangedSituation(seu=2)), [1, 3, 4, 88])
    log = result.to_dict()
    assert log["kind"] == "ranged" and log["weapon"] == "Laser pistol" and log["chance"] == 28
    assert log["d100"] == 1 and log["decision"] == "automatic hit" and log["knockout"] == ["shock", 88]
    assert log["damage"] == {"dice": "2d10", "faces": [3, 4], "share": 7}
    steps = log["steps"]
    assert isinstance(steps, list) and steps[0] == [1, "Base", 28] and len(steps) == 13
    json.dumps(log)


# ---------------------------------------------------------------------------------------------------------
# Exact odds against the independent enumeration.


@dataclass
class OddsCase:
    attack: Any  # () -> Attack
    chance: int
    dice: tuple[int, int, int]
    melee: bool = False
    blunt: bool = False
    martial_arts: int = 0
    targets: int = 1


ODDS_CASES = {
    "worked-example": OddsCase(
        lambda: laser_shot(RangedSituation(target=TargetMovement.RUNNING, aim=True, seu=3)), 33, (3, 10, 0)
    ),
    "hopeless-laser": OddsCase(
        lambda: laser_shot(RangedSituation(seu=10, cover=Cover.HARD, target=TargetMovement.DODGING), 150),
        -72,
        (10, 10, 0),
    ),
    "sure-burst-2-targets": OddsCase(
        lambda: sf.ranged_attack(
            sheet(dexterity=90, projectile=6), "Automatic pistol", 3, RangedSituation(burst=True, targets=2, aim=True)
        ),
        45 + 60 + 20 + 15,
        (6, 10, 0),
        targets=2,
    ),
    "burst-5-targets": OddsCase(
        lambda: sf.ranged_attack(sheet(dexterity=50), "Automatic rifle", 150, RangedSituation(burst=True, targets=5)),
        25 - 40 + 20,
        (9, 10, 0),
        targets=5,
    ),
    "sonic-disruptor-short": OddsCase(
        lambda: sf.ranged_attack(sheet(beam=2), "Sonic disruptor", 7), 23 + 20 - 10, (4, 10, 0)
    ),
    "club": OddsCase(lambda: sf.melee_attack(sheet(strength=70), "Club"), 35, (1, 10, 0), melee=True, blunt=True),
    "club-97": OddsCase(lambda: sf.quick_melee(97, 0, "1d10", blunt=True), 97, (1, 10, 0), melee=True, blunt=True),
    "martial-artist": OddsCase(
        lambda: sf.melee_attack(sheet(strength=81, dexterity=30, martial_arts=3)),
        41 + 30,
        (0, 0, 5),
        melee=True,
        blunt=True,
        martial_arts=3,
    ),
    "brass-knuckles": OddsCase(
        lambda: sf.melee_attack(sheet(strength=45), "Brass knuckles", MeleeSituation(defending=True)),
        23 - 15,
        (1, 5, 3),
        melee=True,
        blunt=True,
    ),
    "raging-yazirian-sword": OddsCase(
        lambda: sf.melee_attack(
            sheet(race="yazirian", dexterity=70, melee=6), "Sonic sword", MeleeSituation(battle_rage=True, unaware=True)
        ),
        35 + 60 + 20 + 20,
        (5, 10, 0),
        melee=True,
    ),
}


@pytest.mark.parametrize("variants", [EXPANDED, BASIC], ids=["expanded", "basic"])
@pytest.mark.parametrize("name", list(ODDS_CASES))
def test_exact_odds_match_an_independent_enumeration(name: str, variants: Variants) -> None:
    case = ODDS_CASES[name]
    attack = case.attack()
    expected = ref_odds(
        case.chance,
        case.dice,
        expanded=variants.automatic_miss,
        melee=case.melee,
        blunt=case.blunt,
        martial_arts=case.martial_arts,
        targets=case.targets,
    )
    got = sf.odds(attack, variants)
    assert got.chance == case.chance
    assert (got.hit, got.knockout) == (expected.hit, expected.knockout)
    assert got.expected_damage_on_hit == expected.on_hit
    assert got.expected_damage == expected.expected


def test_the_oracle_on_known_values() -> None:
    assert ref_odds(120, (1, 10, 0)).hit == Fraction(95, 100)
    assert ref_odds(120, (1, 10, 0), expanded=False).hit == 1
    assert ref_odds(-20, (1, 10, 0)).hit == Fraction(5, 100)
    assert ref_odds(35, (1, 10, 0), melee=True, blunt=True).knockout == Fraction(5, 100)
    assert sum(ref_damage(6, 10).values()) == 1 and ref_damage(6, 10)[6] == Fraction(1, 10**6)
    # 7d10 split three ways: the mean share is below a third of 38.5 because of the lost leftover.
    assert ref_odds(100, (7, 10, 0), targets=3).on_hit < Fraction(385, 30)


# ---------------------------------------------------------------------------------------------------------
# Sampling: 100,000 attacks against the exact odds.


THRESHOLD = 1e-6  # a right model fails one run in a million; the wrong ones below score far beyond it


def outcome_odds(chance: int, *, expanded: bool, knockout: Any) -> dict[object, Fraction]:
    counts: Counter[str] = Counter()
    for face in range(1, 101):
        hit = ref_hits(face, chance, expanded)
        counts["knockout" if knockout(face, hit) else "hit" if hit else "miss"] += 1
    return {k: Fraction(n, 100) for k, n in counts.items()}


@pytest.mark.slow
def test_100000_attacks_follow_the_exact_odds() -> None:
    # A blunt weapon at chance 97 under Expanded: 95% hits (96-00 miss), knock-outs on 01, 02, 10, ..., 90 (11%).
    attack = sf.quick_melee(97, 0, "1d10", blunt=True)
    rng = random.Random(20260315)
    outcomes: Counter[object] = Counter()
    damage: Counter[object] = Counter()
    turns: Counter[object] = Counter()
    dealt = []
    n = 100_000
    for _ in range(n):
        result = sf.melee(attack, rng)
        outcomes["knockout" if result.knockout else "hit" if result.hit else "miss"] += 1
        dealt.append(0 if result.damage is None else result.damage.total)
        if result.damage is not None:
            damage[result.damage.total] += 1
        if result.knockout is not None:
            turns[(result.knockout.turns - 1) // 10] += 1  # d100 turns, in tens

    def blunt(face: int, hit: bool) -> bool:
        return ref_knocks_out(face, hit, melee=True, blunt=True)

    exact = sf.odds(attack)
    expected = outcome_odds(97, expanded=True, knockout=blunt)
    assert expected == {"knockout": exact.knockout, "hit": exact.hit - exact.knockout, "miss": 1 - exact.hit}
    assert expected["knockout"] == Fraction(11, 100)
    assert p_value(outcomes, expected, n) > THRESHOLD, outcomes
    hits = sum(damage.values())
    assert p_value(damage, {face: Fraction(1, 10) for face in range(1, 11)}, hits) > THRESHOLD, damage
    assert p_value(turns, {tens: Fraction(1, 10) for tens in range(10)}, sum(turns.values())) > THRESHOLD, turns
    mean = sum(dealt) / n
    variance = sum((x - mean) ** 2 for x in dealt) / (n - 1)
    assert abs(mean - float(exact.expected_damage)) < 6 * math.sqrt(variance / n)

    # The same counts reject plausible wrong models.
    basic = outcome_odds(97, expanded=False, knockout=blunt)  # no automatic miss: 97% hits, 00 not a knock-out
    assert p_value(outcomes, basic, n) < THRESHOLD
    shock_only = outcome_odds(97, expanded=True, knockout=lambda face, hit: hit and face <= 2)
    assert p_value(outcomes, shock_only, n) < THRESHOLD
    no_hit_needed = outcome_odds(  # "00" counted as a knock-out although it missed
        97, expanded=True, knockout=lambda face, hit: face <= 2 or face % 10 == 0
    )
    assert p_value(outcomes, no_hit_needed, n) < THRESHOLD
    one_lower = outcome_odds(96, expanded=False, knockout=blunt)  # the chance off by one, Basic
    assert p_value(outcomes, one_lower, n) < THRESHOLD
