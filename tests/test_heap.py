"""The cycle collector's settings in the process that runs the bot (`bot.heap`), each in an interpreter of its own."""

from __future__ import annotations

import subprocess
import sys

from bot import heap
from tests.helpers import ROOT

PROBE = """
import gc
from bot import heap
before = gc.get_threshold()
heap.tune()
kept = [[n] for n in range(1000)]  # alive at the start: frozen with the rest
frozen = heap.settle()
print(before, gc.get_threshold(), frozen, gc.get_freeze_count(), len(gc.get_objects()) < frozen)
"""


def test_the_youngest_generation_is_collected_less_often_and_the_start_is_frozen() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    before, after, rest = done.stdout.split(")", 2)
    assert before == "(700, 10, 10" and after.strip() == f"({heap.YOUNG}, 10, 10"
    frozen, counted, fewer_left = rest.split()
    # What settle froze is what the collector leaves out from then on, and more than what it still walks.
    assert int(frozen) == int(counted) > 1000 and fewer_left == "True"
