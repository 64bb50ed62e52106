"""Python's cycle collector, set for a process that keeps a large heap and answers in milliseconds.

Reference counting frees nearly everything a command makes the moment it is done with. The cycle collector runs
besides, after every `threshold` container objects allocated and not yet freed (Python's default: 700); each of
its passes walks the objects of the generations it collects, and a full pass walks the whole heap. A running bot
holds about 140,000 objects from its start alone (modules, classes, discord.py's caches, SQLAlchemy's compiled
statements), which never become garbage, and a roll allocates a few thousand more while it is in flight. With the
defaults, a burst of 2,000 quick `/dnd attack`s spent 0.76-0.84 ms of each command in the collector (a whole
`/ping` costs about 1.6 ms), and single passes held the event loop for up to 260-470 ms.

So the process running the bot (`run_bot`, not the tests' bots) collects the youngest generation every `YOUNG`
allocations instead of 700, and once the bot is ready it freezes what it holds (`settle`): `gc.freeze` moves it
to a generation no pass walks again. The same bursts then spend 0.08-0.14 ms of each command in the collector,
and the longest pass is 32-63 ms (`python -m tests.perf.bench_heap`, which runs both).

The rules core already keeps collections out of a roll's own dice (`bot.rules.collector`); this is the rest of the
process: the gateway, the commands' reads and writes, the answers.

A collection comes once the objects allocated and not yet freed pass the threshold, so what sets how often is what
reference counting cannot free: reference cycles. Every command left some, 26 objects for a `/ping` and 50 for a
`/dnd attack`: the interaction and its response refer to each other, and so did a roll's buttons and their view.
Now neither does once the command is done (`bot.deadline.unwatch`, `cogs._buttons.Pressed`). In 8,000 commands
paced at 300 a second the bot process collected twice, 1.8 ms in all, where it had collected 63 times, 136 ms in
all and up to 10.4 ms at once (`tests/test_heap.py` checks that commands, answers and presses leave no cycle).

What the freeze gives up: an object that was alive at the start and later becomes part of a garbage cycle (a
server the bot leaves, say) is never collected. That is bounded by the heap at the start, once per process.
"""

from __future__ import annotations

import gc

YOUNG = 5_000  # allocations between two collections of the youngest generation (Python's default: 700)


def tune() -> None:
    """Collect the youngest generation every `YOUNG` allocations; the older generations keep their thresholds."""
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG, middle, oldest)


def settle() -> int:
    """Collect everything once, then freeze what is left out of every later pass; how many objects that is."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
