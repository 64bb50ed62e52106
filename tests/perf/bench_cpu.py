"""CPU time per command of /ping, /roll and /dnd attack, in-process, and where it goes.

    .venv/bin/python -m tests.perf.bench_cpu [--count 200] [--rounds 5] [--profile roll|attack|ping] [--top 40]

The bot and the local double run in one process over the double's gateway, commands one after another,
as in `bench_roll`. CPU time (time.process_time) is counted per command, the double's share included, the least of
several interleaved rounds, so
the roll commands' figures are read against /ping's: the difference is what the roll path costs. Other
work on a shared machine does not move CPU time the way it moves wall time. `--profile` runs one command
under cProfile and prints the functions with the most cumulative time.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import random
import tempfile
import time
from pathlib import Path

from bot.client import DiceBot
from bot.config import Settings
from bot.db.engine import open_database
from bot.local.driver import local_discord
from tests.perf.harness import ATTACK, PING, ROLL, actor, seed_users

COMMANDS = {"ping": PING, "roll": ROLL, "attack": ATTACK}
USERS = 20


async def measure(count: int, folder: Path, profile: str | None, top: int, rounds: int = 5) -> dict[str, float]:
    """CPU ms per command of each command, the least over `rounds` interleaved rounds of `count` commands.

    The least, because other work on the machine only ever adds to a round (cache misses, a shared core).
    """
    database_url = f"sqlite+aiosqlite:///{folder}/bench.db"
    await seed_users(database_url, USERS)
    settings = Settings(database_url=database_url)  # no rate limit: not what is measured
    database = open_database(database_url)
    dice = random.Random(1)
    figures: dict[str, list[float]] = {label: [] for label in COMMANDS}
    async with local_discord(
        lambda: DiceBot(settings=settings, database=database, dice=dice), connect=True, actor=actor(0)
    ) as local:
        # Commands here come one after another, each waited for: a note's wait for the next roll (which helps
        # under load) would only spread them out in time, and a process that idles between commands is
        # slower on its return (cold caches on a shared machine), which is not what is measured.
        assert isinstance(local.bot, DiceBot)
        local.bot.roll_log.note_wait = 0
        for name, options in COMMANDS.values():
            for i in range(30):  # warm up caches and the connection pool
                await local.command(name, options, actor=actor(i % USERS))
        for round_ in range(rounds):
            for label, (name, options) in COMMANDS.items():
                profiler = cProfile.Profile(time.process_time) if label == profile and round_ == 0 else None
                started = time.process_time()
                if profiler is not None:
                    profiler.enable()
                for i in range(count):
                    exchange = await local.command(name, options, actor=actor(i % USERS))
                    assert exchange.requests, exchange
                if profiler is not None:
                    profiler.disable()
                    stats = pstats.Stats(profiler)
                    stats.sort_stats("cumulative").print_stats(top)
                    stats.sort_stats("tottime").print_stats(top)
                    print_by_package(stats, count)
                    continue
                figures[label].append((time.process_time() - started) / count * 1000)
    await database.dispose()
    return {label: min(values) for label, values in figures.items() if values}


def print_by_package(stats: pstats.Stats, count: int) -> None:
    """Own CPU time per command, summed by package (the bot's own modules by file)."""
    totals: dict[str, float] = {}
    for (filename, _line, _name), row in stats.stats.items():  # type: ignore[attr-defined]
        own = row[2]
        if "site-packages/" in filename:
            where = filename.split("site-packages/", 1)[1].split("/", 1)[0]
        elif "/lib/python3" in filename:
            where = "stdlib " + filename.rsplit("/", 1)[-1]
        elif filename.startswith("~") or filename.startswith("<"):
            where = "builtins"
        else:
            where = filename.rsplit("/", 2)[-2] + "/" + filename.rsplit("/", 1)[-1]
        totals[where] = totals.get(where, 0.0) + own
    for where, seconds in sorted(totals.items(), key=lambda kv: -kv[1])[:25]:
        print(f"  {where:40} {seconds / count * 1000:6.3f} ms per command")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", choices=sorted(COMMANDS))
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        figures = asyncio.run(measure(args.count, Path(folder), args.profile, args.top, args.rounds))
    floor = figures["ping"]
    for label, ms in figures.items():
        name = " ".join([COMMANDS[label][0], *(f"{k}:{v}" for k, v in COMMANDS[label][1].items())])
        print(f"/{name:48} {ms:7.2f} ms CPU per command   {ms / floor:5.1f}x /ping")


if __name__ == "__main__":
    main()
