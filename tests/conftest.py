"""Fixtures: a real bot on a throwaway, migrated SQLite database, driven through the local Discord double."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
import pytest_asyncio

from bot.client import DiceBot
from bot.config import Settings
from bot.db.engine import Database, open_database
from bot.db.migrate import upgrade
from bot.local.driver import LocalDiscord, local_discord
from bot.local.payloads import Snowflakes

FIXED_TIME = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(database_url=f"sqlite+aiosqlite:///{tmp_path}/bot.db")


@pytest_asyncio.fixture
async def database(settings: Settings) -> AsyncIterator[Database]:
    db = open_database(settings.database_url)
    await upgrade(db)
    yield db
    await db.dispose()


@pytest.fixture
def dice() -> random.Random:
    """The dice of the bot under test: seeded, never the global `random`."""
    return random.Random(1234)


@pytest.fixture
def make_bot(settings: Settings, database: Database, dice: random.Random) -> Callable[[], DiceBot]:
    return lambda: DiceBot(settings=settings, database=database, dice=dice, clock=lambda: FIXED_TIME)


@pytest_asyncio.fixture
async def local(make_bot: Callable[[], DiceBot]) -> AsyncIterator[LocalDiscord]:
    """The bot logged into the double; interactions go straight to discord.py's gateway parser."""
    async with local_discord(make_bot, ids=Snowflakes(1767225600000)) as driver:
        yield driver


@pytest_asyncio.fixture
async def connected(make_bot: Callable[[], DiceBot]) -> AsyncIterator[LocalDiscord]:
    """The bot connected to the double's gateway; interactions arrive over the websocket."""
    async with local_discord(make_bot, connect=True) as driver:
        yield driver
