"""The rules settings a server can change: where the references name a variant reading, a server picks one.

Each setting has a fixed set of choices and a default (the reading the reference chose); its value is
stored per server as the choice's text, and anything unknown falls back to the default, so removing a
choice in a later version can never break a server.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from bot.errors import UserError
from bot.rules import rulesets


class SettingError(UserError):
    """An unknown setting, or a value it does not take."""

    title = "Not a setting"


ANSWERS = "rolls.answers"  # compact or full: how a roll's answer starts
FAIR_WHO = "fair.who"  # anyone or managers: who starts and reveals fair sessions
ENCOUNTER_WHO = "encounter.who"  # anyone or game-masters: who starts a fight
ENCOUNTER_GROUPS = "encounter.groups"  # each or together: whether like quick creatures share one initiative
ENCOUNTER_HEALS = "encounter.heals"  # owners or fighters: who may heal a combatant besides whoever runs the fight
# Kept beside the rules settings, but not one of them: its value is a role, not a choice (`/settings gm-role`).
GM_ROLE = "gm_role"


@dataclass(frozen=True, slots=True)
class Setting:
    """A variant reading a server may choose."""

    key: str
    title: str
    help: str
    choices: Mapping[str, str]  # value -> what it means
    default: str


# The settings of the bot itself; each ruleset declares its own (`bot.rules.rulesets.Ruleset.settings`).
COMMON: Final = (
    Setting(
        key=ANSWERS,
        title="Roll answers: compact or full",
        help="How a roll's answer starts; its Details button switches to the other form at any time.",
        choices={
            "compact": "the outcome and the odds, short on a phone (the default)",
            "full": "every step of the breakdown at once",
        },
        default="compact",
    ),
    Setting(
        key=FAIR_WHO,
        title="Fair dice: who starts and reveals sessions",
        help="Hidden rolls never draw from a channel's session, only from the GM channel's; this guards the rest.",
        choices={
            "anyone": "anyone starts one; its starter or Manage Server reveals it (the default: skeptics check)",
            "managers": "only members with Manage Server start and reveal fair sessions",
        },
        default="anyone",
    ),
    Setting(
        key=ENCOUNTER_WHO,
        title="Encounters: who starts a fight",
        help="Whoever starts a fight runs it (turns, their quick creatures); the game masters may run any.",
        choices={
            "anyone": "any member starts one in any channel (the default)",
            "game-masters": "only the game masters (Manage Server or the `/settings gm-role` role) start one",
        },
        default="anyone",
    ),
    Setting(
        key=ENCOUNTER_GROUPS,
        title="Encounters: initiative for like creatures",
        help="`/encounter add name count` adds like creatures; `group:` on the command decides it for one add.",
        choices={
            "each": "each creature rolls its own initiative (the default, the SRD's rule)",
            "together": "they roll one initiative as a group and act one after another (the common table habit)",
        },
        default="each",
    ),
    Setting(
        key=ENCOUNTER_HEALS,
        title="Encounters: who heals a combatant",
        help="Whoever runs the fight and the game masters change any combatant's hit points, by hand, always.",
        choices={
            "owners": "a combatant's owner heals it, nobody else (the default)",
            "fighters": "anyone with a combatant in the fight heals any combatant (`/encounter hp` with `+`)",
        },
        default="owners",
    ),
)


def every_setting() -> dict[str, Setting]:
    """Every setting by key: the bot's own, then each registered ruleset's, in the order /house-rules shows them."""
    found = {s.key: s for s in COMMON}
    for rules in rulesets.every():
        found.update((s.key, s) for s in rules.settings)
    return found


def __getattr__(name: str) -> Any:
    """`SETTINGS`: `every_setting()`, as the registry holds the rulesets now."""
    if name == "SETTINGS":
        return every_setting()
    raise AttributeError(name)


def setting(key: str) -> Setting:
    """The setting called `key`; the error lists them all."""
    settings = every_setting()
    try:
        return settings[key]
    except KeyError:
        raise SettingError(f"There is no setting `{key}`. Settings: {', '.join(settings)}.") from None


def check(key: str, value: str) -> str:
    """`value` if the setting takes it (any case); the error lists what it takes."""
    spec = setting(key)
    for choice in spec.choices:
        if choice.lower() == value.strip().lower():
            return choice
    raise SettingError(f"`{key}` takes {', '.join(spec.choices)}; not `{value}`.")


def effective(stored: Mapping[str, str]) -> dict[str, str]:
    """Every setting's value for a server: what it chose where still valid, else the default."""
    return {
        key: stored[key] if stored.get(key) in spec.choices else spec.default for key, spec in every_setting().items()
    }


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """A server's rules settings as the commands use them, typed; `server_settings` builds it from the store."""

    full_answers: bool = False  # `rolls.answers`: a roll's answer starts full, not compact
    fair_managers_only: bool = False  # `fair.who`: only Manage Server starts and reveals fair sessions
    gm_role: int | None = None  # `/settings gm-role`: its members are the server's game masters
    encounter_gm_only: bool = False  # `encounter.who`: only the game masters start a fight
    encounter_groups: bool = False  # `encounter.groups`: like quick creatures added at once share one initiative
    encounter_heals: bool = False  # `encounter.heals`: anyone with a combatant in the fight heals any combatant
    # Every setting's effective value (the rulesets' included): what `variants` and `by_side` read.
    values: tuple[tuple[str, str], ...] = ()

    def variants(self, ruleset: str) -> Any:
        """The typed readings the rolls of `ruleset` take (`Ruleset.variants`): its settings, typed."""
        return rulesets.get(ruleset).variants(self._values())

    def by_side(self, ruleset: str) -> bool:
        """Whether a new fight of `ruleset` rolls initiative by side (its `Fighting.by_side` reads the settings)."""
        found = rulesets.find(ruleset)
        return found is not None and found.fighting is not None and found.fighting.by_side(self._values())

    def _values(self) -> dict[str, str]:
        values = effective({})
        values.update(self.values)
        return values


def server_settings(stored: Mapping[str, str]) -> ServerSettings:
    """A server's typed settings from the choices it stored (unknown or missing ones read as the default)."""
    values = effective(stored)
    return ServerSettings(
        full_answers=values[ANSWERS] == "full",
        fair_managers_only=values[FAIR_WHO] == "managers",
        gm_role=_role(stored.get(GM_ROLE)),
        encounter_gm_only=values[ENCOUNTER_WHO] == "game-masters",
        encounter_groups=values[ENCOUNTER_GROUPS] == "together",
        encounter_heals=values[ENCOUNTER_HEALS] == "fighters",
        values=tuple(values.items()),
    )


def _role(stored: str | None) -> int | None:
    """A stored role id; anything else (none, or a value a hand edit spoilt) is no role."""
    return int(stored) if stored is not None and stored.isdecimal() else None
