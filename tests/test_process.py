"""`python -m bot` as a real process, connected to the local double through DISCORD_API_BASE/GATEWAY_URL."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace

import discord
import pytest
import pytest_asyncio
from alembic import command

from bot.__main__ import discord_failure
from bot.config import Settings
from bot.db.engine import open_database
from bot.db.migrate import alembic_config, head_revision, upgrade
from bot.local.double import DiscordDouble
from bot.local.payloads import APPLICATION_COMMAND, Actor, Snowflakes, command_data, interaction

pytestmark = pytest.mark.slow  # starts processes or runs for seconds: scheduled first (tests/conftest.py)

GUILD, CHANNEL = "300000000000000001", "300000000000000002"


@pytest_asyncio.fixture
async def double() -> AsyncIterator[DiscordDouble]:
    async with DiscordDouble(guilds=[(GUILD, CHANNEL)], ids=Snowflakes()) as running:
        yield running


def _env(double: DiscordDouble, tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "DISCORD_TOKEN": double.token,
        "DISCORD_API_BASE": double.api_base,
        "DISCORD_GATEWAY_URL": double.gateway_url,
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/bot.db",
        "LOG_LEVEL": "DEBUG",
        **extra,
    }


async def test_the_bot_process_connects_syncs_the_dev_server_and_answers(double: DiscordDouble, tmp_path: Path) -> None:
    # A file, not a pipe nobody reads until the end: at DEBUG the migrations alone log more than a pipe's 64 KB,
    # and the bot would block writing its log.
    output = (tmp_path / "bot.log").open("wb")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        env=_env(double, tmp_path, DEV_GUILD_ID=GUILD),
        cwd=tmp_path,
        stderr=output,
    )
    try:
        [synced] = await double.wait_for("PUT", f"/applications/*/guilds/{GUILD}/commands", timeout=30)
        assert "roll" in [c["name"] for c in synced.body]
        # The gateway delivers in order, so the interaction arrives after READY and GUILD_CREATE.
        await asyncio.wait_for(double.identified.wait(), 30)
        actor = Actor(user_id="200000000000000001", guild_id=GUILD, channel_id=CHANNEL)
        data = command_data("roll", [{"name": "expression", "type": 3, "value": "2d6+1"}], guild_id=GUILD)
        payload = interaction(double.ids, actor, APPLICATION_COMMAND, data)
        await double.dispatch("INTERACTION_CREATE", payload)
        [answer] = await double.wait_for("POST", f"/interactions/{payload['id']}/*/callback", timeout=10)
        assert answer.body["data"]["embeds"][0]["description"].startswith("2d6 (")
        # Once the servers have arrived (discord.py waits guild_ready_timeout for more), one line says so; then
        # what the bot holds is frozen out of the cycle collector's passes (bot.heap).
        for _ in range(200):
            if "Heap settled" in (tmp_path / "bot.log").read_text():
                break
            await asyncio.sleep(0.05)
    finally:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), 30)
        output.close()
    log = (tmp_path / "bot.log").read_text()
    assert process.returncode == 0, log[-3000:]
    assert "Database migrated from empty to" in log
    assert "Metrics and health on" not in log  # off unless METRICS_PORT is set
    assert "Ready as dicebot" in log and "in 1 servers, unsharded" in log
    assert re.search(r"Heap settled: [1-9][0-9]{4,} objects held at the start", log), log[-3000:]
    assert double.token not in log  # not even at DEBUG
    # Commands go to the dev server only; a global sync is a deliberate `python -m bot sync`.
    assert [r.path for r in double.requests if r.method == "PUT" and "/guilds/" not in r.path] == []


async def test_sync_registers_the_commands_globally(double: DiscordDouble, tmp_path: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "sync", env=_env(double, tmp_path), cwd=tmp_path, stdout=asyncio.subprocess.PIPE
    )
    stdout, _ = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0
    names = [c["name"] for c in double.commands[None]]
    assert {"roll", "character", "aliens", "settings"} <= set(names)
    assert stdout.decode().startswith(f"Registered {len(names)} commands globally")


async def test_a_bad_setting_stops_the_start_with_a_reason(tmp_path: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "migrate",
        env={**os.environ, "DEV_GUILD_ID": "my-server"},
        cwd=tmp_path,
        stderr=asyncio.subprocess.PIPE,
    )
    _, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 2
    assert stderr.decode().strip() == "Bad setting: DEV_GUILD_ID must be a server id (digits only), not 'my-server'."


async def test_a_sharded_process_refuses_an_old_schema_and_says_what_to_run(tmp_path: Path) -> None:
    database = open_database(f"sqlite+aiosqlite:///{tmp_path}/bot.db")
    async with database.engine.begin() as connection:
        await connection.run_sync(lambda sync: command.upgrade(alembic_config(sync), "0004"))
    await database.dispose()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        env={**os.environ, "DISCORD_TOKEN": "unused", "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/bot.db"}
        | {"SHARD_COUNT": "2", "SHARD_IDS": "1"},
        cwd=tmp_path,
        stderr=asyncio.subprocess.PIPE,
    )
    _, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 3
    expected = f"The database schema is at 0004, this bot needs {head_revision()}: run `python -m bot migrate`."
    assert stderr.decode().strip() == expected  # one line, nothing else


async def _one_line(*args: str, env: dict[str, str], cwd: Path) -> tuple[int | None, str]:
    """Run `python -m bot ARGS`; its exit code and standard error, which must be one line and no traceback."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", *args, env=env, cwd=cwd, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, stderr = await asyncio.wait_for(process.communicate(), 60)
    text = stderr.decode()
    assert "Traceback" not in text and len(text.strip().splitlines()) == 1, text
    return process.returncode, text.strip()


async def _migrate(path: Path) -> None:
    # Read-only is SQLite's `mode=ro` in the tests: they run as root, where a chmod would not stop a write.
    database = open_database(f"sqlite+aiosqlite:///{path}")
    await upgrade(database)
    await database.dispose()


@pytest.mark.parametrize(
    ("url", "code", "expected"),
    [
        (
            "postgresql+asyncpg://dice:secretpw@127.0.0.1:1/dice",
            4,
            "Can't reach the database server at 127.0.0.1:1/dice",
        ),
        ("sqlite+aiosqlite:///{tmp}/a-file/bot.db", 4, "its folder {tmp}/a-file can't be created"),
        ("sqlite+aiosqlite:///{tmp}/a-file/deeper/bot.db", 4, "its folder {tmp}/a-file/deeper can't be created"),
        ("sqlite+aiosqlite:///{tmp}", 4, "DATABASE_URL names the folder {tmp}, not a file"),
        ("sqlite+aiosqlite:///{tmp}/a-file", 4, "{tmp}/a-file (DATABASE_URL): file is not a database"),
        ("sqlite:///{tmp}/bot.db", 2, "DATABASE_URL must name the async driver, sqlite+aiosqlite://"),
        ("postgresql://dice:secretpw@db/dice", 2, "DATABASE_URL must name the async driver, postgresql+asyncpg://"),
        ("mysql://dice:secretpw@db/dice", 2, "DATABASE_URL must be SQLite or PostgreSQL"),
        ("dice:secretpw@db", 2, "DATABASE_URL must be a database URL such as"),
        ("sqlite+aiosqlite:///file:{tmp}/ro.db?mode=ro&uri=true", 4, "{tmp}/ro.db (DATABASE_URL) is read-only"),
    ],
)
async def test_a_database_the_bot_cannot_use_stops_it_with_one_line(
    tmp_path: Path, url: str, code: int, expected: str
) -> None:
    (tmp_path / "a-file").write_text("not a database\n")
    await _migrate(tmp_path / "ro.db")
    env = {**os.environ, "DATABASE_URL": url.format(tmp=tmp_path)}
    returncode, line = await _one_line("migrate", env=env, cwd=tmp_path)
    assert returncode == code
    assert expected.format(tmp=tmp_path) in line
    assert "DATABASE_URL" in line and "secretpw" not in line


async def test_a_read_only_database_is_refused_before_the_first_command(tmp_path: Path) -> None:
    # Migrated already, so nothing needs writing at start: only the write probe can tell.
    await _migrate(tmp_path / "ro.db")
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///file:{tmp_path}/ro.db?mode=ro&uri=true"}
    returncode, line = await _one_line("console", env=env, cwd=tmp_path)
    assert returncode == 4
    assert line.endswith("is read-only (attempt to write a readonly database): every roll is written to the roll "
                         "log, so give the bot a database it can write.")  # fmt: skip


@pytest.mark.parametrize("command", ["sync", "run"])
async def test_a_wrong_token_stops_the_bot_with_one_line(double: DiscordDouble, tmp_path: Path, command: str) -> None:
    await _migrate(tmp_path / "bot.db")  # a second start, so INFO has nothing to log before the login
    env = _env(double, tmp_path, DISCORD_TOKEN="not.the.token", LOG_LEVEL="INFO")
    returncode, line = await _one_line(command, env=env, cwd=tmp_path)
    assert returncode == 1
    assert line == "Discord refused DISCORD_TOKEN: copy the bot token again from the Developer Portal."
    assert [r.status for r in double.requests] == [401]


@pytest.mark.parametrize("command", ["sync", "run"])
async def test_no_network_stops_the_bot_with_one_line(tmp_path: Path, command: str) -> None:
    # Nothing listens on a port the test held and let go: what a Discord out of reach looks like.
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
    await _migrate(tmp_path / "bot.db")
    env = {
        **os.environ,
        "DISCORD_TOKEN": "any",
        "DISCORD_API_BASE": f"http://127.0.0.1:{port}/api/v10",
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/bot.db",
    }
    returncode, line = await _one_line(command, env=env, cwd=tmp_path)
    assert returncode == 1
    assert line.startswith(f"Can't reach Discord at http://127.0.0.1:{port}/api/v10 (Connect call failed")
    assert line.endswith("check the network, or DISCORD_API_BASE if it is set.")


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (400, "Discord at https://discord.com/api/v10 refused the request (400: Invalid Form Body): report it."),
        (503, "Discord at https://discord.com/api/v10 is failing or busy (503: Invalid Form Body): try again"),
    ],
)
def test_an_http_error_from_discord_reads_as_one_line(status: int, expected: str) -> None:
    response = SimpleNamespace(status=status, reason="Bad")
    line = discord_failure(Settings(), discord.HTTPException(response, {"message": "Invalid Form Body", "code": 50035}))
    assert line is not None and line.startswith(expected) and "\n" not in line
    assert discord_failure(Settings(), ValueError("a bug")) is None  # keeps its traceback


async def test_sigterm_in_a_discord_outage_stops_the_bot_at_once_and_each_retry_is_one_line(
    double: DiscordDouble, tmp_path: Path
) -> None:
    log_path = tmp_path / "bot.log"
    output = log_path.open("wb")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", env=_env(double, tmp_path, LOG_LEVEL="INFO"), cwd=tmp_path, stderr=output
    )
    try:
        await asyncio.wait_for(double.identified.wait(), 30)
        await double.stop()  # Discord goes away: gateway and REST alike

        def retries() -> list[float]:
            found = re.findall(r"Attempting a reconnect in ([0-9.]+)s", log_path.read_text())
            return [float(seconds) for seconds in found]

        # discord.py waits longer after each failure (up to minutes): wait for a back-off of 5 s or more.
        for _ in range(1200):
            if retries() and retries()[-1] >= 5:
                break
            await asyncio.sleep(0.1)
        assert retries() and retries()[-1] >= 5, log_path.read_text()[-2000:]
        process.send_signal(signal.SIGTERM)
        loop = asyncio.get_running_loop()
        sent = loop.time()
        await asyncio.wait_for(process.wait(), 60)
        # Without the stop, the bot sleeps out the whole back-off first (docker stop kills it after 10 s).
        assert loop.time() - sent < retries()[-1], "the bot slept out its reconnect back-off"
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        output.close()
    log = log_path.read_text()
    assert process.returncode == 0, log[-3000:]
    assert "Traceback" not in log
    lines = [line for line in log.splitlines() if "Attempting a reconnect" in line]
    assert lines and all("(ClientConnectorError: Cannot connect to host" in line for line in lines), lines
    assert "Stopping (SIGTERM)" in log


@pytest.mark.parametrize(
    ("setting", "value", "expected"),
    [
        ("DISCORD_GATEWAY_URL", "localhost:9999", "DISCORD_GATEWAY_URL must be a ws:// or wss:// URL with a host"),
        ("DISCORD_GATEWAY_URL", "ws://", "DISCORD_GATEWAY_URL must be a ws:// or wss:// URL with a host"),
        ("DISCORD_API_BASE", "127.0.0.1:8080/api/v10", "DISCORD_API_BASE must be a http:// or https:// URL"),
        ("DISCORD_API_BASE", "http://host:port/api", "DISCORD_API_BASE must be a http:// or https:// URL"),
    ],
)
async def test_a_malformed_discord_address_is_one_line(tmp_path: Path, setting: str, value: str, expected: str) -> None:
    env = {**os.environ, "DISCORD_TOKEN": "any", setting: value, "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/b.db"}
    returncode, line = await _one_line("run", env=env, cwd=tmp_path)
    assert (returncode, line.split(":", 1)[1].strip()[: len(expected)]) == (2, expected)


async def test_a_dev_server_the_bot_is_not_in_is_named(double: DiscordDouble, tmp_path: Path) -> None:
    await _migrate(tmp_path / "bot.db")
    env = _env(double, tmp_path, DEV_GUILD_ID="300000000000000999", LOG_LEVEL="WARNING")
    returncode, line = await _one_line("run", env=env, cwd=tmp_path)
    assert returncode == 1
    assert line.startswith("Discord refused to register the commands in DEV_GUILD_ID 300000000000000999 (Missing")
    assert line.endswith(
        "invite the bot to that server (scopes bot and applications.commands), or fix or empty DEV_GUILD_ID."
    )


async def test_no_token_where_nobody_types_is_an_error_not_a_quiet_exit(tmp_path: Path) -> None:
    """A container with no DISCORD_TOKEN: standard input is /dev/null, and an offline console would exit 0 at once."""
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    env["DATABASE_URL"] = f"sqlite+aiosqlite:///{tmp_path}/bot.db"
    returncode, line = await _one_line(env=env, cwd=tmp_path)
    assert (returncode, line) == (
        2,
        "DISCORD_TOKEN is not set: set it to connect to Discord (see .env.example), or run `python -m bot console` "
        "for the offline console.",
    )


async def test_ctrl_c_stops_the_console_without_a_traceback(tmp_path: Path) -> None:
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/bot.db", "DISCORD_TOKEN": ""}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "console", env=env, cwd=tmp_path, stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"/roll expression:1d6\n")
    await process.stdin.drain()
    await asyncio.wait_for(process.stdout.readline(), 60)  # the console is up and answering
    process.send_signal(signal.SIGINT)
    _, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 130
    assert "Traceback" not in stderr.decode(), stderr.decode()


async def test_the_dotenv_read_is_the_working_folders(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(f"DATABASE_URL=sqlite+aiosqlite:///{tmp_path}/from-dotenv.db\n")
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DATA_DIR")}
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", "migrate", env=env, cwd=tmp_path)
    await asyncio.wait_for(process.wait(), 60)
    assert process.returncode == 0
    assert (tmp_path / "from-dotenv.db").exists()
