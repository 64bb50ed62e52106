"""How long one command holds the event loop (issue #29 item 4): the longest stall while it runs.

    .venv/bin/python -m tests.perf.bench_loop_hold

The bot runs in this process against the local double on a temporary SQLite database. A ticker wakes every
millisecond and records the longest gap between two wake-ups while each command runs: the time the loop was
held by one piece of work, which no other server's command could use. The issue's figures before the change:
/roll 19d300mi2t4kh1 116-119 ms; /character import of 50 characters of 16 KB 263-310 ms, its confirmation
127-150 ms. The target: nothing above about 20 ms.
"""

from __future__ import annotations

import asyncio
import gc
import json
import random
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bot import offload
from bot.client import DiceBot
from bot.config import Settings
from bot.db.engine import open_database
from bot.db.migrate import upgrade
from bot.local.driver import LocalDiscord, local_discord
from bot.rules import rulesets
from bot.rules.sheets.base import MAX_BLOCK_BYTES
from bot.rules.sheets.transfer import FORMAT, FORMAT_VERSION


async def longest_stall(work: Callable[[], Awaitable[Any]]) -> tuple[float, Any]:
    """The longest gap between two wake-ups of a 1 ms ticker while `work` runs, in ms, and what it returned."""
    stop = asyncio.Event()
    longest = 0.0

    async def tick() -> None:
        nonlocal longest
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            longest = max(longest, now - last - 0.001)
            last = now

    gc.collect()  # the bench's own garbage (the export it built) is not the command's to pay for
    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.01)
    try:
        result = await work()
    finally:
        stop.set()
        await ticker
    return longest * 1000, result


def big_export(count: int) -> bytes:
    """An export of `count` D&D characters of close to 16 KB each of stored JSON (accented names in every list)."""
    rules = rulesets.find("dnd35")
    assert rules is not None
    characters = []
    for i in range(count):
        names = [f"Weapon {i:02d}-{j:02d} " + "é" * 22 for j in range(20)]
        block = {**rules.dump(rules.blank()), "weapon_focus": names, "improved_critical": names}
        block["weapons"] = [{"name": name} for name in names]
        assert MAX_BLOCK_BYTES - 2048 <= len(json.dumps(rules.dump(rules.load(block)))) <= MAX_BLOCK_BYTES
        characters.append({"ruleset": "dnd35", "name": f"Character {i}", "sheet": block})
    document = {"format": FORMAT, "version": FORMAT_VERSION, "exported_at": "2026-01-01T00:00:00", "characters": []}
    document["characters"] = characters
    return json.dumps(document, indent=2).encode()


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(database_url=f"sqlite+aiosqlite:///{Path(folder)}/bench.db")
        database = open_database(settings.database_url)
        await upgrade(database)
        make = lambda: DiceBot(settings=settings, database=database, dice=random.Random(1))  # noqa: E731
        async with local_discord(make) as local:
            await warm(local)
            for _ in range(3):
                stall, _ = await longest_stall(lambda: local.command("roll", {"expression": "19d300mi2t4kh1"}))
                print(f"/roll 19d300mi2t4kh1                        longest stall {stall:6.1f} ms")
            data = big_export(50)
            print(f"export of 50 characters: {len(data) // 1024} KB")
            for _ in range(3):
                value, resolved = local.upload("characters.json", data)
                options = [{"name": "file", "type": 11, "value": value}]
                stall, planned = await longest_stall(
                    lambda: local.command("character import", options, resolved=resolved)  # noqa: B023
                )
                print(f"/character import, 50 characters of ~16 KB longest stall {stall:6.1f} ms")
                stall, done = await longest_stall(lambda: local.click(local.original(planned), "confirm"))  # noqa: B023
                text = done.response["data"]["embeds"][0]["description"]
                print(f"  its confirmation ({text})       longest stall {stall:6.1f} ms")
        await database.dispose()
    offload.shutdown()


async def warm(local: LocalDiscord) -> None:
    """Start the worker process and warm the command paths, so that a first use is not what is measured."""
    await local.command("roll", {"expression": "1000d10000"})
    await local.command("roll", {"expression": "1d20"})


if __name__ == "__main__":
    asyncio.run(main())
