"""D&D 3.5 / NWN as the bot registers it (`bot.rules.rulesets`): its key, title, words, settings, rolls and fights."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from bot.rules import encounter as fight
from bot.rules import luck
from bot.rules.dnd35 import (
    DEFAULT_VARIANTS,
    AttackOdds,
    AttackResult,
    ConfirmationRule,
    FinesseShieldRule,
    MonkStepRule,
    MultiplierRule,
    Variants,
    conditions,
    table_weapon,
    weapon_names,
)
from bot.rules.dnd35.replay import DND_ATTACK, DND_FULL_ATTACK
from bot.rules.encounter_attacks import dnd_attacks
from bot.rules.rulesets import Fighting, Quick, Ruleset
from bot.rules.settings import Setting
from bot.rules.sheets.dnd35 import DndSheet

KEY: Final = "dnd35"
DEAD: Final = -10  # dead at -10 hit points (SRD, Injury and Death)

SETTINGS: Final = (
    Setting(
        key="dnd35.multipliers",
        title="D&D: stacked damage multipliers",
        help="Two multipliers on one hit (a critical on a charge): how many damage rolls (dnd35.md §7, §13).",
        choices={
            MultiplierRule.SEED.value: "as many rolls as the multipliers add up to: x2 and x3 is 5 (the default)",
            MultiplierRule.SRD.value: "1 + the sum of (m - 1) rolls: x2 and x3 is 4 (the SRD)",
        },
        default=DEFAULT_VARIANTS.multipliers.value,
    ),
    Setting(
        key="dnd35.confirmation",
        title="D&D: natural 20 and 1 on the confirmation roll",
        help="Whether a natural 20 (1) on the confirmation roll always confirms (fails) (dnd35.md §6, §13).",
        choices={
            ConfirmationRule.SRD.value: "a natural 20 confirms and a natural 1 fails (the SRD, the default)",
            ConfirmationRule.NWN.value: "only d20 + attack bonus against AC counts (Neverwinter Nights)",
        },
        default=DEFAULT_VARIANTS.confirmation.value,
    ),
    Setting(
        key="dnd35.finesse_shield",
        title="D&D: Weapon Finesse and a shield",
        help="Whether a shield's armor check penalty applies to finessed attacks (dnd35.md §2, §13).",
        choices={
            FinesseShieldRule.SRD.value: "it applies (the SRD, the default)",
            FinesseShieldRule.NWN.value: "it does not (Neverwinter Nights)",
        },
        default=DEFAULT_VARIANTS.finesse_shield.value,
    ),
    Setting(
        key="dnd35.monk_step",
        title="D&D: a monk's iterative attacks",
        help="The step between a monk's attacks unarmed or with a kama (dnd35.md §3, §13 item 10).",
        choices={
            MonkStepRule.SRD.value: "-5 like everyone (the SRD, the default)",
            MonkStepRule.NWN.value: "-3 for a monk unarmed or with a kama (Neverwinter Nights)",
        },
        default=DEFAULT_VARIANTS.monk_step.value,
    ),
)


def variants(values: Mapping[str, str]) -> Variants:
    """The server's readings of the SRD's open points, typed (dnd35.md §13)."""
    return Variants(
        multipliers=MultiplierRule(values["dnd35.multipliers"]),
        confirmation=ConfirmationRule(values["dnd35.confirmation"]),
        finesse_shield=FinesseShieldRule(values["dnd35.finesse_shield"]),
        monk_step=MonkStepRule(values["dnd35.monk_step"]),
    )


def attack_luck(result: AttackResult, chances: AttackOdds) -> luck.Luck:
    """A D&D attack against its odds: a hit, a confirmed critical, the damage."""
    return {
        "hits": luck.event(result.hit, chances.hit),
        "crits": luck.event(result.critical, chances.critical),
        "damage": luck.Tally(float(result.damage), float(chances.expected_damage), float(chances.damage_variance)),
    }


def health(hp: int) -> fight.Health:
    """Disabled at 0, dying from -1 to -9, dead at -10 or less (SRD, Injury and Death)."""
    if hp > 0:
        return fight.Health.UP
    if hp == 0:
        return fight.Health.DISABLED
    return fight.Health.DEAD if hp <= DEAD else fight.Health.DYING


def join(
    name: str, sheet: Any, owner_id: int, side: fight.Side, character_id: int, improved: bool, misc: int
) -> fight.Combatant:
    """A character in a fight: Dex modifier, Improved Initiative, `misc`, AC in its three forms.

    The stat block has no initiative feat: Improved Initiative and any other modifier are the player's to give.
    """
    assert isinstance(sheet, DndSheet)
    return fight.combatant(
        KEY,
        name,
        owner_id=owner_id,
        side=side,
        hp=sheet.hit_points,
        max_hp=sheet.max_hit_points,
        modifiers=fight.dnd_modifiers(sheet.modifier("dexterity"), improved_initiative=improved, misc=misc),
        stats={
            "ac": sheet.ac(),
            "touch": sheet.ac(touch=True),
            "flat_footed": sheet.ac(flat_footed=True),
            "flat_footed_touch": sheet.ac(touch=True, flat_footed=True),
        },
        character_id=character_id,
    )


def quick(name: str, numbers: Quick) -> fight.Combatant:
    """A quick creature: its hit points, AC (10 unless given) and its whole initiative modifier."""
    modifiers = fight.dnd_modifiers(numbers.initiative, improved_initiative=numbers.improved_initiative)
    modifiers = tuple(fight.Modifier(m.value, fight.QUICK_INITIATIVE) if m.source == "Dex" else m for m in modifiers)
    return fight.combatant(
        KEY,
        name,
        owner_id=0,
        side=fight.Side.FOES,
        hp=numbers.hp,
        max_hp=numbers.hp,
        modifiers=modifiers,
        stats={"ac": numbers.ac or 10},
    )


def condition(name: str) -> str | None:
    """What a condition's name does in a fight (its rule's summary), if it is one the rules give effects."""
    rule = conditions.known(name)
    return None if rule is None else f"{rule.name}: {rule.summary}"


def sheet_attacks(sheet: Any, character_id: int) -> tuple[fight.StoredAttack, ...]:
    """A character's attacks in a fight: one attack and a full attack with each weapon it carries (SRD, Attack)."""
    assert isinstance(sheet, DndSheet)
    attacks: list[fight.StoredAttack] = []
    for weapon in sheet.weapons:
        options = (("character", f"#{character_id}"), ("weapon", weapon.name))
        attacks.append(fight.StoredAttack(weapon.name, "dnd attack", options, named_by=""))
        attacks.append(fight.StoredAttack(f"{weapon.name} (full attack)", "dnd full-attack", options, named_by=""))
    return tuple(attacks)


def _tiebreak(modifiers: tuple[fight.Modifier, ...], stats: Mapping[str, int]) -> int:
    return sum(m.value for m in modifiers)  # ties act in order of the higher total modifier (SRD, Initiative)


DND35: Final = Ruleset(
    key=KEY,
    title="D&D 3.5 / NWN",
    short_title="D&D 3.5",
    sheet=DndSheet,
    version=1,
    health="Hit points",
    health_short="hp",
    reference="dnd35",
    settings=SETTINGS,
    variants=variants,
    kinds=(DND_ATTACK, DND_FULL_ATTACK),
    weapon_table=weapon_names,
    reads_weapon=lambda name: table_weapon(name) is not None,
    fighting=Fighting(
        join=join,
        quick=quick,
        health=health,
        die=20,  # d20 + modifiers (SRD, Initiative)
        tiebreak=_tiebreak,
        flat_footed=True,
        initiative_options=True,
        conditions=conditions.NAMES,
        condition=condition,
        attacks=dnd_attacks,
        sheet_attacks=sheet_attacks,
    ),
)
