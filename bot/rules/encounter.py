"""Encounters: combatants, initiative per ruleset, turns and rounds, conditions and health (docs/encounters.md).

Pure: an `Encounter` is a frozen value, every change a function that returns the next one, and every die comes
from the `DiceSource` passed in, or from an initiative roll made before the change (`Prerolled`: the tracker rolls
it through a fair session's dice, `roll_initiative` from an `InitiativeInput`, so a fair log can replay it).
Each initiative check keeps its steps (the face, each modifier with its source, the total, the tie-breaking value
and any roll-offs), so the tracker shows how the order came about.

Initiative by ruleset:

- D&D 3.5 (SRD, Combat: Initiative): d20 + Dex modifier + Improved Initiative (+4) + other modifiers, rolled
  once at the start of the fight. Ties act in order of the higher total initiative modifier; if still tied,
  the tied combatants roll again (a d20 each, again until they differ). Everyone is flat-footed until their
  first turn begins (the one whose turn it is is not).
- Star Frontiers (Alpha Dawn): the initiative modifier is RS / 10 rounded up, and initiative is rolled at the
  start of every turn (a round here). By side (the Basic game): each side rolls d10 + the highest initiative
  modifier among its members able to act; on a tie the side with the highest single RS (of those same members)
  goes first, and if that ties too both sides roll again (a default). Individually (a server setting): each
  combatant rolls d10 + its own modifier; ties by the higher RS, then roll-offs (defaults: the reference has no
  individual tie rule).
- AliensRL: the reference has no initiative rule. Default: combatants act in the order they entered, and the
  game master reorders them (`move`).

Defaults this module chose where the references are silent (each marked in docs/encounters.md): a combatant who
enters a fight already under way rolls then and acts after anyone it ties with; within a Star Frontiers side
the higher RS acts first; the dead, the unconscious and the stunned lend their side neither IM nor RS, and a side
with nobody able to act rolls nothing and comes after the sides that rolled; a second knock-out or stun leaves
the longer one standing; a condition's rounds count down at the end of its bearer's turns; AliensRL treats 0 hit
points or less as dead.

Turns pass over whoever cannot act (`why_passed`, docs/rules/dnd35.md §13 item 16): the dead, D&D's dying (each rolling
its d% to stabilize when its turn comes, SRD) and whoever is stunned, paralyzed, unconscious...; the turn says who
was passed and why (`Turn`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, TypeVar

from bot.errors import UserError
from bot.rules import rulesets
from bot.rules.aliensrl import Field
from bot.rules.dice import DiceSource
from bot.rules.health import HealthChange, settle
from bot.rules.names import NameKind, clean_name, name_key
from bot.rules.sheets.base import Sheet

S = TypeVar("S", bound=Sheet)

MAX_COMBATANTS: Final = 25  # a tracker lists them all, on as many pages as it takes (bot/ui/encounter.py)
# A default, kept as data: combatants one player who is not a game master may bring to a fight (their characters
# and quick creatures), so that no member fills a fight with their own. The game masters add any number.
MAX_OWN_COMBATANTS: Final = 6
MAX_COUNT: Final = 10  # quick creatures added at once
MAX_NAME: Final = 32
MAX_CONDITIONS: Final = 5  # per combatant
MAX_CONDITION_ROUNDS: Final = 1000
MAX_HP: Final = 10_000
# `#3` names combatant number 3, as `#12` names a character.
COMBATANT: Final = NameKind(
    "A combatant name", MAX_NAME, max_key_length=64, reserved_start="#", reserved_reason="`#3` means combatant number 3"
)
ENCOUNTER_NAME: Final = NameKind("An encounter name", 40)
MAP_SIZE: Final = 60  # AliensRL squares across and down: x and y are 0 to MAP_SIZE - 1
MAX_ROLLOFFS: Final = 20  # roll-offs in a row before the entry order decides (a stuck die, never fair dice)
MAX_MODIFIERS: Final = 8  # added to one initiative check (D&D adds at most three: Dex, the feat, any other)
MAX_ROUND: Final = 1_000_000
MAX_TRIGGER: Final = 80  # a readied action's trigger, as the tracker shows it
MAX_GIVEN: Final = 99  # an initiative total a player gives from their own dice

IMPROVED_INITIATIVE: Final = 4  # the feat's bonus (SRD)
# Where a D&D initiative modifier comes from, as its check shows it: the feat, any other modifier given with a
# character, a quick creature's whole modifier.
IMPROVED: Final = "Improved Initiative"
OTHER: Final = "other"
QUICK_INITIATIVE: Final = "initiative"


class EncounterError(UserError):
    """Something about the encounter the user asked for."""

    title = "Encounter"


class Side(StrEnum):
    """Which side a combatant fights on; Star Frontiers rolls initiative by side."""

    PARTY = "party"
    FOES = "foes"


class Health(StrEnum):
    """A combatant's state by its hit points (D&D: disabled at 0, dying -1 to -9, dead at -10 or less)."""

    UP = "up"
    DISABLED = "disabled"
    DYING = "dying"
    DEAD = "dead"


@dataclass(frozen=True, slots=True)
class Modifier:
    """A number added to an initiative check, and where it comes from."""

    value: int
    source: str


@dataclass(frozen=True, slots=True)
class Condition:
    """A condition on a combatant, with the rounds (its own turns) it has left; None lasts until removed."""

    name: str
    rounds: int | None = None
    # The encounter's step when it was put on: one put on during its bearer's turn starts counting after it.
    since: int = 0


@dataclass(frozen=True, slots=True)
class InitiativeRoll:
    """One initiative check, every step: the die and its face, the modifiers, the total, how ties were broken."""

    die: int
    face: int
    modifiers: tuple[Modifier, ...]
    tiebreak: int  # compared first on a tie: D&D the total modifier, Star Frontiers the (highest) RS
    rolloffs: tuple[int, ...] = ()  # the faces of the roll-offs it took part in, in order
    given: bool = False  # a player's own roll (physical dice): `face` is the total they gave, no die was rolled

    @property
    def total(self) -> int:
        """The face plus every modifier."""
        return self.face + sum(m.value for m in self.modifiers)

    def key(self) -> tuple[int, ...]:
        """Sorts the first to act first: higher total, higher tie-breaking value, then the roll-offs."""
        return (-self.total, -self.tiebreak, *(-face for face in self.rolloffs))


@dataclass(frozen=True, slots=True)
class SideInitiative:
    """A Star Frontiers side's initiative for one round: its roll and whose modifier it used."""

    side: Side
    roll: InitiativeRoll | None  # None: nobody on the side could act, so it rolled nothing and acts last
    leader: str  # the combatant whose initiative modifier the side added ("" when it rolled nothing)


@dataclass(frozen=True, slots=True)
class StoredAttack:
    """An attack a combatant carries: the roll command it is rolled with and that command's options as typed.

    Read from the notation a game master types on `/encounter add attacks:` (`bot.rules.encounter_attacks`),
    rolled by `/encounter attack` as that very command (the one roll path, logged and replayed as it), with the
    attacker's name and its target added.
    """

    name: str
    command: str  # "dnd attack", "dnd full-attack", "sf shoot", "sf melee", "aliens melee"
    options: tuple[tuple[str, str | int | bool], ...] = ()
    named_by: str = "name"  # the command's option that names the attacker ("": its `character` option does)

    @property
    def typed(self) -> dict[str, str | int | bool]:
        """The command's options, as a user would type them."""
        return dict(self.options)


@dataclass(frozen=True, slots=True)
class Combatant:
    """Someone in the fight: a player's character or a game master's quick creature."""

    number: int  # unique in its encounter, never reused
    name: str
    owner_id: int
    side: Side
    hp: int
    max_hp: int
    character_id: int | None = None  # None for a quick creature
    modifiers: tuple[Modifier, ...] = ()  # what its initiative check adds
    tiebreak: int = 0  # D&D: the total modifier; Star Frontiers: RS
    stats: tuple[tuple[str, int], ...] = ()  # what attacks read: ("ac", 15), ("rs", 50), ("rank", 2)...
    initiative: InitiativeRoll | None = None
    conditions: tuple[Condition, ...] = ()
    acted: bool = False  # has had a turn in this fight
    hidden: bool = False  # its hit points are the game master's: players see a health word
    position: tuple[int, int] | None = None  # AliensRL: the square it stands on (x across, y down), once placed
    group: int = 0  # like creatures that share one initiative: the group's first member's number (0: alone)
    given: int | None = None  # an initiative its player rolled with their own dice, for its next initiative roll
    readied: str | None = None  # a readied action's trigger, until it acts on it or its next turn begins
    count: int | None = None  # the initiative count it acts at since it delayed or took a readied action (SRD)
    attacks: tuple[StoredAttack, ...] = ()  # a quick creature's attacks (a character's are its sheet's weapons)

    @property
    def standing(self) -> int | None:
        """The initiative count it acts at: its roll's total, or the count a delay or a readied action gave it."""
        if self.count is not None:
            return self.count
        return self.initiative.total if self.initiative is not None else None

    def stat(self, name: str) -> int | None:
        """One of its stats, if it has it."""
        return dict(self.stats).get(name)


@dataclass(frozen=True, slots=True)
class Encounter:
    """A fight in one channel. Before round 1 the combatants are in entry order, from then on in turn order."""

    ruleset: str
    name: str
    gm_id: int
    combatants: tuple[Combatant, ...] = ()
    round: int = 0  # 0 until initiative is rolled
    turn: int = 0  # the index of the combatant whose turn it is (from round 1)
    by_side: bool = False  # Star Frontiers: initiative by side rather than individually
    hide_hp: bool = False  # quick creatures' hit points are hidden from players
    sides: tuple[SideInitiative, ...] = ()  # Star Frontiers by side: this round's rolls, the first to act first
    next_number: int = 1
    steps: int = 0  # turns passed (`advance` calls): a Next press names the step it saw, so two presses pass one

    @property
    def begun(self) -> bool:
        """Whether initiative has been rolled."""
        return self.round > 0

    @property
    def current(self) -> Combatant | None:
        """Whose turn it is, once the fight has begun."""
        if not self.begun or not self.combatants:
            return None
        return self.combatants[self.turn]


@dataclass(frozen=True, slots=True)
class Hit:
    """What a resolved attack does to its target: damage, and a Star Frontiers knock-out or stun for some turns."""

    damage: int
    knockout_turns: int | None = None
    stun_turns: int | None = None


@dataclass(frozen=True, slots=True)
class Change:
    """What a hit (or a game master's heal or hurt) did to a combatant."""

    number: int
    name: str
    before: int
    after: int
    max_hp: int
    health_before: Health
    health_after: Health
    conditions: tuple[Condition, ...] = ()  # conditions the hit put on, or the longer ones it left standing
    flat_footed: bool = False  # D&D: the target had not had its first turn (attacks use flat-footed AC)

    @property
    def summary(self) -> str:
        """One plain line: "Ogre 2: 30 → 18 hp", with the state when it changed and any new condition.

        A hit that took nothing (a stun alone) says the hit points as they stand: "Sathar 1: 11 hp, stunned".
        """
        hp = f"{self.before} → {self.after}" if self.before != self.after else str(self.after)
        line = f"{self.name}: {hp} hp"
        if self.health_after != self.health_before or self.health_after is not Health.UP:
            line += f" ({self.health_after.value})"
        for condition in self.conditions:
            line += f", {condition.name} {condition.rounds} turns" if condition.rounds else f", {condition.name}"
        return line


# -------------------------------------------------------------------------------------------- health


def health(ruleset: str, hp: int) -> Health:
    """The state hit points put a combatant in: its ruleset's (`Fighting.health`), else up above 0, dead at 0."""
    states = rulesets.fighting(ruleset).health
    if states is not None:
        return states(hp)
    return Health.UP if hp > 0 else Health.DEAD


def health_word(ruleset: str, hp: int, max_hp: int) -> str:
    """What players see of a hidden combatant's health: unhurt, hurt, badly hurt, else its state (a default)."""
    state = health(ruleset, hp)
    if state is not Health.UP:
        return state.value
    if hp >= max_hp:
        return "unhurt"
    return "hurt" if hp * 2 > max_hp else "badly hurt"


def can_act(ruleset: str, combatant: Combatant) -> bool:
    """Whether a combatant is still alive in the fight (the map, a shot's line, a side's leader read it).

    Whether its turn passes without it acting is `why_passed`: the dying, stunned, paralyzed... too.
    """
    return health(ruleset, combatant.hp) is not Health.DEAD


def flat_footed(encounter: Encounter, combatant: Combatant) -> bool:
    """D&D: flat-footed until its first turn of the fight begins (SRD, Initiative: Flat-Footed); never elsewhere.

    The SRD: "at the start of a battle, before you have had a chance to act (specifically, before your first
    regular turn in the initiative order), you are flat-footed". So the combatant whose turn it is has had its
    chance: it is not flat-footed, on its first turn as on every later one.
    """
    if not rulesets.fighting(encounter.ruleset).flat_footed or combatant.acted:
        return False
    current = encounter.current
    return current is None or current.number != combatant.number


def flat_footed_why(encounter: Encounter, combatant: Combatant, *, given: bool = False) -> str | None:
    """Why an attack on `combatant` is against its flat-footed AC, if it is: the attack says so, or the fight.

    `given`: the attack was given as against a flat-footed defender (caught unaware, ...), which holds whatever
    the fight says.
    """
    if given:
        return "given as flat-footed"
    if flat_footed(encounter, combatant):
        return f"{combatant.name} has not had its first turn in this fight yet"
    return None


def as_fought(sheet: S, combatant: Combatant) -> S:
    """A character's sheet as the fight holds it: its current hit points (Stamina) are the fight's.

    Everything else the rules read about the creature (AC, damage reduction, critical immunity, Uncanny Dodge,
    suits and screens, ...) is the sheet's: a character in a fight is that character.
    """
    if sheet.health is None:
        return sheet
    return sheet.model_copy(update={sheet.health[0]: combatant.hp})


# -------------------------------------------------------------------------------------------- building


def new_encounter(ruleset: str, name: str, gm_id: int, *, by_side: bool = False, hide_hp: bool = False) -> Encounter:
    """An encounter with nobody in it yet; `by_side` counts only where initiative is rolled by side."""
    found = rulesets.find(ruleset)
    if found is None or found.fighting is None:
        raise EncounterError(f"There is no ruleset `{ruleset}`.")
    return Encounter(
        ruleset=ruleset,
        name=_clean_name(name, ENCOUNTER_NAME),
        gm_id=gm_id,
        by_side=by_side and found.fighting.sides,
        hide_hp=hide_hp,
    )


def dnd_modifiers(dex_modifier: int, *, improved_initiative: bool = False, misc: int = 0) -> tuple[Modifier, ...]:
    """A D&D initiative check's modifiers: Dex, Improved Initiative (+4), anything else (SRD, Initiative)."""
    modifiers = [Modifier(dex_modifier, "Dex")]
    if improved_initiative:
        modifiers.append(Modifier(IMPROVED_INITIATIVE, IMPROVED))
    if misc:
        modifiers.append(Modifier(misc, OTHER))
    return tuple(modifiers)


def sf_initiative_modifier(reaction_speed: int) -> int:
    """Star Frontiers' initiative modifier: RS / 10, rounded up (Alpha Dawn; star_frontiers.md §1)."""
    return -(-reaction_speed // 10)


def sf_modifiers(reaction_speed: int) -> tuple[Modifier, ...]:
    """A Star Frontiers initiative check's modifier, from RS."""
    return (Modifier(sf_initiative_modifier(reaction_speed), f"IM (RS {reaction_speed} / 10, rounded up)"),)


def combatant(
    ruleset: str,
    name: str,
    *,
    owner_id: int,
    side: Side,
    hp: int,
    max_hp: int,
    modifiers: tuple[Modifier, ...] = (),
    stats: Mapping[str, int] | None = None,
    character_id: int | None = None,
    hidden: bool = False,
) -> Combatant:
    """A combatant to `add` (numbered there); its ties break as its ruleset says (`Fighting.tiebreak`)."""
    stats = dict(stats or {})
    if not 1 <= max_hp <= MAX_HP or not -MAX_HP <= hp <= MAX_HP:
        raise EncounterError(f"Hit points go from -{MAX_HP} to {MAX_HP}, and the most at least 1.")
    found = rulesets.find(ruleset)
    tiebreak = found.fighting.tiebreak(modifiers, stats) if found is not None and found.fighting is not None else 0
    return Combatant(
        number=0,
        name=_clean_name(name),
        owner_id=owner_id,
        side=side,
        hp=hp,
        max_hp=max_hp,
        character_id=character_id,
        modifiers=modifiers,
        tiebreak=tiebreak,
        stats=tuple(sorted(stats.items())),
        hidden=hidden,
    )


def numbered(name: str, count: int, taken: Iterable[str]) -> list[str]:
    """Names for `count` of one creature: "Goblin" alone, else "Goblin 1".."Goblin 4" after any already taken."""
    name = _clean_name(name)
    used = {name_key(n) for n in taken}
    if count == 1 and name_key(name) not in used:
        return [name]
    names: list[str] = []
    n = 1
    while len(names) < count:
        candidate = f"{name} {n}"
        if name_key(candidate) not in used:
            names.append(candidate)
        n += 1
    return names


def add(encounter: Encounter, newcomers: Sequence[Combatant], dice: Dice, *, group: bool = False) -> Encounter:
    """Add combatants, numbered in order; in a fight under way each rolls initiative now and slots in.

    A newcomer acts after anyone it ties with (a default: the rules give latecomers no tie rule); AliensRL and
    Star Frontiers by side put it at the end (of its side). The newcomers' checks are one roll (`entering`).
    `group`: the newcomers are like creatures that roll one initiative together and act one after another in the
    order (SRD, Initiative: Monster Initiative: the game master may make one check for a group of monsters).
    """
    if len(encounter.combatants) + len(newcomers) > MAX_COMBATANTS:
        raise EncounterError(f"An encounter holds at most {MAX_COMBATANTS} combatants.", title="Too many")
    taken = {name_key(c.name) for c in encounter.combatants}
    entries: list[Combatant] = []
    number = encounter.next_number
    for newcomer in newcomers:
        in_already = (*encounter.combatants, *entries)
        if newcomer.character_id is not None and any(c.character_id == newcomer.character_id for c in in_already):
            raise EncounterError(f"**{newcomer.name}** is in this encounter already.", title="Already in")
        if name_key(newcomer.name) in taken:
            raise EncounterError(f"There is a combatant called **{newcomer.name}** here already.", title="Name taken")
        taken.add(name_key(newcomer.name))
        entries.append(dataclasses.replace(newcomer, number=number))
        number += 1
    if group and len(entries) > 1:
        entries = [dataclasses.replace(e, group=entries[0].number) for e in entries]
    asked = entering(encounter, entries)
    if asked is not None:
        entries = _with_checks(units(entries), _initiative(dice, asked).checks)
    combatants = list(encounter.combatants)
    turn = encounter.turn
    for entry in entries:
        if not encounter.begun or not _rolls_initiative(encounter.ruleset):
            combatants.append(entry)
            continue
        if entry.initiative is None:  # Star Frontiers by side: the end of its side
            index = max((i + 1 for i, c in enumerate(combatants) if c.side is entry.side), default=len(combatants))
        else:
            key = entry.initiative.key()[:2]
            index = next((i for i, c in enumerate(combatants) if (_rank(c) or key) > key), len(combatants))
        if combatants and index <= turn:  # placed before whoever has the turn (in an empty fight, nobody has)
            turn += 1
        combatants.insert(index, entry)
    return dataclasses.replace(encounter, combatants=tuple(combatants), turn=turn, next_number=number)


def _rank(combatant: Combatant) -> tuple[int, ...] | None:
    """Where a combatant stands in the order, as `InitiativeRoll.key` sorts: by the count it acts at."""
    if combatant.initiative is None:
        return None
    return (-(combatant.standing or 0), -combatant.initiative.tiebreak)


def remove(encounter: Encounter, number: int, dice: Dice, fate: Fate | None = None) -> Encounter:
    """Take a combatant out; whose turn it is stays, or passes on as Next would when it was the one removed.

    `fate`: the dice of a dying combatant's check when the turn passes to it (`advance_turn`).
    """
    index = _index(encounter, number)
    combatants = encounter.combatants[:index] + encounter.combatants[index + 1 :]
    if not encounter.begun or index != encounter.turn:
        turn = encounter.turn - 1 if index < encounter.turn else encounter.turn
        return dataclasses.replace(encounter, combatants=combatants, turn=turn)
    if not combatants:
        return dataclasses.replace(encounter, combatants=(), turn=0, steps=encounter.steps + 1)
    # The turn passes: a Next press meant for the removed combatant's turn must not end the next one's too.
    return _unready_current(
        _pass(dataclasses.replace(encounter, combatants=combatants, steps=encounter.steps + 1), index, dice, fate)
    ).encounter


def move(encounter: Encounter, number: int, position: int) -> Encounter:
    """Put a combatant at `position` (1 first) of the order; the turn stays with whoever has it."""
    if not 1 <= position <= len(encounter.combatants):
        raise EncounterError(f"A position is 1 to {len(encounter.combatants)} here.")
    current = encounter.current
    combatants = list(encounter.combatants)
    entry = combatants.pop(_index(encounter, number))
    combatants.insert(position - 1, entry)
    turn = combatants.index(current) if current is not None else 0
    return dataclasses.replace(encounter, combatants=tuple(combatants), turn=turn)


def place(encounter: Encounter, number: int, x: int, y: int) -> Encounter:
    """AliensRL: stand a combatant on square (x, y); one being to a square (a default: the reference has no map)."""
    return place_all(encounter, [(number, Square(x, y))])[0]


# Compass words for a move of one square on the map: y counts down, so north is y - 1.
COMPASS: Final = {
    "n": (0, -1),
    "ne": (1, -1),
    "e": (1, 0),
    "se": (1, 1),
    "s": (0, 1),
    "sw": (-1, 1),
    "w": (-1, 0),
    "nw": (-1, -1),
}
_PAIR: Final = re.compile(r"\(?\s*([+-]?)(\d{1,3})\s*,\s*([+-]?)(\d{1,3})\s*\)?")
_STEP: Final = re.compile(r"(\d{0,2})(n|ne|e|se|s|sw|w|nw)")
MAX_PLACES: Final = 4000  # characters of a `squares:` list (Discord's option holds 6000): 25 combatants with room


@dataclass(frozen=True, slots=True)
class Square:
    """Where a combatant is to stand: a square (x, y), or an offset from where it stands (`relative`)."""

    x: int
    y: int
    relative: bool = False


def read_square(text: str, *, relative: bool = False) -> Square:
    """A square as typed: `4,3` (absolute), `+1,-2` (an offset: a sign makes it one) or compass steps `n`, `2ne e`.

    `relative`: the text is an offset whatever it looks like (the `by:` option), so `1,-2` moves too.
    """
    cleaned = " ".join(text.lower().split())
    pair = _PAIR.fullmatch(cleaned)
    if pair is not None:
        x_sign, x, y_sign, y = pair.groups()
        dx = -int(x) if x_sign == "-" else int(x)
        dy = -int(y) if y_sign == "-" else int(y)
        return Square(dx, dy, relative or bool(x_sign or y_sign))
    dx = dy = 0
    words = cleaned.split(" ") if cleaned else []
    for word in words:
        step = _STEP.fullmatch(word)
        if step is None:
            break
        times = int(step[1] or 1)
        dx, dy = dx + times * COMPASS[step[2]][0], dy + times * COMPASS[step[2]][1]
    else:
        if words:
            return Square(dx, dy, relative=True)
    raise EncounterError(
        f"`{text[:40]}` is not a square: write `4,3` (x across, y down), an offset `+1,-2`, or compass steps "
        "such as `n`, `ne` or `3e` (north is up the map).",
        title="Which square?",
    )


def read_squares(text: str) -> list[tuple[str, Square]]:
    """Several combatants and their squares: `Vasquez 1,3; Hicks 4,3; #3 +1,0; Alien 1 2ne`, `;` between each.

    The last word of each is the square (`read_square`), the rest names the combatant.
    """
    if len(text) > MAX_PLACES:
        raise EncounterError(f"A list of squares is at most {MAX_PLACES} characters.", title="Too long")
    found: list[tuple[str, Square]] = []
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        match = re.fullmatch(r"(.+?)\s+(\(?\s*[+-]?\d+\s*,\s*[+-]?\d+\s*\)?|[0-9nsew]+)", part)
        if match is None:
            raise EncounterError(
                f"`{part[:40]}` names no square: write a name then its square, e.g. `Hicks 4,3` or `Hicks ne`.",
                title="Which square?",
            )
        found.append((match[1].strip(), read_square(match[2])))
    if not found:
        raise EncounterError("Name at least one combatant and its square, e.g. `Hicks 4,3`.", title="Which square?")
    if len(found) > MAX_COMBATANTS:
        raise EncounterError(f"An encounter holds at most {MAX_COMBATANTS} combatants.", title="Too many")
    return found


def place_all(encounter: Encounter, moves: Sequence[tuple[int, Square]]) -> tuple[Encounter, list[Combatant]]:
    """AliensRL: stand each combatant on its square at once (an offset moves it from where it stands).

    All or none: a square off the map, two on one square, or a square taken by someone who stays are refused.
    Returns the fight and the combatants moved, as they now stand.
    """
    if not rulesets.fighting(encounter.ruleset).has_map:
        raise EncounterError("Only an AliensRL fight has a map: its shots stray onto squares.")
    targets: dict[int, tuple[int, int]] = {}
    for number, square in moves:
        who = encounter.combatants[_index(encounter, number)]
        if number in targets:
            raise EncounterError(f"**{who.name}** is named twice.", title="Which square?")
        if square.relative and who.position is None:
            raise EncounterError(
                f"**{who.name}** is not on the map yet: give it a square such as `4,3` first.", title="Not on the map"
            )
        x, y = square.x, square.y
        if square.relative and who.position is not None:
            x, y = who.position[0] + x, who.position[1] + y
        if not (0 <= x < MAP_SIZE and 0 <= y < MAP_SIZE):
            raise EncounterError(
                f"({x}, {y}) is off the map for **{who.name}**: a square is 0 to {MAP_SIZE - 1} across (x) and down "
                "(y).",
                title="Off the map",
            )
        targets[number] = (x, y)
    seen: dict[tuple[int, int], int] = {}
    for number, spot in targets.items():
        other = seen.get(spot)
        staying = occupant(encounter, spot)
        if other is None and staying is not None and staying.number not in targets:
            other = staying.number
        if other is not None and other != number:
            name = encounter.combatants[_index(encounter, other)].name
            raise EncounterError(f"**{name}** stands on {spot} already.", title="Square taken")
        seen[spot] = number
    combatants = tuple(
        dataclasses.replace(c, position=targets[c.number]) if c.number in targets else c for c in encounter.combatants
    )
    moved = [c for c in combatants if c.number in targets]
    return dataclasses.replace(encounter, combatants=combatants), moved


def shot_field(encounter: Encounter, shooter: Combatant, target: Combatant) -> Field:
    """AliensRL: the map as a shot from `shooter` at `target` sees it: their squares and every other living being's.

    Refused when the two are one, or either has no square yet.
    """
    if shooter.number == target.number:
        raise EncounterError(f"**{shooter.name}** cannot fire at itself.", title="Who?")
    for who in (shooter, target):
        if who.position is None:
            raise EncounterError(
                f"**{who.name}** has no square yet: `/encounter place combatant:{who.name} x:... y:...` puts it on "
                "the map.",
                title="Not on the map",
            )
    assert shooter.position is not None and target.position is not None
    beings = tuple(
        (c.name, c.position)
        for c in encounter.combatants
        if c.position is not None and c.number != shooter.number and can_act(encounter.ruleset, c)
    )
    return Field(shooter.position, target.position, beings)


def occupant(encounter: Encounter, square: tuple[int, int]) -> Combatant | None:
    """Who stands on `square`, if anyone."""
    return next((c for c in encounter.combatants if c.position == square), None)


def find(encounter: Encounter, text: str) -> Combatant:
    """The combatant `text` names (any case), or its number as `#3`."""
    text = text.strip()
    for c in encounter.combatants:
        if name_key(c.name) == name_key(text) or text == f"#{c.number}":
            return c
    names = ", ".join(c.name for c in encounter.combatants) or "nobody yet"
    raise EncounterError(f"There is no combatant **{text[:40]}** here. In this encounter: {names}.", title="Who?")


# -------------------------------------------------------------------------------------------- initiative


@dataclass(frozen=True, slots=True)
class Roller:
    """One initiative check to roll: a combatant's, or a Star Frontiers side's with its leader's modifier."""

    name: str  # the combatant, or the side ("party", "foes")
    modifiers: tuple[Modifier, ...]
    tiebreak: int  # compared first on a tie: D&D the total modifier, Star Frontiers the (highest) RS
    leader: str = ""  # by side: the member whose initiative modifier the side adds
    given: int | None = None  # the initiative its player rolled with their own dice: taken as it is, not rolled


@dataclass(frozen=True, slots=True)
class InitiativeInput:
    """Everything one initiative roll reads: the rules, who rolls and with what (a fair log's logged input).

    `entering`: combatants entering a fight under way; they roll once and do not roll off (they act after
    whoever they tie with). Otherwise it is a round's initiative, ties rolled off. `encounter` and `round` only
    name the fight in the answer and the log.
    """

    ruleset: str
    encounter: str
    round: int
    rollers: tuple[Roller, ...]
    by_side: bool = False
    entering: bool = False

    def __post_init__(self) -> None:
        if not _rolls_initiative(self.ruleset):
            raise EncounterError(f"Only D&D and Star Frontiers fights roll initiative, not `{self.ruleset[:20]}`.")
        if not 1 <= len(self.rollers) <= MAX_COMBATANTS:
            raise EncounterError(f"An initiative roll is for 1 to {MAX_COMBATANTS} combatants.")
        if not 1 <= self.round <= MAX_ROUND:
            raise EncounterError(f"A fight's round is 1 to {MAX_ROUND}.")
        if self.by_side and (not rulesets.fighting(self.ruleset).sides or self.entering):
            raise EncounterError("Only a Star Frontiers round's initiative is rolled by side.")
        if any(len(r.modifiers) > MAX_MODIFIERS for r in self.rollers):
            raise EncounterError(f"An initiative check adds at most {MAX_MODIFIERS} modifiers.")

    @property
    def die(self) -> int:
        """The die every check rolls (`Fighting.die`): a d20 in D&D, a d10 in Star Frontiers."""
        die = rulesets.fighting(self.ruleset).die
        assert die is not None  # checked when made
        return die


@dataclass(frozen=True, slots=True)
class Initiative:
    """An initiative roll: what it was asked, and each roller's check, in the order of the rollers."""

    asked: InitiativeInput
    checks: tuple[InitiativeRoll, ...]

    def in_order(self) -> list[tuple[Roller, InitiativeRoll]]:
        """Each roller with its check, the first to act first (a tie that stands keeps the rollers' order)."""
        return sorted(zip(self.asked.rollers, self.checks, strict=True), key=lambda pair: pair[1].key())

    def to_dict(self) -> dict[str, Any]:
        """The roll's outcome: the fight, the round, and every check with its name, the first to act first."""
        checks = [
            {"name": roller.name, **({"leader": roller.leader} if self.asked.by_side else {}), **dump_roll(check)}
            for roller, check in self.in_order()
        ]
        return {"encounter": self.asked.encounter, "round": self.asked.round, "initiative": checks}


def roll_initiative(asked: InitiativeInput, dice: DiceSource) -> Initiative:
    """Roll initiative: each roller's die in order, then the ties rolled off (SRD, Initiative; Alpha Dawn).

    D&D: d20 + modifiers; Star Frontiers: d10 + IM. Combatants entering a fight under way do not roll off. A
    roller with a `given` initiative (its player rolled their own dice) takes it as its total and draws no die;
    its ties break as anyone's.
    """
    checks = [
        InitiativeRoll(die=asked.die, face=dice.randint(1, asked.die), modifiers=r.modifiers, tiebreak=r.tiebreak)
        if r.given is None
        else InitiativeRoll(die=asked.die, face=r.given, modifiers=(), tiebreak=r.tiebreak, given=True)
        for r in asked.rollers
    ]
    if not asked.entering:
        checks = rolloffs(checks, dice)
    return Initiative(asked, tuple(checks))


class Unrolled(Exception):
    """A change needs an initiative roll that `Prerolled` does not hold: `asked` is the roll it needs."""

    def __init__(self, asked: InitiativeInput) -> None:
        super().__init__(f"this change rolls initiative for {len(asked.rollers)} combatant(s) or side(s)")
        self.asked = asked


class Prerolled:
    """Initiative rolled before the change that needs it (the tracker draws it through a fair session's dice).

    A change given one takes its roll when it asks for exactly that roll, and raises `Unrolled` with the roll
    it needs otherwise (none was made yet, or the fight changed since). `used`: whether a change took it.
    """

    __slots__ = ("made", "used")

    def __init__(self, made: Initiative | None = None) -> None:
        self.made = made
        self.used = False

    def take(self, asked: InitiativeInput) -> Initiative:
        """The roll made, if it is the one `asked`."""
        if self.made is None or self.made.asked != asked:
            raise Unrolled(asked)
        self.used = True
        return self.made


# Where a change's initiative comes from: dice to roll it with, or a roll made before the change.
Dice = DiceSource | Prerolled


def _initiative(dice: Dice, asked: InitiativeInput) -> Initiative:
    if isinstance(dice, Prerolled):
        return dice.take(asked)
    return roll_initiative(asked, dice)


def rolloffs(rolls: Sequence[InitiativeRoll], dice: DiceSource) -> list[InitiativeRoll]:
    """Break the ties that total and tie-breaking value leave: the tied roll again, until they differ.

    Returns the rolls in the same order as given, each with the roll-off faces it took part in.
    """
    result = list(rolls)

    def settle(indices: list[int], depth: int) -> None:
        groups: dict[tuple[int, ...], list[int]] = {}
        for i in indices:
            groups.setdefault(result[i].key(), []).append(i)
        for tied in groups.values():
            if len(tied) < 2 or depth >= MAX_ROLLOFFS:
                continue
            for i in tied:
                roll = result[i]
                result[i] = dataclasses.replace(roll, rolloffs=(*roll.rolloffs, dice.randint(1, roll.die)))
            settle(tied, depth + 1)

    settle(list(range(len(result))), 0)
    return result


def entering(encounter: Encounter, entries: Sequence[Combatant]) -> InitiativeInput | None:
    """The initiative roll of combatants entering a fight under way, if they roll one (not AliensRL, not by side)."""
    if not entries or not encounter.begun or not _rolls_initiative(encounter.ruleset) or _by_side(encounter):
        return None
    rollers = tuple(_roller(unit) for unit in units(entries))
    return InitiativeInput(encounter.ruleset, encounter.name, encounter.round, rollers, entering=True)


def with_given(encounter: Encounter, entries: Sequence[Combatant], value: int | None) -> list[Combatant]:
    """Newcomers whose player rolled initiative with their own dice: `value` is taken as their total, not rolled.

    It counts for the next initiative roll that includes them (D&D rolls once; a Star Frontiers round after that
    rolls again). Refused where there is no individual initiative to give: AliensRL, a Star Frontiers fight by side.
    """
    if value is None:
        return list(entries)
    if not _rolls_initiative(encounter.ruleset):
        raise EncounterError("An AliensRL fight rolls no initiative: `/encounter move` sets the order.")
    if not rolls_each(encounter):
        raise EncounterError("This fight rolls initiative by side: each side rolls, not each combatant.")
    if not -MAX_GIVEN <= value <= MAX_GIVEN:
        raise EncounterError(f"An initiative given goes from -{MAX_GIVEN} to {MAX_GIVEN}.")
    return [dataclasses.replace(e, given=value) for e in entries]


def rolls_each(encounter: Encounter) -> bool:
    """Whether each combatant (or group) of this fight rolls its own initiative: not AliensRL, not by side."""
    return _rolls_initiative(encounter.ruleset) and not _by_side(encounter)


def units(combatants: Sequence[Combatant]) -> list[list[Combatant]]:
    """The combatants as they roll initiative: each alone, or a group together, in the order of each's first."""
    found: dict[int, list[Combatant]] = {}
    for c in combatants:
        found.setdefault(c.group or -c.number, []).append(c)
    return list(found.values())


def _roller(unit: Sequence[Combatant]) -> Roller:
    """One initiative check for a combatant, or for a group of like creatures (its first member's numbers)."""
    first = unit[0]
    return Roller(unit_name(unit), first.modifiers, first.tiebreak, given=first.given)


def unit_name(unit: Sequence[Combatant]) -> str:
    """A combatant's name, or a group's: "Goblin 1-4" for numbered like creatures, else "Ana & Bo"."""
    names = [c.name for c in unit]
    if len(names) == 1:
        return names[0]
    base, _, first = names[0].rpartition(" ")
    if base and first.isdecimal() and names == [f"{base} {int(first) + i}" for i in range(len(names))]:
        return f"{base} {first}-{int(first) + len(names) - 1}"
    return " & ".join(names)


def _with_checks(unit_list: Sequence[Sequence[Combatant]], checks: Sequence[InitiativeRoll]) -> list[Combatant]:
    """Each member of each unit with its unit's check; a given initiative is used up (the next roll is rolled)."""
    return [
        dataclasses.replace(c, initiative=check, given=None, count=None)
        for unit, check in zip(unit_list, checks, strict=True)
        for c in unit
    ]


def begin(encounter: Encounter, dice: Dice, fate: Fate | None = None) -> Encounter:
    """`begin_turn`'s fight alone."""
    return begin_turn(encounter, dice, fate).encounter


def begin_turn(encounter: Encounter, dice: Dice, fate: Fate | None = None) -> Turn:
    """Roll initiative for everyone and start round 1 with the first who can act (AliensRL: in entry order)."""
    if not encounter.combatants:
        raise EncounterError("Nobody is in the fight yet: `/encounter join` or `/encounter add` first.")
    started = _order(dataclasses.replace(encounter, round=1, turn=0), dice)
    return _pass(started, 0, dice, fate)


def _order(encounter: Encounter, dice: Dice) -> Encounter:
    """This round's order: individual checks sorted, or Star Frontiers sides; AliensRL keeps its order."""
    if not _rolls_initiative(encounter.ruleset):
        return encounter
    by_side = _by_side(encounter)
    leading = _leading(encounter) if by_side else []
    unit_list = units(encounter.combatants)
    if by_side:
        rollers = tuple(Roller(side.value, leader.modifiers, best_rs, leader.name) for side, leader, best_rs in leading)
    else:
        rollers = tuple(_roller(unit) for unit in unit_list)
    checks: tuple[InitiativeRoll, ...] = ()
    if rollers:  # a fight with nobody able to act rolls nothing
        asked = InitiativeInput(encounter.ruleset, encounter.name, encounter.round, rollers, by_side=by_side)
        checks = _initiative(dice, asked).checks
    if by_side:
        return _side_order(encounter, leading, checks)
    # A group's members share one check and act one after another, in the order they entered (a stable sort).
    ranked = sorted(_with_checks(unit_list, checks), key=lambda c: c.initiative.key() if c.initiative else ())
    return dataclasses.replace(encounter, combatants=tuple(ranked), sides=())


def _by_side(encounter: Encounter) -> bool:
    return encounter.by_side and rulesets.fighting(encounter.ruleset).sides


def _rolls_initiative(ruleset: str) -> bool:
    """Whether fights of `ruleset` roll initiative (AliensRL's act in the order they entered)."""
    found = rulesets.find(ruleset)
    return found is not None and found.fighting is not None and found.fighting.die is not None


# Conditions that keep a combatant from acting: a knock-out (§3, §6) and a stun (§11 item 5) put it out for turns.
HELPLESS: Final = ("unconscious", "stunned")


def can_lead(ruleset: str, combatant: Combatant) -> bool:
    """Star Frontiers by side: whether a member lends its side its IM and RS: alive, and not knocked out or stunned."""
    out = {name_key(name) for name in HELPLESS}
    return can_act(ruleset, combatant) and not any(name_key(c.name) in out for c in combatant.conditions)


def _leading(encounter: Encounter) -> list[tuple[Side, Combatant, int]]:
    """Star Frontiers by side: each side with a member able to act, its leader (the best IM) and its best RS."""
    leading = []
    for side in Side:
        able = [c for c in encounter.combatants if c.side is side and can_lead(encounter.ruleset, c)]
        if able:
            leader = max(able, key=lambda c: sum(m.value for m in c.modifiers))
            leading.append((side, leader, max(c.tiebreak for c in able)))
    return leading


def _side_order(
    encounter: Encounter, leading: list[tuple[Side, Combatant, int]], checks: tuple[InitiativeRoll, ...]
) -> Encounter:
    """Star Frontiers by side: each side d10 + its best IM; ties by the highest RS, then both roll again.

    Only members who can act lend a side their IM and RS: not the dead, not the unconscious, not the stunned
    (a stun leaves its target out for d100 turns, star_frontiers.md §6, §11 item 5). A side with nobody able to
    act rolls nothing and takes its place after every side that rolled (a default: it has no one to act first).
    """
    rolled = [SideInitiative(side, roll, leader.name) for (side, leader, _), roll in zip(leading, checks, strict=True)]
    ranked = sorted(rolled, key=lambda s: s.roll.key() if s.roll else ())
    fighting = [side for side in Side if any(c.side is side for c in encounter.combatants)]
    idle = [SideInitiative(side, None, "") for side in fighting if side not in {s.side for s in rolled}]
    sides = [*ranked, *idle]
    rank = {s.side: i for i, s in enumerate(sides)}
    # Within a side the higher RS acts first, then entry order (a default: the side acts together).
    ordered = sorted(encounter.combatants, key=lambda c: (rank[c.side], -c.tiebreak, c.number))
    ordered = [dataclasses.replace(c, initiative=None) for c in ordered]
    return dataclasses.replace(encounter, combatants=tuple(ordered), sides=tuple(sides))


# -------------------------------------------------------------------------------------------- turns

# Conditions whose bearer can take no actions, so its turn passes with the condition named (docs/rules/dnd35.md
# §13 item 16): the SRD's (Conditions: dazed, helpless, paralyzed, petrified, stunned, unconscious, cowering; asleep
# and
# sleeping are its helpless sleeper), and Star Frontiers' knock-out (unconscious) and stun (stunned). Any
# ruleset's condition of one of these names passes the turn: the game master who typed it meant it.
PASSING: Final = (
    "unconscious",
    "stunned",
    "paralyzed",
    "helpless",
    "asleep",
    "sleeping",
    "dazed",
    "petrified",
    "cowering",
)
STABLE: Final = "stable"  # D&D: a dying combatant that stopped losing hit points (SRD, Injury and Death)
STABILIZE: Final = 10  # D&D: d% 01-10 on a dying combatant's turn makes it stable (SRD: a 10% chance)


@dataclass(frozen=True, slots=True)
class DyingCheck:
    """D&D: a dying combatant's d% when its turn comes: 01-10 it becomes stable, else it loses 1 hit point.

    SRD, Injury and Death (Dying; Stable Characters and Recovery); docs/rules/dnd35.md §13 item 16.
    """

    face: int
    stable: bool
    before: int
    after: int


@dataclass(frozen=True, slots=True)
class DyingInput:
    """The dying whose turns one move of the turn reaches, in turn order: each rolls d% (SRD, Injury and Death).

    What a fair session's roll of those checks reads: the fight (its ruleset, name and round) and who rolls.
    """

    ruleset: str
    fight: str
    round: int
    dying: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DyingFaces:
    """The dying's d%, one a name of `asked`, in order: 01-10 it becomes stable."""

    asked: DyingInput
    faces: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        """The outcome a fair log keeps: each face, and whether it stabilized."""
        return {"faces": list(self.faces), "stable": [face <= STABILIZE for face in self.faces]}


def roll_dying(asked: DyingInput, dice: DiceSource) -> DyingFaces:
    """Each dying combatant's d% in the order asked (SRD, Injury and Death: a 10% chance of becoming stable)."""
    return DyingFaces(asked, tuple(dice.randint(1, 100) for _ in asked.dying))


class Unfated(Exception):
    """A move of the turn reaches dying combatants whose d% `Foretold` does not hold: `asked` is the roll it needs."""

    def __init__(self, asked: DyingInput) -> None:
        super().__init__(f"this move of the turn rolls d% for {len(asked.dying)} dying combatant(s)")
        self.asked = asked


class Foretold:
    """The dying's d% rolled before the move of the turn that needs them, as `Prerolled` is initiative.

    The tracker draws them through a fair session's dice. Without a roll made it only counts who would roll (each
    face read as 100: no change is kept from such a move); `settle` then raises `Unfated` with the roll needed. With
    one, each dying combatant takes its face in turn, and `settle` checks that the move asked for exactly that roll.
    `used`: whether a move took it.
    """

    __slots__ = ("asked", "made", "used")

    def __init__(self, made: DyingFaces | None = None) -> None:
        self.made = made
        self.asked: list[str] = []
        self.used = False

    def face(self, name: str) -> int:
        """The d% of the dying combatant `name`, the next one asked."""
        self.asked.append(name)
        at = len(self.asked) - 1
        if self.made is None or at >= len(self.made.faces) or self.made.asked.dying[at] != name:
            return 100
        self.used = True
        return self.made.faces[at]

    def settle(self, after: Encounter) -> None:
        """Raise `Unfated` unless the move just made took exactly the roll made (none asked: nothing to roll)."""
        asked = tuple(self.asked)
        if self.made is None and not asked:
            return
        if self.made is None or self.made.asked.dying != asked:
            raise Unfated(DyingInput(after.ruleset, after.name, after.round, asked))


# The dice of a dying combatant's d%: dice to roll it with, or a roll made before the change.
Fate = DiceSource | Foretold


@dataclass(frozen=True, slots=True)
class Passed:
    """A combatant whose turn came and passed because it could not act, and why (a dying one's check too)."""

    number: int
    name: str
    why: str  # "dead", "dying", "stable", or the condition that keeps it from acting ("stunned")
    dying: DyingCheck | None = None


@dataclass(frozen=True, slots=True)
class Turn:
    """A pass of the turn: the fight after it, and who was passed on the way (in turn order)."""

    encounter: Encounter
    passed: tuple[Passed, ...] = ()


def why_passed(ruleset: str, combatant: Combatant) -> str | None:
    """Why a combatant's turn passes without it acting, or None when it acts (docs/rules/dnd35.md §13 item 16).

    The dead; D&D's dying (-1 to -9 hp: "unconscious and can take no actions", SRD) and stable; whoever has a
    condition of `PASSING` (stunned, paralyzed, unconscious...). Disabled (0 hp) still acts: one action a turn.
    """
    state = health(ruleset, combatant.hp)
    if state is Health.DEAD:
        return "dead"
    names = [name_key(c.name) for c in combatant.conditions]
    if state is Health.DYING:
        return STABLE if STABLE in names else "dying"
    passing = next((c.name for c in combatant.conditions if name_key(c.name) in PASSING), None)
    return passing


def advance(encounter: Encounter, dice: Dice, fate: Fate | None = None) -> Encounter:
    """`advance_turn`'s fight alone."""
    return advance_turn(encounter, dice, fate).encounter


def advance_turn(encounter: Encounter, dice: Dice, fate: Fate | None = None) -> Turn:
    """End the current turn and pass to the next combatant who can act; after the last, the next round begins.

    Before round 1 this rolls initiative instead. The combatant whose turn ends has now acted (D&D: it stopped
    being flat-footed when that turn began) and its conditions' rounds count down. Star Frontiers rolls
    initiative again every round. A combatant who cannot act (`why_passed`) has its turn come and go on the way:
    its conditions count down, and a D&D dying one rolls its d% (`fate`: the dice of those checks, by default
    `dice` when they are dice).
    """
    if not encounter.begun:
        return begin_turn(dataclasses.replace(encounter, steps=encounter.steps + 1), dice, fate)
    if not encounter.combatants:
        raise EncounterError("Nobody is left in the fight.")
    index = encounter.turn
    ending = encounter.combatants[index]
    ticked = dataclasses.replace(ending, acted=True, conditions=_ticked(ending.conditions, encounter.steps))
    combatants = (*encounter.combatants[:index], ticked, *encounter.combatants[index + 1 :])
    encounter = dataclasses.replace(encounter, combatants=combatants, steps=encounter.steps + 1)
    return _unready_current(_pass(encounter, index + 1, dice, fate))


def _unready_current(turn: Turn) -> Turn:
    """A readied action not taken before its bearer's next turn is lost (SRD, Special Initiative Actions: Ready)."""
    return dataclasses.replace(turn, encounter=_unready(turn.encounter))


def _unready(encounter: Encounter) -> Encounter:
    """`_unready_current` of a fight whose turn moved without a pass (a delay)."""
    current = encounter.current
    if current is None or current.readied is None:
        return encounter
    return _replace_at(encounter, encounter.turn, dataclasses.replace(current, readied=None))


def delay(encounter: Encounter, after: int | None, fate: Fate | None = None) -> Encounter:
    """`delay_turn`'s fight alone."""
    return delay_turn(encounter, after, fate).encounter


def delay_turn(encounter: Encounter, after: int | None, fate: Fate | None = None) -> Turn:
    """The combatant whose turn it is delays: it acts later this round, right after `after` (None: last).

    SRD (Special Initiative Actions: Delay): a delaying combatant takes no action now and acts at a later count
    of its choosing, which is its place in the order from then on. Its turn has begun, so it is no longer
    flat-footed; its conditions count down when the turn it delayed to ends. Whoever is next in the order has the
    turn now. Delaying past someone who has already acted this round would be a turn lost, so `after` must be
    still to act this round (or be the last: the end of the round). The turn goes on as Next passes it: whoever
    cannot act on the way is passed, its conditions counting the turn and a dying one rolling its d% (`fate`).
    """
    current = encounter.current
    if current is None:
        raise EncounterError("The fight has not begun: nobody has a turn to delay yet.")
    if current.readied is not None:
        raise EncounterError(
            f"**{current.name}** has readied an action this turn, and a delay takes no action: Next ends the turn.",
            title="Delay",
        )
    index = encounter.turn
    rest = [c for c in encounter.combatants if c.number != current.number]
    if after is None:
        place = len(rest)
    else:
        later = _index(encounter, after)
        if later == index:
            raise EncounterError(f"**{current.name}** cannot delay until after itself.", title="Delay")
        if later < index:
            named = encounter.combatants[later].name
            raise EncounterError(
                f"**{named}** has acted this round already: delay until after someone still to act, or to the end.",
                title="Delay",
            )
        place = later  # its index among the others is one less, so it goes in right after it
    # SRD: its initiative becomes the count it acts at, the one it acts right after (or the round's last).
    before = rest[place - 1] if place > 0 else None
    delayed = dataclasses.replace(current, acted=True, count=before.standing if before is not None else None)
    combatants = (*rest[:place], delayed, *rest[place:])
    # Whoever came next and can act has the turn; the delayer comes later this round, so the round never ends
    # here (no initiative is rolled: `Prerolled` holds none).
    moved = dataclasses.replace(encounter, combatants=combatants, steps=encounter.steps + 1)
    return _unready_current(_pass(moved, index, Prerolled(), fate))


def ready(encounter: Encounter, trigger: str) -> Encounter:
    """The combatant whose turn it is readies an action against `trigger` (SRD: Ready); Next ends its turn.

    It keeps the readied action until it takes it (`act_readied`) or its next turn begins, when it is lost.
    """
    current = encounter.current
    if current is None:
        raise EncounterError("The fight has not begun: nobody has a turn to ready an action in yet.")
    trigger = " ".join(trigger.split())
    if not 1 <= len(trigger) <= MAX_TRIGGER:
        raise EncounterError(f"Say what the readied action waits for in 1 to {MAX_TRIGGER} characters.")
    return _replace_at(encounter, encounter.turn, dataclasses.replace(current, readied=trigger))


def act_readied(encounter: Encounter, number: int) -> Encounter:
    """A readied combatant acts now: it moves in front of whoever has the turn, and has the turn (SRD: Ready).

    The SRD: its initiative result becomes the count on which it took the readied action, just before the
    trigger's; so it keeps that place in the order. When its turn ends, the one it interrupted has the turn.
    """
    current = encounter.current
    if current is None:
        raise EncounterError("The fight has not begun: nobody has readied an action yet.")
    index = _index(encounter, number)
    acting = encounter.combatants[index]
    if acting.readied is None:
        raise EncounterError(
            f"**{acting.name}** has no readied action: on its turn, `/encounter ready` readies one.", title="Ready"
        )
    if acting.number == current.number:
        raise EncounterError(f"It is **{acting.name}**'s turn already.", title="Ready")
    if not can_act(encounter.ruleset, acting):
        raise EncounterError(f"**{acting.name}** cannot act.", title="Ready")
    rest = [c for c in encounter.combatants if c.number != number]
    place = rest.index(current)
    # SRD: its initiative becomes the count it acted at, the trigger's.
    moved = dataclasses.replace(acting, readied=None, count=current.standing)
    combatants = (*rest[:place], moved, *rest[place:])
    return dataclasses.replace(encounter, combatants=combatants, turn=place, steps=encounter.steps + 1)


def _pass(encounter: Encounter, start: int, dice: Dice, fate: Fate | None = None) -> Turn:
    """The turn to the first combatant from `start` who can act, passing the others; after the last, round + 1.

    When nobody in the fight can act the turn moves one place, to whoever comes next, without passing it: the
    game master sees the fight stand still (a default), and each Next lets one more turn come and go.
    """
    fate = fate if fate is not None else (None if isinstance(dice, Prerolled) else dice)
    ruleset = encounter.ruleset
    if all(why_passed(ruleset, c) is not None for c in encounter.combatants):
        if start >= len(encounter.combatants):
            encounter, start = _next_round(encounter, dice), 0
        encounter, check = _comes(encounter, start, fate)
        resting = encounter.combatants[start]
        out = Passed(resting.number, resting.name, why_passed(ruleset, resting) or "", check)
        return Turn(dataclasses.replace(encounter, turn=start), (out,))
    passed: list[Passed] = []
    index = start
    while True:
        if index >= len(encounter.combatants):
            encounter, index = _next_round(encounter, dice), 0
        why = why_passed(ruleset, encounter.combatants[index])
        if why is None:
            return Turn(dataclasses.replace(encounter, turn=index), tuple(passed))
        encounter, check = _comes(encounter, index, fate)
        bearer = encounter.combatants[index]
        # Its turn came and went: it has had a turn, and its conditions count it (a stun of 1 round is over).
        gone = dataclasses.replace(bearer, acted=True, conditions=_ticked(bearer.conditions, -1))
        encounter = _replace_at(encounter, index, gone)
        passed.append(Passed(bearer.number, bearer.name, why, check))
        index += 1


def _next_round(encounter: Encounter, dice: Dice) -> Encounter:
    """Round + 1 from the top of the order; Star Frontiers rolls initiative again."""
    next_round = dataclasses.replace(encounter, round=encounter.round + 1, turn=0)
    if rulesets.fighting(encounter.ruleset).every_round:
        next_round = _order(next_round, dice)
    return next_round


def _comes(encounter: Encounter, index: int, fate: Fate | None) -> tuple[Encounter, DyingCheck | None]:
    """A combatant's turn comes: a D&D dying one (not stable) rolls d% to stabilize, else loses 1 hit point.

    SRD, Injury and Death: "on all subsequent turns, roll d% to see whether the dying character becomes stable.
    He has a 10% chance of becoming stable. If he doesn't, he loses 1 hit point." At -10 it is dead.
    """
    bearer = encounter.combatants[index]
    if why_passed(encounter.ruleset, bearer) != "dying":
        return encounter, None
    assert fate is not None, "a dying combatant's check needs dice"
    face = fate.face(bearer.name) if isinstance(fate, Foretold) else fate.randint(1, 100)
    stable = face <= STABILIZE
    after = bearer.hp if stable else bearer.hp - 1
    conditions = _with_condition(bearer.conditions, Condition(STABLE)) if stable else bearer.conditions
    changed = dataclasses.replace(bearer, hp=after, conditions=conditions)
    return _replace_at(encounter, index, changed), DyingCheck(face, stable, bearer.hp, after)


def _settled(ruleset: str, combatant: Combatant) -> Combatant:
    """A combatant whose hit points changed: `stable` only while it is still dying.

    SRD, Injury and Death: stable is a state of the dying (-1 to -9 hit points); healed to 0 or more (disabled, or
    up) or killed, it is that instead, and a later fall to dying rolls its d% again.
    """
    if health(ruleset, combatant.hp) is Health.DYING or not any(
        name_key(c.name) == STABLE for c in combatant.conditions
    ):
        return combatant
    return dataclasses.replace(
        combatant, conditions=tuple(c for c in combatant.conditions if name_key(c.name) != STABLE)
    )


def _ticked(conditions: tuple[Condition, ...], step: int) -> tuple[Condition, ...]:
    """Conditions after one more turn of their bearer: counted down, the ones run out gone.

    One put on during this very turn (`since` is this step) is not counted down yet: "stunned for 1 round" put
    on a combatant in its own turn lasts through its next one.
    """
    kept = []
    for condition in conditions:
        if condition.rounds is None or condition.since == step:
            kept.append(condition)
        elif condition.rounds > 1:
            kept.append(dataclasses.replace(condition, rounds=condition.rounds - 1))
    return tuple(kept)


# -------------------------------------------------------------------------------------------- hits and health


def apply_hit(encounter: Encounter, number: int, hit: Hit) -> tuple[Encounter, Change]:
    """Apply a resolved hit's damage (negative heals, up to the most) and any knock-out or stun to a combatant.

    Star Frontiers: a knock-out makes the target unconscious for its d100 turns, a stun stunned (§3, §6); one
    already out keeps whichever has more turns left (a default), and the change names the one that stands. D&D:
    the change says whether the target was still flat-footed (its first turn not begun), for the attack's breakdown.
    """
    index = _index(encounter, number)
    target = encounter.combatants[index]
    after = max(-MAX_HP, min(target.hp - hit.damage, target.max_hp if hit.damage < 0 else MAX_HP))
    if hit.damage < 0:
        after = max(after, target.hp)  # healing never lowers hit points above the most
    added: list[Condition] = []
    conditions = target.conditions
    for name, turns in (("unconscious", hit.knockout_turns), ("stunned", hit.stun_turns)):
        if turns:
            standing = _longer(conditions, Condition(name, turns, encounter.steps))
            if standing not in conditions:
                conditions = _with_condition(conditions, standing)
            added.append(standing)
    changed = _settled(encounter.ruleset, dataclasses.replace(target, hp=after, conditions=conditions))
    return _replace_at(encounter, index, changed), _change(encounter, target, changed, tuple(added))


@dataclass(frozen=True, slots=True)
class Defense:
    """The AC a D&D attack on a combatant uses, and why."""

    ac: int
    flat_footed: bool
    why: str
    kind: str = "AC"  # the AC that applies: "AC", "touch AC", "flat-footed AC", "flat-footed touch AC"


def dnd_defense(
    encounter: Encounter, target: Combatant, *, touch: bool = False, flat: bool = False, lost: str = ""
) -> Defense:
    """The AC an attack on a quick creature uses: flat-footed until its first turn begins, or when `flat` says so.

    A quick creature has one AC, used in every form (a default); a character is read from its sheet instead
    (`as_fought`), the same as outside the fight (SRD, Initiative: Flat-Footed). `lost`: why its conditions (or an
    unseen attacker) take its Dex bonus to AC (dnd35.md §14), which calls for the flat-footed form too.
    """
    why = flat_footed_why(encounter, target, given=flat) or lost or None
    flat = why is not None
    form = ("flat_footed_touch" if touch else "flat_footed") if flat else ("touch" if touch else "ac")
    ac = target.stat(form)
    if ac is None:
        ac = target.stat("ac")
    if ac is None:
        raise EncounterError(f"**{target.name}** has no Armor Class in this encounter.")
    kind = ("flat-footed touch AC" if touch else "flat-footed AC") if flat else ("touch AC" if touch else "AC")
    if why is None:
        why = f"{target.name} has had its first turn"
    return Defense(ac=ac, flat_footed=flat, why=f"{kind} {ac}: {why}", kind=kind)


def set_condition(encounter: Encounter, number: int, name: str, rounds: int | None) -> Encounter:
    """Put a condition on a combatant for `rounds` of its turns (None: until removed); the same name replaces."""
    if rounds is not None and not 1 <= rounds <= MAX_CONDITION_ROUNDS:
        raise EncounterError(f"A condition lasts 1 to {MAX_CONDITION_ROUNDS} rounds (or leave rounds out).")
    index = _index(encounter, number)
    target = encounter.combatants[index]
    conditions = _with_condition(target.conditions, Condition(_clean_name(name), rounds, encounter.steps))
    if len(conditions) > MAX_CONDITIONS:
        raise EncounterError(f"A combatant carries at most {MAX_CONDITIONS} conditions.")
    return _replace_at(encounter, index, dataclasses.replace(target, conditions=conditions))


def clear_condition(encounter: Encounter, number: int, name: str) -> Encounter:
    """Take a condition off a combatant."""
    index = _index(encounter, number)
    target = encounter.combatants[index]
    kept = tuple(c for c in target.conditions if name_key(c.name) != name_key(name.strip()))
    if len(kept) == len(target.conditions):
        raise EncounterError(f"**{target.name}** is not {name[:40]}.")
    return _replace_at(encounter, index, dataclasses.replace(target, conditions=kept))


def _with_condition(conditions: tuple[Condition, ...], condition: Condition) -> tuple[Condition, ...]:
    return (*(c for c in conditions if name_key(c.name) != name_key(condition.name)), condition)


def _longer(conditions: tuple[Condition, ...], condition: Condition) -> Condition:
    """`condition`, or the one of its name already on when that has more turns left (None: until removed)."""
    current = next((c for c in conditions if name_key(c.name) == name_key(condition.name)), None)
    if current is None or condition.rounds is None:
        return condition
    if current.rounds is None or current.rounds >= condition.rounds:
        return current
    return condition


def _replace_at(encounter: Encounter, index: int, changed: Combatant) -> Encounter:
    combatants = (*encounter.combatants[:index], changed, *encounter.combatants[index + 1 :])
    return dataclasses.replace(encounter, combatants=combatants)


def change_health(encounter: Encounter, number: int, change: HealthChange) -> tuple[Encounter, Change]:
    """A game master's change of a combatant's hit points, written as everywhere else (`bot.rules.health`).

    `+5` heals up to the most, `-7` hurts, `=12` sets (it may pass the most: temporary hit points), `=12/30` sets
    the most too.
    """
    index = _index(encounter, number)
    target = encounter.combatants[index]
    after, top = settle(target.hp, target.max_hp, [("current", change)])
    if not 1 <= top <= MAX_HP or not -MAX_HP <= after <= MAX_HP:
        raise EncounterError(f"Hit points go from -{MAX_HP} to {MAX_HP}, and the most at least 1.")
    changed = _settled(encounter.ruleset, dataclasses.replace(target, hp=after, max_hp=top))
    return _replace_at(encounter, index, changed), _change(encounter, target, changed)


def _change(
    encounter: Encounter, target: Combatant, changed: Combatant, conditions: tuple[Condition, ...] = ()
) -> Change:
    """What a change of hit points did to `target`, now `changed`, and the conditions it put on."""
    return Change(
        number=target.number,
        name=target.name,
        before=target.hp,
        after=changed.hp,
        max_hp=changed.max_hp,
        health_before=health(encounter.ruleset, target.hp),
        health_after=health(encounter.ruleset, changed.hp),
        conditions=conditions,
        flat_footed=flat_footed(encounter, target),
    )


def _index(encounter: Encounter, number: int) -> int:
    for i, c in enumerate(encounter.combatants):
        if c.number == number:
            return i
    raise EncounterError(f"There is no combatant #{number} in this encounter.", title="Who?")


def _clean_name(name: str, kind: NameKind = COMBATANT) -> str:
    return clean_name(name, kind)


# -------------------------------------------------------------------------------------------- storage


def dump(encounter: Encounter) -> dict[str, Any]:
    """The encounter as JSON data (the store keeps it); `load` reads it back.

    Written out by hand: `dataclasses.asdict` deep-copies every value and took most of a Next press's CPU.
    """
    return {
        **_fields(encounter),
        "combatants": [
            {
                **_fields(c),
                "side": c.side.value,
                "modifiers": [_fields(m) for m in c.modifiers],
                "stats": [list(pair) for pair in c.stats],
                "initiative": _dump_check(c.initiative),
                "conditions": [_fields(condition) for condition in c.conditions],
                "attacks": [
                    {
                        "name": a.name,
                        "command": a.command,
                        "options": [list(pair) for pair in a.options],
                        "named_by": a.named_by,
                    }
                    for a in c.attacks
                ],
            }
            for c in encounter.combatants
        ],
        "sides": [{"side": s.side.value, "roll": _dump_check(s.roll), "leader": s.leader} for s in encounter.sides],
    }


def _fields(value: Any) -> dict[str, Any]:
    """A dataclass's own fields, one level deep (the caller replaces the ones that hold dataclasses)."""
    return {name: getattr(value, name) for name in value.__dataclass_fields__}


def _dump_check(roll: InitiativeRoll | None) -> dict[str, Any] | None:
    if roll is None:
        return None
    return {**_fields(roll), "modifiers": [_fields(m) for m in roll.modifiers], "rolloffs": list(roll.rolloffs)}


def dump_roll(roll: InitiativeRoll | None) -> dict[str, Any]:
    """One initiative check as JSON data, its total included (for the roll log)."""
    if roll is None:
        return {}
    return {**(_dump_check(roll) or {}), "total": roll.total}


def load(data: Mapping[str, Any]) -> Encounter:
    """An encounter from `dump`'s data."""

    def roll(raw: Mapping[str, Any] | None) -> InitiativeRoll | None:
        if raw is None:
            return None
        return InitiativeRoll(
            die=raw["die"],
            face=raw["face"],
            modifiers=tuple(Modifier(**m) for m in raw["modifiers"]),
            tiebreak=raw["tiebreak"],
            rolloffs=tuple(raw["rolloffs"]),
            given=raw.get("given", False),  # stored before players could give their own roll: rolled
        )

    def fighter(raw: Mapping[str, Any]) -> Combatant:
        return Combatant(
            **{
                **raw,
                "side": Side(raw["side"]),
                "modifiers": tuple(Modifier(**m) for m in raw["modifiers"]),
                "stats": tuple((str(k), int(v)) for k, v in raw["stats"]),
                "initiative": roll(raw["initiative"]),
                "conditions": tuple(Condition(**c) for c in raw["conditions"]),
                "position": _square(raw.get("position")),
                # Fights stored before combatants carried attacks have none.
                "attacks": tuple(
                    StoredAttack(
                        a["name"], a["command"], tuple((str(k), v) for k, v in a["options"]), a.get("named_by", "name")
                    )
                    for a in raw.get("attacks", ())
                ),
            }
        )

    sides = [SideInitiative(Side(s["side"]), roll(s["roll"]), s["leader"]) for s in data["sides"]]
    return Encounter(
        **{
            **data,
            "combatants": tuple(fighter(c) for c in data["combatants"]),
            "sides": tuple(sides),
        }
    )


def _square(raw: Sequence[int] | None) -> tuple[int, int] | None:
    """A stored square (JSON has no tuples); fights stored before the map have none."""
    return None if raw is None else (int(raw[0]), int(raw[1]))


# -------------------------------------------------------------------------------------------- characters


def from_sheet(
    ruleset: str,
    name: str,
    sheet: object,
    *,
    owner_id: int,
    side: Side,
    character_id: int,
    improved_initiative: bool = False,
    misc: int = 0,
) -> Combatant:
    """A stored character as a combatant: its hit points now and the numbers its initiative and attacks read.

    Each ruleset reads its own sheet (`Fighting.join`): D&D its Dex modifier, Improved Initiative and `misc` (the
    stat block has no initiative feat), AC in its three forms; Star Frontiers current and full Stamina, IM from
    RS; AliensRL hit points and skill ranks.
    """
    found = rulesets.find(ruleset)
    if found is None or found.fighting is None or not isinstance(sheet, found.sheet):
        raise EncounterError(f"A {ruleset} character cannot join an encounter.")
    return found.fighting.join(name, sheet, owner_id, side, character_id, improved_initiative, misc)
