"""Fixtures: a real bot on a throwaway, migrated database, driven through the local Discord double.

The database is SQLite by default. With TEST_DATABASE=postgres the same suite runs against PostgreSQL: a
server from the `pgserver` package (or TEST_POSTGRES_URL, an admin URL of a server of your own). Either way
the migrations run once per session, into a template, and every test gets a fresh copy of it: migrating
costs about 60 ms of CPU, a copy well under one. Tests of the migrations themselves open their own database.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import sqlite3
import tempfile
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import pytest_asyncio
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from bot.client import DiceBot
from bot.config import Settings
from bot.db.engine import Database, open_database
from bot.db.migrate import upgrade
from bot.local.driver import LocalDiscord, local_discord
from bot.local.payloads import MANAGER_PERMISSIONS, Snowflakes

FIXED_TIME = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


POSTGRES = os.environ.get("TEST_DATABASE", "sqlite") == "postgres"
TEMPLATE = "dicebot_template"


def _with_database(admin_url: str, name: str) -> str:
    return str(make_url(admin_url).set(database=name))


@pytest.fixture(scope="session")
def postgres_admin_url() -> Iterator[str]:
    """An admin URL of a PostgreSQL server with a migrated template database."""
    url = os.environ.get("TEST_POSTGRES_URL")
    server = None
    if not url:
        import pgserver  # only the PostgreSQL run needs it

        # Not under pytest's basetemp: another pytest run on the machine rotates (deletes) old basetemps,
        # and the server's data folder would go with them.
        server = pgserver.get_server(tempfile.mkdtemp(prefix="dicebot-pg-"), cleanup_mode="delete")
        url = server.get_uri().replace("postgresql://", "postgresql+asyncpg://", 1)

    async def make_template() -> None:
        admin = create_async_engine(url, isolation_level="AUTOCOMMIT")
        async with admin.connect() as connection:
            await connection.execute(text(f"DROP DATABASE IF EXISTS {TEMPLATE}"))
            await connection.execute(text(f"CREATE DATABASE {TEMPLATE}"))
        await admin.dispose()
        template = open_database(_with_database(url, TEMPLATE))
        await upgrade(template)
        await template.dispose()

    asyncio.run(make_template())
    yield url
    if server is not None:
        server.cleanup()


@pytest.fixture(scope="session")
def sqlite_template() -> Iterator[Path]:
    """An SQLite database file migrated to the newest schema, for `database` to copy."""
    # Not under pytest's basetemp, for the reason given in `postgres_admin_url`.
    folder = Path(tempfile.mkdtemp(prefix="dicebot-template-"))
    path = folder / "template.db"

    async def migrate() -> None:
        template = open_database(f"sqlite+aiosqlite:///{path}")
        await upgrade(template)
        await template.dispose()

    try:
        asyncio.run(migrate())
        # The bot's connections switch the file to WAL mode; back in rollback mode the whole database is this
        # one file (no -wal file to copy along), and each copy turns WAL on again when the bot first connects.
        with contextlib.closing(sqlite3.connect(path)) as connection:
            connection.execute("PRAGMA journal_mode=DELETE")
        yield path
    finally:  # a failed migration too: pytest tears down only fixtures that got as far as their yield
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    if not POSTGRES:
        yield Settings(database_url=f"sqlite+aiosqlite:///{tmp_path}/bot.db")
        return
    admin_url = request.getfixturevalue("postgres_admin_url")
    name = f"test_{uuid.uuid4().hex}"
    yield Settings(database_url=_with_database(admin_url, name))


@pytest.fixture
def database_template(request: pytest.FixtureRequest) -> str:
    """The migrated template: its file (SQLite), or the admin URL of the server that holds it (PostgreSQL)."""
    # A plain fixture, so that a session fixture's first use starts its own event loop outside the test's.
    if POSTGRES:
        return str(request.getfixturevalue("postgres_admin_url"))
    return str(request.getfixturevalue("sqlite_template"))


@pytest_asyncio.fixture
async def database(settings: Settings, database_template: str) -> AsyncIterator[Database]:
    """The test's own copy of the migrated template, at `settings.database_url`."""
    name = make_url(settings.database_url).database
    if POSTGRES:
        admin = create_async_engine(database_template, isolation_level="AUTOCOMMIT")
        async with admin.connect() as connection:
            await connection.execute(text(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}"))
    else:
        shutil.copyfile(database_template, str(name))
    db = open_database(settings.database_url)
    yield db
    await db.dispose()
    if POSTGRES:
        async with admin.connect() as connection:
            await connection.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        await admin.dispose()


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


@pytest_asyncio.fixture
async def full_answers(local: LocalDiscord) -> None:
    """Roll answers in the test server start with the full breakdown, for tests that read every step."""
    moderator = local.as_user("200000000000000099", permissions=MANAGER_PERMISSIONS)
    saved = await local.command("settings set", {"setting": "rolls.answers", "value": "full"}, actor=moderator)
    assert saved.embed["title"] == "Setting saved", saved.embed
