"""The bars of /odds (docs/dice.md, "Odds"): one list that the chart draws and the table beside it prints.

A distribution becomes at most `limit` bars:

1. Every total that can happen, one bar each, when they fit.
2. Else the tails are folded: each end bar holds the totals past the last that keeps a chance of `TAIL` or more
   on its side ("8 or less", "31 or more"), its share the exact sum of what it holds (a tail of one total is just
   that total's bar). Exploding dice then stop at the totals a roll really reaches, not at the counting's depth
   (`3d6!` showed 3 to 270). Room left is given back to the folded totals, the likelier first, one by one.
3. Else the totals are grouped into bins of a round width (1, 2, 5, 10, 20, 50, ...), those between the folds
   when folding makes the bins narrower, else all of them; from a multiple of the width where a fold can give
   up the totals before it, the last bin holding what remains.

A sampled distribution gets at most `sampled_bars(rolls)` bars (Rice's rule, 2 n^(1/3)): a bar of a handful of
sample rolls is noise, and the chart draws each bar's 99% interval as well.

Each bar carries the chance of its totals and the chance of at least its first and at most its last total: the
three views of the chart (`View`), and the table's columns, from one computation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Final

from bot.rules.dice_odds import Method, Odds

TAIL: Final = Fraction(1, 100)  # a tail holding less than this on its side may be folded into one end bar
_WIDTHS: Final = (1, 2, 5)  # bin widths: these times a power of ten


class View(StrEnum):
    """What a bar's height says: the chance of its totals, of at least its first, or of at most its last."""

    NORMAL = "normal"
    AT_LEAST = "at_least"
    AT_MOST = "at_most"


class Fold(StrEnum):
    """Whether a bar folds a tail: the totals up to its last, or from its first on."""

    NONE = ""
    LOW = "or less"
    HIGH = "or more"


@dataclass(frozen=True, slots=True)
class Bar:
    """One bar of the chart and one row of the table.

    Attributes:
        first: Its lowest total (a LOW fold: the lowest possible).
        last: Its highest total (a HIGH fold: the highest counted; the roll may go past it).
        chance: The chance of a total first..last, exact when the odds are.
        at_least: The chance of `first` or more.
        at_most: The chance of `last` or less.
        fold: Whether it folds a tail.
        intervals: Where the true `chance`, `at_least` and `at_most` lie (an estimate's, as `Odds.interval`).
    """

    first: int
    last: int
    chance: Fraction
    at_least: Fraction
    at_most: Fraction
    fold: Fold = Fold.NONE
    intervals: tuple[tuple[float, float], tuple[float, float], tuple[float, float]] = ((0, 0), (0, 0), (0, 0))

    def value(self, view: View) -> Fraction:
        """What the bar's height shows in `view`."""
        return {View.NORMAL: self.chance, View.AT_LEAST: self.at_least, View.AT_MOST: self.at_most}[view]

    def interval(self, view: View) -> tuple[float, float]:
        """Where the true `value(view)` lies."""
        return self.intervals[list(View).index(view)]


@dataclass(frozen=True, slots=True)
class Bars:
    """The bars of a distribution, in order of their totals.

    Attributes:
        bars: Empty when the odds are too costly to estimate.
        width: How many totals each bar that is not a fold spans (the last may hold fewer: `short`).
        short: How many totals the last unfolded bar spans when it holds fewer than `width`, else 0.
    """

    bars: tuple[Bar, ...]
    width: int = 1
    short: int = 0

    @property
    def folded(self) -> bool:
        """Whether an end bar folds a tail."""
        return any(bar.fold is not Fold.NONE for bar in self.bars)


def sampled_bars(rolls: int) -> int:
    """How many bars a sample of `rolls` rolls can fill with more than noise: Rice's rule, 2 n^(1/3), at least 8."""
    return max(8, round(2 * math.cbrt(rolls)))


def bars(odds: Odds, limit: int) -> Bars:
    """At most `limit` bars of `odds`: each total, else with the tails folded, else in bins (the module's rules)."""
    if odds.method is Method.TOO_COSTLY:
        return Bars(())
    if odds.method is Method.SAMPLED:
        limit = min(limit, sampled_bars(odds.denominator))
    # The totals that can happen: a normal approximation's are every total of its range (a range is a sequence).
    totals: Sequence[int] = odds.values or range(odds.low, odds.high + 1)
    count = len(totals)
    if count <= limit:
        return Bars(tuple(_bar(odds, t, t) for t in totals))
    # start: the first total not folded into the low tail, end: the last not folded into the high one.
    start = _first(count, lambda i: odds.below(totals[i] + 1) >= TAIL)
    end = _first(count, lambda i: odds.at_least(totals[i]) < TAIL) - 1
    start, end = (0 if start == 1 else start), (count - 1 if end == count - 2 else end)

    def shown() -> int:
        return end - start + 1 + (start > 0) + (end < count - 1)

    if shown() <= limit:
        while start > 0 or end < count - 1:
            # Give back the likelier folded neighbour, and a fold left with one total along with it.
            low = odds.exactly(totals[start - 1]) if start > 0 else Fraction(-1)
            high = odds.exactly(totals[end + 1]) if end < count - 1 else Fraction(-1)
            was = (start, end)
            if high > low:
                end = count - 1 if end + 1 == count - 2 else end + 1
            else:
                start = 0 if start - 1 == 1 else start - 1
            if shown() > limit:
                start, end = was
                break
        middle = [_bar(odds, t, t) for t in totals[start : end + 1]]
        return Bars(_folded(odds, totals, start, end, middle))
    first, last = totals[start], totals[end]
    room = limit - (start > 0) - (end < count - 1)
    width = _round_width(math.ceil((last - first + 1) / room))
    whole = _round_width(math.ceil((totals[-1] - totals[0] + 1) / limit))
    if whole <= width:  # folding would not narrow the bins (1d1000: 20 bins of 50 either way): none
        return Bars(tuple(_bins(odds, totals[0], totals[-1], whole)), whole, (totals[-1] - totals[0] + 1) % whole)
    # Bins start at a multiple of their width (else of a round part of it: 50, 25, 10) where the low fold can give
    # up the totals, and the last bin is filled from the high fold: each fold then holds less, still under TAIL.
    starts = (first - first % unit for unit in (width, width // 2, width // 5) if unit)
    if start > 0:
        first = next((s for s in starts if totals[1] < s and math.ceil((last - s + 1) / width) <= room), first)
        start = _first(count, lambda i: totals[i] >= first)
    if end < count - 1:
        last = min(first + math.ceil((last - first + 1) / width) * width - 1, totals[-1])
        end = _first(count, lambda i: totals[i] > last) - 1
        # A fold left with one total would say "40 or more" of the highest: it becomes a short last bin if it can.
        if end == count - 2 and math.ceil((totals[-1] - first + 1) / width) <= room + 1:
            last, end = totals[-1], count - 1
    short = (last - first + 1) % width
    return Bars(_folded(odds, totals, start, end, _bins(odds, first, last, width)), width, short)


def _bins(odds: Odds, first: int, last: int, width: int) -> list[Bar]:
    """Bars of `width` totals from `first`, the last one ending at `last`."""
    return [_bar(odds, t, min(t + width - 1, last)) for t in range(first, last + 1, width)]


def _folded(odds: Odds, totals: Sequence[int], start: int, end: int, middle: list[Bar]) -> tuple[Bar, ...]:
    low = [_bar(odds, totals[0], totals[start - 1], Fold.LOW)] if start > 0 else []
    high = [_bar(odds, totals[end + 1], totals[-1], Fold.HIGH)] if end < len(totals) - 1 else []
    return (*low, *middle, *high)


def _bar(odds: Odds, first: int, last: int, fold: Fold = Fold.NONE) -> Bar:
    chance = odds.below(last + 1) - odds.below(first)
    spans = 1 if fold is not Fold.NONE else 2  # a fold is one cumulative chance; a bar, a difference of two
    intervals = (
        odds.interval(chance, spans=spans),
        odds.at_least_interval(first),
        odds.below_interval(last + 1),
    )
    return Bar(first, last, chance, odds.at_least(first), odds.below(last + 1), fold, intervals)


def _first(count: int, holds: Callable[[int], bool]) -> int:
    """The first index below `count` where `holds` (false, then true) holds, else `count`."""
    low, high = 0, count
    while low < high:
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle + 1
    return low


def _round_width(least: int) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, ... that is at least `least`."""
    scale = 1
    while True:
        for width in _WIDTHS:
            if width * scale >= least:
                return width * scale
        scale *= 10
