"""The heaviest inputs still answer in full (issue #13 item 2): a fair session of large rolls is revealed and its
log posted, /stats reads 20,000 rolls, and the largest exact odds are worked out.

The session here has 200 rolls of 1000d10000: the same path as the largest (read the session, build the file in
the worker process, post it); a log too large for one file is split into parts in tests/cogs/test_fair_size.py.
A session of 2,000 took two minutes of a loaded run's eight, so its figures are `bench_offloop`'s.

Whether the loop stays free meanwhile (/ping from another server answered within 100 ms while each runs) is a
wall-clock figure, so it is measured, not asserted: `python -m tests.perf.bench_offloop` runs these same inputs
with the probe and prints how late the pings were.
"""

from __future__ import annotations

import pytest

from bot.db.engine import Database
from bot.local.driver import Exchange, LocalDiscord
from bot.rules.fair_log import check_log, filename, parse_log, unpack
from tests.helpers import HEAVIEST_ODDS, command_payload, large_session, many_tallies

pytestmark = pytest.mark.slow  # starts processes or runs for seconds: scheduled first (tests/conftest.py)

TIMEOUT = 180  # seconds a heavy command may take on a loaded machine before the test gives up on it
ROLLS = 200  # rolls of the session to reveal (python -m tests.perf.bench_offloop reveals 2,000)


# ---------------------------------------------------------------------------------------------------------
# /fair reveal and /fair log of a session of rolls of 1000d10000


async def test_a_session_of_large_rolls_is_revealed_and_logged(connected: LocalDiscord, database: Database) -> None:
    commitment = await large_session(connected, database, ROLLS)
    plain, gzipped = filename(commitment, compressed=False), filename(commitment, compressed=True)
    seeds: list[str] = []

    async def check(exchange: Exchange) -> None:
        assert exchange.rejected == []
        answer = exchange.messages[0]["embeds"][0]
        seed = answer["description"].split("Seed: `")[1].split("`")[0]
        assert seed and f"{ROLLS} rolls were made" in answer["description"]
        seeds.append(seed)
        # The seed went out as the first response, inside Discord's 3 s; the log followed, as one file, gzipped if
        # it must, in parts if it must still, each within the limit.
        parts = exchange.files
        assert list(parts) in ([plain], [gzipped], [f"{gzipped}.part{n}" for n in range(1, len(parts) + 1)])
        assert all(len(data) <= 10 * 1024 * 1024 for data in parts.values())
        log = parse_log(unpack(b"".join(parts.values())))
        assert (log.seed, log.last_roll, len(log.rolls)) == (seed, ROLLS, ROLLS)
        assert check_log(log, roll=1).ok  # the roll really made; the rest are its copies

    # The reveal, then `/fair log`, which does the same work again (read the session, build the file in the worker
    # process, post the parts) and gives the same seed.
    exchange = await connected.send(command_payload(connected, "fair reveal"), timeout=TIMEOUT)
    assert exchange.messages[0]["embeds"][0]["title"] == "Fair dice: seed revealed"
    await check(exchange)
    await check(await connected.send(command_payload(connected, "fair log"), timeout=TIMEOUT))
    assert len(set(seeds)) == 1


# ---------------------------------------------------------------------------------------------------------
# /stats over 20,000 rolls, and the largest exact odds of /dnd attack and /dnd odds


async def test_stats_over_20000_rolls_answers(connected: LocalDiscord, database: Database) -> None:
    await many_tallies(connected, database)

    async def check(exchange: Exchange) -> None:
        assert exchange.rejected == []
        assert "over 20000 rolls" in exchange.embed["description"].replace(",", "")
        assert list(exchange.files) == ["luck.png"]

    await check(await connected.send(command_payload(connected, "stats"), timeout=TIMEOUT))


async def test_the_largest_exact_odds_answer(connected: LocalDiscord) -> None:
    async def check(exchange: Exchange) -> None:
        assert exchange.rejected == [] and exchange.embed["title"]

    for name in ("dnd attack", "dnd odds"):
        await check(await connected.send(command_payload(connected, name, HEAVIEST_ODDS), timeout=TIMEOUT))
