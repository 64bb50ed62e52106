"""IDENTIFY spacing across processes: a row lock per identify bucket in PostgreSQL, with the database's clock."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select, update
from sqlalchemy.dialects.postgresql import insert

from bot.db.engine import Database
from bot.db.models import IdentifyBucket

NEVER = datetime(2015, 1, 1, tzinfo=UTC)
# The stamp is taken just before the IDENTIFY leaves, but the commit and the send still lie between them:
# this much more keeps two IDENTIFYs of a bucket at least the interval apart as Discord sees them.
MARGIN = 0.1


async def claim_identify(database: Database, bucket: int, interval: float) -> float:
    """Wait until `bucket` last identified `interval` seconds ago (by any process), then claim it; PostgreSQL only.

    The row stays locked while this waits, so processes queue here one after the other; the time comes from
    the database server, so the processes' own clocks need not agree. Returns the seconds waited.
    """
    async with database.write.begin() as session:
        await session.execute(
            insert(IdentifyBucket).values(bucket=bucket, identified_at=NEVER).on_conflict_do_nothing()
        )
        locked = select(IdentifyBucket.identified_at).where(IdentifyBucket.bucket == bucket).with_for_update()
        last: datetime = (await session.execute(locked)).scalar_one()
        now: datetime = (await session.execute(select(func.clock_timestamp()))).scalar_one()
        wait = max((last + timedelta(seconds=interval + MARGIN) - now).total_seconds(), 0.0)
        if wait:
            await asyncio.sleep(wait)
        stamp = (
            update(IdentifyBucket).where(IdentifyBucket.bucket == bucket).values(identified_at=func.clock_timestamp())
        )
        await session.execute(stamp)
    return wait
