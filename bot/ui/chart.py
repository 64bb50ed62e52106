"""The /stats chart: observed against expected per outcome, drawn as a PNG with Pillow.

Each outcome gets a row of its own with two bars on its own scale (a count of hits and a sum of damage do
not share one): grey for what the odds promised, coloured for what the dice gave, green where that was
good for the roller and red where it was bad, beyond ordinary luck; blue within it.
"""

from __future__ import annotations

import io
import math
from typing import Final

from PIL import Image, ImageDraw, ImageFont

from bot.rules.luck import UNUSUAL, Row

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


ODDS_HEIGHT: Final = 360
ODDS_BARS: Final = 60  # totals beyond this many are drawn in bins of consecutive totals
REACHED: Final = LUCKY


def odds_chart(title: str, subtitle: str, bars: list[tuple[int, int, float]], target: int | None) -> bytes:
    """A PNG of the chance of each total (or bin of totals), the bars at or above `target` in green.

    Args:
        title: The expression.
        subtitle: How the odds were found, and the mean.
        bars: (first total, last total, chance) in order, as `Odds.points` gives them.
        target: The total to reach, or None.
    """
    image = Image.new("RGB", (WIDTH, ODDS_HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    big, small = _font(22), _font(15)
    draw.text((16, 14), title, fill=TEXT, font=big)
    draw.text((16, 42), subtitle, fill=MUTED, font=small)
    left, right, top, bottom = 56, WIDTH - 16, TOP + 12, ODDS_HEIGHT - 36
    tallest = max((p for _, _, p in bars), default=0.0) or 1.0
    draw.text((8, top - 8), f"{100 * tallest:.1f}%", fill=MUTED, font=small)
    draw.line((left, bottom, right, bottom), fill=EXPECTED)
    step = (right - left) / max(len(bars), 1)
    # A bin is labelled with its first total, and only as often as the widest label fits.
    widest = max((len(f"{first:,}") for first, _, _ in bars), default=1) * 9 + 12
    labels = max(1, math.ceil(widest / step))
    for index, (first, _, p) in enumerate(bars):
        x0 = left + index * step
        height = round((bottom - top) * p / tallest)
        reached = target is not None and first >= target
        fill = REACHED if reached else ORDINARY
        draw.rectangle((x0 + 1, bottom - max(height, 1), x0 + max(step - 1, 1), bottom), fill=fill)
        if index % labels == 0:
            draw.text((x0, bottom + 6), f"{first:,}", fill=MUTED, font=small)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
