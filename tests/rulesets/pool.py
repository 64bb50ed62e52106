"""Pool: a small fourth ruleset used only by the tests, to prove a game plugs in through the registry alone.

A roll is a pool of d6; each die of 5 or more is a success, and each success is a point of damage. A character
has a pool size and grit (its hit points). In a fight each combatant rolls a d6 plus its pool's quickness, ties
broken by the larger pool. Everything here is the game's own: its rules core and exact odds (`PoolRoll`,
`roll_pool`, `success_odds`), its sheet, its registration (`POOL`), its presenters (`PRESENTERS`); its cog is
tests/rulesets/pool_cog.py. `plugged_in()` registers both and unregisters them after.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Annotated, Any, ClassVar, Final

import discord
from pydantic import Field

from bot.errors import UserError
from bot.rules import encounter as fight
from bot.rules import luck, rulesets
from bot.rules.dice import DiceSource
from bot.rules.replay import Kind, Typed
from bot.rules.rulesets import Fighting, Quick, Ruleset
from bot.rules.settings import Setting
from bot.rules.sheets.base import Sheet
from bot.ui import rulesets as presenters
from bot.ui.embeds import ROLL_COLOUR, Answer
from bot.ui.rulesets import Presenters, Start

KEY: Final = "pool"
SIDES: Final = 6
SUCCESS: Final = 5  # a die of 5 or more is a success
MAX_DICE: Final = 20


class PoolError(UserError):
    """A pool the game does not roll."""

    title = "Not a pool"


# ------------------------------------------------------------------------------------------------ rules core


@dataclass(frozen=True, slots=True)
class PoolRoll:
    """A roll's inputs: how many d6, and whether a 6 counts twice (the server's `pool.sixes` setting)."""

    dice: int
    sixes_twice: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.dice <= MAX_DICE:
            raise PoolError(f"A pool is 1 to {MAX_DICE} dice.")


@dataclass(frozen=True, slots=True)
class PoolResult:
    """The faces rolled, and the successes they make."""

    asked: PoolRoll
    faces: tuple[int, ...]

    @property
    def successes(self) -> int:
        """Dice of 5 or more; a 6 twice if the server says so."""
        return sum((2 if face == SIDES and self.asked.sixes_twice else 1) for face in self.faces if face >= SUCCESS)

    def to_dict(self) -> dict[str, Any]:
        """The logged outcome."""
        return {"faces": list(self.faces), "successes": self.successes}


def roll_pool(asked: PoolRoll, dice: DiceSource) -> PoolResult:
    """Roll the pool: one d6 per die."""
    return PoolResult(asked, tuple(dice.randint(1, SIDES) for _ in range(asked.dice)))


def success_odds(asked: PoolRoll) -> dict[int, Fraction]:
    """The exact chance of each number of successes (a 6 counting twice when it does)."""
    one: dict[int, Fraction] = {0: Fraction(4, 6)}
    if asked.sixes_twice:
        one |= {1: Fraction(1, 6), 2: Fraction(1, 6)}
    else:
        one |= {1: Fraction(2, 6)}
    total: dict[int, Fraction] = {0: Fraction(1)}
    for _ in range(asked.dice):
        step: dict[int, Fraction] = {}
        for have, p in total.items():
            for more, q in one.items():
                step[have + more] = step.get(have + more, Fraction(0)) + p * q
        total = step
    return total


def any_success(asked: PoolRoll) -> Fraction:
    """The chance of at least one success."""
    return 1 - Fraction(4, 6) ** asked.dice


def pool_luck(result: PoolResult) -> luck.Luck:
    """A pool against its odds: any success (a hit), and the successes (its damage)."""
    return {
        "hits": luck.event(result.successes > 0, any_success(result.asked)),
        "damage": luck.amount(result.successes, success_odds(result.asked)),
    }


POOL_ROLL: Final[Kind[PoolRoll, PoolResult]] = Kind(
    "pool.roll", "pool roll", PoolRoll, roll_pool, PoolResult.to_dict, {"dice": Typed(lambda i: i.dice)}
)


# ------------------------------------------------------------------------------------------------ the sheet


class PoolSheet(Sheet):
    """A pool character: its pool size and its grit."""

    settable: ClassVar[tuple[str, ...]] = ("dice", "grit", "max_grit")
    core: ClassVar[tuple[str, ...]] = ("dice", "grit")
    aliases: ClassVar[Mapping[str, str]] = {"hp": "grit", "max_hp": "max_grit"}
    health: ClassVar[tuple[str, str] | None] = ("grit", "max_grit")

    dice: Annotated[int, Field(ge=1, le=MAX_DICE)] = 3
    grit: Annotated[int, Field(ge=-100, le=1000)] = 6
    max_grit: Annotated[int, Field(ge=1, le=1000)] = 6

    def sections(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """The pool and the grit."""
        return [("Pool", [("Dice", f"{self.dice}d6"), ("Grit", f"{self.grit} / {self.max_grit}")])]


# ------------------------------------------------------------------------------------------------ fights


def _join(
    name: str, sheet: Any, owner_id: int, side: fight.Side, character_id: int, improved: bool, misc: int
) -> fight.Combatant:
    assert isinstance(sheet, PoolSheet)
    return fight.combatant(
        KEY,
        name,
        owner_id=owner_id,
        side=side,
        hp=sheet.grit,
        max_hp=sheet.max_grit,
        modifiers=(fight.Modifier(sheet.dice // 2, "quickness"),),
        stats={"dice": sheet.dice},
        character_id=character_id,
    )


def _quick(name: str, numbers: Quick) -> fight.Combatant:
    return fight.combatant(
        KEY,
        name,
        owner_id=0,
        side=fight.Side.FOES,
        hp=numbers.hp,
        max_hp=numbers.hp,
        modifiers=(fight.Modifier(numbers.initiative, "quickness"),),
    )


def _health(hp: int) -> fight.Health:
    """Down at 0 is not dead yet: dead at -5."""
    if hp > 0:
        return fight.Health.UP
    return fight.Health.DYING if hp > -5 else fight.Health.DEAD


SETTINGS: Final = (
    Setting(
        key="pool.sixes",
        title="Pool: sixes",
        help="Whether a 6 is two successes.",
        choices={"once": "a 6 is one success (the default)", "twice": "a 6 is two successes"},
        default="once",
    ),
)


def _variants(values: Mapping[str, str]) -> bool:
    return values["pool.sixes"] == "twice"


POOL: Final = Ruleset(
    key=KEY,
    title="Pool",
    sheet=PoolSheet,
    version=1,
    health="Grit",
    health_short="grit",
    settings=SETTINGS,
    variants=_variants,
    kinds=(POOL_ROLL,),
    fighting=Fighting(
        join=_join,
        quick=_quick,
        health=_health,
        die=SIDES,
        tiebreak=lambda modifiers, stats: stats.get("dice", 0),
    ),
)


# ------------------------------------------------------------------------------------------------ presenters


def summary(result: PoolResult, secret: bool) -> str:
    """The roll's /history line."""
    return f"{result.asked.dice}d6 pool: {result.successes} successes"


def pool_answer(result: PoolResult, roller: str) -> Answer:
    """The roll's answer: the faces, the successes."""
    faces = ", ".join(f"**{f}**" if f >= SUCCESS else str(f) for f in result.faces)
    embed = discord.Embed(
        title=f"{roller}: {result.asked.dice}d6 pool",
        description=f"{faces}\n**{result.successes}** successes",
        colour=ROLL_COLOUR,
    )
    return Answer(full=embed, compact=None)


def odds_embed(asked: PoolRoll, roller: str) -> discord.Embed:
    """The exact chance of each number of successes."""
    lines = [f"{n}: {float(p):.1%}" for n, p in sorted(success_odds(asked).items())]
    return discord.Embed(
        title=f"Odds: {roller}'s {asked.dice}d6 pool",
        description=f"At least one success: **{float(any_success(asked)):.1%}**\n" + "\n".join(lines),
        colour=ROLL_COLOUR,
    )


PRESENTERS: Final = Presenters(
    key=KEY,
    summaries={POOL_ROLL.name: summary},
    start=Start(
        KEY,
        POOL.title,
        (
            "/character create ruleset:pool name:Tess",
            '/character set character:Tess values:"dice=5 hp=8/8"',
            "/pool roll character:Tess",
        ),
        "/pool roll dice:4",
        "`/pool odds` before you roll.",
    ),
    odds=(("pool roll", "pool odds"),),
)


@contextmanager
def plugged_in() -> Iterator[None]:
    """The pool ruleset registered, its rules and its presenters, for the time of a `with` block."""
    with rulesets.registered(POOL), presenters.registered(PRESENTERS):
        yield
