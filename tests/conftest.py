"""Fixtures: a real bot on a throwaway, migrated database, driven through the local Discord double.

The database is SQLite by default. With TEST_DATABASE=postgres the same suite runs against PostgreSQL: a
server from the `pgserver` package (or TEST_POSTGRES_URL, an admin URL of a server of your own). Either way
the migrations run once per session, into a template. On SQLite every test gets a fresh copy of the template's
file. On PostgreSQL each test process copies the template once into a database of its own, and empties it
before every test (every row deleted, every sequence restarted: ids start at 1 again); it copies it afresh
after a test changed its schema, and for a test marked `own_database`. The PostgreSQL pass runs only the tests
that can reach a database (`touches_database`). Tests of the migrations themselves open their own database.
See tests/README.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import graphlib
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from bot.client import DiceBot
from bot.config import Settings
from bot.db.engine import Database, open_database
from bot.db.migrate import upgrade
from bot.local.double import DiscordDouble
from bot.local.driver import LocalDiscord, local_discord
from bot.local.payloads import MANAGER_PERMISSIONS, Snowflakes
from tests.shards import fresh_database

FIXED_TIME = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


class Clock:
    """A bot's clock that a test moves (`clock` fixture): it starts at FIXED_TIME."""

    def __init__(self) -> None:
        self.now = FIXED_TIME

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> Clock:
    return Clock()


POSTGRES = os.environ.get("TEST_DATABASE", "sqlite") == "postgres"
# Seconds each request to the local double takes, as Discord's round trip does; tests that need one set their own.
DiscordDouble.default_latency = float(os.environ.get("TEST_ROUND_TRIP", "0"))
# One template per pytest-xdist worker: on a server of your own (TEST_POSTGRES_URL) the workers share the server.
TEMPLATE = "dicebot_template" + (f"_{worker}" if (worker := os.environ.get("PYTEST_XDIST_WORKER")) else "")


def _with_database(admin_url: str, name: str) -> str:
    return str(make_url(admin_url).set(database=name))


# A test reaches the database through one of these fixtures, or one named postgres_* (which may start the server
# itself, as tests/test_faults.py's `postgres_url` does), or it is marked `postgres`.
DATABASE_FIXTURES = frozenset({"database", "settings", "database_template"})


def touches_database(item: pytest.Item) -> bool:
    """Whether a collected test can reach the database: the PostgreSQL pass runs only those."""
    names = set(getattr(item, "fixturenames", ()))
    return bool(
        names & DATABASE_FIXTURES
        or any(name.startswith("postgres") for name in names)
        or item.get_closest_marker("postgres")
    )


_DESELECTED = pytest.StashKey[tuple[int, int]]()


def pytest_configure(config: pytest.Config) -> None:
    """Keep compiled bytecode, even where the environment says not to (PYTHONDONTWRITEBYTECODE, which container
    images often set).

    Without it every bot process a test starts compiles the bot from source (0.6 s of its 2.5 s start), and every
    worker rewrites the tests' asserts again (13 of the 19 s it takes to collect the suite). The caches go to
    `__pycache__` folders, which git ignores. Set here, in the controller, before pytest-xdist starts the workers,
    so that they and every process the tests start inherit it.
    """
    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Schedule the slow tests first; with TEST_DATABASE=postgres, deselect the tests that touch no database (the
    SQLite pass runs them alike).

    The slow ones (marked `slow`: they start processes or run for seconds) used to come last, the top-level files
    being collected after the folders, and a worker could sit idle while the other ran a 30-second one. Run first,
    they leave the short tests for the end, which pytest-xdist's `worksteal` (pyproject.toml) spreads evenly.
    """
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: each group keeps its order
    if not POSTGRES:
        return
    kept = [item for item in items if touches_database(item)]
    deselected = [item for item in items if not touches_database(item)]
    config.stash[_DESELECTED] = (len(deselected), len(kept))
    if hasattr(config, "workeroutput"):  # a pytest-xdist worker: the controller prints the count
        config.workeroutput["postgres_deselected"] = config.stash[_DESELECTED]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: one worker more than pytest-xdist counts cores (PYTEST_XDIST_AUTO_NUM_WORKERS still rules).

    A worker per core left them idle a tenth of the time: tests wait for the processes they start, for Discord's
    5 seconds between IDENTIFYs, for timers. With a third worker on two cores the suite took 303 s, not 347 s.
    """
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own hook reads it
    from xdist.plugin import pytest_xdist_auto_num_workers as cores  # its count, portable beyond Linux

    return cores(config) + 1


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """A pytest-xdist worker finished: keep the count it deselected, for the summary (every worker's is the same)."""
    counted = getattr(node, "workeroutput", {}).get("postgres_deselected")
    if counted is not None:
        node.config.stash[_DESELECTED] = tuple(counted)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    counted = config.stash.get(_DESELECTED, None)
    if counted is not None and counted[0] and not hasattr(config, "workeroutput"):
        deselected, kept = counted
        terminalreporter.write_line(
            f"TEST_DATABASE=postgres ran the {kept} tests that can reach a database; the {deselected} that cannot "
            "were deselected (the SQLite pass runs them)"
        )


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
            if server is not None:
                # The suite's own throwaway server never crashes under a test (tests kill the bot, not it), so it
                # need not flush to disk at each commit: 2.2 ms a commit become 0.9. A server of your own is left
                # as it is.
                for setting in ("fsync", "synchronous_commit", "full_page_writes"):
                    await connection.execute(text(f"ALTER SYSTEM SET {setting} = off"))
                await connection.execute(text("SELECT pg_reload_conf()"))
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


@pytest.fixture
def postgres_url(request: pytest.FixtureRequest) -> str | None:
    """The suite's PostgreSQL server under TEST_DATABASE=postgres (started outside the event loop), else None."""
    return str(request.getfixturevalue("postgres_admin_url")) if POSTGRES else None


@pytest_asyncio.fixture
async def bot_database(postgres_url: str | None, tmp_path: Path) -> AsyncIterator[str]:
    """An empty database for a bot process, which migrates it on start."""
    if postgres_url is None:
        yield f"sqlite+aiosqlite:///{tmp_path}/bot.db"
        return
    async with fresh_database(postgres_url) as url:
        yield url


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


@dataclass(frozen=True)
class ProcessDatabase:
    """This test process's PostgreSQL database: its URL, its schema's fingerprint, the statements that empty it."""

    url: str
    schema: str
    emptying: str


@pytest.fixture(scope="session")
def postgres_test_database(postgres_admin_url: str) -> Iterator[ProcessDatabase]:
    """This test process's own database, a copy of the template that `database` empties before each test."""
    name = f"test_{os.getpid()}"
    schema, emptying = asyncio.run(_copy_template(postgres_admin_url, name, fingerprint=True))
    yield ProcessDatabase(_with_database(postgres_admin_url, name), schema, emptying)
    asyncio.run(_drop(postgres_admin_url, name))


# Every catalog row of the schema (tables, columns, indexes, sequences, constraints) with the transaction that last
# wrote it, and the migration revision: a test that changed the schema changes this, and the process's database
# is then copied afresh instead of emptied. (VACUUM and ANALYZE update their statistics in place: no new xmin.)
_SCHEMA = """
SELECT md5(string_agg(part, ',' ORDER BY part)) FROM (
    SELECT 'c' || oid || ' ' || xmin AS part FROM pg_class WHERE relnamespace = 'public'::regnamespace
    UNION ALL SELECT 'a' || attrelid || ' ' || attnum || ' ' || xmin FROM pg_attribute
        WHERE attrelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'public'::regnamespace)
    UNION ALL SELECT 'k' || oid || ' ' || xmin FROM pg_constraint WHERE connamespace = 'public'::regnamespace
    UNION ALL SELECT 'v' || version_num FROM alembic_version
) AS schema
"""
_TABLES = "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'alembic_version'"
_REFERENCES = """
SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint
WHERE contype = 'f' AND connamespace = 'public'::regnamespace
"""
# Every sequence back to its start, as TRUNCATE ... RESTART IDENTITY would (without changing the catalog).
_RESTART = """
SELECT count(setval(s.seqrelid, s.seqstart, false)) FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid
WHERE c.relnamespace = 'public'::regnamespace
"""


def _emptying(tables: list[str], references: list[tuple[str, str]]) -> str:
    """The statements that empty `tables`, each table before those it references.

    DELETE, not TRUNCATE: on a test's few rows it takes milliseconds, TRUNCATE a hundred or more (it makes new
    files for every table and index).
    """
    order = graphlib.TopologicalSorter[str]({table: set() for table in tables})
    for referencing, referenced in references:
        if referencing != referenced and {referencing, referenced} <= set(tables):
            order.add(referenced, referencing)
    return "; ".join(f"DELETE FROM {table}" for table in order.static_order())


async def _copy_template(admin_url: str, name: str, *, fingerprint: bool = False) -> tuple[str, str]:
    """(Re)create database `name` as a copy of the template; with `fingerprint`, its schema's and how to empty it."""
    admin = create_async_engine(admin_url, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    try:
        async with admin.connect() as connection:
            await connection.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            await connection.execute(text(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}"))
    finally:
        await admin.dispose()
    if not fingerprint:
        return "", ""
    import asyncpg  # only the PostgreSQL run needs it

    connection = await asyncpg.connect(_asyncpg_dsn(_with_database(admin_url, name)))
    try:
        schema = await connection.fetchval(_SCHEMA)
        tables = [row[0] for row in await connection.fetch(_TABLES)]
        references = [(row[0], row[1]) for row in await connection.fetch(_REFERENCES)]
    finally:
        await connection.close()
    return schema, _emptying(tables, references)


async def _drop(admin_url: str, name: str) -> None:
    admin = create_async_engine(admin_url, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    try:
        async with admin.connect() as connection:
            await connection.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
    finally:
        await admin.dispose()


def _asyncpg_dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def _empty(url: str, schema: str, emptying: str) -> bool:
    """Empty every table of the database at `url`, its ids starting at 1 again; False if its schema changed."""
    import asyncpg

    try:  # a test may have left the database refusing connections (tests/db/test_slow_database.py's outage)
        connection = await asyncpg.connect(_asyncpg_dsn(url))
    except asyncpg.PostgresError:
        return False
    try:
        # A connection a test left inside a transaction would hold the DELETE up: copy afresh instead.
        await connection.execute("SET lock_timeout = '5s'")
        if await connection.fetchval(_SCHEMA) != schema:
            return False
        await connection.execute(emptying)
        await connection.fetchval(_RESTART)
        return True
    except asyncpg.PostgresError:
        return False
    finally:
        await connection.close()


@pytest.fixture
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Settings]:
    if not POSTGRES:
        yield Settings(database_url=f"sqlite+aiosqlite:///{tmp_path}/bot.db")
        return
    if request.node.get_closest_marker("own_database"):
        admin_url = request.getfixturevalue("postgres_admin_url")
        yield Settings(database_url=_with_database(admin_url, f"test_{uuid.uuid4().hex}"))
        return
    yield Settings(database_url=request.getfixturevalue("postgres_test_database").url)


@pytest.fixture
def database_template(request: pytest.FixtureRequest) -> str:
    """The migrated template: its file (SQLite), or the admin URL of the server that holds it (PostgreSQL)."""
    # A plain fixture, so that a session fixture's first use starts its own event loop outside the test's.
    if POSTGRES:
        return str(request.getfixturevalue("postgres_admin_url"))
    return str(request.getfixturevalue("sqlite_template"))


@pytest_asyncio.fixture
async def database(
    request: pytest.FixtureRequest, settings: Settings, database_template: str
) -> AsyncIterator[Database]:
    """A migrated, empty database at `settings.database_url`, the test's own while it runs.

    SQLite: a copy of the template's file. PostgreSQL: the test process's database emptied, or copied afresh
    from the template when the last test changed its schema; a test marked `own_database` gets a copy of its own.
    """
    name = str(make_url(settings.database_url).database)
    own = POSTGRES and request.node.get_closest_marker("own_database") is not None
    if not POSTGRES:
        shutil.copyfile(database_template, name)
    elif own:
        await _copy_template(database_template, name)
    else:
        process = request.getfixturevalue("postgres_test_database")  # made by `settings`, outside this loop
        if not await _empty(process.url, process.schema, process.emptying):
            await _copy_template(database_template, name)
    db = open_database(settings.database_url, synchronous="normal")
    yield db
    await db.dispose()
    if own:
        await _drop(database_template, name)


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
