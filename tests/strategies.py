"""Hypothesis strategies more than one test file draws from: dice text, as players and other bots write it.

Strategies used by one file stay in it; helpers that are not strategies are in tests/helpers.py.
"""

from __future__ import annotations

from hypothesis import strategies as st

_COMPARATOR = st.sampled_from(["", "<", ">", "="])


_FACE = st.integers(0, 25).map(str)


_MODIFIER = st.one_of(
    st.builds(
        "{}{}".format, st.sampled_from(["kh", "kl", "dh", "dl"]), st.sampled_from(["", "0", "1", "2", "3", "50"])
    ),
    st.builds("!{}{}".format, _COMPARATOR, st.one_of(st.just(""), _FACE)),
    st.builds("{}{}{}".format, st.sampled_from(["r", "ro"]), _COMPARATOR, _FACE),
    st.sampled_from(["adv", "dis"]),
)


_COUNT = st.one_of(st.sampled_from(["", "1", "2", "3", "4", "10"]), st.integers(0, 1_500).map(str))


_SIDES = st.one_of(
    st.sampled_from(["2", "3", "4", "6", "8", "10", "12", "20", "100", "%"]), st.integers(0, 12_000).map(str)
)


_DICE = st.builds(
    lambda count, sides, mods: f"{count}d{sides}{''.join(mods)}", _COUNT, _SIDES, st.lists(_MODIFIER, max_size=3)
)


_ATOM = st.one_of(
    _DICE, st.sampled_from(["d20adv", "1d20 dis", "d2!", "d6r1", "4d6kh3"]), st.integers(0, 1_200_000).map(str)
)


_EXPRESSION = st.recursive(
    _ATOM,
    lambda inner: st.one_of(
        st.builds("{} {} {}".format, inner, st.sampled_from(["+", "-", "*"]), inner),
        inner.map("({})".format),
        inner.map("-{}".format),
    ),
    max_leaves=8,
)


_EXPRESSION_TEXT = st.builds(lambda text, shout: text.upper() if shout else text, _EXPRESSION, st.booleans())


_OTHER_BOT_MODIFIER = st.sampled_from(
    [
        "k3",
        " k3",
        "d1",
        "pl1",
        "ph1",
        "p1",
        "k>3",
        "p<3",
        "e",
        "e6",
        " ie6",
        "rr1",
        "ra1",
        " ir2",
        "mi2",
        "ma5",
        " t7",
        "t7f1",
        ">3",
        "<2",
        ">=6f1",
        "!!",
        "!p",
        "!!>5",
        "!p>5",
        "sa",
        "cs>5",
        "[fire]",
        "x",
        "x5",
        "r",
        "tl3",
        "rg5",
        " irg5",
    ]
)


_OTHER_DICE = st.builds(
    lambda count, sides, mods: f"{count}d{sides}{''.join(mods)}",
    st.sampled_from(["", "1", "2", "4", "6", "10"]),
    st.sampled_from(["4", "6", "8", "10", "20", "F", "%", "1"]),
    st.lists(_OTHER_BOT_MODIFIER, max_size=3),
)


_OTHER_EXPRESSION = st.recursive(
    st.one_of(_OTHER_DICE, st.integers(0, 20).map(str)),
    lambda inner: st.one_of(
        st.builds("{} {} {}".format, inner, st.sampled_from(["+", "-", "*", "/", "//", "%"]), inner),
        inner.map("({})".format),
        st.lists(inner, min_size=1, max_size=3).map(lambda items: "{" + ", ".join(items) + "}kh1"),
        st.lists(inner, min_size=1, max_size=3).map(lambda items: "{" + " + ".join(items) + "}k2"),
        inner.map("abs({})".format),
    ),
    max_leaves=6,
)


_OTHER_TEXT = st.builds(
    lambda repeat, rolls, tail: repeat + "; ".join(rolls) + tail,
    st.sampled_from(["", "3 "]),
    st.lists(_OTHER_EXPRESSION, min_size=1, max_size=3),
    st.sampled_from(["", " adv", " Roll for Initiative", " ! fire damage", " dis"]),
)


# -- expressions ---------------------------------------------------------------------------------------------
_PRICED_TARGET = st.builds("{}{}".format, st.sampled_from(["", "<", ">", "="]), st.integers(0, 12))


_PRICED_MODIFIER = st.one_of(
    st.builds("{}{}".format, st.sampled_from(["kh", "kl", "dh", "dl", "k", "d"]), st.integers(0, 5)),
    st.builds("{}{}".format, st.sampled_from(["!", "!!", "!p"]), st.one_of(st.just(""), _PRICED_TARGET)),
    st.builds("{}{}".format, st.sampled_from(["r", "ro", "ra", "rr"]), _PRICED_TARGET),
    st.builds("mi{}".format, st.integers(1, 10)),
    st.builds("ma{}".format, st.integers(1, 300)),
    st.builds("t{}{}".format, st.integers(1, 300), st.sampled_from(["", "f1"])),
    st.builds("{}{}".format, st.sampled_from(["k>", "k<", "p>", "p<", ">", "<", ">="]), st.integers(1, 10)),
)


_PRICED_DICE = st.builds(
    "{}d{}{}".format,
    st.sampled_from(["", "1", "2", "3", "5", "10", "19", "30", "60"]),
    st.sampled_from(["2", "3", "4", "6", "8", "10", "12", "20", "100", "300", "1000"]),
    st.lists(_PRICED_MODIFIER, max_size=3).map("".join),
)


EXPRESSIONS = st.recursive(
    st.one_of(_PRICED_DICE, st.integers(0, 20).map(str)),
    lambda inner: st.one_of(
        st.builds("{} {} {}".format, inner, st.sampled_from(["+", "-", "*", "/", "%"]), inner),
        st.builds(
            "{{{}}}{}".format,
            st.lists(inner, min_size=1, max_size=3).map(", ".join),
            st.sampled_from(["", "kh1", "kl1", "t5"]),
        ),
        st.builds("{{{} + {}}}{}".format, inner, inner, st.sampled_from(["k2", "dl1", "kl1"])),
        inner.map("abs({} - 3)".format),
    ),
    max_leaves=4,
)
