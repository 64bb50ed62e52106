"""The one notation reader: every rule notation's accepted texts with their values, refusals with the caret."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules import dnd35 as dnd
from bot.rules import notation
from bot.rules import star_frontiers as sf
from bot.rules.dice import DiceSyntaxError, parse
from bot.rules.dnd35.tables import dr_from_text
from bot.rules.notation import MAX_NOTATION_LENGTH, NotationError, caret_lines
from bot.rules.sheets.base import NotationValueError, dice_text
from bot.rules.sheets.dnd35 import DR_PROPERTIES, MAX_DR, _damage_reduction


def refused(read: Callable[[str], Any], text: str) -> NotationError:
    with pytest.raises(NotationError) as caught:
        read(text)
    return caught.value


def assert_caret(error: NotationError, text: str, position: int) -> None:
    """The position, the sentence counting from 1, and the caret under that character of the text as typed."""
    assert (error.text, error.position) == (text, position)
    shown, _ = caret_lines(text, position)
    assert f" at character {position + 1}." in error.message
    assert error.message.endswith(f"\n```\n{shown}\n{' ' * position}^\n```"), error.message


# ---------------------------------------------------------------------------------------------------------
# One error, one caret, for /roll and for the rule notations alike.


def test_roll_and_rule_notation_share_the_error_and_its_caret() -> None:
    with pytest.raises(DiceSyntaxError) as roll:
        parse("1d8+*")
    rule = refused(dnd.parse_damage, "1d8+*")
    assert isinstance(roll.value, NotationError) and roll.value.title == "Can't roll that"
    assert rule.title == "Can't read that"
    # The same shape: sentence, then the text and the caret in a code block.
    assert roll.value.message.split("\n", 1)[1] == rule.message.split("\n", 1)[1] == "```\n1d8+*\n    ^\n```"


def test_the_caret_block_keeps_one_column_per_character() -> None:
    error = NotationError("1d\t8`x\x00", 6, "Unexpected character")
    assert error.message == "Unexpected character at character 7.\n```\n1d 8'x?\n      ^\n```"


@pytest.mark.parametrize(
    ("read", "error"),
    [
        (dnd.parse_damage, dnd.NotationError),
        (dnd.parse_crit, dnd.NotationError),
        (dnd.parse_dr, dnd.DamageReductionError),
        (sf.parse_dice, sf.NotationError),
        (dice_text, NotationValueError),
    ],
)
def test_each_ruleset_refuses_with_its_own_kind_of_the_one_error(read: Callable[[str], Any], error: type) -> None:
    caught = refused(read, "1d8?")
    assert type(caught) is error
    assert isinstance(caught, NotationError)


def test_rulesets_errors_are_their_attack_errors_and_a_sheets_a_value_error() -> None:
    assert issubclass(dnd.NotationError, dnd.AttackError) and issubclass(dnd.DamageReductionError, dnd.AttackError)
    assert issubclass(sf.NotationError, sf.AttackError)
    assert issubclass(NotationValueError, ValueError)  # what pydantic reports as the field's problem


# ---------------------------------------------------------------------------------------------------------
# Caps, checked before anything is built: the same numbers each parser always had.

BOUNDS = [
    (dnd.parse_damage, "99d999+999", "100d6", 0),
    (dnd.parse_damage, "1d999", "1d1000", 2),
    (dnd.parse_damage, "1d8-999", "1d8-1000", 4),
    (dnd.parse_damage, "999", "1000", 0),
    (dnd.parse_dice, "99d999+1d6+1d6+1d6+1d6", "1d6+1d6+1d6+1d6+1d6+1d6", 0),
    (dnd.parse_crit, "2-20/x6", "2-20/x7", 6),
    (dnd.parse_dr, "200/magic", "201/magic", 0),
    (sf.parse_dice, "99d999+999", "100d10", 0),
    (sf.parse_dice, "1d999", "1d1000", 2),
    (sf.parse_dice, "999", "1000", 0),
    (dice_text, "99d999", "100d6", 0),
    (dice_text, "1d999", "1d1000", 2),
    (_damage_reduction, "200/magic", "201/magic", 0),
]


@pytest.mark.parametrize(("read", "largest", "past", "position"), BOUNDS)
def test_the_largest_reads_and_one_past_it_is_refused(
    read: Callable[[str], Any], largest: str, past: str, position: int
) -> None:
    read(largest)
    assert_caret(refused(read, past), past, position)


@pytest.mark.parametrize("read", [dnd.parse_damage, dnd.parse_crit, dnd.parse_dr, sf.parse_dice, dice_text])
def test_every_notation_has_the_length_limit(read: Callable[[str], Any]) -> None:
    error = refused(read, "1" * (MAX_NOTATION_LENGTH + 1))
    assert error.position == MAX_NOTATION_LENGTH and "too long to read: 101 characters" in error.message


# ---------------------------------------------------------------------------------------------------------
# D&D weapon damage (§9).

DND_DAMAGE = [
    ("1d8+4", dnd.WeaponDamage(1, 8, 4)),
    ("2d6", dnd.WeaponDamage(2, 6)),
    ("1d4-1", dnd.WeaponDamage(1, 4, -1)),
    ("d8", dnd.WeaponDamage(1, 8)),
    (" 2D6 + 3 ", dnd.WeaponDamage(2, 6, 3)),
    ("1", dnd.WeaponDamage(0, 0, 1)),
    ("007d8", dnd.WeaponDamage(7, 8)),
]
DND_DAMAGE_REFUSED = [
    ("", 0),
    ("1d", 2),
    ("1 0d6", 2),
    ("1d8+", 4),
    ("1d8 - x", 6),
    ("0", 0),
    ("0d6", 0),
    ("1d1", 2),
    ("1d8+1d6", 5),
    ("1d8 fire", 4),
]


@pytest.mark.parametrize(("text", "value"), DND_DAMAGE)
def test_dnd_damage_reads(text: str, value: dnd.WeaponDamage) -> None:
    assert dnd.parse_damage(text) == value


@pytest.mark.parametrize(("text", "position"), DND_DAMAGE_REFUSED)
def test_dnd_damage_refuses_with_the_caret(text: str, position: int) -> None:
    assert_caret(refused(dnd.parse_damage, text), text, position)


# ---------------------------------------------------------------------------------------------------------
# D&D precision dice (§7).

PRECISION = [
    ("3d6", (dnd.Dice(3, 6),)),
    ("2d6 + 1d8", (dnd.Dice(2, 6), dnd.Dice(1, 8))),
    ("d6+d6", (dnd.Dice(1, 6), dnd.Dice(1, 6))),
    ("none", ()),
    (" - ", ()),
    ("0", ()),
]
PRECISION_REFUSED = [("3d6+3", 5), ("3d6-1d6", 3), ("3x6", 1), ("3d6++1d6", 4), ("1d6+1d6+1d6+1d6+1d6+1d6", 0)]


@pytest.mark.parametrize(("text", "value"), PRECISION)
def test_precision_dice_read(text: str, value: tuple[dnd.Dice, ...]) -> None:
    assert dnd.parse_dice(text) == value


@pytest.mark.parametrize(("text", "position"), PRECISION_REFUSED)
def test_precision_dice_refuse_with_the_caret(text: str, position: int) -> None:
    assert_caret(refused(dnd.parse_dice, text), text, position)


@given(st.lists(st.tuples(st.integers(1, 99), st.integers(2, 999)), min_size=1, max_size=5))
def test_precision_dice_round_trip(terms: list[tuple[int, int]]) -> None:
    dice = tuple(dnd.Dice(count, sides) for count, sides in terms)
    assert dnd.parse_dice("+".join(map(str, dice))) == dice


# ---------------------------------------------------------------------------------------------------------
# D&D criticals (§6, §9).

CRITS = [
    ("19-20/x2", dnd.Critical(19, 2)),
    ("x4", dnd.Critical(20, 4)),
    ("18-20", dnd.Critical(18, 2)),
    ("19–20/×3", dnd.Critical(19, 3)),
    ("20*3", dnd.Critical(20, 3)),
    (" 17 - 20 / X 2 ", dnd.Critical(17, 2)),
]
CRITS_REFUSED = [("", 0), ("19-21", 3), ("1-20", 0), ("x1", 1), ("19-20/", 6), ("19—/x2", 3), ("20/x2 keen", 6)]


@pytest.mark.parametrize(("text", "value"), CRITS)
def test_criticals_read(text: str, value: dnd.Critical) -> None:
    assert dnd.parse_crit(text) == value


@pytest.mark.parametrize(("text", "position"), CRITS_REFUSED)
def test_criticals_refuse_with_the_caret(text: str, position: int) -> None:
    assert_caret(refused(dnd.parse_crit, text), text, position)


# ---------------------------------------------------------------------------------------------------------
# D&D damage reduction (§7): the same reader for what a player types and what a stat block stores.

REDUCTIONS = [
    ("5/magic", "5/magic"),
    ("10/-", "10/-"),
    ("10/–", "10/-"),
    ("DR 15/Epic", "15/epic"),
    (" 5 / Silver   AND Good ", "5/silver and good"),
    ("10/cold  iron or good", "10/cold iron or good"),
    ("005/magic", "5/magic"),
]
REDUCTIONS_REFUSED = [
    ("5", 1),
    ("5/", 2),
    ("0005/magic", 0),
    ("5 magic", 2),
    ("5/magic or", 10),
    ("5/or magic", 2),
    ("5/magic and and good", 12),
    ("5/- magic", 4),
    ("5/cold", 2),
    ("5/good and evil and good", 20),
    ("dr5/magic", 0),
]


@pytest.mark.parametrize(("text", "normal"), REDUCTIONS)
def test_damage_reduction_reads_into_its_normal_form(text: str, normal: str) -> None:
    dr = dnd.parse_dr(text)
    assert str(dr) == normal
    assert dr_from_text(normal) == dr
    assert _damage_reduction(text.removeprefix("DR ")) == normal


@pytest.mark.parametrize("text", ["", "none", " NONE ", "0", "DR none", "dr 0"])
def test_no_damage_reduction(text: str) -> None:
    assert dnd.parse_dr(text) is None


@pytest.mark.parametrize(("text", "position"), REDUCTIONS_REFUSED)
def test_damage_reduction_refuses_with_the_caret(text: str, position: int) -> None:
    assert_caret(refused(dnd.parse_dr, text), text, position)
    assert_caret(refused(_damage_reduction, text), text, position)


@given(
    st.integers(1, MAX_DR),
    st.lists(st.sampled_from(DR_PROPERTIES), max_size=4, unique=True),
    st.booleans(),
)
def test_damage_reduction_round_trips(amount: int, bypass: list[str], needs_all: bool) -> None:
    dr = dnd.DamageReduction(amount, tuple(bypass), needs_all=needs_all and len(bypass) > 1)
    assert dnd.parse_dr(str(dr)) == dr
    assert _damage_reduction(str(dr)) == str(dr)


# ---------------------------------------------------------------------------------------------------------
# Star Frontiers damage (§6): spaces anywhere, a plus bonus only, a fixed number from 0.

SF_DAMAGE = [
    ("2d10", sf.Dice(2, 10)),
    ("1D5+3", sf.Dice(1, 5, 3)),
    (" 3 ", sf.Dice(0, 0, 3)),
    ("0", sf.Dice(0, 0)),
    ("1d10 + 2", sf.Dice(1, 10, 2)),
    ("1 0d1 0", sf.Dice(10, 10)),  # spaces anywhere, as the tables have always been read
    ("001d0999+0999", sf.Dice(1, 999, 999)),
    ("0d6", sf.Dice(0, 6)),  # no dice at all
]
SF_DAMAGE_REFUSED = [
    ("", 0),
    ("d10", 0),
    ("2d", 2),
    ("2d1", 2),
    ("1d10-1", 4),
    ("1d10+1d6", 6),
    ("lots", 0),
    ("0001d6", 0),
    ("1d00999", 2),
    ("1d6+00001", 4),
    ("00000", 0),
]


@pytest.mark.parametrize(("text", "value"), SF_DAMAGE)
def test_sf_damage_reads(text: str, value: sf.Dice) -> None:
    assert sf.parse_dice(text) == value


@pytest.mark.parametrize(("text", "position"), SF_DAMAGE_REFUSED)
def test_sf_damage_refuses_with_the_caret(text: str, position: int) -> None:
    assert_caret(refused(sf.parse_dice, text), text, position)


@given(st.integers(1, 99), st.integers(2, 999), st.integers(0, 999), st.sampled_from(["", " ", "  "]))
def test_sf_damage_round_trips(count: int, sides: int, bonus: int, space: str) -> None:
    dice = sf.Dice(count, sides, bonus)
    assert sf.parse_dice(space.join(re.findall(r"\d+|\D", str(dice)))) == dice
    assert sf.parse_dice(str(sf.Dice(0, 0, bonus))) == sf.Dice(0, 0, bonus)


# ---------------------------------------------------------------------------------------------------------
# A weapon's damage dice on a stat block: NdM exactly, as stored.

SHEET_DICE = [("1d8", "1d8"), ("2D6", "2d6"), ("99d999", "99d999"), ("5d10", "5d10")]
SHEET_DICE_REFUSED = [
    ("d8", 0),
    ("01d8", 0),
    ("1d08", 2),
    ("1 d8", 1),
    ("1d8+1", 3),
    ("0d8", 0),
    ("1d1", 2),
    ("8", 1),
]


@pytest.mark.parametrize(("text", "stored"), SHEET_DICE)
def test_sheet_dice_read(text: str, stored: str) -> None:
    assert dice_text(text) == stored


@pytest.mark.parametrize(("text", "position"), SHEET_DICE_REFUSED)
def test_sheet_dice_refuse_with_the_caret(text: str, position: int) -> None:
    assert_caret(refused(dice_text, text), text, position)


@given(st.integers(1, 99), st.integers(2, 999))
def test_sheet_dice_round_trip(count: int, sides: int) -> None:
    assert dice_text(f"{count}d{sides}") == f"{count}d{sides}"


# ---------------------------------------------------------------------------------------------------------
# Any text at all: a value, or the one error pointing inside the text.

READERS: list[Callable[[str], Any]] = [
    dnd.parse_damage,
    dnd.parse_dice,
    dnd.parse_crit,
    dnd.parse_dr,
    sf.parse_dice,
    dice_text,
    _damage_reduction,
    lambda text: notation.read_dice(text, dnd.tables.DAMAGE_STYLE),
]


@given(st.text(max_size=30) | st.text(alphabet="0123456789dD+-x/ ", max_size=12))
def test_every_reader_answers_any_text_with_a_value_or_a_caret(text: str) -> None:
    for read in READERS:
        try:
            read(text)
        except NotationError as error:
            assert 0 <= error.position <= len(text)
            assert error.message.endswith(f"{' ' * error.position}^\n```")
