"""The rules settings a server can change: where the references name a variant reading, a server picks one.

Each setting has a fixed set of choices and a default (the reading the reference chose); its value is
stored per server as the choice's text, and anything unknown falls back to the default, so removing a
choice in a later version can never break a server.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.errors import UserError
from bot.rules import dnd35 as dnd
from bot.rules import star_frontiers as sf
from bot.rules.aliensrl import DEFAULT_RING, DEFAULT_TARGETED, Ring, Targeted
from bot.rules.dnd35 import DEFAULT_VARIANTS, ConfirmationRule, FinesseShieldRule, MonkStepRule, MultiplierRule


class SettingError(UserError):
    """An unknown setting, or a value it does not take."""

    title = "Not a setting"


ANSWERS = "rolls.answers"  # compact or full: how a roll's answer starts
FAIR_WHO = "fair.who"  # anyone or managers: who starts and reveals fair sessions
ENCOUNTER_WHO = "encounter.who"  # anyone or game-masters: who starts a fight
SF_INITIATIVE = "sf.initiative"  # side or individual: how a Star Frontiers encounter rolls initiative
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


SETTINGS: dict[str, Setting] = {
    s.key: s
    for s in (
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
            key="dnd35.multipliers",
            title="D&D: stacked damage multipliers",
            help="Two multipliers on one hit (a critical on a charge): how many damage rolls (dnd35.md §7, §13).",
            choices={
                MultiplierRule.SEED.value: "as many rolls as the multipliers add up to: x2 and x3 is 5 (the default)",
                MultiplierRule.SRD.value: "1 + the sum of (m - 1) rolls: x2 and x3 is 4 (the SRD)",
            },
            default=DEFAULT_VARIANTS.multipliers.value,
        ),
        Setting(
            key="dnd35.confirmation",
            title="D&D: natural 20 and 1 on the confirmation roll",
            help="Whether a natural 20 (1) on the confirmation roll always confirms (fails) (dnd35.md §6, §13).",
            choices={
                ConfirmationRule.SRD.value: "a natural 20 confirms and a natural 1 fails (the SRD, the default)",
                ConfirmationRule.NWN.value: "only d20 + attack bonus against AC counts (Neverwinter Nights)",
            },
            default=DEFAULT_VARIANTS.confirmation.value,
        ),
        Setting(
            key="dnd35.finesse_shield",
            title="D&D: Weapon Finesse and a shield",
            help="Whether a shield's armor check penalty applies to finessed attacks (dnd35.md §2, §13).",
            choices={
                FinesseShieldRule.SRD.value: "it applies (the SRD, the default)",
                FinesseShieldRule.NWN.value: "it does not (Neverwinter Nights)",
            },
            default=DEFAULT_VARIANTS.finesse_shield.value,
        ),
        Setting(
            key="dnd35.monk_step",
            title="D&D: a monk's iterative attacks",
            help="The step between a monk's attacks unarmed or with a kama (dnd35.md §3, §13 item 10).",
            choices={
                MonkStepRule.SRD.value: "-5 like everyone (the SRD, the default)",
                MonkStepRule.NWN.value: "-3 for a monk unarmed or with a kama (Neverwinter Nights)",
            },
            default=DEFAULT_VARIANTS.monk_step.value,
        ),
        Setting(
            key=SF_INITIATIVE,
            title="Star Frontiers: initiative by side or individually",
            help="How a new encounter rolls initiative each round (docs/encounters.md); running ones keep theirs.",
            choices={
                "side": "each side rolls d10 + its best initiative modifier (the Basic game, the default)",
                "individual": "each combatant rolls d10 + its own initiative modifier",
            },
            default="side",
        ),
        Setting(
            key="aliensrl.ring",
            title="AliensRL: where a far shot strays",
            help="At distance 9 and more a stray shot lands on a square 'two tiles away' (aliensrl.md §9.6).",
            choices={
                Ring.CHEBYSHEV.value: "the 16 squares at Chebyshev distance 2 (the reference's reading)",
                Ring.ANGBAND.value: "the 12 squares at Angband distance 2",
                Ring.WITHIN_TWO.value: "the 24 squares within two",
            },
            default=DEFAULT_RING.value,
        ),
        Setting(
            key="aliensrl.targeted",
            title="AliensRL: the targeted square of the 6-in-10 rule",
            help="Is a being where a shot strayed hit outright, or missed on 6 in 10 (aliensrl.md §9.11)?",
            choices={
                Targeted.RELOCATED.value: "the square it strayed to: a being there is hit (the reference's default)",
                Targeted.AIMED.value: "only the aimed square: a being where it strays is missed on 6 in 10 too",
            },
            default=DEFAULT_TARGETED.value,
        ),
        Setting(
            key="sf.automatic_miss",
            title="Star Frontiers: 96-00 always misses",
            help="The Expanded rules make 96-00 an automatic miss; the Basic game has none (star_frontiers.md §3).",
            choices={
                "expanded": "96-00 always misses (the Expanded rules, the reference's reading)",
                "basic": "no automatic miss (the Basic game)",
            },
            default="expanded",
        ),
        Setting(
            key="sf.sight",
            title="Star Frontiers: the telescopic sight",
            help="A sight moves a shot one range class closer; whether short becomes point blank is open (§10 item 7).",
            choices={
                "to-point-blank": "short range becomes point blank too (the reference's reading)",
                "to-short": "the sight moves medium to short at best",
            },
            default="to-point-blank",
        ),
    )
}


def setting(key: str) -> Setting:
    """The setting called `key`; the error lists them all."""
    try:
        return SETTINGS[key]
    except KeyError:
        raise SettingError(f"There is no setting `{key}`. Settings: {', '.join(SETTINGS)}.") from None


def check(key: str, value: str) -> str:
    """`value` if the setting takes it (any case); the error lists what it takes."""
    spec = setting(key)
    for choice in spec.choices:
        if choice.lower() == value.strip().lower():
            return choice
    raise SettingError(f"`{key}` takes {', '.join(spec.choices)}; not `{value}`.")


def effective(stored: Mapping[str, str]) -> dict[str, str]:
    """Every setting's value for a server: what it chose where still valid, else the default."""
    return {key: stored[key] if stored.get(key) in spec.choices else spec.default for key, spec in SETTINGS.items()}


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """A server's rules settings as the commands use them, typed; `server_settings` builds it from the store."""

    full_answers: bool  # `rolls.answers`: a roll's answer starts full, not compact
    fair_managers_only: bool  # `fair.who`: only Manage Server starts and reveals fair sessions
    dnd: dnd.Variants
    sf: sf.Variants
    ring: Ring  # `aliensrl.ring`
    sf_initiative_by_side: bool = True  # `sf.initiative`: a Star Frontiers encounter rolls by side
    targeted: Targeted = DEFAULT_TARGETED  # `aliensrl.targeted`
    gm_role: int | None = None  # `/settings gm-role`: its members are the server's game masters
    encounter_gm_only: bool = False  # `encounter.who`: only the game masters start a fight


def server_settings(stored: Mapping[str, str]) -> ServerSettings:
    """A server's typed settings from the choices it stored (unknown or missing ones read as the default)."""
    values = effective(stored)
    return ServerSettings(
        full_answers=values[ANSWERS] == "full",
        fair_managers_only=values[FAIR_WHO] == "managers",
        dnd=dnd.Variants(
            multipliers=MultiplierRule(values["dnd35.multipliers"]),
            confirmation=ConfirmationRule(values["dnd35.confirmation"]),
            finesse_shield=FinesseShieldRule(values["dnd35.finesse_shield"]),
            monk_step=MonkStepRule(values["dnd35.monk_step"]),
        ),
        sf=sf.Variants(
            automatic_miss=values["sf.automatic_miss"] == "expanded",
            sight_to_point_blank=values["sf.sight"] == "to-point-blank",
        ),
        ring=Ring(values["aliensrl.ring"]),
        sf_initiative_by_side=values[SF_INITIATIVE] == "side",
        targeted=Targeted(values["aliensrl.targeted"]),
        gm_role=_role(stored.get(GM_ROLE)),
        encounter_gm_only=values[ENCOUNTER_WHO] == "game-masters",
    )


def _role(stored: str | None) -> int | None:
    """A stored role id; anything else (none, or a value a hand edit spoilt) is no role."""
    return int(stored) if stored is not None and stored.isdigit() else None
