"""The AliensRL fight's map: the squares around whoever stands on them, drawn as a PNG with Pillow.

The picture shows where everyone stands and nothing of their health but dead or not (the tracker keeps hit
points, and hides a hidden creature's): each combatant is a marker with its number, the party a blue circle and
the foes an orange diamond (told apart by shape as well as colour), the dead greyed (and crossed where the
squares are large enough), whose turn it is framed in white. The embed beside it says which number is who. A
line of fire may be drawn too: the squares a shot crosses, and the squares a stray could land on.

The drawing takes plain data (`Board`), so the cog can hand it to the worker process (bot/offload.py); `board`
builds it from an encounter. What a picture may cost is capped by the map itself: at most MAP_SIZE squares
each way, each at most GRID_LIMIT // MAP_SIZE = 15 pixels wide then, so a picture is at most 956 pixels across.

A phone shows the picture about 400 pixels wide whatever its size, so its text (the markers' numbers, the
coordinates, the key) is drawn at least 14 pixels tall as shown there: on a wide map a square is smaller than its
number, and the marker grows into a badge around its square's centre that holds it.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

import discord
from PIL import Image, ImageDraw, ImageFont

from bot.rules import aliensrl
from bot.rules import encounter as rules
from bot.rules.aliensrl import Ring
from bot.rules.encounter import Combatant, Encounter, Side
from bot.ui.embeds import ROLL_COLOUR, clip, fit

Square = tuple[int, int]
Colour = tuple[int, int, int]

MAP_FILE: Final = "map.png"
MARGIN: Final = 2  # squares shown around the outermost combatants (a stray lands at most two away)
MIN_SPAN: Final = 10  # squares shown at least across and down, so a lone marker still sits on a map
GRID_LIMIT: Final = 900  # pixels the squares may take across or down
MIN_CELL, MAX_CELL = 15, 44  # a square's side in pixels: 60 squares of 15 fit GRID_LIMIT
EVERY_SQUARE_FROM: Final = 24  # cells this wide or wider carry every coordinate, narrower ones every 5th
GUTTER: Final = 30  # left of the grid: the y coordinates
HEAD: Final = 24  # above the grid: the x coordinates
PAD: Final = 12  # right of and below the grid
KEY_HEIGHT: Final = 34  # the strip below that says which shape is what
SCALE: Final = 2  # drawn this many times larger, then scaled down: smooth circles and diamonds

BACKGROUND: Final = (47, 49, 54)  # Discord's dark theme, as the /stats chart
BOARD: Final = (58, 61, 68)
GRID: Final = (78, 82, 90)
GRID_FIVE: Final = (112, 117, 126)  # every 5th line, to count squares by
TEXT: Final = (235, 236, 238)
MUTED: Final = (150, 154, 160)
INK: Final = (24, 25, 28)  # the number on a live marker
# Okabe and Ito's colours, told apart by every kind of colour vision; the shapes differ as well.
PARTY: Final = (86, 180, 233)  # sky blue
FOES: Final = (230, 159, 0)  # orange
DEAD: Final = (96, 100, 108)
TURN: Final = (255, 255, 255)
PATH: Final = (0, 114, 178)  # a line of fire's squares: blue
STRAY: Final = (204, 121, 167)  # where a stray could land: reddish purple
CROSS: Final = (200, 203, 208)
MIN_LABEL: Final = 10  # pixels: a marker's number is never drawn smaller
# A phone shows the picture about SHOWN_WIDTH pixels wide, whatever its size: a marker's number is drawn at least
# SHOWN_LABEL pixels tall as shown there (its font size), so at least SHOWN_LABEL / SHOWN_WIDTH of the width.
SHOWN_WIDTH: Final = 400
SHOWN_LABEL: Final = 14
DIGIT_HEIGHT: Final = 0.7  # a digit's ink is about this share of its font size
SHAPES: Final = {False: "●", True: "◆"}  # the party's circle, the foes' diamond, as the embed names them


@dataclass(frozen=True, slots=True)
class Marker:
    """A combatant on the map: its number, its square, which side, dead or not, and whether it has the turn."""

    label: str
    square: Square
    foe: bool
    dead: bool
    turn: bool


@dataclass(frozen=True, slots=True)
class Board:
    """What the picture shows, as plain data: the markers, and a line of fire's squares if one is drawn."""

    markers: tuple[Marker, ...]
    path: tuple[Square, ...] = ()  # the squares a shot crosses, its target's included
    strays: tuple[Square, ...] = ()  # the squares a stray could land on


@dataclass(frozen=True, slots=True)
class View:
    """The squares shown (x0..x0+cols-1 across, y0..y0+rows-1 down) and a square's side in pixels."""

    x0: int
    y0: int
    cols: int
    rows: int
    cell: int

    @property
    def label(self) -> int:
        """The least font size in pixels of the picture's text: SHOWN_LABEL pixels when shown SHOWN_WIDTH wide.

        Worked out from the grid with the least margins, a tenth more: the margins then grow to hold the text.
        """
        least = (GUTTER + self.cols * self.cell + PAD) * SHOWN_LABEL * 1.1 / SHOWN_WIDTH
        return max(MIN_LABEL, math.ceil(least))

    @property
    def gutter(self) -> int:
        """Left of the grid: the y coordinates, two digits wide."""
        return max(GUTTER, round(self.label * 1.2))

    @property
    def head(self) -> int:
        """Above the grid: the x coordinates."""
        return max(HEAD, self.label + 4)

    @property
    def key(self) -> int:
        """The strip below that says which shape is what."""
        return max(KEY_HEIGHT, self.label + 12)

    @property
    def width(self) -> int:
        """The picture's width in pixels."""
        return self.gutter + self.cols * self.cell + PAD

    @property
    def height(self) -> int:
        """The picture's height in pixels."""
        return self.head + self.rows * self.cell + PAD + self.key

    def centre(self, square: Square) -> tuple[float, float]:
        """The pixel at the middle of a square (which must be shown)."""
        x, y = square
        return self.gutter + (x - self.x0 + 0.5) * self.cell, self.head + (y - self.y0 + 0.5) * self.cell


def placed(encounter: Encounter) -> list[Combatant]:
    """The combatants standing on a square, in turn order."""
    return [c for c in encounter.combatants if c.position is not None]


def board(encounter: Encounter, *, path: Iterable[Square] = (), strays: Iterable[Square] = ()) -> Board:
    """The map of an encounter's placed combatants (no hit points: only whether each is dead)."""
    current = encounter.current
    markers = []
    for c in encounter.combatants:
        if c.position is None:
            continue
        dead = not rules.can_act(encounter.ruleset, c)
        turn = current is not None and c.number == current.number
        markers.append(Marker(str(c.number), c.position, foe=c.side is Side.FOES, dead=dead, turn=turn))
    return Board(tuple(markers), tuple(path), tuple(strays))


@dataclass(frozen=True, slots=True)
class LineOfFire:
    """A shot's squares on the map (aliensrl.md §6, and the bot's Bresenham line): what the map draws for it."""

    shooter: Combatant
    target: Combatant
    distance: int
    path: tuple[Square, ...]  # from the shooter's square (left out) to the target's (included)
    strays: tuple[Square, ...]  # where a stray may land, around the target's square, on the map
    in_the_way: tuple[Combatant, ...]  # the living on the path before the target, in the order the shot meets them


def line_of_fire(encounter: Encounter, shooter: Combatant, target: Combatant, ring: Ring) -> LineOfFire:
    """The squares `/aliens fire` would cross from `shooter` at `target`, and the squares a stray may land on."""
    field = rules.shot_field(encounter, shooter, target)
    x1, y1 = field.aim
    distance = aliensrl.angband_distance(*field.offset)
    path = aliensrl.line(field.origin, field.aim)
    strays = tuple(
        (x1 + dx, y1 + dy)
        for dx, dy in aliensrl.stray_offsets(distance, ring)
        if 0 <= x1 + dx < rules.MAP_SIZE and 0 <= y1 + dy < rules.MAP_SIZE
    )
    standing = (rules.occupant(encounter, square) for square in path[:-1])
    in_the_way = tuple(c for c in standing if c is not None and rules.can_act(encounter.ruleset, c))
    return LineOfFire(shooter, target, distance, path, strays, in_the_way)


def fire_lines(fire: LineOfFire, ring: Ring) -> list[str]:
    """The line of fire in words, for the embed: who at whom, how far, who is in the way, where a stray goes."""
    assert fire.shooter.position is not None and fire.target.position is not None
    lines = [
        f"Line of fire: **{fire.shooter.name}** {fire.shooter.position} → **{fire.target.name}** "
        f"{fire.target.position}, distance {fire.distance}: {len(fire.path)} square(s), blue."
    ]
    if fire.in_the_way:
        met = ", ".join(f"{c.name} {c.position}" for c in fire.in_the_way)
        lines.append(f"In the way: {met}; each is missed on 6 in 10, in turn.")
    else:
        lines.append("Nobody in the way.")
    if fire.distance < 5:
        lines.append(f"At distance {fire.distance} a shot does not stray (under 5).")
    elif fire.distance < 9:
        lines.append(f"A stray lands on one of the {len(fire.strays)} squares next to the target's, purple.")
    else:
        lines.append(
            f"A stray lands on one of the {len(fire.strays)} squares two away from the target's, purple "
            f"(`aliensrl.ring`: {ring.value})."
        )
    return lines


def _span(low: int, high: int) -> tuple[int, int]:
    """The first square and how many are shown along one axis, to hold low..high with a margin."""
    count = min(rules.MAP_SIZE, max(MIN_SPAN, high - low + 1 + 2 * MARGIN))
    start = low - MARGIN - (count - (high - low + 1 + 2 * MARGIN)) // 2
    return max(0, min(start, rules.MAP_SIZE - count)), count


def view(shown: Board) -> View:
    """The part of the map a board needs: every square it marks, with MARGIN around, at least MIN_SPAN each way."""
    squares = [m.square for m in shown.markers] + list(shown.path) + list(shown.strays)
    squares = [(x, y) for x, y in squares if 0 <= x < rules.MAP_SIZE and 0 <= y < rules.MAP_SIZE]
    if not squares:
        squares = [(0, 0)]
    x0, cols = _span(min(x for x, _ in squares), max(x for x, _ in squares))
    y0, rows = _span(min(y for _, y in squares), max(y for _, y in squares))
    cell = max(MIN_CELL, min(MAX_CELL, GRID_LIMIT // max(cols, rows)))
    return View(x0, y0, cols, rows, cell)


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _shape(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], foe: bool, fill: Colour) -> None:
    """A circle for the party, a diamond for the foes, filling `box` (left, top, right, bottom)."""
    left, top, right, bottom = box
    outline, width = INK, max(1, SCALE)
    if foe:
        cx, cy = (left + right) / 2, (top + bottom) / 2
        draw.polygon([(cx, top), (right, cy), (cx, bottom), (left, cy)], fill=fill, outline=outline, width=width)
    else:
        draw.ellipse(box, fill=fill, outline=outline, width=width)


def _marker(
    draw: ImageDraw.ImageDraw,
    marker: Marker,
    left: float,
    top: float,
    cell: float,
    least: float,
    bounds: tuple[float, float, float, float],
) -> tuple[float, float, float, float]:
    """One combatant on its square (all in scaled pixels); returns the box its shape takes.

    The number is at least `least` pixels (legible on a phone at any map size). Where the square is too small to
    hold it, the shape grows around the square's centre into a badge that does, over the squares next to it; at
    the picture's edge the badge is pushed in (`bounds`), still covering its square.
    """
    size = max(round(cell * 0.42), round(least))
    font = _font(size)
    text_width = draw.textlength(marker.label, font=font)
    digits = size * 0.75
    # A diamond holds a box of w by h when its diagonal is w + h; a circle, when its diameter is the box's diagonal.
    needed = 1.15 * ((text_width + digits) if marker.foe else (text_width**2 + digits**2) ** 0.5)
    inset = cell * (0.04 if marker.foe else 0.1)  # a diamond of the same width covers half as much
    side = max(cell - 2 * inset, needed)
    cx = min(max(left + cell / 2, bounds[0] + side / 2), bounds[2] - side / 2)
    cy = min(max(top + cell / 2, bounds[1] + side / 2), bounds[3] - side / 2)
    box = (cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2)
    fill = DEAD if marker.dead else (FOES if marker.foe else PARTY)
    _shape(draw, box, marker.foe, fill)
    if marker.dead and side >= EVERY_SQUARE_FROM * SCALE:  # in a small shape the cross would hide the number
        _cross(draw, box, CROSS)
    # A halo a tenth of the number's size keeps it clear of the dead's cross and of the lines of the grid.
    halo = max(SCALE, size // 10)
    if marker.dead:
        draw.text((cx, cy), marker.label, fill=TEXT, font=font, anchor="mm", stroke_width=halo, stroke_fill=INK)
    else:
        draw.text((cx, cy), marker.label, fill=INK, font=font, anchor="mm", stroke_width=halo, stroke_fill=fill)
    return box


def _cross(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], fill: Colour) -> None:
    """The dead's cross over their shape."""
    left, top, right, bottom = box
    a, b = 0.15, 0.85
    width, height = right - left, bottom - top
    for (x0, y0), (x1, y1) in (((a, a), (b, b)), ((a, b), (b, a))):
        line = (left + x0 * width, top + y0 * height, left + x1 * width, top + y1 * height)
        draw.line(line, fill=fill, width=max(2, round(width / 12)))


def _frame(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], cell: float) -> None:
    """Whose turn it is: a white frame around its square or badge, drawn outside so it never covers the marker."""
    width = max(2 * SCALE, round(cell / 10))
    out = width / 2
    left, top, right, bottom = box
    draw.rectangle((left - out, top - out, right + out, bottom + out), outline=TURN, width=width)


def _key(draw: ImageDraw.ImageDraw, shown: Board, left: float, top: float, height: float, words: int) -> None:
    """The strip under the grid: which shape and colour is what (scaled pixels; its words `words` pixels tall)."""
    font = _font(words)
    size = height * 0.62
    x, y = left, top + (height - size) / 2
    items = ["party", "foes", "dead", "whose turn"]
    items += ["line of fire"] if shown.path else []
    items += ["stray squares"] if shown.strays else []
    for word in items:
        box = (x, y, x + size, y + size)
        if word == "whose turn":
            draw.rectangle(box, outline=TURN, width=2 * SCALE)
        elif word in ("line of fire", "stray squares"):
            draw.rectangle(box, fill=PATH if word == "line of fire" else STRAY)
        else:
            _shape(draw, box, word == "foes", {"party": PARTY, "foes": FOES}.get(word, DEAD))
        if word == "dead":
            _cross(draw, box, CROSS)
        draw.text((x + size + 6 * SCALE, top + height / 2), word, fill=MUTED, font=font, anchor="lm")
        x += size + 6 * SCALE + draw.textlength(word, font=font) + 16 * SCALE


def draw_map(shown: Board) -> bytes:
    """The board as a PNG: grid, coordinates along the top and left, the markers, a line of fire if any, the key."""
    seen = view(shown)
    s = SCALE
    cell = seen.cell * s
    left, top = seen.gutter * s, seen.head * s
    right, bottom = left + seen.cols * cell, top + seen.rows * cell
    image = Image.new("RGB", (seen.width * s, seen.height * s), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.rectangle((left, top, right, bottom), fill=BOARD)

    def square_box(square: Square) -> tuple[float, float]:
        return left + (square[0] - seen.x0) * cell, top + (square[1] - seen.y0) * cell

    def shown_square(square: Square) -> bool:
        x, y = square
        return seen.x0 <= x < seen.x0 + seen.cols and seen.y0 <= y < seen.y0 + seen.rows

    for squares, fill in ((shown.strays, STRAY), (shown.path, PATH)):
        for square in filter(shown_square, squares):
            x, y = square_box(square)
            draw.rectangle((x, y, x + cell, y + cell), fill=fill)

    for index in range(seen.cols + 1):
        five = (seen.x0 + index) % 5 == 0
        x = left + index * cell
        draw.line((x, top, x, bottom), fill=GRID_FIVE if five else GRID, width=s)
    for index in range(seen.rows + 1):
        five = (seen.y0 + index) % 5 == 0
        y = top + index * cell
        draw.line((left, y, right, y), fill=GRID_FIVE if five else GRID, width=s)

    font = _font(max(min(13, max(10, seen.cell // 2)), round(seen.label * 0.85)) * s)
    # Every square's coordinate where two digits fit in a square, else every 5th.
    step = 1 if seen.cell >= EVERY_SQUARE_FROM and draw.textlength("59", font=font) + 4 * s <= cell else 5
    for index in range(seen.cols):
        if (seen.x0 + index) % step == 0:
            draw.text(
                (left + (index + 0.5) * cell, top - 4 * s), str(seen.x0 + index), fill=MUTED, font=font, anchor="mb"
            )
    for index in range(seen.rows):
        if (seen.y0 + index) % step == 0:
            draw.text(
                (left - 5 * s, top + (index + 0.5) * cell), str(seen.y0 + index), fill=MUTED, font=font, anchor="rm"
            )

    markers = [m for m in shown.markers if shown_square(m.square)]
    # Where badges overlap, the living are drawn over the dead, and whoever has the turn over everyone, framed.
    markers.sort(key=lambda m: (not m.dead, m.turn))
    edge = 2 * max(2 * s, round(cell / 10))  # room for the turn's frame, drawn outside the badge
    bounds = (float(edge), float(edge), float(seen.width * s - edge), float(seen.height * s - edge))
    for marker in markers:
        x, y = square_box(marker.square)
        box = _marker(draw, marker, x, y, cell, seen.label * s, bounds)
        if marker.turn:
            own = (x, y, x + cell, y + cell)
            _frame(draw, (min(box[0], own[0]), min(box[1], own[1]), max(box[2], own[2]), max(box[3], own[3])), cell)

    _key(draw, shown, left, bottom + PAD * s, seen.key * s, max(13, round(seen.label * 0.85)) * s)
    image = image.resize((seen.width, seen.height), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def legend_line(encounter: Encounter, combatant: Combatant) -> str:
    """One combatant in the map's legend: number, shape, name, square, dead or whose turn (never hit points)."""
    assert combatant.position is not None
    x, y = combatant.position
    line = f"`#{combatant.number}` {SHAPES[combatant.side is Side.FOES]} **{combatant.name}** ({x}, {y})"
    if not rules.can_act(encounter.ruleset, combatant):
        line += " · dead"
    current = encounter.current
    if current is not None and current.number == combatant.number:
        line += " · **its turn**"
    return line


def map_embed(encounter: Encounter, shown: View, fire: list[str] | None = None) -> discord.Embed:
    """The map's embed: whose turn, any line of fire, the legend (number to name), who is not on the map."""
    current = encounter.current
    status = f"Round **{encounter.round}** · **{current.name}**'s turn" if current else "Not begun."
    lines = [status, *(fire or []), "", *(legend_line(encounter, c) for c in placed(encounter))]
    elsewhere = [c.name for c in encounter.combatants if c.position is None]
    if elsewhere:
        lines += ["", f"Not on the map: {', '.join(elsewhere)} (`/encounter place`)."]
    embed = discord.Embed(title=clip(f"{encounter.name} · map", 256), description="\n".join(lines), colour=ROLL_COLOUR)
    embed.set_image(url=f"attachment://{MAP_FILE}")
    last_x, last_y = shown.x0 + shown.cols - 1, shown.y0 + shown.rows - 1
    embed.set_footer(
        text=f"Squares {shown.x0}–{last_x} across (x, from 0 at the left), {shown.y0}–{last_y} down (y, from 0 at "
        "the top). ● party, ◆ foes. Hit points are the tracker's: /encounter show."
    )
    return fit(embed)
