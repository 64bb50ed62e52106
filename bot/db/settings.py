"""Per-server rules settings as the store keeps them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.characters import upsert
from bot.db.models import GuildSetting, UserPreference
from bot.rules.settings import ServerSettings, effective, server_settings

# Kept beside the rules settings, but not one of them: its value is a channel, not a choice.
GM_CHANNEL = "gm_channel"
ANSWER_FORMS = ("short", "full")  # what a user may prefer for their own roll answers (`/answers`)


class SettingsRepository:
    """Reads and writes a server's settings inside the caller's session."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def effective(self, guild_id: int | None) -> dict[str, str]:
        """Every setting's value for a server, as its choice's text (the defaults outside servers)."""
        return effective(await self._stored(guild_id))

    async def server(self, guild_id: int | None) -> ServerSettings:
        """A server's settings, typed, as the commands use them (the defaults outside servers)."""
        return server_settings(await self._stored(guild_id))

    async def _stored(self, guild_id: int | None) -> dict[str, str]:
        if guild_id is None:
            return {}
        rows = await self.session.scalars(select(GuildSetting).where(GuildSetting.guild_id == guild_id))
        return {row.key: row.value for row in rows}

    async def gm_channel(self, guild_id: int | None) -> int | None:
        """The channel hidden rolls go to, if the server named one."""
        if guild_id is None:
            return None
        row = await self.session.get(GuildSetting, (guild_id, GM_CHANNEL))
        return int(row.value) if row is not None else None

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
    """What users chose for themselves (`/answers`), inside the caller's session."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def answers(self, user_id: int) -> str | None:
        """The user's choice of how their roll answers start, "short" or "full"; None: the server's choice."""
        row = await self.session.get(UserPreference, user_id)
        return row.answers if row is not None and row.answers in ANSWER_FORMS else None

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
