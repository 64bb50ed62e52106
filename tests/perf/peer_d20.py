"""The peer's side of bench_peer, run by the benchmark's own virtual environment that has `d20` installed.

    <.bench/d20-venv>/bin/python tests/perf/peer_d20.py COUNT

It imports nothing from this project. One operation rolls the to-hit expression; on a threat (a natural 19
or 20) the confirmation roll too; then the damage, twice on a confirmed critical (x2), as a bot built on d20
would for the same attack; each result is turned into its breakdown string, as a bot would show it. Prints
its figures as one JSON object.
"""

import importlib.metadata
import json
import random
import statistics
import sys
import time

import d20

TO_HIT, DAMAGE, AC = "1d20+9", "2d6+4", 18


def attack() -> str:
    hit = d20.roll(TO_HIT)
    natural = hit.expr.roll.left.total  # the d20 of "1d20+9"
    lines = [str(hit)]
    hits = natural == 20 or (natural != 1 and hit.total >= AC)
    critical = False
    if hits and natural >= 19:
        confirm = d20.roll(TO_HIT)
        lines.append(str(confirm))
        critical = confirm.total >= AC
    if hits:
        damage = d20.roll(DAMAGE if not critical else f"{DAMAGE}+{DAMAGE}")
        lines.append(str(damage))
    return "\n".join(lines)


def main() -> None:
    count = int(sys.argv[1])
    random.seed(1)  # d20 rolls from the global `random`; seeded here only so that runs compare
    for _ in range(1000):
        attack()
    times = []
    for _ in range(count):
        t0 = time.perf_counter_ns()
        attack()
        times.append((time.perf_counter_ns() - t0) / 1000)
    print(json.dumps({"d20": importlib.metadata.version("d20"), "attack_median_us": statistics.median(times)}))


if __name__ == "__main__":
    main()
