"""Star Frontiers weapons: damage dice, range bands, and the weapon table of data/sf_weapons.json (§7-8).

A character's weapon fills each stat it leaves unset from the table entry of the same name (case-insensitive);
range bands given on the character's weapon replace the table's bands as a whole. What the reference marks
NOT FOUND is in the table as `{"value": ..., "default": true}`: `Weapon.defaults` names those fields
("damage", "modifier", "blunt", "rate_of_fire", "seu.max", "bands.short", ...) so that the presentation can
label every proposed number.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from functools import cache
from importlib import resources
from typing import Any, Final, get_args

from bot.errors import UserError
from bot.rules import notation
from bot.rules.notation import DiceStyle
from bot.rules.sheets.base import name_key
from bot.rules.sheets.star_frontiers import MELEE_SKILLS, Defense, SfSheet, SfWeapon, Skill
from bot.rules.star_frontiers.defenses import DamageKind

# The sheet caps a weapon's dice the same way (1-99 dice of 2-999 sides).
MAX_DICE: Final = 99
MAX_SIDES: Final = 999
MAX_BONUS: Final = 999
MAX_DISTANCE_M: Final = 100_000  # the largest band bound a character's weapon may have


class AttackError(UserError):
    """An attack the rules cannot resolve as asked; the message says what would work."""

    title = "Can't make that attack"


class NotationError(notation.NotationError, AttackError):
    """Damage dice that do not read; the message points at the character."""


class Band(StrEnum):
    """A range class (§4 step 3), nearest first; the values are the sheet's band keys."""

    POINT_BLANK = "point_blank"
    SHORT = "short"
    MEDIUM = "medium"
    LONG = "long"
    EXTREME = "extreme"

    @property
    def label(self) -> str:
        """The band as players say it."""
        return self.value.replace("_", " ")


@dataclass(frozen=True, slots=True)
class Dice:
    """`count` dice of `sides` faces plus a fixed `bonus`; no dice at all is fixed damage (bare hands)."""

    count: int
    sides: int
    bonus: int = 0

    def __str__(self) -> str:
        if not self.count:
            return str(self.bonus)
        dice = f"{self.count}d{self.sides}"
        return f"{dice}+{self.bonus}" if self.bonus else dice

    @property
    def mean(self) -> Fraction:
        """The exact expected total."""
        return Fraction(self.count * (self.sides + 1), 2) + self.bonus

    def plus(self, bonus: int) -> Dice:
        """The same dice with `bonus` more fixed points."""
        return Dice(self.count, self.sides, self.bonus + bonus)


# How the tables and players write damage (§6): `NdM`, `NdM+K` or a fixed `K`. Spaces anywhere (`1 0d6` is
# 10d6), 3/4/4 digits and `0dM` as no dice are how this reader has always read it; nothing written so changes.
DAMAGE_STYLE: Final = DiceStyle(
    hint="Write damage as dice like 2d10, 1d5+3 or a fixed number like 3.",
    most_dice=MAX_DICE,
    most_sides=MAX_SIDES,
    most_bonus=MAX_BONUS,
    signs="+",
    flat_from=0,
    spaces="anywhere",
    digits=(3, 4, 4),
    no_dice=True,
)


def parse_dice(text: str) -> Dice:
    """Damage as written in the tables and by players: `NdM`, `NdM+K` or a fixed `K` (§6).

    Raises:
        NotationError: with the position of the first character that does not fit.
    """
    term = notation.read_dice(text, DAMAGE_STYLE, NotationError)
    return Dice(term.count, term.sides, term.bonus)


@dataclass(frozen=True, slots=True)
class Stun:
    """A weapon's stun setting (§11 item 5): its name, the damage it still does, who is immune to the stun."""

    name: str = "stun"
    damage: Dice | None = None  # None: the stun does no damage (the electrostunner's, the stunstick's)
    immune: frozenset[Defense] = frozenset()


@dataclass(frozen=True, slots=True)
class Weapon:
    """A weapon with every stat the hit procedures and the damage roll read (§4-8).

    `skill` None is a weapon whose skill the reference does not give (grenade rifle, quick-mode shots): it
    adds only what the attacker's stated skill level adds. Damage is `damage`, or `damage` per SEU set on
    the dial (`per_seu`, lasers), or by band (`band_damage`, the sonic disruptor).
    """

    name: str
    skill: Skill | None = None
    damage: Dice | None = None
    per_seu: bool = False
    seu: tuple[int, int] | None = None  # the dial's lowest and highest setting
    band_damage: tuple[tuple[Band, Dice], ...] = ()
    bands: tuple[tuple[Band, int], ...] = ()  # each band the weapon has, with its upper bound in metres
    heavy: bool = False  # skill one level lower, -10 untrained (§2)
    burst: bool = False  # can fire a 10-round burst (§6)
    modifier: int = 0  # the Melee Weapons table's weapon modifier (§5 step 3)
    blunt: bool = False  # a melee hit on a roll ending in 0 knocks out (§3)
    punch: bool = False  # adds the wielder's punching damage (§1)
    rate_of_fire: int | None = None
    kind: DamageKind | None = None  # what the hit is to a suit or screen (§11 item 1); None: none concerns it
    stun: Stun | None = None  # the stun setting, if the weapon has one (§11 item 5)
    defense: str = ""
    notes: str = ""
    source: str = ""
    found: bool = True  # False: the reference has no stats for it at all
    defaults: frozenset[str] = frozenset()  # fields holding the reference's proposed defaults

    @property
    def melee(self) -> bool:
        """A melee weapon: its skill is melee or martial arts (§5 step 2)."""
        return self.skill in MELEE_SKILLS

    def is_default(self, key: str) -> bool:
        """Whether a field (or any part of it, e.g. "bands") holds a proposed default."""
        return any(d == key or d.startswith(f"{key}.") for d in self.defaults)

    @property
    def damage_text(self) -> str:
        """The damage as the table writes it."""
        if self.band_damage:
            return ", ".join(f"{band.label} {dice}" for band, dice in self.band_damage)
        if self.damage is None:
            return "none given"
        text = f"{self.damage} per SEU" if self.per_seu else str(self.damage)
        if self.punch:
            return "punching damage" if text == "0" else f"punching damage + {text}"
        return text

    def missing(self) -> tuple[str, ...]:
        """The stats an attack needs that this weapon lacks."""
        lacking = []
        if self.skill is None:
            lacking.append("skill")
        if self.damage is None and not self.band_damage:
            lacking.append("damage")
        if not self.melee and not self.bands:
            lacking.append("range bands")
        return tuple(lacking)


# ------------------------------------------------------------------------------------------------ the table


def _leaf(value: Any, key: str, defaults: set[str]) -> Any:
    """A table value; `{"value": v, "default": true}` is a proposed default, remembered under `key`."""
    if isinstance(value, dict) and "value" in value:
        if value.get("default") is True:
            defaults.add(key)
        return value["value"]
    return value


def _entry(raw: dict[str, Any], *, found: bool) -> Weapon:
    defaults: set[str] = set()

    def get(key: str, default: Any = None) -> Any:
        return _leaf(raw.get(key, default), key, defaults)

    skill = get("skill")
    if skill is not None and skill not in get_args(Skill):
        raise ValueError(f"sf_weapons.json: {raw['name']}: unknown skill {skill!r}")
    damage = get("damage")
    kind = get("kind")
    stun = raw.get("stun")
    if stun is not None and not set(stun.get("immune", ())) <= set(get_args(Defense)):
        raise ValueError(f"sf_weapons.json: {raw['name']}: unknown defense in stun.immune")
    seu = raw.get("seu")
    bands = {Band(k): int(_leaf(v, f"bands.{k}", defaults)) for k, v in raw.get("bands", {}).items()}
    if list(bands) != sorted(bands, key=list(Band).index) or list(bands.values()) != sorted(set(bands.values())):
        raise ValueError(f"sf_weapons.json: {raw['name']}: bands must be in order and grow")
    return Weapon(
        name=raw["name"],
        skill=skill,
        damage=None if damage is None else parse_dice(damage),
        per_seu=bool(get("per_seu", False)),
        seu=None if seu is None else (_leaf(seu["min"], "seu.min", defaults), _leaf(seu["max"], "seu.max", defaults)),
        band_damage=tuple(
            (Band(k), parse_dice(_leaf(v, f"band_damage.{k}", defaults))) for k, v in raw.get("band_damage", {}).items()
        ),
        bands=tuple(bands.items()),
        heavy=bool(get("heavy", False)),
        burst=bool(get("burst", False)),
        modifier=int(get("modifier", 0)),
        blunt=bool(get("blunt", False)),
        punch=bool(get("punch", False)),
        rate_of_fire=get("rate_of_fire"),
        kind=None if kind is None else DamageKind(kind),
        stun=None
        if stun is None
        else Stun(
            stun["name"],
            None if stun["damage"] is None else parse_dice(stun["damage"]),
            frozenset(stun.get("immune", ())),
        ),
        defense=str(get("defense", "")),
        notes=str(get("notes", "")),
        source=str(get("source", "")),
        found=found,
        defaults=frozenset(defaults),
    )


@cache
def table() -> dict[str, Weapon]:
    """Every weapon of data/sf_weapons.json by its name key, ranged then melee then the unstatted ones."""
    raw = json.loads(resources.files("bot.rules.data").joinpath("sf_weapons.json").read_text(encoding="utf-8"))
    entries = [_entry(r, found=True) for r in (*raw["ranged"], *raw["melee"])]
    entries += [_entry(r, found=False) for r in raw["not_found"]]
    by_key = {name_key(w.name): w for w in entries}
    if len(by_key) != len(entries):
        raise ValueError("sf_weapons.json: a weapon name appears twice")
    return by_key


def weapon_names(*, melee: bool | None = None, ready: bool = True) -> tuple[str, ...]:
    """Table weapon names in table order, for autocomplete; `melee` picks one kind.

    `ready` keeps only the weapons usable as they are; without it, also those a character must give stats for
    (the grenade rifle's damage, the weapons the reference has no stats for).
    """
    return tuple(
        w.name for w in table().values() if (melee is None or w.melee is melee) and not (ready and w.missing())
    )


def _needs(weapon: Weapon, lacking: tuple[str, ...]) -> AttackError:
    examples = {
        "skill": "skill=projectile",
        "damage": "damage=2d10",
        "range bands": "point_blank=5 short=20 medium=50 long=100 extreme=200",
    }
    example = " ".join(examples[key] for key in lacking)
    what = " and ".join(lacking)
    if name_key(weapon.name) not in table():
        why = f"**{weapon.name}** is not in the Star Frontiers weapon table, so its stats must be given"
    elif not weapon.found:
        why = f"The rules reference has no stats for the **{weapon.name}** (NOT FOUND), so they must be given"
    else:
        why = f"The weapon table gives no {what} for the **{weapon.name}**" + (
            f" ({weapon.notes.split(';')[0]})" if weapon.notes else ""
        )
    return AttackError(f"{why}: add its {what} to the character's weapon, like `{example}`.")


def table_weapon(name: str) -> Weapon:
    """The table weapon of that name, case-insensitive; refused when unknown or without stats."""
    weapon = table().get(name_key(name))
    if weapon is None:
        raise AttackError(
            f"There is no **{name}** in the Star Frontiers weapon table. Known: {', '.join(weapon_names())}."
        )
    if lacking := weapon.missing():
        raise _needs(weapon, lacking)
    return weapon


def effective_weapon(weapon: SfWeapon) -> Weapon:
    """A character's weapon with each unset stat taken from the table entry of the same name (§7-8)."""
    entry = table().get(name_key(weapon.name))
    base = entry or Weapon(name=weapon.name, found=True, source="character")
    defaults = set(base.defaults)
    changes: dict[str, Any] = {}

    def take(key: str, value: object, **also: object) -> None:
        changes[key] = value
        changes.update(also)
        defaults.difference_update({d for d in defaults if d == key or d.startswith(f"{key}.")})

    if weapon.skill is not None:
        take("skill", weapon.skill)
    if weapon.heavy is not None:
        take("heavy", weapon.heavy)
    if weapon.damage is not None:
        take("damage", parse_dice(weapon.damage), per_seu=False, seu=None, band_damage=())
        defaults.difference_update({d for d in defaults if d.startswith(("seu.", "band_damage."))})
    if any(bound is not None for bound in weapon.bands.values()):
        take("bands", tuple((Band(k), bound) for k, bound in weapon.bands.items() if bound is not None))
    if weapon.modifier is not None:
        take("modifier", weapon.modifier)
    if weapon.blunt is not None:
        take("blunt", weapon.blunt)
    if weapon.kind is not None:
        take("kind", DamageKind(weapon.kind))
    if entry is not None and changes:
        changes["source"] = f"character's stats over the table ({entry.source})" if entry.source else "character"
    resolved = replace(base, name=weapon.name, defaults=frozenset(defaults), **changes)
    if lacking := resolved.missing():
        raise _needs(resolved, lacking)
    return resolved


def character_weapon(sheet: SfSheet, name: str) -> Weapon:
    """The character's weapon of that name, or else the table's (anyone may punch or pick up a club)."""
    for weapon in sheet.weapons:
        if name_key(weapon.name) == name_key(name):
            return effective_weapon(weapon)
    if name_key(name) in table():
        return table_weapon(name)
    own = ", ".join(w.name for w in sheet.weapons) or "none"
    raise AttackError(
        f"The character has no weapon called **{name}**, and the weapon table has none either. Theirs: {own}."
    )


# ------------------------------------------------------------------------------------------------ range bands


@dataclass(frozen=True, slots=True)
class RangeBand:
    """Where a distance falls on a weapon's bands (§7, §10 item 17): over `above` metres, up to `upper`."""

    band: Band
    distance: float | None  # None when the band was given, not measured (quick mode)
    above: int | None = None  # the previous band's upper bound; None for the weapon's first band
    upper: int | None = None
    default: bool = False  # a bound deciding the band is a proposed default

    @property
    def text(self) -> str:
        """How the band was found."""
        if self.distance is None or self.upper is None:
            return f"{self.band.label} (given)"
        low = f"over {self.above} m and " if self.above is not None else ""
        return f"{self.band.label}: {self.distance:g} m is {low}up to {self.upper} m"


def range_band(weapon: Weapon, distance: float) -> RangeBand:
    """§7: the band of the distance; each upper bound is inclusive, beyond the last band there is no shot."""
    if not (math.isfinite(distance) and 0 <= distance <= MAX_DISTANCE_M):
        raise AttackError(f"A distance is 0 to {MAX_DISTANCE_M:,} metres, not {distance:g}.")
    above: int | None = None
    previous: Band | None = None
    for band, upper in weapon.bands:
        if distance <= upper:
            decided = {band} | ({previous} if previous is not None else set())
            default = any(weapon.is_default(f"bands.{b.value}") for b in decided)
            return RangeBand(band, distance, above, upper, default)
        above, previous = upper, band
    if not weapon.bands:
        raise AttackError(f"The **{weapon.name}** has no range bands.")
    last, bound = weapon.bands[-1]
    raise AttackError(
        f"{distance:g} m is out of the **{weapon.name}**'s reach: its last band, {last.label}, ends at {bound} m."
    )
