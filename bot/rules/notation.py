"""Rule notation: the one reader of every dice, damage, critical and damage reduction text outside /roll.

* One cursor (`_Reader`) reads every text, and one error (`NotationError`) refuses it: the message names the
  character, counting from 1, and a code block puts a caret under it. /roll's `DiceSyntaxError` is the same
  error, so a caret reads alike wherever it comes from.
* Dice terms `NdM+K` in the dialect each ruleset writes (`DiceStyle`): the shorthands it takes, where spaces
  may fall, and its caps. Counts, sides and bonuses are checked as they are read, before anything is built.
* The small rule notations: precision dice joined by `+` (`2d6+1d8`), criticals (`19-20/x2`), and damage
  reduction (`5/magic`, `10/-`, `5/silver and good`).

The rulesets keep their own value types and limits and call in here; each passes its own subclass of
`NotationError`, so that a refusal is also the ruleset's own kind of error.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Final, Literal, NamedTuple, NoReturn

from bot.errors import UserError

MAX_NOTATION_LENGTH: Final = 100
NONE_WORDS: Final = ("", "none", "0")  # a damage reduction of none
DASHES: Final = "-—–"  # the SRD prints "DR 10/—"; players copy its dashes

Spaces = Literal["between", "anywhere", "none"]


class NotationError(UserError):
    """Text that does not read; the message points at the offending character.

    Attributes:
        text: The text exactly as typed.
        position: 0-based index into `text` of the offending character; `len(text)` when it stops too early.
        reason: What went wrong, as a short phrase such as "Unexpected ')'".
        hint: A full sentence saying what would have fitted, or None.

    The message is one sentence (counting characters from 1, as people do) followed by a fenced code block
    holding the text and a caret line that sits under the offending character in a monospace font.
    """

    title = "Can't read that"

    def __init__(self, text: str, position: int, reason: str, hint: str | None = None) -> None:
        self.text = text
        self.position = position
        self.reason = reason
        self.hint = hint
        shown, caret = caret_lines(text, position)
        sentence = f"{reason} at character {position + 1}."
        if hint:
            sentence = f"{sentence} {hint}"
        super().__init__(f"{sentence}\n```\n{shown}\n{caret}\n```")


def _display_char(char: str) -> str:
    # Each character stays one column wide so the caret lines up: whitespace and invisible characters become
    # visible single columns, and a backtick must not be able to close the code fence. A wide character before
    # the caret would still push it right; the readers stop at the first character they don't expect, so only
    # a damage reduction's property words can hold one.
    if char == "`":
        return "'"
    if char.isspace():
        return " "
    return char if char.isprintable() else "?"


def caret_lines(text: str, position: int) -> tuple[str, str]:
    """Return `text` made safe for a code block, and a line with a caret under index `position` of it.

    Args:
        text: The text as typed.
        position: 0-based index into `text`; may equal `len(text)` to point just past the end.

    Returns:
        The display line and the caret line.
    """
    shown = "".join(_display_char(char) for char in text)
    return shown, " " * position + "^"


class _Number(NamedTuple):
    value: int
    start: int
    digits: int  # how many digits it was written with


class _Reader:
    """A cursor over one notation text that fails with the position of the offending character."""

    def __init__(
        self,
        text: str,
        hint: str,
        error: type[NotationError],
        spaces: Spaces = "between",
        aliases: Mapping[str, str] | None = None,
    ) -> None:
        self.text = text
        self.hint = hint
        self.error = error
        self.spaces = spaces
        self.aliases = aliases or {}  # characters read as others (the SRD's en dash as '-')
        self.pos = 0
        if len(text) > MAX_NOTATION_LENGTH:
            # Priced before any reading.
            hint = f"The limit is {MAX_NOTATION_LENGTH}; the caret marks the first character past it."
            self.fail(f"Text too long to read: {len(text)} characters", hint, at=MAX_NOTATION_LENGTH)

    def skip(self) -> None:
        if self.spaces == "none":
            return
        while self.text[self.pos : self.pos + 1].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip()
        char = self.text[self.pos : self.pos + 1].lower()
        return self.aliases.get(char, char)

    def take(self, chars: str) -> str | None:
        char = self.peek()
        if char and char in chars:
            self.pos += 1
            return char
        return None

    def _digit(self, at: int) -> bool:
        return at < len(self.text) and "0" <= self.text[at] <= "9"  # ASCII digits only, as int() reads them

    def number(self, limit: int | None, *, digits: int | None = None, plain: bool = False) -> _Number | None:
        """A whole number and where it starts, or None when none is here.

        `limit` caps its value, `digits` how many digits it may be written with (leading zeros count); `plain`
        refuses a leading zero. With spaces "anywhere", spaces may fall between its digits too.
        """
        self.skip()
        start = self.pos
        written = ""
        while self._digit(self.pos):
            written += self.text[self.pos]
            self.pos += 1
            if self.spaces == "anywhere":
                after = self.pos
                self.skip()
                if not self._digit(self.pos):
                    self.pos = after
        if not written:
            return None
        if plain and written != "0" and written.startswith("0"):
            self.fail(f"A number starting with 0: {written}", "Write numbers without leading zeros.", at=start)
        if digits is not None and len(written) > digits:
            self.fail(f"Number too long: {written}", f"Write it with at most {digits} digits.", at=start)
        value = int(written)
        if limit is not None and value > limit:
            self.fail(f"Number too large: {written}", f"The limit here is {limit}.", at=start)
        return _Number(value, start, len(written))

    def word(self) -> tuple[str, int] | None:
        """A run of anything but spaces, in lower case, and where it starts; None at the end."""
        self.skip()
        start = self.pos
        while self.pos < len(self.text) and not self.text[self.pos].isspace():
            self.pos += 1
        return (self.text[start : self.pos].lower(), start) if self.pos > start else None

    def fail(self, reason: str | None = None, hint: str | None = None, *, at: int | None = None) -> NoReturn:
        position = self.pos if at is None else at
        if reason is None:
            self.skip()
            position = self.pos
            piece = self.text[position : position + 1]
            reason = "Unexpected end" if not piece else f"Unexpected '{piece}'"
        raise self.error(self.text, position, reason, hint or self.hint)

    def end(self) -> None:
        if self.peek():
            self.fail()


# --------------------------------------------------------------------------------------------------- dice


@dataclass(frozen=True, slots=True)
class DiceStyle:
    """How one ruleset writes a dice term `NdM+K`: its caps, the shorthands it takes, where spaces may fall.

    Attributes:
        hint: The sentence shown with a text that does not fit, saying how to write one.
        most_dice: The largest count N.
        most_sides: The largest number of sides M; the fewest is always 2.
        most_bonus: The largest bonus K, and the largest flat number.
        bare_d: `d8` is read as `1d8`.
        signs: The signs a bonus may take: "+-", "+", or "" for none.
        flat_from: The smallest number that may stand alone as flat damage; None when a term needs dice.
        spaces: "between" the parts, "anywhere" (inside numbers too), or "none".
        plain: Numbers are written without leading zeros.
        digits: The most digits a count, sides and a bonus (or flat number) may be written with.
        no_dice: `0dM` is read as no dice at all, whatever M is (Star Frontiers' tables have always read it).
    """

    hint: str
    most_dice: int
    most_sides: int
    most_bonus: int
    bare_d: bool = False
    signs: str = ""
    flat_from: int | None = None
    spaces: Spaces = "between"
    plain: bool = False
    digits: tuple[int, int, int] | None = None
    no_dice: bool = False

    def cap(self, part: int) -> int | None:
        """The most digits part 0 (count), 1 (sides) or 2 (bonus) may have; None for any."""
        return None if self.digits is None else self.digits[part]


@dataclass(frozen=True, slots=True)
class DiceTerm:
    """`count` dice of `sides` faces plus `bonus`, as written; count 0 and sides 0 for a flat number."""

    count: int
    sides: int
    bonus: int = 0


def _dice(reader: _Reader, style: DiceStyle, count_at: _Number | None) -> tuple[int, int]:
    """`[N]dM` once the count (if any) is read; the reader stands on the `d`. Returns count and sides."""
    d_at = reader.pos
    if reader.take("d") is None:
        reader.fail(None, "Expected 'd' and the number of sides, like 1d8.")
    count, start = (count_at.value, count_at.start) if count_at is not None else (1, d_at)
    unchecked = style.no_dice and count == 0
    sides_at = reader.number(None if unchecked else style.most_sides, digits=style.cap(1), plain=style.plain)
    if sides_at is None:
        reader.fail(None, "Expected the number of sides after 'd', like 1d8.")
    sides, where = sides_at.value, sides_at.start
    if unchecked:
        return 0, sides
    if not 1 <= count <= style.most_dice:
        reader.fail(f"Can't roll {count} dice", f"Roll 1 to {style.most_dice} dice.", at=start)
    if sides < 2:
        reader.fail(f"Can't roll a d{sides}", f"Dice have 2 to {style.most_sides} sides.", at=where)
    return count, sides


def read_dice(text: str, style: DiceStyle, error: type[NotationError] = NotationError) -> DiceTerm:
    """One dice term as `style` writes it: `1d8+4`, `2d6`, `1d4-1`, `d8`, or a flat number such as `3`.

    Raises:
        NotationError: (or `error`) with the position of the first character that does not fit.
    """
    reader = _Reader(text, style.hint, error, style.spaces)
    if not reader.peek():
        reader.fail("Nothing to read")
    first = reader.number(max(style.most_bonus, style.most_dice), digits=_widest(style), plain=style.plain)
    if first is not None and reader.peek() != "d":
        if style.flat_from is None:
            reader.fail(None, "Expected 'd' and the number of sides, like 1d8.")
        reader.end()
        if first.value > style.most_bonus:
            reader.fail(f"Number too large: {first.value}", f"The limit here is {style.most_bonus}.", at=first.start)
        if first.value < style.flat_from:
            reader.fail(f"Flat damage of {first.value}", f"Flat damage is at least {style.flat_from}.", at=first.start)
        return DiceTerm(0, 0, first.value)
    if first is None and not style.bare_d:
        reader.fail()
    if first is not None and (cap := style.cap(0)) is not None and first.digits > cap:
        reader.fail(f"Number too long: {first.value}", f"Write a count with at most {cap} digits.", at=first.start)
    count, sides = _dice(reader, style, first)
    bonus = 0
    sign = reader.take(style.signs) if style.signs else None
    if sign is not None:
        flat = reader.number(style.most_bonus, digits=style.cap(2), plain=style.plain)
        if flat is None:
            reader.fail(None, f"Expected a number after '{sign}', like 1d8{sign}2.")
        bonus = flat.value if sign == "+" else -flat.value
    reader.end()
    return DiceTerm(count, sides, bonus)


def _widest(style: DiceStyle) -> int | None:
    # The first number may turn out to be a count or a flat number: read it with the wider of their caps.
    return None if style.digits is None else max(style.digits[0], style.digits[2])


def read_dice_sum(
    text: str, style: DiceStyle, most_terms: int, error: type[NotationError] = NotationError
) -> tuple[tuple[int, int], ...]:
    """Dice terms joined by `+`, like `2d6+1d8`, each `[N]dM` (precision dice); returns (count, sides) pairs.

    Raises:
        NotationError: (or `error`) with the position of the first character that does not fit.
    """
    reader = _Reader(text, style.hint, error, style.spaces)
    dice = [_dice(reader, style, reader.number(style.most_bonus))]
    while reader.take("+"):
        dice.append(_dice(reader, style, reader.number(style.most_bonus)))
    reader.end()
    if len(dice) > most_terms:
        reader.fail(f"Too many dice terms: {len(dice)}", f"Give at most {most_terms}.", at=0)
    return tuple(dice)


# ------------------------------------------------------------------------------------------ rule notations


def read_critical(text: str, most_multiplier: int, error: type[NotationError] = NotationError) -> tuple[int, int]:
    """A critical as printed: `19-20/x2`, `20/x3`, `x4` (threat 20), `18-20` (x2), `19` (19-20/x2).

    The SRD's en dash and multiplication sign are read as `-` and `x`. Returns the lowest face that threatens
    and the multiplier.

    Raises:
        NotationError: (or `error`) with the position of the first character that does not fit.
    """
    hint = "Write a critical like 19-20/x2, 20/x3, x4 or 18-20."
    reader = _Reader(text, hint, error, aliases={"×": "x", "–": "-", "—": "-"})
    if not reader.peek():
        reader.fail("Nothing to read")
    threat, multiplier = 20, 2
    low = reader.number(99)
    if low is not None:
        threat = low.value
        if reader.take("-"):
            high = reader.number(99)
            if high is None:
                reader.fail(None, "Expected the top of the range, like 19-20.")
            if high.value != 20:
                reader.fail(
                    f"Threat range ending at {high.value}", "A threat range ends at 20, like 19-20.", at=high.start
                )
        if not 2 <= threat <= 20:
            reader.fail(f"Threat range starting at {threat}", "A threat range starts from 2 to 20.", at=low.start)
        if not reader.take("/") and not reader.peek():
            return threat, multiplier
    if reader.take("x*") is None:
        reader.fail(None, "Expected the multiplier, like 19-20/x2.")
    times = reader.number(99)
    if times is None:
        reader.fail(None, "Expected the multiplier, like x2.")
    if not 2 <= times.value <= most_multiplier:
        reader.fail(f"Multiplier x{times.value}", f"A critical multiplier is x2 to x{most_multiplier}.", at=times.start)
    reader.end()
    return threat, times.value


@dataclass(frozen=True, slots=True)
class Reduction:
    """Damage reduction `amount`/`bypass`: the properties that bypass it, all of them (`needs_all`) or any."""

    amount: int
    bypass: tuple[str, ...]  # empty: nothing bypasses it ("10/-")
    needs_all: bool

    def __str__(self) -> str:
        """The one normal form: `5/magic`, `10/-`, `5/silver and good`."""
        joiner = " and " if self.needs_all else " or "
        return f"{self.amount}/{joiner.join(self.bypass) if self.bypass else DASHES[0]}"


def read_reduction(
    text: str,
    properties: Collection[str],
    most: int,
    error: type[NotationError] = NotationError,
    *,
    prefix: bool = False,
) -> Reduction | None:
    """Damage reduction `5/magic`, `10/-`, `5/silver and good`, `10/cold iron or good`; None for none.

    The amount is 1 to `most`, written with at most 3 digits; each property one of `properties`, joined by all
    `and` or all `or`, none twice; "none", "0" or nothing for none. `prefix` also takes "DR 5/magic" as the SRD
    prints it.

    Raises:
        NotationError: (or `error`) with the position of the first character that does not fit.
    """
    hint = "Write damage reduction as amount/bypass, like 5/magic, 10/- (nothing bypasses it) or 5/silver and good."
    reader = _Reader(text, hint, error)
    reader.skip()
    if prefix and text[reader.pos : reader.pos + 2].lower() == "dr" and text[reader.pos + 2 : reader.pos + 3].isspace():
        after = reader.pos
        reader.pos += 2
        if not reader.peek():
            reader.pos = after  # "DR" alone is no prefix, and reads as nothing else either
    if " ".join(text[reader.pos :].lower().split()) in NONE_WORDS:
        return None
    amount = reader.number(None, digits=3)
    if amount is None:
        reader.fail()
    if not 1 <= amount.value <= most:
        reader.fail(f"Damage reduction of {amount.value}", f"The amount is 1 to {most}. {hint}", at=amount.start)
    if reader.take("/") is None:
        reader.fail(None, "Expected '/' and what bypasses it, like 5/magic.")
    if reader.peek() and reader.peek() in DASHES:
        reader.take(DASHES)
        reader.end()
        return Reduction(amount.value, (), needs_all=False)
    return _bypass(reader, amount.value, properties)


def _bypass(reader: _Reader, amount: int, properties: Collection[str]) -> Reduction:
    """The properties after the '/': words, with one `and` or `or` between each two."""
    named: list[tuple[str, int]] = []  # each property and where it starts
    words: list[str] = []
    start = reader.pos
    connector: str | None = None
    while True:
        word = reader.word()
        text, at = word if word is not None else ("", len(reader.text))
        if text not in ("and", "or", ""):
            start = at if not words else start
            words.append(text)
            continue
        if not words:
            reader.fail(f"Unexpected '{text}'" if text else "Unexpected end", at=at)
        named.append((" ".join(words), start))
        words = []
        if not text:
            break
        if connector is not None and text != connector:
            hint = f"Join the properties all with `and` or all with `or`. {reader.hint}"
            reader.fail(f"Both '{connector}' and '{text}'", hint, at=at)
        connector = text
    for index, (name, at) in enumerate(named):
        if name not in properties:
            hint = f"{reader.hint} Properties: {', '.join(properties)}."
            reader.fail(f"Not a property that bypasses damage reduction: '{name}'", hint, at=at)
        if name in (earlier for earlier, _ in named[:index]):
            reader.fail(f"'{name}' twice", f"Name each property once. {reader.hint}", at=at)
    return Reduction(amount, tuple(name for name, _ in named), needs_all=connector == "and")


# ------------------------------------------------------------------------------------------ situation words


@dataclass(frozen=True, slots=True)
class Words:
    """A situation as typed: the words read (each by its one name, in the order typed) and the modifier."""

    names: tuple[str, ...] = ()
    modifier: int = 0

    def __contains__(self, name: object) -> bool:
        return name in self.names


def _word_key(text: str) -> str:
    """A word or phrase as the vocabulary is looked up: lower case, `-` and `_` as spaces, spaces single."""
    return " ".join(text.lower().replace("-", " ").replace("_", " ").split())


def read_words(
    text: str,
    vocabulary: Mapping[str, str],
    hint: str,
    *,
    most_modifier: int,
    error: type[NotationError] = NotationError,
    clashes: Collection[frozenset[str]] = (),
) -> Words:
    """A situation written as words and at most one signed number: `flanking charge cover +2`.

    `vocabulary` maps every way of writing a word (phrases with spaces, `-` or `_` alike: "higher ground",
    "higher-ground") to its one name. Words are separated by spaces or commas; a phrase is read whole, the longest
    first. Refused, with the caret under it: a word the vocabulary does not hold, one given twice, a second number,
    a number past `most_modifier`, and two words of one of the `clashes` (cover and improved cover).

    Raises:
        NotationError: (or `error`) with the position of the first character that does not fit.
    """
    reader = _Reader(text, hint, error)
    tokens: list[tuple[str, int]] = []  # each piece of text between spaces and commas, and where it starts
    at = 0
    while at < len(text):
        if text[at].isspace() or text[at] == ",":
            at += 1
            continue
        start = at
        while at < len(text) and not text[at].isspace() and text[at] != ",":
            at += 1
        tokens.append((text[start:at], start))
    if not tokens:
        reader.fail("Nothing to read", at=0)
    longest = max((len(_word_key(key).split()) for key in vocabulary), default=1)
    keys = {_word_key(key): name for key, name in vocabulary.items()}
    names: list[str] = []
    modifier: int | None = None
    index = 0
    while index < len(tokens):
        piece, start = tokens[index]
        if piece[0] in "+-" or piece[0].isdecimal():
            digits = piece[1:] if piece[0] in "+-" else piece
            if not digits or not all("0" <= c <= "9" for c in digits):
                reader.fail(f"Not a number: '{piece}'", "Write a modifier as a signed number, like +2 or -4.", at=start)
            if modifier is not None:
                reader.fail("A second number", "Give one modifier, the sum of the others, like +3.", at=start)
            if len(digits) > 3 or int(digits) > most_modifier:
                reader.fail(f"Number too large: {piece}", f"A modifier is at most {most_modifier}.", at=start)
            modifier = -int(digits) if piece[0] == "-" else int(digits)
            index += 1
            continue
        for size in range(min(longest, len(tokens) - index), 0, -1):
            phrase = _word_key(" ".join(t for t, _ in tokens[index : index + size]))
            if phrase in keys:
                name = keys[phrase]
                if name in names:
                    reader.fail(f"'{name}' twice", "Give each word once.", at=start)
                for clash in clashes:
                    if name in clash and (other := next((n for n in names if n in clash), None)) is not None:
                        reader.fail(f"Both '{other}' and '{name}'", "They cannot both hold: give one.", at=start)
                names.append(name)
                index += size
                break
        else:
            reader.fail(f"Not a situation word: '{piece}'", at=start)
    return Words(tuple(names), modifier or 0)


def suggest_words(text: str, vocabulary: Mapping[str, str], most: int = 25) -> list[str]:
    """Autocomplete for a situation: the text with its last word completed, or one more word after a space.

    Only words not given yet are offered, each under its one name; what was typed before the last word is kept.
    """
    head, _, last = text.rpartition(" ") if not text.endswith((" ", ",")) else (text.rstrip(" ,"), " ", "")
    given = {_word_key(word) for word in head.replace(",", " ").split()}
    typed = _word_key(last)
    names = list(dict.fromkeys(vocabulary.values()))
    offered = [
        name
        for name in names
        if name not in given and not set(name.split()) <= given and (not typed or _word_key(name).startswith(typed))
    ]
    if typed and not offered:
        offered = [name for name in names if name not in given and typed in _word_key(name)]
    prefix = f"{head.strip()} " if head.strip() else ""
    return [f"{prefix}{name}" for name in offered][:most]
