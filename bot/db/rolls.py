"""The roll log: every roll, written once, read back as plain records."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, LargeBinary, bindparam, delete, func, insert, or_, select, type_coerce, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.characters import CharacterRecord
from bot.db.codec import decode
from bot.db.engine import Writers
from bot.db.models import Base, FairRollTaken, FairSession, RollLog
from bot.errors import UserError
from bot.rules.audience import ANYONE, Creature, Viewer, sees_numbers
from bot.rules.fair_log import MAX_DRAWS_PER_ROLL
from bot.rules.luck import Luck, Tally

log = logging.getLogger(__name__)

LUCK_ROLLS = 20_000  # /stats reads at most this many of the latest rolls
# The most a logged roll takes, every column as stored (an integer counted as 8 bytes): the largest roll any
# command's input caps allow stays under it (tests/db/test_rolls.py). Measured: /roll at its caps in a
# fair session about 6 KB; the largest /dnd full-attack (7 criticals of 999 dice of 999 sides, each face kept
# twice, in the result and in the fair draws) about 28 KB; an ordinary attack under 1 KB.
ROW_BYTES_MAX = 32 * 1024
PRUNE_BATCH = 500  # rolls deleted per transaction: a short hold of SQLite's write lock
PRUNE_PAUSE = 0.05  # seconds between two batches, so that the rolls of a busy table get the lock in between
PRUNE_EVERY = 3600.0  # seconds between two prunings
PRUNE_FIRST = 60.0  # seconds after the start before the first, away from the burst of a reconnect
NOTE_WAIT = 0.01  # seconds a roll's message note waits for the next roll to share its transaction


ROLL_LOG = Base.metadata.tables[RollLog.__tablename__]
# A roll's message, once its answer is posted: (interaction id "of", message id "message") pairs.
SET_MESSAGE = (
    update(ROLL_LOG)
    .where(ROLL_LOG.c.interaction_id == bindparam("of"), ROLL_LOG.c.message_id.is_(None))
    .values(message_id=bindparam("message"))
)


@dataclass(frozen=True, slots=True)
class RollRecord:
    """One roll as the log writes it, a row of the roll log (the cogs build it once, after the answer is made).

    A roll of a fair session also carries its session, roll number and every draw, for `/fair verify`; `luck`
    is what /stats sums, `details` the full answer behind a compact one, `proof` a fair roll's kind, inputs and
    outcome (`bot.rules.replay`). A `hidden` roll is private too. `secret_of`: the owner of the secret creature
    the roll was against, if it was (a game master's secret character): its luck tally follows from that
    creature's numbers (a hit chance from its AC), so it is stored with the tally (`encode_luck`), not as a column.
    """

    interaction_id: int
    guild_id: int | None
    channel_id: int | None
    user_id: int
    command: str
    inputs: dict[str, Any]
    result: dict[str, Any]
    private: bool
    created_at: datetime
    fair_session_id: int | None = None
    fair_roll: int | None = None
    draws: list[list[int]] | None = None
    message_id: int | None = None
    summary: str | None = None
    character_id: int | None = None
    ruleset: str | None = None
    luck: Luck | None = None
    details: dict[str, Any] | None = None
    proof: dict[str, Any] | None = None
    hidden: bool = False
    secret_of: int | None = None

    def row(self) -> dict[str, Any]:
        """The record as the roll log table's column values (shallow: `asdict` would copy every result)."""
        row = {field.name: getattr(self, field.name) for field in fields(self) if field.name != "secret_of"}
        if self.luck is not None:
            row["luck"] = encode_luck(self.luck, secret_of=self.secret_of)
        return row


@dataclass(frozen=True, slots=True)
class LoggedRoll:
    """A roll as the log keeps it."""

    id: int
    interaction_id: int
    guild_id: int | None
    channel_id: int | None
    user_id: int
    command: str
    inputs: dict[str, Any]
    result: dict[str, Any]
    private: bool
    created_at: datetime
    message_id: int | None = None
    summary: str | None = None
    fair_roll: int | None = None
    character_id: int | None = None
    ruleset: str | None = None
    details: dict[str, Any] | None = None
    hidden: bool = False


def _record(row: RollLog) -> LoggedRoll:
    return LoggedRoll(
        id=row.id,
        interaction_id=row.interaction_id,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        user_id=row.user_id,
        command=row.command,
        inputs=row.inputs,
        result=row.result,
        private=row.private,
        created_at=row.created_at,
        message_id=row.message_id,
        summary=row.summary,
        fair_roll=row.fair_roll,
        character_id=row.character_id,
        ruleset=row.ruleset,
        details=row.details,
        hidden=row.hidden,
    )


class RollRepository:
    """Reads and writes the roll log inside the caller's session (the caller owns the transaction)."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def add(self, record: RollRecord) -> int:
        """Log one roll and return its number in the log."""
        row = RollLog(**record.row())
        self.session.add(row)
        await self.session.flush()
        return row.id

    async def add_many(self, rolls: list[dict[str, Any]]) -> None:
        """Log several rolls (each given as `RollRecord.row` gives it) with one statement."""
        # The table, not the mapped class: a plain executemany, without the ORM's bulk-insert bookkeeping.
        await self.session.execute(insert(ROLL_LOG), rolls)

    async def set_messages(self, messages: list[tuple[int, int]]) -> None:
        """Record the message each roll's answer landed in, as (interaction id, message id) pairs."""
        await self.session.execute(SET_MESSAGE, [{"of": of, "message": message} for of, message in messages])

    async def recent(
        self, *, channel_id: int, user_id: int | None = None, character: CharacterRecord | None = None, limit: int = 10
    ) -> list[LoggedRoll]:
        """The latest public rolls made in a channel (by one user, with one character, if given), newest first."""
        query = select(RollLog).where(RollLog.channel_id == channel_id, RollLog.private.is_(False))
        if user_id is not None:
            query = query.where(RollLog.user_id == user_id)
        if character is not None:
            query = query.where(*_made_with(character))
        rows = await self.session.scalars(query.order_by(RollLog.id.desc()).limit(limit))
        return [_record(row) for row in rows]

    async def made_by(self, interaction_id: int) -> LoggedRoll | None:
        """The roll an interaction made (what a button under its answer refers to)."""
        row = await self.session.scalar(
            select(RollLog).where(RollLog.interaction_id == interaction_id).order_by(RollLog.id).limit(1)
        )
        return None if row is None else _record(row)

    async def claim(self, interaction_id: int, key: str) -> bool:
        """Mark what the roll's details keep under `key` (a hit waiting for a hand) as done, once; whether it was new.

        Locked where the database can (SQLite writers run one at a time), so two presses at once claim it once.
        """
        query = select(RollLog).where(RollLog.interaction_id == interaction_id).order_by(RollLog.id).limit(1)
        row = await self.session.scalar(query.with_for_update())
        done = f"{key}_done"
        if row is None or not row.details or key not in row.details or row.details.get(done):
            return False
        row.details = {**row.details, done: True}
        await self.session.flush()
        return True

    async def latest_interaction(self) -> int | None:
        """The largest interaction id any logged roll came from, or None when nothing is logged."""
        return await self.session.scalar(select(func.max(RollLog.interaction_id)))

    async def luck(
        self,
        *,
        guild_id: int | None,
        user_id: int | None = None,
        character: CharacterRecord | None = None,
        ruleset: str | None = None,
        include_private_of: int | None = None,
        limit: int = LUCK_ROLLS,
    ) -> list[bytes]:
        """The luck tallies of the latest `limit` rolls in a server that kept one, newest first.

        As stored (compact bytes): `luck_tallies` decodes them.

        Hidden rolls never count: only the GM channel saw them, and a tally is a window onto their outcomes.
        Private rolls count only for `include_private_of`, the user asking about themselves, to be answered
        privately (the caller's promise: a private roll's luck is that user's business alone). Rolls against a
        secret are read too: `luck_tallies` leaves out those its reader may not see.
        """
        query = select(RollLog.luck).where(
            RollLog.guild_id == guild_id, RollLog.luck.is_not(None), RollLog.hidden.is_(False)
        )
        if user_id is not None:
            query = query.where(RollLog.user_id == user_id)
        if character is not None:
            query = query.where(*_made_with(character))
        if ruleset is not None:
            query = query.where(RollLog.ruleset == ruleset)
        if include_private_of is None:
            query = query.where(RollLog.private.is_(False))
        else:
            query = query.where(or_(RollLog.private.is_(False), RollLog.user_id == include_private_of))
        # As the stored bytes (the column type would decode them here, on the loop): decoding 20,000 tallies
        # takes a good part of a second, which `luck_tallies` spends where the caller chooses, off the loop.
        stored = await self.session.scalars(
            query.with_only_columns(type_coerce(RollLog.luck, LargeBinary)).order_by(RollLog.id.desc()).limit(limit)
        )
        return [data for data in stored if data]


def _made_with(character: CharacterRecord) -> tuple[Any, ...]:
    """The rolls made with `character`: its id, and not before it was created.

    Ids are never reused (migration 0020), but a database from before that may have given a deleted character's
    id to a newer one, whose rolls then began only when it was created.
    """
    return RollLog.character_id == character.id, RollLog.created_at >= character.created_at


# The luck blob's one key that is not an outcome: [owner id] of the secret creature the roll was against.
SECRET_OF = "secret_of"


def encode_luck(luck: Luck, *, secret_of: int | None = None) -> dict[str, list[float]]:
    """A roll's luck as the log stores it: outcome -> [observed, expected, variance], and whose secret it was against.

    The secret's owner rides in the tally itself (`SECRET_OF`), so that no statistic can read the tally without
    knowing that it gives a secret away.
    """
    stored = {key: list(tally) for key, tally in luck.items()}
    if secret_of is not None:
        stored[SECRET_OF] = [secret_of]
    return stored


def luck_tallies(stored: Iterable[bytes], reader: Viewer = ANYONE) -> list[Luck]:
    """The tallies `RollRepository.luck` read, decoded, that `reader` may see (a roll without one is skipped).

    A tally of a roll against a secret creature tells its numbers (the expected hits, its AC; the damage, its
    damage reduction): it counts only for a reader who may see them (`bot.rules.audience.sees_numbers`).
    """
    tallies = []
    for data in stored:
        tally = decode(data)
        if not tally:
            continue
        secret = tally.pop(SECRET_OF, None)
        if secret is not None and not sees_numbers(reader, Creature(secret[0], secret=True)):
            continue
        tallies.append({key: Tally(*values) for key, values in tally.items()})
    return tallies


class RollLogWriter:
    """Writes the roll log in batches: the rolls that arrive while one write runs all go into the next.

    Every roll used to be a write transaction of its own, and SQLite takes one writer at a time: under load
    the writers queued on SQLite's lock, polling it from their threads, until some gave up with "database is
    locked". Now each roll still waits until it is committed, but a burst costs a few transactions and
    statements instead of one of each per roll. A roll is logged before its answer is posted, so the message
    it landed in comes after, as a note (`message`) that rides along in the next batch. A note waits up to
    `note_wait` seconds for that batch rather than starting a transaction of its own: at a steady pace the
    rolls come one by one, and without the wait each would cost two transactions. Nobody waits for a note
    (the answer is out, its command's place is freed), and buttons find a roll by its interaction.
    """

    def __init__(self, write: Writers, *, note_wait: float = NOTE_WAIT) -> None:
        self.write = write
        self.note_wait = note_wait
        self._waiting: list[tuple[RollRecord, asyncio.Future[None]]] = []
        self._messages: list[tuple[tuple[int, int], asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None
        self._note_timer: asyncio.TimerHandle | None = None

    async def add(self, record: RollRecord) -> None:
        """Log one roll; returns once it is committed."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((record, future))
        self._start()
        return await future

    async def message(self, interaction_id: int, message_id: int) -> None:
        """Record the message a logged roll's answer landed in; returns once it is committed."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._messages.append(((interaction_id, message_id), future))
        idle = self._writer is None or self._writer.done()  # else the running writer takes it in its next batch
        if idle and self._note_timer is None:
            self._note_timer = asyncio.get_running_loop().call_later(self.note_wait, self._start)
        return await future

    def _start(self) -> None:
        if self._note_timer is not None:
            self._note_timer.cancel()
            self._note_timer = None
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_all(), name="roll log writer")

    async def _write_all(self) -> None:
        while self._waiting or self._messages:
            batch, self._waiting = self._waiting, []
            messages, self._messages = self._messages, []
            try:
                await self._write(batch, messages)
            except Exception as error:
                futures = [future for _, future in batch] + [future for _, future in messages]
                if len(futures) == 1:
                    _settle(futures[0], error=error)
                    continue
                # One bad roll must not fail the others: write them one by one, each failing on its own.
                for one in batch:
                    try:
                        await self._write([one], [])
                    except Exception as single:
                        _settle(one[1], error=single)
                for note in messages:
                    try:
                        await self._write([], [note])
                    except Exception as single:
                        _settle(note[1], error=single)

    async def _write(
        self,
        batch: list[tuple[RollRecord, asyncio.Future[None]]],
        messages: list[tuple[tuple[int, int], asyncio.Future[None]]],
    ) -> None:
        rolls = [record.row() for record, _ in batch]
        pairs = [pair for pair, _ in messages]
        # One trip for the whole batch (`Writers.run`): the roll commands' largest cost was this write.
        await self.write.run(lambda connection: _write_rows(connection, rolls, pairs))
        for _, future in batch:
            _settle(future)
        for _, future in messages:
            _settle(future)


def _write_rows(connection: Connection, rolls: list[dict[str, Any]], pairs: list[tuple[int, int]]) -> None:
    """Log rolls (their rows) and note answers' messages (interaction, message) in the caller's transaction."""
    fair = {row["fair_session_id"] for row in rolls if row.get("fair_session_id") is not None}
    counted = [
        {"of": row["fair_session_id"], "drawn": len(row.get("draws") or ()) - MAX_DRAWS_PER_ROLL}
        for row in rolls
        if row.get("fair_session_id") is not None
    ]
    if fair:
        _refuse_closed(connection, fair)
    if rolls:
        connection.execute(insert(ROLL_LOG), rolls)
    if counted:  # a fair roll's draws, counted at their most when its number was taken, as they are
        connection.execute(COUNT_DRAWS, counted)
    if pairs:
        connection.execute(SET_MESSAGE, [{"of": of, "message": message} for of, message in pairs])


async def log_in(session: AsyncSession, record: RollRecord) -> None:
    """Log a roll in the write transaction of the change it is for (a fight's initiative, a dying combatant's d%).

    The change and its roll commit together or not at all: a change never keeps a roll the log lacks, and a roll
    refused by a fair session closed meanwhile (`SessionClosed`) undoes the change.
    """
    row = record.row()
    await session.run_sync(lambda synced: _write_rows(synced.connection(), [row], []))


FAIR_SESSIONS = Base.metadata.tables[FairSession.__tablename__]
COUNT_DRAWS = (
    update(FAIR_SESSIONS)
    .where(FAIR_SESSIONS.c.id == bindparam("of"))
    .values(draws=FAIR_SESSIONS.c.draws + bindparam("drawn"))
)


class SessionClosed(UserError):
    """A fair roll whose session's log was closed at a reveal before the roll could be logged in it."""

    title = "Fair dice"


# Built once, as every statement a roll's write runs: one built for each write left its bound values in reference
# cycles for the collector (`bot.heap`).
_CLOSED_AT = (
    select(FairSession.closed_at).where(FairSession.id.in_(bindparam("ids", expanding=True))).with_for_update(read=True)
)


def _refuse_closed(connection: Connection, sessions: set[int]) -> None:
    """Refuse to log rolls in a fair session whose log is closed (`FairRepository.close`): it is final, signed.

    Each session row is read by its id and locked for sharing (PostgreSQL), whatever its `closed_at`, so a
    reveal's close waits for this write, or this write sees the close; a lock taken only on rows that are
    closed would lock nothing while the session runs. On SQLite writers take turns anyway.
    """
    closed_at = connection.execute(_CLOSED_AT, {"ids": sorted(sessions)}).scalars()
    if any(closed is not None for closed in closed_at):
        raise SessionClosed(
            "The fair session here was revealed before this roll could be logged in it, so it is not answered: "
            "its number is listed as unanswered in the session's log. Roll again: it uses the bot's own dice now."
        )


def _settle(future: asyncio.Future[None], *, error: BaseException | None = None) -> None:
    if future.done():  # the command was cancelled meanwhile
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(None)


async def prune_batch(session: AsyncSession, *, before: datetime, limit: int = PRUNE_BATCH) -> int:
    """Delete at most `limit` rolls that the retention lets go; return how many rows went (0: nothing left).

    A roll outside fair sessions goes once it was made before `before`. A fair session's rolls are kept while
    it runs, whatever their age, and until its reveal is older than `before`; then the session and all its
    rolls go together (the reveal posted its seed and log file to the channel, which keeps the proof). A
    session with more than `limit` rolls goes over several batches, its row with the last one.
    """
    old = select(RollLog.id).where(RollLog.created_at < before, RollLog.fair_session_id.is_(None))
    deleted = await _delete_rolls(session, old.order_by(RollLog.created_at).limit(limit))
    if deleted:
        return deleted
    revealed = select(FairSession.id).where(FairSession.revealed_at < before)
    session_id = await session.scalar(revealed.order_by(FairSession.id).limit(1))
    if session_id is None:
        return 0
    # By session, not by channel: a GM channel's session also holds hidden rolls logged in the play channels.
    rolls = select(RollLog.id).where(RollLog.fair_session_id == session_id)
    deleted = await _delete_rolls(session, rolls.limit(limit))
    if deleted < limit:
        await session.execute(delete(FairRollTaken).where(FairRollTaken.fair_session_id == session_id))
        await session.execute(delete(FairSession).where(FairSession.id == session_id))
        log.info("Pruned fair session %d, revealed before %s, with its rolls", session_id, before.isoformat())
        return deleted + 1
    return deleted


async def _delete_rolls(session: AsyncSession, ids: Any) -> int:
    # Ids first, then delete them: DELETE ... LIMIT is not standard SQL.
    chosen = list(await session.scalars(ids))
    if chosen:
        await session.execute(delete(RollLog).where(RollLog.id.in_(chosen)))
    return len(chosen)


class RollLogPruner:
    """Deletes the rolls older than the retention, in batches, off the path of any command.

    Started by the bot's `setup_hook` (when a retention is set) and stopped by its `close`.
    """

    def __init__(
        self,
        write: Writers,
        *,
        keep_days: int,
        clock: Callable[[], datetime],
        batch: int = PRUNE_BATCH,
        pause: float = PRUNE_PAUSE,
    ) -> None:
        self.write = write
        self.keep = timedelta(days=keep_days)
        self.clock = clock
        self.batch = batch
        self.pause = pause
        self._task: asyncio.Task[None] | None = None

    async def prune(self) -> int:
        """Delete everything the retention lets go now, batch by batch; return how many rows went."""
        before = self.clock() - self.keep
        total = 0
        while True:
            async with self.write.begin() as session:
                deleted = await prune_batch(session, before=before, limit=self.batch)
            total += deleted
            if not deleted:
                break
            await asyncio.sleep(self.pause)
        if total:
            log.info("Pruned %d row(s) of the roll log made before %s", total, before.isoformat())
        return total

    @property
    def running(self) -> bool:
        """Whether the periodic task runs."""
        return self._task is not None and not self._task.done()

    def start(self, *, first: float = PRUNE_FIRST, every: float = PRUNE_EVERY) -> None:
        """Prune `first` seconds from now, then every `every` seconds, until `stop`."""
        if not self.running:
            self._task = asyncio.create_task(self._run(first, every), name="roll log pruner")

    async def stop(self) -> None:
        """Stop the periodic task (a batch in progress is rolled back)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self, first: float, every: float) -> None:
        await asyncio.sleep(first)
        while True:
            try:
                await self.prune()
            except Exception:
                log.exception("Pruning the roll log failed; trying again in %.0f s", every)
            await asyncio.sleep(every)
