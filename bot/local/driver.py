"""One driver for tests, the console and benchmarks: a real bot, logged into the double, sent interactions."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, cast

from discord.ext import commands

from bot.local import payloads
from bot.local.double import (
    AUTOCOMPLETE_RESULT,
    CHANNEL_MESSAGE,
    EPHEMERAL,
    MODAL,
    UPDATE_MESSAGE,
    Captured,
    DiscordDouble,
    discord_pointed_at,
)
from bot.local.payloads import Actor, Snowflakes

DEFAULT_GUILD = "300000000000000001"
DEFAULT_CHANNEL = "300000000000000002"
DEFAULT_USER = "200000000000000001"
GUILD_READY = 0.05  # seconds discord.py waits for another GUILD_CREATE after the last (see `LocalDiscord._start`)

# Tasks discord.py starts for one interaction: the command itself, event listeners, view and modal callbacks,
# and the bot's own (its answer to an interaction over the rate limit).
_INTERACTION_TASKS = ("CommandTree-invoker", "discord.py: on_", "discord-ui-", "dicebot: ")


@dataclass
class Exchange:
    """What the bot sent back for one interaction, in order."""

    payload: dict[str, Any]
    requests: list[Captured] = field(default_factory=list)

    @property
    def messages(self) -> list[dict[str, Any]]:
        """Every message body the bot sent or edited: responses, followups and edits, in order."""
        bodies = []
        for request in self.requests:
            body = request.body if isinstance(request.body, dict) else {}
            if request.path.endswith("/callback"):
                if body.get("type") in (CHANNEL_MESSAGE, UPDATE_MESSAGE):
                    bodies.append(body.get("data") or {})
            elif request.path.startswith("/webhooks/") and request.method in ("POST", "PATCH"):
                bodies.append(body)
        return bodies

    @property
    def response(self) -> dict[str, Any]:
        """The body of the initial response (the interaction callback)."""
        callbacks = [r for r in self.requests if r.path.endswith("/callback")]
        assert len(callbacks) == 1, f"expected one initial response, got {len(callbacks)}"
        body: dict[str, Any] = callbacks[0].body
        return body

    @property
    def embed(self) -> dict[str, Any]:
        """The first embed of the first message."""
        embed: dict[str, Any] = self.messages[0]["embeds"][0]
        return embed

    @property
    def ephemeral(self) -> bool:
        """Whether the first message is visible only to the user who sent the interaction."""
        return bool(self.messages[0].get("flags", 0) & EPHEMERAL)

    @property
    def modal(self) -> dict[str, Any]:
        """The form the bot showed (the data of its type-9 response)."""
        assert self.response["type"] == MODAL, self.response
        modal: dict[str, Any] = self.response["data"]
        return modal

    @property
    def files(self) -> dict[str, bytes]:
        """Files the bot attached to its messages, by name."""
        return {name: data for request in self.requests for name, data in request.files.items()}

    @property
    def choices(self) -> list[dict[str, Any]]:
        """The autocomplete choices the bot offered."""
        assert self.response["type"] == AUTOCOMPLETE_RESULT
        choices: list[dict[str, Any]] = self.response["data"]["choices"]
        return choices

    @property
    def rejected(self) -> list[Captured]:
        """Requests the double refused as Discord would (limits, deadline, double acknowledgement)."""
        return [r for r in self.requests if r.status >= 400]


class LocalDiscord:
    """A bot logged into a `DiscordDouble`, and the means to send it interactions as Discord would."""

    def __init__(
        self,
        bot: commands.Bot,
        double: DiscordDouble,
        actor: Actor,
        *,
        make_bot: Callable[[], commands.Bot] | None = None,
        connect: bool = False,
    ) -> None:
        self.bot = bot
        self.double = double
        self.actor = actor
        self._make_bot = make_bot
        self._connect = connect
        self._runner: asyncio.Task[None] | None = None
        self._seen: dict[str, asyncio.Future[None]] = {}
        # Seconds an interaction may take, from delivery until every task it started has finished.
        self.timeout = 10.0
        bot.add_listener(self._on_interaction, "on_interaction")

    async def _start(self, *, sync: bool) -> None:
        await self.bot.login(self.double.token)
        if sync:
            await self.bot.tree.sync()
        if self._connect:
            # After READY, discord.py waits `guild_ready_timeout` (the bot's 0.5 s) past the last GUILD_CREATE for
            # more. The double sends every one right behind READY, so that was half a second of waiting for nothing
            # in every start: a console, a restart, a reconnect. A GUILD_CREATE later than this is still cached
            # before any interaction that follows it on the gateway; only `ready` would come before it.
            self.bot._connection.guild_ready_timeout = GUILD_READY
            self._runner = asyncio.create_task(self.bot.connect())
            await asyncio.wait_for(self.bot.wait_until_ready(), 10)

    async def _stop(self) -> None:
        await self.bot.close()
        if self._runner is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._runner, 10)
            self._runner = None

    async def restart(self) -> None:
        """Stop the bot and log in a new one over the same database, as a restarted process would.

        Discord (the double) carries on: the messages, their buttons and the registered commands stay, and the
        new bot has none of the old one's memory (its views, caches and cogs are built afresh).
        """
        if self._make_bot is None:
            raise RuntimeError("this driver was not given the means to build a bot")
        await settle(self.timeout)
        await self._stop()
        self.bot = self._make_bot()
        self.bot.add_listener(self._on_interaction, "on_interaction")
        await self.bot.__aenter__()
        await self._start(sync=False)

    async def _on_interaction(self, interaction: Any) -> None:
        future = self._seen.get(str(interaction.id))
        if future is not None and not future.done():
            future.set_result(None)

    @property
    def ids(self) -> Snowflakes:
        """The id source shared with the double."""
        return self.double.ids

    def as_user(self, user_id: str, *, permissions: str | None = None, roles: tuple[str, ...] = ()) -> Actor:
        """The default actor, but another user (optionally with other permissions, or roles of the server)."""
        return Actor(
            user_id=user_id,
            guild_id=self.actor.guild_id,
            channel_id=self.actor.channel_id,
            permissions=permissions or self.actor.permissions,
            roles=roles,
        )

    async def command(
        self,
        name: str,
        options: dict[str, Any] | list[dict[str, Any]] | None = None,
        *,
        actor: Actor | None = None,
        resolved: dict[str, Any] | None = None,
    ) -> Exchange:
        """Run a slash command; `options` maps names to values (types are inferred) or is the raw list.

        Options given by name must be the command's, as Discord's client only sends those: an option a command
        has lost would otherwise be ignored by discord.py, and a test would pass without it meaning anything.
        """
        if isinstance(options, dict):
            self._check_names(name, options)
        data = payloads.command_data(name, _options(options), resolved=resolved)
        return await self.send(payloads.interaction(self.ids, actor or self.actor, payloads.APPLICATION_COMMAND, data))

    def _check_names(self, name: str, options: dict[str, Any]) -> None:
        """ValueError for an option `name` does not have, once its commands are synced to the double."""
        synced = self.double.commands.get(None) or []
        node: dict[str, Any] | None = {"options": synced}
        for part in name.split():
            node = next((o for o in (node or {}).get("options", []) if o["name"] == part), None)
        if node is None:
            return  # not synced (or a command a test added to the tree itself)
        known = {o["name"] for o in node.get("options", [])}
        if unknown := sorted(set(options) - known):
            raise ValueError(f"/{name} has no option {', '.join(unknown)} (its options: {', '.join(sorted(known))})")

    async def autocomplete(
        self, name: str, options: dict[str, Any], focused: str, *, actor: Actor | None = None
    ) -> Exchange:
        """Ask for autocomplete choices while the user types option `focused`."""
        raw = _options(options)
        for option in raw:
            if option["name"] == focused:
                option["focused"] = True
        data = payloads.command_data(name, raw)
        return await self.send(payloads.interaction(self.ids, actor or self.actor, payloads.AUTOCOMPLETE, data))

    async def click(self, message: dict[str, Any], custom_id: str, *, actor: Actor | None = None) -> Exchange:
        """Click the button `custom_id` on a message the bot sent."""
        data = payloads.button_data(custom_id)
        payload = payloads.interaction(self.ids, actor or self.actor, payloads.COMPONENT, data, message=message)
        return await self.send(payload)

    async def submit(self, modal: dict[str, Any], values: dict[str, str], *, actor: Actor | None = None) -> Exchange:
        """Fill in and submit a form the bot showed; `modal` is the data of the bot's type-9 response."""
        data = payloads.modal_submit_data(modal, values)
        return await self.send(payloads.interaction(self.ids, actor or self.actor, payloads.MODAL_SUBMIT, data))

    def original(self, exchange: Exchange) -> dict[str, Any]:
        """The message that answers an interaction, as the double holds it now (after any edits)."""
        return self.double.messages["@original:" + exchange.payload["token"]]

    def upload(self, filename: str, data: bytes) -> tuple[str, dict[str, Any]]:
        """Host a file as a user's upload: the option value and the `resolved` data for an attachment option."""
        attachment = self.double.host_file(filename, data)
        return attachment["id"], {"attachments": {attachment["id"]: attachment}}

    async def send(self, payload: dict[str, Any], *, timeout: float | None = None) -> Exchange:
        """Deliver a raw INTERACTION_CREATE (over the gateway when connected) and wait until it is handled.

        TimeoutError when it takes longer than `timeout` (default: `self.timeout`).
        """
        timeout = self.timeout if timeout is None else timeout
        # As Discord does: the bot's own permissions in the channel, the ones the double enforces (pins).
        payload = {**payload, "app_permissions": str(self.double.bot_permissions)}
        mark = len(self.double.requests)
        seen = self._seen[payload["id"]] = asyncio.get_running_loop().create_future()
        try:
            if self.double.connected:
                await self.double.dispatch("INTERACTION_CREATE", payload)
            else:
                self.double.track(payload)
                self.bot._connection.parse_interaction_create(cast(Any, payload))
            await asyncio.wait_for(seen, timeout)
            await settle(timeout)
        finally:
            del self._seen[payload["id"]]
        # Other interactions may run at the same time: keep the requests made with this one's token, and the bot's
        # edits of its channel messages meanwhile (an encounter's tracker: the edit names no interaction, so when
        # two interactions run at once both exchanges hold it). Its channel posts (the GM channel) are not answers.
        mine = [
            r
            for r in self.double.requests[mark:]
            if payload["token"] in r.path or (r.method == "PATCH" and r.path.startswith("/channels/"))
        ]
        return Exchange(payload, mine)


def _options(options: dict[str, Any] | list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    if options is None:
        return []
    if isinstance(options, list):
        return options
    return [{"name": name, "type": _option_type(value), "value": value} for name, value in options.items()]


def _option_type(value: Any) -> int:
    if isinstance(value, bool):
        return 5
    if isinstance(value, int):
        return 4
    if isinstance(value, float):
        return 10
    return 3


def _running_interaction_tasks() -> list[asyncio.Task[Any]]:
    current = asyncio.current_task()
    return [
        t
        for t in asyncio.all_tasks()
        if t is not current and not t.done() and t.get_name().startswith(_INTERACTION_TASKS)
    ]


async def cancel_interactions() -> int:
    """Stop every interaction task still running (a command that hung); how many there were."""
    tasks = _running_interaction_tasks()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return len(tasks)


async def settle(timeout: float = 10.0) -> None:
    """Wait until no interaction task of discord.py's is running (commands, listeners, views)."""

    async def drain() -> None:
        while True:
            tasks = _running_interaction_tasks()
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    await asyncio.sleep(0)
    await asyncio.wait_for(drain(), timeout)


@contextlib.asynccontextmanager
async def local_discord(
    make_bot: Callable[[], commands.Bot],
    *,
    connect: bool = False,
    ids: Snowflakes | None = None,
    actor: Actor | None = None,
    sync: bool = True,
    heartbeat_interval_ms: int = 41250,
) -> AsyncIterator[LocalDiscord]:
    """A double on loopback with a real bot logged in (and connected over the gateway if `connect`).

    `sync` registers the commands with the double as `python -m bot sync` would, so the double checks
    them against Discord's limits and the console can read their schema. A short `heartbeat_interval_ms`
    makes gateway fault tests quick (discord.py checks for a silent gateway once per heartbeat).
    """
    actor = actor or Actor(user_id=DEFAULT_USER, guild_id=DEFAULT_GUILD, channel_id=DEFAULT_CHANNEL)
    guilds = [(actor.guild_id, actor.channel_id)] if actor.guild_id else []
    async with DiscordDouble(guilds=guilds, ids=ids, heartbeat_interval_ms=heartbeat_interval_ms) as double:
        with discord_pointed_at(double.api_base, double.gateway_url):
            driver = LocalDiscord(make_bot(), double, actor, make_bot=make_bot, connect=connect)
            await driver.bot.__aenter__()
            try:
                await driver._start(sync=sync)
                yield driver
            finally:
                # The bot running now: after `restart`, not the one this started with.
                await driver._stop()
