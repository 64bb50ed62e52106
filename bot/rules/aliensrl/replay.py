"""AliensRL's kind of roll (`bot.rules.replay.Kind`): /aliens fire, and its typed options.

Each typed option is read back from the logged inputs (`Typed`), so that a fair log's options are checked against
what was rolled (`bot.rules.replay.disagreement`); the others say why not (`Kind.unreflected`). The kind's name
and its inputs' JSON are what past fair logs hold: they never change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from bot.rules import aliensrl
from bot.rules.replay import ANSWER_ONLY, UNKNOWN, Kind, Typed, no, none, present, text


@dataclass(frozen=True, slots=True)
class AliensShot:
    """/aliens fire: the shooter (skill, weapon, pain), the aim and the server's stray ring."""

    shooter: aliensrl.Shooter
    dx: int | None
    dy: int | None
    distance: int | None
    intervening: bool
    ring: aliensrl.Ring
    crowded: bool = False  # a being on every square a stray may land on (§9.11)
    targeted: aliensrl.Targeted = aliensrl.DEFAULT_TARGETED  # the server's reading of "targeted"
    field: aliensrl.Field | None = None  # the fight's map: the squares give the aim and the beings in the way


def _aliens_quick(i: AliensShot) -> bool:
    return i.shooter.weapon == ""  # a character's shot names its weapon


def _aliens_quick_reads(read: Callable[[aliensrl.Shooter], object]) -> Callable[[AliensShot], object]:
    return lambda i: read(i.shooter) if _aliens_quick(i) else None


ALIENS_SHOT_TYPED: Final[dict[str, Typed[AliensShot]]] = {
    "dx": Typed(lambda i: i.dx, absent=none),
    "dy": Typed(lambda i: i.dy, absent=none),
    "distance": Typed(lambda i: i.distance, absent=none),
    "intervening": Typed(lambda i: i.intervening, absent=no),
    "crowded": Typed(lambda i: i.crowded, absent=no),
    # The pain typed, else quick mode's none or the character's own.
    "pain": Typed(lambda i: i.shooter.pain, absent=lambda i: 0 if _aliens_quick(i) else UNKNOWN),
    # A combatant named: the fight's map gives the aim, which the inputs hold (`field`), not the name.
    "target": Typed(lambda i: i.field is not None, present, no),
    # In a fight, quick mode's skill rank defaults to the named combatant's own.
    "skill_rank": Typed(_aliens_quick_reads(lambda s: s.rank)),
    "accuracy": Typed(_aliens_quick_reads(lambda s: s.accuracy), absent=lambda i: 0 if _aliens_quick(i) else None),
    "ammo_damage": Typed(
        _aliens_quick_reads(lambda s: s.ammo_damage),
        absent=lambda i: aliensrl.DEFAULT_AMMO_DAMAGE if _aliens_quick(i) else None,
    ),
    "character": Typed(lambda i: not _aliens_quick(i), present),
    "weapon": Typed(lambda i: None if _aliens_quick(i) else i.shooter.weapon.casefold(), lambda v: text(v).casefold()),
}


ALIENS_SHOT: Final[Kind[AliensShot, aliensrl.Shot]] = Kind(
    "aliens.fire",
    "aliens fire",
    AliensShot,
    lambda i, rng: aliensrl.fire(
        i.shooter,
        rng,
        dx=i.dx,
        dy=i.dy,
        distance=i.distance,
        intervening=i.intervening,
        ring=i.ring,
        crowded=i.crowded,
        targeted=i.targeted,
        field=i.field,
    ),
    lambda r: dict(r.to_dict()),
    ALIENS_SHOT_TYPED,
    unreflected={
        **ANSWER_ONLY,
        "name": "quick mode's shooter as the answer names them; in a fight it picks the square the shot comes "
        "from, which the inputs hold (`field.origin`) but not the name",
    },
)
