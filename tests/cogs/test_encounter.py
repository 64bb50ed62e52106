"""/encounter through the command tree: a short fight per ruleset, a restart, two presses at once, who may do what."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from sqlalchemy import select

from bot.client import DiceBot
from bot.db.encounters import EncounterRepository
from bot.db.engine import Database
from bot.db.models import RollLog
from bot.local.driver import DEFAULT_CHANNEL, DEFAULT_GUILD, LocalDiscord, local_discord
from bot.local.payloads import MANAGER_PERMISSIONS, Actor
from bot.rules import encounter as rules
from tests.dice_sources import NoDice, ScriptedDice
from tests.helpers import ALICE as GM
from tests.helpers import BOB as PLAYER
from tests.helpers import (
    MANAGER,
    buttons,
    character,
    conditions,
    described,
    forged,
    ok,
    state,
    stored,
    tracker_of,
    whose_turn,
)


async def test_a_dnd_fight_start_to_undo(local: LocalDiscord, database: Database) -> None:
    player = local.as_user(PLAYER)
    tracker = ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    assert tracker["title"] == "Cave · D&D 3.5" and "first **Next** rolls initiative" in tracker["description"]
    await character(local, "dnd35", "Aria", actor=player, dexterity=16, hit_points=12, max_hit_points=12)
    joined = ok(await local.command("encounter join", {"improved_initiative": True}, actor=player))
    assert joined["description"] == "Aria joined the fight."
    added = await local.command("encounter add", {"name": "Goblin", "count": 2, "hp": 6, "ac": 15, "initiative": 1})
    assert ok(added)["description"] == "Goblin 1, Goblin 2 joined the fight."

    # Aria 12 + 3 Dex + 4 = 19, Goblin 1 11 + 1 = 12, Goblin 2 14 + 1 = 15.
    local.bot.dice = ScriptedDice([12, 11, 14])  # type: ignore[attr-defined]
    first = await local.command("encounter next")
    ok(first)
    board = tracker_of(first)  # the tracker is edited in place; the answer is the turn message
    assert "Round **1** · **Aria**'s turn" in board["description"]
    assert "Aria: d20 12 + 3 Dex + 4 Improved Initiative = **19**" in board["fields"][0]["value"]
    encounter = await stored(database)
    assert state(encounter) == [("Aria", 12), ("Goblin 2", 6), ("Goblin 1", 6)]
    # Aria's turn has begun: she is no longer flat-footed (SRD); the goblins are until theirs begin.
    assert [rules.flat_footed(encounter, c) for c in encounter.combatants] == [False, True, True]

    # The player ends their own turn with the turn message's button: a new turn message, the tracker edited.
    local.bot.dice = NoDice()  # type: ignore[attr-defined]
    message = first.messages[0]
    pressed = await local.click(local.original(first), buttons(message)["Next"], actor=player)
    assert pressed.response["type"] == 4  # a new message, that pings whose turn it is
    assert pressed.messages[0]["embeds"][0]["title"] == "Round 1 · Goblin 2's turn"
    assert "Round **1** · **Goblin 2**'s turn" in tracker_of(pressed)["description"]
    encounter = await stored(database)
    assert whose_turn(encounter) == (1, "Goblin 2") and not rules.flat_footed(encounter, encounter.combatants[0])

    hurt = ok(await local.command("encounter hp", {"combatant": "goblin 2", "amount": "-7"}))
    assert hurt["description"] == "Goblin 2: 6 → -1 hp (dying)"
    refused = await local.command("encounter hp", {"combatant": "Goblin 1", "amount": "-3"}, actor=player)
    assert refused.ephemeral and refused.embed["title"] == "Not allowed"
    ok(await local.command("encounter condition", {"combatant": "Aria", "name": "shaken", "rounds": 1}, actor=player))

    ok(await local.command("encounter next"))  # Goblin 2 -> Goblin 1
    assert whose_turn(await stored(database)) == (1, "Goblin 1")
    ok(await local.command("encounter next"))  # round 2: Aria again, the order kept (D&D rolls once)
    encounter = await stored(database)
    assert whose_turn(encounter) == (2, "Aria") and state(encounter) == [
        ("Aria", 12),
        ("Goblin 2", -1),
        ("Goblin 1", 6),
    ]
    assert conditions(encounter.combatants[0]) == [("shaken", 1)]
    # Aria's turn ends: shaken runs out; the dying Goblin 2 is passed (d% 50: -1 -> -2), Goblin 1 acts.
    local.bot.dice = ScriptedDice([50])  # type: ignore[attr-defined]
    ok(await local.command("encounter next", actor=player))
    assert conditions(rules.find(await stored(database), "Aria")) == []
    assert whose_turn(await stored(database)) == (2, "Goblin 1")

    undone = ok(await local.command("encounter undo"))
    assert undone["description"] == "Undid: the turn passed from Aria to Goblin 1 (round 2)."
    assert whose_turn(await stored(database)) == (2, "Aria")
    ended = ok(await local.command("encounter end"))
    assert ended["title"] == "Cave ended after 2 round(s)"
    gone = await local.command("encounter show")
    assert gone.ephemeral and gone.embed["title"] == "No fight"

    async with database.read() as session:
        logged = (await session.scalars(select(RollLog).where(RollLog.command == "encounter next"))).all()
    assert [row.summary for row in logged] == ["Initiative, Cave round 1: Aria 19, Goblin 2 15, Goblin 1 12"]


async def test_a_star_frontiers_fight_rolls_by_side_every_round(local: LocalDiscord, database: Database) -> None:
    player = local.as_user(PLAYER)
    ok(await local.command("encounter start", {"ruleset": "sf", "name": "Port Loren"}))
    await character(local, "sf", "Kel", actor=player, reaction_speed=55, current_stamina=45, stamina=45)
    ok(await local.command("encounter join", actor=player))
    ok(await local.command("encounter add", {"name": "Sathar", "count": 2, "hp": 30, "rs": 40}))

    # Party d10 4 + IM 6 (Kel, RS 55) = 10, foes 5 + IM 4 = 9: the party first.
    local.bot.dice = ScriptedDice([4, 5])  # type: ignore[attr-defined]
    board = tracker_of(await local.command("encounter next"))
    assert "Party: d10 4 + 6 IM (RS 55 / 10, rounded up) = **10** (Kel's IM; best RS 55)" in board["fields"][0]["value"]
    encounter = await stored(database)
    assert [c.name for c in encounter.combatants] == ["Kel", "Sathar 1", "Sathar 2"]

    # An attack's stun and damage on Sathar 1, as /sf shoot target: will apply it (the store's apply_hit).
    async with database.write.begin() as session:
        _, change = await EncounterRepository(session).apply_hit(
            guild_id=int(DEFAULT_GUILD),
            channel_id=int(DEFAULT_CHANNEL),
            target="Sathar 1",
            hit=rules.Hit(damage=12, knockout_turns=2),
            now=local.bot.clock(),  # type: ignore[attr-defined]
        )
    assert change.summary == "Sathar 1: 30 → 18 hp, unconscious 2 turns"

    local.bot.dice = NoDice()  # type: ignore[attr-defined]
    # Kel's turn ends: Sathar 1's turn comes and passes (unconscious: 1 turn left), Sathar 2 acts.
    ok(await local.command("encounter next", actor=player))
    assert conditions(rules.find(await stored(database), "Sathar 1")) == [("unconscious", 1)]
    assert whose_turn(await stored(database)) == (1, "Sathar 2")
    # Round 2: foes 9 + 4 = 13 against the party's 1 + 6 = 7: the Sathar go first, Sathar 1 passed once more.
    local.bot.dice = ScriptedDice([1, 9])  # type: ignore[attr-defined]
    ok(await local.command("encounter next"))
    encounter = await stored(database)
    assert whose_turn(encounter) == (2, "Sathar 2") and conditions(rules.find(encounter, "Sathar 1")) == []
    assert state(encounter) == [("Sathar 1", 18), ("Sathar 2", 30), ("Kel", 45)]
    async with database.read() as session:
        logged = (
            await session.scalars(select(RollLog).where(RollLog.command == "encounter next").order_by(RollLog.id))
        ).all()
    assert [row.summary for row in logged] == [
        "Initiative, Port Loren round 1: party 10, foes 9",
        "Initiative, Port Loren round 2: foes 13, party 7",
    ]


async def test_star_frontiers_individually_as_a_server_setting(local: LocalDiscord, database: Database) -> None:
    manager = local.as_user(MANAGER, permissions=MANAGER_PERMISSIONS)
    ok(await local.command("settings set", {"setting": "sf.initiative", "value": "individual"}, actor=manager))
    ok(await local.command("encounter start", {"ruleset": "sf"}))
    ok(await local.command("encounter add", {"name": "Slow", "hp": 30, "rs": 31, "side": "party"}))
    ok(await local.command("encounter add", {"name": "Quick", "hp": 30, "rs": 40}))
    local.bot.dice = ScriptedDice([6, 6])  # type: ignore[attr-defined]
    ok(await local.command("encounter next"))  # both 6 + IM 4 = 10: the higher RS first
    assert [c.name for c in (await stored(database)).combatants] == ["Quick", "Slow"]


async def test_an_aliens_fight_in_entry_order_with_hidden_health(local: LocalDiscord, database: Database) -> None:
    player = local.as_user(PLAYER)
    ok(await local.command("encounter start", {"ruleset": "aliensrl", "name": "Hadley's Hope", "hide_hp": True}))
    ok(await local.command("encounter add", {"name": "Alien", "count": 2, "hp": 20, "rank": 1}))
    await character(local, "aliensrl", "Vasquez", actor=player, hit_points=14, max_hit_points=14)
    ok(await local.command("encounter join", actor=player))
    ok(await local.command("encounter move", {"combatant": "Vasquez", "position": 1}))
    local.bot.dice = NoDice()  # type: ignore[attr-defined]
    board = tracker_of(await local.command("encounter next"))  # no initiative: the order as it stands
    assert "Round **1** · **Vasquez**'s turn" in board["description"]
    hurt = ok(await local.command("encounter hp", {"combatant": "Alien 1", "amount": "-15"}))
    assert hurt["description"] == "Alien 1: badly hurt"  # the channel sees a word, not the numbers
    public = ok(await local.command("encounter show"))
    assert "**Alien 1** badly hurt" in public["description"] and "14/14 hp" in public["description"]
    secret = await local.command("encounter show", {"private": True})
    assert secret.ephemeral and "5/20 hp" in secret.embed["description"]
    killed = ok(await local.command("encounter hp", {"combatant": "Alien 2", "amount": "-20"}))
    assert killed["description"] == "Alien 2: dead"
    ok(await local.command("encounter next", actor=player))  # Vasquez -> Alien 1; Alien 2 is dead and skipped
    ok(await local.command("encounter next"))
    assert whose_turn(await stored(database)) == (2, "Vasquez")


async def test_a_restarted_bot_keeps_the_fight_and_its_next_button(
    make_bot: Callable[[], DiceBot], database: Database
) -> None:
    async with local_discord(make_bot) as first:
        ok(await first.command("encounter start", {"ruleset": "dnd35"}))
        ok(await first.command("encounter add", {"name": "Orc", "count": 2, "hp": 8, "initiative": 0}))
        first.bot.dice = ScriptedDice([15, 5])  # type: ignore[attr-defined]
        shown = await first.command("encounter next")
        tracker = first.original(shown)
    async with local_discord(make_bot) as second:
        second.bot.dice = NoDice()  # type: ignore[attr-defined]
        pressed = await second.click(tracker, buttons(tracker)["Next"])  # the turn message's
        # A new double never saw the tracker: its edit is refused (404), so it is posted again under the turn.
        assert [r.status for r in pressed.rejected] == [404] and pressed.response["type"] == 4
        assert "Round **1** · **Orc 2**'s turn" in pressed.messages[1]["embeds"][0]["description"]
        assert pressed.messages[0]["embeds"][0]["title"] == "Round 1 · Orc 2's turn"
    assert whose_turn(await stored(database)) == (1, "Orc 2")


async def test_two_next_presses_at_once_pass_one_turn(local: LocalDiscord, database: Database) -> None:
    manager = local.as_user(MANAGER, permissions=MANAGER_PERMISSIONS)
    ok(await local.command("encounter start", {"ruleset": "aliensrl"}))
    ok(await local.command("encounter add", {"name": "Drone", "count": 3, "hp": 5}))
    shown = await local.command("encounter next")
    tracker = local.original(shown)
    custom_id = buttons(tracker)["Next"]
    presses = await asyncio.gather(local.click(tracker, custom_id), local.click(tracker, custom_id, actor=manager))
    assert all(p.rejected == [] and p.response["type"] == 4 for p in presses)
    encounter = await stored(database)
    assert whose_turn(encounter) == (1, "Drone 2") and encounter.steps == 2
    notes = [p.messages[0]["embeds"][0].get("description", "") for p in presses]
    assert sum("Someone already moved the fight on" in n for n in notes) == 1


async def test_only_the_gm_or_the_owner_changes_the_fight(local: LocalDiscord, database: Database) -> None:
    player = local.as_user(PLAYER)
    manager = local.as_user(MANAGER, permissions=MANAGER_PERMISSIONS)
    ok(await local.command("encounter start", {"ruleset": "dnd35"}))
    for name, options in (
        ("encounter add", {"name": "Ogre", "hp": 30}),
        ("encounter undo", {}),
        ("encounter end", {}),
        ("encounter next", {}),
    ):
        refused = await local.command(name, options, actor=player)
        assert refused.ephemeral and refused.embed["title"] == "Not allowed", (name, refused.embed)
    ok(await local.command("encounter add", {"name": "Ogre", "hp": 30}, actor=manager))  # Manage Server is GM too
    refused = await local.command("encounter remove", {"combatant": "Ogre"}, actor=player)
    assert refused.embed["title"] == "Not allowed"
    assert state(await stored(database)) == [("Ogre", 30)]
    again = await local.command("encounter start", {"ruleset": "sf"}, actor=player)
    assert again.ephemeral and again.embed["title"] == "Already a fight"


async def test_another_channel_or_server_sees_nothing(local: LocalDiscord) -> None:
    ok(await local.command("encounter start", {"ruleset": "dnd35"}))
    ok(await local.command("encounter add", {"name": "Ogre", "hp": 30}))
    elsewhere = Actor(user_id=GM, guild_id=DEFAULT_GUILD, channel_id="300000000000000009")
    other_server = Actor(user_id=GM, guild_id="300000000000000077", channel_id=DEFAULT_CHANNEL)
    for actor in (elsewhere, other_server):
        seen = await local.command("encounter show", actor=actor)
        assert seen.ephemeral and seen.embed["title"] == "No fight"
        hurt = await local.command("encounter hp", {"combatant": "Ogre", "amount": "-5"}, actor=actor)
        assert hurt.embed["title"] == "No fight"
        suggested = await local.autocomplete("encounter hp", {"combatant": "O"}, "combatant", actor=actor)
        assert suggested.choices == []
    suggested = await local.autocomplete("encounter hp", {"combatant": "o"}, "combatant")
    assert suggested.choices == [{"name": "Ogre", "value": "Ogre"}]


async def test_the_gm_adds_a_member_s_character_and_players_leave(local: LocalDiscord, database: Database) -> None:
    player = local.as_user(PLAYER)
    ok(await local.command("encounter start", {"ruleset": "dnd35"}))
    await character(local, "dnd35", "Brom", actor=player, hit_points=9, max_hit_points=14)
    await character(local, "sf", "Zix", actor=player)
    wrong = await local.command("encounter join", {"character": "Zix"}, actor=player)
    assert wrong.ephemeral and "Star Frontiers character" in wrong.embed["description"]
    manager = local.as_user(MANAGER, permissions=MANAGER_PERMISSIONS)  # a game master adds a member's character
    ok(await local.command("encounter add", {"character": "#1", "improved_initiative": True}, actor=manager))
    encounter = await stored(database)
    brom = rules.find(encounter, "Brom")
    assert (brom.owner_id, brom.hp, brom.max_hp, brom.character_id) == (int(PLAYER), 9, 14, 1)
    assert [m.source for m in brom.modifiers] == ["Dex", "Improved Initiative"]
    again = await local.command("encounter join", actor=player)
    assert again.embed["title"] == "Already in"
    both = await local.command("encounter add", {"name": "Ogre", "character": "#1"})
    assert both.ephemeral and "one of the two" in both.embed["description"]
    ok(await local.command("encounter remove", {"combatant": "Brom"}, actor=player))  # the owner may leave
    assert (await stored(database)).combatants == ()


async def test_the_tracker_is_edited_after_a_hit_and_a_change_by_hand(local: LocalDiscord, database: Database) -> None:
    started = await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"})
    ok(started)
    tracker = local.original(started)
    ok(await local.command("encounter add", {"name": "Goblin", "count": 2, "hp": 6, "ac": 15, "initiative": 1}))
    local.bot.dice = ScriptedDice([15, 5])
    ok(await local.command("encounter next"))  # the tracker posted at the start is the one edited in place
    assert "6/6 hp" in described(tracker) and "5/6 hp" not in described(tracker)
    changed = await local.command("encounter hp", {"combatant": "Goblin 2", "amount": "-1"})
    assert [r.method for r in changed.requests][-1] == "PATCH", changed.requests  # the tracker, after the note
    assert "**Goblin 2** `████████░░` 5/6 hp" in described(tracker), described(tracker)
    # An attack's hit, applied after the roll is answered, brings the tracker up to date too.
    local.bot.dice = ScriptedDice([15, 4])  # d20 15 + 5 = 20 vs flat-footed AC 15; 1d8 4 + 0
    ok(await local.command("dnd attack", {"target": "Goblin 1", "attack_bonus": 5, "damage": "1d8"}))
    assert "**Goblin 1** `███░░░░░░░` 2/6 hp" in described(tracker), described(tracker)
    # A private view is the asker's alone: it never becomes the channel's tracker.
    private = local.original(await local.command("encounter show", {"private": True}))
    ok(await local.command("encounter condition", {"combatant": "Goblin 1", "name": "prone"}))
    assert "prone" in described(tracker) and "prone" not in described(private)
    # The tracker last posted is the one kept up to date (an older one's Next still passes the turn).
    newer = local.original(await local.command("encounter show"))
    ok(await local.command("encounter hp", {"combatant": "Goblin 1", "amount": "+1"}))
    assert "3/6 hp" in described(newer) and "3/6 hp" not in described(tracker)
    local.bot.dice = NoDice()
    await local.click(tracker, buttons(tracker)["Next"])
    ok(await local.command("encounter hp", {"combatant": "Goblin 2", "amount": "+1"}))
    assert "**Goblin 2** `██████████` 6/6 hp" in described(newer) and "6/6 hp" not in described(tracker)
    assert (await stored(database)).combatants[1].hp == 6


async def test_a_deleted_tracker_is_only_a_stale_picture(local: LocalDiscord, database: Database) -> None:
    ok(await local.command("encounter start", {"ruleset": "aliensrl"}))
    tracker = local.original(await local.command("encounter show"))
    local.double.messages.pop(tracker["id"])
    added = await local.command("encounter add", {"name": "Drone", "hp": 5})
    assert added.embed["description"] == "Drone joined the fight.", added.embed
    assert [(r.method, r.status) for r in added.requests][-1] == ("PATCH", 404)
    assert state(await stored(database)) == [("Drone", 5)]


async def test_an_ended_fight_s_next_passes_no_turn_of_the_channel_s_next_fight(
    local: LocalDiscord, database: Database
) -> None:
    """Each fight counts its turns from 0, so a Next that named only its turn passed the next fight's turns."""
    started = await local.command("encounter start", {"ruleset": "aliensrl", "name": "Hive"})
    tracker = local.original(started)  # the ended fight's tracker, with its Next
    ok(await local.command("encounter add", {"name": "Drone", "count": 2, "hp": 5}))
    ok(await local.command("encounter end"))
    ok(await local.command("encounter start", {"ruleset": "aliensrl", "name": "Crypt"}))
    ok(await local.command("encounter add", {"name": "Ghoul", "hp": 5}))
    before = await stored(database)
    pressed = await local.click(tracker, buttons(tracker)["Next"])
    assert pressed.ephemeral and pressed.embed["title"] == "Fight over", pressed.embed
    assert await stored(database) == before  # the new fight's turn did not pass
    older = await local.click(forged(tracker, "encounter:next:0"), "encounter:next:0")  # as made before the fix
    assert older.ephemeral and older.embed["title"] == "An old button", older.embed
    assert await stored(database) == before
