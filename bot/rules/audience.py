"""Who may see what: the one audience policy every output asks (docs/commands.md, "Who sees what").

Every answer, page, tracker, note, list, statistic, suggestion, map, export and fair log that shows a roll or a
creature asks here, so that a crossing of two features (a hidden roll on the tracker, a secret creature in a
statistic) cannot leak what each feature keeps on its own. Three things decide:

- the roll's visibility: public (the channel sees it), private (only its roller), hidden (its roller and the
  game masters, in the GM channel);
- the creature's: a secret character's numbers (AC, damage reduction, suits, hit points) are its owner's; a
  creature with hidden hit points shows the others a health word instead;
- the viewer's role: the creature's owner, the server's game masters (Manage Server, or the server's game master
  role), or anyone. Starting a fight makes its starter the one who runs it (turns, quick creatures), not a game
  master: it opens nobody else's secrets.

Who reads an answer is its `reader`: the asker when it is private, else the channel (`ANYONE`). A secret creature
is not even named to a reader who may not see its numbers (lists, suggestions, /stats, /history find nothing), and
what follows from its numbers (the odds of a roll against it, a statistic of such rolls) is its numbers too.

Pure: the callers say who is looking and at what; nothing here reads Discord or the database.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Final


class Visibility(StrEnum):
    """Who a roll was made for."""

    PUBLIC = "public"  # the channel
    PRIVATE = "private"  # its roller alone
    HIDDEN = "hidden"  # its roller and the game masters (the GM channel)


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is looking: a user (None: anyone, the channel), and whether they are one of the server's game masters."""

    user_id: int | None
    game_master: bool = False


# The channel: what a message anyone can read may show. It owns nothing, whatever an owner id says.
ANYONE: Final = Viewer(None)


@dataclass(frozen=True, slots=True)
class Creature:
    """What an output may show of a creature: whose it is, and what its owner keeps to themselves.

    Attributes:
        owner_id: Its owner (a character's user, or whoever added a quick creature); None for nobody's.
        secret: Its numbers (every AC form, damage reduction, suits, screens, hit points) are its owner's.
        hidden_hp: Its hit points are its owner's: the others see a health word (unhurt, hurt, badly hurt...).
    """

    owner_id: int | None
    secret: bool = False
    hidden_hp: bool = False


def _owns(viewer: Viewer, owner_id: int | None) -> bool:
    return viewer.user_id is not None and viewer.user_id == owner_id


def sees_numbers(viewer: Viewer, creature: Creature) -> bool:
    """Whether `viewer` may see a creature's numbers: anyone's, unless secret (then its owner and the GMs)."""
    return not creature.secret or _owns(viewer, creature.owner_id) or viewer.game_master


def sees_hit_points(viewer: Viewer, creature: Creature) -> bool:
    """Whether `viewer` may see a creature's hit points as numbers, not as a health word."""
    return sees_numbers(viewer, creature) and (
        not creature.hidden_hp or _owns(viewer, creature.owner_id) or viewer.game_master
    )


def public_numbers(creature: Creature) -> bool:
    """Whether a creature's numbers may go where anyone reads them (the channel, a log anyone can export)."""
    return sees_numbers(ANYONE, creature)


def public_hit_points(creature: Creature) -> bool:
    """Whether a creature's hit points may go where anyone reads them."""
    return sees_hit_points(ANYONE, creature)


def sees_all(viewer: Viewer, creatures: Iterable[Creature]) -> bool:
    """Whether `viewer` may see every number of `creatures`, hit points included (a fair log's sealed roll).

    A roll's logged input holds what entered it of every creature it read: whoever may not see all of it gets
    the roll sealed (`bot.rules.fair_log`); `sees_all(ANYONE, ...)` says whether it needs sealing at all.
    """
    return all(sees_numbers(viewer, c) and sees_hit_points(viewer, c) for c in creatures)


def reader(viewer: Viewer, *, private: bool) -> Viewer:
    """Who reads an answer `viewer` asked for: they alone when it is private, else anyone in the channel."""
    return viewer if private else ANYONE


def sees_roll(viewer: Viewer, roller_id: int, visibility: Visibility) -> bool:
    """Whether `viewer` may see a roll: a public one anyone, a private one its roller, a hidden one the GMs too."""
    if visibility is Visibility.PUBLIC or (viewer.user_id is not None and viewer.user_id == roller_id):
        return True
    return visibility is Visibility.HIDDEN and viewer.game_master


def visibility(*, private: bool, hidden: bool) -> Visibility:
    """A roll's visibility from its options: hidden wins over private, which wins over public."""
    if hidden:
        return Visibility.HIDDEN
    return Visibility.PRIVATE if private else Visibility.PUBLIC


def changes_public(visibility: Visibility) -> bool:
    """Whether a roll may change what the channel sees (a fight's tracker): only a public roll does at once.

    A private or hidden roll's effect waits for its roller or a game master to apply it by hand, so that the
    tracker does not tell the table what the roll kept from it.
    """
    return visibility is Visibility.PUBLIC


def applies_hit(viewer: Viewer, roller_id: int, visibility: Visibility) -> bool:
    """Whether `viewer` may apply by hand a roll's hit on a fight, which the tracker then shows the table.

    A public roll's hit is applied at once (`changes_public`). A private one's waits for its roller, who chose to
    keep the roll, or a game master; a hidden one's for a game master alone (its roller may be a player, and the
    hidden roll was the game master's to tell).
    """
    if visibility is Visibility.PUBLIC or viewer.game_master:
        return True
    return visibility is Visibility.PRIVATE and viewer.user_id is not None and viewer.user_id == roller_id
