"""Tables, as typed SQLAlchemy 2 models. No row object leaves `bot.db`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from bot.db.codec import CompactJSON

# Named constraints keep Alembic's batch migrations on SQLite and PostgreSQL in step.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


# SQLite's AUTOINCREMENT: without it, the id of the newest row comes back after that row is deleted, and a button,
# a form or a logged roll that kept it then names a stranger (migration 0020). PostgreSQL's sequences never go back.
# The table argument of every table whose ids something else keeps; the roll log's (nobody keeps them) goes without.
NEVER_REUSED: dict[str, Any] = {"sqlite_autoincrement": True}


class Base(DeclarativeBase):
    """The declarative base of every table."""

    metadata = MetaData(naming_convention=NAMING)


class RollLog(Base):
    """One roll: who made it, where, with which command and inputs, and everything it produced.

    The JSON columns are `CompactJSON` (bot/db/codec.py): compact bytes, read back as the same values. A row
    stays under `bot.db.rolls.ROW_BYTES_MAX` for any roll the input caps allow (tests/db/test_rolls.py).
    """

    __tablename__ = "roll_log"
    __table_args__ = (
        Index("ix_roll_log_channel", "channel_id", "id"),
        # /history user: (a user's rolls in a channel, newest first).
        Index("ix_roll_log_channel_user", "channel_id", "user_id", "id"),
        Index("ix_roll_log_user", "guild_id", "user_id", "id"),
        Index("ix_roll_log_interaction", "interaction_id"),
        Index("ix_roll_log_character", "character_id", "id"),
        # Pruning finds the rolls older than the retention through it (bot.db.rolls.prune).
        Index("ix_roll_log_created_at", "created_at"),
        # A fair session's rolls: a hidden roll is logged where it was made, its session is the GM channel's.
        Index("ix_roll_log_fair", "fair_session_id", "fair_roll"),
    )

    # A plain INTEGER primary key: SQLite only autoincrements that, and it orders the log.
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    interaction_id: Mapped[int] = mapped_column(BigInteger)
    guild_id: Mapped[int | None] = mapped_column(BigInteger)
    channel_id: Mapped[int | None] = mapped_column(BigInteger)
    user_id: Mapped[int] = mapped_column(BigInteger)
    command: Mapped[str] = mapped_column(String(100))
    inputs: Mapped[dict[str, Any]] = mapped_column(CompactJSON)
    result: Mapped[dict[str, Any]] = mapped_column(CompactJSON)
    private: Mapped[bool]
    # A hidden roll (also private): only the GM channel saw it, so nothing a player can see may count it.
    hidden: Mapped[bool] = mapped_column(default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # Set when the roll came from a fair session: which one, its roll number, and every draw (a, b, face).
    fair_session_id: Mapped[int | None] = mapped_column(ForeignKey("fair_sessions.id"))
    fair_roll: Mapped[int | None]
    draws: Mapped[list[list[int]] | None] = mapped_column(CompactJSON)
    # The answer's message (for a link back to it) and its first line, for /history.
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    summary: Mapped[str | None] = mapped_column(String(200))
    # The character rolled with (not a foreign key: the log outlives a deleted character) and its ruleset.
    character_id: Mapped[int | None]
    ruleset: Mapped[str | None] = mapped_column(String(20))
    # Observed against expected for /stats: {"hits": [observed, expected, variance], ...}.
    luck: Mapped[dict[str, list[float]] | None] = mapped_column(CompactJSON)
    # The full answer (an embed as Discord takes it) when the channel was shown the compact one.
    details: Mapped[dict[str, Any] | None] = mapped_column(CompactJSON)
    # A fair roll's replayable record (bot.rules.replay): {"kind", "input", "outcome"}.
    proof: Mapped[dict[str, Any] | None] = mapped_column(CompactJSON)


class Character(Base):
    """A stat block, owned by one user in one server, for one ruleset."""

    __tablename__ = "characters"
    __table_args__ = (
        UniqueConstraint("guild_id", "owner_id", "ruleset", "name_key"),
        Index("ix_characters_owner", "guild_id", "owner_id"),
        Index("ix_characters_name", "guild_id", "name_key"),  # anyone's character by name (`find`)
        NEVER_REUSED,
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    owner_id: Mapped[int] = mapped_column(BigInteger)
    ruleset: Mapped[str] = mapped_column(String(20))
    name: Mapped[str] = mapped_column(String(64))
    # The name case-folded: names are unique per owner, server and ruleset regardless of case.
    name_key: Mapped[str] = mapped_column(String(64))
    sheet: Mapped[dict[str, Any]] = mapped_column(JSON)
    # Bumped by every write; a write that expected another version is refused instead of undoing it.
    version: Mapped[int]
    # The game master's: its numbers are shown to its owner (and Manage Server, and the GM channel) only.
    secret: Mapped[bool] = mapped_column(default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ActiveCharacter(Base):
    """The character a user rolls with in a server for a ruleset when a roll names none."""

    __tablename__ = "active_characters"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(20), primary_key=True)
    character_id: Mapped[int] = mapped_column(ForeignKey("characters.id", ondelete="CASCADE"))


class GuildSetting(Base):
    """One rules setting of a server (a variant reading), as chosen by someone with Manage Server."""

    __tablename__ = "guild_settings"

    guild_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(64))
    updated_by: Mapped[int] = mapped_column(BigInteger)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class UserPreference(Base):
    """What one user chose for themselves, in every server (`/answers`); no row: the server's choices."""

    __tablename__ = "user_preferences"

    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    answers: Mapped[str] = mapped_column(String(16))  # "short" or "full": how this user's roll answers start
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class FairSession(Base):
    """A provably fair session of a channel: the seed stays secret until it is revealed."""

    __tablename__ = "fair_sessions"
    __table_args__ = (Index("ix_fair_sessions_channel", "channel_id", "id"), NEVER_REUSED)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int | None] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger)
    # Unique: a seed, once drawn (and above all once revealed), never keys another session.
    commitment: Mapped[str] = mapped_column(String(64), unique=True)
    seed: Mapped[str] = mapped_column(String(64))
    next_roll: Mapped[int]
    started_by: Mapped[int] = mapped_column(BigInteger)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    revealed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # Layout 4 (bot.rules.fair_log): the commitment also covers `signing_key`, the key that signs the log once at
    # the reveal; its secret is forgotten once it has signed. Rolls draw from the session only once the message
    # that posted the commitment exists (`commitment_message`, its Discord id), and only for later interactions.
    # `closed_at`: the log is final (rolls in flight settled): nothing more is logged in it, and it is signed.
    layout: Mapped[int] = mapped_column(Integer, server_default="3")
    signing_key: Mapped[str | None] = mapped_column(String(64))
    signing_secret: Mapped[str | None] = mapped_column(String(64))
    commitment_message: Mapped[int | None] = mapped_column(BigInteger)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    signature: Mapped[str | None] = mapped_column(Text)
    # The draws its log holds, a roll in flight counted at its most (bot.rules.fair_log.session_full caps it).
    draws: Mapped[int] = mapped_column(BigInteger, server_default="0")


class FairRollTaken(Base):
    """A fair roll number given out, and why it went unanswered if it did (its roll is then not in the log).

    Written when the number is taken, with a reason for the case where nothing else is ever written (the bot
    stopped before it answered); a command that fails after taking its number replaces the reason.
    """

    __tablename__ = "fair_rolls_taken"
    __table_args__ = (UniqueConstraint("fair_session_id", "interaction_id"),)

    fair_session_id: Mapped[int] = mapped_column(ForeignKey("fair_sessions.id"), primary_key=True)
    roll_number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    command: Mapped[str] = mapped_column(String(100))
    user_id: Mapped[int] = mapped_column(BigInteger)
    taken_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    reason: Mapped[str] = mapped_column(String(300))
    # The interaction that took the number (layout 4; null in older sessions): one number per interaction.
    interaction_id: Mapped[int | None] = mapped_column(BigInteger)


class Macro(Base):
    """A roll command line a user saved in a server under a name of their own."""

    __tablename__ = "macros"
    __table_args__ = (UniqueConstraint("guild_id", "user_id", "name_key"), NEVER_REUSED)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    user_id: Mapped[int] = mapped_column(BigInteger)
    name: Mapped[str] = mapped_column(String(32))
    # The name case-folded: one user's names are unique in a server regardless of case.
    name_key: Mapped[str] = mapped_column(String(32))
    command: Mapped[str] = mapped_column(String(100))
    line: Mapped[str] = mapped_column(String(1000))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class IdentifyBucket(Base):
    """When a shard of any process last sent IDENTIFY in one of Discord's buckets (shard id % max_concurrency).

    Its row lock is what spaces IDENTIFYs across processes: Discord allows one per bucket every 5 seconds.
    """

    __tablename__ = "identify_buckets"

    bucket: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    identified_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class AppliedDamage(Base):
    """A roll's damage applied to the character it hit, once: the interaction id is the roll's own."""

    __tablename__ = "applied_damage"

    interaction_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    character_id: Mapped[int] = mapped_column(ForeignKey("characters.id", ondelete="CASCADE"))
    amount: Mapped[int] = mapped_column(Integer)
    applied_by: Mapped[int] = mapped_column(BigInteger)
    applied_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class EncounterRow(Base):
    """A channel's fight (bot.rules.encounter), kept as JSON; one per channel.

    `version` is bumped by every change: a change prepared against another version is refused, so two presses
    of Next at once advance once. `undo` holds the states before the last changes, newest last.
    """

    __tablename__ = "encounters"
    __table_args__ = (NEVER_REUSED,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    guild_id: Mapped[int] = mapped_column(BigInteger)
    channel_id: Mapped[int] = mapped_column(BigInteger, unique=True)
    gm_id: Mapped[int] = mapped_column(BigInteger)
    ruleset: Mapped[str] = mapped_column(String(20))
    # CompactJSON (bot/db/codec.py): a state of 25 combatants is about 16 KB of JSON, and `undo` holds five.
    state: Mapped[dict[str, Any]] = mapped_column(CompactJSON)
    undo: Mapped[list[dict[str, Any]]] = mapped_column(CompactJSON)
    version: Mapped[int]
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # The message that shows the fight (the last tracker posted or pressed), edited after a change by hand.
    tracker_message_id: Mapped[int | None] = mapped_column(BigInteger, default=None)


class CharacterMemory(Base):
    """What a character used last (`bot.db.memory`): its weapon per kind of roll and each laser's dial."""

    __tablename__ = "character_memory"

    character_id: Mapped[int] = mapped_column(ForeignKey("characters.id", ondelete="CASCADE"), primary_key=True)
    # {"weapons": {"sf shoot": "Laser pistol"}, "dials": {"laser pistol": 2}}: small, read with the character.
    memory: Mapped[dict[str, Any]] = mapped_column(JSON)
