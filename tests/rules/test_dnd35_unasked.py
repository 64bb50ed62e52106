"""The penalties a D&D character's stat block brings to an attack without the player asking (issue #25).

Each is a term of the attack bonus marked unasked, so the short answer can name it; what the player typed
(a modifier, flanking, a distance, two weapons) is asked for and never listed.
"""

from __future__ import annotations

from typing import Any

from bot.rules.dnd35 import Situation, TwoWeapon, character_attack, full_attack
from bot.rules.sheets.dnd35 import DndSheet


def dnd(**fields: Any) -> DndSheet:
    return DndSheet.model_validate(fields)


def unasked(sheet: DndSheet, weapon: str = "Longsword", **options: Any) -> list[tuple[str, int]]:
    attack = character_attack(sheet, weapon, 15, **options)
    return [(t.name, t.value) for t in attack.unasked_penalties]


def test_a_weapon_without_its_proficiency_is_an_unasked_minus_4() -> None:
    assert unasked(dnd(strength=14)) == [("not proficient", -4)]
    assert unasked(dnd(strength=14, weapon_groups=["martial"])) == []
    assert unasked(dnd(weapon_proficiencies=["longsword"])) == []


def test_armor_and_shield_without_proficiency_and_a_tower_shield_are_unasked() -> None:
    plated = dnd(
        armor="heavy",
        armor_check_penalty=-6,
        shield="tower",
        shield_check_penalty=-10,
        weapon_groups=["martial"],
    )
    assert unasked(plated) == [
        ("armor check (not proficient)", -6),
        ("shield check (not proficient)", -10),
        ("tower shield", -2),
    ]
    trained = plated.model_copy(update={"armor_proficiencies": ["heavy", "shield", "tower shield"]})
    assert unasked(trained) == [("tower shield", -2)]  # the -2 is the tower shield's whenever it is employed


def test_weapon_finesse_with_a_shield_takes_its_check_penalty_unasked() -> None:
    sheet = dnd(
        dexterity=16,
        bab=1,
        weapon_finesse=True,
        shield="light",
        shield_check_penalty=-1,
        armor_proficiencies=["shield"],
        weapon_groups=["martial"],
    )
    assert unasked(sheet, "Rapier") == [("shield check", -1)]


def test_what_the_player_typed_is_asked_for() -> None:
    sheet = dnd(bab=6, weapon_groups=["martial"], two_weapon_fighting=False)
    typed = Situation(modifier=-3, flanking=True)
    assert unasked(sheet, situation=typed, two_weapon=TwoWeapon.NORMAL, attack_number=2) == []
    # A ranged attack's distance is typed too.
    assert unasked(dnd(weapon_groups=["simple"]), "Light crossbow", situation=Situation(distance=200)) == []
    # A zero check penalty costs nothing, so it is not named.
    assert unasked(dnd(armor="light", weapon_groups=["martial"])) == []
    # Every attack of a full attack carries the same unasked terms.
    attacks = full_attack(dnd(bab=11), "Longsword", 15)
    assert [[(t.name, t.value) for t in a.unasked_penalties] for a in attacks] == [[("not proficient", -4)]] * 3
