"""The roll log's rows as stored: bytes per column, read past the codec (for the size tests and the benchmark)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text

from bot.db.engine import Database
from bot.db.models import Base

# Every column, those added later included.
COLUMNS = tuple(column.name for column in Base.metadata.tables["roll_log"].columns)


def stored_size(value: Any) -> int:
    """Bytes a value takes as stored: text in UTF-8, bytes as they are, anything else (numbers, times) 8."""
    if value is None:
        return 0
    if isinstance(value, str):
        return len(value.encode())
    if isinstance(value, bytes | memoryview):
        return len(bytes(value))
    return 8


async def stored_rows(database: Database) -> list[dict[str, int]]:
    """Every row of the roll log, oldest first, as {column: stored bytes} plus "total"."""
    async with database.engine.connect() as connection:
        rows = (await connection.execute(text(f"SELECT {', '.join(COLUMNS)} FROM roll_log ORDER BY id"))).all()
    sizes = []
    for row in rows:
        one = {name: stored_size(value) for name, value in zip(COLUMNS, row, strict=True)}
        one["total"] = sum(one.values())
        sizes.append(one)
    return sizes
