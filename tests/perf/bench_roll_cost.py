"""CPU per /roll in-process, each saving against its absence in one run: `python -m tests.perf.bench_roll_cost`.

    .venv/bin/python -m tests.perf.bench_roll_cost [--count 300] [--rounds 5]

A raw INTERACTION_CREATE goes over the double's gateway to discord.py, the command tree, the odds, the dice,
the embed, the HTTP callback to the double and the roll log write; one command after another, so this is the
work of one roll, not its waiting. The double runs in this process too, so its share is in every figure alike.
The variants alternate in rounds (the machine is shared and noisy), and the figure of each is its median round:
compare the ratios, within one run.

- `odds counted afresh`: light odds are counted on every roll (`bot.rules.dice_odds.light_odds` keeps none),
  as before they were kept per expression.
- `odds lines afresh`: the chances of the odds line are worked out from Fractions on every roll
  (`bot.ui.dice` keeps none), as before they were kept per odds, total and target.
- `deferred`: every roll is deferred before its work starts (`Admission.backed_up` 0, as when it arrives behind
  a backed-up loop), then answered by the followup that replaces its thinking message: what a defer costs.
- `SystemRandom dice`: the bot's dice ask the kernel for bytes on every die (`random.SystemRandom`), as before
  `bot.rules.system_dice.SystemDice` read them a block at a time.

And `/dnd attack` quick (`QUICK_ATTACK`, no character), as built and with its `attack odds counted afresh` on every
attack (`bot.rules.dnd35.odds` keeps none), as before they were kept per attack; and `/dnd attack` with a character
(`ATTACK`: the user's active fighter and its greatsword, read from the database on every attack), as built and:

- `read in the session`: its character and the channel's fight read through the roll's aiosqlite session, as
  before the reader threads (`bot.db.engine.Readers`) read them, the two in one trip.
- `sheet read afresh`: its stored block validated on every read (`Ruleset.load` keeps none), as before the last
  blocks read were kept by their text.
- `inputs read afresh`: its logged inputs decoded on every roll (`bot.rules.replay.roll`), as before the last
  ones read back were kept by their text.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Final
from unittest.mock import patch

from bot.client import DiceBot
from bot.config import Settings
from bot.db import characters as db_characters
from bot.db import encounters as db_encounters
from bot.db.engine import open_database, read_rows
from bot.db.migrate import upgrade
from bot.local.driver import LocalDiscord, local_discord
from bot.rules import dice_odds, replay
from bot.rules.dice import DiceSource
from bot.rules.dnd35.ruleset import DND35
from bot.rules.sheets import base as sheets_base
from bot.rules.system_dice import SystemDice
from bot.ui import dice as ui_dice
from tests.perf.harness import ATTACK, QUICK_ATTACK, seed_users

EXPRESSION = "4d6kh3+1d20"
# The module, which the package's `odds` (its function) hides from `import ... as`.
attack_odds = importlib.import_module("bot.rules.dnd35.odds")


@contextmanager
def as_built(local: LocalDiscord) -> Iterator[None]:
    yield


@contextmanager
def _none_kept(kept: Any, bound: object, name: str) -> Iterator[None]:
    """A cache emptied, and its bound (`bound.name`) 0 so that every entry is forgotten as soon as it is made."""
    kept.clear()
    with patch.object(bound, name, 0):
        yield


def odds_afresh(local: LocalDiscord) -> AbstractContextManager[object]:
    return _none_kept(dice_odds._KEPT, dice_odds._KEPT, "entries")


def lines_afresh(local: LocalDiscord) -> AbstractContextManager[object]:
    return _none_kept(ui_dice._shown, ui_dice, "CHANCES_ODDS")


def deferred(local: LocalDiscord) -> AbstractContextManager[object]:
    return patch.object(local.bot.tree.admission, "backed_up", 0.0)  # type: ignore[attr-defined]


def attack_odds_afresh(local: LocalDiscord) -> AbstractContextManager[object]:
    return _none_kept(attack_odds._KEPT_ATTACKS, attack_odds, "ATTACKS_KEPT")


def system_random(local: LocalDiscord) -> AbstractContextManager[object]:
    return patch.object(local.bot, "dice", random.SystemRandom())


@contextmanager
def in_session(local: LocalDiscord) -> Iterator[None]:
    def without_readers(session: Any, reads: Any, statement: Any, values: Any) -> Any:
        return read_rows(session, None, statement, values)

    with (
        patch.object(db_characters, "read_rows", without_readers),
        patch.object(db_encounters, "read_rows", without_readers),
    ):
        yield


def sheet_afresh(local: LocalDiscord) -> AbstractContextManager[object]:
    return _none_kept(DND35._kept, sheets_base, "KEPT_SHEETS")


def inputs_afresh(local: LocalDiscord) -> AbstractContextManager[object]:
    return patch.object(replay, "_read_back", replay._read_back.__wrapped__)


ROLL: Final = ("roll", {"expression": EXPRESSION})
Variant = tuple[tuple[str, dict[str, Any]], Callable[[LocalDiscord], AbstractContextManager[object]]]
VARIANTS: dict[str, Variant] = {
    "as built": (ROLL, as_built),
    "odds counted afresh": (ROLL, odds_afresh),
    "odds lines afresh": (ROLL, lines_afresh),
    "deferred": (ROLL, deferred),
    "SystemRandom dice": (ROLL, system_random),
    "attack as built": (QUICK_ATTACK, as_built),
    "attack odds afresh": (QUICK_ATTACK, attack_odds_afresh),
    "character attack": (ATTACK, as_built),
    "read in the session": (ATTACK, in_session),
    "sheet read afresh": (ATTACK, sheet_afresh),
    "inputs read afresh": (ATTACK, inputs_afresh),
}


async def _round(local: LocalDiscord, command: str, options: dict[str, Any], count: int) -> tuple[float, float]:
    """CPU seconds and wall seconds per command."""
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(count):
        exchange = await local.command(command, options)
        assert exchange.requests, exchange
    return (time.process_time() - cpu) / count, (time.perf_counter() - wall) / count


async def bench(count: int, rounds: int, folder: Path) -> None:
    settings = Settings(database_url=f"sqlite+aiosqlite:///{folder}/bench.db")
    await seed_users(settings.database_url, 1)  # the driver's user, with an active fighter (`ATTACK`)
    database = open_database(settings.database_url)
    await upgrade(database)
    cpu: dict[str, list[float]] = {name: [] for name in VARIANTS}
    wall: dict[str, list[float]] = {name: [] for name in VARIANTS}
    async with local_discord(
        lambda: DiceBot(settings=settings, database=database, dice=SystemDice()), connect=True
    ) as local:
        for command, options in (ROLL, QUICK_ATTACK, ATTACK):
            for _ in range(50):  # warm up caches and the connection pool
                warm = await local.command(command, options)
        if not str(warm.embed.get("title", "")).startswith("Fighter 0"):
            raise RuntimeError(f"the character attack found no fighter: {warm.embed}")
        for _ in range(rounds):
            for name, ((command, options), variant) in VARIANTS.items():
                with variant(local):
                    spent, took = await _round(local, command, options, count)
                cpu[name].append(spent)
                wall[name].append(took)
    await database.dispose()
    print(f"{rounds} rounds of {count} commands one after another, per command")
    for (command, options), base_name in (
        (ROLL, "as built"),
        (QUICK_ATTACK, "attack as built"),
        (ATTACK, "character attack"),
    ):
        print(f"/{command} " + " ".join(f"{k}:{v}" for k, v in options.items()))
        base = statistics.median(cpu[base_name])
        for name, ((of, given), _variant) in VARIANTS.items():
            if (of, given) != (command, options):
                continue
            spent = statistics.median(cpu[name])
            print(
                f"  {name:22} CPU {spent * 1000:6.3f} ms  wall {statistics.median(wall[name]) * 1000:6.3f} ms"
                f"  CPU / as built {spent / base:5.2f}"
            )


def per_die(rounds: int, count: int = 100_000) -> None:
    """CPU per d20 of each source alone, alternating rounds."""
    sources: dict[str, DiceSource] = {"SystemDice": SystemDice(), "SystemRandom": random.SystemRandom()}
    spent: dict[str, list[float]] = {name: [] for name in sources}
    for _ in range(rounds):
        for name, source in sources.items():
            cpu = time.process_time()
            for _ in range(count):
                source.randint(1, 20)
            spent[name].append((time.process_time() - cpu) / count)
    print(
        f"one d20, {rounds} rounds of {count:,}: "
        + ", ".join(f"{name} {statistics.median(times) * 1e6:.2f} µs" for name, times in spent.items())
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(bench(args.count, args.rounds, Path(folder)))
    per_die(args.rounds)


if __name__ == "__main__":
    main()
