"""Backups that restore: SQLite's online backup API, or PostgreSQL's own `pg_dump` and `pg_restore`.

A plain copy of an SQLite file taken while the bot runs can miss committed rows: in WAL mode the newest commits
live in `bot.db-wal` until a checkpoint moves them into `bot.db`. SQLite's backup API copies the database as one
reader sees it, every committed row included, while the bot goes on writing; the copy is one self-contained
file (rollback journal mode, no `-wal` beside it), checked for integrity before it takes the backup's name.

A restore checks the backup before it touches the database: an SQLite backup must be an intact database of this
bot's schema or an older one (a newer one is refused, as at start); the database it replaces is first copied
beside itself (`bot.db.before-restore`), so a restore of the wrong file can be undone. PostgreSQL dumps go
through its own tools, found on PATH, in one transaction; the password goes in their environment, never on
their command line.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import URL, make_url

from bot.errors import UserError

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_MAGIC = b"PGDMP"  # pg_dump's custom format
BEFORE_RESTORE = ".before-restore"
PARTIAL = ".partial"
# What a backup's summary counts: the tables whose loss a play group would notice.
COUNTED = {
    "characters": ("character", "characters"),
    "roll_log": ("roll", "rolls"),
    "fair_sessions": ("fair session", "fair sessions"),
}


class BackupError(UserError):
    """A backup or a restore that cannot be done; the message names the file and the fix."""

    title = "Backup"


@dataclass(frozen=True, slots=True)
class Contents:
    """What a backup holds: its size and, when it can be read as a database, its schema and rows."""

    path: Path
    size: int
    revision: str | None = None
    rows: Mapping[str, int] | None = None

    def summary(self) -> str:
        """One line for the operator: `12 characters, 340 rolls, 3 fair sessions (1.2 MB)`."""
        size = f"{self.size / 1_000_000:.1f} MB" if self.size >= 100_000 else f"{self.size:,} bytes"
        if self.rows is None:
            return size
        counts = ", ".join(f"{n:,} {COUNTED[table][n != 1]}" for table, n in self.rows.items())
        return f"{counts} ({size}, schema {self.revision})"


def sqlite_path(url: str) -> Path | None:
    """The file an SQLite URL names (None for another database or an in-memory one)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


def backup(url: str, to: Path) -> Contents:
    """Write a backup of the database at `url` to `to`, whole or not at all (a partial file never takes its name)."""
    partial = to.with_name(to.name + PARTIAL)
    if to.is_dir():
        raise BackupError(f"{to} is a folder: name the backup file, e.g. {to / 'bot-backup.db'}.")
    if not to.parent.is_dir():
        raise BackupError(f"The folder {to.parent} does not exist: create it first.")
    path = sqlite_path(url)
    try:
        if path is not None:
            if to.resolve() == path.resolve():
                raise BackupError(f"{to} is the database itself: name another file.")
            _backup_sqlite(path, partial)
        else:
            _postgres("pg_dump", url, "--format=custom", "--no-owner", f"--file={partial}")
        _sync(partial)
        os.replace(partial, to)
    finally:
        partial.unlink(missing_ok=True)
    return inspect(to)


def restore(url: str, source: Path) -> Contents:
    """Replace the database at `url` with the backup `source`; returns what the backup holds.

    The bot must be stopped meanwhile (docs/deploy.md). The caller then migrates the restored database when its
    schema is older than the code's.
    """
    contents = inspect(source)
    path = sqlite_path(url)
    if path is not None:
        if contents.rows is None:
            raise BackupError(f"{source} is a PostgreSQL dump; it restores into a PostgreSQL DATABASE_URL only.")
        if path.exists():
            if path.resolve() == source.resolve():
                raise BackupError(f"{source} is the database itself: name the backup file.")
            _backup_sqlite(path, path.with_name(path.name + BEFORE_RESTORE))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
        with _sqlite(source, read_only=True) as from_backup, _sqlite(path) as database:
            from_backup.backup(database)
        return contents
    if contents.rows is not None:
        raise BackupError(f"{source} is an SQLite backup; it restores into an SQLite DATABASE_URL only.")
    _postgres("pg_restore", url, "--clean", "--if-exists", "--no-owner", "--single-transaction", str(source))
    return contents


def inspect(source: Path) -> Contents:
    """What the backup file holds; BackupError when it is not a whole backup of this bot's database."""
    try:
        with source.open("rb") as file:
            head = file.read(len(SQLITE_MAGIC))
        size = source.stat().st_size
    except OSError as error:
        raise BackupError(f"Can't read {source}: {error.strerror or error}.") from None
    if head.startswith(PG_MAGIC):
        return Contents(source, size)
    if head != SQLITE_MAGIC:
        raise BackupError(f"{source} is not a backup: neither an SQLite database nor a pg_dump file.")
    with _sqlite(source, read_only=True) as connection:
        try:
            (check,) = connection.execute("PRAGMA integrity_check").fetchone()
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as error:
            raise BackupError(f"{source} is damaged ({error}): restore another backup.") from None
        if check != "ok":
            raise BackupError(f"{source} is damaged ({check}): restore another backup.")
        if "alembic_version" not in tables:
            raise BackupError(f"{source} is an SQLite database, but not this bot's (no schema version).")
        (revision,) = connection.execute("SELECT version_num FROM alembic_version").fetchone()
        rows = {t: connection.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in COUNTED if t in tables}
    return Contents(source, size, revision, rows)


def _backup_sqlite(path: Path, to: Path) -> None:
    """SQLite's online backup of `path` into a new single file `to` (replaced if it exists)."""
    if not path.exists():
        raise BackupError(f"There is no database at {path}: check DATABASE_URL.")
    to.unlink(missing_ok=True)
    with _sqlite(path) as database, _sqlite(to) as copy:
        database.backup(copy)
        # One file, whatever mode the bot keeps its database in: no -wal file to carry along.
        copy.execute("PRAGMA journal_mode=DELETE")


@contextlib.contextmanager
def _sqlite(path: Path, *, read_only: bool = False) -> Iterator[sqlite3.Connection]:
    uri = f"{path.absolute().as_uri()}?mode={'ro' if read_only else 'rwc'}"
    try:
        connection = sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None)
    except sqlite3.Error as error:
        raise BackupError(f"Can't open {path}: {error}.") from None
    try:
        yield connection
    except sqlite3.DatabaseError as error:
        raise BackupError(f"{path}: {error}.") from None
    finally:
        connection.close()


def _postgres(tool: str, url: str, *arguments: str) -> None:
    """Run PostgreSQL's `tool` on the database `url` names, connected through libpq's environment."""
    program = shutil.which(tool)
    if program is None:
        raise BackupError(f"`{tool}` is not on PATH: install PostgreSQL's client tools (the server's version).")
    done = subprocess.run(
        [program, *arguments, "--dbname", database_name(url)],
        env={**os.environ, **_libpq(make_url(url))},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        said = " ".join(done.stderr.split()) or f"exit {done.returncode}"
        raise BackupError(f"`{tool}` failed: {said[:500]}")


def database_name(url: str) -> str:
    """The PostgreSQL database a URL names."""
    return make_url(url).database or "postgres"


def _libpq(url: URL) -> dict[str, str]:
    """The environment of libpq for a SQLAlchemy URL: the password stays out of `ps`."""
    host = url.host or url.query.get("host")
    named = {"PGHOST": host, "PGPORT": url.port, "PGUSER": url.username, "PGPASSWORD": url.password}
    return {name: str(value) for name, value in named.items() if value not in (None, "")}


def _sync(path: Path) -> None:
    """Flush the finished backup to the disk before it takes its name."""
    with path.open("rb") as file:
        os.fsync(file.fileno())
