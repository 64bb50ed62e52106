"""The Star Frontiers (Alpha Dawn) stat block: the paired abilities, weapon skills, Stamina, load, weapons.

Everything the ranged and melee hit procedures of star_frontiers.md §4-5 read from a character is stored here;
what only the attack knows (range, movement, cover, aiming, ...) is not. RW, MW, wounded and encumbered are
computed, never stored. Ability scores are stored with the racial modifiers already applied (§1).

Weapons are either a table weapon by name, every other stat left unset (the weapon tables of §7-8 fill it
in), or the player's own with the stats given. Range bands given on a weapon replace the table's bands as a
whole: a band left out is one the weapon does not have.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from typing import Annotated, ClassVar, Final, Literal

from pydantic import AfterValidator, Field, model_validator

from bot.rules.names import WEAPON
from bot.rules.sheets.base import Sheet, dice_text, name_field

Race = Literal["human", "dralasite", "vrusk", "yazirian"]
Skill = Literal["beam", "projectile", "gyrojet", "thrown", "melee", "martial_arts"]
SKILLS: Final[tuple[Skill, ...]] = ("beam", "projectile", "gyrojet", "thrown", "melee", "martial_arts")
MELEE_SKILLS: Final[tuple[Skill, ...]] = ("melee", "martial_arts")
# Suits and screens halve or stop some weapons' damage; the implant stops stun (§6).
Defense = Literal[
    "albedo suit",
    "albedo screen",
    "skeinsuit",
    "inertia screen",
    "gauss screen",
    "sonic screen",
    "anti-shock implant",
]

# What a weapon's hit is to a suit or screen (star_frontiers.md §11 item 1); the rules core's DamageKind values.
HitKind = Literal["laser", "ballistic", "needle", "electrostunner", "sonic", "sonic knife"]

# Default: a blank character's abilities. 45 is the base score of the middle d100 rolls, 36-55 (§1).
DEFAULT_ABILITY: Final = 45
# Ability scores are never raised above 100 (§1); the reference gives no floor, 1 keeps every score positive.
MAX_ABILITY: Final = 100
MIN_ABILITY: Final = 1
MAX_SKILL_LEVEL: Final = 6
# Each skill level adds 10; heavy weapons count one level lower, or -10 untrained (§2).
SKILL_STEP: Final = 10
HEAVY_UNTRAINED: Final = -10
# Punching damage by STR: the upper end of each band and its fixed damage (§1).
PUNCH_DAMAGE: Final = ((20, 1), (40, 2), (60, 3), (80, 4), (110, 5))
# Proposed default [NOT FOUND]: the reference defines encumbered as carrying more than half the capacity
# (§5 step 6) but gives no capacity; 50 kg is a placeholder until the Alpha Dawn rule is found.
DEFAULT_CAPACITY_KG: Final = 50
# Vrusk are ambidextrous: no wrong-hand -10 (§10 item 9). Only Yazirians have battle rage (§5 step 5).
AMBIDEXTROUS: Final[tuple[Race, ...]] = ("vrusk",)
BATTLE_RAGE: Final[tuple[Race, ...]] = ("yazirian",)
BANDS: Final = (("point_blank", "PB"), ("short", "S"), ("medium", "M"), ("long", "L"), ("extreme", "X"))


def half_up(score: int) -> int:
    """Half a score, rounded up: the one rounding the hit procedures use (§10 item 11)."""
    return (score + 1) // 2


Score = Annotated[int, Field(ge=MIN_ABILITY, le=MAX_ABILITY)]
Level = Annotated[int, Field(ge=0, le=MAX_SKILL_LEVEL, description="Skill level; 0 untrained")]
Band = Annotated[int | None, Field(ge=1, le=100_000, description="Upper end of the band in meters, inclusive")]


class SfWeapon(Sheet):
    """A weapon: a stat left unset comes from the weapon tables of star_frontiers.md §7-8 for its name."""

    name: Annotated[str, name_field(WEAPON)]
    skill: Skill | None = None
    # Heavy weapons use the skill one level lower, -10 untrained (§2).
    heavy: bool | None = None
    damage: Annotated[str, AfterValidator(dice_text)] | None = None
    point_blank: Band = None
    short: Band = None
    medium: Band = None
    long: Band = None
    extreme: Band = None
    # The Melee Weapons table's "weapon modifier" column (§5 step 3, §8).
    modifier: Annotated[int | None, Field(ge=-100, le=100)] = None
    # A blunt weapon knocks out on a hit whose roll ends in 0 (§3).
    blunt: bool | None = None
    # Which suits and screens concern its hits (§11 item 1); unset: the table's, or none.
    kind: HitKind | None = None

    @model_validator(mode="after")
    def _ascending(self) -> SfWeapon:
        bounds = [bound for bound in self.bands.values() if bound is not None]
        if any(low >= high for low, high in pairwise(bounds)):
            raise ValueError("range bands must grow: point_blank < short < medium < long < extreme")
        return self

    @property
    def bands(self) -> dict[str, int | None]:
        """The upper end of each range band in meters; all None means the table's bands."""
        return {key: getattr(self, key) for key, _ in BANDS}

    def summary(self) -> str:
        """One line: the stats given (the rest come from the table)."""
        parts = [self.damage or "table weapon"]
        if self.skill:
            parts.append(self.skill.replace("_", " "))
        if self.heavy:
            parts.append("heavy")
        if any(bound is not None for bound in self.bands.values()):
            given = [f"{label} {getattr(self, key)}" for key, label in BANDS if getattr(self, key) is not None]
            parts.append(" / ".join(given) + " m")
        if self.modifier is not None:
            parts.append(f"weapon modifier {self.modifier:+d}")
        if self.blunt:
            parts.append("blunt")
        if self.kind:
            parts.append(f"{self.kind} (for defenses)")
        return ", ".join(parts)


class SfSheet(Sheet):
    """A Star Frontiers character."""

    settable: ClassVar[tuple[str, ...]] = (
        "strength",
        "stamina",
        "dexterity",
        "reaction_speed",
        "intuition",
        "logic",
        "personality",
        "leadership",
        "race",
        *SKILLS,
        "current_stamina",
        "carried_kg",
        "capacity_kg",
        "defenses",
    )
    core: ClassVar[tuple[str, ...]] = ("strength", "stamina", "dexterity", "current_stamina", "beam")
    aliases: ClassVar[Mapping[str, str]] = {
        "str": "strength",
        "sta": "stamina",
        "dex": "dexterity",
        "rs": "reaction_speed",
        "int": "intuition",
        "log": "logic",
        "per": "personality",
        "ldr": "leadership",
        "hp": "current_stamina",
        "current": "current_stamina",
        "beam_weapons": "beam",
        "projectile_weapons": "projectile",
        "gyrojet_weapons": "gyrojet",
        "thrown_weapons": "thrown",
        "melee_weapons": "melee",
        "suit": "defenses",
        "screen": "defenses",
    }
    pointers: ClassVar[Mapping[str, tuple[str, tuple[str, ...]]]] = {
        "skill": (
            "each weapon skill is a field of its own: `beam`, `projectile`, `gyrojet`, `thrown`, `melee`, "
            "`martial_arts`.",
            SKILLS,
        ),
    }
    health: ClassVar[tuple[str, str] | None] = ("current_stamina", "stamina")

    strength: Score = DEFAULT_ABILITY
    stamina: Score = DEFAULT_ABILITY
    dexterity: Score = DEFAULT_ABILITY
    reaction_speed: Score = DEFAULT_ABILITY
    intuition: Score = DEFAULT_ABILITY
    logic: Score = DEFAULT_ABILITY
    personality: Score = DEFAULT_ABILITY
    leadership: Score = DEFAULT_ABILITY
    race: Race = "human"

    beam: Level = 0
    projectile: Level = 0
    gyrojet: Level = 0
    thrown: Level = 0
    melee: Level = 0
    martial_arts: Level = 0

    # Damage comes off Stamina; at 0 or less the character is dead (§6). The STA score is its maximum.
    current_stamina: Annotated[int, Field(ge=-1000, le=MAX_ABILITY)] = DEFAULT_ABILITY
    carried_kg: Annotated[int, Field(ge=0, le=10_000)] = 0
    capacity_kg: Annotated[int, Field(ge=1, le=10_000)] = DEFAULT_CAPACITY_KG
    defenses: Annotated[list[Defense], Field(max_length=7)] = Field(default_factory=list)
    weapons: Annotated[tuple[SfWeapon, ...], Field(max_length=20)] = ()

    @model_validator(mode="after")
    def _defenses_once(self) -> SfSheet:
        if len(set(self.defenses)) < len(self.defenses):
            raise ValueError("each defense may be named once")
        return self

    # -- combat scores ----------------------------------------------------------------------------------
    @property
    def ranged_weapon_score(self) -> int:
        """RW = ½ DEX, rounded up (§1)."""
        return half_up(self.dexterity)

    @property
    def melee_weapon_score(self) -> int:
        """MW = ½ of the greater of STR and DEX, rounded up (§1)."""
        return half_up(max(self.strength, self.dexterity))

    def level(self, skill: Skill) -> int:
        """The level in one weapon skill."""
        level: int = getattr(self, skill)
        return level

    def skill_bonus(self, skill: Skill, *, heavy: bool = False) -> int:
        """+10 per level; with a heavy weapon one level fewer, or -10 untrained (§2)."""
        level = self.level(skill)
        if heavy:
            return SKILL_STEP * (level - 1) if level else HEAVY_UNTRAINED
        return SKILL_STEP * level

    def base_chance(self, skill: Skill, *, heavy: bool = False) -> int:
        """RW or MW plus the skill: steps 1-2 of the hit procedure, before the situation's modifiers."""
        base = self.melee_weapon_score if skill in MELEE_SKILLS else self.ranged_weapon_score
        return base + self.skill_bonus(skill, heavy=heavy)

    @property
    def initiative_modifier(self) -> int:
        """RS / 10, rounded up (§1)."""
        return (self.reaction_speed + 9) // 10

    @property
    def punching_damage(self) -> int:
        """The fixed damage of bare hands, from STR (§1)."""
        return next(damage for top, damage in PUNCH_DAMAGE if self.strength <= top)

    # -- condition --------------------------------------------------------------------------------------
    @property
    def max_stamina(self) -> int:
        """The STA score: what current Stamina heals back to."""
        return self.stamina

    @property
    def wounded(self) -> bool:
        """Stamina at half or less, an exact half included (§10 item 10): -10 to hit."""
        return self.current_stamina * 2 <= self.max_stamina

    @property
    def dead(self) -> bool:
        """Stamina 0 or less (§6)."""
        return self.current_stamina <= 0

    @property
    def encumbered(self) -> bool:
        """Carrying more than half the capacity (§5 step 6)."""
        return self.carried_kg * 2 > self.capacity_kg

    @property
    def ambidextrous(self) -> bool:
        """No wrong-hand penalty (Vrusk)."""
        return self.race in AMBIDEXTROUS

    @property
    def battle_rage(self) -> bool:
        """Can fight in battle rage for +20 in melee (Yazirians)."""
        return self.race in BATTLE_RAGE

    # -- display ----------------------------------------------------------------------------------------
    def sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """Character, abilities in their pairs, skills and weapons."""
        character = [
            ("Race", self.race.title()),
            ("Stamina", f"{self.current_stamina} / {self.max_stamina}"),
            ("Load", f"{self.carried_kg} / {self.capacity_kg} kg"),
            ("Defenses", ", ".join(self.defenses) or "none"),
        ]
        abilities = [
            ("STR/STA", f"{self.strength} / {self.stamina}"),
            ("DEX/RS", f"{self.dexterity} / {self.reaction_speed}"),
            ("INT/LOG", f"{self.intuition} / {self.logic}"),
            ("PER/LDR", f"{self.personality} / {self.leadership}"),
        ]
        skills = [(skill.replace("_", " ").capitalize(), str(self.level(skill))) for skill in SKILLS]
        weapons = [(w.name, w.summary()) for w in self.weapons]
        return [("Character", character), ("Abilities", abilities), ("Skills", skills), ("Weapons", weapons)]

    def derived(self) -> list[tuple[str, str]]:
        """RW, MW, the base chance with each trained skill, condition, each with how it was computed."""
        stronger = "STR" if self.strength > self.dexterity else "DEX"
        lines = [
            ("RW", f"{self.ranged_weapon_score} = ceil(DEX {self.dexterity} / 2)"),
            (
                "MW",
                f"{self.melee_weapon_score} = ceil({stronger} {max(self.strength, self.dexterity)} / 2), "
                f"the greater of STR {self.strength} and DEX {self.dexterity}",
            ),
        ]
        for skill in SKILLS:
            if self.level(skill):
                base = "MW" if skill in MELEE_SKILLS else "RW"
                score = self.melee_weapon_score if skill in MELEE_SKILLS else self.ranged_weapon_score
                lines.append(
                    (
                        skill.replace("_", " ").capitalize(),
                        f"{self.base_chance(skill)} = {base} {score} + {self.skill_bonus(skill)} "
                        f"(level {self.level(skill)})",
                    )
                )
        lines += [
            ("Initiative modifier", f"+{self.initiative_modifier} = ceil(RS {self.reaction_speed} / 10)"),
            ("Punching damage", f"{self.punching_damage} (STR {self.strength})"),
            ("Wounded", self._wounded()),
            ("Encumbered", self._encumbered()),
        ]
        if self.ambidextrous:
            lines.append(("Ambidextrous", "no wrong-hand penalty"))
        if self.battle_rage:
            lines.append(("Battle rage", "+20 in melee while raging"))
        return lines

    def _wounded(self) -> str:
        stamina = f"Stamina {self.current_stamina} of {self.max_stamina}"
        if self.dead:
            return f"dead: {stamina}"
        if self.wounded:
            return f"yes, -10 to hit: {stamina} is half or less"
        return f"no: {stamina} is more than half"

    def _encumbered(self) -> str:
        load = f"{self.carried_kg} kg of {self.capacity_kg} kg"
        if self.encumbered:
            return f"yes, -10 in melee and +10 to be hit: {load} is more than half"
        return f"no: {load} is half or less"
