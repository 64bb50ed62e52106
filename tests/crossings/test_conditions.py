"""Conditions with effects (#28 item 2): an attack on a combatant reads its conditions, and says what they changed.

Each test goes through the real command tree (raw interaction, the bot's answer as JSON) with forced dice.
"""

from __future__ import annotations

import pytest

from bot.db.engine import Database
from bot.local.driver import LocalDiscord
from tests.dice_sources import ScriptedDice
from tests.helpers import BOB as PLAYER
from tests.helpers import fields, ok, sheet, state, stored

pytestmark = pytest.mark.usefixtures("full_answers")

QUICK = {"attack_bonus": 0, "damage": "1d8"}


async def goblins(local: LocalDiscord, *conditions: str) -> None:
    """A D&D fight with Goblin 1 and Goblin 2 (AC 15, 6 hp), Goblin 1 carrying `conditions`."""
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    ok(await local.command("encounter add", {"name": "Goblin", "count": 2, "hp": 6, "ac": 15, "initiative": 1}))
    for name in conditions:
        ok(await local.command("encounter condition", {"combatant": "Goblin 1", "name": name}))


def said(exchange: object) -> str:
    return "\n".join(fields(exchange).values())  # type: ignore[arg-type]


async def test_a_prone_goblin_is_hit_at_ac_minus_4_in_melee_and_the_answer_says_why(
    local: LocalDiscord, database: Database
) -> None:
    await goblins(local, "prone")
    local.bot.dice = ScriptedDice([11, 5])  # d20 11 + 0 vs AC 15 - 4 = 11: a hit (a miss against AC 15); 1d8 5
    attack = await local.command("dnd attack", {**QUICK, "target": "Goblin 1"})
    text = said(attack)
    assert "AC 11 → hit" in text, text
    assert "-4 prone (condition: Goblin 1 is prone, against melee)" in text, text
    assert ("Goblin 1", 1) in state(await stored(database))


async def test_a_prone_goblin_is_harder_to_shoot(local: LocalDiscord) -> None:
    await goblins(local, "prone")
    local.bot.dice = ScriptedDice([18])  # 18 vs AC 15 + 4 = 19: a miss
    shot = await local.command("dnd attack", {**QUICK, "target": "Goblin 1", "situation": "ranged"})
    text = said(shot)
    assert "AC 19 → miss" in text and "+4 prone (condition: Goblin 1 is prone, against ranged)" in text, text


async def test_the_odds_say_which_condition_changed_what(local: LocalDiscord) -> None:
    await goblins(local, "stunned")
    odds = await local.command("dnd odds", {**QUICK, "target": "Goblin 1"})
    # AC 15 -2 stunned = 13: a d20 of 13 or more hits, 8 in 20 (40%), where 6 in 20 hit before.
    assert "Hit **40.0%**" in odds.embed["description"], odds.embed
    situation = fields(odds)["The situation"]
    assert "-2 stunned (condition: Goblin 1 is stunned, against melee)" in situation, situation
    plain = await local.command("dnd odds", {**QUICK, "target": "Goblin 2"})
    assert "Hit **30.0%**" in plain.embed["description"], plain.embed


async def test_an_invisible_goblin_rolls_its_miss_chance_with_the_dice(local: LocalDiscord, database: Database) -> None:
    await goblins(local, "invisible")
    local.bot.dice = ScriptedDice([19, 30])  # d20 19 hits AC 15; the d100 30 is within the 50% miss chance
    attack = await local.command("dnd attack", {**QUICK, "target": "Goblin 1"})
    text = said(attack)
    assert "concealment 50%: d100 **30** → miss" in text, text
    assert ("Goblin 1", 6) in state(await stored(database))


async def test_a_paralyzed_character_counts_dex_0(local: LocalDiscord, database: Database) -> None:
    player = local.as_user(PLAYER)
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    number = await sheet(local, "dnd35", "Aria", "dex=16 hp=12/12", actor=PLAYER)
    ok(await local.command("encounter join", actor=player))
    ok(await local.command("encounter condition", {"combatant": "Aria", "name": "paralyzed"}, actor=player))
    local.bot.dice = ScriptedDice([2, 3])  # 2 vs helpless AC 10 - 5 (Dex 0) - 4 (melee) = 1: a hit
    attack = await local.command("dnd attack", {**QUICK, "target": number})
    text = said(attack)
    assert "vs helpless AC 1 → hit" in text, text
    assert "-4 helpless (condition: Aria is helpless, against melee)" in text, text
    assert "Dex 0: Aria is helpless" in text, text
    assert ("Aria", 9) in state(await stored(database))


async def test_a_stunned_rogue_loses_its_dex_even_with_uncanny_dodge(local: LocalDiscord) -> None:
    player = local.as_user(PLAYER)
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    number = await sheet(local, "dnd35", "Vex", "dex=16 hp=12/12 uncanny_dodge=true", actor=PLAYER)
    ok(await local.command("encounter join", actor=player))
    ok(await local.command("encounter condition", {"combatant": "Vex", "name": "flat-footed"}, actor=player))
    odds = await local.command("dnd odds", {**QUICK, "target": number})
    assert "vs flat-footed AC 13" in fields(odds)["The attack"], fields(odds)  # Uncanny Dodge keeps Dex +3
    ok(await local.command("encounter condition", {"combatant": "Vex", "name": "stunned"}, actor=player))
    odds = await local.command("dnd odds", {**QUICK, "target": number})
    # Stunned: no Dex bonus whatever Uncanny Dodge says (AC 10), and -2.
    assert "vs flat-footed AC 8" in fields(odds)["The attack"], fields(odds)


async def test_an_attacker_in_the_fight_brings_its_own_conditions(local: LocalDiscord) -> None:
    player = local.as_user(PLAYER)
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    ok(await local.command("encounter add", {"name": "Goblin", "hp": 6, "ac": 15, "initiative": 1}))
    await sheet(local, "dnd35", "Aria", "str=10 bab=2 hp=12/12", actor=PLAYER)
    ok(await local.command("character weapon add", {"character": "Aria", "name": "Longsword"}, actor=player))
    ok(await local.command("encounter join", actor=player))
    ok(await local.command("encounter condition", {"combatant": "Aria", "name": "sickened"}, actor=player))
    local.bot.dice = ScriptedDice([20, 1, 6])  # a natural 20, the confirmation 1; 1d8 6 - 2 sickened
    attack = await local.command("dnd attack", {"character": "Aria", "target": "Goblin"}, actor=player)
    text = said(attack)
    assert "-2 sickened (condition: Aria is sickened)" in text, text


async def test_an_unknown_condition_is_a_label_and_a_known_one_says_what_it_does(local: LocalDiscord) -> None:
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    ok(await local.command("encounter add", {"name": "Goblin", "count": 2, "hp": 6, "ac": 15, "initiative": 1}))
    labelled = ok(await local.command("encounter condition", {"combatant": "Goblin 1", "name": "on fire"}))
    assert "Goblin 1 is on fire." in labelled["description"], labelled
    known = ok(await local.command("encounter condition", {"combatant": "Goblin 2", "name": "Prone", "rounds": 2}))
    assert "Goblin 2 is Prone for 2 round(s).\nProne: -4 AC against melee" in known["description"], known
    odds = await local.command("dnd odds", {**QUICK, "target": "Goblin 1"})
    assert "Hit **30.0%**" in odds.embed["description"] and "The situation" not in fields(odds), odds.embed
    offered = await local.autocomplete("encounter condition", {"combatant": "Goblin 1", "name": "st"}, focused="name")
    assert [c["value"] for c in offered.choices] == ["stunned"], offered.choices
    offered = await local.autocomplete("encounter condition", {"combatant": "Goblin 1", "name": "p"}, focused="name")
    assert [c["value"] for c in offered.choices][:2] == ["paralyzed", "prone"], offered.choices


async def test_a_typed_ac_on_a_combatant_keeps_the_automatic_damage(local: LocalDiscord, database: Database) -> None:
    await goblins(local, "helpless")
    # The game master types the goblin's helpless AC (Dex 0) themselves: 9, -4 in melee = 5.
    local.bot.dice = ScriptedDice([5, 4])
    attack = await local.command("dnd attack", {**QUICK, "target": "Goblin 1", "target_ac": 9})
    text = said(attack)
    assert "AC 5 → hit" in text, text
    assert ("Goblin 1", 2) in state(await stored(database))


async def test_a_typed_ac_goes_with_a_combatant_only(local: LocalDiscord) -> None:
    refused = await local.command("dnd attack", {**QUICK, "target": "Nobody", "target_ac": 9})
    assert refused.embed["title"] == "Attack what?", refused.embed


async def test_a_stunned_sathar_is_a_helpless_defender_in_melee(local: LocalDiscord, database: Database) -> None:
    ok(await local.command("encounter start", {"ruleset": "sf", "name": "Port Loren"}))
    ok(await local.command("encounter add", {"name": "Sathar", "hp": 30, "rs": 40}))
    ok(await local.command("encounter condition", {"combatant": "Sathar", "name": "stunned", "rounds": 20}))
    # MW 30 + skill 1 (10) + helpless 20 = 60: a roll of 55 hits (a miss without the condition); 1d10 4.
    local.bot.dice = ScriptedDice([55, 4])
    melee = await local.command(
        "sf melee", {"score": 30, "skill": 1, "damage": "1d10", "target": "Sathar"}, actor=local.as_user(PLAYER)
    )
    text = melee.embed.get("description", "") + said(melee)
    assert "Sathar is stunned" in text, text
    assert ("Sathar", 26) in state(await stored(database))


async def test_a_prone_sathar_is_harder_to_shoot(local: LocalDiscord) -> None:
    ok(await local.command("encounter start", {"ruleset": "sf", "name": "Port Loren"}))
    ok(await local.command("encounter add", {"name": "Sathar", "hp": 30, "rs": 40}))
    ok(await local.command("encounter condition", {"combatant": "Sathar", "name": "prone"}))
    odds = await local.command(
        "sf odds shoot", {"score": 40, "skill": 1, "damage": "1d10", "distance": "short", "target": "Sathar"}
    )
    text = odds.embed.get("description", "") + said(odds)
    assert "Sathar is prone" in text, text


async def test_soft_cover_is_a_situation_word_against_ranged_attacks(local: LocalDiscord) -> None:
    shot = await local.command("dnd odds", {**QUICK, "target_ac": 15, "situation": "soft cover ranged"})
    assert "AC 19 = 15 +4 soft cover" in fields(shot)["The situation"], fields(shot)
    offered = await local.autocomplete("dnd attack", {"situation": "so"}, focused="situation")
    assert [c["value"] for c in offered.choices] == ["soft cover"], offered.choices


async def test_a_full_attack_reads_the_conditions_on_every_swing(local: LocalDiscord, database: Database) -> None:
    await goblins(local, "prone")
    local.bot.dice = ScriptedDice([6, 3, 11, 2])  # +5: 6 + 5 = 11, +0: 11: both hit AC 15 - 4 = 11; 1d8 3 and 2
    full = await local.command("dnd full-attack", {"attack_bonus": "+5/+0", "damage": "1d8", "target": "Goblin 1"})
    text = full.embed.get("description", "") + said(full)
    assert "prone" in text, text
    assert ("Goblin 1", 1) in state(await stored(database))
