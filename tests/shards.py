"""Two `python -m bot` processes as shards 0 and 1 of 2, on one PostgreSQL, connected to the local double.

Shared by tests/test_sharding.py and `python -m tests.perf.bench_shards`. The deploy runs as `compose.yaml`
runs it: `python -m bot migrate`, `python -m bot sync`, then the shard processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
import tempfile
import time
import uuid
import warnings
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from bot.local.double import CHANNEL_MESSAGE, DEFERRED_MESSAGE, UPDATE_MESSAGE, Captured, DiscordDouble
from bot.local.payloads import APPLICATION_COMMAND, Actor, Snowflakes, command_data, interaction

# Two servers that Discord's formula, (guild_id >> 22) % 2, gives to shard 0 and to shard 1.
GUILDS = [("300000000000000001", "300000000000000002"), ("300000000004194305", "300000000004194306")]
OWNER = "200000000000000001"
# Short, so that the test does not wait Discord's 5 seconds; the spacing itself is what is checked.
IDENTIFY_INTERVAL = 1.0


@dataclass(frozen=True)
class Answer:
    """How the bot answered one interaction: at once, or with a deferral ("thinking…") and then a followup.

    The bot's watchdog (bot/deadline.py) defers a command that has not answered within 2 seconds, which a
    loaded machine makes happen to any command; the answer the user reads is then the followup.
    """

    interaction_id: str
    # The interaction callback Discord counts as the acknowledgement: the answer itself or the deferral.
    response: Captured
    # The request that carried the message the user reads: `response` itself unless it was a deferral.
    message: Captured

    @property
    def deferred(self) -> bool:
        """Whether the bot deferred first and answered with a followup."""
        return self.message is not self.response

    @property
    def acknowledged(self) -> bool:
        """Whether Discord took both the acknowledgement (within its 3 seconds) and the message."""
        return 200 <= self.response.status < 300 and 200 <= self.message.status < 300

    @property
    def shard(self) -> int | None:
        """The shard the interaction was delivered to, so the one that answered it."""
        return self.response.shard

    @property
    def body(self) -> dict[str, Any]:
        """The message the user reads (content, embeds, flags)."""
        body = self.message.body if isinstance(self.message.body, dict) else {}
        if self.message.path.endswith("/callback"):
            data: dict[str, Any] = body.get("data") or {}
            return data
        return body


def _carries_message(request: Captured) -> bool:
    """Whether a request of an interaction's sends a message: a type 4 or 7 callback, a followup or an edit."""
    if request.path.startswith("/interactions/"):
        return isinstance(request.body, dict) and request.body.get("type") in (CHANNEL_MESSAGE, UPDATE_MESSAGE)
    return request.method in ("POST", "PATCH")


@dataclass
class Shards:
    """The double both processes are connected to, and what the processes wrote to standard error."""

    double: DiscordDouble
    processes: list[asyncio.subprocess.Process]
    logs: list[str] = field(default_factory=list)
    returncodes: list[int | None] = field(default_factory=list)
    # Each interaction in flight, by its id and by its token: the requests it has drawn so far.
    _pending: dict[str, asyncio.Queue[Captured]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.double.listeners.append(self._on_request)

    async def send(
        self, guild: int, name: str, options: dict[str, Any], *, shard: int | None = None, timeout: float = 30.0
    ) -> Answer:
        """Send a slash command from `GUILDS[guild]`, to the owning shard unless `shard` says otherwise.

        Returns how the bot answered, whatever the double made of it (late or refused answers too).
        """
        guild_id, channel_id = GUILDS[guild]
        actor = Actor(user_id=OWNER, guild_id=guild_id, channel_id=channel_id)
        raw = [{"name": k, "type": 4 if isinstance(v, int) else 3, "value": v} for k, v in options.items()]
        payload = interaction(self.double.ids, actor, APPLICATION_COMMAND, command_data(name, raw))
        requests: asyncio.Queue[Captured] = asyncio.Queue()
        self._pending[payload["id"]] = self._pending[payload["token"]] = requests
        try:
            await self.double.dispatch("INTERACTION_CREATE", payload, shard=shard)
            return await asyncio.wait_for(self._answer(payload["id"], requests), timeout)
        finally:
            del self._pending[payload["id"]], self._pending[payload["token"]]

    @staticmethod
    async def _answer(interaction_id: str, requests: asyncio.Queue[Captured]) -> Answer:
        """The first callback, and the first request after it that carries a message (the same one if it does)."""
        response = await requests.get()
        assert response.path.endswith("/callback"), f"the bot used the token before acknowledging: {response}"
        message = response
        if isinstance(response.body, dict) and response.body.get("type") == DEFERRED_MESSAGE:
            # Whatever comes between (deleting a public "thinking…" to answer privately) is not the answer.
            message = await requests.get()
            while not _carries_message(message):
                message = await requests.get()
        return Answer(interaction_id, response, message)

    def _on_request(self, request: Captured) -> None:
        parts = request.path.split("/")
        if parts[1] in ("interactions", "webhooks") and len(parts) > 3:
            # /interactions/{id}/{token}/callback, /webhooks/{application}/{token}[/messages/...]
            requests = self._pending.get(parts[2] if parts[1] == "interactions" else parts[3])
            if requests is not None:
                requests.put_nowait(request)

    def answers(self, interaction_id: str) -> list[Captured]:
        """Every initial response the bot sent for one interaction (accepted by the double or not)."""
        return [r for r in self.double.requests if r.path.startswith(f"/interactions/{interaction_id}/")]


def embed_of(answer: Answer) -> dict[str, Any]:
    """The first embed of the message that answered an interaction."""
    embed: dict[str, Any] = answer.body["embeds"][0]
    return embed


def version_of(answer: Answer) -> tuple[int, int]:
    """The character number and version a sheet's footer shows: `#12 · version 3`."""
    found = re.match(r"#(\d+) · version (\d+)", embed_of(answer)["footer"]["text"])
    assert found is not None, embed_of(answer)
    return int(found[1]), int(found[2])


def environment(double: DiscordDouble, database_url: str, **extra: str) -> dict[str, str]:
    """What a bot process of this deployment is given."""
    return {
        **os.environ,
        "DISCORD_TOKEN": double.token,
        "DISCORD_API_BASE": double.api_base,
        "DISCORD_GATEWAY_URL": double.gateway_url,
        "DATABASE_URL": database_url,
        "LOG_LEVEL": "INFO",
        # One user fires 100 edits at once here to test the database, not the per-user rate limit.
        "RATE_LIMIT": "0",
        **extra,
    }


async def deploy_step(env: dict[str, str], folder: Path, *args: str) -> None:
    """Run one `python -m bot ...` deploy step to its end; a failure stops with its output."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        *args,
        env=env,
        cwd=folder,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode == 0, f"python -m bot {' '.join(args)}: {output.decode()[-3000:]}"


@contextlib.asynccontextmanager
async def running_shards(database_url: str, folder: Path) -> AsyncIterator[Shards]:
    """Deploy (migrate, sync), then start shards 0 and 1 of 2 as two processes; stop them with SIGTERM at exit."""
    async with DiscordDouble(guilds=GUILDS, ids=Snowflakes()) as double:
        deploy = environment(double, database_url)
        await deploy_step(deploy, folder, "migrate")
        await deploy_step(deploy, folder, "sync")
        processes = []
        for shard in (0, 1):
            env = environment(
                double,
                database_url,
                SHARD_COUNT="2",
                SHARD_IDS=str(shard),
                IDENTIFY_INTERVAL=str(IDENTIFY_INTERVAL),
                # Set to show that a sharded process does not sync even when asked to.
                DEV_GUILD_ID=GUILDS[0][0],
            )
            processes.append(
                await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "bot", env=env, cwd=folder, stderr=asyncio.subprocess.PIPE
                )
            )
        shards = Shards(double, processes)
        try:
            await double.wait_for_shards({0, 1}, timeout=60)
            yield shards
        finally:
            for process in processes:
                if process.returncode is None:
                    process.send_signal(signal.SIGTERM)
            for process in processes:
                _, stderr = await asyncio.wait_for(process.communicate(), 30)
                shards.logs.append(stderr.decode())
                shards.returncodes.append(process.returncode)


@dataclass(frozen=True)
class EditFigures:
    """The outcome of concurrent `/character set` edits of one character through both processes."""

    sent: int
    acknowledged: int  # "Saved", acknowledged within Discord's 3 seconds (at once, or deferred then followed up)
    refused: int  # answered with an error (changed meanwhile), nothing written
    late: int  # "Saved" but after the deadline: written, yet the user was told the interaction failed
    deferred: int  # answered "thinking…" first (the bot's 2-second watchdog), then with the followup
    version_before: int
    version_after: int
    seconds: float
    by_shard: dict[int | None, int]

    def __str__(self) -> str:
        split = ", ".join(f"shard {shard}: {n}" for shard, n in sorted(self.by_shard.items(), key=str))
        return (
            f"{self.sent} concurrent /character set on one character, split across 2 processes ({split})\n"
            f"  acknowledged {self.acknowledged}, refused {self.refused}, late {self.late}, "
            f"deferred first {self.deferred}; "
            f"version {self.version_before} -> {self.version_after} "
            f"(expected {self.version_before + self.acknowledged + self.late})\n"
            f"  all {self.sent} answered in {self.seconds * 1000:.0f} ms"
        )


async def concurrent_edits(shards: Shards, character: int, edits: int) -> EditFigures:
    """Send `edits` edits of one character at once, alternately to shard 0 and shard 1, and count the outcome.

    Discord sends a server's interactions to its shard only; here every other one is delivered to the other
    process on purpose (as during a hand-over between deployments) so that two processes write one row.
    """
    before = await shards.send(0, "character show", {"character": f"#{character}"})
    fields = ["pistol", "rifle", "heavy", "pain"]
    started = time.monotonic()
    answers = await asyncio.gather(
        *(
            shards.send(
                0,
                "character set",
                {"character": f"#{character}", "field": fields[i % 4], "value": str(i % 5)},
                shard=i % 2,
            )
            for i in range(edits)
        )
    )
    seconds = time.monotonic() - started
    after = await shards.send(0, "character show", {"character": f"#{character}"})
    saved = [a for a in answers if embed_of(a)["title"] == "Saved"]
    by_shard: dict[int | None, int] = {}
    for answer in answers:
        by_shard[answer.shard] = by_shard.get(answer.shard, 0) + 1
    return EditFigures(
        sent=edits,
        acknowledged=sum(a.acknowledged for a in saved),
        refused=edits - len(saved),
        late=sum(not a.acknowledged for a in saved),
        deferred=sum(a.deferred for a in answers),
        version_before=version_of(before)[1],
        version_after=version_of(after)[1],
        seconds=seconds,
        by_shard=by_shard,
    )


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """An admin URL of a throwaway PostgreSQL server from the pgserver package."""
    import pgserver

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # platformdirs: containers set no XDG_RUNTIME_DIR
        server = pgserver.get_server(tempfile.mkdtemp(prefix="dicebot-pg-"), cleanup_mode="delete")
    try:
        yield server.get_uri().replace("postgresql://", "postgresql+asyncpg://", 1)
    finally:
        server.cleanup()


@contextlib.asynccontextmanager
async def fresh_database(admin_url: str) -> AsyncIterator[str]:
    """A new, empty database on the server (dropped at exit)."""
    name = f"shards_{uuid.uuid4().hex}"
    admin = create_async_engine(admin_url, isolation_level="AUTOCOMMIT")
    async with admin.connect() as connection:
        await connection.execute(text(f"CREATE DATABASE {name}"))
    try:
        yield make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    finally:
        async with admin.connect() as connection:
            await connection.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        await admin.dispose()
