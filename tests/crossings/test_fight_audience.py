"""A fight's audience (#25 items 5 and 6): who runs a fight, what it shows them, and what a hidden attack changes.

Each test names the finding it guards; each fails on the code before its fix.
"""

from __future__ import annotations

import asyncio
import json

from bot.db.engine import Database
from bot.local.driver import DEFAULT_GUILD, LocalDiscord
from bot.local.payloads import GM_ROLE, MANAGER_PERMISSIONS, Actor
from bot.rules import encounter as rules
from tests.dice_sources import ScriptedDice
from tests.helpers import ALICE as GM
from tests.helpers import BOB as PLAYER
from tests.helpers import (
    GM_CHANNEL,
    MANAGER,
    MOD,
    ON_GOBLIN,
    buttons,
    character,
    described,
    gm_copy,
    goblin_fight,
    name_gm_role,
    ok,
    secret_ogre,
    set_gm_channel,
    state,
    stored,
    text,
    whose_turn,
)
from tests.helpers import MOD as OTHER

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
    await character(local, "dnd35", "Brom", actor=other, hit_points=9, max_hit_points=14)
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
    await character(local, "dnd35", "Aria", actor=starter, hit_points=8, max_hit_points=8)
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


async def test_a_hidden_attack_changes_nothing_the_table_sees_until_a_game_master_applies_it(
    local: LocalDiscord, database: Database
) -> None:
    """Finding: a hidden attack on a combatant updates the public tracker (Goblin 30 → 19 hp) (#25 item 6)."""
    await set_gm_channel(local)
    tracker = await goblin_fight(local)
    for private in (False, True):
        local.bot.dice = ScriptedDice([15, 8])  # 15 + 5 = 20 against flat-footed AC 10: a hit, 8 + 3 = 11
        attack = await local.command(
            "dnd attack", {**ON_GOBLIN, "hidden": True, "private": private}, actor=local.as_user(PLAYER)
        )
        assert attack.rejected == [], attack.requests
        assert not [r for r in attack.requests if r.method == "PATCH"], attack.requests  # the tracker is left alone
        assert "Goblin" not in text(attack) and "30 →" not in json.dumps(attack.messages)
        assert state(await stored(database)) == [("Goblin", 30)] and "30/30 hp" in described(tracker)
        copy = gm_copy(local)
        assert buttons(copy) == {"Apply the hit to Goblin": f"strike:{attack.payload['id']}"}, buttons(copy)
        if not private:
            # A player (the roller too) cannot apply it: the hidden roll is the game master's to tell.
            refused = await local.click(copy, buttons(copy)["Apply the hit to Goblin"], actor=local.as_user(PLAYER))
            assert refused.ephemeral and refused.embed["title"] == "Not allowed", refused.embed
            assert state(await stored(database)) == [("Goblin", 30)]
    game_master = Actor(user_id=MOD, guild_id=DEFAULT_GUILD, channel_id=GM_CHANNEL, permissions=MANAGER_PERMISSIONS)
    applied = await local.click(copy, buttons(copy)["Apply the hit to Goblin"], actor=game_master)
    assert applied.rejected == [], applied.requests
    assert applied.messages[-1]["embeds"][0]["description"] == "Goblin: 30 → 19 hp", applied.messages
    assert state(await stored(database)) == [("Goblin", 19)] and "19/30 hp" in described(tracker)
    assert buttons(gm_copy(local)) == {}  # the button is gone: applied once


async def test_a_private_attack_waits_for_its_roller_to_apply_it(local: LocalDiscord, database: Database) -> None:
    """Finding: a private attack on a combatant updates the public tracker at once (#25 item 6)."""
    tracker = await goblin_fight(local)
    local.bot.dice = ScriptedDice([15, 8])
    roller = local.as_user(PLAYER)
    attack = await local.command("dnd attack", {**ON_GOBLIN, "private": True}, actor=roller)
    assert attack.ephemeral and len(attack.messages) == 1, attack.messages  # no note of a change
    assert state(await stored(database)) == [("Goblin", 30)] and "30/30 hp" in described(tracker)
    answer = local.original(attack)
    custom_id = buttons(answer)["Apply the hit to Goblin"]
    other = await local.click(answer, custom_id, actor=local.as_user(OTHER))
    assert other.ephemeral and other.embed["title"] == "Not allowed"
    applied = await local.click(answer, custom_id, actor=roller)
    assert applied.rejected == [] and "Goblin: 30 → 19 hp" in text(applied.messages[-1]), applied.messages
    assert state(await stored(database)) == [("Goblin", 19)] and "19/30 hp" in described(tracker)
    # Two presses at once apply it once.
    local.bot.dice = ScriptedDice([15, 1])  # 1 + 3 = 4
    answer = local.original(await local.command("dnd attack", {**ON_GOBLIN, "private": True}, actor=roller))
    custom_id = buttons(answer)["Apply the hit to Goblin"]
    both = await asyncio.gather(
        local.click(answer, custom_id, actor=roller), local.click(answer, custom_id, actor=roller)
    )
    assert sum("Applied already" in json.dumps(e.messages) for e in both) == 1
    assert state(await stored(database)) == [("Goblin", 15)]


async def test_a_public_attack_still_strikes_at_once(local: LocalDiscord, database: Database) -> None:
    """The public roll acts as before: `changes_public` says it may."""
    tracker = await goblin_fight(local)
    local.bot.dice = ScriptedDice([15, 8])
    attack = await local.command("dnd attack", ON_GOBLIN)
    assert attack.messages[-1]["embeds"][0]["description"] == "Goblin: 30 → 19 hp"
    assert "Apply the hit" not in text(attack)
    assert "19/30 hp" in described(tracker)


async def test_a_private_aliensrl_bite_waits_too(local: LocalDiscord, database: Database) -> None:
    """Finding: a private attack updates the tracker at once, `/aliens melee` taking its own path (#25 item 6)."""
    ok(await local.command("encounter start", {"ruleset": "aliensrl", "name": "Hope"}))
    ok(await local.command("encounter add", {"name": "Hicks", "hp": 10, "rank": 2, "side": "party"}))
    tracker = local.original(await local.command("encounter show"))
    bite = await local.command("aliens melee", {"attacker": "warrior", "target": "Hicks", "private": True})
    assert bite.ephemeral and len(bite.messages) == 1 and "10/10 hp" in described(tracker)
    assert state(await stored(database)) == [("Hicks", 10)]
    answer = local.original(bite)
    applied = await local.click(answer, buttons(answer)["Apply the hit to Hicks"])
    assert "Hicks: 10 → 5 hp" in text(applied.messages[-1]), applied.messages
    assert state(await stored(database)) == [("Hicks", 5)] and "5/10 hp" in described(tracker)


async def test_a_waiting_hit_lands_on_nobody_after_its_combatant_or_its_fight_is_gone(
    local: LocalDiscord, database: Database
) -> None:
    """A waiting hit keeps its fight and its combatant's number: a newcomer who took the name is not hit."""
    await goblin_fight(local)
    local.bot.dice = ScriptedDice([15, 8, 15, 8])
    roller = local.as_user(PLAYER)
    first = local.original(await local.command("dnd attack", {**ON_GOBLIN, "private": True}, actor=roller))
    # The goblin leaves and another takes its name: the hit was not on it.
    ok(await local.command("encounter remove", {"combatant": "Goblin"}))
    ok(await local.command("encounter add", {"name": "Goblin", "hp": 30, "ac": 10}))
    missed = await local.click(first, buttons(first)["Apply the hit to Goblin"], actor=roller)
    assert missed.ephemeral and "no combatant **#1**" in text(missed), missed.messages
    assert state(await stored(database)) == [("Goblin", 30)]
    # A hit rolled in a fight that has ended waits in vain: the next fight here is another.
    second = local.original(await local.command("dnd attack", {**ON_GOBLIN, "private": True}, actor=roller))
    ok(await local.command("encounter end"))
    await goblin_fight(local)
    refused = await local.click(second, buttons(second)["Apply the hit to Goblin"], actor=roller)
    assert refused.ephemeral and "has ended" in text(refused), refused.messages
    assert state(await stored(database)) == [("Goblin", 30)]
