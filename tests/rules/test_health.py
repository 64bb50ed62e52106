"""The one reader of hit points as players write them (bot/rules/health.py): table cases and Hypothesis."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.health import HealthChange, HealthInputError, Op, follow_maximum, given_back, read_change, settle

READS = [
    ("+5", HealthChange(Op.ADD, 5)),
    ("-13", HealthChange(Op.SUBTRACT, 13)),
    ("=28", HealthChange(Op.SET, 28)),
    ("28", HealthChange(Op.SET, 28, signed=False)),
    ("=-3", HealthChange(Op.SET, -3)),
    ("28/30", HealthChange(Op.SET, 28, 30, signed=False)),
    ("=28/30", HealthChange(Op.SET, 28, 30)),
    (" = 28 / 30 ", HealthChange(Op.SET, 28, 30)),
    ("=-3/30", HealthChange(Op.SET, -3, 30)),
    ("+ 0", HealthChange(Op.ADD, 0)),
]


@pytest.mark.parametrize(("text", "change"), READS)
def test_every_form_reads_as_documented(text: str, change: HealthChange) -> None:
    assert read_change(text, what="`hp`") == change


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("thirteen", "`hp` is `+5` (add 5), `-13` (lose 13), `=28` (set 28) or `=28/30`"),
        ("", "`hp` is `+5`"),
        ("--3", "`hp` is `+5`"),
        ("+-3", "`hp` is `+5`"),
        ("-3/30", "A maximum goes with a value that is set, not changed: `=3/30`"),
        ("+5/30", "A maximum goes with a value that is set"),
        ("1234567", "`hp` is `+5`"),
        ("5.5", "`hp` is `+5`"),
    ],
)
def test_bad_input_says_the_forms(text: str, message: str) -> None:
    with pytest.raises(HealthInputError) as refused:
        read_change(text, what="`hp`")
    assert message in refused.value.message


def test_a_change_must_carry_its_sign_and_a_maximum_takes_one_number() -> None:
    with pytest.raises(HealthInputError, match="`5` alone could mean heal or set") as refused:
        read_change("5", what="`amount`", signed=True)
    assert refused.value.title == "Which one?"
    with pytest.raises(HealthInputError, match="alone could mean"):
        read_change("28/30", what="`amount`", signed=True)
    assert read_change("=28/30", what="`amount`", signed=True) == HealthChange(Op.SET, 28, 30)
    with pytest.raises(HealthInputError, match="`max` takes one number"):
        read_change("=28/30", what="`max`", with_maximum=False)


@pytest.mark.parametrize(
    ("current", "maximum", "text", "after"),
    [
        (20, 30, "+5", 25),
        (28, 30, "+5", 30),  # a heal stops at the maximum
        (35, 30, "+5", 35),  # and never lowers temporary hit points
        (20, 30, "-25", -5),
        (20, 30, "=40", 40),  # a value set may pass the maximum (in play: temporary hit points)
        (20, 30, "=-3", -3),
    ],
)
def test_a_change_against_the_maximum(current: int, maximum: int, text: str, after: int) -> None:
    assert settle(current, maximum, [("current", read_change(text, what="x"))]) == (after, maximum)


@pytest.mark.parametrize(
    ("current", "maximum", "new_maximum", "after"),
    [
        (45, 45, 50, 50),  # unhurt (a new Star Frontiers character): 50/50, not 45/50
        (10, 10, 35, 35),
        (10, 10, 5, 5),
        (40, 30, 35, 35),  # above the maximum counts as unhurt
        (20, 30, 40, 20),  # hurt: keeps its value
        (20, 30, 10, 10),  # no higher than the new maximum
        (-3, 30, 40, -3),
        (40, 30, 30, 40),  # an unchanged maximum changes nothing
    ],
)
def test_a_new_maximum_carries_an_unhurt_value(current: int, maximum: int, new_maximum: int, after: int) -> None:
    assert follow_maximum(current, maximum, new_maximum) == after
    step = ("maximum", HealthChange(Op.SET, new_maximum))
    assert settle(current, maximum, [step]) == (after, new_maximum)


def test_on_the_sheet_a_value_above_the_maximum_raises_it() -> None:
    assert settle(10, 10, [("current", HealthChange(Op.SET, 35))], sheet=True) == (35, 35)
    assert settle(10, 10, [("current", HealthChange(Op.SET, 35))]) == (35, 10)
    assert settle(10, 10, [("current", HealthChange(Op.SET, 35, 40))], sheet=True) == (35, 40)
    both = [("current", HealthChange(Op.SET, 35)), ("maximum", HealthChange(Op.SET, 20))]
    assert settle(10, 10, both, sheet=True) == (35, 20)  # a maximum given is kept as given


numbers = st.integers(min_value=0, max_value=999_999)
spaces = st.sampled_from(["", " ", "  "])


@given(sign=st.sampled_from(["+", "-", "=", ""]), number=numbers, top=st.none() | numbers, pad=spaces)
def test_written_forms_read_back(sign: str, number: int, top: int | None, pad: str) -> None:
    text = f"{pad}{sign}{pad}{number}{pad}" + (f"/{pad}{top}{pad}" if top is not None else "")
    if top is not None and sign in ("+", "-"):
        with pytest.raises(HealthInputError):
            read_change(text, what="x")
        return
    change = read_change(text, what="x")
    assert change.op is (Op(sign) if sign else Op.SET)
    assert (change.amount, change.maximum, change.signed) == (number, top, sign != "")
    assert read_change(change.text(), what="x", signed=True) == HealthChange(change.op, number, top)


@given(text=st.text(max_size=20))
def test_any_text_reads_or_says_how_to_write_it(text: str) -> None:
    try:
        change = read_change(text, what="x", signed=True)
    except HealthInputError as refused:
        assert refused.message
        return
    assert read_change(change.text(), what="x", signed=True) == change


@given(current=st.integers(-1000, 1000), maximum=st.integers(1, 1000), amount=st.integers(0, 1000))
def test_a_heal_never_passes_the_maximum_nor_lowers_a_value(current: int, maximum: int, amount: int) -> None:
    now, top = settle(current, maximum, [("current", HealthChange(Op.ADD, amount))])
    assert top == maximum and now >= current
    assert now <= max(current, maximum)
    lost, _ = settle(current, maximum, [("current", HealthChange(Op.SUBTRACT, amount))])
    assert lost == current - amount


@pytest.mark.parametrize(
    ("now", "before", "after", "back"),
    [
        ((5, 12), (12, 12), (5, 12), (12, 12)),  # as the change left it: exactly as before
        ((10, 12), (15, 12), (10, 12), (15, 12)),  # temporary hit points come back too
        ((3, 12), (12, 12), (5, 12), (10, 12)),  # lost 2 more since: the 7 given back, the 2 kept
        ((9, 12), (10, 12), (6, 12), (12, 12)),  # healed 3 since: given back up to the maximum
        ((9, 12), (5, 12), (9, 12), (5, 12)),  # undoing a heal takes it off again
        ((4, 12), (5, 12), (9, 12), (0, 12)),
        ((12, 30), (10, 12), (12, 30), (10, 12)),  # a setting of both, undone
        ((14, 30), (10, 12), (12, 30), (12, 12)),  # healed 2 since: the maximum given back, the 2 kept
    ],
)
def test_given_back_undoes_a_change_and_keeps_what_came_after(
    now: tuple[int, int], before: tuple[int, int], after: tuple[int, int], back: tuple[int, int]
) -> None:
    assert given_back(now, before=before, after=after) == back
