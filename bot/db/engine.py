"""The engine and the two kinds of session: readers, and writers that take SQLite's write lock up front."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

log = logging.getLogger(__name__)

# How long a writer waits for another writer's lock before SQLite gives up with "database is locked".
BUSY_TIMEOUT_MS = 5000


@dataclass(frozen=True, slots=True)
class Database:
    """The engine plus a session factory for reads and one for writes (one session per unit of work)."""

    engine: AsyncEngine
    read: async_sessionmaker[AsyncSession]
    write: async_sessionmaker[AsyncSession]

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
    if engine.dialect.name == "sqlite":
        _configure_sqlite(engine)
    return Database(
        engine=engine,
        read=async_sessionmaker(engine, expire_on_commit=False),
        write=async_sessionmaker(engine.execution_options(immediate=True), expire_on_commit=False),
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
