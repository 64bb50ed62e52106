"""Provably fair sessions as the store keeps them: one open session per channel, roll numbers in order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import LargeBinary, select, type_coerce
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.codec import decode
from bot.db.models import FairRollTaken, FairSession, RollLog
from bot.errors import UserError
from bot.rules.audience import ANYONE, Creature, Viewer, sees_all
from bot.rules.fair import FairDice, seed_from_hex
from bot.rules.fair_log import FairLog, LogRoll, Seal, Unanswered, seal

# What a taken number's record says until the roll is logged or its command says why it failed: if neither
# happens, the bot stopped (or lost its database) between taking the number and logging the roll.
NEVER_ANSWERED = "no answer was logged: the bot stopped before it answered (its answer was never shown)"


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


@dataclass(frozen=True, slots=True)
class FairRoll:
    """A logged roll of a fair session: its number and draws."""

    roll_number: int
    command: str
    user_id: int
    draws: list[list[int]]


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
    )


class FairRepository:
    """Reads and writes fair sessions inside the caller's session (the caller owns the transaction)."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def _open_row(self, channel_id: int, *, lock: bool) -> FairSession | None:
        query = select(FairSession).where(FairSession.channel_id == channel_id, FairSession.revealed_at.is_(None))
        if lock:
            query = query.with_for_update()
        return (await self.session.scalars(query.order_by(FairSession.id.desc()))).first()

    async def open(self, channel_id: int) -> Session | None:
        """The channel's running session, if any."""
        row = await self._open_row(channel_id, lock=False)
        return _session(row) if row is not None else None

    async def start(
        self, *, guild_id: int | None, channel_id: int, seed: str, commitment: str, user_id: int, now: datetime
    ) -> Session:
        """Begin a session; refuses while one runs in the channel."""
        if await self._open_row(channel_id, lock=True) is not None:
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
        )
        self.session.add(row)
        await self.session.flush()
        return _session(row)

    async def take_roll(
        self, channel_id: int, *, command: str, user_id: int, now: datetime
    ) -> tuple[Session, int] | None:
        """The running session and the next roll number, which is used up (rows locked on PostgreSQL).

        The number is recorded as taken, by whom and for what, so that the log accounts for it even if no roll
        is ever logged under it.
        """
        row = await self._open_row(channel_id, lock=True)
        if row is None:
            return None
        number = row.next_roll
        row.next_roll = number + 1
        self.session.add(
            FairRollTaken(
                fair_session_id=row.id,
                roll_number=number,
                command=command[:100],
                user_id=user_id,
                taken_at=now,
                reason=NEVER_ANSWERED,
            )
        )
        await self.session.flush()
        return _session(row), number

    async def abandon(self, session_id: int, roll_number: int, reason: str) -> None:
        """Say why a taken roll number will have no roll: its command failed before the roll was logged."""
        taken = await self.session.get(FairRollTaken, (session_id, roll_number))
        if taken is not None:
            taken.reason = reason[:300]
            await self.session.flush()

    async def reveal(self, channel_id: int, *, now: datetime) -> Session:
        """End the channel's session and make its seed public."""
        row = await self._open_row(channel_id, lock=True)
        if row is None:
            raise FairSessionError("No fair session runs in this channel: `/fair start` begins one.")
        row.revealed_at = now
        await self.session.flush()
        return _session(row)

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
        ).where(RollLog.fair_session_id == session.id)
        rows = (await self.session.execute(query.order_by(RollLog.fair_roll))).all()
        taken = select(
            FairRollTaken.roll_number, FairRollTaken.command, FairRollTaken.user_id, FairRollTaken.reason
        ).where(FairRollTaken.fair_session_id == session.id)
        numbers = (await self.session.execute(taken)).all()
        return RawLog(session, [tuple(row) for row in rows], [tuple(n) for n in numbers])  # type: ignore[misc]

    async def roll(self, session_id: int, roll_number: int) -> FairRoll | None:
        """A logged roll of a session by its number."""
        query = select(RollLog).where(RollLog.fair_session_id == session_id, RollLog.fair_roll == roll_number)
        row = (await self.session.scalars(query)).first()
        if row is None:
            return None
        return FairRoll(roll_number, row.command, row.user_id, row.draws or [])


_LogRow = tuple[int | None, str, int, bool, str | None, bytes | None, bytes | None, bytes | None]


def sealing(creatures: Sequence[Creature], salt: str) -> dict[str, Any] | None:
    """What a fair roll's proof keeps to seal it in the log (`decode_log`): its salt and whose numbers it holds.

    None when the creatures its input read are all the channel's to see: nothing to seal.
    """
    if sees_all(ANYONE, creatures):
        return None
    return {"salt": salt, "creatures": [[c.owner_id, c.secret, c.hidden_hp] for c in creatures]}


def _sealed(proof: dict[str, Any], commitment: str, number: int, viewer: Viewer) -> tuple[Seal | None, bool]:
    """A sealed roll's seal as `viewer` gets it, and whether they may see what it seals (the audience policy)."""
    kept = proof.get("seal")
    if kept is None:
        return None, True
    creatures = [Creature(owner, secret=secret, hidden_hp=hidden) for owner, secret, hidden in kept["creatures"]]
    salt = kept["salt"]
    commitment = seal(commitment, number, proof["kind"], proof["input"], proof["outcome"], salt)
    opened = sees_all(viewer, creatures)
    return Seal(commitment, salt if opened else None), opened


def _log_rolls(rows: Sequence[_LogRow], commitment: str, viewer: Viewer) -> list[LogRoll]:
    """The log's rolls from rows whose JSON columns are still the stored bytes (off the event loop).

    A sealed roll's input and outcome go to a `viewer` who may see the numbers they hold, and to nobody else.
    """
    rolls = []
    for number, command, user_id, private, summary, inputs, draws, proof_bytes in rows:
        proof = None if private or proof_bytes is None else decode(proof_bytes)
        sealed, opened = _sealed(proof, commitment, number or 0, viewer) if proof else (None, True)
        if not opened:
            proof = {**proof, "input": None, "outcome": None} if proof else None
        rolls.append(
            LogRoll(
                roll=number or 0,
                command=command,
                options=None if private or inputs is None else decode(inputs),
                user_id=user_id,
                private=private,
                draws=tuple((a, b, face) for a, b, face in (decode(draws) if draws is not None else None) or []),
                summary=None if private else summary,
                kind=proof["kind"] if proof else None,
                inputs=proof["input"] if proof else None,
                outcome=proof["outcome"] if proof else None,
                sealed=sealed,
            )
        )
    return rolls


@dataclass(frozen=True, slots=True)
class RawLog:
    """A session, its logged rolls as read (JSON columns still bytes) and its taken numbers: cheap to pickle."""

    session: Session
    rows: list[_LogRow]
    taken: list[tuple[int, str, int, str]]  # roll number, command, user, why it has no roll (if it has none)


def decode_log(raw: RawLog, viewer: Viewer = ANYONE) -> FairLog:
    """The exported log as `viewer` may have it, every roll number accounted for: its roll, or why it went unanswered.

    The seed only once it is revealed; a private roll without its options, inputs, outcome or summary; a sealed
    roll opened only for a viewer who may see the numbers it holds (its owner, a game master). Seconds of work for
    a long session: run it off the event loop.
    """
    session = raw.session
    entries: dict[int, LogRoll | Unanswered] = {r.roll: r for r in _log_rolls(raw.rows, session.commitment, viewer)}
    for number, command, user_id, reason in raw.taken:
        if number not in entries:
            entries[number] = Unanswered(number, command, user_id, reason)
    return FairLog(
        commitment=session.commitment,
        seed=session.seed if session.revealed_at is not None else None,
        channel_id=session.channel_id,
        started_at=session.started_at,
        revealed_at=session.revealed_at,
        last_roll=session.next_roll - 1,
        rolls=tuple(entries[n] for n in sorted(entries)),
    )


class SessionDice(FairDice):
    """The dice of one roll of a fair session: the session's generator, and which session and roll it is."""

    __slots__ = ("session",)

    def __init__(self, session: Session, roll_number: int) -> None:
        super().__init__(seed_from_hex(session.seed), roll_number)
        self.session = session
