"""/encounter map through the command tree, and the drawing itself: every marker on its own square, no hit points.

The pixels are checked where the layout says a square is (GUTTER, HEAD and the cell size, worked out by hand
here), so a marker drawn one square off, or a view that starts elsewhere, fails.
"""

from __future__ import annotations

from bot.local.driver import DEFAULT_GUILD, LocalDiscord
from bot.local.payloads import MANAGER_PERMISSIONS, Actor
from bot.ui import map as map_ui
from bot.ui.map import BOARD, DEAD, FOES, PARTY, TURN, Board, Marker, View, draw_map, view
from tests.dice_sources import NoDice
from tests.helpers import ALICE as GM
from tests.helpers import BOB as PLAYER
from tests.helpers import MANAGER, character, middle, near, ok, picture

Pixel = tuple[int, int, int]


def inside(shown: View, square: tuple[int, int]) -> tuple[int, int]:
    """A pixel within the marker on `square`, below its number (14 px tall on a phone): the shape shows there."""
    x, y = shown.centre(square)
    return round(x), round(y + 0.34 * shown.cell)


async def a_placed_fight(local: LocalDiscord) -> None:
    """Vasquez (party, x 3 y 4) has the turn; Alien 1 (x 10 y 8) is unhurt, Alien 2 (x 7 y 5) dead; HP hidden."""
    player = local.as_user(PLAYER)
    ok(await local.command("encounter start", {"ruleset": "aliensrl", "name": "Hadley's Hope", "hide_hp": True}))
    ok(await local.command("encounter add", {"name": "Alien", "count": 2, "hp": 20, "rank": 1}))
    await character(local, "aliensrl", "Vasquez", actor=player, hit_points=14, max_hit_points=14)
    ok(await local.command("encounter join", actor=player))
    ok(await local.command("encounter move", {"combatant": "Vasquez", "position": 1}))
    ok(await local.command("encounter place", {"combatant": "Vasquez", "x": 3, "y": 4}, actor=player))
    ok(await local.command("encounter place", {"combatant": "Alien 1", "x": 10, "y": 8}))
    ok(await local.command("encounter place", {"combatant": "Alien 2", "x": 7, "y": 5}))
    ok(await local.command("encounter hp", {"combatant": "Alien 2", "amount": "-20"}))
    local.bot.dice = NoDice()  # type: ignore[attr-defined]
    ok(await local.command("encounter next"))  # AliensRL: round 1 in the order as it stands, Vasquez first


async def test_the_map_shows_everyone_on_their_square(local: LocalDiscord) -> None:
    await a_placed_fight(local)
    shown = await local.command("encounter map", actor=local.as_user(PLAYER))  # anyone in the channel may look
    embed = ok(shown)
    assert not shown.ephemeral
    assert embed["title"] == "Hadley's Hope · map"
    assert embed["image"]["url"] == "attachment://map.png"
    assert embed["description"].split("\n") == [
        "Round **1** · **Vasquez**'s turn",
        "",
        "`#3` ● **Vasquez** (3, 4) · **its turn**",
        "`#1` ◆ **Alien 1** (10, 8)",
        "`#2` ◆ **Alien 2** (7, 5) · dead",
    ]
    assert "Squares 1–12 across" in embed["footer"]["text"] and "2–11 down" in embed["footer"]["text"]
    assert "20" not in embed["description"] and "hp" not in embed["description"]  # hit points are the tracker's

    image = picture(shown.files["map.png"])
    # x 3..10 with two squares either side: 1..12 (12 squares); y 4..8: 2..10, widened to the least 10, 2..11.
    # 900 px // 12 squares is more than the largest cell, 44: 30 + 12 x 44 + 12 across, 26 + 10 x 44 + 12 + 34 down
    # (the text at least 14 px as a phone shows it 400 px wide: 570 x 14 x 1.1 / 400 makes 22 px, 4 more above).
    assert image.size == (570, 512)
    layout = View(x0=1, y0=2, cols=12, rows=10, cell=44)
    assert near(image.getpixel(inside(layout, (3, 4))), PARTY)
    assert near(image.getpixel(inside(layout, (10, 8))), FOES)
    assert near(image.getpixel(inside(layout, (7, 5))), DEAD)
    for empty in ((5, 9), (3, 5), (10, 7), (4, 4)):
        assert near(image.getpixel(middle(layout, empty)), BOARD), empty
    # Whose turn: a white frame on the edge of Vasquez's square, none on Alien 1's.
    assert near(image.getpixel((30 + 2 * 44, 26 + 2 * 44 + 22)), TURN)
    assert not near(image.getpixel((30 + 9 * 44, 26 + 6 * 44 + 22)), TURN)


async def test_a_private_map_and_the_map_after_a_move(local: LocalDiscord) -> None:
    await a_placed_fight(local)
    ok(await local.command("encounter place", {"combatant": "Alien 1", "x": 4, "y": 6}))
    private = await local.command("encounter map", {"private": True}, actor=local.as_user(PLAYER))
    assert private.ephemeral and private.rejected == []
    image = picture(private.files["map.png"])
    # Now x 3..7 and y 4..6, each with its margin and widened to 10 squares: x 1..10 and y 1..10.
    layout = View(x0=1, y0=1, cols=10, rows=10, cell=44)
    assert image.size == (layout.width, layout.height) == (482, 510)
    assert near(image.getpixel(inside(layout, (4, 6))), FOES)
    assert near(image.getpixel(middle(layout, (10, 8))), BOARD)  # where Alien 1 stood is shown empty


async def test_a_line_of_fire_and_where_a_stray_may_land(local: LocalDiscord) -> None:
    await a_placed_fight(local)
    ok(await local.command("encounter add", {"name": "Drone", "hp": 5, "rank": 0}))
    ok(await local.command("encounter place", {"combatant": "Drone", "x": 6, "y": 6}))
    fired = await local.command(
        "encounter map", {"shooter": "Vasquez", "target": "Alien 1"}, actor=local.as_user(PLAYER)
    )
    lines = ok(fired)["description"].split("\n")
    # (3, 4) to (10, 8): 7 across and 4 down, Angband distance 7 + 4 // 2 = 9, so a stray goes two squares away;
    # Bresenham's line crosses (4, 5) (5, 5) (6, 6) (7, 6) (8, 7) (9, 7) (10, 8). Dead Alien 2 on (7, 5) is off it.
    assert lines[1:4] == [
        "Line of fire: **Vasquez** (3, 4) → **Alien 1** (10, 8), distance 9: 7 square(s), blue.",
        "In the way: Drone (6, 6); each is missed on 6 in 10, in turn.",
        "A stray lands on one of the 16 squares two away from the target's, purple (`aliensrl.ring`: chebyshev).",
    ]
    image = picture(fired.files["map.png"])
    # Markers x 3..10 and the ring's x 8..12: x 1..14; y 4..8 and the ring's 6..10: y 2..12.
    layout = View(x0=1, y0=2, cols=14, rows=11, cell=44)
    # Text of 658 x 14 x 1.1 / 400, 26 px: the margins 31 left, 30 above and 38 below hold it.
    assert image.size == (layout.width, layout.height) == (31 + 14 * 44 + 12, 30 + 11 * 44 + 12 + 38)
    for square in ((4, 5), (5, 5), (7, 6), (8, 7), (9, 7)):
        assert near(image.getpixel(middle(layout, square)), map_ui.PATH), square
    for square in ((8, 6), (10, 6), (12, 10), (12, 8), (9, 10)):  # the ring, Chebyshev distance 2 from (10, 8)
        assert near(image.getpixel(middle(layout, square)), map_ui.STRAY), square
    for square in ((11, 9), (9, 9), (5, 4), (13, 8)):  # next to the target, off the line, beyond the ring
        assert near(image.getpixel(middle(layout, square)), BOARD), square
    assert near(image.getpixel(inside(layout, (6, 6))), FOES)  # the drone in the way, drawn over the line

    # The server's ring setting decides the squares two away; a close shot does not stray at all.
    manager = local.as_user(MANAGER, permissions=MANAGER_PERMISSIONS)
    ok(await local.command("settings set", {"setting": "aliensrl.ring", "value": "within-two"}, actor=manager))
    wide = ok(await local.command("encounter map", {"shooter": "Vasquez", "target": "Alien 1"}))
    assert "one of the 24 squares two away" in wide["description"] and "within-two" in wide["description"]
    close = ok(await local.command("encounter map", {"shooter": "Vasquez", "target": "Drone"}))
    assert "At distance 4 a shot does not stray (under 5)." in close["description"].split("\n")
    assert "Nobody in the way." in close["description"].split("\n")

    half = await local.command("encounter map", {"shooter": "Vasquez"})
    assert half.ephemeral and half.embed["title"] == "Line of fire" and half.files == {}
    itself = await local.command("encounter map", {"shooter": "Vasquez", "target": "vasquez"})
    assert itself.ephemeral and "cannot fire at itself" in itself.embed["description"]
    ok(await local.command("encounter add", {"name": "Bishop", "hp": 9, "side": "party"}))
    unplaced = await local.command("encounter map", {"shooter": "Bishop", "target": "Drone"})
    assert unplaced.ephemeral and unplaced.embed["title"] == "Not on the map"


async def test_only_an_aliens_fight_has_a_map(local: LocalDiscord) -> None:
    for ruleset, title in (("dnd35", "D&D 3.5"), ("sf", "Star Frontiers")):
        ok(await local.command("encounter start", {"ruleset": ruleset}))
        ok(await local.command("encounter add", {"name": "Ogre", "hp": 30}))
        refused = await local.command("encounter map")
        assert refused.ephemeral and refused.embed["title"] == "No map"
        assert f"Only an AliensRL fight has a map; this one is {title}" in refused.embed["description"]
        assert refused.files == {}
        ok(await local.command("encounter end"))


async def test_a_map_with_nobody_on_it_says_how_to_place(local: LocalDiscord) -> None:
    ok(await local.command("encounter start", {"ruleset": "aliensrl"}))
    empty = await local.command("encounter map")
    assert empty.ephemeral and empty.embed["title"] == "Nobody placed" and empty.files == {}
    ok(await local.command("encounter add", {"name": "Drone", "count": 2, "hp": 5}))
    unplaced = await local.command("encounter map")
    assert unplaced.ephemeral and unplaced.embed["title"] == "Nobody placed"
    assert "`/encounter place combatant x y`" in unplaced.embed["description"]
    ok(await local.command("encounter place", {"combatant": "Drone 2", "x": 59, "y": 0}))
    shown = ok(await local.command("encounter map"))
    assert shown["description"].split("\n")[-1] == "Not on the map: Drone 1 (`/encounter place`)."


async def test_another_channel_sees_no_map(local: LocalDiscord) -> None:
    await a_placed_fight(local)
    elsewhere = Actor(user_id=GM, guild_id=DEFAULT_GUILD, channel_id="300000000000000009")
    other_server = Actor(user_id=GM, guild_id="300000000000000077", channel_id=local.actor.channel_id)
    for actor in (elsewhere, other_server):
        seen = await local.command("encounter map", actor=actor)
        assert seen.ephemeral and seen.embed["title"] == "No fight" and seen.files == {}


# ----------------------------------------------------------------------------------------------- the drawing


def test_the_view_holds_every_marker_with_a_margin_and_stays_small() -> None:
    corner = Board((Marker("1", (59, 59), foe=False, dead=False, turn=False),))
    assert view(corner) == View(x0=50, y0=50, cols=10, rows=10, cell=44)
    spread = Board((Marker("1", (0, 0), False, False, False), Marker("2", (59, 30), True, False, False)))
    widest = view(spread)
    assert widest == View(x0=0, y0=0, cols=60, rows=35, cell=15)
    # Text of 942 x 14 x 1.1 / 400, 37 px, legible on a phone: the margins 44 left, 41 above and 49 below hold it.
    assert (widest.label, widest.gutter, widest.head, widest.key) == (37, 44, 41, 49)
    assert (widest.width, widest.height) == (44 + 60 * 15 + 12, 41 + 35 * 15 + 12 + 49)
    assert widest.width <= 1000
    line = Board((Marker("1", (20, 20), False, False, False),), path=((21, 20), (30, 20)), strays=((32, 22),))
    assert view(line) == View(x0=18, y0=17, cols=17, rows=10, cell=44)  # x 20..32 and y 20..22, y widened


def test_the_drawing_puts_each_marker_on_its_square() -> None:
    markers = (
        Marker("1", (20, 20), foe=False, dead=False, turn=False),
        Marker("2", (35, 28), foe=True, dead=False, turn=True),
        Marker("13", (26, 24), foe=True, dead=True, turn=False),
    )
    shown = Board(markers)
    layout = view(shown)
    assert layout == View(x0=18, y0=18, cols=20, rows=13, cell=44)
    image = picture(draw_map(shown))
    assert image.size == (layout.width, layout.height)
    assert near(image.getpixel(inside(layout, (20, 20))), PARTY)
    assert near(image.getpixel(inside(layout, (35, 28))), FOES)
    assert near(image.getpixel(inside(layout, (26, 24))), DEAD)
    for empty in ((21, 20), (20, 21), (34, 28), (26, 25), (18, 18), (37, 30)):
        assert near(image.getpixel(middle(layout, empty)), BOARD), empty
    # A party marker is round: the corner of its square stays board; a foe's diamond leaves its corners too.
    x, y = layout.centre((20, 20))
    assert near(image.getpixel((round(x - 0.4 * layout.cell), round(y - 0.4 * layout.cell))), BOARD)


def test_a_line_of_fire_colours_its_squares() -> None:
    path = ((21, 20), (22, 20), (23, 21))
    shown = Board((Marker("1", (20, 20), False, False, True),), path=path, strays=((24, 22),))
    layout = view(shown)
    image = picture(draw_map(shown))
    for square in path:
        assert near(image.getpixel(middle(layout, square)), map_ui.PATH), square
    assert near(image.getpixel(middle(layout, (24, 22))), map_ui.STRAY)
    assert near(image.getpixel(middle(layout, (22, 22))), BOARD)
