"""The worker processes shared fairly (bot/offload.py): round-robin between servers and members, a bounded share
each, and a killed worker replaced without losing anyone's queued job.

The jobs run in real worker processes; what they did is read from files they write, in the order they ran,
and they wait on a gate file the test creates: no test measures how long anything took.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot import offload
from bot.local.driver import DEFAULT_GUILD, LocalDiscord
from tests.helpers import ALICE, BOB

pytestmark = pytest.mark.slow  # starts processes or runs for seconds: scheduled first (tests/conftest.py)

SERVER, OTHER_SERVER = 1, 2
ANN, BEN, CAT = 11, 12, 13


# -- run in the worker process (importable by module and name) ------------------------------------------------
def _wait_for(path: str) -> None:
    deadline = time.monotonic() + 60
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.01)


def mark(trail: str, label: str, gate: str | None = None) -> str:
    """Wait for `gate` (if any), then append `label` to `trail`: the order jobs ran in."""
    if gate is not None:
        _wait_for(gate)
    with open(trail, "a") as file:
        file.write(label + "\n")
    return label


def pid_then_wait(pids: str, gate: str) -> str:
    """Write this worker's pid, then wait for `gate`."""
    with open(pids, "a") as file:
        file.write(f"{os.getpid()}\n")
    _wait_for(gate)
    return "done"


def die() -> None:
    """Kill this worker, as the out-of-memory killer would."""
    os.kill(os.getpid(), signal.SIGKILL)


# -- the test's side -------------------------------------------------------------------------------------------
def lines(path: str | Path) -> list[str]:
    return Path(path).read_text().split() if Path(path).exists() else []


def open_gate(path: str | Path) -> None:
    Path(path).touch()


async def until(condition: object, what: str) -> None:
    """Poll `condition` (a callable) until it holds; the worker processes are another process's clock."""
    for _ in range(6000):
        if condition():  # type: ignore[operator]
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


@pytest.fixture
async def one_worker() -> AsyncIterator[offload.Pool]:
    pool = offload.Pool(offload.Shares(workers=1, queued_per_member=20))
    yield pool
    pool.shutdown()


async def run(pool: offload.Pool, owner: offload.Owner, function: object, *args: object) -> object:
    async with pool.share(owner=owner) as share:
        return await share.run(function, *args)  # type: ignore[arg-type]


async def test_another_members_job_runs_before_the_first_members_tail(one_worker: offload.Pool, tmp_path: Path) -> None:
    trail, gate = str(tmp_path / "trail"), str(tmp_path / "gate")
    jobs = [asyncio.create_task(run(one_worker, (SERVER, ANN), mark, trail, "A0", gate))]
    jobs += [asyncio.create_task(run(one_worker, (SERVER, ANN), mark, trail, f"A{i}")) for i in range(1, 10)]
    jobs.append(asyncio.create_task(run(one_worker, (SERVER, BEN), mark, trail, "B0")))
    await until(lambda: one_worker.queued() == 10, "all but the first job queued")  # A0 holds the worker
    open_gate(gate)
    await asyncio.gather(*jobs)
    # A1 was queued before B0 arrived, so it goes first; then they alternate until Ann's tail is alone.
    assert lines(trail) == ["A0", "A1", "B0", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9"]


async def test_servers_take_turns_before_their_members_do(one_worker: offload.Pool, tmp_path: Path) -> None:
    trail, gate = str(tmp_path / "trail"), str(tmp_path / "gate")
    jobs = [asyncio.create_task(run(one_worker, (SERVER, ANN), mark, trail, "A0", gate))]
    jobs += [asyncio.create_task(run(one_worker, (SERVER, ANN), mark, trail, f"A{i}")) for i in range(1, 5)]
    jobs += [asyncio.create_task(run(one_worker, (SERVER, BEN), mark, trail, f"B{i}")) for i in range(5)]
    jobs.append(asyncio.create_task(run(one_worker, (OTHER_SERVER, CAT), mark, trail, "C0")))
    await until(lambda: one_worker.queued() == 10, "all but the first job queued")
    open_gate(gate)
    await asyncio.gather(*jobs)
    # The other server's one job waits for one job of the busy server, not for its ten.
    expected = ["A0", "A1", "C0", "B0", "A2", "B1", "A3", "B2", "A4", "B3", "B4"]
    assert lines(trail) == expected


async def test_a_job_whose_worker_is_killed_runs_again_on_a_new_one(one_worker: offload.Pool, tmp_path: Path) -> None:
    pids, gate = tmp_path / "pids", tmp_path / "gate"
    job = asyncio.create_task(run(one_worker, (SERVER, ANN), pid_then_wait, str(pids), str(gate)))
    await until(lambda: lines(pids), "the job started")
    os.kill(int(lines(pids)[0]), signal.SIGKILL)
    await until(lambda: len(lines(pids)) == 2, "the job started again")
    open_gate(gate)
    assert await job == "done"
    first, second = lines(pids)
    assert first != second


async def test_a_job_that_kills_its_worker_twice_is_answered_honestly_and_the_queue_goes_on(
    one_worker: offload.Pool, tmp_path: Path
) -> None:
    trail = str(tmp_path / "trail")
    dies = asyncio.create_task(run(one_worker, (SERVER, ANN), die))
    others = [asyncio.create_task(run(one_worker, (OTHER_SERVER, BEN), mark, trail, f"B{i}")) for i in range(3)]
    with pytest.raises(offload.WorkerStopped, match="try again"):
        await dies
    assert await asyncio.gather(*others) == ["B0", "B1", "B2"]  # nobody else's job was answered "Sorry"


async def test_a_member_past_their_share_is_refused_with_how_many_wait(local: LocalDiscord, tmp_path: Path) -> None:
    pool, trail, gate = offload.pool(), str(tmp_path / "trail"), str(tmp_path / "gate")
    limit = pool.shares.queued_per_member
    alice = (int(DEFAULT_GUILD), int(ALICE))
    held = [asyncio.create_task(run(pool, alice, mark, trail, f"A{i}", gate)) for i in range(limit)]
    await until(lambda: pool.queued() == limit - pool.shares.workers, "Alice's jobs hold every worker")
    refused = await local.command("odds", {"expression": "3d6"})
    assert refused.ephemeral
    assert refused.embed["title"] == "One thing at a time"
    assert f"You have {limit} heavy jobs" in refused.embed["description"]
    assert "Wait for them to finish" in refused.embed["description"]
    async with pool.share(owner=(int(DEFAULT_GUILD), int(BOB))):
        pass  # Bob's share is his own
    open_gate(gate)
    await asyncio.gather(*held)
    answered = await local.command("odds", {"expression": "3d6"})
    assert answered.embed["title"] == "Odds of 3d6"  # her jobs done, her share is free again


async def test_the_next_odds_answer_after_the_worker_was_killed(local: LocalDiscord) -> None:
    assert (await local.command("odds", {"expression": "3d6"})).embed["title"] == "Odds of 3d6"
    killed = offload.pool().pids()
    assert killed
    for pid in killed:
        os.kill(pid, signal.SIGKILL)
    again = await local.command("odds", {"expression": "3d6"})
    assert again.embed["title"] == "Odds of 3d6"  # on a new worker: the old ones are dead


async def test_long_jobs_leave_a_worker_to_everyone_elses_short_ones(tmp_path: Path) -> None:
    pool = offload.Pool(offload.Shares(workers=2, queued_per_member=20, long_workers=1))
    trail, gate = str(tmp_path / "trail"), str(tmp_path / "gate")

    async def long_log(owner: offload.Owner, label: str) -> object:
        async with pool.share(owner=owner, weight=3) as share:  # a log of three upload units
            return await share.run(mark, trail, label, gate)

    try:
        logs = [asyncio.create_task(long_log((SERVER, member), f"L{member}")) for member in (ANN, BEN)]
        await until(lambda: pool.queued() == 1, "one long log runs, the other waits though a worker is free")
        short = await run(pool, (OTHER_SERVER, CAT), mark, trail, "C0")
        assert short == "C0"
        assert lines(trail) == ["C0"]  # the first log still waits at its gate; the second never started
        open_gate(gate)
        await asyncio.gather(*logs)
        assert lines(trail)[1:] == [f"L{ANN}", f"L{BEN}"]
    finally:
        pool.shutdown()
