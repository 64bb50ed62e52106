"""The load harness counts what users see (tests/perf/harness.py): a smoke test, at tiny sizes, with no times.

An interaction is answered when its final answer arrives: the first response if it is not "thinking…", else
the followup that replaces it. The figures themselves are `python -m tests.perf`'s, never a test's.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bot.local.double import CHANNEL_MESSAGE, DEFERRED_MESSAGE, Captured
from bot.local.payloads import APPLICATION_ID
from tests.perf.harness import PING, ROLL, LoadDouble, _result, payloads, run_load, running_bot, seed_users

pytestmark = pytest.mark.slow  # starts processes or runs for seconds: scheduled first (tests/conftest.py)


async def callback(double: LoadDouble, payload: dict[str, object], kind: int) -> None:
    path = f"/interactions/{payload['id']}/{payload['token']}/callback"
    await double._record(Captured("POST", path, {}, {"type": kind}, {}), 204)


async def followup(double: LoadDouble, payload: dict[str, object]) -> None:
    await double._record(Captured("POST", f"/webhooks/{APPLICATION_ID}/{payload['token']}", {}, {}, {}), 200)


async def test_a_deferred_interaction_counts_once_its_followup_arrives() -> None:
    double = LoadDouble()
    at_once, deferred = sent = payloads(double, PING, 2, 1)
    started = time.monotonic()
    for payload in sent:
        double.track(payload)
    await callback(double, at_once, CHANNEL_MESSAGE)
    await callback(double, deferred, DEFERRED_MESSAGE)
    thinking = _result(double, sent, started)
    assert (thinking.answered, thinking.deferred, thinking.unfollowed) == (2, 1, 1)  # two first responses...
    assert thinking.final == 1  # ...but only one answer a user can read
    assert len(thinking.answer_ms or []) == 1
    await followup(double, deferred)
    followed = _result(double, sent, started)
    assert (followed.final, followed.unfollowed, len(followed.answer_ms or [])) == (2, 0, 2)
    assert followed.figures()["final"] == 2


async def test_a_tiny_run_of_the_bot_process_counts_every_final_answer(tmp_path: Path) -> None:
    database_url = f"sqlite+aiosqlite:///{tmp_path / 'bench.db'}"
    await seed_users(database_url, 3)
    async with LoadDouble() as double, running_bot(double, database_url, tmp_path):
        for command in (PING, ROLL):
            result = await run_load(double, payloads(double, command, 6, 3), rate=None)
            assert (result.lost, result.late, result.unfollowed) == (0, 0, 0)
            assert result.final == 6
            assert result.figures()["final_per_s"] > 0
