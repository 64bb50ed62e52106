"""Faults between the bot and Discord, through the double with the bot connected over its gateway.

REST: rate limits (a route's and the global one) and server errors on every endpoint the bot answers
through are waited out or retried, and the user gets the answer exactly once. Gateway: a dropped
connection, RECONNECT, INVALID_SESSION and a zombie connection end in a RESUME (or, when the session is
gone, a new IDENTIFY), and the bot keeps answering. Process: `kill -9` in the middle of a burst of edits
loses no acknowledged edit and leaves the database consistent.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import fnmatch
import random
import re
import signal
import sqlite3
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import select

from bot.client import DiceBot
from bot.config import Settings
from bot.db.engine import Database, open_database
from bot.db.models import Character
from bot.local.double import DEFERRED_MESSAGE, Captured, DiscordDouble
from bot.local.driver import Exchange, LocalDiscord, local_discord
from bot.local.payloads import APPLICATION_COMMAND, Actor, command_data, interaction
from tests.conftest import FIXED_TIME, POSTGRES
from tests.dice_sources import ScriptedDice
from tests.helpers import GM_CHANNEL, set_gm_channel
from tests.shards import GUILDS, OWNER, Shards, deploy_step, embed_of, environment, version_of

pytestmark = pytest.mark.slow  # starts processes or runs for seconds: scheduled first (tests/conftest.py)

HEARTBEAT_MS = 100  # discord.py looks for a silent gateway once per heartbeat: short, so a zombie is seen soon
RETRY_AFTER = 0.3
CALLBACK = "/interactions/*/callback"
FOLLOWUP = "/webhooks/*/*"
GM_POST = f"/channels/{GM_CHANNEL}/messages"


@contextlib.asynccontextmanager
async def gateway_bot(
    settings: Settings, database: Database, dice: random.Random, **options: Any
) -> AsyncIterator[LocalDiscord]:
    """The bot connected to the double's gateway, with quick heartbeats; `options` go to the bot."""

    def make() -> DiceBot:
        return DiceBot(settings=settings, database=database, dice=dice, clock=lambda: FIXED_TIME, **options)

    async with local_discord(make, connect=True, heartbeat_interval_ms=HEARTBEAT_MS) as driver:
        yield driver


@pytest_asyncio.fixture
async def online(settings: Settings, database: Database, dice: random.Random) -> AsyncIterator[LocalDiscord]:
    async with gateway_bot(settings, database, dice) as driver:
        yield driver


def fault(double: DiscordDouble, kind: str | int, method: str, pattern: str, *, applied: bool = False) -> float:
    """Queue one fault: "429" (a route's rate limit), "429-global", or a 5xx; returns the least wait it costs."""
    if kind == "429":
        double.inject_429(method, pattern, RETRY_AFTER)
        return RETRY_AFTER
    if kind == "429-global":
        double.inject_429(method, pattern, RETRY_AFTER, scope="global")
        return RETRY_AFTER
    assert isinstance(kind, int)
    double.inject(method, pattern, kind, {"message": "Server error", "code": 0}, applied=applied)
    return 1.0  # discord.py waits 1 s before its first retry of a 5xx


def answered_once(double: DiscordDouble) -> None:
    """No interaction got two initial responses, and Discord never had to refuse one as a repeat."""
    accepted = collections.Counter(
        r.path.split("/")[2] for r in double.requests if r.path.endswith("/callback") and r.status == 200
    )
    assert [iid for iid, n in accepted.items() if n > 1] == []
    assert [r for r in double.requests if r.status in (400, 404) and "/interactions/" in r.path] == []


def statuses(exchange: Exchange, method: str, pattern: str) -> list[int]:
    """The statuses the double gave the exchange's requests to one endpoint, in order."""
    return [r.status for r in exchange.requests if r.method == method and fnmatch.fnmatchcase(r.path, pattern)]


FAULTS = ["429", "429-global", 500, 502, 503]


# ---------------------------------------------------------------------------------------------------------
# REST: 429 and 5xx on the interaction callback, the webhook followup and a channel message.


@pytest.mark.parametrize("kind", FAULTS)
async def test_the_first_answer_survives_a_fault_of_the_callback(online: LocalDiscord, kind: str | int) -> None:
    wait = fault(online.double, kind, "POST", CALLBACK)
    started = time.monotonic()
    exchange = await online.command("roll", {"expression": "1d6+1"})
    assert statuses(exchange, "POST", CALLBACK) == [429 if "429" in str(kind) else kind, 200]
    assert exchange.requests[1].at - started >= wait
    assert exchange.embed["description"].startswith("1d6 (")
    answered_once(online.double)


@pytest.mark.parametrize("kind", FAULTS)
async def test_a_followup_survives_a_fault(online: LocalDiscord, kind: str | int) -> None:
    online.bot.tree.defer_after = 0.0  # type: ignore[attr-defined]  # the watchdog defers at once
    wait = fault(online.double, kind, "POST", FOLLOWUP)
    exchange = await online.command("roll", {"expression": "1d6+1"})
    assert exchange.response["type"] == DEFERRED_MESSAGE
    assert statuses(exchange, "POST", FOLLOWUP) == [429 if "429" in str(kind) else kind, 200]
    [followup] = [r for r in exchange.requests if r.method == "POST" and r.status == 200 and "/webhooks/" in r.path]
    assert followup.at - exchange.requests[0].at >= wait
    assert online.original(exchange)["embeds"][0]["description"].startswith("1d6 (")
    answered_once(online.double)


def gm_posts(double: DiscordDouble) -> list[Captured]:
    return [r for r in double.requests if r.method == "POST" and r.path == GM_POST]


def gm_messages(double: DiscordDouble) -> list[dict[str, Any]]:
    """The distinct messages in the GM channel."""
    unique = {m["id"]: m for m in double.messages.values() if m["channel_id"] == GM_CHANNEL}
    return list(unique.values())


@pytest.mark.parametrize("kind", FAULTS)
async def test_a_hidden_roll_reaches_the_gm_channel_through_a_fault(online: LocalDiscord, kind: str | int) -> None:
    """503 is the one discord.py does not retry on a channel message; the bot retries it itself."""
    await set_gm_channel(online)
    online.bot.dice = ScriptedDice([17])
    fault(online.double, kind, "POST", GM_POST)
    exchange = await online.command("roll", {"expression": "1d20+3", "hidden": True})
    assert [r.status for r in gm_posts(online.double)] == [429 if "429" in str(kind) else kind, 200]
    [message] = gm_messages(online.double)
    assert message["embeds"][0]["description"].split("\n")[0] == "1d20 (17) + 3 = **20**"  # then its odds
    assert exchange.rejected == [] and len(exchange.messages) == 1  # the notice only: no apology
    answered_once(online.double)


@pytest.mark.parametrize("status", [500, 502, 503])
async def test_a_gm_post_whose_answer_is_lost_is_not_posted_twice(online: LocalDiscord, status: int) -> None:
    """Discord made the message but the answer was a 5xx: the retry carries the same nonce, so no second one."""
    await set_gm_channel(online)
    fault(online.double, status, "POST", GM_POST, applied=True)
    await online.command("roll", {"expression": "1d20+3", "hidden": True})
    assert [r.status for r in gm_posts(online.double)] == [status, 200]
    assert len(gm_messages(online.double)) == 1
    history = await online.command("history", {"count": 5})
    assert history.rejected == []


@pytest.mark.parametrize("status", [500, 502, 503])
async def test_a_callback_whose_answer_is_lost_is_answered_once(online: LocalDiscord, status: int) -> None:
    """Discord took the answer but replied 5xx; discord.py's retry gets "already acknowledged" (40060).

    The answer is there, so the bot carries on as if the first attempt had succeeded: no apology, and the
    roll is logged with the message it landed in.
    """
    fault(online.double, status, "POST", CALLBACK, applied=True)
    exchange = await online.command("roll", {"expression": "1d6+1"})
    callbacks = [r for r in exchange.requests if r.path.endswith("/callback")]
    assert [r.status for r in callbacks] == [status, 400]  # the retry, refused as a repeat
    assert [r for r in exchange.requests if "/webhooks/" in r.path and r.method == "POST"] == []  # no apology
    assert online.original(exchange)["embeds"][0]["description"].startswith("1d6 (")
    history = await online.command("history", {"count": 5})
    assert "1d6" in history.embed["description"]


async def test_a_defer_whose_answer_is_lost_still_leads_to_the_answer(online: LocalDiscord) -> None:
    """The watchdog's defer lands but its reply is a 5xx: the answer still replaces the thinking message."""
    online.bot.tree.defer_after = 0.0  # type: ignore[attr-defined]  # the watchdog defers at once
    fault(online.double, 502, "POST", CALLBACK, applied=True)
    exchange = await online.command("roll", {"expression": "1d6+1"})
    callbacks = [r for r in exchange.requests if r.path.endswith("/callback")]
    assert [(r.status, r.body["type"]) for r in callbacks] == [(502, DEFERRED_MESSAGE), (400, DEFERRED_MESSAGE)]
    [followup] = [r for r in exchange.requests if "/webhooks/" in r.path and r.method == "POST"]
    assert followup.body["embeds"][0]["description"].startswith("1d6 (")  # the answer, not an apology
    assert online.original(exchange)["embeds"][0]["description"].startswith("1d6 (")


# ---------------------------------------------------------------------------------------------------------
# Gateway: the connection drops, is moved, is invalidated or goes silent.


async def still_answers(online: LocalDiscord) -> None:
    exchange = await online.command("roll", {"expression": "2d6"})
    assert exchange.rejected == [] and exchange.embed["description"].startswith("2d6 (")
    answered_once(online.double)


async def resumed(double: DiscordDouble, count: int = 1) -> None:
    await double.wait_until(lambda: double.resume_count >= count and double.connected, timeout=10)


async def test_a_connection_closed_with_4000_is_resumed(online: LocalDiscord) -> None:
    double = online.double
    await double.close_gateway(4000)
    await resumed(double)
    assert (double.identify_count, double.resume_count) == (1, 1)
    await still_answers(online)


async def test_an_interaction_sent_while_disconnected_is_replayed_on_resume(online: LocalDiscord) -> None:
    double = online.double
    await double.close_gateway(4000)
    assert not double.connected
    payload = interaction(
        double.ids,
        online.actor,
        APPLICATION_COMMAND,
        command_data("roll", [{"name": "expression", "type": 3, "value": "d8"}]),
    )
    await double.dispatch("INTERACTION_CREATE", payload)  # kept for the RESUME
    [answer] = await double.wait_for("POST", f"/interactions/{payload['id']}/*/callback", timeout=10)
    assert answer.body["data"]["embeds"][0]["description"].startswith("1d8 (")
    assert (double.identify_count, double.resume_count, double.replayed) == (1, 1, 1)
    await still_answers(online)


async def test_reconnect_op_7_is_resumed(online: LocalDiscord) -> None:
    double = online.double
    await double.send_op(7)
    await resumed(double)
    assert (double.identify_count, double.resume_count) == (1, 1)
    await still_answers(online)


async def test_a_resumable_invalid_session_is_resumed(online: LocalDiscord) -> None:
    double = online.double
    await double.send_op(9, True)
    await resumed(double)
    assert (double.identify_count, double.resume_count) == (1, 1)
    await still_answers(online)


async def test_an_invalidated_session_identifies_again(online: LocalDiscord) -> None:
    double = online.double
    started = time.monotonic()
    await double.send_op(9, False)
    # discord.py waits Discord's 5 seconds between IDENTIFYs before it sends the second.
    await double.wait_until(lambda: double.identify_count == 2 and double.connected, timeout=15)
    assert time.monotonic() - started >= 5.0
    assert (double.identify_count, double.resume_count) == (2, 0)
    await asyncio.wait_for(online.bot.wait_until_ready(), 10)
    await still_answers(online)


async def test_a_zombie_connection_is_closed_and_resumed(
    settings: Settings, database: Database, dice: random.Random
) -> None:
    """The gateway stops acknowledging heartbeats: discord.py gives up on it after `heartbeat_timeout`."""
    async with gateway_bot(settings, database, dice, heartbeat_timeout=1.0) as online:
        double = online.double
        double.ack_heartbeats = False
        started = time.monotonic()
        await double.wait_until(lambda: double.resume_count == 1, timeout=10)
        double.ack_heartbeats = True
        # Silent for the timeout since the last ACK, which came up to a heartbeat before `started`.
        assert time.monotonic() - started >= 1.0 - HEARTBEAT_MS / 1000
        assert double.close_codes == [4000]  # the bot closed the silent connection itself
        await resumed(double)
        assert (double.identify_count, double.resume_count) == (1, 1)
        await still_answers(online)


async def test_a_resume_of_an_unknown_session_identifies_again(online: LocalDiscord) -> None:
    """The double refuses a RESUME it cannot honour with op 9 d=false, as Discord does."""
    double = online.double
    double.forget_sessions()
    await double.close_gateway(4000)
    await double.wait_until(lambda: double.identify_count == 2 and double.connected, timeout=15)
    assert double.resume_count == 1
    await asyncio.wait_for(online.bot.wait_until_ready(), 10)
    await still_answers(online)


# ---------------------------------------------------------------------------------------------------------
# Process: `kill -9` in the middle of a burst of character edits.

CHARACTERS = 8
EDITS_EACH = 25  # 200 edits in all
KILL_AFTER = 80  # acknowledged edits before the process is killed
SAVED = re.compile(r"\*\*(?P<name>[^*]+)\*\*: `bab` (?P<before>\d+) → (?P<after>\d+)")


async def start_bot(double: DiscordDouble, database_url: str, folder: Path, log: str) -> asyncio.subprocess.Process:
    # A file, not a pipe: a pipe nobody reads would stall the bot once full.
    with open(folder / log, "wb") as output:  # noqa: ASYNC230 - opened once, before the process starts
        return await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", env=environment(double, database_url), cwd=folder, stderr=output
        )


def saved_bab(request: Captured) -> tuple[str, int] | None:
    """The character and `bab` of a "Saved" answer the double accepted (first response or followup)."""
    if request.status != 200 or request.method not in ("POST", "PATCH") or not isinstance(request.body, dict):
        return None
    message = request.body.get("data") or {} if request.path.endswith("/callback") else request.body
    embeds = message.get("embeds") or [{}]
    found = SAVED.fullmatch(embeds[0].get("description", "")) if embeds[0].get("title") == "Saved" else None
    return (found["name"], int(found["after"])) if found else None


def acknowledged(double: DiscordDouble) -> dict[str, int]:
    """Per character name, the last `bab` value the bot told its user it saved."""
    last: dict[str, int] = {}
    for name, bab in filter(None, map(saved_bab, double.requests)):
        last[name] = max(last.get(name, 0), bab)
    return last


async def edit_chain(double: DiscordDouble, character: int) -> None:
    """Set one character's `bab` to 1, 2, ... in turn, each edit sent once the previous one was answered.

    One edit in flight per character (many characters at once) makes every outcome checkable: edit k is
    applied exactly when the character's version reached 1 + k, and then its `bab` is k.
    """
    actor = Actor(user_id=OWNER, guild_id=GUILDS[0][0], channel_id=GUILDS[0][1])
    for k in range(1, EDITS_EACH + 1):
        options = {"character": f"#{character}", "field": "bab", "value": str(k)}
        raw = [{"name": name, "type": 3, "value": value} for name, value in options.items()]
        payload = interaction(double.ids, actor, APPLICATION_COMMAND, command_data("character set", raw))
        await double.dispatch("INTERACTION_CREATE", payload)
        # The "Saved" may come as the first response or, after a defer, as the followup.
        token = payload["token"]
        await double.wait_until(lambda: any(token in r.path and saved_bab(r) for r in double.requests), timeout=30)  # noqa: B023


async def rows(database_url: str) -> dict[str, tuple[int, int]]:
    """Per character name, its stored version and `bab`, read directly from the database."""
    database = open_database(database_url)
    try:
        async with database.read() as session:
            found = (await session.execute(select(Character.name, Character.version, Character.sheet))).all()
    finally:
        await database.dispose()
    return {name: (version, sheet.get("bab", 0)) for name, version, sheet in found}


async def test_kill_9_during_a_burst_of_edits_loses_no_acknowledged_edit(bot_database: str, tmp_path: Path) -> None:
    url = bot_database
    async with DiscordDouble(guilds=GUILDS[:1]) as double:
        await deploy_step(environment(double, url), tmp_path, "migrate")  # as the deployment does (compose.yaml)
        first = await start_bot(double, url, tmp_path, "first.log")
        shards = Shards(double, [first])
        chains: list[asyncio.Task[None]] = []
        try:
            await double.wait_until(lambda: double.connected or first.returncode is not None, timeout=60)
            assert first.returncode is None, (tmp_path / "first.log").read_text()[-3000:]
            characters = {}
            for n in range(CHARACTERS):
                created = await shards.send(0, "character create", {"ruleset": "dnd35", "name": f"Hero{n}"})
                characters[f"Hero{n}"] = version_of(created)[0]
            chains = [asyncio.create_task(edit_chain(double, c)) for c in characters.values()]
            await double.wait_until(lambda: sum(acknowledged(double).values()) >= KILL_AFTER, timeout=60)
            first.kill()  # SIGKILL: no shutdown, transactions in flight die with the process
            await first.wait()
        finally:
            if first.returncode is None:
                first.kill()
                await first.wait()
            for chain in chains:
                chain.cancel()
            outcomes = await asyncio.gather(*chains, return_exceptions=True)
        # Each chain ran until the kill or to its end: none stopped on an edit the bot refused.
        assert [o for o in outcomes if o is not None and not isinstance(o, asyncio.CancelledError)] == []
        assert first.returncode == -signal.SIGKILL
        acked = acknowledged(double)
        assert KILL_AFTER <= sum(acked.values()) < CHARACTERS * EDITS_EACH, "the kill missed the burst"

        if not POSTGRES:
            with contextlib.closing(sqlite3.connect(tmp_path / "bot.db")) as db:
                assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
                assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        stored = await rows(url)
        print(f"killed after {sum(acked.values())} acknowledged edits; acknowledged {acked}; stored {stored}")  # noqa: T201
        for name in characters:
            version, bab = stored[name]
            # Edits are sequential per character: bab is the last one applied, and each one bumped the version.
            assert version == 1 + bab, (name, version, bab)
            # Every acknowledged edit is there; at most the one in flight at the kill is there unacknowledged.
            assert acked.get(name, 0) <= bab <= acked.get(name, 0) + 1, (name, acked.get(name), bab)

        second = await start_bot(double, url, tmp_path, "second.log")
        shards = Shards(double, [second])
        try:
            await double.wait_until(lambda: double.identify_count == 2 and double.connected, timeout=60)
            for name, character in characters.items():
                shown = await shards.send(0, "character show", {"character": f"#{character}"})
                assert version_of(shown) == (character, stored[name][0])
                again = await shards.send(
                    0, "character set", {"character": f"#{character}", "field": "bab", "value": "60"}
                )
                assert embed_of(again)["title"] == "Saved"
        finally:
            second.send_signal(signal.SIGTERM)
            await asyncio.wait_for(second.wait(), 30)
        assert second.returncode == 0, (tmp_path / "second.log").read_text()[-3000:]
        assert {name: version for name, (version, _) in (await rows(url)).items()} == {
            name: version + 1 for name, (version, _) in stored.items()
        }
