"""What the cycle collector costs the bot process, with `bot.heap`'s settings and with Python's defaults.

    .venv/bin/python -m tests.perf.bench_heap [--quick] [--rounds N]

`python -m bot` runs under `heap_probe` against the local double (as in bench_process), alternately tuned and
untuned, `--rounds` times each. In each run: a burst of 2,000 `/roll 4d6kh3+1d20`, then one of 2,000 quick
`/dnd attack`s, after a warm-up. Per burst: the seconds spent in the collector for each command, its longest
pass (a pause of the event loop, felt by every command in flight), and the bot's CPU per command.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.perf.harness import QUICK_ATTACK, ROLL, LoadDouble, payloads, run_load, run_window, running_bot, seed_users

USERS = 200
KINDS = (("roll", ROLL), ("quick attack", QUICK_ATTACK))


async def one_run(tuned: bool, size: int) -> list[dict[str, Any]]:
    """One bot process: its figures for a burst of each kind."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        url = f"sqlite+aiosqlite:///{folder / 'bot.db'}"
        out = folder / "heap.jsonl"
        await seed_users(url, USERS)
        argv = [sys.executable, "-m", "tests.perf.heap_probe", str(out), *([] if tuned else ["--untuned"])]
        figures = []
        async with LoadDouble() as double, running_bot(double, url, folder, argv) as bot:
            assert bot.process is not None
            for _, kind in KINDS:
                await run_window(double, payloads(double, kind, 300, USERS), 20)
            for label, kind in KINDS:
                os.kill(bot.process.pid, signal.SIGUSR1)
                await asyncio.sleep(0.2)
                cpu = bot.cpu_seconds()
                result = await run_load(double, payloads(double, kind, size, USERS), rate=None)
                spent = bot.cpu_seconds() - cpu
                os.kill(bot.process.pid, signal.SIGUSR2)
                for _ in range(100):
                    if out.exists() and len(out.read_text().splitlines()) > len(figures):
                        break
                    await asyncio.sleep(0.05)
                probe = json.loads(out.read_text().splitlines()[len(figures)])
                passes = probe["passes"].values()
                figures.append(
                    {
                        "tuned": tuned,
                        "kind": label,
                        "collector_ms_per_command": round(sum(p[1] for p in passes) / size * 1000, 3),
                        "longest_pass_ms": round(max(p[2] for p in passes) * 1000, 1),
                        "passes": sum(p[0] for p in passes),
                        "walked": probe["walked"],
                        "frozen": probe["frozen"],
                        "cpu_ms_per_command": round(spent / size * 1000, 2),
                        "lost": result.figures()["lost"],
                    }
                )
        return figures


async def main_async(rounds: int, size: int) -> None:
    for _ in range(rounds):
        for tuned in (False, True):
            for row in await one_run(tuned, size):
                print(
                    f"{'bot.heap' if row['tuned'] else 'defaults':9} {row['kind']:13} collector "
                    f"{row['collector_ms_per_command']:.3f} ms/command, longest pass {row['longest_pass_ms']:6.1f} ms "
                    f"({row['passes']} passes; walks {row['walked']:,}, frozen {row['frozen']:,}); "
                    f"CPU {row['cpu_ms_per_command']:.2f} ms/command; lost {row['lost']}",
                    flush=True,
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="bursts of 200, to check the benchmark itself")
    parser.add_argument("--rounds", type=int, default=2, help="tuned and untuned runs, alternated (default 2)")
    arguments = parser.parse_args()
    asyncio.run(main_async(arguments.rounds, 200 if arguments.quick else 2000))


if __name__ == "__main__":
    main()
