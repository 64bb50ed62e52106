"""Star Frontiers (Alpha Dawn) as the bot registers it (`bot.rules.rulesets`): its words, settings, rolls, fights."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from bot.rules import encounter as fight
from bot.rules import luck
from bot.rules.encounter_attacks import sf_attacks
from bot.rules.rulesets import Fighting, Quick, Ruleset
from bot.rules.settings import Setting
from bot.rules.sheets.star_frontiers import SfSheet
from bot.rules.star_frontiers import (
    AttackError,
    AttackResult,
    Odds,
    Variants,
    character_weapon,
    conditions,
    weapon_names,
)
from bot.rules.star_frontiers.replay import SF_MELEE, SF_SHOT

KEY: Final = "sf"
SF_INITIATIVE: Final = "sf.initiative"  # side or individual: how a Star Frontiers encounter rolls initiative
# An NPC ability the stat line leaves out is the average score, 45 (Alpha Dawn, Beta 4.2): a quick creature's RS.
DEFAULT_RS: Final = 45

SETTINGS: Final = (
    Setting(
        key=SF_INITIATIVE,
        title="Star Frontiers: initiative by side or individually",
        help="How a new encounter rolls initiative each round (docs/encounters.md); running ones keep theirs.",
        choices={
            "side": "each side rolls d10 + its best initiative modifier (the Basic game, the default)",
            "individual": "each combatant rolls d10 + its own initiative modifier",
        },
        default="side",
    ),
    Setting(
        key="sf.automatic_miss",
        title="Star Frontiers: 96-00 always misses",
        help="The Expanded rules make 96-00 an automatic miss; the Basic game has none (star_frontiers.md §3).",
        choices={
            "expanded": "96-00 always misses (the Expanded rules, the reference's reading)",
            "basic": "no automatic miss (the Basic game)",
        },
        default="expanded",
    ),
    Setting(
        key="sf.sight",
        title="Star Frontiers: the telescopic sight",
        help="A sight moves a shot one range class closer; whether short becomes point blank is open (§10 item 7).",
        choices={
            "to-point-blank": "short range becomes point blank too (the reference's reading)",
            "to-short": "the sight moves medium to short at best",
        },
        default="to-point-blank",
    ),
)


def variants(values: Mapping[str, str]) -> Variants:
    """The server's readings of the reference's open points, typed (star_frontiers.md §3, §10 items 3 and 7)."""
    return Variants(
        automatic_miss=values["sf.automatic_miss"] == "expanded",
        sight_to_point_blank=values["sf.sight"] == "to-point-blank",
    )


def by_side(values: Mapping[str, str]) -> bool:
    """A new fight rolls initiative by side (the Basic game) unless the server chose individual checks."""
    return values[SF_INITIATIVE] == "side"


def attack_luck(result: AttackResult, chances: Odds) -> luck.Luck:
    """A Star Frontiers attack against its odds: a hit."""
    return {"hits": luck.event(result.hit, chances.hit)}


def join(
    name: str, sheet: Any, owner_id: int, side: fight.Side, character_id: int, improved: bool, misc: int
) -> fight.Combatant:
    """A character in a fight: current and full Stamina, IM from RS, its RW and MW."""
    assert isinstance(sheet, SfSheet)
    return fight.combatant(
        KEY,
        name,
        owner_id=owner_id,
        side=side,
        hp=sheet.current_stamina,
        max_hp=sheet.max_stamina,
        modifiers=fight.sf_modifiers(sheet.reaction_speed),
        stats={"rs": sheet.reaction_speed, "rw": sheet.ranged_weapon_score, "mw": sheet.melee_weapon_score},
        character_id=character_id,
    )


def quick(name: str, numbers: Quick) -> fight.Combatant:
    """A quick creature: its Stamina, RS (45 unless given) and the RW and MW given."""
    speed = numbers.rs or DEFAULT_RS
    stats = {"rs": speed}
    if numbers.rw is not None:
        stats["rw"] = numbers.rw
    if numbers.mw is not None:
        stats["mw"] = numbers.mw
    return fight.combatant(
        KEY,
        name,
        owner_id=0,
        side=fight.Side.FOES,
        hp=numbers.hp,
        max_hp=numbers.hp,
        modifiers=fight.sf_modifiers(speed),
        stats=stats,
    )


def condition(name: str) -> str | None:
    """What a condition's name does in a fight (its rule's summary), if it is one the rules give effects."""
    rule = conditions.known(name)
    return None if rule is None else f"{rule.name}: {rule.summary}"


def sheet_attacks(sheet: Any, character_id: int) -> tuple[fight.StoredAttack, ...]:
    """A character's attacks in a fight: each weapon it can use as it stands, a shot or a melee attack (§4, §5)."""
    assert isinstance(sheet, SfSheet)
    attacks: list[fight.StoredAttack] = []
    for weapon in sheet.weapons:
        try:
            melee = character_weapon(sheet, weapon.name).melee
        except AttackError:
            continue  # a weapon that cannot be used as it stands is not offered
        options = (("character", f"#{character_id}"), ("weapon", weapon.name))
        attacks.append(fight.StoredAttack(weapon.name, "sf melee" if melee else "sf shoot", options, named_by=""))
    return tuple(attacks)


def _tiebreak(modifiers: tuple[fight.Modifier, ...], stats: Mapping[str, int]) -> int:
    return stats.get("rs", 0)  # ties go to the higher RS


STAR_FRONTIERS: Final = Ruleset(
    key=KEY,
    title="Star Frontiers",
    sheet=SfSheet,
    version=1,
    health="Stamina",
    health_short="STA",
    reference="star_frontiers",
    settings=SETTINGS,
    variants=variants,
    kinds=(SF_SHOT, SF_MELEE),
    weapon_table=lambda: weapon_names(ready=False),
    fighting=Fighting(
        join=join,
        quick=quick,
        die=10,  # d10 + IM (Alpha Dawn)
        tiebreak=_tiebreak,
        every_round=True,
        sides=True,
        by_side=by_side,
        conditions=conditions.NAMES,
        condition=condition,
        attacks=sf_attacks,
        sheet_attacks=sheet_attacks,
    ),
)
