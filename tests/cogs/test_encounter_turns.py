"""Turns that flow (#28 item 1): one pinned tracker edited in place, a short turn message that pings its player,
whoever cannot act passed with the reason, and an undo that names what it undid and never rewinds a turn after a
miss (#28 item 5)."""

from __future__ import annotations

import dataclasses
from typing import Any

import discord

from bot.db.engine import Database
from bot.local.double import MANAGE_MESSAGES
from bot.local.driver import DEFAULT_CHANNEL, Exchange, LocalDiscord
from bot.rules import encounter as rules
from bot.ui import encounter as ui
from bot.ui.embeds import phone_lines
from bot.ui.encounter import TURN_LINES
from tests.dice_sources import NoDice, ScriptedDice
from tests.helpers import BOB as PLAYER
from tests.helpers import buttons, character, ok, stored, whose_turn


def turn_lines(message: dict[str, Any]) -> int:
    """Phone lines of a turn message: its text, then its embed."""
    content = 1 if message.get("content") else 0
    return content + phone_lines(discord.Embed.from_dict(message["embeds"][0]))


def tracker_edits(exchange: Exchange) -> list[dict[str, Any]]:
    """The edits of an earlier message (the channel's tracker) an exchange made."""
    return [r.body for r in exchange.requests if r.method == "PATCH" and r.path.startswith("/channels/")]


async def cave(local: LocalDiscord) -> dict[str, Any]:
    """A D&D fight: the player's Aria (Dex 16, Improved Initiative) and two goblins; the tracker's message."""
    player = local.as_user(PLAYER)
    start = await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"})
    ok(start)
    await character(local, "dnd35", "Aria", actor=player, dexterity=16, hit_points=12, max_hit_points=12)
    ok(await local.command("encounter join", {"improved_initiative": True}, actor=player))
    ok(await local.command("encounter add", {"name": "Goblin", "count": 2, "hp": 6, "ac": 15, "initiative": 1}))
    return local.original(start)


async def test_next_posts_a_short_turn_message_that_pings_only_its_player_and_edits_the_one_tracker(
    local: LocalDiscord, database: Database
) -> None:
    tracker = await cave(local)
    # Aria 12 + 3 + 4 = 19, Goblin 1 11 + 1 = 12, Goblin 2 14 + 1 = 15.
    local.bot.dice = ScriptedDice([12, 11, 14])  # type: ignore[attr-defined]
    first = await local.command("encounter next")
    assert first.rejected == []
    [message] = first.messages  # the turn message only: no tracker posted again
    assert message["content"] == f"<@{PLAYER}>, your turn."
    assert message["allowed_mentions"] == {"parse": [], "users": [int(PLAYER)]}
    assert message["embeds"][0]["title"] == "Round 1 · Aria's turn" and turn_lines(message) <= TURN_LINES
    assert list(buttons(message)) == ["Next"]
    # The tracker posted at the start was edited in place: the order, the initiative, whose turn.
    [edited] = tracker_edits(first)
    assert "Round **1** · **Aria**'s turn" in edited["embeds"][0]["description"]
    assert "Aria: d20 12 + 3 Dex + 4 Improved Initiative = **19**" in edited["embeds"][0]["fields"][0]["value"]
    assert local.double.messages[tracker["id"]]["embeds"][0] == edited["embeds"][0]

    # The player presses Next on the turn message: a new turn message, for the goblin: it pings nobody.
    local.bot.dice = NoDice()  # type: ignore[attr-defined]
    pressed = await local.click(local.original(first), buttons(message)["Next"], actor=local.as_user(PLAYER))
    assert pressed.response["type"] == 4  # a new message, so that the next player is pinged
    [goblin] = pressed.messages
    assert goblin["embeds"][0]["title"] == "Round 1 · Goblin 2's turn" and not goblin.get("content")
    assert goblin["allowed_mentions"] == {"parse": []}
    assert "**Goblin 2**'s turn" in tracker_edits(pressed)[0]["embeds"][0]["description"]
    # The old turn message's Next is stale: pressing it again passes nothing and says so privately.
    again = await local.click(local.original(first), buttons(message)["Next"], actor=local.as_user(PLAYER))
    assert again.ephemeral and "Someone already moved the fight on" in again.embed["description"]
    assert whose_turn(await stored(database)) == (1, "Goblin 2")


async def test_the_tracker_is_pinned_where_the_bot_may_and_quietly_not_where_it_may_not(local: LocalDiscord) -> None:
    refused = await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"})
    ok(refused)  # no Manage Messages: the bot does not ask (Discord would refuse it), and nobody is told
    pins = [r for r in local.double.requests if "/pins/" in r.path]
    assert pins == [] and local.double.pins == {}
    ok(await local.command("encounter end"))
    local.double.bot_permissions |= MANAGE_MESSAGES
    started = await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"})
    assert local.double.pins == {DEFAULT_CHANNEL: [local.original(started)["id"]]}
    # The tracker posted again by `show` is the one pinned now: one tracker pinned, never a pile of them.
    shown = await local.command("encounter show")
    assert local.double.pins == {DEFAULT_CHANNEL: [local.original(shown)["id"]]}


async def test_a_deleted_tracker_is_posted_again_under_the_turn_message(local: LocalDiscord) -> None:
    tracker = await cave(local)
    del local.double.messages[tracker["id"]]
    local.bot.dice = ScriptedDice([12, 11, 14])  # type: ignore[attr-defined]
    first = await local.command("encounter next")
    turn, posted = first.messages
    assert turn["embeds"][0]["title"] == "Round 1 · Aria's turn"
    assert "Round **1** · **Aria**'s turn" in posted["embeds"][0]["description"]
    local.bot.dice = NoDice()  # type: ignore[attr-defined]
    second = await local.command("encounter next")
    assert len(second.messages) == 1 and len(tracker_edits(second)) == 1  # the new one is edited from now on


async def test_who_cannot_act_is_passed_and_the_turn_message_says_why(local: LocalDiscord, database: Database) -> None:
    await cave(local)
    ok(await local.command("encounter add", {"name": "Ogre", "hp": 30, "ac": 11, "initiative": -1}))
    local.bot.dice = ScriptedDice([12, 11, 14, 2])  # type: ignore[attr-defined]
    ok(await local.command("encounter next"))  # Aria 19, Goblin 2 15, Goblin 1 12, Ogre 1
    ok(await local.command("encounter condition", {"combatant": "Goblin 2", "name": "stunned", "rounds": 1}))
    ok(await local.command("encounter hp", {"combatant": "Goblin 1", "amount": "=-3"}))
    # Aria's turn ends: Goblin 2 (stunned) and Goblin 1 (dying: d% 47, not stable, -3 -> -4) are passed.
    local.bot.dice = ScriptedDice([47])  # type: ignore[attr-defined]
    passing = await local.command("encounter next", actor=local.as_user(PLAYER))
    [message] = passing.messages
    embed = message["embeds"][0]
    assert embed["title"] == "Round 1 · Ogre's turn"
    assert embed["description"] == "Passed: Goblin 2 (stunned); Goblin 1 (dying, d% 47: -3 → -4 hp)"
    assert turn_lines(message) <= TURN_LINES
    fight = await stored(database)
    assert whose_turn(fight) == (1, "Ogre") and [(c.name, c.hp) for c in fight.combatants][2] == ("Goblin 1", -4)
    assert [c.conditions for c in fight.combatants if c.name == "Goblin 2"] == [()]  # its 1 round of stun is over
    # Next round, d% 07: Goblin 1 stabilizes and loses nothing; Goblin 2 acts again.
    local.bot.dice = ScriptedDice([7])  # type: ignore[attr-defined]
    ok(await local.command("encounter next"))  # Ogre ends: round 2, Aria
    ok(await local.command("encounter next", actor=local.as_user(PLAYER)))  # Aria ends: Goblin 2 acts
    local.bot.dice = ScriptedDice([7])  # type: ignore[attr-defined]
    stable = await local.command("encounter next")  # Goblin 2 ends: Goblin 1's turn comes, d% 07
    assert stable.messages[0]["embeds"][0]["description"] == "Passed: Goblin 1 (dying, d% 7: stable)"
    assert [(c.hp, [k.name for k in c.conditions]) for c in (await stored(database)).combatants][2] == (-4, ["stable"])


async def test_undo_names_what_it_undid(local: LocalDiscord, database: Database) -> None:
    await cave(local)
    local.bot.dice = ScriptedDice([12, 11, 14])  # type: ignore[attr-defined]
    ok(await local.command("encounter next"))
    local.bot.dice = ScriptedDice([15, 5])  # type: ignore[attr-defined]  # 15 + 5 = 20 vs AC 15: a hit, 5 damage
    hit = await local.command(
        "dnd attack",
        {"target": "Goblin 1", "attack_bonus": 5, "damage": "1d6", "name": "Aria's longsword"},
        actor=local.as_user(PLAYER),
    )
    assert hit.messages[-1]["embeds"][0]["description"] == "Goblin 1: 6 → 1 hp"
    undone = ok(await local.command("encounter undo"))
    assert undone["description"] == "Undid: Goblin 1: 6 → 1 hp (Aria's longsword: attack 1d6)."
    assert [c.hp for c in (await stored(database)).combatants if c.name == "Goblin 1"] == [6]
    undone = ok(await local.command("encounter undo"))
    assert undone["description"] == "Undid: initiative rolled: round 1 began with Aria."
    assert not (await stored(database)).begun


async def test_undo_after_a_miss_does_not_rewind_the_turn_before_it(local: LocalDiscord, database: Database) -> None:
    await cave(local)
    local.bot.dice = ScriptedDice([12, 11, 14])  # type: ignore[attr-defined]
    ok(await local.command("encounter next"))
    ok(await local.command("encounter next", actor=local.as_user(PLAYER)))  # Goblin 2's turn
    local.bot.dice = ScriptedDice([2])  # type: ignore[attr-defined]  # a miss: nothing changes
    miss = await local.command(
        "dnd attack", {"target": "Aria", "attack_bonus": 2, "damage": "1d6", "name": "Goblin 2's spear"}
    )
    assert len(miss.messages) == 1
    refused = await local.command("encounter undo")
    assert refused.ephemeral and refused.embed["description"] == (
        "Nothing to undo: the last roll here, Goblin 2's spear: attack 1d6 at Aria, changed nothing in the fight. "
        "`/encounter undo` again takes back the change before it: the turn passed from Aria to Goblin 2 (round 1)."
    )
    assert whose_turn(await stored(database)) == (1, "Goblin 2")
    # Told once: the game master who meant the turn undoes it.
    again = ok(await local.command("encounter undo"))
    assert again["description"] == "Undid: the turn passed from Aria to Goblin 2 (round 1)."
    assert whose_turn(await stored(database)) == (1, "Aria")


async def test_a_change_after_the_miss_is_undone_at_once(local: LocalDiscord, database: Database) -> None:
    await cave(local)
    local.bot.dice = ScriptedDice([12, 11, 14, 2])  # type: ignore[attr-defined]
    ok(await local.command("encounter next"))
    ok(await local.command("dnd attack", {"target": "Aria", "attack_bonus": 2, "damage": "1d6", "name": "Spear"}))
    ok(await local.command("encounter hp", {"combatant": "Goblin 2", "amount": "-2"}))
    undone = ok(await local.command("encounter undo"))
    assert undone["description"] == "Undid: Goblin 2: 6 → 4 hp."


def test_a_turn_message_keeps_to_four_phone_lines_however_many_are_passed() -> None:
    fight = rules.new_encounter("dnd35", "Cave", 1)
    goblins = [
        dataclasses.replace(
            rules.combatant("dnd35", f"Goblin {n}", owner_id=1, side=rules.Side.FOES, hp=6, max_hp=6), hp=-12
        )
        for n in range(1, 9)
    ]
    aria = rules.combatant("dnd35", "Aria", owner_id=int(PLAYER), side=rules.Side.PARTY, hp=9, max_hp=9, character_id=7)
    begun = rules.begin(
        rules.add(fight, [aria, *goblins], NoDice()), ScriptedDice([20, 2, 3, 4, 5, 6, 7, 8, 9]), NoDice()
    )
    turn = rules.advance_turn(begun, NoDice(), NoDice())  # every goblin is passed: round 2, Aria again
    assert len(turn.passed) == 8 and turn.encounter.current is not None
    shown = ui.turn_message(turn)
    lines = (1 if shown.content else 0) + phone_lines(shown.embed)
    assert lines <= TURN_LINES and shown.mention == int(PLAYER)
    # Passed for one reason, the neighbours are one part: as many names as the lines hold, then how many more.
    text = shown.embed.description or ""
    assert text.startswith("Passed: Goblin 8, Goblin 7") and text.endswith("more (the tracker shows them)"), text


def test_a_hidden_dying_creature_s_check_shows_no_hit_points() -> None:
    fight = rules.new_encounter("dnd35", "Cave", 1, hide_hp=True)
    ogre = dataclasses.replace(
        rules.combatant("dnd35", "Ogre", owner_id=1, side=rules.Side.FOES, hp=30, max_hp=30, hidden=True), hp=-3
    )
    aria = rules.combatant("dnd35", "Aria", owner_id=2, side=rules.Side.PARTY, hp=9, max_hp=9, modifiers=())
    lira = rules.combatant("dnd35", "Lira", owner_id=2, side=rules.Side.PARTY, hp=9, max_hp=9)
    begun = rules.begin(rules.add(fight, [aria, ogre, lira], NoDice()), ScriptedDice([20, 10, 1]), NoDice())
    turn = rules.advance_turn(begun, NoDice(), ScriptedDice([47]))
    text = ui.turn_message(turn).embed.description or ""
    assert text == "Passed: Ogre (dying, d% 47: loses 1 hp)" and "-4" not in text


async def test_a_delay_posts_the_turn_message_that_pings_whoever_has_the_turn_now(local: LocalDiscord) -> None:
    await cave(local)
    local.bot.dice = ScriptedDice([1, 18, 11])  # type: ignore[attr-defined]  # Goblin 1 19, Aria 8, Goblin 2 12
    ok(await local.command("encounter next"))
    delayed = await local.command("encounter delay", {"after": "Goblin 2"})  # the GM's goblin waits for the other
    assert delayed.rejected == []
    [message] = delayed.messages
    assert message["embeds"][0]["title"] == "Round 1 · Goblin 2's turn" and not message.get("content")
    assert message["embeds"][0]["description"] == "Goblin 1 delays to act after **Goblin 2**."
    assert list(buttons(message)) == ["Next"]
    local.bot.dice = NoDice()  # type: ignore[attr-defined]
    ok(await local.command("encounter next"))  # Goblin 2 ends its turn: Goblin 1 acts, then Aria
    delayed = await local.command("encounter delay")  # Goblin 1 waits once more, last this round: Aria's turn
    [message] = delayed.messages
    assert message["content"] == f"<@{PLAYER}>, your turn."
    assert message["allowed_mentions"] == {"parse": [], "users": [int(PLAYER)]}
    assert message["embeds"][0]["title"] == "Round 1 · Aria's turn" and turn_lines(message) <= TURN_LINES
