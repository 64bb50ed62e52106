"""Character stat blocks: one validated schema per ruleset, versioned, with upgrades for old blocks.

Each ruleset declares its sheet once, with the rest of it (`bot.rules.rulesets`); `RULESETS` and `ruleset` read
that registry.
"""

from __future__ import annotations

from typing import Any

from bot.rules.sheets.base import Ruleset, Sheet, SheetError


def ruleset(key: str) -> Ruleset:
    """The ruleset with this key; the error lists the keys there are."""
    from bot.rules import rulesets  # the registry extends a sheet's Ruleset: imported when first asked

    return rulesets.get(key)


def __getattr__(name: str) -> Any:
    """`RULESETS`: every registered ruleset by key, as the registry holds them now."""
    if name == "RULESETS":
        from bot.rules import rulesets

        return {r.key: r for r in rulesets.every()}
    raise AttributeError(name)


__all__ = ["RULESETS", "Ruleset", "Sheet", "SheetError", "ruleset"]
