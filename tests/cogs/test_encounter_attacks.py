"""Attacks act on the fight (#18 item 5): a roll against a combatant of this channel's encounter applies its hit."""

from __future__ import annotations

import pytest

from bot.db.engine import Database
from bot.local.driver import LocalDiscord
from tests.dice_sources import ScriptedDice
from tests.helpers import fields, ok, state, stored

pytestmark = pytest.mark.usefixtures("full_answers")


async def test_a_dnd_hit_on_a_combatant_takes_its_hit_points_and_uses_flat_footed_ac(
    local: LocalDiscord, database: Database
) -> None:
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    ok(await local.command("encounter add", {"name": "Goblin", "count": 2, "hp": 6, "ac": 15, "initiative": 1}))
    local.bot.dice = ScriptedDice([12, 4])  # d20 12 + 5 = 17 vs AC 15: a hit; 1d8 4 + 3 = 7
    attack = await local.command("dnd attack", {"target": "Goblin 1", "attack_bonus": 5, "damage": "1d8+3"})
    assert attack.embed["color"] != 0xE74C3C, attack.embed
    assert "Goblin 1 has not had its first turn in this fight yet" in "\n".join(fields(attack).values()), fields(attack)
    note = attack.messages[-1]["embeds"][0]
    assert note["title"] == "The fight" and note["description"].startswith("Goblin 1: 6 → -1 hp"), note
    assert ("Goblin 1", -1) in state(await stored(database))
    local.bot.dice = ScriptedDice([2])  # a miss changes nothing and says nothing
    miss = await local.command("dnd attack", {"target": "Goblin 2", "attack_bonus": 5, "damage": "1d8+3"})
    assert len(miss.messages) == 1
    assert ("Goblin 2", 6) in state(await stored(database))


async def test_a_star_frontiers_knock_out_puts_the_combatant_to_sleep(local: LocalDiscord, database: Database) -> None:
    ok(await local.command("encounter start", {"ruleset": "sf", "name": "Port Loren"}))
    ok(await local.command("encounter add", {"name": "Sathar", "hp": 30, "rs": 40}))
    # 01 is a hit that knocks out (§3): 1d10 5 damage, then the knock-out's turns.
    local.bot.dice = ScriptedDice([1, 5, 3])
    shot = await local.command(
        "sf shoot", {"score": 40, "skill": 1, "damage": "1d10", "distance": "short", "target": "Sathar"}
    )
    assert shot.embed["color"] != 0xE74C3C, shot.embed
    note = shot.messages[-1]["embeds"][0]["description"]
    assert note.startswith("Sathar: 30 → 25 hp") and "unconscious" in note, note
    [sathar] = (await stored(database)).combatants
    assert sathar.hp == 25 and [c.name for c in sathar.conditions] == ["unconscious"]
