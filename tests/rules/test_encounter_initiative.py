"""The encounter's initiative as a replayable roll: its input, its run and outcome, and a change that takes it made."""

from __future__ import annotations

import functools
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules import encounter as enc
from bot.rules import replay
from bot.rules.fair import FairDice
from tests.dice_sources import ScriptedDice

SEED = bytes(range(32))
NEXT = replay.INITIATIVE["encounter next"]


def dnd_fight(*modifiers: int) -> enc.Encounter:
    fight = enc.new_encounter("dnd35", "Cave", 1)
    people = [
        enc.combatant("dnd35", f"Goblin {i}", owner_id=1, side=enc.Side.FOES, hp=6, max_hp=6, modifiers=mods)
        for i, mods in enumerate((enc.dnd_modifiers(m) for m in modifiers), start=1)
    ]
    return enc.add(fight, people, ScriptedDice([]))


def sf_fight(*, by_side: bool) -> enc.Encounter:
    fight = enc.new_encounter("sf", "Dock", 1, by_side=by_side)
    people = [
        enc.combatant(
            "sf", name, owner_id=1, side=side, hp=30, max_hp=30, modifiers=enc.sf_modifiers(rs), stats={"rs": rs}
        )
        for name, side, rs in (
            ("Kel", enc.Side.PARTY, 55),
            ("Sathar", enc.Side.FOES, 40),
            ("Vrusk", enc.Side.PARTY, 65),
        )
    ]
    return enc.add(fight, people, ScriptedDice([]))


def asked_by(fight: enc.Encounter, change: Any = enc.advance) -> enc.InitiativeInput:
    """The initiative roll a change asks for, from a change given no roll made."""
    with pytest.raises(enc.Unrolled) as needed:
        change(fight, enc.Prerolled())
    return needed.value.asked


def test_a_round_asks_for_every_combatant_with_its_modifiers() -> None:
    asked = asked_by(dnd_fight(2, 0, 2))
    assert (asked.ruleset, asked.encounter, asked.round, asked.entering, asked.by_side) == (
        "dnd35",
        "Cave",
        1,
        False,
        False,
    )
    assert [(r.name, r.tiebreak, r.modifiers) for r in asked.rollers] == [
        ("Goblin 1", 2, (enc.Modifier(2, "Dex"),)),
        ("Goblin 2", 0, (enc.Modifier(0, "Dex"),)),
        ("Goblin 3", 2, (enc.Modifier(2, "Dex"),)),
    ]


def test_a_star_frontiers_round_by_side_asks_for_each_side_with_its_leader() -> None:
    asked = asked_by(sf_fight(by_side=True))
    assert asked.by_side and asked.die == 10
    assert [(r.name, r.leader, r.tiebreak) for r in asked.rollers] == [("party", "Vrusk", 65), ("foes", "Sathar", 40)]


def test_a_newcomer_to_a_fight_under_way_asks_for_its_own_check_without_roll_offs() -> None:
    started = enc.advance(dnd_fight(1, 1), random.Random(3))
    late = enc.combatant(
        "dnd35", "Ogre", owner_id=1, side=enc.Side.FOES, hp=30, max_hp=30, modifiers=enc.dnd_modifiers(-1)
    )
    asked = asked_by(started, lambda fight, dice: enc.add(fight, [late], dice))
    assert asked.entering and [r.name for r in asked.rollers] == ["Ogre"]
    # Before the fight begins nobody rolls: the change goes through with no roll made.
    assert enc.add(dnd_fight(1), [late], enc.Prerolled()).combatants[-1].initiative is None


@pytest.mark.parametrize("fight", [dnd_fight(2, 0, 2, 2), sf_fight(by_side=True), sf_fight(by_side=False)])
def test_a_roll_made_first_gives_the_change_the_same_fight_as_rolling_in_it(fight: enc.Encounter) -> None:
    for seed in range(40):
        rolled_in = enc.advance(fight, random.Random(seed))
        made = enc.roll_initiative(asked_by(fight), random.Random(seed))
        taken = enc.Prerolled(made)
        assert enc.advance(fight, taken) == rolled_in and taken.used


def test_a_roll_made_for_another_fight_is_not_taken() -> None:
    fight = dnd_fight(2, 0)
    made = enc.roll_initiative(asked_by(dnd_fight(2, 1)), random.Random(1))
    with pytest.raises(enc.Unrolled) as needed:
        enc.advance(fight, enc.Prerolled(made))
    assert needed.value.asked == asked_by(fight)


def test_ties_roll_off_and_the_outcome_lists_the_first_to_act_first() -> None:
    asked = asked_by(dnd_fight(2, 0, 2))
    # Goblin 1 and 3 tie at 12 with +2 each: they roll off, 3 against 5.
    made = enc.roll_initiative(asked, ScriptedDice([10, 17, 10, 3, 5]))
    outcome = made.to_dict()
    assert [(c["name"], c["total"], c["rolloffs"]) for c in outcome["initiative"]] == [
        ("Goblin 2", 17, []),
        ("Goblin 3", 12, [5]),
        ("Goblin 1", 12, [3]),
    ]
    assert (outcome["encounter"], outcome["round"]) == ("Cave", 1)


@pytest.mark.parametrize("command", sorted(replay.INITIATIVE))
@pytest.mark.parametrize("fight", [dnd_fight(2, 0, 2), sf_fight(by_side=True), sf_fight(by_side=False)])
def test_an_initiative_roll_replays_from_its_logged_input(command: str, fight: enc.Encounter) -> None:
    kind = replay.INITIATIVE[command]
    assert (kind.name, kind.command) == (command.replace(" ", "."), command)
    asked = asked_by(fight)
    for number in range(1, 20):
        dice = FairDice(SEED, number)
        proof = replay.roll(kind, asked, dice)
        logged = json.loads(json.dumps(proof.inputs))
        assert replay.decode(kind.inputs, logged) == asked
        again = replay.replay(kind.name, logged, SEED, number)
        assert again.draws == dice.draws and again.outcome == proof.outcome
        # A forged face in the outcome is not what the seed gives.
        forged = json.loads(json.dumps(proof.outcome))
        forged["initiative"][0]["face"] += 1
        assert replay.first_difference(again.outcome, forged) is not None


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"ruleset": "aliensrl"}, "Only D&D and Star Frontiers fights roll initiative"),
        ({"rollers": []}, "An initiative roll is for 1 to 25 combatants"),
        ({"round": 0}, "A fight's round is 1 to"),
        ({"by_side": True}, "Only a Star Frontiers round's initiative is rolled by side"),
        ({"rollers": [{"name": "X", "tiebreak": 0, "modifiers": [{"value": 1, "source": "Dex"}] * 9}]}, "at most 8"),
    ],
)
def test_a_forged_input_the_rules_refuse_does_not_replay(change: dict[str, Any], says: str) -> None:
    logged = {**json.loads(json.dumps(replay.encode(asked_by(dnd_fight(1, 2))))), **change}
    with pytest.raises(replay.InputError, match=says):
        replay.replay("encounter.next", logged, SEED, 1)


def leave(fight: enc.Encounter, dice: enc.Dice) -> enc.Encounter:
    """The combatant whose turn it is leaves (the turn passes on; a Star Frontiers round may begin)."""
    return enc.remove(fight, fight.combatants[fight.turn].number, dice) if len(fight.combatants) > 1 else fight


@settings(max_examples=60, deadline=None)
@given(
    modifiers=st.lists(st.integers(-3, 6), min_size=1, max_size=8),
    newcomers=st.lists(st.integers(-3, 6), max_size=3),
    seed=st.integers(0, 10_000),
    rounds=st.integers(1, 12),
)
def test_every_change_takes_the_roll_it_asked_for_as_if_it_rolled_it(
    modifiers: list[int], newcomers: list[int], seed: int, rounds: int
) -> None:
    """Any fight, any turns: asking, drawing the roll, then taking it ends where rolling in the change ends."""
    for fight in (dnd_fight(*modifiers), sf_fight(by_side=False), sf_fight(by_side=True)):
        direct, prerolled = random.Random(seed), random.Random(seed)
        late = [
            enc.combatant(
                fight.ruleset,
                f"Late {i}",
                owner_id=1,
                side=enc.Side.FOES,
                hp=5,
                max_hp=5,
                modifiers=enc.dnd_modifiers(m),
                stats={"rs": 40},
            )
            for i, m in enumerate(newcomers)
        ]
        joining = functools.partial(lambda f, d, newcomers: enc.add(f, newcomers, d), newcomers=late)
        steps: list[Any] = [enc.advance] * rounds + [joining, leave] + [enc.advance] * 3 + [leave]
        a = b = fight
        for step in steps:
            a = step(a, direct)
            try:
                b = step(b, enc.Prerolled())
            except enc.Unrolled as needed:
                b = step(b, enc.Prerolled(enc.roll_initiative(needed.asked, prerolled)))
            assert a == b


def newcomers(*entries: enc.Combatant, ruleset: str = "dnd35") -> enc.InitiativeInput:
    """The roll newcomers to a fight under way ask for."""
    fight = dnd_fight(0) if ruleset == "dnd35" else sf_fight(by_side=False)
    started = enc.advance(fight, random.Random(1))
    return asked_by(started, functools.partial(lambda f, d, entries: enc.add(f, entries, d), entries=list(entries)))


def quick_dnd(name: str, initiative: int, *, improved: bool = False) -> enc.Combatant:
    """A quick creature as `/encounter add` makes it: its whole modifier is its own source."""
    modifiers = tuple(
        enc.Modifier(m.value, enc.QUICK_INITIATIVE) if m.source == "Dex" else m
        for m in enc.dnd_modifiers(initiative, improved_initiative=improved)
    )
    return enc.combatant("dnd35", name, owner_id=1, side=enc.Side.FOES, hp=5, max_hp=5, modifiers=modifiers)


def character_dnd(dex: int, misc: int, *, improved: bool = False) -> enc.Combatant:
    """A character as `/encounter join` makes it: Dex, the feat, any other modifier."""
    modifiers = enc.dnd_modifiers(dex, improved_initiative=improved, misc=misc)
    return enc.combatant("dnd35", "Aria", owner_id=2, side=enc.Side.PARTY, hp=9, max_hp=9, modifiers=modifiers)


@pytest.mark.parametrize(
    ("command", "asked", "typed", "forged"),
    [
        (
            "encounter add",
            newcomers(quick_dnd("Orc 1", 3), quick_dnd("Orc 2", 3)),
            {"initiative": 3},
            {"initiative": 5},
        ),
        (
            "encounter add",
            newcomers(quick_dnd("Orc", -2, improved=True)),
            {"improved_initiative": True},
            {"improved_initiative": False},
        ),
        ("encounter add", newcomers(character_dnd(3, 2)), {"initiative": 2}, {"initiative": 5}),
        ("encounter add", newcomers(character_dnd(3, 0)), {"initiative": 0}, {"initiative": 3}),
        (
            "encounter join",
            newcomers(character_dnd(1, -1, improved=True)),
            {"initiative_bonus": -1, "improved_initiative": True},
            {"initiative_bonus": 4},
        ),
        (
            "encounter join",
            newcomers(character_dnd(1, 0)),
            {"improved_initiative": False},
            {"improved_initiative": True},
        ),
    ],
)
def test_typed_initiative_options_must_agree_with_the_newcomers_checks(
    command: str, asked: enc.InitiativeInput, typed: dict[str, Any], forged: dict[str, Any]
) -> None:
    kind = replay.INITIATIVE[command]
    logged = json.loads(json.dumps(replay.encode(asked)))
    assert replay.disagreement(kind.name, logged, typed) is None
    said = replay.disagreement(kind.name, logged, {**typed, **forged})
    assert said is not None and said.startswith(f"option `{next(iter(forged))}` is ")


def test_star_frontiers_newcomers_ignore_the_d_and_d_options() -> None:
    kel = enc.combatant(
        "sf",
        "Dralasite",
        owner_id=1,
        side=enc.Side.PARTY,
        hp=30,
        max_hp=30,
        modifiers=enc.sf_modifiers(50),
        stats={"rs": 50},
    )
    logged = json.loads(json.dumps(replay.encode(newcomers(kel, ruleset="sf"))))
    typed = {"initiative": 7, "improved_initiative": True}
    assert replay.disagreement("encounter.add", logged, typed) is None
