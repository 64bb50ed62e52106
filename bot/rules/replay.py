"""Rolls that can be replayed: every roll command runs its rules core through here, and so does the verifier.

A roll of a fair session is only worth checking if the check covers what the command did: its inputs (the
options as resolved, and the character's numbers that entered the roll), the number and order of its draws,
and the outcome it showed. So each kind of roll is declared once, as a `Kind`: /roll's (`DICE`) and the
tracker's initiative (`INITIATIVE`) here, each game's in its own package (`bot/rules/<game>/replay.py`, listed by
its `bot.rules.rulesets.Ruleset.kinds`); `kinds()` reads them all from the registry. A kind holds:

* `inputs`: the rules core's input, a frozen dataclass (`DiceRoll`, a game's attack, ...), written to the log
  as plain JSON by `encode` and read back by `decode` (driven by the dataclass's type hints);
* `run`: the rules core itself, given those inputs and a dice source;
* `outcome`: the structured outcome the answer shows (the result's `to_dict`: faces, totals, hit, damage).

`roll` is what the cogs call: it encodes the inputs, decodes them again and runs the rules core on the decoded
copy, so the logged inputs are by construction what was rolled. `replay` is what `python -m bot verify` calls:
the same decode and run, with `bot.rules.fair.FairDice(seed, roll_number)` as the dice, and the draws and the
outcome compared with the log's (`fair_log.check_log`). Options that only shape the answer (a label, private,
hidden) are not inputs and are not replayed (`Kind.unreflected` lists them, with why); `disagreement` checks every
other option as typed against the inputs (`Kind.typed`: the expression of /roll, a quick attack's bonus, damage
and critical, a shot's score, skill and range, ...), and one not typed against what the command does without it.
`Replayed.result` is the rules core's result, from which `bot.ui.summaries` derives the roll's summary again.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final, Generic, TypeVar

from bot.errors import UserError
from bot.jsontext import exact
from bot.rules import dice, rulesets
from bot.rules import encounter as fight
from bot.rules.collector import uncollected
from bot.rules.dice import DiceSource
from bot.rules.fair import FairDice

I = TypeVar("I")  # noqa: E741 - the inputs of a kind
R = TypeVar("R")  # the rules core's result

JSON = Any


_PLAIN: Final = frozenset({bool, int, str, type(None)})
KEPT_INPUTS = 256  # rolls' logged inputs kept read back (`roll`): the last few of every player at a busy table
_NO_METADATA: Final = dataclasses.field().metadata  # the one empty mapping of every field declared without any


class InputError(ValueError):
    """Logged inputs that do not decode into the rules core's input (a forged or damaged log)."""


# ----------------------------------------------------------------------------------------- JSON <-> inputs


WHEN_SET: Final = {"log": "when set"}  # a field's metadata: logged only when it holds something else than its default


def _unset(value: Any, field: dataclasses.Field[Any]) -> bool:
    """A `WHEN_SET` field that holds its default."""
    return field.metadata.get("log") == WHEN_SET["log"] and getattr(value, field.name) == field.default


_LOGGED: dict[type[Any], tuple[tuple[str, dataclasses.Field[Any] | None], ...] | None] = {}


def _logged_fields(kind: type[Any]) -> tuple[tuple[str, dataclasses.Field[Any] | None], ...] | None:
    """A dataclass's init fields by name, each with itself if it has metadata (`WHEN_SET`); None for another type.

    Found once for each type: `encode` asks for every value of every roll's inputs.
    """
    if kind not in _LOGGED:
        is_dataclass = dataclasses.is_dataclass(kind)
        fields = dataclasses.fields(kind) if is_dataclass else ()
        found = tuple((f.name, None if f.metadata is _NO_METADATA else f) for f in fields if f.init)
        _LOGGED[kind] = found if is_dataclass else None
    return _LOGGED[kind]


def encode(value: Any) -> JSON:
    """A rules input as plain JSON: dataclasses as objects, enums by value, tuples and sets as lists.

    A field declared with `WHEN_SET` metadata is left out while it holds its default (`decode` reads an absent
    field as its default): a field added later leaves the input of a roll that does not use it, and its fair
    log's seal, as they were.
    """
    if type(value) in _PLAIN:  # most of an input: checked first, since a roll command pays for all of this
        return value
    logged = _logged_fields(type(value))
    if logged is not None:
        return {
            name: encode(getattr(value, name))
            for name, when_set in logged
            if when_set is None or not _unset(value, when_set)
        }
    if isinstance(value, enum.Enum):
        return encode(value.value)
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, frozenset | set):
        return sorted((encode(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, Mapping):
        return {str(k): encode(v) for k, v in value.items()}
    raise TypeError(f"cannot log a {type(value).__name__} as a roll input")


def decode(kind: Any, data: JSON, where: str = "input") -> Any:
    """Read `data` back as type `kind`, strictly: exact keys, exact JSON types; raises InputError saying where."""
    if kind in _PLAIN and type(data) is kind:
        return data
    origin = typing.get_origin(kind)
    arguments = typing.get_args(kind)
    if kind is Any:
        return data
    if origin in (typing.Union, types.UnionType):
        if data is None and type(None) in arguments:
            return None
        problems = []
        for option in arguments:
            if option is type(None):
                continue
            try:
                return decode(option, data, where)
            except InputError as error:
                problems.append(str(error))
        raise InputError("; ".join(problems) or f"{where}: null is not allowed")
    if origin is typing.Literal:
        if data not in arguments or type(data) is not type(next(a for a in arguments if a == data)):
            raise InputError(f"{where}: {data!r} is not one of {list(arguments)}")
        return data
    if origin is tuple:
        if not isinstance(data, list):
            raise InputError(f"{where}: expected a list")
        if len(arguments) == 2 and arguments[1] is Ellipsis:
            return tuple(decode(arguments[0], v, f"{where}[{i}]") for i, v in enumerate(data))
        if len(arguments) != len(data):
            raise InputError(f"{where}: expected {len(arguments)} items, not {len(data)}")
        return tuple(decode(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(arguments, data, strict=True)))
    if origin in (frozenset, set, list):
        if not isinstance(data, list):
            raise InputError(f"{where}: expected a list")
        items = [decode(arguments[0], v, f"{where}[{i}]") for i, v in enumerate(data)]
        return list(items) if origin is list else frozenset(items)
    if origin is dict:
        if not isinstance(data, dict):
            raise InputError(f"{where}: expected an object")
        return {k: decode(arguments[1], v, f"{where}.{k}") for k, v in data.items()}
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        return _decode_dataclass(kind, data, where)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        try:
            return kind(data)
        except ValueError:
            raise InputError(f"{where}: {data!r} is not a {kind.__name__}") from None
    if kind is bool:
        if type(data) is not bool:
            raise InputError(f"{where}: expected true or false")
        return data
    if kind is int:
        if type(data) is not int:
            raise InputError(f"{where}: expected a whole number")
        return data
    if kind is float:
        if type(data) not in (int, float):
            raise InputError(f"{where}: expected a number")
        return float(data)
    if kind is str:
        if type(data) is not str:
            raise InputError(f"{where}: expected text")
        return data
    if kind is Fraction:
        try:
            return Fraction(data)
        except (TypeError, ValueError, ZeroDivisionError):
            raise InputError(f"{where}: expected a fraction") from None
    raise InputError(f"{where}: cannot read a {kind!r}")


_FIELDS: dict[type[Any], tuple[tuple[str, Any, bool], ...]] = {}


def _fields(kind: type[Any]) -> tuple[tuple[str, Any, bool], ...]:
    """A dataclass's init fields with their resolved types and whether each has a default (resolved once)."""
    found = _FIELDS.get(kind)
    if found is None:
        hints = typing.get_type_hints(kind)
        found = _FIELDS[kind] = tuple(
            (
                f.name,
                hints[f.name],
                f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING,
            )
            for f in dataclasses.fields(kind)
            if f.init
        )
    return found


def _decode_dataclass(kind: type[Any], data: JSON, where: str) -> Any:
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected an object")
    fields = _fields(kind)
    names = {name for name, _, _ in fields}
    # A field added with a default after a roll was logged is absent from that log: the roll was made with the
    # default, so an absent key with a default reads as it. Every other key must be there, and nothing else.
    required = {name for name, _, has_default in fields if not has_default}
    if not required <= data.keys() <= names:
        extra, missing = sorted(set(data) - names), sorted(required - set(data))
        raise InputError(f"{where}: keys differ from a {kind.__name__} (extra {extra}, missing {missing})")
    values = {name: decode(hint, data[name], f"{where}.{name}") for name, hint, _ in fields if name in data}
    try:
        return kind(**values)
    except (ValueError, TypeError, UserError) as error:
        raise InputError(f"{where}: the rules refuse it: {error}") from None


def normal(data: JSON) -> JSON:
    """JSON as the log file holds it (tuples as lists, keys as text): what a replayed outcome is compared in."""
    return json.loads(json.dumps(data))


# ----------------------------------------------------------------------------------------- the registry


@dataclass(frozen=True, slots=True)
class Kind(Generic[I, R]):
    """One kind of roll: its inputs' type, the rules core that rolls it, the outcome its answer shows.

    Attributes:
        name: The kind's name in the log ("dice", "dnd.attack", ...).
        command: The command that makes it, as the log names it ("dnd attack").
        inputs: The frozen dataclass of its inputs.
        run: The rules core: inputs and a dice source to a result.
        outcome: The result's structured outcome, as logged and compared.
        typed: Options as typed (their display names) that the inputs must reflect, each with how to read its
            value from the inputs (`Typed`; a bare function is `Typed(function)`); a typed option that disagrees
            is a forged or damaged log. Every option of the command is here or in `unreflected`.
        hit_points: Its inputs hold its target's hit points (a defender's health word, as the ruleset calls it),
            so a roll at a creature whose hit points are hidden is sealed in a fair log (`bot.rules.fair_log`).
        renamed: The command's options as typed before some were renamed, as the command reads them today
            (a roll logged then is checked with today's meaning).
        unreflected: The command's options that no roll's inputs can reflect, each with why (`ANSWER_ONLY`: who
            sees the answer, where it goes); `unreflected()` gathers them by command.
    """

    name: str
    command: str
    inputs: type[I]
    run: Callable[[I, DiceSource], R]
    outcome: Callable[[R], dict[str, Any]]
    typed: Mapping[str, Typed[I] | Callable[[I], object]] = dataclasses.field(default_factory=dict)
    hit_points: bool = False
    renamed: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    unreflected: Mapping[str, str] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Proof(Generic[R]):
    """A roll as run: its kind, its inputs as logged, the rules core's result and its outcome as logged."""

    kind: str
    inputs: JSON
    result: R
    outcome: JSON

    def to_log(self) -> dict[str, JSON]:
        """What the roll log keeps of it."""
        return {"kind": self.kind, "input": self.inputs, "outcome": self.outcome}


@dataclass(frozen=True, slots=True)
class DiceRoll:
    """/roll: a dice expression, as typed (§ `bot.rules.dice`)."""

    expression: str


# ----------------------------------------------------------------------------------------- options as typed


class _Unknown:
    """What a roll's inputs say of an option that a character's sheet or the fight decided too: nothing."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Final = _Unknown()


def _as_typed(value: Any) -> object:
    return value


def _unknown(inputs: Any) -> object:
    return UNKNOWN


def same(a: Any, b: Any) -> bool:
    """Two values as the log writes them are the same, strictly: a bool is not a number, a list keeps its order."""
    if isinstance(a, Varies) or isinstance(b, Varies):
        return False
    return _strictly_equal(normal(encode(a)), normal(encode(b)))


def _strictly_equal(a: JSON, b: JSON) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_strictly_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_strictly_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b  # Discord sends a whole number of metres as 30, the rules hold 30.0
    return type(a) is type(b) and a == b


@dataclass(frozen=True, slots=True)
class Typed(Generic[I]):
    """How one option as typed shows in a kind's inputs.

    Attributes:
        read: The option's value as the roll was made with it, in the form `parse` gives (UNKNOWN: the inputs
            cannot say, e.g. a character's sheet decided it too).
        parse: The typed value in that form: a notation read by the reader the command reads it with.
        absent: What `read` must give when the option was not typed (UNKNOWN: anything; it may depend on the
            inputs, e.g. a quick-mode default that a character's roll does not have).
        agrees: Whether the parsed typed value and the value read agree (default: `same`).
    """

    read: Callable[[I], object]
    parse: Callable[[Any], object] = _as_typed
    absent: Callable[[I], object] = _unknown
    agrees: Callable[[Any, Any], bool] = same


def _shown(value: object) -> str:
    if isinstance(value, Varies):
        return repr(value)
    if value is None:
        return "none"
    if dataclasses.is_dataclass(value) and type(value).__str__ is not object.__str__:
        return repr(str(value))  # as the rules write it: 19-20/x2, 1d8+4, 5/magic
    if dataclasses.is_dataclass(value) or isinstance(value, tuple):
        return json.dumps(normal(encode(value)))
    return repr(normal(encode(value)))


def disagreement(kind_name: str, inputs: JSON, typed: Mapping[str, Any] | None) -> str | None:
    """How the options as typed contradict the logged inputs (the first such option, as a sentence), or None.

    An option not typed must agree with what the command does without it (its default), where the inputs say.
    """
    kind = kinds().get(kind_name)
    if kind is None or typed is None:
        return None
    decoded = decode(kind.inputs, inputs)
    if kind.renamed is not None:
        typed = kind.renamed(typed)
    for option, spec in kind.typed.items():
        reading = spec if isinstance(spec, Typed) else Typed(spec)
        rolled = reading.read(decoded)
        if rolled is UNKNOWN:
            continue
        if option not in typed:
            wanted = reading.absent(decoded)
            if wanted is UNKNOWN or reading.agrees(wanted, rolled):
                continue
            return f"option `{option}` was not given (so {_shown(wanted)}), but the roll was made with {_shown(rolled)}"
        try:
            wanted = reading.parse(typed[option])
        except Exception:  # any text a forger wrote: the command's own reader refused it, so it never rolled
            return f"option `{option}` is {typed[option]!r}, which the command does not read"
        if not reading.agrees(wanted, rolled):
            return f"option `{option}` is {typed[option]!r}, but the roll was made with {_shown(rolled)}"
    return None


# Options that shape the answer only, not the roll: every roll command has them (`Kind.unreflected`).
ANSWER_ONLY: Final = {
    "private": "who sees the answer, not what was rolled (the log's `private`)",
    "hidden": "where the answer goes, not what was rolled (the log's `hidden`)",
}


# Readers a kind's `Typed` options are built from (each game's own in its package: `bot/rules/<game>/replay.py`).


def present(value: Any) -> object:
    """An option whose value the inputs hold only as a consequence (a name resolved): that it was typed."""
    return True


def no(inputs: Any) -> object:
    """An option's value when not typed: off."""
    return False


def zero(inputs: Any) -> object:
    """An option's value when not typed: 0."""
    return 0


def none(inputs: Any) -> object:
    """An option's value when not typed: none."""
    return None


def text(value: Any) -> str:
    """An option typed as text, else a TypeError (a forged log's number where a name goes)."""
    if not isinstance(value, str):
        raise TypeError("text expected")
    return value


@dataclass(frozen=True, slots=True)
class Said:
    """A `situation` text as the inputs are compared with it: the words on, the words off, the modifier.

    Read from the inputs, a word they cannot reflect is in neither (a D&D attack's `two hands`, ...).
    """

    on: frozenset[str]
    off: frozenset[str]
    modifier: int

    def __str__(self) -> str:
        """The words on and the modifier, as typed: `flanking cover +2`."""
        words = sorted(self.on) + ([f"{self.modifier:+d}"] if self.modifier else [])
        return " ".join(words) or "nothing"


def said(words: frozenset[str], modifier: int, vocabulary: tuple[str, ...]) -> Said:
    """A situation text typed: every word of `vocabulary` on or off."""
    return Said(words, frozenset(vocabulary) - words, modifier)


def said_agrees(wanted: Any, rolled: Any) -> bool:
    """The text typed and what the inputs say agree: the same modifier, and each word they reflect the same."""
    return (
        isinstance(wanted, Said)
        and isinstance(rolled, Said)
        and wanted.modifier == rolled.modifier
        and rolled.on <= wanted.on
        and rolled.off <= wanted.off
    )


def parse_text(parse: Callable[[str], object]) -> Callable[[Any], object]:
    """A notation option read as its command reads it: the text of whatever Discord sent (`str(value)`)."""

    def read(value: Any) -> object:
        if not isinstance(value, str | int | float):
            raise TypeError("text expected")
        return parse(str(value))

    return read


class Varies:
    """Rolls of one command (the attacks of a full attack, ...) that disagree on what one option made the same."""

    def __init__(self, values: list[object]) -> None:
        self.values = values

    def __repr__(self) -> str:
        return f"different values in different attacks ({', '.join(map(_shown, self.values))})"


DICE: Final[Kind[DiceRoll, dice.RollResult]] = Kind(
    "dice",
    "roll",
    DiceRoll,
    lambda i, rng: dice.roll(i.expression, rng),
    # The total and the expression as read; which die was kept or exploded follows from the replayed faces.
    lambda r: {"expression": r.expression_text, "total": r.total, "capped": r.capped},
    {"expression": Typed(lambda i: i.expression)},
    unreflected={
        **ANSWER_ONLY,
        "label": "the answer's title",
        "target": "the chance shown under the answer, from the expression alone; nothing is rolled for it",
    },
)


def _initiative_option(*sources: str, feat: bool = False) -> Callable[[fight.InitiativeInput], object]:
    """A newcomer's typed initiative option as its checks reflect it; UNKNOWN where its ruleset's checks ignore them.

    A ruleset's checks read them if its `Fighting.initiative_options` says so. The sum of the modifiers from
    `sources`, or with `feat` whether they carry Improved Initiative. Every newcomer
    of one command took the same option: if their checks disagree, no typed value matches.
    """

    def read(asked: fight.InitiativeInput) -> object:
        rules = rulesets.find(asked.ruleset)
        if rules is None or rules.fighting is None or not rules.fighting.initiative_options:
            return UNKNOWN
        found: list[object] = [
            any(m.source == fight.IMPROVED for m in r.modifiers)
            if feat
            else sum(m.value for m in r.modifiers if m.source in sources)
            for r in asked.rollers
        ]
        return found[0] if len(set(found)) == 1 else Varies(found)

    return read


def _given(asked: fight.InitiativeInput) -> object:
    """`rolled`: the initiative its player gave from their own dice, as every newcomer took it (none: rolled)."""
    found: list[object] = [r.given for r in asked.rollers]
    return found[0] if len(set(found)) == 1 else Varies(found)


# A newcomer's own roll: its total as given, or none when the bot rolled (the default).
_ROLLED: Final = Typed(_given, absent=none)


def _initiative(
    command: str,
    typed: Mapping[str, Typed[fight.InitiativeInput] | Callable[[fight.InitiativeInput], object]] | None = None,
    unreflected: Mapping[str, str] | None = None,
) -> Kind[fight.InitiativeInput, fight.Initiative]:
    """The encounter tracker's initiative, rolled by `command` ("encounter next" is kind "encounter.next")."""
    return Kind(
        command.replace(" ", "."),
        command,
        fight.InitiativeInput,
        fight.roll_initiative,
        fight.Initiative.to_dict,
        dict(typed or {}),
        unreflected=dict(unreflected or {}),
    )


# A newcomer's rollers are named: the name typed is theirs, so the options that name them are not compared.
_JOINS: Final = {
    "character": "which character joins: its name is the roller's, its Dex modifier a source of its check",
}


# The tracker's initiative: a round's by Next (by a removal that ends a Star Frontiers round too), a newcomer's
# by join and add in a fight under way. One kind per command, as a fair log names each roll's command.
# Typed options their input reflects: a quick creature's `initiative` is its own source, a character's the
# "other" modifier (left out when 0); Star Frontiers reads neither (its RS may be a character's, so it is not
# compared), and a round's roll has no such options.
INITIATIVE: Final[dict[str, Kind[fight.InitiativeInput, fight.Initiative]]] = {
    "encounter next": _initiative("encounter next"),
    "encounter join": _initiative(
        "encounter join",
        {
            "initiative_bonus": _initiative_option(fight.OTHER),
            "improved_initiative": _initiative_option(feat=True),
            "rolled": _ROLLED,
        },
        {
            **_JOINS,
            "side": "where it stands in a Star Frontiers fight by side, which rolls no newcomer's initiative",
        },
    ),
    "encounter add": _initiative(
        "encounter add",
        {
            "initiative": _initiative_option(fight.OTHER, fight.QUICK_INITIATIVE),
            "improved_initiative": _initiative_option(feat=True),
            "rolled": _ROLLED,
        },
        {
            "group": "whether like creatures roll one check together: the roller's name then names the whole group",
            "name": "the quick creatures' name, numbered by `count`: the rollers' names hold it as made unique",
            **_JOINS,
            "count": "how many quick creatures: one roller each, but a character ignores it",
            "hp": "hit points, which initiative does not read",
            "ac": "Armor Class, which initiative does not read",
            "rs": "a quick creature's RS, its IM and tiebreak; a character's RS is its sheet's, so it is not compared",
            "rw": "a weapon score, which initiative does not read",
            "mw": "a weapon score, which initiative does not read",
            "rank": "an AliensRL skill rank; AliensRL rolls no initiative",
            "side": "which side it fights on, which a newcomer's check does not read",
            "hidden": "whether its hit points are hidden, which initiative does not read",
            "attacks": "its stored attacks, which initiative does not read",
        },
    ),
    "encounter remove": _initiative(
        "encounter remove", unreflected={"combatant": "who leaves; the roll is the next round's, of those who stay"}
    ),
}


# The dying's d% when a Next reaches them in a fair session's channel: a roll of its own, under the same command
# as the round's initiative (a Next rolls one or the other: D&D rolls initiative once, before anyone is dying).
DYING: Final[Kind[fight.DyingInput, fight.DyingFaces]] = Kind(
    "encounter.dying", "encounter next", fight.DyingInput, fight.roll_dying, fight.DyingFaces.to_dict
)


def kinds() -> dict[str, Kind[Any, Any]]:
    """Every kind of roll by name: /roll's, each ruleset's (`Ruleset.kinds`), the tracker's initiative and dying d%."""
    found: dict[str, Kind[Any, Any]] = {DICE.name: DICE}
    for rules in rulesets.every():
        found.update((kind.name, kind) for kind in rules.kinds)
    found.update((kind.name, kind) for kind in INITIATIVE.values())
    found[DYING.name] = DYING
    return found


def unreflected() -> dict[str, dict[str, str]]:
    """Options that no roll's inputs can reflect, by command, each with why (every kind's `Kind.unreflected`).

    Every option of a roll command is in its kind's `typed` or here (tests/cogs/test_fair_typed.py checks it against
    the command tree).
    """
    return {kind.command: dict(kind.unreflected) for kind in kinds().values()}


def __getattr__(name: str) -> Any:
    """`KINDS`: `kinds()`, and `UNREFLECTED`: `unreflected()`, as the registry holds the rulesets now."""
    if name == "KINDS":
        return kinds()
    if name == "UNREFLECTED":
        return unreflected()
    raise AttributeError(name)


def roll(kind: Kind[I, R], inputs: I, rng: DiceSource) -> Proof[R]:
    """Run a roll the way the verifier will replay it: from its logged inputs, read back, never from the objects.

    Raises:
        TypeError: The inputs hold something `encode` cannot log (a bug, found by the tests of every kind).
        Whatever the rules core raises for these inputs (a mistyped expression, ...).
    """
    encoded = encode(inputs)
    text: str | bytes
    if (found := exact(encoded)) is not None:  # orjson's, where that is exact: a fifth of the json module's time
        text, logged = found
    else:
        text = json.dumps(encoded)
        logged = json.loads(text)
    read_as: Any = kind.inputs  # a class, hashable as any (typeshed's `type[I]` does not say so)
    try:
        decoded = _read_back(read_as, text)
    except InputError as error:
        raise TypeError(f"{kind.name} inputs do not survive the log: {error}") from error
    with uncollected():  # a roll's size is capped, its collection pauses are not (bot.rules.collector)
        result = kind.run(decoded, rng)
    return Proof(kind.name, logged, result, normal(kind.outcome(result)))


@functools.lru_cache(maxsize=KEPT_INPUTS)
def _read_back(inputs: Any, text: str | bytes) -> Any:
    """Logged inputs read back as the rules core takes them (`decode`), the same for the same text.

    A player's rolls repeat their inputs (a character, a weapon, a target), and decoding is the costlier half of
    the round trip; what is read back is frozen, so a roll may share it with the one before.
    """
    return decode(inputs, json.loads(text))


@dataclass(frozen=True, slots=True)
class Replayed:
    """A logged roll run again: the draws it made, (a, b, face) each, its outcome, and the rules core's result.

    `result` is what the roll's summary is derived from again (`bot.ui.summaries.summary(kind, result, ...)`).
    """

    draws: tuple[tuple[int, int, int], ...]
    outcome: JSON
    result: Any = None


def replay(
    kind_name: str, inputs: JSON, seed: bytes, roll_number: int, *, interaction_id: int | None = None
) -> Replayed:
    """Roll `roll_number` of a fair session again from its logged kind and inputs, with dice from the seed.

    In a version 4 session the dice follow from the roll's interaction (`interaction_id`), not its number.

    Raises:
        InputError: An unknown kind, inputs that do not decode, or inputs the rules core refuses.
    """
    kind = kinds().get(kind_name)
    if kind is None:
        raise InputError(f"unknown kind of roll {kind_name!r}")
    decoded = decode(kind.inputs, inputs)
    source = FairDice(seed, roll_number, interaction_id=interaction_id)
    try:
        result = kind.run(decoded, source)
    except Exception as error:  # the rules core refused it, so no answer was ever shown for it
        raise InputError(f"the rules core refuses these inputs: {error}") from None
    return Replayed(source.draws, normal(kind.outcome(result)), result)


def first_difference(replayed: JSON, logged: JSON, where: str = "outcome") -> str | None:
    """Where two outcomes first differ, as `outcome.hit: the replay gives false, the log says true`."""
    if isinstance(replayed, dict) and isinstance(logged, dict):
        for key in list(replayed) + [k for k in logged if k not in replayed]:
            if key not in logged or key not in replayed:
                return f"{where}.{key}: {'only in the replay' if key in replayed else 'only in the log'}"
            found = first_difference(replayed[key], logged[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(replayed, list) and isinstance(logged, list):
        for index, (a, b) in enumerate(zip(replayed, logged, strict=False)):
            found = first_difference(a, b, f"{where}[{index}]")
            if found:
                return found
        if len(replayed) != len(logged):
            return f"{where}: the replay has {len(replayed)} items, the log {len(logged)}"
        return None
    if replayed != logged or type(replayed) is not type(logged):
        return f"{where}: the replay gives {json.dumps(replayed)}, the log says {json.dumps(logged)}"
    return None
