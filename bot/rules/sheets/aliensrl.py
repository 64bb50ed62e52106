"""The AliensRL stat block: a rank per weapon-type skill, pain, hit points, weapons (aliensrl.md §4-5, §8).

The weapon-type labels and the weapon defaults (accuracy 0, damage modifier 0, one shot, ammo damage 10)
are the reference's proposed defaults for numbers its source does not give: data, easy to change here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, ClassVar, Literal

from pydantic import Field

from bot.rules.names import WEAPON
from bot.rules.sheets.base import Sheet, name_field

# Default: the source names no skills; one skill per weapon-type label (aliensrl.md §4, "About skill names").
WeaponType = Literal["pistol", "rifle", "heavy"]
RANK_NAMES = ("none", "basic", "advanced", "expert", "master")
Rank = Annotated[int, Field(ge=0, le=4, description="Skill rank: 0 none, 1 basic, 2 advanced, 3 expert, 4 master")]
Name = Annotated[str, name_field(WEAPON)]


class Weapon(Sheet):
    """A ranged weapon. Defaults are the reference's proposals for values its source does not give."""

    name: Name
    type: WeaponType = "rifle"
    accuracy: Annotated[int, Field(ge=-20, le=20)] = 0
    ammo_damage: Annotated[int, Field(ge=1, le=1000)] = 10
    damage_modifier: Annotated[int, Field(ge=0, le=1000)] = 0
    shots: Annotated[int, Field(ge=1, le=20)] = 1


class AliensSheet(Sheet):
    """An AliensRL marine."""

    settable: ClassVar[tuple[str, ...]] = ("pistol", "rifle", "heavy", "pain", "hit_points", "max_hit_points")
    core: ClassVar[tuple[str, ...]] = ("pistol", "rifle", "heavy", "pain", "hit_points")
    aliases: ClassVar[Mapping[str, str]] = {
        "hp": "hit_points",
        "max_hp": "max_hit_points",
        "maxhp": "max_hit_points",
        "hp_max": "max_hit_points",
        "pistols": "pistol",
        "rifles": "rifle",
        "heavy_weapons": "heavy",
    }
    pointers: ClassVar[Mapping[str, tuple[str, tuple[str, ...]]]] = {
        "skill": ("each weapon skill is a field of its own: `pistol`, `rifle`, `heavy`.", ("pistol", "rifle", "heavy")),
    }
    health: ClassVar[tuple[str, str] | None] = ("hit_points", "max_hit_points")

    pistol: Rank = 0
    rifle: Rank = 0
    heavy: Rank = 0
    pain: Annotated[int, Field(ge=0, le=100, description="The pain value on the status line, as a magnitude")] = 0
    hit_points: Annotated[int, Field(ge=-1000, le=10000)] = 10
    max_hit_points: Annotated[int, Field(ge=1, le=10000)] = 10
    weapons: Annotated[tuple[Weapon, ...], Field(max_length=20)] = ()

    def rank(self, weapon_type: WeaponType) -> int:
        """The rank in the skill for `weapon_type`."""
        ranks: dict[str, int] = {"pistol": self.pistol, "rifle": self.rifle, "heavy": self.heavy}
        return ranks[weapon_type]

    def sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """Skills, condition and weapons."""
        skills = [(t.title(), f"{self.rank(t)} ({RANK_NAMES[self.rank(t)]})") for t in ("pistol", "rifle", "heavy")]
        condition = [
            ("Hit points", f"{self.hit_points} / {self.max_hit_points}"),
            ("Pain", f"-{self.pain}" if self.pain else "0"),
        ]
        weapons = [
            (
                w.name,
                f"{w.type}, accuracy {w.accuracy:+d}, ammo damage {w.ammo_damage}, "
                f"damage modifier {w.damage_modifier:+d}, {w.shots} shot{'s' if w.shots > 1 else ''}",
            )
            for w in self.weapons
        ]
        return [("Skills", skills), ("Condition", condition), ("Weapons", weapons)]
