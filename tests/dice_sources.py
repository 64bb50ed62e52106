"""Dice sources for tests: scripted faces, none at all, or real dice that hold the event loop."""

from __future__ import annotations

import random
import time
from collections.abc import Iterable


class ScriptedDice:
    """A dice source that returns the given faces in order and fails loudly on any misuse."""

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)
        self.calls: list[tuple[int, int]] = []

    def randint(self, a: int, b: int) -> int:
        if len(self.calls) >= len(self._faces):
            raise AssertionError(f"dice script exhausted after {len(self._faces)} faces")
        face = self._faces[len(self.calls)]
        if not a <= face <= b:
            raise AssertionError(f"scripted face {face} is outside randint({a}, {b})")
        self.calls.append((a, b))
        return face

    @property
    def used(self) -> int:
        return len(self.calls)

    @property
    def exhausted(self) -> bool:
        return len(self.calls) == len(self._faces)


class NoDice:
    """A dice source for expressions that must be refused before anything is rolled."""

    def randint(self, a: int, b: int) -> int:
        raise AssertionError(f"a die was rolled (randint({a}, {b})) for an expression that should be refused")


class SlowDice:
    """Real dice that hold the event loop for `seconds` per die, as a busy bot would."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.rng = random.Random(7)

    def randint(self, a: int, b: int) -> int:
        time.sleep(self.seconds)
        return self.rng.randint(a, b)
