"""The load runs of `python -m tests.perf` without the minimal bot, to compare two checkouts quickly.

    .venv/bin/python -m tests.perf.bench_burst [--burst 2000] [--paced 600] [--commands ping roll quick]

`python -m bot` as a process over the double's gateway (`tests/perf/harness.py`), a burst and a 300/s run of
each command, counted by final answers, with how many were deferred and the bot's CPU per command: all its threads,
and its event loop's thread alone. For a "before" figure, run it from an older checkout in the same sitting,
alternating (the machine is shared): `cd /tmp/before && PYTHONPATH=/tmp/before /work/main/.venv/bin/python -m
tests.perf.bench_burst` (the bot process starts in a temporary folder: the path must be absolute).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import tempfile
from pathlib import Path
from typing import Any

from tests.perf.bench_process import LOADS, USERS, Sizes, bench_load
from tests.perf.harness import LoadDouble, running_bot, seed_users


async def run(sizes: Sizes, commands: list[str]) -> dict[str, Any]:
    loads = tuple((label, command) for label, command in LOADS if label in commands)
    with tempfile.TemporaryDirectory(prefix="dicebot-burst-") as name:
        folder = Path(name)
        database_url = f"sqlite+aiosqlite:///{folder / 'bench.db'}"
        await seed_users(database_url, USERS)
        async with LoadDouble() as double, running_bot(double, database_url, folder) as bot:
            return await bench_load(bot, double, sizes, loads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--burst", type=int, default=2000)
    parser.add_argument("--paced", type=int, default=600)
    parser.add_argument("--commands", nargs="*", default=["ping", "roll", "quick"])
    args = parser.parse_args()
    sizes = dataclasses.replace(Sizes.of(quick=True), burst=args.burst, paced=args.paced)
    figures = asyncio.run(run(sizes, args.commands))
    print(
        f"{'run':14} {'sent':>5} {'deferred':>8} {'lost':>5} {'final/s':>8} {'final p99 ms':>12} {'CPU ms/cmd':>10}"
        f" {'loop CPU':>8}"
    )
    for key, run_ in figures.items():
        print(
            f"{key:14} {run_['sent']:5} {run_['deferred']:8} {run_['lost'] + run_['late'] + run_['unfollowed']:5}"
            f" {run_['final_per_s']:8.0f} {run_['answer_p99_ms']:12.1f} {run_['bot_cpu_ms_per_command']:10.2f}"
            f" {run_['loop_cpu_ms_per_command']:8.2f}"
        )


if __name__ == "__main__":
    main()
