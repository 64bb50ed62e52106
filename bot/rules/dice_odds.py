"""Exact odds of a /roll expression (docs/dice.md, "Odds"): exact within a work budget, else a marked estimate.

The tree `bot.rules.dice.parse` builds is counted, never rolled, as integer weights of each total over one
denominator, so every chance is a Fraction:

1. A dice term: the faces one die can settle on after its reroll (`r`: the faces that stay, equally likely;
   `ro`: s x (stays) + (matching faces), out of s^2), its exploding chain level by level, `mi`/`ma`, keep by
   face and success counting as a map from face to what the die adds. Then the pool: plain uniform dice by
   running (prefix) sums as `bot.rules.dnd35.odds` does, so the work grows with the distribution, never with
   the product of the dice; other dice by adding the one-die distribution die by die; keep/drop by an
   order-statistics count (faces from the kept end, how many dice show each, binomial coefficients; a state
   ends once the kept dice are placed, and each is one packed integer, so `8d100d3` is cheap); Avrae's
   `ra` as "no die matched" plus "some die matched, and one more die".
2. `+ - * / %` on independent subtrees, pair by pair of totals; `/` and `%` by zero count 0 as the roller does.
   Sets total their items; with a keep or a target, every combination of item totals is counted.
3. Several rolls (`1d20; 2d6`, `6 4d6k3`): the first roll only, which is what the answer shows.

Explosions and rerolls-until never end in principle, and the roller stops them at `MAX_EXTRA_ROLLS` extra
rolls shared by the whole text. Each die's chain is followed `depth` levels deep; the counted distribution
differs from the roller's only when some die needs more than `depth` extra rolls, or the dice together need
more than the cap: `cap_error` bounds that chance (a union bound, and a Chernoff bound on the sum of the
dice's extra rolls, each at most geometric). The answer counts as exact when that bound is below
`EXACT_ERROR`, far below any digit shown.

The work is priced from the numbers before anything is counted (`odds_work`, one `ODDS_BUDGET` for the whole
expression). Above it, or for what the counting does not cover (`ra` with keep or explosions, keep/drop among
exploding dice), the answer is a marked estimate: a normal approximation with the Berry-Esseen bound when the
roll is a sum of independent dice, or rolls of the real roller on the estimate's own dice, passed in by the
caller (never the roll's own dice), with a `CONFIDENCE` interval for every chance; the one that promises less
error. Fewer than `MIN_SAMPLES` affordable rolls and no approximation: TOO_COSTLY, never a handful of rolls.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from functools import reduce
from itertools import accumulate, product, repeat
from operator import add, mul, sub
from statistics import NormalDist
from typing import Final

from bot.rules.collector import uncollected
from bot.rules.dice import (
    MAX_EXTRA_ROLLS,
    Annotated,
    BinaryOp,
    Condition,
    Dice,
    DiceSet,
    DiceSource,
    ExplodeMode,
    Expression,
    Group,
    Keep,
    KeepMode,
    Negate,
    Number,
    Operator,
    Repeat,
    Several,
    parse,
    roll,
)

# Work units one expression may spend on exact counting: one unit is one total of one step whose weight fits
# a machine word, as in `bot.rules.dnd35.odds`. Measured here 10-40 ns a unit (python -m tests.perf.bench_hostile),
# so at most about 25 ms; 5d10!>8 takes 532,056, 10d6! 391,953, 4d6k3 10,200. tests/rules/test_pricing.py
# holds every exact count to at most 4 times its price, its operations counted.
ODDS_BUDGET: Final = 600_000
EXACT_ERROR: Final = 1e-9  # a chance the cap or a cut chain could change, below which the odds count as exact
BERRY_ESSEEN: Final = 0.56  # Shevtsova (2010), independent summands: sup |F - Φ| <= 0.56 Σ E|X-μ|³ / σ³
CONFIDENCE: Final = 0.99  # of every interval a sampled estimate states
_Z: Final = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2)  # 2.576
SAMPLE_DICE: Final = 12_000  # dice the sampled estimate may draw in all (2-8 µs each with the roller)
SAMPLE_ROLL: Final = 30  # what one roll of the roller costs besides its dice, in dice
MAX_SAMPLES: Final = 2_000
MIN_SAMPLES: Final = 100  # fewer rolls than this say next to nothing (a 99% interval of ±13% at 100): not shown
_SHORT: Final = 8  # a distribution this short is convolved term by term, a longer one by one multiplication
_FACE: Final = 20  # work units of one face in a Python loop (dicts, the face's value), against one of a C loop
SAMPLE_SEED: Final = 17  # for the estimate's own dice: fixed, so that the same expression gets the same estimate
_WORD_BITS: Final = 60
_CHAIN_NEGLIGIBLE: Final = EXACT_ERROR / 20  # the chance of a deeper chain, per term, where following stops


class Method(StrEnum):
    """How the odds were found."""

    EXACT = "exact"
    NORMAL = "normal approximation"
    SAMPLED = "sampled"
    TOO_COSTLY = "too costly to estimate"  # neither counted, nor a sum to approximate, nor cheap enough to sample


@dataclass(frozen=True, slots=True)
class Odds:
    """The distribution of a roll's total.

    Attributes:
        method: EXACT (counted), NORMAL (a sum of independent dice, approximated) or SAMPLED.
        low: The lowest total (NORMAL: the lowest possible).
        high: The highest total (NORMAL: the highest possible).
        values: The totals with a weight, in order (EXACT, SAMPLED); empty for NORMAL.
        counts: The weight of each of `values`.
        denominator: The sum of `counts`: an exact chance is a count over it.
        mean: The mean total: exact for EXACT and NORMAL (a sum's mean is known exactly), else the sample's.
        error: How far a chance of a total below (or at least) some total may be from the truth: below
            `EXACT_ERROR` when exact, the Berry-Esseen bound (plus the cap's) for NORMAL, the widest half of a
            `CONFIDENCE` interval for SAMPLED. `interval` gives each chance's own.
        variance: The variance (NORMAL: its chances come from it; SAMPLED: the sample's, for the mean's interval).
        work: The priced work of exact counting (`odds_work`), whether or not it was done.
    """

    method: Method
    low: int
    high: int
    values: tuple[int, ...]
    counts: tuple[int, ...]
    denominator: int
    mean: Fraction
    error: float
    variance: float = 0.0
    work: int = 0
    cumulative: tuple[int, ...] = ()  # cumulative[i]: the weight of the totals below values[i]

    @property
    def exact(self) -> bool:
        """Whether the chances are exact (to `EXACT_ERROR`)."""
        return self.method is Method.EXACT

    def exactly(self, total: int) -> Fraction:
        """The chance of exactly `total`."""
        if self.method is Method.NORMAL:
            return self.below(total + 1) - self.below(total)
        index = bisect_left(self.values, total)
        if index < len(self.values) and self.values[index] == total:
            return Fraction(self.counts[index], self.denominator)
        return Fraction(0)

    def below(self, total: int) -> Fraction:
        """The chance of a total strictly below `total`."""
        if total <= self.low:
            return Fraction(0)
        if total > self.high:
            return Fraction(1)
        if self.method is Method.NORMAL:
            sd = math.sqrt(self.variance)
            z = (total - 0.5 - float(self.mean)) / sd
            return Fraction(min(1.0, max(0.0, 0.5 * math.erfc(-z / math.sqrt(2)))))
        return Fraction(self.cumulative[bisect_left(self.values, total)], self.denominator)

    def at_least(self, total: int) -> Fraction:
        """The chance of a total of `total` or more: the chance to reach a target."""
        return 1 - self.below(total)

    def interval(self, chance: Fraction, *, spans: int = 1) -> tuple[float, float]:
        """Where the true value of `chance`, one this distribution gave, lies: always, or (SAMPLED) at `CONFIDENCE`.

        SAMPLED: a Wilson score interval with continuity correction, from the count behind the chance.

        `spans`: how many cumulative chances `chance` is made of for NORMAL, whose bound holds for each: 1 for a
        chance below or at least some total, 2 for exactly one total or a bin of totals.
        """
        p = float(chance)
        if self.method is Method.SAMPLED:
            return wilson(round(chance * self.denominator), self.denominator)
        spread = 0.0 if self.method is Method.EXACT else self.error * spans
        return max(0.0, p - spread), min(1.0, p + spread)

    def below_interval(self, total: int) -> tuple[float, float]:
        """`interval` of the chance of a total below `total` (or, its complement, of at least `total`)."""
        if self.method is Method.NORMAL and not self.low < total <= self.high:
            return float(self.below(total)), float(self.below(total))  # outside the possible totals: certain
        return self.interval(self.below(total))

    def at_least_interval(self, total: int) -> tuple[float, float]:
        """`interval` of the chance of a total of `total` or more."""
        low, high = self.below_interval(total)
        return 1 - high, 1 - low

    def exactly_interval(self, total: int) -> tuple[float, float]:
        """`interval` of the chance of exactly `total`."""
        if self.method is Method.NORMAL and not self.low <= total <= self.high:
            return 0.0, 0.0
        return self.interval(self.exactly(total), spans=2)

    def mean_interval(self) -> tuple[float, float]:
        """Where the true mean lies: exactly the mean (EXACT, NORMAL), else at `CONFIDENCE` from the sample."""
        mean = float(self.mean)
        if self.method is not Method.SAMPLED:
            return mean, mean
        spread = _Z * math.sqrt(self.variance / self.denominator)
        return mean - spread, mean + spread


def _counted(method: Method, weights: _Dist, mean: Fraction, error: float, work: int) -> Odds:
    values = [weights.offset + i for i, c in enumerate(weights.counts) if c]
    counts = [c for c in weights.counts if c]
    cumulative = (0, *accumulate(counts))
    return Odds(
        method, values[0], values[-1], tuple(values), tuple(counts), cumulative[-1], mean, error, 0.0, work, cumulative
    )


# ------------------------------------------------------------------------------------------ distributions


@dataclass(slots=True)
class _Dist:
    """Weights of consecutive totals from `offset` on; every chance is a weight over the sum of all of them."""

    offset: int
    counts: list[int]

    @property
    def high(self) -> int:
        return self.offset + len(self.counts) - 1

    def total(self) -> int:
        return sum(self.counts)


def _point(value: int) -> _Dist:
    return _Dist(value, [1])


def _from_weights(weights: dict[int, int]) -> _Dist:
    live = {value: w for value, w in weights.items() if w}
    low = min(live)
    counts = [0] * (max(live) - low + 1)
    for value, w in live.items():
        counts[value - low] = w
    return _Dist(low, counts)


def _trim(dist: _Dist) -> _Dist:
    counts = dist.counts
    start = next(i for i, c in enumerate(counts) if c)
    end = len(counts) - next(i for i, c in enumerate(reversed(counts)) if c)
    return _Dist(dist.offset + start, counts[start:end])


def _add_uniform(dist: _Dist, low: int, sides: int) -> _Dist:
    """One more die of `sides` equally likely faces from `low`: each total sums a window of old ones (C loops)."""
    prefix = list(accumulate(dist.counts))
    high = prefix + list(repeat(prefix[-1], sides - 1))
    below = list(repeat(0, sides)) + prefix[:-1]
    return _Dist(dist.offset + low, list(map(sub, high, below)))


def _convolve(a: _Dist, b: _Dist) -> _Dist:
    """The sum of two independent totals.

    A short one: its weights, each times the longer list, shifted (C loops). Else Kronecker substitution: each
    list becomes one integer with a field wide enough for any weight of the result, and one multiplication of
    integers (Karatsuba, in C) does every product at once.
    """
    small, big = (a, b) if len(a.counts) <= len(b.counts) else (b, a)
    size = len(small.counts) + len(big.counts) - 1
    if len(small.counts) <= _SHORT:
        out = [0] * size
        width = len(big.counts)
        for shift, weight in enumerate(small.counts):
            if weight:
                out[shift : shift + width] = map(add, out[shift : shift + width], map(mul, big.counts, repeat(weight)))
        return _Dist(a.offset + b.offset, out)
    field = (a.total() * b.total()).bit_length() // 8 + 1
    product = _packed(a.counts, field) * _packed(b.counts, field)
    data = product.to_bytes(size * field, "little")
    return _Dist(
        a.offset + b.offset, [int.from_bytes(data[i : i + field], "little") for i in range(0, size * field, field)]
    )


def _packed(counts: list[int], field: int) -> int:
    return int.from_bytes(b"".join(c.to_bytes(field, "little") for c in counts), "little")


def _power(dist: _Dist, times: int) -> _Dist:
    """The sum of `times` independent copies of `dist` (times >= 1), by repeated squaring."""
    result: _Dist | None = None
    while True:
        if times & 1:
            result = dist if result is None else _convolve(result, dist)
        times >>= 1
        if not times:
            assert result is not None
            return result
        dist = _convolve(dist, dist)


def _scale(dist: _Dist, factor: int) -> _Dist:
    return _Dist(dist.offset, [c * factor for c in dist.counts])


def _plus(a: _Dist, b: _Dist) -> _Dist:
    """Weights added total by total (both over one denominator)."""
    low = min(a.offset, b.offset)
    out = [0] * (max(a.high, b.high) - low + 1)
    for part in (a, b):
        start = part.offset - low
        out[start : start + len(part.counts)] = map(add, out[start : start + len(part.counts)], part.counts)
    return _Dist(low, out)


def _map(dist: _Dist, function: Callable[[int], int]) -> _Dist:
    weights: dict[int, int] = {}
    for index, weight in enumerate(dist.counts):
        if weight:
            value = function(dist.offset + index)
            weights[value] = weights.get(value, 0) + weight
    return _from_weights(weights)


def _arithmetic(op: Operator, left: int, right: int) -> int:
    """What `bot.rules.dice` computes for `left op right`, a division by zero counting 0."""
    value = op.apply(left, right)
    return 0 if value is None else value


# ------------------------------------------------------------------------------------------- one dice term


class _Unsupported(Exception):
    """The exact count does not cover this expression; it is estimated instead."""


@dataclass(frozen=True, slots=True)
class _Term:
    """What the count of one dice term needs, worked out from its numbers alone."""

    node: Dice
    count: int  # dice rolled
    low: int  # the raw faces
    sides: int
    depth: int  # levels of an exploding chain followed
    explodes: float  # at most the chance that a die, once its reroll is done, explodes
    continues: float  # the chance that one roll of a die is followed by another (reroll or explosion)
    bounded: bool  # each die takes at most one extra roll (`ro`, `ra`, no explosion)

    @property
    def chained(self) -> bool:
        return self.node.explode is not None or (self.node.reroll is not None and not self.node.reroll.once)


def _matched(conditions: Condition | Iterable[Condition], low: int, high: int) -> int:
    """How many faces of low..high match any of `conditions`, from their ranges (no pass over the faces)."""
    if isinstance(conditions, Condition):
        conditions = [conditions]
    ranges = sorted(r for r in (c.face_range(low, high) for c in conditions) if r[0] <= r[1])
    count, reached = 0, low - 1
    for start, end in ranges:
        start = max(start, reached + 1)
        if end >= start:
            count += end - start + 1
            reached = end
    return count


def _term(node: Dice) -> _Term:
    low, high = node.faces
    sides = high - low + 1
    count = node.rolled_count
    rerolled = node.reroll.conditions if node.reroll is not None and not node.reroll.add else ()
    matched = _matched(rerolled, low, high)
    continues = _matched([*rerolled, *filter(None, [node.explode])], low, high) / sides
    depth, explodes = 0, 0.0
    if node.explode is not None:
        both = _matched(node.explode, low, high)
        staying = round(continues * sides) - matched  # exploding faces that no reroll takes away
        explodes = both / sides  # raw: the first die without a reroll, a compounding die's later rolls
        if node.reroll is not None and not node.reroll.once and not node.reroll.add:
            explodes = max(explodes, staying / (sides - matched))
        elif node.reroll is not None and node.reroll.once:
            explodes = max(explodes, (sides * staying + matched * both) / sides**2)
        # Deep enough that a longer chain is negligible for any of the dice.
        depth = 1
        if explodes >= 1:  # every die that stays explodes again: only the cap ends the chain
            depth = MAX_EXTRA_ROLLS
        elif explodes > 0:
            depth = max(1, math.ceil(math.log(_CHAIN_NEGLIGIBLE / max(count, 1)) / math.log(explodes)))
        depth = min(depth, MAX_EXTRA_ROLLS)
    bounded = node.explode is None and (node.reroll is None or node.reroll.once or node.reroll.add)
    return _Term(node, count, low, sides, depth, explodes, continues, bounded)


def _terms(node: Expression) -> list[_Term]:
    """Every dice term of `node`."""
    if isinstance(node, Dice):
        return [_term(node)]
    if isinstance(node, Number):
        return []
    if isinstance(node, Negate):
        return _terms(node.operand)
    if isinstance(node, BinaryOp):
        return _terms(node.left) + _terms(node.right)
    if isinstance(node, Group | Annotated):
        return _terms(node.inner)
    if isinstance(node, Repeat):
        return _terms(node.inner)
    if isinstance(node, DiceSet | Several):
        return [term for item in node.items for term in _terms(item)]
    raise TypeError(f"not an expression: {node!r}")


def cap_error(terms: list[_Term]) -> float:
    """A bound on the chance that the counted odds and the roller part ways (module docstring).

    The counted odds follow each exploding die `depth` levels and let rerolls go on for ever; the roller stops
    every die once the text's `MAX_EXTRA_ROLLS` are spent. Outside two events they agree: some die exploding
    more often than its chain is followed (at most `explodes`^(depth+1) each), and all dice together
    needing more than the cap (Chernoff: each die's extra rolls are at most geometric with `continues`).
    """
    chains = [t for t in terms if not t.bounded and t.count and t.continues > 0]
    bounded = sum(t.count if t.node.reroll is None or not t.node.reroll.add else 1 for t in terms if t.bounded)
    union = sum(t.count * t.explodes ** (t.depth + 1) for t in chains if t.node.explode is not None)
    if not chains:
        return union
    top = max(t.continues for t in chains)
    if bounded > MAX_EXTRA_ROLLS or top >= 1:
        return 1.0
    room = MAX_EXTRA_ROLLS - bounded  # what the chains may spend when every bounded die takes its extra roll
    best = 1.0
    for step in range(1, 41):
        lam = -math.log(top) * step / 41  # e^lam * c < 1 for every chain
        log_bound = -lam * (room + 1)
        for t in chains:
            c = t.continues
            if c > 0:
                log_bound += t.count * (math.log1p(-c) - math.log1p(-c * math.exp(lam)))
        best = min(best, math.exp(min(0.0, log_bound)))
    return min(1.0, union + best)


def _contribution(node: Dice) -> Callable[[int], int]:
    """What one die showing a face (after mi/ma) adds to the term's total.

    Its face; 0 when it is not kept by face; or 1, -1, 0 for a success, a failure, neither.
    """
    matching = node.keep.matching if node.keep is not None else None
    drop_matching = node.keep is not None and node.keep.mode is KeepMode.DROP_MATCHING

    def value(face: int) -> int:
        if matching is not None and matching.matches(face) == drop_matching:
            return 0
        if node.success is None:
            return face
        return int(node.success.matches(face)) - int(node.failure is not None and node.failure.matches(face))

    return value


def _clamp(node: Dice, face: int) -> int:
    if node.minimum is not None and face < node.minimum:
        face = node.minimum
    if node.maximum is not None and face > node.maximum:
        face = node.maximum
    return face


def _settled(term: _Term) -> dict[int, int]:
    """The weight of each face a die shows once its reroll rule is done (before mi/ma and explosions)."""
    node, low, sides = term.node, term.low, term.sides
    faces = range(low, low + sides)
    reroll = node.reroll
    if reroll is None or reroll.add:
        return dict.fromkeys(faces, 1)
    matched = [face for face in faces if reroll.matches(face)]
    if not reroll.once:
        return {face: 1 for face in faces if not reroll.matches(face)}
    return {face: (0 if reroll.matches(face) else sides) + len(matched) for face in faces}


def _slot(term: _Term) -> _Dist:
    """What one die adds to the term's total, its explosions included (`term.depth` levels deep)."""
    node = term.node
    settled = _settled(term)
    value = _contribution(node)
    if node.explode is None:
        return _map(_from_weights(settled), lambda face: value(_clamp(node, face)))
    explode = node.explode
    if node.explode_mode is ExplodeMode.COMPOUND:
        return _map(_compound(term, settled), lambda face: value(_clamp(node, face)))
    penetrate = node.explode_mode is ExplodeMode.PENETRATE
    weight = sum(settled.values())
    # What each face adds, worked out once for the first die and once for the extra dice (penetrating ones
    # count one less); a level then costs a scaled copy of its stopping faces plus a shifted chain per
    # exploding face, never a pass over every face.
    stops, every, moves = [], [], []
    for extra in (False, True):
        shift = 1 if penetrate and extra else 0
        adds = {face: value(_clamp(node, face - shift)) for face, w in settled.items() if w}
        stopping: dict[int, int] = {}
        for face, w in settled.items():
            if w and not explode.matches(face):
                stopping[adds[face]] = stopping.get(adds[face], 0) + w
        stops.append(_from_weights(stopping) if stopping else None)
        every.append(_map_values(settled, adds))
        moves.append([(adds[face], w) for face, w in settled.items() if w and explode.matches(face)])

    def level(extra: bool, rest: _Dist, scale: int) -> _Dist:
        stop = stops[extra]
        out = _scale(stop, scale) if stop is not None else None
        for adds, w in moves[extra]:
            shifted = _Dist(rest.offset + adds, [c * w for c in rest.counts])
            out = shifted if out is None else _plus(out, shifted)
        assert out is not None
        return out

    tail = every[True]  # the last level keeps its face, as the cap makes the roller do
    for depth in range(1, term.depth):
        tail = level(True, tail, weight**depth)
    return level(False, tail, weight**term.depth)


def _compound(term: _Term, settled: dict[int, int]) -> _Dist:
    """The face of a compounding die: the sum of its rolls; the rolls after the first are not rerolled.

    `tail` is the sum of the rolls after an explosion; its last level keeps its face, as the cap makes the
    roller do.
    """
    explode = term.node.explode
    assert explode is not None
    sides = term.sides
    raw = range(term.low, term.low + sides)
    if not any(explode.matches(f) for f in raw):  # a condition no face meets (`2d2!!>5`): it never compounds
        return _from_weights({f: w * sides**term.depth for f, w in settled.items() if w})
    stop = _from_weights({f: 1 for f in raw if not explode.matches(f)})
    more = _from_weights({f: 1 for f in raw if explode.matches(f)})
    tail = _Dist(term.low, [1] * sides)
    for step in range(1, term.depth):
        tail = _plus(_scale(stop, sides**step), _convolve(more, tail))
    first_more = {f: w for f, w in settled.items() if explode.matches(f)}
    first_stop = {f: w * sides**term.depth for f, w in settled.items() if not explode.matches(f) and w}
    parts = [_convolve(_from_weights(first_more), tail)] if first_more else []
    if first_stop:
        parts.append(_from_weights(first_stop))
    return reduce(_plus, parts)


def _map_values(weights: dict[int, int], values: dict[int, int]) -> _Dist:
    """The weights of `weights`' faces, each carried to its value in `values`."""
    out: dict[int, int] = {}
    for face, w in weights.items():
        if w:
            out[values[face]] = out.get(values[face], 0) + w
    return _from_weights(out)


def _pool(term: _Term) -> _Dist:
    """The term's total: its dice together."""
    node = term.node
    if term.count == 0:
        return _point(0)
    keep = node.effective_keep
    plain = node.reroll is None and node.explode is None and node.minimum is None and node.maximum is None
    plain = plain and (keep is None) and node.success is None
    if plain:
        dist = _point(0)
        for _ in range(term.count):
            dist = _add_uniform(dist, term.low, term.sides)
        return dist
    if node.reroll is not None and node.reroll.add:
        return _reroll_and_add(term)
    if keep is not None and keep.matching is None:
        return _keep(term)
    return _power(_slot(term), term.count)


def _keep(term: _Term) -> _Dist:
    """Keep/drop the highest or lowest dice: faces from the kept end, how many dice show each (a multinomial)."""
    node = term.node
    keep = node.effective_keep
    assert keep is not None
    n = term.count
    amount = min(keep.amount, n)
    kept = amount if keep.mode in (KeepMode.KEEP_HIGHEST, KeepMode.KEEP_LOWEST) else n - amount
    from_top = keep.mode in (KeepMode.KEEP_HIGHEST, KeepMode.DROP_LOWEST)
    faces: dict[int, int] = {}
    settled = _settled(term)
    if node.explode is not None:  # compounding: one die per slot (`_price_term` refuses the other explosions)
        sums = _compound(term, settled)
        settled = {sums.offset + i: w for i, w in enumerate(sums.counts) if w}
    for face, w in settled.items():
        shown = _clamp(node, face)
        faces[shown] = faces.get(shown, 0) + w
    value = _contribution(node)
    order = [face for face in sorted(faces, reverse=from_top) if faces[face]]
    kept = min(kept, n)
    rest = sum(faces[face] for face in order)  # the weight of the faces not yet reached
    if kept == 0:
        return _Dist(0, [rest**n])
    # placed[j], j < kept: the weight of each kept total once j dice show faces reached so far. Once `kept` dice
    # are placed the total is known, and the other dice show any of the faces not reached yet: the state ends
    # there (`rest` to their number), so the count keeps `kept` states, never `n` (`5d100kh1`: one). Each state
    # is one integer, a field per total as in `_convolve`, so that shifting, scaling and adding run in C.
    values = [value(face) for face in order]
    least = min(0, *values) * kept
    size = max(0, *values) * kept - least + 1
    width = 8 * ((rest**n).bit_length() // 8 + 1)  # any weight is at most the total weight
    placed = [1 << (width * -least)] + [0] * (kept - 1)
    ended = 0
    for face, adds in zip(order, values, strict=True):
        w = faces[face]
        rest -= w
        after = list(placed)
        for j in range(kept - 1, -1, -1):
            state = placed[j]
            if not state:
                continue
            left = n - j
            for c in range(1, kept - j):
                after[j + c] += _shift(state * (math.comb(left, c) * w**c), width * adds * c)
            # c >= kept - j of the dice show this face: the last kept ones; the others show the faces left
            # (the binomial sum of c >= kept - j, as everything less the few terms below it).
            ending = (w + rest) ** left - sum(math.comb(left, c) * w**c * rest ** (left - c) for c in range(kept - j))
            if ending:
                ended += _shift(state * ending, width * adds * (kept - j))
        placed = after
    step = width // 8
    data = ended.to_bytes(size * step, "little")
    return _trim(_Dist(least, [int.from_bytes(data[i : i + step], "little") for i in range(0, size * step, step)]))


def _shift(packed: int, bits: int) -> int:
    """`packed` with every field moved `bits` up (or down: the fields below hold nothing)."""
    return packed << bits if bits >= 0 else packed >> -bits


def _reroll_and_add(term: _Term) -> _Dist:
    """Avrae's `ra`: no die matched, or some did and the first earned one more die, which is added."""
    node = term.node
    if node.keep is not None or node.explode is not None:
        raise _Unsupported
    assert node.reroll is not None
    value = _contribution(node)
    faces = range(term.low, term.low + term.sides)
    one = _map(_Dist(term.low, [1] * term.sides), lambda face: value(_clamp(node, face)))
    stays = {face: 1 for face in faces if not node.reroll.matches(face)}
    every = _power(one, term.count)
    if not stays:
        return _convolve(every, one)
    none = _power(_map(_from_weights(stays), lambda face: value(_clamp(node, face))), term.count)
    some = _Dist(every.offset, list(every.counts))
    for index, weight in enumerate(none.counts):
        some.counts[none.offset - every.offset + index] -= weight
    parts = [_scale(none, term.sides)]
    if any(some.counts):
        parts.append(_convolve(_trim(some), one))
    return reduce(_plus, parts)


# ------------------------------------------------------------------------------------------ the expression


def _first_roll(node: Expression) -> Expression:
    """The roll whose odds an answer shows: the first of several, the roll of a repeat."""
    if isinstance(node, Several):
        return _first_roll(node.items[0])
    if isinstance(node, Repeat):
        return _first_roll(node.inner)
    return node


def _count(node: Expression) -> _Dist:
    """The exact weights of every total of `node` (its parts independent, as the roller rolls them)."""
    if isinstance(node, Number):
        return _point(node.value)
    if isinstance(node, Dice):
        return _pool(_term(node))
    if isinstance(node, Negate):
        inner = _count(node.operand)
        return _Dist(-inner.high, inner.counts[::-1])
    if isinstance(node, Group) and node.function == "abs":
        return _map(_count(node.inner), abs)
    if isinstance(node, Group | Annotated):
        return _count(node.inner)
    if isinstance(node, BinaryOp):
        left, right = _count(node.left), _count(node.right)
        if node.op is Operator.ADD:
            return _convolve(left, right)
        if node.op is Operator.SUBTRACT:
            return _convolve(left, _Dist(-right.high, right.counts[::-1]))
        weights: dict[int, int] = {}
        for i, a in enumerate(left.counts):
            if a:
                for j, b in enumerate(right.counts):
                    if b:
                        value = _arithmetic(node.op, left.offset + i, right.offset + j)
                        weights[value] = weights.get(value, 0) + a * b
        return _from_weights(weights)
    if isinstance(node, DiceSet):
        return _count_set(node)
    if isinstance(node, Repeat | Several):
        return _count(_first_roll(node))
    raise TypeError(f"not an expression: {node!r}")


def _count_set(node: DiceSet) -> _Dist:
    if node.pool:
        return _count_pool(node)
    items = [_count(item) for item in node.items]
    if node.keep is None and node.success is None:
        return reduce(_convolve, items)
    keep, success = node.keep, node.success
    weights: dict[int, int] = {}
    supports = [[(d.offset + i, c) for i, c in enumerate(d.counts) if c] for d in items]
    for combination in product(*supports):
        totals = [value for value, _ in combination]
        chosen = _kept_totals(totals, keep) if keep is not None else totals
        value = sum(chosen) if success is None else sum(success.matches(t) for t in chosen)
        weights[value] = weights.get(value, 0) + math.prod(c for _, c in combination)
    return _from_weights(weights)


def _pool_dice(node: Expression) -> tuple[list[tuple[int, int]], int] | None:
    """The plain dice (lowest face, sides) and the number added of a sum of plain dice and numbers, else None."""
    node = _bare(node)
    if isinstance(node, Number):
        return [], node.value
    if isinstance(node, Dice):
        if node != Dice(node.count, node.sides, fudge=node.fudge):
            return None
        low, high = node.faces
        return [(low, high - low + 1)] * node.count, 0
    if isinstance(node, BinaryOp) and node.op in (Operator.ADD, Operator.SUBTRACT):
        left, right = _pool_dice(node.left), _pool_dice(node.right)
        if left is None or right is None:
            return None
        if node.op is Operator.SUBTRACT:
            if right[0]:
                return None  # dice taken away: which way a keep should lean is no longer the total's
            return left[0], left[1] - right[1]
        return left[0] + right[0], left[1] + right[1]
    return None


def _pool_plan(node: DiceSet) -> tuple[list[tuple[int, int]], int, int, bool, bool]:
    """What `_count_pool` follows: the dice, the number added, how many dice it tracks, and how.

    Returns (dice, added, tracked, highest, complement): it tracks the `tracked` highest (or lowest) faces so
    far, the fewer of the kept dice and the others; `complement` when those are the others, and then the whole
    sum too. Raises _Unsupported for a roll that is not a sum of plain dice and numbers.
    """
    keep = node.keep
    assert keep is not None and node.pool
    found = _pool_dice(node.items[0])
    if found is None:
        raise _Unsupported
    dice, added = found
    n = len(dice)
    amount = min(keep.amount, n)
    kept = amount if keep.mode in (KeepMode.KEEP_HIGHEST, KeepMode.KEEP_LOWEST) else n - amount
    high = keep.mode in (KeepMode.KEEP_HIGHEST, KeepMode.DROP_LOWEST)
    faces = max((low + sides for low, sides in dice), default=1) - min((low for low, _ in dice), default=0)
    # The kept faces alone, or the others and the sum: whichever has fewer states.
    complement = math.comb(faces + n - kept - 1, n - kept) * (n * (faces - 1) + 1) < math.comb(faces + kept - 1, kept)
    return dice, added, n - kept if complement else kept, high != complement, complement


def _count_pool(node: DiceSet) -> _Dist:
    """Roll20's `{4d6+3d8}k4`: the sum of the kept dice among dice of several sizes, die by die.

    A state is the tracked faces so far (a sorted tuple: the highest or lowest ones) and, when the kept dice
    are the many, the sum of every face; ties between faces change no sum, so which die is kept does not matter.
    """
    dice, added, tracked, highest, complement = _pool_plan(node)
    states: dict[tuple[tuple[int, ...], int], int] = {((), 0): 1}
    for low, sides in dice:
        after: dict[tuple[tuple[int, ...], int], int] = {}
        for (chosen, total), weight in states.items():
            for face in range(low, low + sides):
                if len(chosen) < tracked:
                    now = tuple(sorted((*chosen, face)))
                elif tracked and highest and face > chosen[0]:
                    now = tuple(sorted((*chosen[1:], face)))
                elif tracked and not highest and face < chosen[-1]:
                    now = tuple(sorted((*chosen[:-1], face)))
                else:
                    now = chosen
                key = (now, total + face if complement else 0)
                after[key] = after.get(key, 0) + weight
        states = after
    weights: dict[int, int] = {}
    for (chosen, total), weight in states.items():
        value = added + (total - sum(chosen) if complement else sum(chosen))
        weights[value] = weights.get(value, 0) + weight
    return _from_weights(weights)


def _price_pool(node: DiceSet) -> _Shape:
    """The shape and work of `_count_pool`: a Python pass over each face of each die, for each state then."""
    dice, added, tracked, _, complement = _pool_plan(node)
    if not dice:
        return _Shape(added, added, 0.0, _FACE)
    least = min(low for low, _ in dice)
    most = max(low + sides - 1 for low, sides in dice)
    faces = most - least + 1
    work, states, rolled, bits = 0, 1, 1, 0.0
    for index, (_, sides) in enumerate(dice):
        work += 2 * _FACE * states * sides
        rolled *= sides
        bits += math.log2(sides) if sides > 1 else 0.0
        chosen = min(index + 1, tracked)
        states = math.comb(faces + chosen - 1, chosen) * ((index + 1) * (faces - 1) + 1 if complement else 1)
        states = min(states, rolled)
    kept = tracked if not complement else len(dice) - tracked
    return _Shape(added + kept * min(0, least), added + kept * max(0, most), bits, work + _FACE * states)


def _kept_totals(totals: list[int], keep: Keep) -> list[int]:
    """The totals a set's keep rule keeps, as `bot.rules.dice` chooses them (ties do not change the sum)."""
    if keep.matching is not None:
        wanted = keep.mode is KeepMode.KEEP_MATCHING
        return [t for t in totals if keep.matching.matches(t) == wanted]
    ranked = sorted(totals, reverse=keep.mode in (KeepMode.KEEP_HIGHEST, KeepMode.DROP_HIGHEST))
    chosen, rest = ranked[: keep.amount], ranked[keep.amount :]
    return chosen if keep.mode in (KeepMode.KEEP_HIGHEST, KeepMode.KEEP_LOWEST) else rest


# ------------------------------------------------------------------------------------------------ pricing


@dataclass(frozen=True, slots=True)
class _Shape:
    """What pricing knows of a count before it is made: the range of totals, the bits of the weights, the work."""

    low: int
    high: int
    bits: float
    work: int

    @property
    def span(self) -> int:
        return self.high - self.low + 1


def _words(bits: float) -> int:
    return 1 + int(bits) // _WORD_BITS


def _convolve_work(a: int, b: int, bits: float) -> int:
    """The work of `_convolve` on lengths `a` and `b` whose result's weights take `bits` bits."""
    if min(a, b) <= _SHORT:
        return a * b * _words(bits) + _FACE
    # Packing and unpacking each weight (Python loops), then Karatsuba on the two integers, ~n^1.585 words.
    fields = (a + b) * _words(bits)
    return _FACE * (2 * (a + b) + fields // 4) + int(fields**1.585) // 8


def _power_work(span: int, bits: float, times: int) -> tuple[int, int, float]:
    """The work of `_power`: the shape of each product of the repeated squaring, priced as `_convolve`."""
    work = 0
    result: tuple[int, float] | None = None
    while True:
        if times & 1:
            if result is None:
                result = (span, bits)
            else:
                work += _convolve_work(result[0], span, result[1] + bits)
                result = (result[0] + span - 1, result[1] + bits)
        times >>= 1
        if not times:
            assert result is not None
            return work, result[0], result[1]
        work += _convolve_work(span, span, 2 * bits)
        span, bits = 2 * span - 1, 2 * bits


def _face_range(term: _Term) -> tuple[int, int]:
    """The range of what one roll of the term's die adds (after mi/ma, penetration, keep by face, successes)."""
    node = term.node
    if node.success is not None:
        return (-1 if node.failure is not None else 0), 1
    shift = 1 if node.explode_mode is ExplodeMode.PENETRATE and node.explode is not None else 0
    low, high = _clamp(node, term.low - shift), _clamp(node, term.low + term.sides - 1)
    if node.keep is not None and node.keep.matching is not None:
        low, high = min(low, 0), max(high, 0)
    return low, high


def _weight_bits(term: _Term) -> float:
    reroll = term.node.reroll
    if reroll is not None and reroll.once and not reroll.add:
        return 2 * math.log2(term.sides)
    return math.log2(term.sides) if term.sides > 1 else 0.0


def _price_slot(term: _Term) -> _Shape:
    """The shape and work of `_slot`: Python passes over the faces, then the chain's levels in C loops."""
    node = term.node
    low, high = _face_range(term)
    bits = _weight_bits(term)
    s = term.sides
    if node.explode is None:
        return _Shape(low, high, bits, 3 * _FACE * s)
    depth = term.depth
    exploding = _matched(node.explode, term.low, term.low + s - 1)
    if node.explode_mode is ExplodeMode.COMPOUND:
        raw_high = (term.low + s - 1) * (depth + 1)
        words = _words(bits + depth * math.log2(max(s, 2)))
        levels = sum((exploding * d * s + d * s) * words for d in range(1, depth + 1))
        work = 4 * _FACE * s + levels + _FACE * (raw_high - term.low + 1)
        if node.success is not None:
            return _Shape(low, high, bits * (depth + 1), work)
        return _Shape(min(low, _clamp(node, term.low)), max(high, _clamp(node, raw_high)), bits * (depth + 1), work)
    words = _words(bits * (depth + 1))
    spread = high - low
    levels = sum(3 * exploding * (d * spread + 1) * words + d * spread for d in range(1, depth + 1))
    return _Shape(low + depth * min(0, low), high + depth * max(0, high), bits * (depth + 1), 8 * _FACE * s + levels)


def _shown_faces(term: _Term) -> int:
    """How many faces a die of the term can show once mi/ma are applied: the passes of `_keep`."""
    node, low, high = term.node, term.low, term.low + term.sides - 1
    if node.explode is not None:  # compounding: the sum of up to depth + 1 rolls
        high *= term.depth + 1
    return _clamp(node, high) - _clamp(node, low) + 1


def _price_term(term: _Term) -> _Shape:
    """The shape and work of `_pool`."""
    node, n, s = term.node, term.count, term.sides
    if n == 0:
        return _Shape(0, 0, 0.0, 1)
    keep = node.effective_keep
    plain = node.reroll is None and node.explode is None and node.minimum is None and node.maximum is None
    if plain and keep is None and node.success is None:
        step = math.log2(s) if s > 1 else 0.0
        work = sum((i * (s - 1) + s) * _words(i * step) for i in range(1, n + 1))
        return _Shape(n * term.low, n * (term.low + s - 1), n * step, work)
    if node.reroll is not None and node.reroll.add:
        if node.keep is not None or node.explode is not None:
            raise _Unsupported
        low, high = _face_range(term)
        spread = high - low + 1
        bits = (n + 1) * math.log2(max(s, 2))
        work = 2 * _power_work(spread, math.log2(max(s, 2)), n)[0] + _convolve_work(n * spread, spread, bits)
        work += 6 * _FACE * s
        return _Shape(min(n * low, (n + 1) * low), max(n * high, (n + 1) * high), bits, work)
    if keep is not None and keep.matching is None:
        if node.explode is not None and node.explode_mode is not ExplodeMode.COMPOUND:
            raise _Unsupported  # the explosion dice join the pool: the dice are no longer alike
        slot = _price_slot(term)
        amount = min(keep.amount, n)
        kept = amount if keep.mode in (KeepMode.KEEP_HIGHEST, KeepMode.KEEP_LOWEST) else n - amount
        spread = slot.high - slot.low
        words = _words(slot.bits * n + n)
        # `_keep` passes over the faces a die can show (mi/ma, a compounding die's sums), not over what each adds:
        # a success target makes every face add 0 or 1, yet 300 faces are still 300 passes. Per face: a scaled,
        # shifted copy of a packed state per pair (placed, more) below `kept` and per state the one that ends it,
        # each a C pass over the packed words; and per state the binomial sum that ends it.
        faces = _shown_faces(term)
        packed = (kept * spread + 1) * words
        per_face = (kept * (kept + 1) // 2 + kept) * (_FACE + packed // 8) + kept * kept * words * _FACE
        work = 2 * _FACE * s + faces * per_face
        low, high = min(0, kept * slot.low), max(0, kept * slot.high)
        return _Shape(low, high, slot.bits * n, work + slot.work)
    slot = _price_slot(term)
    work = slot.work + _power_work(slot.span, slot.bits, n)[0]
    return _Shape(n * slot.low, n * slot.high, slot.bits * n, work)


def _price(node: Expression) -> _Shape:
    """The shape and work of `_count`, from the numbers alone; raises _Unsupported where it does not count."""
    if isinstance(node, Number):
        return _Shape(node.value, node.value, 0.0, 1)
    if isinstance(node, Dice):
        return _price_term(_term(node))
    if isinstance(node, Negate):
        inner = _price(node.operand)
        return _Shape(-inner.high, -inner.low, inner.bits, inner.work + inner.span)
    if isinstance(node, Group) and node.function == "abs":
        inner = _price(node.inner)
        low = 0 if inner.low <= 0 <= inner.high else min(abs(inner.low), abs(inner.high))
        return _Shape(low, max(abs(inner.low), abs(inner.high)), inner.bits, inner.work + 2 * _FACE * inner.span)
    if isinstance(node, Group | Annotated):
        return _price(node.inner)
    if isinstance(node, BinaryOp):
        a, b = _price(node.left), _price(node.right)
        bits = a.bits + b.bits
        if node.op in (Operator.ADD, Operator.SUBTRACT):
            sign = 1 if node.op is Operator.ADD else -1
            low, high = (a.low + b.low, a.high + b.high) if sign > 0 else (a.low - b.high, a.high - b.low)
            return _Shape(low, high, bits, a.work + b.work + _convolve_work(a.span, b.span, bits))
        low, high = _range_of(node.op, a, b)
        pairs = 2 * _FACE * a.span * b.span * _words(bits)  # a Python pass over every pair of totals
        return _Shape(low, high, bits, a.work + b.work + pairs + (high - low + 1) * _words(bits))
    if isinstance(node, DiceSet) and node.pool:
        return _price_pool(node)
    if isinstance(node, DiceSet):
        items = [_price(item) for item in node.items]
        bits = sum(i.bits for i in items)
        work = sum(i.work for i in items)
        low, high = sum(i.low for i in items), sum(i.high for i in items)
        if node.keep is None and node.success is None:
            spans = [i.span for i in items]
            for index in range(1, len(items)):
                work += _convolve_work(sum(spans[:index]), spans[index], bits)
            return _Shape(low, high, bits, work)
        work += math.prod(i.span for i in items) * 4 * _FACE  # a Python pass, a sort, a sum per combination
        if node.success is not None:
            return _Shape(0, len(items), bits, work)
        return _Shape(min(0, low), max(0, high), bits, work)
    if isinstance(node, Repeat | Several):
        return _price(_first_roll(node))
    raise TypeError(f"not an expression: {node!r}")


def _range_of(op: Operator, a: _Shape, b: _Shape) -> tuple[int, int]:
    """Bounds on `a op b` over the two ranges (a division by zero counts 0)."""
    if op is Operator.MULTIPLY:
        corners = [x * y for x in (a.low, a.high) for y in (b.low, b.high)]
        return min(corners), max(corners)
    if op is Operator.POWER:
        corners = [x**y for x in (a.low, a.high, 0 if a.low <= 0 <= a.high else a.low) for y in (b.low, b.high)]
        return min(corners), max(corners)
    if op not in (Operator.DIVIDE, Operator.MODULO):
        return 0, 1  # a comparison
    if op is Operator.DIVIDE:
        top = max(abs(a.low), abs(a.high))
        return -top - 1, top
    top = max(abs(b.low), abs(b.high))
    return -top, top


def odds_work(expression: Expression) -> int | None:
    """The work units the exact odds of `expression` (its first roll) take, from its numbers alone.

    Returns:
        The work, or None where the exact count does not cover the expression (it is estimated).
    """
    try:
        return _price(_first_roll(expression)).work
    except _Unsupported:
        return None


# ------------------------------------------------------------------------------------------- the estimates


@dataclass(frozen=True, slots=True)
class _Moments:
    """A sum of independent parts: its exact mean, its variance, Σ E|X - μ|³ (bounded above), and its range."""

    mean: Fraction
    variance: float
    third: float
    low: int
    high: int

    def __add__(self, other: _Moments) -> _Moments:
        return _Moments(
            self.mean + other.mean,
            self.variance + other.variance,
            self.third + other.third,
            self.low + other.low,
            self.high + other.high,
        )

    def times(self, factor: int) -> _Moments:
        low, high = sorted((self.low * factor, self.high * factor))
        return _Moments(self.mean * factor, self.variance * factor**2, self.third * abs(factor) ** 3, low, high)


def _slot_moments(term: _Term, budget: list[int]) -> _Moments | None:
    """One die's moments: by formula for a plain die, else from its counted distribution, if `budget` allows."""
    node = term.node
    plain = node.reroll is None and node.explode is None and node.minimum is None and node.maximum is None
    if plain and node.keep is None and node.success is None:
        s = term.sides
        variance = (s * s - 1) / 12
        return _Moments(Fraction(2 * term.low + s - 1, 2), variance, _uniform_third(s), term.low, term.low + s - 1)
    if node == Dice(node.count, node.sides, explode=node.explode):  # `!` alone: in closed form, however many sides
        return _explosion_moments(term)
    budget[0] -= _price_slot(term).work
    if budget[0] < 0:
        return None
    dist = _trim(_slot(term))
    total = dist.total()
    mean = Fraction(sum((dist.offset + i) * c for i, c in enumerate(dist.counts)), total)
    centre = float(mean)
    variance = sum(c / total * (dist.offset + i - centre) ** 2 for i, c in enumerate(dist.counts) if c)
    third = sum(c / total * abs(dist.offset + i - centre) ** 3 for i, c in enumerate(dist.counts) if c)
    return _Moments(mean, variance, third, dist.offset, dist.high)


def _cumulants(faces: list[int]) -> tuple[float, float, float, float]:
    """The first four cumulants of one of `faces`, equally likely."""
    n = len(faces)
    centre = sum(faces) / n
    m2 = sum((f - centre) ** 2 for f in faces) / n
    m3 = sum((f - centre) ** 3 for f in faces) / n
    m4 = sum((f - centre) ** 4 for f in faces) / n
    return centre, m2, m3, m4 - 3 * m2 * m2


def _explosion_moments(term: _Term) -> _Moments:
    """An exploding die (`!`, no other modifier) in closed form, its chain as deep as the roller lets it go.

    The die is M rolls among the exploding faces E and one among the others S, M geometric (P(M = m) = p^m q,
    p the share of E). Cumulants of a random sum (Faà di Bruno) give the variance and the fourth moment, and
    E|X - μ|³ <= sqrt(μ4 μ2) (Cauchy-Schwarz) bounds what Berry-Esseen needs. The cap, which stops a chain
    early, is `cap_error`'s to bound. A pass over the faces, never over the chain.
    """
    node = term.node
    assert node.explode is not None
    faces = range(term.low, term.low + term.sides)
    exploding = [face for face in faces if node.explode.matches(face)]
    stopping = [face for face in faces if not node.explode.matches(face)]
    mean = Fraction(sum(faces), len(stopping))  # (p/q) mean(E) + mean(S), the q's and counts cancelled
    _, z2, _, z4 = _cumulants(stopping)
    k2 = z2
    mu4 = z4 + 3 * z2 * z2
    if exploding:
        p = len(exploding) / term.sides
        q = 1 - p
        m1, m2, m3, m4 = p / q, p / q**2, p * (1 + p) / q**3, p * (1 + 4 * p + p * p) / q**4
        y1, y2, y3, y4 = _cumulants(exploding)
        k2 += m1 * y2 + m2 * y1 * y1
        k4 = m1 * y4 + m2 * (4 * y1 * y3 + 3 * y2 * y2) + 6 * m3 * y1 * y1 * y2 + m4 * y1**4
        mu4 = z4 + k4 + 3 * k2 * k2
    third = math.sqrt(max(mu4, 0.0) * k2)
    top = term.low + term.sides - 1
    return _Moments(mean, k2, third, term.low, top * (term.depth + 1))


def _uniform_third(sides: int) -> float:
    """E|X - μ|³ of one die of `sides` equally likely faces, in closed form (sums of powers of the distances)."""
    half = sides // 2
    if sides % 2:
        return 2 * (half * (half + 1) / 2) ** 2 / sides  # distances 1..half, twice each
    # distances j + 1/2 for j < half, twice each: Σ j³ + 3/2 Σ j² + 3/4 Σ j + half/8
    n = half - 1
    cubes, squares, ones = (n * (n + 1) / 2) ** 2, n * (n + 1) * (2 * n + 1) / 6, n * (n + 1) / 2
    return 2 * (cubes + 1.5 * squares + 0.75 * ones + half / 8) / sides


def _moments(node: Expression, budget: list[int]) -> _Moments | None:
    """The moments of `node` when it is a sum of independent dice (times constants); None when it is not."""
    if isinstance(node, Number):
        return _Moments(Fraction(node.value), 0.0, 0.0, node.value, node.value)
    if isinstance(node, Dice):
        term = _term(node)
        keep = node.effective_keep
        if (keep is not None and keep.matching is None) or (node.reroll is not None and node.reroll.add):
            return None
        if term.count == 0:
            return _Moments(Fraction(0), 0.0, 0.0, 0, 0)
        one = _slot_moments(term, budget)
        if one is None:
            return None
        n = term.count
        return _Moments(one.mean * n, one.variance * n, one.third * n, one.low * n, one.high * n)
    if isinstance(node, Negate):
        inner = _moments(node.operand, budget)
        return None if inner is None else inner.times(-1)
    if isinstance(node, Group) and node.function == "abs":
        return None  # not a sum of dice
    if isinstance(node, Group | Annotated):
        return _moments(node.inner, budget)
    if isinstance(node, BinaryOp):
        left_bare, right_bare = _bare(node.left), _bare(node.right)
        if node.op is Operator.MULTIPLY and isinstance(right_bare, Number):
            inner = _moments(node.left, budget)
            return None if inner is None else inner.times(right_bare.value)
        if node.op is Operator.MULTIPLY and isinstance(left_bare, Number):
            inner = _moments(node.right, budget)
            return None if inner is None else inner.times(left_bare.value)
        if node.op not in (Operator.ADD, Operator.SUBTRACT):
            return None
        left, right = _moments(node.left, budget), _moments(node.right, budget)
        if left is None or right is None:
            return None
        return left + (right if node.op is Operator.ADD else right.times(-1))
    if isinstance(node, DiceSet) and node.keep is None and node.success is None:
        parts = [_moments(item, budget) for item in node.items]
        return None if any(p is None for p in parts) else reduce(add, parts)
    return None


def _bare(node: Expression) -> Expression:
    while isinstance(node, Group | Annotated) and not (isinstance(node, Group) and node.function == "abs"):
        node = node.inner
    return node


class _Counting:
    """The estimate's own dice, counted, so that sampling stops at `SAMPLE_DICE` draws whatever it rolls."""

    def __init__(self, dice: DiceSource) -> None:
        self._dice = dice
        self.drawn = 0

    def randint(self, a: int, b: int) -> int:
        self.drawn += 1
        return self._dice.randint(a, b)


def wilson(count: int, samples: int) -> tuple[float, float]:
    """The `CONFIDENCE` interval of a chance seen `count` times in `samples` rolls.

    Wilson's score interval with continuity correction (Newcombe 1998): it holds at its level even for chances
    near 0 or 1, where p ± z·se does not.
    """
    n, p, z2 = samples, count / samples, _Z * _Z
    low = 0.0
    if count > 0:
        low = (2 * n * p + z2 - 1 - _Z * math.sqrt(z2 - 2 - 1 / n + 4 * p * (n * (1 - p) + 1))) / (2 * (n + z2))
    high = 1.0
    if count < samples:
        high = (2 * n * p + z2 + 1 + _Z * math.sqrt(z2 + 2 - 1 / n + 4 * p * (n * (1 - p) - 1))) / (2 * (n + z2))
    return max(0.0, low), min(1.0, high)


def _widest(samples: int) -> float:
    """The widest half of a `CONFIDENCE` interval of a chance from `samples` rolls (at a chance of 1/2)."""
    low, high = wilson(samples // 2, samples)
    return max(samples // 2 / samples - low, high - samples // 2 / samples)


def sampled(expression: Expression, estimate_dice: DiceSource, work: int = 0) -> Odds:
    """Rolls of the real roller on the estimate's own dice (never the roll's), until `SAMPLE_DICE` are drawn.

    Fewer than `MIN_SAMPLES` rolls in that budget (`1000d2r1` draws some 2,000 dice a roll) give TOO_COSTLY,
    never an estimate from a handful of rolls; it stops as soon as the first rolls show it.
    """
    node = _first_roll(expression)
    source = _Counting(estimate_dice)
    totals: list[int] = []
    while source.drawn + SAMPLE_ROLL * len(totals) < SAMPLE_DICE and len(totals) < MAX_SAMPLES:
        totals.append(roll(node, source).total)
        spent = source.drawn + SAMPLE_ROLL * len(totals)
        if len(totals) * SAMPLE_DICE < spent * MIN_SAMPLES // 2:
            break  # at this pace, not half the rolls needed
    if len(totals) < MIN_SAMPLES:
        return Odds(Method.TOO_COSTLY, 0, 0, (), (), 1, Fraction(0), 1.0, work=work)
    seen = Counter(totals)
    values = sorted(seen)
    counts = [seen[value] for value in values]
    samples = len(totals)
    mean = Fraction(sum(totals), samples)
    centre = float(mean)
    variance = sum((total - centre) ** 2 for total in totals) / (samples - 1)
    return Odds(
        Method.SAMPLED,
        values[0],
        values[-1],
        tuple(values),
        tuple(counts),
        samples,
        mean,
        _widest(samples),
        variance,
        work=work,
        cumulative=(0, *accumulate(counts)),
    )


def normal(expression: Expression) -> Odds | None:
    """The normal approximation of a sum of independent dice, with its Berry-Esseen bound; None for any other."""
    node = _first_roll(expression)
    cap = cap_error(_terms(node))
    moments = _moments(node, [ODDS_BUDGET]) if cap < 0.001 else None
    if moments is None or moments.variance <= 0:
        return None
    error = min(1.0, BERRY_ESSEEN * moments.third / moments.variance**1.5 + cap)
    return Odds(Method.NORMAL, moments.low, moments.high, (), (), 1, moments.mean, error, moments.variance)


def odds(expression: Expression, estimate_dice: DiceSource) -> Odds:
    """The odds of a roll's total (of its first roll, for several): exact within `ODDS_BUDGET`, else estimated.

    Computed without garbage collection pauses (`bot.rules.collector`), which the work budget cannot price.

    Args:
        expression: A tree from `bot.rules.dice.parse`; nothing is rolled from it but the estimate's own dice.
        estimate_dice: Where a sampled estimate's faces come from, only drawn from when counting is out of the
            budget: never the roll's own dice (a fair session's log must not see them). Seeded with
            `SAMPLE_SEED` afresh per call, the same expression gets the same estimate.

    Returns:
        The distribution, with how it was found and how close it is.
    """
    with uncollected():
        return _odds(expression, estimate_dice)


def _odds(expression: Expression, estimate_dice: DiceSource) -> Odds:
    node = _first_roll(expression)
    terms = _terms(node)
    cap = cap_error(terms)
    try:
        work = _price(node).work
    except _Unsupported:
        work = None
    priced = work if work is not None else ODDS_BUDGET + 1
    if work is not None and work <= ODDS_BUDGET and cap < EXACT_ERROR:
        dist = _count(node)
        mean = Fraction(sum((dist.offset + i) * c for i, c in enumerate(dist.counts)), dist.total())
        return _counted(Method.EXACT, dist, mean, cap, priced)
    approximation = normal(node)
    if approximation is not None:
        approximation = replace(approximation, work=priced)
        # Sampling would draw about this many rolls (explosions aside): keep the estimate that promises less
        # error, the bound of the one against the 99% interval of the other.
        rolls = min(MAX_SAMPLES, SAMPLE_DICE // (sum(t.count for t in terms) + SAMPLE_ROLL))
        if rolls < MIN_SAMPLES or approximation.error <= _widest(rolls):
            return approximation
    estimate = sampled(node, estimate_dice, priced)
    if estimate.method is Method.TOO_COSTLY and approximation is not None:
        return approximation
    return estimate


LIGHT_WORK: Final = 50_000  # priced work light enough to count on a shared event loop (a few milliseconds)


def light(expression: Expression) -> bool:
    """Whether the odds of `expression` are counted exactly with little work (no estimate, no sampling)."""
    node = _first_roll(expression)
    work = odds_work(node)
    return work is not None and work <= LIGHT_WORK and cap_error(_terms(node)) < EXACT_ERROR


# Light odds kept per expression, so that the same roll asked again (most rolls are) is not counted again. Both bounds
# hold: a `1d10000` holds 10,000 totals with their counts, about 1 MB, so 256 of them would not fit in memory.
ODDS_KEPT: Final = 256  # expressions
TOTALS_KEPT: Final = 100_000  # totals held by all of them together, some 10 MB at most


class _Kept:
    """Odds by the expression they are of, the least recently used forgotten first, within both bounds."""

    def __init__(self, entries: int, totals: int) -> None:
        self.entries = entries
        self.totals = totals
        self.held = 0  # totals held by the odds kept
        self._odds: OrderedDict[Expression, Odds] = OrderedDict()

    def __len__(self) -> int:
        return len(self._odds)

    def get(self, expression: Expression) -> Odds | None:
        found = self._odds.get(expression)
        if found is not None:
            self._odds.move_to_end(expression)
        return found

    def put(self, expression: Expression, found: Odds) -> None:
        if len(found.values) > self.totals:
            return
        previous = self._odds.pop(expression, None)
        if previous is not None:
            self.held -= len(previous.values)
        self._odds[expression] = found
        self.held += len(found.values)
        while len(self._odds) > self.entries or self.held > self.totals:
            _, forgotten = self._odds.popitem(last=False)
            self.held -= len(forgotten.values)

    def clear(self) -> None:
        self._odds.clear()
        self.held = 0


_KEPT: Final = _Kept(ODDS_KEPT, TOTALS_KEPT)


class _NoDice:
    """The estimate's dice where no estimate can happen: light odds are counted, never sampled."""

    def randint(self, a: int, b: int) -> int:
        raise AssertionError("light odds are counted exactly, never sampled")


def light_odds(expression: Expression) -> Odds | None:
    """The exact odds of `expression` (its first roll) when they are light to count (`light`), else None.

    A pure function of the tree, which is immutable and compares by its normalized text (`str()` of it): equal
    trees have equal odds, so they are kept per tree (`ODDS_KEPT`, `TOTALS_KEPT`) and counted once.
    """
    node = _first_roll(expression)
    found = _KEPT.get(node)
    if found is not None:
        return found
    if not light(node):
        return None
    found = odds(node, _NoDice())
    _KEPT.put(node, found)
    return found


def odds_of(text: str, estimate_dice: DiceSource) -> Odds:
    """The odds of a /roll expression given as text (for a worker process: text in, frozen result out)."""
    return odds(parse(text), estimate_dice)
