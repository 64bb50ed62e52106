"""Rolls that can be replayed: every roll command runs its rules core through here, and so does the verifier.

A roll of a fair session is only worth checking if the check covers what the command did: its inputs (the
options as resolved, and the character's numbers that entered the roll), the number and order of its draws,
and the outcome it showed. So each kind of roll is registered once, as a `Kind`:

* `inputs`: the rules core's input, a frozen dataclass (`DiceRoll`, `DndAttackRoll`, ...), written to the log
  as plain JSON by `encode` and read back by `decode` (driven by the dataclass's type hints);
* `run`: the rules core itself, given those inputs and a dice source;
* `outcome`: the structured outcome the answer shows (the result's `to_dict`: faces, totals, hit, damage).

`roll` is what the cogs call: it encodes the inputs, decodes them again and runs the rules core on the decoded
copy, so the logged inputs are by construction what was rolled. `replay` is what `python -m bot verify` calls:
the same decode and run, with `bot.rules.fair.FairDice(seed, roll_number)` as the dice, and the draws and the
outcome compared with the log's (`fair_log.check_log`). Options that only shape the answer (a label, private,
hidden) are not inputs and are not replayed (`UNREFLECTED` lists them, with why); `disagreement` checks every
other option as typed against the inputs (`Kind.typed`: the expression of /roll, a quick attack's bonus, damage
and critical, a shot's score, skill and range, ...), and one not typed against what the command does without it.
`Replayed.result` is the rules core's result, from which `bot.ui.summaries` derives the roll's summary again.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final, Generic, TypeVar

from bot.errors import UserError
from bot.rules import aliensrl, dice, rulesets
from bot.rules import dnd35 as dnd
from bot.rules import encounter as fight
from bot.rules import star_frontiers as sf
from bot.rules.collector import uncollected
from bot.rules.dice import DiceSource
from bot.rules.dnd35.situation import NOTHING as SITUATION_NOTHING
from bot.rules.dnd35.situation import ORDER as SITUATION_WORDS
from bot.rules.dnd35.situation import from_options as situation_options
from bot.rules.fair import FairDice
from bot.rules.sheets.base import name_key
from bot.rules.sheets.star_frontiers import HEAVY_UNTRAINED, SKILL_STEP
from bot.rules.star_frontiers.situation import ORDER as SHOT_WORDS
from bot.rules.star_frontiers.situation import ShotSituation, parse_shot_situation
from bot.rules.star_frontiers.situation import from_options as shot_situation_options

I = TypeVar("I")  # noqa: E741 - the inputs of a kind
R = TypeVar("R")  # the rules core's result

JSON = Any


_PLAIN: Final = frozenset({bool, int, str, type(None)})
_NO_METADATA: Final = dataclasses.field().metadata  # the one empty mapping of every field declared without any


class InputError(ValueError):
    """Logged inputs that do not decode into the rules core's input (a forged or damaged log)."""


# ----------------------------------------------------------------------------------------- JSON <-> inputs


WHEN_SET: Final = {"log": "when set"}  # a field's metadata: logged only when it holds something else than its default


def _unset(value: Any, field: dataclasses.Field[Any]) -> bool:
    """A `WHEN_SET` field that holds its default."""
    return field.metadata.get("log") == WHEN_SET["log"] and getattr(value, field.name) == field.default


def encode(value: Any) -> JSON:
    """A rules input as plain JSON: dataclasses as objects, enums by value, tuples and sets as lists.

    A field declared with `WHEN_SET` metadata is left out while it holds its default (`decode` reads an absent
    field as its default): a field added later leaves the input of a roll that does not use it, and its fair
    log's seal, as they were.
    """
    if type(value) in _PLAIN:  # most of an input: checked first, since a roll command pays for all of this
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: encode(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.init and (f.metadata is _NO_METADATA or not _unset(value, f))
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
            is a forged or damaged log. Every option of the command is here or in `UNREFLECTED`.
        hit_points: Its inputs hold its target's hit points (a Star Frontiers defender's Stamina), so a roll at
            a creature whose hit points are hidden is sealed in a fair log (`bot.rules.fair_log`).
        renamed: The command's options as typed before some were renamed, as the command reads them today
            (a roll logged then is checked with today's meaning).
    """

    name: str
    command: str
    inputs: type[I]
    run: Callable[[I, DiceSource], R]
    outcome: Callable[[R], dict[str, Any]]
    typed: Mapping[str, Typed[I] | Callable[[I], object]] = dataclasses.field(default_factory=dict)
    hit_points: bool = False
    renamed: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None


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


@dataclass(frozen=True, slots=True)
class DndAttackRoll:
    """/dnd attack: one attack, built from the character's sheet or quick-mode numbers, and the server's readings."""

    attack: dnd.Attack
    variants: dnd.Variants


@dataclass(frozen=True, slots=True)
class DndFullAttackRoll:
    """/dnd full-attack: every attack of a full attack, in order, and the server's readings."""

    attacks: tuple[dnd.Attack, ...]
    variants: dnd.Variants


@dataclass(frozen=True, slots=True)
class SfShot:
    """/sf shoot: a ranged attack and the server's readings."""

    attack: sf.RangedAttack
    variants: sf.Variants


@dataclass(frozen=True, slots=True)
class SfMelee:
    """/sf melee: a melee attack and the server's readings."""

    attack: sf.MeleeAttack
    variants: sf.Variants


@dataclass(frozen=True, slots=True)
class AliensShot:
    """/aliens fire: the shooter (skill, weapon, pain), the aim and the server's stray ring."""

    shooter: aliensrl.Shooter
    dx: int | None
    dy: int | None
    distance: int | None
    intervening: bool
    ring: aliensrl.Ring
    crowded: bool = False  # a being on every square a stray may land on (§9.11)
    targeted: aliensrl.Targeted = aliensrl.DEFAULT_TARGETED  # the server's reading of "targeted"
    field: aliensrl.Field | None = None  # the fight's map: the squares give the aim and the beings in the way


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
    if isinstance(a, _Varies) or isinstance(b, _Varies):
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
    if isinstance(value, _Varies):
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


# Options that no roll's inputs can reflect, by command, each with why. Every option of a roll command is in its
# kind's `typed` or here (tests/rules/test_replay.py checks it against the command tree).
ANSWER_ONLY: Final = {
    "private": "who sees the answer, not what was rolled (the log's `private`)",
    "hidden": "where the answer goes, not what was rolled (the log's `hidden`)",
}
UNREFLECTED: Final[dict[str, dict[str, str]]] = {
    "roll": {
        **ANSWER_ONLY,
        "label": "the answer's title",
        "target": "the chance shown under the answer, from the expression alone; nothing is rolled for it",
    },
    "dnd attack": {
        **ANSWER_ONLY,
        "name": "quick mode's attacker as the answer names them; the rules read no name",
    },
    "dnd full-attack": {
        **ANSWER_ONLY,
        "name": "quick mode's attacker as the answer names them; the rules read no name",
    },
    "sf shoot": {
        **ANSWER_ONLY,
        "name": "quick mode's attacker as the answer names them; the rules read no name",
    },
    "sf melee": {
        **ANSWER_ONLY,
        "name": "quick mode's attacker as the answer names them; the rules read no name",
    },
    "aliens fire": {
        **ANSWER_ONLY,
        "name": "quick mode's shooter as the answer names them; in a fight it picks the square the shot comes "
        "from, which the inputs hold (`field.origin`) but not the name",
    },
    # The tracker's initiative (`INITIATIVE`): a round's roll has no options; a newcomer's rollers are named.
    "encounter next": {},
    "encounter remove": {"combatant": "who leaves; the roll is the next round's, of those who stay"},
    "encounter join": {
        "character": "which character joins: its name is the roller's, its Dex modifier a source of its check",
        "side": "where it stands in a Star Frontiers fight by side, which rolls no newcomer's initiative",
    },
    "encounter add": {
        "name": "the quick creatures' name, numbered by `count`: the rollers' names hold it as made unique",
        "character": "which character joins: its name is the roller's, its Dex modifier a source of its check",
        "count": "how many quick creatures: one roller each, but a character ignores it",
        "hp": "hit points, which initiative does not read",
        "ac": "Armor Class, which initiative does not read",
        "rs": "a quick creature's RS, its IM and tiebreak; a character's RS is its sheet's, so it is not compared",
        "rw": "a weapon score, which initiative does not read",
        "mw": "a weapon score, which initiative does not read",
        "rank": "an AliensRL skill rank; AliensRL rolls no initiative",
        "side": "which side it fights on, which a newcomer's check does not read",
        "hidden": "whether its hit points are hidden, which initiative does not read",
    },
}


def _present(text: Any) -> object:
    """An option whose value the inputs hold only as a consequence (a name resolved): that it was typed."""
    return True


def _no(inputs: Any) -> object:
    return False


def _zero(inputs: Any) -> object:
    return 0


def _none(inputs: Any) -> object:
    return None


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError("text expected")
    return value


# -- D&D 3.5 ---------------------------------------------------------------------------------------------------


def _dnd_quick(attack: dnd.Attack) -> bool:
    """Made from quick-mode numbers: its attack bonus is one given term (a character's has BAB and the rest)."""
    return any(t.name == "attack bonus" and t.source == "given" for t in attack.attack_terms)


def _term(terms: tuple[dnd.Term, ...], name: str, source: str | None = None) -> int | None:
    return next((t.value for t in terms if t.name == name and (source is None or t.source == source)), None)


def _weapon_key(name: str) -> str:
    """A D&D weapon's name as the command finds it: an SRD weapon by its natural name, whichever name was typed."""
    table = dnd.table_weapon(name)
    return name_key(table.name if table is not None else " ".join(name.split()))


def _is_off_hand(attack: dnd.Attack) -> bool:
    return any(t.name == "two-weapon fighting" and t.source.endswith("off hand") for t in attack.attack_terms)


def _dnd_weapon(attack: dnd.Attack) -> object:
    return None if _dnd_quick(attack) else _weapon_key(attack.label.removesuffix(" (off-hand end)"))


def _given_ac(attack: dnd.Attack) -> object:
    return attack.target.base_ac if attack.target.explanation == "given" else None


def _flag_unless_decided(attack: dnd.Attack, on: bool) -> object:
    """A flag the options set, which a character's sheet or the fight may set too: on says nothing unless given."""
    return on if not on or attack.target.explanation == "given" else UNKNOWN


def _attack_number(attack: dnd.Attack) -> object:
    for term in attack.attack_terms:
        for prefix in ("attack ", "off-hand attack "):
            if term.name.startswith(prefix) and term.name[len(prefix) :].isdecimal():
                return int(term.name[len(prefix) :])
    return 1


def _precision(attack: dnd.Attack) -> object:
    if attack.target.immune_to_criticals or attack.miss_chance:
        return UNKNOWN  # §6: the rules dropped every precision die, so the inputs no longer hold them
    return tuple(r.dice for r in attack.precision if r.label == "precision")


def _sneak_attack(attack: dnd.Attack) -> object:
    if attack.target.immune_to_criticals or attack.miss_chance:
        return UNKNOWN  # dropped with the other precision dice
    return any(r.label.startswith("sneak attack") for r in attack.precision)


def _range_term(attack: dnd.Attack) -> object:
    """A character's ranged attack states the distance in its range term (`§2 30 ft: ...`), as `:g` writes it."""
    source = next((t.source for t in attack.attack_terms if t.name == "range"), None)
    return None if source is None else source.removeprefix("§2 ").split(" ft:")[0]


def _feet(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError("a number expected")
    return f"{float(value):g}"


def _into_melee(attack: dnd.Attack) -> object:
    precise = "Precise Shot: no penalty for shooting into melee." in attack.notes
    return precise or any(t.name == "into melee" for t in attack.attack_terms)


def _adjusted(attack: dnd.Attack, name: str) -> bool:
    return any(t.name == name for t in attack.target.adjustments)


@dataclass(frozen=True, slots=True)
class Said:
    """A `situation` text as the inputs are compared with it: the words on, the words off, the modifier.

    Read from the inputs, a word they cannot reflect is in neither (see `_situation`).
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


def _said(text: dnd.SituationText) -> Said:
    return said(text.words, text.modifier, SITUATION_WORDS)


def _situation(attack: dnd.Attack) -> object:
    """What an attack's inputs say of its `situation` text: each word they reflect, and the modifier (§11).

    Left out: `two hands` (1½x Str shows in the Str term only for a weapon that is not light, in melee: a light
    weapon in two hands, a ranged one or a two-handed one leave the same terms as without it); `sneak attack`
    where the rules dropped the precision dice; a character's `ranged` (its weapon decides), and quick mode's
    `ranged` beside `into melee`, which makes it ranged anyway.
    """
    terms = {t.name for t in attack.attack_terms}
    reads: dict[str, object] = {
        "flanking": "flanking" in terms,
        "into melee": _into_melee(attack),
        "charge": "charge" in terms,
        "higher ground": "higher ground" in terms,
        "cover": _adjusted(attack, "cover"),
        "improved cover": _adjusted(attack, "improved cover"),
        "prone": _adjusted(attack, "prone"),
        "helpless": _adjusted(attack, "helpless"),
        "concealment": attack.miss_chance == dnd.Concealment.CONCEALMENT.miss_chance,
        "total concealment": attack.miss_chance == dnd.Concealment.TOTAL.miss_chance,
    }
    if (sneak := _sneak_attack(attack)) is not UNKNOWN:
        reads["sneak attack"] = sneak
    if _dnd_quick(attack) and not reads["into melee"]:
        reads["ranged"] = attack.ranged
    on = frozenset(word for word, value in reads.items() if value is True)
    off = frozenset(word for word, value in reads.items() if value is False)
    return Said(on, off, _term(attack.attack_terms, "situational", "given") or 0)


def _quick_damage(attack: dnd.Attack) -> object:
    if not _dnd_quick(attack):
        return None
    bonus = _term(attack.damage_terms, "damage bonus") or 0
    return dnd.WeaponDamage(attack.damage.count, attack.damage.sides, bonus)


def _quick_crit(attack: dnd.Attack) -> object:
    return dnd.Critical(attack.threat, attack.critical_multiplier) if _dnd_quick(attack) else None


def _default_crit(attack: dnd.Attack) -> object:
    return dnd.parse_crit("20/x2") if _dnd_quick(attack) else None  # quick mode's default; a character has its own


def _parse_text(parse: Callable[[str], object]) -> Callable[[Any], object]:
    """A notation option read as its command reads it: the text of whatever Discord sent (`str(value)`)."""

    def read(value: Any) -> object:
        if not isinstance(value, str | int | float):
            raise TypeError("text expected")
        return parse(str(value))

    return read


# Options of one attack, read from it: /dnd attack reads them from its attack, /dnd full-attack from every attack.
_DND_ATTACK: Final[dict[str, Typed[dnd.Attack]]] = {
    # Given as a number, the AC is the target's; a character or a combatant has its AC computed ("target").
    "target_ac": Typed(_given_ac, absent=_none),
    # A character or a combatant named: the name is resolved to its numbers, which the inputs hold, not the name.
    "target": Typed(lambda a: a.target.explanation != "given", _present, _no),
    "touch": Typed(lambda a: "touch" in a.target.kind, absent=_no),
    # A fight makes a combatant flat-footed before its first turn (a note says why): given says nothing then.
    # A helpless character's AC is its own (§5): flat-footed or not, it counts no Dex bonus.
    "flat_footed": Typed(
        lambda a: UNKNOWN if "helpless" in a.target.kind else _flag_unless_decided(a, "flat-footed" in a.target.kind),
        absent=_no,
    ),
    "crit_immune": Typed(lambda a: _flag_unless_decided(a, a.target.immune_to_criticals), absent=_no),
    # The dr typed replaces the target's own (a character's), so it is the target's whenever it was typed.
    "dr": Typed(
        lambda a: a.target.dr,
        _parse_text(dnd.parse_dr),
        lambda a: None if a.target.explanation == "given" else UNKNOWN,
    ),
    "situation": Typed(
        _situation,
        _parse_text(lambda text: _said(dnd.parse_situation(text))),
        lambda a: _said(SITUATION_NOTHING),
        said_agrees,
    ),
    "damage_bonus": Typed(lambda a: _term(a.damage_terms, "situational", "given") or 0, absent=_zero),
    "multiplier": Typed(
        lambda a: next((m.value for m in a.multipliers if m.source == "situational"), None), absent=_none
    ),
    "precision": Typed(_precision, _parse_text(dnd.parse_dice), lambda a: ()),
    "distance": Typed(_range_term, _feet, _none),
    "damage": Typed(_quick_damage, _parse_text(dnd.parse_damage), _none),
    "crit": Typed(_quick_crit, _parse_text(dnd.parse_crit), _default_crit),
    # A character is resolved to its numbers: that one was named says the attack is not quick mode.
    "character": Typed(lambda a: not _dnd_quick(a), _present),
}


def _one(read: Typed[dnd.Attack]) -> Typed[DndAttackRoll]:
    return Typed(lambda i: read.read(i.attack), read.parse, lambda i: read.absent(i.attack), read.agrees)


class _Varies:
    """Attacks of one full attack that disagree on what one option should have made the same for all."""

    def __init__(self, values: list[object]) -> None:
        self.values = values

    def __repr__(self) -> str:
        return f"different values in different attacks ({', '.join(map(_shown, self.values))})"


def _every(
    read: Callable[[dnd.Attack], object], attacks: Callable[[DndFullAttackRoll], tuple[dnd.Attack, ...]]
) -> Callable[[DndFullAttackRoll], object]:
    """An option read from each attack of a full attack: their common value, or `_Varies`."""

    def reads(roll: DndFullAttackRoll) -> object:
        values = [read(a) for a in attacks(roll)]
        if not values or any(v is UNKNOWN for v in values):
            return UNKNOWN
        if all(same(v, values[0]) for v in values):
            return values[0]
        return _Varies(values)

    return reads


def _all(roll: DndFullAttackRoll) -> tuple[dnd.Attack, ...]:
    return roll.attacks


def _main_hand(roll: DndFullAttackRoll) -> tuple[dnd.Attack, ...]:
    return tuple(a for a in roll.attacks if not _is_off_hand(a))


def _off_hand(roll: DndFullAttackRoll) -> tuple[dnd.Attack, ...]:
    return tuple(a for a in roll.attacks if _is_off_hand(a))


def _full(read: Typed[dnd.Attack]) -> Typed[DndFullAttackRoll]:
    def agrees(wanted: Any, rolled: Any) -> bool:
        return not isinstance(rolled, _Varies) and read.agrees(wanted, rolled)

    return Typed(_every(read.read, _all), read.parse, _every(read.absent, _all), agrees)


def _full_bonuses(roll: DndFullAttackRoll) -> object:
    if not roll.attacks or not all(_dnd_quick(a) for a in roll.attacks):
        return None
    return tuple(_term(a.attack_terms, "attack bonus", "given") for a in roll.attacks)


def _off_hand_weapon(roll: DndFullAttackRoll) -> object:
    found = _every(_dnd_weapon, _off_hand)(roll)
    return None if found is UNKNOWN else found  # no off-hand attack: no second weapon


DND_ATTACK_TYPED: Final[dict[str, Typed[DndAttackRoll]]] = {
    **{name: _one(read) for name, read in _DND_ATTACK.items()},
    "attack_bonus": Typed(lambda i: _term(i.attack.attack_terms, "attack bonus", "given"), absent=_none),
    "weapon": Typed(lambda i: _dnd_weapon(i.attack), _parse_text(_weapon_key)),
    "attack_number": Typed(lambda i: _attack_number(i.attack), absent=lambda i: 1),
    # A character's off-hand attack takes the two-weapon row's off-hand penalty; quick mode's only counts how
    # many off-hand attacks there may be (§4), which the inputs do not keep.
    "off_hand": Typed(lambda i: UNKNOWN if _dnd_quick(i.attack) else _is_off_hand(i.attack), absent=_no),
}
DND_FULL_ATTACK_TYPED: Final[dict[str, Typed[DndFullAttackRoll]]] = {
    **{name: _full(read) for name, read in _DND_ATTACK.items()},
    "attack_bonus": Typed(_full_bonuses, _parse_text(dnd.parse_bonuses), _none),
    "weapon": Typed(_every(_dnd_weapon, _main_hand), _parse_text(_weapon_key)),
    "off_hand_weapon": Typed(_off_hand_weapon, _parse_text(_weapon_key), _none),
}


# -- Star Frontiers -----------------------------------------------------------------------------------------------


def sf_damage(text: str) -> tuple[sf.Dice, sf.DamageKind | None]:
    """Quick-mode damage dice and, after them, what the hit is to a suit or screen: `2d10 laser` (§6, §11)."""
    words = " ".join(text.split())
    for kind in sorted(sf.DamageKind, key=lambda k: -len(k.value)):
        if words.casefold().endswith(" " + kind.value):
            return sf.parse_dice(words[: -len(kind.value)].strip()), kind
    return sf.parse_dice(words), None


def sf_distance(text: str) -> float | sf.Band:
    """A shot's `distance`: metres (`30`, `30 m`) or a range band by name (`short`, `point blank`).

    Raises:
        ValueError: Neither; the metres are not checked against the table's reach here.
    """
    typed = str(text).strip().casefold()
    for band in sf.Band:
        if typed in (band.value, band.label):
            return band
    return float(typed.removesuffix("m").strip())


def sf_setting(text: str) -> int | sf.Setting:
    """A weapon's `setting`: a laser's SEU per shot (`5`, `5 seu`), or `stun` / `damage`.

    Raises:
        ValueError: Neither; the SEU are not checked against the dial's limits here.
    """
    typed = str(text).strip().casefold().removesuffix("seu").strip()
    if typed in (sf.Setting.STUN.value, sf.Setting.DAMAGE.value):
        return sf.Setting(typed)
    if typed.isdecimal():
        return int(typed)
    raise ValueError(f"{text!r} is no setting")


def current_shot_options(given: Mapping[str, Any]) -> dict[str, Any]:
    """/sf shoot's options as typed before `range`, `aim`, `seu`, the hand flags and the situation were folded.

    `range` joined `distance`, the hand flags became `hands`, aim a way of standing, `seu` the `setting`.
    A roll logged then is rolled again, and checked, with the same meaning (migration 0016 did the same to
    saved rolls).
    """
    options = dict(given)
    if (
        options.pop("aim", False) in (True, "true", "True")
        and options.get("attacker_movement", "standing") == "standing"
    ):
        options["attacker_movement"] = "aiming"  # the old command refused aim on the move
    if "range" in options and "distance" not in options:
        options["distance"] = options.pop("range")
    if "seu" in options and "setting" not in options:
        options["setting"] = str(options.pop("seu"))
    wrong, two = (options.pop(flag, False) in (True, "true", "True") for flag in ("wrong_hand", "two_weapons"))
    if (wrong or two) and "hands" not in options:
        options["hands"] = "two_weapons_wrong_hand" if wrong and two else "wrong_hand" if wrong else "two_weapons"
    return shot_situation_options(options)  # `prone`, `telescopic_sight` and `modifier` became `situation`


def _sf_quick(attack: sf.Attack) -> bool:
    return attack.weapon.name == sf.QUICK_WEAPON


def _sf_level(attack: sf.Attack) -> int:
    """Quick mode's skill level, from the skill step it gave (§2: heavy weapons count one level lower)."""
    value = attack.attacker.skill.value
    if attack.weapon.heavy:
        return 0 if value == HEAVY_UNTRAINED else value // SKILL_STEP + 1
    return value // SKILL_STEP


def _quick(read: Callable[[Any], object]) -> Callable[[Any], object]:
    """Read in quick mode; a character's roll has none of it (a quick-mode option typed with it is refused)."""
    return lambda i: read(i.attack) if _sf_quick(i.attack) else None


def _quick_only(read: Callable[[Any], object]) -> Callable[[Any], object]:
    """Read in quick mode; a character's sheet decides it otherwise (the option typed with a character is unread)."""
    return lambda i: read(i.attack) if _sf_quick(i.attack) else UNKNOWN


def _quick_default(value: object) -> Callable[[Any], object]:
    return lambda i: value if _sf_quick(i.attack) else UNKNOWN


def _sf_setting_agrees(wanted: Any, rolled: Any) -> bool:
    # `setting:damage` (or none) leaves a character's laser at the dial it was set to last.
    if wanted == sf.Setting.DAMAGE.value or wanted is sf.Setting.DAMAGE:
        return rolled is None or isinstance(rolled, int) or same(rolled, sf.Setting.DAMAGE)
    return same(wanted, rolled)


def _sf_shot_setting(i: SfShot) -> object:
    situation = i.attack.situation
    return sf.Setting.STUN if situation.setting is sf.Setting.STUN else situation.seu


def _hands(i: SfShot) -> object:
    wrong, two = i.attack.situation.wrong_hand, i.attack.situation.two_weapons
    return "two_weapons_wrong_hand" if wrong and two else "wrong_hand" if wrong else "two_weapons" if two else "one"


def _helpless(i: SfMelee) -> object:
    situation = i.attack.situation
    return "unaware" if situation.unaware else "stunned" if situation.stunned else "none"


def _sf_common() -> dict[str, Typed[Any]]:
    """Options of a shot and of a melee attack, read alike from either."""
    return {
        "score": Typed(_quick(lambda a: a.attacker.base.value), absent=_none),
        "skill": Typed(_quick(_sf_level), absent=_none),
        "damage": Typed(_quick(lambda a: (a.weapon.damage, a.weapon.kind)), _parse_text(sf_damage), _none),
        "race": Typed(_quick_only(lambda a: a.attacker.race), absent=_quick_default(None)),
        "wounded": Typed(_quick_only(lambda a: a.attacker.wounded), absent=_quick_default(False)),
        # A character or a creature named is resolved to its numbers: that one was named, the inputs show.
        "character": Typed(lambda i: not _sf_quick(i.attack), _present),
        # The name key the weapon is found by (§ the character's own, else the table's).
        "weapon": Typed(
            lambda i: None if _sf_quick(i.attack) else name_key(i.attack.weapon.name), _parse_text(name_key)
        ),
        "target": Typed(lambda i: i.attack.defender != sf.NO_DEFENDER, _present, _no),
    }


def _shot_said(text: ShotSituation) -> Said:
    return said(text.words, text.modifier, SHOT_WORDS)


def _shot_situation(i: SfShot) -> object:
    situation = i.attack.situation
    words = frozenset(w for w, on in (("prone", situation.prone), ("telescopic sight", situation.sight)) if on)
    return said(words, situation.modifier, SHOT_WORDS)


SF_SHOT_TYPED: Final[dict[str, Typed[SfShot]]] = {
    **_sf_common(),
    "heavy": Typed(_quick_only(lambda a: a.weapon.heavy), absent=_quick_default(False)),
    # Quick mode's band by name, or a character's metres, which its weapon's bands turned into a band.
    "distance": Typed(
        lambda i: i.attack.band.band if i.attack.band.distance is None else i.attack.band.distance,
        _parse_text(sf_distance),
    ),
    "target_movement": Typed(lambda i: i.attack.situation.target, absent=lambda i: sf.TargetMovement.WALKING),
    "attacker_movement": Typed(
        lambda i: "aiming" if i.attack.situation.aim else i.attack.situation.attacker,
        absent=lambda i: sf.AttackerMovement.STANDING,
    ),
    "burst": Typed(lambda i: i.attack.situation.burst, absent=_no),
    "targets": Typed(lambda i: i.attack.situation.targets, absent=lambda i: 1),
    "setting": Typed(_sf_shot_setting, _parse_text(sf_setting), lambda i: sf.Setting.DAMAGE, _sf_setting_agrees),
    "cover": Typed(lambda i: i.attack.situation.cover, absent=lambda i: sf.Cover.NONE),
    "target_size": Typed(lambda i: i.attack.situation.size, absent=lambda i: sf.Size.MEDIUM),
    "hands": Typed(_hands, absent=lambda i: "one"),
    "situation": Typed(
        _shot_situation,
        _parse_text(lambda text: _shot_said(parse_shot_situation(text))),
        lambda i: _shot_said(ShotSituation()),
    ),
}
SF_MELEE_TYPED: Final[dict[str, Typed[SfMelee]]] = {
    **_sf_common(),
    "modifier": Typed(lambda i: i.attack.situation.modifier, absent=_zero),
    "weapon_modifier": Typed(_quick_only(lambda a: a.weapon.modifier), absent=_quick_default(0)),
    # A martial arts attack is blunt whatever `blunt` says.
    "blunt": Typed(
        _quick_only(lambda a: UNKNOWN if a.weapon.skill == "martial_arts" else a.weapon.blunt),
        absent=_quick_default(False),
    ),
    "martial_arts": Typed(_quick_only(lambda a: a.weapon.skill == "martial_arts"), absent=_quick_default(False)),
    # A character defending brings its own load (§5 step 6): the option counts only against a quick target.
    "target_encumbered": Typed(
        lambda i: UNKNOWN if i.attack.defender.name else i.attack.situation.target_encumbered, absent=_no
    ),
    "helpless": Typed(_helpless, absent=lambda i: "none"),
    "battle_rage": Typed(lambda i: i.attack.situation.battle_rage, absent=_no),
    "target_defending": Typed(lambda i: i.attack.situation.defending, absent=_no),
    "distance": Typed(lambda i: i.attack.situation.distance, absent=_none),
    "setting": Typed(lambda i: i.attack.situation.setting, absent=lambda i: sf.Setting.DAMAGE),
}


# -- AliensRL ------------------------------------------------------------------------------------------------------


def _aliens_quick(i: AliensShot) -> bool:
    return i.shooter.weapon == ""  # a character's shot names its weapon


def _aliens_quick_reads(read: Callable[[aliensrl.Shooter], object]) -> Callable[[AliensShot], object]:
    return lambda i: read(i.shooter) if _aliens_quick(i) else None


ALIENS_SHOT_TYPED: Final[dict[str, Typed[AliensShot]]] = {
    "dx": Typed(lambda i: i.dx, absent=_none),
    "dy": Typed(lambda i: i.dy, absent=_none),
    "distance": Typed(lambda i: i.distance, absent=_none),
    "intervening": Typed(lambda i: i.intervening, absent=_no),
    "crowded": Typed(lambda i: i.crowded, absent=_no),
    # The pain typed, else quick mode's none or the character's own.
    "pain": Typed(lambda i: i.shooter.pain, absent=lambda i: 0 if _aliens_quick(i) else UNKNOWN),
    # A combatant named: the fight's map gives the aim, which the inputs hold (`field`), not the name.
    "target": Typed(lambda i: i.field is not None, _present, _no),
    # In a fight, quick mode's skill rank defaults to the named combatant's own.
    "skill_rank": Typed(_aliens_quick_reads(lambda s: s.rank)),
    "accuracy": Typed(_aliens_quick_reads(lambda s: s.accuracy), absent=lambda i: 0 if _aliens_quick(i) else None),
    "ammo_damage": Typed(
        _aliens_quick_reads(lambda s: s.ammo_damage),
        absent=lambda i: aliensrl.DEFAULT_AMMO_DAMAGE if _aliens_quick(i) else None,
    ),
    "character": Typed(lambda i: not _aliens_quick(i), _present),
    "weapon": Typed(
        lambda i: None if _aliens_quick(i) else i.shooter.weapon.casefold(), lambda v: _string(v).casefold()
    ),
}


def _full_outcome(result: dnd.FullAttackResult) -> dict[str, Any]:
    return {"attacks": [r.to_dict() for r in result.results], "total": result.total_damage}


DICE: Final[Kind[DiceRoll, dice.RollResult]] = Kind(
    "dice",
    "roll",
    DiceRoll,
    lambda i, rng: dice.roll(i.expression, rng),
    # The total and the expression as read; which die was kept or exploded follows from the replayed faces.
    lambda r: {"expression": r.expression_text, "total": r.total, "capped": r.capped},
    {"expression": Typed(lambda i: i.expression)},
)
DND_ATTACK: Final[Kind[DndAttackRoll, dnd.AttackResult]] = Kind(
    "dnd.attack",
    "dnd attack",
    DndAttackRoll,
    lambda i, rng: dnd.resolve(i.attack, rng, variants=i.variants),
    lambda r: dict(r.to_dict()),
    DND_ATTACK_TYPED,
    renamed=situation_options,
)
DND_FULL_ATTACK: Final[Kind[DndFullAttackRoll, dnd.FullAttackResult]] = Kind(
    "dnd.full-attack",
    "dnd full-attack",
    DndFullAttackRoll,
    lambda i, rng: dnd.resolve_all(i.attacks, rng, variants=i.variants),
    _full_outcome,
    DND_FULL_ATTACK_TYPED,
    renamed=situation_options,
)
SF_SHOT: Final[Kind[SfShot, sf.AttackResult]] = Kind(
    "sf.shoot",
    "sf shoot",
    SfShot,
    lambda i, rng: sf.shoot(i.attack, rng, i.variants),
    lambda r: dict(r.to_dict()),
    SF_SHOT_TYPED,
    hit_points=True,
    renamed=current_shot_options,
)
SF_MELEE: Final[Kind[SfMelee, sf.AttackResult]] = Kind(
    "sf.melee",
    "sf melee",
    SfMelee,
    lambda i, rng: sf.melee(i.attack, rng, i.variants),
    lambda r: dict(r.to_dict()),
    SF_MELEE_TYPED,
    hit_points=True,
)
ALIENS_SHOT: Final[Kind[AliensShot, aliensrl.Shot]] = Kind(
    "aliens.fire",
    "aliens fire",
    AliensShot,
    lambda i, rng: aliensrl.fire(
        i.shooter,
        rng,
        dx=i.dx,
        dy=i.dy,
        distance=i.distance,
        intervening=i.intervening,
        ring=i.ring,
        crowded=i.crowded,
        targeted=i.targeted,
        field=i.field,
    ),
    lambda r: dict(r.to_dict()),
    ALIENS_SHOT_TYPED,
)


def _dnd_initiative(*sources: str, feat: bool = False) -> Callable[[fight.InitiativeInput], object]:
    """A D&D newcomer's typed initiative option as its checks reflect it; UNKNOWN for Star Frontiers (it ignores them).

    The sum of the modifiers from `sources`, or with `feat` whether they carry Improved Initiative. Every newcomer
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
        return found[0] if len(set(found)) == 1 else _Varies(found)

    return read


def _initiative(
    command: str, typed: Mapping[str, Callable[[fight.InitiativeInput], object]] | None = None
) -> Kind[fight.InitiativeInput, fight.Initiative]:
    """The encounter tracker's initiative, rolled by `command` ("encounter next" is kind "encounter.next")."""
    return Kind(
        command.replace(" ", "."),
        command,
        fight.InitiativeInput,
        fight.roll_initiative,
        fight.Initiative.to_dict,
        dict(typed or {}),
    )


# The tracker's initiative: a round's by Next (by a removal that ends a Star Frontiers round too), a newcomer's
# by join and add in a fight under way. One kind per command, as a fair log names each roll's command.
# Typed options their input reflects: a quick creature's `initiative` is its own source, a character's the
# "other" modifier (left out when 0); Star Frontiers reads neither (its RS may be a character's, so it is not
# compared), and a round's roll has no such options.
INITIATIVE: Final[dict[str, Kind[fight.InitiativeInput, fight.Initiative]]] = {
    "encounter next": _initiative("encounter next"),
    "encounter join": _initiative(
        "encounter join",
        {"initiative_bonus": _dnd_initiative(fight.OTHER), "improved_initiative": _dnd_initiative(feat=True)},
    ),
    "encounter add": _initiative(
        "encounter add",
        {
            "initiative": _dnd_initiative(fight.OTHER, fight.QUICK_INITIATIVE),
            "improved_initiative": _dnd_initiative(feat=True),
        },
    ),
    "encounter remove": _initiative("encounter remove"),
}


def kinds() -> dict[str, Kind[Any, Any]]:
    """Every kind of roll by name: /roll's, each registered ruleset's (`Ruleset.kinds`), the tracker's initiative."""
    found: dict[str, Kind[Any, Any]] = {DICE.name: DICE}
    for rules in rulesets.every():
        found.update((kind.name, kind) for kind in rules.kinds)
    found.update((kind.name, kind) for kind in INITIATIVE.values())
    return found


def __getattr__(name: str) -> Any:
    """`KINDS`: `kinds()`, as the registry holds the rulesets now."""
    if name == "KINDS":
        return kinds()
    raise AttributeError(name)


def roll(kind: Kind[I, R], inputs: I, rng: DiceSource) -> Proof[R]:
    """Run a roll the way the verifier will replay it: from its logged inputs, read back, never from the objects.

    Raises:
        TypeError: The inputs hold something `encode` cannot log (a bug, found by the tests of every kind).
        Whatever the rules core raises for these inputs (a mistyped expression, ...).
    """
    logged = normal(encode(inputs))
    try:
        decoded = decode(kind.inputs, logged)
    except InputError as error:
        raise TypeError(f"{kind.name} inputs do not survive the log: {error}") from error
    with uncollected():  # a roll's size is capped, its collection pauses are not (bot.rules.collector)
        result = kind.run(decoded, rng)
    return Proof(kind.name, logged, result, normal(kind.outcome(result)))


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
