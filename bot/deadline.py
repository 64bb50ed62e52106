"""Answering inside Discord's 3-second window when the work takes longer (a slow database, say).

Discord drops an interaction that gets no first response within 3 seconds and shows the user a failure.
Each slash command therefore runs with a watchdog: if it has not answered after `DEFER_AFTER` seconds, the
watchdog defers ("Bot is thinking…"), which gives the command 15 minutes. The command does not need to
know: its `interaction.response.send_message` then goes out as the followup that replaces the thinking
message (or, when the answer is ephemeral and the thinking was not, as an ephemeral followup after the
thinking message is deleted). A lock keeps the watchdog and the answer from racing each other.

Under overload the same defer comes sooner (`Admission`): commands run at most `WORKERS` at a time, started
in the order they arrived, and one that reached the bot late because the event loop was backed up, that came in
a burst of `BURST` or more, or that would queue longer than `WAIT_BUDGET` at the pace the queue has been going,
is deferred at once. One that queues within the budget waits undeferred, as its answer then needs one request
where a defer and a followup need two; should its turn not come by `BACKED_UP` after arriving (the pace was
wrong), it is deferred then, 2.5 seconds before Discord's window closes. Acknowledging costs one request; the
work can wait for its turn, the acknowledgement cannot. The watchdog's clock starts when the interaction
arrives, not when its command starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from bot import metrics

if TYPE_CHECKING:  # bot.client imports this module: the bot type only for the checker
    from bot.client import DiceBot

log = logging.getLogger(__name__)

DEFER_AFTER = 2.0  # seconds: a second of margin before Discord's 3 for the defer to arrive
ALREADY_ACKNOWLEDGED = 40060  # Discord's code for a second initial response
UNKNOWN_INTERACTION = 10062  # Discord's code for an interaction it has dropped (no first response in 3 s)
DISCORD_DEADLINE = 3.0  # seconds Discord waits for a first response before it drops the interaction
FORM_COMMAND = "opens_form"  # extras key of a command whose first answer may be a form: forms cannot follow a defer
INSTANT = "instant"  # extras key of a command that answers from memory at once: it never queues behind work
WORKERS = 32  # commands doing their work at once; the rest queue in arrival order, deferred
# Defers of queued commands on their way to Discord at once, sent in arrival order. A burst's defers wait for a
# place here one after another, and each holds its place for Discord's round trip, so this bounds how many a second
# go out: at 100 ms a request, 32 defer 320 a second, and a 2,000-roll burst had 1,123 deferred after Discord's 3
# seconds; with 128, none (`python -m tests.perf --latency 0.1`). A deferred command's answer also waits for its
# defer: 128 at 100 ms defer 2,000 in 1.6 s, and such a burst was answered at 746-922 rolls a second; 256 defer
# them in 0.8 s, 1,118-1,187 a second (at 50 ms: 1,065-1,159 and 1,255-1,283; with no round trip 4% fewer).
# Each place may hold a connection to Discord of its own: a new TLS connection cost 0.8 ms of CPU here, a request
# on a kept one 0.1 ms.
ACKNOWLEDGERS = 256
BACKED_UP = 0.5  # seconds between arriving and starting that mean the loop is behind: defer at once
WAIT_BUDGET = 0.25  # seconds a command may be expected to queue for a slot and still answer without a defer
# Commands queued undeferred at once: should the pace be wrong, each needs its defer in the 2.5 s left, 256 on
# their way at a time (`ACKNOWLEDGERS`); at 100 ms a request, 64 take 0.1 s.
UNDEFERRED = 64
# Commands arrived and not yet come to the admission (queued or started) that mean a burst: one starting now
# would share the loop with all of their acknowledgements and could answer after Discord's window, so it is
# deferred at once too. Before this, the first 32 of a 200-roll burst on a starved machine answered, or were
# deferred by their watchdog, after 3 s.
BURST = 64
PACE_WEIGHT = 0.2  # of the newest gap between two answers given while commands queued, in the pace kept


@dataclass(frozen=True, slots=True)
class Followed:
    """What `send_message` returns once the answer went out as a followup: the message it made."""

    message_id: int


class PatientResponse(discord.InteractionResponse[Any]):
    """An interaction's response that a watchdog may defer; an answer after that goes out as the followup."""

    def __init__(self, parent: discord.Interaction[DiceBot]) -> None:
        super().__init__(parent)
        self.lock = asyncio.Lock()
        self.deferred_ephemeral: bool | None = None  # set when the watchdog deferred
        self.attempted = False  # an initial response has been sent (whether or not its answer came back)
        self.followed = False  # the thinking message has been replaced by an answer
        self.watchdog: asyncio.TimerHandle | None = None
        self.deferring: asyncio.Task[None] | None = None
        self.answered: Callable[[], None] | None = None  # called as the answer goes out (frees a worker)
        self.dropped = False  # Discord refused the defer as too late: nobody is waiting for an answer any more

    async def defer_if_silent(self) -> None:
        """The watchdog: defer, unless the command has answered meanwhile."""
        async with self.lock:
            if self.is_done():
                return
            ephemeral = bool(getattr(self._parent.namespace, "private", False))
            first = not self.attempted
            self.attempted = True
            try:
                await super().defer(thinking=True, ephemeral=ephemeral)
            except discord.HTTPException as error:
                if first and error.code == UNKNOWN_INTERACTION:
                    self.dropped = True
                    log.warning("/%s was deferred too late: Discord had dropped it", self._command_name)
                    return
                if not first or error.code != ALREADY_ACKNOWLEDGED:
                    log.warning("Could not defer a slow interaction", exc_info=True)
                    return
                # As in `_first_answer`: the defer landed, only Discord's reply to it was lost.
                self._response_type = discord.InteractionResponseType.deferred_channel_message
            self.deferred_ephemeral = ephemeral
            metrics.DEFERRALS.inc()
            log.info("Deferred /%s: it is slow or waits for its turn", self._command_name)

    def defer_now(self) -> None:
        """Fire the watchdog now (the answer, when it comes, waits for the defer under the lock)."""
        if self.watchdog is not None:
            self.watchdog.cancel()
        if self.deferring is None:
            self.deferring = asyncio.get_running_loop().create_task(self.defer_if_silent())

    async def send_message(self, *args: Any, ephemeral: bool = False, **kwargs: Any) -> Any:
        """Answer; after the watchdog's defer, as the followup that replaces the thinking message."""
        if self.watchdog is not None:
            self.watchdog.cancel()
        if self.answered is not None:
            self.answered()  # the work is done: what is left is Discord's round trip, which is waiting
        async with self.lock:
            if self.deferred_ephemeral is None:
                return await self._first_answer(*args, ephemeral=ephemeral, **kwargs)
            if ephemeral and not self.deferred_ephemeral and not self.followed:
                # A public "thinking…" cannot turn private: remove it and answer privately.
                await self._parent.delete_original_response()
            kwargs.pop("delete_after", None)
            sent = await self._parent.followup.send(*args, ephemeral=ephemeral, wait=True, **kwargs)
            self.followed = True
            return Followed(sent.id)

    async def _first_answer(self, *args: Any, **kwargs: Any) -> Any:
        """The initial response, which may have landed although its answer was lost.

        On a 5xx discord.py sends the callback again; if Discord had taken the first one (the error came from
        a proxy after it), the repeat is refused with 40060. Nothing else has answered this interaction, so
        that answer is ours: carry on with the message it made instead of failing a command that succeeded.
        """
        first = not self.attempted
        self.attempted = True
        try:
            return await super().send_message(*args, **kwargs)
        except discord.HTTPException as error:
            if not first or error.code != ALREADY_ACKNOWLEDGED:
                raise
        self._response_type = discord.InteractionResponseType.channel_message
        original = await self._parent.original_response()
        log.warning("The answer to /%s arrived although Discord's reply to it was lost", self._command_name)
        return Followed(original.id)

    @property
    def _command_name(self) -> str:
        return getattr(self._parent.command, "name", "?")

    @property
    def deferred(self) -> bool:
        """Whether the watchdog deferred this interaction."""
        return self.deferred_ephemeral is not None


def watch(interaction: discord.Interaction[DiceBot], after: float = DEFER_AFTER) -> PatientResponse | None:
    """Give a slash command's interaction the watchdog (before anything has answered it); None for a form's."""
    command = interaction.command
    if interaction.type is not discord.InteractionType.application_command or command is None:
        return None
    if command.extras.get(FORM_COMMAND):
        return None
    response = PatientResponse(interaction)
    # discord.py builds `interaction.response` lazily into this slot; filling it first swaps in ours.
    interaction._cs_response = response  # type: ignore[attr-defined]
    response.watchdog = asyncio.get_running_loop().call_later(after, response.defer_now)
    return response


def unwatch(interaction: discord.Interaction[DiceBot]) -> None:
    """Once its command is done: the interaction no longer refers to its response, nor to its answer's message.

    Each of them refers back to the interaction, and each such reference cycle, with all it holds (the member, the
    options, the answer), waited for Python's cycle collector, a collection every hundred or so commands
    (`bot.heap`); now reference counting frees them when the command is done. Whatever still needs the response
    (a defer on its way) holds it, and through it the interaction.
    """
    interaction._original_response = None
    with contextlib.suppress(AttributeError):  # discord.py's cache of `interaction.response`, if it was made
        del interaction._cs_response  # type: ignore[attr-defined]


class Admission:
    """Slash commands do their work at most `workers` at a time, in arrival order; the rest are deferred.

    A command is deferred at once when it started `backed_up` seconds or more after it arrived (the loop itself
    is behind), or when `burst` commands or more have arrived and not yet come to `enter` (the loop is about to
    be), or when it would queue and its turn is not expected within `wait_budget` (`expected_wait`: at the pace
    at which commands have been answered while others queued; not known yet, not expected), or when `undeferred`
    commands already queue undeferred (should the pace be wrong, their defers must fit). One queued undeferred
    is deferred once `backed_up` seconds have passed since it arrived and its turn has not come (in
    arrival order with the others' defers); otherwise its watchdog defers it `defer_after` seconds after arrival.
    A command that may answer with a form cannot be deferred, and neither waits nor is deferred; nor does an
    `INSTANT` one, whose whole work costs less than a defer. A command frees its place as its answer goes out, or
    when it ends: Discord's round trip, and what follows it such as noting the answer's message, are waiting, not
    work (held through a round trip of 100 ms, 32 places answered at most 320 commands a second).

    Acknowledgements go first: a command starts its work only once the defers of the commands that arrived before
    it came to its turn have gone out, those sent while it waited included (a burst's all go out before any of its
    work: 0.13-0.24 s for 200, where its first 32 at work among them had held the last defers to 1.0 s).
    asyncio gives every ready task a turn in each pass, so without this every defer's few steps would each wait
    for the busy commands' work, and a burst's acknowledgements would come after Discord's 3 seconds.
    """

    def __init__(
        self,
        workers: int = WORKERS,
        backed_up: float = BACKED_UP,
        wait_budget: float = WAIT_BUDGET,
        undeferred: int = UNDEFERRED,
        burst: int = BURST,
    ) -> None:
        self.workers = workers
        self.burst = burst
        self.backed_up = backed_up
        self.wait_budget = wait_budget
        self.undeferred = undeferred  # at most this many queued undeferred at once
        self.waiting_undeferred = 0
        # Made in the running loop, on first use.
        self._slots: asyncio.Semaphore | None = None
        self._acknowledgers: asyncio.Semaphore | None = None
        # Defers on their way, each with when its command arrived, earliest first (a heap: one that is through
        # leaves once it comes to the top), and the order they were sent in among equal arrivals.
        self._deferring: list[tuple[float, int, asyncio.Task[None]]] = []
        self._sent = itertools.count()
        self.queued = 0  # commands waiting for a slot
        self.pace: float | None = None  # seconds between two answers while commands queued (a moving average)
        self._last_answer: float | None = None  # the last answer given while commands queued

    def expected_wait(self, ahead: int) -> float | None:
        """How long a command with `ahead` commands queued before it is expected to wait; None when not known."""
        return None if self.pace is None else (ahead + 1) * self.pace

    def _answered(self, now: float) -> None:
        """A slot was freed: the gap since the one before is the queue's pace if commands queued all along.

        A gap that began with nobody queued is not a pace: it would count a quiet minute as a slow queue.
        """
        if not self.queued:
            self._last_answer = None
            return
        if self._last_answer is not None:
            gap = now - self._last_answer
            self.pace = gap if self.pace is None else self.pace + PACE_WEIGHT * (gap - self.pace)
        self._last_answer = now

    async def enter(
        self, interaction: discord.Interaction[DiceBot], *, arrived: float, defer_after: float, pending: int = 0
    ) -> bool:
        """Wait for this command's turn (its task holds a slot until it answers); defer first if it must wait.

        `pending`: how many other commands have arrived and not yet come this far (not yet queued for a slot).

        False when Discord has dropped the interaction meanwhile: its work would be seen by nobody, and doing it
        anyway would make the interactions behind it late too.
        """
        loop = asyncio.get_running_loop()
        now = loop.time()
        if now - arrived >= DISCORD_DEADLINE:
            log.warning("Dropped /%s: it waited %.1f s for the bot to start it", _name(interaction), now - arrived)
            interaction.extras["outcome"] = "dropped"
            return False
        response = watch(interaction, max(0.0, arrived + defer_after - now))
        task = asyncio.current_task()
        command = interaction.command
        if response is None or task is None or (command is not None and command.extras.get(INSTANT)):
            return True
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.workers)
            self._acknowledgers = asyncio.Semaphore(ACKNOWLEDGERS)
        slots = self._slots
        queued_undeferred = False
        if now - arrived >= self.backed_up or pending >= self.burst:
            self._defer(response, arrived)
        elif slots.locked():
            expected = self.expected_wait(self.queued)
            if (
                expected is None
                or now - arrived + expected > self.wait_budget
                or self.waiting_undeferred >= self.undeferred
            ):
                self._defer(response, arrived)
            else:
                queued_undeferred = True
                self.waiting_undeferred += 1
        late: asyncio.TimerHandle | None = None

        def deferred_if_late() -> None:
            """Before a wait: undeferred, defer once `backed_up` has passed since it arrived.

            Whether it waits for a slot or for the defers ahead: its watchdog would wait `defer_after`, later still if
            the loop is behind. Not at once: at Discord's round trip a defer ahead takes 50-100 ms, a wait that needs
            no defer of its own.
            """
            nonlocal late
            if late is None and response.deferring is None:
                late = loop.call_at(arrived + self.backed_up, self._defer, response, arrived)

        try:
            self.queued += 1
            try:
                if slots.locked():
                    deferred_if_late()
                await slots.acquire()
            finally:
                self.queued -= 1
                if queued_undeferred:
                    self.waiting_undeferred -= 1
            if response.deferring is None and loop.time() - arrived >= self.backed_up:
                self._defer(response, arrived)  # its timer was due, and the slot came first
            held = True

            def release(*_: object) -> None:
                nonlocal held
                if held:
                    held = False
                    self._answered(loop.time())
                    slots.release()

            task.add_done_callback(release)
            response.answered = release
            # Those of commands that arrived before this one came here, sent meanwhile too (a burst's come while its
            # first ones go out); not those of commands arriving later, or a steady stream of defers would hold every
            # start. Earliest first: each look costs the defers that are through, not all those on their way (in a
            # burst of 2,000, a scan of every one for each command was quadratic).
            deferring = self._deferring
            while deferring and deferring[0][0] <= now:
                first = deferring[0][2]
                if first.done():
                    heapq.heappop(deferring)
                    continue
                deferred_if_late()
                await asyncio.wait([first])
        finally:
            if late is not None:
                late.cancel()
        if response.dropped:
            release()
            interaction.extras["outcome"] = "dropped"
            return False
        return True

    def _defer(self, response: PatientResponse, arrived: float) -> None:
        """Defer now, in arrival order with the other defers, unless an answer or a defer is on its way."""
        if response.deferring is not None or response.is_done():
            return
        if response.watchdog is not None:
            response.watchdog.cancel()
        response.deferring = asyncio.get_running_loop().create_task(self._acknowledge(response))
        self.on_its_way(response.deferring, arrived)

    def on_its_way(self, deferring: asyncio.Task[None], arrived: float) -> None:
        """Count a defer as on its way until it is through: the commands that arrived after `arrived` wait for it."""
        while self._deferring and self._deferring[0][2].done():  # those through, as far as they are on top
            heapq.heappop(self._deferring)
        heapq.heappush(self._deferring, (arrived, next(self._sent), deferring))

    async def _acknowledge(self, response: PatientResponse) -> None:
        """Defer, a few at a time in arrival order: all at once, the HTTP client would send them in any order."""
        assert self._acknowledgers is not None
        async with self._acknowledgers:
            await response.defer_if_silent()


def _name(interaction: discord.Interaction[DiceBot]) -> str:
    return getattr(interaction.command, "qualified_name", "?")
