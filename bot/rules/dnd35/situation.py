"""An attack's situation as the table says it, one text: `flanking charge cover +2` (dnd35.md §2, §5-§7, §11).

One option holds what only the table knows about an attack, in words and at most one signed number, so that a
new SRD modifier is a new word, not a new slash option (Discord takes 25 a command). `parse_situation` reads it
with the notation reader's caret error; `suggest` completes it as it is typed; `SituationText.apply` puts it on
the rules core's `Situation`. Rolls logged with the older options (`flanking:true modifier:2`) read as the same
text (`from_options`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from bot.rules.dnd35.engine import MAX_NUMBER, Concealment, Cover, Situation
from bot.rules.dnd35.tables import NotationError
from bot.rules.notation import Words, read_words, suggest_words

MOST_MODIFIER: Final = 100  # as the `modifier` option took

# Every way of writing a word, to its one name (phrases with spaces, `-` or `_` alike).
VOCABULARY: Final[Mapping[str, str]] = {
    "flanking": "flanking",
    "flanked": "flanking",
    "flank": "flanking",
    "charge": "charge",
    "charging": "charge",
    "higher ground": "higher ground",
    "high ground": "higher ground",
    "cover": "cover",
    "improved cover": "improved cover",
    "soft cover": "soft cover",
    "concealment": "concealment",
    "concealed": "concealment",
    "total concealment": "total concealment",
    "prone": "prone",
    "helpless": "helpless",
    "sneak attack": "sneak attack",
    "sneak": "sneak attack",
    "into melee": "into melee",
    "two hands": "two hands",
    "two handed": "two hands",
    "ranged": "ranged",
}
CLASHES: Final = (frozenset({"cover", "improved cover", "soft cover"}), frozenset({"concealment", "total concealment"}))
HINT: Final = (
    "Words: flanking, charge, higher ground, cover, improved cover, soft cover, concealment, total concealment, prone, "
    "helpless, sneak attack, into melee, two hands, ranged; and a modifier like +2."
)
# The order `SituationText.__str__` writes the words in.
ORDER: Final = tuple(dict.fromkeys(VOCABULARY.values()))


class SituationError(NotationError):
    """A situation text that does not read."""

    title = "Can't read the situation"


@dataclass(frozen=True, slots=True)
class SituationText:
    """What the `situation` text says: its words (by their one names) and its modifier."""

    words: frozenset[str] = frozenset()
    modifier: int = 0

    def __str__(self) -> str:
        """The one normal form: the words in a fixed order, then the modifier (`flanking cover +2`)."""
        parts = [word for word in ORDER if word in self.words]
        if self.modifier:
            parts.append(f"{self.modifier:+d}")
        return " ".join(parts)

    def apply(self, situation: Situation) -> Situation:
        """`situation` with what the text says on it (the other options' fields untouched)."""
        on = self.words.__contains__
        cover = (
            Cover.IMPROVED
            if on("improved cover")
            else Cover.COVER
            if on("cover")
            else Cover.SOFT
            if on("soft cover")
            else Cover.NONE
        )
        concealment = (
            Concealment.TOTAL
            if on("total concealment")
            else Concealment.CONCEALMENT
            if on("concealment")
            else Concealment.NONE
        )
        return replace(
            situation,
            modifier=self.modifier,
            flanking=on("flanking"),
            sneak_attack=on("sneak attack"),
            into_melee=on("into melee"),
            two_hands=on("two hands"),
            charge=on("charge"),
            higher_ground=on("higher ground"),
            ranged=on("ranged"),
            cover=cover,
            concealment=concealment,
            prone=on("prone"),
            helpless=on("helpless"),
        )


NOTHING: Final = SituationText()


def parse_situation(text: str) -> SituationText:
    """The `situation` option: words and at most one signed number, like `flanking charge cover +2` (§11).

    Raises:
        SituationError: A word it does not know, one twice, two numbers, cover and improved cover, ...; the
            caret under it.
    """
    words: Words = read_words(
        text, VOCABULARY, HINT, most_modifier=MOST_MODIFIER, error=SituationError, clashes=CLASHES
    )
    assert abs(words.modifier) <= MAX_NUMBER
    return SituationText(frozenset(words.names), words.modifier)


def suggest(text: str) -> list[str]:
    """Autocomplete: the text typed so far with its last word completed, or a word more after a space."""
    return suggest_words(text, VOCABULARY)


# The options this text replaced, as rolls and saved rolls typed them before: their words.
OLD_FLAGS: Final = {
    "flanking": "flanking",
    "sneak_attack": "sneak attack",
    "into_melee": "into melee",
    "two_hands": "two hands",
}
OLD_OPTIONS: Final = (*OLD_FLAGS, "modifier")


def _true(value: Any) -> bool:
    return value is True or value in ("true", "True")


def from_options(given: Mapping[str, Any]) -> dict[str, Any]:
    """Options as typed before `situation` took `flanking`, `sneak_attack`, `into_melee`, `two_hands` and `modifier`.

    The same roll under today's options: those five become one `situation` text (none when all were off). A
    roll logged then is rolled again, and checked, with the same meaning; today's options pass unchanged.
    """
    options = dict(given)
    if not any(name in options for name in OLD_OPTIONS):
        return options
    words = [word for name, word in OLD_FLAGS.items() if _true(options.pop(name, False))]
    modifier = options.pop("modifier", 0)
    if isinstance(modifier, str):
        modifier = int(modifier.strip() or 0)
    if isinstance(modifier, int) and not isinstance(modifier, bool) and modifier:
        words.append(f"{modifier:+d}")
    if words and "situation" not in options:
        options["situation"] = " ".join(words)
    return options
