"""What many test files read: an answer's embed fields, the roll log, and how many rows a table holds.

Fixtures live in tests/conftest.py; the dice sources in tests/dice_sources.py, the shard processes in
tests/shards.py and the statistics in tests/stats.py.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from bot.db.engine import Database
from bot.db.models import RollLog
from bot.local.driver import Exchange, LocalDiscord
from bot.local.payloads import Actor


def fields(exchange: Exchange) -> dict[str, str]:
    """The fields of the answer's embed, value by name."""
    return {f["name"]: f["value"] for f in exchange.embed["fields"]}


async def logged(database: Database) -> list[RollLog]:
    """Every row of the roll log, oldest first."""
    async with database.read() as session:
        return list((await session.scalars(select(RollLog).order_by(RollLog.id))).all())


async def count(database: Database, model: type[object], *where: Any) -> int:
    """How many rows of `model` the database holds, of those matching `where` if given."""
    async with database.read() as session:
        query = select(func.count()).select_from(model).where(*where)
        found: int = (await session.execute(query)).scalar_one()
        return found


def button(message: dict[str, Any], label: str) -> str | None:
    """The custom id of the button labelled `label` on a message, if it has one."""
    found = [c["custom_id"] for row in message.get("components", []) for c in row["components"] if c["label"] == label]
    return found[0] if found else None


async def pages(
    local: LocalDiscord, exchange: Exchange, *, actor: Actor | None = None, first: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Every page of an answer, first to last, pressing its Page buttons in turn (as `actor`, default the user).

    `first`: the message showing page 1 (default: the answer as the double holds it now). A page shown in
    place edits that message; one shown privately is a new message, whose buttons are pressed next.
    """
    message = first if first is not None else local.original(exchange)
    embeds = [message["embeds"][0]]
    while (next_page := button(message, f"Page {len(embeds) + 1}")) is not None:
        clicked = await local.click(message, next_page, actor=actor)
        [shown] = clicked.messages
        embeds.append(shown["embeds"][0])
        message = local.original(exchange) if clicked.response["type"] == 7 else {**shown, "id": message["id"]}
    return embeds
