"""The engine and the two kinds of session: readers, and writers that take SQLite's write lock up front."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

log = logging.getLogger(__name__)

# How long a writer waits for another writer's lock before SQLite gives up with "database is locked".
BUSY_TIMEOUT_MS = 5000


class Writers:
    """Write transactions: `async with database.write.begin() as session:` commits, or rolls back on error.

    On SQLite one writer runs at a time anyway (BEGIN IMMEDIATE); writers of this process also queue on an
    asyncio lock first, which serves them in arrival order (SQLite's busy handler polls, so waiting writers
    would otherwise win the lock by luck, and some starve) and about three times faster.
    """

    def __init__(self, sessions: async_sessionmaker[AsyncSession], *, queue: bool) -> None:
        self.sessions = sessions
        self._lock = asyncio.Lock() if queue else None

    @asynccontextmanager
    async def begin(self) -> AsyncIterator[AsyncSession]:
        """A session in a write transaction, committed when the block ends without an error."""
        if self._lock is None:
            async with self.sessions.begin() as session:
                yield session
            return
        async with self._lock, self.sessions.begin() as session:
            yield session


@dataclass(frozen=True, slots=True)
class Database:
    """The engine plus a session factory for reads and one for writes (one session per unit of work)."""

    engine: AsyncEngine
    read: async_sessionmaker[AsyncSession]
    write: Writers

    async def dispose(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()


def ensure_sqlite_directory(url: str) -> None:
    """Create the folder of an SQLite database file, so that a fresh clone runs without setup."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)


def open_database(url: str) -> Database:
    """Build the engine for `url`. Nothing connects until the first session is used."""
    ensure_sqlite_directory(url)
    engine = create_async_engine(url, pool_pre_ping=not url.startswith("sqlite"))
    sqlite = engine.dialect.name == "sqlite"
    if sqlite:
        _configure_sqlite(engine)
    writers = async_sessionmaker(engine.execution_options(immediate=True), expire_on_commit=False)
    return Database(
        engine=engine,
        read=async_sessionmaker(engine, expire_on_commit=False),
        write=Writers(writers, queue=sqlite),
    )


def _configure_sqlite(engine: AsyncEngine) -> None:
    # The stdlib driver's legacy transaction handling reads outside the write transaction, which loses
    # updates; let SQLAlchemy emit BEGIN itself, and make writers BEGIN IMMEDIATE so two writers queue on
    # busy_timeout instead of deadlocking on a lock upgrade (SQLAlchemy's SQLite docs, "aiosqlite").
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        for pragma in ("journal_mode=WAL", "synchronous=NORMAL", f"busy_timeout={BUSY_TIMEOUT_MS}", "foreign_keys=ON"):
            cursor.execute("PRAGMA " + pragma)
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Any) -> None:
        immediate = connection.get_execution_options().get("immediate")
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
