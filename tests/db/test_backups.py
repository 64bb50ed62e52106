"""Backups that restore (#31 item 3): `python -m bot backup` while the bot runs, `restore` with the proofs intact.

The round trip runs in both passes: SQLite's online backup, or pg_dump and pg_restore (the PostgreSQL tools that
ship with the pgserver package, put on PATH here as an operator's would be).
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from bot.client import DiceBot
from bot.config import Settings
from bot.db import backups
from bot.db.engine import open_database
from bot.db.migrate import alembic_config, migrating, upgrade
from bot.local.driver import LocalDiscord, local_discord
from bot.local.payloads import Snowflakes
from bot.rules.fair_log import check_log, parse_log
from tests.conftest import FIXED_TIME, POSTGRES
from tests.dice_sources import NoDice
from tests.helpers import BOB, ROOT

pytestmark = pytest.mark.slow  # starts processes or runs for seconds: scheduled first (tests/conftest.py)


@pytest.fixture
def postgres_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    """pg_dump and pg_restore on PATH: pgserver's own, of the same version as its server (first on PATH)."""
    if not POSTGRES or os.environ.get("TEST_POSTGRES_URL"):
        return
    import pgserver

    folder = Path(pgserver.__file__).parent / "pginstall" / "bin"
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")


@pytest.fixture
def empty_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of a database to restore into: a new SQLite file, or a new, empty PostgreSQL database."""
    if not POSTGRES:
        yield f"sqlite+aiosqlite:///{tmp_path}/restored/bot.db"
        return
    admin_url = request.getfixturevalue("postgres_admin_url")
    name = f"restored_{uuid.uuid4().hex}"

    async def run(statement: str) -> None:
        admin = create_async_engine(admin_url, isolation_level="AUTOCOMMIT")
        async with admin.connect() as connection:
            await connection.execute(text(statement))
        await admin.dispose()

    asyncio.run(run(f"CREATE DATABASE {name}"))
    yield str(make_url(admin_url).set(database=name))
    asyncio.run(run(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


async def played(local: LocalDiscord) -> tuple[str, bytes]:
    """A character, a revealed fair session with a public and a private roll: its commitment and its log."""
    await local.command("character create", {"ruleset": "dnd35", "name": "Aria"})
    local.bot.dice = NoDice()
    started = await local.command("fair start")
    commitment = started.embed["description"].split("`")[1]
    await local.command("roll", {"expression": "3d6"})
    await local.command("roll", {"expression": "1d20", "private": True}, actor=local.as_user(BOB))
    await local.command("fair reveal")
    log = await local.command("fair log")
    (content,) = log.files.values()
    return commitment, content


async def test_a_backup_taken_while_the_bot_runs_restores_every_proof(
    local: LocalDiscord, settings: Settings, empty_database: str, tmp_path: Path, postgres_tools: None
) -> None:
    commitment, log = await played(local)
    copy = tmp_path / "bot-backup.db"
    contents = backups.backup(settings.database_url, copy)  # the bot still runs, its connections open
    if not POSTGRES:
        assert contents.rows == {"characters": 1, "roll_log": 2, "fair_sessions": 1}
        assert contents.summary().startswith("1 character, 2 rolls, 1 fair session (")

    backups.restore(empty_database, copy)
    database = open_database(empty_database)
    try:
        # The restored database is at the code's schema: the bot starts on it as it is.
        restored = Settings(database_url=empty_database)
        bot = lambda: DiceBot(settings=restored, database=database, dice=random.Random(1), clock=lambda: FIXED_TIME)  # noqa: E731
        async with local_discord(bot, ids=Snowflakes(1767225600000 + 10**6)) as again:
            shown = await again.command("character show", {"character": "Aria"})
            assert shown.embed["title"].startswith("Aria"), shown.embed
            fair_log = await again.command("fair log")
            assert list(fair_log.files.values()) == [log]  # the same signed bytes
            assert check_log(parse_log(log), commitment=commitment).ok
    finally:
        await database.dispose()


@pytest.mark.skipif(POSTGRES, reason="SQLite's write-ahead log")
async def test_a_plain_copy_misses_committed_rows_that_the_backup_keeps(
    local: LocalDiscord, settings: Settings, tmp_path: Path
) -> None:
    await played(local)
    live = backups.sqlite_path(settings.database_url)
    assert live is not None
    shutil.copyfile(live, tmp_path / "copied.db")  # what `cp data/bot.db` does while the bot runs
    with sqlite3.connect(tmp_path / "copied.db") as copied:
        copied_rolls = copied.execute("SELECT count(*) FROM roll_log").fetchone()[0]
    backed_up = backups.backup(settings.database_url, tmp_path / "backup.db")
    assert backed_up.rows is not None and backed_up.rows["roll_log"] == 2
    assert copied_rolls < 2  # the newest commits were still in bot.db-wal


@pytest.mark.skipif(POSTGRES, reason="checks of an SQLite backup file")
async def test_a_restore_refuses_what_is_no_backup_and_keeps_the_database_it_replaces(
    local: LocalDiscord, settings: Settings, tmp_path: Path
) -> None:
    await played(local)
    live = backups.sqlite_path(settings.database_url)
    assert live is not None
    good = tmp_path / "good.db"
    backups.backup(settings.database_url, good)

    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database")
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(good.read_bytes()[: 4096 * 3])
    newer = tmp_path / "newer.db"
    shutil.copyfile(good, newer)
    with sqlite3.connect(newer) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '9999_from_the_future'")
    foreign = tmp_path / "foreign.db"
    sqlite3.connect(foreign).execute("CREATE TABLE notes (x)").connection.close()
    refusals = {
        junk: "is not a backup: neither an SQLite database nor a pg_dump file",
        damaged: "is damaged",
        foreign: "is an SQLite database, but not this bot's (no schema version)",
        tmp_path / "missing.db": "Can't read",
        live: "is the database itself",
    }
    target = f"sqlite+aiosqlite:///{tmp_path}/target/bot.db"
    backups.restore(target, good)
    before = (tmp_path / "target" / "bot.db").read_bytes()
    for source, message in refusals.items():
        with pytest.raises(backups.BackupError, match=re.escape(message)):
            backups.restore(settings.database_url if source == live else target, source)
    assert (tmp_path / "target" / "bot.db").read_bytes() == before  # nothing was touched

    # A newer schema is restored only to be refused at start; the database it replaced waits beside it.
    code, _, err = run_bot("restore", str(newer), database_url=target)
    assert code == 3 and "newer than this bot's" in err
    kept = tmp_path / "target" / ("bot.db" + backups.BEFORE_RESTORE)
    assert backups.inspect(kept).rows == backups.inspect(good).rows


@pytest.mark.skipif(POSTGRES, reason="an SQLite backup of an older schema")
async def test_a_backup_of_an_older_schema_is_migrated_as_it_is_restored(tmp_path: Path) -> None:
    old = open_database(f"sqlite+aiosqlite:///{tmp_path}/old.db")
    async with migrating(old) as connection:
        await connection.run_sync(lambda sync: command.upgrade(alembic_config(sync), "0020"))
    await old.dispose()
    code, out, err = run_bot("restore", str(tmp_path / "old.db"), database_url=f"sqlite+aiosqlite:///{tmp_path}/new.db")
    assert code == 0, err
    assert out.startswith(f"Restored {tmp_path / 'old.db'} into {tmp_path / 'new.db'}: 0 characters, 0 rolls")
    with sqlite3.connect(tmp_path / "new.db") as connection:
        (revision,) = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    fresh = open_database(f"sqlite+aiosqlite:///{tmp_path}/fresh.db")
    await upgrade(fresh)
    await fresh.dispose()
    assert revision == backups.inspect(tmp_path / "fresh.db").revision != "0020"


@pytest.mark.skipif(POSTGRES, reason="the command line on an SQLite file")
def test_backup_and_restore_as_an_operator_runs_them(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/data/bot.db"
    code, _, err = run_bot("backup", str(tmp_path / "b.db"), database_url=url)
    assert (code, err.strip()) == (4, f"There is no database at {tmp_path / 'data' / 'bot.db'}: check DATABASE_URL.")
    assert run_bot("migrate", database_url=url)[0] == 0
    code, out, err = run_bot("backup", str(tmp_path / "b.db"), database_url=url)
    assert code == 0, err
    assert out.startswith(f"Backed up {tmp_path / 'data' / 'bot.db'} to {tmp_path / 'b.db'}: 0 characters, 0 rolls")
    assert not list(tmp_path.glob("*.partial"))
    code, _, err = run_bot("backup", str(tmp_path / "nowhere" / "b.db"), database_url=url)
    assert (code, err.strip()) == (4, f"The folder {tmp_path / 'nowhere'} does not exist: create it first.")
    code, out, err = run_bot("restore", str(tmp_path / "b.db"), database_url=url)
    assert code == 0, err
    assert out.splitlines()[-1] == f"The database it replaced is kept as {tmp_path / 'data' / 'bot.db.before-restore'}."


def run_bot(*args: str, database_url: str) -> tuple[int, str, str]:
    """`python -m bot ARGS` as a process, with no token and no .env of the developer's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_"))}
    env["DATABASE_URL"] = database_url
    done = subprocess.run(
        [sys.executable, "-m", "bot", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    return done.returncode, done.stdout, done.stderr
