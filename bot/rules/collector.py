"""Rules work without garbage collection pauses.

Large rolls and odds make heaps of short-lived objects (every die of a `1000d2r1`, a sampled estimate's rolls) and
no reference cycles. Their allocations start collections, and a full one walks every object of the process:
measured at 50-60 ms in the middle of a 15 ms estimate (`gc` on, 1 run in 7; off, none), which no work budget
priced from the dice can see.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def uncollected() -> Iterator[None]:
    """No garbage collection while the block runs; the collector is left as it was found."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
