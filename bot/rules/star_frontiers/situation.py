"""A shot's situation as the referee says it, one text: `prone sight -5` (star_frontiers.md §4 steps 10 and 12).

The flags of a shot that only the moment knows, and the referee's modifier, as words and at most one signed
number, so that `/sf shoot` keeps room for the next rule (Discord takes 25 options a command). Rolls logged with
the older options (`prone:true telescopic_sight:true modifier:-5`) read as the same text (`from_options`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from bot.rules.notation import NotationError, read_words, suggest_words
from bot.rules.star_frontiers.model import RangedSituation

MOST_MODIFIER: Final = 100  # as the `modifier` option took
VOCABULARY: Final[Mapping[str, str]] = {
    "prone": "prone",
    "telescopic sight": "telescopic sight",
    "sight": "telescopic sight",
    "scope": "telescopic sight",
}
HINT: Final = "Words: prone (the target lies prone, -5), telescopic sight; and a modifier like -5."
ORDER: Final = tuple(dict.fromkeys(VOCABULARY.values()))


class ShotSituationError(NotationError):
    """A shot's situation text that does not read."""

    title = "Can't read the situation"


@dataclass(frozen=True, slots=True)
class ShotSituation:
    """What the `situation` text of a shot says: its words (by their one names) and the referee's modifier."""

    words: frozenset[str] = frozenset()
    modifier: int = 0

    def __str__(self) -> str:
        """The one normal form: the words in a fixed order, then the modifier."""
        parts = [word for word in ORDER if word in self.words]
        return " ".join([*parts, f"{self.modifier:+d}"] if self.modifier else parts)

    def apply(self, situation: RangedSituation) -> RangedSituation:
        """`situation` with what the text says on it."""
        return replace(
            situation,
            prone="prone" in self.words,
            sight="telescopic sight" in self.words,
            modifier=self.modifier,
        )


NOTHING: Final = ShotSituation()


def parse_shot_situation(text: str) -> ShotSituation:
    """The `situation` option of a shot: `prone`, `telescopic sight`, and at most one signed number.

    Raises:
        ShotSituationError: A word it does not know, one twice, two numbers; the caret under it.
    """
    words = read_words(text, VOCABULARY, HINT, most_modifier=MOST_MODIFIER, error=ShotSituationError)
    return ShotSituation(frozenset(words.names), words.modifier)


def suggest(text: str) -> list[str]:
    """Autocomplete: the text typed so far with its last word completed, or a word more after a space."""
    return suggest_words(text, VOCABULARY)


OLD_FLAGS: Final = {"prone": "prone", "telescopic_sight": "telescopic sight"}


def from_options(given: Mapping[str, Any]) -> dict[str, Any]:
    """Options as typed before `situation` took `prone`, `telescopic_sight` and `modifier`: the same shot today."""
    options = dict(given)
    if not any(name in options for name in (*OLD_FLAGS, "modifier")):
        return options
    words = [word for name, word in OLD_FLAGS.items() if options.pop(name, False) in (True, "true", "True")]
    modifier = options.pop("modifier", 0)
    if isinstance(modifier, str):
        modifier = int(modifier.strip() or 0)
    if isinstance(modifier, int) and not isinstance(modifier, bool) and modifier:
        words.append(f"{modifier:+d}")
    if words and "situation" not in options:
        options["situation"] = " ".join(words)
    return options
