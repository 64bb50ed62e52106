"""Alembic environment. `bot.db.migrate` passes an open connection; the `alembic` CLI gets DATABASE_URL."""

import asyncio
import os

from alembic import context
from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from bot.config import default_database_url
from bot.db.models import Base

config = context.config
target_metadata = Base.metadata


def run_with(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # SQLite cannot ALTER most things in place; batch mode copies the table instead.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_standalone() -> None:
    engine = create_async_engine(os.environ.get("DATABASE_URL") or default_database_url(os.environ.get("DATA_DIR")))
    async with engine.begin() as connection:
        await connection.run_sync(run_with)
    await engine.dispose()


if context.is_offline_mode():
    raise SystemExit("Offline (--sql) migrations are not supported; run them against a database.")
elif (shared := config.attributes.get("connection")) is not None:
    run_with(shared)
else:
    asyncio.run(run_standalone())
