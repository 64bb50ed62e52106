"""`python -m bot` as a real process, connected to the local double through DISCORD_API_BASE/GATEWAY_URL."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio
from alembic import command

from bot.db.engine import open_database
from bot.db.migrate import alembic_config, head_revision
from bot.local.double import DiscordDouble
from bot.local.payloads import APPLICATION_COMMAND, Actor, Snowflakes, command_data, interaction

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
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        env=_env(double, tmp_path, DEV_GUILD_ID=GUILD),
        cwd=tmp_path,
        stderr=asyncio.subprocess.PIPE,
    )
    # Read the DEBUG log while the bot runs: once the pipe's buffer (64 KB) is full, the bot's next log line
    # blocks the whole process (the command payloads it logs are near that size on their own).
    assert process.stderr is not None
    reading = asyncio.create_task(process.stderr.read())
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
    finally:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), 30)
        stderr = await reading
    assert process.returncode == 0, stderr.decode()[-3000:]
    log = stderr.decode()
    assert "Database migrated from empty to" in log
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
