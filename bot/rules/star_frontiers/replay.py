"""Star Frontiers' kinds of roll (`bot.rules.replay.Kind`): /sf shoot and /sf melee, and their typed options.

Each typed option is read back from the logged inputs (`Typed`), so that a fair log's options are checked against
what was rolled (`bot.rules.replay.disagreement`); the others say why not (`Kind.unreflected`). The kinds' names
and their inputs' JSON are what past fair logs hold: they never change. The readers of a shot's notation options
(`sf_damage`, `sf_distance`, `sf_setting`) are the command's own, so a typed value is read here as it was there;
`current_shot_options` reads a shot logged before its options were renamed with today's meaning.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from bot.rules import star_frontiers as sf
from bot.rules.replay import ANSWER_ONLY, UNKNOWN, Kind, Said, Typed, no, none, parse_text, present, said, same, zero
from bot.rules.sheets.base import name_key
from bot.rules.sheets.star_frontiers import HEAVY_UNTRAINED, SKILL_STEP
from bot.rules.star_frontiers.situation import ORDER as SHOT_WORDS
from bot.rules.star_frontiers.situation import ShotSituation, parse_shot_situation
from bot.rules.star_frontiers.situation import from_options as shot_situation_options

_UNREFLECTED: Final = {
    **ANSWER_ONLY,
    "name": "quick mode's attacker as the answer names them; the rules read no name",
}
_SHOT_UNREFLECTED: Final = {**_UNREFLECTED}


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
        "score": Typed(_quick(lambda a: a.attacker.base.value), absent=none),
        "skill": Typed(_quick(_sf_level), absent=none),
        "damage": Typed(_quick(lambda a: (a.weapon.damage, a.weapon.kind)), parse_text(sf_damage), none),
        "race": Typed(_quick_only(lambda a: a.attacker.race), absent=_quick_default(None)),
        "wounded": Typed(_quick_only(lambda a: a.attacker.wounded), absent=_quick_default(False)),
        # A character or a creature named is resolved to its numbers: that one was named, the inputs show.
        "character": Typed(lambda i: not _sf_quick(i.attack), present),
        # The name key the weapon is found by (§ the character's own, else the table's).
        "weapon": Typed(
            lambda i: None if _sf_quick(i.attack) else name_key(i.attack.weapon.name), parse_text(name_key)
        ),
        "target": Typed(lambda i: i.attack.defender != sf.NO_DEFENDER, present, no),
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
        parse_text(sf_distance),
    ),
    "target_movement": Typed(lambda i: i.attack.situation.target, absent=lambda i: sf.TargetMovement.WALKING),
    "attacker_movement": Typed(
        lambda i: "aiming" if i.attack.situation.aim else i.attack.situation.attacker,
        absent=lambda i: sf.AttackerMovement.STANDING,
    ),
    "burst": Typed(lambda i: i.attack.situation.burst, absent=no),
    "targets": Typed(lambda i: i.attack.situation.targets, absent=lambda i: 1),
    "setting": Typed(_sf_shot_setting, parse_text(sf_setting), lambda i: sf.Setting.DAMAGE, _sf_setting_agrees),
    "cover": Typed(lambda i: i.attack.situation.cover, absent=lambda i: sf.Cover.NONE),
    "target_size": Typed(lambda i: i.attack.situation.size, absent=lambda i: sf.Size.MEDIUM),
    "hands": Typed(_hands, absent=lambda i: "one"),
    "situation": Typed(
        _shot_situation,
        parse_text(lambda text: _shot_said(parse_shot_situation(text))),
        lambda i: _shot_said(ShotSituation()),
    ),
}
SF_MELEE_TYPED: Final[dict[str, Typed[SfMelee]]] = {
    **_sf_common(),
    "modifier": Typed(lambda i: i.attack.situation.modifier, absent=zero),
    "weapon_modifier": Typed(_quick_only(lambda a: a.weapon.modifier), absent=_quick_default(0)),
    # A martial arts attack is blunt whatever `blunt` says.
    "blunt": Typed(
        _quick_only(lambda a: UNKNOWN if a.weapon.skill == "martial_arts" else a.weapon.blunt),
        absent=_quick_default(False),
    ),
    "martial_arts": Typed(_quick_only(lambda a: a.weapon.skill == "martial_arts"), absent=_quick_default(False)),
    # A character defending brings its own load (§5 step 6): the option counts only against a quick target.
    "target_encumbered": Typed(
        lambda i: UNKNOWN if i.attack.defender.name else i.attack.situation.target_encumbered, absent=no
    ),
    "helpless": Typed(_helpless, absent=lambda i: "none"),
    "battle_rage": Typed(lambda i: i.attack.situation.battle_rage, absent=no),
    "target_defending": Typed(lambda i: i.attack.situation.defending, absent=no),
    "distance": Typed(lambda i: i.attack.situation.distance, absent=none),
    "setting": Typed(lambda i: i.attack.situation.setting, absent=lambda i: sf.Setting.DAMAGE),
}


SF_SHOT: Final[Kind[SfShot, sf.AttackResult]] = Kind(
    "sf.shoot",
    "sf shoot",
    SfShot,
    lambda i, rng: sf.shoot(i.attack, rng, i.variants),
    lambda r: dict(r.to_dict()),
    SF_SHOT_TYPED,
    hit_points=True,
    unreflected=_SHOT_UNREFLECTED,
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
    unreflected=_UNREFLECTED,
)
