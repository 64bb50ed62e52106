"""/ping answers at once with a fixed-shape embed, reading nothing and rolling nothing."""

from __future__ import annotations

from sqlalchemy import func, select

from bot.db.models import RollLog
from bot.local.driver import LocalDiscord
from cogs.ping import latency_text


async def test_ping_answers_only_the_asker_with_the_gateway_latency(connected: LocalDiscord) -> None:
    answer = await connected.command("ping")
    assert answer.ephemeral
    assert answer.embed["title"] == "Pong"
    assert answer.embed["description"].startswith("Gateway latency: ")
    assert answer.rejected == []


async def test_ping_logs_no_roll(local: LocalDiscord) -> None:
    await local.command("ping")
    async with local.bot.database.read() as session:  # type: ignore[attr-defined]
        assert await session.scalar(select(func.count()).select_from(RollLog)) == 0


def test_latency_before_the_first_heartbeat_says_so() -> None:
    assert latency_text(float("inf")) == "not measured yet"
    assert latency_text(float("nan")) == "not measured yet"
    assert latency_text(0.0425) == "42 ms"
