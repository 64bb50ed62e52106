"""Per-server rules settings as the store keeps them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import bindparam, delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.characters import upsert
from bot.db.engine import Readers, read_rows
from bot.db.models import GuildSetting, UserPreference
from bot.rules.settings import ServerSettings, effective, server_settings

# Kept beside the rules settings, but not one of them: its value is a channel, not a choice.
GM_CHANNEL = "gm_channel"
ANSWER_FORMS = ("short", "full")  # what a user may prefer for their own roll answers (`/answers`)

# The reads nearly every roll makes once its kept answer is older than the bot's TTL, built once (as `_BY_ID` in
# bot.db.characters): a server's stored settings, one of them, and a user's choice of answers.
_STORED = select(GuildSetting.key, GuildSetting.value).where(GuildSetting.guild_id == bindparam("guild_id"))
_ONE = _STORED.where(GuildSetting.key == bindparam("key"))
_ANSWERS = select(UserPreference.answers).where(UserPreference.user_id == bindparam("user_id"))


class SettingsRepository:
    """Reads and writes a server's settings inside the caller's session.

    `reads`: where the reads go instead (`Readers`), outside the session's transaction: only for a caller that keeps
    what it reads for a while anyway, so that a commit it cannot see yet changes nothing (`DiceBot.server_settings`).
    """

    def __init__(self, session: AsyncSession, reads: Readers | None = None) -> None:
        self.session = session
        self.reads = reads

    async def effective(self, guild_id: int | None) -> dict[str, str]:
        """Every setting's value for a server, as its choice's text (the defaults outside servers)."""
        return effective(await self._stored(guild_id))

    async def server(self, guild_id: int | None) -> ServerSettings:
        """A server's settings, typed, as the commands use them (the defaults outside servers)."""
        return server_settings(await self._stored(guild_id))

    async def _stored(self, guild_id: int | None) -> dict[str, str]:
        if guild_id is None:
            return {}
        rows = await read_rows(self.session, self.reads, _STORED, {"guild_id": guild_id})
        return {row.key: row.value for row in rows}

    async def gm_channel(self, guild_id: int | None) -> int | None:
        """The channel hidden rolls go to, if the server named one."""
        if guild_id is None:
            return None
        rows = await read_rows(self.session, self.reads, _ONE, {"guild_id": guild_id, "key": GM_CHANNEL})
        return int(rows[0].value) if rows else None

    async def set(self, guild_id: int, key: str, value: str, *, user_id: int, now: datetime) -> None:
        """Store one setting (the value is already checked)."""
        row = await self.session.get(GuildSetting, (guild_id, key))
        if row is None:
            self.session.add(GuildSetting(guild_id=guild_id, key=key, value=value, updated_by=user_id, updated_at=now))
        else:
            row.value, row.updated_by, row.updated_at = value, user_id, now
        await self.session.flush()

    async def forget(self, guild_id: int, key: str) -> None:
        """Drop one stored setting, so that its default holds again."""
        where = (GuildSetting.guild_id == guild_id, GuildSetting.key == key)
        await self.session.execute(delete(GuildSetting).where(*where))


class PreferencesRepository:
    """What users chose for themselves (`/answers`), inside the caller's session (`reads`: as `SettingsRepository`)."""

    def __init__(self, session: AsyncSession, reads: Readers | None = None) -> None:
        self.session = session
        self.reads = reads

    async def answers(self, user_id: int) -> str | None:
        """The user's choice of how their roll answers start, "short" or "full"; None: the server's choice."""
        rows = await read_rows(self.session, self.reads, _ANSWERS, {"user_id": user_id})
        return rows[0].answers if rows and rows[0].answers in ANSWER_FORMS else None

    async def set_answers(self, user_id: int, answers: str | None, *, now: datetime) -> None:
        """Store the user's choice (checked already); None forgets it, so the server's choice applies again."""
        if answers is None:
            await self.session.execute(delete(UserPreference).where(UserPreference.user_id == user_id))
            return
        # One statement, so that two changes at once cannot both insert the row.
        statement = upsert(self.session, UserPreference).values(user_id=user_id, answers=answers, updated_at=now)
        await self.session.execute(
            statement.on_conflict_do_update(index_elements=["user_id"], set_={"answers": answers, "updated_at": now})
        )
