"""What survives a crash (#26 item 7): SQLite syncs every commit by default, and the trade-off is a setting."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Connection, text

from bot.__main__ import prepare_database
from bot.config import Settings, SettingsError
from bot.db.engine import Database
from tests.helpers import ROOT

# PRAGMA synchronous answers with a number: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA.
LEVELS = {"normal": 1, "full": 2}


def pragma(connection: Connection) -> int:
    value = connection.execute(text("PRAGMA synchronous")).scalar_one()
    assert isinstance(value, int)
    return value


async def levels(database: Database) -> dict[str, int]:
    """PRAGMA synchronous on each kind of connection: the writers (ORM and the roll log's thread) and the readers."""
    async with database.write.begin() as session:
        write = (await session.execute(text("PRAGMA synchronous"))).scalar_one()
    threaded = await database.write.run(pragma)
    async with database.read() as session:
        read = (await session.execute(text("PRAGMA synchronous"))).scalar_one()
    return {"write": write, "roll log writer": threaded, "read": read}


def test_sqlite_synchronous_defaults_to_full_and_reads_normal() -> None:
    assert Settings().sqlite_synchronous == "full"
    assert Settings.from_env({}).sqlite_synchronous == "full"
    assert Settings.from_env({"SQLITE_SYNCHRONOUS": "NORMAL"}).sqlite_synchronous == "normal"
    assert Settings.from_env({"SQLITE_SYNCHRONOUS": " full "}).sqlite_synchronous == "full"


@pytest.mark.parametrize("value", ["off", "extra", "2", "fast"])
def test_sqlite_synchronous_refuses_other_values(value: str) -> None:
    with pytest.raises(SettingsError, match="SQLITE_SYNCHRONOUS must be full") as refused:
        Settings.from_env({"SQLITE_SYNCHRONOUS": value})
    assert "power loss" in refused.value.message


@pytest.mark.parametrize("chosen", [None, "normal", "full"])
async def test_the_chosen_pragma_is_in_force_on_every_connection(tmp_path: Path, chosen: str | None) -> None:
    # The bot's own start-up path: settings from the environment, then the database the bot would run on.
    settings = Settings.from_env(
        {"DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/bot.db", **({"SQLITE_SYNCHRONOUS": chosen} if chosen else {})}
    )
    database = await prepare_database(settings)
    try:
        expected = LEVELS[chosen or "full"]
        assert await levels(database) == {"write": expected, "roll log writer": expected, "read": expected}
    finally:
        await database.dispose()


def test_the_setting_is_listed_where_operators_look() -> None:
    example = (ROOT / ".env.example").read_text()
    assert "\nSQLITE_SYNCHRONOUS=full\n" in example
    deploy = (ROOT / "docs" / "deploy.md").read_text()
    assert "| `SQLITE_SYNCHRONOUS` | `full` |" in deploy
    fair = (ROOT / "docs" / "fair.md").read_text()
    assert "## What survives a crash" in fair
