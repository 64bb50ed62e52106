"""The table's habits through the command tree (#28 item 5): group initiative, a player's own initiative roll,
delay and ready, healing by anyone in the fight (a setting), and the AliensRL map in one command."""

from __future__ import annotations

from typing import Any

from bot.db.engine import Database
from bot.local.driver import LocalDiscord
from bot.local.payloads import MANAGER_PERMISSIONS
from bot.ui.map import BOARD, DIGIT_HEIGHT, FOES, INK, PARTY, TURN, Board, Marker, draw_map, view
from tests.dice_sources import NoDice, ScriptedDice
from tests.helpers import BOB as PLAYER
from tests.helpers import MANAGER, character, middle, near, ok, picture, state, stored, tracker_of, whose_turn

OTHER = "200000000000000003"  # a member with no combatant in the fight


def initiative_field(embed: dict[str, object]) -> str:
    fields = embed.get("fields", [])
    assert isinstance(fields, list)
    return next(f["value"] for f in fields if f["name"] == "Initiative")


async def cave_with_aria(local: LocalDiscord, **join: object) -> None:
    """A D&D fight run by the default user; the player's Aria (Dex 14: +2) joined with `join`'s options."""
    player = local.as_user(PLAYER)
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    await character(local, "dnd35", "Aria", actor=player, dexterity=14, hit_points=12, max_hit_points=12)
    ok(await local.command("encounter join", dict(join), actor=player))


# ---------------------------------------------------------------------------------------- group initiative


async def test_like_creatures_added_as_a_group_roll_one_initiative(local: LocalDiscord, database: Database) -> None:
    await cave_with_aria(local)
    added = ok(
        await local.command("encounter add", {"name": "Goblin", "count": 3, "hp": 6, "initiative": 1, "group": True})
    )
    assert (
        added["description"]
        == "Goblin 1, Goblin 2, Goblin 3 joined the fight as a group: one initiative, acting together."
    )
    dice = ScriptedDice([10, 15])  # Aria 10 + 2 = 12; the goblins, one check: 15 + 1 = 16
    local.bot.dice = dice  # type: ignore[attr-defined]
    started = await local.command("encounter next")
    ok(started)
    board = tracker_of(started)  # the tracker, edited in place; the answer is the turn message
    assert dice.exhausted
    assert state(await stored(database)) == [("Goblin 1", 6), ("Goblin 2", 6), ("Goblin 3", 6), ("Aria", 12)]
    assert initiative_field(board).split("\n") == [
        "Goblin 1-3: d20 15 + 1 initiative = **16**",
        "Aria: d20 10 + 2 Dex = **12**",
    ]


async def test_the_server_setting_groups_like_creatures_and_the_option_overrides_it(
    local: LocalDiscord, database: Database
) -> None:
    manager = local.as_user(MANAGER, permissions=MANAGER_PERMISSIONS)
    saved = await local.command("settings set", {"setting": "encounter.groups", "value": "together"}, actor=manager)
    assert saved.embed["title"] == "Setting saved", saved.embed
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    ok(await local.command("encounter add", {"name": "Goblin", "count": 2, "hp": 6}))
    ok(await local.command("encounter add", {"name": "Orc", "count": 2, "hp": 9, "group": False}))
    dice = ScriptedDice([5, 12, 3])  # the goblins one check; each orc its own
    local.bot.dice = dice  # type: ignore[attr-defined]
    ok(await local.command("encounter next"))
    assert dice.exhausted
    assert [c.name for c in (await stored(database)).combatants] == ["Orc 1", "Goblin 1", "Goblin 2", "Orc 2"]


async def test_no_group_where_the_fight_rolls_no_initiative_of_each(local: LocalDiscord, database: Database) -> None:
    ok(await local.command("encounter start", {"ruleset": "sf", "name": "Dock"}))  # by side, the default
    added = ok(await local.command("encounter add", {"name": "Sathar", "count": 2, "hp": 30, "group": True}))
    assert added["description"] == "Sathar 1, Sathar 2 joined the fight."
    assert {c.group for c in (await stored(database)).combatants} == {0}


# ---------------------------------------------------------------------------------------- a player's own roll


async def test_a_player_who_rolled_their_own_dice_gives_the_total(local: LocalDiscord, database: Database) -> None:
    await cave_with_aria(local, rolled=17)
    ok(await local.command("encounter add", {"name": "Goblin", "hp": 6, "initiative": 1}))
    dice = ScriptedDice([19])  # the goblin's only: 20
    local.bot.dice = dice  # type: ignore[attr-defined]
    started = await local.command("encounter next")
    ok(started)
    board = tracker_of(started)  # the tracker, edited in place; the answer is the turn message
    assert dice.exhausted
    assert initiative_field(board).split("\n") == ["Goblin: d20 19 + 1 initiative = **20**", "Aria: given **17**"]
    aria = (await stored(database)).combatants[1]
    assert aria.initiative is not None and aria.initiative.given and aria.initiative.total == 17


async def test_a_quick_creature_joining_late_with_its_own_roll(local: LocalDiscord, database: Database) -> None:
    await cave_with_aria(local)
    local.bot.dice = ScriptedDice([10])  # type: ignore[attr-defined]  # Aria 12
    ok(await local.command("encounter next"))
    local.bot.dice = NoDice()  # type: ignore[attr-defined]
    joined = ok(await local.command("encounter add", {"name": "Hireling", "hp": 5, "side": "party", "rolled": 14}))
    assert joined["description"] == "Hireling joined the fight under way.\nHireling: given **14**"
    assert state(await stored(database)) == [("Hireling", 5), ("Aria", 12)]


async def test_no_own_roll_where_the_fight_rolls_none(local: LocalDiscord) -> None:
    ok(await local.command("encounter start", {"ruleset": "aliensrl", "name": "Hope"}))
    refused = await local.command("encounter add", {"name": "Alien", "hp": 8, "rolled": 12})
    assert refused.ephemeral and "AliensRL fight rolls no initiative" in refused.embed["description"]


# ---------------------------------------------------------------------------------------- delay and ready


async def a_begun_fight(local: LocalDiscord) -> None:
    """Aria 20 (the player's), Goblin 1 16, Goblin 2 6: Aria's turn."""
    await cave_with_aria(local)
    ok(await local.command("encounter add", {"name": "Goblin", "count": 2, "hp": 6, "initiative": 1}))
    local.bot.dice = ScriptedDice([18, 15, 5])  # type: ignore[attr-defined]
    ok(await local.command("encounter next"))


async def test_a_player_delays_until_after_a_goblin(local: LocalDiscord, database: Database) -> None:
    await a_begun_fight(local)
    refused = await local.command("encounter delay", {"after": "Goblin 1"}, actor=local.as_user(OTHER))
    assert refused.ephemeral and refused.embed["title"] == "Not allowed"
    note = ok(await local.command("encounter delay", {"after": "Goblin 1"}, actor=local.as_user(PLAYER)))
    assert note["title"] == "Round 1 · Goblin 1's turn"  # the turn message of the goblin, who has the turn now
    assert note["description"] == "Aria delays to act after **Goblin 1**."
    board = ok(await local.command("encounter show"))
    assert "▶ 16 **Goblin 1**" in board["description"] and "· 16 **Aria**" in board["description"]  # its new count
    fight = await stored(database)
    assert [c.name for c in fight.combatants] == ["Goblin 1", "Aria", "Goblin 2"]
    assert whose_turn(fight) == (1, "Goblin 1")
    ok(await local.command("encounter next"))
    assert whose_turn(await stored(database)) == (1, "Aria")


async def test_a_readied_action_interrupts_the_goblins_turn(local: LocalDiscord, database: Database) -> None:
    await a_begun_fight(local)
    player = local.as_user(PLAYER)
    readied = ok(await local.command("encounter ready", {"trigger": "a goblin charges"}, actor=player))
    assert readied["description"].startswith("Aria readies an action until: a goblin charges.")
    ok(await local.command("encounter next", actor=player))
    ok(await local.command("encounter next"))  # Goblin 1 ends its turn; Goblin 2 charges
    board = ok(await local.command("encounter show"))
    assert "**Aria** `" in board["description"] and "readied: a goblin charges" in board["description"]
    acted = ok(await local.command("encounter ready", {"now": "Aria"}, actor=player))
    assert acted["title"] == "Cave: Aria's turn"
    assert (
        acted["description"]
        == "Aria takes the readied action (a goblin charges) before **Goblin 2**; Next ends its turn."
    )
    fight = await stored(database)
    assert [c.name for c in fight.combatants] == ["Goblin 1", "Aria", "Goblin 2"] and whose_turn(fight) == (1, "Aria")
    ok(await local.command("encounter next", actor=player))
    assert whose_turn(await stored(database)) == (1, "Goblin 2")
    again = await local.command("encounter ready", {"now": "Aria"}, actor=player)
    assert again.ephemeral and "no readied action" in again.embed["description"]


# ---------------------------------------------------------------------------------------- healing


async def a_party(local: LocalDiscord) -> None:
    """Aria (the player's, 12 hp) and Brom (the manager's, hurt to 4 of 12) in the default user's fight."""
    await cave_with_aria(local)
    manager = local.as_user(MANAGER)
    await character(local, "dnd35", "Brom", actor=manager, hit_points=12, max_hit_points=12)
    ok(await local.command("encounter join", actor=manager))
    ok(await local.command("encounter hp", {"combatant": "Brom", "amount": "-8"}))


async def test_by_default_only_the_owner_and_whoever_runs_it_heal(local: LocalDiscord) -> None:
    await a_party(local)
    refused = await local.command("encounter hp", {"combatant": "Brom", "amount": "+3"}, actor=local.as_user(PLAYER))
    assert refused.ephemeral and refused.embed["title"] == "Not allowed"


async def test_with_the_setting_anyone_in_the_fight_heals_anyone(local: LocalDiscord, database: Database) -> None:
    await a_party(local)
    manager = local.as_user(MANAGER, permissions=MANAGER_PERMISSIONS)
    ok(await local.command("settings set", {"setting": "encounter.heals", "value": "fighters"}, actor=manager))
    healed = ok(await local.command("encounter hp", {"combatant": "Brom", "amount": "+3"}, actor=local.as_user(PLAYER)))
    assert healed["description"] == "Brom: 4 → 7 hp"
    assert dict(state(await stored(database)))["Brom"] == 7
    hurt = await local.command("encounter hp", {"combatant": "Brom", "amount": "-3"}, actor=local.as_user(PLAYER))
    assert hurt.ephemeral and hurt.embed["title"] == "Not allowed"  # healing only
    outsider = await local.command("encounter hp", {"combatant": "Brom", "amount": "+3"}, actor=local.as_user(OTHER))
    assert outsider.ephemeral and outsider.embed["title"] == "Not allowed"  # only those in the fight


# ---------------------------------------------------------------------------------------- the map


async def hadleys_hope(local: LocalDiscord) -> None:
    ok(await local.command("encounter start", {"ruleset": "aliensrl", "name": "Hadley's Hope"}))
    ok(await local.command("encounter add", {"name": "Hicks", "hp": 10, "rank": 2, "side": "party"}))
    ok(await local.command("encounter add", {"name": "Alien", "count": 2, "hp": 8, "rank": 1}))


async def test_everyone_placed_in_one_command(local: LocalDiscord, database: Database) -> None:
    await hadleys_hope(local)
    placed = ok(await local.command("encounter place", {"squares": "Hicks 4,3; Alien 1 9,3; #3 (10, 1)"}))
    assert placed["description"].split("\n") == [
        "Hicks stands on (4, 3).",
        "Alien 1 stands on (9, 3).",
        "Alien 2 stands on (10, 1).",
    ]
    assert [c.position for c in (await stored(database)).combatants] == [(4, 3), (9, 3), (10, 1)]
    taken = await local.command("encounter place", {"squares": "Alien 1 5,3; Alien 2 4,3"})
    assert taken.ephemeral and "**Hicks** stands on (4, 3) already." in taken.embed["description"]
    assert [c.position for c in (await stored(database)).combatants] == [(4, 3), (9, 3), (10, 1)]  # none moved


async def test_a_move_by_an_offset_or_a_compass_word(local: LocalDiscord, database: Database) -> None:
    await hadleys_hope(local)
    ok(await local.command("encounter place", {"squares": "Hicks 4,3; Alien 1 9,3"}))
    moved = ok(await local.command("encounter place", {"combatant": "Alien 1", "by": "-2,+1"}))
    assert moved["description"] == "Alien 1 stands on (7, 4)."
    ok(await local.command("encounter place", {"combatant": "Alien 1", "by": "nw"}))
    ok(await local.command("encounter place", {"combatant": "Hicks", "by": "2s e"}))
    assert [c.position for c in (await stored(database)).combatants][:2] == [(5, 5), (6, 3)]
    blocked = await local.command("encounter place", {"combatant": "Alien 1", "by": "2s w"})
    assert blocked.ephemeral and "**Hicks** stands on (5, 5) already." in blocked.embed["description"]


async def test_place_says_what_it_needs(local: LocalDiscord) -> None:
    await hadleys_hope(local)
    for options, says in (
        ({"combatant": "Hicks", "x": 3}, "needs both `x` and `y`"),
        ({"combatant": "Hicks", "x": 3, "y": 3, "by": "n"}, "not both"),
        ({"squares": "Hicks 1,1", "combatant": "Hicks"}, "leave `combatant`"),
        ({"combatant": "Hicks", "by": "up"}, "not a square"),
        ({"combatant": "Hicks", "by": "n"}, "not on the map yet"),
    ):
        refused = await local.command("encounter place", options)
        assert refused.ephemeral and says in refused.embed["description"], (options, refused.embed)


# ---------------------------------------------------------------------------------------- the map's numbers


def ink_rows(image: Any, x: int, top: int, bottom: int, colour: tuple[int, int, int]) -> list[int]:
    """The rows from `top` to `bottom` where a pixel within two of column `x` is `colour` (the number's ink)."""
    return [y for y in range(top, bottom) if any(near(image.getpixel((x + dx, y)), colour, 40) for dx in range(-2, 3))]


def test_marker_numbers_are_legible_on_a_phone_on_the_widest_map() -> None:
    """Finding: on a wide map the marker numbers shrank to about 5 px as a phone shows the picture (400 px wide)."""
    markers = (
        Marker("8", (0, 0), foe=False, dead=False, turn=False),
        Marker("3", (30, 20), foe=False, dead=False, turn=False),
        Marker("7", (59, 34), foe=True, dead=False, turn=True),
    )
    shown = Board(markers)
    layout = view(shown)
    assert (layout.cols, layout.cell) == (60, 15)  # the widest map: a square is under 7 px on a phone
    image = picture(draw_map(shown))
    assert image.size == (layout.width, layout.height)
    phone = 400 / layout.width  # how much a phone shrinks the picture
    assert layout.label * phone >= 14
    x, y = middle(layout, (30, 20))
    half = layout.label // 2
    rows = ink_rows(image, x, y - half, y + half, INK)
    assert rows and (rows[-1] - rows[0] + 1) * phone >= 14 * DIGIT_HEIGHT, rows  # the digit's own height, ~10 px
    assert near(image.getpixel((x - 8, y)), PARTY)  # on its badge, centred on its square
    # At the picture's edge the badge is pushed in, whole, and still covers its square.
    x, y = middle(layout, (59, 34))
    assert near(image.getpixel((x, y)), FOES) or near(image.getpixel((x, y)), INK, 40)
    assert any(near(image.getpixel((layout.width - dx, y)), TURN, 40) for dx in range(1, 8))  # framed, in sight


def test_a_small_map_keeps_its_numbers_inside_their_squares() -> None:
    markers = (Marker("1", (20, 20), False, False, False), Marker("2", (24, 22), True, False, True))
    layout = view(Board(markers))
    assert layout.cell == 44 and layout.width * 14 * 1.1 / 400 <= 0.42 * 44 + 3  # the cell's own size already
    image = picture(draw_map(Board(markers)))
    for empty in ((21, 20), (19, 20), (20, 21), (23, 22), (25, 22)):
        assert near(image.getpixel(middle(layout, empty)), BOARD), empty
