"""The engine and the two kinds of session: readers, and writers that take SQLite's write lock up front."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import threading
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

from sqlalchemy import Connection, CursorResult, Engine, Executable, Result, Row, create_engine, event, exc, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.pool import StaticPool

from bot.config import SYNCHRONOUS, Synchronous
from bot.errors import UserError

log = logging.getLogger(__name__)

# How long a writer waits for another writer's lock before SQLite gives up with "database is locked".
BUSY_TIMEOUT_MS = 5000
# SQLSTATEs of a PostgreSQL that will not take writes (a standby, default_transaction_read_only, no grant).
READ_ONLY_SQLSTATES = {"25006", "42501"}
# SQLSTATEs of a PostgreSQL that refused who the bot logs in as, or the database it names.
LOGIN_SQLSTATES = {"28000", "28P01", "3D000"}


class DatabaseUnavailable(UserError):
    """The database DATABASE_URL names cannot be opened, reached or written: one line for the operator."""

    title = "Database"


# Threads reading for the roll commands on SQLite (`Readers`): SQLite readers never wait for each other, and the
# loop hands a read over in a few microseconds, so two keep up with it while a third would only take the GIL.
READERS = 2
# Reads asked for in one turn of the event loop go to a reader thread together, this many at most to a trip: each
# trip costs the loop a hand-over and a wake-up, about 0.4 ms of CPU under load, where a read itself costs its
# thread tens of microseconds. A character's attack reads the character and the channel's fight at once.
BATCH = 16

T = TypeVar("T")


class Writers:
    """Write transactions: `async with database.write.begin() as session:` commits, or rolls back on error.

    On SQLite one writer runs at a time anyway (BEGIN IMMEDIATE); writers of this process also queue on an
    asyncio lock first, which serves them in arrival order (SQLite's busy handler polls, so waiting writers
    would otherwise win the lock by luck, and some starve) and about three times faster.
    """

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], *, queue: bool, threaded: Engine | None = None
    ) -> None:
        self.sessions = sessions
        self._lock = asyncio.Lock() if queue else None
        self.threaded = threaded  # SQLite: a blocking engine on the same file, for `run`
        self._thread: ThreadPoolExecutor | None = None
        self._connection: Connection | None = None  # `run`'s, kept open between its transactions, on its thread

    @asynccontextmanager
    async def begin(self) -> AsyncIterator[AsyncSession]:
        """A session in a write transaction, committed when the block ends without an error."""
        if self._lock is None:
            async with self.sessions.begin() as session:
                yield session
            return
        async with self._lock, self.sessions.begin() as session:
            yield session

    async def run(self, work: Callable[[Connection], T]) -> T:
        """Run `work` on a connection in one write transaction (SQLAlchemy Core), committed when it returns.

        For the hottest write, the roll log's group commit. Through aiosqlite, every statement of a transaction
        (BEGIN, each execute, COMMIT, the pool's reset) is a trip to its thread and back through the event loop,
        and the ORM session and greenlets add their own steps: about 1 ms of CPU for a one-row insert, most of
        the roll commands' cost. On SQLite `work` instead runs whole on one worker thread, on a blocking engine
        over the same file: one trip, a quarter of the CPU, and the statements' compiling and the columns'
        encoding are off the loop. Writers still queue on the same lock, so the order of writes is kept.
        Elsewhere (PostgreSQL) `work` runs on an async connection (`AsyncConnection.run_sync`).
        """
        async with self._lock or contextlib.nullcontext():
            if self.threaded is None:
                engine: AsyncEngine = self.sessions.kw["bind"]
                async with engine.begin() as connection:
                    return await connection.run_sync(work)
            threaded = self.threaded

            def transaction() -> T:
                # One connection, on the one thread, for every transaction, rather than a checkout of the pool
                # and its reset at the checkin (a ROLLBACK) each time; with the BEGIN on the driver's cursor
                # (`_configure_sqlite`), a one-row write went from 0.54-0.72 to 0.46-0.64 ms of CPU. A failed
                # transaction's connection is not kept: it may be broken.
                connection = self._connection = self._connection or threaded.connect()
                try:
                    with connection.begin():
                        return work(connection)
                except BaseException:
                    self._connection = None
                    connection.close()
                    raise

            if self._thread is None:
                self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite-writer")
            return await asyncio.get_running_loop().run_in_executor(self._thread, transaction)

    def dispose(self) -> None:
        """Close the worker thread and its connection (a later `run` opens others)."""
        if self._thread is not None:
            self._thread.submit(self._close)  # after the transactions already queued, on the thread that ran them
            self._thread.shutdown(wait=False)  # a transaction under way still finishes
            self._thread = None
        if self.threaded is not None:
            self.threaded.dispose()

    def _close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()


class Readers:
    """Reads of committed rows, each statement whole in a trip to a reader thread (SQLite only).

    Through aiosqlite a read session makes a trip to its thread and back for every step: BEGIN, then each
    statement's cursor, execute, fetch and close, then the rollback. A roll reads its character and the channel's
    fight that way in about 2.8 ms of the loop's CPU; one trip each to a thread with a blocking connection of its
    own costs 0.7 ms, and SQLite's work there runs outside the GIL. The rolls read this way (`rows`): what they read
    is what others committed, and SQLite's readers in WAL mode wait for nobody. A read that locks, or that must
    see its own transaction's writes, goes through that transaction's session.

    The reads asked for in one turn of the event loop make one trip (`BATCH` at most): those of the commands of a
    burst, and the reads one command makes at once, such as a character's attack's character and fight.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine  # a blocking engine on the same file (`open_database`)
        self._threads: ThreadPoolExecutor | None = None
        # Connections between reads, each taken by one reader thread at a time (SQLAlchemy lets a file database's
        # connections change threads). A checkout of the pool and its reset at the checkin cost half of a read's
        # CPU on its thread: 87 µs a read, 44 µs on a kept connection.
        self._idle: list[Connection] = []
        # Counts `dispose` calls: a read under way at one closes its connection rather than keep it. The lock makes
        # a read's look at the count and its keeping one step against dispose's count and closing.
        self._disposals = 0
        self._keeping = threading.Lock()
        # Reads asked for in this turn of the loop, not yet on their way: each with the future of its rows.
        self._asked: list[tuple[Executable, Mapping[str, Any], asyncio.Future[Sequence[Row[Any]]]]] = []

    async def rows(self, statement: Executable, values: Mapping[str, Any]) -> Sequence[Row[Any]]:
        """The rows `statement` reads with `values` bound, on a reader thread with those asked for at the same time."""
        loop = asyncio.get_running_loop()
        found: asyncio.Future[Sequence[Row[Any]]] = loop.create_future()
        asked = self._asked
        asked.append((statement, values, found))
        if len(asked) >= BATCH:
            self._send()
        elif len(asked) == 1:
            loop.call_soon(self._send)  # once the tasks ready in this turn have asked for theirs
        return await found

    def _send(self) -> None:
        """Send the reads asked for to a reader thread in one trip; each reader gets its rows, or its error.

        Should the trip fail whole (no connection could be opened, no thread started), each reader gets an error of
        its own: an error is a command's to note things on (`DiceBot.abandon_roll` notes its fair roll's number), and
        one shared would tell every command of the trip another's number.
        """
        asked, self._asked = self._asked, []
        if not asked:  # sent already, a batch being full
            return
        readers = [found for _, _, found in asked]
        try:
            if self._threads is None:
                self._threads = ThreadPoolExecutor(max_workers=READERS, thread_name_prefix="sqlite-reader")
            reads = [(statement, values) for statement, values, _ in asked]
            trip = asyncio.get_running_loop().run_in_executor(self._threads, self._read, reads)
        except Exception as error:  # raised here, it would reach no reader: each would wait for ever
            _fail(readers, error)
            return

        def deliver(trip: asyncio.Future[list[Sequence[Row[Any]] | Exception]]) -> None:
            if trip.cancelled():
                for found in readers:
                    found.cancel()
                return
            failed = trip.exception()
            if failed is not None:
                _fail(readers, failed)
                return
            for found, result in zip(readers, trip.result(), strict=True):
                if found.done():  # its reader was cancelled
                    continue
                if isinstance(result, BaseException):
                    found.set_exception(result)
                else:
                    found.set_result(result)

        trip.add_done_callback(deliver)

    def _read(self, reads: list[tuple[Executable, Mapping[str, Any]]]) -> list[Sequence[Row[Any]] | Exception]:
        """On a reader thread: each statement's rows, or its error, in a transaction of its own on one connection."""
        disposals = self._disposals
        try:
            connection = self._idle.pop()
        except IndexError:  # none idle (another reader may have taken the last one since a look)
            connection = self.engine.connect()
        found: list[Sequence[Row[Any]] | Exception] = []
        kept = True
        try:
            for statement, values in reads:
                try:
                    found.append(connection.execute(statement, values).all())
                except Exception as error:  # this read's own: the others still read
                    found.append(error)
                    kept = False  # not kept: it may be broken
                # The read's transaction ends: the next one sees what was committed meanwhile.
                connection.rollback()
        except BaseException:
            connection.close()
            raise
        with self._keeping:
            kept = kept and disposals == self._disposals
            if kept:
                self._idle.append(connection)
        if not kept:
            connection.close()  # it failed, or the readers were disposed of while it read
        return found

    def dispose(self) -> None:
        """Close the reader threads and the connections between reads (a later read opens others)."""
        if self._threads is not None:
            self._threads.shutdown(wait=False)  # a read under way still finishes, then closes its connection
            self._threads = None
        with self._keeping:
            self._disposals += 1
        while True:  # each kept connection is taken once, by a read or here (a pop is one step)
            try:
                connection = self._idle.pop()
            except IndexError:
                break
            connection.close()


def _fail(readers: list[asyncio.Future[Sequence[Row[Any]]]], error: BaseException) -> None:
    """Fail the readers still waiting with `error`: the first with it, each other with a copy of its own."""
    waiting = [found for found in readers if not found.done()]
    for index, found in enumerate(waiting):
        found.set_exception(error if index == 0 else _copy_of(error))


def _copy_of(error: BaseException) -> BaseException:
    """An error like `error` (its type, message and cause), for another reader; else one that says what failed."""
    try:
        own = copy.copy(error)
    except Exception:  # an error whose arguments cannot make it again
        own = RuntimeError(f"A database read failed: {type(error).__name__}: {error}")
    own.__cause__ = error.__cause__
    return own


async def read_rows(
    session: AsyncSession, reads: Readers | None, statement: Executable, values: Mapping[str, Any]
) -> Sequence[Row[Any]]:
    """The rows a read statement finds: in one trip on `reads` when there are readers, else in `session`."""
    if reads is not None:
        return await reads.rows(statement, values)
    return (await session.execute(statement, values)).all()


class LazySession:
    """A read session that makes its `AsyncSession` when something first uses it (`Database.read`).

    A roll command opens one read session for all it reads, and most read nothing through it: the server's settings,
    the roller's choice of answers and the channel's fair session are kept in memory, and on SQLite rows are read on
    the reader threads (`Readers`). An `AsyncSession` made and closed unused cost 78 µs of the event loop's CPU
    (1.6 µs now), more than a `/roll`'s dice: its closing alone is a task, a shield, a greenlet switch and three turns
    of the loop.
    """

    __slots__ = ("_made", "_sessions")

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        self._made: AsyncSession | None = None

    @property
    def made(self) -> bool:
        """Whether something used it, and so its `AsyncSession` was made."""
        return self._made is not None

    def __getattr__(self, name: str) -> Any:
        if self._made is None:
            self._made = self._sessions()
        return getattr(self._made, name)

    async def __aenter__(self) -> AsyncSession:
        return cast(AsyncSession, self)

    async def __aexit__(self, *exc_info: Any) -> None:
        if self._made is not None:
            await self._made.__aexit__(*exc_info)  # its closing shielded from a cancelled command, as SQLAlchemy does

    async def close(self) -> None:
        """Close the session, if it was made."""
        if self._made is not None:
            await self._made.close()


def lazy_reads(sessions: async_sessionmaker[AsyncSession]) -> Callable[[], AsyncSession]:
    """A factory of read sessions that are made on first use (`LazySession`), typed as the sessions they make."""
    return lambda: cast(AsyncSession, LazySession(sessions))


@dataclass(frozen=True, slots=True)
class Database:
    """The engine plus a session factory for reads and one for writes (one session per unit of work).

    On an SQLite file, `reads` reads committed rows for the roll commands in one trip each (`Readers`); None
    elsewhere, where a read goes through the session it is part of.
    """

    engine: AsyncEngine
    read: Callable[[], AsyncSession]  # `lazy_reads`
    write: Writers
    reads: Readers | None = None

    async def dispose(self) -> None:
        """Close every pooled connection."""
        if self.reads is not None:
            self.reads.dispose()
        self.write.dispose()
        await self.engine.dispose()


def changed_rows(result: Result[Any]) -> int:
    """How many rows an UPDATE, DELETE or INSERT changed.

    SQLAlchemy types every `execute` result as a `Result`; one of a DML statement is a `CursorResult`.
    """
    if not isinstance(result, CursorResult):
        raise TypeError(f"not the result of a DML statement: {type(result).__name__}")
    return result.rowcount


def ensure_sqlite_directory(url: str) -> None:
    """Create the folder of an SQLite database file, so that a fresh clone runs without setup.

    A `file:` URI (`?uri=true`, e.g. `mode=ro`) is SQLite's to open as written; nothing is created for it.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:") or parsed.query.get("uri"):
        return
    path = Path(parsed.database)
    try:
        if path.is_dir():
            raise DatabaseUnavailable(
                f"DATABASE_URL names the folder {path}, not a file: name a file in it, such as {path / 'bot.db'}."
            )
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        # FileExistsError or NotADirectoryError: some part of the path is a file; PermissionError: a folder on
        # the way is not the bot's to enter or write.
        raise DatabaseUnavailable(
            f"DATABASE_URL names {path}, but its folder {path.parent} can't be created ({error.strerror}): "
            "point it at a file in a folder the bot can write."
        ) from error


def unavailable(url: str, error: BaseException) -> DatabaseUnavailable | None:
    """The operator's one line for an error that opening, migrating or probing the database raised, if it is theirs.

    None for anything else (a bug), which keeps its traceback.
    """
    parsed = make_url(url)
    where = _where(parsed)
    if isinstance(error, DatabaseUnavailable):
        return error
    if isinstance(error, OSError):
        # Refused, timed out, an unknown host: nothing answered at the address.
        reason = error.strerror or type(error).__name__
        return DatabaseUnavailable(
            f"Can't reach the database server at {where} (DATABASE_URL): {reason}. Start it, or fix the host and port."
        )
    if not isinstance(error, exc.DBAPIError):
        return None
    sqlstate = getattr(error.orig, "sqlstate", None)
    reason = str(error.orig).strip().splitlines()[0] if str(error.orig).strip() else type(error.orig).__name__
    if sqlstate in READ_ONLY_SQLSTATES or "readonly database" in reason:
        return DatabaseUnavailable(
            f"The database at {where} (DATABASE_URL) is read-only ({reason}): every roll is written to the roll "
            "log, so give the bot a database it can write."
        )
    if sqlstate in LOGIN_SQLSTATES:
        return DatabaseUnavailable(
            f"The database server at {where} refused the bot ({reason}): fix the user, password or database "
            "name in DATABASE_URL."
        )
    if parsed.get_backend_name() == "sqlite":
        return DatabaseUnavailable(
            f"Can't use the SQLite file {where} (DATABASE_URL): {reason}. Point it at an SQLite file the bot can "
            "read and write, or at a new one."
        )
    return DatabaseUnavailable(f"The database at {where} (DATABASE_URL) failed: {reason}. Check DATABASE_URL.")


def _where(url: URL) -> str:
    """The file or host:port/database of `url`, never its password."""
    if url.get_backend_name() == "sqlite":
        return url.database or ":memory:"
    # A Unix socket comes as ?host=/run/postgresql.
    host = url.host or url.query.get("host") or "localhost"
    return f"{host}:{url.port or 5432}/{url.database or ''}"


async def check_writable(database: Database) -> None:
    """Refuse (DatabaseUnavailable, via `unavailable`) a database that opens but will not take a write.

    A read-only database (an SQLite file opened `mode=ro` or on a read-only mount, a PostgreSQL standby, a
    user without grants) still answers reads and migrations that have nothing to do; it would fail every roll
    only after answering it. An update that changes nothing, rolled back, needs the same write permission.
    """
    async with database.write.sessions() as session:
        await session.execute(text("UPDATE alembic_version SET version_num = version_num"))
        await session.rollback()


def open_database(url: str, *, synchronous: Synchronous = "full") -> Database:
    """Build the engine for `url`. Nothing connects until the first session is used.

    `synchronous` is SQLite's `PRAGMA synchronous` on every connection (PostgreSQL's durability is the server's).
    """
    ensure_sqlite_directory(url)
    if synchronous not in SYNCHRONOUS:
        raise ValueError(f"synchronous is one of {SYNCHRONOUS}, not {synchronous!r}")
    parsed = make_url(url)
    memory = parsed.query.get("mode") == "memory"  # an SQLite `file:` URI's memory database
    # Its one connection holds the database, as SQLAlchemy chooses for it now (saying so is deprecated).
    pooled: dict[str, Any] = {"poolclass": StaticPool} if memory else {}
    engine = create_async_engine(url, pool_pre_ping=not url.startswith("sqlite"), **pooled)
    sqlite = engine.dialect.name == "sqlite"
    if sqlite:
        _configure_sqlite(engine, synchronous)
    writers = async_sessionmaker(engine.execution_options(immediate=True), expire_on_commit=False)
    threaded = reads = None
    if sqlite and parsed.database not in (None, "", ":memory:") and not memory:
        # The stdlib driver on the same file: a memory database (`:memory:`, a `file:` URI with mode=memory) would
        # be another database in each engine.
        blocking = create_engine(parsed.set(drivername="sqlite"))
        _configure_sqlite(blocking, synchronous)
        threaded = blocking.execution_options(immediate=True)
        reads = Readers(blocking)
    return Database(
        engine=engine,
        read=lazy_reads(async_sessionmaker(engine, expire_on_commit=False)),
        write=Writers(writers, queue=sqlite, threaded=threaded),
        reads=reads,
    )


def _configure_sqlite(engine: AsyncEngine | Engine, synchronous: Synchronous) -> None:
    # The stdlib driver's legacy transaction handling reads outside the write transaction, which loses
    # updates; let SQLAlchemy emit BEGIN itself, and make writers BEGIN IMMEDIATE so two writers queue on
    # busy_timeout instead of deadlocking on a lock upgrade (SQLAlchemy's SQLite docs, "aiosqlite").
    target = engine.sync_engine if isinstance(engine, AsyncEngine) else engine

    @event.listens_for(target, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        pragmas = ("journal_mode=WAL", f"synchronous={synchronous.upper()}", f"busy_timeout={BUSY_TIMEOUT_MS}")
        for pragma in (*pragmas, "foreign_keys=ON"):
            cursor.execute("PRAGMA " + pragma)
        cursor.close()

    @event.listens_for(target, "begin")
    def _on_begin(connection: Any) -> None:
        immediate = connection.get_execution_options().get("immediate")
        # On the driver's cursor: through `exec_driver_sql` the BEGIN of every transaction was a whole statement of
        # SQLAlchemy's, its events and result included (`Writers.run` says what the two changes saved).
        cursor = connection.connection.cursor()
        try:
            cursor.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
        finally:
            cursor.close()
