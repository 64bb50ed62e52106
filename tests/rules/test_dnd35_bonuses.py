"""A stat block's full-attack bonuses (`+11/+6/+1`) and the quick full attack built from them (dnd35.md §3)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules import dnd35 as dnd
from bot.rules.dnd35.engine import MAX_QUICK_ATTACKS
from bot.rules.dnd35.tables import NotationError


@given(st.lists(st.integers(-999, 9999), min_size=1, max_size=MAX_QUICK_ATTACKS), st.sampled_from(["/", " / "]))
def test_bonuses_read_back_as_written(bonuses: list[int], separator: str) -> None:
    assert dnd.parse_bonuses(separator.join(f"{b:+d}" for b in bonuses)) == tuple(bonuses)


@pytest.mark.parametrize(
    ("text", "position"),
    [("", 0), ("+11/", 4), ("+11//+6", 4), ("+11/+6x", 6), ("11 6", 3), ("+²", 1), ("+/+1", 1)],
)
def test_bonuses_that_do_not_read_point_at_the_character(text: str, position: int) -> None:
    with pytest.raises(NotationError) as refused:
        dnd.parse_bonuses(text)
    assert refused.value.position == position


def test_at_most_eight_attacks() -> None:
    assert len(dnd.parse_bonuses("/".join(["+1"] * 8))) == 8
    with pytest.raises(NotationError, match="at most 8"):
        dnd.parse_bonuses("/".join(["+1"] * 9))


def test_each_bonus_is_the_stat_blocks_own() -> None:
    attacks = dnd.quick_full_attack((11, 6, 1), "1d8+4", 18, crit="19-20/x2")
    assert [sum(t.value for t in a.attack_terms) for a in attacks] == [11, 6, 1]
    assert {(a.threat, a.critical_multiplier, str(a.damage)) for a in attacks} == {(19, 2, "1d8")}
