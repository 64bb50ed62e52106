"""Work too heavy for the event loop, run in a worker process.

A worker thread is not enough for long CPU-bound Python: the thread holds the GIL, and the loop, which every
server shares, waits for it at every wake-up. Measured while a 2,000-roll fair log was built in a thread:
/ping from another server took 58 ms at the median and 380 ms at worst. A worker process has an interpreter
of its own. Its arguments and result are pickled, so hand it plain data (strings, bytes) rather than
megabytes of small objects, and keep it for work of a second or more: starting the process costs that.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from bot import metrics

log = logging.getLogger(__name__)

T = TypeVar("T")

_pool: ProcessPoolExecutor | None = None


def _exit_with(parent: int) -> None:
    """In the worker: exit once the bot is gone, even killed.

    The job queue never closes under the worker (it holds both ends), and a killed bot runs no exit handlers.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="parent watch", daemon=True).start()


def _executor() -> ProcessPoolExecutor:
    global _pool
    if _pool is None:
        # Started on first use, not at import; "spawn": forking a process that runs database threads is unsafe.
        # Two processes at most, started as jobs come: rare, long jobs (a fair session's log) should not make a
        # /stats wait for seconds, and more would only share the same cores.
        _pool = ProcessPoolExecutor(
            max_workers=2,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_exit_with,
            initargs=(os.getpid(),),
        )
    return _pool


async def in_process(function: Callable[..., T], /, *args: object) -> T:
    """`function(*args)` in the worker process; `function` must be importable by its module and name."""
    global _pool
    started = time.perf_counter()
    try:
        return await asyncio.get_running_loop().run_in_executor(_executor(), function, *args)
    except BrokenProcessPool:
        # The worker died (killed, out of memory): the next call starts a new one.
        log.warning("The worker process died; starting a new one for the next job")
        _pool = None
        raise
    finally:
        metrics.WORKER_SECONDS.observe(time.perf_counter() - started)


def shutdown() -> None:
    """Stop the worker process, if one was started (the interpreter also stops it at exit)."""
    global _pool
    if _pool is not None:
        _pool.shutdown(wait=False, cancel_futures=True)
        _pool = None
