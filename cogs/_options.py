"""Options declared once: a dataclass of typed, described fields becomes a slash command and its options object.

A roll command's options used to be written four times (the signature, the docstring's Args, the dataclass,
and a call copying every field into it), and an odds command repeated all four. Here each option is one field:

    @dataclass(frozen=True, kw_only=True)
    class Aim(Shown):
        distance: float | None = option("Metres to the target", low=0, high=100000)

and `slash("shoot", ShootOptions)` turns the class into discord.py's parameters (type, range, choices,
description, default) and hands the handler one frozen, typed `ShootOptions`. An odds command takes the same
class without `hidden`, so the two can never drift apart. Enum fields become choices and arrive as members;
a `transform` turns a notation (damage, DR, ...) into its value before the handler runs, with its caret error.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import types
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

from discord import app_commands

from bot.errors import UserError
from bot.rules.names import ATTACKER, clean_name

OPTION = "slash option"  # the key of an option's Spec in its field's metadata

O = TypeVar("O")  # noqa: E741 - a command's options object
Handler = Callable[[Any, Any, O], Awaitable[None]]
Command = app_commands.Command[Any, ..., None]


@dataclass(frozen=True, slots=True)
class Spec:
    """How one option looks in Discord: what the field's type does not say."""

    description: str
    low: float | None = None  # numbers: the least; text: the shortest
    high: float | None = None  # numbers: the most; text: the longest
    choices: Sequence[app_commands.Choice[str]] | None = None
    labels: Mapping[Any, str] | None = None  # an enum field's choice names (default: the value, "_" as spaces)
    transform: type[app_commands.Transformer] | None = None


def option(
    description: str,
    default: Any = dataclasses.MISSING,
    *,
    low: float | None = None,
    high: float | None = None,
    choices: Sequence[app_commands.Choice[str]] | None = None,
    labels: Mapping[Any, str] | None = None,
    transform: type[app_commands.Transformer] | None = None,
) -> Any:
    """A field that is a slash-command option (no default: a required option).

    Text options are 1 to `high` characters; numbers `low` to `high`. The description is Discord's (at most 100
    characters, checked when the command is built).
    """
    if len(description) > 100:
        raise ValueError(f"An option's description is at most 100 characters: {description!r}")
    spec = Spec(description, low, high, choices, labels, transform)
    return dataclasses.field(default=default, metadata={OPTION: spec})


@dataclass(frozen=True, kw_only=True)
class Shown:
    """Who sees a roll's answer: every roll command and every odds command takes `private`."""

    private: bool = option("Show the result to you only", False)


@dataclass(frozen=True, kw_only=True)
class Hidden:
    """A roll can go to the GM channel alone (odds commands roll nothing, so they have no `hidden`)."""

    hidden: bool = option("Send the result to the GM channel; this channel only sees that you rolled", False)


def _attacker(text: str) -> str:
    return clean_name(text, ATTACKER)


@dataclass(frozen=True, kw_only=True)
class Named:
    """Quick mode has no character to name the attacker: the table may (`name:Goblin 2`)."""

    name: str | None = option(
        "Quick mode: who attacks, as the answer names them, e.g. Goblin 2 (default: you)", None, high=32
    )

    def attacker(self, you: str, *, quick: bool) -> str:
        """The name the answer gives the attacker: the one typed in quick mode, else `you`."""
        if self.name is None:
            return you
        if not quick:
            raise UserError("`name` is for quick mode: a character attacks under its own name.", title="Quick mode")
        return _attacker(self.name)


def slash(
    name: str, options: type[O], *, parent: app_commands.Group | None = None, **settings: Any
) -> Callable[[Handler[O]], Command]:
    """A slash command whose parameters are `options`' fields, calling `handler(self, interaction, options)`.

    The handler's docstring is the command's description; `settings` go to `app_commands.command` (extras, ...).
    With `parent`, the command is one of that group's (`/sf odds shoot`).
    """

    def build(handler: Handler[O]) -> Command:
        parameters, descriptions, choices, enums = _parameters(options)

        async def callback(self: Any, interaction: Any, **given: Any) -> None:
            for field, kind in enums.items():
                if field in given:
                    given[field] = kind(given[field])
            await handler(self, interaction, options(**given))

        # The signature discord.py reads the parameters from, as its own hybrid commands give theirs
        # (discord/ext/commands/hybrid.py); the descriptions and choices go through its public decorators.
        callback.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]  # read by inspect
        for attribute in ("__name__", "__qualname__", "__module__", "__doc__"):
            setattr(callback, attribute, getattr(handler, attribute))
        described = app_commands.describe(**descriptions)(callback)
        if choices:
            described = app_commands.choices(**choices)(described)
        command = parent.command if parent is not None else app_commands.command
        return command(name=name, **settings)(described)

    return build


def names(options: type[Any]) -> tuple[str, ...]:
    """The option names of an options class, in the order Discord shows them."""
    return tuple(field.name for field in dataclasses.fields(options))


def _parameters(
    options: type[Any],
) -> tuple[
    list[inspect.Parameter], dict[str, str], dict[str, list[app_commands.Choice[Any]]], dict[str, type[enum.Enum]]
]:
    hints = get_type_hints(options)
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    parameters = [inspect.Parameter("self", positional), inspect.Parameter("interaction", positional)]
    descriptions: dict[str, str] = {}
    choices: dict[str, list[app_commands.Choice[Any]]] = {}
    enums: dict[str, type[enum.Enum]] = {}
    for field in dataclasses.fields(options):
        spec: Spec = field.metadata[OPTION]
        kind, optional = _unwrap(hints[field.name])
        if isinstance(kind, type) and issubclass(kind, enum.Enum):
            enums[field.name] = kind
            labels = spec.labels or {}
            choices[field.name] = [
                app_commands.Choice(name=labels.get(m, str(m.value).replace("_", " ")), value=m.value) for m in kind
            ]
            kind = type(next(iter(kind)).value)
        elif spec.choices is not None:
            choices[field.name] = list(spec.choices)
        annotation = _annotation(kind, spec)
        default = field.default
        if isinstance(default, enum.Enum):
            default = default.value
        parameters.append(
            inspect.Parameter(
                field.name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=annotation | None if optional else annotation,
                default=inspect.Parameter.empty if default is dataclasses.MISSING else default,
            )
        )
        descriptions[field.name] = spec.description
    return parameters, descriptions, choices, enums


def _unwrap(hint: Any) -> tuple[Any, bool]:
    """A field's type without `| None`, and whether it had it."""
    if get_origin(hint) in (Union, types.UnionType):
        arguments = [a for a in get_args(hint) if a is not type(None)]
        if len(arguments) == 1:
            return arguments[0], len(arguments) < len(get_args(hint))
    return hint, False


def _annotation(kind: Any, spec: Spec) -> Any:
    """The annotation discord.py reads for an option: a transformer, a range, or the plain type."""
    if spec.transform is not None:
        return app_commands.Transform[kind, spec.transform]
    if kind is str and spec.high is not None:
        return app_commands.Range[str, int(spec.low or 1), int(spec.high)]
    if kind in (int, float) and (spec.low is not None or spec.high is not None):
        low = None if spec.low is None else kind(spec.low)
        high = None if spec.high is None else kind(spec.high)
        return app_commands.Range[kind, low, high]
    return kind


def notation(option_name: str, parse: Callable[[str], Any], *, longest: int = 30) -> type[app_commands.Transformer]:
    """A transformer that reads a rule notation (damage, DR, ...) as the option arrives, before any lookup.

    A text that does not read is refused with the parser's message, the option named, and its caret line.
    """

    class Notation(app_commands.Transformer):
        @property
        def max_value(self) -> int:
            return longest

        # Any client's interaction: discord.py's Transformer.transform takes any, so an override cannot narrow it.
        async def transform(self, interaction: Any, value: Any) -> Any:
            try:
                return parse(str(value))
            except UserError as error:
                raise UserError(f"`{option_name}`: {error.message}", title=error.title) from None

    Notation.__name__ = Notation.__qualname__ = f"{option_name.title().replace('_', '')}Notation"
    return Notation
