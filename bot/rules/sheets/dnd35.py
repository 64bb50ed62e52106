"""The D&D 3.5 / NWN stat block: abilities, attack and armor numbers, feats, proficiencies, weapons (dnd35.md).

Everything an attack in dnd35.md reads from the attacker or the defender is stored here; what an attack only
knows at the table (distance, flanking, charging, ...) is not. Derived values (ability modifiers, size
modifier, AC in its four forms, iterative attacks, ...) are computed, never stored.

Weapons are either a table weapon by name, every other stat left unset (the SRD table of §9 fills it in), or
the player's own with the stats given. A stat given on a table weapon overrides the table's, which is how a
Large wielder's longsword gets its bigger damage dice.

Armor check penalties are stored as the SRD table prints them: zero or negative, ready to be added to a roll.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Annotated, Any, ClassVar, Final, Literal, get_args

from pydantic import AfterValidator, Field, ValidationInfo, model_validator

from bot.rules import notation
from bot.rules.data.armor import TableArmor, armor_table, table_armor
from bot.rules.names import LIST_ENTRY, WEAPON, NameKind
from bot.rules.sheets.base import (
    NotationValueError,
    Sheet,
    SheetError,
    clip_name,
    dice_text,
    name_field,
    name_key,
)

Size = Literal["fine", "diminutive", "tiny", "small", "medium", "large", "huge", "gargantuan", "colossal"]
# The same number for attack rolls and AC (dnd35.md §2, "Size modifier").
SIZE_MODIFIERS: Final[dict[str, int]] = {
    "fine": 8,
    "diminutive": 4,
    "tiny": 2,
    "small": 1,
    "medium": 0,
    "large": -1,
    "huge": -2,
    "gargantuan": -4,
    "colossal": -8,
}
ABILITIES: Final = ("strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma")
ABILITY_LABELS: Final = ("Str", "Dex", "Con", "Int", "Wis", "Cha")

# BAB alone never gives a fifth attack; each one after the first is 5 lower (dnd35.md §3).
MAX_ITERATIVE_ATTACKS: Final = 4
ITERATIVE_STEP: Final = 5
FINESSE_MIN_BAB: Final = 1  # §2: Weapon Finesse is a feat that needs base attack bonus +1
# A tower shield costs -2 on attack rolls whenever it is employed (dnd35.md §10).
TOWER_SHIELD_ATTACK_PENALTY: Final = -2

WornArmor = Literal["none", "light", "medium", "heavy"]
WornShield = Literal["none", "buckler", "light", "heavy", "tower"]
# The SRD's proficiency feats: Armor Proficiency (light, medium, heavy), Shield and Tower Shield Proficiency.
ArmorProficiency = Literal["light", "medium", "heavy", "shield", "tower shield"]
# Simple and Martial Weapon Proficiency cover a whole group; exotic weapons are learned one at a time, by name.
WeaponGroup = Literal["simple", "martial"]
WeaponCategory = Literal["simple", "martial", "exotic"]
Handedness = Literal["light", "one-handed", "two-handed"]
# "and": the weapon is both types at once (morningstar); "or": the wielder picks (dagger, halberd) (dnd35.md §9).
DamageType = Literal[
    "bludgeoning",
    "piercing",
    "slashing",
    "bludgeoning and piercing",
    "bludgeoning and slashing",
    "piercing and slashing",
    "bludgeoning or piercing",
    "bludgeoning or slashing",
    "piercing or slashing",
]
Material = Literal["ordinary", "silver", "cold iron", "adamantine"]
Alignment = Literal["good", "evil", "lawful", "chaotic"]
OPPOSED_ALIGNMENTS: Final = (frozenset({"good", "evil"}), frozenset({"lawful", "chaotic"}))
EnergyType = Literal["acid", "cold", "electricity", "fire", "sonic"]

# What a DR's "y" may name (dnd35.md §7, "Damage reduction"); "-" means nothing bypasses it (bot/rules/notation.py).
DR_PROPERTIES: Final = (
    "magic",
    "silver",
    "cold iron",
    "adamantine",
    "good",
    "evil",
    "lawful",
    "chaotic",
    "bludgeoning",
    "piercing",
    "slashing",
    "epic",
)
MAX_DR: Final = 200
# An epic weapon is one of +6 or better (SRD 3.5, damage reduction); dnd35.md names "epic" but not the bar.
EPIC_ENHANCEMENT: Final = 6

_CONNECTOR = re.compile(r"\s+(and|or)\s+")  # between the two types of a damage type


def ability_modifier(score: int) -> int:
    """`floor((score - 10) / 2)` (dnd35.md §1)."""
    return (score - 10) // 2


def signed(number: int) -> str:
    """`number` with its sign, as modifiers are written: +3, -1, +0."""
    return f"{number:+d}"


def explained(start: int, parts: Sequence[tuple[int, str]], label: str = "") -> str:
    """`total = start + 5 armor - 1 Dex`, leaving out the parts that add nothing."""
    terms = [f"{'-' if n < 0 else '+'} {abs(n)} {name}" for n, name in parts if n]
    total = start + sum(n for n, _ in parts)
    return " ".join([f"{total} = {start}{' ' + label if label else ''}", *terms])


_ITEM = name_field(NameKind("An armor or shield name", 40))


def _item_name(value: str, info: ValidationInfo) -> str:
    """An armor's or shield's name under the name policy, or "" for none given."""
    return value if value == "" else str(_ITEM.func(value, info))  # type: ignore[call-arg]


def _energy(text: str) -> str:
    dice, _, kind = " ".join(text.lower().split()).partition(" ")
    if kind not in get_args(EnergyType):
        raise ValueError(
            f"an energy rider is dice and an energy type, like 1d6 fire; types: {', '.join(get_args(EnergyType))}"
        )
    return f"{dice_text(dice)} {kind}"


def _no_comma(text: str) -> str:
    # Lists of weapon names are typed comma-separated, so a name with a comma could never be named in one.
    if "," in text:
        raise ValueError("a weapon name cannot contain a comma; write `bastard sword`, not `Sword, bastard`")
    return text


def _damage_reduction(text: str) -> str:
    """The DR written the one way: `5/magic`, `10/-`, `5/silver and good`; empty for none."""
    read = notation.read_reduction(text, DR_PROPERTIES, MAX_DR, NotationValueError)
    return "" if read is None else str(read)


Score = Annotated[int, Field(ge=1, le=99, description="Ability score")]
Bonus = Annotated[int, Field(ge=0, le=60)]
CheckPenalty = Annotated[int, Field(ge=-20, le=0, description="Armor check penalty, zero or negative as printed")]
Name = Annotated[str, name_field(WEAPON), AfterValidator(_no_comma)]
# A weapon named in a list of proficiencies or feats.
ListName = Annotated[str, name_field(LIST_ENTRY), AfterValidator(_no_comma)]
Names = Annotated[list[ListName], Field(max_length=20)]
Dice = Annotated[str, AfterValidator(dice_text)]
EnergyRider = Annotated[str, AfterValidator(_energy)]


class DndWeapon(Sheet):
    """A weapon: a stat left unset comes from the SRD table of dnd35.md §9 for the weapon's name."""

    name: Name
    category: WeaponCategory | None = None
    damage: Dice | None = None
    threat: Annotated[int | None, Field(ge=2, le=20, description="Lowest d20 that threatens: 19 for 19-20")] = None
    multiplier: Annotated[int | None, Field(ge=2, le=6)] = None
    damage_type: DamageType | None = None
    handedness: Handedness | None = None
    # Weapon Finesse works with every light weapon and with these (rapier, whip, spiked chain) (dnd35.md §2).
    finesse: bool | None = None
    ranged: bool | None = None
    # Thrown weapons reach 5 range increments, projectile weapons 10 (dnd35.md §2); a dagger is melee and thrown.
    thrown: bool | None = None
    range_increment: Annotated[int | None, Field(ge=5, le=1000, description="Feet")] = None
    # The rest describe this one item, not the kind of weapon, so the table has nothing to say about them.
    enhancement: Annotated[int, Field(ge=0, le=10)] = 0
    masterwork: bool = False
    keen: bool = False
    # A composite bow adds the Str bonus up to this rating; any other bow only the Str penalty (dnd35.md §7).
    strength_rating: Annotated[int, Field(ge=0, le=10)] = 0
    material: Material = "ordinary"
    alignment: Annotated[list[Alignment], Field(max_length=2)] = Field(default_factory=list)
    # Flaming and similar dice: added once, never multiplied, never reduced by DR (dnd35.md §7, §11 step 6).
    energy: Annotated[list[EnergyRider], Field(max_length=5)] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> DndWeapon:
        for pair in OPPOSED_ALIGNMENTS:
            if pair <= set(self.alignment):
                raise ValueError(f"a weapon cannot be both {' and '.join(sorted(pair))}")
        if len(set(self.alignment)) < len(self.alignment):
            raise ValueError("each alignment may be named once")
        if self.ranged is False and self.thrown is False and self.range_increment is not None:
            raise ValueError("a range increment is for a ranged or thrown weapon")
        return self

    @property
    def damage_types(self) -> frozenset[str]:
        """The physical types this weapon can deal; with "or" the wielder picks, so both count for DR."""
        if self.damage_type is None:
            return frozenset()
        return frozenset(_CONNECTOR.split(self.damage_type)[::2])

    def dr_properties(self) -> frozenset[str]:
        """What this weapon brings against damage reduction: magic, material, alignment, damage types."""
        properties = set(self.damage_types) | set(self.alignment)
        if self.enhancement >= 1:
            properties.add("magic")
        if self.enhancement >= EPIC_ENHANCEMENT:
            properties.add("epic")
        if self.material != "ordinary":
            properties.add(self.material)
        return frozenset(properties)

    def summary(self) -> str:
        """One line: the stats given (the rest come from the table) and the properties of this item."""
        parts = [self.damage or "SRD table"]
        if self.threat is not None or self.multiplier is not None:
            threat = "table" if self.threat is None else ("20" if self.threat == 20 else f"{self.threat}-20")
            parts.append(f"{threat}/{'table' if self.multiplier is None else f'x{self.multiplier}'}")
        parts += [text for text in (self.damage_type, self.handedness, self.category) if text]
        if self.ranged or self.thrown:
            kind = "thrown" if self.thrown else "ranged"
            parts.append(f"{kind}, {self.range_increment} ft" if self.range_increment else kind)
        if self.finesse:
            parts.append("finessable")
        if self.enhancement:
            parts.append(signed(self.enhancement))
        elif self.masterwork:
            parts.append("masterwork")
        if self.keen:
            parts.append("keen")
        if self.strength_rating:
            parts.append(f"Str rating {signed(self.strength_rating)}")
        if self.material != "ordinary":
            parts.append(self.material)
        parts += self.alignment
        parts += [f"+{rider}" for rider in self.energy]
        return ", ".join(parts)


# The feats a sheet records, each a field of its own.
FEATS: Final = (
    "weapon_finesse",
    "weapon_focus",
    "improved_critical",
    "two_weapon_fighting",
    "improved_two_weapon_fighting",
    "greater_two_weapon_fighting",
    "precise_shot",
    "uncanny_dodge",
)


class DndSheet(Sheet):
    """A D&D 3.5 / NWN character."""

    settable: ClassVar[tuple[str, ...]] = (
        *ABILITIES,
        "bab",
        "size",
        "hit_points",
        "max_hit_points",
        "armor",
        "armor_name",
        "armor_bonus",
        "max_dex",
        "armor_check_penalty",
        "shield",
        "shield_name",
        "shield_bonus",
        "shield_check_penalty",
        "natural_armor",
        "deflection",
        "dodge",
        "other_ac",
        "armor_proficiencies",
        "weapon_groups",
        "weapon_proficiencies",
        *FEATS,
        "rogue_level",
        "monk",
        "damage_reduction",
        "immune_to_criticals",
    )
    core: ClassVar[tuple[str, ...]] = ("strength", "dexterity", "bab", "hit_points", "armor_bonus")
    aliases: ClassVar[Mapping[str, str]] = {
        "str": "strength",
        "dex": "dexterity",
        "con": "constitution",
        "int": "intelligence",
        "wis": "wisdom",
        "cha": "charisma",
        "hp": "hit_points",
        "max_hp": "max_hit_points",
        "maxhp": "max_hit_points",
        "hp_max": "max_hit_points",
        "armor_class_bonus": "armor_bonus",
        "acp": "armor_check_penalty",
        "natural": "natural_armor",
        "finesse": "weapon_finesse",
        "focus": "weapon_focus",
        "twf": "two_weapon_fighting",
        "itwf": "improved_two_weapon_fighting",
        "gtwf": "greater_two_weapon_fighting",
        "sneak_attack": "rogue_level",
        "sneak": "rogue_level",
        "rogue": "rogue_level",
        "dr": "damage_reduction",
        "crit_immune": "immune_to_criticals",
        "immune": "immune_to_criticals",
        "base_attack_bonus": "bab",
    }
    pointers: ClassVar[Mapping[str, tuple[str, tuple[str, ...]]]] = {
        "ac": (
            "AC is worked out from `armor_bonus`, `shield_bonus`, `natural_armor`, `deflection`, `dodge`, "
            "`other_ac`, Dex and size; set those.",
            ("armor_bonus", "shield_bonus", "natural_armor", "deflection", "dodge", "other_ac"),
        ),
        "feat": (
            "each feat is a field of its own: `weapon_finesse`, `weapon_focus`, `improved_critical`, "
            "`two_weapon_fighting`, `precise_shot`, `uncanny_dodge`...",
            FEATS,
        ),
    }
    health: ClassVar[tuple[str, str] | None] = ("hit_points", "max_hit_points")

    strength: Score = 10
    dexterity: Score = 10
    constitution: Score = 10
    intelligence: Score = 10
    wisdom: Score = 10
    charisma: Score = 10
    bab: Annotated[int, Field(ge=0, le=60, description="Base attack bonus")] = 0
    size: Size = "medium"
    hit_points: Annotated[int, Field(ge=-1000, le=10000)] = 10
    max_hit_points: Annotated[int, Field(ge=1, le=10000)] = 10

    # What is worn decides which proficiency is needed; the numbers are the item's, enhancement included.
    # The names are the SRD table's (dnd35.md §10) when the armor or shield was set by name, else "".
    armor_name: Annotated[str, AfterValidator(_item_name)] = ""
    shield_name: Annotated[str, AfterValidator(_item_name)] = ""
    armor: WornArmor = "none"
    armor_bonus: Bonus = 0
    # The lowest Max Dex of the armor and the shield (a tower shield has +2); None when nothing limits Dex.
    max_dex: Annotated[int | None, Field(ge=0, le=20)] = None
    armor_check_penalty: CheckPenalty = 0
    shield: WornShield = "none"
    shield_bonus: Bonus = 0
    shield_check_penalty: CheckPenalty = 0
    natural_armor: Bonus = 0
    deflection: Bonus = 0
    # Dodge bonuses stack, so this is their sum.
    dodge: Bonus = 0
    # The "+ other" of the AC formula (insight, luck, sacred, ... or a penalty); it counts in every form of AC.
    other_ac: Annotated[int, Field(ge=-20, le=60)] = 0

    armor_proficiencies: Annotated[list[ArmorProficiency], Field(max_length=5)] = Field(default_factory=list)
    weapon_groups: Annotated[list[WeaponGroup], Field(max_length=2)] = Field(default_factory=list)
    weapon_proficiencies: Annotated[list[ListName], Field(max_length=40)] = Field(default_factory=list)

    weapon_finesse: bool = False
    weapon_focus: Names = Field(default_factory=list)
    improved_critical: Names = Field(default_factory=list)
    two_weapon_fighting: bool = False
    improved_two_weapon_fighting: bool = False
    greater_two_weapon_fighting: bool = False
    precise_shot: bool = False
    uncanny_dodge: bool = False
    # Sneak attack dice are ⌈level / 2⌉ d6 (dnd35.md §7).
    rogue_level: Annotated[int, Field(ge=0, le=60)] = 0
    monk: bool = False  # unarmed or with a kama, NWN's -3 iterative step where the server plays it (dnd35.md §3)

    damage_reduction: Annotated[str, AfterValidator(_damage_reduction)] = ""
    # Constructs, oozes, plants, undead, elementals: no critical hits, no precision damage (dnd35.md §6).
    immune_to_criticals: bool = False
    weapons: Annotated[tuple[DndWeapon, ...], Field(max_length=20)] = ()

    # -- the SRD armor table ----------------------------------------------------------------------------
    @classmethod
    def suggested(cls, key: str) -> tuple[str, ...]:
        """Armor and shields: the kinds, then the SRD table's names of that kind (dnd35.md §10)."""
        if key not in ("armor", "shield"):
            return super().suggested(key)
        names = tuple(row.name for row in armor_table() if (row.kind == "shield") == (key == "shield"))
        return (*super().suggested(key), *names)

    @classmethod
    def expand(cls, key: str, text: str, current: Mapping[str, Any]) -> dict[str, Any] | None:
        """`armor` or `shield` given an SRD name (dnd35.md §10) fills the item's kind, bonus, Max Dex, check penalty.

        "Masterwork" before the name makes the check penalty 1 smaller. The Max Dex kept is the lower of this
        item's and the other item's, when the other was set by name too (or is a tower shield). A plain kind
        (`heavy`, `tower`) keeps the numbers as they are and forgets the name; `none` takes the item off, its
        numbers with it (`_taken_off`).
        """
        if key not in ("armor", "shield"):
            return None
        kinds = get_args(WornArmor if key == "armor" else WornShield)
        kind = text.strip().lower()
        if kind == "none":
            return cls._taken_off(key, current)
        if kind in kinds:
            return {key: kind, f"{key}_name": ""}
        found = srd_item(text)
        if found is None:
            raise SheetError(
                f"`{clip_name(text)}` is neither a kind of {key} ({', '.join(kinds)}) nor one in the SRD table, "
                "like Full plate or Heavy steel shield (autocomplete on `value` lists them; dnd35.md §10)."
            )
        row, masterwork = found
        if (row.kind == "shield") != (key == "shield"):
            field = "shield" if key == "armor" else "armor"
            raise SheetError(f"The {row.name} is {'a shield' if field == 'shield' else 'armor'}: set it as `{field}`.")
        penalty = min(row.check_penalty + 1, 0) if masterwork else row.check_penalty
        name = f"Masterwork {row.name[0].lower()}{row.name[1:]}" if masterwork else row.name
        limits = [
            m for m in (row.max_dex, _max_dex_of("shield" if key == "armor" else "armor", current)) if m is not None
        ]
        if key == "armor":
            return {
                "armor": row.kind,
                "armor_name": name,
                "armor_bonus": row.bonus,
                "armor_check_penalty": penalty,
                "max_dex": min(limits) if limits else None,
            }
        return {
            "shield": row.shield,
            "shield_name": name,
            "shield_bonus": row.bonus,
            "shield_check_penalty": penalty,
            "max_dex": min(limits) if limits else None,
        }

    @classmethod
    def _taken_off(cls, key: str, current: Mapping[str, Any]) -> dict[str, Any]:
        """The armor or the shield taken off: no name, no bonus, no check penalty, and only the other's Max Dex.

        The Max Dex left is the other item's as its name (or a tower shield's kind) tells; armor still worn whose
        name is not the SRD table's keeps the Max Dex as it stands, since nothing says which item set it.
        """
        other = "shield" if key == "armor" else "armor"
        unknown = current.get("armor") != "none" and srd_item(str(current.get("armor_name") or "")) is None
        max_dex = current.get("max_dex") if other == "armor" and unknown else _max_dex_of(other, current)
        penalty = "armor_check_penalty" if key == "armor" else "shield_check_penalty"
        return {key: "none", f"{key}_name": "", f"{key}_bonus": 0, penalty: 0, "max_dex": max_dex}

    @property
    def worn(self) -> str | None:
        """The armor and shield worn with their numbers (for /dnd ac), or None when neither is."""
        parts = []
        if self.armor != "none" or self.armor_bonus:
            max_dex = "none" if self.max_dex is None else signed(self.max_dex)
            parts.append(
                f"{self.armor_name or 'Armor'} ({self.armor}): {signed(self.armor_bonus)}, max Dex {max_dex}, "
                f"check penalty {self.armor_check_penalty}"
            )
        if self.shield != "none" or self.shield_bonus:
            tower = f", {TOWER_SHIELD_ATTACK_PENALTY} on attacks" if self.shield == "tower" else ""
            parts.append(
                f"{self.shield_name or 'Shield'} ({self.shield}): {signed(self.shield_bonus)}, "
                f"check penalty {self.shield_check_penalty}{tower}"
            )
        return "; ".join(parts) or None

    # -- abilities and size -----------------------------------------------------------------------------
    def modifier(self, ability: str) -> int:
        """The modifier of one of `ABILITIES`."""
        score: int = getattr(self, ability)
        return ability_modifier(score)

    @property
    def size_modifier(self) -> int:
        """The size modifier to attack rolls and AC."""
        return SIZE_MODIFIERS[self.size]

    # -- armor class ------------------------------------------------------------------------------------
    @property
    def dex_to_ac(self) -> int:
        """The Dex modifier as it counts for AC: a bonus capped at the max Dex; a penalty always in full."""
        dex = self.modifier("dexterity")
        return dex if self.max_dex is None else min(dex, self.max_dex)

    def _ac_parts(self, *, touch: bool, flat_footed: bool) -> list[tuple[int, str]]:
        # Uncanny dodge keeps the Dex bonus when flat-footed, and with it the dodge bonuses, which the SRD
        # takes away only together with the Dex bonus.
        denied = flat_footed and not self.uncanny_dodge
        dex = min(self.dex_to_ac, 0) if denied else self.dex_to_ac
        armor = f"armor ({self.armor_name})" if self.armor_name else "armor"
        shield = f"shield ({self.shield_name})" if self.shield_name else "shield"
        parts = [] if touch else [(self.armor_bonus, armor), (self.shield_bonus, shield)]
        capped = self.max_dex is not None and self.modifier("dexterity") > self.max_dex
        parts.append((dex, f"Dex (max {signed(self.max_dex or 0)})" if capped else "Dex"))
        parts.append((self.size_modifier, "size"))
        if not touch:
            parts.append((self.natural_armor, "natural"))
        parts.append((self.deflection, "deflection"))
        if not denied:
            parts.append((self.dodge, "dodge"))
        parts.append((self.other_ac, "other"))
        return parts

    def ac(self, *, touch: bool = False, flat_footed: bool = False) -> int:
        """AC against a normal, touch, flat-footed or flat-footed touch attack (dnd35.md §5)."""
        return 10 + sum(n for n, _ in self._ac_parts(touch=touch, flat_footed=flat_footed))

    def ac_explained(self, *, touch: bool = False, flat_footed: bool = False) -> str:
        """The AC with every component that adds something."""
        return explained(10, self._ac_parts(touch=touch, flat_footed=flat_footed))

    # -- proficiency and attacks ------------------------------------------------------------------------
    @property
    def armor_proficient(self) -> bool:
        """Proficient with the armor worn (or wearing none)."""
        return self.armor == "none" or self.armor in self.armor_proficiencies

    @property
    def shield_proficient(self) -> bool:
        """Proficient with the shield carried (or carrying none)."""
        needed = "tower shield" if self.shield == "tower" else "shield"
        return self.shield == "none" or needed in self.armor_proficiencies

    def _armor_attack_parts(self) -> list[tuple[int, str]]:
        # Without proficiency the armor's and the shield's check penalties both apply (dnd35.md §13 item 11).
        parts = []
        if not self.armor_proficient:
            parts.append((self.armor_check_penalty, "armor check (not proficient)"))
        if not self.shield_proficient:
            parts.append((self.shield_check_penalty, "shield check (not proficient)"))
        if self.shield == "tower":
            parts.append((TOWER_SHIELD_ATTACK_PENALTY, "tower shield"))
        return parts

    @property
    def armor_attack_penalty(self) -> int:
        """What the armor and shield cost on every attack roll: non-proficiency and the tower shield."""
        return sum(n for n, _ in self._armor_attack_parts())

    def proficient_with(self, name: str, category: WeaponCategory | None) -> bool:
        """Proficient with the weapon called `name` of `category` (simple, martial or exotic)."""
        by_name = name_key(name) in {name_key(n) for n in self.weapon_proficiencies}
        return by_name or (category is not None and category in self.weapon_groups)

    def has_focus(self, name: str) -> bool:
        """Weapon Focus with the weapon called `name`."""
        return name_key(name) in {name_key(n) for n in self.weapon_focus}

    def has_improved_critical(self, name: str) -> bool:
        """Improved Critical with the weapon called `name`."""
        return name_key(name) in {name_key(n) for n in self.improved_critical}

    @property
    def iterative_attacks(self) -> tuple[int, ...]:
        """The BAB of each attack of a full attack: +6/+1, +16/+11/+6/+1 (dnd35.md §3)."""
        count = min(MAX_ITERATIVE_ATTACKS, max(1, (self.bab - 1) // ITERATIVE_STEP + 1))
        return tuple(self.bab - ITERATIVE_STEP * i for i in range(count))

    @property
    def off_hand_attacks(self) -> int:
        """Off-hand attacks in a full attack with two weapons: one, plus Improved and Greater TWF (§4)."""
        return 1 + self.improved_two_weapon_fighting + self.greater_two_weapon_fighting

    def _attack_parts(self, ability: str) -> list[tuple[int, str]]:
        label = ABILITY_LABELS[ABILITIES.index(ability)]
        return [(self.modifier(ability), label), (self.size_modifier, "size"), *self._armor_attack_parts()]

    def melee_attack(self) -> int:
        """BAB + Str + size + armor penalties; the weapon adds its own (enhancement, focus, proficiency)."""
        return self.bab + sum(n for n, _ in self._attack_parts("strength"))

    def ranged_attack(self) -> int:
        """BAB + Dex + size + armor penalties; the weapon and the distance add their own."""
        return self.bab + sum(n for n, _ in self._attack_parts("dexterity"))

    @property
    def finesse_uses_dex(self) -> bool:
        """Weapon Finesse at BAB +1 or more (§2), and Dex is the higher: the bot takes Dex only then (§13 item 9)."""
        return self.finesse_wanted and self.bab >= FINESSE_MIN_BAB

    @property
    def finesse_wanted(self) -> bool:
        """Weapon Finesse on the sheet and Dex the higher, whether or not the BAB allows the feat yet."""
        return self.weapon_finesse and self.modifier("dexterity") > self.modifier("strength")

    def strength_to_damage(self, grip: Literal["one-handed", "two-handed", "off-hand"]) -> int:
        """The Str added to melee damage: 1x, 1½x or ½x a bonus, rounded down; a penalty always 1x (§7, §13)."""
        strength = self.modifier("strength")
        if strength <= 0 or grip == "one-handed":
            return strength
        return strength * 3 // 2 if grip == "two-handed" else strength // 2

    @property
    def sneak_attack_dice(self) -> int:
        """d6s of sneak attack: ⌈rogue level / 2⌉."""
        return (self.rogue_level + 1) // 2

    # -- damage reduction -------------------------------------------------------------------------------
    @property
    def dr_amount(self) -> int:
        """The x of DR x/y, 0 without damage reduction."""
        reduction = self._reduction
        return 0 if reduction is None else reduction.amount

    @property
    def dr_bypass(self) -> tuple[str, ...]:
        """The properties named by the y of DR x/y; empty when nothing bypasses it."""
        reduction = self._reduction
        return () if reduction is None else reduction.bypass

    @property
    def _reduction(self) -> notation.Reduction | None:
        return notation.read_reduction(self.damage_reduction, DR_PROPERTIES, MAX_DR)

    def dr_bypassed_by(self, properties: Collection[str]) -> bool:
        """Whether an attack with these properties ignores the DR: "and" needs every one, "or" any one."""
        if not self.dr_bypass:
            return False
        needs_all = " and " in self.damage_reduction
        have = [p in properties for p in self.dr_bypass]
        return all(have) if needs_all else any(have)

    # -- display ----------------------------------------------------------------------------------------
    def sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """Abilities, combat, armor, feats, proficiencies and weapons, like a paper character sheet."""
        abilities = [
            (label, f"{getattr(self, a)} ({signed(self.modifier(a))})")
            for a, label in zip(ABILITIES, ABILITY_LABELS, strict=True)
        ]
        combat = [
            ("BAB", "/".join(map(signed, self.iterative_attacks))),
            ("Size", f"{self.size} ({signed(self.size_modifier)})"),
            ("AC", f"{self.ac()} (touch {self.ac(touch=True)}, flat-footed {self.ac(flat_footed=True)})"),
            ("Hit points", f"{self.hit_points} / {self.max_hit_points}"),
            ("Damage reduction", self.damage_reduction or "none"),
        ]
        if self.immune_to_criticals:
            combat.append(("Critical hits", "immune: no criticals, no sneak attack or other precision damage"))
        if self.rogue_level:
            combat.append(("Sneak attack", f"{self.sneak_attack_dice}d6"))
        max_dex = "no limit" if self.max_dex is None else signed(self.max_dex)
        armor = [
            (
                "Armor",
                f"{self.armor_name + ': ' if self.armor_name else ''}{self.armor}, {signed(self.armor_bonus)}, "
                f"max Dex {max_dex}, check {self.armor_check_penalty}",
            ),
            (
                "Shield",
                f"{self.shield_name + ': ' if self.shield_name else ''}{self.shield}, {signed(self.shield_bonus)}, "
                f"check {self.shield_check_penalty}",
            ),
            (
                "Other",
                f"natural {signed(self.natural_armor)}, deflection {signed(self.deflection)}, "
                f"dodge {signed(self.dodge)}, other {signed(self.other_ac)}",
            ),
        ]
        return [
            ("Abilities", abilities),
            ("Combat", combat),
            ("Armor", armor),
            ("Feats", self._feats()),
            ("Proficiencies", self._proficiencies()),
            ("Weapons", [(w.name, w.summary()) for w in self.weapons]),
        ]

    def _feats(self) -> list[tuple[str, str]]:
        flags = [
            (self.weapon_finesse, "Weapon Finesse"),
            (self.two_weapon_fighting, "Two-Weapon Fighting"),
            (self.improved_two_weapon_fighting, "Improved Two-Weapon Fighting"),
            (self.greater_two_weapon_fighting, "Greater Two-Weapon Fighting"),
            (self.precise_shot, "Precise Shot"),
            (self.uncanny_dodge, "Uncanny Dodge"),
        ]
        feats = [(label, "yes") for taken, label in flags if taken]
        if self.weapon_focus:
            feats.append(("Weapon Focus", ", ".join(self.weapon_focus)))
        if self.improved_critical:
            feats.append(("Improved Critical", ", ".join(self.improved_critical)))
        return feats

    def _proficiencies(self) -> list[tuple[str, str]]:
        weapons = ", ".join([*self.weapon_groups, *self.weapon_proficiencies]) or "none"
        armor = ", ".join(self.armor_proficiencies) or "none"
        return [("Weapons", weapons), ("Armor", armor)]

    def derived(self) -> list[tuple[str, str]]:
        """Modifiers, AC in its four forms and the attack numbers, each with how it was computed."""
        modifiers = ", ".join(
            f"{label} {signed(self.modifier(a))}" for a, label in zip(ABILITIES, ABILITY_LABELS, strict=True)
        )
        lines = [
            ("Ability modifiers", f"floor((score - 10) / 2): {modifiers}"),
            ("Size modifier", f"{signed(self.size_modifier)} ({self.size})"),
        ]
        if self.dex_to_ac < self.modifier("dexterity"):
            lines.append(("Dex to AC", f"{signed(self.dex_to_ac)}: Dex {signed(self.modifier('dexterity'))} capped"))
        lines += [
            ("AC", self.ac_explained()),
            ("Touch AC", self.ac_explained(touch=True)),
            ("Flat-footed AC", self.ac_explained(flat_footed=True)),
            ("Flat-footed touch AC", self.ac_explained(touch=True, flat_footed=True)),
            ("Melee attack", explained(self.bab, self._attack_parts("strength"), "BAB")),
            ("Ranged attack", explained(self.bab, self._attack_parts("dexterity"), "BAB")),
        ]
        if self.finesse_uses_dex:
            finesse = self._attack_parts("dexterity")
            if self.shield != "none":
                finesse.append((self.shield_check_penalty, "shield check"))
            lines.append(("Finesse attack", explained(self.bab, finesse, "BAB")))
        steps = "/".join(map(signed, self.iterative_attacks))
        lines.append(("Full attack", f"{steps}: BAB, then -{ITERATIVE_STEP} for each extra attack, at most 4"))
        if self.two_weapon_fighting or self.improved_two_weapon_fighting or self.greater_two_weapon_fighting:
            steps = "/".join(signed(-ITERATIVE_STEP * i) for i in range(self.off_hand_attacks))
            lines.append(
                ("Off-hand attacks", f"{self.off_hand_attacks} at {steps}, on top of the two-weapon penalties")
            )
        lines.append(
            (
                "Str to damage",
                f"{signed(self.strength_to_damage('one-handed'))} one hand, "
                f"{signed(self.strength_to_damage('two-handed'))} two hands, "
                f"{signed(self.strength_to_damage('off-hand'))} off hand",
            )
        )
        if self.rogue_level:
            lines.append(("Sneak attack", f"{self.sneak_attack_dice}d6 = ceil({self.rogue_level} / 2) d6"))
        return lines


def _max_dex_of(key: str, current: Mapping[str, Any]) -> int | None:
    """The Max Dex the armor or shield (`key`) in `current` imposes, as its SRD name or a tower shield tells."""
    if current.get(key, "none") == "none":
        return None
    found = srd_item(str(current.get(f"{key}_name") or ""))
    if found is None and key == "shield" and current.get("shield") == "tower":
        found = srd_item("Tower shield")
    return None if found is None else found[0].max_dex


def srd_item(text: str) -> tuple[TableArmor, bool] | None:
    """The SRD armor or shield row `text` names (dnd35.md §10), and whether it is masterwork; None if none."""
    words = " ".join(text.split())
    masterwork = words.lower().startswith("masterwork ")
    row = table_armor(words[len("masterwork ") :] if masterwork else words)
    return None if row is None else (row, masterwork)
