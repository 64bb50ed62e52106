"""The rules core against a peer: one D&D 3.5 attack here, the same rolls with avrae's `d20` library.

    .venv/bin/python -m tests.perf.bench_peer [--count 20000]

Here: `quick_attack(+9, 2d6+4, 19-20/x2)` against AC 18, as `/dnd attack` runs it: the exact odds, the
resolution with every step, and the embed built from both (`to_dict`, what goes to Discord). The peer rolls
`1d20+9`, the confirmation on a threat and `2d6+4` (twice on a critical), with d20's breakdown strings: the
same dice, without the rules (threat ranges, multipliers, damage reduction) or the odds, which d20 does not do.

d20 is not a dependency of the bot: the benchmark makes its own virtual environment for it once (under
.bench/, git-ignored) and runs the peer's timing there as a subprocess (tests/perf/peer_d20.py).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.rules import dnd35 as dnd
from bot.ui.dnd35 import attack_embed

ROOT = Path(__file__).resolve().parents[2]
PEER_VENV = ROOT / ".bench" / "d20-venv"
PEER_SCRIPT = Path(__file__).with_name("peer_d20.py")


def median_us(call: Callable[[], object], count: int) -> float:
    for _ in range(min(1000, count)):
        call()
    times = []
    for _ in range(count):
        t0 = time.perf_counter_ns()
        call()
        times.append((time.perf_counter_ns() - t0) / 1000)
    return statistics.median(times)


def core(count: int) -> dict[str, float]:
    attack = dnd.quick_attack(9, "2d6+4", 18, crit="19-20/x2", label="attack 2d6+4")
    rng = random.Random(20260101)
    chances = dnd.odds(attack)

    def resolve_and_embed() -> object:
        return attack_embed(dnd.resolve(attack, rng), chances, attacker="Fighter").to_dict()

    def whole() -> object:
        return attack_embed(dnd.resolve(attack, rng), dnd.odds(attack), attacker="Fighter").to_dict()

    return {
        "resolve_embed_median_us": round(median_us(resolve_and_embed, count), 2),
        "odds_median_us": round(median_us(lambda: dnd.odds(attack), max(count // 10, 100)), 2),
        "attack_median_us": round(median_us(whole, count), 2),
    }


def peer_python() -> Path:
    """The peer's interpreter, its virtual environment made the first time: d20, and the bot's discord.py for the
    minimal bot (`peer_bot.py`) that the load benchmark runs against the bot."""
    python = PEER_VENV / "bin" / "python"
    discord_py = f"discord.py=={importlib.metadata.version('discord.py')}"
    check = f"import d20, importlib.metadata as m; assert 'discord.py==' + m.version('discord.py') == {discord_py!r}"
    if python.exists() and subprocess.run([python, "-c", check], capture_output=True).returncode == 0:
        return python
    subprocess.run([sys.executable, "-m", "venv", "--clear", PEER_VENV], check=True, capture_output=True)
    installed = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "d20", discord_py], capture_output=True, text=True, timeout=600
    )
    if installed.returncode != 0:
        last = (installed.stderr.strip().splitlines() or ["pip failed"])[-1]
        raise RuntimeError(f"pip could not install d20 and {discord_py}: {last[:150]}")
    return python


def peer(count: int) -> dict[str, Any]:
    try:
        python = peer_python()
        run = subprocess.run([python, PEER_SCRIPT, str(count)], capture_output=True, text=True, timeout=600, check=True)
        figures: dict[str, Any] = json.loads(run.stdout)
        return figures
    except (OSError, RuntimeError, subprocess.SubprocessError, ValueError) as error:
        return {"unavailable": str(error)}


def run(count: int) -> dict[str, Any]:
    ours, theirs = core(count), peer(count)
    figures: dict[str, Any] = {"core": ours, "d20": theirs}
    if "attack_median_us" in theirs:
        figures["ratio_attack_to_d20"] = round(ours["attack_median_us"] / theirs["attack_median_us"], 2)
        figures["ratio_resolve_embed_to_d20"] = round(ours["resolve_embed_median_us"] / theirs["attack_median_us"], 2)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=20_000)
    args = parser.parse_args()
    print(json.dumps(run(args.count), indent=2))


if __name__ == "__main__":
    main()
