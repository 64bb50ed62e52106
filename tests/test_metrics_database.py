"""dicebot_database_seconds times every statement on both back ends, SQLite's reader and writer threads too (#31).

On SQLite the roll log is written whole on a worker thread, over a blocking engine of its own (`Writers.run`), and
the rolls read their characters and fights on reader threads over the same engine (`Readers`); a stopwatch on the
async engine alone missed the busiest writer. Here a roll's statements are counted at the driver, on every engine
the database has, and the histogram must have seen each one, once.
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
from tests.helpers import dnd_character, ok

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
    if database.reads is not None:
        # The readers' engine; the roll log writer's is it with an option set, whose statements its listeners hear.
        found.append(database.reads.engine)
    return found


@pytest.mark.parametrize("character", [False, True], ids=["roll", "character attack"])
async def test_a_rolls_every_statement_is_timed_the_threads_too(local: LocalDiscord, character: bool) -> None:
    database = local.bot.database
    threaded = database.write.threaded
    if database.engine.dialect.name == "sqlite":
        # The file database writes its roll log on the worker thread, and reads for the rolls on reader threads.
        assert threaded is not None and database.reads is not None
    if character:
        await dnd_character(local, "Kara", {"Longsword": ""}, bab=3, weapon_groups="martial")
    ran: dict[str, int] = {"async": 0, "read": 0, "write": 0}

    def counted(connection: Any, *_: Any) -> None:
        engine = connection.engine
        ran[
            "write" if engine is threaded else "read" if engine is getattr(database.reads, "engine", 0) else "async"
        ] += 1

    targets = engines(local)
    for target in targets:
        event.listen(target, "after_cursor_execute", counted)
    try:
        before = await scraped(local, COUNT)
        for _ in range(3):
            if character:
                ok(await local.command("dnd attack", {"target_ac": 10}))
            else:
                answered = await local.command("roll", {"expression": "1d20"})
                assert answered.embed["description"].startswith("1d20 (")
        after = await scraped(local, COUNT)
    finally:
        for target in targets:
            event.remove(target, "after_cursor_execute", counted)

    if threaded is not None:
        assert ran["write"] > 0  # the rolls were logged on the writer's thread
        # and on a reader's, what the rolls keep for seconds (the roller's choice of answers) and their characters
        assert ran["read"] > 0
    assert after - before == sum(ran.values())
