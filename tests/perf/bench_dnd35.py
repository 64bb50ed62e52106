"""How long one D&D 3.5 attack takes to resolve, and one exact-odds computation, in-process.

    .venv/bin/python -m tests.perf.bench_dnd35 [--attacks 100000] [--odds 300]

`resolve`: a fighter (Str 16, BAB +6) swings a greatsword (2d6, 19-20/x2) at AC 18; each call is timed on its
own with `perf_counter_ns`, over `--attacks` calls with one seeded `random.Random`. `odds`: the same attack
(typical), and a heavy one: a rogue's +1 keen scythe (2d4, x4, threat 19-20) on a x2 charge with 3d6 sneak
attack and 1d6 fire, against DR 5/silver; the median of `--odds` computations each. Figures compare runs on one
machine; this is not a timed test.
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import time
from collections.abc import Callable

from bot.rules.dnd35 import Attack, Situation, character_attack, odds, resolve, target_ac
from bot.rules.sheets.dnd35 import DndSheet, DndWeapon
from tests.perf.bench_roll import percentile


def typical() -> Attack:
    fighter = DndSheet(strength=16, dexterity=12, bab=6, weapon_groups=["simple", "martial"])
    return character_attack(fighter, "Greatsword", 18)


def heavy() -> Attack:
    rogue = DndSheet(strength=14, dexterity=16, bab=8, rogue_level=5, weapon_groups=["simple", "martial"])
    scythe = DndWeapon(name="Scythe", enhancement=1, keen=True, energy=["1d6 fire"])
    situation = Situation(flanking=True, sneak_attack=True, multipliers=(2,))
    return character_attack(rogue, scythe, target_ac(18, dr="5/silver"), situation)


def timed(call: Callable[[], object], count: int) -> list[float]:
    """Microseconds per call."""
    times = []
    for _ in range(count):
        t0 = time.perf_counter_ns()
        call()
        times.append((time.perf_counter_ns() - t0) / 1000)
    return times


def report(name: str, micros: list[float], unit: str = "µs") -> None:
    scale = 1000 if unit == "ms" else 1
    values = [m / scale for m in micros]
    print(
        f"  {name:38} median {statistics.median(values):8.3f} {unit}   p99 {percentile(values, 0.99):8.3f} {unit}"
        f"   max {max(values):8.3f} {unit}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attacks", type=int, default=100_000)
    parser.add_argument("--odds", type=int, default=300)
    args = parser.parse_args()

    attack, big = typical(), heavy()
    rng = random.Random(20260101)
    for _ in range(1000):  # warm up
        resolve(attack, rng)
    started = time.perf_counter()
    times = timed(lambda: resolve(attack, rng), args.attacks)
    wall = time.perf_counter() - started
    print(f"resolve: greatsword 2d6+4 19-20/x2, AB {attack.attack_bonus:+d} vs AC 18, {args.attacks} attacks")
    report("one resolve", times)
    print(f"  throughput (timer included)            {args.attacks / wall:10.0f} attacks/s")
    report("one resolve, heavy attack", timed(lambda: resolve(big, rng), args.attacks // 10))

    print(f"odds: median of {args.odds} computations each")
    for name, case in (("typical (greatsword)", attack), ("heavy (x4, x2 charge, 3d6, fire, DR)", big)):
        exact = odds(case)
        report(name, timed(functools.partial(odds, case), args.odds), unit="ms")
        support = len(exact.damage)
        print(f"    {support} damage totals, expected {float(exact.expected_damage):.3f}, rolls {exact.weapon_rolls}")


if __name__ == "__main__":
    main()
