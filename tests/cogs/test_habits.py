"""A character's habits (#19 item 5): the weapon it used last and each laser's dial, until it names others."""

from __future__ import annotations

import pytest

from bot.local.driver import LocalDiscord
from tests.dice_sources import NoDice, ScriptedDice
from tests.helpers import RED, dnd_character, fields, sf_character

pytestmark = pytest.mark.usefixtures("full_answers")


def shown(exchange) -> str:  # type: ignore[no-untyped-def]
    return (
        exchange.embed.get("title", "")
        + "\n"
        + exchange.embed["description"]
        + "\n"
        + "\n".join(fields(exchange).values())
    )


async def test_a_laser_keeps_its_dial_and_the_character_its_weapon(local: LocalDiscord) -> None:
    await sf_character(local, "Kim", (("Laser pistol", ""), ("Needler pistol", "")))
    local.bot.dice = NoDice()
    asked = await local.command("sf shoot", {"distance": 10})
    assert asked.embed["color"] == RED and asked.embed["title"] == "Which weapon?"
    local.bot.dice = ScriptedDice([5, 1, 2, 3])  # a hit on 05; 3 SEU: 3d10
    first = await local.command("sf shoot", {"weapon": "Laser pistol", "setting": 3, "distance": 10})
    assert "1d10 per SEU at 3 SEU" in shown(first), shown(first)
    local.bot.dice = ScriptedDice([5, 4, 5, 6])
    again = await local.command("sf shoot", {"distance": 10})  # no weapon, no dial: the last ones
    assert again.embed["color"] != RED, again.embed
    assert "Laser pistol" in shown(again) and "1d10 per SEU at 3 SEU" in shown(again), shown(again)
    local.bot.dice = ScriptedDice([5, 4])
    turned = await local.command("sf shoot", {"distance": 10, "setting": 1})
    assert "1d10 per SEU at 1 SEU" in shown(turned)
    local.bot.dice = ScriptedDice([5, 7])
    kept = await local.command("sf shoot", {"distance": 10})
    assert "1d10 per SEU at 1 SEU" in shown(kept)


async def test_pricing_a_roll_teaches_no_habit(local: LocalDiscord) -> None:
    await sf_character(local, "Kim", (("Laser pistol", ""), ("Needler pistol", "")))
    odds = await local.command("sf odds shoot", {"weapon": "Laser pistol", "setting": 3, "distance": 10})
    assert odds.embed["color"] != RED, odds.embed
    local.bot.dice = NoDice()
    asked = await local.command("sf shoot", {"distance": 10})
    assert asked.embed["title"] == "Which weapon?"


async def test_a_dnd_character_attacks_with_the_weapon_it_used_last_while_it_carries_it(local: LocalDiscord) -> None:
    await dnd_character(local, "Kara", {"Longsword": "", "Dagger": ""}, bab=1, weapon_groups="martial")
    local.bot.dice = ScriptedDice([2])
    first = await local.command("dnd attack", {"target_ac": 30, "weapon": "Dagger"})
    assert first.embed["title"].startswith("Kara: Dagger"), first.embed["title"]
    local.bot.dice = ScriptedDice([2])
    again = await local.command("dnd attack", {"target_ac": 30})
    assert again.embed["title"].startswith("Kara: Dagger"), again.embed["title"]
    removed = await local.command("character weapon remove", {"character": "Kara", "name": "Dagger"})
    assert removed.embed.get("color") != RED
    local.bot.dice = ScriptedDice([2])
    only = await local.command("dnd attack", {"target_ac": 30})
    assert only.embed["title"].startswith("Kara: Longsword"), only.embed["title"]


async def test_a_characters_habits_are_read_once_and_then_kept(local: LocalDiscord) -> None:
    from sqlalchemy import event

    await dnd_character(local, "Kara", {"Longsword": "", "Dagger": ""}, bab=1, weapon_groups="martial")
    statements: list[str] = []

    def seen(conn: object, cursor: object, statement: str, *args: object) -> None:
        if "character_memory" in statement:
            statements.append(statement.split()[0])

    engine = local.bot.database.engine.sync_engine
    event.listen(engine, "before_cursor_execute", seen)
    try:
        for weapon in ("Dagger", None, None, "Longsword", None):
            local.bot.dice = ScriptedDice([2])
            options = {"target_ac": 30, **({"weapon": weapon} if weapon else {})}
            attacked = await local.command("dnd attack", options)
            assert attacked.embed["color"] != RED, attacked.embed
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    # One read, at the first roll; then only the two writes of the rolls that named a new weapon (each finds
    # the row first to insert or update it). Without the kept habits every roll reads: four more SELECTs.
    assert statements == ["SELECT", "SELECT", "INSERT", "SELECT", "UPDATE"], statements
    assert attacked.embed["title"].startswith("Kara: Longsword")
