"""A slow database makes the bot defer inside Discord's window; an unreachable one gets a clear answer.

Both are real faults, not mocks of the rules: the database's sessions are slowed down by a delay before each
transaction, and the database is taken away (its SQLite folder moved, or PostgreSQL refusing connections)
and given back, with the same bot process answering throughout.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from bot.config import Settings
from bot.db.engine import Database
from bot.local.double import DEFERRED_MESSAGE
from bot.local.driver import LocalDiscord
from tests.conftest import POSTGRES
from tests.dice_sources import ScriptedDice

QUICK = {"attack_bonus": 5, "damage": "1d8+3", "target_ac": 15}
DEADLINE = 1.0  # the double's stand-in for Discord's 3 seconds, shortened to keep the tests quick
DEFER_AFTER = 0.3
DELAY = 1.5  # longer than the deadline: without the watchdog every answer would be too late


@contextmanager
def slow(local: LocalDiscord, delay: float) -> Iterator[asyncio.Event]:
    """Every read transaction of the bot waits `delay` seconds before it starts, as on an overloaded database.

    Yields an event set when the first read starts waiting.
    """
    original = local.bot.database
    waiting = asyncio.Event()

    @asynccontextmanager
    async def delayed() -> AsyncIterator[Any]:
        waiting.set()
        await asyncio.sleep(delay)
        async with original.read() as session:
            yield session

    local.bot.database = replace(original, read=delayed)
    try:
        yield waiting
    finally:
        local.bot.database = original


@pytest.fixture
def tight(local: LocalDiscord) -> LocalDiscord:
    local.double.ack_deadline = DEADLINE
    local.bot.tree.defer_after = DEFER_AFTER  # type: ignore[attr-defined]
    return local


async def test_a_slow_roll_is_deferred_then_answered(tight: LocalDiscord) -> None:
    tight.bot.dice = ScriptedDice([12, 5])
    with slow(tight, DELAY):
        exchange = await tight.command("dnd attack", QUICK)
    assert exchange.rejected == [], exchange.requests
    assert exchange.response["type"] == DEFERRED_MESSAGE  # "thinking…" inside the window
    answer = tight.original(exchange)  # the first followup replaced the thinking message
    assert answer["embeds"][0]["description"].startswith("**Hit**: **8** damage\n")
    assert [c["label"] for c in answer["components"][0]["components"]] == ["Roll again", "Details"]


async def test_a_fast_roll_is_not_deferred(tight: LocalDiscord) -> None:
    # A roll that answers inside the window goes out as its answer, with no "thinking…" first. The window is
    # widened here so that a loaded machine cannot make the roll slow: how fast a warm roll really answers is a
    # figure of `python -m tests.perf.bench_offloop`, not a test.
    tight.double.ack_deadline = 60.0
    tight.bot.tree.defer_after = 30.0  # type: ignore[attr-defined]
    await tight.command("dnd attack", QUICK)
    exchange = await tight.command("dnd attack", QUICK)
    assert exchange.response["type"] == 4


async def test_a_slow_private_roll_stays_private(tight: LocalDiscord) -> None:
    with slow(tight, DELAY):
        exchange = await tight.command("dnd attack", {**QUICK, "private": True})
    assert exchange.rejected == []
    assert exchange.response["type"] == DEFERRED_MESSAGE and exchange.response["data"]["flags"] & 64
    assert tight.original(exchange)["embeds"][0]["title"] == "Player0001: attack 1d8+3"


async def test_a_slow_error_is_private_even_after_a_public_defer(tight: LocalDiscord) -> None:
    with slow(tight, DELAY):
        exchange = await tight.command("dnd attack", {"character": "Nobody", "target_ac": 10})
    assert exchange.rejected == []
    assert exchange.response["type"] == DEFERRED_MESSAGE
    deleted = [r for r in exchange.requests if r.method == "DELETE"]
    assert len(deleted) == 1 and deleted[0].path.endswith("/messages/@original")  # the public thinking is gone
    [error] = [r for r in exchange.requests if r.method == "POST" and "/webhooks/" in r.path]
    assert error.body["flags"] & 64 and error.body["embeds"][0]["title"] == "No such character"


# ---------------------------------------------------------------------------------------------------------
# The database goes away and comes back.


@asynccontextmanager
async def outage(database: Database, settings: Settings, tmp_path: Path) -> AsyncIterator[None]:
    """Take the database away from the running bot, and give it back on leaving."""
    await database.dispose()
    if not POSTGRES:
        folder = Path(make_url(settings.database_url).database or "").parent
        away = folder.with_name(folder.name + "-away")
        os.rename(folder, away)  # SQLite can no longer open the file
        try:
            yield
        finally:
            os.rename(away, folder)
        return
    url = make_url(settings.database_url)
    admin = create_async_engine(str(url.set(database="postgres")), isolation_level="AUTOCOMMIT")
    async with admin.connect() as connection:
        await connection.execute(text(f"ALTER DATABASE {url.database} ALLOW_CONNECTIONS false"))
        await connection.execute(
            text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :name"),
            {"name": url.database},
        )
    try:
        yield
    finally:
        async with admin.connect() as connection:
            await connection.execute(text(f"ALTER DATABASE {url.database} ALLOW_CONNECTIONS true"))
        await admin.dispose()


async def test_an_unreachable_database_gets_a_clear_answer_and_the_bot_recovers(
    local: LocalDiscord, database: Database, settings: Settings, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    created = await local.command("character create", {"ruleset": "dnd35", "name": "Kara"})
    assert created.rejected == []
    async with outage(database, settings, tmp_path):
        for command, options in (
            ("character show", {"character": "Kara"}),
            ("character set", {"character": "Kara", "field": "bab", "value": "3"}),
            ("dnd attack", QUICK),
        ):
            refused = await local.command(command, options)
            assert refused.ephemeral and refused.embed["title"] == "Database unavailable", (command, refused.embed)
    assert "Unhandled error" not in caplog.text  # an outage is not a bug
    assert "the database is unavailable" in caplog.text  # but the operator hears of it
    shown = await local.command("character show", {"character": "Kara"})
    assert shown.embed["title"].startswith("Kara"), shown.embed
    saved = await local.command("character set", {"character": "Kara", "field": "bab", "value": "3"})
    assert saved.embed["title"] == "Saved"
    rolled = await local.command("dnd attack", QUICK)
    assert not rolled.ephemeral


async def test_closing_lets_the_commands_in_progress_answer(local: LocalDiscord) -> None:
    """SIGTERM (docker stop) closes the bot: a roll waiting on the database still answers first."""
    local.bot.dice = ScriptedDice([12, 5])
    with slow(local, 0.5) as waiting:
        running = asyncio.create_task(local.command("dnd attack", QUICK))
        await asyncio.wait_for(waiting.wait(), 5)  # the attack is now waiting on its read
        await local.bot.close()
        exchange = await running
    assert exchange.rejected == [], exchange.requests
    assert exchange.embed["description"].startswith("**Hit**: **8** damage\n")
