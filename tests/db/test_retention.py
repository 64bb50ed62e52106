"""The roll log keeps rolls for ROLL_LOG_KEEP_DAYS, pruned in batches; a running fair session's rolls always stay."""

from __future__ import annotations

import dataclasses
import random
from datetime import datetime, timedelta

import pytest
from sqlalchemy import select

from bot.client import DiceBot
from bot.config import DEFAULT_ROLL_LOG_KEEP_DAYS, Settings, SettingsError
from bot.db.engine import Database
from bot.db.models import FairSession, RollLog
from bot.db.rolls import RollLogPruner, RollRecord, RollRepository, prune_batch
from bot.local.driver import LocalDiscord, local_discord
from tests.conftest import FIXED_TIME
from tests.helpers import ROOT, count

KEEP_DAYS = 30

# ------------------------------------------------------------------------------------------------ the setting


def test_rolls_are_kept_a_year_by_default_and_0_keeps_them_all() -> None:
    assert Settings.from_env({}).roll_log_keep_days == DEFAULT_ROLL_LOG_KEEP_DAYS == 365
    assert Settings.from_env({"ROLL_LOG_KEEP_DAYS": "30"}).roll_log_keep_days == 30
    assert Settings.from_env({"ROLL_LOG_KEEP_DAYS": "0"}).roll_log_keep_days is None
    assert Settings().roll_log_keep_days is None  # built directly (tests, benchmarks): nothing is pruned


@pytest.mark.parametrize("value", ["-1", "a year", "36501", "1.5", "３０"])
def test_a_bad_retention_is_refused_with_a_reason(value: str) -> None:
    with pytest.raises(SettingsError, match="ROLL_LOG_KEEP_DAYS must be a number of days up to 36500"):
        Settings.from_env({"ROLL_LOG_KEEP_DAYS": value})


def test_env_example_lists_the_retention() -> None:
    example = (ROOT / ".env.example").read_text()
    assert f"\nROLL_LOG_KEEP_DAYS={DEFAULT_ROLL_LOG_KEEP_DAYS}\n" in example


# ----------------------------------------------------------------------------------------------- the pruning


class Clock:
    """The bot's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = FIXED_TIME

    def __call__(self) -> datetime:
        return self.now

    def days_later(self, days: int) -> None:
        self.now += timedelta(days=days)


async def history(local: LocalDiscord) -> list[str]:
    shown = await local.command("history", {"count": 25})
    description: str = shown.embed["description"]
    return [] if description == "No public rolls here yet." else description.splitlines()


async def test_old_rolls_go_and_a_running_fair_sessions_stay_until_its_reveal_is_old(
    settings: Settings, database: Database
) -> None:
    clock = Clock()
    kept = dataclasses.replace(settings, roll_log_keep_days=KEEP_DAYS)

    def make_bot() -> DiceBot:
        return DiceBot(settings=kept, database=database, dice=random.Random(5), clock=clock)

    async with local_discord(make_bot) as local:
        bot = local.bot
        assert isinstance(bot, DiceBot) and bot.pruner is not None
        assert bot.pruner.running  # started by setup_hook
        await local.command("roll", {"expression": "1d20"})
        await local.command("roll", {"expression": "2d6"})
        await local.command("fair start")
        fair_roll = await local.command("roll", {"expression": "3d6"})
        assert fair_roll.embed["footer"]["text"].startswith("Fair roll #1")

        clock.days_later(KEEP_DAYS + 10)  # the first three rolls are now older than the retention
        elsewhere = dataclasses.replace(local.actor, channel_id="300000000000000009")
        await local.command("fair start", actor=elsewhere)
        await local.command("roll", {"expression": "1d4"})  # the session's roll 2, recent
        assert await bot.pruner.prune() == 2  # the two plain rolls; the running session's old roll stays
        assert len(await history(local)) == 2
        assert await count(database, RollLog, RollLog.fair_roll.is_not(None)) == 2

        revealed = await local.command("fair reveal")
        assert "2 rolls were made" in revealed.embed["description"]
        clock.days_later(KEEP_DAYS - 1)  # revealed 29 days ago: the session's rolls stay whole
        assert await bot.pruner.prune() == 0
        checked = await local.command("fair verify", {"roll": 1})
        assert checked.embed["title"] == "Fair roll #1: verified"

        clock.days_later(2)  # the reveal is older than the retention: the session goes, with all its rolls
        assert await bot.pruner.prune() == 3  # two rolls and the session's own row
        assert await history(local) == []
        gone = await local.command("fair log")
        assert gone.embed["description"] == "This channel has no revealed fair session yet."
        async with database.read() as session:
            sessions = (await session.scalars(select(FairSession))).all()
        assert [s.revealed_at for s in sessions] == [None]  # the other channel's session still runs
    assert not bot.pruner.running  # stopped by close


async def test_pruning_goes_in_bounded_batches(database: Database) -> None:
    old = FIXED_TIME - timedelta(days=KEEP_DAYS + 1)
    roll = {
        "interaction_id": 1,
        "guild_id": 1,
        "channel_id": 1,
        "user_id": 1,
        "command": "roll",
        "inputs": {"expression": "1d6"},
        "result": {"total": 3},
        "private": False,
        "created_at": old,
    }
    async with database.write.begin() as session:
        await RollRepository(session).add_many([{**roll, "interaction_id": n} for n in range(7)])
        await RollRepository(session).add(RollRecord(**{**roll, "created_at": FIXED_TIME}))
    async with database.write.begin() as session:
        assert await prune_batch(session, before=FIXED_TIME - timedelta(days=KEEP_DAYS), limit=3) == 3
    assert await count(database, RollLog) == 5
    pruner = RollLogPruner(database.write, keep_days=KEEP_DAYS, clock=lambda: FIXED_TIME, batch=3, pause=0)
    assert await pruner.prune() == 4
    assert await count(database, RollLog) == 1
    assert await pruner.prune() == 0


async def test_without_a_retention_nothing_is_pruned(local: LocalDiscord) -> None:
    assert isinstance(local.bot, DiceBot) and local.bot.pruner is None
