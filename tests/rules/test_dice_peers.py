"""The peers' notations with their home bot's meaning (#30 item 5), checked roll by roll and against enumerations.

Roll20's group of one roll with a keep, `{4d6+3d8}k4`, keeps the highest 4 of the 7 dice: it used to keep the
whole sum under a footer that said "as in Roll20".
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest

from bot.rules.dice import DiceError, DiceResult, DiceSyntaxError, DieState, SetResult, parse, roll
from bot.rules.dice_odds import SAMPLE_SEED, Method, odds
from tests.dice_sources import ScriptedDice
from tests.stats import enumerate_roller


def group_dice(text: str, faces: list[int]) -> tuple[int, list[tuple[int, DieState]]]:
    """The total of a group roll on forced dice, and every die of its one roll with what became of it."""
    result = roll(text, ScriptedDice(faces))
    tree = result.tree
    assert isinstance(tree, SetResult)
    found: list[tuple[int, DieState]] = []

    def visit(node: object) -> None:
        if isinstance(node, DiceResult):
            found.extend((die.face, die.state) for die in node.dice)
        for name in ("inner", "operand", "left", "right"):
            if hasattr(node, name):
                visit(getattr(node, name))

    visit(tree.items[0])
    return result.total, found


K, D = DieState.KEPT, DieState.DROPPED


@pytest.mark.parametrize(
    ("text", "faces", "total", "states"),
    [
        # The highest 4 of 4d6 and 3d8: 6, 8, 5, 7; ties go to the earlier die, as in a dice term's keep.
        ("{4d6+3d8}k4", [6, 2, 5, 1, 8, 3, 7], 26, [K, D, K, D, K, D, K]),
        ("{4d6+3d8}kh4", [6, 2, 5, 1, 8, 3, 7], 26, [K, D, K, D, K, D, K]),
        ("{4d6+3d8}kl2", [6, 2, 5, 1, 8, 3, 7], 3, [D, K, D, K, D, D, D]),
        ("{4d6+3d8}d2", [6, 2, 5, 1, 8, 3, 7], 29, [K, D, K, D, K, K, K]),  # Roll20's d: drop the lowest
        ("{4d6+3d8}dl2", [6, 2, 5, 1, 8, 3, 7], 29, [K, D, K, D, K, K, K]),
        ("{4d6+3d8}dh1", [6, 2, 5, 1, 8, 3, 7], 24, [K, K, K, K, D, K, K]),
        ("{2d6+1d8}k2", [4, 4, 4], 8, [K, K, D]),  # three 4s: the first two
        # Numbers stay in the roll; only dice are kept or dropped.
        ("{2d6+1d8+3}kh1", [2, 5, 1], 8, [D, K, D]),
        ("{2d6*2}kh1", [2, 5], 10, [D, K]),
        # More kept than rolled keeps every die.
        ("{1d6+1d4}k5", [3, 2], 5, [K, K]),
    ],
)
def test_a_group_of_one_roll_keeps_among_its_dice(
    text: str, faces: list[int], total: int, states: list[DieState]
) -> None:
    got, dice = group_dice(text, faces)
    assert got == total
    assert [state for _, state in dice] == states


def test_the_kept_dice_are_those_of_the_roll_after_its_own_modifiers() -> None:
    # 4d6kh3 drops its own 1 first; the group then keeps the highest 2 of what is left and the d8.
    got, dice = group_dice("{4d6kh3+1d8}k2", [5, 1, 3, 6, 4])
    assert got == 11
    assert [state for _, state in dice] == [K, D, D, K, D]
    # An exploded die's extra die is one of the dice: the 6 explodes into a 3, which follows it.
    got, dice = group_dice("{2d6!+1d4}kh2", [6, 2, 3, 1])
    assert got == 9 and dice == [(6, K), (3, K), (2, D), (1, D)]
    # A die dropped by the group counts as no success: the 9 is dropped, the 8 still counts.
    got, _ = group_dice("{3d10t7}kl2", [9, 2, 8])
    assert got == 1


def test_a_group_of_several_rolls_still_keeps_among_their_totals() -> None:
    result = roll("{4d6, 3d8}kh1", ScriptedDice([1, 2, 3, 4, 8, 8, 8]))
    assert result.total == 24
    assert isinstance(result.tree, SetResult) and result.tree.kept == (False, True)


def test_avraes_one_item_set_keeps_its_total_and_reads_back_so() -> None:
    result = roll("(4d6,)kh3", ScriptedDice([1, 2, 3, 4]))
    assert result.total == 10  # the one total kept, no die dropped
    assert str(parse("(4d6,)kh3")) == "(4d6,)kh3"
    assert str(parse(str(parse("(4d6,)kh3")))) == "(4d6,)kh3"
    assert str(parse("{4d6+3d8}k4")) == "{4d6 + 3d8}kh4"
    assert str(parse(str(parse("{4d6+3d8}k4")))) == "{4d6 + 3d8}kh4"


def test_the_reading_is_in_the_notes() -> None:
    notes = roll("{4d6+3d8}k4", random.Random(1)).notes
    assert notes == (
        "{4d6+3d8}k4 keeps the highest 4 of all the group's dice, as in Roll20 (a group of several rolls, with "
        "commas, keeps among their totals).",
    )


def test_a_group_inside_a_group_that_keeps_dice_is_refused_at_it() -> None:
    with pytest.raises(DiceSyntaxError) as caught:
        parse("{{1d6, 1d8}kh1 + 2d4}k2")
    assert caught.value.position == 0
    assert "{4d6+3d8}k4" in caught.value.message


# -- odds ----------------------------------------------------------------------------------------------------


def product_odds(sizes: list[tuple[int, int]], keep: str, amount: int, added: int = 0) -> dict[int, Fraction]:
    """Every face of every die (sides, lowest face) with itertools.product: the chance of each kept sum."""
    counts: dict[int, int] = {}
    ranges = [range(low, low + sides) for sides, low in sizes]
    every = 0
    for faces in itertools.product(*ranges):
        ranked = sorted(faces, reverse=keep in ("kh", "dh"))
        chosen = ranked[:amount] if keep in ("kh", "kl") else ranked[amount:]
        total = sum(chosen) + added
        counts[total] = counts.get(total, 0) + 1
        every += 1
    return {total: Fraction(count, every) for total, count in counts.items()}


@pytest.mark.parametrize(
    ("text", "sizes", "keep", "amount", "added"),
    [
        ("{4d6+3d8}k4", [(6, 1)] * 4 + [(8, 1)] * 3, "kh", 4, 0),
        ("{3d6+2d8}kl2", [(6, 1)] * 3 + [(8, 1)] * 2, "kl", 2, 0),
        ("{3d6+2d8}d2", [(6, 1)] * 3 + [(8, 1)] * 2, "dl", 2, 0),
        ("{3d6+2d8}dh1", [(6, 1)] * 3 + [(8, 1)] * 2, "dh", 1, 0),
        ("{2d20+1d4+5}kh1", [(20, 1)] * 2 + [(4, 1)], "kh", 1, 5),
        ("{2d10+2d4-1}k3", [(10, 1)] * 2 + [(4, 1)] * 2, "kh", 3, -1),
        ("{3dF+1d4}kh2", [(3, -1)] * 3 + [(4, 1)], "kh", 2, 0),
        ("{5d4+1d12}k5", [(4, 1)] * 5 + [(12, 1)], "kh", 5, 0),
    ],
)
def test_group_keep_odds_are_exact_against_every_face(
    text: str, sizes: list[tuple[int, int]], keep: str, amount: int, added: int
) -> None:
    found = odds(parse(text), random.Random(SAMPLE_SEED))
    assert found.method is Method.EXACT
    expected = product_odds(sizes, keep, amount, added)
    assert {total: found.exactly(total) for total in expected} == expected
    assert sum(expected.values()) == 1


@pytest.mark.parametrize("text", ["{2d4+1d6}k2", "{2d4+1d3}d1", "{1d4+2d3+1}kl2", "{2d4+1d6!}k2", "{2d4*2}kh1"])
def test_group_keep_odds_match_every_sequence_the_roller_draws(text: str) -> None:
    found = odds(parse(text), random.Random(SAMPLE_SEED))
    expected, left_out = enumerate_roller(text, max_draws=8)
    if found.method is Method.EXACT:
        assert left_out == 0
        assert {total: found.exactly(total) for total in expected} == expected
    else:  # the count covers sums of plain dice; an exploding or multiplied roll is sampled from the real roller
        assert found.method is Method.SAMPLED
        if left_out == 0:
            assert set(found.values) <= set(expected)


# -- x, a bare r, a leading (Label), abs and floor ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "normalized", "faces", "total"),
    [
        ("3d6x", "3d6!", [6, 2, 1, 4], 13),  # RPG Sage's and python-dice's x: the 6 explodes into a 4
        ("5d10x8", "5d10!>=8", [8, 1, 1, 1, 1, 3], 15),  # x8: on 8 or more
        ("5d10x>=9", "5d10!>=9", [9, 1, 1, 1, 1, 2], 15),
        ("4d6xkh3", "4d6!kh3", [6, 2, 1, 4, 3], 13),
        ("2d6r", "2d6r1", [1, 4, 1, 5], 9),  # Roll20's bare r rerolls 1s, until they stop showing
        ("2d6ro+1", "2d6ro1 + 1", [1, 4, 1], 6),
        ("floor((1d8+3)/2)", "floor((1d8 + 3) / 2)", [4], 3),
        ("abs(1d6-1d8)", "abs(1d6 - 1d8)", [2, 7], 5),
        ("1d20 + abs(-3)", "1d20 + abs(-3)", [10], 13),
        ("(d20)+5", "(1d20) + 5", [10], 15),  # parentheses holding dice are no label
    ],
)
def test_the_peers_spellings_roll_with_their_meaning(text: str, normalized: str, faces: list[int], total: int) -> None:
    result = roll(text, ScriptedDice(faces))
    assert result.expression_text == normalized
    assert result.total == total


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("(Fire Bolt) 8d6", "Fire Bolt"),
        ("(Attack) 1d20+5 Longsword", "Attack Longsword"),
        ("(Stealth) +d20+5", "Stealth"),
    ],
)
def test_a_label_in_parentheses_before_the_roll_is_its_label(text: str, label: str) -> None:
    result = roll(text, random.Random(1))
    assert result.label == label


def test_the_readings_are_in_the_notes() -> None:
    assert roll("3d6x", random.Random(1)).notes == (
        "x explodes on the top face, as ! does: RPG Sage's and python-dice's spelling.",
    )
    assert roll("2d6r", random.Random(1)).notes[0] == "A bare r rerolls 1s, as in Roll20 (r1)."
    assert "floor(...) changes nothing here" in roll("floor(1d8/2)", random.Random(1)).notes[-1]


@pytest.mark.parametrize(
    ("text", "position", "teaches"),
    [
        ("(Fire Bolt)", 11, "(Fire Bolt) 8d6"),
        ("3d6xo", 3, "write ! to explode"),
        ("floor 1d8", 0, "floor((1d8+3)/2)"),
        ("abs 1d8", 0, "abs(1d6-1d6)"),
    ],
)
def test_what_does_not_read_points_at_the_spot_and_names_the_spelling(text: str, position: int, teaches: str) -> None:
    with pytest.raises(DiceSyntaxError) as caught:
        parse(text)
    assert caught.value.position == position
    assert teaches in caught.value.message


@pytest.mark.parametrize("text", ["abs(1d6-1d8)", "abs(1d4-3)*2", "floor((1d8+3)/2)", "2d4r", "2d3x", "1d4x3"])
def test_their_odds_match_every_sequence_the_roller_draws(text: str) -> None:
    found = odds(parse(text), random.Random(SAMPLE_SEED))
    expected, left_out = enumerate_roller(text, max_draws=9)
    assert found.method is Method.EXACT
    slack = left_out + Fraction(1, 10**9)
    for total in set(expected) | set(range(found.low, min(found.high, found.low + 40) + 1)):
        assert abs(found.exactly(total) - expected.get(total, Fraction(0))) <= slack, total


def test_abs_against_every_face() -> None:
    counts: dict[int, int] = {}
    for a, b in itertools.product(range(1, 7), range(1, 9)):
        counts[abs(a - b)] = counts.get(abs(a - b), 0) + 1
    found = odds(parse("abs(1d6-1d8)"), random.Random(SAMPLE_SEED))
    assert {total: found.exactly(total) for total in counts} == {t: Fraction(c, 48) for t, c in counts.items()}


# -- every error points at the spot and names a spelling that works ------------------------------------------

MISTYPED = [
    "1d", "d", "2d6+", "(1d6", "1d6)", "1d20+5)", "3d6!>", "2d6r<", "1d20 +", "*2d6", "2d6**2**2", "2d6^x", "4d6kk3",
    "4d6khh3", "5d10>=8f", "5d10t", "5d10t8f", "1d20adv+", "1d20+5 dis adv", "4d6mi", "4d6ma", "1dd6", "1d6,1d8",
    "{1d6, 1d8", "{1d6 1d8}", "{}", "()", "[1d6]", "1d6[", "1,5d6", "1.5d6", "d6.", "1d6 - * 2", "1d6//", "5d6>",
    "4d-6", "-", "1d20+5 #attack", "4d6@3", "1d6&1d8", "2d6=", "4d6p", "1d20 ro<", "5d10>8f<", "4d6l1", "4d6h3",
    "1d6 1d8", "5d10 t8 b1", "2d6 reroll", "ceil(1d8/2)", "sqrt(16)", "1d20kh1kl1", "4d6k>3k<5", "d20+d", "1e6",
    "1d6 + 2d", "3d6xo", "(Fire Bolt)",
]  # fmt: skip


def spellings_that_roll(hint: str) -> list[str]:
    """The words of `hint` that are themselves rolls with dice in them (trailing punctuation aside)."""
    found = []
    words = hint.split()
    if "For example: " in hint:
        words.append(hint.split("For example: ", 1)[1])
    for word in words:
        for each in {word.strip(".,;:"), word.strip(".,;:()")}:
            if "d" not in each.lower() or not any(c.isdigit() for c in each):
                continue
            try:
                parse(each)
            except DiceError:
                continue
            found.append(each)
    return found


@pytest.mark.parametrize("text", MISTYPED)
def test_every_mistyped_roll_is_refused_at_the_spot_with_a_spelling_that_works(text: str) -> None:
    with pytest.raises(DiceSyntaxError) as caught:
        parse(text)
    error = caught.value
    assert 0 <= error.position <= len(text)
    assert error.hint is not None
    assert spellings_that_roll(error.hint), f"{text}: {error.hint}"


def test_a_missing_failure_face_is_taught_as_f_not_r() -> None:
    with pytest.raises(DiceSyntaxError) as caught:
        parse("5d10>=8f")
    assert caught.value.position == 8
    assert "after f, like f1" in caught.value.hint and "5d10>=8f1" in caught.value.hint
    assert "r1" not in caught.value.hint


def test_a_comparison_written_backwards_reads() -> None:
    assert str(parse("1d6 =< 3")) == str(parse("1d6<=3"))
    assert str(parse("5d10=>8")) == str(parse("5d10>=8"))


# -- Dice Maiden's system aliases ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("alias", "notation"),
    [
        ("4wod8", "4d10ie10t8f1"),
        ("5cod", "5d10ie10t8"),
        ("5cod8", "5d10ie8t8"),
        ("3codr", "3d10ro<=7t8"),
        ("dd34", "(1d3*10)+1d4"),
        ("age", "2d6+1d6"),
        ("sr6", "6d6t5"),
        ("sp4", "4d10ie10t8"),
        ("5yz", "5d6t6"),
        ("snm3", "3d6ie6t4"),
        ("d6s4", "4d6+1d6ie"),
        ("d6s", "1d6ie"),
        ("4wh3+", "4d6t3"),
        ("+d6", "2d6kh1"),
        ("+d%", "((2d10kl1-1)*10)+1d10"),
    ],
)
def test_dice_maidens_aliases_roll_what_they_stand_for(alias: str, notation: str) -> None:
    for seed in range(5):
        assert roll(alias, random.Random(seed)).total == roll(notation, random.Random(seed)).total
    assert f"{alias} is Dice Maiden's" in roll(alias, random.Random(1)).notes[-1]
    assert notation in roll(alias, random.Random(1)).notes[-1]


def test_a_minus_die_opening_a_roll_subtracts_it_as_roll20_and_avrae_do() -> None:
    result = roll("-d8+2", ScriptedDice([5]))
    assert result.total == -3
    assert result.notes == (
        "-d8 opening a roll subtracts a d8, as in Roll20 and Avrae (Dice Maiden's disadvantage: write 2d8kl1).",
    )


def test_an_alias_is_a_term_like_any_other() -> None:
    assert roll("dd34 + 5", ScriptedDice([2, 3])).total == 28
    assert roll("+d6+2", ScriptedDice([2, 5])).total == 7


@pytest.mark.parametrize(
    ("text", "teaches"),
    [
        ("attack+5", "1d20+5"),
        ("save", "1d20+5"),
        ("ed5", "2d6!"),
        ("ex5", "6d10t7"),
        ("4hsn", "5d6"),
        ("dndstats", "6 4d6k3"),
    ],
)
def test_the_aliases_with_no_reading_here_are_refused_with_what_works(text: str, teaches: str) -> None:
    with pytest.raises(DiceSyntaxError) as caught:
        parse(text)
    assert teaches in caught.value.message


def test_an_alias_of_no_dice_is_refused() -> None:
    with pytest.raises(DiceError, match="0wod8 asks for no dice"):
        parse("0wod8")


@pytest.mark.parametrize("text", ["dd23", "age", "+d4", "+d%", "2yz"])
def test_alias_odds_match_every_sequence_the_roller_draws(text: str) -> None:
    found = odds(parse(text), random.Random(SAMPLE_SEED))
    expected, left_out = enumerate_roller(text, max_draws=8)
    assert found.method is Method.EXACT and left_out == 0
    assert {total: found.exactly(total) for total in expected} == expected


# -- Avrae's comparisons and Roll20's powers ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "faces", "total"),
    [
        ("1d20+5 >= 15", [10], 1),
        ("1d20+5 >= 15", [9], 0),
        ("1d20+5 > 15", [10], 0),  # Avrae's > is strict
        ("1d20+5 < 15", [9], 1),
        ("1d20+5 = 15", [10], 1),
        ("1d20+5 == 14", [10], 0),
        ("(1d20+2 >= 12) * 2d6", [10, 3, 4], 7),
        ("1d20 > 10", [10], 1),  # right after the dice, Roll20's count of dice showing 10 or more
        ("2**3", [], 8),
        ("(1d4)**2", [3], 9),
        ("-2**2", [], -4),
        ("1d6**0", [4], 1),
    ],
)
def test_comparisons_and_powers(text: str, faces: list[int], total: int) -> None:
    assert roll(text, ScriptedDice(faces)).total == total


@pytest.mark.parametrize(
    ("text", "position", "teaches"),
    [
        ("1d6**11", 5, "(1d4)**2"),
        ("1d6**1d4", 5, "(1d4)**2"),
        ("(2**3)**2", 6, "(1d4)**2"),
        ("2d6**2**2", 6, "2d6**2"),
    ],
)
def test_a_power_takes_one_small_number(text: str, position: int, teaches: str) -> None:
    with pytest.raises(DiceSyntaxError) as caught:
        parse(text)
    assert caught.value.position == position
    assert teaches in caught.value.message


def test_a_caret_reads_two_ways_and_is_refused_with_both_spellings() -> None:
    with pytest.raises(DiceSyntaxError) as caught:
        parse("6d6^3")
    assert caught.value.position == 3
    assert "6d6kh3" in caught.value.message and "(1d4)**2" in caught.value.message


@pytest.mark.parametrize("text", ["1d20+5 >= 15", "(1d6+1 > 1d4) * 3", "1d4**2", "(1d3-2)**3", "2d4**2 == 16"])
def test_comparison_and_power_odds_match_every_sequence_the_roller_draws(text: str) -> None:
    found = odds(parse(text), random.Random(SAMPLE_SEED))
    expected, left_out = enumerate_roller(text, max_draws=8)
    assert found.method is Method.EXACT and left_out == 0
    assert {total: found.exactly(total) for total in expected} == expected


@pytest.mark.parametrize(
    ("text", "position", "says"),
    [
        ("10d20r<20", 0, "write r<19, or Avrae's rr<20"),
        ("2d6 + 4dF!", 6, "Fudge dice can't explode or reroll"),
        ("1d8 + 4d6k0", 6, "use at least 1"),
        ("1d6x0", 0, "would explode forever"),
        ("2d6 + 3d6mi5ma2", 6, "The minimum is above the maximum"),
    ],
)
def test_a_term_that_reads_but_cannot_roll_is_refused_with_the_caret_under_it(
    text: str, position: int, says: str
) -> None:
    with pytest.raises(DiceSyntaxError) as caught:
        parse(text)
    assert caught.value.position == position
    assert says in caught.value.message


def test_avraes_rank_selectors_on_rerolls_are_refused_with_what_works() -> None:
    with pytest.raises(DiceSyntaxError) as caught:
        parse("4d6rol1")
    assert caught.value.position == 3
    assert "4d6ro<2" in caught.value.message and "4d6pl1" in caught.value.message


@pytest.mark.parametrize(
    ("text", "normalized", "faces", "total"),
    [
        ("6d10tl3", "6d10t<=3", [1, 3, 4, 9, 2, 10], 3),  # Dice Maiden's tl: successes at 3 or less
        ("2d6rg5", "2d6ro>=5", [5, 2, 6], 8),  # rg: reroll 5 or more, once
        ("2d6irg5", "2d6r>=5", [5, 2, 6, 3], 5),  # irg: until the die shows less
    ],
)
def test_dice_maidens_low_targets_and_high_rerolls(text: str, normalized: str, faces: list[int], total: int) -> None:
    result = roll(text, ScriptedDice(faces))
    assert (result.expression_text, result.total) == (normalized, total)


def test_a_botch_count_names_the_spellings_that_count_them() -> None:
    with pytest.raises(DiceSyntaxError) as caught:
        parse("5d10 t8 b1")
    assert caught.value.position == 8
    assert "5d10t8f1" in caught.value.message and "5d10=1" in caught.value.message
