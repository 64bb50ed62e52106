"""A combatant's stored attacks, read from the notation a game master already types (docs/encounters.md).

`/encounter add attacks:"greatclub +8 2d8+7 x3"` gives a quick creature its attacks; `/encounter attack` rolls
one as the ruleset's own roll command (`StoredAttack.command` with `StoredAttack.options`, the options as a user
would type them), so a stored attack takes the one roll path, is logged and replayed as that command, and its
hit is applied as any attack's on a combatant. Several attacks are separated by `;`.

Per ruleset (each reads its own notation with its own readers, and points at the character that does not fit):

- D&D 3.5: `name bonus damage [critical]`. One bonus (`+8`) is one attack (`/dnd attack`); several (`+8/+3`) are
  a full attack (`/dnd full-attack`, SRD, Full Attack: the iterative attacks in order). The critical as the SRD
  prints it: `19-20/x2`, `x3`, `18-20`; default 20/x2.
- Star Frontiers: `name rw<score>/<skill> damage [kind]` for a shot (`/sf shoot`; the range band is given when it
  is rolled), `name mw<score>/<skill> damage [kind]` for a melee attack (`/sf melee`). The kind is what the damage
  is to a suit or screen (`laser`, `ballistic`, ...).
- AliensRL: `name damage` or `name <alien>` (worker, warrior, hunter: its default damage), a melee attack
  (`/aliens melee`): AliensRL melee always hits for its damage (§2).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from bot.rules import dnd35 as dnd
from bot.rules import rulesets
from bot.rules.aliensrl import ALIEN_MELEE_DAMAGE
from bot.rules.encounter import MAX_NAME, Combatant, Encounter, EncounterError, Health, StoredAttack, health
from bot.rules.names import name_key
from bot.rules.notation import NotationError
from bot.rules.star_frontiers import replay as sf_replay

MAX_ATTACKS: Final = 6  # stored on one combatant
MAX_TEXT: Final = 200  # the `attacks` option's length
# Conditions under which a combatant cannot attack (SRD, Conditions; Star Frontiers §3, §6), by name key.
HELPLESS: Final = frozenset(name_key(n) for n in ("helpless", "paralyzed", "unconscious", "stunned", "asleep"))


class AttackNotationError(NotationError):
    """Stored attacks that do not read; the message points at the character."""

    title = "Can't read those attacks"


_TOKEN: Final = re.compile(r"\S+")


def _segments(text: str) -> list[tuple[int, str]]:
    """Each attack's text and where it starts in `text` (attacks are separated by `;`)."""
    if len(text) > MAX_TEXT:
        raise AttackNotationError(text, MAX_TEXT, "Too long", f"Stored attacks take at most {MAX_TEXT} characters.")
    segments: list[tuple[int, str]] = []
    start = 0
    for part in text.split(";"):
        if part.strip():
            segments.append((start, part))
        start += len(part) + 1
    if not segments:
        raise AttackNotationError(text, 0, "No attack", "Write an attack like `greatclub +8 2d8+7 x3`.")
    if len(segments) > MAX_ATTACKS:
        raise AttackNotationError(
            text, segments[MAX_ATTACKS][0], f"{len(segments)} attacks", f"A combatant carries at most {MAX_ATTACKS}."
        )
    return segments


def _tokens(offset: int, part: str) -> list[tuple[int, str]]:
    return [(offset + m.start(), m.group()) for m in _TOKEN.finditer(part)]


def _name(text: str, tokens: list[tuple[int, str]], starts: Callable[[str], bool], hint: str) -> tuple[str, int]:
    """The attack's name (its words before the first number) and the index of the first token after it."""
    index = 0
    while index < len(tokens) and not starts(tokens[index][1]):
        index += 1
    if index == 0:
        where = tokens[0][0] if tokens else len(text)
        raise AttackNotationError(text, where, "Missing the attack's name", hint)
    name = " ".join(token for _, token in tokens[:index])
    if len(name) > MAX_NAME:
        raise AttackNotationError(text, tokens[0][0], "Name too long", f"An attack's name is {MAX_NAME} at most.")
    return name, index


def _read(text: str, position: int, token: str, parse: Callable[[str], object]) -> None:
    """Read `token` with a ruleset's reader; its caret error is moved to where the token stands in `text`."""
    try:
        parse(token)
    except NotationError as error:
        raise AttackNotationError(text, position + error.position, error.reason, error.hint) from None


def _missing(text: str, tokens: list[tuple[int, str]], what: str, hint: str) -> AttackNotationError:
    end = tokens[-1][0] + len(tokens[-1][1]) if tokens else len(text)
    return AttackNotationError(text, end, f"Missing {what}", hint)


def _unique(text: str, attacks: list[tuple[int, StoredAttack]]) -> tuple[StoredAttack, ...]:
    seen: set[str] = set()
    for position, attack in attacks:
        if attack.name.casefold() in seen:
            raise AttackNotationError(text, position, "A second attack of that name", "Give each its own name.")
        seen.add(attack.name.casefold())
    return tuple(attack for _, attack in attacks)


# ------------------------------------------------------------------------------------------------ D&D 3.5

DND_HINT: Final = "Write a D&D attack as name, bonus, damage and critical: `greatclub +8 2d8+7 x3`."


def _bonus_start(token: str) -> bool:
    return token[0] in "+-0123456789"


def dnd_attacks(text: str) -> tuple[StoredAttack, ...]:
    """D&D 3.5 attacks as a stat block prints them: `greatclub +8 2d8+7 x3; bite +3/-2 1d6+1 19-20/x2`.

    One bonus is one attack (SRD, Attack); several, `+8/+3`, are a full attack's iterative bonuses in order
    (SRD, Full Attack). The critical is the SRD's notation (default 20/x2).
    """
    read: list[tuple[int, StoredAttack]] = []
    for offset, part in _segments(text):
        tokens = _tokens(offset, part)
        name, index = _name(text, tokens, _bonus_start, DND_HINT)
        if index >= len(tokens):
            raise _missing(text, tokens, "the attack bonus", DND_HINT)
        where, bonus = tokens[index]
        if bonus[0] not in "+-" and "d" in bonus.casefold():  # damage dice where the bonus goes
            raise AttackNotationError(text, where, "Missing the attack bonus", DND_HINT)
        _read(text, where, bonus, dnd.parse_bonuses)
        bonuses = dnd.parse_bonuses(bonus)
        if index + 1 >= len(tokens):
            raise _missing(text, tokens, "the damage", DND_HINT)
        where, damage = tokens[index + 1]
        _read(text, where, damage, dnd.parse_damage)
        options: dict[str, str | int | bool] = {"damage": damage}
        if index + 2 < len(tokens):
            where, crit = tokens[index + 2]
            _read(text, where, crit, dnd.parse_crit)
            options["crit"] = crit
        if index + 3 < len(tokens):
            where, extra = tokens[index + 3]
            raise AttackNotationError(text, where, f"Unexpected {extra!r}", DND_HINT + " Separate attacks with `;`.")
        if len(bonuses) == 1:
            read.append((offset, StoredAttack(name, "dnd attack", (("attack_bonus", bonuses[0]), *options.items()))))
        else:
            full = (("attack_bonus", bonus), *options.items())
            read.append((offset, StoredAttack(name, "dnd full-attack", full)))
    return _unique(text, read)


# ------------------------------------------------------------------------------------------------ Star Frontiers

SF_HINT: Final = (
    "Write a Star Frontiers attack as name, score/skill and damage: `laser rifle rw60/2 3d10 laser` for a shot, "
    "`claws mw55/1 2d10` in melee."
)
_SCORE: Final = re.compile(r"(?i)(rw|mw)(\d{1,3})/(\d)$")


def _score_start(token: str) -> bool:
    return token[:2].casefold() in ("rw", "mw") and token[2:3].isdecimal()


def sf_attacks(text: str) -> tuple[StoredAttack, ...]:
    """Star Frontiers attacks: `laser rifle rw60/2 3d10 laser` (a shot), `claws mw55/1 2d10` (melee).

    The score is the RW or MW score (0-100) and the skill its level (0-6), as quick mode takes them (§4, §5).
    """
    read: list[tuple[int, StoredAttack]] = []
    for offset, part in _segments(text):
        tokens = _tokens(offset, part)
        name, index = _name(text, tokens, _score_start, SF_HINT)
        if index >= len(tokens):
            raise _missing(text, tokens, "the score and skill", SF_HINT)
        where, token = tokens[index]
        found = _SCORE.match(token)
        if found is None or int(found.group(2)) > 100 or int(found.group(3)) > 6:
            raise AttackNotationError(text, where, f"Unexpected {token!r}", "The score is 0-100, the skill 0-6.")
        if index + 1 >= len(tokens):
            raise _missing(text, tokens, "the damage", SF_HINT)
        damage_at = tokens[index + 1][0]
        damage = " ".join(t for _, t in tokens[index + 1 :])
        try:
            sf_replay.sf_damage(damage)
        except NotationError as error:
            raise AttackNotationError(text, damage_at + error.position, error.reason, SF_HINT) from None
        command = "sf shoot" if found.group(1).casefold() == "rw" else "sf melee"
        options = (("score", int(found.group(2))), ("skill", int(found.group(3))), ("damage", damage))
        read.append((offset, StoredAttack(name, command, options)))
    return _unique(text, read)


# ------------------------------------------------------------------------------------------------ AliensRL

ALIENS_HINT: Final = (
    f"Write an AliensRL melee attack as name and damage, `bite 5`, or name and alien ({', '.join(ALIEN_MELEE_DAMAGE)})."
)


def aliens_attacks(text: str) -> tuple[StoredAttack, ...]:
    """AliensRL melee attacks: `bite 5` (its damage) or `claws warrior` (the alien's default damage, §2)."""
    read: list[tuple[int, StoredAttack]] = []
    for offset, part in _segments(text):
        tokens = _tokens(offset, part)
        # The name is every word but the last: `tail spike 7`, `bite warrior`.
        if len(tokens) < 2:
            raise _missing(text, tokens, "the damage", ALIENS_HINT)
        *words, (where, last) = tokens
        name = " ".join(word for _, word in words)
        if len(name) > MAX_NAME:
            raise AttackNotationError(text, words[0][0], "Name too long", f"An attack's name is {MAX_NAME} at most.")
        if last.isdecimal() and int(last) <= 10000:
            options: tuple[tuple[str, str | int | bool], ...] = (("damage", int(last)),)
        elif last.casefold() in ALIEN_MELEE_DAMAGE:
            options = (("damage", ALIEN_MELEE_DAMAGE[last.casefold()]),)
        else:
            raise AttackNotationError(text, where, f"Unexpected {last!r}", ALIENS_HINT)
        read.append((offset, StoredAttack(name, "aliens melee", options, named_by="attacker")))
    return _unique(text, read)


# ------------------------------------------------------------------------------------------------ per ruleset


def read_attacks(ruleset: str, text: str) -> tuple[StoredAttack, ...]:
    """A quick creature's attacks in its ruleset's notation (`Fighting.attacks`)."""
    reader = rulesets.fighting(ruleset).attacks
    if reader is None:
        raise EncounterError("A creature of this ruleset carries no stored attacks.")
    return reader(text)


def attacks_of(ruleset: str, combatant: Combatant, sheet: object | None) -> tuple[StoredAttack, ...]:
    """What a combatant may attack with: its stored attacks, and a character's weapons (`Fighting.sheet_attacks`)."""
    from_sheet = rulesets.fighting(ruleset).sheet_attacks
    weapons: tuple[StoredAttack, ...] = ()
    if sheet is not None and combatant.character_id is not None and from_sheet is not None:
        weapons = from_sheet(sheet, combatant.character_id)
    return (*combatant.attacks, *weapons)


def choose(combatant: Combatant, attacks: tuple[StoredAttack, ...], name: str | None) -> StoredAttack:
    """The attack `name` names (any case), else the combatant's first."""
    if not attacks:
        raise EncounterError(
            f"**{combatant.name}** carries no attacks: `/encounter add attacks:` gives a quick creature some "
            "(`greatclub +8 2d8+7 x3`), a character's are its weapons.",
            title="No attacks",
        )
    if name is None:
        return attacks[0]
    for attack in attacks:
        if attack.name.casefold() == " ".join(name.split()).casefold():
            return attack
    listed = ", ".join(a.name for a in attacks)
    raise EncounterError(f"**{combatant.name}** has no attack `{name[:40]}`; it has {listed}.", title="Which attack?")


def able_to_attack(encounter: Encounter, combatant: Combatant) -> None:
    """Refuse an attack by the dead, the dying and the helpless (SRD, Conditions; Star Frontiers §3, §6).

    A dying or unconscious creature takes no actions; a Star Frontiers combatant knocked out or stunned neither.
    Helpless here: a condition that says so (helpless, paralyzed, unconscious, stunned, asleep) or a health state
    below disabled; a D&D disabled combatant (0 hp) may still take one standard action, so it may attack.
    """
    state = health(encounter.ruleset, combatant.hp)
    if state in (Health.DEAD, Health.DYING):
        raise EncounterError(f"**{combatant.name}** is {state.value} and cannot attack.", title="Cannot attack")
    for condition in combatant.conditions:
        if name_key(condition.name) in HELPLESS:
            raise EncounterError(f"**{combatant.name}** is {condition.name} and cannot attack.", title="Cannot attack")
