"""The typed server settings: every stored choice reaches the commands, and nothing stored breaks them."""

from __future__ import annotations

import pytest

from bot.rules import dnd35 as dnd
from bot.rules import star_frontiers as sf
from bot.rules.aliensrl import DEFAULT_RING, Ring
from bot.rules.aliensrl.ruleset import ALIENSRL, Readings
from bot.rules.dnd35.ruleset import DND35
from bot.rules.settings import SETTINGS, server_settings
from bot.rules.star_frontiers.ruleset import STAR_FRONTIERS


def test_nothing_stored_reads_as_every_default() -> None:
    chosen = server_settings({})
    assert not chosen.full_answers and not chosen.fair_managers_only and not chosen.encounter_gm_only
    assert not chosen.encounter_groups and not chosen.encounter_heals
    assert chosen.gm_role is None
    assert chosen.variants(DND35.key) == dnd.DEFAULT_VARIANTS
    assert chosen.variants(STAR_FRONTIERS.key) == sf.DEFAULT_VARIANTS
    assert chosen.variants(ALIENSRL.key) == Readings(ring=DEFAULT_RING)
    assert chosen.by_side(STAR_FRONTIERS.key) and not chosen.by_side(DND35.key)


def _typed(key: str, value: str) -> object:
    """Everything a command reads of the settings with `key` set to `value`."""
    chosen = server_settings({key: value})
    common = (
        chosen.full_answers,
        chosen.fair_managers_only,
        chosen.encounter_gm_only,
        chosen.encounter_groups,
        chosen.encounter_heals,
        chosen.gm_role,
    )
    rules = [DND35.key, STAR_FRONTIERS.key, ALIENSRL.key]
    return common, [chosen.variants(k) for k in rules], [chosen.by_side(k) for k in rules]


@pytest.mark.parametrize(("key", "value"), [(k, v) for k, spec in SETTINGS.items() for v in spec.choices])
def test_every_choice_of_every_setting_reaches_the_typed_settings(key: str, value: str) -> None:
    """A choice other than the default changes the typed settings: no setting is stored but left unread."""
    assert (_typed(key, value) != _typed(key, SETTINGS[key].default)) == (value != SETTINGS[key].default)


def test_typed_settings_read_the_choices_they_name() -> None:
    chosen = server_settings(
        {
            "rolls.answers": "full",
            "fair.who": "managers",
            "dnd35.multipliers": dnd.MultiplierRule.SRD.value,
            "dnd35.confirmation": dnd.ConfirmationRule.NWN.value,
            "dnd35.finesse_shield": dnd.FinesseShieldRule.NWN.value,
            "sf.automatic_miss": "basic",
            "sf.sight": "to-short",
            "aliensrl.ring": Ring.ANGBAND.value,
        }
    )
    assert chosen.full_answers and chosen.fair_managers_only
    assert chosen.variants(DND35.key) == dnd.Variants(
        multipliers=dnd.MultiplierRule.SRD,
        confirmation=dnd.ConfirmationRule.NWN,
        finesse_shield=dnd.FinesseShieldRule.NWN,
    )
    assert chosen.variants(STAR_FRONTIERS.key) == sf.Variants(automatic_miss=False, sight_to_point_blank=False)
    assert chosen.variants(ALIENSRL.key).ring is Ring.ANGBAND


def test_a_choice_a_later_version_removed_reads_as_the_default() -> None:
    assert server_settings({"aliensrl.ring": "hexagonal", "rolls.answers": "FULL"}) == server_settings({})
