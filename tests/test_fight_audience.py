"""A fight's audience (#25 items 5 and 6): who runs a fight, what it shows them, and what a hidden attack changes.

Each test names the finding it guards; each fails on the code before its fix.
"""

from __future__ import annotations

import asyncio

from bot.db.engine import Database
from bot.local.driver import DEFAULT_GUILD, LocalDiscord
from bot.local.payloads import GM_ROLE, MANAGER_PERMISSIONS, Actor
from bot.rules import encounter as rules
from tests.dice_sources import ScriptedDice
from tests.test_encounter import GM, MANAGER, character, ok, state, stored, whose_turn
from tests.test_gm_role import name_gm_role
from tests.test_secrets import secret_ogre, text

PLAYER = "200000000000000002"
OTHER = "200000000000000003"
ROLE_MEMBER = "200000000000000020"


async def test_starting_a_fight_opens_no_other_owner_s_hidden_hit_points(local: LocalDiscord) -> None:
    """Finding: a player who types `/encounter start` first sees every secret number (#25 item 6)."""
    starter = local.as_user(PLAYER)
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}, actor=starter))
    ogre = await secret_ogre(local)  # the game master's secret ogre, 15 of 30 hit points
    manager = local.as_user(MANAGER, permissions=MANAGER_PERMISSIONS)
    ok(await local.command("encounter add", {"character": ogre}, actor=manager))
    ok(await local.command("encounter add", {"name": "Rat", "hp": 4, "hidden": True}, actor=starter))

    mine = await local.command("encounter show", {"private": True}, actor=starter)
    assert mine.ephemeral
    assert "15/30" not in text(mine) and "Ogre** badly hurt" in text(mine), text(mine)
    assert "4/4 hp" in text(mine)  # the starter's own quick creature: its numbers are theirs
    assert "hidden from you show as a health word" in text(mine)
    # A game master sees them, the starter's hidden rat too.
    theirs = await local.command("encounter show", {"private": True}, actor=manager)
    assert "15/30" in text(theirs) and "4/4 hp" in text(theirs) and "The game master's view" in text(theirs)
    # The owner of the ogre sees its numbers, as its owner.
    owner = await local.command("encounter show", {"private": True}, actor=local.as_user("200000000000000010"))
    assert "15/30" in text(owner) and "4/4 hp" not in text(owner)


async def test_the_starter_runs_the_fight_but_adds_only_their_own(local: LocalDiscord, database: Database) -> None:
    """Finding: whoever starts a fight is its game master, and adds any member's character (#25 item 6)."""
    starter, other = local.as_user(PLAYER), local.as_user(OTHER)
    ok(await local.command("encounter start", {"ruleset": "dnd35"}, actor=starter))
    await character(local, other, "dnd35", "Brom", hit_points=9, max_hit_points=14)
    refused = await local.command("encounter add", {"character": "#1"}, actor=starter)
    assert refused.ephemeral and refused.embed["title"] == "Not allowed", refused.embed
    assert "Brom" in refused.embed["description"]
    ok(await local.command("encounter add", {"name": "Goblin", "hp": 6}, actor=starter))  # their quick creature
    ok(await local.command("encounter join", actor=other))  # the owner brings it
    local.bot.dice = ScriptedDice([15, 5])
    ok(await local.command("encounter next", actor=starter))  # the starter runs the turns
    assert [name for name, _ in state(await stored(database))] == ["Goblin", "Brom"]


async def test_the_game_master_role_runs_a_fight_another_member_started(connected: LocalDiscord) -> None:
    """Finding: only the starter or Manage Server ran a fight; the server's game masters may run any (#25 item 6)."""
    local = connected
    await name_gm_role(local)
    ok(await local.command("encounter start", {"ruleset": "aliensrl"}, actor=local.as_user(PLAYER)))
    role_member = local.as_user(ROLE_MEMBER, roles=(GM_ROLE,))
    ok(await local.command("encounter add", {"name": "Drone", "count": 2, "hp": 5}, actor=role_member))
    ok(await local.command("encounter next", actor=role_member))
    member = await local.command("encounter end", actor=local.as_user(OTHER))
    assert member.ephemeral and member.embed["title"] == "Not allowed"
    ended = await local.command("encounter end", actor=role_member)
    assert ended.rejected == [] and "ended" in ended.embed["title"], ended.embed


async def test_a_server_lets_only_its_game_masters_start_a_fight(local: LocalDiscord) -> None:
    """Finding: any member can start a fight in any channel (#25 item 6): the `encounter.who` setting."""
    manager = local.as_user(MANAGER, permissions=MANAGER_PERMISSIONS)
    saved = await local.command("settings set", {"setting": "encounter.who", "value": "game-masters"}, actor=manager)
    assert saved.embed["title"] == "Setting saved", saved.embed
    refused = await local.command("encounter start", {"ruleset": "dnd35"}, actor=local.as_user(PLAYER))
    assert refused.ephemeral and refused.embed["title"] == "Not allowed"
    assert "`encounter.who`" in refused.embed["description"]
    ok(await local.command("encounter start", {"ruleset": "dnd35"}, actor=manager))
    ok(await local.command("settings set", {"setting": "encounter.who", "value": "anyone"}, actor=manager))
    elsewhere = Actor(user_id=PLAYER, guild_id=DEFAULT_GUILD, channel_id="300000000000000042")
    ok(await local.command("encounter start", {"ruleset": "dnd35"}, actor=elsewhere))  # `anyone`: as before


async def test_a_player_brings_at_most_the_cap_of_combatants(local: LocalDiscord, database: Database) -> None:
    """Finding: any member fills a fight with 25 of their own (#25 item 6): a cap of MAX_OWN_COMBATANTS."""
    cap = rules.MAX_OWN_COMBATANTS
    starter = local.as_user(PLAYER)
    ok(await local.command("encounter start", {"ruleset": "dnd35"}, actor=starter))
    ok(await local.command("encounter add", {"name": "Goblin", "count": cap - 1, "hp": 6}, actor=starter))
    over = await local.command("encounter add", {"name": "Orc", "count": 2, "hp": 6}, actor=starter)
    assert over.ephemeral and over.embed["title"] == "Too many combatants", over.embed
    assert f"at most {cap}" in over.embed["description"]
    await character(local, starter, "dnd35", "Aria", hit_points=8, max_hit_points=8)
    ok(await local.command("encounter join", actor=starter))  # the sixth
    again = await local.command("encounter add", {"name": "Orc", "hp": 6}, actor=starter)
    assert again.embed["title"] == "Too many combatants"
    manager = local.as_user(MANAGER, permissions=MANAGER_PERMISSIONS)
    ok(await local.command("encounter add", {"name": "Ogre", "count": 3, "hp": 30}, actor=manager))  # no cap
    assert len((await stored(database)).combatants) == cap + 3


async def test_two_next_commands_at_once_pass_one_turn(local: LocalDiscord, database: Database) -> None:
    """Finding: two game masters typing `/encounter next` at once pass two turns (#25 item 5)."""
    manager = local.as_user(MANAGER, permissions=MANAGER_PERMISSIONS)
    ok(await local.command("encounter start", {"ruleset": "aliensrl"}))
    ok(await local.command("encounter add", {"name": "Drone", "count": 3, "hp": 5}))
    ok(await local.command("encounter next"))
    both = await asyncio.gather(local.command("encounter next"), local.command("encounter next", actor=manager))
    encounter = await stored(database)
    assert whose_turn(encounter) == (1, "Drone 2") and encounter.steps == 2, whose_turn(encounter)
    refused = [e for e in both if "Someone already moved the fight on" in text(e)]
    assert len(refused) == 1 and refused[0].ephemeral
    # Typed one after the other, each Next passes a turn.
    ok(await local.command("encounter next", actor=manager))
    ok(await local.command("encounter next", actor=local.as_user(GM)))
    assert whose_turn(await stored(database)) == (2, "Drone 1")
