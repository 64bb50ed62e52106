"""/roll through discord.py's real command tree, answered to the local Discord double."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import select

from bot.db.engine import Database
from bot.db.models import RollLog
from bot.local.driver import LocalDiscord
from tests.dice_sources import NoDice, ScriptedDice


async def test_seeded_roll_shows_every_die_and_the_total_in_bold(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([3, 6, 1, 5])
    exchange = await local.command("roll", {"expression": "4d6kh3+2", "label": "Strength score"})
    embed = exchange.embed
    assert embed["title"] == "Strength score"
    assert embed["author"]["name"] == "Player0001 rolls"
    assert embed["description"] == "4d6kh3 (3, 6, ~~1~~, 5) + 2 = **16**"
    assert exchange.response["type"] == 4
    assert not exchange.ephemeral
    assert exchange.rejected == []


async def test_without_label_the_title_is_the_expression_as_typed(local: LocalDiscord) -> None:
    exchange = await local.command("roll", {"expression": "d20adv + 5"})
    assert exchange.embed["title"] == "d20adv + 5"
    assert exchange.embed["description"].startswith("1d20adv (")


async def test_private_roll_is_ephemeral(local: LocalDiscord) -> None:
    exchange = await local.command("roll", {"expression": "1d20", "private": True})
    assert exchange.ephemeral
    assert exchange.embed["author"]["name"] == "Player0001 rolls"


async def test_multiplication_is_escaped_for_markdown(local: LocalDiscord) -> None:
    exchange = await local.command("roll", {"expression": "(1d4+1)*2"})
    assert " \\* 2 = **" in exchange.embed["description"]


@pytest.mark.parametrize(
    ("expression", "named_limit"),
    [
        ("1001d6", "the limit is 1000"),
        ("100000d100000", "between 2 and 10000 sides"),
        ("1d1", "between 2 and 10000 sides"),
        ("1d10001", "between 2 and 10000 sides"),
        ("1+" * 100 + "1", "200"),
        ("600d6+500d6", "the limit is 1000"),
        ("1d6!>0", "every face"),
    ],
)
async def test_caps_are_refused_fast_with_a_message_naming_the_limit(
    local: LocalDiscord, expression: str, named_limit: str
) -> None:
    local.bot.dice = NoDice()  # refused before any die is rolled
    started = time.perf_counter()
    exchange = await local.command("roll", {"expression": expression})
    elapsed = time.perf_counter() - started
    assert exchange.ephemeral
    assert exchange.embed["title"] == "Can't roll that"
    assert named_limit in exchange.embed["description"]
    assert elapsed < 1.0  # generous on a shared machine; the refusal itself is microseconds


async def test_exploding_dice_stop_at_the_extra_roll_cap_and_say_so(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([2] * 101)
    exchange = await local.command("roll", {"expression": "1d2!"})
    assert exchange.embed["footer"]["text"] == "Exploding and rerolled dice stopped at the limit of 100 extra rolls."
    assert exchange.embed["description"].endswith("= **202**")


async def test_a_huge_pool_still_fits_the_embed(local: LocalDiscord) -> None:
    exchange = await local.command("roll", {"expression": "1000d10000"})
    assert exchange.rejected == []  # the double checked Discord's embed limits
    assert "(1000 dice: " in exchange.embed["description"]


async def test_parse_error_points_at_the_position(local: LocalDiscord) -> None:
    exchange = await local.command("roll", {"expression": "2d6 + (1d4"})
    description = exchange.embed["description"]
    assert exchange.ephemeral
    assert description.startswith("Unexpected end of expression at character 11. Expected +, -, * or ')' to close")
    assert "```\n2d6 + (1d4\n          ^\n```" in description


async def test_every_roll_is_logged(local: LocalDiscord, database: Database) -> None:
    exchange = await local.command("roll", {"expression": "2d6", "label": "damage", "private": True})
    async with database.read() as session:
        [row] = (await session.scalars(select(RollLog))).all()
    assert row.interaction_id == int(exchange.payload["id"])
    assert row.user_id == int(local.actor.user_id)
    assert row.channel_id == int(local.actor.channel_id)
    assert row.command == "roll"
    assert row.inputs == {"expression": "2d6", "label": "damage", "private": True}
    assert row.private is True
    assert row.result["total"] == int(exchange.embed["description"].split("**")[1])
    assert [d["face"] for d in row.result["tree"]["dice"]] == [
        int(f) for f in exchange.embed["description"].split("(")[1].split(")")[0].split(", ")
    ]


async def test_refused_rolls_are_not_logged(local: LocalDiscord, database: Database) -> None:
    await local.command("roll", {"expression": "1d"})
    async with database.read() as session:
        assert (await session.scalars(select(RollLog))).all() == []


async def test_roll_over_the_gateway(connected: LocalDiscord) -> None:
    exchange = await connected.command("roll", {"expression": "3d6"})
    assert exchange.embed["description"].startswith("3d6 (")
    assert connected.double.identify_count == 1


async def test_roll_again_rolls_the_same_expression_for_the_roller_only(
    local: LocalDiscord, database: Database
) -> None:
    local.bot.dice = ScriptedDice([2, 5, 6, 6])
    first = await local.command("roll", {"expression": "2d6+1", "label": "damage"})
    [row] = local.original(first)["components"]
    again_id = f"again:{first.payload['id']}"
    assert [b["custom_id"] for b in row["components"]] == [again_id]  # one line: nothing more to detail
    stranger = await local.click(local.original(first), again_id, actor=local.as_user("200000000000000002"))
    assert stranger.ephemeral and stranger.embed["title"] == "Not your roll"
    again = await local.click(local.original(first), again_id)
    assert again.response["type"] == 4  # a new answer, the first one stays as it was
    assert again.embed["title"] == "damage"
    assert again.embed["description"] == "2d6 (6, 6) + 1 = **13**"
    async with database.read() as session:
        rows = (await session.scalars(select(RollLog).order_by(RollLog.id))).all()
    assert [(r.command, r.inputs) for r in rows] == [("roll", {"expression": "2d6+1", "label": "damage"})] * 2
    assert rows[1].interaction_id == int(again.payload["id"])


async def test_roll_again_works_on_private_and_long_rolls(local: LocalDiscord) -> None:
    private = await local.command("roll", {"expression": "1d6", "private": True})
    again = await local.click(local.original(private), f"again:{private.payload['id']}")
    assert again.ephemeral and again.embed["description"].startswith("1d6 (")
    long = "+".join(["1d4"] * 50)  # the expression no longer has to fit in the button's custom id
    first = await local.command("roll", {"expression": long})
    repeated = await local.click(local.original(first), f"again:{first.payload['id']}")
    assert repeated.embed["description"].startswith("1d4 (")
