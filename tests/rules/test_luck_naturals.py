"""A d20's natural 20s and 1s are tallied from the one tally per face worked out at import, to the last bit."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from bot.rules.luck import Tally, d20_faces


@given(st.lists(st.integers(1, 20), max_size=12))
def test_the_tally_of_d20_faces_is_the_tally_counted_from_their_chances(faces: list[int]) -> None:
    p = Fraction(1, 20)
    expected: dict[str, Tally] = {}
    for key, natural in (("nat20", 20), ("nat1", 1)):
        observed, mean, variance = 0.0, 0.0, 0.0
        for face in faces:  # in the same order, so that the floats are summed alike
            observed += float(face == natural)
            mean += float(p)
            variance += float(p * (1 - p))
        if faces:
            expected[key] = Tally(observed, mean, variance)
    assert d20_faces(faces) == expected
    assert sum(t.observed for t in d20_faces(faces).values()) == faces.count(20) + faces.count(1)
