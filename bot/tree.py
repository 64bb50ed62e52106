"""The command tree with the one error funnel every slash command goes through."""

from __future__ import annotations

import asyncio
import logging
import math
from collections import OrderedDict, deque
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands
from sqlalchemy import exc as sa_exc

from bot import logs, metrics
from bot.config import RateLimit
from bot.deadline import (
    ALREADY_ACKNOWLEDGED,
    DEFER_AFTER,
    UNKNOWN_INTERACTION,
    Admission,
    PatientResponse,
    unwatch,
)
from bot.errors import FAIR_ROLL_NOTE, UserError
from bot.ui.embeds import error_embed

if TYPE_CHECKING:  # bot.client imports this module: the bot type only for the checker
    from bot.client import DiceBot

log = logging.getLogger(__name__)

REFUSAL_TASK = "dicebot: rate limit"  # the name of the task that answers a refused interaction
# Seconds after which a command that arrived and never reached the tree's check (discord.py could not read its
# payload) is forgotten: otherwise it would count forever among those waiting to start (`Admission`'s burst).
FORGOTTEN = 60.0
DATABASE_DOWN = (
    "I can't reach my database right now, so whatever needed it did not happen (nothing was half-saved). "
    "Please try again in a minute."
)
APOLOGY = (
    "Something went wrong on our side and the command did not finish. It has been logged; "
    "please try again, and tell the bot's maintainers if it keeps happening."
)


def unwrap(error: BaseException) -> BaseException:
    """The error that really happened, under discord.py's wrappers."""
    if isinstance(error, app_commands.CommandInvokeError):
        return unwrap(error.original)
    if isinstance(error, app_commands.TransformerError) and isinstance(error.__cause__, UserError):
        return error.__cause__
    return error


def database_down(error: BaseException) -> bool:
    """Whether an error means the database cannot be reached (rather than a bug in a query)."""
    if isinstance(error, sa_exc.OperationalError | sa_exc.InterfaceError | sa_exc.TimeoutError | ConnectionError):
        return True
    # A DBAPI error with no statement happened while connecting (a database refusing connections, say).
    return isinstance(error, sa_exc.DBAPIError) and (error.connection_invalidated or error.statement is None)


def describe(error: BaseException) -> tuple[str, str] | None:
    """The title and message for an error the user can fix (or wait out), or None for a bug."""
    if isinstance(error, UserError):
        return error.title, error.message
    if database_down(error):
        return "Database unavailable", DATABASE_DOWN
    if isinstance(error, app_commands.TransformerError):
        return "Bad option", f"`{error.value}` is not a valid value here."
    if isinstance(error, app_commands.MissingPermissions):
        needed = ", ".join(p.replace("_", " ").title() for p in error.missing_permissions)
        return "Not allowed", f"This needs the {needed} permission."
    if isinstance(error, app_commands.NoPrivateMessage):
        return "Servers only", "This command works in a server, not in direct messages."
    if isinstance(error, app_commands.CommandOnCooldown):
        return "Slow down", f"Try again in {error.retry_after:.0f} seconds."
    if isinstance(error, app_commands.CommandSignatureMismatch | app_commands.CommandNotFound):
        return "Command out of date", "The bot was updated since Discord last saw this command; try again shortly."
    if isinstance(error, app_commands.CheckFailure):
        return "Not allowed", "You can't use this command here."
    return None


class OptionRefused(UserError, app_commands.AppCommandError):
    """An option value Discord's client never sends (crafted by a script): refused before the command runs.

    An `AppCommandError` too, so that discord.py hands it to the error funnel when `interaction_check` raises it.
    """

    title = "Bad option"


STRING, INTEGER, NUMBER = 3, 4, 10  # Discord's application command option types
DISCORD_MAX_STRING = 6000  # what Discord lets a string option carry when the command sets no max_length
DISCORD_MAX_NUMBER = 2**53  # the range Discord lets an integer or number option carry without min/max


def option_problem(schema: dict[str, Any], value: Any) -> str | None:
    """Why `value` is not what Discord's client would send for the option `schema` (as synced), or None.

    Ranges, lengths and choices only: a value of another type is left to discord.py's conversion.
    """
    name, kind = schema["name"], schema["type"]
    choices = schema.get("choices")
    if choices and str(value) not in {str(choice["value"]) for choice in choices}:
        return f"`{name}` must be one of the choices the menu offers."
    if kind == STRING and isinstance(value, str):
        low, high = schema.get("min_length", 0), schema.get("max_length", DISCORD_MAX_STRING)
        if not low <= len(value) <= high:
            return f"`{name}` must be text of {low} to {high} characters."
    elif kind in (INTEGER, NUMBER) and isinstance(value, int | float) and not isinstance(value, bool):
        low = schema.get("min_value", -DISCORD_MAX_NUMBER)
        high = schema.get("max_value", DISCORD_MAX_NUMBER)
        if not math.isfinite(value) or not low <= value <= high:
            return f"`{name}` must be a number from {low} to {high}."
    return None


def scrub(options: list[dict[str, Any]]) -> None:
    """Replace NUL characters in typed text, in place: no text ever needs one, and PostgreSQL refuses them."""
    for option in options:
        if isinstance(option.get("value"), str):
            option["value"] = option["value"].replace("\x00", "\ufffd")
        scrub(option.get("options", []))


def given_options(interaction: discord.Interaction[DiceBot]) -> dict[str, Any]:
    """The options of a slash command as typed, subcommand levels flattened away.

    A command run again by a button or a saved roll carries the options it runs with in its extras.
    """
    if "options" in interaction.extras:
        return dict(interaction.extras["options"])
    options: list[dict[str, Any]] = cast(dict[str, Any], interaction.data or {}).get("options", [])
    while options and options[0].get("type") in (1, 2):
        options = options[0].get("options", [])
    return {option["name"]: option.get("value") for option in options}


def command_name(interaction: discord.Interaction[DiceBot]) -> str:
    """The command an interaction runs: its own, or the one a button or a saved roll runs again."""
    if "command" in interaction.extras:
        return str(interaction.extras["command"])
    return interaction.command.qualified_name if interaction.command else "?"


async def report(interaction: discord.Interaction[DiceBot], error: BaseException) -> None:
    """Tell the user what went wrong, whether or not the interaction was answered already.

    The one place failures of commands, buttons and forms end up: errors the user can fix become an
    ephemeral red embed; anything else is logged once, with the command and its options, and apologised for.
    """
    cause = unwrap(error)
    known = describe(cause)
    command = command_name(interaction)
    interaction.extras["outcome"] = "user_error" if known is not None else "bug"
    if interaction.client.is_closed():
        # Past the shutdown's grace period (bot.client.DRAIN_SECONDS) nothing can be sent any more.
        log.warning("/%s was cut off by the bot shutting down: %s", command, cause)
        return
    if isinstance(cause, discord.NotFound) and cause.code == UNKNOWN_INTERACTION:
        # Too late to answer at all: Discord has dropped the interaction and shows the user a failure.
        log.warning("/%s missed Discord's 3-second deadline for a first response", command)
        interaction.extras["outcome"] = "late"
        return
    if database_down(cause):
        interaction.extras["outcome"] = "database"
        log.warning("/%s: the database is unavailable: %s", command, cause)
    if known is None:
        log.error("Unhandled error in /%s with options %s", command, given_options(interaction), exc_info=cause)
    if interaction.type is discord.InteractionType.autocomplete:
        # Autocomplete can only answer with choices: offer none rather than leave the menu spinning.
        if not interaction.response.is_done():
            await interaction.response.autocomplete([])
        return
    title, message = known or ("Sorry", APOLOGY)
    if (number := getattr(cause, FAIR_ROLL_NOTE, None)) is not None:
        # A fair roll is never re-drawn out of sight: its author learns now what the session's log will say.
        message += f"\n\nFair roll #{number} went to this command; the session's log lists it as not answered."
    embed = error_embed(title, message)
    try:
        # A 40060 means Discord has the first response even though discord.py does not know it.
        answered = isinstance(cause, discord.HTTPException) and cause.code == ALREADY_ACKNOWLEDGED
        response = interaction.response
        if isinstance(response, PatientResponse) and response.deferred:
            await response.send_message(embed=embed, ephemeral=True)  # replaces or removes the thinking message
        elif answered or response.is_done():
            await interaction.followup.send(embed=embed, ephemeral=True)
        else:
            await interaction.response.send_message(embed=embed, ephemeral=True)
    except discord.HTTPException:
        log.warning("Could not tell the user about an error in /%s", command, exc_info=True)


class RateLimiter:
    """A sliding window per user: at most `limit.commands` admitted in any `limit.seconds`.

    Memory stays flat: users are kept in order of their last interaction, and those idle for a whole window
    are dropped from the front on every call, so only the users of the last window are held, each with at most
    `limit.commands` timestamps. Refused attempts are not recorded, so waiting always helps.
    """

    def __init__(self, limit: RateLimit, clock: Callable[[], datetime]) -> None:
        self.limit = limit
        self.clock = clock
        self._recent: OrderedDict[int, deque[float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._recent)

    def admit(self, user_id: int) -> datetime | None:
        """Count one interaction of the user: None if it may go ahead, else when the user may try again."""
        now = self.clock().timestamp()
        window = self.limit.seconds
        while self._recent:
            idle, stamps = next(iter(self._recent.items()))
            if now - stamps[-1] < window:
                break
            del self._recent[idle]
        stamps = self._recent.setdefault(user_id, deque(maxlen=self.limit.commands))
        self._recent.move_to_end(user_id)
        while stamps and now - stamps[0] >= window:
            stamps.popleft()
        if len(stamps) >= self.limit.commands:
            return datetime.fromtimestamp(stamps[0] + window, UTC)
        stamps.append(now)
        return None


class BotTree(app_commands.CommandTree["DiceBot"]):
    """Routes every failure of a slash command to `report`, and holds each user to the rate limit.

    The rate limit is applied at one gate that sees every interaction as it arrives, before discord.py hands
    it to a command, a button or a form: all three count, autocomplete does not.
    """

    def __init__(self, client: DiceBot, **options: Any) -> None:
        super().__init__(client, **options)
        # Built on first use: the bot makes its tree before it has stored its settings and clock.
        self._limiter: RateLimiter | None = None
        self.defer_after = DEFER_AFTER  # a command silent this long after arriving is deferred (bot.deadline)
        self.admission = Admission()  # commands at work at once; the rest wait their turn, deferred
        self.in_flight: set[asyncio.Task[Any]] = set()  # the tasks of commands and presses being handled
        self._arrived: dict[int, float] = {}  # loop time each slash command arrived, until its check runs
        self._suggestion_limiter: RateLimiter | None = None
        self._schemas: dict[app_commands.Command[Any, ..., Any], dict[str, dict[str, Any]]] = {}
        self._install_gate()

    def _install_gate(self) -> None:
        """Put `gate` in front of discord.py's handling of INTERACTION_CREATE.

        discord.py routes an interaction to the tree, a view or a form in one synchronous step, and only the
        tree has a public check; a view's or a form's own `interaction_check` would make one gate per view.
        """
        # discord.py's private connection state, patched in place: its parser is a method, not a public hook.
        state: Any = self.client._connection
        parse = state.parse_interaction_create

        def gated(data: Any) -> None:
            if self.gate(data):
                parse(data)

        # The gateway calls parsers by event name; the local double's in-process path calls the method.
        state.parsers["INTERACTION_CREATE"] = gated
        state.parse_interaction_create = gated

    def gate(self, data: dict[str, Any]) -> bool:
        """Whether an arriving interaction goes on to be handled; a user over the rate limit is told to wait.

        Commands, button presses and form submissions all count, and are refused alike. Suggestions come with
        every keystroke (Discord debounces them), so autocomplete counts toward a limit of its own, far more
        generous (`AUTOCOMPLETE_RATE_LIMIT`); past it the menu is answered with no choices, never an error.
        """
        limiter = self.limiter
        kind = data.get("type")
        user = (data.get("member") or {}).get("user") or data.get("user") or {}
        if kind == discord.InteractionType.autocomplete.value:
            return self._suggest(data, int(user.get("id", 0)))
        again = None if limiter is None else limiter.admit(int(user.get("id", 0)))
        if again is not None:
            metrics.RATE_LIMITED.inc()
        if again is None:
            if kind == discord.InteractionType.application_command.value:
                arrivals, now = self._arrived, asyncio.get_running_loop().time()
                while arrivals and now - next(iter(arrivals.values())) > FORGOTTEN:  # the oldest come first
                    del arrivals[next(iter(arrivals))]
                arrivals[int(data["id"])] = now
            return True
        state = self.client._connection
        interaction: discord.Interaction[DiceBot] = discord.Interaction(data=cast(Any, data), state=state)
        task = asyncio.get_running_loop().create_task(self._slow_down(interaction, again), name=REFUSAL_TASK)
        self.in_flight.add(task)
        task.add_done_callback(self.in_flight.discard)
        state.dispatch("interaction", interaction)
        return False

    def _suggest(self, data: dict[str, Any], user_id: int) -> bool:
        """Whether an autocomplete request goes on to be handled; past its own limit it gets no choices."""
        limiter = self.suggestion_limiter
        if limiter is None or limiter.admit(user_id) is None:
            return True
        metrics.AUTOCOMPLETE_LIMITED.inc()
        state = self.client._connection
        interaction: discord.Interaction[DiceBot] = discord.Interaction(data=cast(Any, data), state=state)
        task = asyncio.get_running_loop().create_task(self._no_suggestions(interaction), name=REFUSAL_TASK)
        self.in_flight.add(task)
        task.add_done_callback(self.in_flight.discard)
        state.dispatch("interaction", interaction)
        return False

    async def _no_suggestions(self, interaction: discord.Interaction[DiceBot]) -> None:
        try:
            await interaction.response.autocomplete([])
        except discord.HTTPException:
            log.debug("Could not answer a refused autocomplete of user %s", interaction.user.id, exc_info=True)

    async def _slow_down(self, interaction: discord.Interaction[DiceBot], again: datetime) -> None:
        limit = cast(RateLimiter, self.limiter).limit
        embed = error_embed(
            "Slow down",
            f"That is more than {limit.commands} commands in {limit.seconds} seconds. "
            f"You can roll again {discord.utils.format_dt(again, 'R')}.",
        )
        try:
            await interaction.response.send_message(embed=embed, ephemeral=True)
        except discord.HTTPException:
            log.warning("Could not tell user %s about the rate limit", interaction.user.id, exc_info=True)

    async def drain(self, timeout: float) -> int:
        """Wait up to `timeout` seconds for the commands and presses in progress; how many did not finish."""
        running = [task for task in self.in_flight if not task.done() and task is not asyncio.current_task()]
        if not running:
            return 0
        _, unfinished = await asyncio.wait(running, timeout=timeout)
        return len(unfinished)

    @property
    def limiter(self) -> RateLimiter | None:
        """The rate limit of the bot's settings, or None when it has none."""
        if self._limiter is None:
            limit = getattr(getattr(self.client, "settings", None), "rate_limit", None)
            if limit is not None:
                self._limiter = RateLimiter(limit, self.client.clock)
        return self._limiter

    @property
    def suggestion_limiter(self) -> RateLimiter | None:
        """The autocomplete rate limit of the bot's settings, or None when it has none."""
        if self._suggestion_limiter is None:
            limit = getattr(getattr(self.client, "settings", None), "autocomplete_rate_limit", None)
            if limit is not None:
                self._suggestion_limiter = RateLimiter(limit, self.client.clock)
        return self._suggestion_limiter

    def check_options(self, interaction: discord.Interaction[DiceBot]) -> None:
        """Refuse a value Discord's client would not send for its option (past a range, a length, the choices).

        Checked against the schema the command syncs, so a script crafting payloads gets the same clean refusal
        for every command, before anything runs.
        """
        command = interaction.command
        if not isinstance(command, app_commands.Command):
            return
        schemas = self._schemas.get(command)
        if schemas is None:
            synced = command.to_dict(self).get("options") or []
            schemas = self._schemas[command] = {option["name"]: option for option in synced}
        options: list[dict[str, Any]] = cast(dict[str, Any], interaction.data or {}).get("options", [])
        while options and options[0].get("type") in (1, 2):
            options = options[0].get("options", [])
        for option in options:
            schema = schemas.get(option.get("name", ""))
            problem = None if schema is None else option_problem(schema, option.get("value"))
            if problem is not None:
                raise OptionRefused(f"{problem} Discord's own menus never send this value.")

    async def interaction_check(self, interaction: discord.Interaction[DiceBot]) -> bool:
        """Clean the typed options; a command waits for its turn, deferred if it must (the rate limit was `gate`'s).

        A command Discord dropped before its turn came is not run (`Admission.enter`); an option value Discord's
        client would not send is refused (`check_options`).
        """
        arrived = self._arrived.pop(interaction.id, None)
        scrub(cast(dict[str, Any], interaction.data or {}).get("options", []))
        if interaction.type is discord.InteractionType.autocomplete:
            return True
        self.check_options(interaction)
        if arrived is None:  # not through the gate (a test calling the tree directly): it arrives now
            arrived = asyncio.get_running_loop().time()
        await self.admit(interaction, arrived=arrived)
        pending = len(self._arrived)  # the others that arrived and have not come this far
        return await self.admission.enter(interaction, arrived=arrived, defer_after=self.defer_after, pending=pending)

    async def admit(self, interaction: discord.Interaction[DiceBot], *, arrived: float | None = None) -> bool:
        """Keep the task handling a command or button press until it ends (see `drain`), and count it; always True.

        The rate limit was applied when the interaction arrived (`gate`); a refused one never gets here.
        Button presses bypass the tree in discord.py, so components call this from their own `interaction_check`.
        """
        logs.enter(interaction)  # every line this task logs names the interaction
        task = asyncio.current_task()
        if task is not None and task not in self.in_flight:
            loop = asyncio.get_running_loop()
            start = loop.time() if arrived is None else arrived
            self.in_flight.add(task)
            metrics.IN_FLIGHT.inc()

            def done(task: asyncio.Task[Any]) -> None:
                self.in_flight.discard(task)
                metrics.IN_FLIGHT.dec()
                outcome = interaction.extras.get("outcome", "ok")
                metrics.finished(command_name(interaction), outcome, loop.time() - start)
                unwatch(interaction)

            task.add_done_callback(done)
        return True

    async def on_error(self, interaction: discord.Interaction[DiceBot], error: app_commands.AppCommandError) -> None:
        """Report the failure to the user (and the log, if it is a bug)."""
        await report(interaction, error)
