"""What every ruleset's stat block shares: strict validation, a schema version, upgrades, text input.

A stat block is a frozen pydantic model. Stored and exported blocks are plain JSON objects carrying the
schema version they were written with under `"schema"`; `load` brings an old block forward one version at
a time through the ruleset's upgrade functions before validating it. Derived values (ability modifiers,
armor class, ...) are properties computed from the stored numbers and never stored.

Validation is strict for stored and imported JSON (a number given as a string is an error) and lenient only
where a person types a value as text (`set_field`), where "15" must mean 15.
"""

from __future__ import annotations

import difflib
import json
import shlex
import threading
import types
import typing
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Literal, get_args, get_origin

import annotated_types
from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError, ValidationInfo
from pydantic_core import ErrorDetails

from bot.errors import UserError
from bot.rules import health, notation
from bot.rules.names import CHARACTER, WEAPON, NameKind, NameRefused, clean_name
from bot.rules.names import name_key as name_key  # where the rulesets and the store have always found it

# A stored block may not exceed this many bytes of compact JSON.
MAX_BLOCK_BYTES = 16 * 1024
# Stored blocks kept read, by their text (`Ruleset.load`): a frozen sheet is the same for the same text, and reading
# one (pydantic's strict validation, then its size checked) is the largest cost of a character's roll. Per
# ruleset at most 256 blocks of 16 KB as text, with their sheets about three times that, and most are under 1 KB.
KEPT_SHEETS = 256
SCHEMA_KEY = "schema"
LIST_SEPARATOR = ","


class SheetError(UserError):
    """A stat block or a value for one of its fields that the bot cannot accept; says what is allowed."""

    title = "Not a valid character"


class NotationValueError(notation.NotationError, ValueError):
    """Notation in a stat block that does not read: pydantic reports a ValueError as the field's problem."""


# A weapon's damage dice on every ruleset's sheet: NdM as written, 1-99 dice of 2-999 sides, no bonus.
DICE_STYLE: Final = notation.DiceStyle(
    hint="Damage dice are written NdM with N from 1 to 99 and M from 2 to 999, like 1d8 or 2d6.",
    most_dice=99,
    most_sides=999,
    most_bonus=999,
    spaces="none",
    plain=True,
)


def dice_text(text: str) -> str:
    """A weapon's damage dice `NdM` (`1d8`, `2d6`) in lower case, as stored; the validator of every sheet."""
    term = notation.read_dice(text, DICE_STYLE, NotationValueError)
    return f"{term.count}d{term.sides}"


class Sheet(BaseModel):
    """The base of every ruleset's stat block."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, str_strip_whitespace=True)

    # Fields a player may change with `/character set`, in the order shown; weapons have their own commands.
    settable: ClassVar[tuple[str, ...]] = ()
    # Up to five fields for the `/character edit` form (Discord allows five inputs per form).
    core: ClassVar[tuple[str, ...]] = ()
    # The short names players type for fields, as on a paper sheet: `str`, `dex`, `hp`.
    aliases: ClassVar[Mapping[str, str]] = {}
    # Words that name no one field but deserve an answer better than "no such field" (`ac`, `feats`), with the
    # fields they point to; autocomplete offers those fields for the word.
    pointers: ClassVar[Mapping[str, tuple[str, tuple[str, ...]]]] = {}
    # The current and the maximum of the character's health: `hp=28/30` sets both.
    health: ClassVar[tuple[str, str] | None] = None

    def derived(self) -> list[tuple[str, str]]:
        """Values computed from the stored numbers, as (label, value with how it was computed)."""
        return []

    def sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """The sheet laid out for display: titled sections of (label, value) lines."""
        return []

    def health_word(self) -> str | None:
        """How hurt the character looks to a player who may not see its numbers (a secret's): None without health.

        unhurt at its maximum, wounded down to half of it, badly wounded below, down at 0 or less (D&D's disabled,
        dying and dead; Star Frontiers' unconscious), as a game master describes a monster at the table.
        """
        if self.health is None:
            return None
        now, top = (getattr(self, key) for key in self.health)
        if now <= 0:
            return "down"
        if now >= top:
            return "unhurt"
        return "wounded" if 2 * now >= top else "badly wounded"

    @classmethod
    def suggested(cls, key: str) -> tuple[str, ...]:
        """Values to offer for field `key` as a player types one: its choices, or yes and no; () for numbers."""
        annotation, _ = _unwrap_optional(cls.model_fields[key].annotation)
        if annotation is bool:
            return ("yes", "no")
        if _is_list(annotation):
            annotation = get_args(annotation)[0]
        return tuple(str(choice) for choice in _literal_values(annotation))

    @classmethod
    def expand(cls, key: str, text: str, current: Mapping[str, Any]) -> dict[str, Any] | None:
        """A value typed for `key` that stands for several fields (an SRD armor by name), as those fields' values.

        `current` is the block with the values of the same `/character set` applied so far. None: `text` is a
        plain value of `key`, read as usual.
        """
        return None


Upgrade = Callable[[dict[str, Any]], dict[str, Any]]
_KEPT_LOCK = threading.Lock()  # a worker thread may read a block while the event loop does (`Ruleset.load`)


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A ruleset as the character store sees it: its key, its stat block, its schema history."""

    key: str
    title: str
    sheet: type[Sheet]
    version: int
    # upgrades[n] turns a version-n block into a version-(n + 1) block.
    upgrades: Mapping[int, Upgrade] = field(default_factory=dict)
    # Stored blocks read, by their text, newest last (`KEPT_SHEETS`).
    _kept: OrderedDict[str, Sheet] = field(default_factory=OrderedDict, init=False, repr=False, compare=False)

    def blank(self) -> Sheet:
        """A new character's stat block: every field at its default."""
        return self.sheet()

    def dump(self, sheet: Sheet) -> dict[str, Any]:
        """The block as stored and exported, with its schema version."""
        data = sheet.model_dump(mode="json")
        data[SCHEMA_KEY] = self.version
        return data

    def load(self, data: Any, *, stored: bool = False) -> Sheet:
        """Validate a stored or imported block, upgrading it first if it was written by an older schema.

        A `stored` block was accepted when it was saved: names in it that an older name policy allowed are
        kept, not refused, so that a character stays readable when the policy grows stricter.
        """
        if not isinstance(data, dict):
            raise SheetError("A stat block must be a JSON object.")
        if not stored:
            return self._validate(data, stored=False)
        # Every roll with a character reads its block: the same block read again is the sheet read before.
        text = json.dumps(data)
        with _KEPT_LOCK:
            kept = self._kept.get(text)
            if kept is not None:
                self._kept.move_to_end(text)
                return kept
        sheet = self._validate(data, stored=True)
        with _KEPT_LOCK:
            self._kept[text] = sheet
            if len(self._kept) > KEPT_SHEETS:
                self._kept.popitem(last=False)
        return sheet

    def _validate(self, data: dict[str, Any], *, stored: bool) -> Sheet:
        data = dict(data)
        version = data.pop(SCHEMA_KEY, None)
        if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= self.version:
            raise SheetError(f"`{SCHEMA_KEY}` must be a schema version from 1 to {self.version}, not {version!r}.")
        for step in range(version, self.version):
            data = self.upgrades[step](data)
        try:
            # Validated as JSON, where strict mode still reads an array as a tuple.
            sheet = self.sheet.model_validate_json(json.dumps(data), context={STORED: True} if stored else None)
        except ValidationError as error:
            raise SheetError(explain(error)) from None
        check_size(self.dump(sheet))
        return sheet

    def set_field(self, sheet: Sheet, key: str, text: str) -> Sheet:
        """`sheet` with one settable field changed to the value typed as `text`."""
        return self.set_fields(sheet, [(key, text)])

    def set_fields(self, sheet: Sheet, pairs: Sequence[tuple[str, str]]) -> Sheet:
        """`sheet` with several fields changed at once, each named as a player would (`str`, `hp=28/30`).

        The values are checked together, so `hp=30 max_hp=30` works in either order; nothing changes unless all
        of them are good. Hit points (stamina) and their maximum are read as `bot.rules.health` reads them:
        `+5`, `-13`, `=28` or `28`, `28/30`; a maximum set alone carries an unhurt character's value with it.
        """
        values: dict[str, Any] = {}
        steps: list[health.Step] = []
        for typed, text in pairs:
            key = self.field_named(typed)
            expanded = self.sheet.expand(key, text, {**sheet.model_dump(), **values})
            if expanded is not None:
                values.update(expanded)
            elif self.sheet.health is not None and key in self.sheet.health:
                current = key == self.sheet.health[0]
                change = health.read_change(text, what=f"`{clip_name(typed)}`", with_maximum=current)
                steps.append(("current" if current else "maximum", change))
            else:
                values[key] = self._from_text(key, text)
        if steps:
            values.update(self._health_values(sheet, steps, on_sheet=True))
        return self._validated(sheet, values)

    def _health_values(self, sheet: Sheet, steps: Sequence[health.Step], *, on_sheet: bool = False) -> dict[str, int]:
        """The current and maximum hit points (stamina) after `steps`, as field values (`health.settle`)."""
        assert self.sheet.health is not None
        current_key, maximum_key = self.sheet.health
        before = getattr(sheet, current_key), getattr(sheet, maximum_key)
        now, top = health.settle(*before, steps, sheet=on_sheet)
        return {current_key: now, maximum_key: top}

    def _validated(self, sheet: Sheet, values: dict[str, Any]) -> Sheet:
        try:
            changed = self.sheet.model_validate(
                {**sheet.model_dump(), **values}, strict=False, context=_grandfather(sheet)
            )
        except ValidationError as error:
            raise SheetError(self._in_own_words(error, values)) from None
        check_size(self.dump(changed))
        return changed

    def _in_own_words(self, error: ValidationError, values: dict[str, Any]) -> str:
        """What was wrong with the values a player set: each field named with what it takes, not pydantic's words.

        A check of the bot's own (a model validator's `ValueError`) already speaks plainly and is kept as it is.
        """
        lines: list[str] = []
        for problem in error.errors(include_url=False):
            key = problem["loc"][0] if problem["loc"] else None
            if key not in values:
                line = explain_one(problem)
            elif problem["type"] == "value_error":
                line = f"{explain_one(problem)}\nAllowed for `{key}`: {allowed(self.sheet, str(key))}."
            else:
                line = f"`{key}` takes {allowed(self.sheet, str(key))}, not `{clip_name(str(values[key]))}`."
            if line not in lines:
                lines.append(line)
        return "\n".join(lines[:8])

    def change_health(
        self, sheet: Sheet, change: health.HealthChange, maximum: health.HealthChange | None = None
    ) -> Sheet:
        """`sheet` with its hit points (stamina) changed as a player wrote it (`bot.rules.health`), the maximum too.

        Checked like `set_fields`, so the fields' ranges apply.
        """
        if self.sheet.health is None:
            raise SheetError(f"A {self.title} character has no hit points to change.")
        steps: list[health.Step] = [("current", change)]
        if maximum is not None:
            steps.insert(0, ("maximum", maximum))
        return self._validated(sheet, self._health_values(sheet, steps))

    def lose_health(self, sheet: Sheet, amount: int) -> Sheet:
        """`sheet` with `amount` hit points (stamina) taken off: a roll's damage applied to the character."""
        return self.change_health(sheet, health.HealthChange(health.Op.SUBTRACT, amount))

    def with_health(self, sheet: Sheet, current: int, maximum: int) -> Sheet:
        """`sheet` with these hit points (stamina) and maximum, each brought inside its field's range.

        For numbers that come from a fight, whose own range is wider: the sheet keeps the nearest it can hold.
        """
        if self.sheet.health is None:
            raise SheetError(f"A {self.title} character has no hit points to change.")
        current_key, maximum_key = self.sheet.health
        values = {
            current_key: _within(self.sheet, current_key, current),
            maximum_key: _within(self.sheet, maximum_key, maximum),
        }
        return self._validated(sheet, values)

    def health_of(self, sheet: Sheet) -> tuple[int, int] | None:
        """The character's hit points (stamina) and their maximum; None for a ruleset without."""
        if self.sheet.health is None:
            return None
        current_key, maximum_key = self.sheet.health
        return getattr(sheet, current_key), getattr(sheet, maximum_key)

    def _from_text(self, key: str, text: str) -> Any:
        return from_text(self.sheet.model_fields[key].annotation, key, text)

    def field_named(self, typed: str) -> str:
        """The settable field `typed` names: its own name or a short one (`dex`), in any case.

        Anything else is refused in a short error that names the closest fields instead of all of them.
        """
        word = "_".join(typed.strip().lower().replace("-", " ").split())
        if word in self.sheet.settable:
            return word
        if word in self.sheet.aliases:
            return self.sheet.aliases[word]
        shown = clip_name(typed)
        pointer = self.sheet.pointers.get(word) or self.sheet.pointers.get(word.removesuffix("s"))
        if pointer is not None:
            hint, _ = pointer
            raise SheetError(f"`{shown}` is not one field of a {self.title} character: {hint}")
        known = [*self.sheet.settable, *self.sheet.aliases]
        close = [self._named(k) for k in difflib.get_close_matches(word, known, n=3, cutoff=0.6)]
        hint = f"Did you mean {' or '.join(dict.fromkeys(close))}?" if close else "Autocomplete on `field` lists them."
        raise SheetError(f"`{shown}` is not a field of a {self.title} character. {hint}")

    def _named(self, key: str) -> str:
        return f"`{key}` ({self.sheet.aliases[key]})" if key in self.sheet.aliases else f"`{key}`"

    def fields_matching(self, text: str) -> list[str]:
        """Settable fields for what a player started typing: by name, short name or pointer word (`feat`).

        With nothing typed yet, the edit form's core fields come first.
        """
        word = "_".join(text.strip().lower().replace("-", " ").split())
        if not word:
            return [*self.sheet.core, *(k for k in self.sheet.settable if k not in self.sheet.core)]
        found = [k for k in self.sheet.settable if word in k]
        found += [k for alias, k in self.sheet.aliases.items() if alias.startswith(word)]
        for pointer, (_, keys) in self.sheet.pointers.items():
            if pointer.startswith(word) or word.startswith(pointer):
                found += keys
        return list(dict.fromkeys(found))

    @property
    def weapon(self) -> type[Sheet]:
        """The model of one weapon of this ruleset's stat block."""
        (item, *_) = get_args(self.sheet.model_fields["weapons"].annotation)
        weapon: type[Sheet] = item
        return weapon

    def weapon_help(self) -> str:
        """Every detail a weapon takes, with what it accepts."""
        keys = [k for k in self.weapon.model_fields if k != "name"]
        return "; ".join(f"`{k}`: {allowed(self.weapon, k)}" for k in keys)

    def add_weapon(self, sheet: Sheet, name: str, details: str = "") -> Sheet:
        """`sheet` with one more weapon: `details` is `key=value` pairs, e.g. `damage=1d8 threat=19`."""
        weapons: tuple[Any, ...] = sheet.weapons  # type: ignore[attr-defined]
        name = clean_name(name, WEAPON)
        if any(name_key(w.name) == name_key(name) for w in weapons):
            raise SheetError(f"There is already a weapon called **{name}**; remove it first to replace it.")
        values: dict[str, Any] = {"name": name}
        try:
            pairs = shlex.split(details)
        except ValueError as error:
            raise SheetError(f"Could not read the details: {error}.") from None
        for pair in pairs:
            key, equals, text = pair.partition("=")
            if not equals or key not in self.weapon.model_fields or key == "name" or key in values:
                raise SheetError(
                    f"Write details as key=value, each key once. {self.title} weapons take: {self.weapon_help()}."
                )
            values[key] = from_text(self.weapon.model_fields[key].annotation, key, text)
        try:
            weapon = self.weapon.model_validate(values, strict=False)
            changed = self.sheet.model_validate(
                {**sheet.model_dump(), "weapons": (*weapons, weapon)}, strict=False, context=_grandfather(sheet)
            )
        except ValidationError as error:
            raise SheetError(f"{explain(error)}\n{self.title} weapons take: {self.weapon_help()}.") from None
        check_size(self.dump(changed))
        return changed

    def remove_weapon(self, sheet: Sheet, name: str) -> Sheet:
        """`sheet` without the weapon called `name` (any case)."""
        weapons: tuple[Any, ...] = sheet.weapons  # type: ignore[attr-defined]
        kept = tuple(w for w in weapons if name_key(w.name) != name_key(name))
        if len(kept) == len(weapons):
            names = ", ".join(w.name for w in weapons) or "none"
            raise SheetError(f"There is no weapon called **{name}**. Weapons: {names}.")
        return sheet.model_copy(update={"weapons": kept})


def _within(sheet: type[Sheet], key: str, value: int) -> int:
    """`value` brought inside the range of the number field `key`."""
    metadata = sheet.model_fields[key].metadata
    for bound in metadata:
        if isinstance(bound, annotated_types.Ge) and isinstance(bound.ge, int):
            value = max(value, bound.ge)
        if isinstance(bound, annotated_types.Le) and isinstance(bound.le, int):
            value = min(value, bound.le)
    return value


def parse_pairs(text: str) -> list[tuple[str, str]]:
    """`str=12 dex=17 hp=28/28 "weapon_focus=longsword, rapier"` as (field, value) pairs, in order."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise SheetError(f"Could not read the values: {error}.") from None
    pairs = []
    for word in words:
        key, equals, value = word.partition("=")
        if not equals or not key:
            raise SheetError(
                f"`{clip_name(word)}` is not `field=value`. Write pairs like `str=12 dex=17 hp=28/28`; "
                'quote a value with spaces: `"weapon_focus=long sword"`.'
            )
        pairs.append((key, value))
    if not pairs:
        raise SheetError("No values given. Write pairs like `str=12 dex=17 hp=28/28`.")
    return pairs


def clip_name(text: str, limit: int = 40) -> str:
    """What a player typed, short enough to quote back in an error, without breaking its code span."""
    text = text.replace("`", "'")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_size(data: dict[str, Any]) -> None:
    """Refuse a block larger than `MAX_BLOCK_BYTES` of compact JSON."""
    size = len(json.dumps(data, separators=(",", ":")).encode())
    if size > MAX_BLOCK_BYTES:
        raise SheetError(f"A stat block may be at most {MAX_BLOCK_BYTES // 1024} KB; this one is {size // 1024} KB.")


def explain(error: ValidationError, *, limit: int = 8) -> str:
    """A pydantic error as lines a player can act on: where, and what was wrong."""
    lines = [explain_one(problem) for problem in error.errors(include_url=False)[:limit]]
    if error.error_count() > limit:
        lines.append(f"… and {error.error_count() - limit} more problems.")
    return "\n".join(lines)


def explain_one(problem: ErrorDetails) -> str:
    """One pydantic problem as a line: where, and what was wrong."""
    where = ".".join(str(part) for part in problem["loc"]) or "the block"
    return f"`{where}`: {problem['msg'].removeprefix('Value error, ')}"


def allowed(sheet: type[Sheet], key: str) -> str:
    """What a field accepts, in words: a range, a list of choices, yes/no, or a list."""
    info = sheet.model_fields[key]
    annotation, optional = _unwrap_optional(info.annotation)
    if annotation is bool:
        words = "yes or no"
    elif _is_list(annotation):
        choices = _literal_values(get_args(annotation)[0])
        inner = " or ".join(map(str, choices)) if choices else "names"
        words = f"a comma-separated list of {inner} (none to clear)"
    elif choices := _literal_values(annotation):
        words = ", ".join(map(str, choices))
    else:
        low = next((m.ge for m in info.metadata if isinstance(m, annotated_types.Ge)), None)
        high = next((m.le for m in info.metadata if isinstance(m, annotated_types.Le)), None)
        if low is not None and high is not None:
            words = f"a whole number from {low} to {high}"
        elif low is not None:
            words = f"a whole number of at least {low}"
        else:
            words = "a whole number" if annotation is int else "text"
    return f"{words}, or none" if optional else words


def from_text(annotation: Any, key: str, text: str) -> Any:
    """A value for a field of this type from what a person typed, for lenient validation.

    "none" (or "-", or nothing) clears an optional field or a list; choices match in any case; lists are
    comma-separated; yes/no, on/off and true/false are booleans. Everything else is left for pydantic.
    """
    annotation, optional = _unwrap_optional(annotation)
    text = text.strip()
    empty = text.lower() in NONE_WORDS
    if optional and empty:
        return None
    if _is_list(annotation):
        item = get_args(annotation)[0]
        return [] if empty else [_choice(item, p.strip()) for p in text.split(LIST_SEPARATOR) if p.strip()]
    if annotation is bool:
        return _parse_bool(key, text)
    return _choice(annotation, text)


NONE_WORDS = ("", "none", "-", "—")


def _choice(annotation: Any, text: str) -> str:
    for choice in _literal_values(annotation):
        if isinstance(choice, str) and choice.lower() == text.lower():
            return choice
    return text


def _unwrap_optional(annotation: Any) -> tuple[Any, bool]:
    if get_origin(annotation) in (typing.Union, types.UnionType) and type(None) in get_args(annotation):
        rest = [a for a in get_args(annotation) if a is not type(None)]
        return (rest[0] if len(rest) == 1 else typing.Union[tuple(rest)]), True  # noqa: UP007
    return annotation, False


def _literal_values(annotation: Any) -> tuple[Any, ...]:
    return get_args(annotation) if get_origin(annotation) is Literal else ()


def _is_list(annotation: Any) -> bool:
    return get_origin(annotation) in (list, tuple)


def _parse_bool(key: str, text: str) -> bool:
    lowered = text.lower()
    if lowered in ("yes", "y", "true", "on", "1"):
        return True
    if lowered in ("no", "n", "false", "off", "0"):
        return False
    raise SheetError(f"`{key}` is yes or no, not `{text}`.")


# Validation context: the block comes from the store, where it was valid when it was saved.
STORED = "stored"
# Validation context: names already in the block being changed, accepted again as they are.
GRANDFATHERED = "grandfathered"


def _grandfather(sheet: Sheet) -> dict[str, Any]:
    return {GRANDFATHERED: frozenset(_strings(sheet.model_dump()))}


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list | tuple):
        return [s for item in value for s in _strings(item)]
    return []


def name_field(kind: NameKind) -> AfterValidator:
    """A stat block field holding a name: the name policy of `bot.rules.names` for new names.

    Names read from the store, and names a block being changed already had, are kept as they are.
    """

    def check(value: str, info: ValidationInfo) -> str:
        context = info.context or {}
        if context.get(STORED) or value in context.get(GRANDFATHERED, ()):
            return value
        try:
            return clean_name(value, kind)
        except NameRefused as refused:
            raise ValueError(refused.message) from None

    return AfterValidator(check)


def character_name(text: str) -> str:
    """A character name as stored (the name policy); a leading `#` is refused, `#12` being a number."""
    try:
        return clean_name(text, CHARACTER)
    except NameRefused as refused:
        raise SheetError(refused.message, title=refused.title) from None
