"""The bot's own dice: the operating system's randomness, read a block at a time rather than a call per die.

`random.SystemRandom` asks the kernel for a few bytes on every die (`os.urandom`, a system call each): under a
burst that was 3% of a roll. `SystemDice` reads `BLOCK` bytes at once and turns them into faces exactly as
`random.SystemRandom.randint` turns its bytes: `random.Random._randbelow_with_getrandbits` (k = n.bit_length()
bits, from whole bytes, the excess bits shifted off; a number past the range is thrown away and drawn again),
so that over the same bytes both give the same faces, and every face of a die is equally likely.

Fair sessions never draw from here (`bot.rules.fair`: their faces come from the session's committed seed).
The block holds faces not yet rolled: it is never copied, neither into a child process (a fork starts with an
empty block) nor by pickling.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable
from typing import Final

BLOCK: Final = 4096  # bytes read at once: a d20 takes one byte per try, 1d10000 two

_LIVE: weakref.WeakSet[SystemDice] = weakref.WeakSet()


class SystemDice:
    """Faces from the operating system's randomness (`os.urandom`), read `BLOCK` bytes at a time."""

    def __init__(self, read: Callable[[int], bytes] = os.urandom, block: int = BLOCK) -> None:
        self._read = read
        self._block = block
        self._bytes = b""
        self._at = 0
        _LIVE.add(self)

    def getrandbits(self, k: int) -> int:
        """An integer of `k` random bits, from whole bytes as `random.SystemRandom.getrandbits` makes it."""
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        count = (k + 7) // 8
        if self._at + count > len(self._bytes):
            # What is left of the block comes first: the bytes are read in order, none skipped or read twice.
            self._bytes = self._bytes[self._at :] + self._read(max(self._block, count))
            self._at = 0
        start = self._at
        self._at += count
        return int.from_bytes(self._bytes[start : self._at]) >> (count * 8 - k)

    def randint(self, a: int, b: int) -> int:
        """A random integer N with a <= N <= b, each equally likely (rejection sampling, as `random` does)."""
        n = b - a + 1
        if n <= 0:
            raise ValueError(f"empty range for randint({a}, {b})")
        k = n.bit_length()
        r = self.getrandbits(k)
        while r >= n:
            r = self.getrandbits(k)
        return a + r

    def forget(self) -> None:
        """Drop the faces read and not yet rolled."""
        self._bytes = b""
        self._at = 0

    def __reduce__(self) -> str | tuple[object, ...]:
        raise TypeError("SystemDice holds faces not yet rolled: it is never copied to another process")


def _forget_all() -> None:
    for dice in list(_LIVE):
        dice.forget()


os.register_at_fork(after_in_child=_forget_all)
