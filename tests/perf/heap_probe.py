"""`python -m bot` with the cycle collector's passes timed: `python -m tests.perf.heap_probe FILE [--untuned]`.

For `bench_heap`. SIGUSR1 starts the count afresh; SIGUSR2 appends what was counted since, a JSON line, to FILE:
per generation the passes, their seconds and the longest, and how many objects the collector still walks.
`--untuned` runs the bot with Python's defaults instead of `bot.heap`'s.
"""

from __future__ import annotations

import gc
import json
import runpy
import signal
import sys
import time
from typing import Any

from bot import heap


def main() -> None:
    out, untuned = sys.argv[1], "--untuned" in sys.argv[2:]
    passes = {generation: [0, 0.0, 0.0] for generation in range(3)}
    started = [0.0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
            return
        took = time.perf_counter() - started[0]
        counted = passes[info["generation"]]
        counted[0], counted[1], counted[2] = counted[0] + 1, counted[1] + took, max(counted[2], took)

    def afresh(*_: object) -> None:
        for counted in passes.values():
            counted[:] = [0, 0.0, 0.0]

    def report(*_: object) -> None:
        line = {"passes": passes, "walked": len(gc.get_objects()), "frozen": gc.get_freeze_count()}
        with open(out, "a") as file:
            file.write(json.dumps(line) + "\n")
        afresh()

    if untuned:
        heap.tune = lambda: None  # type: ignore[assignment]
        heap.settle = lambda: 0  # type: ignore[assignment]
    gc.callbacks.append(timed)
    signal.signal(signal.SIGUSR1, afresh)
    signal.signal(signal.SIGUSR2, report)
    sys.argv = ["bot"]
    runpy.run_module("bot", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
