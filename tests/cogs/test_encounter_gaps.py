"""The tracker's known gaps of #28, closed: each attack of a turned full attack reads its own target's conditions."""

from __future__ import annotations

import pytest

from bot.db.engine import Database
from bot.local.driver import LocalDiscord
from tests.dice_sources import ScriptedDice
from tests.helpers import ok, state, stored

pytestmark = pytest.mark.usefixtures("full_answers")


async def ogre_and_two(local: LocalDiscord) -> None:
    """An ogre with a full attack, and Lira and Bram on the players' side (quick creatures, no initiative yet)."""
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    ogre = {"name": "Ogre", "hp": 30, "ac": 13, "initiative": 5, "attacks": "greatclub +8/+3 2d8+7"}
    ok(await local.command("encounter add", ogre))
    ok(await local.command("encounter add", {"name": "Lira", "hp": 6, "ac": 14, "side": "party"}))
    ok(await local.command("encounter add", {"name": "Bram", "hp": 12, "ac": 12, "side": "party"}))


async def test_a_turned_full_attack_meets_the_next_target_at_its_own_ac_not_the_prone_first_ones(
    local: LocalDiscord, database: Database
) -> None:
    await ogre_and_two(local)
    ok(await local.command("encounter condition", {"combatant": "Lira", "name": "prone"}))
    # +8: d20 10 = 18 hits the prone Lira (AC 14 - 4 in melee), 2d8 1 1 + 7 = 9: 6 → -3, dying. +3: d20 8 = 11
    # against Bram, who stands: his AC 12, a miss. Read with Lira's prone -4 it would be AC 8 and a hit, and the
    # script has no damage dice left for it.
    local.bot.dice = ScriptedDice([10, 1, 1, 8])
    attack = await local.command("encounter attack", {"attacker": "Ogre", "target": "Lira"})
    at = {field["name"]: field["value"] for field in attack.embed["fields"]}
    assert "vs flat-footed AC 10 → hit" in at["1. attack 2d8+7 (+8) at Lira"], at
    assert "vs flat-footed AC 12 → miss" in at["2. attack 2d8+7 (+3) at Bram"], at
    assert state(await stored(database)) == [("Ogre", 30), ("Lira", -3), ("Bram", 12)]
