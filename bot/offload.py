"""Work too heavy for the event loop, run in worker processes, shared fairly between servers and members.

A worker thread is not enough for long CPU-bound Python: the thread holds the GIL, and the loop, which every
server shares, waits for it at every wake-up. Measured while a 2,000-roll fair log was built in a thread:
/ping from another server took 58 ms at the median and 380 ms at worst. A worker process has an interpreter
of its own. Its arguments and result are pickled, so hand it plain data (strings, bytes) rather than
megabytes of small objects, and keep it for work of a second or more: starting the process costs that.

One queue for everyone let six `/fair log` calls hold another server's `/odds 3d6` for 17.9 s. So jobs wait
in a queue per member inside a queue per server, and a free worker takes the next job round-robin: from the
server after the one it served last, from that server's member after the one it served last. Another
member's job then waits for the jobs already running, not for everything queued before it. A member has a
budget of heavy jobs waiting or running (`Shares.queued_per_member`); past it a job is refused with a clear
message (`Busy`). A job that uploads what it made (a fair log) keeps its share until the upload is done, and
counts one job more for each `Shares.upload_unit` bytes; such a long job runs on one worker at most
(`Shares.long_workers`), so another stays free for everyone's short jobs. Each worker is a pool of one
process: a killed worker breaks only its own job, which runs once more on a new worker, then is answered
honestly (`WorkerStopped`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
import time
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, TypeVar

from bot import logs, metrics
from bot.errors import UserError

log = logging.getLogger(__name__)

T = TypeVar("T")

Owner = tuple[int | None, int | None]  # (server, member) a job is done for; None for the bot's own work


@dataclass(frozen=True)
class Shares:
    """How the worker processes are shared (docs/deploy.md, "Heavy work"): change the numbers here."""

    workers: int = 2  # processes at most, started as jobs come; more would only share the same two cores
    queued_per_member: int = 4  # heavy jobs (odds, charts, statistics, logs) one member may have waiting or running
    upload_unit: int = 8 * 1024 * 1024  # an upload counts one job more for each this many bytes
    retries: int = 1  # times a job whose worker died runs again on a new worker before the member is told
    long_workers: int = 1  # workers that may run long jobs (a log of an upload unit or more) at once: the rest
    # stay free for everyone's short ones, so six long logs cannot hold another server's /odds for seconds


SHARES = Shares()


class Busy(UserError):
    """A member asked for more heavy work than their share while their earlier jobs still wait or run."""

    title = "One thing at a time"

    def __init__(self, jobs: int, limit: int) -> None:
        super().__init__(
            f"You have {jobs} heavy {'job' if jobs == 1 else 'jobs'} (odds, charts, statistics or logs) queued "
            f"or running, and {limit} is the most at once. Wait for them to finish, then try again."
        )


class WorkerStopped(UserError):
    """The worker process died under a job twice (killed, out of memory): nothing was done, nothing was lost."""

    title = "The worker stopped"

    def __init__(self) -> None:
        super().__init__("The process doing this work stopped before it finished. Nothing was changed: try again.")


def _exit_with(parent: int) -> None:
    """In the worker: exit once the bot is gone, even killed.

    The job queue never closes under the worker (it holds both ends), and a killed bot runs no exit handlers.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="parent watch", daemon=True).start()


@dataclass(eq=False)
class _Job:
    owner: Owner
    function: Callable[..., Any]
    args: tuple[object, ...]
    future: asyncio.Future[Any]
    long: bool = False
    tries: int = 0


@dataclass(eq=False)
class _Worker:
    executor: ProcessPoolExecutor | None = None
    job: _Job | None = None


@dataclass(eq=False)
class Share:
    """A member's claim on the workers, open from `Pool.share` until its `async with` ends."""

    pool: Pool
    owner: Owner
    weight: int

    async def run(self, function: Callable[..., T], /, *args: object) -> T:
        """`function(*args)` in a worker process, in its turn; `function` must be importable by module and name."""
        started = time.perf_counter()
        try:
            result: T = await self.pool._submit(self.owner, function, args, long=self.weight > 1)
            return result
        finally:
            metrics.WORKER_SECONDS.observe(time.perf_counter() - started)


@dataclass(eq=False)
class Pool:
    """Worker processes and the per-server, per-member queues in front of them."""

    shares: Shares = SHARES
    _queues: dict[int | None, dict[int | None, deque[_Job]]] = field(default_factory=dict)
    _workers: list[_Worker] = field(default_factory=list)
    _jobs: Counter[int | None] = field(default_factory=Counter)  # open shares of each member
    _load: Counter[int | None] = field(default_factory=Counter)  # their weight

    def __post_init__(self) -> None:
        self._workers = [_Worker() for _ in range(self.shares.workers)]

    @contextlib.asynccontextmanager
    async def share(self, *, weight: int = 1, owner: Owner | None = None) -> AsyncIterator[Share]:
        """Claim `weight` of the member's budget for the `async with`, or refuse with `Busy` beyond it.

        `owner` defaults to the server and member of the interaction being handled (`bot.logs.enter`). A member
        with nothing under way is never refused, however heavy the job: a long session's log must stay fetchable.
        Work outside any interaction (the console's, a benchmark's) queues as nobody's, without a bound.
        """
        if owner is None:
            ids = logs.current()
            owner = (ids.get("guild"), ids.get("user"))
        member = owner[1]
        busy = self._load[member] and self._load[member] + weight > self.shares.queued_per_member
        if busy and member is not None:  # the bot's own work (no interaction) has no member to hold back
            raise Busy(self._jobs[member], self.shares.queued_per_member)
        self._jobs[member] += 1
        self._load[member] += weight
        try:
            yield Share(self, owner, weight)
        finally:
            self._jobs[member] -= 1
            self._load[member] -= weight
            if not self._jobs[member]:
                del self._jobs[member], self._load[member]

    def queued(self) -> int:
        """Jobs waiting for a worker."""
        return sum(len(jobs) for members in self._queues.values() for jobs in members.values())

    def pids(self) -> list[int]:
        """The worker processes alive now."""
        return [pid for w in self._workers if w.executor is not None for pid in (w.executor._processes or {})]

    def shutdown(self) -> None:
        """Stop the worker processes (the interpreter also stops them at exit); queued jobs are cancelled."""
        for members in self._queues.values():
            for jobs in members.values():
                for job in jobs:
                    job.future.cancel()
        self._queues.clear()
        for worker in self._workers:
            if worker.executor is not None:
                worker.executor.shutdown(wait=False, cancel_futures=True)
            if worker.job is not None:
                worker.job.future.cancel()  # its answer would come back to nobody
            worker.executor, worker.job = None, None

    async def _submit(
        self, owner: Owner, function: Callable[..., Any], args: tuple[object, ...], *, long: bool = False
    ) -> Any:
        job = _Job(owner, function, args, asyncio.get_running_loop().create_future(), long)
        self._enqueue(job, first=False)
        self._pump()
        return await job.future  # cancelled while waiting: `_next` skips it

    def _enqueue(self, job: _Job, *, first: bool) -> None:
        server, member = job.owner
        jobs = self._queues.setdefault(server, {}).setdefault(member, deque())
        if first:
            jobs.appendleft(job)
        else:
            jobs.append(job)

    def _next(self) -> _Job | None:
        """The next job round-robin: the first server in turn, its first member in turn; both go to the back.

        A member whose next job is long waits for a worker that may take one, and the others go ahead meanwhile.
        """
        long_allowed = sum(w.job is not None and w.job.long for w in self._workers) < self.shares.long_workers
        for server, members in list(self._queues.items()):
            for member, jobs in list(members.items()):
                while jobs and jobs[0].future.done():  # its caller gave up waiting
                    jobs.popleft()
                if not jobs:
                    del members[member]
                    continue
                if jobs[0].long and not long_allowed:
                    continue
                job = jobs.popleft()
                del members[member]
                if jobs:
                    members[member] = jobs
                del self._queues[server]
                if members:
                    self._queues[server] = members
                return job
            if not members:
                del self._queues[server]
        return None

    def _pump(self) -> None:
        for index, worker in enumerate(self._workers):
            if worker.job is not None:
                continue
            job = self._next()
            if job is None:
                return
            self._start(index, job)

    def _start(self, index: int, job: _Job) -> None:
        worker = self._workers[index]
        worker.job = job
        for fresh in (False, True):
            if worker.executor is None or fresh:
                self._replace(worker)
            assert worker.executor is not None
            try:
                done = worker.executor.submit(job.function, *job.args)
                break
            except BrokenProcessPool:  # the worker died between jobs: a new one takes this job, no try spent
                log.warning("A worker process had died; starting a new one")
                continue
            except RuntimeError as error:  # shut down under us
                self._finish(index, job, error=error)
                return
        else:
            self._finish(index, job, error=WorkerStopped())
            return
        loop = asyncio.get_running_loop()

        def back_on_the_loop(finished: Future[Any]) -> None:  # called in the executor's thread
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile (the bot stopped)
                loop.call_soon_threadsafe(self._finished, index, job, finished)

        done.add_done_callback(back_on_the_loop)

    def _replace(self, worker: _Worker) -> None:
        if worker.executor is not None:
            worker.executor.shutdown(wait=False, cancel_futures=True)
        # Started on first use, not at import; "spawn": forking a process that runs database threads is unsafe.
        worker.executor = ProcessPoolExecutor(
            max_workers=1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_exit_with,
            initargs=(os.getpid(),),
        )

    def _finished(self, index: int, job: _Job, done: Future[Any]) -> None:
        worker = self._workers[index]
        if worker.job is not job:
            return  # shut down meanwhile
        if done.cancelled():
            self._finish(index, job, error=WorkerStopped())
            return
        error = done.exception()
        if isinstance(error, BrokenProcessPool):
            # The worker died (killed, out of memory): only this job was on it. A new worker takes it once more.
            log.warning("A worker process died under a job (try %d); starting a new one", job.tries + 1)
            self._replace(worker)
            worker.job = None
            if job.tries < self.shares.retries:
                job.tries += 1
                self._enqueue(job, first=True)
                self._pump()
            else:
                self._finish(index, job, error=WorkerStopped())
            return
        self._finish(index, job, error=error, result=None if error else done.result())

    def _finish(self, index: int, job: _Job, *, error: BaseException | None, result: Any = None) -> None:
        self._workers[index].job = None
        if not job.future.done():
            if error is not None:
                job.future.set_exception(error)
            else:
                job.future.set_result(result)
        self._pump()


_pool: Pool | None = None


def pool() -> Pool:
    """The bot's worker pool, made on first use."""
    global _pool
    if _pool is None:
        _pool = Pool()
    return _pool


def share(*, weight: int = 1, owner: Owner | None = None) -> contextlib.AbstractAsyncContextManager[Share]:
    """A claim on the bot's workers for the interaction being handled (`Pool.share`)."""
    return pool().share(weight=weight, owner=owner)


def upload_weight(size: int) -> int:
    """The share of a job that uploads `size` bytes: one, and one more for each `Shares.upload_unit`."""
    return 1 + size // pool().shares.upload_unit


async def in_process(function: Callable[..., T], /, *args: object) -> T:
    """`function(*args)` in a worker process, in the member's turn; `function` must be importable by name."""
    async with share() as claim:
        return await claim.run(function, *args)


def shutdown() -> None:
    """Stop the worker processes, if any were started (the interpreter also stops them at exit)."""
    global _pool
    if _pool is not None:
        _pool.shutdown()
        _pool = None
