"""Star Frontiers conditions as data: what a combatant's condition does to an attack on it (star_frontiers.md §12).

The reference gives two: melee step 4, a helpless defender (+20: attacked from behind or unaware, or stunned), and
ranged step 10, a target prone (-5). A knock-out leaves its target unconscious and a stun weapon leaves it stunned
(§3, §6), both for d100 turns; the bot reads an unconscious (or asleep) defender as helpless too, since it cannot
defend itself either (a reading, §12). Any other name stays a label.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from bot.rules.sheets.base import name_key


@dataclass(frozen=True, slots=True)
class ConditionRule:
    """One condition and what it does to an attack on its bearer.

    Attributes:
        name: Its one name.
        source: Where the reference gives it.
        summary: What it does, in the project's words.
        helpless: Melee step 4, a helpless defender (+20).
        prone: Ranged step 10, the target prone (-5).
        acts: The bearer can act on its turn.
    """

    name: str
    source: str
    summary: str
    helpless: bool = False
    prone: bool = False
    acts: bool = True


RULES: Final[tuple[ConditionRule, ...]] = (
    ConditionRule(
        "stunned", "§5 step 4, §6", "a helpless defender in melee (+20); out for its turns", True, acts=False
    ),
    ConditionRule(
        "unconscious",
        "§3, §5 step 4 (reading)",
        "a helpless defender in melee (+20); out for its turns",
        True,
        acts=False,
    ),
    ConditionRule("asleep", "§6 (reading)", "a helpless defender in melee (+20)", True, acts=False),
    ConditionRule("unaware", "§5 step 4", "attacked from behind or unaware: +20 in melee", True),
    ConditionRule("prone", "§4 step 10", "a shot at it -5", prone=True),
)
BY_NAME: Final[Mapping[str, ConditionRule]] = {name_key(rule.name): rule for rule in RULES}
ALIASES: Final[Mapping[str, str]] = {"knocked out": "unconscious", "stun": "stunned", "sleeping": "asleep"}
NAMES: Final = tuple(rule.name for rule in RULES)


def known(name: str) -> ConditionRule | None:
    """The rule a condition's name stands for, if the reference gives one (any other name is a label)."""
    key = name_key(" ".join(name.replace("_", " ").split()))
    alias = {name_key(k): v for k, v in ALIASES.items()}.get(key)
    return BY_NAME.get(name_key(alias) if alias is not None else key)


def rules_of(names: Iterable[str]) -> tuple[ConditionRule, ...]:
    """The known conditions among `names`, each once, in order."""
    found: dict[str, ConditionRule] = {}
    for name in names:
        rule = known(name)
        if rule is not None:
            found.setdefault(rule.name, rule)
    return tuple(found.values())


def helpless_because(who: str, names: Iterable[str]) -> str:
    """Why melee step 4 holds by the defender's conditions ("Sathar is stunned"), or "" when none says so."""
    held = [rule.name for rule in rules_of(names) if rule.helpless]
    return f"{who} is {' and '.join(held)}" if held else ""


def prone_because(who: str, names: Iterable[str]) -> str:
    """Why ranged step 10 holds by the target's conditions ("Sathar is prone"), or "" when none says so."""
    return f"{who} is prone" if any(rule.prone for rule in rules_of(names)) else ""


def cannot_act(names: Iterable[str]) -> ConditionRule | None:
    """The first known condition among `names` that keeps its bearer from acting, if any."""
    return next((rule for rule in rules_of(names) if not rule.acts), None)
