"""bot.ui.embeds: `fit` keeps any embed within Discord's 6,000-character total; `fixed` and `percent` round exactly."""

from __future__ import annotations

import math
from fractions import Fraction

import discord
from hypothesis import given
from hypothesis import strategies as st

from bot.ui.embeds import EMBED_TOTAL_LIMIT, LEFT_OUT_NAME, fit, fixed, percent

texts = st.text(alphabet="ab \n*", max_size=1024)


@st.composite
def embeds(draw: st.DrawFn) -> discord.Embed:
    embed = discord.Embed(
        title=draw(st.text(alphabet="ab", max_size=256)), description=draw(st.text(alphabet="ab\n", max_size=4096))
    )
    for _ in range(draw(st.integers(0, 25))):
        embed.add_field(name=draw(st.text(alphabet="ab", min_size=1, max_size=256)), value=draw(texts))
    embed.set_footer(text=draw(st.text(alphabet="ab", max_size=2048)))
    return embed


@given(embeds())
def test_fit_keeps_an_embed_within_the_total(embed: discord.Embed) -> None:
    before = embed.to_dict()
    fit(embed)
    assert len(embed) <= EMBED_TOTAL_LIMIT
    if len(discord.Embed.from_dict(before)) <= EMBED_TOTAL_LIMIT:
        assert embed.to_dict() == before  # what fits is left alone


def test_fit_cuts_the_longest_values_before_dropping_fields() -> None:
    embed = discord.Embed(title="t", description="d")
    for i in range(7):
        embed.add_field(name=f"{i}", value="x" * 1000)
    fit(embed)
    assert len(embed) <= EMBED_TOTAL_LIMIT
    assert [f.name for f in embed.fields] == [str(i) for i in range(7)]
    assert all(f.value and f.value.endswith("…") for f in embed.fields[:1])


def test_fit_says_when_it_left_fields_out() -> None:
    embed = discord.Embed(title="t", description="d" * 4000)
    for i in range(25):
        embed.add_field(name=f"field {i}", value="x" * 500)
    fit(embed)
    assert len(embed) <= EMBED_TOTAL_LIMIT
    assert embed.fields[-1].name == LEFT_OUT_NAME and "more part(s)" in (embed.fields[-1].value or "")


@given(
    st.fractions(min_value=-(10**6), max_value=10**6) | st.fractions(min_value=-1, max_value=1, max_denominator=10**9),
    st.integers(0, 6),
)
def test_fixed_and_percent_round_halves_up_exactly(value: Fraction, places: int) -> None:
    """The integer arithmetic of `fixed` and `percent` says what Fraction arithmetic says."""
    for number, text in ((value, fixed(value, places)), (value * 100, percent(value, places)[:-1])):
        scaled = math.floor(number * 10**places + Fraction(1, 2))
        assert Fraction(text) == Fraction(scaled, 10**places)
        assert text.startswith("-") == (scaled < 0)
        assert ("." not in text) if places == 0 else len(text.split(".")[1]) == places


def test_fixed_rounds_the_half_that_float_would_not() -> None:
    assert fixed(Fraction("5.225"), 2) == "5.23" and fixed(Fraction("-5.225"), 2) == "-5.22"
    assert percent(Fraction(1, 3)) == "33.3%" and percent(Fraction(1, 50), 2, trim=True) == "2%"
