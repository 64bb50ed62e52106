"""Per-user caps and the active character under concurrent commands, on SQLite and on PostgreSQL.

SQLite runs one writer at a time, so these races only bite on PostgreSQL (TEST_DATABASE=postgres), where
70 concurrent creates once stored 56 characters and the first-character race answered with an apology.
"""

from __future__ import annotations

import asyncio
from collections import Counter

from bot.db.characters import MAX_CHARACTERS_PER_USER
from bot.db.engine import Database
from bot.db.macros import MAX_MACROS
from bot.db.models import ActiveCharacter, Character, Macro
from bot.local.driver import Exchange, LocalDiscord
from tests.helpers import count

BURST = 70


def outcome(exchange: Exchange) -> str:
    """ "ok" for a success, else the error embed's title (an apology is titled "Sorry")."""
    embed = exchange.embed
    return "error: " + str(embed["title"]) if embed.get("color") == 0xE74C3C else "ok"


async def test_seventy_concurrent_creates_store_exactly_fifty(local: LocalDiscord, database: Database) -> None:
    exchanges = await asyncio.gather(
        *(local.command("character create", {"ruleset": "aliensrl", "name": f"Marine {i}"}) for i in range(BURST))
    )
    outcomes = Counter(outcome(e) for e in exchanges)
    assert outcomes == {"ok": MAX_CHARACTERS_PER_USER, "error: Too many characters": BURST - MAX_CHARACTERS_PER_USER}
    assert await count(database, Character) == MAX_CHARACTERS_PER_USER


async def test_seventy_concurrent_macro_saves_store_exactly_fifty(local: LocalDiscord, database: Database) -> None:
    exchanges = await asyncio.gather(
        *(
            local.command("macro save", {"name": f"r{i}", "command": f"/roll expression:1d{i + 2}"})
            for i in range(BURST)
        )
    )
    outcomes = Counter(outcome(e) for e in exchanges)
    assert outcomes == {"ok": MAX_MACROS, "error: Too many saved rolls": BURST - MAX_MACROS}
    assert await count(database, Macro) == MAX_MACROS


async def test_first_characters_created_at_once_make_exactly_one_active(
    local: LocalDiscord, database: Database
) -> None:
    # Every ruleset's first character races for the one active row of that ruleset.
    commands = [
        local.command("character create", {"ruleset": ruleset, "name": f"Racer {i}"})
        for i in range(10)
        for ruleset in ("aliensrl", "dnd35", "sf")
    ]
    exchanges = await asyncio.gather(*commands)
    assert Counter(outcome(e) for e in exchanges) == {"ok": 30}
    active = [e for e in exchanges if e.embed["footer"]["text"].endswith("· active")]
    assert len(active) == 3
    assert await count(database, ActiveCharacter) == 3


async def test_use_racing_the_first_create_never_apologises(local: LocalDiscord, database: Database) -> None:
    first = await local.command("character create", {"ruleset": "aliensrl", "name": "Hicks"})
    assert outcome(first) == "ok"
    async with database.write.begin() as session:  # no active character yet: as if Hicks came by import
        await session.execute(ActiveCharacter.__table__.delete())
    exchanges = await asyncio.gather(
        *(local.command("character use", {"character": "Hicks"}) for _ in range(10)),
        *(local.command("character create", {"ruleset": "aliensrl", "name": f"Racer {i}"}) for i in range(10)),
    )
    assert Counter(outcome(e) for e in exchanges) == {"ok": 20}
    assert await count(database, ActiveCharacter) == 1
