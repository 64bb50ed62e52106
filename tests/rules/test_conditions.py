"""Conditions as data (#28 item 2), pure: what each ruleset's conditions do to an attack, odds by enumeration."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot.rules import dnd35 as dnd
from bot.rules import replay
from bot.rules.dnd35 import conditions
from bot.rules.dnd35.replay import DndAttackRoll
from bot.rules.encounter import Combatant, Encounter, Side, dnd_defense
from bot.rules.sheets.dnd35 import DndSheet
from bot.rules.star_frontiers import (
    Band,
    Dice,
    MeleeSituation,
    RangedSituation,
    melee_steps,
    quick_melee,
    quick_ranged,
    ranged_steps,
)
from bot.rules.star_frontiers import conditions as sf_conditions
from tests.dice_sources import ScriptedDice


def enumerated_hit(attack_bonus: int, ac: int, miss_chance: int = 0) -> Fraction:
    """The chance to hit, counted face by face: a natural 20 hits, a 1 misses, then the d100 of a miss chance."""
    hits = 0
    for face in range(1, 21):
        landed = face == 20 or (face != 1 and face + attack_bonus >= ac)
        for d100 in range(1, 101):
            hits += landed and d100 > miss_chance
    return Fraction(hits, 2000)


def attack(
    defender: tuple[str, ...] = (), attacker: tuple[str, ...] = (), *, words: str = "", ac: int = 15
) -> dnd.Attack:
    situation = dnd.parse_situation(words).apply(dnd.Situation()) if words else dnd.Situation()
    situation = dnd.Situation(
        **{f: getattr(situation, f) for f in situation.__dataclass_fields__ if f not in ("defender", "attacker")},
        defender=conditions.bearer("Goblin", defender),
        attacker=conditions.bearer("Aria", attacker),
    )
    return dnd.quick_attack(5, "1d8+2", ac, situation)


def test_known_names_aliases_and_labels() -> None:
    assert conditions.known("Flat Footed") is conditions.known("flat-footed") is not None
    assert conditions.known("paralysed") is conditions.known("paralyzed")
    assert conditions.known("on fire") is None
    assert [r.name for r in conditions.rules_of(["paralyzed", "on fire", "helpless"])] == ["paralyzed", "helpless"]
    assert conditions.cannot_act(["shaken", "stunned"]) is conditions.known("stunned")
    assert conditions.cannot_act(["prone", "shaken"]) is None
    assert sf_conditions.known("Knocked out") is sf_conditions.known("unconscious") is not None
    assert sf_conditions.known("blinded") is None  # the Star Frontiers reference gives no such condition


@pytest.mark.parametrize(
    ("defender", "attacker", "words", "ac", "miss"),
    [
        ((), (), "", 15, 0),
        (("prone",), (), "", 11, 0),
        (("prone",), (), "ranged", 19, 0),
        (("stunned",), (), "", 13, 0),
        (("blinded",), (), "", 13, 0),
        (("cowering",), (), "", 13, 0),
        (("kneeling",), (), "", 13, 0),
        (("sitting",), (), "ranged", 17, 0),
        (("charging",), (), "ranged", 13, 0),
        (("paralyzed",), (), "", 11, 0),  # the AC given is taken as it is, -4 in melee
        (("paralyzed",), (), "ranged", 15, 0),
        (("invisible",), (), "", 15, 50),
        ((), ("blinded",), "", 15, 50),
        (("prone",), (), "prone", 11, 0),  # said twice, counted once
        (("flat-footed", "grappling"), (), "cover", 19, 0),  # these change the form of the AC, not its number
        ((), (), "concealment", 15, 20),
        (("invisible",), (), "concealment", 15, 50),  # the larger miss chance holds
    ],
)
def test_a_defenders_conditions_change_its_ac_and_the_miss_chance_and_the_odds_follow(
    defender: tuple[str, ...], attacker: tuple[str, ...], words: str, ac: int, miss: int
) -> None:
    built = attack(defender, attacker, words=words)
    assert (built.target.ac, built.miss_chance) == (ac, miss)
    assert dnd.odds(built).hit == enumerated_hit(built.attack_bonus, ac, miss)


@pytest.mark.parametrize(
    ("attacker", "words", "bonus", "damage"),
    [
        ((), "", 5, 2),
        (("prone",), "", 1, 2),
        (("prone",), "ranged", 5, 2),  # a prone attacker's penalty is to melee; it shoots only a crossbow (a note)
        (("invisible",), "", 7, 2),
        (("shaken",), "", 3, 2),
        (("dazzled", "frightened"), "", 2, 2),
        (("sickened",), "", 3, 0),
    ],
)
def test_an_attackers_conditions_change_its_attack_and_damage(
    attacker: tuple[str, ...], words: str, bonus: int, damage: int
) -> None:
    built = attack((), attacker, words=words)
    assert (built.attack_bonus, built.damage_bonus) == (bonus, damage)
    assert dnd.odds(built).hit == enumerated_hit(bonus, 15)


def test_each_change_names_its_condition_and_bearer() -> None:
    built = attack(("prone",), ("invisible", "sickened"))
    assert dnd.Term("prone", -4, "condition: Goblin is prone, against melee") in built.target.adjustments
    assert dnd.Term("invisible", 2, "condition: Aria is invisible") in built.attack_terms
    assert dnd.Term("sickened", -2, "condition: Aria is sickened") in built.damage_terms
    hidden = attack(("invisible",))
    assert hidden.miss_source == "Goblin is invisible"
    assert any("Goblin is invisible: a hit misses on a d100 of 50 or less" in note for note in hidden.notes)


def test_an_invisible_defenders_miss_chance_is_rolled_with_the_dice_given() -> None:
    built = attack(("invisible",))
    missed = dnd.resolve(built, ScriptedDice([18, 50]))  # 18 + 5 hits AC 15; d100 50 is the miss chance
    assert (missed.hit, missed.concealed, missed.concealment) == (False, True, 50)
    landed = dnd.resolve(built, ScriptedDice([18, 51, 3]))
    assert (landed.hit, landed.damage) == (True, 5)


def test_helpless_and_invisible_allow_sneak_attack_concealment_stops_it() -> None:
    assert attack(("paralyzed",)).target.denied_dex
    assert attack(("paralyzed",), words="ranged").target.denied_dex
    assert not attack(("prone",)).target.denied_dex
    dice = dnd.Dice(2, 6)
    concealed = dnd.quick_attack(
        5, "1d8", 15, dnd.Situation(precision=(dice,), defender=conditions.bearer("Goblin", ["invisible"]))
    )
    assert concealed.precision == ()


def test_the_form_of_the_ac_follows_the_conditions() -> None:
    goblin, aria = conditions.bearer("Goblin", ["flat-footed"]), conditions.bearer("Aria", ["invisible"])
    assert conditions.defense_form(goblin) == conditions.Form(True, True, False, "Goblin is flat-footed")
    stunned = conditions.defense_form(conditions.bearer("Goblin", ["stunned", "flat-footed"]))
    assert (stunned.loses_dex, stunned.uncanny) == (True, False)  # Uncanny Dodge covers flat-footed, not stunned
    unseen = conditions.defense_form(conditions.NOBODY, aria)
    assert (unseen.loses_dex, unseen.uncanny, unseen.why) == (True, True, "Aria is invisible")
    helpless = conditions.defense_form(conditions.bearer("Goblin", ["unconscious"]))
    assert (helpless.loses_dex, helpless.dex_zero) == (False, True)
    assert conditions.defense_form(conditions.bearer("Goblin", ["on fire", "shaken"])) == conditions.Form()


def test_a_quick_creature_loses_its_dex_by_its_conditions() -> None:
    goblin = Combatant(1, "Goblin", 0, Side.FOES, 6, 6, stats=(("ac", 15), ("flat_footed", 13)), acted=True)
    fight = Encounter("dnd35", "Cave", 1, (goblin,), round=1)
    assert dnd_defense(fight, goblin).kind == "AC"
    lost = dnd_defense(fight, goblin, lost="Goblin is stunned")
    assert (lost.ac, lost.kind, lost.why) == (13, "flat-footed AC", "flat-footed AC 13: Goblin is stunned")


def test_a_helpless_sheet_counts_dex_0() -> None:
    sheet = DndSheet(dexterity=16, uncanny_dodge=True)
    assert dnd.target_sheet(sheet, helpless=True).ac == 5
    assert dnd.target_sheet(sheet, flat_footed=True).ac == 13  # Uncanny Dodge
    assert dnd.target_sheet(sheet.model_copy(update={"uncanny_dodge": False}), flat_footed=True).ac == 10


def test_a_condition_is_not_a_typed_word_in_the_fair_log() -> None:
    """A roll against a prone or invisible combatant agrees with its options as typed (no `prone` word)."""
    for built in (attack(("prone",)), attack(("invisible", "helpless")), attack(("prone",), words="prone")):
        inputs = replay.encode(DndAttackRoll(built, dnd.DEFAULT_VARIANTS))
        typed = {"attack_bonus": 5, "damage": "1d8+2", "target_ac": 15}
        if built.target.adjustments and built.target.adjustments[0].source.startswith("§5"):
            typed["situation"] = "prone"
        assert replay.disagreement("dnd.attack", inputs, typed) is None
    inputs = replay.encode(DndAttackRoll(attack(("prone",)), dnd.DEFAULT_VARIANTS))
    forged = {"attack_bonus": 5, "damage": "1d8+2", "target_ac": 12}
    assert replay.disagreement("dnd.attack", inputs, forged) is not None


def test_star_frontiers_stunned_and_unconscious_are_helpless_in_melee_and_prone_is_shot_at_minus_5() -> None:
    assert sf_conditions.helpless_because("Sathar", ["stunned"]) == "Sathar is stunned"
    assert sf_conditions.helpless_because("Sathar", ["unconscious", "on fire"]) == "Sathar is unconscious"
    assert sf_conditions.helpless_because("Sathar", ["prone"]) == ""
    melee = quick_melee(30, 1, Dice(1, 10), MeleeSituation(helpless_condition="Sathar is stunned"))
    step = next(s for s in melee_steps(melee) if s.number == 4)
    assert (step.value, step.reason) == (20, "Sathar is stunned")
    shot = quick_ranged(40, 1, Dice(1, 10), Band.SHORT, RangedSituation(prone_condition="Sathar is prone"))
    step = next(s for s in ranged_steps(shot) if s.number == 10)
    assert (step.value, step.reason) == (-5, "Sathar is prone")
    # The referee's helpless option and the condition are one step: +20 once.
    both = quick_melee(30, 1, Dice(1, 10), MeleeSituation(stunned=True, helpless_condition="Sathar is stunned"))
    assert sum(s.value for s in melee_steps(both) if s.number == 4) == 20


@pytest.mark.parametrize(("words", "ac"), [("soft cover ranged", 19), ("soft cover", 15)])
def test_soft_cover_counts_against_ranged_attacks_only_and_the_fair_log_reads_it(words: str, ac: int) -> None:
    built = attack(words=words)
    assert built.target.ac == ac and [t.name for t in built.target.adjustments] == ["soft cover"]
    assert dnd.odds(built).hit == enumerated_hit(5, ac)
    inputs = replay.encode(DndAttackRoll(built, dnd.DEFAULT_VARIANTS))
    typed = {"attack_bonus": 5, "damage": "1d8+2", "target_ac": 15}
    assert replay.disagreement("dnd.attack", inputs, {**typed, "situation": words}) is None
    assert replay.disagreement("dnd.attack", inputs, typed) is not None
    with pytest.raises(dnd.SituationError):
        dnd.parse_situation("cover soft cover")
