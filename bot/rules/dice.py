"""Dice expressions: parse text into an immutable tree, then roll that tree with an injected source of randomness.

/roll speaks the notations players bring from other dice bots: Roll20's, Avrae's (the d20 library), Dice
Maiden's and the common ground between them. docs/dice.md has the table of every notation with its home bot.

Grammar (case-insensitive; whitespace between tokens is ignored unless said otherwise)::

    text     := ['(' WORDS ')'] roll (';' roll)* [label]    '(Fire Bolt) 8d6': a label first
    roll     := [INT ' '] expr ['adv' | 'dis'] words*      '6 4d6k3': six rolls; 'adv' applies to the one d20
    words    := ' ' phrase [',']                           'with advantage', 'drop lowest', 'reroll 1s' (below)
    label    := ' ' WORD ...  |  ' !' ...                  free text after the roll (Dice Maiden's '! comment')
    expr     := term (('+' | '-') term)*
    term     := unary (('*' | '/' | '//' | '%') unary)*    '/' and '//' both round down; '%' is the remainder
    unary    := '-' unary | '+' unary | atom
    atom     := (INT | dice | ['abs' | 'floor'] '(' expr ')' | set) ['[' annotation ']']
    set      := ('{' expr (',' expr)* '}' | '(' expr ',' [expr (',' expr)*] ')') [keep] [comparator INT]
    dice     := [INT] 'd' (INT | '%' | 'F') modifier*
    modifier := keep | explode | reroll+ | 'mi' INT | 'ma' INT | success | 'f' cond | 'adv' | 'dis'
              | ('s' | 'sa' | 'sd') | ('cs' | 'cf') [cond]   Roll20's display-only modifiers, set aside
    keep     := ('kh' | 'kl' | 'dh' | 'dl' | 'ph' | 'pl' | 'k' | 'd') [INT]    ('k3' keeps the highest 3)
              | ('k' | 'p') ('<' | '>' | '=') INT                                Avrae: keep / drop by face
    explode  := ('!' | '!!' | '!p' | 'e' | 'ie' | 'x') [cond]    explode, compound, penetrate
    reroll   := ('r' | 'ro' | 'rr' | 'ra' | 'ir') cond     repeated with one kind (`2d8r1r3`): any condition;
                                                           a bare `r` or `ro` is Roll20's r1, ro1
    success  := ('<' | '>' | '<=' | '>=' | '=') INT  |  't' INT    count dice meeting the target
    cond     := [('<' | '>' | '<=' | '>=' | '=')] INT

Rules decided here (docs/dice.md gives the reasons, peer by peer):

* Comparators: Roll20 reads `>4` as "4 or more" and `<2` as "2 or less", and so do `!`, `r`, `ro`, success
  targets and `f` here. Operators only Avrae has (`rr`, `ra`, `e`, `k>`/`k<`, `p>`/`p<`) keep Avrae's strict
  reading. Either way the tree stores an inclusive condition (`>= 5`, `<= 2` or `= 3`), so the normalized text
  says which reading was used.
* Where the bots disagree the majority wins and the result's `notes` say so: `k3` keeps the highest three
  (Roll20, Dice Maiden; Avrae's literal 3 is `k=3`), `d3` after a die drops the lowest three, `r` rerolls
  until the face stops matching (Roll20; Dice Maiden's once is `ro`), `d%` is a d100, `/` rounds down.
* Roll20's group of one roll with a keep (`{4d6+3d8}k4`) keeps among all the roll's dice and totals the roll
  again with what is left; a group of several rolls (with commas), and Avrae's one-item set `(4d6,)kh3`, keep
  among totals. `x` explodes as `!` (RPG Sage, python-dice; `x8`: on 8 or more, as Dice Maiden's `ie8`).
* A syntax error names a spelling that rolls: its hint's example, or the text mended by the smallest change
  (`_Parser._repaired`).
* Each modifier family appears at most once per dice term: one keep/drop, one explode, one reroll, one
  minimum, one maximum, one success target, one failure target. They always apply in the order reroll,
  explode, minimum/maximum, keep/drop, count successes.
* `adv`/`dis` turns the expression's single 1d20 into two d20 keeping the higher (lower); right after the d20
  it takes no other modifier, and written anywhere else in the roll it needs exactly one plain 1d20.
* A keep/drop amount of 0 is refused; an amount larger than the pool keeps (or drops) every die.
* A condition matching no face is a harmless no-op. A condition that could never stop is refused: `r` matching
  every face, `!` matching every face, or `!` matching every face that an `r` reroll can settle on (`d6r<5!`).
  `ro` and `ra` always stop, so they may match every face.
* Order of the calls to the dice source, which scripted tests rely on: every die of the term first, left to
  right; then each die in turn is rerolled; then each die in turn explodes, and an explosion die goes through
  the reroll rule before it can explode again, depth first. A fudge die is `randint(-1, 1)`.
* The work is bounded before anything is rolled: at most `MAX_DICE` dice asked for in the whole text (repeats
  counted), and `MAX_EXTRA_ROLLS` rerolls and explosions shared by the whole text. When those run out the die
  that wanted another roll keeps its face (it is not marked `exploded`) and the result is marked `capped`;
  rolling never raises. A division by zero counts as 0 and the notes say so.
* Ties in keep/drop go to the earlier die: `kh`/`kl` keep it, `dh`/`dl` drop it.
* Words after the roll that name a dice operation (`with advantage`, `keep highest 3`, `drop lowest`, `reroll 1s`,
  `explode on 5+`) are read as its modifier on the roll's one dice term, and the notes say so; words that name
  one but do not say enough, a modifier apart from its dice (`4d6+2 kh3`) and a peer's modifier with no meaning
  here (`km3`) are refused with a caret. Only text that cannot be dice is the label; inside it, only a whole
  phrase is read (`1d20+5 Stealth with advantage`). docs/dice.md has the table of the words.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from enum import Enum, StrEnum, auto
from typing import Any, Final, NoReturn, Protocol, TypeAlias, assert_never

from bot.errors import UserError
from bot.rules.collector import uncollected
from bot.rules.notation import NotationError

MAX_EXPRESSION_LENGTH: Final = 200
MAX_DICE: Final = 1000
MIN_SIDES: Final = 1
MAX_SIDES: Final = 10000
MAX_EXTRA_ROLLS: Final = 1000
MAX_LITERAL: Final = 1_000_000
MAX_REPEAT: Final = 20
MAX_ROLLS_AT_ONCE: Final = 10
MAX_ANNOTATION: Final = 40
MAX_EXPONENT: Final = 10
FUDGE_SIDES: Final = 3  # `Dice.sides` of a fudge die (dF), whose faces are -1, 0 and +1


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


class DiceSyntaxError(DiceError, NotationError):
    """The text does not follow the grammar: the one notation error, with its caret, titled as a roll's.

    Attributes:
        text: The expression exactly as typed.
        position: 0-based index into `text` of the offending character; just past the last token when the
            expression stops too early.
        reason: What went wrong, as a short phrase such as "Unexpected ')'".
        hint: A full sentence saying what would have fitted, or None.
    """


# ------------------------------------------------------------------------------------------------------ AST


class Operator(StrEnum):
    """A binary arithmetic operator; DIVIDE rounds down (Avrae and Dice Maiden do, for any roll that is >= 0)."""

    ADD = "+"
    SUBTRACT = "-"
    MULTIPLY = "*"
    DIVIDE = "/"
    MODULO = "%"
    POWER = "**"  # Roll20's; `^` too. The exponent is a number from 0 to MAX_EXPONENT
    # Avrae's comparisons of two totals: 1 when they hold, 0 when not; < and > are strict, as in d20.
    LESS = "<"
    GREATER = ">"
    AT_MOST = "<="
    AT_LEAST = ">="
    EQUALS = "=="

    def apply(self, left: int, right: int) -> int | None:
        """`left op right` as the roller works it out; None for a division (or remainder) by zero."""
        if self is Operator.ADD:
            return left + right
        if self is Operator.SUBTRACT:
            return left - right
        if self is Operator.MULTIPLY:
            return left * right
        if self is Operator.POWER:
            return int(left**right)  # the exponent is a whole number from 0 up
        if self in _COMPARE:
            return int(_COMPARE[self](left, right))
        if right == 0:
            return None
        return left // right if self is Operator.DIVIDE else left % right


_COMPARE: Final = {
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
}


class Comparator(StrEnum):
    """How a condition compares a face with its value; every reading of '<' and '>' becomes one of these."""

    EQUAL = "="
    AT_MOST = "<="
    AT_LEAST = ">="


class KeepMode(StrEnum):
    """Which dice a keep/drop modifier chooses, and whether it keeps or drops them."""

    KEEP_HIGHEST = "kh"
    KEEP_LOWEST = "kl"
    DROP_HIGHEST = "dh"
    DROP_LOWEST = "dl"
    KEEP_MATCHING = "k"
    DROP_MATCHING = "p"


class ExplodeMode(StrEnum):
    """What a matching face earns: another die (!), a roll added into the same die (!!), or one less each (!p)."""

    EXPLODE = "!"
    COMPOUND = "!!"
    PENETRATE = "!p"


class Advantage(StrEnum):
    """A d20 rolled twice."""

    ADVANTAGE = "adv"
    DISADVANTAGE = "dis"


@dataclass(frozen=True, slots=True)
class Condition:
    """A test on a face, used by explode, reroll, keep-by-face and success modifiers."""

    comparator: Comparator
    value: int

    def matches(self, face: int) -> bool:
        """Return whether `face` satisfies the condition."""
        if self.comparator is Comparator.EQUAL:
            return face == self.value
        if self.comparator is Comparator.AT_MOST:
            return face <= self.value
        return face >= self.value

    def face_range(self, low: int, high: int) -> tuple[int, int]:
        """Return the inclusive range of faces in low..high that match; empty when the first exceeds the second."""
        if self.comparator is Comparator.EQUAL:
            return (self.value, self.value) if low <= self.value <= high else (low, low - 1)
        if self.comparator is Comparator.AT_MOST:
            return low, min(self.value, high)
        return max(self.value, low), high

    def __str__(self) -> str:
        return str(self.value) if self.comparator is Comparator.EQUAL else f"{self.comparator}{self.value}"


@dataclass(frozen=True, slots=True)
class Keep:
    """A keep/drop modifier: `mode` with `amount` dice, or (KEEP_MATCHING, DROP_MATCHING) the dice `matching`."""

    mode: KeepMode
    amount: int = 0
    matching: Condition | None = None

    def __str__(self) -> str:
        if self.matching is not None:
            return f"{self.mode}{'=' if self.matching.comparator is Comparator.EQUAL else ''}{self.matching}"
        return f"{self.mode}{self.amount}"


@dataclass(frozen=True, slots=True)
class Reroll:
    """A reroll modifier: `r` (until the face stops matching), `ro` (once), or `ra` (Avrae: one extra die, added)."""

    condition: Condition
    once: bool
    add: bool = False
    more: tuple[Condition, ...] = ()  # Roll20's `2d8r1r3`: further conditions, any of which rerolls

    @property
    def conditions(self) -> tuple[Condition, ...]:
        """Every condition; a face matching any of them is rerolled."""
        return (self.condition, *self.more)

    def matches(self, face: int) -> bool:
        """Return whether `face` is rerolled."""
        return any(condition.matches(face) for condition in self.conditions)

    def __str__(self) -> str:
        kind = "ra" if self.add else "ro" if self.once else "r"
        return "".join(f"{kind}{condition}" for condition in self.conditions)


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
    `explode` is the explode condition; a bare `!` is stored as `= sides`. `sides` is `FUDGE_SIDES` for dF.
    `success`/`failure` make the term's total the number of dice meeting `success` minus those meeting `failure`.
    """

    count: int
    sides: int
    keep: Keep | None = None
    explode: Condition | None = None
    reroll: Reroll | None = None
    advantage: Advantage | None = None
    explode_mode: ExplodeMode = ExplodeMode.EXPLODE
    minimum: int | None = None
    maximum: int | None = None
    success: Condition | None = None
    failure: Condition | None = None
    fudge: bool = False

    @property
    def faces(self) -> tuple[int, int]:
        """The lowest and highest face one die can show as rolled."""
        return (-1, 1) if self.fudge else (1, self.sides)

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
        parts = [f"{self.count}d{'F' if self.fudge else self.sides}"]
        if self.reroll is not None:
            parts.append(str(self.reroll))
        if self.explode is not None:
            is_default = self.explode == Condition(Comparator.EQUAL, self.sides)
            # A bare `!` right before Avrae's `p` would read back as `!p` (penetrating): spell the face out.
            before_p = self.keep is not None and self.keep.mode is KeepMode.DROP_MATCHING
            before_p = before_p and self.minimum is None and self.maximum is None
            bare = is_default and not (before_p and self.explode_mode is ExplodeMode.EXPLODE)
            parts.append(str(self.explode_mode) + ("" if bare else str(self.explode)))
        if self.minimum is not None:
            parts.append(f"mi{self.minimum}")
        if self.maximum is not None:
            parts.append(f"ma{self.maximum}")
        if self.keep is not None:
            parts.append(str(self.keep))
        if self.success is not None:
            target = self.success
            parts.append(
                f"t{target.value}"
                if target.comparator is Comparator.AT_LEAST
                else f"t{target.comparator}{target.value}"
            )
        if self.failure is not None:
            parts.append(f"f{self.failure}")
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
    """Parentheses as the user wrote them, kept so that results can be shown the way they were typed.

    `function`: Roll20's `abs(...)` (the size of the total) or `floor(...)` (the total as it is: every total
    here is a whole number, `/` rounding down already); empty for plain parentheses.
    """

    inner: Expression
    function: str = ""

    def apply(self, total: int) -> int:
        """The group's total from its inner total."""
        return abs(total) if self.function == "abs" else total

    def __str__(self) -> str:
        return f"{self.function}({self.inner})"


@dataclass(frozen=True, slots=True)
class DiceSet:
    """Roll20's group `{4d6, 3d8}kh1` or Avrae's set `(1d6, 1d8)kh1`: each item is totalled, `keep` chooses.

    `pool`: Roll20's group of one roll with a keep, `{4d6+3d8}k4`, keeps among the roll's dice, not its totals:
    the highest 4 of the 7 dice count, the others are dropped, and the roll is totalled with what is left.
    """

    items: tuple[Expression, ...]
    keep: Keep | None = None
    success: Condition | None = None  # Roll20's `{3d20+5}>21`: the total counts the items that reach it
    pool: bool = False

    def __str__(self) -> str:
        keep = "" if self.keep is None else str(self.keep)
        if len(self.items) == 1 and self.keep is not None and not self.pool:
            text = f"({self.items[0]},){keep}"  # Avrae's one-item set keeps its total; braces would keep dice
        else:
            text = "{" + ", ".join(str(item) for item in self.items) + "}" + keep
        if self.success is not None:
            text += ("=" if self.success.comparator is Comparator.EQUAL else "") + str(self.success)
        return text


@dataclass(frozen=True, slots=True)
class Annotated:
    """A term with a note in brackets, `1d8[slashing]`; the note changes nothing but what is shown."""

    inner: Expression
    note: str

    def __str__(self) -> str:
        return f"{self.inner}[{self.note}]"


@dataclass(frozen=True, slots=True)
class Repeat:
    """Dice Maiden's `6 4d6k3`: the same roll made `times` times, each shown with its own total."""

    times: int
    inner: Expression

    def __str__(self) -> str:
        return f"{self.times} {self.inner}"


@dataclass(frozen=True, slots=True)
class Several:
    """Several rolls in one line, `1d20+5; 2d6+3`, each shown with its own total."""

    items: tuple[Expression, ...]

    def __str__(self) -> str:
        return "; ".join(str(item) for item in self.items)


Expression: TypeAlias = Number | Dice | Negate | BinaryOp | Group | DiceSet | Annotated | Repeat | Several


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
        face: The face it shows (for a compounding die, the sum of its rolls; for a penetrating extra die, one
            less than it rolled; after mi/ma, the face raised or lowered).
        state: KEPT counts towards the total; DROPPED was removed by keep/drop; REROLLED was replaced by the die
            that follows it in the pool.
        exploded: It matched the explode condition and an extra die was rolled for it.
        extra: It is such an extra die, rolled by an explosion (or `ra`) rather than asked for in the expression.
        success: It met the term's success target. failure: It met the term's failure target.
    """

    face: int
    state: DieState = DieState.KEPT
    exploded: bool = False
    extra: bool = False
    success: bool = False
    failure: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Return the die as a JSON-serializable dict."""
        out: dict[str, Any] = {"face": self.face, "state": self.state.value, "exploded": self.exploded}
        out["extra"] = self.extra
        if self.success:
            out["success"] = True
        if self.failure:
            out["failure"] = True
        return out


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
    `capped` says this term wanted more extra rolls when `MAX_EXTRA_ROLLS` had run out. With a success target
    the total counts successes minus failures.
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
    """A parenthesized sub-expression, or a function of one (`abs(...)`, `floor(...)`)."""

    inner: ResultNode
    total: int
    function: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Return the node as a JSON-serializable dict."""
        out = {"kind": "group", "total": self.total, "inner": self.inner.to_dict()}
        if self.function:
            out["function"] = self.function
        return out


@dataclass(frozen=True, slots=True)
class SetResult:
    """A rolled set: every item with its total, and which items the keep rule kept."""

    term: DiceSet
    items: tuple[ResultNode, ...]
    kept: tuple[bool, ...]
    total: int

    def to_dict(self) -> dict[str, Any]:
        """Return the node as a JSON-serializable dict."""
        return {
            "kind": "set",
            "keep": None if self.term.keep is None else str(self.term.keep),
            "total": self.total,
            "items": [item.to_dict() for item in self.items],
            "kept": list(self.kept),
        }


@dataclass(frozen=True, slots=True)
class AnnotatedResult:
    """A term with its note."""

    inner: ResultNode
    note: str
    total: int

    def to_dict(self) -> dict[str, Any]:
        """Return the node as a JSON-serializable dict."""
        return {"kind": "annotated", "note": self.note, "total": self.total, "inner": self.inner.to_dict()}


@dataclass(frozen=True, slots=True)
class RollsResult:
    """Several rolls (`Repeat` or `Several`): each item is one roll with its own total; `total` is their sum."""

    items: tuple[ResultNode, ...]
    texts: tuple[str, ...]
    total: int

    def to_dict(self) -> dict[str, Any]:
        """Return the node as a JSON-serializable dict."""
        return {
            "kind": "rolls",
            "total": self.total,
            "rolls": [
                {"expression": text, "tree": item.to_dict()} for text, item in zip(self.texts, self.items, strict=True)
            ],
        }


ResultNode: TypeAlias = (
    NumberResult | DiceResult | NegateResult | BinaryResult | GroupResult | SetResult | AnnotatedResult | RollsResult
)


@dataclass(frozen=True, slots=True)
class RollResult:
    """The outcome of `roll`.

    Attributes:
        expression_text: The normalized expression (lower case, explicit dice count, canonical modifier order,
            inclusive comparators, single spaces around binary operators). It may be longer than
            `MAX_EXPRESSION_LENGTH`, so keep the user's own text if it is to be rolled again.
        tree: The result tree, shaped like the expression; a `RollsResult` when the text asked for several rolls.
        total: The final integer (for several rolls, their sum).
        capped: `MAX_EXTRA_ROLLS` ran out, so some die did not get the reroll or explosion it earned.
        label: Free text written after the roll (`1d20+5 Roll for Initiative`), or None.
        notes: Which reading was used where dice bots disagree, one short sentence each.
    """

    expression_text: str
    tree: ResultNode
    total: int
    capped: bool
    label: str | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def several(self) -> bool:
        """Whether the text asked for several rolls, each with its own total."""
        return isinstance(self.tree, RollsResult)

    def to_dict(self) -> dict[str, Any]:
        """Return the whole result as a JSON-serializable dict for the roll log."""
        out = {
            "expression": self.expression_text,
            "total": self.total,
            "capped": self.capped,
            "tree": self.tree.to_dict(),
        }
        if self.label is not None:
            out["label"] = self.label
        if self.notes:
            out["notes"] = list(self.notes)
        return out


# ------------------------------------------------------------------------------------------------- tokenizer


class _Kind(Enum):
    INT = auto()
    WORD = auto()  # a run of ASCII letters; `word` holds it in lower case
    PERCENT = auto()
    PLUS = auto()
    MINUS = auto()
    STAR = auto()
    SLASH = auto()
    DSLASH = auto()
    LPAREN = auto()
    RPAREN = auto()
    LBRACE = auto()
    RBRACE = auto()
    COMMA = auto()
    SEMI = auto()
    BANG = auto()
    LT = auto()
    GT = auto()
    LE = auto()
    GE = auto()
    EQ = auto()
    NOTE = auto()  # `[...]`; `word` holds what is between the brackets
    POWER = auto()
    CARET = auto()  # `^`: a power in some bots, keep-highest in python-dice; refused with both spellings
    BAD = auto()
    END = auto()


@dataclass(frozen=True, slots=True)
class _Token:
    kind: _Kind
    start: int
    end: int
    value: int = 0
    word: str = ""
    spaced: bool = False  # whitespace comes right before it


_SYMBOLS: Final = {
    "+": _Kind.PLUS,
    "-": _Kind.MINUS,
    "*": _Kind.STAR,
    "/": _Kind.SLASH,
    "(": _Kind.LPAREN,
    ")": _Kind.RPAREN,
    "{": _Kind.LBRACE,
    "}": _Kind.RBRACE,
    ",": _Kind.COMMA,
    ";": _Kind.SEMI,
    "!": _Kind.BANG,
    "<": _Kind.LT,
    ">": _Kind.GT,
    "=": _Kind.EQ,
    "%": _Kind.PERCENT,
    "^": _Kind.CARET,
}
_PAIRS: Final = {
    "**": _Kind.POWER,
    "//": _Kind.DSLASH,
    "<=": _Kind.LE,
    ">=": _Kind.GE,
    "==": _Kind.EQ,
    "=<": _Kind.LE,
    "=>": _Kind.GE,
}


# Longest first: a run of letters glued to the dice before it (`d20advkh1`) is split into these.
_KEYWORDS: Final = sorted(
    [
        "adv",
        "dis",
        "kh",
        "kl",
        "dh",
        "dl",
        "ph",
        "pl",
        "ro",
        "rr",
        "ra",
        "ir",
        "rg",
        "irg",
        "tl",
        "ie",
        "mi",
        "ma",
        "df",
        "k",
        "d",
        "p",
        "r",
        "e",
        "t",
        "f",
        "sa",
        "sd",
        "cs",
        "cf",
        "s",
        "x",
    ],
    key=len,
    reverse=True,
)


def _split_keywords(run: str) -> list[str] | None:
    """`run` cut into keywords, longest match first, or None when some part is no keyword (a word of a label)."""
    pieces: list[str] = []
    index = 0
    while index < len(run):
        word = next((word for word in _KEYWORDS if run.startswith(word, index)), None)
        if word is None:
            return None
        pieces.append(word)
        index += len(word)
    return pieces


def _tokenize(text: str) -> list[_Token]:
    """Split `text` into tokens, ending with END.

    An unknown character becomes a BAD token and ends the list there, rather than raising, so that the parser
    reports whichever problem comes first in the text (or takes the rest as a label).
    """
    tokens: list[_Token] = []
    index, length = 0, len(text)
    spaced = False
    while index < length:
        char = text[index]
        if char.isspace():
            index += 1
            spaced = True
            continue
        start = index
        if "0" <= char <= "9":
            while index < length and "0" <= text[index] <= "9":
                index += 1
            tokens.append(_Token(_Kind.INT, start, index, int(text[start:index]), spaced=spaced))
        elif ("a" <= char <= "z") or ("A" <= char <= "Z"):
            # ASCII only: str.lower() maps some non-ASCII letters (the Kelvin sign) onto ASCII ones.
            while index < length and text[index].isascii() and text[index].isalpha():
                index += 1
            run = text[start:index].lower()
            pieces = None if spaced or not tokens else _split_keywords(run)
            if pieces is None or len(pieces) == 1:
                tokens.append(_Token(_Kind.WORD, start, index, word=run, spaced=spaced))
            else:
                at = start
                for piece in pieces:
                    tokens.append(_Token(_Kind.WORD, at, at + len(piece), word=piece))
                    at += len(piece)
        elif char == "[":
            close = text.find("]", index)
            if close < 0:
                tokens.append(_Token(_Kind.BAD, start, start + 1, spaced=spaced))
                break
            index = close + 1
            tokens.append(_Token(_Kind.NOTE, start, index, word=text[start + 1 : close].strip(), spaced=spaced))
        elif (pair := _PAIRS.get(text[index : index + 2])) is not None:
            index += 2
            tokens.append(_Token(pair, start, index, spaced=spaced))
        elif (symbol := _SYMBOLS.get(char)) is not None:
            index += 1
            tokens.append(_Token(symbol, start, index, spaced=spaced))
        else:
            tokens.append(_Token(_Kind.BAD, start, start + 1, spaced=spaced))
            break
        spaced = False
    end_position = tokens[-1].end if tokens else 0
    tokens.append(_Token(_Kind.END, end_position, end_position, spaced=spaced))
    return tokens


# ---------------------------------------------------------------------------------------- words after the roll
# Players write what they mean in words after the roll (`1d20+5 with advantage`, `4d6 drop lowest`, `4d6 reroll
# 1s`). Read as a label, such words would silently change nothing, so they are read as the operations they name
# (and the notes say so), or refused with the spelling that works. Only text that cannot be dice is a label.


@dataclass(frozen=True, slots=True)
class _Word:
    """One word of the text after a roll, lower case, with where it stands in the whole text."""

    text: str
    start: int
    end: int
    glued: bool  # no space between it and the word before


@dataclass(frozen=True, slots=True)
class _Explosion:
    mode: ExplodeMode
    condition: Condition | None  # None: the top face


_Change: TypeAlias = Advantage | Keep | Reroll | _Explosion


@dataclass(frozen=True, slots=True)
class _Phrase:
    """Words that name a dice operation, and the operation."""

    change: _Change
    start: int
    end: int
    typed: str


class _Refusal(Exception):
    """Words that name a dice operation but do not say enough of it; the parser turns it into a caret error."""

    def __init__(self, position: int, reason: str, hint: str) -> None:
        super().__init__(reason)
        self.position = position
        self.reason = reason
        self.hint = hint


_WORD_PATTERN: Final = re.compile(r"w/|\d+(?:'?s\b)?\+?|[a-z]+(?:-[a-z]+)*(?:'s)?|<=|>=|[<>=]|\S", re.ASCII | re.I)
_WITH: Final = frozenset({"with", "at", "w/", "in", "using"})
_ADVANTAGE_WORDS: Final = {
    **dict.fromkeys(("adv", "advantage", "advantaged", "advantages"), Advantage.ADVANTAGE),
    **dict.fromkeys(("dis", "disadv", "disadvantage", "disadvantaged", "disadvantages"), Advantage.DISADVANTAGE),
}
_KEEP_VERBS: Final = frozenset({"keep", "keeps", "keeping", "kept", "take", "takes", "taking"})
_DROP_VERBS: Final = frozenset({"drop", "drops", "dropping", "discard", "discards", "discarding", "remove"})
_HIGH: Final = frozenset({"highest", "high", "higher", "best", "top", "max", "largest", "biggest", "greatest"})
_LOW: Final = frozenset({"lowest", "low", "lower", "worst", "bottom", "min", "smallest"})
_BARE_DIRECTIONS: Final = frozenset({"highest", "best", "lowest", "worst"})  # `2d20 highest`, `4d6 best 3`
_FILLER: Final = frozenset({"the", "dice", "die", "of", "them", "results", "result", "each", "any", "all"})
_NUMBER_WORDS: Final = {
    word: value
    for value, word in enumerate(("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"), 1)
}
_FACE_WORDS: Final = {
    word: value
    for value, word in enumerate(
        ("ones", "twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens"), 1
    )
}
_REROLL_VERBS: Final = frozenset({"reroll", "rerolls", "rerolling", "rerolled", "re-roll", "re-rolls", "re-rolling"})
_EXPLODE_VERBS: Final = frozenset(
    {"explode", "explodes", "exploding"}  # not `explosion`, `ace`: "8d6 fireball explosion", "Ace pilot" are labels
)
_COMPOUND_VERBS: Final = frozenset({"compound", "compounds", "compounding"})
_PENETRATE_VERBS: Final = frozenset({"penetrate", "penetrates", "penetrating"})
_JOINS: Final = frozenset({"and", "or", ",", "&", "/"})
MAX_RANGE_FACES: Final = 10  # `reroll 2 to 4`: at most this many faces named one by one
_AT_MOST_WORDS: Final = frozenset({"less", "lower", "below", "under", "fewer"})
_AT_LEAST_WORDS: Final = frozenset({"more", "higher", "above", "over", "better", "greater"})
# Modifiers of the grammar that belong right after their dice; peers' ones with no meaning here.
_SHORT_FORMS: Final = frozenset(
    {"kh", "kl", "dh", "dl", "ph", "pl", "ro", "rr", "ra", "ir", "ie", "mi", "ma", "k", "d", "r", "e", "t", "f"}
)
_FOREIGN_SHORT_FORMS: Final = {
    "km": "Keeping the middle dice is not supported: keep the highest N with khN, the lowest with klN (6d10kh3).",
    "u": "Unique dice are not supported: reroll repeats with r, like 4d6r1.",
}


def _split_words(text: str, start: int) -> list[_Word]:
    """The words of `text[start:]`, each with its place in `text`."""
    words: list[_Word] = []
    previous_end = -1
    for match in _WORD_PATTERN.finditer(text, start):
        words.append(_Word(match.group().lower(), match.start(), match.end(), match.start() == previous_end))
        previous_end = match.end()
    return words


class _WordReader:
    """Reads dice operations named in words, from a list of words; `at` is the word it has come to."""

    def __init__(self, words: list[_Word], text: str) -> None:
        self._words = words
        self._text = text
        self.at = 0

    def _word(self, ahead: int = 0) -> str:
        index = self.at + ahead
        return self._words[index].text if index < len(self._words) else ""

    def _refuse(self, reason: str, hint: str) -> NoReturn:
        index = min(self.at, len(self._words) - 1)
        raise _Refusal(self._words[index].start, reason, hint)

    def phrase(self, *, leading: bool) -> _Phrase | None:
        """The phrase starting at the current word, or None when none starts there.

        `leading`: the words come right after the roll, where a word that names an operation must say all of
        it (`4d6 keep the good ones` is refused); further into a label only a whole phrase is read.
        """
        begin = self.at
        try:
            change = self._change(leading=leading)
        except _Refusal:
            if leading:
                raise
            change = None
        if change is None:
            self.at = begin
            return None
        start, end = self._words[begin].start, self._words[self.at - 1].end
        return _Phrase(change, start, end, self._text[start:end])

    def _change(self, *, leading: bool) -> _Change | None:
        begin = self.at
        word = self._word()
        if word in _WITH and self._word(1) in _ADVANTAGE_WORDS:
            self.at += 1
            word = self._word()
        if word in _ADVANTAGE_WORDS:
            if word in ("adv", "dis") and not leading and self.at == begin:
                return None  # a bare `dis` inside a label is more likely a word of it than `with dis`
            self.at += 1
            return _ADVANTAGE_WORDS[word]
        if word in _KEEP_VERBS or word in _DROP_VERBS:
            return self._keep(leading=leading)
        if word in _BARE_DIRECTIONS and leading:
            following = self._word(1)
            # `2d20 highest`, `4d6 best 3`; but "2d6 Highest damage" is a label.
            if not following or following in (",", ";") or following.isdecimal() or following in _NUMBER_WORDS:
                return self._keep(leading=leading)
            return None
        if word in _REROLL_VERBS:
            return self._reroll()
        if word in _EXPLODE_VERBS or word in _COMPOUND_VERBS or word in _PENETRATE_VERBS:
            return self._explode(leading=leading)
        if leading:
            self._short_form()
        return None

    def _number(self) -> int | None:
        word = self._word()
        if word.isdecimal():
            self.at += 1
            return int(word)
        if word in _NUMBER_WORDS:
            self.at += 1
            return _NUMBER_WORDS[word]
        return None

    def _keep(self, *, leading: bool) -> Keep | None:
        verb = self._word()
        dropping = verb in _DROP_VERBS
        if verb in _KEEP_VERBS or dropping:
            self.at += 1
        amount: int | None = None
        high: bool | None = None
        while True:
            word = self._word()
            if word in _FILLER:
                self.at += 1
            elif amount is None and (number := self._number()) is not None:
                amount = number
            elif high is None and (word in _HIGH or word in _LOW):
                self.at += 1
                high = word in _HIGH
            else:
                break
        if high is None and (amount is None or not leading):
            if not leading:
                return None
            what = "drop" if dropping else "keep"
            self._refuse(
                f"Say which dice to {what}",
                f"Write {what} highest 3, {what} lowest 1, or the modifiers: kh3, kl1, dh1, dl1 (4d6{what[0]}"
                f"{'l' if dropping else 'h'}{'1' if dropping else '3'}). For a label, use the label: option.",
            )
        if high is None:
            high = not dropping  # `keep 3` keeps the highest, `drop 1` drops the lowest, as k3 and d1 do
        if dropping:
            mode = KeepMode.DROP_HIGHEST if high else KeepMode.DROP_LOWEST
        else:
            mode = KeepMode.KEEP_HIGHEST if high else KeepMode.KEEP_LOWEST
        return Keep(mode, 1 if amount is None else amount)

    def _faces(self, verb: str) -> list[Condition]:
        """Faces named in words: `1s`, `ones`, `1 and 2`, `2 or less`, `below 3`, `<3`, `5+`, `on 6`."""
        faces: list[Condition] = []
        while True:
            condition = self._face()
            if condition is None:
                break
            if self._word() in ("to", "-", "through") and self._word(1).isdecimal() and condition.comparator == "=":
                # A range, `1 to 2`, `1-3`: the faces from the first to the last.
                last = int(self._word(1))
                self.at += 2
                if last < condition.value:
                    self._refuse("The range runs backwards", "Write the lower face first, like 1 to 2.")
                if condition.value <= 1:
                    faces.append(Condition(Comparator.AT_MOST, last))
                    condition = None
                elif last - condition.value >= MAX_RANGE_FACES:
                    self._refuse("Too wide a range", f"Write it with a comparison, like {condition.value} or more.")
                else:
                    faces.extend(Condition(Comparator.EQUAL, face) for face in range(condition.value, last))
                    condition = Condition(Comparator.EQUAL, last)
            if condition is not None:
                faces.append(condition)
            if self._word() in _JOINS and self._starts_face(1):
                self.at += 1
            else:
                break
        if not faces and self._word() and not self._word().isalpha() and self._word() not in ("<", ">", "<=", ">="):
            self._refuse(f"Unreadable faces after '{verb}'", f"Name the faces, like {verb} 1s or {verb} 2 or less.")
        return faces

    def _starts_face(self, ahead: int) -> bool:
        word = self._word(ahead)
        return word[:1].isdecimal() or word in _FACE_WORDS or word in ("<", ">", "<=", ">=", "below", "under", "above")

    def _face(self) -> Condition | None:
        word = self._word()
        if word in ("on", "of") and self._starts_face(1):
            self.at += 1
            word = self._word()
        if word in _FACE_WORDS:
            self.at += 1
            return Condition(Comparator.EQUAL, _FACE_WORDS[word])
        if word in ("<", ">", "<=", ">=") and self._word(1).isdecimal():
            self.at += 2
            value = int(self._word(-1))
            # Roll20's reading, as everywhere in /roll: `<3` is 3 or less.
            return Condition(Comparator.AT_MOST if "<" in word else Comparator.AT_LEAST, value)
        if word in ("below", "under", "above", "over") and self._word(1).isdecimal():
            self.at += 2
            value = int(self._word(-1))
            below = word in ("below", "under")
            return Condition(Comparator.AT_MOST, value - 1) if below else Condition(Comparator.AT_LEAST, value + 1)
        if (
            word in ("less", "more", "lower", "higher", "greater")
            and self._word(1) == "than"
            and self._word(2).isdecimal()
        ):
            self.at += 3
            value = int(self._word(-1))
            return (
                Condition(Comparator.AT_LEAST, value + 1)
                if word in ("more", "higher", "greater")
                else Condition(Comparator.AT_MOST, value - 1)
            )
        match = re.fullmatch(r"(\d+)(?:'?s)?(\+)?", word)
        if match is None:
            return None
        self.at += 1
        value = int(match.group(1))
        if match.group(2):
            return Condition(Comparator.AT_LEAST, value)
        if self._word() == "or" and self._word(1) in _AT_MOST_WORDS | _AT_LEAST_WORDS:
            self.at += 2
            if self._word() == "than":
                self.at += 1
            at_most = self._word(-1) in _AT_MOST_WORDS or self._word(-2) in _AT_MOST_WORDS
            return Condition(Comparator.AT_MOST if at_most else Comparator.AT_LEAST, value)
        return Condition(Comparator.EQUAL, value)

    def _once(self) -> bool:
        if self._word() == "once":
            self.at += 1
            if self._word() == "each":
                self.at += 1
            return True
        if self._word() == "one" and self._word(1) == "time":
            self.at += 2
            return True
        return False

    def _reroll(self) -> Reroll:
        verb = self._word()
        self.at += 1
        once = self._once()
        while self._word() in _FILLER:
            self.at += 1
        faces = self._faces(verb)
        if not faces:
            self._refuse(
                f"Say which faces to {verb}",
                "Write reroll 1s (until it stops showing 1), reroll 1s once, or the modifiers r1 and ro1 (2d6r1). "
                "For a label, use the label: option.",
            )
        once = self._once() or once
        return Reroll(faces[0], once=once, more=tuple(faces[1:]))

    def _explode(self, *, leading: bool) -> _Explosion | None:
        word = self._word()
        self.at += 1
        mode = ExplodeMode.EXPLODE
        if word in _COMPOUND_VERBS:
            mode = ExplodeMode.COMPOUND
        elif word in _PENETRATE_VERBS:
            mode = ExplodeMode.PENETRATE
        if mode is not ExplodeMode.EXPLODE and self._word() in _EXPLODE_VERBS:
            self.at += 1
        while self._word() in _FILLER:
            self.at += 1
        faces = self._faces(word)
        if not faces and not leading and self._word(-1) not in ("dice", "die"):
            return None  # "the grenade explodes" inside a label: only `exploding dice` or faces say it is dice
        if len(faces) > 1:
            self._refuse("One explode condition only", "Write one condition, like explode on 5+ (3d6!>5).")
        if self._once():
            self._refuse("Exploding once is not supported", "Write explode to explode again on every new top face.")
        return _Explosion(mode, faces[0] if faces else None)

    def _short_form(self) -> None:
        """A modifier written apart from its dice (`4d6+2 kh3`), or a peer's one with no meaning here: refused."""
        word = self._word()
        following = self._word(1)
        glued = self.at + 1 < len(self._words) and self._words[self.at + 1].glued
        if word in _FOREIGN_SHORT_FORMS and glued and following[:1].isdecimal():
            self._refuse(f"'{word}{following}' is not a modifier here", _FOREIGN_SHORT_FORMS[word])
        if word in _SHORT_FORMS and glued and (following[:1].isdecimal() or following in ("<", ">", "<=", ">=", "=")):
            self._refuse(
                f"'{word}{following}' stands apart from its dice",
                f"A modifier comes right after the dice it is for, like 4d6{word}{following} + 2.",
            )


# ---------------------------------------------------------------------------------------------------- parser

_EXPECT_OPERAND: Final = "Expected a number, a die or '('."
_EXPECT_OPERATOR: Final = (
    "Expected +, -, *, /, ; or the end of the roll. Text after the roll becomes its label when it starts with a "
    "word after a space, or use the label: option."
)
_KEEP_WORDS: Final = {
    "kh": KeepMode.KEEP_HIGHEST,
    "kl": KeepMode.KEEP_LOWEST,
    "dh": KeepMode.DROP_HIGHEST,
    "dl": KeepMode.DROP_LOWEST,
    "ph": KeepMode.DROP_HIGHEST,
    "pl": KeepMode.DROP_LOWEST,
    "k": KeepMode.KEEP_HIGHEST,
    "d": KeepMode.DROP_LOWEST,
}
_EXPLODE_WORDS: Final = frozenset({"e", "ie", "x"})
# Roll20's sorting and critical highlighting change how dice look there, never a total: read and set aside.
_DISPLAY_WORDS: Final = frozenset({"s", "sa", "sd", "cs", "cf"})
_REROLL_WORDS: Final = frozenset({"r", "ro", "rr", "ra", "ir", "rg", "irg"})
_MODIFIER_WORDS: Final = frozenset(
    {*_KEEP_WORDS, *_EXPLODE_WORDS, *_REROLL_WORDS, "p", "mi", "ma", "t", "tl", "f", "adv", "dis", *_DISPLAY_WORDS}
)
# Spellings of other bots that /roll does not take, with what to write instead.
_OTHER_SPELLINGS: Final = {
    "xo": "Exploding once is not supported; write ! to explode (3d6!).",
    "b": (
        "Dice Maiden's botches (b1) are not counted apart here: count 1s against the successes with f1, like "
        "5d10t8f1, or count them alone with 5d10=1."
    ),
    "min": "The minimum face is written mi here (8d6mi2).",
    "max": "The maximum face is written ma here (1d20ma19).",
    "floor": "Write floor(...) with its parentheses, like floor((1d8+3)/2); / already rounds down.",
    "abs": "Write abs(...) with its parentheses, like abs(1d6-1d6).",
    "ceil": "Rounding up is not supported; / rounds down: write (1d8+3)/2.",
    "round": "Rounding to nearest is not supported; / rounds down: write (1d8+3)/2.",
    "advantage": "Write adv (1d20+5 adv).",
    "disadvantage": "Write dis (1d20+5 dis).",
}
_DICE_START: Final = re.compile(r"d(?:\d|%|f(?![a-z]))", re.I)  # `(d20)`, `(d%)`, `(dF)` are dice, not labels
_FUNCTIONS: Final = frozenset({"abs", "floor"})  # Roll20's functions that a whole-number total can take
_COMPARATOR_KINDS: Final = {
    _Kind.LT: "<",
    _Kind.GT: ">",
    _Kind.LE: "<=",
    _Kind.GE: ">=",
    _Kind.EQ: "=",
}
# RPG Sage's tests of a total in words, for keyboards without < and > (`1d20 gteq 11`), and its game shortcuts
# (`1d20+5 dc 15`: meets or beats). Read as a label they would silently test nothing.
_SAGE_TESTS: Final = {
    **{"eq": "=", "gt": ">", "gteq": ">=", "gte": ">=", "lt": "<", "lteq": "<=", "lte": "<="},
    **dict.fromkeys(("ac", "dc", "vs"), ">="),
}


_EXAMPLE: Final = re.compile(r"[({]?\d*d[\d%f]\S*", re.I)


def _names_a_roll(hint: str) -> bool:
    """Whether `hint` names a spelling that rolls: a word of it that parses, with dice in it."""
    for match in _EXAMPLE.finditer(hint):
        word = match.group().rstrip(".,;:")
        word = word[:-1] if word.endswith(")") and word.count(")") > word.count("(") else word
        try:
            _Parser(word, teach=False).parse()
        except DiceError:
            continue
        return True
    return False


def _condition_of(symbol: str, value: int, *, strict: bool) -> Condition:
    """An inclusive condition for `symbol value`; `strict` reads '<' and '>' as Avrae does (below, above)."""
    if symbol == "=":
        return Condition(Comparator.EQUAL, value)
    if symbol == "<=" or (symbol == "<" and not strict):
        return Condition(Comparator.AT_MOST, value)
    if symbol == ">=" or (symbol == ">" and not strict):
        return Condition(Comparator.AT_LEAST, value)
    if symbol == "<":
        return Condition(Comparator.AT_MOST, value - 1)
    return Condition(Comparator.AT_LEAST, value + 1)


@dataclass(frozen=True, slots=True)
class _Parsed:
    expression: Expression
    label: str | None
    notes: tuple[str, ...]


class _Parser:
    def __init__(self, text: str, *, teach: bool = True) -> None:
        self._teach = teach  # errors name a spelling that works; off while trying one out
        self._text = text
        self._tokens = _tokenize(text)
        self._index = 0
        self._dice_requested = 0
        self._dice_start = 0  # where the dice term being read starts
        self._powers = 0
        self._notes: dict[str, None] = {}  # ordered set

    def parse(self) -> _Parsed:
        rolls: list[Expression] = []
        label: str | None = None
        first, second = self._peek(), self._peek(1)
        if first.kind in (_Kind.SLASH, _Kind.BANG) and second.kind is _Kind.WORD and second.word in ("r", "roll"):
            # The command itself pasted in from habit: Roll20's "/r 1d20", Avrae's "!r 1d20".
            self._index = 2
            self._note(f"{self._text[first.start : second.end]} at the start is set aside: /roll is the command.")
        leading = self._leading_label()
        while True:
            node, label = self._roll()
            rolls.append(node)
            if label is not None or self._peek().kind is not _Kind.SEMI:
                break
            self._advance()
            if self._peek().kind is _Kind.END:
                break  # a trailing ';' is harmless
            if len(rolls) >= MAX_ROLLS_AT_ONCE:
                raise DiceLimitError(f"Too many rolls at once: the limit is {MAX_ROLLS_AT_ONCE} rolls separated by ;.")
        token = self._peek()
        if label is None and token.kind is not _Kind.END:
            self._fail(token, _EXPECT_OPERATOR)
        if leading is not None:
            label = leading if label is None else f"{leading} {label}"
        if self._dice_requested > MAX_DICE:
            raise DiceLimitError(f"Too many dice: {self._dice_requested} requested, the limit is {MAX_DICE} per roll.")
        expression = rolls[0] if len(rolls) == 1 else Several(tuple(rolls))
        return _Parsed(expression, label, tuple(self._notes))

    def _note(self, text: str) -> None:
        self._notes[text] = None

    def _leading_label(self) -> str | None:
        """A label in parentheses before the roll, `(Fire Bolt) 8d6`: words, not dice; the roll follows it."""
        token = self._peek()
        if token.kind is not _Kind.LPAREN:
            return None
        close = self._text.find(")", token.start)
        inside = self._text[token.start + 1 : close] if close > 0 else ""
        text = inside.strip()
        if not text or "(" in inside or not text[0].isalpha() or _DICE_START.match(text):
            return None
        if text.split()[0].lower() in _FUNCTIONS:
            return None
        rest = _tokenize(" " * (close + 1) + self._text[close + 1 :])
        if len(rest) == 1:
            hint = "Write the roll after the label, like (Fire Bolt) 8d6."
            raise DiceSyntaxError(self._text, len(self._text.rstrip()), "Nothing to roll after the label", hint)
        self._tokens = self._tokens[: self._index] + rest
        return text

    # -- token helpers

    def _peek(self, ahead: int = 0) -> _Token:
        return self._tokens[min(self._index + ahead, len(self._tokens) - 1)]

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
        if token.kind is _Kind.WORD and token.word in _OTHER_SPELLINGS:
            hint = _OTHER_SPELLINGS[token.word]
        elif token.kind is _Kind.WORD and token.word in _ALIAS_REFUSALS:
            hint = _ALIAS_REFUSALS[token.word]
        elif hint == _EXPECT_OPERATOR:
            hint = self._after_roll_hint(token)
        if self._teach and hint is not None and not _names_a_roll(hint):
            example = self._repaired(token)
            if example is not None:
                hint = f"{hint} For example: {example}"
        raise DiceSyntaxError(self._text, token.start, f"Unexpected {self._describe(token)}", hint)

    def _after_roll_hint(self, token: _Token) -> str:
        """What fits where a roll could have ended, said for the character found there."""
        piece = self._text[token.start : token.end]
        before = self._tokens[self._tokens.index(token) - 1] if token in self._tokens[1:] else None
        if token.kind is _Kind.POWER:
            return "A power is taken once, of a term: write 2d6**2, or (1d4)**2 for the power of a single die."
        if piece == ",":
            return (
                "Separate rolls with ;, like 1d6; 1d8, or put them in a group that keeps the best, like {1d6, 1d8}kh1."
            )
        if piece == ".":
            return "Numbers are whole here: halve a roll with /, like 1d6/2 (it rounds down)."
        if piece == ")":
            return "This ')' closes no '('."
        if token.kind is _Kind.WORD and re.fullmatch(r"(rr|ro|ra|e|mi|ma)[lh]", token.word):
            return (
                f"Avrae's {token.word[-1]} selector chooses dice by rank for k and p here (4d6kh3, 4d6pl1); for "
                f"{token.word[:-1]}, name the faces, like 4d6ro<2."
            )
        if token.kind is _Kind.WORD and not token.spaced and before is not None:
            if before.kind is _Kind.INT and (before.start == 0 or self._text[before.start - 1] in " +-*/(;"):
                return "A letter right after a number: write dice as NdM, like 1d6, and numbers in digits."
            return (
                f"'{piece}' is no modifier here. After the dice: kh3, kl1, dh1, dl1 (4d6kh3), r1, ro1, !, mi2, "
                "ma5, t7 (6d10t7)."
            )
        following = self._tokens[self._tokens.index(token) + 1] if token.kind is _Kind.INT else None
        if following is not None and token.spaced and following.kind is _Kind.WORD and following.word in ("d", "df"):
            return "Join dice with +, like 1d6 + 1d8, or make several rolls with ;, like 1d6; 1d8."
        return (
            "Text after the roll is its label when it starts with a word after a space, like 1d20+5 Stealth; "
            "or use the label: option."
        )

    def _repaired(self, token: _Token) -> str | None:
        """The text made to read by the smallest change at `token`, or None when no such change reads.

        A number or a die where one is missing, a closing bracket at the end, a comma between a set's items, or a
        stray character taken out.
        """
        at = token.start
        previous = self._text[:at].rstrip()
        candidates: list[str] = []
        if token.kind in (_Kind.END, _Kind.BAD, _Kind.RBRACE, _Kind.RPAREN):
            number = "6" if previous.lower().endswith("d") else "1" if previous[-1:].isalpha() else "5"
            dice = self._text[:at] + "1d6" + self._text[at:]
            number_added = self._text[:at].rstrip() + number + self._text[at:]
            wants_number = previous[-1:].isalpha() or previous[-1:] in "<>="
            candidates.extend([number_added, dice] if wants_number else [dice, number_added])
        if token.kind is _Kind.END:
            candidates.extend(self._text + closing for closing in (")", "}"))
        if token.kind in (_Kind.INT, _Kind.WORD, _Kind.LBRACE, _Kind.LPAREN) and token.spaced:
            candidates.append(self._text[:at].rstrip() + ", " + self._text[at:])
        if token.kind in (_Kind.RPAREN, _Kind.STAR, _Kind.SLASH, _Kind.PLUS, _Kind.COMMA) or (
            token.kind is _Kind.WORD and previous[-len(token.word) :].lower() == token.word
        ):
            candidates.append(self._text[:at] + self._text[token.end :])
        for candidate in candidates:
            try:
                _Parser(candidate, teach=False).parse()
            except DiceError:
                continue
            return candidate
        return None

    def _literal(self, token: _Token) -> int:
        if token.value > MAX_LITERAL:
            raise DiceLimitError(f"Number too large: {token.value}, the limit is {MAX_LITERAL}.")
        return token.value

    def _int(self, what: str) -> int:
        token = self._peek()
        if token.kind is not _Kind.INT:
            self._fail(token, f"Expected {what}.")
        self._advance()
        return self._literal(token)

    def _is_comment(self, token: _Token) -> bool:
        """Dice Maiden's `4d6 ! comment`: a '!' after a space, followed by words rather than an explode condition."""
        if token.kind is not _Kind.BANG or not token.spaced:
            return False
        after = self._peek(1) if self._peek() is token else self._tokens[self._tokens.index(token) + 1]
        if after.kind is _Kind.BAD:
            return self._text[after.start].isalpha()
        return after.kind is _Kind.WORD and after.word != "p"

    # -- one roll, with its repeat count, advantage word and label

    def _roll(self) -> tuple[Expression, str | None]:
        start_dice = self._dice_requested
        times = self._repeat_count()
        node = self._signed_d20() or self._expr()
        label: str | None = None
        while True:
            token = self._peek()
            if token.kind is _Kind.WORD and token.word in ("adv", "dis"):
                self._advance()
                node = self._give_advantage(node, token)
                continue
            if token.spaced and (
                token.kind is _Kind.WORD or (token.kind is _Kind.BAD and self._text[token.start].isalpha())
            ):
                node, end = self._leading_phrases(node, token)
                if end is not None:
                    self._resume_at(end)
                    continue
                if token.kind is _Kind.WORD and token.word in _OTHER_SPELLINGS:
                    break
                label = self._text[token.start :].strip()
                node = self._label_phrases(node, token.start)
            elif self._is_comment(token):
                label = self._text[token.end :].strip() or None  # Dice Maiden's "! comment"
                if label is None:
                    self._fail(token, "Write the comment after the '!', or use the label: option.")
            break
        if times is not None:
            self._dice_requested += (times - 1) * (self._dice_requested - start_dice)
            node = Repeat(times, node)
        return node, label

    # -- dice operations named in words after the roll

    def _leading_phrases(self, node: Expression, token: _Token) -> tuple[Expression, int | None]:
        """Read the operations named right after the roll; return the roll and where the words stop, if any."""
        words = _split_words(self._text, token.start)
        reader = _WordReader(words, self._text)
        end: int | None = None
        while reader.at < len(words):
            try:
                phrase = reader.phrase(leading=True)
            except _Refusal as refusal:
                raise DiceSyntaxError(self._text, refusal.position, refusal.reason, refusal.hint) from None
            if phrase is None:
                break
            node = self._apply_phrase(node, phrase)
            end = phrase.end
            if reader.at < len(words) and words[reader.at].text in (",", ":", "and", "then"):
                end = words[reader.at].end
                reader.at += 1
        return node, end

    def _label_phrases(self, node: Expression, start: int) -> Expression:
        """Read the whole phrases inside a label (`1d20+5 Stealth with advantage`); the label stays as typed."""
        words = _split_words(self._text, start)
        reader = _WordReader(words, self._text)
        while reader.at < len(words):
            phrase = reader.phrase(leading=False)
            if phrase is None:
                reader.at += 1
            else:
                node = self._apply_phrase(node, phrase)
        return node

    def _resume_at(self, position: int) -> None:
        """Tokenize the text again from `position`, after words read as operations (they do not tokenize)."""
        rest = _tokenize(" " * position + self._text[position:])
        if len(rest) == 1:
            end = len(self._text.rstrip())
            rest = [_Token(_Kind.END, end, end, spaced=True)]
        self._tokens = self._tokens[: self._index] + rest
        after = self._peek()
        if after.kind in (_Kind.PLUS, _Kind.MINUS, _Kind.STAR, _Kind.SLASH, _Kind.DSLASH, _Kind.PERCENT):
            self._fail(
                after,
                "Words that name an operation come after the whole roll; or write the modifier right after its "
                "dice, like 4d6dl1 + 2.",
            )

    def _apply_phrase(self, node: Expression, phrase: _Phrase) -> Expression:
        """The roll with the operation `phrase` names applied to its dice; the notes say how it was read."""
        change = phrase.change
        if isinstance(change, Advantage):
            return self._advantage_in_words(node, phrase, change)
        if isinstance(change, Keep | Reroll):
            modifier = str(change)
        else:
            modifier = str(change.mode) + ("" if change.condition is None else str(change.condition))
        terms = _dice_terms(node)
        if len(terms) != 1:
            reason = f"No dice for '{phrase.typed}'" if not terms else f"'{phrase.typed}' could be for any of the dice"
            raise DiceSyntaxError(
                self._text,
                phrase.start,
                reason,
                f"Write {modifier} right after the dice it is for, like 4d6{modifier} + 1d8.",
            )
        term = terms[0]
        if isinstance(change, Keep):
            if term.effective_keep is not None:
                self._refuse_twice(phrase, term, "keep or drop")
            changed = replace(term, keep=change)
            meaning = {
                KeepMode.KEEP_HIGHEST: "keep the highest",
                KeepMode.KEEP_LOWEST: "keep the lowest",
                KeepMode.DROP_HIGHEST: "drop the highest",
                KeepMode.DROP_LOWEST: "drop the lowest",
            }[change.mode] + f" {change.amount}"
        elif isinstance(change, Reroll):
            if term.reroll is not None:
                self._refuse_twice(phrase, term, "reroll")
            changed = replace(term, reroll=change)
            showing = " or ".join(_face_words(condition) for condition in change.conditions)
            meaning = (
                f"a die showing {showing} is rerolled once"
                if change.once
                else f"a die showing {showing} is rerolled until it shows something else, as Roll20's r "
                "(add once to reroll only once)"
            )
        else:
            if term.explode is not None:
                self._refuse_twice(phrase, term, "explode")
            condition = change.condition or Condition(Comparator.EQUAL, term.faces[1])
            changed = replace(term, explode=condition, explode_mode=change.mode)
            modifier = str(change.mode) + ("" if change.condition is None else str(condition))
            meaning = (
                f"a die showing {_face_words(condition)} "
                + {
                    ExplodeMode.EXPLODE: "adds another die, which may explode too",
                    ExplodeMode.COMPOUND: "adds another roll into itself, which may compound too",
                    ExplodeMode.PENETRATE: "adds another die that counts one less, which may explode too",
                }[change.mode]
            )
        try:
            _check_dice(changed, str(changed))
        except DiceError as error:
            raise DiceSyntaxError(
                self._text, phrase.start, f"'{phrase.typed}' can't apply to {term}", error.message
            ) from None
        self._note(f"'{phrase.typed}' is read as {modifier}: {meaning}.")
        return _swap(node, term, changed)

    def _refuse_twice(self, phrase: _Phrase, term: Dice, what: str) -> NoReturn:
        raise DiceSyntaxError(
            self._text,
            phrase.start,
            f"{term} already has a {what}",
            f"Only one {what} is allowed per dice term: write the one you mean right after the dice.",
        )

    def _advantage_in_words(self, node: Expression, phrase: _Phrase, advantage: Advantage) -> Expression:
        terms = _dice_terms(node)
        word = str(advantage)
        higher = "higher" if advantage is Advantage.ADVANTAGE else "lower"
        pairs = [term for term in terms if term == Dice(2, 20)]
        if not any(term == Dice(1, 20) for term in terms) and len(terms) == 1 and pairs:
            # `2d20 with advantage`: the two d20 are there already; the higher (lower) counts.
            keep = Keep(KeepMode.KEEP_HIGHEST if advantage is Advantage.ADVANTAGE else KeepMode.KEEP_LOWEST, 1)
            self._note(f"'{phrase.typed}' is read as {keep}: of the two d20, the {higher} counts.")
            return _swap(node, pairs[0], replace(pairs[0], keep=keep))
        node = self._give_advantage(node, _Token(_Kind.WORD, phrase.start, phrase.end, word=word))
        self._note(f"'{phrase.typed}' is read as {word}: a second d20 is rolled, the {higher} counts.")
        return node

    def _repeat_count(self) -> int | None:
        first, second = self._peek(), self._peek(1)
        # "6 4d6k3" repeats; "6 d20" stays 6d20, since whitespace between a count and its d never mattered.
        starts_operand = second.kind in (_Kind.INT, _Kind.LPAREN, _Kind.LBRACE)
        if first.kind is not _Kind.INT or not second.spaced or not starts_operand:
            return None
        if not self._has_dice_ahead():
            return None
        self._advance()
        if not 1 <= first.value <= MAX_REPEAT:
            raise DiceLimitError(f"Can't repeat a roll {first.value} times: repeat it 1 to {MAX_REPEAT} times.")
        return first.value

    def _has_dice_ahead(self) -> bool:
        """Whether a 'd' comes before the next ';' (so that "6 4d6" repeats and "1 2" is an error)."""
        for token in self._tokens[self._index + 1 :]:
            if token.kind in (_Kind.SEMI, _Kind.END):
                return False
            if token.kind is _Kind.WORD and token.word in ("d", "df"):
                return True
        return False

    def _give_advantage(self, node: Expression, token: _Token) -> Expression:
        advantage = Advantage.ADVANTAGE if token.word == "adv" else Advantage.DISADVANTAGE
        found: list[Dice] = []

        def visit(current: Expression) -> Expression:
            match current:
                case Dice():
                    if current.count == 1 and current.sides == 20 and current == Dice(1, 20):
                        found.append(current)
                        return replace(current, advantage=advantage)
                    return current
                case Negate():
                    return Negate(visit(current.operand))
                case BinaryOp():
                    return BinaryOp(current.op, visit(current.left), visit(current.right))
                case Group():
                    return replace(current, inner=visit(current.inner))
                case Annotated():
                    return Annotated(visit(current.inner), current.note)
                case DiceSet():
                    return replace(current, items=tuple(visit(item) for item in current.items))
                case _:
                    return current

        changed = visit(node)
        if len(found) != 1:
            raise DiceSyntaxError(
                self._text,
                token.start,
                f"Nothing for '{token.word}' to apply to",
                f"{token.word} applies to exactly one plain d20 in the roll (like 1d20+5 {token.word}); "
                f"this roll has {len(found)}.",
            )
        self._dice_requested += 1
        return changed

    # -- grammar

    def _expr(self) -> Expression:
        node = self._sum()
        token = self._peek()
        sage = token.kind is _Kind.WORD and token.spaced and token.word in _SAGE_TESTS
        if sage and self._peek(1).kind is _Kind.INT and self._peek(1).spaced:
            self._advance()
            symbol = _SAGE_TESTS[token.word]
            op = Operator("==" if symbol == "=" else symbol)
            strict = " (strictly)" if symbol in "<>" else ""
            self._note(f"{token.word} tests the total as in RPG Sage ({op}): 1 when it holds{strict}, 0 when not.")
            return BinaryOp(op, node, self._sum())
        if token.kind in _COMPARATOR_KINDS:
            # Avrae's comparison of two totals (a comparison right after dice counts them, as in Roll20).
            self._advance()
            symbol = _COMPARATOR_KINDS[token.kind]
            op = Operator("==" if symbol == "=" else symbol)
            strict = " (strictly)" if symbol in "<>" else ""
            self._note(f"{op} compares the two totals, as in Avrae: 1 when it holds{strict}, 0 when not.")
            node = BinaryOp(op, node, self._sum())
        return node

    def _sum(self) -> Expression:
        node = self._term()
        while (kind := self._peek().kind) in (_Kind.PLUS, _Kind.MINUS):
            self._advance()
            op = Operator.ADD if kind is _Kind.PLUS else Operator.SUBTRACT
            node = BinaryOp(op, node, self._term())
        return node

    def _term(self) -> Expression:
        node = self._unary()
        while (kind := self._peek().kind) in (_Kind.STAR, _Kind.SLASH, _Kind.DSLASH, _Kind.PERCENT):
            self._advance()
            if kind is _Kind.STAR:
                node = BinaryOp(Operator.MULTIPLY, node, self._unary())
            elif kind is _Kind.PERCENT:
                node = BinaryOp(Operator.MODULO, node, self._unary())  # Avrae's remainder, `1d100 % 10`
            else:
                self._note("/ rounds down, as Avrae and Dice Maiden do.")
                node = BinaryOp(Operator.DIVIDE, node, self._unary())
        return node

    def _signed_d20(self) -> Expression | None:
        """Dice Maiden's `+d20` / `-d20` opening a roll: a d20 with advantage / disadvantage, then the rest."""
        sign, d_token, sides = self._peek(), self._peek(1), self._peek(2)
        if not (
            sign.kind in (_Kind.PLUS, _Kind.MINUS)
            and d_token.kind is _Kind.WORD
            and d_token.word == "d"
            and not d_token.spaced
            and sides.kind in (_Kind.INT, _Kind.PERCENT)
            and not sides.spaced
            and self._peek(3).kind in (_Kind.PLUS, _Kind.MINUS, _Kind.SEMI, _Kind.END, _Kind.WORD)
        ):
            return None
        if self._peek(3).kind is _Kind.WORD and not self._peek(3).spaced:
            return None  # a modifier follows (-d20kh1): plain arithmetic
        written = self._text[sign.start : sides.end]
        node: Expression
        if sign.kind is _Kind.MINUS and not (sides.kind is _Kind.INT and sides.value == 20):
            # Roll20 and Avrae subtract the die: two against Dice Maiden's disadvantage.
            size = "d%" if sides.kind is _Kind.PERCENT else f"d{sides.value}"
            kept = "((2d10kh1-1)*10)+1d10" if sides.kind is _Kind.PERCENT else f"2{size}kl1"
            self._note(
                f"{written} opening a roll subtracts a {size}, as in Roll20 and Avrae (Dice Maiden's "
                f"disadvantage: write {kept})."
            )
            return None
        if sides.kind is _Kind.INT and sides.value == 20:
            advantage = Advantage.ADVANTAGE if sign.kind is _Kind.PLUS else Advantage.DISADVANTAGE
            self._note(f"{written} opening a roll is Dice Maiden's {advantage}.")
            self._dice_requested += 2
            node = Dice(1, 20, advantage=advantage)
        elif sides.kind is _Kind.PERCENT:
            # Dice Maiden's roll-under percentile: two tens dice, the lower (higher) counts, and a ones die.
            node = self._expansion("((2d10kl1-1)*10)+1d10", written, "advantage on a roll-under percentile")
        else:
            node = self._expansion(f"2d{sides.value}kh1", written, "advantage")
        self._index += 3
        while (kind := self._peek().kind) in (_Kind.PLUS, _Kind.MINUS):
            self._advance()
            op = Operator.ADD if kind is _Kind.PLUS else Operator.SUBTRACT
            node = BinaryOp(op, node, self._term())
        return node

    def _expansion(self, text: str, written: str, name: str) -> Expression:
        """Dice Maiden's alias `written` read as the notation `text` it stands for; the notes say so."""
        inner = _Parser(text, teach=False)
        node = inner._expr()
        if inner._peek().kind is not _Kind.END:
            inner._fail(inner._peek())
        _check_alias(node, written)
        self._dice_requested += inner._dice_requested
        self._notes.update(dict.fromkeys(note for note in inner._notes if not note.startswith(("/", "r ", "k"))))
        self._note(f"{written} is Dice Maiden's {name}: {text}.")
        return node

    def _alias(self, token: _Token) -> Expression | None:
        """A Dice Maiden system alias starting at `token` (`4wod8`, `dd34`, `sr6`), read as what it stands for."""
        for pattern, expand, name in _ALIASES:
            found = pattern.match(self._text, token.start)
            if found is None:
                continue
            end = found.end()
            ahead = 0
            while self._peek(ahead).kind is not _Kind.END and self._peek(ahead).end <= end:
                ahead += 1
            if self._peek(ahead - 1).end != end:
                continue  # the alias ends inside a token: not this one
            node = self._expansion(expand(found), found.group(), name)
            self._index += ahead
            return Group(node)
        return None

    def _unary(self) -> Expression:
        # A loop rather than recursion: 199 minus signs fit in the length limit.
        negations = 0
        while (kind := self._peek().kind) in (_Kind.MINUS, _Kind.PLUS):
            self._advance()
            negations += kind is _Kind.MINUS
        node = self._atom()
        if (caret := self._peek()).kind is _Kind.CARET:
            amount = self._peek(1).value if self._peek(1).kind is _Kind.INT else 3
            raise DiceSyntaxError(
                self._text,
                caret.start,
                "'^' reads two ways",
                f"python-dice keeps the highest dice with it, others raise to a power: write kh{amount} to keep "
                f"the highest {amount}, like 6d6kh{amount}, or ** for a power, like (1d4)**2.",
            )
        if (power := self._peek()).kind is _Kind.POWER:
            self._advance()
            exponent = self._peek()
            after = self._peek(1)
            self._powers += 1
            if self._powers > 1:
                raise DiceSyntaxError(
                    self._text,
                    power.start,
                    "A second power",
                    "One power per roll, its exponent a number: a power of a power grows past any dice. Like (1d4)**2.",
                )
            dice_exponent = after.kind is _Kind.WORD and after.word in ("d", "df") and not after.spaced
            if exponent.kind is not _Kind.INT or exponent.value > MAX_EXPONENT or dice_exponent:
                raise DiceSyntaxError(
                    self._text,
                    exponent.start,
                    f"A power of {self._describe(exponent)}",
                    f"The exponent is a number from 0 to {MAX_EXPONENT}, like (1d4)**2.",
                )
            self._advance()
            self._note("** raises to a power, as in Roll20.")
            node = BinaryOp(Operator.POWER, node, Number(exponent.value))
        for _ in range(negations):
            node = Negate(node)
        return node

    def _atom(self) -> Expression:
        node = self._bare_atom()
        token = self._peek()
        if token.kind is _Kind.NOTE:
            self._advance()
            note = token.word
            if not note or len(note) > MAX_ANNOTATION or not all(c.isalnum() or c in " -_'" for c in note):
                raise DiceSyntaxError(
                    self._text,
                    token.start,
                    "Unusable note in brackets",
                    f"A note like [fire] takes 1 to {MAX_ANNOTATION} letters, digits, spaces, - or _.",
                )
            node = Annotated(node, note)
        return node

    def _bare_atom(self) -> Expression:
        token = self._peek()
        if token.kind in (_Kind.INT, _Kind.WORD) and (alias := self._alias(token)) is not None:
            return alias
        if token.kind is _Kind.INT:
            self._advance()
            after = self._peek()
            if after.kind is _Kind.WORD and after.word in ("d", "df"):
                return self._dice(token)
            return Number(self._literal(token))
        if token.kind is _Kind.WORD and token.word in ("d", "df"):
            return self._dice(None)
        if token.kind is _Kind.WORD and token.word in _FUNCTIONS and self._peek(1).kind is _Kind.LPAREN:
            return self._function(token)
        if token.kind is _Kind.LPAREN:
            self._advance()
            inner = self._expr()
            if self._peek().kind is _Kind.COMMA:
                return self._set([inner], token, _Kind.RPAREN)
            closing = self._peek()
            if closing.kind is not _Kind.RPAREN:
                self._fail(closing, f"Expected +, -, *, / or ')' to close the '(' at character {token.start + 1}.")
            self._advance()
            return Group(inner)
        if token.kind is _Kind.LBRACE:
            self._advance()
            return self._set([self._expr()], token, _Kind.RBRACE)
        if token.kind is _Kind.WORD and self._peek(1).kind is _Kind.LPAREN:
            self._fail(token, "The functions here are abs(...) and floor(...), like abs(1d6-1d8).")
        if token.kind is _Kind.NOTE:
            self._fail(
                token, "A note in brackets follows its term, like 1d8[fire]; Roll20's inline roll is [[1d20+5]]."
            )
        self._fail(token, _EXPECT_OPERAND)

    def _function(self, name: _Token) -> Group:
        """Roll20's `abs(...)` and `floor(...)`: one expression in parentheses, its total taken by the function."""
        self._advance()
        opening = self._advance()
        inner = self._expr()
        closing = self._peek()
        if closing.kind is not _Kind.RPAREN:
            self._fail(closing, f"Expected +, -, *, / or ')' to close the '(' at character {opening.start + 1}.")
        self._advance()
        if name.word == "floor":
            self._note("floor(...) changes nothing here: every total is a whole number, and / already rounds down.")
        return Group(inner, name.word)

    def _set(self, items: list[Expression], opening: _Token, closing_kind: _Kind) -> DiceSet:
        while self._peek().kind is _Kind.COMMA:
            self._advance()
            if self._peek().kind is closing_kind:
                break  # Avrae's one-item set `(1d6,)`
            items.append(self._expr())
        closing = self._peek()
        if closing.kind is not closing_kind:
            bracket = ")" if closing_kind is _Kind.RPAREN else "}"
            self._fail(closing, f"Expected ',' or '{bracket}' to close the set at character {opening.start + 1}.")
        self._advance()
        keep: Keep | None = None
        token = self._peek()
        if token.kind is _Kind.WORD and token.word in _KEEP_WORDS:
            self._advance()
            keep = self._keep(token, of_set=True)
            if keep.matching is not None:
                self._fail(token, "A set keeps or drops its highest or lowest totals: kh1, kl1, dh1, dl1.")
            if keep.amount == 0:
                raise DiceError(f"Can't keep or drop 0 items of {self._text[opening.start : token.end + 1]}.")
        pool = closing_kind is _Kind.RBRACE and len(items) == 1 and keep is not None
        if pool:
            assert keep is not None
            if any(isinstance(part, DiceSet) for part in _parts(items[0])):
                raise DiceSyntaxError(
                    self._text,
                    opening.start,
                    "A group inside a group that keeps dice",
                    "A group of one roll keeps among its dice, like {4d6+3d8}k4: write the inner group apart.",
                )
            mode = {
                KeepMode.KEEP_HIGHEST: "keeps the highest",
                KeepMode.KEEP_LOWEST: "keeps the lowest",
                KeepMode.DROP_HIGHEST: "drops the highest",
                KeepMode.DROP_LOWEST: "drops the lowest",
            }[keep.mode]
            written = self._text[opening.start : self._tokens[self._index - 1].end]
            self._note(
                f"{written} {mode} {keep.amount} of all the group's dice, as in Roll20 (a group of several rolls, "
                "with commas, keeps among their totals)."
            )
        success: Condition | None = None
        token = self._peek()
        if token.kind in _COMPARATOR_KINDS:
            success = self._condition(default=None, strict=False)
        return DiceSet(tuple(items), keep, success, pool)

    def _keep(self, token: _Token, *, of_set: bool = False) -> Keep:
        word = token.word
        nxt = self._peek()
        if word in ("k", "p") and nxt.kind in _COMPARATOR_KINDS:
            self._advance()
            value = self._int(f"a number after '{self._text[nxt.start : nxt.end]}'")
            symbol = _COMPARATOR_KINDS[nxt.kind]
            if symbol in "<>":
                self._note(f"{word}{symbol}{value} reads {symbol} strictly, as Avrae does.")
            mode = KeepMode.KEEP_MATCHING if word == "k" else KeepMode.DROP_MATCHING
            return Keep(mode, 0, _condition_of(symbol, value, strict=True))
        if word == "p":
            if nxt.kind is not _Kind.INT:
                self._fail(
                    nxt,
                    "Expected ph N, pl N or the faces to drop, like p1 or p<3. "
                    "For Dice Maiden's private roll, use the private:true option.",
                )
            return Keep(KeepMode.DROP_MATCHING, 0, Condition(Comparator.EQUAL, self._int("a number")))
        amount = 1
        if nxt.kind is _Kind.INT:
            amount = self._int("a number")
        if of_set:
            pass  # a set's keep chooses totals or (Roll20's group of one roll) dice: `_set` notes which
        elif word == "k":
            self._note(
                f"k{amount} keeps the highest {amount}, as in Roll20 and Dice Maiden "
                f"(Avrae's k{amount} keeps dice showing {amount}: write k={amount})."
            )
        elif word == "d":
            self._note(f"d{amount} after the dice drops the lowest {amount}, as in Roll20 and Dice Maiden.")
        return Keep(_KEEP_WORDS[word], amount)

    def _dice(self, count_token: _Token | None) -> Dice:
        d_token = self._advance()
        start = d_token.start if count_token is None else count_token.start
        self._dice_start = start
        count = 1 if count_token is None else count_token.value  # _check_dice names the dice limit
        fields: dict[str, Any] = {}
        if d_token.word == "df":
            sides = FUDGE_SIDES
            fields["fudge"] = True
        else:
            sides_token = self._peek()
            if sides_token.kind is _Kind.PERCENT:
                sides = 100
            elif sides_token.kind is _Kind.INT:
                sides = sides_token.value
            elif sides_token.kind is _Kind.WORD and sides_token.word.startswith("f"):
                self._fail(sides_token, "Fudge dice are written dF, like 4dF.")
            else:
                self._fail(sides_token, "Expected the number of sides, like d6, d% or dF.")
            self._advance()
        while True:
            token = self._peek()
            kind = token.kind
            is_word = kind is _Kind.WORD and token.word in _MODIFIER_WORDS
            if not (is_word or kind in _COMPARATOR_KINDS or (kind is _Kind.BANG and not self._is_comment(token))):
                break
            if "advantage" in fields:
                self._fail(token, "adv/dis can't be combined with other modifiers.")
            self._advance()
            self._modifier(token, fields, sides)
        written = self._text[start : self._tokens[self._index - 1].end]
        node = Dice(count, sides, **fields)
        try:
            _check_dice(node, written)
        except DiceLimitError:
            raise
        except DiceError as error:  # well formed, but it can't be rolled: the caret goes under the term
            reason, _, hint = error.message.rstrip(".").partition(". ")
            raise DiceSyntaxError(self._text, start, reason, hint + "." if hint else None) from None
        self._dice_requested += node.rolled_count
        return node

    def _once(self, fields: dict[str, Any], name: str, token: _Token, what: str) -> None:
        if name in fields:
            kept = self._text[self._dice_start : token.start].strip()
            self._fail(token, f"Only one {what} is allowed per dice term: keep the one you mean, like {kept}.")

    def _modifier(self, token: _Token, fields: dict[str, Any], sides: int) -> None:
        word = token.word
        if token.kind is _Kind.BANG:
            self._once(fields, "explode", token, "explode (!, !!, !p, e)")
            mode = ExplodeMode.EXPLODE
            nxt = self._peek()
            if nxt.kind is _Kind.BANG and not nxt.spaced:
                self._advance()
                mode = ExplodeMode.COMPOUND
            elif nxt.kind is _Kind.WORD and nxt.word == "p" and not nxt.spaced:
                self._advance()
                mode = ExplodeMode.PENETRATE
            fields["explode_mode"] = mode
            fields["explode"] = self._condition(default=sides, strict=False)
        elif token.kind in _COMPARATOR_KINDS:
            self._once(fields, "success", token, "success target (t or a comparison)")
            value = self._int(f"a number after '{self._text[token.start : token.end]}'")
            symbol = _COMPARATOR_KINDS[token.kind]
            if symbol in "<>":
                self._note(
                    f"{symbol}{value} counts dice showing {value} or {'more' if symbol == '>' else 'less'}, "
                    "as Roll20 does."
                )
            fields["success"] = _condition_of(symbol, value, strict=False)
        elif word in _KEEP_WORDS or word == "p":
            self._once(fields, "keep", token, "keep or drop (k, kh, kl, d, dh, dl, p)")
            fields["keep"] = self._keep(token)
        elif word in _EXPLODE_WORDS:
            self._once(fields, "explode", token, "explode (!, !!, !p, e)")
            if word == "e":
                self._note("e explodes again on every matching die, as in Avrae (Dice Maiden's e explodes once).")
            bare = self._peek().kind is not _Kind.INT and self._peek().kind not in _COMPARATOR_KINDS
            condition = self._condition(default=sides, strict=word == "e")
            written = self._text[token.start : self._tokens[self._index - 1].end]
            if word in ("ie", "x") and condition.comparator is Comparator.EQUAL and not bare:
                condition = Condition(Comparator.AT_LEAST, condition.value)  # Dice Maiden: ie8 explodes on 8 or more
            if word == "x":
                fields["explode_mode"] = ExplodeMode.EXPLODE
                where = "on the top face" if bare else f"on {_face_words(condition)}"
                self._note(f"{written} explodes {where}, as ! does: RPG Sage's and python-dice's spelling.")
            fields["explode"] = condition
        elif word in _REROLL_WORDS:
            once, add = word in ("ro", "ra", "rg"), word == "ra"
            earlier: Reroll | None = fields.get("reroll")
            if earlier is not None and (earlier.once, earlier.add) != (once, add):
                self._fail(token, "Only one kind of reroll (r, ro or ra) is allowed per dice term.")
            nxt = self._peek()
            if word in ("r", "ro") and nxt.kind is not _Kind.INT and nxt.kind not in _COMPARATOR_KINDS:
                # Roll20's bare r: reroll 1s.
                condition = Condition(Comparator.EQUAL, 1)
                self._note(f"A bare {word} rerolls 1s, as in Roll20 ({word}1).")
            else:
                condition = self._condition(default=None, strict=word in ("rr", "ra"))
            if word == "ir" and condition.comparator is Comparator.EQUAL:
                condition = Condition(Comparator.AT_MOST, condition.value)  # Dice Maiden: ir2 rerolls 2 or less
            if word in ("rg", "irg") and condition.comparator is Comparator.EQUAL:
                # Dice Maiden: rg5 rerolls 5 or more once, irg5 until the die shows less.
                condition = Condition(Comparator.AT_LEAST, condition.value)
                self._note(
                    f"{word}{condition.value} rerolls {condition.value} or more {'once' if once else 'until it stops'}"
                    ", as in Dice Maiden."
                )
            if word == "r":
                self._note("r rerolls until the die stops matching, as in Roll20 (Dice Maiden's r rerolls once: ro).")
            if earlier is not None:
                fields["reroll"] = replace(earlier, more=(*earlier.more, condition))
            else:
                fields["reroll"] = Reroll(condition, once=once, add=add)
        elif word in ("mi", "ma"):
            name = "minimum" if word == "mi" else "maximum"
            self._once(fields, name, token, word)
            fields[name] = self._int(f"the {name} face after {word}, like {word}2")
        elif word == "tl":
            self._once(fields, "success", token, "success target (t or a comparison)")
            value = self._int("the target after tl, like tl6")
            self._note(f"tl{value} counts dice showing {value} or less, as in Dice Maiden.")
            fields["success"] = Condition(Comparator.AT_MOST, value)
        elif word == "t":
            self._once(fields, "success", token, "success target (t or a comparison)")
            nxt = self._peek()
            if nxt.kind in _COMPARATOR_KINDS:
                fields["success"] = self._condition(default=None, strict=False)
            else:
                fields["success"] = Condition(Comparator.AT_LEAST, self._int("the target after t, like t7"))
        elif word == "f":
            self._once(fields, "failure", token, "failure target (f)")
            if "success" not in fields:
                self._fail(token, "Failures count against successes: give the success target first, like 5d10t8f1.")
            fields["failure"] = self._condition(default=None, strict=False)
        elif word in _DISPLAY_WORDS:
            if word in ("cs", "cf"):
                self._condition(default=sides, strict=False)
                self._note(
                    f"{word} only changes how Roll20 highlights dice; the total is the same, so it is set aside."
                )
            else:
                self._note(f"Sorting ({word}) is set aside: the dice are shown in the order rolled.")
        else:  # adv, dis
            if fields:
                self._fail(token, "adv/dis can't be combined with other modifiers.")
            fields["advantage"] = Advantage.ADVANTAGE if word == "adv" else Advantage.DISADVANTAGE

    def _condition(self, default: int | None, *, strict: bool) -> Condition:
        token = self._peek()
        symbol = _COMPARATOR_KINDS.get(token.kind)
        if symbol is not None:
            self._advance()
            value = self._int(f"a number after '{symbol}'")
            if symbol in "<>" and not strict:
                more = "more" if symbol == ">" else "less"
                self._note(f"{symbol}{value} means {value} or {more}, as in Roll20.")
            return _condition_of(symbol, value, strict=strict)
        if token.kind is _Kind.INT:
            self._advance()
            return Condition(Comparator.EQUAL, self._literal(token))
        if default is None:
            word = self._tokens[self._index - 1].word or "r"
            self._fail(token, f"Expected the faces after {word}, like {word}1 or {word}<3.")
        return Condition(Comparator.EQUAL, default)


def _check_dice(node: Dice, written: str) -> None:
    """Refuse a dice term that is well formed but can't be rolled; `written` is the term as the user typed it."""
    if not node.fudge and not MIN_SIDES <= node.sides <= MAX_SIDES:
        raise DiceLimitError(f"Dice need between {MIN_SIDES} and {MAX_SIDES} sides; {written} asks for {node.sides}.")
    if node.count > MAX_DICE:
        raise DiceLimitError(f"Too many dice: {node.count} requested, the limit is {MAX_DICE} per roll.")
    if node.advantage is not None and (node.count != 1 or node.sides != 20):
        raise DiceError(f"adv/dis applies to a single d20 (like d20adv or 1d20 dis), not {written}.")
    if node.keep is not None and node.keep.matching is None and node.keep.amount == 0:
        raise DiceError(f"Can't keep or drop 0 dice in {written}: use at least 1.")
    if node.fudge and (node.explode is not None or node.reroll is not None):
        raise DiceError(f"Fudge dice can't explode or reroll in {written}: keep, drop and count them instead.")
    if node.minimum is not None and node.maximum is not None and node.minimum > node.maximum:
        raise DiceError(f"The minimum is above the maximum in {written}.")
    low_face, high_face = node.faces
    # Faces a die can finally show once a full reroll (r, not ro) has had its way.
    settled = [(low_face, high_face)]
    if node.reroll is not None and not node.reroll.once:
        settled = _outside(low_face, high_face, [c.face_range(low_face, high_face) for c in node.reroll.conditions])
        if not settled:
            hint = " Use ro to reroll only once."
            high = node.reroll.condition.face_range(low_face, high_face)[1]
            if "<" in written and "<=" not in written and "rr" not in written.lower() and not node.reroll.more:
                hint = f" Here r<{high} means {high} or less, as in Roll20: write r<{high - 1}, or Avrae's rr<{high}."
            raise DiceError(f"{written} would reroll forever: every face of a d{node.sides} matches.{hint}")
    if node.explode is not None:
        low, high = node.explode.face_range(low_face, high_face)
        if all(low <= lo and hi <= high for lo, hi in settled):
            where = "it can settle on" if settled != [(low_face, high_face)] else f"of a d{node.sides}"
            raise DiceError(f"{written} would explode forever: every face {where} explodes.")


def _face_words(condition: Condition) -> str:
    """A condition in words: `1`, `5 or more`, `2 or less`."""
    more = {Comparator.AT_LEAST: " or more", Comparator.AT_MOST: " or less"}.get(condition.comparator, "")
    return f"{condition.value}{more}"


def _dice_terms(node: Expression) -> list[Dice]:
    """Every dice term of one roll, left to right."""
    match node:
        case Dice():
            return [node]
        case Negate():
            return _dice_terms(node.operand)
        case BinaryOp():
            return _dice_terms(node.left) + _dice_terms(node.right)
        case Group() | Annotated():
            return _dice_terms(node.inner)
        case DiceSet():
            return [term for item in node.items for term in _dice_terms(item)]
        case _:
            return []


def _parts(node: Expression) -> list[Expression]:
    """`node` and every expression inside it."""
    match node:
        case Negate():
            return [node, *_parts(node.operand)]
        case BinaryOp():
            return [node, *_parts(node.left), *_parts(node.right)]
        case Group() | Annotated() | Repeat():
            return [node, *_parts(node.inner)]
        case DiceSet() | Several():
            return [node, *(part for item in node.items for part in _parts(item))]
        case _:
            return [node]


def _swap(node: Expression, old: Dice, new: Dice) -> Expression:
    """`node` with the dice term `old` (that very object) replaced by `new`."""
    match node:
        case Dice():
            return new if node is old else node
        case Negate():
            return Negate(_swap(node.operand, old, new))
        case BinaryOp():
            return BinaryOp(node.op, _swap(node.left, old, new), _swap(node.right, old, new))
        case Group():
            return replace(node, inner=_swap(node.inner, old, new))
        case Annotated():
            return Annotated(_swap(node.inner, old, new), node.note)
        case DiceSet():
            return replace(node, items=tuple(_swap(item, old, new) for item in node.items))
        case _:
            return node


def _outside(low: int, high: int, ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The intervals of low..high that none of `ranges` (inclusive, possibly empty) covers, in order."""
    left: list[tuple[int, int]] = []
    start = low
    for lo, hi in sorted(r for r in ranges if r[0] <= r[1]):
        if lo > start:
            left.append((start, lo - 1))
        start = max(start, hi + 1)
    if start <= high:
        left.append((start, high))
    return left


def _check_alias(node: Expression, written: str) -> None:
    """Refuse an alias whose numbers make no dice (`0wod8`, `dd01`), naming it."""
    for term in _dice_terms(node):
        if term.count == 0 or term.sides < 2:
            raise DiceError(f"{written} asks for no dice: give a pool of 1 or more and dice of 2 or more sides.")


def _alias_pattern(body: str) -> re.Pattern[str]:
    return re.compile(body + r"(?![a-z0-9])", re.I)


# Dice Maiden's system aliases (its dice_maiden_logic.rb `alias_input_map`), each read as the notation it stands
# for here. Dice Maiden's `r7` (reroll 7 or less, once) is `ro<=7`; its `ie` explodes again, as `!` does.
_ALIASES: Final[tuple[tuple[re.Pattern[str], Any, str], ...]] = (
    (_alias_pattern(r"(\d+)wod(\d+)"), lambda m: f"{m[1]}d10ie10t{m[2]}f1", "World of Darkness roll"),
    (_alias_pattern(r"(\d+)cod([89])?"), lambda m: f"{m[1]}d10ie{m[2] or 10}t8", "Chronicles of Darkness roll"),
    (_alias_pattern(r"(\d+)codr"), lambda m: f"{m[1]}d10ro<=7t8", "Chronicles of Darkness rote roll"),
    (_alias_pattern(r"dd(\d)(\d)"), lambda m: f"(1d{m[1]}*10)+1d{m[2]}", "double-digit roll"),
    (_alias_pattern(r"age"), lambda m: "2d6+1d6", "AGE system test"),
    (re.compile(r"(\d+)wh(\d+)\+", re.I), lambda m: f"{m[1]}d6t{m[2]}", "Warhammer pool"),
    (_alias_pattern(r"sr(\d+)"), lambda m: f"{m[1]}d6t5", "Shadowrun pool"),
    (_alias_pattern(r"sp(\d+)"), lambda m: f"{m[1]}d10ie10t8", "Storypath pool"),
    (_alias_pattern(r"(\d+)yz"), lambda m: f"{m[1]}d6t6", "Year Zero pool"),
    (_alias_pattern(r"snm(\d+)"), lambda m: f"{m[1]}d6ie6t4", "Sunsails: New Millennium pool"),
    (_alias_pattern(r"d6s(\d+)"), lambda m: f"{m[1]}d6+1d6ie", "D6 System roll with its wild die"),
    (_alias_pattern(r"d6s"), lambda m: "1d6ie", "D6 System wild die"),
)
_ALIAS_REFUSALS: Final = {
    "attack": "Dice Maiden's attack is a plain d20: write 1d20 and the bonus, like 1d20+5.",
    "skill": "Dice Maiden's skill is a plain d20: write 1d20 and the bonus, like 1d20+5.",
    "save": "Dice Maiden's save is a plain d20: write 1d20 and the bonus, like 1d20+5.",
    "dndstats": "Roll six ability scores with 6 4d6k3.",
    "ex": "Exalted's 10s that count twice are not supported: count successes with t7, like 6d10t7.",
    "ed": "Earthdawn steps are not supported: write the step's dice, like 2d6!.",
    "hsn": "Hero System damage is not supported: write the dice, like 5d6.",
    "hsk": "Hero System damage is not supported: write the dice, like 5d6.",
    "hsh": "Hero System to-hit is not supported: roll 3d6 under 11 plus your level, like 3d6.",
}


_INLINE: Final = re.compile(r"\[\[(.*?)\]\]")


# A text is parsed once: the command reads it for its odds before the dice, and the rules core rolls the same text
# again as the replay registry logs it (`bot.rules.replay.roll`). The tree is immutable, so both read one parse.
PARSES_KEPT: Final = 256


@functools.lru_cache(maxsize=PARSES_KEPT)
def _parse(text: str) -> _Parsed:
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise DiceLimitError(
            f"That expression is too long: {len(text)} characters, the limit is {MAX_EXPRESSION_LENGTH}."
        )
    if not text.strip():
        raise DiceError("There is nothing to roll: the expression is empty.")
    if text.lstrip().startswith("[[") and "]]" in text:
        # Roll20's inline roll `[[1d20+5]]`: the brackets become spaces, so that carets still line up.
        inline = _INLINE.sub(lambda match: "  " + match.group(1) + "  ", text)
        try:
            return _Parser(inline).parse()
        except DiceSyntaxError as error:
            raise DiceSyntaxError(text, error.position, error.reason, error.hint) from None
    return _Parser(text).parse()


def parse(text: str) -> Expression:
    """Parse a dice expression, checking every limit so that nothing is rolled for a refused expression.

    A label after the roll (`1d20+5 Roll for Initiative`) is read and left out of the tree; `roll` keeps it.

    Args:
        text: The expression as typed, at most `MAX_EXPRESSION_LENGTH` characters.

    Returns:
        The immutable expression tree; `str()` of it is the normalized text.

    Raises:
        DiceSyntaxError: The text does not follow the grammar.
        DiceLimitError: A limit is exceeded.
        DiceError: Anything else that can't be rolled (a reroll that never stops, ...).
    """
    return _parse(text).expression


# ------------------------------------------------------------------------------------------------- evaluator


class _Draft:
    """A die while its term is still being rolled; frozen `Die`s are made once everything is settled."""

    __slots__ = ("exploded", "extra", "face", "failure", "state", "success")

    def __init__(self, face: int, *, extra: bool) -> None:
        self.face = face
        self.state = DieState.KEPT
        self.exploded = False
        self.extra = extra
        self.success = False
        self.failure = False


class _Roller:
    def __init__(self, rng: DiceSource) -> None:
        self._rng = rng
        self._extra_rolls_left = MAX_EXTRA_ROLLS
        self.capped = False
        self.divided_by_zero = False

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
            return BinaryResult(node.op, left, right, self._arithmetic(node.op, left.total, right.total))
        if isinstance(node, Group):
            inner = self.evaluate(node.inner)
            return GroupResult(inner, node.apply(inner.total), node.function)
        if isinstance(node, Annotated):
            inner = self.evaluate(node.inner)
            return AnnotatedResult(inner, node.note, inner.total)
        if isinstance(node, DiceSet):
            return self._roll_set(node)
        if isinstance(node, Repeat):
            items = tuple(self.evaluate(node.inner) for _ in range(node.times))
            text = str(node.inner)
            return RollsResult(items, (text,) * node.times, sum(item.total for item in items))
        if isinstance(node, Several):
            items = tuple(self.evaluate(item) for item in node.items)
            return RollsResult(items, tuple(str(item) for item in node.items), sum(item.total for item in items))
        assert_never(node)

    def _arithmetic(self, op: Operator, left: int, right: int) -> int:
        value = op.apply(left, right)
        if value is None:
            self.divided_by_zero = True
            return 0
        return value

    def _roll_set(self, node: DiceSet) -> SetResult:
        items = tuple(self.evaluate(item) for item in node.items)
        kept = [True] * len(items)
        if node.pool:
            assert node.keep is not None
            items = (self._keep_among_dice(items[0], node.keep),)
        elif node.keep is not None:
            drafts = [_Draft(item.total, extra=False) for item in items]
            _apply_keep(drafts, node.keep)
            kept = [draft.state is DieState.KEPT for draft in drafts]
        chosen = [item.total for item, keep in zip(items, kept, strict=True) if keep]
        success = node.success
        total = sum(chosen) if success is None else sum(success.matches(value) for value in chosen)
        return SetResult(node, items, tuple(kept), total)

    def _keep_among_dice(self, item: ResultNode, keep: Keep) -> ResultNode:
        """Roll20's `{4d6+3d8}k4`: the keep chooses among every counted die of the roll; the roll is totalled anew.

        A dropped die no longer counts, neither its face nor as a success; ties go to the earlier die.
        """
        rolled = _dice_results(item)
        drafts: list[_Draft] = []
        places: list[tuple[int, int]] = []
        for which, result in enumerate(rolled):
            for index, die in enumerate(result.dice):
                if die.state is DieState.KEPT:
                    drafts.append(_Draft(die.face, extra=die.extra))
                    places.append((which, index))
        _apply_keep(drafts, keep)
        dropped = {place for place, draft in zip(places, drafts, strict=True) if draft.state is DieState.DROPPED}
        changed: dict[int, DiceResult] = {}
        for which, result in enumerate(rolled):
            dice = tuple(
                Die(die.face, DieState.DROPPED, die.exploded, die.extra) if (which, index) in dropped else die
                for index, die in enumerate(result.dice)
            )
            live = [die for die in dice if die.state is DieState.KEPT]
            if result.term.success is not None:
                total = sum(die.success for die in live) - sum(die.failure for die in live)
            else:
                total = sum(die.face for die in live)
            changed[id(result)] = replace(result, dice=dice, total=total)
        self.divided_by_zero = False  # the roll is worked out again, with the dice that are left
        return self._retotal(item, changed)

    def _retotal(self, node: ResultNode, changed: dict[int, DiceResult]) -> ResultNode:
        match node:
            case DiceResult():
                return changed.get(id(node), node)
            case NegateResult():
                operand = self._retotal(node.operand, changed)
                return NegateResult(operand, -operand.total)
            case BinaryResult():
                left, right = self._retotal(node.left, changed), self._retotal(node.right, changed)
                return BinaryResult(node.op, left, right, self._arithmetic(node.op, left.total, right.total))
            case GroupResult():
                inner = self._retotal(node.inner, changed)
                return GroupResult(inner, abs(inner.total) if node.function == "abs" else inner.total, node.function)
            case AnnotatedResult():
                inner = self._retotal(node.inner, changed)
                return AnnotatedResult(inner, node.note, inner.total)
            case _:
                return node

    def _take_extra_roll(self) -> bool:
        if self._extra_rolls_left == 0:
            self.capped = True
            return False
        self._extra_rolls_left -= 1
        return True

    def _face(self, node: Dice) -> int:
        low, high = node.faces
        return self._rng.randint(low, high)

    def _roll_dice(self, node: Dice) -> DiceResult:
        faces = [self._face(node) for _ in range(node.rolled_count)]
        keep = node.effective_keep
        plain = node == Dice(node.count, node.sides, fudge=node.fudge)
        if plain:
            # The common case, kept lean so that 1000 dice stay cheap.
            return DiceResult(node, tuple(Die(face) for face in faces), sum(faces), capped=False)

        was_capped = False
        slots = [[_Draft(face, extra=False)] for face in faces]
        if node.reroll is not None:
            if node.reroll.add:
                was_capped |= self._reroll_and_add(slots, node)
            else:
                for slot in slots:
                    was_capped |= self._reroll(slot, node.reroll, node)
        if node.explode is not None:
            for slot in slots:
                was_capped |= self._explode(slot, node)
        pool = [draft for slot in slots for draft in slot]
        for draft in pool:
            if node.minimum is not None and draft.face < node.minimum:
                draft.face = node.minimum
            if node.maximum is not None and draft.face > node.maximum:
                draft.face = node.maximum
        if keep is not None:
            _apply_keep(pool, keep)
        if node.success is not None:
            live = [draft for draft in pool if draft.state is DieState.KEPT]
            for draft in live:
                draft.success = node.success.matches(draft.face)
                draft.failure = node.failure is not None and node.failure.matches(draft.face)
            total = sum(draft.success for draft in live) - sum(draft.failure for draft in live)
        else:
            total = sum(draft.face for draft in pool if draft.state is DieState.KEPT)
        dice = tuple(Die(d.face, d.state, d.exploded, d.extra, d.success, d.failure) for d in pool)
        return DiceResult(node, dice, total, capped=was_capped)

    def _reroll(self, slot: list[_Draft], reroll: Reroll, node: Dice) -> bool:
        """Reroll the last die of `slot` as the rule says; return whether the extra-roll cap stopped it."""
        active = slot[-1]
        while reroll.matches(active.face):
            if not self._take_extra_roll():
                return True
            active.state = DieState.REROLLED
            active = _Draft(self._face(node), extra=active.extra)
            slot.append(active)
            if reroll.once:
                break
        return False

    def _reroll_and_add(self, slots: list[list[_Draft]], node: Dice) -> bool:
        """Avrae's `ra`: the first die that matches earns one extra die, added to the pool; the cap may stop it."""
        assert node.reroll is not None
        for slot in slots:
            if node.reroll.matches(slot[-1].face):
                if not self._take_extra_roll():
                    return True
                slot.append(_Draft(self._face(node), extra=True))
                break
        return False

    def _explode(self, slot: list[_Draft], node: Dice) -> bool:
        """Explode the last die of `slot` until a face does not match; return whether the cap stopped it."""
        assert node.explode is not None
        explode, mode = node.explode, node.explode_mode
        active = slot[-1]
        raw = active.face
        while explode.matches(raw):
            if not self._take_extra_roll():
                return True
            active.exploded = True
            face = self._face(node)
            if mode is ExplodeMode.COMPOUND:
                # Compounding adds the roll into the same die: one die, one face, the sum of its rolls.
                active.face += face
                raw = face
                continue
            slot.append(_Draft(face, extra=True))
            if node.reroll is not None and not node.reroll.add and self._reroll(slot, node.reroll, node):
                return True
            active = slot[-1]
            raw = active.face
            if mode is ExplodeMode.PENETRATE:
                active.face -= 1  # Roll20 and Hackmaster: each penetrating die counts one less than it shows
        return False


def _dice_results(node: ResultNode) -> list[DiceResult]:
    """Every rolled dice term of one roll's result, left to right (a group that keeps dice holds no set)."""
    match node:
        case DiceResult():
            return [node]
        case NegateResult():
            return _dice_results(node.operand)
        case BinaryResult():
            return _dice_results(node.left) + _dice_results(node.right)
        case GroupResult() | AnnotatedResult():
            return _dice_results(node.inner)
        case _:
            return []


def _apply_keep(pool: list[_Draft], keep: Keep) -> None:
    """Mark DROPPED the dice that `keep` does not keep, among those not rerolled away."""
    live = [index for index, draft in enumerate(pool) if draft.state is DieState.KEPT]
    if keep.matching is not None:
        matching = keep.matching
        for index in live:
            if matching.matches(pool[index].face) != (keep.mode is KeepMode.KEEP_MATCHING):
                pool[index].state = DieState.DROPPED
        return
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
        expression: An expression from `parse`, or text to parse first (a label and notes come only with text).
            The limits are checked by `parse` only, so a tree built by hand is trusted as it is.
        rng: Where the faces come from.

    Returns:
        The frozen result tree with its total.

    Raises:
        DiceError: Only when `expression` is text that `parse` refuses; rolling itself never raises.
    """
    parsed = _parse(expression) if isinstance(expression, str) else _Parsed(expression, None, ())
    roller = _Roller(rng)
    with uncollected():  # a capped roll is still thousands of objects: no collection pause (bot.rules.collector)
        tree = roller.evaluate(parsed.expression)
    notes = parsed.notes
    if roller.divided_by_zero:
        notes = (*notes, "A division (or remainder) by zero counted as 0.")
    return RollResult(str(parsed.expression), tree, tree.total, roller.capped, parsed.label, notes)
