"""D&D 3.5 conditions as data: what each does to an attack on its bearer, and by it (dnd35.md §14).

A combatant's condition is a name (`/encounter condition`); a name this table knows has effects, any other stays
a label. Each rule here is the SRD's (Conditions summary; Combat Modifiers: the attack roll and Armor Class
modifier tables), its numbers kept as data. The engine reads them through `Bearer`, the conditions one side of
one attack carries (`engine._circumstances`); the AC form (Dex lost, Dex 0) is the defender's and is worked out
where the defender is (`defense_form`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from bot.rules.sheets.base import name_key

TOTAL_CONCEALMENT: Final = 50  # SRD, Concealment: the miss chance of total concealment


@dataclass(frozen=True, slots=True)
class ConditionRule:
    """One condition and what it does, in numbers, to attacks on its bearer and by it.

    Attributes:
        name: Its one name.
        srd: Where the SRD gives it.
        summary: What it does, in the project's words.
        ac_melee: Added to the bearer's AC against a melee attack.
        ac_ranged: Added to the bearer's AC against a ranged attack.
        loses_dex: The bearer loses its Dex bonus to AC (and its dodge bonuses).
        uncanny: Uncanny Dodge keeps the Dex bonus all the same (flat-footed, struck unseen; not when stunned).
        dex_zero: Helpless: the bearer's Dex counts as 0, a -5 modifier (and it is denied its Dex bonus).
        concealed: The miss chance of attacks on the bearer (invisible: total concealment).
        attack_melee: Added to the bearer's melee attack rolls.
        attack_ranged: Added to the bearer's ranged attack rolls.
        damage: Added to each of the bearer's weapon damage rolls.
        blind: The miss chance of the bearer's attacks (blinded: every opponent has total concealment).
        unseen: The bearer attacks unseen: +2 and the defender loses its Dex bonus (invisible).
        acts: The bearer can act on its turn.
        includes: The conditions it brings with it (paralyzed is helpless).
    """

    name: str
    srd: str
    summary: str
    ac_melee: int = 0
    ac_ranged: int = 0
    loses_dex: bool = False
    uncanny: bool = False
    dex_zero: bool = False
    concealed: int = 0
    attack_melee: int = 0
    attack_ranged: int = 0
    damage: int = 0
    blind: int = 0
    unseen: bool = False
    acts: bool = True
    includes: tuple[str, ...] = ()


SUMMARY: Final = "SRD, Conditions"
AC_TABLE: Final = "SRD, Combat Modifiers: Armor Class"
ATTACK_TABLE: Final = "SRD, Combat Modifiers: attack roll"

RULES: Final[tuple[ConditionRule, ...]] = (
    ConditionRule(
        "flat-footed",
        SUMMARY,
        "no Dex bonus (nor dodge bonuses) to AC; Uncanny Dodge keeps it",
        loses_dex=True,
        uncanny=True,
    ),
    ConditionRule(
        "prone",
        f"{SUMMARY}; {AC_TABLE}",
        "-4 AC against melee, +4 against ranged; its own melee attacks -4 (no ranged weapon but a crossbow)",
        ac_melee=-4,
        ac_ranged=4,
        attack_melee=-4,
    ),
    ConditionRule(
        "stunned",
        SUMMARY,
        "drops what it holds, cannot act, -2 AC and no Dex bonus to AC",
        ac_melee=-2,
        ac_ranged=-2,
        loses_dex=True,
        acts=False,
    ),
    ConditionRule(
        "helpless",
        f"{SUMMARY}; {AC_TABLE}; Helpless Defenders",
        "Dex 0 (-5); melee attacks on it +4 (as -4 AC), ranged nothing; sneak attack works; coup de grace",
        ac_melee=-4,
        dex_zero=True,
        acts=False,
    ),
    ConditionRule("paralyzed", SUMMARY, "helpless (Str and Dex 0), cannot act", includes=("helpless",), acts=False),
    ConditionRule("unconscious", SUMMARY, "knocked out: helpless", includes=("helpless",), acts=False),
    ConditionRule("asleep", SUMMARY, "helpless", includes=("helpless",), acts=False),
    ConditionRule("bound", f"{AC_TABLE}; Helpless Defenders", "helpless", includes=("helpless",), acts=False),
    ConditionRule(
        "blinded",
        SUMMARY,
        "-2 AC, no Dex bonus to AC; every opponent has total concealment to it (its attacks miss 50%)",
        ac_melee=-2,
        ac_ranged=-2,
        loses_dex=True,
        blind=TOTAL_CONCEALMENT,
    ),
    ConditionRule(
        "cowering",
        SUMMARY,
        "frozen in fear: cannot act, -2 AC and no Dex bonus to AC",
        ac_melee=-2,
        ac_ranged=-2,
        loses_dex=True,
        acts=False,
    ),
    ConditionRule(
        "grappling",
        f"{SUMMARY}; Grapple",
        "no Dex bonus to AC against anyone not in the grapple (an attacker from outside is assumed)",
        loses_dex=True,
    ),
    ConditionRule(
        "invisible",
        f"{SUMMARY}; {ATTACK_TABLE}; Invisibility",
        "attacks on it miss 50% (total concealment); its attacks +2 and its defender loses its Dex bonus",
        concealed=TOTAL_CONCEALMENT,
        attack_melee=2,
        attack_ranged=2,
        unseen=True,
    ),
    ConditionRule(
        "kneeling",
        AC_TABLE,
        "kneeling or sitting: -2 AC against melee, +2 against ranged",
        ac_melee=-2,
        ac_ranged=2,
    ),
    ConditionRule(
        "charging", "SRD, Charge", "-2 AC until its next turn (its charge attack's +2 is the `charge` word)", -2, -2
    ),
    ConditionRule("dazed", SUMMARY, "cannot act; no AC penalty", acts=False),
    ConditionRule("dazzled", SUMMARY, "-1 on attack rolls", attack_melee=-1, attack_ranged=-1),
    ConditionRule(
        "entangled", SUMMARY, "-2 on attack rolls (and -4 Dex, not worked out)", attack_melee=-2, attack_ranged=-2
    ),
    ConditionRule("shaken", SUMMARY, "-2 on attack rolls", attack_melee=-2, attack_ranged=-2),
    ConditionRule("frightened", SUMMARY, "-2 on attack rolls; flees", attack_melee=-2, attack_ranged=-2),
    ConditionRule(
        "sickened", SUMMARY, "-2 on attack rolls and weapon damage", attack_melee=-2, attack_ranged=-2, damage=-2
    ),
)
BY_NAME: Final[Mapping[str, ConditionRule]] = {name_key(rule.name): rule for rule in RULES}
# Other ways of writing a known name.
ALIASES: Final[Mapping[str, str]] = {
    "flat footed": "flat-footed",
    "flatfooted": "flat-footed",
    "grappled": "grappling",
    "blind": "blinded",
    "paralysed": "paralyzed",
    "sleeping": "asleep",
    "knocked out": "unconscious",
    "stun": "stunned",
    "sitting": "kneeling",
    "charged": "charging",
}
NAMES: Final = tuple(rule.name for rule in RULES)


def known(name: str) -> ConditionRule | None:
    """The rule a condition's name stands for, if it is one this table knows (any other name is a label)."""
    key = name_key(" ".join(name.replace("_", " ").split()))
    alias = {name_key(k): v for k, v in ALIASES.items()}.get(key)
    return BY_NAME.get(name_key(alias) if alias is not None else key)


def rules_of(names: Iterable[str]) -> tuple[ConditionRule, ...]:
    """The known conditions among `names`, with what they bring (paralyzed: helpless), each once, in order."""
    found: dict[str, ConditionRule] = {}
    for name in names:
        rule = known(name)
        if rule is None:
            continue
        for one in (rule, *(BY_NAME[name_key(n)] for n in rule.includes)):
            found.setdefault(one.name, one)
    return tuple(found.values())


@dataclass(frozen=True, slots=True)
class Bearer:
    """Who carries conditions on one side of an attack, as the answer names them, and their rules."""

    who: str = ""
    rules: tuple[ConditionRule, ...] = ()

    def has(self, name: str) -> bool:
        """Whether it carries the condition of this one name."""
        return any(rule.name == name for rule in self.rules)

    def because(self, rule: ConditionRule) -> str:
        """A term's source: "Goblin 1 is prone"."""
        return f"{CONDITION}: {self.who} is {rule.name}" if self.who else f"{CONDITION}: {rule.name}"


CONDITION: Final = "condition"  # how a term from a condition's source begins (the replay tells it from a word)
NOBODY: Final = Bearer()


def bearer(who: str, names: Iterable[str]) -> Bearer:
    """One side of an attack: its name and the known conditions among `names` (none: `NOBODY`'s rules)."""
    return Bearer(who, rules_of(names))


@dataclass(frozen=True, slots=True)
class Form:
    """The AC form the defender's conditions (and an unseen attacker) call for, and why.

    Attributes:
        loses_dex: It loses its Dex bonus to AC (the flat-footed form).
        uncanny: Uncanny Dodge keeps the Dex bonus (every reason for losing it is one Uncanny Dodge covers).
        dex_zero: It is helpless: Dex counts as 0.
        why: The reasons, for the answer's note.
    """

    loses_dex: bool = False
    uncanny: bool = True
    dex_zero: bool = False
    why: str = ""


def defense_form(defender: Bearer, attacker: Bearer = NOBODY) -> Form:
    """What the defender's conditions, and an unseen attacker, do to the form of its AC (SRD, Conditions).

    Loses its Dex bonus: flat-footed, stunned, blinded, cowering, grappling, or struck by an invisible attacker;
    Uncanny Dodge keeps it only when flat-footed or struck unseen. Helpless: Dex 0.
    """
    reasons: list[str] = []
    uncanny = True
    for rule in defender.rules:
        if rule.loses_dex:
            reasons.append(f"{defender.who or 'the defender'} is {rule.name}")
            uncanny = uncanny and rule.uncanny
    for rule in attacker.rules:
        if rule.unseen:
            reasons.append(f"{attacker.who or 'the attacker'} is {rule.name}")
    dex_zero = any(rule.dex_zero for rule in defender.rules)
    if dex_zero:
        reasons.append(f"{defender.who or 'the defender'} is helpless")
    return Form(bool(reasons) and not dex_zero, uncanny, dex_zero, ", ".join(reasons))


def cannot_act(names: Iterable[str]) -> ConditionRule | None:
    """The first known condition among `names` that keeps its bearer from acting, if any (SRD, Conditions)."""
    return next((rule for rule in rules_of(names) if not rule.acts), None)
