"""How long /roll takes through the whole local path, and how many lines per second the console handles.

    .venv/bin/python -m tests.perf.bench_roll [--count 1000]

The first figure is in-process: a raw INTERACTION_CREATE goes over the double's gateway (zlib-stream
websocket) to discord.py, through the command tree, the dice, the embed, the HTTP callback to the double,
and the roll log write to SQLite. "First response" stops the clock when the double receives the callback;
"handled" when every task of the interaction has finished (the roll log is written). Commands are sent one
after another. The second figure runs `python -m bot console --json` as a subprocess on a script of lines.
Figures are for comparison within one run on one machine; this is not a timed test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bot.client import DiceBot
from bot.config import Settings
from bot.db.engine import open_database
from bot.db.migrate import upgrade
from bot.local.driver import local_discord

EXPRESSION = "4d6kh3+1d20"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def bench_roll(count: int, folder: Path) -> None:
    settings = Settings(database_url=f"sqlite+aiosqlite:///{folder}/bench.db")
    database = open_database(settings.database_url)
    await upgrade(database)
    dice = random.Random(1)
    first: list[float] = []
    handled: list[float] = []
    async with local_discord(lambda: DiceBot(settings=settings, database=database, dice=dice), connect=True) as local:
        for _ in range(50):  # warm up caches and the connection pool
            await local.command("roll", {"expression": EXPRESSION})
        started = time.perf_counter()
        for _ in range(count):
            t0 = time.monotonic()
            exchange = await local.command("roll", {"expression": EXPRESSION})
            handled.append(time.monotonic() - t0)
            first.append(exchange.requests[0].at - t0)
            assert exchange.embed["description"].endswith("**"), exchange.requests
        wall = time.perf_counter() - started
    await database.dispose()
    print(f"/roll expression:{EXPRESSION}, {count} commands one after another over the double's gateway")
    for name, values in (("first response", first), ("handled (log written)", handled)):
        ms = [v * 1000 for v in values]
        print(
            f"  {name:22} median {statistics.median(ms):6.2f} ms   p99 {percentile(ms, 0.99):6.2f} ms"
            f"   max {max(ms):6.2f} ms"
        )
    print(f"  sequential throughput {count / wall:7.1f} commands/s")


def bench_console(count: int, folder: Path) -> None:
    script = "".join(f"/roll expression:{EXPRESSION} label:bench\n" for _ in range(count))
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{folder}/console.db", "DISCORD_TOKEN": ""}
    command = [sys.executable, "-m", "bot", "console", "--json", "--seed", "1"]
    subprocess.run(command, input="", capture_output=True, text=True, env=env, check=True)  # start-up only
    t0 = time.perf_counter()
    subprocess.run(command, input="", capture_output=True, text=True, env=env, check=True)
    startup = time.perf_counter() - t0
    t0 = time.perf_counter()
    result = subprocess.run(command, input=script, capture_output=True, text=True, env=env, check=True)
    total = time.perf_counter() - t0
    assert len(result.stdout.splitlines()) == count, result.stderr[-2000:]
    print(f"console --json, {count} lines piped in")
    print(f"  start-up and shutdown {startup:.2f} s, whole run {total:.2f} s")
    print(f"  {count / (total - startup):7.1f} lines/s after start-up ({count / total:.1f} lines/s including it)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(bench_roll(args.count, Path(folder)))
        bench_console(args.count, Path(folder))


if __name__ == "__main__":
    main()
