"""Monsters that act in one command (#28 items 3-4): stored attacks, `/encounter attack`, bursts across targets."""

from __future__ import annotations

from typing import Any

import pytest

from bot.db.engine import Database
from bot.local.driver import LocalDiscord
from bot.local.payloads import MANAGER_PERMISSIONS
from tests.dice_sources import NoDice, ScriptedDice
from tests.helpers import character, forged, gm_copy, logged, ok, set_gm_channel, state, stored

pytestmark = pytest.mark.usefixtures("full_answers")

PLAYER = "200000000000000002"


def text(embed: dict[str, Any]) -> str:
    """Everything an embed says."""
    parts = [embed.get("title", ""), embed.get("description", "")]
    parts += [f"{f['name']} {f['value']}" for f in embed.get("fields", [])]
    return "\n".join(parts)


async def ogre_fight(local: LocalDiscord, attacks: str = "greatclub +8 2d8+7 x3; bite +3/-2 1d6+1") -> None:
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    ok(await local.command("encounter add", {"name": "Ogre", "hp": 30, "ac": 13, "initiative": 5, "attacks": attacks}))
    ok(await local.command("encounter add", {"name": "Lira", "hp": 12, "ac": 14, "side": "party"}))
    ok(await local.command("encounter add", {"name": "Bram", "hp": 12, "ac": 12, "side": "party"}))


async def test_stored_attacks_are_kept_with_the_creature_across_a_restart(
    local: LocalDiscord, database: Database
) -> None:
    await ogre_fight(local)
    [ogre] = [c for c in (await stored(database)).combatants if c.name == "Ogre"]
    assert [(a.name, a.command) for a in ogre.attacks] == [("greatclub", "dnd attack"), ("bite", "dnd full-attack")]
    assert ogre.attacks[0].typed == {"attack_bonus": 8, "damage": "2d8+7", "crit": "x3"}


async def test_a_bad_attack_notation_is_refused_with_a_caret(local: LocalDiscord, database: Database) -> None:
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    refused = await local.command("encounter add", {"name": "Ogre", "hp": 30, "attacks": "greatclub +8 2d8+x7"})
    assert refused.ephemeral and "character 18" in refused.embed["description"], refused.embed
    assert "^" in refused.embed["description"]
    assert (await stored(database)).combatants == ()


async def test_a_superscript_damage_is_refused_not_a_failure(local: LocalDiscord, database: Database) -> None:
    # '¹' is a digit to str.isdigit but not a number to int(): the reader said "Sorry" with a traceback in the log.
    ok(await local.command("encounter start", {"ruleset": "aliensrl", "name": "Hadley's Hope"}))
    refused = await local.command("encounter add", {"name": "Alien", "hp": 8, "attacks": "bite ¹"})
    assert refused.ephemeral and "Unexpected '¹'" in refused.embed["title"] + refused.embed["description"], (
        refused.embed
    )
    assert (await stored(database)).combatants == ()


async def test_encounter_attack_rolls_the_current_monsters_stored_attack_and_applies_it(
    local: LocalDiscord, database: Database
) -> None:
    await ogre_fight(local)
    local.bot.dice = ScriptedDice([20, 2, 1])  # initiative: Ogre 20 + 5 first, then Lira, Bram
    ok(await local.command("encounter next"))
    assert (await stored(database)).current.name == "Ogre"
    local.bot.dice = ScriptedDice([10, 4, 5])  # d20 10 + 8 = 18 vs AC 14 (flat-footed: the same) ; 2d8 4 5 + 7 = 16
    attack = await local.command("encounter attack", {"target": "Lira"})
    said = text(attack.embed)
    assert "Ogre" in said and "Lira" in said, said
    assert attack.embed["color"] != 0xE74C3C, attack.embed
    assert ("Lira", -4) in state(await stored(database))
    [roll] = [r for r in await logged(database) if r.command == "dnd attack"]
    assert roll.inputs == {"attack_bonus": 8, "damage": "2d8+7", "crit": "x3", "target": "Lira", "name": "Ogre"}


async def test_the_dead_and_the_helpless_cannot_attack(local: LocalDiscord, database: Database) -> None:
    await ogre_fight(local)
    ok(await local.command("encounter hp", {"combatant": "Ogre", "amount": "=-12"}))
    dead = await local.command("encounter attack", {"attacker": "Ogre", "target": "Lira"})
    assert dead.ephemeral and "dead" in dead.embed["description"], dead.embed
    ok(await local.command("encounter hp", {"combatant": "Ogre", "amount": "=30"}))
    ok(await local.command("encounter condition", {"combatant": "Ogre", "name": "paralyzed"}))
    helpless = await local.command("encounter attack", {"attacker": "Ogre", "target": "Lira"})
    assert helpless.ephemeral and "paralyzed" in helpless.embed["description"], helpless.embed
    assert [r for r in await logged(database) if r.command.startswith("dnd")] == []


async def test_a_player_may_not_attack_with_the_game_masters_monster(local: LocalDiscord, database: Database) -> None:
    await ogre_fight(local)
    player = local.as_user(PLAYER)
    refused = await local.command("encounter attack", {"attacker": "Ogre", "target": "Lira"}, actor=player)
    assert refused.ephemeral and refused.embed["title"] == "Not allowed", refused.embed


async def test_a_full_attack_stored_as_iteratives_rolls_as_a_full_attack(
    local: LocalDiscord, database: Database
) -> None:
    await ogre_fight(local)
    local.bot.dice = ScriptedDice([15, 3, 15, 2])  # +3: 18 hits AC 12 for 1d6 3 + 1; -2: 13 hits for 2 + 1
    attack = await local.command("encounter attack", {"attacker": "Ogre", "attack": "bite", "target": "Bram"})
    assert attack.embed["color"] != 0xE74C3C, attack.embed
    assert ("Bram", 5) in state(await stored(database))
    assert [r.command for r in await logged(database)] == ["dnd full-attack"]


async def test_attack_buttons_roll_at_the_next_foe_in_order(local: LocalDiscord, database: Database) -> None:
    await ogre_fight(local)
    local.bot.dice = ScriptedDice([1])  # a miss
    attack = await local.command("encounter attack", {"attacker": "Ogre", "target": "Bram"})
    assert attack.messages[-1].get("flags", 0) & 64, attack.messages  # only the roller sees them
    # The message as the double holds it (with its id), as a client clicks it.
    buttons = max(
        (m for m in local.double.messages.values() if "encounter:attack:" in str(m.get("components"))),
        key=lambda m: int(m["id"]),
    )
    ids = [c["custom_id"] for row in buttons["components"] for c in row["components"]]
    assert len(ids) == 2 and ids[0].startswith("encounter:attack:"), ids
    local.bot.dice = ScriptedDice([19, 1, 1])  # greatclub at Lira (the first foe after the Ogre): 27 hits; 2 + 7
    pressed = await local.click(buttons, ids[0])
    assert "Lira" in text(pressed.embed), pressed.embed
    assert ("Lira", 3) in state(await stored(database))


def attack_buttons_shown(local: LocalDiscord) -> tuple[dict[str, Any], list[str]]:
    """The latest message with attack buttons, as the double holds it (with its id), and their custom ids."""
    message = max(
        (m for m in local.double.messages.values() if "encounter:attack:" in str(m.get("components"))),
        key=lambda m: int(m["id"]),
    )
    return message, [c["custom_id"] for row in message["components"] for c in row["components"]]


@pytest.mark.parametrize(
    ("name", "count", "attacks", "mark"),
    [
        ("Ogre", 1, "slam +8 2d8+7; bite +3 1d6+1", "69605404"),  # all digits: it was read as a number
        ("Troll", 2, "javelin +8 1d6; bite +3 1d6+1", "00444738"),  # and a leading zero was lost with it
    ],
)
async def test_an_attack_button_whose_mark_is_all_digits_still_rolls(
    local: LocalDiscord, database: Database, name: str, count: int, attacks: str, mark: str
) -> None:
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    creature = {"name": name, "count": count, "hp": 30, "ac": 13, "initiative": 5, "attacks": attacks}
    ok(await local.command("encounter add", creature))
    ok(await local.command("encounter add", {"name": "Lira", "hp": 12, "ac": 14, "side": "party"}))
    attacker = name if count == 1 else f"{name} {count}"
    local.bot.dice = ScriptedDice([1])  # a miss
    await local.command("encounter attack", {"attacker": attacker, "target": "Lira"})
    message, ids = attack_buttons_shown(local)
    assert ids[0].endswith(f":{mark}"), ids
    local.bot.dice = ScriptedDice([19, 1, 1])  # 19 + 8 hits AC 14; 1 (+1) damage, or 2 + 7
    pressed = await local.click(message, ids[0])
    assert pressed.response is not None and "Lira" in text(pressed.embed), pressed.response
    assert [hp for who, hp in state(await stored(database)) if who == "Lira"] != [12]


async def test_an_ended_fight_s_attack_button_rolls_nothing_in_the_channel_s_next_fight(
    local: LocalDiscord, database: Database
) -> None:
    """The next fight numbers its combatants again: the same creature under the same name has the old one's number
    and its attack the same mark, so only the fight the button names tells them apart."""
    await ogre_fight(local)
    local.bot.dice = ScriptedDice([1])  # a miss
    await local.command("encounter attack", {"attacker": "Ogre", "target": "Bram"})
    message, ids = attack_buttons_shown(local)
    ok(await local.command("encounter end"))
    await ogre_fight(local)
    before = await stored(database)
    local.bot.dice = NoDice()
    pressed = await local.click(message, ids[0])
    assert pressed.ephemeral and pressed.embed["title"] == "No such attack", pressed.embed
    assert await stored(database) == before
    old_id = ":".join(["encounter", "attack", *ids[0].split(":")[3:]])  # as made before they named the fight
    pressed = await local.click(forged(message, old_id), old_id)
    assert pressed.ephemeral and pressed.embed["title"] == "An old button", pressed.embed


async def sathar_fight(local: LocalDiscord) -> None:
    ok(await local.command("encounter start", {"ruleset": "sf", "name": "Port Loren"}))
    ok(await local.command("encounter add", {"name": "Sathar", "count": 3, "hp": 30, "rs": 40}))


BURST = {"score": 40, "skill": 1, "damage": "1d10", "distance": "point blank", "burst": True, "targets": 2}


async def test_a_burst_split_between_two_targets_hits_both_as_one_change(
    local: LocalDiscord, database: Database
) -> None:
    await sathar_fight(local)
    local.bot.dice = ScriptedDice([30, 5, 5, 5, 5, 5, 6])  # a hit; 6d10 = 31, split 2 ways: 15 each, 1 lost
    shot = await local.command("sf shoot", {**BURST, "target": "Sathar 1; Sathar 3"})
    assert shot.embed["color"] != 0xE74C3C, shot.embed
    assert "Sathar 1" in shot.embed["title"], shot.embed  # the short answer names the defender
    assert state(await stored(database)) == [("Sathar 1", 15), ("Sathar 2", 30), ("Sathar 3", 15)]
    note = shot.messages[-1]["embeds"][0]["description"]
    assert "Sathar 1: 30 → 15" in note and "Sathar 3: 30 → 15" in note, note
    ok(await local.command("encounter undo"))  # one change: one undo takes back both
    assert state(await stored(database)) == [("Sathar 1", 30), ("Sathar 2", 30), ("Sathar 3", 30)]


async def test_a_burst_at_a_combatant_must_name_its_other_targets(local: LocalDiscord, database: Database) -> None:
    await sathar_fight(local)
    local.bot.dice = ScriptedDice([])
    refused = await local.command("sf shoot", {**BURST, "target": "Sathar 1"})
    assert refused.ephemeral and "after a `;`" in refused.embed["description"], refused.embed
    wrong = await local.command("sf shoot", {**BURST, "target": "Sathar 1; Sathar 2; Sathar 3"})
    assert wrong.ephemeral and "`target` names 2 other target(s)" in wrong.embed["description"], wrong.embed
    twice = await local.command("sf shoot", {**BURST, "target": "Sathar 1; sathar 1"})
    assert twice.ephemeral and "twice" in twice.embed["description"], twice.embed
    assert [r for r in await logged(database) if r.command == "sf shoot"] == []


async def test_aliens_melee_by_a_combatant_is_named_hidden_and_refused_to_the_dead(
    local: LocalDiscord, database: Database
) -> None:
    ok(await local.command("encounter start", {"ruleset": "aliensrl", "name": "Hadley's Hope"}))
    ok(await local.command("encounter add", {"name": "Hicks", "hp": 10, "rank": 2, "side": "party"}))
    ok(await local.command("encounter add", {"name": "Alien", "count": 2, "hp": 8, "rank": 1}))
    bite = await local.command("aliens melee", {"attacker": "Alien 1", "target": "Hicks"})
    assert bite.embed["title"] == "Alien 1 attacks Hicks in melee", bite.embed
    assert ("Hicks", 5) in state(await stored(database))
    hidden = await local.command("aliens melee", {"attacker": "Alien 2", "target": "Hicks", "hidden": True})
    assert "Alien 2" not in str(hidden.messages[0]), hidden.messages  # the channel sees only that someone rolled
    assert ("Hicks", 5) in state(await stored(database))  # a hidden bite waits for the game master's hand
    ok(await local.command("encounter hp", {"combatant": "Alien 1", "amount": "=0"}))
    dead = await local.command("aliens melee", {"attacker": "Alien 1", "target": "Hicks"})
    assert dead.ephemeral and "dead" in dead.embed["description"], dead.embed
    nobody = await local.command("aliens melee", {"attacker": "Bishop", "target": "Hicks"})
    assert nobody.ephemeral and nobody.embed["title"] == "Who attacks?", nobody.embed


async def test_a_stored_aliens_bite_rolls_as_aliens_melee(local: LocalDiscord, database: Database) -> None:
    ok(await local.command("encounter start", {"ruleset": "aliensrl", "name": "Hadley's Hope"}))
    ok(await local.command("encounter add", {"name": "Hicks", "hp": 10, "rank": 2, "side": "party"}))
    ok(await local.command("encounter add", {"name": "Alien", "hp": 8, "attacks": "bite 3; claws warrior"}))
    bite = await local.command("encounter attack", {"attacker": "Alien", "target": "Hicks"})
    assert bite.embed["title"] == "Alien attacks Hicks in melee", bite.embed
    assert ("Hicks", 7) in state(await stored(database))


async def test_a_dnd_miss_on_a_quick_creature_names_it(local: LocalDiscord, database: Database) -> None:
    await ogre_fight(local)
    local.bot.dice = ScriptedDice([2])
    moderator = local.as_user("200000000000000099", permissions=MANAGER_PERMISSIONS)
    saved = await local.command("settings set", {"setting": "rolls.answers", "value": "compact"}, actor=moderator)
    assert saved.embed["title"] == "Setting saved", saved.embed
    miss = await local.command("dnd attack", {"target": "Lira", "attack_bonus": 2, "damage": "1d6", "name": "Ogre"})
    assert "Lira" in text(miss.embed) and "Ogre" in text(miss.embed), miss.embed


async def test_a_full_attack_turns_to_the_next_foe_when_its_target_drops(
    local: LocalDiscord, database: Database
) -> None:
    await ogre_fight(local, "greatclub +8/+3 2d8+7")
    ok(await local.command("encounter hp", {"combatant": "Lira", "amount": "=5"}))
    # +8: d20 10 = 18 hits Lira's AC 14, 2d8 1 1 + 7 = 9: Lira 5 → -4, dying. +3: d20 10 = 13 hits Bram's AC 12
    # (Lira's 14 it would miss), 2d8 2 2 + 7 = 11: Bram 12 → 1.
    local.bot.dice = ScriptedDice([10, 1, 1, 10, 2, 2])
    attack = await local.command("encounter attack", {"attacker": "Ogre", "target": "Lira"})
    assert attack.embed["color"] != 0xE74C3C, attack.embed
    said = text(attack.embed)
    assert "at Lira" in said and "at Bram" in said, said
    assert state(await stored(database)) == [("Ogre", 30), ("Lira", -4), ("Bram", 1)]
    [roll] = await logged(database)
    assert roll.command == "dnd full-attack" and roll.inputs["then"] == "Bram", roll.inputs
    ok(await local.command("encounter undo"))  # one change
    assert state(await stored(database)) == [("Ogre", 30), ("Lira", 5), ("Bram", 12)]


async def test_a_full_attack_whose_target_stands_stays_on_it(local: LocalDiscord, database: Database) -> None:
    await ogre_fight(local, "greatclub +8/+3 2d8+7")
    local.bot.dice = ScriptedDice([10, 1, 1, 10, 2, 2])  # Lira 12 → 3 (standing), then 13 misses her AC 14
    attack = await local.command("encounter attack", {"attacker": "Ogre", "target": "Lira"})
    assert "Bram" not in text(attack.embed), attack.embed
    assert state(await stored(database)) == [("Ogre", 30), ("Lira", 3), ("Bram", 12)]


async def test_then_names_only_combatants_of_the_fight(local: LocalDiscord, database: Database) -> None:
    await ogre_fight(local)
    options = {"attack_bonus": "+8/+3", "damage": "2d8+7", "name": "Ogre", "target": "Lira"}
    refused = await local.command("dnd full-attack", {**options, "then": "Nobody"})
    assert refused.ephemeral, refused.embed
    twice = await local.command("dnd full-attack", {**options, "then": "Bram, lira"})
    assert twice.ephemeral and "twice" in twice.embed["description"], twice.embed
    outside = await local.command("dnd full-attack", {**options, "target": None, "target_ac": 12, "then": "Bram"})
    assert outside.ephemeral, outside.embed


async def test_a_player_attacks_with_their_own_characters_weapon(local: LocalDiscord, database: Database) -> None:
    player = local.as_user(PLAYER)
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    await character(local, "dnd35", "Aria", actor=player, strength=16, hit_points=12, max_hit_points=12, bab=6)
    ok(await local.command("character weapon add", {"character": "Aria", "name": "longsword"}, actor=player))
    ok(await local.command("encounter join", {}, actor=player))
    ok(await local.command("encounter add", {"name": "Goblin", "hp": 6, "ac": 15}))
    choices = await local.autocomplete("encounter attack", {"attacker": "Aria", "attack": ""}, "attack", actor=player)
    names = [c["name"] for c in choices.response["data"]["choices"]]
    assert names == ["longsword", "longsword (full attack)"], names
    local.bot.dice = ScriptedDice([15, 8])  # 15 + 9 = 24 vs AC 15; 1d8 8 + 3 = 11
    attack = await local.command("encounter attack", {"attacker": "Aria", "target": "Goblin"}, actor=player)
    assert attack.embed["color"] != 0xE74C3C, attack.embed
    assert ("Goblin", -5) in state(await stored(database))
    [roll] = [r for r in await logged(database) if r.command == "dnd attack"]
    assert roll.inputs == {"character": "#1", "weapon": "longsword", "target": "Goblin"}, roll.inputs


async def test_star_frontiers_stored_attacks_shoot_at_a_band_and_strike_in_melee(
    local: LocalDiscord, database: Database
) -> None:
    ok(await local.command("encounter start", {"ruleset": "sf", "name": "Port Loren"}))
    ok(await local.command("encounter add", {"name": "Kel", "hp": 40, "rs": 50, "side": "party"}))
    attacks = "laser rifle rw60/2 3d10 laser; claws mw55/1 2d10"
    ok(await local.command("encounter add", {"name": "Sathar", "hp": 30, "rs": 40, "attacks": attacks}))
    needs = await local.command("encounter attack", {"attacker": "Sathar", "target": "Kel"})
    assert needs.ephemeral and "distance" in needs.embed["description"], needs.embed
    local.bot.dice = ScriptedDice([30, 5, 5, 5])  # a hit; 3d10 = 15
    shot = await local.command("encounter attack", {"attacker": "Sathar", "target": "Kel", "distance": "short"})
    assert shot.embed["title"] == "Sathar shoots Kel", shot.embed
    assert ("Kel", 25) in state(await stored(database))
    local.bot.dice = ScriptedDice([30, 4, 4])  # a hit; 2d10 = 8
    claws = await local.command("encounter attack", {"attacker": "Sathar", "attack": "claws", "target": "Kel"})
    assert claws.embed["title"] == "Sathar attacks Kel in melee", claws.embed
    assert ("Kel", 17) in state(await stored(database))


async def test_a_hidden_stored_attack_goes_to_the_gm_channel_and_waits_for_its_hand(
    local: LocalDiscord, database: Database
) -> None:
    await set_gm_channel(local)
    await ogre_fight(local)
    local.bot.dice = ScriptedDice([19, 4, 5])  # 19 + 8 = 27 hits Lira; 2d8 4 5 + 7 = 16
    attack = await local.command("encounter attack", {"attacker": "Ogre", "target": "Lira", "hidden": True})
    assert "16" not in str(attack.messages[0]) and "greatclub" not in str(attack.messages[0]), attack.messages
    assert ("Lira", 12) in state(await stored(database))  # the hit waits for the game master's Apply button
    copy = gm_copy(local)
    assert "Apply the hit to Lira" in str(copy.get("components")), copy


async def test_the_short_answer_of_a_turned_full_attack_names_each_target(
    local: LocalDiscord, database: Database
) -> None:
    await ogre_fight(local, "greatclub +8/+3 2d8+7")
    moderator = local.as_user("200000000000000099", permissions=MANAGER_PERMISSIONS)
    ok(await local.command("settings set", {"setting": "rolls.answers", "value": "compact"}, actor=moderator))
    ok(await local.command("encounter hp", {"combatant": "Lira", "amount": "=5"}))
    local.bot.dice = ScriptedDice([10, 1, 1, 10, 2, 2])
    attack = await local.command("encounter attack", {"attacker": "Ogre", "target": "Lira"})
    lines = attack.embed["description"].splitlines()
    assert "vs Lira's flat-footed AC 14" in lines[1] and "vs Bram's flat-footed AC 12" in lines[2], lines


async def test_a_monsters_turn_message_carries_its_attacks_and_one_press_rolls_one(
    local: LocalDiscord, database: Database
) -> None:
    await ogre_fight(local)
    local.bot.dice = ScriptedDice([20, 10, 5])  # initiative: the Ogre 20 + 5, Lira 10, Bram 5
    turn = await local.command("encounter next")
    [message] = [m for m in turn.messages if m["embeds"][0]["title"].startswith("Round 1")]
    assert message["embeds"][0]["title"] == "Round 1 · Ogre's turn"
    labels = [c["label"] for row in message["components"] for c in row["components"]]
    assert labels == ["Next", "Ogre: greatclub", "Ogre: bite"]  # the turn's own attacks, one press each
    greatclub = message["components"][0]["components"][1]["custom_id"]
    local.bot.dice = ScriptedDice([19, 1, 1])  # greatclub at Lira, the first foe after the Ogre: 27 hits; 2 + 7
    pressed = await local.click(local.original(turn), greatclub)
    assert "Lira" in text(pressed.embed), pressed.embed
    assert ("Lira", 3) in state(await stored(database))


async def test_an_attack_button_of_an_ended_fight_never_rolls_the_next_fights_creature(
    local: LocalDiscord, database: Database
) -> None:
    """A button names its attacker by its number in the fight, and the channel's next fight numbers from 1 again."""
    await ogre_fight(local)
    local.bot.dice = ScriptedDice([20, 10, 5])  # the Ogre has the first turn: its attacks are buttons
    turn = await local.command("encounter next")
    greatclub = local.original(turn)["components"][0]["components"][1]["custom_id"]
    ok(await local.command("encounter end"))
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Crypt"}))
    ok(await local.command("encounter add", {"name": "Goblin", "hp": 6, "ac": 15, "attacks": "dagger +2 1d4"}))
    ok(await local.command("encounter add", {"name": "Lira", "hp": 12, "ac": 14, "side": "party"}))
    local.bot.dice = NoDice()  # nothing may be rolled
    pressed = await local.click(local.original(turn), greatclub)
    assert pressed.ephemeral and "earlier fight" in pressed.embed["description"], pressed.embed
    assert state(await stored(database)) == [("Goblin", 6), ("Lira", 12)]
