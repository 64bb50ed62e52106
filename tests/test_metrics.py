"""The operator's metrics and health check (#31 item 2): off by default, and counting what happened when on.

The bot serves them on a free port here (METRICS_PORT=0 would be refused from the environment; tests build the
settings directly). Counters are process-wide, as prometheus_client keeps them, so each test compares a scrape
taken before with one taken after.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Iterator
from types import SimpleNamespace

import aiohttp
import pytest

from bot.__main__ import main
from bot.config import RateLimit, Settings
from bot.local.driver import LocalDiscord
from bot.tree import RateLimiter


@pytest.fixture
def settings(settings: Settings) -> Iterator[Settings]:
    yield dataclasses.replace(settings, metrics_port=0)


def url(local: LocalDiscord, path: str) -> str:
    runner = local.bot.metrics_server  # type: ignore[attr-defined]
    host, port = runner.addresses[0][:2]
    return f"http://{host}:{port}{path}"


async def scrape(local: LocalDiscord) -> dict[str, float]:
    """Every sample of /metrics, by its name and labels as written: `dicebot_commands_total{command="roll",...}`."""
    async with aiohttp.ClientSession() as session, session.get(url(local, "/metrics")) as response:
        assert response.status == 200 and response.content_type == "text/plain"
        text = await response.text()
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            samples[name] = float(value)
    return samples


def grew(before: dict[str, float], after: dict[str, float], name: str) -> float:
    return after.get(name, 0.0) - before.get(name, 0.0)


async def health(local: LocalDiscord) -> tuple[int, dict[str, object]]:
    async with aiohttp.ClientSession() as session, session.get(url(local, "/health")) as response:
        return response.status, await response.json()


async def test_commands_are_counted_by_name_and_outcome_with_the_time_to_their_final_answer(
    local: LocalDiscord,
) -> None:
    before = await scrape(local)
    for _ in range(5):
        await local.command("roll", {"expression": "2d6"})
    refused = await local.command("roll", {"expression": "2d6+"})
    assert refused.ephemeral
    local.bot.tree.defer_after = 0.0  # type: ignore[attr-defined]  # the watchdog defers at once
    await local.command("dnd attack", {"attack_bonus": 5, "damage": "1d8+3", "target_ac": 15})
    after = await scrape(local)

    assert grew(before, after, 'dicebot_commands_total{command="roll",outcome="ok"}') == 5
    assert grew(before, after, 'dicebot_commands_total{command="roll",outcome="user_error"}') == 1
    assert grew(before, after, 'dicebot_commands_total{command="dnd attack",outcome="ok"}') == 1
    assert grew(before, after, 'dicebot_answer_seconds_count{command="roll"}') == 6
    assert grew(before, after, 'dicebot_answer_seconds_bucket{command="roll",le="900.0"}') == 6
    assert grew(before, after, "dicebot_deferrals_total") == 1
    assert grew(before, after, "dicebot_database_seconds_count") > 0  # every roll is logged before it is shown
    assert after["dicebot_in_flight"] == 0
    assert after["dicebot_guilds"] == len(local.bot.guilds)


async def test_refusals_and_discords_429s_are_counted(local: LocalDiscord) -> None:
    before = await scrape(local)
    local.double.inject_429("POST", "/interactions/*/callback", retry_after=0.05)
    answered = await local.command("roll", {"expression": "1d20"})
    assert answered.embed["description"].startswith("1d20 (")
    local.bot.tree._limiter = RateLimiter(RateLimit(commands=1, seconds=60), local.bot.clock)  # type: ignore[attr-defined]
    await local.command("roll", {"expression": "1d20"})
    slow_down = await local.command("roll", {"expression": "1d20"})
    assert slow_down.embed["title"] == "Slow down"
    after = await scrape(local)
    assert grew(before, after, "dicebot_discord_429_total") == 1
    assert grew(before, after, "dicebot_rate_limited_total") == 1


async def test_health_says_what_is_wrong(local: LocalDiscord, monkeypatch: pytest.MonkeyPatch) -> None:
    # The in-process double logs the bot in without a gateway connection: not ready for Discord's events.
    status, body = await health(local)
    assert (status, body) == (503, {"ok": False, "gateway": "not connected", "database": "ok"})

    monkeypatch.setattr(local.bot, "is_ready", lambda: True)
    status, body = await health(local)
    assert (status, body) == (200, {"ok": True, "gateway": "connected", "database": "ok"})

    def unreachable() -> object:
        raise ConnectionRefusedError("the database went away")

    monkeypatch.setattr(local.bot, "database", SimpleNamespace(read=unreachable))
    status, body = await health(local)
    assert (status, body) == (503, {"ok": False, "gateway": "connected", "database": "failing: ConnectionRefusedError"})


def test_metrics_are_off_unless_a_port_is_set() -> None:
    assert Settings().metrics_port is None and Settings.from_env({}).metrics_port is None
    assert Settings.from_env({"METRICS_PORT": "9108"}).metrics_port == 9108
    with pytest.raises(Exception, match=re.escape("METRICS_PORT must be a port number (1-65535)")):
        Settings.from_env({"METRICS_PORT": "99999"})


async def test_python_m_bot_health_asks_the_running_bot(local: LocalDiscord, monkeypatch: pytest.MonkeyPatch) -> None:
    """The image's HEALTHCHECK: exit 0 when healthy, 1 when not or when nothing answers, 2 without METRICS_PORT."""
    port = local.bot.metrics_server.addresses[0][1]  # type: ignore[attr-defined]
    monkeypatch.setenv("METRICS_PORT", str(port))
    assert await asyncio.to_thread(main, ["health"]) == 1  # no gateway in-process: unhealthy
    monkeypatch.setattr(local.bot, "is_ready", lambda: True)
    assert await asyncio.to_thread(main, ["health"]) == 0
    monkeypatch.setenv("METRICS_PORT", "1")
    assert await asyncio.to_thread(main, ["health"]) == 1
    monkeypatch.setenv("METRICS_PORT", "")
    assert await asyncio.to_thread(main, ["health"]) == 2


async def test_a_restarted_bot_times_each_statement_once(local: LocalDiscord) -> None:
    """A bot started again over the same database (the console's restart) adds no second stopwatch to it."""
    engine = local.bot.database.engine.sync_engine
    stopwatches = len(engine.dispatch.before_cursor_execute)
    await local.restart()
    assert local.bot.metrics_server is not None  # type: ignore[attr-defined]  # the new bot serves metrics too
    assert len(engine.dispatch.before_cursor_execute) == stopwatches
