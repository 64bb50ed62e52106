"""The encounter tracker pages instead of clipping (#31 item 5): 25 combatants with conditions, every one shown.

The tracker's Page buttons sit beside its Next button, name the fight they belong to and are rebuilt from their
custom id after a restart, as the lists' are. The tracker is public: anyone in the channel turns its pages, and
only Next (which asks who may) changes the fight. A pass of the turn shows the page with whose turn it now is.
"""

from __future__ import annotations

import json
import re
from typing import Any

from bot.db.engine import Database
from bot.local.driver import Exchange, LocalDiscord
from bot.local.payloads import MANAGER_PERMISSIONS, Actor
from bot.rules.encounter import Combatant
from tests.helpers import CAROL, MOD, button, buttons, ok, pages, stored, tracker_of

# The longest names a fight takes (32 characters with the number `count` adds) and conditions of 32 each.
NAMES = ("Hobgoblin Sergeant of the Fen", "Goblin Skirmisher of the Hill", "Bugbear Brute of the Deep Dark")
CONDITIONS = ("entangled in the spider's webbing", "shaken by the dragon's roaring")


async def big_fight(
    local: LocalDiscord, *, group: bool = False, conditions: tuple[str, ...] = CONDITIONS
) -> tuple[Actor, Exchange]:
    """A D&D fight of 25 combatants, each with long `conditions`, begun; its runner and `/encounter show`.

    `group`: each kind of creature rolls one initiative (three checks), rather than one each.
    """
    runner = local.as_user(MOD, permissions=MANAGER_PERMISSIONS)
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Siege"}, actor=runner))
    for name, count in zip(NAMES, (10, 10, 5), strict=True):
        added = {"name": name, "hp": 30, "count": count, "group": group, "initiative": 3}
        ok(await local.command("encounter add", added, actor=runner))
    for combatant in (await stored(local.bot.database)).combatants:
        for condition in conditions:
            given = {"combatant": combatant.name, "name": condition[:32], "rounds": 100}
            ok(await local.command("encounter condition", given, actor=runner))
    ok(await local.command("encounter next", actor=runner))
    return runner, await local.command("encounter show", actor=runner)


def listed(page: dict[str, Any]) -> list[str]:
    """The combatants a tracker page lists: the bold name on each of its order's lines."""
    return [line.split("**")[1] for line in page["description"].split("\n") if line[:2] in ("▶ ", "· ")]


def expected_line_end(combatant: Combatant) -> str:
    """How a combatant's conditions end its line, written out here: every one with its rounds left."""
    return ", ".join(f"{c.name} ({c.rounds})" for c in combatant.conditions)


async def test_25_combatants_with_conditions_are_all_shown_across_pages_none_clipped(local: LocalDiscord) -> None:
    runner, show = await big_fight(local)
    fight = await stored(local.bot.database)
    assert len(fight.combatants) == 25
    shown = await pages(local, show, actor=runner)
    assert len(shown) >= 2
    assert [page["title"] for page in shown] == [
        f"Siege · D&D 3.5 · {n}/{len(shown)}" for n in range(1, len(shown) + 1)
    ]
    # Every combatant once, in turn order, across the pages; nothing cut anywhere.
    assert [name for page in shown for name in listed(page)] == [c.name for c in fight.combatants]
    assert "…" not in json.dumps(shown, ensure_ascii=False)
    text = "\n".join(page["description"] for page in shown)
    for combatant in fight.combatants:
        [line] = [line for line in text.split("\n") if line[:2] in ("▶ ", "· ") and f"**{combatant.name}**" in line]
        assert line.endswith(expected_line_end(combatant)), line
    # Each page has the initiative of the combatants it lists, and every check is shown on some page.
    for page in shown:
        [field] = page["fields"]
        rolled = [line.split(":")[0] for line in field["value"].split("\n")]
        assert rolled == listed(page)
        assert len(json.dumps(page)) < 6000 and len(page["description"]) <= 4096 and len(field["value"]) <= 1024
    # The status and whose turn it is head every page.
    current = fight.current
    assert current is not None
    assert all(page["description"].startswith(f"Round **1** · **{current.name}**'s turn") for page in shown)


async def test_next_shows_the_page_with_whose_turn_it_is(local: LocalDiscord) -> None:
    runner, show = await big_fight(local)
    first = len(listed(local.original(show)["embeds"][0]))  # the combatants on page 1
    passed = None
    for _ in range(first):  # the turn moves past page 1's last combatant
        passed = await local.command("encounter next", actor=runner)
    assert passed is not None
    edited = tracker_of(passed)  # the pinned tracker, edited in place
    current = (await stored(local.bot.database)).current
    assert current is not None
    assert re.fullmatch(r"Siege · D&D 3\.5 · 2/[0-9]+", edited["title"]), edited["title"]
    [turn_line] = [line for line in edited["description"].split("\n") if line.startswith("▶ ")]
    assert f"**{current.name}**" in turn_line
    tracker = local.original(show)
    assert button(tracker, "Page 1") is not None and button(tracker, "Next") is not None


async def test_a_page_press_after_a_restart_shows_that_page(local: LocalDiscord) -> None:
    _, show = await big_fight(local)
    tracker = local.original(show)
    page_2 = button(tracker, "Page 2")
    assert page_2 is not None
    await local.restart()
    pressed = await local.click(tracker, page_2, actor=local.as_user(CAROL))
    assert pressed.rejected == [] and pressed.response["type"] == 7  # shown in place
    now = local.original(show)
    assert now["embeds"][0]["title"].startswith("Siege · D&D 3.5 · 2/")
    assert button(now, "Page 1") is not None and button(now, "Next") is not None


async def test_a_page_press_on_an_ended_fight_says_so(local: LocalDiscord) -> None:
    runner, show = await big_fight(local)
    tracker = local.original(show)
    page_2 = button(tracker, "Page 2")
    assert page_2 is not None
    ok(await local.command("encounter end", actor=runner))
    pressed = await local.click(tracker, page_2)
    assert pressed.ephemeral and pressed.embed["title"] == "Fight over"
    assert local.original(show) == tracker  # the old tracker is left as it was
    # A new fight in the channel is not the old tracker's either.
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Next siege"}, actor=runner))
    again = await local.click(tracker, page_2)
    assert again.ephemeral and again.embed["title"] == "Fight over"


async def test_a_member_not_in_the_fight_turns_its_pages_but_cannot_change_it(
    local: LocalDiscord, database: Database
) -> None:
    _, show = await big_fight(local)
    stranger = local.as_user(CAROL)
    before = await stored(database)
    shown = await pages(local, show, actor=stranger)
    assert len(shown) >= 2
    assert [name for page in shown for name in listed(page)] == [c.name for c in before.combatants]
    refused = await local.click(local.original(show), buttons(local.original(show))["Next"], actor=stranger)
    assert refused.ephemeral and refused.embed["title"] == "Not allowed"
    assert await stored(database) == before


async def test_a_private_tracker_pages_privately_in_its_viewers_numbers(local: LocalDiscord) -> None:
    runner, _ = await big_fight(local)
    private = await local.command("encounter show", {"private": True}, actor=runner)
    assert private.ephemeral and "Next" not in buttons(local.original(private))  # it passes no turn
    shown = await pages(local, private, actor=runner)
    assert len(shown) >= 2 and all(page["footer"]["text"].startswith("The game master's view") for page in shown)
    fight = await stored(local.bot.database)
    assert [name for page in shown for name in listed(page)] == [c.name for c in fight.combatants]
    # Turned in place: the private tracker is one message, not a new one per page.
    first = await local.command("encounter show", {"private": True}, actor=runner)
    turned = await local.click(local.original(first), str(button(local.original(first), "Page 2")), actor=runner)
    assert turned.response["type"] == 7 and local.original(first)["embeds"][0]["title"].startswith(
        "Siege · D&D 3.5 · 2/"
    )


async def test_a_groups_one_initiative_shows_on_every_page_that_lists_one_of_it(local: LocalDiscord) -> None:
    # Three checks make a short initiative field: a third condition each fills the order instead.
    runner, show = await big_fight(local, group=True, conditions=(*CONDITIONS, "blinded by the wizard's sunburst"))
    shown = await pages(local, show, actor=runner)
    assert len(shown) >= 2
    assert "…" not in json.dumps(shown, ensure_ascii=False)
    fight = await stored(local.bot.database)
    assert [name for page in shown for name in listed(page)] == [c.name for c in fight.combatants]
    for page in shown:
        [field] = page["fields"]
        kinds = {name.rsplit(" ", 1)[0] for name in listed(page)}
        # "Goblin Skirmisher of the Hill 1-10: d20 ...": one line a kind, for the kinds on the page only.
        assert {line.split(":")[0].rsplit(" ", 1)[0] for line in field["value"].split("\n")} == kinds
