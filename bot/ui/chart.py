"""The /stats and /odds charts, drawn as PNGs with Pillow.

/stats: observed against expected per outcome. Each outcome gets a row of its own with two bars on its own
scale (a count of hits and a sum of damage do not share one): grey for what the odds promised, coloured for
what the dice gave, green where that was good for the roller and red where it was bad, beyond ordinary luck;
blue within it.

/odds: the bars of `bot.rules.odds_bars` (the same as the table beside the chart) on a y scale, each label
centred under its bar, the end bars that fold a tail paler. `odds_layout` places every part in pixels, and a
test reads it; `odds_chart` draws it.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass, replace
from typing import Final

from PIL import Image, ImageDraw, ImageFont

from bot.rules.luck import UNUSUAL, Row
from bot.rules.odds_bars import Bar, Bars, Fold, View

WIDTH: Final = 720
TOP: Final = 64
ROW_HEIGHT: Final = 74
LABEL_WIDTH: Final = 150
BAR_HEIGHT: Final = 22
BAR_SPACE: Final = WIDTH - LABEL_WIDTH - 200  # leaves room for the numbers after the longer bar
BACKGROUND: Final = (47, 49, 54)  # Discord's dark theme, where most people will see it
TEXT: Final = (235, 236, 238)
MUTED: Final = (150, 154, 160)
EXPECTED: Final = (114, 118, 125)
LUCKY: Final = (87, 242, 135)
UNLUCKY: Final = (237, 66, 69)
ORDINARY: Final = (88, 101, 242)


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def colour(row: Row) -> tuple[int, int, int]:
    """The observed bar's colour: lucky, unlucky, or ordinary luck."""
    z = row.lucky_z
    if z is None or abs(z) < UNUSUAL:
        return ORDINARY
    return LUCKY if z > 0 else UNLUCKY


def luck_chart(title: str, rows: list[Row]) -> bytes:
    """A PNG of observed against expected for each outcome, with its z-score."""
    height = TOP + ROW_HEIGHT * len(rows) + 16
    image = Image.new("RGB", (WIDTH, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    big, small = _font(22), _font(15)
    draw.text((16, 14), title, fill=TEXT, font=big)
    draw.text(
        (16, 42), "grey: expected from the odds shown at each roll · colour: what the dice gave", fill=MUTED, font=small
    )
    for index, row in enumerate(rows):
        y = TOP + index * ROW_HEIGHT + 8
        draw.text((16, y + 4), row.label, fill=TEXT, font=small)
        z = row.z
        draw.text((16, y + 26), "z n/a" if z is None else f"z {z:+.2f}", fill=MUTED, font=small)
        scale = max(row.observed, row.expected, 1e-9)
        for offset, value, fill, word in (
            (0, row.expected, EXPECTED, "expected"),
            (BAR_HEIGHT + 4, row.observed, colour(row), "observed"),
        ):
            length = max(2, round(BAR_SPACE * max(value, 0) / scale))
            top = y + offset
            draw.rectangle((LABEL_WIDTH, top, LABEL_WIDTH + length, top + BAR_HEIGHT), fill=fill)
            draw.text((LABEL_WIDTH + length + 8, top + 3), f"{word} {_number(value)}", fill=TEXT, font=small)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


# ------------------------------------------------------------------------------------------------ /odds

ODDS_HEIGHT: Final = 440
LINE: Final = 20  # pixels from one line of text to the next
REACHED: Final = LUCKY
FOLDED: Final = (148, 157, 246)  # an end bar that folds a tail: the ordinary colour, paler
FOLDED_REACHED: Final = (163, 246, 189)
GRID: Final = (66, 69, 75)
GAP: Final = 2  # pixels between bars
LABEL_ROOM: Final = 10  # pixels at least between two labels

Box = tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class DrawnBar:
    """One bar as drawn: its rectangle, its label's text and box (None when a neighbour's label took the room)."""

    bar: Bar
    box: Box
    fill: tuple[int, int, int]
    label: str
    label_box: Box | None
    whisker: tuple[float, float] | None  # the top and bottom of an estimate's interval, in pixels


@dataclass(frozen=True, slots=True)
class OddsLayout:
    """Everything the /odds chart draws, in pixels: what a test reads instead of the picture."""

    title: str
    lines: tuple[str, ...]
    plot: Box  # left, top, right, bottom of the bars' area; the bottom is the x axis
    ticks: tuple[tuple[float, str], ...]  # the y scale: each gridline's y and its label
    bars: tuple[DrawnBar, ...]


def _wrapped(line: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont) -> list[str]:
    """`line` in as many lines as the chart's width needs, broken after a `·` or `;`, in the font's characters."""
    line = line.replace("≈", "~").replace("–", "-")  # the default font has neither
    words = re.split(r"(?<=[·;]) ", line)
    out = [words[0]]
    for word in words[1:]:
        if font.getlength(f"{out[-1]} {word}") <= WIDTH - 32:
            out[-1] += f" {word}"
        else:
            out.append(word)
    return out


def bar_label(bar: Bar) -> str:
    """A bar's label under the chart: its total, its bin, or its folded tail (the font has no ≤: a range)."""
    if bar.fold is Fold.HIGH:
        return f"{bar.first:,}+"
    return f"{bar.first:,}" if bar.first == bar.last else f"{bar.first:,}-{bar.last:,}"


def _scale(top: float, view: View) -> tuple[float, float]:
    """The top of the y scale and its step: 0 to 100% by 25% for at-least and at-most, else round steps."""
    if view is not View.NORMAL:
        return 1.0, 0.25
    # The least of 0.1%, 0.2%, 0.5%, 1%, 2%, 5%, ... 50% that needs at most five steps.
    step = next(w * 10**e / 1000 for e in range(3) for w in (1, 2, 5) if top <= 5 * w * 10**e / 1000)
    return max(step, math.ceil(top / step - 1e-9) * step), step


def odds_layout(
    title: str, lines: list[str], bars: Bars, view: View, target: int | None, *, intervals: bool
) -> OddsLayout:
    """Where each part of the /odds chart goes.

    Args:
        title: The expression and the view.
        lines: How the odds were found; what a bar's height and width say.
        bars: The bars, as the table beside the chart has them.
        view: Which of each bar's chances its height shows.
        target: The total to reach: bars at or above it are green. None: no target.
        intervals: Draw each bar's interval (a sampled estimate's).
    """
    small = _font(15)
    lines = [part for line in lines for part in _wrapped(line, small)]
    left, top, right, bottom = 64.0, 44.0 + LINE * len(lines) + 16, WIDTH - 16.0, ODDS_HEIGHT - 36.0
    tallest = max((float(b.value(view)) for b in bars.bars), default=0.0)
    if intervals:
        tallest = max([tallest, *(b.interval(view)[1] for b in bars.bars)])
    highest, step = _scale(max(tallest, 1e-9), view)
    ticks = tuple(
        (bottom - (bottom - top) * k * step / highest, f"{100 * k * step:g}%") for k in range(round(highest / step) + 1)
    )

    def y(value: float) -> float:
        return bottom - (bottom - top) * value / highest

    count = max(len(bars.bars), 1)
    # Room at each side for the end bars' labels (a fold's is always drawn) centred under them.
    first, last = (small.getlength(bar_label(b)) / 2 for b in (bars.bars[0], bars.bars[-1])) if bars.bars else (0, 0)
    for _ in range(3):
        pitch = (right - left) / count
        left = max(left, 4 + first - pitch / 2)
        right = min(right, WIDTH - 4 - last + pitch / 2)
    pitch = (right - left) / count
    drawn: list[DrawnBar] = []
    for index, bar in enumerate(bars.bars):
        x0 = left + index * pitch
        reached = target is not None and bar.first >= target
        folded = bar.fold is not Fold.NONE
        fill = (FOLDED_REACHED if folded else REACHED) if reached else (FOLDED if folded else ORDINARY)
        box = (x0 + GAP / 2, min(y(float(bar.value(view))), bottom - 1), x0 + pitch - GAP / 2, bottom)
        low, high = bar.interval(view)
        whisker = (y(high), y(low)) if intervals else None
        drawn.append(DrawnBar(bar, box, fill, bar_label(bar), None, whisker))
    # Labels centred under their bars, as many as fit: the folds' first, then every k-th bar from the left.
    widest = max((small.getlength(d.label) for d in drawn), default=0.0)
    every = max(1, math.ceil((widest + LABEL_ROOM) / pitch))
    order = [i for i, d in enumerate(drawn) if d.bar.fold is not Fold.NONE]
    order += [i for i in range(0, len(drawn), every) if i not in order]
    taken: list[Box] = []
    for index in order:
        d = drawn[index]
        centre = (d.box[0] + d.box[2]) / 2
        x0, y0, x1, y1 = small.getbbox(d.label, anchor="ma")
        box = (centre + x0, bottom + 8 + y0, centre + x1, bottom + 8 + y1)
        if all(box[2] + LABEL_ROOM <= other[0] or other[2] + LABEL_ROOM <= box[0] for other in taken):
            taken.append(box)
            drawn[index] = replace(d, label_box=box)
    return OddsLayout(title, tuple(lines), (left, top, right, bottom), ticks, tuple(drawn))


def odds_chart(
    title: str, lines: list[str], bars: Bars, view: View, target: int | None, *, intervals: bool = False
) -> bytes:
    """A PNG of the bars of `odds_layout` with a y scale, labels centred under the bars they name."""
    layout = odds_layout(title, lines, bars, view, target, intervals=intervals)
    image = Image.new("RGB", (WIDTH, ODDS_HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    big, small = _font(22), _font(15)
    draw.text((16, 14), layout.title, fill=TEXT, font=big)
    for index, line in enumerate(layout.lines):
        draw.text((16, 44 + LINE * index), line, fill=MUTED, font=small)
    left, _, right, bottom = layout.plot
    for y, text in layout.ticks:
        draw.line((left, y, right, y), fill=GRID)
        draw.text((left - 6, y), text, fill=MUTED, font=small, anchor="rm")
    for d in layout.bars:
        draw.rectangle(d.box, fill=d.fill)
        if d.whisker is not None:
            centre = (d.box[0] + d.box[2]) / 2
            reach = max(1.0, min(4.0, (d.box[2] - d.box[0]) / 4))
            high, low = d.whisker
            draw.line((centre, high, centre, low), fill=TEXT)
            draw.line((centre - reach, high, centre + reach, high), fill=TEXT)
            draw.line((centre - reach, low, centre + reach, low), fill=TEXT)
        if d.label_box is not None:
            draw.text(((d.box[0] + d.box[2]) / 2, bottom + 8), d.label, fill=MUTED, font=small, anchor="ma")
    draw.line((left, bottom, right, bottom), fill=EXPECTED)
    out = io.BytesIO()
    # Not optimize=True: it doubles the encoding (some 30 ms more in the worker) to save 3% of the bytes.
    image.save(out, format="PNG")
    return out.getvalue()
