"""The encounter core: initiative per ruleset with forced dice, exact tie-breaking, turns, rounds, health, hits."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules import encounter as enc
from bot.rules import rulesets
from bot.rules.encounter import Condition, Encounter, EncounterError, Health, Hit, Side
from bot.rules.names import NameRefused
from bot.rules.sheets.dnd35 import DndSheet
from bot.rules.sheets.star_frontiers import SfSheet
from tests.dice_sources import NoDice, ScriptedDice

GM = 1
PLAYER = 2


def dnd(
    name: str, dex: int = 0, *, improved: bool = False, misc: int = 0, hp: int = 10, side: Side = Side.FOES
) -> enc.Combatant:
    return enc.combatant(
        "dnd35",
        name,
        owner_id=GM,
        side=side,
        hp=hp,
        max_hp=hp,
        modifiers=enc.dnd_modifiers(dex, improved_initiative=improved, misc=misc),
        stats={"ac": 12},
    )


def sf(name: str, rs: int, *, side: Side, stamina: int = 40) -> enc.Combatant:
    return enc.combatant(
        "sf",
        name,
        owner_id=GM,
        side=side,
        hp=stamina,
        max_hp=stamina,
        modifiers=enc.sf_modifiers(rs),
        stats={"rs": rs},
    )


def fight(ruleset: str, *fighters: enc.Combatant, by_side: bool = False) -> Encounter:
    return enc.add(enc.new_encounter(ruleset, "Test", GM, by_side=by_side), fighters, NoDice())


def order(encounter: Encounter) -> list[str]:
    return [c.name for c in encounter.combatants]


def test_dnd_initiative_is_d20_plus_dex_improved_initiative_and_other() -> None:
    started = enc.begin(fight("dnd35", dnd("Aria", 3, improved=True, misc=1), dnd("Ogre", -1)), ScriptedDice([10, 15]))
    aria = enc.find(started, "Aria")
    assert aria.initiative is not None
    assert [(m.value, m.source) for m in aria.initiative.modifiers] == [
        (3, "Dex"),
        (4, "Improved Initiative"),
        (1, "other"),
    ]
    assert aria.initiative.face == 10 and aria.initiative.total == 18
    assert enc.find(started, "Ogre").initiative.total == 14  # type: ignore[union-attr]
    assert order(started) == ["Aria", "Ogre"] and started.round == 1 and started.current == aria


def test_dnd_ties_go_to_the_higher_modifier_before_any_roll_off() -> None:
    # Both total 15: Bram's +5 beats Cora's +2, with no roll-off drawn (the script has no more faces).
    started = enc.begin(fight("dnd35", dnd("Cora", 2), dnd("Bram", 5)), ScriptedDice([13, 10]))
    assert order(started) == ["Bram", "Cora"]
    assert all(c.initiative and c.initiative.rolloffs == () for c in started.combatants)


def test_dnd_ties_of_total_and_modifier_roll_off_again_until_they_differ() -> None:
    # Three tie at 12 (+2); the roll-off 7, 7, 3 leaves two tied, who roll again: 2, 9.
    fighters = [dnd("A", 2), dnd("B", 2), dnd("C", 2), dnd("D", 0)]
    started = enc.begin(fight("dnd35", *fighters), ScriptedDice([10, 10, 10, 19, 7, 7, 3, 2, 9]))
    assert order(started) == ["D", "B", "A", "C"]
    rolls = {c.name: c.initiative.rolloffs for c in started.combatants if c.initiative}
    assert rolls == {"A": (7, 2), "B": (7, 9), "C": (3,), "D": ()}


def test_sf_by_side_adds_the_best_im_and_higher_rs_wins_a_tie() -> None:
    # Party's best IM 6 (RS 55), foes' 5 (RS 50): 4 + 6 = 10 against 5 + 5 = 10, and RS 55 beats 50.
    fighters = [sf("Kel", 55, side=Side.PARTY), sf("Jo", 30, side=Side.PARTY), sf("Sathar", 50, side=Side.FOES)]
    started = enc.begin(fight("sf", *fighters, by_side=True), ScriptedDice([4, 5]))
    assert [(s.side, s.roll.total, s.leader) for s in started.sides] == [
        (Side.PARTY, 10, "Kel"),
        (Side.FOES, 10, "Sathar"),
    ]
    assert order(started) == ["Kel", "Jo", "Sathar"]


def test_sf_by_side_equal_rs_rolls_again_and_rerolls_every_round() -> None:
    fighters = [sf("Kel", 50, side=Side.PARTY), sf("Sathar", 50, side=Side.FOES)]
    # Round 1: 3 + 5 each, RS 50 each: roll-off 2 against 8, foes first. Round 2: party 9 + 5, foes 1 + 5.
    dice = ScriptedDice([3, 3, 2, 8, 9, 1])
    started = enc.begin(fight("sf", *fighters, by_side=True), dice)
    assert order(started) == ["Sathar", "Kel"] and started.sides[0].roll.rolloffs == (8,)
    second = enc.advance(enc.advance(started, dice), dice)
    assert second.round == 2 and order(second) == ["Kel", "Sathar"] and dice.exhausted


def test_sf_individual_initiative_ties_by_rs() -> None:
    fighters = [sf("Slow", 31, side=Side.PARTY), sf("Quick", 40, side=Side.FOES)]  # IM 4 each
    started = enc.begin(fight("sf", *fighters), ScriptedDice([6, 6]))
    assert order(started) == ["Quick", "Slow"]
    assert [c.initiative.total for c in started.combatants if c.initiative] == [10, 10]


def test_aliens_keeps_the_entry_order_and_the_gm_reorders() -> None:
    marines = [enc.combatant("aliensrl", n, owner_id=GM, side=Side.PARTY, hp=20, max_hp=20) for n in "XYZ"]
    started = enc.begin(fight("aliensrl", *marines), NoDice())
    assert order(started) == ["X", "Y", "Z"]
    moved = enc.move(enc.advance(started, NoDice()), enc.find(started, "Z").number, 1)
    assert order(moved) == ["Z", "X", "Y"] and moved.current and moved.current.name == "Y"


def test_turns_wrap_into_the_next_round_and_skip_the_dead() -> None:
    started = enc.begin(fight("dnd35", dnd("A", 3), dnd("B", 2), dnd("C", 1)), ScriptedDice([10, 10, 10]))
    dead, _ = enc.apply_hit(started, enc.find(started, "B").number, Hit(damage=20))
    after_a = enc.advance(dead, NoDice())
    assert after_a.current and after_a.current.name == "C"
    next_round = enc.advance(after_a, NoDice())
    assert next_round.round == 2 and next_round.current and next_round.current.name == "A"


def test_flat_footed_until_its_first_turn_begins() -> None:
    """SRD, Initiative: Flat-Footed: "before your first regular turn"; the combatant whose turn it is is not."""
    waiting = fight("dnd35", dnd("A", 3), dnd("B", 2))
    assert all(enc.flat_footed(waiting, c) for c in waiting.combatants)  # nobody's turn yet
    started = enc.begin(waiting, ScriptedDice([10, 10]))
    a, b = started.combatants
    assert started.current == a
    assert not enc.flat_footed(started, a) and enc.flat_footed(started, b)
    after = enc.advance(started, NoDice())
    assert not enc.flat_footed(after, enc.find(after, "A")) and not enc.flat_footed(after, enc.find(after, "B"))
    _, on_its_turn = enc.apply_hit(after, b.number, Hit(damage=3))
    assert not on_its_turn.flat_footed
    _, waiting_hit = enc.apply_hit(started, b.number, Hit(damage=3))
    assert waiting_hit.flat_footed


def test_a_dnd_attack_uses_flat_footed_ac_until_the_target_s_first_turn_begins() -> None:
    rogue = enc.combatant(
        "dnd35",
        "Rogue",
        owner_id=PLAYER,
        side=Side.PARTY,
        hp=8,
        max_hp=8,
        modifiers=enc.dnd_modifiers(3),
        stats={"ac": 15, "touch": 13, "flat_footed": 12, "flat_footed_touch": 10},
    )
    started = enc.begin(fight("dnd35", rogue, dnd("Ogre", -1)), ScriptedDice([2, 15]))  # the Ogre goes first
    assert started.current and started.current.name == "Ogre"
    assert enc.dnd_defense(started, enc.find(started, "Rogue")) == enc.Defense(
        12, True, "flat-footed AC 12: Rogue has not had its first turn in this fight yet", "flat-footed AC"
    )
    touch = enc.dnd_defense(started, enc.find(started, "Rogue"), touch=True)
    assert (touch.ac, touch.kind) == (10, "flat-footed touch AC")
    its_turn = enc.advance(started, NoDice())
    assert its_turn.current and its_turn.current.name == "Rogue"
    assert enc.dnd_defense(its_turn, its_turn.current) == enc.Defense(15, False, "AC 15: Rogue has had its first turn")
    assert enc.dnd_defense(its_turn, enc.find(its_turn, "Ogre")).ac == 12  # a quick creature's one AC, in every form


def test_flat_footed_given_holds_on_a_combatant_that_has_acted() -> None:
    started = enc.begin(fight("dnd35", dnd("Ogre", -1), dnd("Wolf", 2)), ScriptedDice([15, 2]))
    ogre = enc.find(enc.advance(started, NoDice()), "Ogre")
    assert ogre.acted
    after = enc.advance(started, NoDice())
    assert enc.flat_footed_why(after, ogre) is None
    assert enc.dnd_defense(after, ogre, flat=True) == enc.Defense(
        12, True, "flat-footed AC 12: given as flat-footed", "flat-footed AC"
    )


def test_a_character_in_a_fight_is_its_sheet_with_the_fight_s_hit_points() -> None:
    sheet = DndSheet(hit_points=12, max_hit_points=12, dexterity=14, damage_reduction="5/bludgeoning")
    joined = enc.from_sheet("dnd35", "Aria", sheet, owner_id=PLAYER, side=Side.PARTY, character_id=7)
    hurt = dataclasses.replace(joined, hp=4)
    assert enc.as_fought(sheet, hurt) == sheet.model_copy(update={"hit_points": 4})
    sf_sheet = SfSheet(stamina=50, current_stamina=50)
    stamina = dataclasses.replace(
        enc.from_sheet("sf", "Kel", sf_sheet, owner_id=PLAYER, side=Side.PARTY, character_id=8), hp=16
    )
    fought = enc.as_fought(sf_sheet, stamina)
    assert fought.current_stamina == 16 and fought.wounded and not sf_sheet.wounded


@pytest.mark.parametrize(
    ("hp", "state", "word"),
    [(10, Health.UP, "unhurt"), (6, Health.UP, "hurt"), (5, Health.UP, "badly hurt"), (0, Health.DISABLED, "disabled"),
     (-1, Health.DYING, "dying"), (-9, Health.DYING, "dying"), (-10, Health.DEAD, "dead")],
)  # fmt: skip
def test_dnd_health_states(hp: int, state: Health, word: str) -> None:
    assert enc.health("dnd35", hp) is state
    assert enc.health_word("dnd35", hp, 10) == word


def test_sf_and_aliens_are_dead_at_zero() -> None:
    assert enc.health("sf", 0) is Health.DEAD and enc.health("sf", 1) is Health.UP
    assert enc.health("aliensrl", 0) is Health.DEAD


def test_a_hit_changes_hit_points_and_says_so() -> None:
    ogre = dataclasses.replace(dnd("Ogre 2", hp=30))
    encounter = fight("dnd35", ogre)
    after, change = enc.apply_hit(encounter, 1, Hit(damage=12))
    assert change.summary == "Ogre 2: 30 → 18 hp" and enc.find(after, "Ogre 2").hp == 18
    dying, change = enc.apply_hit(after, 1, Hit(damage=20))
    assert change.summary == "Ogre 2: 18 → -2 hp (dying)"
    _, change = enc.apply_hit(dying, 1, Hit(damage=-100))
    assert change.after == 30  # healing stops at the most


def test_sf_knockout_counts_down_on_the_bearer_s_turns() -> None:
    fighters = [sf("Kel", 50, side=Side.PARTY), sf("Sathar", 40, side=Side.FOES)]
    started = enc.begin(fight("sf", *fighters), ScriptedDice([9, 1]))
    hit, change = enc.apply_hit(started, enc.find(started, "Sathar").number, Hit(damage=7, knockout_turns=2))
    assert change.summary == "Sathar: 40 → 33 hp, unconscious 2 turns"
    dice = ScriptedDice([9, 1, 9, 1])
    # Kel's turn ends; the knocked-out Sathar's turn comes and passes (counting down): round 2, Kel again.
    after_one = enc.advance(hit, dice)
    assert enc.find(after_one, "Sathar").conditions == (Condition("unconscious", 1),)
    assert after_one.round == 2 and after_one.current and after_one.current.name == "Kel"
    after_two = enc.advance(after_one, dice)
    assert enc.find(after_two, "Sathar").conditions == () and after_two.round == 3


def test_a_newcomer_rolls_and_acts_after_anyone_it_ties_with() -> None:
    started = enc.begin(fight("dnd35", dnd("A", 2), dnd("B", 0)), ScriptedDice([10, 5]))  # A 12, B 5
    joined = enc.add(started, [dnd("New", 2)], ScriptedDice([10]))  # 12 (+2) ties A: goes after A
    assert order(joined) == ["A", "New", "B"] and joined.current and joined.current.name == "A"
    early = enc.add(enc.advance(started, NoDice()), [dnd("Fast", 5)], ScriptedDice([20]))
    assert order(early) == ["Fast", "A", "B"] and early.current and early.current.name == "B"


def test_removing_the_current_combatant_passes_the_turn() -> None:
    started = enc.begin(fight("dnd35", dnd("A", 3), dnd("B", 2), dnd("C", 1)), ScriptedDice([10, 10, 10]))
    removed = enc.remove(started, enc.find(started, "A").number, NoDice())
    assert removed.current and removed.current.name == "B" and removed.steps == started.steps + 1
    last = enc.advance(removed, NoDice())  # C's turn: removing C starts round 2 with B
    wrapped = enc.remove(last, enc.find(last, "C").number, NoDice())
    assert (wrapped.round, wrapped.current and wrapped.current.name) == (2, "B")
    other = enc.remove(started, enc.find(started, "C").number, NoDice())
    assert other.current and other.current.name == "A" and other.steps == started.steps


def test_counted_names_continue_after_the_taken_ones() -> None:
    assert enc.numbered("Goblin", 4, []) == ["Goblin 1", "Goblin 2", "Goblin 3", "Goblin 4"]
    assert enc.numbered("Goblin", 2, ["Goblin 1", "goblin 2"]) == ["Goblin 3", "Goblin 4"]
    assert enc.numbered("Ogre", 1, []) == ["Ogre"]


def test_a_condition_put_on_in_its_bearer_s_turn_lasts_through_the_next() -> None:
    started = enc.begin(fight("dnd35", dnd("A", 3), dnd("B", 2)), ScriptedDice([10, 10]))
    stunned = enc.set_condition(started, enc.find(started, "A").number, "stunned", 1)  # in A's own turn
    after_turn = enc.advance(stunned, NoDice())
    assert [(c.name, c.rounds) for c in enc.find(after_turn, "A").conditions] == [("stunned", 1)]
    next_turn = enc.advance(enc.advance(after_turn, NoDice()), NoDice())  # B, then A's next turn ends
    assert enc.find(next_turn, "A").conditions == ()


def test_conditions_and_refusals() -> None:
    encounter = fight("dnd35", dnd("A"))
    marked = enc.set_condition(encounter, 1, "prone", None)
    assert enc.find(marked, "A").conditions == (Condition("prone", None),)
    assert enc.clear_condition(marked, 1, "PRONE").combatants[0].conditions == ()
    with pytest.raises(EncounterError):
        enc.find(encounter, "Nobody")
    with pytest.raises(EncounterError):
        enc.add(encounter, [dnd("a")], NoDice())  # names are unique regardless of case
    with pytest.raises(EncounterError):
        enc.begin(enc.new_encounter("dnd35", "Empty", GM), NoDice())
    with pytest.raises(NameRefused):
        dnd("Bad *name*")


def test_dump_and_load_round_trip() -> None:
    fighters = [sf("Kel", 55, side=Side.PARTY), sf("Sathar", 50, side=Side.FOES)]
    started = enc.begin(fight("sf", *fighters, by_side=True), ScriptedDice([4, 5]))
    marked, _ = enc.apply_hit(started, 2, Hit(damage=3, knockout_turns=4))
    assert enc.load(enc.dump(marked)) == marked
    individual = enc.begin(fight("dnd35", dnd("A", 1), dnd("B", 1)), ScriptedDice([3, 3, 1, 2]))
    assert enc.load(enc.dump(individual)) == individual


@given(
    ruleset=st.sampled_from(rulesets.registered_keys()),
    by_side=st.booleans(),
    actions=st.lists(
        st.tuples(st.sampled_from(["add", "next", "hit", "remove", "move", "condition"]), st.integers(0, 30)),
        max_size=40,
    ),
    seed=st.integers(0, 2**32),
)
@settings(max_examples=150, deadline=None)
def test_any_sequence_of_changes_keeps_the_encounter_whole(
    ruleset: str, by_side: bool, actions: list[tuple[str, int]], seed: int
) -> None:
    """Whatever the game master does, the turn points at a combatant, steps only grow, and it stores and loads."""
    dice = random.Random(seed)
    encounter = enc.new_encounter(ruleset, "Fuzz", GM, by_side=by_side)
    for action, n in actions:
        numbers = [c.number for c in encounter.combatants]
        steps = encounter.steps
        try:
            if action == "add":
                side = Side.PARTY if n % 2 else Side.FOES
                newcomer = enc.combatant(
                    ruleset, f"C{encounter.next_number}", owner_id=GM, side=side, hp=n + 1, max_hp=n + 1,
                    modifiers=enc.dnd_modifiers(n % 5 - 2) if ruleset == "dnd35" else enc.sf_modifiers(n + 1),
                    stats={"rs": n + 1},
                )  # fmt: skip
                encounter = enc.add(encounter, [newcomer], dice)
            elif action == "next":
                encounter = enc.advance(encounter, dice)
            elif numbers and action == "hit":
                encounter, _ = enc.apply_hit(
                    encounter, numbers[n % len(numbers)], Hit(damage=n - 10, knockout_turns=n % 3)
                )
            elif numbers and action == "remove":
                encounter = enc.remove(encounter, numbers[n % len(numbers)], dice)
            elif numbers and action == "move":
                encounter = enc.move(encounter, numbers[n % len(numbers)], n % len(numbers) + 1)
            elif numbers and action == "condition":
                encounter = enc.set_condition(encounter, numbers[n % len(numbers)], f"c{n % 7}", n % 4 or None)
        except EncounterError:
            pass
        assert encounter.steps >= steps
        if encounter.begun and encounter.combatants:
            assert 0 <= encounter.turn < len(encounter.combatants)
        assert len({c.number for c in encounter.combatants}) == len(encounter.combatants)
    assert enc.load(json.loads(json.dumps(enc.dump(encounter)))) == encounter


def test_a_hit_that_takes_nothing_says_the_hit_points_as_they_stand() -> None:
    fighters = [sf("Kel", 50, side=Side.PARTY), sf("Sathar", 40, side=Side.FOES)]
    started = enc.begin(fight("sf", *fighters), ScriptedDice([9, 1]))
    sathar = enc.find(started, "Sathar").number
    _, change = enc.apply_hit(started, sathar, Hit(damage=0, stun_turns=3))
    assert change.summary == f"Sathar: {change.after} hp, stunned 3 turns"
    _, change = enc.apply_hit(started, sathar, Hit(damage=4))
    assert change.summary == f"Sathar: {change.before} → {change.before - 4} hp"


# -------------------------------------------------------------------------------------------- issue #25


def _issue_layout(out: str | None) -> Encounter:
    """Kel (RS 55, IM 6) against a Sathar (RS 30, IM 3) and its captain (RS 100, IM 10), the captain `out`.

    `out`: None (the captain fights), "dead" (Stamina 0), or a condition that keeps it from acting.
    """
    captain = sf("Captain", 100, side=Side.FOES)
    if out == "dead":
        captain = dataclasses.replace(captain, hp=0)
    elif out is not None:
        captain = dataclasses.replace(captain, conditions=(Condition(out, 50),))
    return fight("sf", sf("Kel", 55, side=Side.PARTY), sf("Sathar", 30, side=Side.FOES), captain, by_side=True)


def _foes_first(encounter: Encounter) -> Fraction:
    """The exact chance the foes' side acts first, over every pair of d10 faces (party's die first, then foes')."""
    first = 0
    for party, foes in itertools.product(range(1, 11), repeat=2):
        started = enc.begin(encounter, ScriptedDice([party, foes]))
        first += started.sides[0].side is Side.FOES
    return Fraction(first, 100)


def test_sf_side_initiative_counts_the_captain_while_it_can_act() -> None:
    # Foes 10 + f against 6 + p: first when f - p >= -4 (a tie at -4 goes to the captain's RS 100): 79 + 6.
    assert _foes_first(_issue_layout(None)) == Fraction(85, 100)


@pytest.mark.parametrize("out", ["dead", "unconscious", "stunned"])
def test_sf_side_initiative_leaves_out_the_dead_unconscious_and_stunned(out: str) -> None:
    # Only the Sathar counts: foes 3 + f against 6 + p, first when f - p >= 4 (at 3 Kel's RS 55 beats 30):
    # 6 + 5 + 4 + 3 + 2 + 1 = 21 of the 100 pairs.
    encounter = _issue_layout(out)
    assert _foes_first(encounter) == Fraction(21, 100)
    foes = enc.begin(encounter, ScriptedDice([1, 10])).sides[0]
    assert foes.side is Side.FOES and foes.leader == "Sathar" and foes.roll is not None
    assert (foes.roll.total, foes.roll.tiebreak) == (13, 30)


def test_sf_a_side_with_nobody_able_to_act_rolls_nothing_and_comes_last() -> None:
    out = (Condition("unconscious", 5),)
    foes = [dataclasses.replace(sf("Sathar 1", 90, side=Side.FOES), conditions=out), sf("Sathar 2", 90, side=Side.FOES)]
    foes[1] = dataclasses.replace(foes[1], hp=0)
    encounter = fight("sf", *foes, sf("Kel", 20, side=Side.PARTY), by_side=True)
    dice = ScriptedDice([1])  # the party's d10 alone
    started = enc.begin(encounter, dice)
    assert dice.exhausted
    assert [(s.side, s.roll and s.roll.total, s.leader) for s in started.sides] == [
        (Side.PARTY, 3, "Kel"),
        (Side.FOES, None, ""),
    ]
    assert order(started) == ["Kel", "Sathar 1", "Sathar 2"]
    assert enc.load(json.loads(json.dumps(enc.dump(started)))) == started
    nobody = enc.begin(fight("sf", *foes, by_side=True), NoDice())
    assert [s.roll for s in nobody.sides] == [None] and order(nobody) == ["Sathar 1", "Sathar 2"]


@pytest.mark.parametrize("kind", ["knockout_turns", "stun_turns"])
def test_a_longer_second_knock_out_or_stun_replaces_the_first(kind: str) -> None:
    name = "unconscious" if kind == "knockout_turns" else "stunned"
    encounter = fight("sf", sf("Sathar", 40, side=Side.FOES))
    first, _ = enc.apply_hit(encounter, 1, Hit(damage=0, **{kind: 74}))
    second, change = enc.apply_hit(first, 1, Hit(damage=0, **{kind: 100}))
    assert conditions_of(second) == [(name, 100)]
    assert change.summary == f"Sathar: 40 hp, {name} 100 turns"


@pytest.mark.parametrize("kind", ["knockout_turns", "stun_turns"])
def test_a_shorter_second_knock_out_or_stun_leaves_the_first_standing(kind: str) -> None:
    name = "unconscious" if kind == "knockout_turns" else "stunned"
    encounter = fight("sf", sf("Sathar", 40, side=Side.FOES))
    first, _ = enc.apply_hit(encounter, 1, Hit(damage=0, **{kind: 100}))
    second, change = enc.apply_hit(first, 1, Hit(damage=3, **{kind: 74}))
    assert conditions_of(second) == [(name, 100)]
    assert change.summary == f"Sathar: 40 → 37 hp, {name} 100 turns"  # the one that stands
    until_removed = enc.set_condition(encounter, 1, name, None)
    kept, _ = enc.apply_hit(until_removed, 1, Hit(damage=0, **{kind: 5}))
    assert conditions_of(kept) == [(name, None)]


def conditions_of(encounter: Encounter) -> list[tuple[str, int | None]]:
    return [(c.name, c.rounds) for c in encounter.combatants[0].conditions]
