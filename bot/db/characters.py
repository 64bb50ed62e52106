"""Characters as the store keeps them: loaded and validated on the way out, one transaction per change."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from sqlalchemy import Row, Table, bindparam, delete, func, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Readers, changed_rows, read_rows
from bot.db.models import ActiveCharacter, AppliedDamage, Character, Macro, RollLog
from bot.errors import UserError
from bot.rules import rulesets
from bot.rules.audience import Creature, Viewer, sees_numbers
from bot.rules.names import name_key
from bot.rules.sheets.base import Ruleset, Sheet

MAX_CHARACTERS_PER_USER = 50
# Character numbers live in a 32-bit column on PostgreSQL: a larger `#N` names nothing, and must not reach a query.
MAX_CHARACTER_ID = 2**31 - 1


class CharacterError(UserError):
    """Something about a character the user asked for."""

    title = "Character"


class ChangedMeanwhile(CharacterError):
    """Someone saved the character after this change was prepared; applying it would undo theirs."""

    title = "Changed meanwhile"

    def __init__(self, name: str) -> None:
        super().__init__(f"**{name}** was changed by another command meanwhile. Nothing was saved: try again.")


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def stamp(moment: datetime) -> int:
    """A stored time in whole microseconds since 1970, UTC: SQLite gives it back without its zone (written in UTC).

    A character's creation time so stamped is, with its id, what tells it from a character that had its id before:
    ids are never reused (migration 0020), but a database from before that may have given a deleted one's id
    to a newer one.
    """
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return (aware - EPOCH) // timedelta(microseconds=1)


class CharacterDeleted(CharacterError):
    """A button, form or question names a character that was deleted since it was shown."""

    title = "Character deleted"

    def __init__(self, name: str, outcome: str = "Nothing was changed.") -> None:
        super().__init__(f"**{name}** was deleted. {outcome}")


@dataclass(frozen=True, slots=True)
class CharacterRecord:
    """A stored character, its stat block validated (and upgraded, if it was written by an older schema)."""

    id: int
    guild_id: int
    owner_id: int
    ruleset: Ruleset
    name: str
    sheet: Sheet
    version: int
    created_at: datetime
    updated_at: datetime
    secret: bool = False  # the game master's: its numbers are for its owner and the game masters (`may_see`)

    @property
    def creature(self) -> Creature:
        """What the audience policy needs to know of it: whose it is and whether its numbers are secret."""
        return Creature(self.owner_id, secret=self.secret)

    def may_see(self, viewer: Viewer) -> bool:
        """Whether `viewer` may see this character's numbers (the audience policy: anyone's, unless secret)."""
        return sees_numbers(viewer, self.creature)


@dataclass(frozen=True, slots=True)
class CharacterSummary:
    """Enough of a character to list or suggest it, without reading its stat block."""

    id: int
    owner_id: int
    ruleset: str
    name: str
    secret: bool = False

    @property
    def creature(self) -> Creature:
        """What the audience policy needs to know of it, as `CharacterRecord.creature`."""
        return Creature(self.owner_id, secret=self.secret)

    def may_see(self, viewer: Viewer) -> bool:
        """Whether `viewer` may see it, its name included (a secret is named only to who may see its numbers)."""
        return sees_numbers(viewer, self.creature)


async def lock_user(session: AsyncSession, purpose: str, *, guild_id: int, user_id: int) -> None:
    """Hold a per-(purpose, server, user) lock until the transaction ends: count-then-insert is then atomic.

    Without it two concurrent creates can both count 49 and both insert. PostgreSQL runs writers
    concurrently, so this takes a transaction-level advisory lock on a 64-bit hash of the three; a hash
    collision only makes two users wait for each other. SQLite needs nothing: writers begin with BEGIN
    IMMEDIATE and run one at a time.
    """
    if session.get_bind().dialect.name != "postgresql":
        return
    digest = hashlib.blake2b(f"{purpose}:{guild_id}:{user_id}".encode(), digest_size=8).digest()
    key = int.from_bytes(digest, "big", signed=True)
    await session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})


def upsert(session: AsyncSession, table: type[object]) -> postgresql.Insert | sqlite.Insert:
    """An INSERT of this dialect, which has ON CONFLICT clauses (PostgreSQL and SQLite both do)."""
    if session.get_bind().dialect.name == "postgresql":
        return postgresql.insert(table)
    return sqlite.insert(table)


# Reads that return records select from the tables (SQLAlchemy Core), not the mapped classes: the ORM's
# entity loading, identity map and attribute events took about a third of the CPU of a roll's character read,
# and no mapped object leaves this module anyway.
CHARACTERS = cast(Table, Character.__table__)
ACTIVE = cast(Table, ActiveCharacter.__table__)

# The reads a roll makes, built once with their values as parameters: SQLAlchemy keys its cache of compiled
# statements by walking the statement, and a statement built per call was built and walked again each time. With
# the encounter's, this took a character roll's two reads from 1.26-1.33 ms of the loop's CPU to 0.86 ms.
_BY_ID = select(CHARACTERS).where(CHARACTERS.c.id == bindparam("id"), CHARACTERS.c.guild_id == bindparam("guild_id"))
_BY_ID_LOCKED = _BY_ID.with_for_update()
# The characters of a fight by their numbers, built once: a statement built for each read, with the numbers in it,
# left its bound values in reference cycles for the collector (`bot.heap`), twenty objects an attack in a fight.
_SEVERAL = (
    select(CHARACTERS)
    .where(CHARACTERS.c.id.in_(bindparam("ids", expanding=True)), CHARACTERS.c.guild_id == bindparam("guild_id"))
    .order_by(CHARACTERS.c.id)
)
_SEVERAL_LOCKED = _SEVERAL.with_for_update()
# A character by name (any case) in a server, as `character:` and `target:` name it: anyone's, or one user's.
_NAMED = (
    select(CHARACTERS)
    .where(CHARACTERS.c.guild_id == bindparam("guild_id"), CHARACTERS.c.name_key == bindparam("name_key"))
    .order_by(CHARACTERS.c.ruleset, CHARACTERS.c.id)
    .limit(bindparam("limit"))
)
_NAMED_OWNED = _NAMED.where(CHARACTERS.c.owner_id == bindparam("owner_id"))
_ACTIVE = (
    select(CHARACTERS)
    .join(ACTIVE, ACTIVE.c.character_id == CHARACTERS.c.id)
    .where(
        ACTIVE.c.guild_id == bindparam("guild_id"),
        ACTIVE.c.user_id == bindparam("user_id"),
        ACTIVE.c.ruleset == bindparam("rules"),
    )
)


def _record(row: Character | Row[Any]) -> CharacterRecord:
    rules = rulesets.get(row.ruleset)
    return CharacterRecord(
        id=row.id,
        guild_id=row.guild_id,
        owner_id=row.owner_id,
        ruleset=rules,
        name=row.name,
        sheet=rules.load(row.sheet, stored=True),
        version=row.version,
        created_at=row.created_at,
        updated_at=row.updated_at,
        secret=bool(row.secret),
    )


class CharacterRepository:
    """Reads and writes characters inside the caller's session; the caller owns the transaction."""

    def __init__(self, session: AsyncSession, reads: Readers | None = None) -> None:
        self.session = session
        # Where the reads that do not lock go, if not `session` (`Readers`): outside its transaction, so only for a
        # session that writes nothing (a roll's reads, autocomplete).
        self.reads = reads

    async def count(self, *, guild_id: int, owner_id: int) -> int:
        """How many characters a user has in a server."""
        query = select(func.count()).where(Character.guild_id == guild_id, Character.owner_id == owner_id)
        return (await self.session.execute(query)).scalar_one()

    async def create(
        self, *, guild_id: int, owner_id: int, rules: Ruleset, name: str, sheet: Sheet, now: datetime
    ) -> CharacterRecord:
        """Store a new character; refuses a taken name and the 51st character of a user in a server."""
        return _record(
            await self._insert(guild_id=guild_id, owner_id=owner_id, rules=rules, name=name, sheet=sheet, now=now)
        )

    async def put(
        self, *, guild_id: int, owner_id: int, rules: Ruleset, name: str, sheet: Sheet, now: datetime
    ) -> bool:
        """Write a checked block over the owner's character of that ruleset and name (any case), else as a new one.

        For an import, whose blocks were validated in the worker process: nothing is read back or validated again
        (50 blocks of 16 KB held the loop for 127-150 ms). Returns whether it replaced a character.
        """
        result = await self.session.execute(
            update(Character)
            .where(
                Character.guild_id == guild_id,
                Character.owner_id == owner_id,
                Character.ruleset == rules.key,
                Character.name_key == name_key(name),
            )
            .values(sheet=rules.dump(sheet), version=Character.version + 1, updated_at=now)
        )
        if changed_rows(result):
            return True
        await self._insert(guild_id=guild_id, owner_id=owner_id, rules=rules, name=name, sheet=sheet, now=now)
        return False

    async def _insert(
        self, *, guild_id: int, owner_id: int, rules: Ruleset, name: str, sheet: Sheet, now: datetime
    ) -> Character:
        await lock_user(self.session, "characters", guild_id=guild_id, user_id=owner_id)
        if await self.count(guild_id=guild_id, owner_id=owner_id) >= MAX_CHARACTERS_PER_USER:
            raise CharacterError(
                f"You already have {MAX_CHARACTERS_PER_USER} characters in this server, the most there can be. "
                "Delete one first.",
                title="Too many characters",
            )
        row = Character(
            guild_id=guild_id,
            owner_id=owner_id,
            ruleset=rules.key,
            name=name,
            name_key=name_key(name),
            sheet=rules.dump(sheet),
            version=1,
            created_at=now,
            updated_at=now,
        )
        self.session.add(row)
        try:
            async with self.session.begin_nested():
                await self.session.flush()
        except IntegrityError:
            raise CharacterError(
                f"You already have a {rules.title} character called **{name}**.", title="Name taken"
            ) from None
        return row

    async def apply_damage(
        self, record: CharacterRecord, amount: int, *, interaction_id: int, by: int, now: datetime
    ) -> CharacterRecord | None:
        """A roll's damage off `record`'s hit points (stamina), once per roll: None when it was applied already.

        The caller holds `record` locked (`get(..., for_update=True)`), so two presses take turns; the roll's
        interaction id is the key that makes the second one find the first.
        """
        if await self.session.get(AppliedDamage, interaction_id) is not None:
            return None
        self.session.add(
            AppliedDamage(
                interaction_id=interaction_id,
                guild_id=record.guild_id,
                character_id=record.id,
                amount=amount,
                applied_by=by,
                applied_at=now,
            )
        )
        try:
            async with self.session.begin_nested():
                await self.session.flush()
        except IntegrityError:
            return None
        return await self.save(record, record.ruleset.lose_health(record.sheet, amount), now=now)

    async def get(self, character_id: int, *, guild_id: int, for_update: bool = False) -> CharacterRecord | None:
        """A character of this server by its number; `for_update` locks the row where the database can."""
        if not 1 <= character_id <= MAX_CHARACTER_ID:
            return None
        values = {"id": character_id, "guild_id": guild_id}
        if for_update:
            row = (await self.session.execute(_BY_ID_LOCKED, values)).first()
            return _record(row) if row is not None else None
        return next((_record(row) for row in await read_rows(self.session, self.reads, _BY_ID, values)), None)

    async def several(self, ids: Sequence[int], *, guild_id: int, for_update: bool = False) -> list[CharacterRecord]:
        """The characters of this server with these numbers (the ones that still exist), in one query."""
        wanted = sorted({i for i in ids if 1 <= i <= MAX_CHARACTER_ID})
        if not wanted:
            return []
        values = {"ids": wanted, "guild_id": guild_id}
        if for_update:
            return [_record(row) for row in await self.session.execute(_SEVERAL_LOCKED, values)]
        return [_record(row) for row in await read_rows(self.session, self.reads, _SEVERAL, values)]

    async def again(self, record: CharacterRecord, *, for_update: bool = False) -> CharacterRecord | None:
        """`record`'s character as stored now; None when it was deleted since `record` was read (`stamp`)."""
        current = await self.get(record.id, guild_id=record.guild_id, for_update=for_update)
        if current is None or stamp(current.created_at) != stamp(record.created_at):
            return None
        return current

    async def named(self, *, guild_id: int, owner_id: int | None, name: str, limit: int = 25) -> list[CharacterRecord]:
        """A user's characters in a server with this name (any case), or anyone's (`owner_id` None)."""
        values = {"guild_id": guild_id, "name_key": name_key(name), "limit": limit}
        if owner_id is None:
            rows = await read_rows(self.session, self.reads, _NAMED, values)
        else:
            rows = await read_rows(self.session, self.reads, _NAMED_OWNED, {**values, "owner_id": owner_id})
        return [_record(row) for row in rows]

    async def owned(self, *, guild_id: int, owner_id: int) -> list[CharacterRecord]:
        """Every character of a user in a server, by ruleset and name."""
        query = (
            select(Character)
            .where(Character.guild_id == guild_id, Character.owner_id == owner_id)
            .order_by(Character.ruleset, Character.name_key)
        )
        return [_record(row) for row in await self.session.scalars(query)]

    async def summaries(
        self,
        *,
        guild_id: int,
        owner_id: int | None,
        text: str = "",
        rules: str | None = None,
        limit: int = 25,
        shown_to: Viewer | None = None,
    ) -> list[CharacterSummary]:
        """Characters whose name contains `text`, a user's or the whole server's, for lists and autocomplete.

        `shown_to`: only those it may see (`CharacterSummary.may_see`), a secret one not even by name.
        """
        query = select(Character.id, Character.owner_id, Character.ruleset, Character.name, Character.secret).where(
            Character.guild_id == guild_id
        )
        if shown_to is not None and not sees_numbers(shown_to, Creature(None, secret=True)):
            # The audience policy in SQL, for a viewer who sees nobody's secret but their own (not a game master),
            # so that the limit counts only what they may see: tests/crossings/test_leaks.py checks it agrees
            # with `may_see`.
            query = query.where((Character.secret.is_(False)) | (Character.owner_id == shown_to.user_id))
        if owner_id is not None:
            query = query.where(Character.owner_id == owner_id)
        if rules is not None:
            query = query.where(Character.ruleset == rules)
        if text:
            query = query.where(Character.name_key.contains(name_key(text), autoescape=True))
        rows = await self.session.execute(query.order_by(Character.name_key, Character.ruleset).limit(limit))
        return [CharacterSummary(*row) for row in rows]

    async def save(self, record: CharacterRecord, sheet: Sheet, *, now: datetime) -> CharacterRecord:
        """Write a new stat block if the character is still at the version it was read at."""
        await self._update(record, now, sheet=record.ruleset.dump(sheet))
        return _replace(record, sheet=sheet, version=record.version + 1, updated_at=now)

    async def set_secret(self, record: CharacterRecord, secret: bool, *, now: datetime) -> CharacterRecord:
        """Mark a character as the game master's secret, or show its numbers to everyone again."""
        await self._update(record, now, secret=secret)
        return _replace(record, secret=secret, version=record.version + 1, updated_at=now)

    async def rename(self, record: CharacterRecord, name: str, *, now: datetime) -> CharacterRecord:
        """Give a character a new name, unless the owner has another by that name in the ruleset."""
        try:
            async with self.session.begin_nested():
                await self._update(record, now, name=name, name_key=name_key(name))
        except IntegrityError:
            raise CharacterError(
                f"You already have a {record.ruleset.title} character called **{name}**.", title="Name taken"
            ) from None
        return _replace(record, name=name, version=record.version + 1, updated_at=now)

    async def _update(self, record: CharacterRecord, now: datetime, **values: object) -> None:
        result = await self.session.execute(
            update(Character)
            .where(Character.id == record.id, Character.version == record.version)
            .values(version=record.version + 1, updated_at=now, **values)
        )
        if changed_rows(result) != 1:
            raise ChangedMeanwhile(record.name)

    async def delete(self, record: CharacterRecord) -> None:
        """Delete a character (and its place as anyone's active character)."""
        await self.session.execute(delete(ActiveCharacter).where(ActiveCharacter.character_id == record.id))
        await self.session.execute(delete(Character).where(Character.id == record.id))

    async def forget(self, *, guild_id: int, user_id: int) -> tuple[int, int]:
        """Delete everything the bot keeps of a user in a server: characters, choices, saved rolls, rolls.

        But for the rolls of fair sessions: they are a proof the whole channel relies on (the session's signed log
        lists every number, answered or not), so they stay until the retention prunes the session with all its
        rolls (`bot.db.rolls.prune_batch`). Returns how many characters and logged rolls went.
        """
        ids = select(Character.id).where(Character.guild_id == guild_id, Character.owner_id == user_id)
        await self.session.execute(
            delete(ActiveCharacter).where(
                (ActiveCharacter.character_id.in_(ids))
                | ((ActiveCharacter.guild_id == guild_id) & (ActiveCharacter.user_id == user_id))
            )
        )
        characters = await self.session.execute(
            delete(Character).where(Character.guild_id == guild_id, Character.owner_id == user_id)
        )
        rolls = await self.session.execute(
            delete(RollLog).where(
                RollLog.guild_id == guild_id, RollLog.user_id == user_id, RollLog.fair_session_id.is_(None)
            )
        )
        await self.session.execute(delete(Macro).where(Macro.guild_id == guild_id, Macro.user_id == user_id))
        return changed_rows(characters), changed_rows(rolls)

    async def set_active(self, record: CharacterRecord, *, user_id: int) -> None:
        """Make `record` the character `user_id` rolls with in its server and ruleset."""
        values = {"guild_id": record.guild_id, "user_id": user_id, "ruleset": record.ruleset.key}
        # One statement, so that two commands choosing at once cannot both insert the row.
        statement = upsert(self.session, ActiveCharacter).values(**values, character_id=record.id)
        await self.session.execute(
            statement.on_conflict_do_update(
                index_elements=list(values), set_={"character_id": statement.excluded.character_id}
            )
        )

    async def set_active_if_none(self, record: CharacterRecord, *, user_id: int) -> bool:
        """Make `record` the active character unless the user has one in its ruleset; whether it became so."""
        values = {"guild_id": record.guild_id, "user_id": user_id, "ruleset": record.ruleset.key}
        statement = upsert(self.session, ActiveCharacter).values(**values, character_id=record.id)
        result = await self.session.execute(statement.on_conflict_do_nothing(index_elements=list(values)))
        return bool(changed_rows(result))

    async def active(self, *, guild_id: int, user_id: int, rules: str) -> CharacterRecord | None:
        """The character a user rolls with in a server and ruleset, if one was chosen."""
        values = {"guild_id": guild_id, "user_id": user_id, "rules": rules}
        return next((_record(row) for row in await read_rows(self.session, self.reads, _ACTIVE, values)), None)

    async def active_ids(self, *, guild_id: int, user_id: int) -> Sequence[int]:
        """The ids of a user's active characters in a server, one per ruleset at most."""
        query = select(ActiveCharacter.character_id).where(
            ActiveCharacter.guild_id == guild_id, ActiveCharacter.user_id == user_id
        )
        return (await self.session.scalars(query)).all()


def _replace(record: CharacterRecord, **changes: object) -> CharacterRecord:
    return dataclasses.replace(record, **changes)  # type: ignore[arg-type]
