"""How long the Star Frontiers core takes: one `shoot`, one `melee` and one `odds`, in-process.

    .venv/bin/python -m tests.perf.bench_star_frontiers [--count 20000]

Each call is timed alone with `perf_counter_ns` and the median and p99 are printed. The attack is built once
(its construction validates the weapon and the situation), as the cog would build it once per command; the
building is timed separately. Figures are for comparison within one run on one machine; this is not a timed test.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from bot.rules import star_frontiers as sf
from bot.rules.sheets.star_frontiers import SfSheet
from tests.perf.bench_roll import percentile

SHOOTER = SfSheet(dexterity=55, beam=2)
FIGHTER = SfSheet(strength=70, melee=2)
SITUATION = sf.RangedSituation(target=sf.TargetMovement.RUNNING, aim=True, seu=3)


def timed(count: int, call: Callable[[], object]) -> list[float]:
    for _ in range(min(count, 1000)):  # warm up
        call()
    times = []
    for _ in range(count):
        t0 = time.perf_counter_ns()
        call()
        times.append((time.perf_counter_ns() - t0) / 1000)
    return times


def report(name: str, us: list[float]) -> None:
    print(f"  {name:40} median {statistics.median(us):8.1f} µs   p99 {percentile(us, 0.99):8.1f} µs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=20_000)
    args = parser.parse_args()
    rng = random.Random(1)
    shot = sf.ranged_attack(SHOOTER, "Laser pistol", 30, SITUATION)
    burst = sf.ranged_attack(SHOOTER, "Automatic rifle", 150, sf.RangedSituation(burst=True, targets=5))
    club = sf.melee_attack(FIGHTER, "Club")
    print(f"Star Frontiers core, {args.count} calls each")
    report(
        "build (laser pistol from a sheet)",
        timed(args.count, lambda: sf.ranged_attack(SHOOTER, "Laser pistol", 30, SITUATION)),
    )
    report("shoot (laser pistol, 3 SEU)", timed(args.count, lambda: sf.shoot(shot, rng)))
    report("melee (club)", timed(args.count, lambda: sf.melee(club, rng)))
    report("odds (laser pistol, 3d10)", timed(args.count, lambda: sf.odds(shot)))
    report("odds (burst at 5 targets, 9d10 split)", timed(args.count // 10, lambda: sf.odds(burst)))
    # The most quick mode rolls, halved twice: worked out from the dice's residues modulo 4, not their totals.
    screened = sf.Defender("Kira", frozenset({"albedo suit", "albedo screen"}))
    huge = sf.quick_ranged(100, 0, "99d999", sf.Band.POINT_BLANK, kind=sf.DamageKind.LASER, defender=screened)
    report("odds (99d999 laser, suit and screen)", timed(args.count // 100, lambda: sf.odds(huge)))


if __name__ == "__main__":
    main()
