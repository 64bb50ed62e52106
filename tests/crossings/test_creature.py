"""One creature, in a fight or out of it (#25): what an attack reads about a character is its sheet either way.

A character added to a fight keeps its damage reduction, critical immunity, Uncanny Dodge, suits and screens;
the fight supplies only what is the fight's: flat-footed until its first turn begins (SRD, Initiative:
Flat-Footed), and its hit points or Stamina as the fight holds them. The invariant tests run the same attack
(its odds, and one roll with forced dice) against the same character outside the fight and inside it, and
compare what the user sees.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from bot.db.engine import Database
from bot.local.driver import Exchange, LocalDiscord
from bot.rules import encounter as rules
from tests.dice_sources import ScriptedDice
from tests.helpers import BOB as PLAYER
from tests.helpers import fields, ok, sheet, stored, tracker_of

pytestmark = pytest.mark.usefixtures("full_answers")

RED = 0xE74C3C
OTHER = "300000000000000009"  # a channel of the test server with no fight
SKELETON = "dex=12 natural=2 hp=13/13 immune=true dr=5/bludgeoning"  # SRD human warrior skeleton, sturdier
SCIMITAR = {"attack_bonus": 6, "damage": "1d6+2", "crit": "19-20/x2"}  # a skeleton's own scimitar, say


async def fight(local: LocalDiscord, ruleset: str, number: str, *, extra: dict[str, Any]) -> None:
    """A fight here with the character in it, and a quick creature that wins initiative (dice forced)."""
    ok(await local.command("encounter start", {"ruleset": ruleset, "name": "Crypt"}))
    ok(await local.command("encounter add", {"character": number}))
    ok(await local.command("encounter add", {"name": "Lurker", "hp": 50, **extra}))


def odds_seen(exchange: Exchange) -> tuple[str, dict[str, str]]:
    """What an odds answer says of the attack's numbers: its description and its fields."""
    assert exchange.rejected == [] and exchange.embed.get("color") != RED, exchange.embed
    return exchange.embed["description"], fields(exchange)


def roll_seen(exchange: Exchange) -> tuple[str, dict[str, str]]:
    """What a roll's answer says: the outcome, the damage, every step (the fight's own notes left out)."""
    assert exchange.rejected == [], exchange.requests
    if exchange.embed.get("color") == RED:
        return f"{exchange.embed['title']}: {exchange.embed['description']}", {}
    shown = {name: value for name, value in fields(exchange).items() if name != "Notes"}
    return exchange.embed["description"], shown


# -- the findings, each by name ---------------------------------------------------------------------


async def test_a_skeleton_in_a_fight_keeps_its_critical_immunity_and_damage_reduction(local: LocalDiscord) -> None:
    skeleton = await sheet(local, "dnd35", "Skeleton", SKELETON)
    outside = await local.command("dnd odds", {"target": "Skeleton", "flat_footed": True, **SCIMITAR})
    assert "confirmed critical **0.0%**" in outside.embed["description"], outside.embed
    assert "Expected damage **0.75**" in outside.embed["description"], outside.embed
    await fight(local, "dnd35", skeleton, extra={"ac": 10})
    fought = await local.command("dnd odds", {"target": "Skeleton", **SCIMITAR})  # flat-footed: no turn yet
    assert "confirmed critical **0.0%**" in fought.embed["description"], fought.embed
    assert "Expected damage **0.75**" in fought.embed["description"], fought.embed
    assert "vs flat-footed AC 12" in fields(fought)["The attack"], fields(fought)
    taken = []
    for d20, d6 in ((15, 5), (10, 6), (19, 5)):  # 19 threatens: the skeleton is immune, no confirmation is rolled
        local.bot.dice = ScriptedDice([d20, d6])
        hit = await local.command("dnd attack", {"target": "Skeleton", **SCIMITAR})
        assert hit.embed.get("color") != RED, hit.embed
        note = hit.messages[-1]["embeds"][0]
        assert note["title"] == "The fight", note
        taken.append(note["description"])
    assert taken == ["Skeleton: 13 → 11 hp", "Skeleton: 11 → 8 hp", "Skeleton: 8 → 6 hp"]  # 7, 8, 7 less DR 5


async def test_sneak_attack_on_an_uncanny_dodge_combatant_is_refused_as_outside_the_fight(
    local: LocalDiscord,
) -> None:
    await sheet(local, "dnd35", "Vex", "bab=4 dex=16 rogue_level=3", actor=PLAYER)
    ok(await local.command("character weapon add", {"character": "Vex", "name": "Rapier"}, actor=local.as_user(PLAYER)))
    wary = await sheet(local, "dnd35", "Wary", "dex=16 uncanny_dodge=true")
    sneak = {"character": "Vex", "target": "Wary", "situation": "sneak attack"}
    outside = await local.command("dnd odds", {**sneak, "flat_footed": True}, actor=local.as_user(PLAYER))
    assert outside.embed["color"] == RED and "Sneak attack needs" in outside.embed["description"], outside.embed
    await fight(local, "dnd35", wary, extra={"ac": 10})
    fought = await local.command("dnd odds", sneak, actor=local.as_user(PLAYER))
    assert fought.embed["color"] == RED and "Sneak attack needs" in fought.embed["description"], fought.embed


async def test_a_star_frontiers_attacker_s_wounds_are_read_from_the_fight(local: LocalDiscord) -> None:
    await sheet(local, "sf", "Kel", "rs=55 dex=60 str=50 stamina=50 current_stamina=50 beam=4", actor=PLAYER)
    gunner = local.as_user(PLAYER)
    ok(await local.command("character weapon add", {"character": "Kel", "name": "laser pistol"}, actor=gunner))
    ok(await local.command("encounter start", {"ruleset": "sf", "name": "Port Loren"}))
    ok(await local.command("encounter join", actor=gunner))
    ok(await local.command("encounter add", {"name": "Sathar", "hp": 30, "rs": 40}))
    local.bot.dice = ScriptedDice([10, 10, 10, 10, 4])  # a hit, 4d10 = 34
    sathar = {"score": 60, "skill": 2, "damage": "4d10", "distance": "short", "name": "Sathar"}
    hurt = await local.command("sf shoot", {**sathar, "target": "Kel"})
    assert hurt.messages[-1]["embeds"][0]["description"].startswith("Kel: 50 → 16 hp"), hurt.messages[-1]
    shot = {"character": "Kel", "weapon": "laser pistol", "setting": 2, "distance": 5, "target": "Sathar"}
    odds = await local.command("sf odds shoot", shot, actor=gunner)
    steps = "\n".join([odds.embed["description"], *fields(odds).values()])
    assert "Attacker wounded **-10**: Stamina 16 of 50, half or less" in steps, steps


async def test_flat_footed_ends_when_the_combatant_s_first_turn_begins(local: LocalDiscord) -> None:
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    ok(await local.command("encounter add", {"name": "Goblin", "count": 2, "hp": 6, "ac": 15, "initiative": 1}))
    local.bot.dice = ScriptedDice([18, 3])  # Goblin 1 first, then Goblin 2
    board = tracker_of(await local.command("encounter next"))
    assert "**Goblin 1**'s turn" in board["description"], board
    assert "Goblin 1** `██████████` 6/6 hp · flat-footed" not in board["description"], board["description"]
    assert "Goblin 2** `██████████` 6/6 hp · flat-footed" in board["description"], board["description"]
    on_its_turn = await local.command("dnd odds", {"target": "Goblin 1", "attack_bonus": 5, "damage": "1d8"})
    assert "vs AC 15" in fields(on_its_turn)["The attack"], fields(on_its_turn)
    waiting = await local.command("dnd odds", {"target": "Goblin 2", "attack_bonus": 5, "damage": "1d8"})
    assert "vs flat-footed AC 15" in fields(waiting)["The attack"], fields(waiting)


async def test_flat_footed_given_holds_on_a_combatant_that_has_acted(local: LocalDiscord) -> None:
    rogue = await sheet(local, "dnd35", "Rogue", "dex=16 armor_bonus=2")  # AC 15, flat-footed 12
    await fight(local, "dnd35", rogue, extra={"ac": 10, "initiative": 40})
    local.bot.dice = ScriptedDice([1, 20])  # the Rogue 1 + 3 Dex, the Lurker 20 + 40: the Lurker first
    ok(await local.command("encounter next"))
    ok(await local.command("encounter next"))  # the Rogue's turn
    ok(await local.command("encounter next"))  # round 2: the Rogue has acted
    local.bot.dice = ScriptedDice([10, 3])
    given = {"target": "Rogue", "attack_bonus": 3, "damage": "1d6", "flat_footed": True}
    attack = await local.command("dnd attack", given)
    assert "vs flat-footed AC 12 → hit" in fields(attack)["Attack roll"], fields(attack)
    local.bot.dice = ScriptedDice([10, 3])
    quick = await local.command("dnd attack", {**given, "target": "Lurker"})
    assert "flat-footed AC 10: given as flat-footed" in fields(quick)["Attack roll"], fields(quick)


async def test_a_character_named_by_number_in_the_fight_is_the_combatant(local: LocalDiscord) -> None:
    for other in ("Bones", "Dust"):  # the skeleton's number is then no combatant's number (`#1` names combatant 1)
        await sheet(local, "dnd35", other, "dex=10")
    skeleton = await sheet(local, "dnd35", "Skeleton", SKELETON)
    assert int(skeleton[1:]) > 2  # the fight below numbers its two combatants 1 and 2
    await fight(local, "dnd35", skeleton, extra={"ac": 10})
    local.bot.dice = ScriptedDice([15, 5])
    hit = await local.command("dnd attack", {"target": skeleton, **SCIMITAR})
    assert "Flat-footed: Skeleton has not had its first turn in this fight yet." in fields(hit)["Notes"], fields(hit)
    assert hit.messages[-1]["embeds"][0]["description"] == "Skeleton: 13 → 11 hp", hit.messages[-1]


# -- the invariant: the same character, the same attack, in the fight and out of it --------------------------

AC_SHEET = "dex=14 armor=light armor_bonus=4 shield=light shield_bonus=1 natural=3 deflection=1 dodge=1"
DND_DEFENDERS = {
    "armor class": AC_SHEET,
    "damage reduction": f"{AC_SHEET} dr=5/bludgeoning",
    "critical immunity": f"{AC_SHEET} immune=true",
    "uncanny dodge": f"{AC_SHEET} uncanny_dodge=true",
}
DND_ATTACKS: dict[str, dict[str, Any]] = {
    "normal": {},
    "touch": {"touch": True},
    "sneak attack": {"situation": "sneak attack"},
    "sneak attack, flanking": {"situation": "sneak attack flanking"},
}
# The fight's moment, and the same moment outside it: before its first turn it is flat-footed.
MOMENTS = {
    "before its first turn": (1, {"flat_footed": True}, {}),
    "on its own turn": (2, {}, {}),
    "after its turn": (3, {}, {}),
    "after its turn, given flat-footed": (3, {"flat_footed": True}, {"flat_footed": True}),
}
DICE = [19, 6, 5, 4, 6, 5, 4, 6, 5, 4, 6, 5, 4]  # a threat, then d6 faces (any later die takes them)


@pytest.mark.parametrize("defender", DND_DEFENDERS)
@pytest.mark.parametrize("moment", MOMENTS)
async def test_a_dnd_character_is_the_same_defender_in_a_fight_and_out_of_it(
    local: LocalDiscord, defender: str, moment: str
) -> None:
    player = local.as_user(PLAYER)
    await sheet(local, "dnd35", "Vex", "bab=4 str=12 dex=16 rogue_level=3 weapon_groups=martial", actor=PLAYER)
    ok(await local.command("character weapon add", {"character": "Vex", "name": "Rapier"}, actor=player))
    target = await sheet(local, "dnd35", "Target", DND_DEFENDERS[defender])
    nexts, outside_given, inside_given = MOMENTS[moment]

    async def seen(given: dict[str, Any]) -> dict[str, Any]:
        shown = {}
        for name, attack in DND_ATTACKS.items():
            options = {"character": "Vex", "target": "Target", **attack, **given}
            shown[f"odds {name}"] = roll_seen(await local.command("dnd odds", options, actor=player))
            for command in ("dnd attack", "dnd full-attack"):
                local.bot.dice = ScriptedDice(DICE)
                shown[f"{command} {name}"] = roll_seen(await local.command(command, options, actor=player))
        return shown

    outside = await seen(outside_given)
    await fight(local, "dnd35", target, extra={"ac": 10, "initiative": 40})
    local.bot.dice = ScriptedDice([1, 20])  # the Target 1 + 2 Dex, the Lurker 20 + 40: the Lurker first
    for _ in range(nexts):
        ok(await local.command("encounter next"))
    inside = await seen(inside_given)
    assert inside == outside
    assert any("Critical" in text or "Hit" in text for text, _ in inside.values())  # the attacks reach it


SF_DEFENDERS = {
    "no defense": "stamina=50 current_stamina=37",
    "albedo suit and skeinsuit": 'stamina=50 current_stamina=37 "defenses=albedo suit, skeinsuit"',
    "inertia screen": 'stamina=50 current_stamina=37 "defenses=inertia screen"',
}
# The stun first: its avoidance roll reads the target's Stamina, which the fight's hits then take down.
SF_SHOTS: dict[str, tuple[str, dict[str, Any]]] = {
    "stun": ("sf shoot", {"score": 60, "skill": 2, "damage": "1d10", "distance": "short", "setting": "stun"}),
    "laser": ("sf shoot", {"score": 60, "skill": 2, "damage": "2d10 laser", "distance": "short"}),
    "needler": ("sf shoot", {"score": 60, "skill": 2, "damage": "2d10 needle", "distance": "short"}),
    "sword": ("sf melee", {"score": 60, "skill": 2, "damage": "2d10 ballistic"}),
}


@pytest.mark.parametrize("defender", SF_DEFENDERS)
async def test_a_star_frontiers_character_is_the_same_target_in_a_fight_and_out_of_it(
    local: LocalDiscord, database: Database, defender: str
) -> None:
    target = await sheet(local, "sf", "Target", SF_DEFENDERS[defender])
    gunner = await sheet(local, "sf", "Kel", "rs=55 dex=60 str=50 stamina=50 current_stamina=20 beam=4", actor=PLAYER)
    player = local.as_user(PLAYER)
    ok(await local.command("character weapon add", {"character": "Kel", "name": "laser pistol"}, actor=player))
    ok(await local.command("encounter start", {"ruleset": "sf", "name": "Port Loren"}))
    ok(await local.command("encounter add", {"character": target}))
    ok(await local.command("encounter join", {"character": gunner, "side": "party"}, actor=player))
    # Outside the fight: the same server, another channel, where no fight runs.
    gm_outside, player_outside = (dataclasses.replace(a, channel_id=OTHER) for a in (local.actor, player))
    shot = {"character": "Kel", "weapon": "laser pistol", "setting": 4, "distance": 5}
    attacks = [*SF_SHOTS.values(), ("sf shoot", shot)]
    for command, options in attacks:
        for what in (command.replace("sf ", "sf odds "), command):
            who = (player_outside, player) if "character" in options else (gm_outside, local.actor)
            seen = []
            for actor in who:  # outside first: a hit there changes nothing until Apply damage is pressed
                local.bot.dice = ScriptedDice([10, 9, 8, 7, 6, 5, 4])
                seen.append(roll_seen(await local.command(what, {**options, "target": "Target"}, actor=actor)))
            outside, inside = seen
            assert inside == outside, (what, options)
            # The fight took the hit: undone, the next attack meets the character's Stamina again, as outside.
            if rules.find(await stored(database), "Target").hp != 37:
                ok(await local.command("encounter undo"))
            assert rules.find(await stored(database), "Target").hp == 37
