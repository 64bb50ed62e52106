"""Character store figures: `/character show` with 10,000 characters stored, and 100 concurrent `set`s.

    .venv/bin/python -m tests.perf.bench_characters [--characters 10000] [--shows 500]

Runs in-process through the local double's gateway like bench_roll. `show` is timed against an almost
empty database and then with the characters of 500 users x 20 stored, as a ratio from the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import insert

from bot.client import DiceBot
from bot.config import Settings
from bot.db.engine import open_database
from bot.db.migrate import upgrade
from bot.db.models import Character
from bot.local.driver import DEFAULT_GUILD, DEFAULT_USER, LocalDiscord, local_discord
from bot.rules import rulesets
from bot.rules.sheets.base import name_key
from tests.perf.bench_roll import percentile


async def time_shows(local: LocalDiscord, shows: int) -> list[float]:
    times = []
    for i in range(shows):
        t0 = time.monotonic()
        exchange = await local.command("character show", {"character": "Vasquez" if i % 2 else "#1"})
        times.append((exchange.requests[0].at - t0) * 1000)
        assert exchange.embed["title"] == "Vasquez", exchange.messages
    return times


def report(name: str, ms: list[float]) -> float:
    median = statistics.median(ms)
    print(f"  {name:28} median {median:6.2f} ms   p99 {percentile(ms, 0.99):6.2f} ms   max {max(ms):6.2f} ms")
    return median


async def main(characters: int, shows: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(database_url=f"sqlite+aiosqlite:///{Path(folder)}/bench.db")
        database = open_database(settings.database_url)
        await upgrade(database)
        make = lambda: DiceBot(settings=settings, database=database, dice=random.Random(1))  # noqa: E731
        async with local_discord(make, connect=True) as local:
            await local.command("character create", {"ruleset": "aliensrl", "name": "Vasquez"})
            await time_shows(local, 50)
            empty = await time_shows(local, shows)

            now = datetime.now(UTC)
            kinds = list(rulesets.every())
            rows = [
                {
                    "guild_id": int(DEFAULT_GUILD) + (i % 7),
                    "owner_id": int(DEFAULT_USER) + 1 + i // 20,
                    "ruleset": kinds[i % 3].key,
                    "name": f"Character {i}",
                    "name_key": name_key(f"Character {i}"),
                    "sheet": kinds[i % 3].dump(kinds[i % 3].blank()),
                    "version": 1,
                    "created_at": now,
                    "updated_at": now,
                }
                for i in range(characters)
            ]
            async with database.write.begin() as session:
                await session.execute(insert(Character), rows)
            await time_shows(local, 50)
            full = await time_shows(local, shows)

            print(f"/character show, {shows} times, time to the first response")
            a = report("1 character stored", empty)
            b = report(f"{characters + 1} characters stored", full)
            print(f"  ratio full / empty: {b / a:.2f}")

            started = time.monotonic()
            keys = ["pistol", "rifle", "heavy", "pain"]
            exchanges = await asyncio.gather(
                *(
                    local.command("character set", {"character": "Vasquez", "field": keys[i % 4], "value": str(i % 5)})
                    for i in range(100)
                )
            )
            elapsed = time.monotonic() - started
            saved = sum(e.embed["title"] == "Saved" for e in exchanges)
            shown = await local.command("character show", {"character": "Vasquez"})
            print("100 concurrent /character set on one character")
            print(f"  acknowledged {saved}, refused {100 - saved}, final {shown.embed['footer']['text']}")
            print(f"  all 100 answered in {elapsed * 1000:.0f} ms")
        await database.dispose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--characters", type=int, default=10000)
    parser.add_argument("--shows", type=int, default=500)
    args = parser.parse_args()
    asyncio.run(main(args.characters, args.shows))
