"""Star Frontiers side initiative and knock-outs through the command tree (#25): who may lead a side, which stands."""

from __future__ import annotations

import pytest

from bot.db.engine import Database
from bot.local.driver import LocalDiscord
from bot.rules import encounter as rules
from tests.dice_sources import ScriptedDice
from tests.helpers import conditions, ok, stored, tracker_of

pytestmark = pytest.mark.usefixtures("full_answers")

SHOT = {"score": 40, "skill": 1, "damage": "1d10", "distance": "short", "target": "Captain"}


async def knock_out(local: LocalDiscord, turns: int) -> str:
    """A /sf shoot at the captain that rolls 01 (a hit that knocks out, §3): 1d10 5, then `turns` for the d100."""
    local.bot.dice = ScriptedDice([1, 5, turns])  # type: ignore[attr-defined]
    shot = await local.command("sf shoot", SHOT)
    assert shot.embed["color"] != 0xE74C3C, shot.embed
    description: str = shot.messages[-1]["embeds"][0]["description"]
    return description


async def test_a_knocked_out_captain_lends_its_side_no_initiative(local: LocalDiscord, database: Database) -> None:
    ok(await local.command("encounter start", {"ruleset": "sf", "name": "Port Loren"}))
    ok(await local.command("encounter add", {"name": "Kel", "hp": 45, "rs": 55, "side": "party"}))
    ok(await local.command("encounter add", {"name": "Sathar", "hp": 30, "rs": 30}))
    ok(await local.command("encounter add", {"name": "Captain", "hp": 30, "rs": 100}))
    assert (await knock_out(local, 40)).startswith("Captain: 30 → 25 hp, unconscious 40 turns")

    # Party d10 1 + IM 6 = 7, foes d10 4 + the Sathar's IM 3 = 7: Kel's RS 55 beats the Sathar's 30. Counting the
    # knocked-out captain (IM 10, RS 100), the foes had 14 and went first.
    local.bot.dice = ScriptedDice([1, 4])  # type: ignore[attr-defined]
    board = tracker_of(await local.command("encounter next"))
    value = board["fields"][0]["value"]
    assert "Foes: d10 4 + 3 IM (RS 30 / 10, rounded up) = **7** (Sathar's IM; best RS 30)" in value, value
    encounter = await stored(database)
    assert [c.name for c in encounter.combatants] == ["Kel", "Captain", "Sathar"]
    assert encounter.current is not None and encounter.current.name == "Kel"


async def test_a_side_with_nobody_able_to_act_comes_last_unrolled(local: LocalDiscord, database: Database) -> None:
    ok(await local.command("encounter start", {"ruleset": "sf", "name": "Port Loren"}))
    ok(await local.command("encounter add", {"name": "Kel", "hp": 45, "rs": 20, "side": "party"}))
    ok(await local.command("encounter add", {"name": "Captain", "hp": 30, "rs": 100}))
    await knock_out(local, 40)
    local.bot.dice = ScriptedDice([1])  # type: ignore[attr-defined]  # the party's d10 alone
    board = tracker_of(await local.command("encounter next"))
    value = board["fields"][0]["value"]
    assert value.splitlines()[1] == "Foes: nobody able to act (dead, unconscious or stunned), so last and no roll"
    assert [s.side for s in (await stored(database)).sides] == [rules.Side.PARTY, rules.Side.FOES]


async def test_the_longer_knock_out_stands(local: LocalDiscord, database: Database) -> None:
    ok(await local.command("encounter start", {"ruleset": "sf", "name": "Port Loren"}))
    ok(await local.command("encounter add", {"name": "Captain", "hp": 30, "rs": 100}))
    assert (await knock_out(local, 74)).endswith("unconscious 74 turns")
    # A shorter second knock-out leaves the 74 turns; a longer one replaces them.
    assert (await knock_out(local, 50)).endswith("unconscious 74 turns")
    assert conditions(rules.find(await stored(database), "Captain")) == [("unconscious", 74)]
    assert (await knock_out(local, 100)).endswith("unconscious 100 turns")
    assert conditions(rules.find(await stored(database), "Captain")) == [("unconscious", 100)]
