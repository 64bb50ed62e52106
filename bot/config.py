"""Settings, read from the environment (and a `.env` file, loaded by `__main__` before this runs)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bot.errors import UserError

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///data/bot.db"
DEFAULT_RATE_LIMIT = "10/10"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class SettingsError(UserError):
    """A setting has a value the bot cannot use."""

    title = "Bad setting"


@dataclass(frozen=True, slots=True)
class RateLimit:
    """At most `commands` commands and button presses per user in any `seconds`."""

    commands: int
    seconds: int

    @classmethod
    def parse(cls, text: str) -> RateLimit | None:
        """`RATE_LIMIT` as written: "10/10" (commands/seconds), or "0" for no limit."""
        if text == "0":
            return None
        commands, _, seconds = text.partition("/")
        if not (
            commands.isdecimal() and seconds.isdecimal() and 1 <= int(commands) <= 1000 and 1 <= int(seconds) <= 3600
        ):
            raise SettingsError(
                f"RATE_LIMIT must be COMMANDS/SECONDS (1-1000 commands in 1-3600 seconds, e.g. "
                f"{DEFAULT_RATE_LIMIT}) or 0 for no limit, not {text!r}."
            )
        return cls(int(commands), int(seconds))


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the bot reads from its environment. The token is kept out of `repr` (and so of logs).

    Built directly, as tests and benchmarks do, there is no rate limit; from the environment it is on by default.
    """

    token: str | None = field(default=None, repr=False)
    database_url: str = DEFAULT_DATABASE_URL
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    api_base: str | None = None
    gateway_url: str | None = None
    rate_limit: RateLimit | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        """Build settings from a mapping such as `os.environ`; empty values count as unset."""

        def get(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        level = (get("LOG_LEVEL") or "INFO").upper()
        if level not in LOG_LEVELS:
            raise SettingsError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {level!r}.")
        guild = get("DEV_GUILD_ID")
        if guild is not None and not guild.isdigit():
            raise SettingsError(f"DEV_GUILD_ID must be a server id (digits only), not {guild!r}.")
        return cls(
            token=get("DISCORD_TOKEN"),
            database_url=get("DATABASE_URL") or DEFAULT_DATABASE_URL,
            dev_guild_id=int(guild) if guild else None,
            log_level=level,
            api_base=get("DISCORD_API_BASE"),
            gateway_url=get("DISCORD_GATEWAY_URL"),
            rate_limit=RateLimit.parse(get("RATE_LIMIT") or DEFAULT_RATE_LIMIT),
        )
