"""The bot's dice read the system's randomness a block at a time and give what `random.SystemRandom` gives.

Both are run over one fixed stream of bytes (seeded, in place of `os.urandom`): the faces must be the same,
die for die, so the distribution is unchanged (rejection sampling, no modulo bias), and a chi-square over the
stream says the faces are uniform.
"""

from __future__ import annotations

import pickle
import random
from collections import Counter
from collections.abc import Callable

import pytest

from bot.rules import system_dice
from bot.rules.system_dice import SystemDice

RANGES = [(1, 20), (1, 6), (1, 100), (1, 10_000), (1, 1), (-1, 1), (0, 2**70), (1, 3), (1, 255), (1, 256), (1, 257)]


def stream(seed: int) -> Callable[[int], bytes]:
    """The bytes of a seeded source, read in order however they are asked for."""
    data = random.Random(seed).randbytes(200_000)
    at = 0

    def read(count: int) -> bytes:
        nonlocal at
        at += count
        assert at <= len(data), "the test needs more bytes"
        return data[at - count : at]

    return read


@pytest.mark.parametrize("block", [1, 7, system_dice.BLOCK])
def test_the_faces_are_system_randoms_over_the_same_bytes(block: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(random, "_urandom", stream(29))  # what SystemRandom reads
    reference = random.SystemRandom()
    dice = SystemDice(read=stream(29), block=block)
    plan = [RANGES[i % len(RANGES)] for i in range(5_000)]
    assert [dice.randint(a, b) for a, b in plan] == [reference.randint(a, b) for a, b in plan]


@pytest.mark.parametrize(("sides", "critical"), [(6, 20.515), (20, 43.820), (100, 148.230)])
def test_the_faces_are_uniform(sides: int, critical: float) -> None:
    """Pearson's chi-square of 200 faces per side against the 0.999 quantile of chi-square with sides-1 df."""
    dice = SystemDice(read=stream(31))
    rolls = 200 * sides
    seen = Counter(dice.randint(1, sides) for _ in range(rolls))
    assert set(seen) == set(range(1, sides + 1))
    expected = rolls / sides
    assert sum((seen[face] - expected) ** 2 / expected for face in range(1, sides + 1)) < critical


def test_the_system_is_asked_once_a_block() -> None:
    reads: list[int] = []
    source = stream(37)

    def read(count: int) -> bytes:
        reads.append(count)
        return source(count)

    dice = SystemDice(read=read)
    for _ in range(1_000):
        dice.randint(1, 20)  # one byte a try, 1.6 tries a die
    assert reads == [system_dice.BLOCK]


def test_unrolled_faces_are_never_copied() -> None:
    dice = SystemDice(read=stream(41))
    dice.randint(1, 20)
    with pytest.raises(TypeError):
        pickle.dumps(dice)
    reads: list[int] = []
    again = SystemDice(read=lambda count: reads.append(count) or bytes(count))
    again.randint(1, 20)
    system_dice._forget_all()  # what a forked child does first
    again.randint(1, 20)
    assert len(reads) == 2  # the child read its own


def test_an_empty_range_is_refused() -> None:
    with pytest.raises(ValueError):
        SystemDice().randint(2, 1)
