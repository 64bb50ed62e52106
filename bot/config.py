"""Settings, read from the environment (and a `.env` file, loaded by `__main__` before this runs)."""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from bot.errors import UserError

# Light on purpose: `python -m bot` reads the settings before it imports the bot, the database or Discord, so a
# setting that stops the start (and `health`) costs a fraction of a second. The values of two settings live here.
LogFormat = Literal["plain", "json"]
LOG_FORMATS: tuple[LogFormat, ...] = ("plain", "json")
# How SQLite syncs a commit to the disk (`SQLITE_SYNCHRONOUS`; docs/deploy.md, "What survives a crash"). In WAL
# mode "full" syncs the write-ahead log at every commit, so a commit that returned survives a power loss or an
# OS crash; "normal" syncs it only at checkpoints, so the last commits before one can be lost (never a kill -9).
Synchronous = Literal["full", "normal"]
SYNCHRONOUS: Final[tuple[Synchronous, ...]] = ("full", "normal")

# Where the default SQLite database lives: `data/` under the working folder, or DATA_DIR (the image's `/data`
# volume). An empty or unset DATABASE_URL means this file; a relative one is relative to the working folder.
DEFAULT_DATA_DIR = "data"
DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///data/bot.db"
DEFAULT_RATE_LIMIT = "10/10"
# Suggestions come with every keystroke (Discord debounces them): generous, but a script is held to it.
DEFAULT_AUTOCOMPLETE_RATE_LIMIT = "60/10"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# Discord allows `max_concurrency` IDENTIFYs per 5 seconds; only tests have a reason to shorten this.
IDENTIFY_INTERVAL = 5.0
# Days a roll stays in the roll log (a fair session's rolls: days after its reveal); 0 keeps every roll.
DEFAULT_ROLL_LOG_KEEP_DAYS = 365
MAX_ROLL_LOG_KEEP_DAYS = 36500
# The async drivers the bot is built on: SQLAlchemy's asyncio extension refuses any other.
DATABASE_DRIVERS = {"sqlite": "sqlite+aiosqlite", "postgresql": "postgresql+asyncpg", "postgres": "postgresql+asyncpg"}
DATABASE_EXAMPLES = "sqlite+aiosqlite:///data/bot.db or postgresql+asyncpg://USER:PASSWORD@HOST/NAME"


class SettingsError(UserError):
    """A setting has a value the bot cannot use."""

    title = "Bad setting"


@dataclass(frozen=True, slots=True)
class RateLimit:
    """At most `commands` interactions per user in any `seconds`: commands, button presses, form submissions."""

    commands: int
    seconds: int

    @classmethod
    def parse(cls, text: str, *, name: str = "RATE_LIMIT", example: str = DEFAULT_RATE_LIMIT) -> RateLimit | None:
        """`RATE_LIMIT` (or the setting `name`) as written: "10/10" (commands/seconds), or "0" for no limit."""
        if text == "0":
            return None
        commands, _, seconds = text.partition("/")
        if not (
            commands.isdecimal() and seconds.isdecimal() and 1 <= int(commands) <= 1000 and 1 <= int(seconds) <= 3600
        ):
            raise SettingsError(
                f"{name} must be COMMANDS/SECONDS (1-1000 commands in 1-3600 seconds, e.g. "
                f"{example}) or 0 for no limit, not {text!r}."
            )
        return cls(int(commands), int(seconds))


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the bot reads from its environment. The token is kept out of `repr` (and so of logs).

    Built directly, as tests and benchmarks do, there is no rate limit (of commands or of autocomplete) and the
    roll log keeps every roll; from the environment all are on by default.
    """

    token: str | None = field(default=None, repr=False)
    database_url: str = DEFAULT_DATABASE_URL
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    log_format: LogFormat = "plain"
    api_base: str | None = None
    gateway_url: str | None = None
    rate_limit: RateLimit | None = None
    # Autocomplete requests per user, counted apart from commands (AUTOCOMPLETE_RATE_LIMIT).
    autocomplete_rate_limit: RateLimit | None = None
    # Sharded when shard_count is set: this process runs the shards `shard_ids` of `shard_count`.
    shard_count: int | None = None
    shard_ids: tuple[int, ...] = ()
    identify_interval: float = IDENTIFY_INTERVAL
    # None: keep every roll. Bot-wide, not per server: the operator's disk is what it bounds.
    roll_log_keep_days: int | None = None
    # Prometheus metrics and the health check (bot.metrics): off unless a port is set.
    metrics_port: int | None = None
    metrics_host: str = "127.0.0.1"
    # SQLite's PRAGMA synchronous: "full" keeps every committed roll through a power loss (docs/deploy.md).
    sqlite_synchronous: Synchronous = "full"

    @property
    def sharded(self) -> bool:
        """Whether this process runs as some of the shards of a bot (discord.py's AutoShardedBot)."""
        return self.shard_count is not None

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        """Build settings from a mapping such as `os.environ`; empty values count as unset."""

        def get(name: str) -> str | None:
            value = env.get(name, "").strip()
            return value or None

        level = (get("LOG_LEVEL") or "INFO").upper()
        if level not in LOG_LEVELS:
            raise SettingsError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {level!r}.")
        form = (get("LOG_FORMAT") or "plain").lower()
        if form not in LOG_FORMATS:
            raise SettingsError(f"LOG_FORMAT must be plain (lines) or json (one JSON object a line), not {form!r}.")
        guild = get("DEV_GUILD_ID")
        if guild is not None and not guild.isdecimal():
            raise SettingsError(f"DEV_GUILD_ID must be a server id (digits only), not {guild!r}.")
        shard_count, shard_ids = _shards(get("SHARD_COUNT"), get("SHARD_IDS"))
        interval = get("IDENTIFY_INTERVAL") or str(IDENTIFY_INTERVAL)
        if not interval.replace(".", "", 1).isdecimal() or not 0 < float(interval) <= 60:
            raise SettingsError(
                f"IDENTIFY_INTERVAL must be seconds, above 0 and at most 60 (Discord's: 5), not {interval!r}."
            )
        keep = get("ROLL_LOG_KEEP_DAYS") or str(DEFAULT_ROLL_LOG_KEEP_DAYS)
        if not (keep.isascii() and keep.isdecimal()) or int(keep) > MAX_ROLL_LOG_KEEP_DAYS:
            raise SettingsError(
                f"ROLL_LOG_KEEP_DAYS must be a number of days up to {MAX_ROLL_LOG_KEEP_DAYS} (default "
                f"{DEFAULT_ROLL_LOG_KEEP_DAYS}), or 0 to keep every roll, not {keep!r}."
            )
        synchronous = (get("SQLITE_SYNCHRONOUS") or "full").lower()
        if synchronous not in SYNCHRONOUS:
            raise SettingsError(
                f"SQLITE_SYNCHRONOUS must be full (the default: a committed roll survives a power loss) or normal "
                f"(faster commits; the last ones can be lost in a power loss or an OS crash), not {synchronous!r}."
            )
        port = get("METRICS_PORT")
        if port is not None and not (port.isascii() and port.isdecimal() and 1 <= int(port) <= 65535):
            raise SettingsError(f"METRICS_PORT must be a port number (1-65535), or empty for no metrics, not {port!r}.")
        return cls(
            token=get("DISCORD_TOKEN"),
            metrics_port=int(port) if port else None,
            metrics_host=get("METRICS_HOST") or "127.0.0.1",
            database_url=_database_url(get("DATABASE_URL") or default_database_url(get("DATA_DIR"))),
            dev_guild_id=int(guild) if guild else None,
            log_level=level,
            log_format="json" if form == "json" else "plain",
            api_base=_address("DISCORD_API_BASE", get("DISCORD_API_BASE"), ("http", "https")),
            gateway_url=_address("DISCORD_GATEWAY_URL", get("DISCORD_GATEWAY_URL"), ("ws", "wss")),
            rate_limit=RateLimit.parse(get("RATE_LIMIT") or DEFAULT_RATE_LIMIT),
            autocomplete_rate_limit=RateLimit.parse(
                get("AUTOCOMPLETE_RATE_LIMIT") or DEFAULT_AUTOCOMPLETE_RATE_LIMIT,
                name="AUTOCOMPLETE_RATE_LIMIT",
                example=DEFAULT_AUTOCOMPLETE_RATE_LIMIT,
            ),
            shard_count=shard_count,
            shard_ids=shard_ids,
            identify_interval=float(interval),
            roll_log_keep_days=int(keep) or None,
            sqlite_synchronous="full" if synchronous == "full" else "normal",
        )


def _address(name: str, value: str | None, schemes: tuple[str, ...]) -> str | None:
    """A URL setting of one of `schemes` with a host (DISCORD_API_BASE, DISCORD_GATEWAY_URL), or None when unset."""
    if value is None:
        return None
    parsed = urllib.parse.urlsplit(value)
    try:
        parsed.port  # noqa: B018 - reading it checks it
    except ValueError:
        parsed = parsed._replace(netloc="")
    if parsed.scheme not in schemes or not parsed.hostname:
        example = f"{schemes[0]}://127.0.0.1:8080/" + ("api/v10" if schemes[0] == "http" else "")
        raise SettingsError(
            f"{name} must be a {' or '.join(s + '://' for s in schemes)} URL with a host, such as {example} "
            f"(empty: Discord's own), not {value!r}."
        )
    return value


def default_database_url(data_dir: str | None) -> str:
    """The SQLite file `bot.db` in DATA_DIR (default: `data`, under the working folder)."""
    return f"sqlite+aiosqlite:///{data_dir or DEFAULT_DATA_DIR}/bot.db"


def _database_url(url: str) -> str:
    """DATABASE_URL with one of the two drivers; the rest (host, file, password) is the connection's to judge."""
    try:
        scheme = make_url(url).drivername
    except (ArgumentError, ValueError):
        # Not echoed: whatever it is, it may hold a password.
        raise SettingsError(f"DATABASE_URL must be a database URL such as {DATABASE_EXAMPLES}.") from None
    if scheme in DATABASE_DRIVERS.values():
        return url
    dialect = scheme.partition("+")[0]
    if dialect in DATABASE_DRIVERS:
        raise SettingsError(
            f"DATABASE_URL must name the async driver, {DATABASE_DRIVERS[dialect]}://..., not {scheme}://..."
        )
    raise SettingsError(f"DATABASE_URL must be SQLite or PostgreSQL ({DATABASE_EXAMPLES}), not {scheme}://...")


def _shards(count: str | None, ids: str | None) -> tuple[int | None, tuple[int, ...]]:
    """SHARD_COUNT and SHARD_IDS ("0,1", "0-3" or both mixed, "0-1,4"); without SHARD_IDS, every shard."""
    if count is None:
        if ids is not None:
            raise SettingsError("SHARD_IDS needs SHARD_COUNT, the number of shards of the whole bot.")
        return None, ()
    if not count.isdecimal() or int(count) < 1:
        raise SettingsError(f"SHARD_COUNT must be a whole number of shards, 1 or more, not {count!r}.")
    total = int(count)
    if ids is None:
        return total, tuple(range(total))
    chosen: list[int] = []
    for part in ids.split(","):
        low, dash, high = part.strip().partition("-")
        if not low.isdecimal() or (dash and not high.isdecimal()) or (dash and int(high) < int(low)):
            raise SettingsError(f"SHARD_IDS must list shard numbers or ranges such as 0,1 or 0-3, not {ids!r}.")
        chosen.extend(range(int(low), int(high if dash else low) + 1))
    if len(set(chosen)) != len(chosen):
        raise SettingsError(f"SHARD_IDS names a shard twice: {ids!r}.")
    if outside := [i for i in chosen if i >= total]:
        raise SettingsError(f"SHARD_IDS {ids!r} names shard {outside[0]}, but shards are 0 to {total - 1}.")
    return total, tuple(sorted(chosen))
