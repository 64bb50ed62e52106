"""Dice expressions: parse text into an immutable tree, then roll that tree with an injected source of randomness.

Grammar (case-insensitive; whitespace between tokens is ignored)::

    expr     := term (('+' | '-') term)*
    term     := unary ('*' unary)*
    unary    := '-' unary | atom
    atom     := INT | dice | '(' expr ')'
    dice     := [INT] 'd' (INT | '%') modifier*
    modifier := ('kh' | 'kl' | 'dh' | 'dl') [INT]         keep/drop highest/lowest N (default 1)
              | '!' [['<' | '>' | '='] INT]                explode (bare '!' means on the highest face)
              | ('r' | 'ro') ['<' | '>' | '='] INT         reroll until it stops matching / reroll once
              | 'adv' | 'dis'                              a single d20 rolled twice, keep highest / lowest

Rules decided here:

* Each modifier family appears at most once per dice term: one keep/drop (kh, kl, dh, dl), one explode, one
  reroll (r or ro). The text may list them in any order; they always apply in the order reroll, explode,
  keep/drop, and the normalized text lists them in that order.
* `adv`/`dis` only follows exactly one d20 and takes no other modifier: it *is* a keep modifier, and mixing it
  with rerolls or explosions has no agreed table meaning.
* A keep/drop amount of 0 is refused; an amount larger than the pool keeps (or drops) every die.
* A condition matching no face is a harmless no-op. A condition that could never stop is refused: `r` matching
  every face, `!` matching every face, or `!` matching every face that an `r` reroll can settle on (`d6r<6!`).
  `ro` always stops, so it may match every face.
* Order of the calls to the dice source, which scripted tests rely on: every die of the term first, left to
  right; then each die in turn is rerolled; then each die in turn explodes, and an explosion die goes through
  the reroll rule before it can explode again, depth first.
* `MAX_EXTRA_ROLLS` is shared by the whole expression. When it runs out, the die that wanted another roll keeps
  its face (it is not marked `exploded`) and the result is marked `capped`; rolling never raises.
* Ties in keep/drop go to the earlier die: `kh`/`kl` keep it, `dh`/`dl` drop it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum, auto
from typing import Any, Final, NoReturn, Protocol, TypeAlias, assert_never

from bot.errors import UserError

MAX_EXPRESSION_LENGTH: Final = 200
MAX_DICE: Final = 1000
MIN_SIDES: Final = 2
MAX_SIDES: Final = 10000
MAX_EXTRA_ROLLS: Final = 100
MAX_LITERAL: Final = 1_000_000


class DiceSource(Protocol):
    """Where faces come from; `random.Random` and `random.SystemRandom` satisfy it."""

    def randint(self, a: int, b: int) -> int:
        """Return a random integer N with a <= N <= b."""
        ...


# --------------------------------------------------------------------------------------------------- errors


class DiceError(UserError):
    """A dice expression the bot refuses to roll because of something the user typed."""

    title = "Can't roll that"


class DiceLimitError(DiceError):
    """The expression is well formed but exceeds one of the module's limits; the message names the limit."""


class DiceSyntaxError(DiceError):
    """The text does not follow the grammar.

    Attributes:
        text: The expression exactly as typed.
        position: 0-based index into `text` of the offending character; just past the last token when the
            expression stops too early.
        reason: What went wrong, as a short phrase such as "Unexpected ')'".
        hint: A full sentence saying what would have fitted, or None.

    The message is one sentence (counting characters from 1, as people do) followed by a fenced code block
    holding the text and a caret line that sits under the offending character in a monospace font.
    """

    def __init__(self, text: str, position: int, reason: str, hint: str | None = None) -> None:
        self.text = text
        self.position = position
        self.reason = reason
        self.hint = hint
        shown, caret = _caret_lines(text, position)
        sentence = f"{reason} at character {position + 1}."
        if hint:
            sentence = f"{sentence} {hint}"
        super().__init__(f"{sentence}\n```\n{shown}\n{caret}\n```")


def _display_char(char: str) -> str:
    # Each character stays one column wide so the caret lines up: whitespace and invisible characters become
    # visible single columns, and a backtick must not be able to close the code fence. Wide characters need no
    # care: tokenizing stops at the first non-ASCII, non-space character, so none can come before the caret.
    if char == "`":
        return "'"
    if char.isspace():
        return " "
    return char if char.isprintable() else "?"


def _caret_lines(text: str, position: int) -> tuple[str, str]:
    """Return `text` made safe for a code block, and a line with a caret under index `position` of it.

    Args:
        text: The expression as typed.
        position: 0-based index into `text`; may equal `len(text)` to point just past the end.

    Returns:
        The display line and the caret line.
    """
    shown = "".join(_display_char(char) for char in text)
    return shown, " " * position + "^"


# ------------------------------------------------------------------------------------------------------ AST


class Operator(StrEnum):
    """A binary arithmetic operator."""

    ADD = "+"
    SUBTRACT = "-"
    MULTIPLY = "*"


class Comparator(StrEnum):
    """How a condition compares a face with its value."""

    EQUAL = "="
    LESS = "<"
    GREATER = ">"


class KeepMode(StrEnum):
    """Which dice a keep/drop modifier chooses, and whether it keeps or drops them."""

    KEEP_HIGHEST = "kh"
    KEEP_LOWEST = "kl"
    DROP_HIGHEST = "dh"
    DROP_LOWEST = "dl"


class Advantage(StrEnum):
    """A d20 rolled twice."""

    ADVANTAGE = "adv"
    DISADVANTAGE = "dis"


@dataclass(frozen=True, slots=True)
class Condition:
    """A test on a face, used by explode and reroll modifiers."""

    comparator: Comparator
    value: int

    def matches(self, face: int) -> bool:
        """Return whether `face` satisfies the condition."""
        if self.comparator is Comparator.EQUAL:
            return face == self.value
        if self.comparator is Comparator.LESS:
            return face < self.value
        return face > self.value

    def face_range(self, sides: int) -> tuple[int, int]:
        """Return the inclusive range of faces of a die with `sides` sides that match; empty when lo > hi."""
        if self.comparator is Comparator.EQUAL:
            return (self.value, self.value) if 1 <= self.value <= sides else (1, 0)
        if self.comparator is Comparator.LESS:
            return 1, min(self.value - 1, sides)
        return max(self.value + 1, 1), sides

    def __str__(self) -> str:
        return str(self.value) if self.comparator is Comparator.EQUAL else f"{self.comparator}{self.value}"


@dataclass(frozen=True, slots=True)
class Keep:
    """A keep/drop modifier: `mode` with `amount` dice."""

    mode: KeepMode
    amount: int

    def __str__(self) -> str:
        return f"{self.mode}{self.amount}"


@dataclass(frozen=True, slots=True)
class Reroll:
    """A reroll modifier: `r` (until the face stops matching) or, with `once`, `ro`."""

    condition: Condition
    once: bool

    def __str__(self) -> str:
        return f"{'ro' if self.once else 'r'}{self.condition}"


@dataclass(frozen=True, slots=True)
class Number:
    """An integer literal."""

    value: int

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True, slots=True)
class Dice:
    """A dice term such as `4d6kh3`.

    `count` is as written (1 for `d20adv`); `rolled_count` and `effective_keep` give what is actually rolled.
    `explode` is the explode condition; a bare `!` is stored as `= sides`.
    """

    count: int
    sides: int
    keep: Keep | None = None
    explode: Condition | None = None
    reroll: Reroll | None = None
    advantage: Advantage | None = None

    @property
    def rolled_count(self) -> int:
        """How many dice are rolled before rerolls and explosions."""
        return 2 if self.advantage is not None else self.count

    @property
    def effective_keep(self) -> Keep | None:
        """The keep rule that applies, with adv/dis turned into keep highest/lowest 1."""
        if self.advantage is Advantage.ADVANTAGE:
            return Keep(KeepMode.KEEP_HIGHEST, 1)
        if self.advantage is Advantage.DISADVANTAGE:
            return Keep(KeepMode.KEEP_LOWEST, 1)
        return self.keep

    def __str__(self) -> str:
        parts = [f"{self.count}d{self.sides}"]
        if self.reroll is not None:
            parts.append(str(self.reroll))
        if self.explode is not None:
            is_default = self.explode == Condition(Comparator.EQUAL, self.sides)
            parts.append("!" if is_default else f"!{self.explode}")
        if self.keep is not None:
            parts.append(str(self.keep))
        if self.advantage is not None:
            parts.append(str(self.advantage))
        return "".join(parts)


@dataclass(frozen=True, slots=True)
class Negate:
    """Unary minus."""

    operand: Expression

    def __str__(self) -> str:
        return f"-{self.operand}"


@dataclass(frozen=True, slots=True)
class BinaryOp:
    """`left op right`."""

    op: Operator
    left: Expression
    right: Expression

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


@dataclass(frozen=True, slots=True)
class Group:
    """Parentheses as the user wrote them, kept so that results can be shown the way they were typed."""

    inner: Expression

    def __str__(self) -> str:
        return f"({self.inner})"


Expression: TypeAlias = Number | Dice | Negate | BinaryOp | Group


# --------------------------------------------------------------------------------------------------- results


class DieState(StrEnum):
    """What became of one die."""

    KEPT = "kept"
    DROPPED = "dropped"
    REROLLED = "rerolled"


@dataclass(frozen=True, slots=True)
class Die:
    """One die as rolled.

    Attributes:
        face: The face it shows.
        state: KEPT counts towards the total; DROPPED was removed by keep/drop; REROLLED was replaced by the die
            that follows it in the pool.
        exploded: It matched the explode condition and an extra die was rolled for it.
        extra: It is such an extra die, rolled by an explosion rather than asked for in the expression.
    """

    face: int
    state: DieState = DieState.KEPT
    exploded: bool = False
    extra: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Return the die as a JSON-serializable dict."""
        return {"face": self.face, "state": self.state.value, "exploded": self.exploded, "extra": self.extra}


@dataclass(frozen=True, slots=True)
class NumberResult:
    """A literal; its total is its value."""

    value: int

    @property
    def total(self) -> int:
        """The value."""
        return self.value

    def to_dict(self) -> dict[str, Any]:
        """Return the node as a JSON-serializable dict."""
        return {"kind": "number", "value": self.value, "total": self.value}


@dataclass(frozen=True, slots=True)
class DiceResult:
    """A rolled dice term.

    `dice` is the whole pool grouped by the die that started it: a rerolled die is followed by its replacement
    and an exploded die by its extra die, so the pool reads in the order things happened to each die.
    `capped` says this term wanted more extra rolls when `MAX_EXTRA_ROLLS` had run out.
    """

    term: Dice
    dice: tuple[Die, ...]
    total: int
    capped: bool

    def to_dict(self) -> dict[str, Any]:
        """Return the node as a JSON-serializable dict."""
        return {
            "kind": "dice",
            "notation": str(self.term),
            "count": self.term.count,
            "sides": self.term.sides,
            "total": self.total,
            "capped": self.capped,
            "dice": [die.to_dict() for die in self.dice],
        }


@dataclass(frozen=True, slots=True)
class NegateResult:
    """Unary minus applied to `operand`."""

    operand: ResultNode
    total: int

    def to_dict(self) -> dict[str, Any]:
        """Return the node as a JSON-serializable dict."""
        return {"kind": "negate", "total": self.total, "operand": self.operand.to_dict()}


@dataclass(frozen=True, slots=True)
class BinaryResult:
    """`left op right` with both sides evaluated."""

    op: Operator
    left: ResultNode
    right: ResultNode
    total: int

    def to_dict(self) -> dict[str, Any]:
        """Return the node as a JSON-serializable dict."""
        return {
            "kind": "binary",
            "op": self.op.value,
            "total": self.total,
            "left": self.left.to_dict(),
            "right": self.right.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class GroupResult:
    """A parenthesized sub-expression."""

    inner: ResultNode
    total: int

    def to_dict(self) -> dict[str, Any]:
        """Return the node as a JSON-serializable dict."""
        return {"kind": "group", "total": self.total, "inner": self.inner.to_dict()}


ResultNode: TypeAlias = NumberResult | DiceResult | NegateResult | BinaryResult | GroupResult


@dataclass(frozen=True, slots=True)
class RollResult:
    """The outcome of `roll`.

    Attributes:
        expression_text: The normalized expression (lower case, explicit dice count, canonical modifier order,
            single spaces around binary operators). It may be longer than `MAX_EXPRESSION_LENGTH`, so keep the
            user's own text if it is to be rolled again.
        tree: The result tree, shaped like the expression.
        total: The final integer.
        capped: `MAX_EXTRA_ROLLS` ran out, so some die did not get the reroll or explosion it earned.
    """

    expression_text: str
    tree: ResultNode
    total: int
    capped: bool

    def to_dict(self) -> dict[str, Any]:
        """Return the whole result as a JSON-serializable dict for the roll log."""
        return {
            "expression": self.expression_text,
            "total": self.total,
            "capped": self.capped,
            "tree": self.tree.to_dict(),
        }


# ------------------------------------------------------------------------------------------------- tokenizer


class _Kind(Enum):
    INT = auto()
    D = auto()
    PERCENT = auto()
    PLUS = auto()
    MINUS = auto()
    STAR = auto()
    LPAREN = auto()
    RPAREN = auto()
    BANG = auto()
    LT = auto()
    GT = auto()
    EQ = auto()
    KH = auto()
    KL = auto()
    DH = auto()
    DL = auto()
    R = auto()
    RO = auto()
    ADV = auto()
    DIS = auto()
    BAD = auto()
    END = auto()


@dataclass(frozen=True, slots=True)
class _Token:
    kind: _Kind
    start: int
    end: int
    value: int = 0


_SYMBOLS: Final = {
    "+": _Kind.PLUS,
    "-": _Kind.MINUS,
    "*": _Kind.STAR,
    "(": _Kind.LPAREN,
    ")": _Kind.RPAREN,
    "!": _Kind.BANG,
    "<": _Kind.LT,
    ">": _Kind.GT,
    "=": _Kind.EQ,
    "%": _Kind.PERCENT,
}

# Longest first, so that "dl" is not read as "d" then "l". No valid expression puts a letter right after a
# lone "d" or "r", so longest match never splits a valid expression the wrong way.
_KEYWORDS: Final = (
    ("adv", _Kind.ADV),
    ("dis", _Kind.DIS),
    ("kh", _Kind.KH),
    ("kl", _Kind.KL),
    ("dh", _Kind.DH),
    ("dl", _Kind.DL),
    ("ro", _Kind.RO),
    ("d", _Kind.D),
    ("r", _Kind.R),
)

_KEEP_KINDS: Final = {
    _Kind.KH: KeepMode.KEEP_HIGHEST,
    _Kind.KL: KeepMode.KEEP_LOWEST,
    _Kind.DH: KeepMode.DROP_HIGHEST,
    _Kind.DL: KeepMode.DROP_LOWEST,
}
_COMPARATOR_KINDS: Final = {_Kind.LT: Comparator.LESS, _Kind.GT: Comparator.GREATER, _Kind.EQ: Comparator.EQUAL}


def _keyword_at(text: str, index: int) -> tuple[str, _Kind] | None:
    for word, kind in _KEYWORDS:
        piece = text[index : index + len(word)]
        # ASCII only: str.lower() maps some non-ASCII letters (the Kelvin sign) onto ASCII ones.
        if piece.isascii() and piece.lower() == word:
            return word, kind
    return None


def _tokenize(text: str) -> list[_Token]:
    """Split `text` into tokens, ending with END.

    An unknown character becomes a BAD token and ends the list there, rather than raising, so that the parser
    reports whichever problem comes first in the text.
    """
    tokens: list[_Token] = []
    index, length = 0, len(text)
    while index < length:
        char = text[index]
        if char.isspace():
            index += 1
            continue
        if "0" <= char <= "9":
            end = index + 1
            while end < length and "0" <= text[end] <= "9":
                end += 1
            tokens.append(_Token(_Kind.INT, index, end, int(text[index:end])))
            index = end
            continue
        symbol = _SYMBOLS.get(char)
        if symbol is not None:
            tokens.append(_Token(symbol, index, index + 1))
            index += 1
            continue
        keyword = _keyword_at(text, index) if char.isascii() else None
        if keyword is None:
            tokens.append(_Token(_Kind.BAD, index, index + 1))
            break
        word, kind = keyword
        tokens.append(_Token(kind, index, index + len(word)))
        index += len(word)
    end_position = tokens[-1].end if tokens else 0
    tokens.append(_Token(_Kind.END, end_position, end_position))
    return tokens


# ---------------------------------------------------------------------------------------------------- parser

_EXPECT_OPERAND: Final = "Expected a number, a die or '('."


class _Parser:
    def __init__(self, text: str) -> None:
        self._text = text
        self._tokens = _tokenize(text)
        self._index = 0
        self._dice_requested = 0

    def parse(self) -> Expression:
        node = self._expr()
        token = self._peek()
        if token.kind is not _Kind.END:
            self._fail(token, "Expected +, -, * or the end of the expression.")
        if self._dice_requested > MAX_DICE:
            raise DiceLimitError(f"Too many dice: {self._dice_requested} requested, the limit is {MAX_DICE} per roll.")
        return node

    # -- token helpers

    def _peek(self) -> _Token:
        return self._tokens[self._index]

    def _advance(self) -> _Token:
        token = self._tokens[self._index]
        if token.kind is not _Kind.END:
            self._index += 1
        return token

    def _describe(self, token: _Token) -> str:
        if token.kind is _Kind.END:
            return "end of expression"
        piece = self._text[token.start : token.end]
        if piece == "`":
            return "backtick"
        if token.kind is _Kind.BAD and (piece.isspace() or not piece.isprintable()):
            return f"character U+{ord(piece):04X}"
        return f"'{piece}'"

    def _fail(self, token: _Token, hint: str | None = None) -> NoReturn:
        raise DiceSyntaxError(self._text, token.start, f"Unexpected {self._describe(token)}", hint)

    def _literal(self, token: _Token) -> int:
        if token.value > MAX_LITERAL:
            raise DiceLimitError(f"Number too large: {token.value}, the limit is {MAX_LITERAL}.")
        return token.value

    # -- grammar

    def _expr(self) -> Expression:
        node = self._term()
        while (kind := self._peek().kind) in (_Kind.PLUS, _Kind.MINUS):
            self._advance()
            op = Operator.ADD if kind is _Kind.PLUS else Operator.SUBTRACT
            node = BinaryOp(op, node, self._term())
        return node

    def _term(self) -> Expression:
        node = self._unary()
        while self._peek().kind is _Kind.STAR:
            self._advance()
            node = BinaryOp(Operator.MULTIPLY, node, self._unary())
        return node

    def _unary(self) -> Expression:
        # A loop rather than recursion: 199 minus signs fit in the length limit.
        negations = 0
        while self._peek().kind is _Kind.MINUS:
            self._advance()
            negations += 1
        node = self._atom()
        for _ in range(negations):
            node = Negate(node)
        return node

    def _atom(self) -> Expression:
        token = self._peek()
        if token.kind is _Kind.INT:
            self._advance()
            if self._peek().kind is _Kind.D:
                return self._dice(token)
            return Number(self._literal(token))
        if token.kind is _Kind.D:
            return self._dice(None)
        if token.kind is _Kind.LPAREN:
            self._advance()
            inner = self._expr()
            closing = self._peek()
            if closing.kind is not _Kind.RPAREN:
                self._fail(closing, f"Expected +, -, * or ')' to close the '(' at character {token.start + 1}.")
            self._advance()
            return Group(inner)
        self._fail(token, _EXPECT_OPERAND)

    def _dice(self, count_token: _Token | None) -> Dice:
        d_token = self._advance()
        start = d_token.start if count_token is None else count_token.start
        count = 1 if count_token is None else count_token.value
        sides_token = self._peek()
        if sides_token.kind is _Kind.PERCENT:
            sides = 100
        elif sides_token.kind is _Kind.INT:
            sides = sides_token.value
        else:
            self._fail(sides_token, "Expected the number of sides, like d6 or d%.")
        self._advance()

        keep: Keep | None = None
        explode: Condition | None = None
        reroll: Reroll | None = None
        advantage: Advantage | None = None
        while True:
            token = self._peek()
            kind = token.kind
            if kind not in _KEEP_KINDS and kind not in (_Kind.BANG, _Kind.R, _Kind.RO, _Kind.ADV, _Kind.DIS):
                break
            if advantage is not None:
                self._fail(token, "adv/dis can't be combined with other modifiers.")
            if kind in _KEEP_KINDS:
                if keep is not None:
                    self._fail(token, "Only one of kh, kl, dh, dl is allowed per dice term.")
                self._advance()
                keep = Keep(_KEEP_KINDS[kind], self._keep_amount())
            elif kind is _Kind.BANG:
                if explode is not None:
                    self._fail(token, "Only one explode (!) is allowed per dice term.")
                self._advance()
                explode = self._condition(default=sides)
            elif kind in (_Kind.R, _Kind.RO):
                if reroll is not None:
                    self._fail(token, "Only one reroll (r or ro) is allowed per dice term.")
                self._advance()
                reroll = Reroll(self._condition(default=None), once=kind is _Kind.RO)
            else:
                if keep is not None or explode is not None or reroll is not None:
                    self._fail(token, "adv/dis can't be combined with other modifiers.")
                self._advance()
                advantage = Advantage.ADVANTAGE if kind is _Kind.ADV else Advantage.DISADVANTAGE

        written = self._text[start : self._tokens[self._index - 1].end]
        node = Dice(count, sides, keep, explode, reroll, advantage)
        _check_dice(node, written)
        self._dice_requested += node.rolled_count
        return node

    def _keep_amount(self) -> int:
        token = self._peek()
        if token.kind is not _Kind.INT:
            return 1
        self._advance()
        return self._literal(token)

    def _condition(self, default: int | None) -> Condition:
        token = self._peek()
        comparator = _COMPARATOR_KINDS.get(token.kind)
        if comparator is not None:
            self._advance()
            value_token = self._peek()
            if value_token.kind is not _Kind.INT:
                self._fail(value_token, f"Expected a number after '{comparator}'.")
            self._advance()
            return Condition(comparator, self._literal(value_token))
        if token.kind is _Kind.INT:
            self._advance()
            return Condition(Comparator.EQUAL, self._literal(token))
        if default is None:
            self._fail(token, "Expected the faces to reroll, like r1 or r<3.")
        return Condition(Comparator.EQUAL, default)


def _check_dice(node: Dice, written: str) -> None:
    """Refuse a dice term that is well formed but can't be rolled; `written` is the term as the user typed it."""
    if node.count == 0:
        raise DiceError(f"Can't roll {written}: roll at least one die.")
    if not MIN_SIDES <= node.sides <= MAX_SIDES:
        raise DiceLimitError(f"Dice need between {MIN_SIDES} and {MAX_SIDES} sides; {written} asks for {node.sides}.")
    if node.advantage is not None and (node.count != 1 or node.sides != 20):
        raise DiceError(f"adv/dis applies to a single d20 (like d20adv or 1d20 dis), not {written}.")
    if node.keep is not None and node.keep.amount == 0:
        raise DiceError(f"Can't keep or drop 0 dice in {written}: use at least 1.")
    sides = node.sides
    # Faces a die can finally show once a full reroll (r, not ro) has had its way.
    settled = [(1, sides)]
    if node.reroll is not None and not node.reroll.once:
        low, high = node.reroll.condition.face_range(sides)
        if low <= 1 and high >= sides:
            raise DiceError(
                f"{written} would reroll forever: every face of a d{sides} matches. Use ro to reroll only once."
            )
        if low <= high:
            settled = [(lo, hi) for lo, hi in ((1, low - 1), (high + 1, sides)) if lo <= hi]
    if node.explode is not None:
        low, high = node.explode.face_range(sides)
        if all(low <= lo and hi <= high for lo, hi in settled):
            where = "it can settle on" if settled != [(1, sides)] else f"of a d{sides}"
            raise DiceError(f"{written} would explode forever: every face {where} explodes.")


def parse(text: str) -> Expression:
    """Parse a dice expression, checking every limit so that nothing is rolled for a refused expression.

    Args:
        text: The expression as typed, at most `MAX_EXPRESSION_LENGTH` characters.

    Returns:
        The immutable expression tree; `str()` of it is the normalized text.

    Raises:
        DiceSyntaxError: The text does not follow the grammar.
        DiceLimitError: A limit is exceeded.
        DiceError: Anything else that can't be rolled (zero dice, a reroll that never stops, ...).
    """
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise DiceLimitError(
            f"That expression is too long: {len(text)} characters, the limit is {MAX_EXPRESSION_LENGTH}."
        )
    if not text.strip():
        raise DiceError("There is nothing to roll: the expression is empty.")
    return _Parser(text).parse()


# ------------------------------------------------------------------------------------------------- evaluator


class _Draft:
    """A die while its term is still being rolled; frozen `Die`s are made once everything is settled."""

    __slots__ = ("exploded", "extra", "face", "state")

    def __init__(self, face: int, *, extra: bool) -> None:
        self.face = face
        self.state = DieState.KEPT
        self.exploded = False
        self.extra = extra


class _Roller:
    def __init__(self, rng: DiceSource) -> None:
        self._rng = rng
        self._extra_rolls_left = MAX_EXTRA_ROLLS
        self.capped = False

    def evaluate(self, node: Expression) -> ResultNode:
        if isinstance(node, Number):
            return NumberResult(node.value)
        if isinstance(node, Dice):
            return self._roll_dice(node)
        if isinstance(node, Negate):
            operand = self.evaluate(node.operand)
            return NegateResult(operand, -operand.total)
        if isinstance(node, BinaryOp):
            left = self.evaluate(node.left)
            right = self.evaluate(node.right)
            if node.op is Operator.ADD:
                total = left.total + right.total
            elif node.op is Operator.SUBTRACT:
                total = left.total - right.total
            else:
                total = left.total * right.total
            return BinaryResult(node.op, left, right, total)
        if isinstance(node, Group):
            inner = self.evaluate(node.inner)
            return GroupResult(inner, inner.total)
        assert_never(node)

    def _take_extra_roll(self) -> bool:
        if self._extra_rolls_left == 0:
            self.capped = True
            return False
        self._extra_rolls_left -= 1
        return True

    def _roll_dice(self, node: Dice) -> DiceResult:
        randint = self._rng.randint
        sides = node.sides
        faces = [randint(1, sides) for _ in range(node.rolled_count)]
        keep = node.effective_keep
        if keep is None and node.reroll is None and node.explode is None:
            # The common case, kept lean so that 1000 dice stay cheap.
            return DiceResult(node, tuple(Die(face) for face in faces), sum(faces), capped=False)

        was_capped = False
        slots = [[_Draft(face, extra=False)] for face in faces]
        if node.reroll is not None:
            for slot in slots:
                was_capped |= self._reroll(slot, node.reroll, sides)
        if node.explode is not None:
            for slot in slots:
                was_capped |= self._explode(slot, node.explode, node.reroll, sides)
        pool = [draft for slot in slots for draft in slot]
        if keep is not None:
            _apply_keep(pool, keep)
        dice = tuple(Die(draft.face, draft.state, draft.exploded, draft.extra) for draft in pool)
        total = sum(die.face for die in dice if die.state is DieState.KEPT)
        return DiceResult(node, dice, total, capped=was_capped)

    def _reroll(self, slot: list[_Draft], reroll: Reroll, sides: int) -> bool:
        """Reroll the last die of `slot` as the rule says; return whether the extra-roll cap stopped it."""
        active = slot[-1]
        condition = reroll.condition
        while condition.matches(active.face):
            if not self._take_extra_roll():
                return True
            active.state = DieState.REROLLED
            active = _Draft(self._rng.randint(1, sides), extra=active.extra)
            slot.append(active)
            if reroll.once:
                break
        return False

    def _explode(self, slot: list[_Draft], explode: Condition, reroll: Reroll | None, sides: int) -> bool:
        """Explode the last die of `slot` until a face does not match; return whether the cap stopped it."""
        active = slot[-1]
        while explode.matches(active.face):
            if not self._take_extra_roll():
                return True
            active.exploded = True
            slot.append(_Draft(self._rng.randint(1, sides), extra=True))
            if reroll is not None and self._reroll(slot, reroll, sides):
                return True
            active = slot[-1]
        return False


def _apply_keep(pool: list[_Draft], keep: Keep) -> None:
    """Mark DROPPED the dice that `keep` does not keep, among those not rerolled away."""
    live = [index for index, draft in enumerate(pool) if draft.state is DieState.KEPT]
    highest_first = keep.mode in (KeepMode.KEEP_HIGHEST, KeepMode.DROP_HIGHEST)
    # The index in the key makes ties go to the earlier die.
    if highest_first:
        ranked = sorted(live, key=lambda index: (-pool[index].face, index))
    else:
        ranked = sorted(live, key=lambda index: (pool[index].face, index))
    chosen, rest = ranked[: keep.amount], ranked[keep.amount :]
    dropped = rest if keep.mode in (KeepMode.KEEP_HIGHEST, KeepMode.KEEP_LOWEST) else chosen
    for index in dropped:
        pool[index].state = DieState.DROPPED


def roll(expression: Expression | str, rng: DiceSource) -> RollResult:
    """Roll an expression.

    Args:
        expression: An expression from `parse`, or text to parse first. The limits are checked by `parse`
            only, so a tree built by hand is trusted as it is.
        rng: Where the faces come from.

    Returns:
        The frozen result tree with its total.

    Raises:
        DiceError: Only when `expression` is text that `parse` refuses; rolling itself never raises.
    """
    node = parse(expression) if isinstance(expression, str) else expression
    roller = _Roller(rng)
    tree = roller.evaluate(node)
    return RollResult(str(node), tree, tree.total, roller.capped)
