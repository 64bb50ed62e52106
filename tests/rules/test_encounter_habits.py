"""The table's habits in the pure rules core (#28 item 5): group and given initiative, delay, ready, map moves."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules import encounter as enc
from bot.rules import replay
from bot.rules.encounter import EncounterError, Side
from bot.rules.fair import FairDice
from tests.dice_sources import NoDice, ScriptedDice


def goblins(count: int, *, modifier: int = 1) -> list[enc.Combatant]:
    return [
        enc.combatant("dnd35", name, owner_id=1, side=Side.FOES, hp=6, max_hp=6, modifiers=enc.dnd_modifiers(modifier))
        for name in enc.numbered("Goblin", count, ())
    ]


def hero(name: str, *, owner: int = 2, modifier: int = 2) -> enc.Combatant:
    return enc.combatant(
        "dnd35", name, owner_id=owner, side=Side.PARTY, hp=10, max_hp=10, modifiers=enc.dnd_modifiers(modifier)
    )


def order(fight: enc.Encounter) -> list[str]:
    return [c.name for c in fight.combatants]


# ---------------------------------------------------------------------------------------- group initiative


def test_a_group_rolls_one_initiative_and_acts_together() -> None:
    fight = enc.add(enc.new_encounter("dnd35", "Cave", 1), [hero("Aria")], NoDice())
    fight = enc.add(fight, goblins(3), NoDice(), group=True)
    assert {c.group for c in fight.combatants[1:]} == {2}  # the group is named by its first member's number
    # Two checks, not four: Aria 10 + 2 = 12, the goblins 15 + 1 = 16.
    dice = ScriptedDice([10, 15])
    begun = enc.advance(fight, dice)
    assert dice.exhausted
    assert order(begun) == ["Goblin 1", "Goblin 2", "Goblin 3", "Aria"]
    assert {c.initiative.total for c in begun.combatants[:3] if c.initiative} == {16}
    assert (begun.round, begun.current.name if begun.current else None) == (1, "Goblin 1")


def test_a_group_stays_together_between_others() -> None:
    fight = enc.add(enc.new_encounter("dnd35", "Cave", 1), [hero("Aria"), hero("Brom", modifier=0)], NoDice())
    fight = enc.add(fight, goblins(2), NoDice(), group=True)
    # Aria 18 + 2 = 20, Brom 3 + 0 = 3, goblins 9 + 1 = 10: the goblins between, one after the other.
    begun = enc.advance(fight, ScriptedDice([18, 3, 9]))
    assert order(begun) == ["Aria", "Goblin 1", "Goblin 2", "Brom"]


def test_without_a_group_each_rolls() -> None:
    fight = enc.add(enc.new_encounter("dnd35", "Cave", 1), goblins(3), NoDice())
    dice = ScriptedDice([5, 15, 10])
    begun = enc.advance(fight, dice)
    assert dice.exhausted and order(begun) == ["Goblin 2", "Goblin 3", "Goblin 1"]


def test_a_group_entering_a_fight_under_way_rolls_once_and_slots_in_together() -> None:
    fight = enc.add(enc.new_encounter("dnd35", "Cave", 1), [hero("Aria"), hero("Brom", modifier=0)], NoDice())
    fight = enc.advance(fight, ScriptedDice([18, 3]))  # Aria 20, Brom 3
    dice = ScriptedDice([9])
    joined = enc.add(fight, goblins(3), dice, group=True)
    assert dice.exhausted
    assert order(joined) == ["Aria", "Goblin 1", "Goblin 2", "Goblin 3", "Brom"]
    assert joined.current is not None and joined.current.name == "Aria"


def test_a_group_survives_the_store() -> None:
    fight = enc.add(enc.new_encounter("dnd35", "Cave", 1), goblins(2), NoDice(), group=True)
    assert enc.load(enc.dump(fight)) == fight


# ---------------------------------------------------------------------------------------- given initiative


def test_a_given_initiative_is_taken_as_it_is_and_rolls_no_die() -> None:
    fight = enc.new_encounter("dnd35", "Cave", 1)
    fight = enc.add(fight, enc.with_given(fight, [hero("Aria")], 17), NoDice())
    fight = enc.add(fight, goblins(1), NoDice())
    dice = ScriptedDice([12])  # the goblin's only: 12 + 1 = 13
    begun = enc.advance(fight, dice)
    assert dice.exhausted and order(begun) == ["Aria", "Goblin"]
    aria = begun.combatants[0]
    assert aria.initiative is not None and aria.initiative.given and aria.initiative.total == 17
    assert aria.given is None  # used up: a later roll (a Star Frontiers round) rolls
    assert enc.load(enc.dump(begun)) == begun


def test_a_given_initiative_ties_break_as_anyones() -> None:
    fight = enc.new_encounter("dnd35", "Cave", 1)
    fight = enc.add(fight, enc.with_given(fight, [hero("Aria", modifier=2)], 13), NoDice())
    fight = enc.add(fight, goblins(1), NoDice())
    begun = enc.advance(fight, ScriptedDice([12]))  # goblin 13, Aria 13 given: Aria's +2 beats the goblin's +1
    assert order(begun) == ["Aria", "Goblin"]


def test_a_given_initiative_on_entering_a_fight_under_way() -> None:
    fight = enc.add(enc.new_encounter("dnd35", "Cave", 1), goblins(2), NoDice())
    fight = enc.advance(fight, ScriptedDice([15, 5]))  # Goblin 1 16, Goblin 2 6
    joined = enc.add(fight, enc.with_given(fight, [hero("Aria")], 10), NoDice())
    assert order(joined) == ["Goblin 1", "Aria", "Goblin 2"]


def test_no_given_initiative_where_none_is_rolled_by_each() -> None:
    aliens = enc.new_encounter("aliensrl", "Hope", 1)
    with pytest.raises(EncounterError, match="AliensRL"):
        enc.with_given(aliens, [hero("Aria")], 10)
    sides = enc.new_encounter("sf", "Dock", 1, by_side=True)
    with pytest.raises(EncounterError, match="by side"):
        enc.with_given(sides, [hero("Aria")], 10)


def test_a_group_and_a_given_roll_replay_from_a_fair_log() -> None:
    """The fair log keeps who gave their roll and who rolled as a group; the replay draws the same dice."""
    fight = enc.new_encounter("dnd35", "Cave", 1)
    fight = enc.add(fight, enc.with_given(fight, [hero("Aria")], 17), NoDice())
    fight = enc.add(fight, goblins(3), NoDice(), group=True)
    with pytest.raises(enc.Unrolled) as needed:
        enc.advance(fight, enc.Prerolled())
    asked = needed.value.asked
    assert [(r.name, r.given) for r in asked.rollers] == [("Aria", 17), ("Goblin 1-3", None)]
    kind = replay.INITIATIVE["encounter next"]
    seed = bytes(range(32))
    dice = FairDice(seed, 1)
    proof = replay.roll(kind, asked, dice)
    logged = json.loads(json.dumps(proof.inputs))
    assert replay.decode(kind.inputs, logged) == asked
    again = replay.replay(kind.name, logged, seed, 1)
    assert again.draws == dice.draws and again.outcome == proof.outcome
    assert len(dice.draws) == 1  # the group's one d20; none for Aria's given 17
    aria = next(c for c in proof.outcome["initiative"] if c["name"] == "Aria")
    assert (aria["given"], aria["total"]) == (True, 17)
    # Joining a fight under way: the log holds the number given, and a join typed with another disagrees.
    begun = enc.add(enc.new_encounter("dnd35", "Cave", 1), goblins(1), NoDice())
    begun = enc.advance(begun, ScriptedDice([10]))
    with pytest.raises(enc.Unrolled) as needed:
        enc.add(begun, enc.with_given(begun, [hero("Aria")], 17), enc.Prerolled())
    join = replay.INITIATIVE["encounter join"]
    logged = json.loads(json.dumps(replay.roll(join, needed.value.asked, FairDice(seed, 2)).inputs))
    assert replay.disagreement(join.name, logged, {"rolled": 17}) is None
    assert "option `rolled` is 16" in (replay.disagreement(join.name, logged, {"rolled": 16}) or "")
    assert "`rolled` was not given" in (replay.disagreement(join.name, logged, {}) or "")


# ---------------------------------------------------------------------------------------- delay and ready


def begun_four() -> enc.Encounter:
    """Aria 20, Goblin 1 15, Brom 10, Goblin 2 5: Aria's turn."""
    fight = enc.new_encounter("dnd35", "Cave", 1)
    fight = enc.add(fight, [hero("Aria", modifier=0), hero("Brom", modifier=0)], NoDice())
    fight = enc.add(fight, goblins(2, modifier=0), NoDice())
    return enc.advance(fight, ScriptedDice([20, 10, 15, 5]))


def test_delay_moves_the_current_after_the_one_named_and_passes_the_turn() -> None:
    fight = begun_four()
    assert order(fight) == ["Aria", "Goblin 1", "Brom", "Goblin 2"]
    delayed = enc.delay(fight, enc.find(fight, "Brom").number)
    assert order(delayed) == ["Goblin 1", "Brom", "Aria", "Goblin 2"]
    assert delayed.current is not None and delayed.current.name == "Goblin 1"
    assert delayed.steps == fight.steps + 1  # a Next shown before the delay passes nothing
    assert delayed.combatants[2].acted  # its turn began: no longer flat-footed
    # Aria acts after Brom, and keeps that place next round.
    once = enc.advance(delayed, NoDice())
    twice = enc.advance(once, NoDice())
    assert twice.current is not None and twice.current.name == "Aria"
    round_two = enc.advance(enc.advance(twice, NoDice()), NoDice())
    assert round_two.round == 2 and round_two.current is not None and round_two.current.name == "Goblin 1"


def test_a_delayer_and_a_readier_take_the_count_they_act_at() -> None:
    fight = begun_four()  # Aria 20, Goblin 1 15, Brom 10, Goblin 2 5
    delayed = enc.delay(fight, enc.find(fight, "Brom").number)
    assert [(c.name, c.standing) for c in delayed.combatants] == [
        ("Goblin 1", 15),
        ("Brom", 10),
        ("Aria", 10),
        ("Goblin 2", 5),
    ]
    last = enc.delay(enc.advance(fight, NoDice()), None)  # Goblin 1 waits for everyone
    assert [(c.name, c.standing) for c in last.combatants][-1] == ("Goblin 1", 5)
    # A newcomer rolling 12 slots in by the counts the order now has: before Brom and Aria at 10.
    joined = enc.add(delayed, goblins(1, modifier=0), ScriptedDice([12]))
    assert [c.name for c in joined.combatants] == ["Goblin 1", "Goblin", "Brom", "Aria", "Goblin 2"]
    readied = enc.advance(enc.ready(fight, "the ogre"), NoDice())  # Goblin 1's turn: Aria acts before it
    acting = enc.act_readied(readied, enc.find(readied, "Aria").number)
    assert [(c.name, c.standing) for c in acting.combatants][:2] == [("Aria", 15), ("Goblin 1", 15)]


def test_a_group_is_named_once() -> None:
    fight = enc.add(enc.new_encounter("dnd35", "Cave", 1), goblins(3), NoDice(), group=True)
    assert enc.unit_name(fight.combatants) == "Goblin 1-3"
    assert enc.unit_name([hero("Ana"), hero("Bo")]) == "Ana & Bo"
    assert enc.unit_name([fight.combatants[0], fight.combatants[2]]) == "Goblin 1 & Goblin 3"
    assert enc.unit_name([hero("Ana")]) == "Ana"


def test_delay_to_the_end_of_the_round() -> None:
    delayed = enc.delay(begun_four(), None)
    assert order(delayed) == ["Goblin 1", "Brom", "Goblin 2", "Aria"]
    assert delayed.current is not None and delayed.current.name == "Goblin 1"


def test_delay_after_someone_who_has_acted_is_refused() -> None:
    fight = enc.advance(begun_four(), NoDice())  # Goblin 1's turn: Aria has acted
    with pytest.raises(EncounterError, match="acted this round already"):
        enc.delay(fight, enc.find(fight, "Aria").number)
    with pytest.raises(EncounterError, match="after itself"):
        enc.delay(fight, enc.find(fight, "Goblin 1").number)


def test_a_readied_combatant_acts_before_the_current_turn_then_the_turn_returns() -> None:
    fight = begun_four()
    readied = enc.ready(fight, "  a goblin   steps in ")
    aria = readied.combatants[0]
    assert aria.readied == "a goblin steps in"
    fight = enc.advance(readied, NoDice())  # Goblin 1's turn
    fight = enc.advance(fight, NoDice())  # Brom's
    fight = enc.advance(fight, NoDice())  # Goblin 2's: it steps in, Aria acts first
    acting = enc.act_readied(fight, aria.number)
    assert order(acting) == ["Goblin 1", "Brom", "Aria", "Goblin 2"]
    assert acting.current is not None and acting.current.name == "Aria" and acting.current.readied is None
    assert acting.steps == fight.steps + 1
    back = enc.advance(acting, NoDice())
    assert back.current is not None and back.current.name == "Goblin 2" and back.round == 1


def test_a_readied_action_is_lost_when_its_bearers_turn_comes_again() -> None:
    fight = enc.ready(begun_four(), "the ogre comes")
    for _ in range(4):
        fight = enc.advance(fight, NoDice())
    assert fight.round == 2 and fight.current is not None and fight.current.name == "Aria"
    assert fight.current.readied is None
    with pytest.raises(EncounterError, match="no readied action"):
        enc.act_readied(enc.advance(fight, NoDice()), fight.current.number)


def test_a_readied_action_is_lost_when_a_removal_or_a_delay_brings_its_turn() -> None:
    fight = enc.ready(begun_four(), "the ogre comes")  # Aria readies; Goblin 1, Brom, Goblin 2 to act
    for _ in range(3):
        fight = enc.advance(fight, NoDice())
    assert fight.current is not None and fight.current.name == "Goblin 2"
    removed = enc.remove(fight, fight.current.number, NoDice())  # the turn passes on to Aria, round 2
    assert removed.current is not None and removed.current.name == "Aria" and removed.current.readied is None
    fight = enc.ready(enc.advance(begun_four(), NoDice()), "Aria moves")  # Goblin 1 readies
    for _ in range(3):
        fight = enc.advance(fight, NoDice())
    assert (fight.round, fight.current.name if fight.current else None) == (2, "Aria")
    delayed = enc.delay(fight, None)  # Aria delays to the end: Goblin 1's turn comes
    assert delayed.current is not None and delayed.current.name == "Goblin 1" and delayed.current.readied is None


def test_a_readier_cannot_delay_too() -> None:
    with pytest.raises(EncounterError, match="readied an action this turn"):
        enc.delay(enc.ready(begun_four(), "the ogre comes"), None)


def test_ready_needs_a_trigger_and_a_readied_combatant() -> None:
    fight = begun_four()
    with pytest.raises(EncounterError, match="1 to"):
        enc.ready(fight, "   ")
    with pytest.raises(EncounterError, match="no readied action"):
        enc.act_readied(fight, enc.find(fight, "Brom").number)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["next", "delay", "delay-end", "ready", "act"]), st.integers(0, 3)), max_size=30)
)
def test_any_delays_and_readies_keep_the_order_whole(moves: list[tuple[str, int]]) -> None:
    """Every combatant stays in the order once, the turn on someone, the round never goes back."""
    fight = begun_four()
    numbers = sorted(c.number for c in fight.combatants)
    for move, pick in moves:
        named = fight.combatants[pick].number
        before = (fight.round, fight.steps)
        try:
            if move == "next":
                fight = enc.advance(fight, NoDice())
            elif move == "delay":
                fight = enc.delay(fight, named)
            elif move == "delay-end":
                fight = enc.delay(fight, None)
            elif move == "ready":
                fight = enc.ready(fight, "a trigger")
            else:
                fight = enc.act_readied(fight, named)
        except EncounterError:
            continue
        assert sorted(c.number for c in fight.combatants) == numbers
        assert 0 <= fight.turn < len(fight.combatants) and fight.current is not None
        assert (fight.round, fight.steps) >= before
        assert enc.load(enc.dump(fight)) == fight  # a readied trigger and a new count are stored too
        if move != "ready":  # a turn that begins finds no readied action standing on its combatant
            assert fight.current.readied is None


# ---------------------------------------------------------------------------------------- the map


@pytest.mark.parametrize(
    ("text", "square"),
    [
        ("4,3", enc.Square(4, 3)),
        ("(4, 3)", enc.Square(4, 3)),
        ("+1,-2", enc.Square(1, -2, relative=True)),
        ("0,+1", enc.Square(0, 1, relative=True)),
        ("n", enc.Square(0, -1, relative=True)),
        ("NE", enc.Square(1, -1, relative=True)),
        ("3e", enc.Square(3, 0, relative=True)),
        ("2n w", enc.Square(-1, -2, relative=True)),
        ("sw se", enc.Square(0, 2, relative=True)),
    ],
)
def test_a_square_as_typed(text: str, square: enc.Square) -> None:
    assert enc.read_square(text) == square


def test_by_is_always_a_move() -> None:
    assert enc.read_square("1,2", relative=True) == enc.Square(1, 2, relative=True)


@pytest.mark.parametrize("text", ["", "north", "4", "4;3", "n x", "1,2,3"])
def test_a_square_that_is_none(text: str) -> None:
    with pytest.raises(EncounterError, match="not a square"):
        enc.read_square(text)


def test_several_squares_as_typed() -> None:
    assert enc.read_squares("Vasquez 1,3; Hicks +1,0 ;Alien 1 2ne; #4 (9, 3);") == [
        ("Vasquez", enc.Square(1, 3)),
        ("Hicks", enc.Square(1, 0, relative=True)),
        ("Alien 1", enc.Square(2, -2, relative=True)),
        ("#4", enc.Square(9, 3)),
    ]
    with pytest.raises(EncounterError, match="names no square"):
        enc.read_squares("Vasquez")


def hope() -> enc.Encounter:
    fight = enc.new_encounter("aliensrl", "Hope", 1)
    people = [
        enc.combatant("aliensrl", name, owner_id=1, side=Side.PARTY, hp=10, max_hp=10)
        for name in ("Vasquez", "Hicks", "Alien")
    ]
    return enc.add(fight, people, NoDice())


def test_place_all_at_once_and_move_by_offsets() -> None:
    fight, moved = enc.place_all(hope(), [(1, enc.Square(1, 3)), (2, enc.Square(4, 3)), (3, enc.Square(9, 3))])
    assert [(c.name, c.position) for c in moved] == [("Vasquez", (1, 3)), ("Hicks", (4, 3)), ("Alien", (9, 3))]
    # Hicks steps onto the square Vasquez leaves in the same command.
    fight, _ = enc.place_all(fight, [(1, enc.read_square("n")), (2, enc.read_square("-3,0"))])
    assert [c.position for c in fight.combatants] == [(1, 2), (1, 3), (9, 3)]


def test_place_all_is_all_or_nothing() -> None:
    fight, _ = enc.place_all(hope(), [(1, enc.Square(1, 3)), (2, enc.Square(4, 3))])
    with pytest.raises(EncounterError, match=r"\*\*Hicks\*\* stands on \(4, 3\) already"):
        enc.place_all(fight, [(1, enc.Square(1, 4)), (3, enc.Square(4, 3))])
    with pytest.raises(EncounterError, match="off the map"):
        enc.place_all(fight, [(1, enc.Square(0, 0)), (2, enc.Square(0, -4, relative=True))])
    with pytest.raises(EncounterError, match="not on the map yet"):
        enc.place_all(fight, [(3, enc.read_square("n"))])
    with pytest.raises(EncounterError, match="stands on"):
        enc.place_all(fight, [(1, enc.Square(5, 5)), (2, enc.Square(5, 5))])
    assert [c.position for c in fight.combatants] == [(1, 3), (4, 3), None]
