"""`python -m bot`: the composition root. Settings, logging, database, dice and bot are built here only.

python -m bot                 connect to Discord (the console without a token); migrates only one SQLite process
python -m bot console         the offline console: slash commands typed in a terminal
python -m bot sync            register the commands with Discord for every server (a deploy step)
python -m bot migrate         bring the database to the newest schema and stop
python -m bot verify FILE     check an exported fair-session log offline (no database, no token)
python -m bot backup FILE     write a backup of the database while the bot runs (SQLite's online backup, pg_dump)
python -m bot restore FILE    replace the database with a backup, the bot stopped (the old one is kept beside it)
python -m bot health          ask the running bot's /health (METRICS_PORT): exit 0 when it is healthy (HEALTHCHECK)

What stops a start is one line on standard error, naming the setting and the fix; the exit code says which
kind (EXIT_DISCORD, EXIT_SETTING, EXIT_SCHEMA, EXIT_DATABASE).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import stat
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

from dotenv import load_dotenv

from bot import heap
from bot.config import Settings, SettingsError
from bot.errors import UserError

# The bot, the database and Discord (2 s of imports) are imported by the commands that use them, not here: a
# setting that stops the start, `health` (a container's HEALTHCHECK, every 30 seconds) and `verify` need none.
if TYPE_CHECKING:
    from bot.client import DiceBot
    from bot.db.engine import Database

log = logging.getLogger("bot")

DISCORD_API = "https://discord.com/api/v10"
# Exit codes: 1 Discord (the token, the network), 2 a setting, 3 the schema, 4 the database.
EXIT_DISCORD, EXIT_SETTING, EXIT_SCHEMA, EXIT_DATABASE = 1, 2, 3, 4
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports it
INTERRUPT_GRACE = 3.0  # seconds the console gets to close after Ctrl-C
MISSING_ACCESS = 50001  # Discord's code for a server the bot is not in (or may not act in)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m bot", description="A Discord dice bot.")
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("run", help="connect to Discord (the default; the console when DISCORD_TOKEN is unset)")
    offline = commands.add_parser("console", help="type slash commands in a terminal, no Discord needed")
    offline.add_argument("--json", action="store_true", help="print each request the bot sends as one JSON line")
    offline.add_argument("--seed", type=int, help="make the dice (and ids) reproducible")
    # No defaults here: they live with the console (bot/local), which only the console imports.
    offline.add_argument("--user", help="the user id commands come from")
    offline.add_argument("--guild", help="the server id commands come from")
    offline.add_argument("--manager", action="store_true", help="act with Manage Server (as a moderator)")
    offline.add_argument(
        "--timeout", type=float, default=10.0, help="seconds a command may take before it is stopped (default: 10)"
    )
    commands.add_parser("sync", help="register the slash commands with Discord globally")
    commands.add_parser("migrate", help="bring the database to the newest schema")
    verify = commands.add_parser("verify", help="check a fair session's exported log offline, no database or token")
    verify.add_argument("file", help="the log /fair reveal or /fair log attached; - reads standard input")
    verify.add_argument("--roll", type=int, help="check only this roll number")
    verify.add_argument(
        "--commitment", metavar="HEX", help="the commitment /fair start posted in the channel: the file's must be it"
    )
    backup = commands.add_parser("backup", help="write a backup of the database; safe while the bot runs")
    backup.add_argument("file", help="the backup file to write (replaced if it exists)")
    restore = commands.add_parser("restore", help="replace the database with a backup; stop the bot first")
    restore.add_argument("file", help="a file `python -m bot backup` wrote")
    commands.add_parser("health", help="ask the running bot whether it is healthy (needs METRICS_PORT)")
    args = parser.parse_args(argv)
    if not 0 < getattr(args, "timeout", 1) <= 900:
        # Discord's own limit: an interaction's token lasts 15 minutes.
        parser.error("--timeout must be seconds, above 0 and at most 900")
    for name in ("user", "guild"):
        value = getattr(args, name, None)
        if value is not None and not value.isdecimal():
            parser.error(f"--{name} must be a Discord id (digits only)")
    return args


async def prepare_database(settings: Settings, *, migrate: bool | None = None) -> Database:
    """Open the database; refuse it (SchemaMismatch) unless its schema is this code's, or migrate it.

    A single process on SQLite migrates at start, so that a fresh clone just runs. A bot on PostgreSQL may be
    many processes: there migrating is one deploy step (`python -m bot migrate`), never a race between them.
    A database that cannot be reached, opened or written is refused with DatabaseUnavailable, before any
    command could be answered and then fail to be logged.
    """
    from bot.db.engine import check_writable, open_database, unavailable
    from bot.db.migrate import check_schema, upgrade

    database = open_database(settings.database_url, synchronous=settings.sqlite_synchronous)
    if migrate is None:
        migrate = database.engine.dialect.name == "sqlite" and not settings.sharded
    try:
        await check_schema(database, older_ok=migrate)
        if migrate:
            await upgrade(database)
        await check_writable(database)
    except BaseException as error:
        await database.dispose()
        if isinstance(error, Exception) and (known := unavailable(settings.database_url, error)) is not None:
            log.debug("The database at start", exc_info=True)
            raise known from error
        raise
    return database


def discord_failure(settings: Settings, error: Exception) -> str | None:
    """The operator's one line for a refused token or an unreachable Discord; None for anything else."""
    import aiohttp
    import discord

    if isinstance(error, discord.LoginFailure):
        return "Discord refused DISCORD_TOKEN: copy the bot token again from the Developer Portal."
    where = settings.api_base or DISCORD_API
    if isinstance(error, aiohttp.ClientConnectorError):
        reason = error.os_error.strerror or str(error.os_error)
        return f"Can't reach Discord at {where} ({reason}): check the network, or DISCORD_API_BASE if it is set."
    if isinstance(error, (aiohttp.ClientError, OSError, TimeoutError)):
        return f"Can't reach Discord at {where} ({error or type(error).__name__}): check the network."
    if isinstance(error, discord.HTTPException):
        text = error.text or str(error)
        if error.status >= 500 or error.status == 429:
            return f"Discord at {where} is failing or busy ({error.status}: {text}): try again in a few minutes."
        if error.code == MISSING_ACCESS and settings.dev_guild_id is not None:
            return (
                f"Discord refused to register the commands in DEV_GUILD_ID {settings.dev_guild_id} ({text}): invite "
                "the bot to that server (scopes bot and applications.commands), or fix or empty DEV_GUILD_ID."
            )
        check = "check DISCORD_API_BASE, then report it" if settings.api_base else "report it"
        return f"Discord at {where} refused the request ({error.status}: {text}): {check}."
    return None


async def run_bot(settings: Settings, token: str) -> int:
    """Connect to Discord (or to whatever DISCORD_API_BASE / DISCORD_GATEWAY_URL name) until stopped."""
    from bot.discord_api import point_discord_at

    point_discord_at(settings.api_base, settings.gateway_url)
    heap.tune()
    database = await prepare_database(settings)
    # The bot itself (a second of imports) once the database is known to be usable: one that is not stops sooner.
    from bot.client import DiceBot, ShardedDiceBot
    from bot.rules.system_dice import SystemDice

    if settings.sharded:
        log.info("Running shards %s of %d", ",".join(map(str, settings.shard_ids)), settings.shard_count)
    kind = ShardedDiceBot if settings.sharded else DiceBot
    try:
        async with kind(settings=settings, database=database, dice=SystemDice()) as bot:
            running = asyncio.ensure_future(bot.start(token))
            settling = asyncio.ensure_future(settle_heap(bot))
            # `docker stop` sends SIGTERM (Ctrl-C: SIGINT): close the gateway and the database cleanly instead of
            # dying mid-write, and within `docker stop`'s 10 seconds.
            stopping: list[asyncio.Future[None]] = []

            def on_signal(name: str) -> None:
                stopping.append(asyncio.ensure_future(stop(bot, running, name)))

            for number in (signal.SIGTERM, signal.SIGINT):
                asyncio.get_running_loop().add_signal_handler(number, on_signal, number.name)
            with contextlib.suppress(asyncio.CancelledError):
                await running
            settling.cancel()
            await asyncio.gather(*stopping)
    except Exception as error:
        if (line := discord_failure(settings, error)) is None:
            raise
        log.debug("Discord at start", exc_info=True)
        print(line, file=sys.stderr)
        return EXIT_DISCORD
    finally:
        await database.dispose()
    return 0


async def settle_heap(bot: DiceBot) -> None:
    """Once the bot is ready, take what it holds out of the cycle collector's passes (`bot.heap`)."""
    await bot.wait_until_ready()
    frozen = heap.settle()
    log.info("Heap settled: %d objects held at the start are left out of the cycle collector's passes", frozen)


async def stop(bot: DiceBot, running: asyncio.Future[None], signal_name: str) -> None:
    """Close the bot, then stop what `bot.start` still waits for.

    During a Discord outage `bot.start` sleeps between reconnect attempts, up to minutes, and only looks at
    `bot.close()` when it wakes; cancelling it ends the wait, so the bot stops in seconds either way.
    """
    if bot.is_closed():
        return
    log.info("Stopping (%s)", signal_name)
    try:
        await bot.close()
    finally:
        running.cancel()


async def run_sync(settings: Settings, token: str) -> int:
    """Register every command with Discord for all servers; a deliberate step, never done on start."""
    from bot.client import DiceBot
    from bot.db.engine import open_database
    from bot.discord_api import point_discord_at
    from bot.rules.system_dice import SystemDice

    point_discord_at(settings.api_base, settings.gateway_url)
    database = open_database(settings.database_url)
    try:
        async with DiceBot(settings=settings, database=database, dice=SystemDice()) as bot:
            await bot.login(token)
            synced = await bot.tree.sync()
    except Exception as error:
        if (line := discord_failure(settings, error)) is None:
            raise
        log.debug("Discord at sync", exc_info=True)
        print(line, file=sys.stderr)
        return EXIT_DISCORD
    finally:
        await database.dispose()
    print(f"Registered {len(synced)} commands globally; Discord may take up to an hour to show them everywhere.")
    return 0


async def run_migrate(settings: Settings) -> int:
    """Migrate and stop."""
    database = await prepare_database(settings, migrate=True)
    await database.dispose()
    return 0


async def run_console(settings: Settings, args: argparse.Namespace) -> int:
    """The offline console over the local Discord double, with the bot's real database; 1 if an `expect` failed."""
    # The double and its driver are the console's alone: the running bot never loads them.
    from bot.local import console

    database = await prepare_database(settings)
    interactive = sys.stdin.isatty() and not args.json
    running = asyncio.current_task()

    def interrupted() -> None:
        # Ctrl-C: stop the command in progress and close the database; whatever still waits after a few seconds
        # (a thread reading a terminal) is not worth waiting for: every answered roll is committed already.
        if running is not None:
            running.cancel()
        # A daemon: a console that closes in time exits at once, without waiting for the timer.
        deadline = threading.Timer(INTERRUPT_GRACE, os._exit, [EXIT_INTERRUPTED])
        deadline.daemon = True
        deadline.start()

    asyncio.get_running_loop().add_signal_handler(signal.SIGINT, interrupted)
    try:
        async with console.open_console(
            settings, database, seed=args.seed, user=args.user, guild=args.guild, manager=args.manager
        ) as local:
            local.timeout = args.timeout
            if interactive:
                print(
                    'Offline console. Try: /roll expression:4d6kh3 label:"Strength"  (? lists commands, Ctrl-D quits)'
                )
            failed = await console.run(
                local, console.read_lines(sys.stdin, interactive), console.stdout_writer, as_json=args.json
            )
    except asyncio.CancelledError:
        return EXIT_INTERRUPTED
    finally:
        await database.dispose()
    return 1 if failed else 0


def run_backup(settings: Settings, args: argparse.Namespace) -> int:
    """Write a backup of the database to the file the arguments name (`bot.db.backups.backup`)."""
    from bot.db import backups

    contents = backups.backup(settings.database_url, Path(args.file))
    print(f"Backed up {where(settings)} to {args.file}: {contents.summary()}.")
    return 0


async def run_restore(settings: Settings, args: argparse.Namespace) -> int:
    """Replace the database with a backup, then bring it to this code's schema (an older backup is migrated)."""
    from bot.db import backups

    contents = backups.restore(settings.database_url, Path(args.file))
    kept = backups.sqlite_path(settings.database_url)
    database = await prepare_database(settings, migrate=True)
    await database.dispose()
    print(f"Restored {args.file} into {where(settings)}: {contents.summary()}.")
    if kept is not None and (old := kept.with_name(kept.name + backups.BEFORE_RESTORE)).exists():
        print(f"The database it replaced is kept as {old}.")
    return 0


def run_health(settings: Settings) -> int:
    """Ask the running bot's /health (bot.metrics): 0 when healthy, 1 when not or when nothing answers."""
    if settings.metrics_port is None:
        print("METRICS_PORT is not set, so the bot serves no health check: set it (e.g. 9108).", file=sys.stderr)
        return EXIT_SETTING
    host = "127.0.0.1" if settings.metrics_host in ("0.0.0.0", "::") else settings.metrics_host
    address = f"http://{host}:{settings.metrics_port}/health"
    try:
        with urllib.request.urlopen(address, timeout=5) as response:
            print(response.read().decode())
            return 0
    except urllib.error.HTTPError as error:
        print(f"Unhealthy: {error.read().decode()}", file=sys.stderr)
    except OSError as error:
        print(f"Nothing answers at {address}: {getattr(error, 'reason', error)}.", file=sys.stderr)
    return 1


def where(settings: Settings) -> str:
    """The database, named for the operator: its file, or its PostgreSQL name (never the URL: it holds the password)."""
    from bot.db import backups

    path = backups.sqlite_path(settings.database_url)
    return str(path) if path is not None else f"PostgreSQL database {backups.database_name(settings.database_url)}"


def run_verify(args: argparse.Namespace) -> int:
    """Check a fair session's log by replaying every roll (`bot.rules.fair_log.check_log`).

    Exits 0 when every roll number is accounted for and every roll replays to its logged draws and outcome, 1
    when anything does not (each finding names its roll) or the file is not a log it can read, 2 when the file
    cannot be opened.
    """
    from bot.rules.fair_log import FairLogError, check_log, parse_log, unpack
    from bot.ui import summaries

    try:
        raw = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
        # A long session's log comes gzipped (`.json.gz`, its parts joined): read as it is, whatever its name.
        checked = check_log(
            parse_log(unpack(raw)), roll=args.roll, commitment=args.commitment, summaries=summaries.accepted_by_kind
        )
    except OSError as error:
        print(f"Can't read {args.file}: {error.strerror or error}.", file=sys.stderr)
        return 2
    except FairLogError as error:
        # Not a log this bot can read is not a proof either: the same exit as any other mismatch.
        name = "standard input" if args.file == "-" else args.file
        print(f"{name}: {error.title}: {error.message}", file=sys.stderr)
        return 1
    print("\n".join(checked.lines))
    return 0 if checked.ok else 1


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code."""
    # The working folder's .env, as docs/deploy.md says; not one found by walking up from the installed package.
    load_dotenv(Path.cwd() / ".env")
    args = parse_args(argv)
    if args.command == "verify":
        # Offline and self-contained: no settings, database or token, so a player can run it anywhere.
        return run_verify(args)
    try:
        settings = Settings.from_env(os.environ)
    except SettingsError as error:
        print(f"{error.title}: {error.message}", file=sys.stderr)
        return EXIT_SETTING
    try:
        return run(settings, args)
    except KeyboardInterrupt:  # Ctrl-C where no handler of ours runs (the console, a migration): no traceback
        return EXIT_INTERRUPTED
    except UserError as error:
        # Raised only once the command imported these, so importing them here costs nothing.
        from bot.db.backups import BackupError
        from bot.db.engine import DatabaseUnavailable
        from bot.db.migrate import SchemaMismatch

        if not isinstance(error, (SchemaMismatch, DatabaseUnavailable, BackupError)):
            raise
        print(error.message, file=sys.stderr)
        return EXIT_SCHEMA if isinstance(error, SchemaMismatch) else EXIT_DATABASE


def nobody_types() -> bool:
    """Whether standard input is closed or /dev/null (a container, a service), not a terminal, a pipe or a file."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return True
    return stat.S_ISCHR(mode) and not sys.stdin.isatty()


def run(settings: Settings, args: argparse.Namespace) -> int:
    """Run the command the arguments name with these settings."""
    command = args.command or "run"
    if command == "health":
        return run_health(settings)
    from bot import logs  # discord.py's logging: imports Discord

    if command == "console" or (command == "run" and settings.token is None):
        logs.setup(max(settings.log_level, "WARNING", key=logging.getLevelName), settings.log_format)
        if command == "run":
            if nobody_types():
                # A container or a service, stdin /dev/null: a console would stop at once, and exit 0 looks fine.
                print(
                    "DISCORD_TOKEN is not set: set it to connect to Discord (see .env.example), or run "
                    "`python -m bot console` for the offline console.",
                    file=sys.stderr,
                )
                return EXIT_SETTING
            print("DISCORD_TOKEN is not set, so this is the offline console (see README.md).", file=sys.stderr)
            args = parse_args(["console"])
        try:
            return asyncio.run(run_console(settings, args))
        except BrokenPipeError:
            # The reader went away (`... | head`): stop quietly, and keep Python from complaining at exit.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
    logs.setup(settings.log_level, settings.log_format)
    if command == "migrate":
        return asyncio.run(run_migrate(settings))
    if command == "backup":
        return run_backup(settings, args)
    if command == "restore":
        return asyncio.run(run_restore(settings, args))
    if settings.token is None:
        print(f"`{command}` needs DISCORD_TOKEN (see .env.example).", file=sys.stderr)
        return EXIT_SETTING
    if command == "sync":
        return asyncio.run(run_sync(settings, settings.token))
    return asyncio.run(run_bot(settings, settings.token))


if __name__ == "__main__":
    sys.exit(main())
