"""The per-user rate limit: commands, button presses and forms count, autocomplete does not, waiting always helps."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import event

from bot.client import DiceBot
from bot.config import DEFAULT_RATE_LIMIT, RateLimit, Settings, SettingsError
from bot.db.engine import Database
from bot.db.models import RollLog
from bot.local.driver import Exchange, LocalDiscord, local_discord
from bot.local.payloads import Snowflakes
from bot.tree import RateLimiter
from tests.conftest import FIXED_TIME, Clock
from tests.helpers import BOB, ROOT, count


@pytest.fixture
def make_limited(settings: Settings, database: Database, dice: random.Random, clock: Clock) -> Callable[[], DiceBot]:
    """The bot with at most 3 commands per user in 10 seconds."""
    limited_settings = replace(settings, rate_limit=RateLimit(3, 10))
    return lambda: DiceBot(settings=limited_settings, database=database, dice=dice, clock=clock)


@pytest_asyncio.fixture
async def limited(make_limited: Callable[[], DiceBot]) -> AsyncIterator[LocalDiscord]:
    async with local_discord(make_limited, ids=Snowflakes(1767225600000)) as driver:
        yield driver


def slowed_down(exchange: Exchange) -> bool:
    return exchange.ephemeral and exchange.embed["title"] == "Slow down"


@pytest.fixture
def write_transactions(database: Database) -> Iterator[list[None]]:
    """One entry per write transaction begun on the database (writers begin with the `immediate` option)."""
    begun: list[None] = []

    def on_begin(connection: Any) -> None:
        if connection.get_execution_options().get("immediate"):
            begun.append(None)

    engine = database.engine.sync_engine
    event.listen(engine, "begin", on_begin)
    yield begun
    event.remove(engine, "begin", on_begin)


async def test_the_fourth_command_in_the_window_is_refused_until_the_first_leaves_it(
    limited: LocalDiscord, database: Database, clock: Clock
) -> None:
    for _ in range(3):
        assert not slowed_down(await limited.command("roll", {"expression": "1d6"}))
        clock.advance(1)
    refused = await limited.command("roll", {"expression": "1d6"})
    assert slowed_down(refused)
    again = int((FIXED_TIME + timedelta(seconds=10)).timestamp())
    assert refused.embed["description"] == (
        f"That is more than 3 commands in 10 seconds. You can roll again <t:{again}:R>."
    )
    assert refused.rejected == []
    assert await count(database, RollLog) == 3  # the refused command never ran

    clock.advance(7)  # 10 seconds after the first roll: one slot is free again, and only one
    assert not slowed_down(await limited.command("roll", {"expression": "1d6"}))
    assert slowed_down(await limited.command("roll", {"expression": "1d6"}))


async def test_the_limit_holds_over_the_gateway_too(make_limited: Callable[[], DiceBot]) -> None:
    async with local_discord(make_limited, connect=True) as connected:
        answers = [await connected.command("roll", {"expression": "1d6"}) for _ in range(4)]
    assert [slowed_down(a) for a in answers] == [False, False, False, True]


async def test_refused_attempts_do_not_extend_the_wait(limited: LocalDiscord, clock: Clock) -> None:
    for _ in range(3):
        await limited.command("roll", {"expression": "1d6"})
    for _ in range(5):
        clock.advance(1)
        assert slowed_down(await limited.command("roll", {"expression": "1d6"}))
    clock.advance(5)
    assert not slowed_down(await limited.command("roll", {"expression": "1d6"}))


async def test_each_user_has_a_limit_of_their_own(limited: LocalDiscord) -> None:
    for _ in range(3):
        await limited.command("roll", {"expression": "1d6"})
    assert slowed_down(await limited.command("roll", {"expression": "1d6"}))
    other = await limited.command("roll", {"expression": "1d6"}, actor=limited.as_user(BOB))
    assert not slowed_down(other)


async def test_autocomplete_neither_counts_nor_is_refused(limited: LocalDiscord) -> None:
    for _ in range(20):
        suggested = await limited.autocomplete("character set", {"character": "v"}, focused="character")
        assert suggested.response["type"] == 8
    for _ in range(3):
        assert not slowed_down(await limited.command("roll", {"expression": "1d6"}))
    assert slowed_down(await limited.command("roll", {"expression": "1d6"}))
    assert (await limited.autocomplete("character set", {"character": "v"}, focused="character")).choices == []


async def test_button_presses_count_too(limited: LocalDiscord, database: Database, clock: Clock) -> None:
    first = await limited.command("roll", {"expression": "2d6"})
    message = limited.original(first)
    for _ in range(2):
        assert not slowed_down(await limited.click(message, f"again:{first.payload['id']}"))
    pressed = await limited.click(message, f"again:{first.payload['id']}")
    assert slowed_down(pressed)
    assert await count(database, RollLog) == 3
    # The Confirm / Cancel buttons go through the same gate.
    clock.advance(10)
    asked = await limited.command("character forget-me")
    await limited.command("roll", {"expression": "1d6"})
    await limited.command("roll", {"expression": "1d6"})
    confirmed = await limited.click(limited.original(asked), "confirm")
    assert confirmed.response["data"]["embeds"][0]["title"] == "Slow down"


async def test_a_storm_of_presses_is_mostly_refused_and_writes_at_most_the_limit(
    limited: LocalDiscord, database: Database, clock: Clock
) -> None:
    first = await limited.command("roll", {"expression": "2d6"})
    message = limited.original(first)
    clock.advance(10)
    presses = await asyncio.gather(*(limited.click(message, f"again:{first.payload['id']}") for _ in range(200)))
    refused = [p for p in presses if slowed_down(p)]
    assert len(refused) == 197
    assert all(len(p.messages) == 1 for p in presses)  # each presser got exactly one answer
    assert await count(database, RollLog) == 1 + 3


async def test_a_storm_of_stale_form_submissions_is_mostly_refused_and_writes_at_most_the_limit(
    limited: LocalDiscord, clock: Clock, write_transactions: list[None]
) -> None:
    await limited.command("character create", {"ruleset": "aliensrl", "name": "Vasquez"})
    form = (await limited.command("character edit", {"character": "Vasquez"})).modal
    await limited.command("character set", {"character": "Vasquez", "field": "heavy", "value": "1"})
    clock.advance(10)
    write_transactions.clear()
    # The form is stale, so every submission fails and the form stays open to be submitted again.
    submitted = await asyncio.gather(*(limited.submit(form, {"pistol": "4"}) for _ in range(200)))
    titles = [s.embed["title"] for s in submitted]
    assert titles.count("Slow down") == 197
    assert titles.count("Changed meanwhile") == 3
    assert all(s.ephemeral for s in submitted)
    assert len(write_transactions) <= 3


def test_memory_holds_only_the_users_of_the_last_window(clock: Clock) -> None:
    limiter = RateLimiter(RateLimit(10, 10), clock)
    for user in range(10_000):
        assert limiter.admit(user) is None
    assert len(limiter) == 10_000
    for _ in range(50):  # one busy user keeps only their last 10 timestamps
        limiter.admit(10_001)
    clock.advance(10)
    assert limiter.admit(1) is None
    assert len(limiter) == 1


def test_rate_limit_setting() -> None:
    assert Settings().rate_limit is None  # built in code (tests, benchmarks): no limit
    assert Settings.from_env({}).rate_limit == RateLimit(10, 10) == RateLimit.parse(DEFAULT_RATE_LIMIT)
    assert Settings.from_env({"RATE_LIMIT": "5/60"}).rate_limit == RateLimit(5, 60)
    assert Settings.from_env({"RATE_LIMIT": "0"}).rate_limit is None
    assert "\nRATE_LIMIT=" in (ROOT / ".env.example").read_text()


@pytest.mark.parametrize("value", ["10", "abc", "0/10", "10/0", "-1/5", "5/-1", "1.5/10", "10/10/10", "2000/10"])
def test_bad_rate_limits_are_refused_with_a_reason(value: str) -> None:
    with pytest.raises(SettingsError, match="RATE_LIMIT"):
        Settings.from_env({"RATE_LIMIT": value})
