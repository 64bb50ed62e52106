"""Provably fair sessions as the store keeps them: one open session per channel, roll numbers in order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Final

from sqlalchemy import ColumnElement, LargeBinary, Select, bindparam, func, select, type_coerce, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.codec import decode
from bot.db.engine import Readers, read_rows
from bot.db.models import FairRollTaken, FairSession, RollLog
from bot.errors import UserError
from bot.rules import signing
from bot.rules.audience import ANYONE, Creature, Viewer, sees_all
from bot.rules.fair import FairDice, seed_from_hex
from bot.rules.fair_log import (
    FORMAT_VERSION,
    LEGACY,
    MAX_DRAWS_PER_ROLL,
    FairLog,
    LogRoll,
    Seal,
    SessionFull,
    Unanswered,
    log_json,
    seal,
    seal_v4,
    session_full,
    signed_digest,
)

# What a taken number's record says until the roll is logged or its command says why it failed: if neither
# happens, the bot stopped (or lost its database) between taking the number and logging the roll.
NEVER_ANSWERED = "no answer was logged: the bot stopped before it answered (its answer was never shown)"
# What the log says of a number taken but neither logged nor given up when the session closed (`close`): the bot
# stopped, or the roll was still under way, and then its answer was refused (`bot.db.rolls`).
STILL_RUNNING = (
    "no answer was logged before the reveal closed the log (the bot stopped, or the roll was still under way and "
    "its answer was refused): it was never shown"
)
LAYOUT: Final = 4  # the layout new sessions get (bot.rules.fair_log); older sessions keep theirs
STARTING_SECONDS: Final = 60  # a session whose commitment is not posted yet is being started for this long


class FairSessionError(UserError):
    """A fair-session command that does not fit the channel's state."""

    title = "Fair dice"


@dataclass(frozen=True, slots=True)
class Session:
    """A fair session; `seed` is only ever shown once `revealed_at` is set."""

    id: int
    channel_id: int
    commitment: str
    seed: str
    next_roll: int
    started_by: int
    started_at: datetime
    revealed_at: datetime | None
    layout: int = 3
    signing_key: str | None = None
    signing_secret: str | None = None  # until the log is signed
    commitment_message: int | None = None
    closed_at: datetime | None = None
    signature: str | None = None

    @property
    def bound(self) -> bool:
        """Whether its rolls' dice follow from their interactions and its log is signed (layout 4)."""
        return self.layout >= LAYOUT


@dataclass(frozen=True, slots=True)
class FairRoll:
    """A logged roll of a fair session: its number and draws."""

    roll_number: int
    command: str
    user_id: int
    draws: list[list[int]]
    interaction_id: int


def _session(row: FairSession) -> Session:
    return Session(
        row.id,
        row.channel_id,
        row.commitment,
        row.seed,
        row.next_roll,
        row.started_by,
        row.started_at,
        row.revealed_at,
        row.layout,
        row.signing_key,
        row.signing_secret,
        row.commitment_message,
        row.closed_at,
        row.signature,
    )


def _open(*, posted: bool = True) -> tuple[ColumnElement[bool], ...]:
    """Where the channel `channel_id`'s running session is; `posted`: only once its commitment's message exists."""
    running = (FairSession.channel_id == bindparam("channel_id"), FairSession.revealed_at.is_(None))
    if not posted:
        return running
    return (*running, (FairSession.layout < LAYOUT) | FairSession.commitment_message.is_not(None))


def _open_row(*, lock: bool, posted: bool) -> Select[FairSession]:
    """The running session of the channel `channel_id`, newest first; `lock` locks it where the database can."""
    query = select(FairSession).where(*_open(posted=posted)).order_by(FairSession.id.desc())
    return query.with_for_update() if lock else query


# The statements are built once: one built for each read, with its values in it, left them in reference cycles
# for the collector (`bot.heap`), 17 objects a fair roll.
# Whether a channel has a running session: nearly every roll asks once its kept answer is older than the bot's TTL.
_RUNS = select(FairSession.id).where(*_open()).limit(1)
# The channel's running session by (lock, posted).
_OPEN_ROW = {(lock, posted): _open_row(lock=lock, posted=posted) for lock in (False, True) for posted in (False, True)}


class FairRepository:
    """Reads and writes fair sessions inside the caller's session (the caller owns the transaction).

    `reads`: where `runs` reads instead (`Readers`), outside the session's transaction: only for a caller that keeps
    the answer for a while anyway, so that a commit it cannot see yet changes nothing (`DiceBot.dice_for`).
    """

    def __init__(self, session: AsyncSession, reads: Readers | None = None) -> None:
        self.session = session
        self.reads = reads

    async def runs(self, channel_id: int) -> bool:
        """Whether a session runs in the channel (its commitment posted)."""
        return bool(await read_rows(self.session, self.reads, _RUNS, {"channel_id": channel_id}))

    async def _open_row(self, channel_id: int, *, lock: bool, posted: bool = True) -> FairSession | None:
        """The channel's running session; with `posted`, only once the message with its commitment exists."""
        return (await self.session.scalars(_OPEN_ROW[lock, posted], {"channel_id": channel_id})).first()

    async def open(self, channel_id: int) -> Session | None:
        """The channel's running session, if any."""
        row = await self._open_row(channel_id, lock=False)
        return _session(row) if row is not None else None

    async def start(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        seed: str,
        signing_secret: str,
        signing_key: str,
        commitment: str,
        user_id: int,
        now: datetime,
    ) -> Session:
        """Begin a session, not yet drawn from until `posted` names the message that shows its commitment.

        Refuses while one runs in the channel, or is being started. A session whose commitment was never posted
        (its start failed, or the bot stopped) rolled nothing: a later start replaces it.
        """
        running = await self._open_row(channel_id, lock=True, posted=False)
        if running is not None and running.layout >= LAYOUT and running.commitment_message is None:
            started = running.started_at if running.started_at.tzinfo else running.started_at.replace(tzinfo=now.tzinfo)
            if (now - started).total_seconds() < STARTING_SECONDS:
                raise FairSessionError("A fair session is being started in this channel right now.")
            await self.session.delete(running)
            running = None
        if running is not None:
            raise FairSessionError("A fair session already runs in this channel: `/fair reveal` ends it first.")
        row = FairSession(
            guild_id=guild_id,
            channel_id=channel_id,
            commitment=commitment,
            seed=seed,
            next_roll=1,
            started_by=user_id,
            started_at=now,
            revealed_at=None,
            layout=LAYOUT,
            signing_key=signing_key,
            signing_secret=signing_secret,
        )
        self.session.add(row)
        await self.session.flush()
        return _session(row)

    async def posted(self, session_id: int, message_id: int) -> None:
        """The message that shows a session's commitment exists: interactions after it draw from the session."""
        row = await self.session.get(FairSession, session_id)
        if row is not None and row.commitment_message is None:
            row.commitment_message = message_id
            await self.session.flush()

    async def discard(self, session_id: int) -> None:
        """Forget a session whose commitment was never posted (nothing drew from it)."""
        row = await self.session.get(FairSession, session_id)
        if row is not None and row.commitment_message is None:
            await self.session.delete(row)
            await self.session.flush()

    async def take_roll(
        self, channel_id: int, *, interaction_id: int, command: str, user_id: int, now: datetime
    ) -> tuple[Session, int] | None:
        """The running session and the next roll number, which is used up (rows locked on PostgreSQL).

        The number is recorded as taken, by whom, for which interaction and command, so that the log accounts
        for it even if no roll is ever logged under it. None when no session runs, and, in a session of layout 4,
        for an interaction made before the message that posted the commitment: the bot knew of it when it drew
        the seed, so its dice must not come from that seed.

        Raises:
            FairSessionError: The interaction already took a number of this session (an interaction rolls once).
        """
        row = await self._open_row(channel_id, lock=True)
        if row is None:
            return None
        if row.layout >= LAYOUT:
            if row.commitment_message is None or interaction_id <= row.commitment_message:
                return None
            query = select(FairRollTaken.roll_number).where(
                FairRollTaken.fair_session_id == row.id, FairRollTaken.interaction_id == interaction_id
            )
            if (taken := await self.session.scalar(query)) is not None:
                raise FairSessionError(f"This command already took fair roll #{taken}; it rolls once.")
        if session_full(row.next_roll - 1, row.draws):
            raise SessionFull(row.next_roll - 1, row.draws)
        number = row.next_roll
        row.next_roll = number + 1
        row.draws += MAX_DRAWS_PER_ROLL  # at its most until the roll is logged (`bot.db.rolls`) or given up
        self.session.add(
            FairRollTaken(
                fair_session_id=row.id,
                roll_number=number,
                command=command[:100],
                user_id=user_id,
                taken_at=now,
                reason=NEVER_ANSWERED,
                interaction_id=interaction_id if row.layout >= LAYOUT else None,
            )
        )
        await self.session.flush()
        return _session(row), number

    async def abandon(self, session_id: int, roll_number: int, reason: str) -> bool:
        """Say why a taken roll number will have no roll: its command failed before the roll was logged.

        Not once the session's log is closed (`close`): what it says of every number is final then. Returns whether
        the number is left without a roll: not when the roll was logged and only its answer failed, for the log
        lists it then, and its command must not tell its user otherwise.
        """
        closed = select(FairSession.closed_at).where(FairSession.id == session_id).with_for_update(read=True)
        is_closed = await self.session.scalar(closed) is not None
        logged = select(RollLog.id).where(RollLog.fair_session_id == session_id, RollLog.fair_roll == roll_number)
        unanswered = await self.session.scalar(logged) is None
        if is_closed:
            return unanswered
        taken = await self.session.get(FairRollTaken, (session_id, roll_number))
        if taken is not None and taken.reason == NEVER_ANSWERED and unanswered:
            # Given up before it was logged: its draws, counted at their most, are not in the log.
            await self.session.execute(
                update(FairSession)
                .where(FairSession.id == session_id)
                .values(draws=FairSession.draws - MAX_DRAWS_PER_ROLL)
            )
        if taken is not None:
            taken.reason = reason[:300]
            await self.session.flush()
        return unanswered

    async def reveal(self, channel_id: int, *, now: datetime) -> Session:
        """End the channel's session and make its seed public."""
        row = await self._open_row(channel_id, lock=True)
        if row is None:
            raise FairSessionError("No fair session runs in this channel: `/fair start` begins one.")
        row.revealed_at = now
        await self.session.flush()
        return _session(row)

    async def unsettled(self, session_id: int) -> int:
        """How many of a session's numbers are taken but neither logged nor given up: rolls still in flight."""
        logged = select(RollLog.fair_roll).where(RollLog.fair_session_id == session_id)
        query = select(func.count()).where(
            FairRollTaken.fair_session_id == session_id,
            FairRollTaken.reason == NEVER_ANSWERED,
            FairRollTaken.roll_number.not_in(logged),
        )
        return await self.session.scalar(query) or 0

    async def close(self, session_id: int, *, now: datetime) -> Session:
        """Make a revealed session's log final; idempotent.

        A roll still in flight will not be logged in it (its answer is refused, `bot.db.rolls`), and its number
        says so.
        """
        row = await self.session.scalar(select(FairSession).where(FairSession.id == session_id).with_for_update())
        if row is None or row.revealed_at is None:
            raise FairSessionError("Only a revealed session's log is closed.")
        if row.closed_at is None:
            row.closed_at = now
            logged = select(RollLog.fair_roll).where(RollLog.fair_session_id == session_id)
            await self.session.execute(
                update(FairRollTaken)
                .where(
                    FairRollTaken.fair_session_id == session_id,
                    FairRollTaken.reason == NEVER_ANSWERED,
                    FairRollTaken.roll_number.not_in(logged),
                )
                .values(reason=STILL_RUNNING)
            )
            await self.session.flush()
        return _session(row)

    async def signed(self, session_id: int, signature: str) -> None:
        """Keep the closed log's signature and forget the key's secret: it never signs again."""
        row = await self.session.scalar(select(FairSession).where(FairSession.id == session_id).with_for_update())
        if row is not None and row.closed_at is not None and row.signature is None:
            row.signature = signature
            row.signing_secret = None
            await self.session.flush()

    async def get(self, session_id: int) -> Session | None:
        """A session by its id."""
        row = await self.session.get(FairSession, session_id)
        return _session(row) if row is not None else None

    async def latest(self, channel_id: int) -> Session | None:
        """The channel's newest session, running or revealed."""
        query = select(FairSession).where(FairSession.channel_id == channel_id).order_by(FairSession.id.desc())
        row = (await self.session.scalars(query)).first()
        return _session(row) if row is not None else None

    async def latest_revealed(self, channel_id: int, *, prefix: str = "") -> Session | None:
        """The channel's newest revealed session, or the one whose commitment starts with `prefix`.

        Only sessions of `channel_id` are looked at: a prefix never reaches another channel's session.

        Raises:
            FairSessionError: Several revealed sessions of the channel start with `prefix`.
        """
        query = select(FairSession).where(FairSession.channel_id == channel_id, FairSession.revealed_at.is_not(None))
        if prefix:
            query = query.where(FairSession.commitment.startswith(prefix.lower(), autoescape=True))
        rows = (await self.session.scalars(query.order_by(FairSession.id.desc()).limit(2))).all()
        if prefix and len(rows) > 1:
            raise FairSessionError(f"Several sessions here have a commitment starting `{prefix}`: give more of it.")
        return _session(rows[0]) if rows else None

    async def raw_log(self, session: Session) -> RawLog:
        """A session's log as the store holds it, JSON still bytes: `decode_log` turns it into the exported log.

        A long session's rows hold megabytes of JSON; decoding them is left to the caller, who can do it off the
        event loop (the rows are plain bytes, cheap to hand to another process).
        """
        # By session alone (its index), not by channel: the GM channel's session holds the hidden rolls made
        # in the play channels, logged where they were made. Only the columns the log shows (`result`, the
        # largest, is not one), as raw bytes: the column type would decode them here, on the loop.
        query = select(
            RollLog.fair_roll,
            RollLog.command,
            RollLog.user_id,
            RollLog.private,
            RollLog.summary,
            type_coerce(RollLog.inputs, LargeBinary),
            type_coerce(RollLog.draws, LargeBinary),
            type_coerce(RollLog.proof, LargeBinary),
            RollLog.interaction_id,
            RollLog.hidden,
        ).where(RollLog.fair_session_id == session.id)
        rows = (await self.session.execute(query.order_by(RollLog.fair_roll))).all()
        taken = select(
            FairRollTaken.roll_number,
            FairRollTaken.command,
            FairRollTaken.user_id,
            FairRollTaken.reason,
            FairRollTaken.interaction_id,
        ).where(FairRollTaken.fair_session_id == session.id)
        numbers = (await self.session.execute(taken)).all()
        return RawLog(session, [tuple(row) for row in rows], [tuple(n) for n in numbers])  # type: ignore[misc]

    async def roll(self, session_id: int, roll_number: int) -> FairRoll | None:
        """A logged roll of a session by its number."""
        query = select(RollLog).where(RollLog.fair_session_id == session_id, RollLog.fair_roll == roll_number)
        row = (await self.session.scalars(query)).first()
        if row is None:
            return None
        return FairRoll(roll_number, row.command, row.user_id, row.draws or [], row.interaction_id)


_LogRow = tuple[int | None, str, int, bool, str | None, bytes | None, bytes | None, bytes | None, int, bool]


def sealing(creatures: Sequence[Creature], salt: str) -> dict[str, Any] | None:
    """What a fair roll's proof keeps to seal it in the log (`decode_log`): its salt and whose numbers it holds.

    None when the creatures its input read are all the channel's to see: nothing to seal.
    """
    if sees_all(ANYONE, creatures):
        return None
    return {"salt": salt, "creatures": [[c.owner_id, c.secret, c.hidden_hp] for c in creatures]}


def _legacy_seal(proof: dict[str, Any], commitment: str, number: int, viewer: Viewer) -> tuple[Seal | None, bool]:
    """A sealed roll's seal as `viewer` gets it, and whether they may see what it seals (the audience policy)."""
    kept = proof.get("seal")
    if kept is None:
        return None, True
    salt = kept["salt"]
    commitment = seal(commitment, number, proof["kind"], proof["input"], proof["outcome"], salt)
    opened = sees_all(viewer, _creatures(kept))
    return Seal(commitment, salt if opened else None), opened


def _creatures(kept: dict[str, Any]) -> list[Creature]:
    return [Creature(owner, secret=secret, hidden_hp=hidden) for owner, secret, hidden in kept["creatures"]]


def _log_rolls(rows: Sequence[_LogRow], session: Session, viewer: Viewer) -> list[LogRoll]:
    """The log's rolls from rows whose JSON columns are still the stored bytes (off the event loop).

    A sealed roll's input and outcome go to a `viewer` who may see the numbers they hold, and to nobody else. In
    a legacy session a private roll keeps only its draws; in a version 4 session it is sealed (its roller and
    the game masters open it), so that it is as provable as a public one.
    """
    rolls = []
    for number, command, user_id, private, summary, inputs, draws, proof_bytes, interaction_id, hidden in rows:
        faces = tuple((a, b, face) for a, b, face in (decode(draws) if draws is not None else None) or [])
        proof = None if proof_bytes is None else decode(proof_bytes)
        if not session.bound:
            proof = None if private else proof
            sealed, opened = _legacy_seal(proof, session.commitment, number or 0, viewer) if proof else (None, True)
            if not opened:
                proof = {**proof, "input": None, "outcome": None} if proof else None
            rolls.append(
                LogRoll(
                    roll=number or 0,
                    command=command,
                    options=None if private or inputs is None else decode(inputs),
                    user_id=user_id,
                    private=private,
                    draws=faces,
                    summary=None if private else summary,
                    kind=proof["kind"] if proof else None,
                    inputs=proof["input"] if proof else None,
                    outcome=proof["outcome"] if proof else None,
                    sealed=sealed,
                )
            )
            continue
        proof = proof or {}
        entry = LogRoll(
            roll=number or 0,
            command=command,
            options=None if inputs is None else decode(inputs),
            user_id=user_id,
            private=private,
            draws=faces,
            summary=summary,
            kind=proof.get("kind"),
            inputs=proof.get("input"),
            outcome=proof.get("outcome"),
            interaction_id=interaction_id,
            hidden=hidden,
        )
        kept = proof.get("seal")
        if kept is not None:
            salt = kept["salt"]
            opened = sees_all(viewer, _creatures(kept))
            entry = replace(entry, sealed=Seal(seal_v4(session.commitment, entry, salt), salt if opened else None))
            if not opened:
                entry = replace(entry, inputs=None, outcome=None)
                if private:
                    entry = replace(entry, options=None, summary=None)
        rolls.append(entry)
    return rolls


@dataclass(frozen=True, slots=True)
class RawLog:
    """A session, its logged rolls as read (JSON columns still bytes) and its taken numbers: cheap to pickle."""

    session: Session
    rows: list[_LogRow]
    taken: list[tuple[int, str, int, str, int | None]]  # number, command, user, why it has no roll, interaction

    def size(self) -> int:
        """Bytes of the logged rolls' JSON as read: about what the exported log will weigh."""
        return sum(len(value) for row in self.rows for value in row if isinstance(value, bytes | str))


def decode_log(raw: RawLog, viewer: Viewer = ANYONE) -> FairLog:
    """The exported log as `viewer` may have it, every roll number accounted for: its roll, or why it went unanswered.

    The seed only once it is revealed; a private roll without its options, inputs, outcome or summary; a sealed
    roll opened only for a viewer who may see the numbers it holds (its owner, a game master). Seconds of work for
    a long session: run it off the event loop.
    """
    session = raw.session
    entries: dict[int, LogRoll | Unanswered] = {r.roll: r for r in _log_rolls(raw.rows, session, viewer)}
    for number, command, user_id, reason, interaction_id in raw.taken:
        if number not in entries:
            entries[number] = Unanswered(number, command, user_id, reason, interaction_id)
    log = FairLog(
        commitment=session.commitment,
        seed=session.seed if session.revealed_at is not None else None,
        channel_id=session.channel_id,
        started_at=session.started_at,
        revealed_at=session.revealed_at,
        last_roll=session.next_roll - 1,
        rolls=tuple(entries[n] for n in sorted(entries)),
        version=FORMAT_VERSION if session.bound else LEGACY,
        signing_key=session.signing_key,
        commitment_message=session.commitment_message,
        signature=session.signature,
    )
    return log


def signature_of(raw: RawLog) -> str:
    """The signature of a closed version 4 session's log, by the key its commitment covers; off the loop.

    It signs the session and each entry's digest (`bot.rules.fair_log.signed_digest`), the same for every copy
    of the log, public or opened. Keep it with `FairRepository.signed`, which then forgets the key's secret:
    signing the same log again gives the same signature, and no other log is ever signed with that key.
    """
    session = raw.session
    if not session.bound or session.closed_at is None or session.signing_secret is None:
        raise ValueError("only a closed version 4 session whose key has not signed yet is signed")
    digest = signed_digest(log_json(decode_log(raw)))
    return signing.sign(bytes.fromhex(session.signing_secret), digest)


class SessionDice(FairDice):
    """The dice of one roll of a fair session: the session's generator, and which session and roll it is."""

    __slots__ = ("session",)

    def __init__(self, session: Session, roll_number: int, interaction_id: int | None = None) -> None:
        bound = interaction_id if session.bound else None
        super().__init__(seed_from_hex(session.seed), roll_number, interaction_id=bound)
        self.session = session
