"""The heaviest inputs still answer in full (issue #13 item 2): a fair session of 2,000 large rolls is revealed and
its log posted, /stats reads 20,000 rolls, and the largest exact odds are worked out.

Whether the loop stays free meanwhile (/ping from another server answered within 100 ms while each runs) is a
wall-clock figure, so it is measured, not asserted: `python -m tests.perf.bench_offloop` runs these same inputs
with the probe and prints how late the pings were.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update

from bot.db.engine import Database
from bot.db.models import FairSession, RollLog
from bot.db.rolls import RollRepository
from bot.local import payloads
from bot.local.driver import Exchange, LocalDiscord
from bot.rules.fair_log import check_log, filename, parse_log, unpack

ROLLS = 2_000
LARGE = "1000d10000"
TIMEOUT = 180  # seconds a heavy command may take on a loaded machine before the test gives up on it


def command(local: LocalDiscord, name: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    raw = [{"name": k, "type": 4 if isinstance(v, int) else 3, "value": v} for k, v in (options or {}).items()]
    return payloads.interaction(local.ids, local.actor, payloads.APPLICATION_COMMAND, payloads.command_data(name, raw))


# ---------------------------------------------------------------------------------------------------------
# /fair reveal and /fair log of 2,000 rolls of 1000d10000


async def large_session(local: LocalDiscord, database: Database, rolls: int = ROLLS) -> str:
    """A session of 2,000 rolls of 1000d10000 to reveal: one rolled, the rest its copies, inserted directly."""
    started = await local.command("fair start")
    commitment: str = started.embed["description"].split("`")[1]
    rolled = await local.command("roll", {"expression": LARGE})
    assert "Fair roll #1" in rolled.embed["footer"]["text"]
    async with database.write.begin() as session:
        row = (await session.scalars(select(RollLog).where(RollLog.fair_roll == 1))).one()
        assert row.draws is not None and len(row.draws) == 1000
        kept = "guild_id channel_id user_id command inputs result private created_at fair_session_id draws summary"
        copy = {column: getattr(row, column) for column in kept.split()}
        repository = RollRepository(session)
        base = int(rolled.payload["id"])
        for first in range(2, rolls + 1, 250):
            numbers = range(first, min(first + 250, rolls + 1))
            # Each copy under an interaction of its own, newer than the commitment's message, as a real roll's is.
            await repository.add_many([{**copy, "interaction_id": base + n, "fair_roll": n} for n in numbers])
        await session.execute(
            update(FairSession).where(FairSession.id == row.fair_session_id).values(next_roll=rolls + 1)
        )
    return commitment


async def test_a_session_of_2000_large_rolls_is_revealed_and_logged(
    connected: LocalDiscord, database: Database
) -> None:
    commitment = await large_session(connected, database)
    name = filename(commitment, compressed=True)
    seeds: list[str] = []

    async def check(exchange: Exchange) -> None:
        assert exchange.rejected == []
        answer = exchange.messages[0]["embeds"][0]
        seed = answer["description"].split("Seed: `")[1].split("`")[0]
        assert seed and f"{ROLLS} rolls were made" in answer["description"]
        seeds.append(seed)
        # The seed went out as the first response, inside Discord's 3 s; the log followed, gzipped (about 37 MB
        # of JSON), in parts if it must, each within the limit.
        parts = exchange.files
        assert list(parts) in ([name], [f"{name}.part{n}" for n in range(1, len(parts) + 1)])
        assert all(len(data) <= 10 * 1024 * 1024 for data in parts.values())
        log = parse_log(unpack(b"".join(parts.values())))
        assert (log.seed, log.last_roll, len(log.rolls)) == (seed, ROLLS, ROLLS)
        assert check_log(log, roll=1).ok  # the roll really made; the rest are its copies

    # The reveal, then `/fair log`, which does the same work again (read the session, build the file in the worker
    # process, post the parts) and gives the same seed.
    exchange = await connected.send(command(connected, "fair reveal"), timeout=TIMEOUT)
    assert exchange.messages[0]["embeds"][0]["title"] == "Fair dice: seed revealed"
    await check(exchange)
    await check(await connected.send(command(connected, "fair log"), timeout=TIMEOUT))
    assert len(set(seeds)) == 1


# ---------------------------------------------------------------------------------------------------------
# /stats over 20,000 rolls, and the largest exact odds of /dnd attack and /dnd odds

TALLY = {
    "hits": [1.0, 0.55, 0.2475],
    "crits": [0.0, 0.0275, 0.02674375],
    "damage": [11.0, 4.33, 19.7],
    "nat20": [0.0, 0.05, 0.0475],
    "nat1": [1.0, 0.05, 0.0475],
}


async def many_tallies(local: LocalDiscord, database: Database, count: int = 20_000) -> None:
    """`count` logged attacks with a luck tally each: one rolled, the rest its copies, inserted directly."""
    await local.command("dnd attack", {"attack_bonus": 5, "damage": "1d8+3", "target_ac": 15})
    async with database.write.begin() as session:
        row = (await session.scalars(select(RollLog).order_by(RollLog.id.desc()))).first()
        assert row is not None
        copy = {c: getattr(row, c) for c in ("guild_id", "channel_id", "user_id", "command", "inputs", "result")}
        copy |= {"private": False, "created_at": row.created_at, "ruleset": "dnd35", "luck": TALLY}
        for first in range(0, count, 2_000):
            numbers = range(first, min(first + 2_000, count))
            await RollRepository(session).add_many([{**copy, "interaction_id": n} for n in numbers])


async def test_stats_over_20000_rolls_answers(connected: LocalDiscord, database: Database) -> None:
    await many_tallies(connected, database)

    async def check(exchange: Exchange) -> None:
        assert exchange.rejected == []
        assert "over 20000 rolls" in exchange.embed["description"].replace(",", "")
        assert list(exchange.files) == ["luck.png"]

    await check(await connected.send(command(connected, "stats"), timeout=TIMEOUT))


# The largest exact count the odds budget lets through (tests/perf/bench_hostile.py); more dice are approximated.
HEAVIEST_ODDS = {"attack_bonus": 5, "damage": "7d999", "target_ac": 15}


async def test_the_largest_exact_odds_answer(connected: LocalDiscord) -> None:
    async def check(exchange: Exchange) -> None:
        assert exchange.rejected == [] and exchange.embed["title"]

    for name in ("dnd attack", "dnd odds"):
        await check(await connected.send(command(connected, name, HEAVIEST_ODDS), timeout=TIMEOUT))
