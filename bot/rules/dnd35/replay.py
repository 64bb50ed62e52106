"""D&D 3.5's kinds of roll (`bot.rules.replay.Kind`): /dnd attack and /dnd full-attack, and their typed options.

Each typed option is read back from the logged inputs (`Typed`), so that a fair log's options are checked against
what was rolled (`bot.rules.replay.disagreement`); the others say why not (`Kind.unreflected`). The kinds' names
and their inputs' JSON are what past fair logs hold: they never change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from bot.rules import dnd35 as dnd
from bot.rules.dice import DiceSource
from bot.rules.dnd35.conditions import CONDITION
from bot.rules.dnd35.situation import NOTHING as SITUATION_NOTHING
from bot.rules.dnd35.situation import ORDER as SITUATION_WORDS
from bot.rules.dnd35.situation import from_options as situation_options
from bot.rules.replay import (
    ANSWER_ONLY,
    UNKNOWN,
    WHEN_SET,
    Kind,
    Said,
    Typed,
    Varies,
    no,
    none,
    parse_text,
    present,
    said,
    said_agrees,
    same,
    zero,
)
from bot.rules.sheets.base import name_key


@dataclass(frozen=True, slots=True)
class DndAttackRoll:
    """/dnd attack: one attack, built from the character's sheet or quick-mode numbers, and the server's readings."""

    attack: dnd.Attack
    variants: dnd.Variants


@dataclass(frozen=True, slots=True)
class DndFullAttackRoll:
    """/dnd full-attack: every attack of a full attack, in order, and the server's readings.

    With `then` (combatants to turn to), the same attacks built against each next target, and every target's hit
    points, the first's first: the later attacks turn to the next target once the one they are at drops
    (`dnd.resolve_turning`). Logged only when set, so a full attack at one target logs as it always did.
    """

    attacks: tuple[dnd.Attack, ...]
    variants: dnd.Variants
    then: tuple[tuple[dnd.Attack, ...], ...] = field(default=(), metadata=WHEN_SET)
    hit_points: tuple[int, ...] = field(default=(), metadata=WHEN_SET)

    def resolve(self, rng: DiceSource) -> dnd.FullAttackResult:
        """Every attack in order, turning to the next target when `then` gives one."""
        if not self.then:
            return dnd.resolve_all(self.attacks, rng, variants=self.variants)
        return dnd.resolve_turning((self.attacks, *self.then), self.hit_points, rng, variants=self.variants)


def _dnd_quick(attack: dnd.Attack) -> bool:
    """Made from quick-mode numbers: its attack bonus is one given term (a character's has BAB and the rest)."""
    return any(t.name == "attack bonus" and t.source == "given" for t in attack.attack_terms)


def _term(terms: tuple[dnd.Term, ...], name: str, source: str | None = None) -> int | None:
    return next((t.value for t in terms if t.name == name and (source is None or t.source == source)), None)


def _weapon_key(name: str) -> str:
    """A D&D weapon's name as the command finds it: an SRD weapon by its natural name, whichever name was typed."""
    table = dnd.table_weapon(name)
    return name_key(table.name if table is not None else " ".join(name.split()))


def _is_off_hand(attack: dnd.Attack) -> bool:
    return any(t.name == "two-weapon fighting" and t.source.endswith("off hand") for t in attack.attack_terms)


def _dnd_weapon(attack: dnd.Attack) -> object:
    return None if _dnd_quick(attack) else _weapon_key(attack.label.removesuffix(" (off-hand end)"))


def _given_ac(attack: dnd.Attack) -> object:
    return attack.target.base_ac if attack.target.explanation == "given" else None


def _flag_unless_decided(attack: dnd.Attack, on: bool) -> object:
    """A flag the options set, which a character's sheet or the fight may set too: on says nothing unless given."""
    return on if not on or attack.target.explanation == "given" else UNKNOWN


def _attack_number(attack: dnd.Attack) -> object:
    for term in attack.attack_terms:
        for prefix in ("attack ", "off-hand attack "):
            if term.name.startswith(prefix) and term.name[len(prefix) :].isdecimal():
                return int(term.name[len(prefix) :])
    return 1


def _precision(attack: dnd.Attack) -> object:
    if attack.target.immune_to_criticals or attack.miss_chance:
        return UNKNOWN  # §6: the rules dropped every precision die, so the inputs no longer hold them
    return tuple(r.dice for r in attack.precision if r.label == "precision")


def _sneak_attack(attack: dnd.Attack) -> object:
    if attack.target.immune_to_criticals or attack.miss_chance:
        return UNKNOWN  # dropped with the other precision dice
    return any(r.label.startswith("sneak attack") for r in attack.precision)


def _range_term(attack: dnd.Attack) -> object:
    """A character's ranged attack states the distance in its range term (`§2 30 ft: ...`), as `:g` writes it."""
    source = next((t.source for t in attack.attack_terms if t.name == "range"), None)
    return None if source is None else source.removeprefix("§2 ").split(" ft:")[0]


def _feet(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError("a number expected")
    return f"{float(value):g}"


def _into_melee(attack: dnd.Attack) -> object:
    precise = "Precise Shot: no penalty for shooting into melee." in attack.notes
    return precise or any(t.name == "into melee" for t in attack.attack_terms)


def _adjusted(attack: dnd.Attack, name: str) -> bool:
    """The situation's word `name` changed the AC (a combatant's condition of that name is not the word, §14)."""
    return any(t.name == name and not t.source.startswith(CONDITION) for t in attack.target.adjustments)


def _concealment(attack: dnd.Attack, word: dnd.Concealment) -> object:
    """The word's miss chance holds; unknown when a condition's larger one does (the word may have been said)."""
    return UNKNOWN if attack.miss_source else attack.miss_chance == word.miss_chance


def _said(text: dnd.SituationText) -> Said:
    return said(text.words, text.modifier, SITUATION_WORDS)


def _situation(attack: dnd.Attack) -> object:
    """What an attack's inputs say of its `situation` text: each word they reflect, and the modifier (§11).

    Left out: `two hands` (1½x Str shows in the Str term only for a weapon that is not light, in melee: a light
    weapon in two hands, a ranged one or a two-handed one leave the same terms as without it); `sneak attack`
    where the rules dropped the precision dice; a character's `ranged` (its weapon decides), and quick mode's
    `ranged` beside `into melee`, which makes it ranged anyway.
    """
    terms = {t.name for t in attack.attack_terms}
    reads: dict[str, object] = {
        "flanking": "flanking" in terms,
        "into melee": _into_melee(attack),
        "charge": "charge" in terms,
        "higher ground": "higher ground" in terms,
        "cover": _adjusted(attack, "cover"),
        "improved cover": _adjusted(attack, "improved cover"),
        "soft cover": _adjusted(attack, "soft cover"),
        "prone": _adjusted(attack, "prone"),
        "helpless": _adjusted(attack, "helpless"),
        "concealment": _concealment(attack, dnd.Concealment.CONCEALMENT),
        "total concealment": _concealment(attack, dnd.Concealment.TOTAL),
    }
    if (sneak := _sneak_attack(attack)) is not UNKNOWN:
        reads["sneak attack"] = sneak
    if _dnd_quick(attack) and not reads["into melee"]:
        reads["ranged"] = attack.ranged
    on = frozenset(word for word, value in reads.items() if value is True)
    off = frozenset(word for word, value in reads.items() if value is False)
    return Said(on, off, _term(attack.attack_terms, "situational", "given") or 0)


def _quick_damage(attack: dnd.Attack) -> object:
    if not _dnd_quick(attack):
        return None
    bonus = _term(attack.damage_terms, "damage bonus") or 0
    return dnd.WeaponDamage(attack.damage.count, attack.damage.sides, bonus)


def _quick_crit(attack: dnd.Attack) -> object:
    return dnd.Critical(attack.threat, attack.critical_multiplier) if _dnd_quick(attack) else None


def _default_crit(attack: dnd.Attack) -> object:
    return dnd.parse_crit("20/x2") if _dnd_quick(attack) else None  # quick mode's default; a character has its own


_DND_ATTACK: Final[dict[str, Typed[dnd.Attack]]] = {
    # Given as a number, the AC is the target's; a character or a combatant has its AC computed ("target").
    "target_ac": Typed(_given_ac, absent=none),
    # A character or a combatant named: the name is resolved to its numbers, which the inputs hold, not the name.
    # With an AC given too, a combatant named only takes the hit (§14): the inputs cannot say it was named.
    "target": Typed(lambda a: True if a.target.explanation != "given" else UNKNOWN, present, no),
    "touch": Typed(lambda a: "touch" in a.target.kind, absent=no),
    # A fight makes a combatant flat-footed before its first turn (a note says why): given says nothing then.
    # A helpless character's AC is its own (§5): flat-footed or not, it counts no Dex bonus.
    "flat_footed": Typed(
        lambda a: UNKNOWN if "helpless" in a.target.kind else _flag_unless_decided(a, "flat-footed" in a.target.kind),
        absent=no,
    ),
    "crit_immune": Typed(lambda a: _flag_unless_decided(a, a.target.immune_to_criticals), absent=no),
    # The dr typed replaces the target's own (a character's), so it is the target's whenever it was typed.
    "dr": Typed(
        lambda a: a.target.dr,
        parse_text(dnd.parse_dr),
        lambda a: None if a.target.explanation == "given" else UNKNOWN,
    ),
    "situation": Typed(
        _situation,
        parse_text(lambda text: _said(dnd.parse_situation(text))),
        lambda a: _said(SITUATION_NOTHING),
        said_agrees,
    ),
    "damage_bonus": Typed(lambda a: _term(a.damage_terms, "situational", "given") or 0, absent=zero),
    "multiplier": Typed(
        lambda a: next((m.value for m in a.multipliers if m.source == "situational"), None), absent=none
    ),
    "precision": Typed(_precision, parse_text(dnd.parse_dice), lambda a: ()),
    "distance": Typed(_range_term, _feet, none),
    "damage": Typed(_quick_damage, parse_text(dnd.parse_damage), none),
    "crit": Typed(_quick_crit, parse_text(dnd.parse_crit), _default_crit),
    # A character is resolved to its numbers: that one was named says the attack is not quick mode.
    "character": Typed(lambda a: not _dnd_quick(a), present),
}


def _one(read: Typed[dnd.Attack]) -> Typed[DndAttackRoll]:
    return Typed(lambda i: read.read(i.attack), read.parse, lambda i: read.absent(i.attack), read.agrees)


def _every(
    read: Callable[[dnd.Attack], object], attacks: Callable[[DndFullAttackRoll], tuple[dnd.Attack, ...]]
) -> Callable[[DndFullAttackRoll], object]:
    """An option read from each attack of a full attack: their common value, or `Varies`."""

    def reads(roll: DndFullAttackRoll) -> object:
        values = [read(a) for a in attacks(roll)]
        if not values or any(v is UNKNOWN for v in values):
            return UNKNOWN
        if all(same(v, values[0]) for v in values):
            return values[0]
        return Varies(values)

    return reads


def _all(roll: DndFullAttackRoll) -> tuple[dnd.Attack, ...]:
    return roll.attacks


def _main_hand(roll: DndFullAttackRoll) -> tuple[dnd.Attack, ...]:
    return tuple(a for a in roll.attacks if not _is_off_hand(a))


def _off_hand(roll: DndFullAttackRoll) -> tuple[dnd.Attack, ...]:
    return tuple(a for a in roll.attacks if _is_off_hand(a))


def _full(read: Typed[dnd.Attack]) -> Typed[DndFullAttackRoll]:
    def agrees(wanted: Any, rolled: Any) -> bool:
        return not isinstance(rolled, Varies) and read.agrees(wanted, rolled)

    return Typed(_every(read.read, _all), read.parse, _every(read.absent, _all), agrees)


def _full_bonuses(roll: DndFullAttackRoll) -> object:
    if not roll.attacks or not all(_dnd_quick(a) for a in roll.attacks):
        return None
    return tuple(_term(a.attack_terms, "attack bonus", "given") for a in roll.attacks)


def _off_hand_weapon(roll: DndFullAttackRoll) -> object:
    found = _every(_dnd_weapon, _off_hand)(roll)
    return None if found is UNKNOWN else found  # no off-hand attack: no second weapon


DND_ATTACK_TYPED: Final[dict[str, Typed[DndAttackRoll]]] = {
    **{name: _one(read) for name, read in _DND_ATTACK.items()},
    "attack_bonus": Typed(lambda i: _term(i.attack.attack_terms, "attack bonus", "given"), absent=none),
    "weapon": Typed(lambda i: _dnd_weapon(i.attack), parse_text(_weapon_key)),
    "attack_number": Typed(lambda i: _attack_number(i.attack), absent=lambda i: 1),
    # A character's off-hand attack takes the two-weapon row's off-hand penalty; quick mode's only counts how
    # many off-hand attacks there may be (§4), which the inputs do not keep.
    "off_hand": Typed(lambda i: UNKNOWN if _dnd_quick(i.attack) else _is_off_hand(i.attack), absent=no),
}
DND_FULL_ATTACK_TYPED: Final[dict[str, Typed[DndFullAttackRoll]]] = {
    **{name: _full(read) for name, read in _DND_ATTACK.items()},
    "attack_bonus": Typed(_full_bonuses, parse_text(dnd.parse_bonuses), none),
    "weapon": Typed(_every(_dnd_weapon, _main_hand), parse_text(_weapon_key)),
    "off_hand_weapon": Typed(_off_hand_weapon, parse_text(_weapon_key), none),
}


_UNREFLECTED: Final = {
    **ANSWER_ONLY,
    "name": "quick mode's attacker as the answer names them; the rules read no name",
}


def _full_outcome(result: dnd.FullAttackResult) -> dict[str, Any]:
    return {"attacks": [r.to_dict() for r in result.results], "total": result.total_damage}


DND_ATTACK: Final[Kind[DndAttackRoll, dnd.AttackResult]] = Kind(
    "dnd.attack",
    "dnd attack",
    DndAttackRoll,
    lambda i, rng: dnd.resolve(i.attack, rng, variants=i.variants),
    lambda r: dict(r.to_dict()),
    DND_ATTACK_TYPED,
    renamed=situation_options,
    unreflected=_UNREFLECTED,
)
DND_FULL_ATTACK: Final[Kind[DndFullAttackRoll, dnd.FullAttackResult]] = Kind(
    "dnd.full-attack",
    "dnd full-attack",
    DndFullAttackRoll,
    lambda i, rng: i.resolve(rng),
    _full_outcome,
    DND_FULL_ATTACK_TYPED,
    hit_points=True,  # with `then`, every target's hit points
    renamed=situation_options,
    unreflected={
        **_UNREFLECTED,
        "then": "the combatants the full attack turns to: the input holds each one's attacks and hit points",
    },
)
