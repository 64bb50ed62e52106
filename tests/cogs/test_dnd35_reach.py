"""D&D rules the engine had and no option reached (#16): thrown melee weapons, shooting into a melee, targets
immune to critical hits. Forced dice through the command tree, and the exact odds they change."""

from __future__ import annotations

import pytest

from bot.local.driver import LocalDiscord
from tests.dice_sources import ScriptedDice
from tests.helpers import RED, attack, dnd_character, field_lines, fields, set_variant

pytestmark = pytest.mark.usefixtures("full_answers")
QUICK = {"attack_bonus": 5, "damage": "1d8", "target_ac": 10}


async def test_a_dagger_given_a_distance_is_thrown(local: LocalDiscord) -> None:
    # §2: a thrown attack adds Dex to hit, the range penalty (-2 a full increment of 10 ft), and Str to damage.
    await dnd_character(local, "Lira", {"Dagger": ""}, strength=14, dexterity=16, bab=1, weapon_groups="simple")
    thrown, _ = await attack(local, [10, 3], {"target_ac": 5, "distance": 25})
    bonus = field_lines(thrown, "Attack roll")[1]
    assert "+3 Dex (Dex 16, thrown)" in bonus and "-4 range (§2 25 ft: 2 full increments of 10 ft)" in bonus, bonus
    assert "Str" not in bonus
    assert any(line.startswith("Roll 1: 1d4 (3) +2 = 5") for line in "\n".join(fields(thrown).values()).split("\n"))
    melee, _ = await attack(local, [10, 3], {"target_ac": 5})
    assert "+2 Str (Str 14, melee)" in field_lines(melee, "Attack roll")[1]
    local.bot.dice = ScriptedDice([])
    too_far = await local.command("dnd attack", {"target_ac": 5, "distance": 60})
    assert too_far.embed["color"] == RED
    assert too_far.embed["description"] == (
        "The Dagger reaches 5 range increments (50 ft); a target 60 ft away cannot be attacked."
    )


async def test_shooting_into_a_melee_costs_4_unless_precise_shot(local: LocalDiscord) -> None:
    await dnd_character(local, "Robin", {"Longbow": ""}, dexterity=10, bab=1, weapon_groups="martial")
    shot, _ = await attack(local, [10], {"target_ac": 40, "distance": 30, "situation": "into melee"})
    assert "-4 into melee (§2 shooting into melee without Precise Shot)" in field_lines(shot, "Attack roll")[1]
    await local.command("character set", {"character": "Robin", "field": "precise_shot", "value": "yes"})
    precise, _ = await attack(local, [10], {"target_ac": 40, "distance": 30, "situation": "into melee"})
    assert "into melee" not in field_lines(precise, "Attack roll")[1]
    assert "Precise Shot: no penalty for shooting into melee." in "\n".join(fields(precise).values())
    quick, _ = await attack(local, [10], {**QUICK, "target_ac": 40, "situation": "into melee"})
    assert "-4 into melee" in field_lines(quick, "Attack roll")[1]


async def test_a_target_immune_to_criticals_takes_a_threat_as_a_normal_hit_and_no_precision(
    local: LocalDiscord,
) -> None:
    # A natural 20 would threaten and be confirmed; against the immune target no confirmation die is drawn and
    # the precision dice are not rolled: the two faces are the attack d20 and the 1d8.
    exchange, dice = await attack(
        local, [20, 5], {**QUICK, "crit": "19-20/x2", "precision": "2d6", "crit_immune": True}
    )
    assert dice.calls == [(1, 20), (1, 8)]
    assert exchange.embed["description"].startswith("**Hit**"), exchange.embed["description"]
    normal, dice = await attack(local, [20, 20, 5, 4, 1, 2], {**QUICK, "crit": "19-20/x2", "precision": "2d6"})
    assert dice.calls == [(1, 20), (1, 20), (1, 8), (1, 8), (1, 6), (1, 6)]
    assert normal.embed["description"].startswith("**Critical"), normal.embed["description"]


async def test_the_odds_against_an_immune_target_have_no_critical(local: LocalDiscord) -> None:
    options = {**QUICK, "crit": "19-20/x2", "precision": "1d6", "crit_immune": True}
    odds = await local.command("dnd odds", options)
    # d20 + 5 against AC 10: 5-20 hit (natural 1 misses), 16 of 20; no critical; expected 16/20 x 4.5 = 3.60.
    assert odds.embed["description"].startswith(
        "Hit **80.0%** · threat **10.0%** · confirmed critical **0.0%** · miss 20.0%\nExpected damage **3.60**"
    ), odds.embed["description"]
    normal = await local.command("dnd odds", {**options, "crit_immune": False})
    assert "confirmed critical **0.0%**" not in normal.embed["description"]


FULL = {"attack_bonus": "+11/+6/+1", "damage": "1d8+4", "target_ac": 18}


async def test_a_monsters_full_attack_by_its_stat_block(local: LocalDiscord) -> None:
    # +11 hits with a 10 (21) for 3+4; +6 misses with a 5 (11); +1 hits with a natural 20 that threatens, the
    # confirmation 4 (5) fails, so 7+4 = 11: 18 in all. Each bonus is the stat block's: no iterative step.
    exchange, dice = await attack(local, [10, 3, 5, 20, 4, 7], FULL, command="dnd full-attack")
    assert dice.calls == [(1, 20), (1, 8), (1, 20), (1, 20), (1, 20), (1, 8)]
    assert exchange.embed["title"] == "Player0001: full attack with 1d8+4"
    assert exchange.embed["description"].startswith("**18** damage in total: 2 of 3 attacks hit\n")
    assert list(fields(exchange)) == ["1. attack 1d8+4 (+11)", "2. attack 1d8+4 (+6)", "3. attack 1d8+4 (+1)"]
    # Exact: each attack's hits x 8.5 plus its confirmed criticals' second roll (hits/20 x 8.5 more):
    # +11: 14/20 and 14/400; +6: 9/20 and 9/400; +1: 4/20 and 4/400; in all 8.5 x 27/20 x 21/20 = 12.04875.
    assert exchange.embed["description"].split("\n")[-1] == "Odds: avg 12.05 for the whole full attack"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {**FULL, "attack_bonus": "+11/x6"},
            "`attack_bonus`: Unexpected 'x' at character 5. Write the bonuses as a stat block does, like +11/+6/+1.",
        ),
        (
            {**FULL, "attack_bonus": "+11 +6"},
            "`attack_bonus`: Unexpected '+' at character 5. Separate the bonuses with /, like +11/+6/+1.",
        ),
        (
            {"attack_bonus": "+11/+6", "target_ac": 18},
            "Quick mode needs `attack_bonus` (e.g. +11/+6/+1) and `damage` (e.g. 1d8+4); `crit` defaults to 20/x2.",
        ),
        ({**FULL, "weapon": "Longsword"}, "Quick mode takes no `character` or `weapon`: use one or the other."),
        ({**FULL, "off_hand_weapon": "Dagger"}, "Quick mode takes no `character` or `weapon`: use one or the other."),
    ],
)
async def test_a_bad_stat_block_full_attack_is_refused(
    local: LocalDiscord, options: dict[str, object], message: str
) -> None:
    local.bot.dice = ScriptedDice([])
    refused = await local.command("dnd full-attack", options)
    assert refused.ephemeral and refused.embed["color"] == RED
    assert refused.embed["description"].startswith(message), refused.embed["description"]


async def test_a_monk_unarmed_steps_by_3_where_the_server_plays_nwn(local: LocalDiscord) -> None:
    await dnd_character(
        local, "Ling", {"Unarmed strike": "", "Longsword": ""}, bab=11, monk="yes", weapon_groups="martial"
    )
    srd, _ = await attack(local, [2], {"target_ac": 40, "weapon": "Unarmed strike", "attack_number": 2})
    assert "-5 attack 2" in field_lines(srd, "Attack roll")[1], field_lines(srd, "Attack roll")
    await set_variant(local, "dnd35.monk_step", "nwn")
    nwn, _ = await attack(local, [2], {"target_ac": 40, "weapon": "Unarmed strike", "attack_number": 2})
    assert "-3 attack 2" in field_lines(nwn, "Attack roll")[1], field_lines(nwn, "Attack roll")
    sword, _ = await attack(local, [2], {"target_ac": 40, "weapon": "Longsword", "attack_number": 2})
    assert "-5 attack 2" in field_lines(sword, "Attack roll")[1]


async def test_armor_set_by_its_srd_name_shows_in_the_ac(local: LocalDiscord) -> None:
    await dnd_character(local, "Tor", dexterity=14)
    saved = await local.command("character set", {"character": "Tor", "field": "armor", "value": "Full plate"})
    assert saved.embed["color"] != RED, saved.embed
    ac = await local.command("dnd ac", {"character": "Tor"})
    assert ac.embed["color"] != RED, ac.embed
    assert "19 = 10 + 8 armor (Full plate) + 1 Dex (max +1)" in " ".join(
        f["name"] + " " + f["value"] for f in ac.embed["fields"]
    )
