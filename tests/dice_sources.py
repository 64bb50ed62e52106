"""Dice sources for tests: scripted faces, or none at all."""

from __future__ import annotations

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
