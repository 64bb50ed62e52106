"""Words after a roll that name dice operations are read as those operations, or refused with what works.

`1d20+5 with advantage` used to roll a plain d20 titled "with advantage": a player believed they had rolled with
advantage. Each phrase here is read as the notation beside it (the same tree, and a note saying the reading),
refused with a caret and the spelling that works, or, when it cannot be dice, kept as the label.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.dice import Dice, DiceError, DiceSyntaxError, parse, roll
from tests.dice_sources import NoDice, ScriptedDice

# (what a player types, the notation it means, the label left over)
READINGS: list[tuple[str, str, str | None]] = [
    # advantage and disadvantage, Avrae's and RPG Sage's words in full
    ("1d20+5 with advantage", "1d20adv+5", None),
    ("1d20+5 advantage", "1d20adv+5", None),
    ("1d20 + 5 at advantage", "1d20adv+5", None),
    ("d20+3 w/ adv", "d20adv+3", None),
    ("d20+3 w/adv", "d20adv+3", None),
    ("1d20-1 with disadvantage", "1d20dis-1", None),
    ("1d20 disadvantage", "1d20dis", None),
    ("1d20+7 with adv", "1d20adv+7", None),
    ("2d20 with advantage", "2d20kh1", None),
    ("2d20 with disadvantage", "2d20kl1", None),
    ("1d20+5 Stealth with advantage", "1d20adv+5", "Stealth with advantage"),
    ("1d20+5 Attack (advantage)", "1d20adv+5", "Attack (advantage)"),
    ("1d20+2 with advantage Perception", "1d20adv+2", "Perception"),
    # keep and drop
    ("2d20 keep highest", "2d20kh1", None),
    ("2d20 keep lowest", "2d20kl1", None),
    ("4d6 keep 3", "4d6kh3", None),
    ("4d6 keep highest 3", "4d6kh3", None),
    ("4d6 keep the highest 3", "4d6kh3", None),
    ("4d6 keep the 3 highest", "4d6kh3", None),
    ("5d6 keep best three", "5d6kh3", None),
    ("2d20 take the higher", "2d20kh1", None),
    ("4d6 drop lowest", "4d6dl1", None),
    ("4d6 drop the lowest die", "4d6dl1", None),
    ("4d6 drop 1", "4d6dl1", None),
    ("5d10 drop highest 2", "5d10dh2", None),
    ("4d6 drop lowest Strength", "4d6dl1", "Strength"),
    ("4d6 drop lowest, Strength", "4d6dl1", "Strength"),
    ("2d20 highest", "2d20kh1", None),
    ("4d6 best 3", "4d6kh3", None),
    ("2d20+4 lowest", "2d20kl1+4", None),
    ("6 4d6 drop lowest", "6 4d6dl1", None),
    ("1d20+5; 4d6 drop lowest", "1d20+5; 4d6dl1", None),
    ("4d6 drop lowest; 1d20 adv", "4d6dl1; 1d20adv", None),
    # rerolls: until the face stops matching, as Roll20's r, unless the words say once
    ("4d6 reroll 1s", "4d6r1", None),
    ("4d6 reroll 1's", "4d6r1", None),
    ("4d6 rerolling ones", "4d6r1", None),
    ("2d6 reroll 1s once", "2d6ro1", None),
    ("2d6 reroll once 1s and 2s", "2d6ro1ro2", None),
    ("1d8 reroll 1s and 2s", "1d8r1r2", None),
    ("1d6 reroll 1 to 2", "1d6r<=2", None),
    ("1d8 reroll 2-4", "1d8r2r3r4", None),
    ("10d6 reroll below 3", "10d6r<=2", None),
    ("10d6 reroll 2 or less", "10d6r<=2", None),
    ("2d10 re-roll 1 or 2", "2d10r1r2", None),
    ("4d6+2 reroll 1s", "4d6r1+2", None),
    # explosions
    ("3d6 explode", "3d6!", None),
    ("3d6 exploding dice", "3d6!", None),
    ("3d6 explode on 5+", "3d6!>=5", None),
    ("5d10 exploding on 8 or more", "5d10!>=8", None),
    ("3d10 compounding", "3d10!!", None),
    ("3d6 penetrating explode", "3d6!p", None),
    # more than one
    ("4d6 reroll 1s, drop lowest", "4d6r1dl1", None),
    ("4d6 drop lowest and reroll 1s", "4d6r1dl1", None),
]


@pytest.mark.parametrize(("typed", "meant", "label"), READINGS)
def test_words_are_read_as_the_operation_they_name(typed: str, meant: str, label: str | None) -> None:
    assert parse(typed) == parse(meant)
    result = roll(typed, ScriptedDice([1, 2, 3, 4, 5, 6] * 40))
    assert result.label == label
    assert result.expression_text == str(parse(meant))
    # The answer says how the words were read (its footer).
    assert any("is read as" in note for note in result.notes)


def test_there_are_at_least_thirty_phrases() -> None:
    assert len(READINGS) >= 30


def test_advantage_in_words_rolls_two_d20_and_keeps_the_higher() -> None:
    result = roll("1d20+5 with advantage", ScriptedDice([4, 17]))
    assert result.total == 22
    assert "'with advantage' is read as adv" in result.notes[0]


def test_a_reading_in_words_says_what_it_does() -> None:
    notes = roll("4d6 reroll 1s", ScriptedDice([1, 3, 4, 5, 6])).notes
    assert notes == (
        "'reroll 1s' is read as r1: a die showing 1 is rerolled until it shows something else, as Roll20's r "
        "(add once to reroll only once).",
    )


# (what a player types, where the caret goes: the words it is about, or the one it could not read; what it teaches)
REFUSALS: list[tuple[str, int, str]] = [
    ("6d10 km3", 5, "6d10kh3"),
    ("4d6+2 kh3", 6, "4d6kh3 + 2"),
    ("1d20 + 2 ro1", 9, "right after the dice"),
    ("4d6 keep the good ones", 13, "keep highest 3"),
    ("1d20 Keep watch", 10, "label: option"),
    ("4d6 reroll", 4, "reroll 1s"),
    ("4d6 reroll the bad ones", 15, "reroll 1s"),
    ("1d20 + 4d6 drop lowest", 11, "right after the dice"),
    ("5 drop lowest", 2, "right after the dice"),
    ("4d6kh3 drop lowest", 7, "Only one keep or drop"),
    ("1d20adv keep highest", 8, "Only one keep or drop"),
    ("4d6r1 reroll 2s", 6, "Only one reroll"),
    ("4dF reroll 1s", 4, "Fudge dice can't"),
    ("1d6 reroll 1 to 6", 4, "reroll forever"),
    ("3d6 explode once", 12, "Exploding once is not supported"),
    ("3d6 explode on 6 or 5", 20, "One explode condition"),
    ("2d6 with advantage", 4, "exactly one plain d20"),
    ("1d20 + 1d20 with advantage", 12, "exactly one plain d20"),
    ("4d6 drop lowest + 2", 16, "after the whole roll"),
]


@pytest.mark.parametrize(("typed", "position", "teaches"), REFUSALS)
def test_words_that_do_not_say_enough_are_refused_with_what_works(typed: str, position: int, teaches: str) -> None:
    with pytest.raises(DiceSyntaxError) as caught:
        roll(typed, NoDice())
    assert caught.value.position == position
    assert teaches in caught.value.message
    assert "^" in caught.value.message


# Text that cannot be dice stays the label, untouched.
LABELS = [
    "1d20+5 Roll for Initiative",
    "2d6+3 fire damage",
    "8d6 fireball explosion",
    "1d20+3 Climb the highest peak",
    "2d6 fire, the grenade explodes",
    "1d20 Perception at dusk",
    "1d20+2 Save vs poison",
    "3d6 Ace pilot",
    "2d6 Against the peace keep",  # right after the roll `keep` must say which dice; further in, it is a word
    "2d6 Highest damage",  # a bare direction is read only with a number after it, or alone
]


@pytest.mark.parametrize("typed", LABELS)
def test_text_that_cannot_be_dice_is_the_label(typed: str) -> None:
    dice_part, label = typed.split(" ", 1)
    result = roll(typed, ScriptedDice([1] * 40))
    assert result.label == label
    assert result.expression_text == str(parse(dice_part))
    assert not any("is read as" in note for note in result.notes)


def test_a_phrase_inside_a_label_changes_the_roll_but_not_the_label() -> None:
    result = roll("1d20+5 Stealth with advantage", ScriptedDice([3, 19]))
    assert result.total == 24
    assert result.label == "Stealth with advantage"


def test_a_dice_maiden_comment_is_left_as_written() -> None:
    result = roll("4d6 ! drop lowest", ScriptedDice([1, 2, 3, 4]))
    assert result.label == "drop lowest"
    assert result.expression_text == "4d6"


@given(
    st.sampled_from(["1d20+5", "4d6", "2d20", "3d6+1"]),
    st.sampled_from(["with advantage", "drop lowest", "keep highest", "reroll 1s", "explode", "Stealth", "fire"]),
)
def test_every_phrase_is_read_refused_or_a_label(dice: str, words: str) -> None:
    typed = f"{dice} {words}"
    try:
        result = roll(typed, ScriptedDice([2] * 200))
    except DiceError as error:
        assert "^" in error.message or "apply" in error.message
        return
    read = any("is read as" in note for note in result.notes)
    # Either the words changed the roll (and the notes say so) or they are the whole label: never both unsaid.
    assert read != (result.label == words)
    assert read == (parse(typed) != parse(dice))


def test_the_tree_of_a_reading_is_the_modifiers_tree() -> None:
    tree = parse("4d6 drop lowest")
    assert isinstance(tree, Dice)
    assert str(tree) == "4d6dl1"
