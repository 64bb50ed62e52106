"""A loopback double of Discord's REST API and gateway that the unmodified discord.py client logs into.

Point discord.py at it with `discord_pointed_at()` (two class attributes) or, for a separate process, with the
`DISCORD_API_BASE` / `DISCORD_GATEWAY_URL` settings. It records every request the bot makes and applies
Discord's rules to them: the 3-second first-response deadline (then 404 / 10062), one initial response
per interaction (then 400 / 40060), the 15-minute token lifetime, and the documented limits of command
syncs and messages (400 / 50035). Faults (429 with `retry_after`, 5xx) can be queued per route.

The gateway keeps each session's events, so a bot that RESUMEs after a dropped connection gets the ones
it missed, in order, then RESUMED; a RESUME of a session the double invalidated (op 9 with d=false) or
never issued is answered with op 9 d=false, as Discord does.

Sharded bots connect once per shard, each IDENTIFY naming `shard: [id, count]`, from one process or many.
Like Discord, the double then sends a guild and its interactions only to the connection of the shard that
owns the guild, `(guild_id >> 22) % count` (shard 0 for anything outside a server), and records on each
response which shard the interaction was delivered to, so which shard answered it.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import json
import logging
import time
import zlib
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import yarl
from aiohttp import BodyPartReader, WSMsgType, web

from bot.discord_api import point_discord_at
from bot.local.limits import validate_command_set, validate_message
from bot.local.payloads import APPLICATION_ID, BOT_USER, MEMBER_PERMISSIONS, OWNER, Snowflakes, guild_create

log = logging.getLogger(__name__)

API_PREFIX = "/api/v10"
DOUBLE_TOKEN = "local.double.token"
EPHEMERAL = 64
MANAGE_MESSAGES, PIN_MESSAGES = 1 << 13, 1 << 51  # either lets the bot pin
# Interaction callback types.
CHANNEL_MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, AUTOCOMPLETE_RESULT, MODAL = 4, 5, 6, 7, 8, 9


@dataclass
class Captured:
    """One request the bot sent, as it arrived."""

    method: str
    path: str  # relative to /api/v10, e.g. /interactions/1/tok/callback
    query: dict[str, str]
    body: Any
    headers: dict[str, str]
    files: dict[str, bytes] = field(default_factory=dict)
    status: int = 0
    at: float = field(default_factory=time.monotonic)  # when it arrived
    # For an interaction's responses: the shard it was delivered to, the only one holding its token.
    shard: int | None = None

    @property
    def target(self) -> str:
        """The path with its query string, as the bot asked for it."""
        return str(yarl.URL.build(path=self.path, query=self.query))


@dataclass
class Fault:
    """An answer to give instead of the normal one, `times` times, to requests matching the glob."""

    method: str
    pattern: str
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)
    times: int = 1
    # The request takes effect and only its answer is lost, as when a proxy fails after Discord acted.
    applied: bool = False


@dataclass
class _Issued:
    token: str
    t0: float
    acked: bool = False
    loading: bool = False
    shard: int | None = None
    message_id: str | None = None  # the message a clicked component sits on: a type-7 answer edits it


@dataclass
class _Session:
    """A gateway session: its shard, its sequence and the events sent in it, for replay on RESUME."""

    id: str
    shard: int | None
    seq: int = 0
    sent: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=10_000))
    valid: bool = True


def _json(payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    # discord.py decodes a body only when Content-Type is exactly 'application/json'.
    return web.Response(
        body=json.dumps(payload).encode(),
        status=status,
        headers={"Content-Type": "application/json", **(headers or {})},
    )


def _form_error(errors: list[str]) -> dict[str, Any]:
    # Discord nests field errors; discord.py flattens this exact shape into the exception text.
    return {
        "code": 50035,
        "message": "Invalid Form Body",
        "errors": {"local_double": {"_errors": [{"code": "BASE_TYPE_BAD", "message": e} for e in errors]}},
    }


class DiscordDouble:
    """Discord's REST API and gateway on 127.0.0.1, for one or more bots in this process or others."""

    default_latency: ClassVar[float] = 0.0  # each new double's `latency` (tests/conftest.py: TEST_ROUND_TRIP)

    def __init__(
        self,
        *,
        guilds: Sequence[tuple[str, str]] = (),
        ids: Snowflakes | None = None,
        token: str = DOUBLE_TOKEN,
        heartbeat_interval_ms: int = 41250,
        shards: int = 1,
        max_concurrency: int = 1,
    ) -> None:
        self.ids = ids or Snowflakes()
        self.token = token
        self.guilds = [guild_create(g, c) for g, c in guilds]
        self.heartbeat_interval_ms = heartbeat_interval_ms
        # What GET /gateway/bot recommends, and how many IDENTIFYs Discord would take per 5 seconds.
        self.recommended_shards = shards
        self.max_concurrency = max_concurrency
        # Set by the first IDENTIFY that names a shard; events are routed by it from then on.
        self.shard_count: int | None = None
        self.requests: list[Captured] = []
        # Called with every request as it is recorded, for callers that wait on many at once.
        self.listeners: list[Callable[[Captured], None]] = []
        self.commands: dict[str | None, list[dict[str, Any]]] = {}
        self.messages: dict[str, dict[str, Any]] = {}
        self.faults: list[Fault] = []
        # The bot's permissions in every channel, as a bit set: an ordinary member's (no Manage Messages) unless a
        # test gives it more. Pinning asks for them.
        self.bot_permissions = int(MEMBER_PERMISSIONS)
        self.pins: dict[str, list[str]] = {}  # channel -> the messages pinned there, in the order pinned
        self.gateway_log: list[dict[str, Any]] = []
        self.strict = True
        self.ack_deadline = 3.0
        # Seconds each REST request takes to be answered, as Discord's round trip does (50-100 ms from most hosts);
        # the double acts on a request when it arrives, so the deadlines count from then.
        self.latency = self.default_latency
        self.token_ttl = 15 * 60.0
        self.ack_heartbeats = True
        self.identified = asyncio.Event()
        self.identify_count = 0
        self.resume_count = 0
        self.replayed = 0  # events sent again to a bot that resumed after missing them
        self.close_codes: list[int | None] = []  # how each gateway connection ended, whichever side closed it
        self.port = 0
        self._issued: dict[str, _Issued] = {}
        self._by_token: dict[str, _Issued] = {}
        self._sockets: dict[int | None, web.WebSocketResponse] = {}
        self._compress: dict[int | None, Any] = {}
        self._sessions: dict[str, _Session] = {}
        self._current: dict[int | None, _Session] = {}  # the latest session of each shard
        self._ready_shards: set[int] = set()
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        # Discord takes uploads far larger than aiohttp's default 1 MiB body (a bot's 10 MiB attachment and more).
        self.app = web.Application(client_max_size=100 * 1024 * 1024)
        self.files: dict[str, bytes] = {}
        self.app.router.add_get("/", self._gateway)
        self.app.router.add_get("/attachments/{id}/{filename}", self._attachment)
        self.app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._rest)

    # -- lifecycle -------------------------------------------------------------------------------------------
    async def start(self) -> DiscordDouble:
        """Listen on a free loopback port."""
        self._runner = web.AppRunner(self.app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self.port = self._runner.addresses[0][1]
        return self

    async def stop(self) -> None:
        """Close every socket and stop listening."""
        for ws in list(self._sockets.values()):
            await ws.close()
        if self._runner:
            await self._runner.cleanup()

    async def __aenter__(self) -> DiscordDouble:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def api_base(self) -> str:
        """The value for `DISCORD_API_BASE`."""
        return f"http://127.0.0.1:{self.port}{API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        """The value for `DISCORD_GATEWAY_URL`."""
        return f"ws://127.0.0.1:{self.port}/"

    # -- faults and waiting ----------------------------------------------------------------------------------
    def inject(
        self,
        method: str,
        pattern: str,
        status: int,
        body: Any = None,
        *,
        headers: dict[str, str] | None = None,
        times: int = 1,
        applied: bool = False,
    ) -> Fault:
        """Answer the next `times` requests matching `method` and the path glob with this status and body.

        With `applied`, each request is carried out first and only its answer replaced.
        """
        fault = Fault(method.upper(), pattern, status, body, headers or {}, times, applied)
        self.faults.append(fault)
        return fault

    def inject_429(self, method: str, pattern: str, retry_after: float = 0.05, *, scope: str = "user") -> Fault:
        """A rate limit of a route (`scope` "user") or of the whole bot ("global"), with Discord's headers.

        discord.py retries a 429 only when it carries a `Via` header (else: a Cloudflare ban).
        """
        is_global = scope == "global"
        body = {"message": "You are being rate limited.", "retry_after": retry_after, "global": is_global}
        headers = {"Via": "1.1 google", "Retry-After": str(retry_after), "X-RateLimit-Scope": scope}
        if is_global:
            headers["X-RateLimit-Global"] = "true"
        else:
            headers |= {
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset-After": str(retry_after),
            }
        return self.inject(method, pattern, 429, body, headers=headers)

    async def wait_for(self, method: str, pattern: str, *, count: int = 1, timeout: float = 5.0) -> list[Captured]:
        """The successful requests matching `method` and the path glob, once there are `count` of them."""

        def matching() -> list[Captured]:
            return [
                r
                for r in self.requests
                if r.method == method.upper() and fnmatch.fnmatchcase(r.path, pattern) and 200 <= r.status < 300
            ]

        await self.wait_until(lambda: len(matching()) >= count, timeout=timeout)
        return matching()

    async def wait_until(self, predicate: Callable[[], bool], *, timeout: float = 5.0) -> None:
        """Wait until `predicate()` holds; it is checked whenever a request or a gateway frame arrives."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(predicate), timeout)

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    def track(self, payload: dict[str, Any]) -> None:
        """Start the response clock of an interaction the double is about to deliver."""
        issued = _Issued(
            token=payload["token"], t0=time.monotonic(), message_id=(payload.get("message") or {}).get("id")
        )
        self._issued[payload["id"]] = issued
        self._by_token[payload["token"]] = issued

    def host_file(self, filename: str, data: bytes, *, content_type: str = "application/json") -> dict[str, Any]:
        """Serve `data` as a user's upload; returns the attachment object for an interaction's resolved data."""
        attachment_id = self.ids()
        self.files[attachment_id] = data
        url = f"http://127.0.0.1:{self.port}/attachments/{attachment_id}/{filename}"
        return {
            "id": attachment_id,
            "filename": filename,
            "size": len(data),
            "url": url,
            "proxy_url": url,
            "content_type": content_type,
        }

    async def _attachment(self, request: web.Request) -> web.StreamResponse:
        data = self.files.get(request.match_info["id"])
        if data is None:
            return web.Response(status=404)
        return web.Response(body=data, headers={"Content-Type": "application/octet-stream"})

    # -- REST ------------------------------------------------------------------------------------------------
    async def _rest(self, request: web.Request) -> web.StreamResponse:
        response = await self._answer(request)
        if self.latency > 0:
            await asyncio.sleep(self.latency)
        return response

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        body: Any = None
        files: dict[str, bytes] = {}
        ctype = request.headers.get("Content-Type", "")
        if ctype.startswith("multipart/"):
            body, files = await self._read_multipart(request)
        elif request.can_read_body:
            raw = await request.read()
            body = json.loads(raw) if ctype.startswith("application/json") and raw else None
        captured = Captured(request.method, path, dict(request.query), body, dict(request.headers), files)
        captured.shard = self._delivered_to(path)

        for fault in self.faults:
            if fault.times > 0 and fault.method == request.method and fnmatch.fnmatchcase(path, fault.pattern):
                fault.times -= 1
                if fault.applied:
                    self._route(request.method, path, captured)
                await self._record(captured, fault.status)
                return _json(fault.body, fault.status, fault.headers)

        # Interaction callbacks and webhooks are authorised by their token, everything else by the bot token.
        if request.headers.get("Authorization") != "Bot " + self.token and not path.startswith(
            ("/interactions/", "/webhooks/")
        ):
            await self._record(captured, 401)
            return _json({"message": "401: Unauthorized", "code": 0}, 401)

        status, payload = self._route(request.method, path, captured)
        await self._record(captured, status)
        if status == 204:
            return web.Response(status=204)
        bucket = {"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "4", "X-RateLimit-Reset-After": "1.0"}
        return _json(payload, status, {**bucket, "X-RateLimit-Bucket": "local" + path.split("/")[1]})

    @staticmethod
    async def _read_multipart(request: web.Request) -> tuple[Any, dict[str, bytes]]:
        body: Any = None
        files: dict[str, bytes] = {}
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            if not isinstance(part, BodyPartReader):
                continue
            data = await part.read()
            if part.name == "payload_json":
                body = json.loads(data)
            else:
                files[part.filename or part.name or "file"] = bytes(data)
        return body, files

    def _delivered_to(self, path: str) -> int | None:
        parts = path.strip("/").split("/")
        issued = None
        if parts[0] == "interactions" and len(parts) >= 3:
            issued = self._issued.get(parts[1])
        elif parts[0] == "webhooks" and len(parts) >= 3:
            issued = self._by_token.get(parts[2])
        return issued.shard if issued is not None else None

    async def _record(self, captured: Captured, status: int) -> None:
        captured.status = status
        for listener in self.listeners:
            listener(captured)
        async with self._changed:
            self.requests.append(captured)
            self._changed.notify_all()

    def _message(self, body: dict[str, Any], *, channel_id: str = "0", token: str | None = None) -> dict[str, Any]:
        message = {
            "id": self.ids(),
            "channel_id": channel_id,
            "author": BOT_USER,
            "type": 20 if token else 0,
            "content": body.get("content") or "",
            "embeds": body.get("embeds") or [],
            "components": body.get("components") or [],
            "attachments": [],
            "mentions": [],
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": False,
            "flags": body.get("flags", 0),
            "timestamp": "2025-01-01T00:00:00.000000+00:00",
            "edited_timestamp": None,
            "webhook_id": APPLICATION_ID if token else None,
            "application_id": APPLICATION_ID,
        }
        self.messages[message["id"]] = message
        return message

    def _route(self, method: str, path: str, captured: Captured) -> tuple[int, Any]:
        parts = path.strip("/").split("/")
        body = captured.body if isinstance(captured.body, dict | list) else {}
        if (method, path) == ("GET", "/users/@me"):
            return 200, BOT_USER
        if (method, path) == ("GET", "/oauth2/applications/@me"):
            return 200, {
                "id": APPLICATION_ID,
                "name": "dicebot",
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": OWNER,
                "verify_key": "00" * 32,
                "flags": 0,
                "team": None,
                "summary": "",
                "bot": BOT_USER,
            }
        if (method, path) == ("GET", "/gateway/bot"):
            limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": self.max_concurrency}
            url = self.gateway_url.rstrip("/")
            return 200, {"url": url, "shards": self.recommended_shards, "session_start_limit": limit}
        if (method, path) == ("GET", "/gateway"):
            return 200, {"url": self.gateway_url.rstrip("/")}
        if parts[0] == "applications" and parts[-1] == "commands":
            return self._commands(method, parts, body)
        if method == "POST" and parts[0] == "interactions" and parts[-1] == "callback":
            return self._callback(parts[1], parts[2], body if isinstance(body, dict) else {})
        if parts[0] == "webhooks" and len(parts) >= 3:
            return self._webhook(method, parts, body if isinstance(body, dict) else {})
        if method == "PATCH" and parts[0] == "channels" and len(parts) == 4 and parts[2] == "messages":
            # The bot edits a message of its own with its token. Discord refuses ephemeral interaction responses
            # there (they are the interaction's alone): Unknown Message.
            message = self.messages.get(parts[3])
            if message is None or message["flags"] & EPHEMERAL or message["author"]["id"] != BOT_USER["id"]:
                return 404, {"message": "Unknown Message", "code": 10008}
            body = body if isinstance(body, dict) else {}
            if self.strict and (errors := validate_message(body)):
                return 400, _form_error(errors)
            message.update({k: body[k] for k in ("content", "embeds", "components", "flags") if k in body})
            message["edited_timestamp"] = "2025-01-01T00:00:01.000000+00:00"
            return 200, message
        if parts[0] == "channels" and method in ("PUT", "DELETE") and "pins" in parts[2:4] and len(parts) in (4, 5):
            return self._pin(method, parts[1], parts[-1])
        if method == "POST" and parts[0] == "channels" and parts[-1] == "messages":
            body = body if isinstance(body, dict) else {}
            if self.strict and (errors := validate_message(body)):
                return 400, _form_error(errors)
            if body.get("enforce_nonce") and body.get("nonce") is not None:
                # Discord answers a repeated nonce of the same author with the message it already made.
                key = f"@nonce:{parts[1]}:{body['nonce']}"
                if key not in self.messages:
                    self.messages[key] = self._message(body, channel_id=parts[1])
                return 200, self.messages[key]
            return 200, self._message(body, channel_id=parts[1])
        return 404, {"message": "404: Not Found", "code": 0}

    def _pin(self, method: str, channel_id: str, message_id: str) -> tuple[int, Any]:
        """Pin or unpin a message (PUT or DELETE /channels/{c}/messages/pins/{m}, or the older /channels/{c}/pins/{m}).

        Refused as Discord refuses it when the bot has neither Manage Messages nor Pin Messages (`bot_permissions`).
        """
        message = self.messages.get(message_id)
        # An interaction's answer is stored without its channel ("0"): the double knows it only by its token.
        if message is None or message.get("channel_id") not in (channel_id, "0"):
            return 404, {"message": "Unknown Message", "code": 10008}
        if not self.bot_permissions & (MANAGE_MESSAGES | PIN_MESSAGES):
            return 403, {"message": "Missing Permissions", "code": 50013}
        pinned = self.pins.setdefault(channel_id, [])
        if method == "PUT" and message_id not in pinned:
            pinned.append(message_id)
        if method == "DELETE" and message_id in pinned:
            pinned.remove(message_id)
        message["pinned"] = message_id in pinned
        return 204, None

    def _commands(self, method: str, parts: list[str], body: Any) -> tuple[int, Any]:
        guild = parts[3] if len(parts) == 5 else None
        if method == "GET":
            return 200, self.commands.get(guild, [])
        if method != "PUT":
            return 405, {"message": "405: Method Not Allowed", "code": 0}
        if self.strict and (errors := validate_command_set(body)):
            return 400, _form_error(errors)
        if guild and self.guilds and guild not in {g["id"] for g in self.guilds}:
            return 403, {"message": "Missing Access", "code": 50001}  # Discord's answer for a server the bot is not in
        registered = []
        for command in body:
            command = {**command, "id": self.ids(), "application_id": APPLICATION_ID, "version": self.ids()}
            if guild:
                command["guild_id"] = guild
            registered.append(command)
        self.commands[guild] = registered
        return 200, registered

    def _callback(self, iid: str, token: str, body: dict[str, Any]) -> tuple[int, Any]:
        kind = body.get("type")
        data = body.get("data") or {}
        issued = self._issued.get(iid)
        if issued is not None:
            if time.monotonic() - issued.t0 > self.ack_deadline:
                return 404, {"message": "Unknown interaction", "code": 10062}
            if issued.acked:
                return 400, {"message": "Interaction has already been acknowledged.", "code": 40060}
        if self.strict and kind in (CHANNEL_MESSAGE, UPDATE_MESSAGE) and (errors := validate_message(data)):
            return 400, _form_error(errors)
        if issued is not None:
            issued.acked = True
            issued.loading = kind == DEFERRED_MESSAGE
        answer: dict[str, Any] = {
            "id": iid,
            "type": 2,
            "response_message_loading": kind == DEFERRED_MESSAGE,
            "response_message_ephemeral": bool(data.get("flags", 0) & EPHEMERAL),
        }
        response: dict[str, Any] = {"interaction": answer}
        edited = self._clicked(issued) if kind == UPDATE_MESSAGE else None
        if edited is not None:
            # UPDATE_MESSAGE edits the message the clicked component is on, in place.
            edited.update({k: data[k] for k in ("content", "embeds", "components", "flags") if k in data})
            answer["response_message_id"] = edited["id"]
            self.messages["@original:" + token] = edited
            response["resource"] = {"type": kind, "message": edited}
        elif kind in (CHANNEL_MESSAGE, DEFERRED_MESSAGE, UPDATE_MESSAGE):
            message = self._message(data, token=token)
            answer["response_message_id"] = message["id"]
            self.messages["@original:" + token] = message
            response["resource"] = {"type": kind, "message": message}
        elif kind in (AUTOCOMPLETE_RESULT, MODAL, DEFERRED_UPDATE):
            response["resource"] = {"type": kind}
        return 200, response

    def _clicked(self, issued: _Issued | None) -> dict[str, Any] | None:
        """The stored message a component interaction was made on, if the double has it."""
        if issued is None or issued.message_id is None:
            return None
        return next((m for m in self.messages.values() if m.get("id") == issued.message_id), None)

    def _webhook(self, method: str, parts: list[str], body: dict[str, Any]) -> tuple[int, Any]:
        token = parts[2]
        issued = self._by_token.get(token)
        if issued is not None:
            age = time.monotonic() - issued.t0
            if (not issued.acked and age > self.ack_deadline) or age > self.token_ttl:
                return 401, {"message": "Invalid Webhook Token", "code": 50027}
        if self.strict and method in ("POST", "PATCH") and (errors := validate_message(body)):
            return 400, _form_error(errors)
        if method == "POST" and len(parts) == 3:
            original = self.messages.get("@original:" + token)
            if issued is not None and issued.loading and original is not None:
                # The first followup after a deferred response replaces the "thinking" message.
                issued.loading = False
                original.update({k: body[k] for k in ("content", "embeds", "components", "flags") if k in body})
                return 200, original
            return 200, self._message(body, token=token)
        if len(parts) == 5 and parts[3] == "messages":
            key = "@original:" + token if parts[4] == "@original" else parts[4]
            message = self.messages.get(key)
            if message is None:
                return 404, {"message": "Unknown Message", "code": 10008}
            if method == "GET":
                return 200, message
            if method == "PATCH":
                if issued is not None and parts[4] == "@original":
                    issued.loading = False
                message.update({k: body[k] for k in ("content", "embeds", "components", "flags") if k in body})
                message["edited_timestamp"] = "2025-01-01T00:00:01.000000+00:00"
                return 200, message
            if method == "DELETE":
                self.messages.pop(key, None)
                return 204, None
        return 404, {"message": "404: Not Found", "code": 0}

    # -- gateway ---------------------------------------------------------------------------------------------
    @staticmethod
    async def _send_ws(ws: web.WebSocketResponse, compressor: Any, payload: dict[str, Any]) -> None:
        data = json.dumps(payload, separators=(",", ":"))
        if compressor is not None:
            # zlib-stream: one deflate context per socket, a sync flush after each message.
            await ws.send_bytes(compressor.compress(data.encode()) + compressor.flush(zlib.Z_SYNC_FLUSH))
        else:
            await ws.send_str(data)

    def _shard_key(self, shard: int | None) -> int | None:
        if shard is None and None not in self._sockets and None not in self._current:
            # A sharded bot, addressed without a shard: its first one.
            named = [key for key in (*self._sockets, *self._current) if key is not None and key >= 0]
            return named[0] if named else None
        return shard

    def shard_of(self, data: dict[str, Any]) -> int | None:
        """The shard that owns an event: by its guild, shard 0 outside servers; None while nothing is sharded."""
        if self.shard_count is None:
            return None
        guild_id = data.get("guild_id")
        return (int(guild_id) >> 22) % self.shard_count if guild_id else 0

    @property
    def shards(self) -> set[int]:
        """The shards that hold a connection now."""
        return {key for key in self._sockets if key is not None and key >= 0}

    async def wait_for_shards(self, shards: set[int], *, timeout: float = 30.0) -> None:
        """Wait until each of `shards` has identified and been sent its guilds."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: shards <= self._ready_shards), timeout)

    @property
    def connected(self) -> bool:
        """Whether any bot holds a gateway connection that has identified or resumed."""
        return any(key is None or key >= 0 for key in self._sockets)

    async def dispatch(self, event: str, data: dict[str, Any], *, shard: int | None = None) -> None:
        """Send a DISPATCH frame (op 0), e.g. INTERACTION_CREATE, to the shard that owns it (or to `shard`).

        While the shard is disconnected with a session it may resume, the event is kept for the RESUME.
        """
        key = self._shard_key(self.shard_of(data) if shard is None else shard)
        session = self._current.get(key)
        if session is None or (key not in self._sockets and not session.valid):
            raise LookupError(f"shard {key} is not connected to the double")
        session.seq += 1
        if event == "INTERACTION_CREATE":
            self.track(data)
            self._issued[data["id"]].shard = key
        frame = {"op": 0, "t": event, "s": session.seq, "d": data}
        session.sent.append(frame)
        ws = self._sockets.get(key)
        if ws is not None and not ws.closed:
            with contextlib.suppress(ConnectionResetError):  # closing under us: the frame waits for a RESUME
                await self._send_ws(ws, self._compress.get(key), frame)

    async def send_op(self, op: int, d: Any = None, *, shard: int | None = None) -> None:
        """A raw opcode: 7 RECONNECT, 9 INVALID_SESSION (d = resumable), 1 HEARTBEAT request."""
        key = self._shard_key(shard)
        if op == 9 and not d and key in self._current:
            self._current[key].valid = False  # a later RESUME of it is refused
        await self._send_ws(self._sockets[key], self._compress.get(key), {"op": op, "d": d, "s": None, "t": None})

    def forget_sessions(self) -> None:
        """Invalidate every session, as Discord does after a long outage: a RESUME then gets op 9 d=false."""
        for session in self._sessions.values():
            session.valid = False

    async def close_gateway(self, code: int, *, shard: int | None = None) -> None:
        """Close a shard's connection with a gateway close code (4000 lets the bot resume).

        From this call on the shard counts as disconnected: its events wait for a RESUME.
        """
        key = self._shard_key(shard)
        ws = self._sockets.pop(key)
        self._compress.pop(key, None)
        await ws.close(code=code, message=b"closed by the double")

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        compressor = zlib.compressobj() if request.query.get("compress") == "zlib-stream" else None
        # Until IDENTIFY or RESUME names the shard, the socket sits under a key of its own.
        key: int | None = -id(ws)
        self._sockets[key] = ws
        self._compress[key] = compressor
        hello = {"op": 10, "d": {"heartbeat_interval": self.heartbeat_interval_ms}, "s": None, "t": None}
        await self._send_ws(ws, compressor, hello)
        try:
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    continue
                frame = json.loads(message.data)
                self.gateway_log.append({**frame, "_t": time.monotonic()})
                op, d = frame.get("op"), frame.get("d")
                if op == 1:
                    if self.ack_heartbeats and not ws.closed:
                        await self._send_ws(ws, compressor, {"op": 11, "d": None})
                elif op == 2:
                    self.identify_count += 1
                    if d.get("token") != self.token:
                        await ws.close(code=4004, message=b"Authentication failed.")
                        break
                    shard_id, shard_count = d.get("shard") or (None, 1)
                    if shard_id is not None and not 0 <= shard_id < shard_count:
                        await ws.close(code=4010, message=b"Invalid shard.")
                        break
                    if shard_id is not None:
                        self.shard_count = shard_count
                    key = self._rekey(key, shard_id)
                    await self._ready(key, d, shard_count)
                elif op == 6:
                    self.resume_count += 1
                    key = await self._resume(ws, key, d)
                await self._notify()
        finally:
            self.close_codes.append(ws.close_code)
            for k, v in list(self._sockets.items()):
                if v is ws:
                    del self._sockets[k]
                    self._compress.pop(k, None)
            await self._notify()
        return ws

    async def _resume(self, ws: web.WebSocketResponse, key: int | None, resume: dict[str, Any]) -> int | None:
        """Continue a session on a new connection: the events after the bot's `seq`, then RESUMED."""
        session = self._sessions.get(resume.get("session_id") or "")
        seq = resume.get("seq") or 0
        if session is None or not session.valid or resume.get("token") != self.token or seq > session.seq:
            await self._send_ws(ws, self._compress.get(key), {"op": 9, "d": False, "s": None, "t": None})
            return key
        missed = [frame for frame in session.sent if frame["s"] > seq]
        if session.sent and session.sent[0]["s"] > seq + 1:
            # Older than what is kept: Discord would not resume this either.
            session.valid = False
            await self._send_ws(ws, self._compress.get(key), {"op": 9, "d": False, "s": None, "t": None})
            return key
        key = self._rekey(key, session.shard)
        self._current[key] = session
        for frame in missed:
            await self._send_ws(ws, self._compress.get(key), frame)
        self.replayed += len(missed)
        await self.dispatch("RESUMED", {}, shard=key)
        return key

    def _rekey(self, old: int | None, new: int | None) -> int | None:
        self._sockets[new] = self._sockets.pop(old)
        self._compress[new] = self._compress.pop(old)
        return new

    async def _ready(self, shard: int | None, identify: dict[str, Any], shard_count: int) -> None:
        mine = [g for g in self.guilds if (int(g["id"]) >> 22) % shard_count == (shard or 0)]
        session_id = f"session-{shard}-{self.ids()}"
        old = self._current.get(shard)
        if old is not None:
            old.valid = False  # a new IDENTIFY ends the shard's previous session
        self._sessions[session_id] = self._current[shard] = _Session(session_id, shard)
        ready = {
            "v": 10,
            "user": BOT_USER,
            "session_id": session_id,
            "resume_gateway_url": self.gateway_url,
            "shard": identify.get("shard"),
            "guilds": [{"id": g["id"], "unavailable": True} for g in mine],
            "application": {"id": APPLICATION_ID, "flags": 0},
            "private_channels": [],
            "relationships": [],
        }
        await self.dispatch("READY", ready, shard=shard)
        for guild in mine:
            await self.dispatch("GUILD_CREATE", guild, shard=shard)
        self.identified.set()
        async with self._changed:
            self._ready_shards.add(shard or 0)
            self._changed.notify_all()


@contextlib.contextmanager
def discord_pointed_at(api_base: str, gateway_url: str) -> Iterator[None]:
    """Point discord.py's REST and gateway endpoints elsewhere for the duration of the block."""
    import discord.gateway
    import discord.http

    old = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    point_discord_at(api_base, gateway_url)
    try:
        yield
    finally:
        discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old
