"""What an operator watches: Prometheus metrics and a health check, served only when METRICS_PORT is set.

The instruments are module-level, as `prometheus_client` intends, and cost a lock and an addition each: they
count whether or not anything scrapes them. `serve` answers two paths on the bot's own event loop:

- `/metrics`: commands by name and outcome, the seconds until each one's final answer (its handler ends after
  the last message it sends), deferrals, rate-limit refusals, Discord's 429s, database statement time, worker
  time, servers and commands in flight;
- `/health`: 200 when the gateway is connected and the database answers within 2 seconds, 503 otherwise, with a
  JSON body saying which.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, Histogram, generate_latest
from sqlalchemy import Engine, event, text

if TYPE_CHECKING:
    from aiohttp import web

    from bot.client import DiceBot
    from bot.db.engine import Database

log = logging.getLogger(__name__)

# late: answered after Discord's deadline; dropped: not run, Discord had dropped it while it waited its turn.
OUTCOMES = ("ok", "user_error", "bug", "database", "late", "dropped")
HEALTH_TIMEOUT = 2.0  # seconds the database gets to answer a health check
# Seconds until the final answer: from well under Discord's window to its 15-minute interaction lifetime.
ANSWER_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 3.0, 5.0, 10.0, 30.0, 60.0, 900.0)
DATABASE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0)

COMMANDS = Counter(
    "dicebot_commands", "Commands and button presses handled, by command and outcome", ["command", "outcome"]
)
ANSWER_SECONDS = Histogram(
    "dicebot_answer_seconds", "Seconds from arrival until the final answer", ["command"], buckets=ANSWER_BUCKETS
)
DEFERRALS = Counter("dicebot_deferrals", "Commands deferred ('thinking...') because no answer came in time")
RATE_LIMITED = Counter("dicebot_rate_limited", "Interactions refused by the per-user rate limit (RATE_LIMIT)")
AUTOCOMPLETE_LIMITED = Counter(
    "dicebot_autocomplete_limited", "Autocomplete requests answered with no choices (AUTOCOMPLETE_RATE_LIMIT)"
)
DISCORD_429 = Counter("dicebot_discord_429", "Responses 429 (rate limited) from Discord's REST API")
DATABASE_SECONDS = Histogram(
    "dicebot_database_seconds", "Seconds each database statement took", buckets=DATABASE_BUCKETS
)
WORKER_SECONDS = Histogram(
    "dicebot_worker_seconds", "Seconds a job spent in the worker process, queued and running", buckets=ANSWER_BUCKETS
)
IN_FLIGHT = Gauge("dicebot_in_flight", "Commands and button presses being handled now")
GUILDS = Gauge("dicebot_guilds", "Servers this process serves")


def finished(command: str, outcome: str, seconds: float) -> None:
    """Count one command or button press, done after `seconds` with `outcome` (one of OUTCOMES)."""
    COMMANDS.labels(command, outcome).inc()
    ANSWER_SECONDS.labels(command).observe(seconds)


# discord.py's two HTTP clients (the bot's, and the webhooks' that answer interactions) say "429" only in a
# warning each: a filter on their loggers counts those.
RATE_LIMIT_LOGGERS = ("discord.http", "discord.webhook.async_")


def count_429s(record: logging.LogRecord) -> bool:
    """Count a record of discord.py's HTTP loggers that says a request got a 429; keep every record."""
    message = str(record.msg)
    if message.startswith("We are being rate limited") or "is rate limited. Retrying" in message:
        DISCORD_429.inc()
    return True


def time_statements(database: Database) -> None:
    """Observe every statement `database` runs in DATABASE_SECONDS (once, however often a bot over it starts).

    Both of its engines: the async one every session uses, and on SQLite the blocking one of the threads that read
    for the rolls (`Readers`) and write the roll log (`Writers.run`, the busiest writer of all). The writer's engine
    is that one with an option set, and a listener of an engine hears its option engines too: listening to both
    would time the roll log's statements twice.
    """
    engines: list[Engine] = [database.engine.sync_engine]
    if database.reads is not None:
        engines.append(database.reads.engine)
    for target in engines:
        if not event.contains(target, "before_cursor_execute", _started):
            event.listen(target, "before_cursor_execute", _started)
            event.listen(target, "after_cursor_execute", _ended)


def _started(connection: Any, *_: Any) -> None:
    connection.info.setdefault("dicebot_started", []).append(time.perf_counter())


def _ended(connection: Any, *_: Any) -> None:
    started = connection.info.get("dicebot_started")
    if started:
        DATABASE_SECONDS.observe(time.perf_counter() - started.pop())


async def health(bot: DiceBot) -> tuple[bool, dict[str, str]]:
    """Whether the bot can answer: the gateway connected and the database answering."""
    gateway = "connected" if bot.is_ready() and not bot.is_closed() else "not connected"
    try:
        async with asyncio.timeout(HEALTH_TIMEOUT):
            async with bot.database.read() as session:
                await session.execute(text("SELECT 1"))
        database = "ok"
    except Exception as error:  # any failure is the answer: unhealthy, and why
        database = f"failing: {type(error).__name__}"
    return gateway == "connected" and database == "ok", {"gateway": gateway, "database": database}


async def serve(bot: DiceBot, host: str, port: int) -> web.AppRunner:
    """Answer /metrics and /health on `host`:`port` (0: a free port, for tests); the caller cleans the runner up."""
    from aiohttp import web  # only a bot that serves metrics loads a web server

    async def metrics(_: web.Request) -> web.Response:
        GUILDS.set(len(bot.guilds))
        body = await asyncio.to_thread(generate_latest)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def healthy(_: web.Request) -> web.Response:
        ok, parts = await health(bot)
        return web.json_response({"ok": ok, **parts}, status=200 if ok else 503)

    app = web.Application()
    app.router.add_get("/metrics", metrics)
    app.router.add_get("/health", healthy)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    log.info("Metrics and health on http://%s:%s/metrics and /health", host, runner.addresses[0][1])
    return runner
