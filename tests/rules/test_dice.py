import itertools
import json
import random
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.errors import UserError
from bot.rules.dice import (
    MAX_DICE,
    MAX_EXPRESSION_LENGTH,
    MAX_EXTRA_ROLLS,
    MAX_LITERAL,
    MAX_REPEAT,
    MAX_ROLLS_AT_ONCE,
    MAX_SIDES,
    MIN_SIDES,
    AnnotatedResult,
    BinaryOp,
    BinaryResult,
    Comparator,
    Condition,
    Dice,
    DiceError,
    DiceLimitError,
    DiceResult,
    DiceSyntaxError,
    DieState,
    ExplodeMode,
    Group,
    GroupResult,
    Keep,
    KeepMode,
    Negate,
    NegateResult,
    Number,
    NumberResult,
    Operator,
    ResultNode,
    RollResult,
    RollsResult,
    SetResult,
    parse,
    roll,
)
from tests.dice_sources import NoDice, ScriptedDice
from tests.strategies import _EXPRESSION_TEXT, _OTHER_TEXT

KEPT, DROPPED, REROLLED = DieState.KEPT, DieState.DROPPED, DieState.REROLLED


def roll_scripted(text: str, faces: Iterable[int]) -> RollResult:
    """Roll `text` with exactly `faces`: the whole script must be used."""
    source = ScriptedDice(faces)
    result = roll(text, source)
    assert source.exhausted, f"only {source.used} of the scripted faces were used"
    return result


def only_dice(result: RollResult) -> DiceResult:
    assert isinstance(result.tree, DiceResult)
    return result.tree


def faces(term: DiceResult) -> list[int]:
    return [die.face for die in term.dice]


def states(term: DiceResult) -> list[DieState]:
    return [die.state for die in term.dice]


def walk(node: ResultNode) -> Iterator[ResultNode]:
    yield node
    if isinstance(node, NegateResult):
        yield from walk(node.operand)
    elif isinstance(node, BinaryResult):
        yield from walk(node.left)
        yield from walk(node.right)
    elif isinstance(node, GroupResult | AnnotatedResult):
        yield from walk(node.inner)
    elif isinstance(node, SetResult | RollsResult):
        for item in node.items:
            yield from walk(item)


# ------------------------------------------------------------------------------------------ plain rolls


def test_plain_sum() -> None:
    result = roll_scripted("3d6", [1, 2, 6])
    assert result.total == 9
    assert result.expression_text == "3d6"
    assert not result.capped
    term = only_dice(result)
    assert faces(term) == [1, 2, 6]
    assert states(term) == [KEPT, KEPT, KEPT]
    assert not any(die.exploded or die.extra for die in term.dice)


def test_count_defaults_to_one_and_text_is_normalized() -> None:
    source = ScriptedDice([4])
    result = roll("  D8 ", source)
    assert result.total == 4
    assert result.expression_text == "1d8"
    assert source.calls == [(1, 8)]


def test_d_percent_is_d100() -> None:
    source = ScriptedDice([100, 37])
    result = roll("2d%", source)
    assert result.total == 137
    assert result.expression_text == "2d100"
    assert source.calls == [(1, 100), (1, 100)]


def test_constant_only() -> None:
    result = roll_scripted("42", [])
    assert result.total == 42
    assert result.tree == NumberResult(42)


def test_largest_literal_is_allowed() -> None:
    assert roll_scripted(str(MAX_LITERAL), []).total == MAX_LITERAL


@pytest.mark.parametrize(
    ("text", "script", "total"),
    [
        ("2+3*4", [], 14),
        ("(2+3)*4", [], 20),
        ("10-2-3", [], 5),
        ("2*3*4", [], 24),
        ("2*3+d6", [4], 10),
        ("2 * (1d6 + 3) - 4", [5], 12),
        ("((1))", [], 1),
        ("1d4 + 1d6 * 2", [3, 5], 13),
    ],
)
def test_arithmetic_precedence_and_parentheses(text: str, script: list[int], total: int) -> None:
    assert roll_scripted(text, script).total == total


def test_tree_shape_follows_precedence() -> None:
    assert parse("1 + 2 * 3") == BinaryOp(Operator.ADD, Number(1), BinaryOp(Operator.MULTIPLY, Number(2), Number(3)))
    assert parse("(1 + 2) * 3") == BinaryOp(
        Operator.MULTIPLY, Group(BinaryOp(Operator.ADD, Number(1), Number(2))), Number(3)
    )
    assert parse("1 - 2 - 3") == BinaryOp(
        Operator.SUBTRACT, BinaryOp(Operator.SUBTRACT, Number(1), Number(2)), Number(3)
    )


@pytest.mark.parametrize(
    ("text", "script", "total"),
    [
        ("-3", [], -3),
        ("--3", [], 3),
        ("-d6", [4], -4),
        ("2*-3", [], -6),
        ("1 - -1", [], 2),
        ("-(2+3)", [], -5),
        ("-2*3", [], -6),
    ],
)
def test_unary_minus(text: str, script: list[int], total: int) -> None:
    assert roll_scripted(text, script).total == total


def test_unary_minus_binds_tighter_than_multiplication() -> None:
    assert parse("-2*3") == BinaryOp(Operator.MULTIPLY, Negate(Number(2)), Number(3))


def test_case_and_whitespace_are_ignored() -> None:
    assert parse(" 4 D 6 KH 3 + D20 ADV ") == parse("4d6kh3+d20adv")
    assert str(parse("1D20 DIS+5")) == "1d20dis + 5"


# -------------------------------------------------------------------------------------------- keep/drop


@pytest.mark.parametrize(
    ("text", "total", "expected_states"),
    [
        ("4d6kh3", 14, [KEPT, DROPPED, KEPT, KEPT]),
        ("4d6kh", 6, [KEPT, DROPPED, DROPPED, DROPPED]),
        ("4d6kl", 1, [DROPPED, KEPT, DROPPED, DROPPED]),
        ("4d6kl2", 5, [DROPPED, KEPT, KEPT, DROPPED]),
        ("4d6dh", 9, [DROPPED, KEPT, KEPT, KEPT]),
        ("4d6dl2", 10, [KEPT, DROPPED, DROPPED, KEPT]),
        ("4d6kh9", 15, [KEPT, KEPT, KEPT, KEPT]),
        ("4d6dl9", 0, [DROPPED, DROPPED, DROPPED, DROPPED]),
    ],
)
def test_keep_and_drop(text: str, total: int, expected_states: list[DieState]) -> None:
    result = roll_scripted(text, [6, 1, 4, 4])
    assert result.total == total
    assert states(only_dice(result)) == expected_states


def test_keep_ties_go_to_the_earlier_die() -> None:
    assert states(only_dice(roll_scripted("3d6kh1", [5, 5, 2]))) == [KEPT, DROPPED, DROPPED]
    assert states(only_dice(roll_scripted("3d6dl1", [2, 5, 2]))) == [DROPPED, KEPT, KEPT]


# ------------------------------------------------------------------------------------------- explosions


def test_explode_on_max_chains() -> None:
    term = only_dice(roll_scripted("d6!", [6, 6, 3]))
    assert term.total == 15
    assert faces(term) == [6, 6, 3]
    assert [die.exploded for die in term.dice] == [True, True, False]
    assert [die.extra for die in term.dice] == [False, True, True]
    assert states(term) == [KEPT, KEPT, KEPT]


def test_explosion_dice_follow_the_die_that_exploded() -> None:
    # Both dice are rolled first; the explosion die is then placed right after the 6.
    term = only_dice(roll_scripted("2d6!", [6, 2, 5]))
    assert faces(term) == [6, 5, 2]
    assert [die.extra for die in term.dice] == [False, True, False]
    assert term.total == 13


@pytest.mark.parametrize(
    ("text", "script", "total", "normalized"),
    [
        # Roll20's reading: >8 is "8 or more", <2 is "2 or less" (issue 17 made > and < inclusive).
        ("d10!>8", [8, 10, 3], 21, "1d10!>=8"),
        ("d10!<2", [2, 1, 5], 8, "1d10!<=2"),
        ("d10!>=9", [9, 10, 3], 22, "1d10!>=9"),
        ("d6!=3", [3, 3, 4], 10, "1d6!3"),
        ("d6!3", [3, 6], 9, "1d6!3"),
        ("d6!6", [6, 2], 8, "1d6!"),
        ("d6!>7", [6], 6, "1d6!>=7"),
        ("d6!=7", [6], 6, "1d6!7"),
    ],
)
def test_explode_conditions(text: str, script: list[int], total: int, normalized: str) -> None:
    result = roll_scripted(text, script)
    assert result.total == total
    assert result.expression_text == normalized


def test_exploded_dice_join_the_pool_for_keep() -> None:
    result = roll_scripted("2d6!kh2", [6, 1, 5])
    term = only_dice(result)
    assert faces(term) == [6, 5, 1]
    assert states(term) == [KEPT, KEPT, DROPPED]
    assert result.total == 11


# ---------------------------------------------------------------------------------------------- rerolls


def test_reroll_until_it_stops_matching() -> None:
    term = only_dice(roll_scripted("d6r1", [1, 1, 4]))
    assert faces(term) == [1, 1, 4]
    assert states(term) == [REROLLED, REROLLED, KEPT]
    assert term.total == 4


def test_reroll_once_keeps_the_second_face() -> None:
    term = only_dice(roll_scripted("d6ro1", [1, 1]))
    assert states(term) == [REROLLED, KEPT]
    assert term.total == 1


@pytest.mark.parametrize(
    ("text", "script", "total"),
    [
        ("d6r<3", [2, 1, 5], 5),
        ("d6r>4", [6, 5, 3], 3),
        ("d6r=2", [2, 3], 3),
        ("d6r7", [6], 6),
        ("d6ro<7", [2, 1], 1),
    ],
)
def test_reroll_conditions(text: str, script: list[int], total: int) -> None:
    assert roll_scripted(text, script).total == total


def test_rerolls_happen_after_all_dice_are_rolled() -> None:
    term = only_dice(roll_scripted("2d6r1", [1, 3, 2]))
    assert faces(term) == [1, 2, 3]
    assert states(term) == [REROLLED, KEPT, KEPT]


def test_explosion_dice_go_through_the_reroll_rule() -> None:
    result = roll_scripted("d6!r1", [6, 1, 2])
    term = only_dice(result)
    assert faces(term) == [6, 1, 2]
    assert states(term) == [KEPT, REROLLED, KEPT]
    assert [die.exploded for die in term.dice] == [True, False, False]
    assert [die.extra for die in term.dice] == [False, True, True]
    assert result.total == 8
    assert result.expression_text == "1d6r1!"


def test_rerolled_dice_are_never_kept_or_dropped() -> None:
    term = only_dice(roll_scripted("3d6r1kh2", [1, 6, 2, 5]))
    assert faces(term) == [1, 5, 6, 2]
    assert states(term) == [REROLLED, KEPT, KEPT, DROPPED]
    assert term.total == 11


# ------------------------------------------------------------------------------------------- adv / dis


def test_advantage_keeps_the_higher_d20() -> None:
    source = ScriptedDice([3, 17])
    result = roll("d20adv", source)
    assert result.total == 17
    assert states(only_dice(result)) == [DROPPED, KEPT]
    assert result.expression_text == "1d20adv"
    assert source.calls == [(1, 20), (1, 20)]


def test_disadvantage_keeps_the_lower_d20() -> None:
    result = roll_scripted("1d20 dis + 5", [3, 17])
    assert result.total == 8
    assert result.expression_text == "1d20dis + 5"


def test_advantage_tie_keeps_the_first() -> None:
    assert states(only_dice(roll_scripted("d20adv", [10, 10]))) == [KEPT, DROPPED]


@pytest.mark.parametrize("text", ["2d20adv", "d6adv", "d12dis", "3d20 dis"])
def test_advantage_needs_a_single_d20(text: str) -> None:
    with pytest.raises(DiceError, match="adv/dis applies to a single d20"):
        parse(text)


@pytest.mark.parametrize("text", ["d20advkh1", "d20r1adv", "d20adv!", "d20 dis adv"])
def test_advantage_takes_no_other_modifier(text: str) -> None:
    with pytest.raises(DiceSyntaxError, match="adv/dis can't be combined"):
        parse(text)


# -------------------------------------------------------------------------------------- extra-roll cap


def test_explosion_cap() -> None:
    source = ScriptedDice([2] * (MAX_EXTRA_ROLLS + 2))
    result = roll("d2!", source)
    term = only_dice(result)
    assert result.capped
    assert term.capped
    assert source.used == 1 + MAX_EXTRA_ROLLS
    assert len(term.dice) == 1 + MAX_EXTRA_ROLLS
    assert sum(die.exploded for die in term.dice) == MAX_EXTRA_ROLLS
    assert not term.dice[-1].exploded
    assert result.total == 2 * (1 + MAX_EXTRA_ROLLS)


def test_reroll_cap() -> None:
    source = ScriptedDice([1] * (MAX_EXTRA_ROLLS + 2))
    term = only_dice(roll("d6r1", source))
    assert term.capped
    assert source.used == 1 + MAX_EXTRA_ROLLS
    assert states(term) == [REROLLED] * MAX_EXTRA_ROLLS + [KEPT]
    assert term.total == 1


def test_cap_is_shared_by_the_whole_expression() -> None:
    source = ScriptedDice([2] * (MAX_EXTRA_ROLLS + 2))
    result = roll("d2! + d2!", source)
    assert result.capped
    assert source.used == 1 + MAX_EXTRA_ROLLS + 1
    assert isinstance(result.tree, BinaryResult)
    left, right = result.tree.left, result.tree.right
    assert isinstance(left, DiceResult)
    assert isinstance(right, DiceResult)
    assert left.capped
    assert right.capped
    assert len(right.dice) == 1


def test_cap_not_reached() -> None:
    result = roll_scripted("d2!", [2] * 99 + [1])
    assert not result.capped
    assert result.total == 2 * 99 + 1


# -------------------------------------------------------------------------------------------- refusals


def test_dice_error_is_a_user_error_with_its_title() -> None:
    with pytest.raises(DiceError) as caught:
        parse("1d20+")
    assert isinstance(caught.value, UserError)
    assert caught.value.title == "Can't roll that"


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("1+" * 100 + "1", ["201 characters", f"limit is {MAX_EXPRESSION_LENGTH}"]),
        ("1001d6", ["Too many dice", "1001 requested", f"limit is {MAX_DICE}"]),
        ("600d6 + 401d6", ["Too many dice", "1001 requested", f"limit is {MAX_DICE}"]),
        ("d20adv + 999d6", ["Too many dice", "1001 requested"]),
        ("99999999999999999999999d6", ["Too many dice"]),
        ("d0", [f"between {MIN_SIDES} and {MAX_SIDES} sides"]),
        ("d10001", [f"between {MIN_SIDES} and {MAX_SIDES} sides", "10001"]),
        ("1000001", ["Number too large", f"limit is {MAX_LITERAL}"]),
        ("2 * (3 + 1000001)", ["Number too large", f"limit is {MAX_LITERAL}"]),
        ("4d6kh1000001", ["Number too large", f"limit is {MAX_LITERAL}"]),
        ("d6!>1000001", ["Number too large", f"limit is {MAX_LITERAL}"]),
    ],
)
def test_limits_are_refused_before_rolling(text: str, fragments: list[str]) -> None:
    with pytest.raises(DiceLimitError) as caught:
        roll(text, NoDice())
    for fragment in fragments:
        assert fragment in caught.value.message


def test_limits_themselves_are_allowed() -> None:
    source = random.Random(7)
    assert roll("1+" * 99 + "1", source).total == 100
    assert len(only_dice(roll(f"{MAX_DICE}d{MAX_SIDES}", source)).dice) == MAX_DICE
    assert only_dice(roll(f"d{MIN_SIDES}", source)).term.sides == MIN_SIDES


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("4d6kh0", "0 dice"),
        ("d6!>0", "explode forever"),
        ("d6!<7", "explode forever"),
        ("d2!<3", "explode forever"),
        ("d6r<7", "reroll forever"),
        ("d6r>0", "reroll forever"),
        ("d6r<5!", "explode forever"),  # r<5 is "5 or less" (Roll20), so only 6 is left, and it explodes
        ("d6r<6", "r<5, or Avrae's rr<6"),
        ("d6r<3!>2", "explode forever"),
        ("2d20adv", "single d20"),
    ],
)
def test_impossible_expressions_are_refused_before_rolling(text: str, fragment: str) -> None:
    with pytest.raises(DiceError, match=fragment):
        roll(text, NoDice())


def test_conditions_that_can_stop_are_allowed() -> None:
    # Rerolling 1-2 leaves 3-6, and only 4-6 explode: the chain can end.
    assert roll_scripted("d6r<2!>4", [5, 1, 3]).total == 8
    assert roll_scripted("d6ro<7!", [6, 6, 2, 3]).total == 9


# ----------------------------------------------------------------------------------------- syntax errors


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("1d20+", 5),
        ("1d20+)", 5),
        ("2d", 2),
        ("(1d6", 4),
        ("1d6 kh3q", 7),  # x explodes now (RPG Sage), so a letter no bot uses
        ("  )", 2),
        ("1d6)", 3),
        ("4d6khkl", 5),
        ("d6r<", 4),  # a bare r is Roll20's reroll 1s; a comparison needs its number
        ("d6!>", 4),
        ("d6 ! > +", 7),
        ("1 2", 2),
        ("1d6 + ?", 6),
        ("d6r1ro2", 4),
        ("k", 0),
        ("%", 0),
        ("1d20 + 5 # note", 9),
    ],
)
def test_syntax_error_positions(text: str, position: int) -> None:
    with pytest.raises(DiceSyntaxError) as caught:
        roll(text, NoDice())
    error = caught.value
    assert error.position == position
    assert error.text == text
    assert f"character {position + 1}" in error.message
    shown, caret = error.message.split("\n")[-3:-1]
    assert caret == " " * position + "^"
    assert len(shown) == len(text)


def test_syntax_error_message_format() -> None:
    with pytest.raises(DiceSyntaxError) as caught:
        parse("1d20+)")
    assert caught.value.reason == "Unexpected ')'"
    assert caught.value.message == (
        "Unexpected ')' at character 6. Expected a number, a die or '('.\n```\n1d20+)\n     ^\n```"
    )


def test_syntax_error_display_cannot_break_the_code_block() -> None:
    with pytest.raises(DiceSyntaxError) as caught:
        parse("\t1d6```")
    error = caught.value
    assert error.position == 4
    assert "backtick" in error.message
    assert error.message.count("`") == 6
    assert error.message.endswith("```\n 1d6'''\n    ^\n```")


def test_non_ascii_lookalikes_are_refused() -> None:
    # The Kelvin sign lower-cases to "k" and "²" is a digit to str.isdigit(); neither is part of the grammar.
    with pytest.raises(DiceSyntaxError) as caught:
        parse("4d6\u212ah3")
    assert caught.value.position == 3
    with pytest.raises(DiceSyntaxError) as caught:
        parse("d\u00b2")
    assert caught.value.position == 1


# ---------------------------------------------------------------------------------------- distributions


def distribution(text: str, sides: int, dice: int) -> Counter[int]:
    """Count the totals of `text` over every possible sequence of `dice` faces."""
    expression = parse(text)
    totals: Counter[int] = Counter()
    for outcome in itertools.product(range(1, sides + 1), repeat=dice):
        source = ScriptedDice(outcome)
        totals[roll(expression, source).total] += 1
        assert source.exhausted
    return totals


def test_4d6kh3_distribution() -> None:
    totals = distribution("4d6kh3", 6, 4)
    outcomes = 6**4
    assert totals.total() == outcomes
    assert Fraction(totals[18], outcomes) == Fraction(21, 1296)
    assert Fraction(totals[3], outcomes) == Fraction(1, 1296)
    mean = Fraction(sum(total * count for total, count in totals.items()), outcomes)
    assert mean == Fraction(15869, 1296)


def test_d20_advantage_distribution() -> None:
    totals = distribution("d20adv+5", 20, 2)
    hits = sum(count for total, count in totals.items() if total >= 20)
    assert Fraction(hits, totals.total()) == Fraction(51, 100)


def test_2d6_is_triangular() -> None:
    totals = distribution("2d6", 6, 2)
    assert dict(totals) == {total: 6 - abs(total - 7) for total in range(2, 13)}


# ------------------------------------------------------------------------------------ normalization, dict


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ("d20+5", "1d20 + 5"),
        ("4d6KH3", "4d6kh3"),
        ("4d6kh", "4d6kh1"),
        ("2*(d6+3)-4", "2 * (1d6 + 3) - 4"),
        ("d10kh1!>8ro<3", "1d10ro<=3!>=8kh1"),
        ("d6!=6", "1d6!"),
        ("d%!", "1d100!"),
        ("-(-d4)", "-(-1d4)"),
        ("d20 dis", "1d20dis"),
    ],
)
def test_normalized_text(text: str, normalized: str) -> None:
    assert str(parse(text)) == normalized
    assert parse(normalized) == parse(text)


def test_ast_modifiers() -> None:
    dice = parse("3d8r<2!kl2")
    assert isinstance(dice, Dice)
    assert dice.keep == Keep(KeepMode.KEEP_LOWEST, 2)
    assert dice.explode == Condition(Comparator.EQUAL, 8)
    assert dice.reroll is not None
    assert dice.reroll.condition == Condition(Comparator.AT_MOST, 2)
    assert not dice.reroll.once


def test_roll_accepts_a_parsed_expression() -> None:
    expression = parse("d6 + 1")
    assert roll(expression, ScriptedDice([3])).total == 4


def test_to_dict() -> None:
    result = roll_scripted("-(d6!r1 + 2)", [6, 1, 3])
    data = result.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["expression"] == "-(1d6r1! + 2)"
    assert data["total"] == -11
    assert data["capped"] is False
    tree = data["tree"]
    assert tree["kind"] == "negate"
    group = tree["operand"]
    assert group["kind"] == "group"
    binary = group["inner"]
    assert binary["kind"] == "binary"
    assert binary["op"] == "+"
    assert binary["right"] == {"kind": "number", "value": 2, "total": 2}
    dice = binary["left"]
    assert dice["kind"] == "dice"
    assert dice["notation"] == "1d6r1!"
    assert dice["sides"] == 6
    assert dice["total"] == 9
    assert dice["dice"] == [
        {"face": 6, "state": "kept", "exploded": True, "extra": False},
        {"face": 1, "state": "rerolled", "exploded": False, "extra": True},
        {"face": 3, "state": "kept", "exploded": False, "extra": True},
    ]


@pytest.mark.parametrize(
    "text",
    [
        "(" * 99 + "1" + ")" * 99,
        "-" * 199 + "1",
        "1+" * 99 + "1",
        "-(" * 66 + "1" + ")" * 66,
    ],
)
def test_deepest_expressions_that_fit_do_not_hit_the_recursion_limit(text: str) -> None:
    result = roll(text, random.Random(0))
    json.dumps(result.to_dict())
    if len(result.expression_text) <= MAX_EXPRESSION_LENGTH:
        assert parse(result.expression_text) == parse(text)


def test_system_random_is_a_dice_source() -> None:
    check_result(roll("4d6kh3 + d20adv", random.SystemRandom()))


def test_the_largest_roll_draws_each_die_once() -> None:
    # Its work is its dice, not its sides; how long it takes is `python -m tests.perf.bench_dice_worst`'s figure.
    source = ScriptedDice([MAX_SIDES] * MAX_DICE)
    result = roll(f"{MAX_DICE}d{MAX_SIDES}", source)
    assert source.exhausted and set(source.calls) == {(1, MAX_SIDES)}
    assert result.total == MAX_DICE * MAX_SIDES


# ------------------------------------------------------------------------------------------- properties


def check_result(result: RollResult) -> None:
    """Invariants of every result: faces within their dice, caps respected, totals consistent."""
    assert isinstance(result, RollResult)
    json.dumps(result.to_dict())
    requested = 0
    extra_rolls = 0
    compounding = False
    for node in walk(result.tree):
        if isinstance(node, DiceResult):
            term = node.term
            assert MIN_SIDES <= term.sides <= MAX_SIDES
            if term.explode_mode is ExplodeMode.COMPOUND and term.explode is not None:
                compounding = True  # its extra rolls are added into the die, so they can't be counted here
                requested += term.rolled_count
                continue
            low, high = term.faces
            low -= term.explode_mode is ExplodeMode.PENETRATE
            if term.minimum is not None:  # mi and ma force the face, even outside the die's own faces
                low, high = term.minimum, max(high, term.minimum)
            if term.maximum is not None:
                low, high = min(low, term.maximum), term.maximum
            assert all(low <= die.face <= high for die in node.dice)
            kept = [die for die in node.dice if die.state is KEPT]
            if term.success is not None:
                assert node.total == sum(die.success for die in kept) - sum(die.failure for die in kept)
            else:
                assert node.total == sum(die.face for die in kept)
            requested += term.rolled_count
            extra_rolls += len(node.dice) - term.rolled_count
            if term.reroll is not None and term.reroll.add:
                continue  # `ra` adds an extra die that no explosion started
            # Each explosion starts one extra die; a rerolled die is always followed by its replacement.
            replacements = [i for i in range(1, len(node.dice)) if node.dice[i - 1].state is REROLLED]
            chain_starts = [i for i, die in enumerate(node.dice) if die.extra and i not in replacements]
            assert sum(die.exploded for die in node.dice) == len(chain_starts)
            assert not node.dice or node.dice[-1].state is not REROLLED
        elif isinstance(node, NegateResult):
            assert node.total == -node.operand.total
        elif isinstance(node, GroupResult):
            assert node.total == (abs(node.inner.total) if node.function == "abs" else node.inner.total)
    assert requested <= MAX_DICE
    assert extra_rolls <= MAX_EXTRA_ROLLS
    if result.capped and not compounding:
        assert extra_rolls == MAX_EXTRA_ROLLS
    assert result.total == result.tree.total


class CountedDice:
    """A seeded source that counts its draws."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)
        self.draws = 0

    def randint(self, a: int, b: int) -> int:
        self.draws += 1
        return self._rng.randint(a, b)


def roll_or_refuse(text: str, seed: int) -> None:
    source = CountedDice(seed)
    try:
        result = roll(text, source)
    except DiceError:
        assert source.draws == 0  # refused before anything was rolled
        return
    check_result(result)
    # The work is bounded before rolling: no text draws more than the dice limit plus the extra-roll budget.
    assert source.draws <= MAX_DICE + MAX_EXTRA_ROLLS
    # Normalized text parses back to the same tree, when it still fits the length limit.
    if len(result.expression_text) <= MAX_EXPRESSION_LENGTH:
        assert parse(result.expression_text) == parse(text)


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(text=st.text(max_size=200), seed=st.integers(0, 2**32))
def test_any_text_rolls_or_raises_dice_error(text: str, seed: int) -> None:
    roll_or_refuse(text, seed)


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(text=_EXPRESSION_TEXT, seed=st.integers(0, 2**32))
def test_grammar_shaped_text_rolls_or_raises_dice_error(text: str, seed: int) -> None:
    roll_or_refuse(text, seed)


# ------------------------------------------------------------------------- the notation table (docs/dice.md)

_DOCS = Path(__file__).resolve().parents[2] / "docs" / "dice.md"


def notation_examples() -> list[str]:
    """Every example in the first column of the first table of docs/dice.md."""
    text = _DOCS.read_text(encoding="utf-8")
    table = text.split("## Every notation", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    return [example for row in rows for example in re.findall(r"`([^`]+)`", row.split("|")[1])]


def test_the_docs_table_is_long_enough_to_mean_something() -> None:
    assert len(notation_examples()) >= 60


@pytest.mark.parametrize("example", notation_examples())
def test_every_example_in_the_docs_table_rolls(example: str) -> None:
    if example in ("+ - *", "( )"):
        return
    result = roll(example, random.Random(0))
    check_result(result)


# ------------------------------------------------------------------ other bots' notations (issue 17), forced


@pytest.mark.parametrize(
    ("text", "script", "total", "normalized"),
    [
        # Division rounds down, at each division; // is the same; % is Avrae's remainder.
        ("4d6/2", [3, 4, 5, 1], 6, "4d6 / 2"),
        ("(1d8+3)/2", [4], 3, "(1d8 + 3) / 2"),
        ("-1d4/2", [3], -2, "-1d4 / 2"),
        ("1d10//3", [8], 2, "1d10 / 3"),
        ("1d100 % 10", [47], 7, "1d100 % 10"),
        # Keep and drop without h/l: k is highest, d (after the dice) is lowest.
        ("4d6k3", [3, 6, 1, 5], 14, "4d6kh3"),
        ("4d6 k3", [3, 6, 1, 5], 14, "4d6kh3"),
        ("4d6d1", [3, 6, 1, 5], 14, "4d6dl1"),
        ("8d100d3", [10, 20, 30, 40, 50, 60, 70, 80], 300, "8d100dl3"),
        # Avrae's p (drop), and keep/drop by face, reading < and > strictly.
        ("4d6pl1", [3, 6, 1, 5], 14, "4d6dl1"),
        ("4d6ph1", [3, 6, 1, 5], 9, "4d6dh1"),
        ("4d6k>3", [3, 6, 1, 5], 11, "4d6k>=4"),
        ("4d6p<3", [3, 6, 1, 5], 14, "4d6p<=2"),
        ("4d6p1", [1, 6, 1, 5], 11, "4d6p=1"),
        ("4d6k=6", [6, 6, 1, 5], 12, "4d6k=6"),
        # Advantage anywhere in the roll.
        ("1d20+5 adv", [7, 15], 20, "1d20adv + 5"),
        ("d20+3 dis", [7, 15], 10, "1d20dis + 3"),
        ("1d20+5adv", [7, 15], 20, "1d20adv + 5"),
        # Success counting: t is "at least"; Roll20's > and < are inclusive; f subtracts failures.
        ("6d10 t7", [7, 3, 10, 1, 6, 9], 3, "6d10t7"),
        ("5d10 t8 f1", [8, 1, 2, 9, 1], 0, "5d10t8f1"),
        ("3d6>3", [3, 2, 6], 2, "3d6t3"),
        ("3d6<2", [3, 2, 1], 2, "3d6t<=2"),
        ("10d10>=6f1", [6, 5, 1, 10, 1, 1, 7, 8, 2, 3], 1, "10d10t6f1"),
        ("{3d20+5}>21", [10, 5, 2], 1, "{3d20 + 5}>=21"),
        # Fudge dice.
        ("4dF", [-1, 0, 1, 1], 1, "4dF"),
        ("4dF+1", [-1, -1, -1, -1], -3, "4dF + 1"),
        # Groups and sets: each item totalled, the keep rule chooses among the totals.
        ("{4d6, 3d8}kh1", [1, 2, 3, 4, 8, 8, 8], 24, "{4d6, 3d8}kh1"),
        ("(1d6, 1d8, 1d10)kh2", [6, 1, 10], 16, "{1d6, 1d8, 1d10}kh2"),
        ("(1d6,)", [4], 4, "{1d6}"),
        # Avrae's operators.
        ("1d20e20", [20, 20, 3], 43, "1d20!"),
        ("1d10e>8", [9, 3], 12, "1d10!>=9"),
        ("2d6rr1", [1, 1, 4, 5], 9, "2d6r1"),
        ("2d6rr<3", [2, 3, 1, 1, 6], 9, "2d6r<=2"),
        ("4d6ra1", [1, 1, 4, 5, 6], 17, "4d6ra1"),  # the first 1 earns one more die; the second does not
        ("8d6mi2", [1, 2, 3, 4, 5, 6, 1, 1], 26, "8d6mi2"),
        ("1d20ma19", [20], 19, "1d20ma19"),
        # Dice Maiden's spellings.
        ("3d6 ie6", [6, 6, 1, 2, 3], 18, "3d6!>=6"),
        ("1d10 ie8", [8, 9, 2], 19, "1d10!>=8"),
        ("4d6 ir2", [1, 2, 5, 3, 4, 6], 18, "4d6r<=2"),
        ("10d6 e6 k8 +4", [6, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2], 4 + 6 + 2 + 6 * 1, "10d6!kh8 + 4"),
        # Roll20's compounding and penetrating dice.
        ("5d6!!", [6, 2, 1, 1, 1, 6, 1], 18, "5d6!!"),
        ("1d6!!>5", [5, 6, 2], 13, "1d6!!>=5"),
        ("1d6!p", [6, 6, 3], 13, "1d6!p"),
        # Roll20's comparators, now inclusive.
        ("5d10!>8", [8, 2, 3, 4, 5, 1], 23, "5d10!>=8"),
        ("2d8r<2", [2, 1, 5, 7], 12, "2d8r<=2"),
        ("2d8r1r3", [1, 3, 3, 8, 5], 13, "2d8r1r3"),  # Roll20: several reroll conditions, any of them rerolls
        # Display-only Roll20 modifiers are set aside.
        ("3d6sa", [3, 1, 2], 6, "3d6"),
        ("1d20cs>19", [19], 19, "1d20"),
        # No dice at all, and a one-sided die.
        # Dice Maiden's advantage and disadvantage aliases.
        ("+d20", [7, 15], 15, "1d20adv"),
        ("-d20 + 5", [7, 15], 12, "1d20dis + 5"),
        ("-d20kh1", [7], -7, "-1d20kh1"),
        ("2 - d20", [7], -5, "2 - 1d20"),
        # Roll20's inline roll.
        ("[[1d20+5]]", [3], 8, "1d20 + 5"),
        # The command pasted in from habit.
        ("/r 1d20+5", [3], 8, "1d20 + 5"),
        ("!roll 1d20", [3], 3, "1d20"),
        ("0d6", [], 0, "0d6"),
        ("1d1", [1], 1, "1d1"),
    ],
)
def test_other_bots_notations_mean_what_their_home_bot_says(
    text: str, script: list[int], total: int, normalized: str
) -> None:
    result = roll_scripted(text, script)
    assert result.total == total
    assert result.expression_text == normalized
    check_result(result)
    assert parse(normalized) == parse(text)


def test_compounding_dice_are_one_die_with_the_sum() -> None:
    term = only_dice(roll_scripted("1d6!!", [6, 6, 2]))
    assert [die.face for die in term.dice] == [14]
    assert term.dice[0].exploded


def test_penetrating_extra_dice_count_one_less() -> None:
    term = only_dice(roll_scripted("1d6!p", [6, 6, 3]))
    assert [(die.face, die.extra) for die in term.dice] == [(6, False), (5, True), (2, True)]


def test_reroll_and_add_keeps_the_original_and_adds_one_die_only() -> None:
    term = only_dice(roll_scripted("3d6ra1", [1, 1, 4, 2]))
    assert [(die.face, die.state, die.extra) for die in term.dice] == [
        (1, KEPT, False),
        (2, KEPT, True),
        (1, KEPT, False),
        (4, KEPT, False),
    ]


def test_successes_and_failures_are_marked_on_each_die() -> None:
    term = only_dice(roll_scripted("4d10t8f1", [8, 1, 5, 10]))
    assert [(die.success, die.failure) for die in term.dice] == [
        (True, False),
        (False, True),
        (False, False),
        (True, False),
    ]
    assert term.total == 1


def test_label_after_the_roll() -> None:
    assert roll_scripted("1d20+5 Roll for Initiative", [3]).label == "Roll for Initiative"
    assert roll_scripted("2d6+3 fire damage", [1, 2]).label == "fire damage"
    assert roll_scripted("4d6 ! Damage roll", [1, 2, 3, 4]).label == "Damage roll"
    assert roll_scripted("1d20 ätzend", [1]).label == "ätzend"
    assert roll_scripted("1d20", [1]).label is None
    assert parse("1d20+5 Roll for Initiative") == parse("1d20+5")


def test_several_rolls_and_repeats() -> None:
    result = roll_scripted("1d20+5; 2d6+3", [12, 3, 4])
    assert isinstance(result.tree, RollsResult)
    assert [item.total for item in result.tree.items] == [17, 10]
    assert result.tree.texts == ("1d20 + 5", "2d6 + 3")
    assert result.several
    repeated = roll_scripted("6 4d6k3", [3, 6, 1, 5] * 6)
    assert isinstance(repeated.tree, RollsResult)
    assert [item.total for item in repeated.tree.items] == [14] * 6
    assert repeated.expression_text == "6 4d6kh3"
    assert not roll_scripted("1d20", [3]).several


def test_where_bots_disagree_the_result_says_which_reading() -> None:
    notes = " ".join(roll_scripted("4d6k3 + 1d6r1 + 1d10!>8 + 1d6e6 + 4d6/2", [1] * 4 + [2, 3, 2, 1, 1, 1, 1]).notes)
    for said in ("k3 keeps the highest 3", "r rerolls until", ">8 means 8 or more", "e explodes again", "rounds down"):
        assert said in notes


def test_division_by_zero_counts_as_zero_and_says_so() -> None:
    result = roll_scripted("1d6/(1d2-1)", [5, 1])
    assert result.total == 0
    assert "division" in result.notes[-1]


@pytest.mark.parametrize(
    ("text", "teaches"),
    [
        ("3d6xo", "write ! to explode"),
        ("1d20advantage", "Write adv"),
        ("1d20+5 3 goblins", "label: option"),
        ("10d20r<20", "write r<19, or Avrae's rr<20"),
        ("2d20 + 1 adv", "exactly one plain d20"),
        ("4d10f1", "give the success target first"),
        ("4dFr1", "Fudge dice can't explode or reroll"),
        ("21 4d6", f"1 to {MAX_REPEAT} times"),
        ("1d6;" * 11, f"limit is {MAX_ROLLS_AT_ONCE}"),
        ("1d8[<fire>]", "A note like [fire]"),
        ("4d6k>3k<5", "Only one keep"),
        ("2d6r1ro2", "Only one kind of reroll"),
        ("4d6 p", "use the private:true option"),
        ("1d2r1r2", "reroll forever"),
    ],
)
def test_errors_name_what_to_write_instead(text: str, teaches: str) -> None:
    with pytest.raises(DiceError) as caught:
        roll(text, NoDice())
    assert teaches in caught.value.message


def test_repeats_count_towards_the_dice_limit() -> None:
    with pytest.raises(DiceLimitError, match="1200 requested"):
        roll("20 60d6", NoDice())


@pytest.mark.slow
def test_the_extra_roll_budget_lets_every_peer_roll_finish() -> None:
    # Avrae's `10d20rr<20` (keep rerolling until a 20) needs about 190 rerolls: once capped in 1892 of 2000 tries.
    rng = random.Random(17)
    assert not any(roll("10d20rr<20", rng).capped for _ in range(2000))


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(text=_OTHER_TEXT, seed=st.integers(0, 2**32))
def test_other_bots_text_rolls_or_raises_dice_error(text: str, seed: int) -> None:
    roll_or_refuse(text, seed)


@settings(max_examples=500, deadline=None)
@given(text=st.one_of(_OTHER_TEXT, st.text(max_size=60)).map(lambda t: t[:MAX_EXPRESSION_LENGTH]))
def test_caret_errors_point_inside_the_text(text: str) -> None:
    try:
        parse(text)
    except DiceSyntaxError as error:
        assert 0 <= error.position <= len(text)
        shown, caret = error.message.split("```\n")[1].splitlines()[:2]
        assert len(shown) == len(text)
        assert caret.index("^") == error.position
    except DiceError:
        pass
