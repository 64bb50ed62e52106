"""Phone lines per answer: the issue's long answers, each page measured as a phone shows it (#19 item 7).

    .venv/bin/python -m tests.perf.bench_phone

Each answer goes through the whole local path (the double, the command tree, the buttons); "first" is what it
shows first, "then" each page behind Details and the Page buttons, counted with `bot.ui.embeds.phone_lines`:
38 characters a line, Markdown marks not counted. The dice are seeded, so a run prints the same figures.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
from datetime import UTC, datetime
from typing import Any

import discord

from bot.client import DiceBot
from bot.config import Settings
from bot.db.engine import open_database
from bot.db.migrate import upgrade
from bot.local.driver import LocalDiscord, local_discord
from bot.local.payloads import Snowflakes
from bot.ui.embeds import PHONE_LINES, phone_lines

SETUP: list[tuple[str, dict[str, Any]]] = [
    ("character create", {"ruleset": "dnd35", "name": "Duo"}),
    ("character set", {"character": "Duo", "values": "bab=16 str=18 dex=15 twf=yes hp=80/80"}),
    ("character set", {"character": "Duo", "field": "improved_two_weapon_fighting", "value": "yes"}),
    ("character set", {"character": "Duo", "field": "greater_two_weapon_fighting", "value": "yes"}),
    ("character set", {"character": "Duo", "field": "weapon_groups", "value": "martial"}),
    ("character weapon add", {"character": "Duo", "name": "Longsword"}),
    ("character weapon add", {"character": "Duo", "name": "Short sword"}),
    ("character create", {"ruleset": "dnd35", "name": "Two"}),
    ("character set", {"character": "Two", "values": "bab=6 str=16 dex=15 twf=yes hp=40/40"}),
    ("character set", {"character": "Two", "field": "weapon_groups", "value": "martial"}),
    ("character weapon add", {"character": "Two", "name": "Longsword"}),
    ("character weapon add", {"character": "Two", "name": "Short sword"}),
    ("character create", {"ruleset": "sf", "name": "Zix"}),
    ("character weapon add", {"character": "Zix", "name": "Laser pistol"}),
    ("character create", {"ruleset": "aliensrl", "name": "Vasquez"}),
    ("character set", {"character": "Vasquez", "values": "heavy=2 pain=1"}),
    ("character weapon add", {"character": "Vasquez", "name": "Smartgun", "details": "type=heavy shots=4"}),
]
TWO_WEAPONS = {"weapon": "Longsword", "off_hand_weapon": "Short sword"}
CASES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("/dnd attack", "dnd attack", {"attack_bonus": 5, "damage": "1d8+3", "target_ac": 15}),
    ("/dnd full-attack, BAB 6, two weapons", "dnd full-attack", {"character": "Two", "target_ac": 16, **TWO_WEAPONS}),
    ("/dnd full-attack, BAB 16, two weapons", "dnd full-attack", {"character": "Duo", "target_ac": 18, **TWO_WEAPONS}),
    ("/sf shoot", "sf shoot", {"character": "Zix", "distance": 30, "setting": 2}),
    ("/sf melee", "sf melee", {"score": 40, "skill": 1, "damage": "1d10"}),
    ("/aliens fire, 4-shot burst", "aliens fire", {"character": "Vasquez", "dx": 9, "dy": 3, "intervening": True}),
    ("/character show, D&D", "character show", {"character": "Duo"}),
    ("/house-rules", "house-rules", None),
]


def lines(embed: dict[str, Any]) -> int:
    return phone_lines(discord.Embed.from_dict(embed))


def labelled(message: dict[str, Any], label: str) -> str | None:
    found = [c["custom_id"] for row in message.get("components", []) for c in row["components"] if c["label"] == label]
    return found[0] if found else None


async def measure(local: LocalDiscord, command: str, options: dict[str, Any] | None) -> list[int]:
    """The first form's lines, then those of every page behind Details and the Page buttons."""
    exchange = await local.command(command, options)
    message = local.original(exchange)
    counts = [lines(message["embeds"][0])]
    if (details := labelled(message, "Details")) is not None:
        await local.click(message, details)
        message = local.original(exchange)
        counts.append(lines(message["embeds"][0]))
    number = 2
    while (page := labelled(message, f"Page {number}")) is not None:
        await local.click(message, page)
        message = local.original(exchange)
        counts.append(lines(message["embeds"][0]))
        number += 1
    return counts


async def run() -> list[tuple[str, list[int]]]:
    folder = tempfile.mkdtemp(prefix="dicebot-phone-")
    url = f"sqlite+aiosqlite:///{folder}/phone.db"
    database = open_database(url)
    await upgrade(database)
    clock = datetime(2026, 1, 1, tzinfo=UTC)

    def make() -> DiceBot:
        return DiceBot(
            settings=Settings(database_url=url), database=database, dice=random.Random(7), clock=lambda: clock
        )

    figures = []
    try:
        async with local_discord(make, ids=Snowflakes(1767225600000)) as local:
            for command, options in SETUP:
                await local.command(command, options)
            for label, command, options in CASES:
                figures.append((label, await measure(local, command, options)))
    finally:
        await database.dispose()
    return figures


def main() -> None:
    print(f"Phone lines per answer (38 characters a line; a page keeps to {PHONE_LINES})")
    for label, counts in asyncio.run(run()):
        first, *pages = counts
        shown = f"first {first}" + (f"; then {' + '.join(map(str, pages))}" if pages else "")
        print(f"  {label:40} {shown}")


if __name__ == "__main__":
    main()
