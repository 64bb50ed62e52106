"""Nothing holds the loop (issue #13 item 2): /ping from another server while each heavy command runs.

    .venv/bin/python -m tests.perf.bench_offloop [--quick]

The bot runs in this process, connected to the double over the gateway, on a temporary SQLite database. For
each heavy input: the command's wall time, this process's CPU over it (the worker process's is not counted),
and the delay of a /ping sent every 25 ms from another server while it ran, counted from when each was due.
`--quick` uses a session of 200 rolls and 2,000 tallies instead of 2,000 and 20,000.
"""

from __future__ import annotations

import argparse
import asyncio
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
from bot.local.driver import LocalDiscord, local_discord
from bot.local.payloads import Snowflakes
from tests.test_free_loop import HEAVIEST_ODDS, PING_DEADLINE, command, large_session, many_tallies, while_pinging

FIXED_TIME = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


async def measure(local: LocalDiscord, name: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    cpu, wall = time.process_time(), time.monotonic()
    exchange, probe = await while_pinging(local, command(local, name, options))
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
    for name, run in figures.items():
        if not isinstance(run, dict):
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
