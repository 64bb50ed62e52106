"""Nothing holds the loop (issue #13 item 2): /ping from another server while each heavy command runs.

    .venv/bin/python -m tests.perf.bench_offloop [--quick]

The bot runs in this process, connected to the double over the gateway, on a temporary SQLite database. For
each heavy input: the command's wall time, this process's CPU over it (the worker process's is not counted),
and the delay of a /ping sent every 25 ms from another server while it ran, counted from when each was due.
`--quick` uses a session of 200 rolls and 2,000 tallies instead of 2,000 and 20,000.

It also prints the time figures tests no longer assert (tests/test_free_loop.py runs the heavy inputs without
the probe): the slowest refusal of a capped /roll (tests/cogs/test_dice.py) and a warm /dnd attack's answer time
against the 0.3 s window of tests/db/test_slow_database.py.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import tempfile
import time
from datetime import UTC, datetime
from typing import Any

from bot.client import DiceBot
from bot.config import Settings
from bot.db.engine import open_database
from bot.db.migrate import upgrade
from bot.local import payloads
from bot.local.double import Captured
from bot.local.driver import Exchange, LocalDiscord, local_discord
from bot.local.payloads import Actor, Snowflakes
from tests.helpers import HEAVIEST_ODDS, command_payload, large_session, many_tallies

FIXED_TIME = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
PING_DEADLINE = 0.100  # the figure, in seconds
PACE = 0.025  # one /ping every 25 ms while the heavy command runs
ELSEWHERE_GUILD, ELSEWHERE_CHANNEL = "300000000000000777", "300000000000000778"
_PINGERS = itertools.count()


class Probe:
    """/ping from another server at a steady pace until stopped; each round trip counted from when it was due."""

    def __init__(self, local: LocalDiscord) -> None:
        self.local = local
        self.delays: list[float] = []
        self._answers: dict[str, asyncio.Future[float]] = {}

    def _heard(self, request: Captured) -> None:
        # Called by the double with each request: a lookup, not a scan of every request so far for every ping.
        parts = request.path.split("/")
        if len(parts) == 5 and parts[1] == "interactions" and parts[4] == "callback":
            answer = self._answers.get(parts[2])
            if answer is not None and not answer.done():
                answer.set_result(request.at)

    async def _one(self, due: float) -> None:
        # A user of its own per ping: the rate limit is per user, and is not what is measured here.
        user = str(210000000000000000 + next(_PINGERS))
        actor = Actor(user_id=user, guild_id=ELSEWHERE_GUILD, channel_id=ELSEWHERE_CHANNEL)
        data = payloads.command_data("ping", [])
        payload = payloads.interaction(self.local.ids, actor, payloads.APPLICATION_COMMAND, data)
        answer = self._answers[payload["id"]] = asyncio.get_running_loop().create_future()
        await self.local.double.dispatch("INTERACTION_CREATE", payload)
        self.delays.append(await asyncio.wait_for(answer, 60) - due)

    async def run(self, stop: asyncio.Event) -> None:
        self.local.double.listeners.append(self._heard)
        started, pings = time.monotonic(), []
        try:
            while not stop.is_set():
                due = started + len(pings) * PACE
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                pings.append(asyncio.create_task(self._one(due)))
            await asyncio.gather(*pings)
        finally:
            self.local.double.listeners.remove(self._heard)


async def while_pinging(
    local: LocalDiscord, payload: dict[str, Any], *, timeout: float = 180
) -> tuple[Exchange, Probe]:
    """Send a command and probe the loop with /ping from another server until the command has finished."""
    finished = asyncio.Event()

    async def done(interaction: Any, *_: Any) -> None:
        if str(interaction.id) == payload["id"]:
            finished.set()

    local.bot.add_listener(done, "on_app_command_completion")
    probe = Probe(local)
    probing = asyncio.create_task(probe.run(finished))
    try:
        exchange = await asyncio.wait_for(_sent_and_finished(local, payload, finished), timeout)
    finally:
        finished.set()
        await probing
        local.bot.remove_listener(done, "on_app_command_completion")
    return exchange, probe


async def _sent_and_finished(local: LocalDiscord, payload: dict[str, Any], finished: asyncio.Event) -> Exchange:
    # `send` returns once no interaction runs, and the probe keeps sending until the command has finished.
    sending = asyncio.create_task(local.send(payload, timeout=600))
    await finished.wait()
    return await sending


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


async def measure(local: LocalDiscord, name: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    cpu, wall = time.process_time(), time.monotonic()
    exchange, probe = await while_pinging(local, command_payload(local, name, options))
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    delays = [d * 1000 for d in probe.delays]
    return {
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "pings": len(delays),
        "ping_p50_ms": round(percentile(delays, 0.5), 1),
        "ping_p90_ms": round(percentile(delays, 0.9), 1),
        "ping_max_ms": round(max(delays, default=float("nan")), 1),
        "late": sum(d > PING_DEADLINE * 1000 for d in delays),
        "files": len(exchange.files),
    }


# Inputs /roll refuses before rolling a die (tests/cogs/test_dice.py), and how soon a warm roll must answer to go out
# without a defer in tests/db/test_slow_database.py's tightened window: figures these tests once asserted.
CAPPED = ("1001d6", "100000d100000", "1d0", "1d10001", "1+" * 100 + "1", "600d6+500d6", "1d6!>0")
REFUSAL_TARGET_MS = 1000.0
QUICK_ATTACK = {"attack_bonus": 5, "damage": "1d8+3", "target_ac": 15}
TIGHT_DEFER_MS = 300.0


async def quick_answers(local: LocalDiscord) -> dict[str, Any]:
    """The slowest refusal of a capped /roll, and a warm /dnd attack's answer time (its second; the first warms up)."""
    refusals = []
    for expression in CAPPED:
        started = time.monotonic()
        refused = await local.command("roll", {"expression": expression})
        refusals.append((time.monotonic() - started) * 1000)
        assert refused.embed["title"] == "Can't roll that", refused.embed
    attacks = []
    for _ in range(2):
        started = time.monotonic()
        await local.command("dnd attack", QUICK_ATTACK)
        attacks.append((time.monotonic() - started) * 1000)
    return {
        "refusal_max_ms": round(max(refusals), 1),
        "attack_cold_ms": round(attacks[0], 1),
        "attack_warm_ms": round(attacks[1], 1),
    }


async def run(quick: bool) -> dict[str, Any]:
    """Every heavy input, one after another, on one bot."""
    rolls, tallies = (200, 2_000) if quick else (2_000, 20_000)
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(database_url=f"sqlite+aiosqlite:///{folder}/bot.db")
        database = open_database(settings.database_url)
        await upgrade(database)

        def make_bot() -> DiceBot:
            return DiceBot(settings=settings, database=database, dice=random.Random(7), clock=lambda: FIXED_TIME)

        figures: dict[str, Any] = {"rolls": rolls, "tallies": tallies}
        try:
            async with local_discord(make_bot, connect=True, ids=Snowflakes(1767225600000)) as local:
                figures["quick answers"] = await quick_answers(local)
                await large_session(local, database, rolls)
                figures["fair reveal"] = await measure(local, "fair reveal")
                figures["fair log"] = await measure(local, "fair log")
                await many_tallies(local, database, tallies)
                figures["stats"] = await measure(local, "stats")
                figures["dnd attack 7d999"] = await measure(local, "dnd attack", HEAVIEST_ODDS)
                figures["dnd odds 7d999"] = await measure(local, "dnd odds", HEAVIEST_ODDS)
        finally:
            await database.dispose()
    return figures


def rows(figures: dict[str, Any] | None) -> list[tuple[str, str, str, str, str]]:
    """(area, measure, value, target, verdict) for `python -m tests.perf`'s table."""
    out: list[tuple[str, str, str, str, str]] = []
    if not figures:
        return out
    quick = figures.get("quick answers")
    if quick:
        refused, warm = quick["refusal_max_ms"], quick["attack_warm_ms"]
        verdict = "ok" if refused < REFUSAL_TARGET_MS else "MISSED"
        label = f"/roll of a capped input, slowest of {len(CAPPED)}"
        out.append(("offloop", label, f"{refused} ms", f"< {REFUSAL_TARGET_MS:.0f} ms", verdict))
        out.append(
            (
                "offloop",
                "/dnd attack, first / warm",
                f"{quick['attack_cold_ms']} / {warm} ms",
                f"warm < {TIGHT_DEFER_MS:.0f} ms",
                "ok" if warm < TIGHT_DEFER_MS else "MISSED",
            )
        )
    for name, run in figures.items():
        if not isinstance(run, dict) or name == "quick answers":
            continue
        rolls, tallies = f"{figures['rolls']:,}", f"{figures['tallies']:,}"
        size = {
            "fair reveal": f"{rolls} x 1000d10000",
            "fair log": f"{rolls} x 1000d10000",
            "stats": f"{tallies} rolls",
        }
        label = f"/{name}" + (f", {size[name]}" if name in size else "")
        timing = f"{run['wall_s']} / {run['cpu_s']} s"
        out.append(("offloop", f"{label}: wall / CPU of the bot's process", timing, "", ""))
        late = run["late"]
        out.append(
            (
                "offloop",
                f"  /ping meanwhile ({run['pings']}): p50 / p90 / max",
                f"{run['ping_p50_ms']} / {run['ping_p90_ms']} / {run['ping_max_ms']} ms",
                f"<= {PING_DEADLINE * 1000:.0f} ms",
                "ok" if late <= run["pings"] // 10 else f"{late} late",
            )
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.perf.bench_offloop", description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    figures = asyncio.run(run(args.quick))
    for row in rows(figures):
        print("  ".join(row).rstrip())
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
