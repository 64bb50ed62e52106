"""What `SQLITE_SYNCHRONOUS=full` costs: 2,000 single-row commits with SQLite's synchronous NORMAL, then FULL.

    .venv/bin/python -m tests.perf.bench_sqlite_sync [COMMITS] [FOLDER]

Each commit goes through the bot's own write path (`Writers.run` on the blocking engine, the roll log's path,
with the pragmas `open_database` sets) into a file database in FOLDER (default: a temporary folder; give one on
the disk the bot's database lives on: a tmpfs never syncs, so there both modes cost the same). Prints the wall
time per mode, and per commit. Run it on an idle machine: the time of a sync is the disk's.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import Connection, text

from bot.config import SYNCHRONOUS, Synchronous
from bot.db.engine import open_database


async def measure(folder: Path, synchronous: Synchronous, commits: int) -> float:
    """Seconds for `commits` one-row write transactions, each committed on its own."""
    path = folder / f"sync-{synchronous}.db"
    path.unlink(missing_ok=True)
    database = open_database(f"sqlite+aiosqlite:///{path}", synchronous=synchronous)
    try:
        await database.write.run(
            lambda c: c.execute(text("CREATE TABLE rolls (id INTEGER PRIMARY KEY, body TEXT NOT NULL)"))
        )

        def insert(connection: Connection) -> None:
            connection.execute(text("INSERT INTO rolls (body) VALUES (:body)"), {"body": "x" * 200})

        start = time.perf_counter()
        for _ in range(commits):
            await database.write.run(insert)
        return time.perf_counter() - start
    finally:
        await database.dispose()


async def main(commits: int, folder: Path | None) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-sync-", dir=folder) as where:
        for synchronous in reversed(SYNCHRONOUS):  # normal, then full
            seconds = await measure(Path(where), synchronous, commits)
            print(
                f"synchronous={synchronous.upper():6}  {commits} commits in {seconds:6.2f} s  "
                f"{seconds / commits * 1000:6.2f} ms per commit  {commits / seconds:7.0f} commits/s"
            )


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    asyncio.run(main(count, Path(sys.argv[2]) if len(sys.argv) > 2 else None))
