"""/aliens fire|odds|melee through discord.py's real command tree, with forced dice (aliensrl.md).

Expected texts are worked out by hand from the reference: the roll table of §3, the skill formula of §4,
quality and damage of §5 and strays and beings in the way of §6. The bot rolls randint(1, 100) for the d100,
then randint(0, n - 1) for the stray square if the projectile strays, then randint(1, 10) for a being in the
way, per projectile.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.db.engine import Database
from bot.local.driver import Exchange, LocalDiscord
from tests.dice_sources import NoDice, ScriptedDice
from tests.helpers import BLURPLE, RED, create_vasquez, logged

# These tests read every step: the server shows full answers (the compact default is tested in test_buttons).
pytestmark = pytest.mark.usefixtures("full_answers")

MELEE_ODDS = "Odds: hit 100% · the damage is fixed, no dice are rolled"
DEFAULT_FOOTER = "† a default: the rules source does not give this number, so the bot proposes one."

DAGGER = "†"
WORDS = {  # §5, the placeholder words
    1: "barely grazes",
    2: "grazes",
    3: "nicks",
    4: "hits lightly",
    5: "hits",
    6: "hits solidly",
    7: "hits hard",
    8: "hits very hard",
    9: "hits squarely",
    10: "hits perfectly",
    11: "CRITICALLY hits",
}
ODDS_LINE = re.compile(
    r"critical \d+(\.\d\d?)?%, full damage \d+(\.\d\d?)?%, may stray \d+(\.\d\d?)?%, "
    r"expected damage to the target \d+\.\d\d(, to the being in the way \d+\.\d\d)?"
)
SKILL_5 = {"skill_rank": 2, "distance": 2}  # §7's marine: 1 + 2 advanced + 2 point blank = 5


def fields(exchange: Exchange) -> dict[str, str]:
    return {f["name"]: f["value"] for f in exchange.embed["fields"]}


async def fire(local: LocalDiscord, faces: list[int], options: dict[str, Any]) -> tuple[Exchange, ScriptedDice]:
    """Fire with forced dice; every face must be used, the answer must be public, fit Discord, and show odds."""
    dice = ScriptedDice(faces)
    local.bot.dice = dice
    exchange = await local.command("aliens fire", options)
    assert exchange.rejected == [], exchange.requests
    assert dice.exhausted, (dice.calls, faces)
    embed = exchange.embed
    assert embed["color"] == BLURPLE and not exchange.ephemeral, embed
    [odds_field, skill_field, *_] = embed["fields"]
    assert odds_field["name"] == "Odds before the roll (each shot)"
    assert ODDS_LINE.fullmatch(odds_field["value"]), odds_field["value"]
    assert skill_field["name"].startswith("Skill rating at ")
    return exchange, dice


def shot(exchange: Exchange) -> list[str]:
    return fields(exchange)["The shot"].split("\n")


# ---------------------------------------------------------------------------------------------------------
# §3 and §5: every row of the roll table, at both ends, for the §7 marine (skill 5, distance 2).

ROWS = [  # low, high, rating, default (†)
    (1, 2, -100, False),
    (3, 5, -3, False),
    (6, 10, -2, False),
    (11, 20, -1, True),
    (21, 80, 0, True),
    (81, 90, 1, True),
    (91, 95, 2, True),
    (96, 98, 3, True),
    (99, 100, 4, True),
]


@pytest.mark.parametrize(
    ("face", "low", "high", "rating", "default"),
    [(face, *row) for row in ROWS for face in (row[0], row[1])],
)
async def test_every_row_of_the_roll_table_at_both_ends(
    local: LocalDiscord, face: int, low: int, high: int, rating: int, default: bool
) -> None:
    exchange, dice = await fire(local, [face], SKILL_5)
    assert dice.calls == [(1, 100)]
    mark = DAGGER if default else ""
    lines = shot(exchange)
    assert lines[0] == f"d100 **{face}** → roll rating **{rating}** (row {low}–{high}{mark})"
    if rating == -100:
        assert lines[1:] == ["Critical: quality **11**, 200% of 10† = **20**", "Stray: a critical never strays"]
        assert exchange.embed["description"] == "**CRITICALLY hits†**: **20** damage (critical, 200%) to the target"
        return
    q = 5 - rating  # never clamped for skill 5: the ratings run -3..4
    assert lines[1:] == [
        f"Quality 5 - ({rating}) = {q} → {q * 10}% of 10† = **{q}**",
        f"Stray: rating - skill = {rating - 5} ≤ 0, stays on target",
    ]
    assert exchange.embed["description"] == f"**{WORDS[q]}†**: **{q}** damage to the target"
    assert fields(exchange)["Odds before the roll (each shot)"] == (
        "critical 2%, full damage 0%, may stray 0%, expected damage to the target 5.22"  # §7: 0.522 of 10
    )
    assert exchange.embed["title"] == "Player0001 fires"
    assert exchange.embed["footer"]["text"].startswith("† a default")


async def test_quality_is_clamped_at_1(local: LocalDiscord) -> None:
    # Untrained at distance 4: skill 1 - 1 = 0; d100 100 is rating +4; 0 - 4 = -4 -> 1.
    exchange, dice = await fire(local, [100], {"skill_rank": 0, "distance": 4})
    assert dice.calls == [(1, 100)]  # may stray, but distance 4 < 5: no stray square is rolled
    assert shot(exchange) == [
        "d100 **100** → roll rating **4** (row 99–100†)",
        "Quality 0 - (4) = -4, clamped to 1 → 10% of 10† = **1**",
        "Stray: rating - skill = 4 > 0, but at distance 4 < 5 it stays",
    ]
    assert exchange.embed["description"] == "**barely grazes†**: **1** damage to the target"


async def test_quality_is_clamped_at_10(local: LocalDiscord) -> None:
    # Master with accuracy 6 at distance 1: 1 + 4 + 6 + 3 = 14; d100 3 is rating -3; 14 + 3 = 17 -> 10.
    exchange, _ = await fire(local, [3], {"skill_rank": 4, "accuracy": 6, "distance": 1})
    assert shot(exchange)[1] == "Quality 14 - (-3) = 17, clamped to 10 → 100% of 10† = **10**"
    assert exchange.embed["description"] == "**hits perfectly†**: **10** damage to the target"
    # Every face but the critical gives quality 10: 2% critical (20), 98% full (10): 10.2 expected.
    assert fields(exchange)["Odds before the roll (each shot)"] == (
        "critical 2%, full damage 98%, may stray 0%, expected damage to the target 10.20"
    )


async def test_quality_exactly_10_is_not_called_clamped(local: LocalDiscord) -> None:
    # 1 + 4 + 5 + 0 (distance 4) = 10; d100 50 is rating 0.
    exchange, _ = await fire(local, [50], {"skill_rank": 4, "accuracy": 5, "distance": 4})
    assert shot(exchange)[1] == "Quality 10 - (0) = 10 → 100% of 10† = **10**"


async def test_a_small_ammo_damage_still_deals_at_least_1(local: LocalDiscord) -> None:
    exchange, _ = await fire(local, [50], {"skill_rank": 0, "distance": 3, "ammo_damage": 3})  # skill 1, quality 1
    assert shot(exchange)[1:3] == ["Quality 1 - (0) = 1 → 10% of 3 = **1**", "(at least 1 damage)"]
    exchange, _ = await fire(local, [1], {"skill_rank": 0, "distance": 3, "ammo_damage": 3})
    assert shot(exchange)[1] == "Critical: quality **11**, 200% of 3 = **6**"


async def test_the_critical_is_quality_11_at_200_percent_and_never_strays(local: LocalDiscord) -> None:
    # A hopeless shooter at distance 9: 1 - 1 - 100 - 20 - 1 = -121; -100 - (-121) > 0, yet no stray square.
    options = {"skill_rank": 0, "pain": 100, "accuracy": -20, "distance": 9}
    exchange, dice = await fire(local, [2], options)
    assert dice.calls == [(1, 100)]
    assert shot(exchange) == [
        "d100 **2** → roll rating **-100** (row 1–2)",
        "Critical: quality **11**, 200% of 10† = **20**",
        "Stray: a critical never strays",
    ]
    assert exchange.embed["description"] == "**CRITICALLY hits†**: **20** damage (critical, 200%) to the target"
    skill = fields(exchange)["Skill rating at distance 9"]
    assert skill.startswith("**-121** = 1 base - 1 untrained - 100 pain - 20 weapon accuracy - 1 long range (d 9)")


# ---------------------------------------------------------------------------------------------------------
# §4: the distance terms, shown in the skill-rating field.

DISTANCES = [  # distance, long-range text, point-blank text, skill for a basic shooter (1 + 1 ...)
    (1, "+ 0", "+ 3", 5),
    (2, "+ 0", "+ 2", 4),
    (3, "+ 0", "+ 1", 3),
    (4, "+ 0", "+ 0", 2),
    (5, "+ 0", "+ 0", 2),
    (7, "+ 0", "+ 0", 2),
    (8, "- 1", "+ 0", 1),
    (9, "- 1", "+ 0", 1),
    (10, "- 1", "+ 0", 1),
    (11, "- 2", "+ 0", 0),
    (14, "- 3", "+ 0", -1),
]


@pytest.mark.parametrize(("d", "long_range", "point_blank", "skill"), DISTANCES)
async def test_distance_terms_in_the_skill_field(
    local: LocalDiscord, d: int, long_range: str, point_blank: str, skill: int
) -> None:
    exchange, _ = await fire(local, [3], {"skill_rank": 1, "distance": d})  # rating -3: no stray for skill >= -3
    assert fields(exchange)[f"Skill rating at distance {d}"] == (
        f"**{skill}** = 1 base + 1 basic skill + 0 pain + 0 weapon accuracy "
        f"{long_range} long range (d {d}) {point_blank} point blank (d {d})"
    )


@pytest.mark.parametrize(("dx", "dy", "d"), [(1, 1, 1), (-2, 1, 2), (3, 2, 4), (6, 6, 9), (0, -8, 8)])
async def test_an_offset_aim_uses_the_angband_distance(local: LocalDiscord, dx: int, dy: int, d: int) -> None:
    exchange, _ = await fire(local, [3], {"skill_rank": 1, "dx": dx, "dy": dy})
    assert any(name == f"Skill rating at ({dx}, {dy}), distance {d}" for name in fields(exchange))


async def test_only_dx_means_dy_0(local: LocalDiscord) -> None:
    exchange, _ = await fire(local, [3], {"skill_rank": 1, "dx": 7})
    assert "Skill rating at (7, 0), distance 7" in fields(exchange)


# ---------------------------------------------------------------------------------------------------------
# §6: strays.


async def test_no_stray_when_rating_minus_skill_is_not_positive(local: LocalDiscord) -> None:
    # Untrained at distance 6: skill 0. d100 50 is rating 0: the difference 0 does not stray, at any distance.
    exchange, dice = await fire(local, [50], {"skill_rank": 0, "distance": 6})
    assert dice.calls == [(1, 100)]
    assert shot(exchange)[-1] == "Stray: rating - skill = 0 ≤ 0, stays on target"
    assert exchange.embed["description"] == "**barely grazes†**: **1** damage to the target"


async def test_a_stray_allowed_below_distance_5_stays(local: LocalDiscord) -> None:
    exchange, dice = await fire(local, [85], {"skill_rank": 0, "distance": 4})  # rating 1 > skill 0
    assert dice.calls == [(1, 100)]
    assert shot(exchange)[-1] == "Stray: rating - skill = 1 > 0, but at distance 4 < 5 it stays"
    assert exchange.embed["description"].endswith("to the target")
    assert fields(exchange)["Odds before the roll (each shot)"].startswith("critical 2%, full damage 0%, may stray 20%")


@pytest.mark.parametrize(
    ("dx", "dy", "d", "index", "landing"),
    [
        (5, 0, 5, 0, (4, -1)),  # neighbours in rows: (-1,-1) (0,-1) (1,-1) (-1,0) (1,0) (-1,1) (0,1) (1,1)
        (5, 2, 6, 7, (6, 3)),
        (-4, 6, 8, 3, (-5, 6)),
        (0, -7, 7, 4, (1, -7)),
    ],
)
async def test_an_adjacent_stray_at_distance_5_to_8(
    local: LocalDiscord, dx: int, dy: int, d: int, index: int, landing: tuple[int, int]
) -> None:
    skill = 0 if d < 8 else -1  # untrained, minus 1 long range from 8
    exchange, dice = await fire(local, [85, index], {"skill_rank": 0, "dx": dx, "dy": dy})
    assert dice.calls == [(1, 100), (0, 7)]  # one of 8 squares
    square = f"({landing[0]}, {landing[1]})"
    assert shot(exchange)[-1] == (
        f"Stray: rating - skill = {1 - skill} > 0 at distance {d}: one of the 8 neighbours → {square}"
    )
    assert exchange.embed["description"] == f"**strays** to {square}: 1 damage to whatever stands there"


@pytest.mark.parametrize(
    ("aim", "index", "where"),
    [
        # The 16 squares at Chebyshev distance 2, row by row: (-2,-2) (-1,-2) (0,-2) (1,-2) (2,-2) (-2,-1) ...
        ({"dx": 9, "dy": 0}, 0, "(7, -2)"),
        ({"dx": 9, "dy": 3}, 15, "(11, 5)"),
        ({"dx": -12, "dy": 0}, 8, "(-10, 0)"),
        ({"distance": 12}, 5, "-2, -1 from the aimed square"),
    ],
)
async def test_a_two_tile_stray_at_distance_9_and_more(
    local: LocalDiscord, aim: dict[str, int], index: int, where: str
) -> None:
    exchange, dice = await fire(local, [85, index], {"skill_rank": 0, **aim})
    assert dice.calls == [(1, 100), (0, 15)]
    assert shot(exchange)[-1].endswith(f"one of the squares two tiles away (chebyshev†) → {where}")
    assert exchange.embed["description"] == f"**strays** to {where}: 1 damage to whatever stands there"


# ---------------------------------------------------------------------------------------------------------
# §6.5: a being in the way is missed on 6 in 10.


@pytest.mark.parametrize("d10", [1, 6])
async def test_the_being_in_the_way_missed_on_1_to_6(local: LocalDiscord, d10: int) -> None:
    exchange, dice = await fire(local, [50, d10], {**SKILL_5, "intervening": True})
    assert dice.calls == [(1, 100), (1, 10)]
    assert (
        exchange.embed["description"]
        == "misses the being in the way and flies on; **hits†**: **5** damage to the target"
    )
    assert shot(exchange)[-1] == f"Being in the way: d10 **{d10}** → missed (6 in 10)"
    assert fields(exchange)["Odds before the roll (each shot)"] == (
        # 5.22 x 6/10 reaches the target, 5.22 x 4/10 the being
        "critical 2%, full damage 0%, may stray 0%, expected damage to the target 3.13, to the being in the way 2.09"
    )


@pytest.mark.parametrize("d10", [7, 10])
async def test_the_being_in_the_way_hit_on_7_to_10(local: LocalDiscord, d10: int) -> None:
    exchange, _ = await fire(local, [50, d10], {**SKILL_5, "intervening": True})
    assert exchange.embed["description"] == "hits the being in the way: **hits†**: **5** damage"
    assert shot(exchange)[-1] == f"Being in the way: d10 **{d10}** → hit (4 in 10)"


async def test_a_strayed_shot_rolls_the_square_before_the_being(local: LocalDiscord) -> None:
    exchange, dice = await fire(local, [85, 2, 4], {"skill_rank": 0, "dx": 6, "dy": 0, "intervening": True})
    assert dice.calls == [(1, 100), (0, 7), (1, 10)]
    assert exchange.embed["description"] == (
        "misses the being in the way and flies on; **strays** to (7, -1): 1 damage to whatever stands there"
    )
    assert shot(exchange)[-2:] == [
        "Stray: rating - skill = 1 > 0 at distance 6: one of the 8 neighbours → (7, -1)",
        "Being in the way: d10 **4** → missed (6 in 10)",
    ]


# ---------------------------------------------------------------------------------------------------------
# A character's weapon: its skill, pain, accuracy and shots.


async def test_the_active_character_fires_every_projectile(local: LocalDiscord, database: Database) -> None:
    await create_vasquez(local, heavy=2, pain=1, details="type=heavy accuracy=2 shots=3")
    # 1 + 2 advanced - 1 pain + 2 accuracy at distance 4 = 4; faces 1, 50, 100: qualities 11, 4, 0 -> 1.
    exchange, dice = await fire(local, [1, 50, 100], {"distance": 4})
    assert dice.calls == [(1, 100)] * 3
    embed = exchange.embed
    assert embed["title"] == "Vasquez fires Smartgun"
    assert embed["description"].split("\n") == [
        "Shot 1: **CRITICALLY hits†**: **20** damage (critical, 200%) to the target",
        "Shot 2: **hits lightly†**: **4** damage to the target",
        "Shot 3: **barely grazes†**: **1** damage to the target",
        "Total to the target: **25**",
    ]
    shown = fields(exchange)
    assert shown["Skill rating at distance 4"] == (
        "**4** = 1 base + 2 advanced skill - 1 pain + 2 weapon accuracy + 0 long range (d 4) + 0 point blank (d 4)"
    )
    assert [name for name in shown if name.startswith("Shot")] == ["Shot 1", "Shot 2", "Shot 3"]
    assert shown["Shot 3"].split("\n") == [
        "d100 **100** → roll rating **4** (row 99–100†)",
        "Quality 4 - (4) = 0, clamped to 1 → 10% of 10† = **1**",
        "Stray: rating - skill = 0 ≤ 0, stays on target",
    ]
    # 2% x 20 + 3% x 7 + 5% x 6 + 10% x 5 + 60% x 4 + 10% x 3 + 5% x 2 + 5% x 1 = 4.26
    assert shown["Odds before the roll (each shot)"].endswith("expected damage to the target 4.26")
    [row] = await logged(database)
    assert [p["d100"] for p in row.result["projectiles"]] == [1, 50, 100]
    assert row.result["total_to_target"] == 25


async def test_pain_given_to_the_command_replaces_the_characters(local: LocalDiscord) -> None:
    await create_vasquez(local, heavy=2, pain=1, details="type=heavy accuracy=2 shots=3")
    exchange, _ = await fire(local, [50, 50, 50], {"distance": 4, "pain": 0, "weapon": "SMARTGUN"})
    assert fields(exchange)["Skill rating at distance 4"].startswith("**5** = 1 base + 2 advanced skill + 0 pain")


async def test_the_weapons_type_picks_the_skill(local: LocalDiscord) -> None:
    await create_vasquez(local, heavy=3, pain=0, details="type=pistol")
    exchange, _ = await fire(local, [50], {"character": "Vasquez", "distance": 4})
    assert fields(exchange)["Skill rating at distance 4"].startswith("**0** = 1 base - 1 untrained")


# ---------------------------------------------------------------------------------------------------------
# /aliens odds: rolls nothing.


async def test_odds_show_the_quality_bars_and_expected_damage(local: LocalDiscord, database: Database) -> None:
    local.bot.dice = NoDice()
    exchange = await local.command("aliens odds", SKILL_5)
    assert exchange.rejected == [] and not exchange.ephemeral
    embed = exchange.embed
    assert embed["title"] == "Odds: Player0001 at distance 2"
    shown = fields(exchange)
    # Skill 5: quality 5 - rating; bars of round(20 x chance / 60%).
    assert shown["Quality (share of ammo damage)"].split("\n") == [
        "` 1  10%     2%` █",
        "` 2  20%     3%` █",
        "` 3  30%     5%` ██",
        "` 4  40%    10%` ███",
        "` 5  50%    60%` ████████████████████",
        "` 6  60%    10%` ███",
        "` 7  70%     5%` ██",
        "` 8  80%     3%` █",
        "` 9  90%     0%` ",
        "`10 100%     0%` ",
        "`11 200%     2%` █",
    ]
    assert shown["Skill rating"].startswith("**5** = 1 base + 2 advanced skill")
    assert shown["Strays"] == "Cannot stray: the skill rating is at least every roll rating"
    assert shown["Expected damage"] == "**5.22** to the target per shot; reaches the target 100%"
    assert await logged(database) == []


async def test_odds_with_strays_and_a_being_in_the_way(local: LocalDiscord) -> None:
    local.bot.dice = NoDice()
    exchange = await local.command("aliens odds", {"skill_rank": 1, "distance": 9, "intervening": True})
    shown = fields(exchange)
    # Skill 1: ratings 2, 3, 4 stray (10%), over 16 squares. Off the strays the mean damage is 1.57 (x 6/10
    # reaches the target); over every face 1.67 (x 4/10 hits the being).
    assert shown["Strays"] == (
        "May stray: 10%; strays to 16 squares at 0.63% each (around the aimed square); "
        "the being in the way may stop it first (4 in 10)"
    )
    assert shown["Expected damage"] == (
        "**0.94** to the target per shot; 0.67 per shot to the being in the way; reaches the target 54%"
    )
    assert shown["Quality (share of ammo damage)"].split("\n")[0] == "` 1  10%    80%` ████████████████████"


async def test_odds_of_a_stray_that_distance_stops(local: LocalDiscord) -> None:
    local.bot.dice = NoDice()
    exchange = await local.command("aliens odds", {"skill_rank": 0, "dx": 3, "dy": 1})
    assert exchange.embed["title"] == "Odds: Player0001 at (3, 1), distance 3"
    assert fields(exchange)["Strays"] == "A bad roll (10%) could stray, but at distance 3 < 5 none does"


async def test_odds_for_a_characters_weapon_count_every_shot(local: LocalDiscord) -> None:
    await create_vasquez(local, heavy=2, pain=1, details="type=heavy accuracy=2 shots=3")
    local.bot.dice = NoDice()
    exchange = await local.command("aliens odds", {"distance": 4})
    assert exchange.embed["title"] == "Odds: Vasquez with Smartgun at distance 4"
    assert fields(exchange)["Expected damage"] == (
        "**4.26** to the target per shot, **12.78** for all 3 shots; reaches the target 100%"
    )


# ---------------------------------------------------------------------------------------------------------
# /aliens melee: always hits.


@pytest.mark.parametrize("attacker", [None, "worker", "warrior", "hunter"])
async def test_melee_default_damage_is_5_with_the_default_mark(
    local: LocalDiscord, database: Database, attacker: str | None
) -> None:
    local.bot.dice = NoDice()
    exchange = await local.command("aliens melee", {} if attacker is None else {"attacker": attacker})
    embed = exchange.embed
    assert embed["title"] == f"{(attacker or 'warrior').title()} attacks in melee"
    assert embed["description"] == f"**Hits** (melee always hits): **5**† damage\n{MELEE_ODDS}"
    assert embed["footer"]["text"] == DEFAULT_FOOTER
    [row] = await logged(database)
    assert row.command == "aliens melee" and row.result == {"attacker": attacker or "warrior", "damage": 5}


async def test_melee_with_an_explicit_damage(local: LocalDiscord) -> None:
    local.bot.dice = NoDice()
    exchange = await local.command("aliens melee", {"attacker": "hunter", "damage": 12, "private": True})
    assert exchange.ephemeral
    assert exchange.embed["description"] == f"**Hits** (melee always hits): **12** damage\n{MELEE_ODDS}"
    assert "footer" not in exchange.embed
    zero = await local.command("aliens melee", {"damage": 0})
    assert zero.embed["description"] == f"**Hits** (melee always hits): **0** damage\n{MELEE_ODDS}"


# ---------------------------------------------------------------------------------------------------------
# Bad input: an ephemeral red embed, nothing rolled, nothing logged.

QUICK = {"skill_rank": 1}
REFUSALS = [
    pytest.param(
        {**QUICK, "distance": 3, "dx": 1},
        "Can't take that shot",
        "Give the target as `dx`/`dy` or as `distance`, not both.",
        id="distance-and-dx",
    ),
    pytest.param(
        {**QUICK, "distance": 3, "dy": 1},
        "Can't take that shot",
        "Give the target as `dx`/`dy` or as `distance`, not both.",
        id="distance-and-dy",
    ),
    pytest.param(
        QUICK,
        "Can't take that shot",
        "Say where the target is: `dx` and `dy` (squares across and down) or `distance`.",
        id="no-aim",
    ),
    pytest.param(
        {**QUICK, "dx": 0, "dy": 0},
        "Can't take that shot",
        "A ranged shot needs a target 1 to 1000 squares away, not 0.",
        id="own-square",
    ),
    pytest.param(
        {**QUICK, "dx": 1000, "dy": 1000},
        "Can't take that shot",
        "A ranged shot needs a target 1 to 1000 squares away, not 1500.",
        id="too-far",
    ),
    pytest.param(
        {**QUICK, "distance": 3, "character": "Vasquez"},
        "Quick mode",
        "Quick mode takes no `character` or `weapon`: use one or the other.",
        id="quick-and-character",
    ),
    pytest.param(
        {"accuracy": 2, "distance": 3, "weapon": "Smartgun"},
        "Quick mode",
        "use one or the other",
        id="quick-and-weapon",
    ),
    pytest.param(
        {"distance": 3},
        "Which character?",
        "You have no active AliensRL character here: name one with `character`, pick one with "
        "`/character use`, or give the numbers directly (quick mode).",
        id="no-active-character",
    ),
    pytest.param(
        {"distance": 3, "character": "Hudson"},
        "No such character",
        "Nobody here has a character called **Hudson**.",
        id="unknown-character",
    ),
]


@pytest.mark.parametrize("command", ["aliens fire", "aliens odds"])
@pytest.mark.parametrize(("options", "title", "message"), REFUSALS)
async def test_bad_input_is_refused_in_red(
    local: LocalDiscord, database: Database, command: str, options: dict[str, Any], title: str, message: str
) -> None:
    local.bot.dice = NoDice()
    exchange = await local.command(command, options)
    assert exchange.ephemeral and exchange.rejected == []
    assert exchange.embed["color"] == RED
    assert exchange.embed["title"] == title
    assert message in exchange.embed["description"]
    assert await logged(database) == []


@pytest.mark.parametrize("command", ["aliens fire", "aliens odds"])
async def test_character_weapon_mistakes_are_refused(local: LocalDiscord, database: Database, command: str) -> None:
    await create_vasquez(local)
    local.bot.dice = NoDice()
    unarmed = await local.command(command, {"distance": 3})
    assert unarmed.ephemeral and unarmed.embed["color"] == RED and unarmed.embed["title"] == "No weapon"
    assert unarmed.embed["description"] == "**Vasquez** carries no weapon: `/character weapon add` gives one."

    await local.command("character weapon add", {"character": "Vasquez", "name": "Smartgun", "details": "type=heavy"})
    missing = await local.command(command, {"distance": 3, "weapon": "Flamer"})
    assert missing.ephemeral and missing.embed["color"] == RED
    assert missing.embed["description"] == "**Vasquez** has no weapon `Flamer`; it carries Smartgun."

    await local.command("character weapon add", {"character": "Vasquez", "name": "Pistol", "details": "type=pistol"})
    which = await local.command(command, {"distance": 3})
    assert which.ephemeral and which.embed["title"] == "Which weapon?"
    assert which.embed["description"] == "Which weapon? **Vasquez** carries Smartgun, Pistol."

    other = await local.command("character create", {"ruleset": "dnd35", "name": "Regis"})
    assert other.rejected == []
    wrong = await local.command(command, {"distance": 3, "character": "Regis"})
    assert wrong.ephemeral and wrong.embed["color"] == RED
    assert wrong.embed["description"] == "**Regis** is a D&D 3.5 / NWN character, not AliensRL."
    assert await logged(database) == []


# ---------------------------------------------------------------------------------------------------------
# The roll log.


async def test_a_fire_is_logged_with_every_roll(local: LocalDiscord, database: Database) -> None:
    options = {"skill_rank": 0, "dx": 5, "dy": 2, "intervening": True, "private": True}
    dice = ScriptedDice([85, 0, 3])
    local.bot.dice = dice
    exchange = await local.command("aliens fire", options)
    assert exchange.ephemeral and dice.exhausted
    [row] = await logged(database)
    assert row.interaction_id == int(exchange.payload["id"])
    assert row.user_id == int(local.actor.user_id)
    assert row.channel_id == int(local.actor.channel_id)
    assert row.command == "aliens fire"
    assert row.inputs == options
    assert row.private is True
    assert row.result == {
        "distance": 6,
        "offset": [5, 2],
        "intervening": True,
        "projectiles": [
            {
                "d100": 85,
                "rating": 1,
                "skill": 0,
                "quality": 1,
                "damage": 1,
                "stray_offset": [-1, -1],
                "d10": 3,
                "missed_being": True,
            }
        ],
        "total_to_target": 0,
    }


# A weapon may fire 20 projectiles: the answer must still fit Discord's 6000 characters per message.


@pytest.mark.parametrize(
    ("aim", "faces"),
    [
        pytest.param({"distance": 10}, [85, 3], id="20-strays-at-distance-10"),  # ~6,740 characters
        pytest.param({"distance": 4, "intervening": True}, [50, 3], id="20-on-target-past-a-being"),  # ~6,350
    ],
)
async def test_a_twenty_shot_weapon_fits_one_answer(local: LocalDiscord, aim: dict[str, Any], faces: list[int]) -> None:
    await create_vasquez(local, heavy=0, pain=0, details="type=heavy shots=20")
    local.bot.dice = ScriptedDice(faces * 20)
    exchange = await local.command("aliens fire", aim)
    assert exchange.rejected == []
    assert exchange.embed["title"] == "Vasquez fires Smartgun"
    shots = "\n".join(f["value"] for f in exchange.embed["fields"] if f["name"].startswith("Shots"))
    assert len(shots.splitlines()) == 20  # every projectile still shown, one line each
