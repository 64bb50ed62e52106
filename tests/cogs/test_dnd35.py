"""/dnd attack|odds|full-attack|ac through discord.py's real command tree, with forced dice (dnd35.md).

Expected texts are worked out by hand from the reference. The bot draws its dice in this order (engine.py):
the attack d20; the confirmation d20, only for a hit inside the threat range; then, on a hit, each weapon
roll's dice in turn, the precision dice, the energy dice. A full attack resolves its attacks one after the
other in that order, the iterative attacks first, then the off-hand ones.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest

from bot.db.engine import Database
from bot.local.driver import LocalDiscord
from cogs._pipeline import Reading
from tests.dice_sources import NoDice, ScriptedDice
from tests.helpers import (
    BLURPLE,
    GREEN,
    GREY,
    RED,
    WORKED,
    attack,
    dnd_character,
    field_lines,
    fields,
    heaviest_fighter,
    logged,
    set_variant,
    trips,
)

# These tests read every step: the server shows full answers (the compact default is tested in test_buttons).
pytestmark = pytest.mark.usefixtures("full_answers")

GOLD = 0xF1C40F  # a critical
SEED_SRD_FOOTER = "multipliers add up (seed) · natural 20/1 decide confirmation (SRD) · /settings"
# §8's worked example: AB +5 against AC 15 with a longsword's 19-20/x2 and 1d8+3.


# ---------------------------------------------------------------------------------------------------------
# §6: hit, natural 1 and 20, equality, threat and confirmation.


async def test_a_natural_1_misses_even_when_the_total_beats_the_ac(local: LocalDiscord) -> None:
    exchange, dice = await attack(local, [1], {"attack_bonus": 30, "damage": "1d8", "target_ac": 10})
    assert dice.calls == [(1, 20)]  # a miss rolls no damage
    embed = exchange.embed
    assert embed["title"] == "Player0001: attack 1d8"
    assert embed["description"].startswith("**Miss** (natural 1)\n")
    assert embed["color"] == GREY
    assert field_lines(exchange, "Attack roll") == [
        "d20 **1** +30 = **31** vs AC 10 → miss: a natural 1 always misses",
        "Attack bonus +30 = +30 attack bonus (given)",
    ]
    assert list(fields(exchange)) == ["Attack roll"]
    assert embed["footer"]["text"] == SEED_SRD_FOOTER


async def test_a_natural_20_hits_even_when_the_total_does_not(local: LocalDiscord) -> None:
    # 20/x2 by default: the natural 20 threatens, and the confirmation 5 + 0 < 30 is no natural 20: a hit.
    exchange, dice = await attack(local, [20, 5, 4], {"attack_bonus": 0, "damage": "1d8", "target_ac": 30})
    assert dice.calls == [(1, 20), (1, 20), (1, 8)]
    assert exchange.embed["description"].startswith("**Hit**: **4** damage (natural 20), threat not confirmed\n")
    assert exchange.embed["color"] == GREEN
    assert field_lines(exchange, "Attack roll")[0] == "d20 **20** +0 = **20** vs AC 30 → hit: a natural 20 always hits"
    assert fields(exchange)["Threat"] == "20 threat (20 (given)): confirm d20 **5** +0 = 5 vs 30 → not confirmed"
    assert field_lines(exchange, "Damage") == ["Roll 1: 1d8 (4) +0 = 4", "Damage **4**"]


async def test_equal_to_the_ac_hits_and_one_less_misses(local: LocalDiscord) -> None:
    hit, _ = await attack(local, [10, 6], WORKED)
    assert field_lines(hit, "Attack roll")[0] == "d20 **10** +5 = **15** vs AC 15 → hit: equal to the AC hits"
    assert hit.embed["description"].startswith("**Hit**: **9** damage\n")
    miss, _ = await attack(local, [9], WORKED)
    assert field_lines(miss, "Attack roll")[0] == "d20 **9** +5 = **14** vs AC 15 → miss"
    assert miss.embed["description"].startswith("**Miss**\n")


async def test_a_threat_face_that_misses_is_no_threat(local: LocalDiscord) -> None:
    # 19 on a 19-20 weapon, but 19 + 0 < 25: a miss, so no confirmation die is rolled (§13 item 5).
    options = {"attack_bonus": 0, "damage": "1d8", "crit": "19-20/x2", "target_ac": 25}
    exchange, dice = await attack(local, [19], options)
    assert dice.calls == [(1, 20)]
    assert exchange.embed["description"].startswith("**Miss**\n")
    assert list(fields(exchange)) == ["Attack roll"]
    assert field_lines(exchange, "Attack roll")[0] == "d20 **19** +0 = **19** vs AC 25 → miss"


async def test_a_failed_confirmation_is_a_normal_hit_and_the_odds_line_is_exact(local: LocalDiscord) -> None:
    exchange, dice = await attack(local, [19, 9, 6], WORKED)
    assert dice.calls == [(1, 20), (1, 20), (1, 8)]
    # §8 by hand: hit 11/20; crit 2/20 x 11/20 = 11/200; (11/20 - 11/200) x 7.5 + 11/200 x 15 = 363/80 = 4.5375.
    assert exchange.embed["description"] == (
        "**Hit**: **9** damage, threat not confirmed\nOdds: hit 55.0% · crit 5.5% · avg 4.54"
    )
    assert exchange.embed["color"] == GREEN
    assert fields(exchange)["Threat"] == (
        "19-20 threat (19-20 (given)): confirm d20 **9** +5 = 14 vs 15 → not confirmed"
    )
    assert field_lines(exchange, "Damage") == [
        "Roll 1: 1d8 (6) +3 = 9",
        "Each roll's bonus +3 = +3 damage bonus (given: 1d8+3)",
        "Damage **9**",
    ]


async def test_a_confirmed_critical_rolls_the_damage_twice(local: LocalDiscord) -> None:
    exchange, dice = await attack(local, [19, 10, 2, 7], WORKED)
    assert dice.calls == [(1, 20), (1, 20), (1, 8), (1, 8)]
    assert exchange.embed["description"].startswith("**Critical hit!** **15** damage\n")
    assert exchange.embed["color"] == GOLD
    assert fields(exchange)["Threat"] == "19-20 threat (19-20 (given)): confirm d20 **10** +5 = 15 vs 15 → confirmed"
    assert field_lines(exchange, "Damage") == [
        "x2 (critical x2): 2 damage rolls",
        "Roll 1: 1d8 (2) +3 = 5",
        "Roll 2: 1d8 (7) +3 = 10",
        "Each roll's bonus +3 = +3 damage bonus (given: 1d8+3)",
        "Damage **15**",
    ]


async def test_a_natural_1_fails_the_confirmation_and_a_natural_20_confirms(local: LocalDiscord) -> None:
    # §13 item 4, the SRD default: the confirmation is an attack roll.
    sure = {"attack_bonus": 20, "damage": "1d8", "crit": "19-20/x2", "target_ac": 15}
    failed, _ = await attack(local, [19, 1, 4], sure)
    assert fields(failed)["Threat"] == (
        "19-20 threat (19-20 (given)): confirm d20 **1** +20 = 21 vs 15 → not confirmed (natural 1)"
    )
    hopeless = {"attack_bonus": 0, "damage": "1d8", "target_ac": 30}
    confirmed, _ = await attack(local, [20, 20, 3, 5], hopeless)
    assert (
        fields(confirmed)["Threat"]
        == "20 threat (20 (given)): confirm d20 **20** +0 = 20 vs 30 → confirmed (natural 20)"
    )
    assert confirmed.embed["description"].startswith("**Critical hit!** **8** damage (natural 20)\n")


async def test_the_nwn_confirmation_ignores_the_natural_20(local: LocalDiscord) -> None:
    await set_variant(local, "dnd35.confirmation", "nwn")
    exchange, _ = await attack(local, [20, 20, 3], {"attack_bonus": 0, "damage": "1d8", "target_ac": 30})
    assert fields(exchange)["Threat"] == "20 threat (20 (given)): confirm d20 **20** +0 = 20 vs 30 → not confirmed"
    assert exchange.embed["description"].startswith("**Hit**: **3** damage (natural 20), threat not confirmed\n")
    # §12: against AC 30 with AB +0 no critical can happen under NWN.
    assert "· crit 0.0% ·" in exchange.embed["description"]
    assert exchange.embed["footer"]["text"] == "multipliers add up (seed) · NWN confirmation · /settings"


# ---------------------------------------------------------------------------------------------------------
# §7: multipliers, precision, minimum 1, damage reduction.


async def test_a_character_s_attack_reads_the_character_and_the_fight_in_one_trip(
    local: LocalDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each trip to a reader thread cost about 0.4 ms of the loop's CPU under load; one after the other, the two
    reads took two (`bot.db.engine.Readers`)."""
    await dnd_character(local, "Kara", {"Longsword": ""}, bab=1, weapon_groups="martial")
    reads = local.bot.database.reads
    if reads is None:  # PostgreSQL: the rolls read in their session
        return
    await attack(local, [15, 4], {"target_ac": 10})  # the first reads what is then kept: the channel's fair session
    carried = trips(reads, monkeypatch)
    exchange, _ = await attack(local, [15, 4], {"target_ac": 10})
    assert exchange.embed["title"] == "Kara: Longsword"
    assert carried == [2]


async def test_an_attack_by_a_character_not_found_cancels_its_fight_s_read(
    local: LocalDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fight is read while the character is looked up; once the lookup has failed, the roll's session closes, so
    the fight's read must not go on in it (left running, it could open a session nobody closes)."""
    if local.bot.database.reads is None:  # PostgreSQL: the two read one after the other
        return
    reading: list[str] = []

    async def fight(_self: Reading, _ruleset: str) -> None:
        reading.append("started")
        try:
            await asyncio.Event().wait()
        finally:
            reading.append("ended")

    monkeypatch.setattr(Reading, "fight", fight)
    exchange = await local.command("dnd attack", {"character": "Nobody", "target_ac": 10})
    assert exchange.ephemeral and exchange.embed["color"] == RED, exchange.embed
    assert reading == ["started", "ended"]


@pytest.mark.parametrize(
    ("weapon", "threat", "dice", "sides", "multiplier"),
    [("Longsword", "19-20", "1d8", 8, 2), ("Battleaxe", "20", "1d8", 8, 3), ("Heavy pick", "20", "1d6", 6, 4)],
)
async def test_a_critical_makes_as_many_damage_rolls_as_the_weapons_multiplier(
    local: LocalDiscord, weapon: str, threat: str, dice: str, sides: int, multiplier: int
) -> None:
    await dnd_character(local, "Kara", {weapon: ""}, bab=1, weapon_groups="martial")
    faces = [20, 20, *range(1, multiplier + 1)]
    exchange, rolled = await attack(local, faces, {"target_ac": 10})
    assert rolled.calls == [(1, 20), (1, 20)] + [(1, sides)] * multiplier
    assert exchange.embed["title"] == f"Kara: {weapon}"
    assert fields(exchange)["Threat"] == (
        f"{threat} threat ({threat} ({weapon})): confirm d20 **20** +1 = 21 vs 10 → confirmed (natural 20)"
    )
    total = sum(range(1, multiplier + 1))
    assert field_lines(exchange, "Damage") == [
        f"x{multiplier} (critical x{multiplier}): {multiplier} damage rolls",
        *(f"Roll {i}: {dice} ({i}) +0 = {i}" for i in range(1, multiplier + 1)),
        "Each roll's bonus +0 = +0 Str (Str 10 (+0), 1x Str)",
        f"Damage **{total}**",
    ]
    assert exchange.embed["description"].startswith(f"**Critical hit!** **{total}** damage (natural 20)\n")


async def test_stacked_multipliers_follow_the_server_setting(local: LocalDiscord) -> None:
    charge = {"attack_bonus": 0, "damage": "1d6", "crit": "x3", "multiplier": 2, "target_ac": 10}
    # Seed (default): x2 and x3 are 2 + 3 = 5 rolls (§13 item 2).
    seed, dice = await attack(local, [20, 15, 1, 2, 3, 4, 5], charge)
    assert dice.calls == [(1, 20)] * 2 + [(1, 6)] * 5
    assert field_lines(seed, "Damage")[0] == "x2 (situational) and x3 (critical x3): 5 damage rolls"
    assert field_lines(seed, "Damage")[-1] == "Damage **15**"
    assert seed.embed["footer"]["text"] == SEED_SRD_FOOTER

    await set_variant(local, "dnd35.multipliers", "srd")
    # SRD: 1 + (2 - 1) + (3 - 1) = 4 rolls.
    srd, dice = await attack(local, [20, 15, 1, 2, 3, 4], charge)
    assert dice.calls == [(1, 20)] * 2 + [(1, 6)] * 4
    assert field_lines(srd, "Damage") == [
        "x2 (situational) and x3 (critical x3): 4 damage rolls",
        "Roll 1: 1d6 (1) +0 = 1",
        "Roll 2: 1d6 (2) +0 = 2",
        "Roll 3: 1d6 (3) +0 = 3",
        "Roll 4: 1d6 (4) +0 = 4",
        "Damage **10**",
    ]
    assert srd.embed["footer"]["text"] == "SRD multipliers · natural 20/1 decide confirmation (SRD) · /settings"
    # A single multiplier: 2 rolls under both readings.
    single, _ = await attack(local, [12, 5, 6], charge)
    assert field_lines(single, "Damage")[0] == "x2 (situational): 2 damage rolls"
    assert single.embed["description"].startswith("**Hit**: **11** damage\n")


async def test_precision_dice_are_added_once_on_a_critical(local: LocalDiscord) -> None:
    options = {"attack_bonus": 0, "damage": "1d8+2", "crit": "20/x3", "precision": "3d6", "target_ac": 10}
    exchange, dice = await attack(local, [20, 15, 1, 2, 3, 4, 5, 6], options)
    assert dice.calls == [(1, 20)] * 2 + [(1, 8)] * 3 + [(1, 6)] * 3
    assert field_lines(exchange, "Damage") == [
        "x3 (critical x3): 3 damage rolls",
        "Roll 1: 1d8 (1) +2 = 3",
        "Roll 2: 1d8 (2) +2 = 4",
        "Roll 3: 1d8 (3) +2 = 5",
        "Each roll's bonus +2 = +2 damage bonus (given: 1d8+2)",
        "precision 3d6 (4, 5, 6) = 15, never multiplied",
        "Damage **27**",
    ]


async def test_a_hit_deals_at_least_1_and_its_odds_line_is_exact(local: LocalDiscord) -> None:
    exchange, _ = await attack(local, [15, 1], {"attack_bonus": 0, "damage": "1d4-3", "target_ac": 11})
    # By hand: faces 11-20 hit (1/2); a 20 threatens and 10 of 20 confirm (1/40). Every plain hit deals 1; a
    # critical 2d4-6 deals 2 only on 4+4 (1/16), else 1. 19/40 x 1 + 1/40 x 17/16 = 0.5015625.
    assert exchange.embed["description"] == "**Hit**: **1** damage\nOdds: hit 50.0% · crit 2.5% · avg 0.50"
    assert field_lines(exchange, "Damage") == [
        "Roll 1: 1d4 (1) -3 = -2",
        "Each roll's bonus -3 = -3 damage bonus (given: 1d4-3)",
        "-2 is less than 1: a hit deals at least 1",
        "Damage **1**",
    ]


async def test_damage_reduction_can_take_a_hit_to_0(local: LocalDiscord) -> None:
    exchange, _ = await attack(local, [12, 3], {"attack_bonus": 0, "damage": "1d4", "target_ac": 5, "dr": "10/-"})
    assert exchange.embed["description"].startswith("**Hit**: **0** damage\n")
    assert field_lines(exchange, "Damage") == ["Roll 1: 1d4 (3) +0 = 3", "DR 10/-: -3", "Damage **0**"]


async def test_a_magic_weapon_bypasses_dr_magic_and_energy_ignores_dr(local: LocalDiscord) -> None:
    weapons = {"Longsword": "enhancement=1", "Rapier": "", "Club": "energy='1d6 fire'"}
    await dnd_character(local, "Kara", weapons, strength=14, bab=1, weapon_groups="simple,martial")
    magic, _ = await attack(local, [10, 5], {"target_ac": 10, "weapon": "Longsword", "dr": "5/magic"})
    assert field_lines(magic, "Attack roll")[1] == (
        "Attack bonus +4 = +1 BAB (character) +2 Str (Str 14, melee) +0 size (medium) +1 enhancement (Longsword +1)"
    )
    assert field_lines(magic, "Damage") == [
        "Roll 1: 1d8 (5) +3 = 8",
        "Each roll's bonus +3 = +2 Str (Str 14 (+2), 1x Str) +1 enhancement (Longsword +1)",
        "DR 5/magic bypassed by the weapon",
        "Damage **8**",
    ]
    plain, _ = await attack(local, [10, 5], {"target_ac": 10, "weapon": "Rapier", "dr": "5/magic"})
    assert field_lines(plain, "Damage")[-2:] == ["DR 5/magic: -5", "Damage **2**"]
    fire, dice = await attack(local, [10, 2, 4], {"target_ac": 10, "weapon": "Club", "dr": "10/-"})
    assert dice.calls == [(1, 20), (1, 6), (1, 6)]  # the weapon roll, then the fire
    assert field_lines(fire, "Damage")[-3:] == ["DR 10/-: -4", "fire 1d6 (4) = 4, DR does not apply", "Damage **4**"]


# ---------------------------------------------------------------------------------------------------------
# §5: the AC of a target character; /dnd ac.

DEFENDER = {  # AC 22 = 10 + 4 armor + 1 shield + 2 Dex + 3 natural + 1 deflection + 1 dodge
    "dexterity": 14,
    "armor": "light",
    "armor_bonus": 4,
    "shield": "light",
    "shield_bonus": 1,
    "natural_armor": 3,
    "deflection": 1,
    "dodge": 1,
}


@pytest.mark.parametrize(
    ("touch", "flat_footed", "kind", "ac", "explanation"),
    [
        (False, False, "AC", 22, "22 = 10 + 4 armor + 1 shield + 2 Dex + 3 natural + 1 deflection + 1 dodge"),
        (True, False, "touch AC", 14, "14 = 10 + 2 Dex + 1 deflection + 1 dodge"),
        (False, True, "flat-footed AC", 19, "19 = 10 + 4 armor + 1 shield + 3 natural + 1 deflection"),
        (True, True, "flat-footed touch AC", 11, "11 = 10 + 1 deflection"),
    ],
)
async def test_the_ac_of_a_target_character(
    local: LocalDiscord, touch: bool, flat_footed: bool, kind: str, ac: int, explanation: str
) -> None:
    await dnd_character(local, "Ogre", **DEFENDER)
    options = {"attack_bonus": 0, "damage": "1d6", "target": "Ogre", "touch": touch, "flat_footed": flat_footed}
    exchange, _ = await attack(local, [2], options)
    assert field_lines(exchange, "Attack roll") == [
        f"d20 **2** +0 = **2** vs {kind} {ac} → miss",
        "Attack bonus +0 = +0 attack bonus (given)",
        f"{kind[0].upper()}{kind[1:]} {explanation}",
    ]


async def test_uncanny_dodge_keeps_dex_and_dodge_when_flat_footed(local: LocalDiscord) -> None:
    await dnd_character(local, "Ogre", **DEFENDER, uncanny_dodge="yes")
    options = {"attack_bonus": 0, "damage": "1d6", "target": "Ogre", "flat_footed": True}
    exchange, _ = await attack(local, [2], options)
    assert field_lines(exchange, "Attack roll")[::2] == [
        "d20 **2** +0 = **2** vs flat-footed AC 22 → miss",
        "Flat-footed AC 22 = 10 + 4 armor + 1 shield + 2 Dex + 3 natural + 1 deflection + 1 dodge",
    ]
    assert "Uncanny Dodge: keeps its Dex bonus (and dodge bonuses) while flat-footed." in fields(exchange)["Notes"]


async def test_the_uncanny_dodge_note_is_shown_once(local: LocalDiscord) -> None:
    await dnd_character(local, "Ogre", **DEFENDER, uncanny_dodge="yes")
    options = {"attack_bonus": 0, "damage": "1d6", "target": "Ogre", "flat_footed": True}
    exchange, _ = await attack(local, [2], options)
    assert fields(exchange)["Notes"] == "Uncanny Dodge: keeps its Dex bonus (and dodge bonuses) while flat-footed."


async def test_ac_shows_the_four_forms_with_their_components(local: LocalDiscord) -> None:
    await dnd_character(local, "Ogre", **DEFENDER)
    local.bot.dice = NoDice()
    exchange = await local.command("dnd ac", {})
    assert exchange.rejected == [] and not exchange.ephemeral
    assert exchange.embed["title"] == "Armor class of Ogre"
    assert exchange.embed["color"] == BLURPLE
    assert fields(exchange) == {
        "AC: 22": "22 = 10 + 4 armor + 1 shield + 2 Dex + 3 natural + 1 deflection + 1 dodge",
        "Touch AC: 14": "14 = 10 + 2 Dex + 1 deflection + 1 dodge",
        "Flat-footed AC: 19": "19 = 10 + 4 armor + 1 shield + 3 natural + 1 deflection",
        "Flat-footed touch AC: 11": "11 = 10 + 1 deflection",
        # What is worn, with the check penalties that do not change AC (dnd35.md §10).
        "Armor and shield": "Armor (light): +4, max Dex none, check penalty 0; Shield (light): +1, check penalty 0",
    }
    assert "footer" not in exchange.embed


async def test_ac_caps_dex_keeps_a_dex_penalty_flat_footed_and_honours_uncanny_dodge(local: LocalDiscord) -> None:
    await dnd_character(local, "Clumsy", dexterity=8, armor="heavy", armor_bonus=8, max_dex=1, dodge=2)
    clumsy = fields(await local.command("dnd ac", {"character": "Clumsy"}))
    # §13 item 6: only a Dex bonus is lost; the dodge bonus goes with it.
    assert clumsy["Flat-footed AC: 17"] == "17 = 10 + 8 armor - 1 Dex"
    assert clumsy["AC: 19"] == "19 = 10 + 8 armor - 1 Dex + 2 dodge"
    await dnd_character(local, "Nimble", dexterity=18, armor="heavy", armor_bonus=8, max_dex=1, uncanny_dodge="yes")
    nimble = await local.command("dnd ac", {"character": "Nimble"})
    assert fields(nimble)["Flat-footed AC: 19"] == "19 = 10 + 8 armor + 1 Dex (max +1)"  # capped at +1, kept
    assert nimble.embed["footer"]["text"] == "Uncanny Dodge: keeps its Dex bonus while flat-footed."


# ---------------------------------------------------------------------------------------------------------
# §2, §7: Weapon Finesse and the Str share of damage.


async def test_a_target_typed_by_name_is_found_among_everyone_s_characters(local: LocalDiscord) -> None:
    gm = local.as_user("200000000000000009")
    created = await local.command("character create", {"ruleset": "dnd35", "name": "Ogre"}, actor=gm)
    number = created.embed["footer"]["text"].split()[0]
    await local.command("character set", {"character": "Ogre", "values": "armor_bonus=5 natural=5"}, actor=gm)
    miss, _ = await attack(local, [12], {"attack_bonus": 0, "damage": "1d6", "target": "ogre"})
    assert "vs AC 20" in field_lines(miss, "Attack roll")[0], field_lines(miss, "Attack roll")
    # A second Ogre of another player: the name no longer says which, so the answer lists both to pick from.
    await local.command("character create", {"ruleset": "dnd35", "name": "Ogre"}, actor=local.as_user("2" * 18))
    local.bot.dice = ScriptedDice([12])
    which = await local.command("dnd attack", {"attack_bonus": 0, "damage": "1d6", "target": "Ogre"})
    assert which.embed["title"] == "Which character?" and number in which.embed["description"]


async def test_a_target_immune_to_criticals_on_its_sheet(local: LocalDiscord) -> None:
    await dnd_character(local, "Golem", armor_bonus=2, immune_to_criticals="yes")
    options = {"attack_bonus": 0, "damage": "1d6", "precision": "2d6", "target": "Golem"}
    hit, _ = await attack(local, [20, 4], options)  # a natural 20 threatens, but no confirmation die is rolled
    assert "crit 0.0%" in hit.embed["description"], hit.embed["description"]
    assert "immune to critical hits" in fields(hit)["Notes"]
    sheet = fields(await local.command("character show", {"character": "Golem"}))
    assert "immune: no criticals" in json.dumps(sheet)


async def test_weapon_finesse_waits_for_bab_1(local: LocalDiscord) -> None:
    await dnd_character(
        local, "Kit", {"Rapier": ""}, strength=12, dexterity=18, weapon_groups="martial", weapon_finesse=1
    )
    novice, _ = await attack(local, [10, 3], {"target_ac": 10, "weapon": "Rapier"})
    assert field_lines(novice, "Attack roll")[1] == (
        "Attack bonus +1 = +0 BAB (character) +1 Str (Str 12, melee) +0 size (medium)"
    )
    assert "Weapon Finesse needs BAB +1 (§2), not +0: Str is used." in fields(novice)["Notes"]


async def test_weapon_finesse_uses_dex_with_a_light_weapon_only(local: LocalDiscord) -> None:
    weapons = {"Short sword": "", "Longsword": ""}
    await dnd_character(
        local, "Lia", weapons, strength=12, dexterity=18, bab=1, weapon_groups="martial", weapon_finesse=1
    )
    light, _ = await attack(local, [10, 3], {"target_ac": 10, "weapon": "Short sword"})
    assert field_lines(light, "Attack roll")[1] == (
        "Attack bonus +5 = +1 BAB (character) +4 Dex (Dex 18, Weapon Finesse (over Str)) +0 size (medium)"
    )
    assert field_lines(light, "Damage")[1] == "Each roll's bonus +1 = +1 Str (Str 12 (+1), 1x Str)"  # damage keeps Str
    heavy, _ = await attack(local, [10, 3], {"target_ac": 10, "weapon": "Longsword"})
    assert (
        field_lines(heavy, "Attack roll")[1]
        == "Attack bonus +2 = +1 BAB (character) +1 Str (Str 12, melee) +0 size (medium)"
    )

    for field, value in (("shield", "light"), ("shield_check_penalty", "-1"), ("armor_proficiencies", "shield")):
        await local.command("character set", {"character": "Lia", "field": field, "value": value})
    shielded, _ = await attack(local, [10, 3], {"target_ac": 10, "weapon": "Short sword"})
    assert field_lines(shielded, "Attack roll")[1].endswith(
        "+0 size (medium) -1 shield check (§2 Weapon Finesse with a shield)"
    )
    assert field_lines(shielded, "Attack roll")[1].startswith("Attack bonus +4 = ")
    await set_variant(local, "dnd35.finesse_shield", "nwn")
    nwn, _ = await attack(local, [10, 3], {"target_ac": 10, "weapon": "Short sword"})
    assert field_lines(nwn, "Attack roll")[1].startswith("Attack bonus +5 = ")
    assert fields(nwn)["Notes"] == "NWN: Weapon Finesse takes no shield check penalty."


async def test_two_hands_add_one_and_a_half_str_and_the_off_hand_half(local: LocalDiscord) -> None:
    weapons = {"Greatsword": "", "Longsword": "", "Short sword": ""}
    await dnd_character(local, "Brak", weapons, strength=17, weapon_groups="martial")  # Str +3
    great, _ = await attack(local, [10, 3, 4], {"target_ac": 5, "weapon": "Greatsword"})
    assert field_lines(great, "Damage") == [
        "Roll 1: 2d6 (3, 4) +4 = 11",
        "Each roll's bonus +4 = +4 Str (Str 17 (+3), two hands: 1½x a Str bonus, rounded down)",
        "Damage **11**",
    ]
    gripped, _ = await attack(local, [10, 3], {"target_ac": 5, "weapon": "Longsword", "situation": "two hands"})
    assert field_lines(gripped, "Damage")[1] == (
        "Each roll's bonus +4 = +4 Str (Str 17 (+3), two hands: 1½x a Str bonus, rounded down)"
    )
    light, _ = await attack(local, [10, 3], {"target_ac": 5, "weapon": "Short sword", "situation": "two hands"})
    assert field_lines(light, "Damage")[1] == "Each roll's bonus +3 = +3 Str (Str 17 (+3), 1x Str)"
    assert fields(light)["Notes"] == "The Short sword is a light weapon: no 1½x Str in two hands (§7)."
    off, _ = await attack(local, [10, 3], {"target_ac": 5, "weapon": "Short sword", "off_hand": True})
    assert field_lines(off, "Damage")[1] == (
        "Each roll's bonus +1 = +1 Str (Str 17 (+3), off hand: ½x a Str bonus, rounded down)"
    )
    assert field_lines(off, "Attack roll")[1] == (
        "Attack bonus -5 = +0 BAB (character) +3 Str (Str 17, melee) +0 size (medium) "
        "-8 two-weapon fighting (§4 light off-hand weapon, off hand)"
    )


async def test_the_off_hand_end_of_a_double_weapon_counts_as_light_in_a_single_attack(local: LocalDiscord) -> None:
    await dnd_character(local, "Monk", {"Quarterstaff": ""}, bab=1, weapon_groups="simple")
    exchange, _ = await attack(local, [15, 3], {"target_ac": 5, "weapon": "Quarterstaff", "off_hand": True})
    assert exchange.embed["title"] == "Monk: Quarterstaff (off-hand end)"
    assert field_lines(exchange, "Attack roll")[1].endswith(
        "-8 two-weapon fighting (§4 light off-hand weapon, off hand)"
    )


async def test_a_full_attack_with_both_ends_of_a_double_weapon_counts_the_off_hand_end_as_light(
    local: LocalDiscord,
) -> None:
    await dnd_character(local, "Monk", {"Quarterstaff": ""}, strength=16, bab=1, weapon_groups="simple")
    options = {"target_ac": 5, "weapon": "Quarterstaff", "off_hand_weapon": "Quarterstaff"}
    exchange, _ = await attack(local, [15, 3, 15, 4], options, command="dnd full-attack")
    shown = fields(exchange)
    assert list(shown) == ["1. Quarterstaff (+0)", "2. Quarterstaff (off-hand end) (-4)"]
    # The primary end is held in one hand (1x Str), the off-hand end adds ½x (§4, §7).
    assert shown["1. Quarterstaff (+0)"].split("\n")[2:4] == [
        "Attack bonus +0 = +1 BAB (character) +3 Str (Str 16, melee) +0 size (medium) "
        "-4 two-weapon fighting (§4 light off-hand weapon, primary hand)",
        "Roll 1: 1d6 (3) +3 = 6",
    ]
    assert shown["2. Quarterstaff (off-hand end) (-4)"].split("\n")[2:4] == [
        "Attack bonus -4 = +1 BAB (character) +3 Str (Str 16, melee) +0 size (medium) "
        "-8 two-weapon fighting (§4 light off-hand weapon, off hand)",
        "Roll 1: 1d6 (4) +1 = 5",
    ]


# ---------------------------------------------------------------------------------------------------------
# §3, §4: iterative attacks and two-weapon fighting.


async def test_the_second_iterative_attack_is_5_lower(local: LocalDiscord) -> None:
    await dnd_character(local, "Kara", {"Longsword": ""}, bab=11, weapon_groups="martial")
    second, _ = await attack(local, [2], {"target_ac": 30, "attack_number": 2})
    assert field_lines(second, "Attack roll")[1] == (
        "Attack bonus +6 = +11 BAB (character) -5 attack 2 (§3 iterative attack, -5 each) +0 Str (Str 10, melee) "
        "+0 size (medium)"
    )
    quick, _ = await attack(local, [2], {"attack_bonus": 8, "damage": "1d8", "target_ac": 30, "attack_number": 2})
    assert field_lines(quick, "Attack roll")[1] == (
        "Attack bonus +3 = +8 attack bonus (given) -5 attack 2 (§3 iterative attack, -5 each)"
    )
    local.bot.dice = NoDice()
    fourth = await local.command("dnd attack", {"target_ac": 30, "attack_number": 4})
    assert fourth.ephemeral and fourth.embed["color"] == RED
    assert fourth.embed["description"] == "There is no attack 4: BAB +11 gives 3 attacks."


async def test_a_full_attack_with_bab_11_makes_3_attacks(local: LocalDiscord, database: Database) -> None:
    await dnd_character(local, "Kara", {"Greatsword": ""}, strength=16, bab=11, weapon_groups="martial")
    exchange, dice = await attack(local, [10, 3, 4, 15, 2, 2, 1], {"target_ac": 15}, command="dnd full-attack")
    assert dice.calls == [(1, 20), (1, 6), (1, 6), (1, 20), (1, 6), (1, 6), (1, 20)]
    embed = exchange.embed
    assert embed["title"] == "Kara: full attack with Greatsword"
    assert embed["description"].startswith("**19** damage in total: 2 of 3 attacks hit\n")
    assert embed["color"] == GREEN
    shown = fields(exchange)
    assert list(shown) == ["1. Greatsword (+14)", "2. Greatsword (+9)", "3. Greatsword (+4)"]
    assert shown["1. Greatsword (+14)"].split("\n")[:2] == [
        "**Hit**: **11** damage",
        "d20 **10** +14 = **24** vs AC 15 → hit",
    ]
    assert shown["1. Greatsword (+14)"].split("\n")[2] == (
        "Attack bonus +14 = +11 BAB (character) +3 Str (Str 16, melee) +0 size (medium)"
    )
    # A later attack of the same weapon names only what it adds: the same terms thrice were long on a phone.
    assert shown["2. Greatsword (+9)"].split("\n")[2] == (
        "Attack bonus +9 = +14 as attack 1 -5 attack 2 (§3 iterative attack, -5 each)"
    )
    assert shown["3. Greatsword (+4)"].split("\n")[:2] == [
        "**Miss** (natural 1)",
        "d20 **1** +4 = **5** vs AC 15 → miss: a natural 1 always misses",
    ]
    [row] = await logged(database)
    assert row.command == "dnd full-attack"
    assert [a["d20"] for a in row.result["attacks"]] == [10, 15, 1]
    assert row.result["total"] == 19


@pytest.mark.parametrize(
    ("feat", "off_hand", "primary", "off", "row"),
    [
        (False, "Longsword", -6, -10, "normal"),
        (False, "Short sword", -4, -8, "light off-hand weapon"),
        (True, "Longsword", -4, -4, "Two-Weapon Fighting"),
        (True, "Short sword", -2, -2, "light off-hand weapon and Two-Weapon Fighting"),
    ],
)
async def test_full_attack_with_two_weapons_takes_the_penalties_of_the_table(
    local: LocalDiscord, feat: bool, off_hand: str, primary: int, off: int, row: str
) -> None:
    weapons = {"Longsword": "", "Short sword": ""}
    await dnd_character(
        local, "Duo", weapons, bab=1, weapon_groups="martial", two_weapon_fighting="yes" if feat else "no"
    )
    options = {"target_ac": 30, "weapon": "Longsword", "off_hand_weapon": off_hand}
    exchange, _ = await attack(local, [2, 2], options, command="dnd full-attack")  # BAB +1: one attack a hand
    shown = fields(exchange)
    main_name, off_name = f"1. Longsword ({1 + primary:+d})", f"2. {off_hand} ({1 + off:+d})"
    assert list(shown) == [main_name, off_name]
    assert shown[main_name].split("\n")[2].endswith(f"{primary:+d} two-weapon fighting (§4 {row}, primary hand)")
    assert shown[off_name].split("\n")[2].endswith(f"{off:+d} two-weapon fighting (§4 {row}, off hand)")
    assert exchange.embed["description"].startswith("**0** damage in total: 0 of 2 attacks hit\n")


async def test_full_attack_adds_improved_two_weapon_fighting_off_hand_attacks(local: LocalDiscord) -> None:
    weapons = {"Longsword": "", "Short sword": ""}
    feats = {"two_weapon_fighting": "yes", "improved_two_weapon_fighting": "yes"}
    await dnd_character(local, "Duo", weapons, bab=11, weapon_groups="martial", **feats)
    options = {"target_ac": 30, "weapon": "Longsword", "off_hand_weapon": "Short sword"}
    exchange, _ = await attack(local, [2] * 5, options, command="dnd full-attack")
    names = list(fields(exchange))
    assert names == [
        "1. Longsword (+9)",
        "2. Longsword (+4)",
        "3. Longsword (-1)",
        "4. Short sword (+9)",
        "5. Short sword (+4)",
    ]
    assert fields(exchange)["4. Short sword (+9)"].split("\n")[2] == (
        "Attack bonus +9 = +11 BAB (character) +0 Str (Str 10, melee) +0 size (medium) -2 two-weapon fighting "
        "(§4 light off-hand weapon and Two-Weapon Fighting, off hand)"
    )
    assert fields(exchange)["5. Short sword (+4)"].split("\n")[2] == (
        "Attack bonus +4 = +9 as attack 4 -5 off-hand attack 2 (§4 Improved / Greater Two-Weapon Fighting)"
    )


# ---------------------------------------------------------------------------------------------------------
# /dnd odds: exact chances, no dice.


async def test_odds_roll_nothing_and_show_the_chances_and_the_chart(local: LocalDiscord, database: Database) -> None:
    local.bot.dice = NoDice()
    exchange = await local.command("dnd odds", WORKED)
    assert exchange.rejected == [] and not exchange.ephemeral
    embed = exchange.embed
    assert embed["title"] == "Odds: Player0001, attack 1d8+3"
    assert embed["color"] == BLURPLE
    assert embed["description"] == (
        "Hit **55.0%** · threat **10.0%** · confirmed critical **5.5%** · miss 45.0%\nExpected damage **4.54**"
    )
    shown = fields(exchange)
    assert shown["The attack"] == "Attack bonus +5 = +5 attack bonus (given)\nvs AC 15; damage 1d8 +3, 19-20/x2"
    chart = shown["Damage (a miss counts as 0)"].split("\n")
    # Totals 4-22 in rows of 2. A plain hit is 198/400, 1/8 for each of 4..11: 4-5 is 12.375%.
    assert chart[:3] == ["`    0  45.0%` ████████████████", "`  4-5  12.4%` ████", "`  6-7  12.4%` ████"]
    assert chart[-1] == "`22-23   0.1%` "  # 2d8+6 = 22: 11/200 x 1/64
    assert len(chart) == 11
    assert embed["footer"]["text"] == SEED_SRD_FOOTER
    assert await logged(database) == []


async def test_odds_for_a_character_against_a_target(local: LocalDiscord) -> None:
    await dnd_character(local, "Ogre", **DEFENDER)
    await dnd_character(local, "Kara", {"Greatsword": ""}, strength=16, bab=6, weapon_groups="martial")
    local.bot.dice = NoDice()
    exchange = await local.command("dnd odds", {"character": "Kara", "target": "Ogre", "touch": True})
    assert exchange.rejected == []
    # +6 BAB +3 Str = +9 against touch AC 14: faces 5-20 hit (80%); 19-20 threaten, 16 of 20 confirm: 8%.
    assert exchange.embed["description"].startswith("Hit **80.0%** · threat **10.0%** · confirmed critical **8.0%**")
    assert fields(exchange)["The attack"].split("\n")[1] == "vs touch AC 14; damage 2d6 +4, 19-20/x2"


# ---------------------------------------------------------------------------------------------------------
# Bad input: an ephemeral red embed, nothing rolled, nothing logged.

QUICK = {"attack_bonus": 5, "damage": "1d8+3"}
REFUSALS = [
    pytest.param(
        {**QUICK, "target_ac": 15, "crit": "19-21"},
        "Can't read that",
        "`crit`: Threat range ending at 21 at character 4. A threat range ends at 20, like 19-20.\n"
        "```\n19-21\n   ^\n```",
        id="crit-does-not-parse",
    ),
    pytest.param(
        {**QUICK, "target_ac": 15, "crit": "19-20/x9"},
        "Can't read that",
        "`crit`: Multiplier x9 at character 8. A critical multiplier is x2 to x6.",
        id="crit-multiplier-too-big",
    ),
    pytest.param(
        {**QUICK, "target_ac": 15, "dr": "5/banana"},
        "Can't read that",
        "`dr`: Not a property that bypasses damage reduction: 'banana' at character 3. Write damage reduction as "
        "amount/bypass, like 5/magic, 10/- (nothing bypasses it) or 5/silver and good. Properties: magic, silver,",
        id="dr-does-not-parse",
    ),
    pytest.param(
        {"attack_bonus": 5, "damage": "1d8+x", "target_ac": 15},
        "Can't read that",
        "`damage`: Unexpected 'x' at character 5. Expected a number after '+', like 1d8+2.\n```\n1d8+x\n    ^\n```",
        id="quick-damage-does-not-parse",
    ),
    pytest.param(
        {"attack_bonus": 5, "damage": "100d6", "target_ac": 15},
        "Can't read that",
        "`damage`: Can't roll 100 dice at character 1. Roll 1 to 99 dice.\n```\n100d6\n^\n```",
        id="quick-damage-too-many-dice",
    ),
    pytest.param(
        {**QUICK, "target_ac": 5000},  # past the option's range: only a crafted payload sends it (bot.tree)
        "Bad option",
        "`target_ac` must be a number from -50 to 200.",
        id="ac-out-of-range",
    ),
    pytest.param(
        QUICK,
        "Attack what?",
        "Give the defender as `target_ac` (a number) or `target` (a character here), one of them.",
        id="no-target",
    ),
    pytest.param(
        {**QUICK, "target_ac": 15, "target": "Ogre"},
        "Attack what?",
        "Give the defender as `target_ac` (a number) or `target` (a character here), one of them; both only for "
        "a combatant of this channel's fight (the AC given, its hit applied).",
        id="both-targets",
    ),
    pytest.param(
        {"attack_bonus": 5, "target_ac": 15},
        "Quick mode",
        "Quick mode needs `attack_bonus` and `damage` (e.g. 1d8+4); `crit` defaults to 20/x2.",
        id="quick-without-damage",
    ),
    pytest.param(
        {"damage": "1d8", "crit": "x3", "target_ac": 15},
        "Quick mode",
        "Quick mode needs `attack_bonus` and `damage` (e.g. 1d8+4); `crit` defaults to 20/x2.",
        id="quick-without-attack-bonus",
    ),
    pytest.param(
        {**QUICK, "target_ac": 15, "character": "Kara"},
        "Quick mode",
        "Quick mode takes no `character` or `weapon`: use one or the other.",
        id="quick-with-character",
    ),
    pytest.param(
        {**QUICK, "target_ac": 15, "weapon": "Longsword"},
        "Quick mode",
        "Quick mode takes no `character` or `weapon`: use one or the other.",
        id="quick-with-weapon",
    ),
    pytest.param(
        {"target_ac": 15, "weapon": "Longsword"},
        "Which character?",
        "You have no active D&D 3.5 character here: name one with `character`, pick one with `/character use`, "
        "or give the numbers directly (quick mode).",
        id="no-active-character",
    ),
    pytest.param(
        {**QUICK, "target_ac": 15, "precision": "3x6"},
        "Can't read that",
        "`precision`: Unexpected 'x' at character 2. Expected 'd' and the number of sides, like 1d8.\n"
        "```\n3x6\n ^\n```",
        id="precision-does-not-parse",
    ),
]


@pytest.mark.parametrize("command", ["dnd attack", "dnd odds"])
@pytest.mark.parametrize(("options", "title", "message"), REFUSALS)
async def test_bad_input_is_refused_in_red(
    local: LocalDiscord, database: Database, command: str, options: dict[str, Any], title: str, message: str
) -> None:
    local.bot.dice = NoDice()
    exchange = await local.command(command, options)
    assert exchange.rejected == []
    assert exchange.ephemeral
    assert exchange.embed["color"] == RED
    assert exchange.embed["title"] == title
    assert exchange.embed["description"].startswith(message), exchange.embed["description"]
    assert await logged(database) == []


async def test_character_mistakes_are_refused_in_red(local: LocalDiscord, database: Database) -> None:
    local.bot.dice = NoDice()
    for command, options in (
        ("dnd full-attack", {"target_ac": 15}),
        ("dnd ac", {}),
    ):
        nobody = await local.command(command, options)
        assert nobody.ephemeral and nobody.embed["color"] == RED, nobody.embed
        assert nobody.embed["title"] == "Which character?"
    await dnd_character(local, "Kara", {"Longsword": "", "Dagger": ""}, bab=11)
    for command in ("dnd attack", "dnd odds", "dnd full-attack"):
        unknown = await local.command(command, {"target_ac": 15, "weapon": "Lightsaber"})
        assert unknown.ephemeral and unknown.embed["color"] == RED, unknown.embed
        assert unknown.embed["title"] == "Can't make that attack"
        assert unknown.embed["description"] == (
            "No weapon called **Lightsaber** on this character, nor in the SRD table. Weapons: Longsword, Dagger."
        )
        which = await local.command(command, {"target_ac": 15})
        assert which.ephemeral and which.embed["color"] == RED
        assert which.embed["description"] == (
            "Which weapon? **Kara** carries Longsword, Dagger; name one (or one from the SRD table)."
        )
    missing = await local.command("dnd attack", {"target": "Nobody", "weapon": "Dagger"})
    assert missing.ephemeral and missing.embed["title"] == "No such character"
    assert await logged(database) == []


async def test_discord_itself_bounds_the_ac_typed(local: LocalDiscord) -> None:
    group = local.bot.tree.get_command("dnd")
    for name in ("attack", "odds", "full-attack"):
        parameter = group.get_command(name).get_parameter("target_ac")  # type: ignore[union-attr]
        assert (parameter.min_value, parameter.max_value) == (-50, 200)


# ---------------------------------------------------------------------------------------------------------
# The roll log.


async def test_an_attack_is_logged_with_every_roll(local: LocalDiscord, database: Database) -> None:
    options = {**WORKED, "private": True}
    exchange, _ = await attack(local, [19, 10, 2, 7], options)
    assert exchange.ephemeral
    [row] = await logged(database)
    assert row.interaction_id == int(exchange.payload["id"])
    assert row.user_id == int(local.actor.user_id)
    assert row.channel_id == int(local.actor.channel_id)
    assert row.command == "dnd attack"
    assert row.inputs == options
    assert row.private is True
    assert row.result == {
        "attack": "attack 1d8+3",
        "ab": 5,
        "ac": 15,
        "d20": 19,
        "outcome": "critical",
        "threat": True,
        "confirm_d20": 10,
        "rolls": [[2], [7]],
        "roll_bonus": 3,
        "precision": [],
        "energy": [],
        "dr": 0,
        "damage": 15,
        "variants": ["seed", "srd"],
    }


# ---------------------------------------------------------------------------------------------------------
# Too many dice to count in time: a marked approximation, never a refusal or a frozen bot.


async def test_odds_too_large_to_count_are_answered_as_a_marked_approximation(local: LocalDiscord) -> None:
    local.bot.dice = NoDice()
    huge = {"attack_bonus": 5, "damage": "99d999", "crit": "x6", "target_ac": 15}
    exchange = await local.command("dnd odds", huge)
    assert exchange.rejected == [] and exchange.embed["color"] == BLURPLE, exchange.embed
    description = exchange.embed["description"].split("\n")
    assert description[0] == "Hit **55.0%** · threat **5.0%** · confirmed critical **2.8%** · miss 45.0%"
    assert description[1] == "Expected damage **34031.25**"  # 99 x 500 x (209/400 + 6 x 11/400): exact
    assert description[2].startswith(
        "Approximate damage: normal approximation of up to 594 dice (too many to count exactly in time). "
        "Hit and critical chances are exact; each chance of dealing at most (or more than) a total is within ±"
    )
    assert description[2].endswith("the expected damage is exact.")
    chart = fields(exchange)["Damage (a miss counts as 0)"].split("\n")
    assert chart[0].startswith("`") and "45.0%" in chart[0]
    # The attack itself is rolled as always; its odds line says the damage chances are approximate.
    local.bot.dice = ScriptedDice([2])
    rolled = await local.command("dnd attack", huge)
    assert rolled.rejected == [] and rolled.embed["color"] == GREY, rolled.embed
    assert rolled.embed["description"] == (
        "**Miss**\nOdds: hit 55.0% · crit 2.8% · avg 34031.25 · damage chances approximate"
    )


class CriticalDice:
    """Every d20 a natural 20, so that every attack is a confirmed critical; other dice from a seeded Random."""

    def __init__(self) -> None:
        self.rng = random.Random(7)

    def randint(self, a: int, b: int) -> int:
        return b if (a, b) == (1, 20) else self.rng.randint(a, b)


async def test_the_longest_full_attack_answer_fits_discords_6000_characters(local: LocalDiscord) -> None:
    """Seven x6 criticals of 99d999 list thousands of faces: the answer is cut to fit, and says so."""
    await heaviest_fighter(local)
    local.bot.dice = CriticalDice()
    options = {"character": "Max", "weapon": "Longsword", "off_hand_weapon": "Short sword", "target_ac": 10}
    exchange = await local.command("dnd full-attack", options)
    assert exchange.rejected == [], exchange.rejected
    shown = exchange.embed  # the full answer (this module's servers answer in full), which Details also shows
    total = len(shown.get("title", "")) + len(shown.get("description", ""))
    total += sum(len(f["name"]) + len(f["value"]) for f in shown.get("fields", []))
    total += len(shown.get("footer", {}).get("text", ""))
    assert total <= 6000, total
    assert "7 of 7 attacks hit, 7 critical" in shown["description"]
    assert any(f["value"].endswith("…") for f in shown["fields"])  # cut, and it says so
