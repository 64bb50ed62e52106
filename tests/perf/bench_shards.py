"""Two shard processes on one PostgreSQL: 100 concurrent `/character set` of one character, split between them.

    .venv/bin/python -m tests.perf.bench_shards [--edits 100]

Starts a throwaway PostgreSQL (pgserver) and the local double, deploys as compose.yaml does (`migrate`,
`sync`), runs `python -m bot` twice as shards 0 and 1 of 2, creates a character through shard 0 and sends
the edits at once, every other one to the other process. Prints how many were acknowledged, refused or
answered after Discord's 3-second deadline, the character's version before and after (it must have grown
by exactly the acknowledged count), and how long all the answers took. Not a timed test; machines differ.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from tests.shards import concurrent_edits, fresh_database, postgres_server, running_shards, version_of


async def main(admin_url: str, edits: int) -> None:
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        async with fresh_database(admin_url) as url, running_shards(url, Path(folder)) as shards:
            print(f"deployed and both shards connected in {time.monotonic() - started:.1f} s")
            created = await shards.send(0, "character create", {"ruleset": "aliensrl", "name": "Vasquez"})
            character, _ = version_of(created)
            figures = await concurrent_edits(shards, character, edits)
        identifies = [frame["_t"] for frame in shards.double.gateway_log if frame["op"] == 2]
    print(f"IDENTIFY of shard 1 came {identifies[1] - identifies[0]:.2f} s after shard 0's")
    print(figures)
    lost = figures.version_after - figures.version_before - figures.acknowledged - figures.late
    print(f"  writes lost: {-lost if lost < 0 else 0}, written without an answer: {figures.late}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edits", type=int, default=100)
    args = parser.parse_args()
    with postgres_server() as admin:
        asyncio.run(main(admin, args.edits))
