"""orjson where it keeps a value exactly, the json module where it would not (`bot.jsontext`)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.jsontext import compact, exact

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()  # NaN and the infinities too
    | st.text(st.characters(exclude_categories=())),  # lone surrogates too
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=6) | st.integers(0, 9), inner, max_size=6)
    ),
    max_leaves=40,
)


def as_the_json_module_reads(value: Any) -> str:
    """The value's json module round trip, as text to compare (NaN equal to NaN, True not 1)."""
    return json.dumps(json.loads(json.dumps(value)))


@given(json_values)
def test_compact_text_reads_back_as_the_json_module_s_own_round_trip(value: Any) -> None:
    assert json.dumps(json.loads(compact(value).decode("utf-8", "surrogatepass"))) == as_the_json_module_reads(value)


@given(json_values)
def test_orjson_text_is_taken_only_when_it_reads_back_equal(value: Any) -> None:
    found = exact(value)
    if found is not None:
        text, back = found
        assert back == value and json.loads(text) == value


@pytest.mark.parametrize(
    "value",
    [
        [math.nan],  # orjson writes null
        {"odds": math.inf},
        (1, 2),  # read back as a list
        {7: "a key that is not text"},
        [2**64],  # beyond 64 bits
        ["\ud800"],  # a lone surrogate
    ],
)
def test_what_orjson_would_change_is_left_to_the_json_module(value: Any) -> None:
    assert exact(value) is None


def test_a_roll_s_values_take_the_fast_path() -> None:
    value = {"odds": [2 / 3, 1e-05, 1.5e16], "kept": [True, 1, 1.0], "note": None, "by": "Zoë", "faces": [[1, 20, 7]]}
    found = exact(value)
    assert found is not None and found[1] == value
    assert compact(value) == found[0]
