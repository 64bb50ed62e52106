"""AliensRL as the bot registers it (`bot.rules.rulesets`): its key, title, words, settings, rolls and fights."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from bot.rules import encounter as fight
from bot.rules import luck
from bot.rules.aliensrl import DEFAULT_RING, DEFAULT_TARGETED, Ring, Shot, Targeted, reaches_target
from bot.rules.aliensrl.replay import ALIENS_SHOT
from bot.rules.encounter_attacks import aliens_attacks
from bot.rules.rulesets import Fighting, Quick, Ruleset
from bot.rules.settings import Setting
from bot.rules.sheets.aliensrl import AliensSheet

KEY: Final = "aliensrl"

SETTINGS: Final = (
    Setting(
        key="aliensrl.ring",
        title="AliensRL: where a far shot strays",
        help="At distance 9 and more a stray shot lands on a square 'two tiles away' (aliensrl.md §9.6).",
        choices={
            Ring.CHEBYSHEV.value: "the 16 squares at Chebyshev distance 2 (the reference's reading)",
            Ring.ANGBAND.value: "the 12 squares at Angband distance 2",
            Ring.WITHIN_TWO.value: "the 24 squares within two",
        },
        default=DEFAULT_RING.value,
    ),
    Setting(
        key="aliensrl.targeted",
        title="AliensRL: the targeted square of the 6-in-10 rule",
        help="Is a being where a shot strayed hit outright, or missed on 6 in 10 (aliensrl.md §9.11)?",
        choices={
            Targeted.RELOCATED.value: "the square it strayed to: a being there is hit (the reference's default)",
            Targeted.AIMED.value: "only the aimed square: a being where it strays is missed on 6 in 10 too",
        },
        default=DEFAULT_TARGETED.value,
    ),
)


@dataclass(frozen=True, slots=True)
class Readings:
    """The server's readings of where a far shot strays (aliensrl.md §9.6, §9.11), typed."""

    ring: Ring = DEFAULT_RING
    targeted: Targeted = DEFAULT_TARGETED


def variants(values: Mapping[str, str]) -> Readings:
    """`Readings` from the settings' values."""
    return Readings(ring=Ring(values["aliensrl.ring"]), targeted=Targeted(values["aliensrl.targeted"]))


def shot_luck(shot: Shot) -> luck.Luck:
    """An AliensRL shot against its odds, per projectile: on target, a critical (quality 11)."""
    tally: luck.Luck = {}
    for projectile in shot.projectiles:
        reached = reaches_target(projectile)
        luck.add(
            tally,
            {
                "hits": luck.event(reached, shot.odds.on_target),
                "crits": luck.event(projectile.critical, shot.odds.critical),
            },
        )
    return tally


def join(
    name: str, sheet: Any, owner_id: int, side: fight.Side, character_id: int, improved: bool, misc: int
) -> fight.Combatant:
    """A character in a fight: its hit points and skill ranks."""
    assert isinstance(sheet, AliensSheet)
    return fight.combatant(
        KEY,
        name,
        owner_id=owner_id,
        side=side,
        hp=sheet.hit_points,
        max_hp=sheet.max_hit_points,
        stats={"pistol": sheet.pistol, "rifle": sheet.rifle, "heavy": sheet.heavy},
        character_id=character_id,
    )


def quick(name: str, numbers: Quick) -> fight.Combatant:
    """A quick creature: its hit points and one skill rank (0 unless given)."""
    return fight.combatant(
        KEY, name, owner_id=0, side=fight.Side.FOES, hp=numbers.hp, max_hp=numbers.hp, stats={"rank": numbers.rank or 0}
    )


def sheet_attacks(sheet: Any, character_id: int) -> tuple[fight.StoredAttack, ...]:
    """A character's attacks in a fight: a shot with each weapon it carries (the map gives the aim)."""
    assert isinstance(sheet, AliensSheet)
    return tuple(
        fight.StoredAttack(w.name, "aliens fire", (("character", f"#{character_id}"), ("weapon", w.name)), named_by="")
        for w in sheet.weapons
    )


ALIENSRL: Final = Ruleset(
    key=KEY,
    title="AliensRL",
    sheet=AliensSheet,
    version=1,
    health="Hit points",
    health_short="hp",
    reference="aliensrl",
    settings=SETTINGS,
    variants=variants,
    kinds=(ALIENS_SHOT,),
    # The reference has no initiative rule: combatants act in the order they entered (the GM moves them).
    fighting=Fighting(join=join, quick=quick, has_map=True, attacks=aliens_attacks, sheet_attacks=sheet_attacks),
)
