"""D&D 3.5 notation and SRD tables: "1d8+4", "19-20/x2", "5/magic", the weapon table (dnd35.md).

* Notation (§6, §7, §9): weapon damage `NdM[+K|-K]` (or a flat number, the Small shuriken's "1"), criticals
  `19-20/x2`, `20/x3`, `x4`, `18-20`, precision dice `3d6` or `2d6+1d8`, energy riders `1d6 fire`, and damage
  reduction `5/magic`, `10/-`, `5/silver and good` (read by the stat block's own DR reader).
* Tables (§9): `srd_weapons.json`, loaded once, looked up by name in any case, by the natural name ("Bastard
  sword", what a character's weapon is called) or the SRD's ("Sword, bastard"). The armor table (§10) is
  `bot.rules.data.armor`'s, which the stat block reads too.
* `effective_weapon` fills a character's weapon from the table: a stat left unset takes the table's value for
  the same name; damage comes from the Small or Medium column by the wielder's size.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Final, Literal, cast, get_args

from bot.errors import UserError
from bot.rules import notation
from bot.rules.data.armor import load
from bot.rules.notation import DiceStyle
from bot.rules.sheets.base import name_key
from bot.rules.sheets.dnd35 import (
    DR_PROPERTIES,
    MAX_DR,
    DndWeapon,
    EnergyType,
    Handedness,
    WeaponCategory,
)

MAX_DICE_COUNT: Final = 99  # the stat block's limits for damage dice (NdM with N 1-99, M 2-999)
MAX_SIDES: Final = 999
MAX_FLAT: Final = 999
MAX_MULTIPLIER: Final = 6  # the stat block's limit for a critical multiplier
MAX_RIDERS: Final = 5
MAX_NOTATION_LENGTH: Final = notation.MAX_NOTATION_LENGTH

StrengthRule = Literal["full", "bow", "none"]  # §7: melee, thrown and sling / bows / crossbows and the net


class AttackError(UserError):
    """An attack the rules cannot resolve as asked."""

    title = "Can't make that attack"


class NotationError(notation.NotationError, AttackError):
    """Damage, critical or dice notation that does not read; the message points at the character."""


class DamageReductionError(NotationError):
    """Damage reduction written in a way the bot cannot read; the message points at the character."""


class WeaponError(AttackError):
    """A weapon the table does not know and whose stats are not all given, or one the rules refuse."""

    title = "Can't use that weapon"


# ------------------------------------------------------------------------------------------------ notation


@dataclass(frozen=True, slots=True)
class Dice:
    """`count` dice of `sides` faces each."""

    count: int
    sides: int

    def __str__(self) -> str:
        return f"{self.count}d{self.sides}"

    @property
    def mean(self) -> Fraction:
        """The average total."""
        return Fraction(self.count * (self.sides + 1), 2)


@dataclass(frozen=True, slots=True)
class WeaponDamage:
    """One weapon damage roll as written: `count`d`sides` + `bonus` (count 0 for a flat number)."""

    count: int
    sides: int
    bonus: int = 0

    @property
    def dice(self) -> Dice:
        """The dice part alone."""
        return Dice(self.count, self.sides)

    def __str__(self) -> str:
        if not self.count:
            return str(self.bonus)
        return f"{self.count}d{self.sides}{self.bonus:+d}" if self.bonus else f"{self.count}d{self.sides}"


@dataclass(frozen=True, slots=True)
class Critical:
    """A threat range and a multiplier: `threat` is the lowest face that threatens (19 for 19-20)."""

    threat: int
    multiplier: int

    def __str__(self) -> str:
        return f"{threat_text(self.threat)}/x{self.multiplier}"


@dataclass(frozen=True, slots=True)
class DamageReduction:
    """§7 DR x/y: `amount` off each weapon attack unless it has the `bypass` properties (all, or any one)."""

    amount: int
    bypass: tuple[str, ...]  # empty: nothing bypasses it ("10/-")
    needs_all: bool  # "and": every property; "or" (or a single one): any

    def bypassed_by(self, properties: Collection[str]) -> bool:
        """§7: "and" needs both properties, "or" either; "-" is never bypassed."""
        if not self.bypass:
            return False
        have = [p in properties for p in self.bypass]
        return all(have) if self.needs_all else any(have)

    def __str__(self) -> str:
        return str(notation.Reduction(self.amount, self.bypass, self.needs_all))


@dataclass(frozen=True, slots=True)
class EnergyRider:
    """§7: flaming and similar "+Nd6" energy dice, added once, never multiplied, never reduced by DR."""

    dice: Dice
    energy: str

    def __str__(self) -> str:
        return f"{self.dice} {self.energy}"


def threat_text(threat: int) -> str:
    """A threat range as printed: 20, 19-20, 17-20."""
    return "20" if threat == 20 else f"{threat}-20"


# How this ruleset writes dice (§9): the stat block's limits, a count of at most 99 dice of 2 to 999 sides.
DAMAGE_STYLE: Final = DiceStyle(
    hint="Write damage as dice and a bonus, like 1d8+4, 2d6 or 1d4-1.",
    most_dice=MAX_DICE_COUNT,
    most_sides=MAX_SIDES,
    most_bonus=MAX_FLAT,
    bare_d=True,
    signs="+-",
    flat_from=1,
)
PRECISION_STYLE: Final = replace(DAMAGE_STYLE, hint="Write dice like 3d6, or several joined by +, like 2d6+1d8.")


def parse_damage(text: str) -> WeaponDamage:
    """§9: weapon damage as written, `1d8+4`, `2d6`, `1d4-1`, `d8`, or a flat number such as `1`.

    Raises:
        NotationError: with the position of the first character that does not fit.
    """
    term = notation.read_dice(text, DAMAGE_STYLE, NotationError)
    return WeaponDamage(term.count, term.sides, term.bonus)


def parse_dice(text: str) -> tuple[Dice, ...]:
    """Precision dice (§7, sneak attack): `3d6`, or several joined by `+`; empty or `none` for none.

    Raises:
        NotationError: with the position of the first character that does not fit.
    """
    if text.strip().lower() in ("", "none", "0", "-"):
        return ()
    return tuple(
        Dice(count, sides) for count, sides in notation.read_dice_sum(text, PRECISION_STYLE, MAX_RIDERS, NotationError)
    )


def parse_crit(text: str) -> Critical:
    """§6, §9: a critical as printed: `19-20/x2`, `20/x3`, `x4` (threat 20), `18-20` (x2), `19` (19-20/x2).

    The SRD's en dash and multiplication sign are read as `-` and `x`.

    Raises:
        NotationError: with the position of the first character that does not fit.
    """
    return Critical(*notation.read_critical(text, MAX_MULTIPLIER, NotationError))


def parse_dr(text: str) -> DamageReduction | None:
    """§7: damage reduction `5/magic`, `10/-`, `5/silver and good`, `10/cold iron or good`; None for none.

    Read by the stat block's own DR reader, so a DR typed here and one stored on a character agree.

    Raises:
        DamageReductionError: with the position of the first character that does not fit.
    """
    return _reduction(text, prefix=True)


def dr_from_text(normal: str) -> DamageReduction | None:
    """A DR already in the stat block's normal form (`5/silver and good`, `10/-`, or empty for none)."""
    return _reduction(normal, prefix=False)


def _reduction(text: str, *, prefix: bool) -> DamageReduction | None:
    read = notation.read_reduction(text, DR_PROPERTIES, MAX_DR, DamageReductionError, prefix=prefix)
    return None if read is None else DamageReduction(read.amount, read.bypass, read.needs_all)


def parse_energy(text: str) -> tuple[EnergyRider, ...]:
    """§7 energy riders: `1d6 fire`, several separated by commas (`1d6 fire, 1d6 cold`); empty for none.

    Raises:
        NotationError: for the dice, with their position.
        AttackError: for an energy type that is not one of the five.
    """
    riders = []
    for part in text.split(","):
        words = part.split()
        if not words or (len(words) == 1 and words[0].lower() == "none"):
            continue
        if len(words) != 2 or words[1].lower() not in get_args(EnergyType):
            raise AttackError(
                f"An energy rider is dice and a type, like `1d6 fire`, not `{part.strip()}`. "
                f"Types: {', '.join(get_args(EnergyType))}."
            )
        dice = parse_dice(words[0])
        if len(dice) != 1:
            raise AttackError(f"An energy rider has one dice term, like `1d6 fire`, not `{part.strip()}`.")
        riders.append(EnergyRider(dice[0], words[1].lower()))
    if len(riders) > MAX_RIDERS:
        raise AttackError(f"At most {MAX_RIDERS} energy riders.")
    return tuple(riders)


def parse_properties(text: str | Iterable[str]) -> frozenset[str]:
    """What an attack brings against DR (§7): `magic, silver, slashing`; each must be a DR property."""
    words = [w.strip().lower() for w in (text.split(",") if isinstance(text, str) else text)]
    properties = frozenset(" ".join(w.split()) for w in words if w.strip())
    unknown = sorted(properties - set(DR_PROPERTIES))
    if unknown:
        raise AttackError(
            f"Not a property that bypasses damage reduction: {', '.join(unknown)}. "
            f"Properties: {', '.join(DR_PROPERTIES)}."
        )
    return properties


# -------------------------------------------------------------------------------------------------- tables


@dataclass(frozen=True, slots=True)
class SecondEnd:
    """The off-hand end of a double weapon (§9): its damage by wielder size and its multiplier."""

    damage_small: WeaponDamage
    damage_medium: WeaponDamage
    multiplier: int


@dataclass(frozen=True, slots=True)
class TableWeapon:
    """A row of the SRD weapon table (§9)."""

    name: str  # the natural name, as a character's weapon is called: "Bastard sword"
    srd_name: str  # as the SRD prints it: "Sword, bastard"
    aliases: tuple[str, ...]
    category: WeaponCategory
    damage_small: WeaponDamage | None  # None for the net, which deals no damage
    damage_medium: WeaponDamage | None
    threat: int | None
    multiplier: int | None
    range_increment: int | None
    damage_type: str | None
    handedness: Handedness  # for ranged weapons, how they count for two-weapon fighting (§4)
    ranged: bool
    thrown: bool
    finesse: bool  # finessable although not light: rapier, whip, spiked chain (§2)
    strength: StrengthRule
    second_end: SecondEnd | None
    charge_multiplier: int | None  # the lance's x2 on a mounted charge (§7)
    martial_two_handed: bool  # bastard sword, dwarven waraxe: exotic one-handed, martial two-handed
    notes: str


def _table_damage(text: str | None) -> WeaponDamage | None:
    return None if text is None else parse_damage(text)


def _weapon_row(row: Mapping[str, Any]) -> TableWeapon:
    end = row["second_end"]
    second = None
    if end is not None:
        small, medium = parse_damage(end["damage_small"]), parse_damage(end["damage_medium"])
        second = SecondEnd(small, medium, end["multiplier"])
    return TableWeapon(
        name=row["name"],
        srd_name=row["srd_name"],
        aliases=tuple(row["aliases"]),
        category=row["category"],
        damage_small=_table_damage(row["damage_small"]),
        damage_medium=_table_damage(row["damage_medium"]),
        threat=row["threat"],
        multiplier=row["multiplier"],
        range_increment=row["range_increment"],
        damage_type=row["damage_type"],
        handedness=row["handedness"],
        ranged=row["ranged"],
        thrown=row["thrown"],
        finesse=row["finesse"],
        strength=row["strength"],
        second_end=second,
        charge_multiplier=row["charge_multiplier"],
        martial_two_handed=row["martial_two_handed"],
        notes=row["notes"],
    )


@functools.cache
def weapon_table() -> tuple[TableWeapon, ...]:
    """§9, in the reference's order (simple, martial, exotic)."""
    return tuple(_weapon_row(row) for row in load("srd_weapons.json")["weapons"])


@functools.cache
def _weapons_by_key() -> dict[str, TableWeapon]:
    return {name_key(n): w for w in weapon_table() for n in (w.name, w.srd_name, *w.aliases)}


def table_weapon(name: str) -> TableWeapon | None:
    """The SRD weapon called `name` in any case, by natural or SRD name ("Sword, bastard"); None if unknown."""
    return _weapons_by_key().get(name_key(" ".join(name.split())))


@functools.cache
def weapon_names() -> tuple[str, ...]:
    """Every SRD weapon's natural name, sorted, for autocomplete."""
    return tuple(sorted((w.name for w in weapon_table()), key=name_key))


# ------------------------------------------------------------------------------------------ effective weapon


@dataclass(frozen=True, slots=True)
class Weapon:
    """A weapon with every stat known: the character's own values, the rest from the SRD table (§9)."""

    name: str
    category: WeaponCategory
    damage: WeaponDamage
    threat: int
    multiplier: int
    damage_type: str
    handedness: Handedness
    finessable: bool  # light, or rapier / whip / spiked chain (§2); never for a ranged attack
    ranged: bool  # a projectile or thrown-only weapon: always a ranged attack
    thrown: bool  # may be thrown (a dagger is melee and thrown)
    range_increment: int | None
    enhancement: int
    masterwork: bool
    keen: bool
    strength_rating: int
    strength: StrengthRule
    energy: tuple[EnergyRider, ...]
    dr_properties: frozenset[str]
    second_end: SecondEnd | None
    charge_multiplier: int | None
    martial_two_handed: bool
    from_table: tuple[str, ...]  # which stats the table filled in
    table: TableWeapon | None

    @property
    def double(self) -> bool:
        """A double weapon (quarterstaff, two-bladed sword, ...)."""
        return self.second_end is not None

    @property
    def light(self) -> bool:
        """A light weapon (§2 finesse, §4 two-weapon fighting)."""
        return self.handedness == "light"


_REQUIRED: Final = ("category", "damage", "threat", "multiplier", "damage_type", "handedness")


def _strength_rule(weapon: DndWeapon, ranged: bool, thrown: bool) -> StrengthRule:
    """§7 for a weapon the table does not know: by its name, the only hint a custom launcher gives."""
    if not ranged or thrown:
        return "full"
    name = name_key(weapon.name)
    if "crossbow" in name:
        return "none"
    if "sling" in name:
        return "full"
    return "bow"


def _table_size_damage(table: TableWeapon, size: str, end: SecondEnd | None = None) -> WeaponDamage | None:
    small, medium = (end.damage_small, end.damage_medium) if end else (table.damage_small, table.damage_medium)
    return {"small": small, "medium": medium}.get(size)


def effective_weapon(weapon: DndWeapon, *, size: str = "medium") -> Weapon:
    """§9: `weapon` with every unset stat taken from the table entry of the same name.

    Args:
        weapon: The character's weapon; a stat it gives wins over the table's.
        size: The wielder's size: the table's damage is for a Small or a Medium wielder, so a wielder of
            another size must give the damage.

    Raises:
        WeaponError: the name is not in the table and stats are missing; the weapon deals no damage (net);
            a keen weapon that is neither piercing nor slashing; the table has no damage for this size.
    """
    table = table_weapon(weapon.name)
    if table is None:
        missing = [key for key in _REQUIRED if getattr(weapon, key) is None]
        if (weapon.ranged or weapon.thrown) and weapon.range_increment is None:
            missing.append("range_increment")
        if missing:
            raise WeaponError(
                f"**{weapon.name}** is not in the SRD weapon table, so it needs its own {', '.join(missing)}. "
                f"Give them (like `damage=1d8 threat=19 multiplier=2`), or name it after an SRD weapon "
                f"(like `Longsword`) and set only what differs (enhancement, material, ...)."
            )
    filled: dict[str, Any] = {}
    if table is not None:
        table_stats = {
            "category": table.category,
            "threat": table.threat,
            "multiplier": table.multiplier,
            "damage_type": table.damage_type,
            "handedness": table.handedness,
            "finesse": table.finesse,
            "ranged": table.ranged,
            "thrown": table.thrown,
            "range_increment": table.range_increment,
        }
        filled = {key: value for key, value in table_stats.items() if getattr(weapon, key) is None}
    complete = weapon.model_copy(update=filled)
    if complete.damage is not None:
        damage = parse_damage(complete.damage)
    else:
        assert table is not None  # a weapon without damage and not in the table was refused above
        if table.damage_medium is None:
            raise WeaponError(f"The {table.name.lower()} deals no damage ({table.notes}); there is nothing to roll.")
        table_damage = _table_size_damage(table, size)
        if table_damage is None:
            raise WeaponError(
                f"The SRD table gives {table.name.lower()} damage for Small and Medium wielders only; "
                f"set this weapon's damage for a {size} wielder (like `damage=2d6`)."
            )
        damage = table_damage
        filled["damage"] = str(damage)
    types = complete.damage_types
    if weapon.keen and not types & {"piercing", "slashing"}:
        raise WeaponError(
            f"Keen works only on piercing or slashing weapons; the {weapon.name} is {complete.damage_type}."
        )
    ranged, thrown = bool(complete.ranged), bool(complete.thrown)
    handedness = cast(Handedness, complete.handedness)
    return Weapon(
        name=weapon.name,
        category=cast(WeaponCategory, complete.category),
        damage=damage,
        threat=cast(int, complete.threat),
        multiplier=cast(int, complete.multiplier),
        damage_type=cast(str, complete.damage_type),
        handedness=handedness,
        finessable=handedness == "light" or bool(complete.finesse),
        ranged=ranged,
        thrown=thrown,
        range_increment=complete.range_increment,
        enhancement=weapon.enhancement,
        masterwork=weapon.masterwork,
        keen=weapon.keen,
        strength_rating=weapon.strength_rating,
        strength=table.strength if table is not None else _strength_rule(weapon, ranged, thrown),
        energy=tuple(rider for text in weapon.energy for rider in parse_energy(text)),
        dr_properties=complete.dr_properties(),
        second_end=table.second_end if table is not None else None,
        charge_multiplier=table.charge_multiplier if table is not None else None,
        martial_two_handed=table.martial_two_handed if table is not None else False,
        from_table=tuple(
            key for key in (*_REQUIRED, "finesse", "ranged", "thrown", "range_increment") if key in filled
        ),
        table=table,
    )


def second_end_damage(weapon: Weapon, size: str) -> WeaponDamage:
    """The off-hand end's damage of a double weapon for a wielder of `size` (§4, §9).

    Raises:
        WeaponError: the table has no damage for a wielder of this size.
    """
    assert weapon.second_end is not None and weapon.table is not None
    damage = _table_size_damage(weapon.table, size, weapon.second_end)
    if damage is None:
        raise WeaponError(
            f"The SRD table gives the {weapon.table.name.lower()}'s second end damage for Small and Medium "
            f"wielders only, so a {size} wielder can't fight with both ends here."
        )
    return damage
