"""Stored attacks (#28 item 3): each ruleset's notation, its caret errors, storage, who may attack."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bot.errors import UserError
from bot.rules import dnd35 as dnd
from bot.rules import encounter as enc
from bot.rules import encounter_attacks as stored
from bot.rules.encounter import Condition, EncounterError, Side, StoredAttack
from bot.rules.encounter_attacks import AttackNotationError
from tests.dice_sources import NoDice, ScriptedDice


def test_a_dnd_attack_reads_as_a_stat_block_prints_it() -> None:
    [club, bite] = stored.read_attacks("dnd35", "greatclub +8 2d8+7 x3; bite +3/-2 1d6+1 19-20/x2")
    assert club == StoredAttack("greatclub", "dnd attack", (("attack_bonus", 8), ("damage", "2d8+7"), ("crit", "x3")))
    assert bite.command == "dnd full-attack"
    assert bite.typed == {"attack_bonus": "+3/-2", "damage": "1d6+1", "crit": "19-20/x2"}


def test_a_dnd_attack_without_a_critical_takes_the_commands_default() -> None:
    [attack] = stored.read_attacks("dnd35", "heavy mace +4 1d8+1")
    assert attack.name == "heavy mace" and "crit" not in attack.typed


@pytest.mark.parametrize(
    ("text", "column", "reason"),
    [
        ("greatclub +8 2d8+x7", 18, "Unexpected 'x'"),
        ("greatclub 2d8+7", 11, "Missing the attack bonus"),
        ("+8 2d8", 1, "Missing the attack's name"),
        ("club +8", 8, "Missing the damage"),
        ("club +8 1d6 x3 extra", 16, "Unexpected 'extra'"),
        ("club +8 1d6 21-20/x2", 13, ""),
        ("club +8 1d6; club +3 1d4", 13, "A second attack of that name"),
    ],
)
def test_a_dnd_attack_that_does_not_read_points_at_the_character(text: str, column: int, reason: str) -> None:
    with pytest.raises(AttackNotationError) as refused:
        stored.read_attacks("dnd35", text)
    assert refused.value.position == column - 1, refused.value.message
    assert reason in refused.value.reason
    assert "^" in refused.value.message


def test_star_frontiers_attacks_are_shots_or_melee_by_their_score() -> None:
    [rifle, claws] = stored.read_attacks("sf", "laser rifle rw60/2 3d10 laser; claws MW55/1 2d10")
    assert rifle == StoredAttack("laser rifle", "sf shoot", (("score", 60), ("skill", 2), ("damage", "3d10 laser")))
    assert claws.command == "sf melee" and claws.typed == {"score": 55, "skill": 1, "damage": "2d10"}


@pytest.mark.parametrize("text", ["claws mw55/9 2d10", "claws mw155/1 2d10", "claws mw55/1", "claws mw55/1 2x10"])
def test_a_star_frontiers_attack_that_does_not_read_is_refused(text: str) -> None:
    with pytest.raises(AttackNotationError):
        stored.read_attacks("sf", text)


def test_an_aliens_melee_attack_is_its_damage_or_an_aliens_default() -> None:
    [bite, tail] = stored.read_attacks("aliensrl", "bite 7; tail spike warrior")
    assert bite == StoredAttack("bite", "aliens melee", (("damage", 7),), named_by="attacker")
    assert tail.name == "tail spike" and tail.typed == {"damage": 5}
    with pytest.raises(AttackNotationError):
        stored.read_attacks("aliensrl", "bite hard")


def test_too_many_attacks_or_too_long_a_text_is_refused() -> None:
    with pytest.raises(AttackNotationError):
        stored.read_attacks("dnd35", "; ".join(f"claw{i} +1 1d4" for i in range(stored.MAX_ATTACKS + 1)))
    with pytest.raises(AttackNotationError):
        stored.read_attacks("dnd35", "a" * (stored.MAX_TEXT + 1))


@given(st.text(max_size=80))
@example("bite ¹")  # a digit to str.isdigit, not to int(): it was a traceback
@example("claws ③; bite ٣")
def test_any_text_reads_or_is_refused_with_a_user_error(text: str) -> None:
    for ruleset in ("dnd35", "sf", "aliensrl"):
        try:
            attacks = stored.read_attacks(ruleset, text)
        except UserError:
            continue
        assert 1 <= len(attacks) <= stored.MAX_ATTACKS


def test_a_damage_in_another_scripts_digits_is_its_number() -> None:
    # int() reads every script's decimal digits (an Arabic-Indic 3 here); superscripts and circled digits are not
    # numbers to it, and are refused as words.
    [bite] = stored.read_attacks("aliensrl", "bite ٣")
    assert dict(bite.options)["damage"] == 3
    for text in ("bite ¹", "claws ③"):
        with pytest.raises(AttackNotationError, match="Unexpected"):
            stored.read_attacks("aliensrl", text)


def ogre(**changes: object) -> enc.Combatant:
    made = enc.combatant("dnd35", "Ogre", owner_id=1, side=Side.FOES, hp=30, max_hp=30, stats={"ac": 13})
    attacks = stored.read_attacks("dnd35", "greatclub +8 2d8+7 x3")
    return dataclasses.replace(made, attacks=attacks, **changes)  # type: ignore[arg-type]


def test_stored_attacks_are_kept_through_the_encounters_json() -> None:
    fight = enc.add(enc.new_encounter("dnd35", "Cave", 1), [ogre()], NoDice())
    again = enc.load(json.loads(json.dumps(enc.dump(fight))))
    assert again == fight and again.combatants[0].attacks[0].typed["attack_bonus"] == 8


def test_a_fight_stored_before_attacks_loads_with_none() -> None:
    data = enc.dump(enc.add(enc.new_encounter("dnd35", "Cave", 1), [ogre()], NoDice()))
    for combatant in data["combatants"]:
        del combatant["attacks"]
    assert enc.load(data).combatants[0].attacks == ()


def test_the_dead_the_dying_and_the_helpless_cannot_attack() -> None:
    fight = enc.new_encounter("dnd35", "Cave", 1)
    stored.able_to_attack(fight, ogre(hp=0))  # disabled: one standard action (SRD, Dying)
    for hp, state in ((-1, "dying"), (-10, "dead")):
        with pytest.raises(EncounterError, match=state):
            stored.able_to_attack(fight, ogre(hp=hp))
    for condition in ("paralyzed", "Unconscious", "stunned", "helpless"):
        with pytest.raises(EncounterError, match=condition):
            stored.able_to_attack(fight, ogre(conditions=(Condition(condition),)))
    stored.able_to_attack(fight, ogre(conditions=(Condition("prone"),)))


def test_an_attack_is_chosen_by_name_else_the_first() -> None:
    creature = ogre()
    assert stored.choose(creature, creature.attacks, None).name == "greatclub"
    assert stored.choose(creature, creature.attacks, " GreatClub ").name == "greatclub"
    with pytest.raises(EncounterError, match="no attack `axe`"):
        stored.choose(creature, creature.attacks, "axe")
    with pytest.raises(EncounterError, match="carries no attacks"):
        stored.choose(creature, (), None)


def full_attack_at(ac: int) -> tuple[dnd.Attack, ...]:
    target = dnd.target_ac(ac)
    return tuple(dnd.quick_full_attack((8, 3), dnd.parse_damage("2d8+7"), target, dnd.NO_SITUATION, crit="20/x2"))


def test_a_full_attack_turns_when_the_damage_drops_its_target_below_0() -> None:
    # +8: 10 + 8 = 18 hits AC 14 for 1 + 1 + 7 = 9 (5 hp → -4: dying); +3 then goes to the next target: 13 vs 12.
    full = dnd.resolve_turning((full_attack_at(14), full_attack_at(12)), (5, 12), ScriptedDice([10, 1, 1, 10, 2, 2]))
    assert [r.attack.target.ac for r in full.results] == [14, 12]
    assert [r.hit for r in full.results] == [True, True]
    assert dnd.turned(full.results, (5, 12)) == (0, 1)


def test_a_full_attack_stays_on_a_target_left_standing_or_disabled() -> None:
    # 9 damage leaves 9 hp at 0 (disabled, still standing): the second attack stays, and 13 misses AC 14.
    full = dnd.resolve_turning((full_attack_at(14), full_attack_at(12)), (9, 12), ScriptedDice([10, 1, 1, 10]))
    assert [r.attack.target.ac for r in full.results] == [14, 14]
    assert [r.hit for r in full.results] == [True, False]
    assert dnd.turned(full.results, (9, 12)) == (0, 0)


def test_a_full_attack_stays_on_its_last_target() -> None:
    full = dnd.resolve_turning((full_attack_at(10),), (1,), ScriptedDice([10, 1, 1, 10, 1, 1]))
    assert dnd.turned(full.results, (1,)) == (0, 0)
    with pytest.raises(dnd.AttackError):
        dnd.resolve_turning((full_attack_at(10), full_attack_at(10)[:1]), (1, 1), NoDice())
