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
hidden) are not inputs and are not replayed; `agrees` checks the options as typed that the inputs must
reflect (the expression of /roll, the AC given to /dnd attack, ...).
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
from bot.rules import aliensrl, dice
from bot.rules import dnd35 as dnd
from bot.rules import encounter as fight
from bot.rules import star_frontiers as sf
from bot.rules.collector import uncollected
from bot.rules.dice import DiceSource
from bot.rules.fair import FairDice

I = TypeVar("I")  # noqa: E741 - the inputs of a kind
R = TypeVar("R")  # the rules core's result

JSON = Any


_PLAIN: Final = frozenset({bool, int, str, type(None)})


class InputError(ValueError):
    """Logged inputs that do not decode into the rules core's input (a forged or damaged log)."""


# ----------------------------------------------------------------------------------------- JSON <-> inputs


def encode(value: Any) -> JSON:
    """A rules input as plain JSON: dataclasses as objects, enums by value, tuples and sets as lists."""
    if type(value) in _PLAIN:  # most of an input: checked first, since a roll command pays for all of this
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
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
            value from the inputs; a typed option that disagrees is a forged or damaged log.
        hit_points: Its inputs hold its target's hit points (a Star Frontiers defender's Stamina), so a roll at
            a creature whose hit points are hidden is sealed in a fair log (`bot.rules.fair_log`).
    """

    name: str
    command: str
    inputs: type[I]
    run: Callable[[I, DiceSource], R]
    outcome: Callable[[R], dict[str, Any]]
    typed: Mapping[str, Callable[[I], object]] = dataclasses.field(default_factory=dict)
    hit_points: bool = False


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


def _full_outcome(result: dnd.FullAttackResult) -> dict[str, Any]:
    return {"attacks": [r.to_dict() for r in result.results], "total": result.total_damage}


def _given_ac(roll: DndAttackRoll | DndFullAttackRoll) -> object:
    attack = roll.attack if isinstance(roll, DndAttackRoll) else (roll.attacks[0] if roll.attacks else None)
    return None if attack is None or attack.target.explanation != "given" else attack.target.ac


DICE: Final[Kind[DiceRoll, dice.RollResult]] = Kind(
    "dice",
    "roll",
    DiceRoll,
    lambda i, rng: dice.roll(i.expression, rng),
    # The total and the expression as read; which die was kept or exploded follows from the replayed faces.
    lambda r: {"expression": r.expression_text, "total": r.total, "capped": r.capped},
    {"expression": lambda i: i.expression},
)
DND_ATTACK: Final[Kind[DndAttackRoll, dnd.AttackResult]] = Kind(
    "dnd.attack",
    "dnd attack",
    DndAttackRoll,
    lambda i, rng: dnd.resolve(i.attack, rng, variants=i.variants),
    lambda r: dict(r.to_dict()),
    {"target_ac": _given_ac},
)
DND_FULL_ATTACK: Final[Kind[DndFullAttackRoll, dnd.FullAttackResult]] = Kind(
    "dnd.full-attack",
    "dnd full-attack",
    DndFullAttackRoll,
    lambda i, rng: dnd.resolve_all(i.attacks, rng, variants=i.variants),
    _full_outcome,
    {"target_ac": _given_ac},
)
SF_SHOT: Final[Kind[SfShot, sf.AttackResult]] = Kind(
    "sf.shoot",
    "sf shoot",
    SfShot,
    lambda i, rng: sf.shoot(i.attack, rng, i.variants),
    lambda r: dict(r.to_dict()),
    {"modifier": lambda i: i.attack.situation.modifier, "burst": lambda i: i.attack.situation.burst},
    hit_points=True,
)
SF_MELEE: Final[Kind[SfMelee, sf.AttackResult]] = Kind(
    "sf.melee",
    "sf melee",
    SfMelee,
    lambda i, rng: sf.melee(i.attack, rng, i.variants),
    lambda r: dict(r.to_dict()),
    {"modifier": lambda i: i.attack.situation.modifier},
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
    {
        "dx": lambda i: i.dx,
        "dy": lambda i: i.dy,
        "distance": lambda i: i.distance,
        "intervening": lambda i: i.intervening,
    },
)


def _dnd_initiative(*sources: str, feat: bool = False) -> Callable[[fight.InitiativeInput], object]:
    """A D&D newcomer's typed initiative option as its checks reflect it; None for Star Frontiers (it ignores them).

    The sum of the modifiers from `sources`, or with `feat` whether they carry Improved Initiative. Every newcomer
    of one command took the same option: if their checks disagree, no typed value matches.
    """

    def read(asked: fight.InitiativeInput) -> object:
        if asked.ruleset != fight.DND:
            return None
        found = {
            any(m.source == fight.IMPROVED for m in r.modifiers)
            if feat
            else sum(m.value for m in r.modifiers if m.source in sources)
            for r in asked.rollers
        }
        return found.pop() if len(found) == 1 else f"several values: {sorted(found)}"

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

KINDS: Final[dict[str, Kind[Any, Any]]] = {
    kind.name: kind for kind in (DICE, DND_ATTACK, DND_FULL_ATTACK, SF_SHOT, SF_MELEE, ALIENS_SHOT)
} | {kind.name: kind for kind in INITIATIVE.values()}


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
    """A logged roll run again: the draws it made, (a, b, face) each, and its outcome."""

    draws: tuple[tuple[int, int, int], ...]
    outcome: JSON


def replay(kind_name: str, inputs: JSON, seed: bytes, roll_number: int) -> Replayed:
    """Roll `roll_number` of a fair session again from its logged kind and inputs, with dice from the seed.

    Raises:
        InputError: An unknown kind, inputs that do not decode, or inputs the rules core refuses.
    """
    kind = KINDS.get(kind_name)
    if kind is None:
        raise InputError(f"unknown kind of roll {kind_name!r}")
    decoded = decode(kind.inputs, inputs)
    source = FairDice(seed, roll_number)
    try:
        result = kind.run(decoded, source)
    except Exception as error:  # the rules core refused it, so no answer was ever shown for it
        raise InputError(f"the rules core refuses these inputs: {error}") from None
    return Replayed(source.draws, normal(kind.outcome(result)))


def disagreement(kind_name: str, inputs: JSON, typed: Mapping[str, Any] | None) -> str | None:
    """How the options as typed contradict the logged inputs (the first such option), or None."""
    kind = KINDS.get(kind_name)
    if kind is None or typed is None:
        return None
    decoded = decode(kind.inputs, inputs)
    for option, read in kind.typed.items():
        if option not in typed:
            continue
        rolled = read(decoded)
        if rolled is not None and normal(rolled) != typed[option]:
            return f"option `{option}` is {typed[option]!r}, but the roll was made with {rolled!r}"
    return None


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
