"""What many test files read: an answer's embed fields, the roll log, and how many rows a table holds.

Fixtures live in tests/conftest.py; the dice sources in tests/dice_sources.py, the shard processes in
tests/shards.py and the statistics in tests/stats.py.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from bot.db.engine import Database
from bot.db.models import RollLog
from bot.local.driver import Exchange


def fields(exchange: Exchange) -> dict[str, str]:
    """The fields of the answer's embed, value by name."""
    return {f["name"]: f["value"] for f in exchange.embed["fields"]}


async def logged(database: Database) -> list[RollLog]:
    """Every row of the roll log, oldest first."""
    async with database.read() as session:
        return list((await session.scalars(select(RollLog).order_by(RollLog.id))).all())


async def count(database: Database, model: type[object], *where: Any) -> int:
    """How many rows of `model` the database holds, of those matching `where` if given."""
    async with database.read() as session:
        query = select(func.count()).select_from(model).where(*where)
        found: int = (await session.execute(query)).scalar_one()
        return found
