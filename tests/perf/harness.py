"""The whole bot as a process under load: `python -m bot` connected to the local double over the gateway.

What the benchmarks of the process share: a double that keeps only what a load run needs, the bot process
(its resident memory read from /proc), seeding users with characters, and sending interactions in a burst,
at a pace, in a bounded window or one after another. Latency is measured as the double sees it: from the
moment an INTERACTION_CREATE is handed to the gateway to the moment its interaction callback arrives.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
import statistics
import sys
import time
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.db.characters import CharacterRepository
from bot.db.engine import open_database
from bot.db.migrate import upgrade
from bot.local.double import DEFERRED_MESSAGE, Captured, DiscordDouble
from bot.local.driver import DEFAULT_CHANNEL, DEFAULT_GUILD
from bot.local.payloads import APPLICATION_COMMAND, Actor, Snowflakes, command_data, interaction, user_object
from bot.rules import rulesets
from bot.rules.sheets.dnd35 import DndSheet

ROOT = Path(__file__).resolve().parents[2]
GUILD, CHANNEL = DEFAULT_GUILD, DEFAULT_CHANNEL
FIRST_USER = 200000000000000001
DEADLINE = 3.0

ATTACK = ("dnd attack", {"target_ac": 18, "weapon": "Greatsword"})
QUICK_ATTACK = ("dnd attack", {"attack_bonus": 9, "damage": "2d6+4", "target_ac": 18})  # no character: bench_peer's
PING: tuple[str, dict[str, Any]] = ("ping", {})
ROLL = ("roll", {"expression": "4d6kh3+1d20"})
HISTORY = ("history", {"count": 10})


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


class LoadDouble(DiscordDouble):
    """The double, remembering of each interaction only when its first response came and with what status.

    The plain double keeps every request and message for tests to read; over 50,000 interactions that would
    be the benchmark's own memory growing, and its condition checks would cost more than the bot's work.
    """

    def __init__(self) -> None:
        super().__init__(guilds=[(GUILD, CHANNEL)], ids=Snowflakes())
        self.answered: dict[str, tuple[float, int]] = {}
        self.deferred: set[str] = set()  # interactions whose first response was "thinking…"
        self.followed: dict[str, float] = {}  # deferred interactions whose answer came, by interaction token
        self.order: list[str] = []  # interactions in the order their first response arrived
        self._waiting: dict[str, asyncio.Future[None]] = {}

    async def _record(self, captured: Captured, status: int) -> None:
        parts = captured.path.split("/")
        if len(parts) == 5 and parts[1] == "interactions" and parts[4] == "callback":
            captured.status = status
            if parts[2] not in self.answered:
                self.order.append(parts[2])
                self.answered[parts[2]] = (captured.at, status)
                if 200 <= status < 300 and (captured.body or {}).get("type") == DEFERRED_MESSAGE:
                    self.deferred.add(parts[2])
            waiter = self._waiting.pop(parts[2], None)
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
            return
        if parts[1] == "webhooks" and len(parts) >= 4 and captured.method in ("POST", "PATCH") and 200 <= status < 300:
            self.followed.setdefault(parts[3], captured.at)  # the answer after a defer: a followup or an edit
            return
        await super()._record(captured, status)

    def sent_at(self, iid: str) -> float:
        return self._issued[iid].t0

    def forget(self) -> None:
        """Drop what earlier runs left: answers, messages, issued tokens."""
        self.answered.clear()
        self.deferred.clear()
        self.followed.clear()
        self.order.clear()
        self.messages.clear()
        self._issued.clear()
        self._by_token.clear()
        self.requests.clear()

    async def send_and_wait(self, payload: dict[str, Any], timeout: float = 10.0) -> None:
        waiter = self._waiting[payload["id"]] = asyncio.get_running_loop().create_future()
        await self.dispatch("INTERACTION_CREATE", payload)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(waiter, timeout)
        self._waiting.pop(payload["id"], None)


def actor(index: int) -> Actor:
    return Actor(user_id=str(FIRST_USER + index), guild_id=GUILD, channel_id=CHANNEL)


def one(double: DiscordDouble, command: tuple[str, dict[str, Any]], user: int) -> dict[str, Any]:
    """An interaction of `command` (name, options) from the user numbered `user`."""
    name, options = command
    raw = [{"name": k, "type": 4 if isinstance(v, int) else 3, "value": v} for k, v in options.items()]
    return interaction(double.ids, actor(user), APPLICATION_COMMAND, command_data(name, raw))


def payloads(double: DiscordDouble, command: tuple[str, dict[str, Any]], count: int, users: int) -> list[dict]:
    """`count` interactions of one command, from `users` users in turn; built before any clock starts."""
    return [one(double, command, i % users) for i in range(count)]


def history_of(double: DiscordDouble, user: int, asker: int) -> dict[str, Any]:
    """`/history user:<user> count:10`, asked by another user."""
    uid = str(FIRST_USER + user)
    options = [{"name": "user", "type": 6, "value": uid}, {"name": "count", "type": 4, "value": 10}]
    data = command_data("history", options, resolved={"users": {uid: user_object(uid)}})
    return interaction(double.ids, actor(asker), APPLICATION_COMMAND, data)


async def seed_users(database_url: str, users: int) -> None:
    """Each user gets one D&D 3.5 fighter, active, through the repository layer the commands use."""
    database = open_database(database_url)
    await upgrade(database)
    fighter = DndSheet(strength=16, dexterity=12, bab=6, weapon_groups=["simple", "martial"])
    rules = rulesets.get("dnd35")
    stamp = datetime.now(UTC)
    async with database.write.begin() as session:
        repository = CharacterRepository(session)
        for i in range(users):
            user = FIRST_USER + i
            record = await repository.create(
                guild_id=int(GUILD), owner_id=user, rules=rules, name=f"Fighter {i}", sheet=fighter, now=stamp
            )
            await repository.set_active(record, user_id=user)
    await database.dispose()


class BotProcess:
    """`python -m bot` with the double as its Discord, its log in a file, its memory read from /proc."""

    def __init__(self, double: LoadDouble, database_url: str, folder: Path, argv: list[str] | None = None) -> None:
        self.double = double
        self.argv = argv or [sys.executable, "-m", "bot"]  # or another bot, such as the minimal peer's
        self.database_url = database_url
        self.folder = folder
        self.process: asyncio.subprocess.Process | None = None
        self.log_path = folder / "bot.log"

    async def start(self, extra_env: dict[str, str] | None = None) -> None:
        env = {
            **os.environ,
            "DISCORD_TOKEN": self.double.token,
            "DISCORD_API_BASE": self.double.api_base,
            "DISCORD_GATEWAY_URL": self.double.gateway_url,
            "DATABASE_URL": self.database_url,
            "LOG_LEVEL": "WARNING",
            # The per-user rate limit would refuse most of a burst from 200 users; that is not what is measured.
            "RATE_LIMIT": "0",
            # This checkout's code, whichever checkout the virtual environment was installed from.
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
            **(extra_env or {}),
        }
        env.pop("DEV_GUILD_ID", None)
        self.double.identified.clear()
        with self.log_path.open("ab") as log:
            # BENCH_WRAP runs the bot under a profiler, e.g. "py-spy record -o /tmp/bot.svg --" (its own venv's).
            wrap = os.environ.get("BENCH_WRAP", "").split()
            self.process = await asyncio.create_subprocess_exec(
                *wrap, *self.argv, env=env, cwd=self.folder, stdout=log, stderr=log
            )
        await asyncio.wait_for(self.double.identified.wait(), 120)
        # The gateway delivers in order: once a /ping is answered, READY and GUILD_CREATE were handled.
        [probe] = payloads(self.double, PING, 1, 1)
        await self.double.send_and_wait(probe, timeout=30)
        if probe["id"] not in self.double.answered:
            raise RuntimeError(f"the bot did not answer /ping; its log: {self.log_tail()}")

    def rss_kib(self) -> int:
        assert self.process is not None
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def cpu_seconds(self) -> float:
        """User and system CPU time the bot process has used so far, all its threads."""
        assert self.process is not None
        return _cpu_seconds(Path(f"/proc/{self.process.pid}/stat"))

    def loop_cpu_seconds(self) -> float:
        """The CPU time of the bot's main thread, which runs its event loop: one core is all it can have, so what a
        command costs it bounds how many a second a burst is answered (the database threads' share is apart)."""
        assert self.process is not None
        pid = self.process.pid
        return _cpu_seconds(Path(f"/proc/{pid}/task/{pid}/stat"))

    def log_tail(self, size: int = 3000) -> str:
        return self.log_path.read_text(errors="replace")[-size:]

    def _bot_pids(self) -> list[int]:
        assert self.process is not None
        pid = self.process.pid
        if not os.environ.get("BENCH_WRAP"):
            return [pid]
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        return [int(c) for c in children] or [pid]

    async def stop(self) -> None:
        if self.process is None or self.process.returncode is not None:
            return
        # Under BENCH_WRAP the bot is the profiler's child: stop the bot, and the profiler writes its report.
        for target in self._bot_pids():
            os.kill(target, signal.SIGTERM)
        try:
            await asyncio.wait_for(self.process.wait(), 30)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()


def _cpu_seconds(stat: Path) -> float:
    """User and system CPU time from a /proc stat file (of a process, or of one of its threads)."""
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.asynccontextmanager
async def running_bot(
    double: LoadDouble, database_url: str, folder: Path, argv: list[str] | None = None
) -> AsyncIterator[BotProcess]:
    bot = BotProcess(double, database_url, folder, argv)
    try:
        await bot.start()
        yield bot
    finally:
        await bot.stop()


@dataclass
class LoadResult:
    """What a run of `sent` interactions came to."""

    sent: int
    answered: int  # a first response arrived in time (2xx)
    late: int  # a first response arrived after the 3-second deadline (the double refused it, as Discord does)
    lost: int  # no first response at all
    seconds: float  # from the first dispatch to the last response
    latencies_ms: list[float]
    deferred: int = 0  # acknowledged in time with "thinking…", to be answered by a followup
    unfollowed: int = 0  # deferred, and the answer never came: lost as surely as no response
    out_of_order: int = 0  # first responses that arrived before that of an interaction sent earlier
    answer_ms: list[float] | None = None  # until the answer itself: the first response, or the followup after a defer
    final: int = 0  # interactions whose final answer (what the user reads, not "thinking…") arrived, late ones too
    final_seconds: float = 0.0  # from the first dispatch to the last final answer

    @property
    def throughput(self) -> float:
        """First responses per second, late ones included; a "thinking…" counts, so this is not what users see."""
        return (self.answered + self.late) / self.seconds if self.seconds > 0 else 0.0

    @property
    def final_throughput(self) -> float:
        """Final answers per second: a deferred interaction counts once its followup came, not at its "thinking…"."""
        return self.final / self.final_seconds if self.final_seconds > 0 else 0.0

    def figures(self) -> dict[str, float]:
        ms = self.latencies_ms
        return {
            "sent": self.sent,
            "answered": self.answered,
            "late": self.late,
            "lost": self.lost,
            "deferred": self.deferred,
            "unfollowed": self.unfollowed,
            "out_of_order": self.out_of_order,
            "throughput_per_s": round(self.throughput, 1),
            "final": self.final,
            "final_per_s": round(self.final_throughput, 1),
            "p50_ms": round(statistics.median(ms), 2) if ms else float("nan"),
            "p99_ms": round(percentile(ms, 0.99), 2),
            "max_ms": round(max(ms), 2) if ms else float("nan"),
            "answer_p50_ms": round(statistics.median(self.answer_ms), 2) if self.answer_ms else float("nan"),
            "answer_p99_ms": round(percentile(self.answer_ms or [], 0.99), 2),
        }


def _result(double: LoadDouble, sent: list[dict[str, Any]], started: float) -> LoadResult:
    latencies, answered, late, last = [], 0, 0, started
    for payload in sent:
        answer = double.answered.get(payload["id"])
        if answer is None:
            continue
        at, status = answer
        latencies.append((at - double.sent_at(payload["id"])) * 1000)
        last = max(last, at)
        if 200 <= status < 300:
            answered += 1
        else:
            late += 1
    lost = len(sent) - answered - late
    deferred = [p for p in sent if p["id"] in double.deferred]
    unfollowed = sum(p["token"] not in double.followed for p in deferred)
    rank = {payload["id"]: i for i, payload in enumerate(sent)}
    arrived = [rank[iid] for iid in double.order if iid in rank]
    # When each final answer came: the first response, or the followup that replaced "thinking…". A late one
    # counts, as in `throughput`: it is the bot's capacity, and its wait belongs in the p99 (lateness is apart).
    finals = [
        (double.followed[p["token"]] if p["id"] in double.deferred else double.answered[p["id"]][0], p["id"])
        for p in sent
        if p["id"] in double.answered and (p["id"] not in double.deferred or p["token"] in double.followed)
    ]
    answers = [(at - double.sent_at(iid)) * 1000 for at, iid in finals]
    final_seconds = max((at for at, _ in finals), default=started) - started
    out_of_order, latest = 0, -1
    for position in arrived:  # each first response that an interaction sent later had already overtaken
        out_of_order += position < latest
        latest = max(latest, position)
    return LoadResult(
        len(sent),
        answered,
        late,
        lost,
        last - started,
        latencies,
        len(deferred),
        unfollowed,
        out_of_order,
        answers,
        len(finals),
        final_seconds,
    )


async def _drain(double: LoadDouble, sent: list[dict[str, Any]], grace: float) -> None:
    """Wait until every interaction has a response, or until none came for `grace` seconds (the rest are lost).

    A backlog may take far longer than the deadline to clear; what still gets a (late) response is not lost.
    """
    progress, last_change = -1, time.monotonic()
    while time.monotonic() - last_change < grace:
        answered = sum(p["id"] in double.answered for p in sent)
        followed = sum(p["token"] in double.followed for p in sent if p["id"] in double.deferred)
        done = answered + followed
        if answered == len(sent) and followed == len(double.deferred.intersection(p["id"] for p in sent)):
            return
        if done != progress:
            progress, last_change = done, time.monotonic()
        await asyncio.sleep(0.05)


async def run_load(double: LoadDouble, sent: list[dict[str, Any]], *, rate: float | None) -> LoadResult:
    """Send every payload as fast as the gateway takes them (`rate=None`) or at `rate` per second.

    The double's own cycle collector waits until the run is over: this process keeps every request it recorded, and
    while 8,000 commands were paced its full passes held its loop for up to 93-124 ms each, time that a request and
    an answer waiting meanwhile would count as the bot's (the bot's own collections over that span: 0.6 and 1.2 ms).
    """
    double.forget()
    gc.collect()
    gc.disable()
    try:
        started = time.monotonic()
        for i, payload in enumerate(sent):
            if rate is not None:
                delay = started + i / rate - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
            elif i % 50 == 49:
                await asyncio.sleep(0)  # let the double read the answers that already arrive
            await double.dispatch("INTERACTION_CREATE", payload)
        await _drain(double, sent, DEADLINE + 10)
    finally:
        gc.enable()
    return _result(double, sent, started)


async def run_window(double: LoadDouble, sent: Iterable[dict[str, Any]], window: int) -> int:
    """Send with at most `window` unanswered at any time; returns how many got no answer at all."""
    double.forget()
    pending: list[dict[str, Any]] = []
    for count, payload in enumerate(sent, 1):
        while True:
            pending = [p for p in pending if p["id"] not in double.answered]
            if len(pending) < window:
                break
            await asyncio.sleep(0.001)
        await double.dispatch("INTERACTION_CREATE", payload)
        pending.append(payload)
        if count % 5000 == 0:
            await asyncio.sleep(0.05)
            pending = [p for p in pending if p["id"] not in double.answered]
            double.forget()  # keeps the benchmark's own memory flat; `pending` holds what is still open
    await _drain(double, pending, DEADLINE + 10)
    return sum(p["id"] not in double.answered for p in pending)


async def run_sequential(double: LoadDouble, sent: list[dict[str, Any]]) -> LoadResult:
    """One after another: each is sent when the one before it was answered."""
    double.forget()
    started = time.monotonic()
    for payload in sent:
        await double.send_and_wait(payload)
    return _result(double, sent, started)
