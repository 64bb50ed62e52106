"""Bytes per roll-log row, before (JSON text, as the columns held it up to migration 0009) and after the codec.

    .venv/bin/python -m tests.perf.bench_roll_log

Each command goes through the whole local path (the double, the command tree, the roll log writer, SQLite).
"After" is every column as stored, read past the codec; "before" the same row with its JSON columns written
as SQLAlchemy's JSON type wrote them (`json.dumps`). Integers and times count 8 bytes in both.
"""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
from pathlib import Path
from typing import Any

from sqlalchemy import select

from bot.client import DiceBot
from bot.config import Settings
from bot.db.engine import open_database
from bot.db.migrate import upgrade
from bot.db.models import RollLog
from bot.db.rolls import ROW_BYTES_MAX
from bot.local.driver import local_discord
from tests.roll_log_rows import COLUMNS, stored_rows, stored_size

JSON_COLUMNS = ("inputs", "result", "draws", "luck", "details")
CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("/roll 1000d10000", "roll", {"expression": "1000d10000"}),
    ("/dnd attack, typical", "dnd attack", {"attack_bonus": 5, "damage": "1d8+3", "target_ac": 15}),
    ("/roll 4d6kh3+1d20", "roll", {"expression": "4d6kh3+1d20"}),
]


def before_size(row: RollLog) -> int:
    """The row as the JSON columns stored it: `json.dumps` text (None as JSON null)."""
    total = 0
    for name in COLUMNS:
        value = getattr(row, name)
        total += len(json.dumps(value).encode()) if name in JSON_COLUMNS else stored_size(value)
    return total


async def roll_log_sizes() -> list[tuple[str, int, int]]:
    """(case, bytes before, bytes after) for each case, outside and inside a fair session."""
    folder = Path(tempfile.mkdtemp(prefix="bench-roll-log-"))
    settings = Settings(database_url=f"sqlite+aiosqlite:///{folder}/bench.db")
    database = open_database(settings.database_url)
    await upgrade(database)
    names: list[str] = []
    async with local_discord(lambda: DiceBot(settings=settings, database=database, dice=random.Random(1))) as local:
        for fair in (False, True):
            if fair:
                await local.command("fair start")
            for name, command, options in CASES:
                await local.command(command, options)
                names.append(f"{name}{' (fair session)' if fair else ''}")
    async with database.read() as session:
        rows = list(await session.scalars(select(RollLog).order_by(RollLog.id)))
    after = await stored_rows(database)
    await database.dispose()
    return [(n, before_size(r), a["total"]) for n, r, a in zip(names, rows, after, strict=True)]


def main() -> None:
    sizes = asyncio.run(roll_log_sizes())
    print(f"Roll log bytes per row (stated maximum {ROW_BYTES_MAX} bytes)")
    print(f"{'case':<40} {'before':>9} {'after':>9} {'ratio':>7}")
    for name, before, after in sizes:
        print(f"{name:<40} {before:>9} {after:>9} {before / after:>6.1f}x")


if __name__ == "__main__":
    main()
