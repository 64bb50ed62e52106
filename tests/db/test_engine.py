"""The database: migrations agree with the models, and writers queue instead of losing updates."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection, event, exc, func, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from bot.__main__ import prepare_database
from bot.config import Settings
from bot.db.engine import BATCH, READERS, Database, open_database
from bot.db.migrate import SchemaMismatch, current_revision, head_revision, upgrade
from bot.db.models import Base, RollLog
from bot.db.rolls import RollLogWriter, RollRecord
from tests.conftest import POSTGRES
from tests.helpers import trips


async def test_migrations_match_the_models(database: Database) -> None:
    assert await current_revision(database) == head_revision()
    async with database.engine.connect() as connection:
        diff = await connection.run_sync(
            lambda sync: compare_metadata(MigrationContext.configure(sync, opts={"compare_type": True}), Base.metadata)
        )
    assert diff == []


async def test_upgrade_creates_the_folder_and_is_idempotent(tmp_path: Path) -> None:
    database = open_database(f"sqlite+aiosqlite:///{tmp_path}/new/folder/bot.db")
    await upgrade(database)
    await upgrade(database)
    assert await current_revision(database) == head_revision()
    await database.dispose()
    assert (tmp_path / "new" / "folder" / "bot.db").exists()


@pytest.mark.skipif(POSTGRES, reason="an SQLite file; PostgreSQL copies its template on the server")
async def test_each_test_writes_its_own_copy_of_the_template(database: Database, database_template: str) -> None:
    async with database.write.begin() as session:
        await session.execute(text("CREATE TABLE scratch (value INTEGER)"))
    with contextlib.closing(sqlite3.connect(f"file:{database_template}?mode=ro", uri=True)) as original:
        tables = {name for (name,) in original.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        [(mode,)] = original.execute("PRAGMA journal_mode")
    assert "roll_log" in tables and "scratch" not in tables
    assert mode == "delete"  # one file holds the whole template: no WAL file to copy along


@pytest.mark.skipif(POSTGRES, reason="SQLite's journal mode")
async def test_sqlite_runs_in_wal_mode(database: Database) -> None:
    async with database.read() as session:
        assert (await session.execute(text("PRAGMA journal_mode"))).scalar() == "wal"


@pytest.mark.skipif(POSTGRES, reason="SQLite's query planner")
async def test_anyone_s_character_by_name_is_found_through_an_index(database: Database) -> None:
    # `find` looks a name up in the whole server when the player has none of it: no scan of the server's characters.
    async with database.read() as session:
        plan = await session.execute(
            text("EXPLAIN QUERY PLAN SELECT id FROM characters WHERE guild_id = 1 AND name_key = 'ogre'")
        )
        assert "ix_characters_name" in " ".join(str(row[-1]) for row in plan)


async def test_concurrent_read_modify_write_loses_nothing(database: Database) -> None:
    async with database.write.begin() as session:
        await session.execute(text("CREATE TABLE counter (value INTEGER)"))
        await session.execute(text("INSERT INTO counter VALUES (0)"))

    async def bump() -> None:
        async with database.write.begin() as session:
            # SQLite's writers hold the lock from BEGIN IMMEDIATE; PostgreSQL's lock the rows they read.
            lock = " FOR UPDATE" if session.bind.dialect.name == "postgresql" else ""
            value = (await session.execute(text("SELECT value FROM counter" + lock))).scalar_one()
            await asyncio.sleep(0.002)  # another writer gets every chance to interleave
            await session.execute(text("UPDATE counter SET value = :v"), {"v": value + 1})

    await asyncio.gather(*(bump() for _ in range(30)))
    async with database.read() as session:
        assert (await session.execute(text("SELECT value FROM counter"))).scalar_one() == 30


ROLL: dict[str, Any] = {
    "interaction_id": 1,
    "guild_id": 1,
    "channel_id": 1,
    "user_id": 1,
    "command": "roll",
    "inputs": {"expression": "1d6"},
    "result": {"total": 3},
    "private": False,
    "created_at": datetime(2026, 1, 1, tzinfo=UTC),
    "fair_session_id": None,
    "fair_roll": None,
    "draws": None,
    "message_id": None,
    "summary": "1d6 = 3",
}


async def test_the_roll_log_writer_commits_a_burst_and_fails_only_the_bad_roll(database: Database) -> None:
    writer = RollLogWriter(database.write)
    roll = ROLL
    no_such_session = {**roll, "fair_session_id": 999}  # breaks the foreign key
    outcomes = await asyncio.gather(
        *(writer.add(RollRecord(**roll)) for _ in range(30)),
        writer.add(RollRecord(**no_such_session)),
        return_exceptions=True,
    )
    assert [type(o).__name__ for o in outcomes if o is not None] == ["IntegrityError"]
    async with database.read() as session:
        assert (await session.execute(select(func.count()).select_from(RollLog))).scalar() == 30


async def test_a_schema_newer_than_the_code_is_refused_even_by_migrate(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path}/bot.db")
    database = await prepare_database(settings)
    async with database.engine.begin() as connection:
        await connection.execute(text("UPDATE alembic_version SET version_num = '0099'"))
    await database.dispose()
    newer = f"The database schema is at 0099, newer than this bot's {head_revision()}: run the bot version that"
    for migrate in (None, True):
        with pytest.raises(SchemaMismatch, match=newer):
            await prepare_database(settings, migrate=migrate)


async def test_only_a_single_sqlite_process_migrates_at_start(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/bot.db"
    with pytest.raises(SchemaMismatch) as refused:
        await prepare_database(Settings(database_url=url, shard_count=1, shard_ids=(0,)))
    assert refused.value.message == (
        f"The database has no schema yet, this bot needs {head_revision()}: run `python -m bot migrate`."
    )
    database = await prepare_database(Settings(database_url=url))
    assert await current_revision(database) == head_revision()
    await database.dispose()


@pytest.mark.skipif(POSTGRES, reason="PostgreSQL writers lock rows, not the database: there is no queue")
async def test_sqlite_writers_are_served_in_arrival_order(database: Database) -> None:
    """Writers queue in this process before SQLite's lock, so none starves behind luckier pollers."""
    served: list[int] = []

    async def writer(number: int) -> None:
        async with database.write.begin() as session:
            await session.execute(text("SELECT 1"))
            await asyncio.sleep(0.001)  # hold the write lock across an await, as real writers do
            served.append(number)

    await asyncio.gather(*(writer(n) for n in range(30)))
    assert served == list(range(30))


async def test_a_run_writer_commits_whole_rolls_back_whole_and_queues_with_session_writers(
    database: Database,
) -> None:
    """`Writers.run`, the roll log's one-trip transaction, is a writer like the others."""
    async with database.write.begin() as session:
        await session.execute(text("CREATE TABLE counter (value INTEGER)"))
        await session.execute(text("INSERT INTO counter VALUES (0)"))
    threads: set[str] = set()

    def bump(connection: Connection) -> None:
        threads.add(threading.current_thread().name)
        value = connection.execute(text("SELECT value FROM counter")).scalar_one()
        connection.execute(text("UPDATE counter SET value = :v"), {"v": value + 1})

    async def bump_in_session() -> None:
        async with database.write.begin() as session:
            lock = " FOR UPDATE" if session.bind.dialect.name == "postgresql" else ""
            value = (await session.execute(text("SELECT value FROM counter" + lock))).scalar_one()
            await asyncio.sleep(0.001)
            await session.execute(text("UPDATE counter SET value = :v"), {"v": value + 1})

    def half_then_fail(connection: Connection) -> None:
        connection.execute(text("UPDATE counter SET value = value + 100"))
        raise RuntimeError("after the update")

    if POSTGRES:  # the rows are locked by the sessions' FOR UPDATE; `run` reads without it, so it goes alone
        await asyncio.gather(*(bump_in_session() for _ in range(10)))
        for _ in range(10):
            await database.write.run(bump)
    else:
        await asyncio.gather(*(database.write.run(bump) for _ in range(10)), *(bump_in_session() for _ in range(10)))
    with pytest.raises(RuntimeError):
        await database.write.run(half_then_fail)
    async with database.read() as session:
        assert (await session.execute(text("SELECT value FROM counter"))).scalar_one() == 20
    if not POSTGRES:
        # One worker thread, off the event loop's: its statements never hold the loop.
        assert len(threads) == 1 and threading.current_thread().name not in threads, threads


@pytest.mark.skipif(POSTGRES, reason="the roll log's writer thread and its connection are SQLite's")
async def test_the_sqlite_writer_keeps_its_connection_until_a_transaction_fails_or_it_is_disposed(
    database: Database,
) -> None:
    used: list[Connection] = []

    def note(connection: Connection) -> None:
        used.append(connection)

    def fail(connection: Connection) -> None:
        used.append(connection)
        raise RuntimeError("in the transaction")

    for _ in range(3):
        await database.write.run(note)
    with pytest.raises(RuntimeError):
        await database.write.run(fail)
    await database.write.run(note)
    await database.write.run(note)
    # One connection from one transaction to the next; the one a failure happened on is given up for another.
    assert used[0] is used[1] is used[2] is used[3] and used[3] is not used[4] is used[5]
    assert used[3].closed and not used[5].closed
    database.write.dispose()
    for _ in range(100):  # closed on the writer's own thread, after what was queued there
        if used[5].closed:
            break
        await asyncio.sleep(0.01)
    assert used[5].closed


async def test_a_rolls_message_note_rides_with_the_next_roll_or_goes_alone_soon(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = RollLogWriter(database.write, note_wait=0.2)
    transactions: list[int] = []
    run = database.write.run

    async def counted(work: Any) -> Any:
        transactions.append(1)
        return await run(work)

    monkeypatch.setattr(database.write, "run", counted)
    roll = {**ROLL, "interaction_id": 1}
    await writer.add(RollRecord(**roll))
    note = asyncio.create_task(writer.message(1, 501))
    await asyncio.sleep(0)
    await writer.add(RollRecord(**{**roll, "interaction_id": 2}))  # the note goes in this roll's transaction
    await note
    assert len(transactions) == 2
    started = asyncio.get_running_loop().time()
    await writer.message(2, 502)  # no roll comes: the note goes alone, after its wait
    assert len(transactions) == 3 and asyncio.get_running_loop().time() - started >= 0.19
    async with database.read() as session:
        rows = (await session.execute(select(RollLog.interaction_id, RollLog.message_id))).all()
    assert sorted(rows) == [(1, 501), (2, 502)]


async def test_sqlite_readers_read_committed_rows_on_their_threads_while_a_writer_holds_its_transaction(
    database: Database,
) -> None:
    """`Readers`, the rolls' one-trip reads: what others committed, on reader threads, never waiting for a writer."""
    if POSTGRES:  # the rolls read in their session there
        assert database.reads is None
        return
    assert database.reads is not None
    async with database.write.begin() as session:
        await session.execute(text("CREATE TABLE counter (value INTEGER)"))
        await session.execute(text("INSERT INTO counter VALUES (1)"))
    threads: set[str] = set()
    statement = text("SELECT value FROM counter")

    def named_thread(connection: Any, *_: Any) -> None:
        threads.add(threading.current_thread().name)

    event.listen(database.reads.engine, "before_cursor_execute", named_thread)
    try:
        async with database.write.begin() as session:
            await session.execute(text("UPDATE counter SET value = 2"))
            # The writer holds SQLite's write lock and has not committed: a reader sees the value before it.
            assert [tuple(row) for row in await database.reads.rows(statement, {})] == [(1,)]
        rows = await asyncio.gather(*(database.reads.rows(statement, {}) for _ in range(20)))
    finally:
        event.remove(database.reads.engine, "before_cursor_execute", named_thread)
    assert {tuple(row) for found in rows for row in found} == {(2,)}
    assert threads and all(name.startswith("sqlite-reader") for name in threads), threads


async def test_a_memory_database_named_by_a_uri_is_one_database_without_threads() -> None:
    """A `file:` URI with mode=memory is another database on every other engine: no reader or writer threads."""
    database = open_database("sqlite+aiosqlite:///file:rolls?mode=memory&cache=shared&uri=true")
    try:
        assert database.reads is None and database.write.threaded is None
        async with database.write.begin() as session:
            await session.execute(text("CREATE TABLE counter (value INTEGER)"))
            await session.execute(text("INSERT INTO counter VALUES (7)"))
        await database.write.run(lambda connection: connection.execute(text("UPDATE counter SET value = 8")))
        async with database.read() as session:
            assert (await session.execute(text("SELECT value FROM counter"))).scalar_one() == 8
    finally:
        await database.dispose()


async def test_a_read_session_is_made_on_first_use_and_closed_with_its_block(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[AsyncSession] = []
    make = AsyncSession.__init__

    def counted(self: AsyncSession, *args: Any, **kwargs: Any) -> None:
        made.append(self)
        make(self, *args, **kwargs)

    monkeypatch.setattr(AsyncSession, "__init__", counted)
    async with database.read():
        pass
    assert made == []  # nothing read through it: no session, nothing to close
    async with database.read() as session:
        assert (await session.execute(text("SELECT 41 + 1"))).scalar() == 42
        assert len(made) == 1 and made[0].in_transaction()
    assert not made[0].in_transaction()  # closed: its connection went back to the pool
    assert database.engine.pool.checkedout() == 0  # type: ignore[attr-defined]


async def test_sqlite_readers_keep_their_connections_between_reads(database: Database) -> None:
    """Reads take a kept connection rather than the pool's (its checkout and reset were half a read's cost); one
    that failed is not kept, and dispose closes those kept."""
    if database.reads is None:  # PostgreSQL: the rolls read in their session
        return
    reads = database.reads
    checkouts: list[None] = []
    event.listen(reads.engine, "checkout", lambda *_: checkouts.append(None))
    statement = text("SELECT count(*) FROM roll_log")
    for _ in range(3):
        await asyncio.gather(*(reads.rows(statement, {}) for _ in range(10)))
    assert 1 <= len(checkouts) <= READERS  # one for each reader thread at most, not one a read
    kept = len(checkouts)
    with pytest.raises(exc.OperationalError):
        await reads.rows(text("SELECT * FROM no_such_table"), {})
    await reads.rows(statement, {})
    assert reads.engine.pool.checkedout() <= kept  # type: ignore[attr-defined]
    reads.dispose()
    assert reads.engine.pool.checkedout() == 0  # type: ignore[attr-defined]
    assert [tuple(row) for row in await reads.rows(statement, {})] == [(0,)]  # a later read opens another


async def test_a_read_under_way_when_the_readers_are_disposed_closes_its_connection(database: Database) -> None:
    """It finishes, and its connection is not kept for later reads: until now it stayed open after the dispose."""
    if database.reads is None:  # PostgreSQL: the rolls read in their session
        return
    reads = database.reads
    counting = text(
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 2000000) SELECT count(*) FROM n"
    )
    reads.dispose()  # none kept: the read checks one out of the pool
    loop = asyncio.get_running_loop()
    connected = asyncio.Event()
    event.listen(reads.engine, "checkout", lambda *_: loop.call_soon_threadsafe(connected.set))
    reading = asyncio.ensure_future(reads.rows(counting, {}))
    await connected.wait()  # the read has its connection, and counts for a second or so
    reads.dispose()
    assert [tuple(row) for row in await reading] == [(2000000,)]
    assert reads.engine.pool.checkedout() == 0  # type: ignore[attr-defined]


async def test_sqlite_reads_asked_for_at_once_make_one_trip_and_each_gets_its_own_rows_or_error(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each trip to a reader thread costs the loop a hand-over and a wake-up; the reads are cheap. A failing read
    fails alone, and the connection it failed on is not kept."""
    if database.reads is None:  # PostgreSQL: the rolls read in their session
        return
    reads = database.reads
    carried = trips(reads, monkeypatch)
    one, failed, two = await asyncio.gather(
        reads.rows(text("SELECT 1"), {}),
        reads.rows(text("SELECT * FROM no_such_table"), {}),
        reads.rows(text("SELECT :n"), {"n": 2}),
        return_exceptions=True,
    )
    assert carried == [3]
    assert [tuple(row) for row in one] == [(1,)] and [tuple(row) for row in two] == [(2,)]  # type: ignore[union-attr]
    assert isinstance(failed, exc.OperationalError)
    assert reads._idle == []  # the connection the failure was on was closed
    carried.clear()
    found = await asyncio.gather(*(reads.rows(text("SELECT :n"), {"n": n}) for n in range(40)))
    assert [row[0] for rows in found for row in rows] == list(range(40))
    assert carried == [BATCH, BATCH, 40 - 2 * BATCH]


async def test_a_trip_that_fails_whole_gives_each_read_an_error_of_its_own_and_leaves_none_waiting(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command notes things on its error (`DiceBot.abandon_roll` notes its fair roll's number), so one error shared
    by the reads of a trip would tell each command another's. A trip that cannot even set out fails its reads too:
    raised where it is sent, the error reached none of them, and each waited for ever."""
    if database.reads is None:  # PostgreSQL: the rolls read in their session
        return
    reads = database.reads
    reads.dispose()  # no connection kept: the next trip opens one

    def refused() -> Connection:
        raise exc.OperationalError("connect", {}, sqlite3.OperationalError("unable to open database file"))

    monkeypatch.setattr(reads.engine, "connect", refused)
    one, two = await asyncio.gather(
        reads.rows(text("SELECT 1"), {}), reads.rows(text("SELECT 2"), {}), return_exceptions=True
    )
    assert isinstance(one, exc.OperationalError) and isinstance(two, exc.OperationalError)
    assert one is not two and str(one) == str(two)

    def no_thread(*_: object) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(asyncio.get_running_loop(), "run_in_executor", no_thread)
    asked = [reads.rows(text("SELECT :n"), {"n": n}) for n in range(BATCH + 1)]  # a full batch is sent at once
    failed = await asyncio.wait_for(asyncio.gather(*asked, return_exceptions=True), 5)
    assert [type(error) for error in failed] == [RuntimeError] * (BATCH + 1)
    assert len({id(error) for error in failed}) == BATCH + 1
