"""Turns that flow: who cannot act is passed with the reason, and D&D's dying roll d% each turn (SRD)."""

from __future__ import annotations

import dataclasses

from bot.rules import encounter as enc
from bot.rules.encounter import Condition, DyingCheck, Encounter, Health, Passed, Side
from bot.rules.health import read_change
from tests.dice_sources import NoDice, ScriptedDice

GM = 1


def dnd(name: str, dex: int, *, hp: int = 10, conditions: tuple[Condition, ...] = ()) -> enc.Combatant:
    made = enc.combatant(
        "dnd35",
        name,
        owner_id=GM,
        side=Side.FOES,
        hp=10,
        max_hp=10,
        modifiers=enc.dnd_modifiers(dex),
        stats={"ac": 12},
    )
    return dataclasses.replace(made, hp=hp, conditions=conditions)


def begun(*fighters: enc.Combatant) -> Encounter:
    """A D&D fight begun with every d20 a 10: the order is by Dex, the first listed first."""
    fight = enc.add(enc.new_encounter("dnd35", "Cave", GM), list(fighters), NoDice())
    return enc.begin(fight, ScriptedDice([10] * len(fighters)), NoDice())


def whose(encounter: Encounter) -> str | None:
    return encounter.current.name if encounter.current else None


def test_the_dead_stunned_and_paralyzed_are_passed_and_the_turn_says_why() -> None:
    fight = begun(
        dnd("Aria", 5),
        dnd("Goblin", 4, hp=-12),
        dnd("Sathar", 3, conditions=(Condition("stunned", 2),)),
        dnd("Ogre", 2, conditions=(Condition("Paralyzed"),)),
        dnd("Lira", 1),
    )
    turn = enc.advance_turn(fight, NoDice(), NoDice())
    assert whose(turn.encounter) == "Lira" and turn.encounter.round == 1
    assert [(p.name, p.why) for p in turn.passed] == [("Goblin", "dead"), ("Sathar", "stunned"), ("Ogre", "Paralyzed")]
    # Their turns came and went: the stun counts down, a condition without rounds stays.
    assert enc.find(turn.encounter, "Sathar").conditions == (Condition("stunned", 1),)
    assert enc.find(turn.encounter, "Ogre").conditions == (Condition("Paralyzed"),)
    # Lira's turn ends: a new round from the top, Aria acts; nobody before her is passed.
    again = enc.advance_turn(turn.encounter, NoDice(), NoDice())
    assert whose(again.encounter) == "Aria" and again.encounter.round == 2 and again.passed == ()
    # Aria's ends: the stun's last round passes with Sathar's turn, and the next time Sathar acts.
    third = enc.advance_turn(again.encounter, NoDice(), NoDice())
    assert [p.why for p in third.passed] == ["dead", "stunned", "Paralyzed"] and whose(third.encounter) == "Lira"
    assert enc.find(third.encounter, "Sathar").conditions == ()
    fourth = enc.advance_turn(enc.advance(third.encounter, NoDice(), NoDice()), NoDice(), NoDice())
    assert whose(fourth.encounter) == "Sathar" and [p.why for p in fourth.passed] == ["dead"]


def test_a_stunned_combatant_loses_exactly_its_turns_of_stun() -> None:
    fight = begun(dnd("Aria", 5), dnd("Sathar", 3), dnd("Lira", 1))
    # Aria stuns Sathar for 1 round in her turn: Sathar's next turn passes, the one after is its own.
    stunned = enc.set_condition(fight, enc.find(fight, "Sathar").number, "stunned", 1)
    turn = enc.advance_turn(stunned, NoDice(), NoDice())
    assert whose(turn.encounter) == "Lira" and [p.why for p in turn.passed] == ["stunned"]
    round_two = enc.advance(enc.advance(turn.encounter, NoDice(), NoDice()), NoDice(), NoDice())
    assert whose(round_two) == "Sathar" and round_two.round == 2


def test_disabled_at_zero_still_acts() -> None:
    fight = begun(dnd("Aria", 5), dnd("Ogre", 2, hp=0), dnd("Lira", 1))
    assert enc.health("dnd35", 0) is Health.DISABLED
    assert whose(enc.advance(fight, NoDice(), NoDice())) == "Ogre"


def test_a_dying_combatant_rolls_d100_on_its_turn_and_loses_one_hit_point_unless_stable() -> None:
    fight = begun(dnd("Aria", 5), dnd("Ogre", 2, hp=-3), dnd("Lira", 1))
    # d% 47: not stable, -3 -> -4 (SRD: "If he doesn't, he loses 1 hit point").
    turn = enc.advance_turn(fight, NoDice(), ScriptedDice([47]))
    assert turn.passed == (Passed(enc.find(fight, "Ogre").number, "Ogre", "dying", DyingCheck(47, False, -3, -4)),)
    assert enc.find(turn.encounter, "Ogre").hp == -4 and whose(turn.encounter) == "Lira"
    # Next round, d% 10: stable (a 10% chance), no hit point lost, and it stays out ("stable").
    round_two = enc.advance(turn.encounter, NoDice(), NoDice())  # Lira ends: Aria, round 2
    stable = enc.advance_turn(round_two, NoDice(), ScriptedDice([10]))
    assert [(p.why, p.dying) for p in stable.passed] == [("dying", DyingCheck(10, True, -4, -4))]
    ogre = enc.find(stable.encounter, "Ogre")
    assert ogre.hp == -4 and ogre.conditions == (Condition("stable"),)
    # A stable combatant is passed without a roll (NoDice would refuse one).
    round_three = enc.advance(stable.encounter, NoDice(), NoDice())
    later = enc.advance_turn(round_three, NoDice(), NoDice())
    assert [(p.why, p.dying) for p in later.passed] == [("stable", None)]


def test_dying_at_minus_nine_the_lost_hit_point_kills() -> None:
    fight = begun(dnd("Aria", 5), dnd("Ogre", 2, hp=-9), dnd("Lira", 1))
    turn = enc.advance_turn(fight, NoDice(), ScriptedDice([11]))  # 11: not stable
    ogre = enc.find(turn.encounter, "Ogre")
    assert ogre.hp == -10 and enc.health("dnd35", ogre.hp) is Health.DEAD
    assert turn.passed[0].dying == DyingCheck(11, False, -9, -10)
    # From then on it is passed as dead, with no roll.
    round_two = enc.advance(turn.encounter, NoDice(), NoDice())
    assert [p.why for p in enc.advance_turn(round_two, NoDice(), NoDice()).passed] == ["dead"]


def test_star_frontiers_and_aliensrl_have_no_dying_the_out_are_passed() -> None:
    sf = enc.new_encounter("sf", "Deck", GM)
    kel = enc.combatant("sf", "Kel", owner_id=GM, side=Side.PARTY, hp=40, max_hp=40, stats={"rs": 50})
    sathar = enc.combatant("sf", "Sathar", owner_id=GM, side=Side.FOES, hp=0, max_hp=40, stats={"rs": 40})
    # Star Frontiers: 0 Stamina is dead (the reference has no dying); nothing to roll.
    assert enc.health("sf", 0) is Health.DEAD
    fight = enc.begin(
        enc.add(sf, [kel, sathar], NoDice()), ScriptedDice([1, 9]), NoDice()
    )  # Sathar 13 goes first, but is dead
    assert whose(fight) == "Kel"
    aliens = enc.new_encounter("aliensrl", "Hope", GM)
    hicks = enc.combatant("aliensrl", "Hicks", owner_id=GM, side=Side.PARTY, hp=10, max_hp=10, stats={"rank": 2})
    alien = enc.combatant("aliensrl", "Alien", owner_id=GM, side=Side.FOES, hp=8, max_hp=8, stats={"rank": 1})
    started = enc.begin(enc.add(aliens, [hicks, alien], NoDice()), NoDice(), NoDice())
    out = enc.set_condition(started, enc.find(started, "Alien").number, "stunned", 1)
    turn = enc.advance_turn(out, NoDice(), NoDice())
    assert whose(turn.encounter) == "Hicks" and turn.encounter.round == 2
    assert [p.why for p in turn.passed] == ["stunned"]


def test_when_nobody_can_act_the_turn_moves_one_place_and_still_rolls_the_dying() -> None:
    fight = begun(dnd("Aria", 5), dnd("Ogre", 2))
    down = enc.change_health(fight, enc.find(fight, "Aria").number, read_change("=-2", what="amount"))[0]
    down = enc.change_health(down, enc.find(down, "Ogre").number, read_change("=-15", what="amount"))[0]
    turn = enc.advance_turn(down, NoDice(), NoDice())  # to the dead Ogre: nothing rolled
    assert whose(turn.encounter) == "Ogre" and [p.why for p in turn.passed] == ["dead"]
    turn = enc.advance_turn(turn.encounter, NoDice(), ScriptedDice([50]))  # round 2: Aria's turn comes, d% 50
    assert whose(turn.encounter) == "Aria" and turn.encounter.round == 2
    assert turn.passed[0].dying == DyingCheck(50, False, -2, -3)
