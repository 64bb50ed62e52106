"""/odds view:, folded tails and stated bins, through the slash command; each share against an independent
enumeration of the faces."""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from itertools import product

import pytest
from PIL import Image

from bot.local.driver import LocalDiscord
from bot.ui.chart import ODDS_HEIGHT, WIDTH
from bot.ui.dice import chance
from tests.dice_sources import NoDice


def table(description: str) -> list[list[str]]:
    """The rows of the answer's table, each split at its columns (a folded row's label kept whole)."""
    rows = description.split("```")[1].strip().split("\n")
    return [row.strip().rsplit(maxsplit=2) for row in rows]


def enumerated(dice: int, sides: int, total: Callable[[tuple[int, ...]], int]) -> dict[int, Fraction]:
    counts = Counter(total(faces) for faces in product(range(1, sides + 1), repeat=dice))
    return {t: Fraction(c, sides**dice) for t, c in sorted(counts.items())}


CASES = [
    ("3d6", 3, 6, sum),
    ("4d6k3", 4, 6, lambda faces: sum(sorted(faces)[1:])),
    ("2d10-1d10", 3, 10, lambda faces: faces[0] + faces[1] - faces[2]),
]


@pytest.mark.parametrize(("expression", "dice", "sides", "total"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("view", ["normal", "at_least", "at_most"])
async def test_each_view_shows_the_enumerated_shares(
    local: LocalDiscord, expression: str, dice: int, sides: int, total: Callable[[tuple[int, ...]], int], view: str
) -> None:
    local.bot.dice = NoDice()
    exchange = await local.command("odds", {"expression": expression, "view": view})
    assert exchange.rejected == []
    embed = exchange.embed
    suffix = {"normal": "", "at_least": " (at least)", "at_most": " (at most)"}[view]
    assert embed["title"] == f"Odds of {expression}{suffix}"
    exact = enumerated(dice, sides, total)
    head, *rows = table(embed["description"])
    assert " ".join(" ".join(head).split()) == (
        "total chance at most" if view == "at_most" else "total chance at least"
    )
    assert [int(label) for label, _, _ in rows] == list(exact)  # one row a total: they fit
    for label, shown, cumulative in rows:
        t = int(label)
        assert shown == chance(exact[t])
        if view == "at_most":
            assert cumulative == chance(sum(p for u, p in exact.items() if u <= t))
        else:
            assert cumulative == chance(sum(p for u, p in exact.items() if u >= t))
    [png] = exchange.files.values()
    assert Image.open(io.BytesIO(png)).size == (WIDTH, ODDS_HEIGHT)


async def test_the_view_is_a_choice_of_three(local: LocalDiscord) -> None:
    command = local.bot.tree.get_command("odds")
    assert command is not None
    [view] = [p for p in command.to_dict(local.bot.tree)["options"] if p["name"] == "view"]
    assert [(c["name"], c["value"]) for c in view["choices"]] == [
        ("normal", "normal"),
        ("at least", "at_least"),
        ("at most", "at_most"),
    ]
    assert not view.get("required", False)


async def test_exploding_dice_fold_their_long_tail_into_one_row(local: LocalDiscord) -> None:
    exchange = await local.command("odds", {"expression": "3d6!"})
    description = exchange.embed["description"]
    rows = table(description)[1:]
    assert len(rows) == 30  # there were 268 totals, to the counting's cutoff of 270
    assert rows[0][0] == "3" and rows[-2][0] == "31"
    assert rows[-1] == ["32 or more", "0.8%", "0.8%"]  # 239/31104 of rolls: the sum of every total past 31
    assert not [row for row in rows if "<0.1%" in row]  # 25 such rows before
    assert description.endswith("```\nTails of under 1% folded into the end rows, each its exact share.")


async def test_a_wide_spread_says_how_many_totals_a_row_holds(local: LocalDiscord) -> None:
    exchange = await local.command("odds", {"expression": "1d100", "view": "at_most"})
    description = exchange.embed["description"]
    rows = table(description)[1:]
    assert rows[0] == ["1-5", "5.0%", "5.0%"] and rows[-1] == ["96-100", "5.0%", "100.0%"]
    assert len(rows) == 20
    assert description.endswith("```\nEach row: 5 totals.")  # it read as 2% a total
