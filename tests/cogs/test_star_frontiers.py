"""/sf shoot|melee|odds through discord.py's real command tree, with forced dice (star_frontiers.md).

Expected texts and numbers are worked out by hand from the reference: the ranged procedure of §4, the melee
procedure of §5, the roll, automatic results and knock-outs of §3 and §10 items 1-5, damage of §6, the range
bands of §7 (laser pistol: PB 5, short 20, medium 50, long 100, extreme 200 m, each upper bound inclusive) and
the worked example of §9. The bot draws randint(1, 100) for the d100; on a hit the damage dice left to right;
on a knock-out randint(1, 100) for its turns.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.db.engine import Database
from bot.local.driver import Exchange, LocalDiscord
from bot.local.payloads import MANAGER_PERMISSIONS
from tests.dice_sources import NoDice, ScriptedDice
from tests.helpers import BLURPLE, GREEN, GREY, MOD, QUICK_MELEE, QUICK_SHOT, RED, logged, sf_character

# These tests read every step: the server shows full answers (the compact default is tested in test_buttons).
pytestmark = pytest.mark.usefixtures("full_answers")

GOLD = 0xF1C40F  # a knock-out
D100 = (1, 100)
D10 = (1, 10)
ODDS_LINE = re.compile(r"hit \d+\.\d% · knock-out \d+\.\d% · expected damage \d+\.\d\d")
EXPANDED = "This server: 96-00 always misses (Expanded); a sight reaches point blank. `/settings` changes them."
BASIC = "This server: no automatic miss (Basic); a sight stops at short. `/settings` changes them."
DEFAULT_FOOTER = "† a default: the rules source does not give this number, so the bot proposes one."

# Quick mode: RW 40 + skill level 1 (+10) at point blank (0) = 50 before the situation.
QUICK_SHOT_STEPS = [
    "1. Base **+40**: RW given",
    "2. Skill **+10**: skill level 1 x 10",
    "3. Range **+0**: point blank (given)",
    "4. Target movement **+0**: target walking",
    "4. Attacker movement **+0**: attacker standing still",
    "5. Careful aim **+0**: no",
    "6. Burst **+0**: no",
    "7. Cover **+0**: no cover",
    "8. Target size **+0**: medium target",
    "9. Attacker wounded **+0**: not wounded",
    "10. Target prone **+0**: no",
    "11. Wrong hand **+0**: no",
    "12. Two weapons **+0**: no",
]
# Quick mode melee: MW 40 + skill level 1 (+10) = 50 before the situation.
QUICK_MELEE_STEPS = [
    "1. Base **+40**: MW given",
    "2. Skill **+10**: skill level 1 x 10",
    "3. Weapon modifier **+0**: quick-mode weapon",
    "4. Helpless defender **+0**: no",
    "5. Battle rage **+0**: no",
    "6. Target encumbered **+0**: no",
    "7. Attacker encumbered **+0**: not encumbered",
    "8. Attacker wounded **+0**: not wounded",
    "9. Target defending **+0**: no",
]


def fields(exchange: Exchange) -> dict[str, str]:
    return {f["name"]: f["value"] for f in exchange.embed["fields"]}


def steps(exchange: Exchange) -> list[str]:
    """The "Chance to hit" field, line by line (the last line is the chance)."""
    return fields(exchange)["Chance to hit"].split("\n")


def description(exchange: Exchange) -> list[str]:
    return exchange.embed["description"].split("\n")


def with_line(base: list[str], line: str, chance: int) -> list[str]:
    """`base` with `line` in place of the step of the same number and name (appended if none), then the chance."""
    head = line.split(" **")[0]
    replaced = [line if old.split(" **")[0] == head else old for old in base]
    if not any(old.split(" **")[0] == head for old in base):
        replaced.append(line)
    return [*replaced, f"Chance to hit: **{chance}**"]


async def attack(local: LocalDiscord, command: str, faces: list[int], options: dict[str, Any]) -> Exchange:
    """An attack with forced dice: every face used, a public answer that Discord accepts, with the odds line."""
    dice = ScriptedDice(faces)
    local.bot.dice = dice
    exchange = await local.command(command, options)
    assert exchange.rejected == [], exchange.requests
    assert exchange.embed["color"] != RED, exchange.embed
    assert dice.exhausted, (dice.calls, faces)
    assert not exchange.ephemeral
    shown = fields(exchange)
    # The reach and the target's suits and screens follow, when the attack has them (§5, §11).
    assert list(shown)[:3] == ["The roll", "Odds before the roll", "Chance to hit"]
    assert set(list(shown)[3:]) <= {"Reach", "Target"}, list(shown)
    assert ODDS_LINE.fullmatch(shown["Odds before the roll"]), shown["Odds before the roll"]
    return exchange


async def refused(local: LocalDiscord, command: str, options: dict[str, Any]) -> dict[str, Any]:
    """A refusal: nothing rolled, an ephemeral red embed."""
    local.bot.dice = NoDice()
    exchange = await local.command(command, options)
    assert exchange.rejected == [] and exchange.ephemeral, exchange.requests
    assert exchange.embed["color"] == RED, exchange.embed
    return exchange.embed


async def set_variants(local: LocalDiscord, automatic_miss: str, sight: str) -> None:
    moderator = local.as_user(MOD, permissions=MANAGER_PERMISSIONS)
    for key, value in (("sf.automatic_miss", automatic_miss), ("sf.sight", sight)):
        saved = await local.command("settings set", {"setting": key, "value": value}, actor=moderator)
        assert saved.embed["title"] == "Setting saved", saved.embed


# ---------------------------------------------------------------------------------------------------------
# §4: every step and every modifier of the ranged procedure, shown in "Chance to hit" with its value.

RANGED_OPTIONS = [
    ({"target_movement": "stationary"}, "4. Target movement **+10**: target stationary", 10),
    ({"target_movement": "walking"}, "4. Target movement **+0**: target walking", 0),
    ({"target_movement": "running"}, "4. Target movement **-10**: target running", -10),
    ({"target_movement": "dodging"}, "4. Target movement **-20**: target dodging", -20),
    ({"target_movement": "animal_medium"}, "4. Target movement **-10**: running animal, medium speed", -10),
    ({"target_movement": "animal_fast"}, "4. Target movement **-20**: running animal, fast", -20),
    ({"target_movement": "animal_very_fast"}, "4. Target movement **-30**: running animal, very fast", -30),
    ({"target_movement": "vehicle"}, "4. Target movement **-10**: target is a moving vehicle", -10),
    ({"attacker_movement": "standing"}, "4. Attacker movement **+0**: attacker standing still", 0),
    ({"attacker_movement": "walking"}, "4. Attacker movement **+0**: attacker walking", 0),
    ({"attacker_movement": "running"}, "4. Attacker movement **-10**: attacker running", -10),
    ({"attacker_movement": "dodging"}, "4. Attacker movement **-20**: attacker dodging", -20),
    (
        {"attacker_movement": "vehicle"},
        "4. Attacker movement **-10**: attacker in a moving vehicle, 150 m/turn or less",
        -10,
    ),
    (
        {"attacker_movement": "fast_vehicle"},
        "4. Attacker movement **-20**: attacker in a vehicle faster than 150 m/turn",
        -20,
    ),
    ({"attacker_movement": "aiming"}, "5. Careful aim **+15**: standing still and aiming", 15),
    ({"burst": True}, "6. Burst **+20**: 10 rounds at 1 target", 20),
    ({"burst": True, "targets": 4}, "6. Burst **+20**: 10 rounds at 4 targets", 20),
    ({"cover": "none"}, "7. Cover **+0**: no cover", 0),
    ({"cover": "soft"}, "7. Cover **-10**: soft cover", -10),
    ({"cover": "hard"}, "7. Cover **-20**: hard cover", -20),
    ({"target_size": "tiny"}, "8. Target size **-10**: tiny target", -10),
    ({"target_size": "small"}, "8. Target size **-5**: small target", -5),
    ({"target_size": "medium"}, "8. Target size **+0**: medium target", 0),
    ({"target_size": "large"}, "8. Target size **+5**: large target", 5),
    ({"target_size": "giant"}, "8. Target size **+10**: giant target", 10),
    ({"wounded": True}, "9. Attacker wounded **-10**: given as wounded", -10),
    ({"situation": "prone"}, "10. Target prone **-5**: target prone", -5),
    ({"hands": "wrong_hand"}, "11. Wrong hand **-10**: firing with the wrong hand", -10),
    ({"hands": "wrong_hand", "race": "human"}, "11. Wrong hand **-10**: firing with the wrong hand", -10),
    ({"hands": "wrong_hand", "race": "vrusk"}, "11. Wrong hand **+0**: Vrusks are ambidextrous: no penalty", 0),
    ({"hands": "two_weapons"}, "12. Two weapons **-10**: firing two weapons: -10 to both shots", -10),
    ({"situation": "+7"}, "13. Situational **+7**: given by the player or referee", 7),
    ({"situation": "-12"}, "13. Situational **-12**: given by the player or referee", -12),
    ({"distance": "short"}, "3. Range **-10**: short (given)", -10),
    ({"distance": "medium"}, "3. Range **-20**: medium (given)", -20),
    ({"distance": "long"}, "3. Range **-40**: long (given)", -40),
    ({"distance": "extreme"}, "3. Range **-80**: extreme (given)", -80),
    ({"heavy": True}, "2. Skill **+0**: heavy weapon: skill level 1 counts as 0, x 10", -10),
    ({"heavy": True, "skill": 3}, "2. Skill **+20**: heavy weapon: skill level 3 counts as 2, x 10", 10),
    ({"heavy": True, "skill": 0}, "2. Skill **-10**: untrained with a heavy weapon: -10", -20),
    ({"skill": 4}, "2. Skill **+40**: skill level 4 x 10", 30),
    ({"score": 28}, "1. Base **+28**: RW given", -12),
]


def by_step(cases: list[tuple[dict[str, Any], str, int]]) -> dict[str, list[tuple[dict[str, Any], str, int]]]:
    """The cases grouped by the step number they change (one test each, to keep the fixtures few)."""
    groups: dict[str, list[tuple[dict[str, Any], str, int]]] = {}
    for case in cases:
        groups.setdefault(f"step-{case[1].split('.')[0]}", []).append(case)
    return groups


@pytest.mark.parametrize("cases", [pytest.param(c, id=k) for k, c in by_step(RANGED_OPTIONS).items()])
async def test_every_ranged_option_is_a_step_with_its_value(
    local: LocalDiscord, cases: list[tuple[dict[str, Any], str, int]]
) -> None:
    for options, line, change in cases:
        exchange = await attack(local, "sf shoot", [99], {**QUICK_SHOT, **options})  # 99: a miss, no damage
        assert steps(exchange) == with_line(QUICK_SHOT_STEPS, line, 50 + change), options
        assert exchange.embed["title"] == "Player0001 shoots"
        assert fields(exchange)["The roll"] == (
            f"d100 **99** → automatic miss: 99 is 96-00: always a miss under the Expanded rules (§3)\n{EXPANDED}"
        )
        assert exchange.embed["color"] == GREY
        assert exchange.embed["description"] == "**Miss**: 99 is 96-00: always a miss under the Expanded rules (§3)"


async def test_movement_rows_of_target_and_attacker_add_up(local: LocalDiscord) -> None:
    # §10 item 8: attacker running (-10) + target dodging (-20) = -30; with everything else at once.
    options = {
        **QUICK_SHOT,
        "distance": "medium",
        "target_movement": "dodging",
        "attacker_movement": "running",
        "burst": True,
        "targets": 2,
        "cover": "soft",
        "target_size": "large",
        "situation": "prone +3",
        "hands": "two_weapons_wrong_hand",
        "wounded": True,
    }
    exchange = await attack(local, "sf shoot", [99], options)
    # 50 - 20 - 20 - 10 + 20 - 10 + 5 - 10 - 5 - 10 - 10 + 3 = -17
    assert steps(exchange)[2:] == [
        "3. Range **-20**: medium (given)",
        "4. Target movement **-20**: target dodging",
        "4. Attacker movement **-10**: attacker running",
        "5. Careful aim **+0**: no",
        "6. Burst **+20**: 10 rounds at 2 targets",
        "7. Cover **-10**: soft cover",
        "8. Target size **+5**: large target",
        "9. Attacker wounded **-10**: given as wounded",
        "10. Target prone **-5**: target prone",
        "11. Wrong hand **-10**: firing with the wrong hand",
        "12. Two weapons **-10**: firing two weapons: -10 to both shots",
        "13. Situational **+3**: given by the player or referee",
        "Chance to hit: **-17**",
    ]
    assert fields(exchange)["Odds before the roll"].startswith("hit 5.0% · knock-out 2.0%")


SIGHT = [  # band given, what the sight makes of it under to-point-blank (default) and under to-short
    ("extreme", "-80", "moves it to long", "-40", "moves it to long", "-40"),
    ("long", "-40", "moves it to medium", "-20", "moves it to medium", "-20"),
    ("medium", "-20", "moves it to short", "-10", "moves it to short", "-10"),
    ("short", "-10", "moves it to point blank", "+0", "leaves it there under this server's rule", "-10"),
]


async def test_the_telescopic_sight_moves_the_band_one_class_closer(local: LocalDiscord) -> None:
    for band, before, text, value, _, _ in SIGHT:
        options = {**QUICK_SHOT, "distance": band}
        plain = await attack(local, "sf shoot", [99], options)
        assert steps(plain)[2] == f"3. Range **{before}**: {band} (given)"
        sighted = await attack(local, "sf shoot", [99], {**options, "situation": "telescopic sight"})
        assert steps(sighted)[2] == f"3. Range **{value}**: {band} (given); the telescopic sight {text}"
        assert steps(sighted)[-1] == f"Chance to hit: **{50 + int(value)}**"
    # Under the to-short reading the sight stops at short.
    await set_variants(local, "expanded", "to-short")
    for band, _, _, _, text, value in SIGHT:
        stopped = await attack(
            local, "sf shoot", [99], {**QUICK_SHOT, "distance": band, "situation": "telescopic sight"}
        )
        assert steps(stopped)[2] == f"3. Range **{value}**: {band} (given); the telescopic sight {text}"
        assert steps(stopped)[-1] == f"Chance to hit: **{50 + int(value)}**"
        assert fields(stopped)["The roll"].endswith(
            "This server: 96-00 always misses (Expanded); a sight stops at short. `/settings` changes them."
        )


async def test_the_sight_shifts_a_measured_band_and_not_the_damage_band(local: LocalDiscord) -> None:
    # Sonic disruptor: PB 2, short 10, medium 20, long 40; damage by the band the target is really in.
    await sf_character(local, "Kim", (("Sonic disruptor", ""),))
    exchange = await attack(local, "sf shoot", [10, 4, 5], {"distance": 15, "situation": "telescopic sight"})
    assert steps(exchange)[2] == (
        "3. Range **-10**: medium: 15 m is over 10 m and up to 20 m; the telescopic sight moves it to short"
    )
    assert steps(exchange)[-1] == "Chance to hit: **13**"  # RW 23 + 0 - 10
    assert description(exchange) == ["**Hit**: 10 is at or under 13", "Damage 2d10 (4, 5) = **9** (medium band)"]


# ---------------------------------------------------------------------------------------------------------
# §7: the range band from a distance, each upper bound inclusive; beyond the last band there is no shot.

BANDS = [  # distance, step line (Kim: RW 23, no beam skill, laser pistol)
    (0, "3. Range **+0**: point blank: 0 m is up to 5 m"),
    (5, "3. Range **+0**: point blank: 5 m is up to 5 m"),
    (5.5, "3. Range **-10**: short: 5.5 m is over 5 m and up to 20 m"),
    (6, "3. Range **-10**: short: 6 m is over 5 m and up to 20 m"),
    (20, "3. Range **-10**: short: 20 m is over 5 m and up to 20 m"),
    (21, "3. Range **-20**: medium: 21 m is over 20 m and up to 50 m"),
    (50, "3. Range **-20**: medium: 50 m is over 20 m and up to 50 m"),
    (51, "3. Range **-40**: long: 51 m is over 50 m and up to 100 m"),
    (100, "3. Range **-40**: long: 100 m is over 50 m and up to 100 m"),
    (101, "3. Range **-80**: extreme: 101 m is over 100 m and up to 200 m"),
    (200, "3. Range **-80**: extreme: 200 m is over 100 m and up to 200 m"),
]


async def test_each_range_band_of_the_laser_pistol_at_its_edges(local: LocalDiscord) -> None:
    await sf_character(local, "Kim", (("Laser pistol", ""),))
    for distance, line in BANDS:
        exchange = await attack(local, "sf shoot", [99], {"distance": distance, "setting": 1})
        shown = steps(exchange)
        assert shown[:3] == ["1. Base **+23**: RW = ½ DEX 45, rounded up", "2. Skill **+0**: no beam skill", line]
        assert shown[-1] == f"Chance to hit: **{23 + int(line.split('**')[1])}**", distance
        assert exchange.embed["title"] == "Kim shoots with the Laser pistol"
    for distance in (201, 200.5):
        embed = await refused(local, "sf shoot", {"distance": distance, "setting": 1})
        assert embed["title"] == "Can't make that attack"
        assert embed["description"] == (
            f"{distance:g} m is out of the **Laser pistol**'s reach: its last band, extreme, ends at 200 m."
        )


async def test_a_table_weapons_proposed_bands_are_marked(local: LocalDiscord) -> None:
    # Automatic rifle: every band is a proposed default (PB 10, short 40, ...): the step and the footer say so.
    await sf_character(local, "Kim", (("Automatic rifle", ""),))
    exchange = await attack(local, "sf shoot", [99], {"distance": 11})
    assert steps(exchange)[2] == "3. Range **-10**†: short: 11 m is over 10 m and up to 40 m"
    assert exchange.embed["footer"]["text"] == DEFAULT_FOOTER


# ---------------------------------------------------------------------------------------------------------
# §5: every step and every modifier of the melee procedure.

MELEE_OPTIONS = [
    ({"weapon_modifier": 5}, "3. Weapon modifier **+5**: quick-mode weapon", 5),
    ({"weapon_modifier": -10}, "3. Weapon modifier **-10**: quick-mode weapon", -10),
    ({"helpless": "none"}, "4. Helpless defender **+0**: no", 0),
    ({"helpless": "unaware"}, "4. Helpless defender **+20**: attacked from behind or unaware", 20),
    ({"helpless": "stunned"}, "4. Helpless defender **+20**: stunned", 20),
    ({"battle_rage": True, "race": "yazirian"}, "5. Battle rage **+20**: a Yazirian in battle rage", 20),
    ({"target_encumbered": True}, "6. Target encumbered **+10**: target carries over half", 10),
    ({"wounded": True}, "8. Attacker wounded **-10**: given as wounded", -10),
    ({"target_defending": True}, "9. Target defending **-15**: target defends instead of attacking", -15),
    ({"modifier": -3}, "10. Situational **-3**: given by the player or referee", -3),
    ({"modifier": 100}, "10. Situational **+100**: given by the player or referee", 100),
    ({"skill": 6}, "2. Skill **+60**: skill level 6 x 10", 50),
    ({"score": 33}, "1. Base **+33**: MW given", -7),
]


async def test_every_melee_option_is_a_step_with_its_value(local: LocalDiscord) -> None:
    for options, line, change in MELEE_OPTIONS:
        exchange = await attack(local, "sf melee", [99], {**QUICK_MELEE, **options})
        assert steps(exchange) == with_line(QUICK_MELEE_STEPS, line, 50 + change), options
        assert exchange.embed["title"] == "Player0001 attacks in melee"


async def test_a_characters_melee_reads_load_stamina_and_the_targets_load(local: LocalDiscord) -> None:
    # Yazirian with STR 60 > DEX 45: MW 30; 26 kg of 50 is encumbered; Stamina 22 of 45 is wounded (44 <= 45).
    await sf_character(
        local,
        "Zix",
        (("Shock baton", "skill=melee damage=1d10 modifier=5 blunt=true"),),
        race="yazirian",
        strength=60,
        melee=2,
        carried_kg=26,
        current_stamina=22,
    )
    await sf_character(local, "Ox", carried_kg=26)  # encumbered: 52 > 50
    await sf_character(local, "Lean", carried_kg=25)  # exactly half: not encumbered
    options = {
        "character": "Zix",
        "weapon": "Shock baton",
        "target": "Ox",
        "helpless": "unaware",
        "battle_rage": True,
        "target_defending": True,
        "modifier": 1,
    }
    exchange = await attack(local, "sf melee", [99], options)
    assert exchange.embed["title"] == "Zix attacks Ox with Shock baton"
    assert steps(exchange) == [
        "1. Base **+30**: MW = ½ STR 60, rounded up: the greater of STR 60 and DEX 45",
        "2. Skill **+20**: melee level 2 x 10",
        "3. Weapon modifier **+5**: Shock baton",
        "4. Helpless defender **+20**: attacked from behind or unaware",
        "5. Battle rage **+20**: a Yazirian in battle rage",
        "6. Target encumbered **+10**: target carries over half",
        "7. Attacker encumbered **-10**: carrying 26 kg of 50 kg, more than half",
        "8. Attacker wounded **-10**: Stamina 22 of 45, half or less",
        "9. Target defending **-15**: target defends instead of attacking",
        "10. Situational **+1**: given by the player or referee",
        "Chance to hit: **71**",
    ]
    # A named target decides its encumbrance, even against `target_encumbered`.
    # Bare hands named: otherwise Zix attacks with the Shock baton it used last.
    options = {"character": "Zix", "target": "Lean", "target_encumbered": True, "weapon": "Bare hands"}
    lean = await attack(local, "sf melee", [99], options)
    assert steps(lean)[5] == "6. Target encumbered **+0**: no"
    assert steps(lean)[2] == "3. Weapon modifier **+0**†: Bare hands"  # its modifier proposed
    assert lean.embed["footer"]["text"] == DEFAULT_FOOTER
    # Stamina 23 of 45 and 25 kg of 50 are neither wounded nor encumbered.
    for field, value in (("current_stamina", "23"), ("carried_kg", "25")):
        await local.command("character set", {"character": "Zix", "field": field, "value": value})
    fit = await attack(local, "sf melee", [99], {"character": "Zix", "weapon": "Shock baton"})
    assert steps(fit)[6:8] == [
        "7. Attacker encumbered **+0**: carrying 25 kg of 50 kg, half or less",
        "8. Attacker wounded **+0**: Stamina 23 of 45, more than half",
    ]
    assert steps(fit)[-1] == "Chance to hit: **55**"  # 30 + 20 + 5


async def test_battle_rage_is_for_yazirians_only(local: LocalDiscord) -> None:
    await sf_character(local, "Kim")
    await sf_character(local, "Zix", race="yazirian")
    raging = await attack(local, "sf melee", [99], {"character": "Zix", "battle_rage": True})
    assert steps(raging)[4] == "5. Battle rage **+20**: a Yazirian in battle rage"
    assert steps(raging)[-1] == "Chance to hit: **43**"  # MW 23 + 20
    for command, options in (
        ("sf melee", {"character": "Kim", "battle_rage": True}),
        ("sf odds melee", {"character": "Kim", "battle_rage": True}),
    ):
        embed = await refused(local, command, options)
        assert embed["title"] == "No battle rage"
        assert embed["description"] == "Only Yazirians fight in battle rage (§5 step 5); Kim is a Human."
    quick = await refused(local, "sf melee", {**QUICK_MELEE, "battle_rage": True, "race": "dralasite"})
    assert quick["title"] == "No battle rage"
    assert quick["description"] == "Only Yazirians fight in battle rage (§5 step 5); the attacker is a Dralasite."
    raceless = await refused(local, "sf melee", {**QUICK_MELEE, "battle_rage": True})
    assert raceless["title"] == "No battle rage"
    assert raceless["description"] == "Only Yazirians fight in battle rage (§5 step 5); give the race as yazirian."


async def test_a_vrusk_character_ignores_the_wrong_hand(local: LocalDiscord) -> None:
    await sf_character(local, "Klik", (("Laser pistol", ""),), race="vrusk")
    await sf_character(local, "Kim", (("Laser pistol", ""),))
    vrusk = await attack(
        local, "sf shoot", [99], {"character": "Klik", "distance": 3, "setting": 1, "hands": "wrong_hand"}
    )
    assert steps(vrusk)[11] == "11. Wrong hand **+0**: Vrusks are ambidextrous: no penalty"
    assert steps(vrusk)[-1] == "Chance to hit: **23**"
    human = await attack(
        local, "sf shoot", [99], {"character": "Kim", "distance": 3, "setting": 1, "hands": "wrong_hand"}
    )
    assert steps(human)[11] == "11. Wrong hand **-10**: firing with the wrong hand"
    assert steps(human)[-1] == "Chance to hit: **13**"


async def test_a_wounded_character_shoots_at_minus_10(local: LocalDiscord) -> None:
    await sf_character(local, "Kim", (("Laser pistol", ""),), stamina=44, current_stamina=22)  # exactly half
    exchange = await attack(local, "sf shoot", [99], {"distance": 3, "setting": 1})
    assert steps(exchange)[9] == "9. Attacker wounded **-10**: Stamina 22 of 44, half or less"
    assert steps(exchange)[-1] == "Chance to hit: **13**"


# ---------------------------------------------------------------------------------------------------------
# §3: automatic results under both variants, chances above 100 and below 0.

HIGH = {
    "score": 100,
    "skill": 6,
    "damage": "1d10",
    "distance": "point_blank",
    "target_movement": "stationary",
    "attacker_movement": "aiming",
}
LOW = {"score": 0, "skill": 1, "damage": "1d10", "distance": "extreme", "situation": "-10"}  # 0 + 10 - 80 - 10 = -80


async def test_a_chance_above_100_still_misses_on_96_to_00_under_expanded(local: LocalDiscord) -> None:
    hit = await attack(local, "sf shoot", [95, 7], HIGH)
    assert steps(hit)[-1] == "Chance to hit: **185**"  # 100 + 60 + 10 + 15
    assert fields(hit)["Odds before the roll"].startswith("hit 95.0% · knock-out 2.0% · expected damage ")
    assert description(hit) == ["**Hit**: 95 is at or under 185", "Damage 1d10 (7) = **7** (quick-mode weapon)"]
    assert hit.embed["color"] == GREEN
    for face, shown in ((96, "96"), (100, "00")):
        miss = await attack(local, "sf shoot", [face], HIGH)
        reason = f"{shown} is 96-00: always a miss under the Expanded rules (§3)"
        assert description(miss) == [f"**Miss**: {reason}"]
        assert fields(miss)["The roll"] == f"d100 **{shown}** → automatic miss: {reason}\n{EXPANDED}"
        assert miss.embed["color"] == GREY


async def test_a_chance_below_0_still_hits_on_01_to_05(local: LocalDiscord) -> None:
    hit = await attack(local, "sf shoot", [5, 9], LOW)
    assert steps(hit)[-1] == "Chance to hit: **-80**"
    assert fields(hit)["Odds before the roll"] == "hit 5.0% · knock-out 2.0% · expected damage 0.28"  # 5% x 5.5
    assert description(hit) == [
        "**Hit**: 05 is 01-05: always a hit (§3)",
        "Damage 1d10 (9) = **9** (quick-mode weapon)",
    ]
    assert fields(hit)["The roll"].startswith("d100 **05** → automatic hit: 05 is 01-05: always a hit (§3)\n")
    miss = await attack(local, "sf shoot", [6], LOW)
    assert description(miss) == ["**Miss**: 06 is over -80"]
    assert fields(miss)["The roll"].startswith("d100 **06** → miss: 06 is over -80\n")


async def test_basic_rules_have_no_automatic_miss(local: LocalDiscord) -> None:
    await set_variants(local, "basic", "to-point-blank")
    for face, shown in ((97, "97"), (100, "00")):
        hit = await attack(local, "sf shoot", [face, 4], HIGH)
        assert description(hit) == [
            f"**Hit**: {shown} is at or under 185",
            "Damage 1d10 (4) = **4** (quick-mode weapon)",
        ]
        assert fields(hit)["Odds before the roll"] == "hit 100.0% · knock-out 2.0% · expected damage 5.50"
        assert fields(hit)["The roll"] == (
            f"d100 **{shown}** → hit: {shown} is at or under 185\n"
            "This server: no automatic miss (Basic); a sight reaches point blank. `/settings` changes them."
        )
    # 97 hits exactly when the chance is 97 or more: RW 87 + 10.
    at_97 = await attack(local, "sf shoot", [97, 1], {**QUICK_SHOT, "score": 87})
    assert steps(at_97)[-1] == "Chance to hit: **97**" and description(at_97)[0] == "**Hit**: 97 is at or under 97"
    at_96 = await attack(local, "sf shoot", [97], {**QUICK_SHOT, "score": 86})
    assert description(at_96) == ["**Miss**: 97 is over 96"]
    low = await attack(local, "sf shoot", [5, 1], LOW)  # 01-05 still always hits
    assert description(low)[0] == "**Hit**: 05 is 01-05: always a hit (§3)"
    assert fields(low)["Odds before the roll"].startswith("hit 5.0%")


# ---------------------------------------------------------------------------------------------------------
# §3 knock-outs: 01-02 shock on any hit; blunt melee on a hit ending in 0; both need a hit.


async def test_a_shot_on_01_or_02_knocks_out_after_the_damage(local: LocalDiscord) -> None:
    for face in (1, 2):
        dice = ScriptedDice([face, 6, 37])
        local.bot.dice = dice
        exchange = await local.command("sf shoot", {**QUICK_SHOT, "distance": "extreme"})
        assert dice.exhausted and dice.calls == [D100, D10, D100]  # d100, damage, then the turns
        assert description(exchange) == [
            "**Hit, knocked out for 37 turns**: a hit on 01-02 knocks the target out (§3)",
            "Damage 1d10 (6) = **6** (quick-mode weapon)",
        ]
        assert exchange.embed["color"] == GOLD
        assert fields(exchange)["The roll"].startswith(f"d100 **0{face}** → automatic hit: ")
        assert fields(exchange)["Odds before the roll"].startswith("hit 5.0% · knock-out 2.0% · expected damage ")


async def test_03_is_no_knock_out_and_a_ranged_roll_ending_in_0_neither(local: LocalDiscord) -> None:
    for face in (3, 10, 30):
        exchange = await attack(local, "sf shoot", [face, 2], QUICK_SHOT)
        assert description(exchange)[0].startswith("**Hit**: "), face
        assert exchange.embed["color"] == GREEN


async def test_melee_shock_knock_out_with_an_edged_weapon(local: LocalDiscord) -> None:
    exchange = await attack(local, "sf melee", [2, 8, 100], QUICK_MELEE)
    assert description(exchange) == [
        "**Hit, knocked out for 100 turns**: a hit on 01-02 knocks the target out (§3)",
        "Damage 1d10 (8) = **8** (quick-mode weapon)",
    ]
    edged = await attack(local, "sf melee", [30, 8], QUICK_MELEE)  # not blunt: 30 is a plain hit
    assert description(edged)[0] == "**Hit**: 30 is at or under 50"


async def test_a_blunt_hit_ending_in_0_knocks_out_and_a_blunt_miss_does_not(local: LocalDiscord) -> None:
    blunt = {**QUICK_MELEE, "blunt": True}  # chance 50
    # §9 melee: a club hitting on 35 or less knocks out on 01, 02, 10, 20, 30: 5% (here 01, 02, 10 ... 50: 7%).
    knocked = await attack(local, "sf melee", [30, 5, 12], blunt)
    assert description(knocked) == [
        "**Hit, knocked out for 12 turns**: a blunt weapon's hit on a roll ending in 0 knocks out (§3)",
        "Damage 1d10 (5) = **5** (quick-mode weapon)",
    ]
    assert fields(knocked)["Odds before the roll"] == "hit 50.0% · knock-out 7.0% · expected damage 2.75"
    assert knocked.embed["color"] == GOLD
    plain = await attack(local, "sf melee", [35, 5], blunt)
    assert description(plain)[0] == "**Hit**: 35 is at or under 50"
    missed = await attack(local, "sf melee", [60], blunt)  # ends in 0 but misses: no knock-out, no dice
    assert description(missed) == ["**Miss**: 60 is over 50"]
    assert missed.embed["color"] == GREY
    auto_missed = await attack(local, "sf melee", [100], {**blunt, "modifier": 100})  # 150, but 00 misses
    assert description(auto_missed) == ["**Miss**: 00 is 96-00: always a miss under the Expanded rules (§3)"]


async def test_under_basic_rules_a_blunt_00_that_hits_knocks_out(local: LocalDiscord) -> None:
    await set_variants(local, "basic", "to-point-blank")
    options = {**QUICK_MELEE, "blunt": True, "modifier": 50}  # chance 100
    exchange = await attack(local, "sf melee", [100, 3, 50], options)
    assert description(exchange) == [
        "**Hit, knocked out for 50 turns**: a blunt weapon's hit on a roll ending in 0 knocks out (§3)",
        "Damage 1d10 (3) = **3** (quick-mode weapon)",
    ]
    # Faces 1, 2 and the ten that end in 0 (00 included): 12%.
    assert fields(exchange)["Odds before the roll"] == "hit 100.0% · knock-out 12.0% · expected damage 5.50"


async def test_a_table_clubs_blunt_knock_out(local: LocalDiscord) -> None:
    await sf_character(local, "Kim")
    exchange = await attack(local, "sf melee", [20, 4, 9], {"weapon": "Club"})
    assert description(exchange) == [
        "**Hit, knocked out for 9 turns**: a blunt weapon's hit on a roll ending in 0 knocks out (§3)",
        "Damage 1d10† (4) = **4** (Club)",
    ]
    assert steps(exchange)[2] == "3. Weapon modifier **+0**†: Club"
    assert exchange.embed["footer"]["text"] == DEFAULT_FOOTER


# ---------------------------------------------------------------------------------------------------------
# §6 damage: faces shown; a laser by SEU; a burst split between targets; bare hands fixed.


async def test_a_laser_rolls_1d10_per_seu(local: LocalDiscord) -> None:
    await sf_character(local, "Kim", (("Laser pistol", ""),))
    dice = ScriptedDice([10, 1, 10, 3, 7])
    local.bot.dice = dice
    exchange = await local.command("sf shoot", {"distance": 3, "setting": 4})
    assert dice.exhausted and dice.calls == [D100, D10, D10, D10, D10]
    assert description(exchange) == [
        "**Hit**: 10 is at or under 23",
        "Damage 4d10 (1, 10, 3, 7) = **21** (1d10 per SEU at 4 SEU)",
    ]
    assert fields(exchange)["Odds before the roll"] == "hit 23.0% · knock-out 2.0% · expected damage 5.06"  # .23 x 22


BURSTS = [
    (
        1,
        [1, 2, 3, 4, 5],
        "Damage 5d10 (1, 2, 3, 4, 5) = **15** (burst: 5d10 + 1d10 for each target after the first)",
    ),
    (2, [5, 5, 5, 5, 5, 5], "Damage 6d10 (5, 5, 5, 5, 5, 5) = 30, split between 2 targets: **15** each"),
    (
        3,
        [1, 2, 3, 4, 5, 6, 7],
        "Damage 7d10 (1, 2, 3, 4, 5, 6, 7) = 28, split between 3 targets: **9** each (1 lost)",
    ),
    (
        5,
        [10] * 8 + [9],
        "Damage 9d10 (10, 10, 10, 10, 10, 10, 10, 10, 9) = 89, split between 5 targets: **17** each (4 lost)",
    ),
]


async def test_a_burst_rolls_5d10_plus_1d10_a_target_split_evenly(local: LocalDiscord) -> None:
    await sf_character(local, "Kim", (("Automatic pistol", ""),), projectile=1)
    for targets, faces, line in BURSTS:
        exchange = await attack(local, "sf shoot", [40, *faces], {"distance": 10, "burst": True, "targets": targets})
        # RW 23 + 10 - 10 (short: 10 m is over 5 and up to 15) + 20 = 43
        assert steps(exchange)[-1] == "Chance to hit: **43**"
        assert steps(exchange)[6] == f"6. Burst **+20**: 10 rounds at {targets} target{'s' if targets > 1 else ''}"
        assert description(exchange) == ["**Hit**: 40 is at or under 43", line]


async def test_bare_hands_do_fixed_punching_damage(local: LocalDiscord) -> None:
    await sf_character(local, "Kim", strength=61)  # punch 4; MW 31
    dice = ScriptedDice([25])  # no damage die
    local.bot.dice = dice
    exchange = await local.command("sf melee", {})
    assert dice.calls == [D100]
    assert exchange.embed["title"] == "Kim attacks with Bare hands"
    assert description(exchange) == ["**Hit**: 25 is at or under 31", "Damage 4 = **4** (punching damage 4 (STR 61))"]
    # Bare hands are blunt: 01, 02, 10, 20, 30 knock out; 31% x 4 = 1.24.
    assert fields(exchange)["Odds before the roll"] == "hit 31.0% · knock-out 5.0% · expected damage 1.24"


# ---------------------------------------------------------------------------------------------------------
# §9's worked example, and /sf odds, which rolls nothing.


async def test_the_worked_example_of_section_9(local: LocalDiscord, database: Database) -> None:
    # Human, DEX 55 (RW 28), beam 2, laser pistol at 30 m (medium), target running, careful aim, dial 3.
    await sf_character(local, "Kim", (("Laser pistol", ""),), dexterity=55, beam=2)
    options = {"distance": 30, "setting": 3, "target_movement": "running", "attacker_movement": "aiming"}
    exchange = await attack(local, "sf shoot", [33, 3, 4, 5], options)
    assert steps(exchange) == [
        "1. Base **+28**: RW = ½ DEX 55, rounded up",
        "2. Skill **+20**: beam level 2 x 10",
        "3. Range **-20**: medium: 30 m is over 20 m and up to 50 m",
        "4. Target movement **-10**: target running",
        "4. Attacker movement **+0**: attacker standing still",
        "5. Careful aim **+15**: standing still and aiming",
        "6. Burst **+0**: no",
        "7. Cover **+0**: no cover",
        "8. Target size **+0**: medium target",
        "9. Attacker wounded **+0**: Stamina 45 of 45, more than half",
        "10. Target prone **+0**: no",
        "11. Wrong hand **+0**: no",
        "12. Two weapons **+0**: no",
        "Chance to hit: **33**",
    ]
    # By hand: hit 33/100; knock-out 01-02 = 2/100; 3d10 averages 16.5, so 0.33 x 16.5 = 5.445 -> 5.45.
    assert fields(exchange)["Odds before the roll"] == "hit 33.0% · knock-out 2.0% · expected damage 5.45"
    assert description(exchange) == [
        "**Hit**: 33 is at or under 33",
        "Damage 3d10 (3, 4, 5) = **12** (1d10 per SEU at 3 SEU)",
    ]
    assert fields(exchange)["The roll"] == f"d100 **33** → hit: 33 is at or under 33\n{EXPANDED}"
    assert "footer" not in exchange.embed

    local.bot.dice = NoDice()
    odds = await local.command("sf odds shoot", options)
    assert odds.rejected == [] and not odds.ephemeral
    assert odds.embed["color"] == BLURPLE
    assert odds.embed["title"] == "Odds: Kim's shot with Laser pistol"
    assert odds.embed["description"] == (
        "Chance **33** → hit **33.0%**, knock-out **2.0%**\nExpected damage **5.45** (16.50 on a hit, 3d10)"
    )
    assert fields(odds)["Chance to hit"] == "\n".join(steps(exchange))
    assert fields(odds)["Rules"] == EXPANDED
    assert len(await logged(database)) == 1  # the shot only: odds are not a roll


async def test_melee_odds_roll_nothing(local: LocalDiscord, database: Database) -> None:
    local.bot.dice = NoDice()
    # §9 melee: a club user hitting on 35 or less knocks out on 01, 02, 10, 20, 30: 5%. 35% x 5.5 = 1.925.
    exchange = await local.command("sf odds melee", {"score": 25, "skill": 1, "damage": "1d10", "blunt": True})
    assert exchange.rejected == [] and not exchange.ephemeral
    assert exchange.embed["title"] == "Odds: Player0001's melee attack with quick-mode weapon"
    assert exchange.embed["description"] == (
        "Chance **35** → hit **35.0%**, knock-out **5.0%**\nExpected damage **1.93** (5.50 on a hit, 1d10)"
    )
    assert fields(exchange)["Chance to hit"].split("\n") == with_line(
        QUICK_MELEE_STEPS, "1. Base **+25**: MW given", 35
    )
    await sf_character(local, "Zix", race="yazirian", carried_kg=30, current_stamina=20)
    local.bot.dice = NoDice()
    own = await local.command("sf odds melee", {"battle_rage": True, "helpless": "stunned", "target_defending": True})
    # MW 23 + 0 + 0 + 20 + 20 - 10 - 10 - 15 = 28; bare hands are blunt: 01, 02, 10, 20: 4%; punch 3.
    assert own.embed["description"] == (
        "Chance **28** → hit **28.0%**, knock-out **4.0%**\nExpected damage **0.84** (3.00 on a hit, 3)"
    )
    assert own.embed["title"] == "Odds: Zix's melee attack with Bare hands"
    assert await logged(database) == []


async def test_shot_odds_of_a_quick_burst_less_shot(local: LocalDiscord) -> None:
    local.bot.dice = NoDice()
    exchange = await local.command(
        "sf odds shoot", {"score": 30, "skill": 2, "damage": "2d10", "distance": "long", "cover": "hard"}
    )
    # 30 + 20 - 40 - 20 = -10: only 01-05 hit; 5% x 11 = 0.55.
    assert exchange.embed["description"] == (
        "Chance **-10** → hit **5.0%**, knock-out **2.0%**\nExpected damage **0.55** (11.00 on a hit, 2d10)"
    )
    assert exchange.embed["title"] == "Odds: Player0001's shot with quick-mode weapon"


async def test_the_variants_shown_follow_settings(local: LocalDiscord) -> None:
    before = await attack(local, "sf shoot", [50, 4], QUICK_SHOT)
    assert fields(before)["The roll"].endswith(f"\n{EXPANDED}")
    await set_variants(local, "basic", "to-short")
    after = await attack(local, "sf shoot", [50, 4], QUICK_SHOT)
    assert fields(after)["The roll"] == f"d100 **50** → hit: 50 is at or under 50\n{BASIC}"
    melee = await attack(local, "sf melee", [50], {**QUICK_MELEE, "damage": "0"})  # fixed 0: no damage die
    assert fields(melee)["The roll"].endswith(f"\n{BASIC}")
    local.bot.dice = NoDice()
    odds = await local.command("sf odds shoot", QUICK_SHOT)
    assert fields(odds)["Rules"] == BASIC


# ---------------------------------------------------------------------------------------------------------
# Bad input: an ephemeral red embed with a clear message, nothing rolled, nothing logged.

REFUSALS = [
    pytest.param(
        {"score": 40, "skill": 1, "damage": "1d10"},
        "Where is the target?",
        "Give the distance in metres (`distance:30`), or the range band in quick mode (`distance:short`).",
        id="no-distance",
    ),
    pytest.param(
        {**QUICK_SHOT, "distance": "far"},
        "Where is the target?",
        "`distance`: `far` is neither metres (like 30) nor a range band (point blank, short, medium, long, extreme).",
        id="distance-unreadable",
    ),
    pytest.param(
        {**QUICK_SHOT, "distance": "200000"},
        "Where is the target?",
        "`distance`: give 0 to 100,000 metres, not 200000.",
        id="distance-too-far",
    ),
    pytest.param(
        {"score": 40, "distance": "short"},
        "Quick mode",
        "Quick mode needs `score` (the RW score), `skill` (the level), `damage` (dice) and a range band as `distance`.",
        id="quick-mode-incomplete",
    ),
    pytest.param(
        {"score": 40, "skill": 1, "damage": "1d10", "distance": 10},
        "Quick mode",
        "Quick mode needs `score` (the RW score), `skill` (the level), `damage` (dice) and a range band as "
        "`distance`. Without a weapon there are no bands to measure metres against.",
        id="quick-mode-with-a-distance",
    ),
    pytest.param(
        {**QUICK_SHOT, "character": "Kim"},
        "Quick mode",
        "Quick mode takes no `character` or `weapon`: use one or the other.",
        id="quick-mode-and-character",
    ),
    pytest.param(
        {**QUICK_SHOT, "weapon": "Laser pistol"},
        "Quick mode",
        "Quick mode takes no `character` or `weapon`: use one or the other.",
        id="quick-mode-and-weapon",
    ),
    pytest.param(
        {"distance": 10},
        "Which character?",
        "You have no active Star Frontiers character here: name one with `character`, pick one with "
        "`/character use`, or give the numbers directly (quick mode).",
        id="no-active-character",
    ),
    pytest.param(
        {"distance": 10, "character": "Nobody"},
        "No such character",
        "Nobody here has a character called **Nobody**.",
        id="unknown-character",
    ),
    pytest.param(
        {**QUICK_SHOT, "damage": "2d10-1"},
        "Can't read that",
        "`damage`: Unexpected '-' at character 5. Write damage as dice like 2d10, 1d5+3 or a fixed number like 3.\n"
        "```\n2d10-1\n    ^\n```",
        id="quick-damage-does-not-parse",
    ),
    pytest.param(
        {**QUICK_SHOT, "damage": "1d1000"},
        "Can't read that",
        "`damage`: Number too large: 1000 at character 3. The limit here is 999.\n```\n1d1000\n  ^\n```",
        id="quick-damage-too-many-sides",
    ),
]


@pytest.mark.parametrize("command", ["sf shoot", "sf odds shoot"])
async def test_bad_shots_are_refused_in_red(local: LocalDiscord, database: Database, command: str) -> None:
    for case in REFUSALS:
        options, title, message = case.values
        assert isinstance(options, dict)
        embed = await refused(local, command, options)
        assert embed["title"] == title, case.id
        assert isinstance(message, str) and message in embed["description"], (case.id, embed)
    assert await logged(database) == []


async def test_a_characters_weapon_mistakes_are_refused(local: LocalDiscord, database: Database) -> None:
    await sf_character(local, "Kim", (("Laser pistol", ""),))
    cases = [
        (
            "sf shoot",
            {"distance": 10},
            "Set the **Laser pistol**'s dial before the roll (§6): `setting` from 1 to 10 SEU.",
        ),
        (
            "sf shoot",
            {"distance": 10, "setting": 11},
            "Set the **Laser pistol**'s dial before the roll (§6): `setting` from 1 to 10 SEU.",
        ),
        ("sf odds shoot", {"distance": 10}, "Set the **Laser pistol**'s dial before the roll (§6)"),
        ("sf shoot", {"weapon": "Club", "distance": 1}, "The **Club** is a melee weapon: make a melee attack with it."),
        (
            "sf melee",
            {"weapon": "Laser pistol"},
            "The **Laser pistol** is not a melee weapon: shoot with it instead.",
        ),
        (
            "sf shoot",
            {"distance": 10, "setting": 2, "burst": True},
            "The **Laser pistol** cannot fire a burst; automatic weapons can (§6).",
        ),
        (
            "sf shoot",
            {"weapon": "Automatic pistol", "distance": 10, "setting": 2},
            "Only lasers have an SEU dial; the **Automatic pistol** does 1d10.",
        ),
        (
            "sf shoot",
            {"weapon": "Automatic pistol", "distance": 10, "targets": 2},
            "Only a burst covers several targets (§6); a single shot has one.",
        ),
        (
            "sf shoot",
            {"distance": "short", "setting": 2},
            "A character's shot takes the `distance` in metres; its weapon's bands give the range.",
        ),
    ]
    for command, options, message in cases:
        embed = await refused(local, command, options)
        assert embed["description"] == message or embed["description"].startswith(message), (options, embed)
    assert await logged(database) == []


# ---------------------------------------------------------------------------------------------------------
# The roll log.


async def test_a_shot_is_logged_with_every_roll(local: LocalDiscord, database: Database) -> None:
    await sf_character(local, "Kim", (("Laser pistol", ""),), dexterity=55, beam=2)
    options = {
        "distance": 30,
        "setting": 3,
        "target_movement": "running",
        "attacker_movement": "aiming",
        "private": True,
    }
    dice = ScriptedDice([2, 3, 4, 5, 37])
    local.bot.dice = dice
    exchange = await local.command("sf shoot", options)
    assert exchange.ephemeral and dice.exhausted
    [row] = await logged(database)
    assert row.interaction_id == int(exchange.payload["id"])
    assert row.user_id == int(local.actor.user_id)
    assert row.channel_id == int(local.actor.channel_id)
    assert row.command == "sf shoot"
    assert row.inputs == options
    assert row.private is True
    assert row.result == {
        "kind": "ranged",
        "weapon": "Laser pistol",
        "steps": [
            [1, "Base", 28],
            [2, "Skill", 20],
            [3, "Range", -20],
            [4, "Target movement", -10],
            [4, "Attacker movement", 0],
            [5, "Careful aim", 15],
            [6, "Burst", 0],
            [7, "Cover", 0],
            [8, "Target size", 0],
            [9, "Attacker wounded", 0],
            [10, "Target prone", 0],
            [11, "Wrong hand", 0],
            [12, "Two weapons", 0],
        ],
        "chance": 33,
        "d100": 2,
        "decision": "automatic hit",
        "knockout": ["shock", 37],
        "damage": {"dice": "3d10", "faces": [3, 4, 5], "share": 12},
        "variants": {"automatic_miss": True, "sight": True},
    }


# ---------------------------------------------------------------------------------------------------------
# Bugs found: each test states the behaviour the reference and the command's own help promise.


async def test_shoot_defaults_to_the_only_ranged_weapon(local: LocalDiscord) -> None:
    await sf_character(local, "Kim", (("Laser pistol", ""), ("Club", "")))
    exchange = await attack(local, "sf shoot", [99], {"distance": 10, "setting": 2})
    assert exchange.embed["title"] == "Kim shoots with the Laser pistol"


async def test_an_untrained_quick_attack_names_its_skill_step_sensibly(local: LocalDiscord) -> None:
    exchange = await attack(local, "sf shoot", [99], {**QUICK_SHOT, "skill": 0})
    assert steps(exchange)[1].startswith("2. Skill **+0**: ")
    assert "skill skill" not in steps(exchange)[1]


async def test_exact_expected_damage_halves_round_the_same_way(local: LocalDiscord) -> None:
    exchange = await attack(local, "sf shoot", [99], HIGH)
    assert fields(exchange)["Odds before the roll"] == "hit 95.0% · knock-out 2.0% · expected damage 5.23"


async def test_a_sight_at_point_blank_does_not_blame_the_server_rule(local: LocalDiscord) -> None:
    exchange = await attack(local, "sf shoot", [99], {**QUICK_SHOT, "situation": "telescopic sight"})
    assert steps(exchange)[2].startswith("3. Range **+0**: point blank (given)")
    assert "server's rule" not in steps(exchange)[2]
