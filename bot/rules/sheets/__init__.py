"""Character stat blocks: one validated schema per ruleset, versioned, with upgrades for old blocks."""

from __future__ import annotations

from bot.rules.sheets.aliensrl import ALIENSRL
from bot.rules.sheets.base import Ruleset, Sheet, SheetError
from bot.rules.sheets.dnd35 import DND35
from bot.rules.sheets.star_frontiers import STAR_FRONTIERS

RULESETS: dict[str, Ruleset] = {r.key: r for r in (DND35, STAR_FRONTIERS, ALIENSRL)}


def ruleset(key: str) -> Ruleset:
    """The ruleset with this key; the error lists the keys there are."""
    try:
        return RULESETS[key]
    except KeyError:
        raise SheetError(f"There is no ruleset `{key}`; there are {', '.join(RULESETS)}.") from None


__all__ = ["RULESETS", "Ruleset", "Sheet", "SheetError", "ruleset"]
