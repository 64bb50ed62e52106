"""The most work one /roll expression can ask of the dice core, timed: `python -m tests.perf.bench_dice_worst`.

The parser bounds the work before anything is rolled: at most `MAX_DICE` dice asked for (repeats counted) and
`MAX_EXTRA_ROLLS` rerolls and explosions for the whole text, so no expression draws more than their sum. Each
line here is one of the expressions that reach those bounds; the figures are the parse + roll time, the
presenter's description and footer (the answer's embed) time, the draws made and the description's length.
Figures are for comparison on one machine; this is not a timed test.
"""

from __future__ import annotations

import random
import statistics
import time

from bot.rules import dice
from bot.ui.dice import roll_description, roll_footer

WORST = (
    "1000d10000",
    "1000d6!",
    "1000d2!!",
    "10d20rr<20",
    "20 50d6!kh25",
    "1d2!; " * 9 + "100d2!p",
    "{" + ", ".join(["100d6!"] * 10) + "}kh1",
    "{" + " + ".join(["100d6!"] * 10) + "}k500",  # Roll20's group keep: among all 2,000 dice, then totalled again
    "1000dFt1f0",
    "500d6ra6 + 500d100mi50ma60 % 7",
)


class Counting:
    def __init__(self) -> None:
        self.rng = random.Random(1)
        self.draws = 0

    def randint(self, a: int, b: int) -> int:
        self.draws += 1
        return self.rng.randint(a, b)


def main() -> None:
    print(f"{'expression':42} {'roll ms':>8} {'embed ms':>9} {'draws':>6} {'chars':>6}")
    for text in WORST:
        roll_times, embed_times, draws, chars = [], [], 0, 0
        for _ in range(20):
            source = Counting()
            t0 = time.perf_counter()
            result = dice.roll(text, source)
            t1 = time.perf_counter()
            description = roll_description(result)
            roll_footer(result)
            t2 = time.perf_counter()
            roll_times.append(t1 - t0)
            embed_times.append(t2 - t1)
            draws = max(draws, source.draws)
            chars = max(chars, len(description))
        assert draws <= dice.MAX_DICE + dice.MAX_EXTRA_ROLLS
        shown = text if len(text) <= 40 else text[:37] + "..."
        print(
            f"{shown:42} {statistics.median(roll_times) * 1e3:8.2f} {statistics.median(embed_times) * 1e3:9.2f}"
            f" {draws:6} {chars:6}"
        )


if __name__ == "__main__":
    main()
