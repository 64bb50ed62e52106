"""The typed server settings: every stored choice reaches the commands, and nothing stored breaks them."""

from __future__ import annotations

import pytest

from bot.rules import dnd35 as dnd
from bot.rules import star_frontiers as sf
from bot.rules.aliensrl import DEFAULT_RING, Ring
from bot.rules.settings import SETTINGS, ServerSettings, server_settings


def test_nothing_stored_reads_as_every_default() -> None:
    assert server_settings({}) == ServerSettings(
        full_answers=False,
        fair_managers_only=False,
        dnd=dnd.DEFAULT_VARIANTS,
        sf=sf.DEFAULT_VARIANTS,
        ring=DEFAULT_RING,
    )


@pytest.mark.parametrize(("key", "value"), [(k, v) for k, spec in SETTINGS.items() for v in spec.choices])
def test_every_choice_of_every_setting_reaches_the_typed_settings(key: str, value: str) -> None:
    """A choice other than the default changes the typed settings: no setting is stored but left unread."""
    chosen = server_settings({key: value})
    assert (chosen != server_settings({})) == (value != SETTINGS[key].default)


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
    assert chosen.dnd == dnd.Variants(
        multipliers=dnd.MultiplierRule.SRD,
        confirmation=dnd.ConfirmationRule.NWN,
        finesse_shield=dnd.FinesseShieldRule.NWN,
    )
    assert chosen.sf == sf.Variants(automatic_miss=False, sight_to_point_blank=False)
    assert chosen.ring is Ring.ANGBAND


def test_a_choice_a_later_version_removed_reads_as_the_default() -> None:
    assert server_settings({"aliensrl.ring": "hexagonal", "rolls.answers": "FULL"}) == server_settings({})
