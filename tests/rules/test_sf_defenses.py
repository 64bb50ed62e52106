"""Star Frontiers suits, screens and stun settings (star_frontiers.md §6, §10 item 16, §11): forced dice for each
rule, and exact odds against an independent enumeration.

The oracle (`REF_*`, `ref_*`) is typed in from the reference's text; it never calls the module's helpers.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules import replay
from bot.rules import star_frontiers as sf
from bot.rules.sheets.star_frontiers import SfSheet
from bot.rules.star_frontiers import (
    AttackError,
    Band,
    DamageKind,
    Decision,
    MeleeSituation,
    RangedSituation,
    Setting,
    Variants,
)
from bot.rules.star_frontiers import replay as sf_replay
from tests.dice_sources import ScriptedDice
from tests.stats import p_value

EXPANDED = Variants()
BASIC = Variants(automatic_miss=False)

# ---------------------------------------------------------------------------------------------------------
# The oracle, from §6 and §11: (defense, kind) -> "half" or "stop".

REF_EFFECT = {
    ("albedo suit", "laser"): "half",
    ("albedo screen", "laser"): "half",
    ("skeinsuit", "ballistic"): "half",
    ("inertia screen", "ballistic"): "half",
    ("skeinsuit", "needle"): "stop",
    ("inertia screen", "needle"): "stop",
    ("gauss screen", "electrostunner"): "stop",
    ("sonic screen", "sonic knife"): "stop",
    ("sonic screen", "sonic"): "half",
}
# §11 item 1: the kind of each table weapon that has one.
REF_KIND = {
    "Laser pistol": "laser",
    "Heavy laser": "laser",
    "Laser rifle": "laser",
    "Electrostunner": "electrostunner",
    "Sonic disruptor": "sonic",
    "Automatic pistol": "ballistic",
    "Automatic rifle": "ballistic",
    "Gyrojet pistol": "ballistic",
    "Needler pistol": "needle",
    "Sonic knife": "sonic knife",
    **{
        w: "ballistic"
        for w in ("Knife", "Axe", "Spear", "Sword", "Polearm", "Brass knuckles", "Club", "Nightstick", "Chain")
    },
    **{w: "ballistic" for w in ("Whip", "Flail", "Vibroknife", "Electric sword")},
}
REF_NO_KIND = ("Bare hands", "Sonic sword", "Stunstick", "Grenade rifle")


def ref_taken(share: int, kind: str | None, defenses: set[str]) -> int | None:
    """What the target takes of its share; None when a defense stops the hit. Halving drops the fraction."""
    effects = [REF_EFFECT.get((d, kind or "")) for d in defenses]
    if "stop" in effects:
        return None
    for _ in range(effects.count("half")):
        share = share // 2
    return share


def ref_hits(face: int, chance: int, expanded: bool) -> bool:
    if face <= 5:
        return True
    return not (expanded and face >= 96) and face <= chance


def ref_knocks_out(face: int, *, melee: bool, blunt: bool) -> bool:
    return face <= 2 or (melee and blunt and face % 10 == 0)


@dataclass
class RefOdds:
    hit: Fraction
    knockout: Fraction
    stun: Fraction
    expected: Fraction


def ref_odds(
    chance: int,
    dice: tuple[int, int, int] | None,
    *,
    kind: str | None = None,
    defenses: set[str] | frozenset[str] = frozenset(),
    targets: int = 1,
    melee: bool = False,
    blunt: bool = False,
    stun_stamina: int | None = None,
    stun_immune: bool = False,
    expanded: bool = True,
) -> RefOdds:
    """Every to-hit face, every way the damage dice fall and every avoidance face, counted one by one."""
    totals: Counter[int] = Counter()
    if dice is not None:
        count, sides, bonus = dice
        if count <= 4:
            for faces in itertools.product(range(1, sides + 1), repeat=count):
                totals[sum(faces) + bonus] += 1
        else:  # by repeated addition, one die at a time
            totals[bonus] = 1
            for _ in range(count):
                added: Counter[int] = Counter()
                for total, n in totals.items():
                    for face in range(1, sides + 1):
                        added[total + face] += n
                totals = added
    ways = sum(totals.values()) or 1
    hit = knockout = stun = Fraction(0)
    expected = Fraction(0)
    for face in range(1, 101):
        if not ref_hits(face, chance, expanded):
            continue
        hit += Fraction(1, 100)
        if ref_taken(0, kind, set(defenses)) is None:  # stopped: nothing at all
            continue
        knockout += Fraction(ref_knocks_out(face, melee=melee, blunt=blunt), 100)
        for total, n in totals.items():
            taken = ref_taken(total // targets, kind, set(defenses))
            assert taken is not None
            expected += Fraction(taken * n, 100 * ways)
        if stun_stamina is not None and not stun_immune:
            stun += Fraction(sum(1 for avoid in range(1, 101) if avoid > stun_stamina), 100 * 100)
    return RefOdds(hit, knockout, stun, expected)


# ---------------------------------------------------------------------------------------------------------
# Helpers.


def sheet(**fields: Any) -> SfSheet:
    return SfSheet.model_validate(fields)


def target(*defenses: str, stamina: int | None = None) -> sf.Defender:
    return sf.Defender("Kira", frozenset(defenses), stamina)


def shot(
    weapon: str, distance: float, defender: sf.Defender, situation: RangedSituation | None = None
) -> sf.RangedAttack:
    shooter = sheet(dexterity=60, beam=2, projectile=2)  # RW 30 + 20
    return sf.ranged_attack(shooter, weapon, distance, situation, name="Ash", defender=defender)


def swing(weapon: str, defender: sf.Defender, situation: MeleeSituation | None = None) -> sf.MeleeAttack:
    return sf.melee_attack(sheet(strength=60, melee=2), weapon, situation, name="Ash", defender=defender)


def roll(attack: sf.Attack, faces: list[int], variants: Variants = EXPANDED) -> sf.AttackResult:
    dice = ScriptedDice(faces)
    result = (
        sf.shoot(attack, dice, variants) if isinstance(attack, sf.RangedAttack) else sf.melee(attack, dice, variants)
    )
    assert dice.exhausted, (dice.used, faces)
    return result


LASER_3 = RangedSituation(seu=3)
STUN = RangedSituation(setting=Setting.STUN)

# ---------------------------------------------------------------------------------------------------------
# §11 item 1: the kinds, as the table holds them.


def test_every_table_weapon_has_the_kind_the_reference_gives() -> None:
    for name, kind in REF_KIND.items():
        assert sf.table_weapon(name).kind == DamageKind(kind), name
    for name in REF_NO_KIND:
        assert sf.tables.table()[name.lower()].kind is None, name
    proposed = {"Brass knuckles", "Club", "Nightstick", "Chain", "Whip", "Flail", "Vibroknife", "Electric sword"}
    for name in REF_KIND:
        assert sf.table_weapon(name).is_default("kind") is (name in proposed), name


def test_the_effects_table_is_the_reference() -> None:
    words = {sf.Effect.HALVES: "half", sf.Effect.STOPS: "stop"}
    assert {(d, k.value): words[rule.effect] for (d, k), rule in sf.EFFECTS.items()} == REF_EFFECT
    assert [key for key, rule in sf.EFFECTS.items() if rule.default] == [("sonic screen", DamageKind.SONIC)]


# ---------------------------------------------------------------------------------------------------------
# §11 item 2 with forced dice: halving, in turn, fractions dropped.


def test_an_albedo_suit_halves_laser_damage_dropping_the_half_point() -> None:
    # Chance 30 + 20 - 20 (medium, 30 m) = 30; d100 20 hits; 3d10 = 4 + 5 + 6 = 15, halved to 7.
    result = roll(shot("Laser pistol", 30, target("albedo suit"), LASER_3), [20, 4, 5, 6])
    d = result.damage
    assert d is not None and (d.total, d.share, d.dealt, d.taken) == (15, 15, 7, 7)
    (step,) = d.defenses
    assert (step.defense, step.before, step.after, step.default) == ("albedo suit", 15, 7, True)
    assert "half point dropped" in step.reason
    even = roll(shot("Laser pistol", 30, target("albedo suit"), LASER_3), [20, 4, 5, 5])
    assert even.damage is not None and even.damage.taken == 7 and not even.damage.defenses[0].default


def test_albedo_suit_and_screen_halve_twice_as_a_proposal() -> None:
    result = roll(shot("Laser pistol", 30, target("albedo screen", "albedo suit"), LASER_3), [20, 4, 6, 6])
    d = result.damage
    assert d is not None
    assert [(s.defense, s.before, s.after, s.default) for s in d.defenses] == [
        ("albedo suit", 16, 8, False),
        ("albedo screen", 8, 4, True),  # the second halving of one hit is stated only for skeinsuit + inertia
    ]
    assert d.taken == 4 == ref_taken(16, "laser", {"albedo suit", "albedo screen"})


def test_skeinsuit_and_inertia_screen_together_take_a_quarter() -> None:
    result = roll(shot("Automatic pistol", 10, target("inertia screen", "skeinsuit")), [20, 9])
    d = result.damage
    assert d is not None and [(s.before, s.after) for s in d.defenses] == [(9, 4), (4, 2)]
    assert d.taken == 2 == 9 // 4
    assert not d.defenses[1].default  # stated: both together, a quarter
    # A skeinsuit does nothing to a laser, an albedo suit nothing to bullets.
    laser = roll(shot("Laser pistol", 30, target("skeinsuit", "inertia screen"), LASER_3), [20, 4, 5, 6])
    assert laser.damage is not None and laser.damage.defenses == () and laser.damage.taken == 15
    bullets = roll(shot("Automatic pistol", 10, target("albedo suit")), [20, 9])
    assert bullets.damage is not None and bullets.damage.taken == 9 and bullets.damage.dealt is None


def test_a_burst_is_split_first_then_each_share_halved() -> None:
    attack = shot("Automatic pistol", 10, target("skeinsuit"), RangedSituation(burst=True, targets=2))
    # 6d10 = 10+9+8+7+6+5 = 45, split 2 ways: 22 each (1 lost), halved: 11.
    result = roll(attack, [20, 10, 9, 8, 7, 6, 5])
    d = result.damage
    assert d is not None and (d.total, d.share, d.lost, d.taken) == (45, 22, 1, 11)
    assert ref_taken(45 // 2, "ballistic", {"skeinsuit"}) == 11


def test_a_sonic_screen_halves_the_disruptor_as_a_proposed_default() -> None:
    result = roll(shot("Sonic disruptor", 7, target("sonic screen")), [20, 1, 2, 3, 4])
    d = result.damage
    assert d is not None and d.total == 10 and d.taken == 5 and d.defenses[0].default


def test_melee_weapons_meet_their_defenses() -> None:
    # MW 30 + melee 20 = 50; a sword (ballistic) is halved by a skeinsuit; a sonic knife stopped by a sonic screen.
    sword = roll(swing("Sword", target("skeinsuit")), [20, 7, 9])
    assert sword.damage is not None and sword.damage.taken == 8 and not sword.damage.defenses[0].default
    club = roll(swing("Club", target("inertia screen")), [21, 6])
    assert club.damage is not None and club.damage.taken == 3 and club.damage.defenses[0].default  # kind †
    knife = roll(swing("Sonic knife", target("sonic screen")), [20])
    assert knife.stopped is not None and knife.damage is None and knife.knockout is None
    fists = roll(swing("Bare hands", target(*sf.DEFENSES)), [21])
    assert fists.damage is not None and fists.damage.defenses == () and fists.damage.taken == 3


# ---------------------------------------------------------------------------------------------------------
# §11 item 3: a stopped hit does nothing, and rolls no damage.


@pytest.mark.parametrize(
    ("weapon", "distance", "defense"),
    [
        ("Needler pistol", 10, "skeinsuit"),
        ("Needler pistol", 10, "inertia screen"),
        ("Electrostunner", 3, "gauss screen"),
    ],
)
def test_a_stopped_hit_does_nothing_even_on_01(weapon: str, distance: float, defense: str) -> None:
    result = roll(shot(weapon, distance, target(defense)), [1])  # 01: would hit and knock out
    assert result.hit and result.decision is Decision.AUTOMATIC_HIT
    assert result.stopped is not None and result.stopped.defense == defense
    assert result.damage is None and result.knockout is None and result.stun is None
    assert result.to_dict()["stopped"] == defense
    chances = sf.odds(shot(weapon, distance, target(defense)))
    assert chances.stopped == defense and chances.knockout == 0 and chances.expected_damage == 0


def test_no_defense_leaves_the_log_as_before() -> None:
    result = roll(shot("Laser pistol", 30, sf.NO_DEFENDER, LASER_3), [20, 4, 5, 6])
    assert set(result.to_dict()) == {
        "kind",
        "weapon",
        "steps",
        "chance",
        "d100",
        "decision",
        "knockout",
        "damage",
        "variants",
    }


# ---------------------------------------------------------------------------------------------------------
# §11 item 5: stun settings.


def test_the_electrostunners_stun_is_avoided_at_or_under_current_stamina() -> None:
    attack = shot("Electrostunner", 3, target(stamina=40), STUN)
    avoided = roll(attack, [20, 40])  # d100 to hit, then the target's d100: 40 <= 40
    assert avoided.damage is None and avoided.stun is not None and not avoided.stun.stunned
    assert avoided.stun.face == 40 and "avoided" in avoided.stun.reason
    out = roll(attack, [20, 41, 77])  # 41 > 40: out for d100 = 77 turns
    assert out.stun is not None and out.stun.stunned and out.stun.turns == 77
    assert out.to_dict()["stun"] == {"immune": None, "d100": 41, "turns": 77}
    assert roll(attack, [51]).stun is None  # a miss stuns no one; chance 30 + 20 + 0 = 50


def test_an_anti_shock_implant_makes_the_target_immune_with_no_roll() -> None:
    result = roll(shot("Electrostunner", 3, target("anti-shock implant", stamina=10), STUN), [20])
    assert result.stun is not None and result.stun.immune == "anti-shock implant" and not result.stun.stunned
    # The implant stops the stun only: the blast still hurts.
    blast = roll(shot("Electrostunner", 3, target("anti-shock implant")), [20, 1, 2, 3, 4])
    assert blast.damage is not None and blast.damage.taken == 10
    stick = roll(
        swing("Stunstick", target("anti-shock implant", stamina=10), MeleeSituation(setting=Setting.STUN)), [21]
    )
    assert stick.stun is not None and stick.stun.immune == "anti-shock implant"


def test_a_gauss_screen_stops_the_stun_too() -> None:
    result = roll(shot("Electrostunner", 3, target("gauss screen", stamina=10), STUN), [20])
    assert result.stopped is not None and result.stun is None


def test_anesthetic_needles_do_1d10_and_a_knockout_comes_before_the_stun() -> None:
    attack = shot("Needler pistol", 10, target(stamina=30), STUN)
    # 01: a hit that knocks out; the damage die; the knock-out's turns; the avoidance d100; the turns asleep.
    result = roll(attack, [1, 7, 50, 90, 12])
    assert result.damage is not None and result.damage.plan.dice == sf.Dice(1, 10) and result.damage.taken == 7
    assert result.knockout is not None and result.knockout.turns == 50
    assert result.stun is not None and result.stun.turns == 12 and result.stun.name == "anesthetic needles"


def test_a_stunstick_on_stun_does_no_damage() -> None:
    # 21: a hit that does not end in 0 (the stunstick is blunt†); the target's 60 is over 45: out 5 turns.
    result = roll(swing("Stunstick", target(stamina=45), MeleeSituation(setting=Setting.STUN)), [21, 60, 5])
    assert result.damage is None and result.stun is not None and result.stun.turns == 5
    shock = roll(swing("Stunstick", target(stamina=45)), [21, 1, 2, 3])
    assert shock.damage is not None and shock.damage.total == 6 and shock.stun is None


def test_quick_mode_stun_and_kind() -> None:
    doze = sf.quick_ranged(
        40, 0, "0", Band.SHORT, RangedSituation(setting=Setting.STUN), defender=sf.quick_defender(stamina=35)
    )
    result = roll(doze, [20, 36, 9])
    assert result.damage is None and result.stun is not None and result.stun.turns == 9
    laser = sf.quick_ranged(
        40, 0, "2d10", Band.SHORT, kind=DamageKind.LASER, defender=sf.quick_defender("albedo screen")
    )
    halved = roll(laser, [20, 3, 8])
    assert halved.damage is not None and halved.damage.taken == 5
    blade = sf.quick_melee(40, 0, "1d10", kind=DamageKind.SONIC_KNIFE, defender=sf.quick_defender("sonic screen"))
    assert roll(blade, [20]).stopped is not None


def test_the_defender_from_a_target_characters_sheet() -> None:
    kira = sheet(stamina=50, current_stamina=31, defenses=["skeinsuit", "albedo suit"])
    defender = sf.defender(kira, name="Kira")
    assert defender == sf.Defender("Kira", frozenset({"skeinsuit", "albedo suit"}), 31)
    assert defender.ordered == ("albedo suit", "skeinsuit")
    result = roll(shot("Electrostunner", 3, defender, STUN), [20, 31])
    assert result.stun is not None and not result.stun.stunned  # 31 is at or under the current 31


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: shot("Laser pistol", 30, target(stamina=40), RangedSituation(seu=3, setting=Setting.STUN)),
            "no stun setting",
        ),
        (lambda: shot("Electrostunner", 3, target(), STUN), "current Stamina"),
        (lambda: swing("Sword", target(stamina=3), MeleeSituation(setting=Setting.STUN)), "no stun setting"),
        (
            lambda: sf.quick_ranged(
                40, 0, "0", Band.SHORT, RangedSituation(setting=Setting.STUN, burst=True), defender=target(stamina=3)
            ),
            "A burst fires bullets",
        ),
    ],
)
def test_stun_refusals(build: Any, message: str) -> None:
    with pytest.raises(AttackError, match=message):
        build()


# ---------------------------------------------------------------------------------------------------------
# Exact odds against the independent enumeration.


@dataclass
class Case:
    attack: Any  # () -> Attack
    chance: int
    dice: tuple[int, int, int] | None
    kind: str | None = None
    defenses: frozenset[str] = frozenset()
    targets: int = 1
    melee: bool = False
    blunt: bool = False
    stun_stamina: int | None = None
    stun_immune: bool = False


CASES = {
    "laser-albedo": Case(
        lambda: shot("Laser pistol", 30, target("albedo suit"), LASER_3),
        30,
        (3, 10, 0),
        "laser",
        frozenset({"albedo suit"}),
    ),
    "laser-both-albedo": Case(
        lambda: shot("Laser pistol", 3, target("albedo suit", "albedo screen"), LASER_3),
        50,
        (3, 10, 0),
        "laser",
        frozenset({"albedo suit", "albedo screen"}),
    ),
    "auto-pistol-skein-inertia": Case(
        lambda: shot("Automatic pistol", 10, target("skeinsuit", "inertia screen")),
        40,
        (1, 10, 0),
        "ballistic",
        frozenset({"skeinsuit", "inertia screen"}),
    ),
    "burst-3-inertia": Case(
        lambda: shot("Automatic pistol", 10, target("inertia screen"), RangedSituation(burst=True, targets=3)),
        60,
        (7, 10, 0),
        "ballistic",
        frozenset({"inertia screen"}),
        targets=3,
    ),
    "needler-stopped": Case(
        lambda: shot("Needler pistol", 10, target("skeinsuit")), 40, (2, 10, 0), "needle", frozenset({"skeinsuit"})
    ),
    "disruptor-sonic-screen": Case(
        lambda: shot("Sonic disruptor", 7, target("sonic screen")), 40, (4, 10, 0), "sonic", frozenset({"sonic screen"})
    ),
    "electrostunner-stun": Case(lambda: shot("Electrostunner", 3, target(stamina=37), STUN), 50, None, stun_stamina=37),
    "electrostunner-implant": Case(
        lambda: shot("Electrostunner", 3, target("anti-shock implant", stamina=37), STUN),
        50,
        None,
        stun_stamina=37,
        stun_immune=True,
    ),
    "needles-anesthetic": Case(
        lambda: shot("Needler pistol", 10, target(stamina=64), STUN), 40, (1, 10, 0), "needle", stun_stamina=64
    ),
    "club-inertia": Case(
        lambda: swing("Club", target("inertia screen")),
        50,
        (1, 10, 0),
        "ballistic",
        frozenset({"inertia screen"}),
        melee=True,
        blunt=True,
    ),
    "stunstick-stun": Case(
        lambda: swing("Stunstick", target(stamina=12), MeleeSituation(setting=Setting.STUN)),
        50,
        None,
        melee=True,
        blunt=True,
        stun_stamina=12,
    ),
}


@pytest.mark.parametrize("variants", [EXPANDED, BASIC], ids=["expanded", "basic"])
@pytest.mark.parametrize("name", list(CASES))
def test_exact_odds_match_an_independent_enumeration(name: str, variants: Variants) -> None:
    case = CASES[name]
    expected = ref_odds(
        case.chance,
        case.dice,
        kind=case.kind,
        defenses=case.defenses,
        targets=case.targets,
        melee=case.melee,
        blunt=case.blunt,
        stun_stamina=case.stun_stamina,
        stun_immune=case.stun_immune,
        expanded=variants.automatic_miss,
    )
    got = sf.odds(case.attack(), variants)
    assert got.chance == case.chance
    assert (got.hit, got.knockout, got.stun, got.expected_damage) == (
        expected.hit,
        expected.knockout,
        expected.stun,
        expected.expected,
    )


def test_the_oracle_on_known_values() -> None:
    # 1d10 behind a skeinsuit and an inertia screen: 0,0,0,1,1,1,1,2,2,2 -> 1 on a hit.
    assert ref_odds(100, (1, 10, 0), kind="ballistic", defenses={"skeinsuit", "inertia screen"}).expected == Fraction(
        95, 100
    )
    assert ref_odds(100, None, stun_stamina=37).stun == Fraction(95, 100) * Fraction(63, 100)
    assert ref_odds(100, (2, 10, 0), kind="needle", defenses={"skeinsuit"}).expected == 0


def test_20000_stuns_follow_the_exact_odds() -> None:
    attack = shot("Electrostunner", 3, target(stamina=37), STUN)
    exact = sf.odds(attack)
    rng = random.Random(20261201)
    n = 20_000
    outcomes: Counter[str] = Counter()
    for _ in range(n):
        result = sf.shoot(attack, rng)
        if not result.hit:
            outcomes["miss"] += 1
        elif result.stun is not None and result.stun.stunned:
            outcomes["stunned"] += 1
        else:
            outcomes["avoided"] += 1
    expected = {"miss": 1 - exact.hit, "stunned": exact.stun, "avoided": exact.hit - exact.stun}
    assert p_value(outcomes, expected, n) > 1e-6, outcomes
    # The same counts reject the avoidance read the wrong way round (stunned at or under the Stamina).
    wrong = {"miss": 1 - exact.hit, "stunned": exact.hit * Fraction(37, 100), "avoided": exact.hit * Fraction(63, 100)}
    assert p_value(outcomes, wrong, n) < 1e-6


# ---------------------------------------------------------------------------------------------------------
# The roll log: the new inputs survive it, and an older log without them still reads.


def test_defender_and_setting_survive_the_log() -> None:
    attack = shot("Needler pistol", 10, target("skeinsuit", "albedo suit", stamina=33), STUN)
    value = sf_replay.SfShot(attack, EXPANDED)
    logged = json.loads(json.dumps(replay.encode(value)))
    assert replay.decode(sf_replay.SfShot, logged) == value
    melee = sf_replay.SfMelee(
        swing("Stunstick", target(stamina=9), MeleeSituation(setting=Setting.STUN, distance=1)), BASIC
    )
    assert replay.decode(sf_replay.SfMelee, json.loads(json.dumps(replay.encode(melee)))) == melee


def test_a_log_from_before_defenses_reads_with_the_defaults() -> None:
    value = sf_replay.SfShot(shot("Laser pistol", 30, sf.NO_DEFENDER, LASER_3), EXPANDED)
    logged = json.loads(json.dumps(replay.encode(value)))
    del logged["attack"]["defender"], logged["attack"]["situation"]["setting"]
    del logged["attack"]["weapon"]["kind"], logged["attack"]["weapon"]["stun"]
    decoded = replay.decode(sf_replay.SfShot, logged)
    assert decoded.attack.defender == sf.NO_DEFENDER and decoded.attack.situation.setting is Setting.DAMAGE
    assert decoded.attack.weapon.kind is None  # what the roll was made with then
    with pytest.raises(replay.InputError, match="missing \\['band'\\]"):
        del logged["attack"]["band"]
        replay.decode(sf_replay.SfShot, logged)


# ---------------------------------------------------------------------------------------------------------
# The answers: each defense and stun is a line of its own, made from the result.


def test_the_answer_shows_each_defense_as_a_step() -> None:
    from bot.ui.star_frontiers import attack_answer
    from bot.ui.summaries import summary

    attack = shot("Laser pistol", 30, target("albedo suit", "albedo screen"), LASER_3)
    result = roll(attack, [20, 4, 5, 6])
    answer = attack_answer(result, sf.odds(attack), attacker="Ash")
    lines = (answer.full.description or "").split("\n")
    assert lines[1] == "Damage 3d10 (4, 5, 6) = 15 (1d10 per SEU at 3 SEU)"
    assert lines[2] == "Defense 15 → 7†: albedo suit halves laser damage, the half point dropped (§10 item 16)"
    assert lines[3].startswith("Defense 7 → **3**†: albedo screen halves laser damage, the half point dropped")
    fields = {f.name: f.value for f in answer.full.fields}
    assert fields["Target"] == "Kira: albedo suit, albedo screen"
    assert summary("sf.shoot", result, secret=False).endswith("Hit: 3 damage (after albedo suit, albedo screen)")
    assert "†" not in (answer.compact.description or "")


def test_the_answer_to_a_stopped_hit_and_a_stun() -> None:
    from bot.ui.star_frontiers import attack_answer, odds_embed
    from bot.ui.summaries import summary

    stopped = shot("Needler pistol", 10, target("skeinsuit"))
    answer = attack_answer(roll(stopped, [1]), sf.odds(stopped), attacker="Ash")
    assert (answer.full.description or "").startswith("**Hit, stopped**: 01 is 01-05: always a hit (§3); the skeinsuit")
    assert summary("sf.shoot", roll(stopped, [1]), secret=False).endswith("Hit, stopped by the skeinsuit")
    embed = odds_embed(
        sf.odds(stopped), sf.attack_steps(stopped), title="Odds", variants=EXPANDED, target=stopped.defender
    )
    assert "but the skeinsuit stops every hit" in (embed.description or "")

    stun = shot("Electrostunner", 3, target(stamina=37), STUN)
    stunned = roll(stun, [20, 41, 77])
    answer = attack_answer(stunned, sf.odds(stun), attacker="Ash")
    lines = (answer.full.description or "").split("\n")
    assert lines[1] == (
        "**Stunned for 77 turns**: the target's d100 41 is over its Stamina 37, out for d100 turns (§11 item 5)"
    )
    assert summary("sf.shoot", stunned, secret=False).endswith("Hit; stunned 77 turns")
    assert "stunned 31.5%" in {f.name: f.value for f in answer.full.fields}["Odds before the roll"]
    embed = odds_embed(sf.odds(stun), sf.attack_steps(stun), title="Odds", variants=EXPANDED, target=stun.defender)
    assert "stunned **31.5%**" in (embed.description or "") and "no damage" in (embed.description or "")


def test_melee_reach_is_refused_beyond_2_m_and_shown_within() -> None:
    from bot.ui.star_frontiers import attack_answer

    with pytest.raises(AttackError, match=r"within 2 m of each other \(§5\), not 2.01 m"):
        MeleeSituation(distance=2.01)
    attack = swing("Sword", sf.NO_DEFENDER, MeleeSituation(distance=2))
    answer = attack_answer(roll(attack, [60]), sf.odds(attack), attacker="Ash")
    assert {f.name: f.value for f in answer.full.fields}["Reach"] == "2 m apart: within the 2 m melee needs (§5)"
    # Quick-mode martial arts: bare-handed, blunt, knocking out on 01 to 05 + level (§3).
    quick = sf.quick_melee(30, 3, "2", MeleeSituation(distance=0.5), martial_arts=True)
    assert quick.weapon.blunt and quick.attacker.martial_arts == 3

    class Forced:
        """The forced d100 to hit, then 9 for anything after it (the knock-out's turns)."""

        def __init__(self, face: int) -> None:
            self.faces = [face]

        def randint(self, a: int, b: int) -> int:
            return self.faces.pop() if self.faces else 9

    knocked = [face for face in range(1, 101) if sf.melee(quick, Forced(face)).knockout is not None]
    assert knocked == [1, 2, 3, 4, 5, 6, 7, 8, 10, 20, 30, 40, 50, 60]


def test_a_characters_own_weapon_may_say_its_kind() -> None:
    from typing import get_args

    from bot.rules.sheets.star_frontiers import HitKind, SfWeapon

    assert get_args(HitKind) == tuple(k.value for k in DamageKind)
    phaser = SfWeapon(name="Phaser", skill="beam", damage="2d10", point_blank=5, short=20, kind="laser")
    shooter = sheet(dexterity=60, beam=2, weapons=(phaser,))
    attack = sf.ranged_attack(shooter, "Phaser", 3, defender=target("albedo suit"))
    assert attack.weapon.kind is DamageKind.LASER and not attack.weapon.is_default("kind")
    result = roll(attack, [20, 4, 6])
    assert result.damage is not None and result.damage.taken == 5
    # A table weapon's proposed kind, once the character states it, is no longer marked †.
    club = sf.effective_weapon(SfWeapon(name="Club", kind="ballistic"))
    assert club.kind is DamageKind.BALLISTIC and not club.is_default("kind")
    assert "laser (for defenses)" in phaser.summary()


@given(
    count=st.integers(0, 3),
    sides=st.integers(2, 12),
    bonus=st.integers(0, 9),
    defenses=st.sampled_from([(), ("albedo suit",), ("albedo suit", "albedo screen")]),
)
def test_expected_damage_after_halving_is_exact_for_any_dice(
    count: int, sides: int, bonus: int, defenses: tuple[str, ...]
) -> None:
    dice = f"{count}d{sides}+{bonus}" if count else str(bonus)
    attack = sf.quick_ranged(100, 0, dice, Band.POINT_BLANK, kind=DamageKind.LASER, defender=target(*defenses))
    expected = ref_odds(100, (count, sides, bonus), kind="laser", defenses=set(defenses))
    assert sf.odds(attack).expected_damage == expected.expected


def test_the_odds_of_huge_dice_behind_two_halvings_are_exact() -> None:
    # 99d999 is the most a quick-mode weapon rolls: its expected damage behind two halvings is worked out from
    # the dice's residues modulo 4, not from the 98,901 totals (its cost: python -m tests.perf.bench_star_frontiers).
    attack = sf.quick_ranged(
        100, 0, "99d999", Band.POINT_BLANK, kind=DamageKind.LASER, defender=target("albedo suit", "albedo screen")
    )
    chances = sf.odds(attack)
    # Each d999 face is 1 (mod 4) as often as 2 and 3, and 0 one time less: E[X mod 4] is close to 1.5.
    mean = Fraction(99 * 1000, 2)
    assert mean / 4 - 1 < chances.expected_damage_on_hit < mean / 4
