"""Alembic, driven from code: the migration scripts ship inside the package (`bot/db/migrations`)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.db.engine import Database
from bot.errors import UserError

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).with_name("migrations")
MIGRATE = "run `python -m bot migrate`"


class SchemaMismatch(UserError):
    """The database's schema is not the one this code was written for."""

    title = "Database schema"


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic configuration for the packaged scripts; `env.py` uses `connection` when given."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str | None:
    """The newest revision the code knows."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


@contextlib.asynccontextmanager
async def migrating(database: Database) -> AsyncIterator[AsyncConnection]:
    """A connection in one transaction to run migrations on (the tests run them back and forth through it too).

    On SQLite, foreign keys are off meanwhile, as SQLite's own procedure for changing a table has it: a migration
    rebuilds a table by copying it and dropping the old one, and that drop would delete, by ON DELETE CASCADE,
    every row naming one of its rows. The switch only works outside a transaction, so it comes before BEGIN.
    """
    async with database.engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            await connection.run_sync(_foreign_keys_off)
        try:
            async with connection.begin():
                yield connection
        finally:
            if sqlite:  # never back into the pool: a new connection has its foreign keys on (bot.db.engine)
                await connection.invalidate()


async def upgrade(database: Database) -> None:
    """Bring the database to the newest schema, in one transaction (`migrating`)."""
    async with migrating(database) as connection:
        before = await connection.run_sync(_current)
        await connection.run_sync(lambda sync: command.upgrade(alembic_config(sync), "head"))
        after = await connection.run_sync(_current)
    if before != after:
        log.info("Database migrated from %s to %s", before or "empty", after)


async def check_schema(database: Database, *, older_ok: bool = False) -> None:
    """Refuse a database whose schema is not the code's: older (unless `older_ok`), unknown or newer."""
    current, head = await current_revision(database), head_revision()
    if current == head:
        return
    known = {script.revision for script in ScriptDirectory.from_config(alembic_config()).walk_revisions()}
    if current is not None and current not in known:
        raise SchemaMismatch(
            f"The database schema is at {current}, newer than this bot's {head}: run the bot version that migrated it."
        )
    if not older_ok:
        where = "has no schema yet" if current is None else f"schema is at {current}"
        raise SchemaMismatch(f"The database {where}, this bot needs {head}: {MIGRATE}.")


async def current_revision(database: Database) -> str | None:
    """The revision the database is at (None when it was never migrated)."""
    async with database.engine.connect() as connection:
        return await connection.run_sync(_current)


def _foreign_keys_off(connection: Connection) -> None:
    """Turn SQLite's foreign keys off for this connection (bot.db.engine turns them on for every one)."""
    # On the driver's connection: a statement through SQLAlchemy would BEGIN first, and inside a transaction
    # SQLite ignores the switch.
    cursor = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute("PRAGMA foreign_keys=OFF")
    finally:
        cursor.close()


def _current(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()
