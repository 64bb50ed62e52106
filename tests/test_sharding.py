"""Two `python -m bot` processes as shards 0 and 1 of 2 on one PostgreSQL, through the double's gateway.

It needs PostgreSQL, so it uses the suite's server (pgserver, started once per session; TEST_POSTGRES_URL
points it elsewhere) in the SQLite run too.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.__main__ import prepare_database
from bot.config import Settings
from bot.db.migrate import SchemaMismatch, head_revision
from bot.local.double import CHANNEL_MESSAGE, DEFERRED_MESSAGE, Captured
from tests.shards import (
    IDENTIFY_INTERVAL,
    Shards,
    concurrent_edits,
    embed_of,
    fresh_database,
    running_shards,
    version_of,
)

pytestmark = pytest.mark.slow  # starts processes or runs for seconds: scheduled first (tests/conftest.py)

EDITS = 100


def _request(method: str, path: str, body: Any, *, shard: int = 0) -> Captured:
    return Captured(method=method, path=path, query={}, body=body, headers={}, status=200, shard=shard)


async def _answer_to(*requests: Captured) -> Any:
    queue: asyncio.Queue[Captured] = asyncio.Queue()
    for request in requests:
        queue.put_nowait(request)
    return await Shards._answer("1", queue)


async def test_the_helper_reads_an_answer_sent_at_once_from_its_callback() -> None:
    embed = {"title": "Saved"}
    answer = await _answer_to(
        _request("POST", "/interactions/1/tok/callback", {"type": CHANNEL_MESSAGE, "data": {"embeds": [embed]}})
    )
    assert not answer.deferred and answer.acknowledged and embed_of(answer) == embed


async def test_the_helper_follows_a_deferred_answer_to_its_followup() -> None:
    """A loaded machine makes the bot's watchdog defer any command: the answer is then a later request."""
    embed = {"title": "Saved"}
    answer = await _answer_to(
        _request("POST", "/interactions/1/tok/callback", {"type": DEFERRED_MESSAGE, "data": {"flags": 64}}),
        _request("DELETE", "/webhooks/2/tok/messages/@original", None),  # a public "thinking…" taken back
        _request("PATCH", "/webhooks/2/tok/messages/@original", {"embeds": [embed]}),
    )
    assert answer.deferred and answer.acknowledged and answer.shard == 0
    assert answer.message.method == "PATCH" and embed_of(answer) == embed


async def test_a_shard_process_refuses_an_unmigrated_postgres_database(postgres_admin_url: str) -> None:
    async with fresh_database(postgres_admin_url) as url:
        for settings in (Settings(database_url=url), Settings(database_url=url, shard_count=2, shard_ids=(1,))):
            with pytest.raises(SchemaMismatch, match=f"this bot needs {head_revision()}: run `python -m bot migrate`"):
                await prepare_database(settings)


async def test_two_shard_processes_share_the_work_and_the_database(postgres_admin_url: str, tmp_path: Path) -> None:
    async with fresh_database(postgres_admin_url) as url, running_shards(url, tmp_path) as shards:
        double = shards.double
        # Each server's interaction reaches only its own shard's process, and is answered once, from there.
        for guild in (0, 1, 0, 1):
            answer = await shards.send(guild, "roll", {"expression": "2d6+1"})
            assert answer.acknowledged and embed_of(answer)["description"].startswith("2d6 (")
            assert answer.shard == guild
            assert len(shards.answers(answer.interaction_id)) == 1

        # A character created through the process of shard 0 is read through the process of shard 1.
        created = await shards.send(0, "character create", {"ruleset": "aliensrl", "name": "Vasquez"})
        character, version = version_of(created)
        assert created.shard == 0 and version == 1
        shown = await shards.send(0, "character show", {"character": f"#{character}"}, shard=1)
        assert shown.shard == 1 and embed_of(shown)["title"] == "Vasquez"

        figures = await concurrent_edits(shards, character, EDITS)
        print(figures)  # noqa: T201 - the figure the issue asks to record; shown with pytest -s
        assert figures.by_shard == {0: EDITS // 2, 1: EDITS // 2}
        # Every acknowledged write is applied exactly once, and nothing is written without a "Saved".
        assert figures.version_after == figures.version_before + figures.acknowledged + figures.late
        assert figures.late == 0, "a write was applied after Discord's deadline, so its user saw a failure"

    assert shards.returncodes == [0, 0], shards.logs
    # Both processes identified, one Discord identify interval apart, though each was its process's first.
    identifies = [frame for frame in double.gateway_log if frame["op"] == 2]
    assert sorted(frame["d"]["shard"] for frame in identifies) == [[0, 2], [1, 2]]
    assert identifies[1]["_t"] - identifies[0]["_t"] >= IDENTIFY_INTERVAL
    # Commands were registered once, globally, by the deploy step; neither shard synced the dev server.
    assert [r.path for r in double.requests if r.method == "PUT"] == ["/applications/1100000000000000002/commands"]
    for log in shards.logs:
        assert "Not syncing the dev server" in log and "Database migrated" not in log
