"""dicebot_database_seconds times every statement on both back ends: SQLite's roll log writer thread too (#31 item 2).

On SQLite the roll log is written whole on a worker thread, over a blocking engine of its own (`Writers.run`);
a stopwatch on the async engine alone missed the busiest writer. Here a roll's statements are counted at the
driver, on every engine the database has, and the histogram must have seen each one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest
from sqlalchemy import Engine, event

from bot.config import Settings
from bot.local.driver import LocalDiscord

COUNT = "dicebot_database_seconds_count"


@pytest.fixture
def settings(settings: Settings) -> Iterator[Settings]:
    yield dataclasses.replace(settings, metrics_port=0)


async def scraped(local: LocalDiscord, name: str) -> float:
    """One sample of the bot's /metrics, read as a scraper reads it."""
    host, port = local.bot.metrics_server.addresses[0][:2]  # type: ignore[attr-defined]
    async with aiohttp.ClientSession() as session, session.get(f"http://{host}:{port}/metrics") as response:
        assert response.status == 200
        text = await response.text()
    return next(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(name + " "))


def engines(local: LocalDiscord) -> list[Engine]:
    """Every engine the bot's database runs statements on."""
    database = local.bot.database
    found: list[Engine] = [database.engine.sync_engine]
    if database.write.threaded is not None:
        found.append(database.write.threaded)
    return found


async def test_a_rolls_every_statement_is_timed_the_log_writers_thread_too(local: LocalDiscord) -> None:
    threaded = local.bot.database.write.threaded
    if local.bot.database.engine.dialect.name == "sqlite":
        assert threaded is not None  # the file database writes its roll log on the worker thread
    ran: dict[str, int] = {"async": 0, "thread": 0}

    def counted(connection: Any, *_: Any) -> None:
        ran["thread" if threaded is not None and connection.engine is threaded else "async"] += 1

    targets = engines(local)
    for target in targets:
        event.listen(target, "after_cursor_execute", counted)
    try:
        before = await scraped(local, COUNT)
        for _ in range(3):
            answered = await local.command("roll", {"expression": "1d20"})
            assert answered.embed["description"].startswith("1d20 (")
        after = await scraped(local, COUNT)
    finally:
        for target in targets:
            event.remove(target, "after_cursor_execute", counted)

    if threaded is not None:
        assert ran["thread"] > 0  # the rolls were logged on the writer's thread
    assert after - before == ran["async"] + ran["thread"]
