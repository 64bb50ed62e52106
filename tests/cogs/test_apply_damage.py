"""The Apply damage button under a hit on a character here (#19 item 2): once, by its owner or the GM."""

from __future__ import annotations

import asyncio

from bot.db.characters import CharacterRepository
from bot.db.engine import Database
from bot.local.double import UPDATE_MESSAGE
from bot.local.driver import LocalDiscord
from bot.local.payloads import MANAGER_PERMISSIONS
from tests.dice_sources import ScriptedDice
from tests.helpers import RED, buttons, ogre

GM = "300000000000000003"
OTHER = "300000000000000004"


async def hit_points(database: Database, character_id: int, guild_id: int) -> int:
    async with database.read() as session:
        record = await CharacterRepository(session).get(character_id, guild_id=guild_id)
    assert record is not None
    return int(record.sheet.hit_points)  # type: ignore[attr-defined]


async def test_a_hit_on_a_character_applies_its_damage_once(local: LocalDiscord, database: Database) -> None:
    gm = local.as_user(GM, permissions=MANAGER_PERMISSIONS)
    number = await ogre(local, gm)
    local.bot.dice = ScriptedDice([15, 5])  # 15 + 5 hits AC 10; 1d8 → 5 + 3
    attack = await local.command("dnd attack", {"target": "Ogre", "attack_bonus": 5, "damage": "1d8+3"})
    message = local.original(attack)
    assert buttons(message)["Apply 8 damage to Ogre"] == f"hurt:{attack.payload['id']}"

    stranger = await local.click(message, f"hurt:{attack.payload['id']}", actor=local.as_user(OTHER))
    assert stranger.ephemeral and stranger.embed["color"] == RED
    assert stranger.embed["description"].startswith(f"Only **Ogre**'s owner, <@{GM}>, or a game master")
    assert await hit_points(database, number, int(gm.guild_id or 0)) == 30

    applied = await local.click(message, f"hurt:{attack.payload['id']}", actor=gm)
    assert applied.response["type"] == UPDATE_MESSAGE
    assert "Apply 8 damage to Ogre" not in buttons(applied.response["data"])
    assert applied.messages[-1]["content"] == (
        f"**Ogre**: 30 → **22** hp of 30 (8 damage, applied by <@{GM}>). "
        f"To undo: `/character hp character:#{number} change:+8`"
    )
    assert await hit_points(database, number, int(gm.guild_id or 0)) == 22

    assert list(buttons(local.original(attack))) == ["Roll again", "Details"]  # nothing left to press


async def test_two_presses_at_once_apply_the_damage_once(local: LocalDiscord, database: Database) -> None:
    gm = local.as_user(GM, permissions=MANAGER_PERMISSIONS)
    number = await ogre(local, gm)
    local.bot.dice = ScriptedDice([15, 5])
    attack = await local.command("dnd attack", {"target": "Ogre", "attack_bonus": 5, "damage": "1d8+3"})
    message = local.original(attack)
    presses = await asyncio.gather(*(local.click(message, f"hurt:{attack.payload['id']}", actor=gm) for _ in range(2)))
    assert sorted(p.response["type"] for p in presses) == sorted([UPDATE_MESSAGE, 4])
    assert await hit_points(database, number, int(gm.guild_id or 0)) == 22


async def test_only_a_hit_on_a_character_has_the_button(local: LocalDiscord) -> None:
    gm = local.as_user(GM, permissions=MANAGER_PERMISSIONS)
    await ogre(local, gm)
    local.bot.dice = ScriptedDice([2])  # a miss
    miss = await local.command("dnd attack", {"target": "Ogre", "attack_bonus": 5, "damage": "1d8+3"})
    assert list(buttons(local.original(miss))) == ["Roll again", "Details"]
    local.bot.dice = ScriptedDice([15, 5])
    numbers = await local.command("dnd attack", {"target_ac": 10, "attack_bonus": 5, "damage": "1d8+3"})
    assert list(buttons(local.original(numbers))) == ["Roll again", "Details"]


async def test_details_keeps_the_button_and_a_melee_hit_in_star_frontiers_takes_stamina(
    local: LocalDiscord, database: Database
) -> None:
    gm = local.as_user(GM, permissions=MANAGER_PERMISSIONS)
    created = await local.command("character create", {"ruleset": "sf", "name": "Sathar"}, actor=gm)
    assert created.embed["color"] != RED, created.embed
    local.bot.dice = ScriptedDice([5, 7])  # a hit on 05 (always), 1d10 → 7
    melee = await local.command("sf melee", {"target": "Sathar", "score": 40, "skill": 1, "damage": "1d10"})
    message = local.original(melee)
    label = "Apply 7 damage to Sathar"
    assert label in buttons(message), buttons(message)
    details = await local.click(message, buttons(message)["Details"])
    assert label in buttons(details.response["data"])
    applied = await local.click(local.original(melee), buttons(local.original(melee))[label], actor=gm)
    assert applied.response["type"] == UPDATE_MESSAGE
    assert " stamina of " in applied.messages[-1]["content"], applied.messages[-1]


async def test_a_secret_characters_hit_points_stay_the_game_masters(local: LocalDiscord, database: Database) -> None:
    gm = local.as_user(GM, permissions=MANAGER_PERMISSIONS)
    number = await ogre(local, gm)
    marked = await local.command("character secret", {"character": "Ogre"}, actor=gm)
    assert marked.embed.get("color") != RED, marked.embed
    local.bot.dice = ScriptedDice([15, 5])
    attack = await local.command("dnd attack", {"target": "Ogre", "attack_bonus": 5, "damage": "1d8+3"})
    applied = await local.click(local.original(attack), f"hurt:{attack.payload['id']}", actor=gm)
    public, private = applied.messages[-2:]
    assert public["content"] == f"**Ogre** takes the hit: wounded (8 damage, applied by <@{GM}>)."
    assert "→" not in public["content"] and not public.get("flags", 0) & 64  # in the channel, no numbers
    assert private["flags"] & 64 and private["content"].startswith("**Ogre**: 30 → **22** hp of 30")
    assert await hit_points(database, number, int(gm.guild_id or 0)) == 22
