"""The /odds chart: labels centred under their bars in the drawn picture, a y scale that the bars' heights
follow, the three views, and the same bars as the table beside it."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from bot.rules import dice, dice_odds
from bot.rules.dice_odds import Odds
from bot.rules.odds_bars import Bars, Fold, View, bars
from bot.ui.chart import BACKGROUND, ODDS_HEIGHT, OddsLayout, bar_label, odds_chart, odds_layout
from bot.ui.dice import ODDS_ROWS, chart_lines, odds_table, row_label

EXPRESSIONS = ["4d6k3", "3d6!", "1d100", "2d20", "1000d10000!", "8d10!d2"]


def found(expression: str) -> Odds:
    return dice_odds.odds(dice.parse(expression), random.Random(dice_odds.SAMPLE_SEED))


def drawn(expression: str, view: View, target: int | None = None) -> tuple[Bars, OddsLayout, Image.Image]:
    odds = found(expression)
    shown = bars(odds, ODDS_ROWS)
    lines = chart_lines(odds, shown, view)
    sampled = odds.method is dice_odds.Method.SAMPLED
    layout = odds_layout(expression, lines, shown, view, target, intervals=sampled)
    png = odds_chart(expression, lines, shown, view, target, intervals=sampled)
    return shown, layout, Image.open(io.BytesIO(png)).convert("RGB")


def ink_runs(image: Image.Image, top: int, bottom: int) -> list[tuple[int, int]]:
    """The x spans (first, last) of drawn columns between rows top..bottom, a gap of 5 pixels parting two."""
    columns = [x for x in range(image.width) if any(image.getpixel((x, y)) != BACKGROUND for y in range(top, bottom))]
    runs: list[tuple[int, int]] = []
    for x in columns:
        if runs and x - runs[-1][1] <= 5:
            runs[-1] = (runs[-1][0], x)
        else:
            runs.append((x, x))
    return runs


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_each_label_is_drawn_centred_under_its_bar(expression: str) -> None:
    _, layout, image = drawn(expression, View.NORMAL)
    bottom = round(layout.plot[3])
    labelled = [d for d in layout.bars if d.label_box is not None]
    assert labelled[0] is layout.bars[0] and len(labelled) >= min(len(layout.bars), 5)
    folds = [d for d in layout.bars if d.bar.fold is not Fold.NONE]
    assert all(d.label_box is not None for d in folds)  # a fold always says what it holds
    # Read back from the picture: each run of ink under the axis is one label, centred on its bar.
    runs = ink_runs(image, bottom + 8, ODDS_HEIGHT)
    assert len(runs) == len(labelled)
    assert runs[0][0] > 0 and runs[-1][1] < image.width - 1  # no label runs off the picture
    for (first, last), d in zip(runs, labelled, strict=True):
        centre = (d.box[0] + d.box[2]) / 2
        assert abs((first + last) / 2 - centre) <= 1.5, (d.label, first, last, centre)
        assert d.label_box is not None and abs((d.label_box[0] + d.label_box[2]) / 2 - centre) <= 1


def test_labels_name_totals_bins_and_folds() -> None:
    shown, layout, _ = drawn("1d100", View.NORMAL)
    assert [d.label for d in layout.bars][:2] == ["1-5", "6-10"]
    shown, layout, _ = drawn("3d6!", View.NORMAL)
    assert layout.bars[-1].label == f"{shown.bars[-1].first}+"
    assert layout.bars[0].label == "3"
    assert "each bar: one total" in " ".join(layout.lines)
    assert "tails of under 1% folded into the end bars" in " ".join(layout.lines)
    _, layout, _ = drawn("1d100", View.NORMAL)
    assert "each bar: 5 totals" in " ".join(layout.lines)  # 1d100 read as 2% a total


@pytest.mark.parametrize("view", list(View))
@pytest.mark.parametrize("expression", ["3d6!", "2d20", "1000d10000!"])
def test_the_bars_follow_the_y_scale(expression: str, view: View) -> None:
    _, layout, _ = drawn(expression, view)
    left, top, right, bottom = layout.plot
    ys = [y for y, _ in layout.ticks]
    assert ys[0] == bottom and min(ys) == pytest.approx(top) and layout.ticks[0][1] == "0%"
    values = [float(text.rstrip("%")) / 100 for _, text in layout.ticks]
    highest = values[-1]
    if view is View.NORMAL:
        assert 3 <= len(values) <= 6
    else:
        assert [text for _, text in layout.ticks] == ["0%", "25%", "50%", "75%", "100%"]
    for y, value in layout.ticks:  # each gridline at its value
        assert y == pytest.approx(bottom - (bottom - top) * float(value.rstrip("%")) / 100 / highest)
    for d in layout.bars:
        assert left <= d.box[0] < d.box[2] <= right
        height = bottom - d.box[1]
        assert height == pytest.approx(max(1, (bottom - top) * float(d.bar.value(view)) / highest))
        assert d.box[1] >= top - 1e-9  # the tallest bar stays under the top gridline


def test_at_least_falls_and_at_most_rises() -> None:
    for view, order in ((View.AT_LEAST, -1), (View.AT_MOST, 1)):
        _, layout, _ = drawn("2d20", view)
        heights = [layout.plot[3] - d.box[1] for d in layout.bars]
        assert heights == sorted(heights)[::order]
        assert max(heights) == pytest.approx(layout.plot[3] - layout.plot[1])  # 100% reaches the top


def test_the_bars_that_reach_the_target_are_green() -> None:
    _, layout, _ = drawn("4d6k3", View.NORMAL, target=15)
    green = [d.bar.first for d in layout.bars if d.fill[1] > 200]
    assert green == [15, 16, 17, 18]


def test_a_sample_draws_each_bars_interval() -> None:
    _, layout, image = drawn("8d10!d2", View.NORMAL)
    assert "lines: 99% intervals" in " ".join(layout.lines)
    for d in layout.bars:
        assert d.whisker is not None
        high, low = d.whisker
        assert high <= d.box[1] + 1e-9 <= low + 1e-9 or d.box[1] == layout.plot[3] - 1
        centre = round((d.box[0] + d.box[2]) / 2)
        cap = [image.getpixel((centre, round(high) + dy)) for dy in (-1, 0, 1)]
        assert any(pixel != BACKGROUND for pixel in cap)  # the interval's cap is drawn


@pytest.mark.parametrize("view", list(View))
@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_the_table_has_the_charts_bars(expression: str, view: View) -> None:
    shown, layout, _ = drawn(expression, view)
    rows = odds_table(shown, view).strip("`\n").split("\n")
    assert rows[0].split()[-2:] == (["at", "most"] if view is View.AT_MOST else ["at", "least"])
    assert len(rows) - 1 == len(layout.bars) == len(shown.bars)
    for row, d in zip(rows[1:], layout.bars, strict=True):
        assert row.strip().startswith(row_label(d.bar))
        assert d.label == bar_label(d.bar)
        if d.bar.fold is Fold.HIGH:
            assert row_label(d.bar) == f"{d.bar.first:,} or more" and d.label == f"{d.bar.first:,}+"
        if d.bar.fold is Fold.LOW:
            assert row_label(d.bar) == f"{d.bar.last:,} or less"
