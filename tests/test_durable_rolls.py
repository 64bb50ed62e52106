"""Durable before shown: `kill -9` of a real bot process during a burst of fair rolls loses no answered roll.

The bot logs (commits) a roll before it posts the answer. So whatever the double received, a public answer
stamped "Fair roll #N" or a hidden roll's notice "(fair roll #N)", roll N is in the log afterwards, with the
faces the answer showed; and once revealed, the session's log verifies, every number accounted for.
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from bot.db.engine import open_database
from bot.db.fair import STILL_RUNNING, FairRepository, decode_log, signature_of
from bot.db.models import RollLog
from bot.db.settings import GM_CHANNEL, SettingsRepository
from bot.local.double import Captured, DiscordDouble
from bot.rules.fair_log import FairLog, LogCheck, Unanswered, check_log, dump_log, parse_log
from tests.helpers import start_bot
from tests.shards import GUILDS, OWNER, Shards, deploy_step, embed_of, environment

pytestmark = pytest.mark.slow  # starts processes or runs for seconds: scheduled first (tests/conftest.py)

CHAINS = 8  # rolls in flight at once
ROLLS_EACH = 40
KILL_AFTER = 60  # answered fair rolls before the process is killed
GM_CHANNEL_ID = 300000000000000099
STAMP = re.compile(r"[Ff]air roll #(\d+)")


def answered_number(request: Captured) -> int | None:
    """The fair roll number of an answer the double accepted, public (footer) or hidden (notice)."""
    if request.status != 200 or not request.path.endswith("/callback") or not isinstance(request.body, dict):
        return None
    embeds = (request.body.get("data") or {}).get("embeds") or [{}]
    text = f"{(embeds[0].get('footer') or {}).get('text', '')} {embeds[0].get('description', '')}"
    found = STAMP.search(text)
    return int(found[1]) if found else None


def answered(double: DiscordDouble) -> set[int]:
    return {n for n in map(answered_number, double.requests) if n is not None}


async def roll_chain(shards: Shards, chain: int) -> None:
    """Roll one after another; every other chain makes hidden rolls."""
    for _ in range(ROLLS_EACH):
        options: dict[str, Any] = {"expression": "3d6+1d20"}
        if chain % 2:
            options["hidden"] = "true"
        await shards.send(0, "roll", options)


async def logged(database_url: str) -> dict[int, list[list[int]]]:
    """Per fair roll number, the draws the log holds."""
    database = open_database(database_url)
    try:
        async with database.read() as session:
            found = (await session.execute(select(RollLog.fair_roll, RollLog.draws))).all()
    finally:
        await database.dispose()
    return {number: draws for number, draws in found if number is not None}


async def revealed_log(database_url: str) -> tuple[LogCheck, FairLog]:
    """Reveal the channel's session directly in the database, export its log and check it."""
    database = open_database(database_url)
    try:
        async with database.write.begin() as session:
            revealed = await FairRepository(session).reveal(int(GUILDS[0][1]), now=datetime.now(UTC))
        async with database.write.begin() as session:  # the bot is gone: nothing is in flight any more
            revealed = await FairRepository(session).close(revealed.id, now=datetime.now(UTC))
        async with database.read() as session:
            signature = signature_of(await FairRepository(session).raw_log(revealed))
        async with database.write.begin() as session:
            await FairRepository(session).signed(revealed.id, signature)
            revealed = await FairRepository(session).get(revealed.id) or revealed
        async with database.read() as session:
            exported = decode_log(await FairRepository(session).raw_log(revealed))
    finally:
        await database.dispose()
    parsed = parse_log(dump_log(exported))
    return check_log(parsed), parsed


async def set_gm_channel(database_url: str) -> None:
    database = open_database(database_url)
    try:
        async with database.write.begin() as session:
            await SettingsRepository(session).set(
                int(GUILDS[0][0]), GM_CHANNEL, str(GM_CHANNEL_ID), user_id=int(OWNER), now=datetime.now(UTC)
            )
    finally:
        await database.dispose()


async def test_kill_9_during_fair_rolls_loses_no_answered_roll(bot_database: str, tmp_path: Path) -> None:
    url = bot_database
    async with DiscordDouble(guilds=GUILDS[:1]) as double:
        await deploy_step(environment(double, url), tmp_path, "migrate")
        await set_gm_channel(url)
        process = await start_bot(double, url, tmp_path, "bot.log")
        shards = Shards(double, [process])
        chains: list[asyncio.Task[None]] = []
        try:
            await double.wait_until(lambda: double.connected or process.returncode is not None, timeout=60)
            assert process.returncode is None, (tmp_path / "bot.log").read_text()[-3000:]
            started = await shards.send(0, "fair start", {})
            assert "session started" in embed_of(started)["title"]
            chains = [asyncio.create_task(roll_chain(shards, c)) for c in range(CHAINS)]
            await double.wait_until(lambda: len(answered(double)) >= KILL_AFTER, timeout=60)
            process.kill()  # SIGKILL: rolls in flight die with the process
            await process.wait()
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
            for chain in chains:
                chain.cancel()
            await asyncio.gather(*chains, return_exceptions=True)
        seen = answered(double)
        assert KILL_AFTER <= len(seen) < CHAINS * ROLLS_EACH, "the kill missed the burst"
        hidden = [r for r in double.requests if answered_number(r) and "hidden roll" in str(r.body)]
        assert hidden, "no hidden roll was answered before the kill"

        log = await logged(url)
        missing = sorted(seen - set(log))
        print(f"killed after {len(seen)} answered fair rolls; {len(log)} logged")  # noqa: T201
        assert missing == [], f"answered but not logged: {missing}"
        # Revealed, the session's log accounts for every number and verifies: the numbers the kill cut off are
        # listed as never answered, with that reason, and none of them was answered.
        checked, fair_log = await revealed_log(url)
        assert checked.ok, checked.lines
        cut_off = [r for r in fair_log.rolls if isinstance(r, Unanswered)]
        assert all(r.reason == STILL_RUNNING for r in cut_off) and not {r.roll for r in cut_off} & seen
        # And the log holds the faces the public answers showed (the expression's dice, in order).
        for request in double.requests:
            number = answered_number(request)
            if number is None or "hidden roll" in str(request.body):
                continue
            faces = [face for _, _, face in log[number]]
            shown = request.body["data"]["embeds"][0].get("description", "")  # a callback: only those are counted
            assert all(str(face) in shown for face in faces), (number, faces, shown)
