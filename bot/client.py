"""The bot: holds its settings, database and dice source, loads every cog, syncs the dev server.

`ShardedDiceBot` is the same bot over some shards of many (discord.py's own sharding), for processes that
share one PostgreSQL database.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import random
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands
from sqlalchemy.ext.asyncio import AsyncSession

import cogs
from bot import metrics
from bot.config import Settings
from bot.db.engine import Database
from bot.db.fair import FairRepository, SessionDice
from bot.db.identify import claim_identify
from bot.db.memory import Remembered
from bot.db.rolls import RollLogPruner, RollLogWriter, RollRecord
from bot.db.settings import PreferencesRepository, SettingsRepository
from bot.errors import FAIR_ROLL_NOTE, UserError
from bot.rules.dice import DiceSource
from bot.rules.dice_odds import SAMPLE_SEED
from bot.rules.fair import new_seed
from bot.rules.settings import ServerSettings
from bot.tree import BotTree, command_name, given_options

if TYPE_CHECKING:
    from aiohttp import web

log = logging.getLogger(__name__)

DRAIN_SECONDS = 4.0  # on shutdown, how long the commands in progress get to answer (docker stop waits 10)
SETTINGS_TTL = 10.0  # seconds a server's rules settings are kept between reads
SETTINGS_KEPT = 10_000  # servers whose settings are kept at most
HABITS_KEPT = 10_000  # characters whose habits are kept at most
FAIR_TTL = 10.0  # seconds a channel is known to have no fair session open, between reads


def utc_now() -> datetime:
    """The current time, aware, in UTC."""
    return datetime.now(UTC)


def extensions() -> list[str]:
    """Every cog module, in name order; modules whose name starts with "_" are helpers, not cogs."""
    return sorted(
        f"{cogs.__name__}.{module.name}"
        for module in pkgutil.iter_modules(cogs.__path__)
        if not module.name.startswith("_")
    )


def seeded_estimate_dice() -> DiceSource:
    """Fresh dice for one sampled odds estimate, seeded alike so that the same expression gets the same one."""
    return random.Random(SAMPLE_SEED)


class DiceBot(commands.Bot):
    """The Discord client. Everything it needs is passed in; nothing is read from globals."""

    def __init__(
        self,
        *,
        settings: Settings,
        database: Database,
        dice: DiceSource,
        clock: Callable[[], datetime] = utc_now,
        fair_seeds: Callable[[], bytes] = new_seed,
        estimate_dice: Callable[[], DiceSource] = seeded_estimate_dice,
        **options: Any,
    ) -> None:
        # The bot never joins voice: the warnings about missing voice libraries would only confuse.
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
        intents = discord.Intents.none()
        intents.guilds = True  # slash commands need no privileged intent; the guild cache is enough
        options.setdefault("guild_ready_timeout", 0.5)
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            tree_cls=BotTree,
            allowed_mentions=discord.AllowedMentions.none(),
            **options,
        )
        self.settings = settings
        self.database = database
        self.dice = dice
        self.clock = clock
        self.fair_seeds = fair_seeds  # only the seeded console passes its own, so its transcripts replay
        # Fresh dice for each sampled odds estimate, never the roll's own: the same expression, the same estimate.
        self.estimate_dice = estimate_dice
        self._server_settings: dict[int | None, tuple[float, ServerSettings]] = {}
        self._user_answers: dict[int, tuple[float, str | None]] = {}
        # Characters' habits (bot.db.memory) by (id, created): a stale one elsewhere is only a habit.
        self._habits: dict[tuple[int, datetime], Remembered] = {}
        self._unfair: dict[int, float] = {}  # channels read to have no fair session open, and when
        self._fair_starts = 0  # fair sessions started in this process: a read begun before one is not kept
        self.metrics_server: web.AppRunner | None = None  # /metrics and /health, when METRICS_PORT is set
        self.roll_log = RollLogWriter(database.write)
        keep_days = settings.roll_log_keep_days
        self.pruner = None if keep_days is None else RollLogPruner(database.write, keep_days=keep_days, clock=clock)

    async def close(self) -> None:
        """Stop: let the commands in progress answer (for up to DRAIN_SECONDS), then close gateway and HTTP.

        Closing first would cut their answers off mid-request, and their users would see a failure.
        """
        if not self.is_closed():
            tree = self.tree
            if isinstance(tree, BotTree) and (unfinished := await tree.drain(DRAIN_SECONDS)):
                log.warning("Closing with %d command(s) still running after %.0f s", unfinished, DRAIN_SECONDS)
        if self.pruner is not None:
            await self.pruner.stop()
        if self.metrics_server is not None:
            await self.metrics_server.cleanup()
            self.metrics_server = None
            for name in metrics.RATE_LIMIT_LOGGERS:
                logging.getLogger(name).removeFilter(metrics.count_429s)
        await super().close()

    async def on_ready(self) -> None:
        """Say once connected (and again after a full reconnect) as whom, in how many servers, over which shards."""
        settings = self.settings
        if settings.sharded:
            ids = settings.shard_ids or tuple(range(settings.shard_count or 1))
            shards = f"shards {','.join(map(str, ids))} of {settings.shard_count}"
        else:
            shards = "unsharded"
        user = self.user
        log.info("Ready as %s (id %s) in %d servers, %s", user, user and user.id, len(self.guilds), shards)

    async def load_cogs(self) -> None:
        """Add every cog module's cogs and buttons to this bot, by calling its `setup(bot)`.

        Each module is imported once per process, rather than by `load_extension`, which executes it anew for every
        bot: a process that starts a bot again (a restart in the console, every test) sets up the same classes, and
        a module's globals are one object throughout. Closing the bot removes its cogs as before.
        """
        for name in extensions():
            await importlib.import_module(name).setup(self)

    async def setup_hook(self) -> None:
        """Load every cog (a broken one stops the start), then sync the commands to the dev server if set."""
        await self.load_cogs()
        log.info("Loaded %d extensions", len(extensions()))
        if self.settings.metrics_port is not None:
            metrics.time_statements(self.database)
            for name in metrics.RATE_LIMIT_LOGGERS:
                logging.getLogger(name).addFilter(metrics.count_429s)
            self.metrics_server = await metrics.serve(self, self.settings.metrics_host, self.settings.metrics_port)
        # One process of a sharded bot prunes the shared database: the one that runs shard 0.
        if self.pruner is not None and (not self.settings.sharded or 0 in self.settings.shard_ids):
            self.pruner.start()
        if self.settings.dev_guild_id is not None and self.settings.sharded:
            # Every shard process would overwrite the same commands at once; one deploy step does it instead.
            log.info(
                "Not syncing the dev server %s: a sharded process never syncs (`python -m bot sync` does)",
                self.settings.dev_guild_id,
            )
        elif self.settings.dev_guild_id is not None:
            guild = discord.Object(self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("Synced %d commands to the dev server %s", len(synced), guild.id)

    async def server_settings(self, guild_id: int | None, reading: AsyncSession | None = None) -> ServerSettings:
        """A server's effective rules settings (`/settings`), kept for SETTINGS_TTL seconds.

        Nearly every roll reads them and they rarely change; `/settings set` in this process forgets them at
        once, and a change made through another process (a shard hand-over) shows within the TTL. What is kept for
        seconds anyway is read outside `reading`'s transaction, on the reader threads where there are some
        (`Readers`): a burst of rolls then takes no connection from the session's pool for it. So are a user's
        choice of answers and whether a channel runs a fair session.
        """
        now = time.monotonic()
        kept = self._server_settings.get(guild_id)
        if kept is not None and now - kept[0] < SETTINGS_TTL:
            return kept[1]
        if reading is not None:
            current = await SettingsRepository(reading, self.database.reads).server(guild_id)
        else:
            async with self.database.read() as session:
                current = await SettingsRepository(session, self.database.reads).server(guild_id)
        if len(self._server_settings) >= SETTINGS_KEPT:
            self._server_settings.clear()  # bounded memory; the busy servers come back on their next roll
        self._server_settings[guild_id] = (now, current)
        return current

    def kept_habits(self, key: tuple[int, datetime]) -> Remembered | None:
        """A character's habits as this process last read or wrote them, keyed by its id and creation time.

        Every character roll reads them and only its own rolls change them, so they are kept rather than read per
        roll (a query less per attack); the creation time keeps a reused id from inheriting a deleted character's.
        """
        return self._habits.get(key)

    def keep_habits(self, key: tuple[int, datetime], habits: Remembered) -> None:
        """Keep a character's habits as read or written (at most HABITS_KEPT characters' at a time)."""
        if len(self._habits) >= HABITS_KEPT and key not in self._habits:
            self._habits.clear()  # bounded memory; the busy characters come back on their next roll
        self._habits[key] = habits

    def forget_server_settings(self, guild_id: int | None) -> None:
        """Drop a server's kept settings after a change, so the next roll reads them."""
        self._server_settings.pop(guild_id, None)

    async def user_answers(self, user_id: int, reading: AsyncSession | None = None) -> str | None:
        """How a user chose their roll answers to start (`/answers`), None for the server's choice.

        Kept for SETTINGS_TTL seconds like the server's settings, and forgotten at once by `/answers`.
        """
        now = time.monotonic()
        kept = self._user_answers.get(user_id)
        if kept is not None and now - kept[0] < SETTINGS_TTL:
            return kept[1]
        if reading is not None:
            chosen = await PreferencesRepository(reading, self.database.reads).answers(user_id)
        else:
            async with self.database.read() as session:
                chosen = await PreferencesRepository(session, self.database.reads).answers(user_id)
        if len(self._user_answers) >= SETTINGS_KEPT:
            self._user_answers.clear()
        self._user_answers[user_id] = (now, chosen)
        return chosen

    def forget_user_answers(self, user_id: int) -> None:
        """Drop a user's kept choice after they changed it."""
        self._user_answers.pop(user_id, None)

    async def dice_for(
        self,
        interaction: discord.Interaction[DiceBot],
        reading: AsyncSession | None = None,
        *,
        hidden: bool | None = None,
    ) -> DiceSource:
        """The dice of one roll: a fair session's next roll when one runs in the channel, else the bot's own.

        A hidden roll (`hidden:true`) never draws from the channel's session: a player may have started that one
        and may reveal it, and its log and `/fair verify` would publish the roll. It draws from the GM channel's
        own session when the GM runs one there (the GM reveals it when they choose), else from the bot's dice.

        Nearly every roll asks and nearly every channel has no session: that answer is kept for FAIR_TTL
        seconds, and `/fair start` in this process forgets it at once (`fair_session_started`); a session
        started through another process (a shard hand-over) counts within the TTL. A command that reads other
        things first passes its `reading` session, saving a transaction of its own. `hidden`: whether it is a hidden
        roll, when the command's own `hidden` option means something else (`/encounter add` hides hit points);
        by default, what that option says.
        """
        channel_id = interaction.channel_id
        if channel_id is None:
            return self.dice
        if hidden is None:
            hidden = given_options(interaction).get("hidden") is True
        now = time.monotonic()
        known = self._unfair.get(channel_id)
        if not hidden and known is not None and now - known < FAIR_TTL:
            return self.dice
        starts = self._fair_starts
        if reading is not None:
            fair_channel = await self._fair_channel(interaction, reading, hidden=hidden)
        else:
            async with self.database.read() as session:
                fair_channel = await self._fair_channel(interaction, session, hidden=hidden)
        if fair_channel is None:
            # Only the channel's own answer is kept: a hidden roll asked about the GM channel's session instead.
            if not hidden and starts == self._fair_starts:  # no session started while this read ran
                if len(self._unfair) >= SETTINGS_KEPT:
                    self._unfair.clear()
                self._unfair[channel_id] = now
            return self.dice
        if reading is not None and reading.in_transaction():
            # Hand the read's connection back before taking a writer's: commands that each held one while waiting
            # for the other would drain the pool (PostgreSQL's 5 + 10) and wait on each other until its timeout.
            await reading.commit()
        async with self.database.write.begin() as session:
            taken = await FairRepository(session).take_roll(
                fair_channel,
                interaction_id=interaction.id,
                command=command_name(interaction),
                user_id=interaction.user.id,
                now=self.clock(),
            )
        return self.dice if taken is None else SessionDice(*taken, interaction.id)

    def fair_session_started(self, channel_id: int) -> None:
        """A fair session was committed in a channel: its next roll must read it (called before answering)."""
        self._fair_starts += 1
        self._unfair.pop(channel_id, None)

    async def abandon_roll(self, dice: DiceSource, error: BaseException) -> None:
        """Say why a fair roll number taken for a command will have no roll: the command failed before logging it.

        The log then accounts for the number. Best effort: without it the number's record says the bot stopped.
        A command whose roll was logged and whose answer then failed leaves no number unanswered: the log lists the
        roll, so its author is not told otherwise.
        """
        if not isinstance(dice, SessionDice):
            return
        reason = f"the command failed before it answered: {_why(error)}"
        unanswered = True  # as far as is known, should the record fail
        try:
            async with self.database.write.begin() as session:
                unanswered = await FairRepository(session).abandon(dice.session.id, dice.roll_number, reason)
        except Exception:
            log.warning("Could not record why fair roll %s went unanswered", dice.roll_number, exc_info=True)
        if unanswered:
            # Its author is told at once which number went unanswered (`bot.tree.report`), as the log will say.
            setattr(error, FAIR_ROLL_NOTE, dice.roll_number)

    async def _fair_channel(
        self, interaction: discord.Interaction[DiceBot], reading: AsyncSession, *, hidden: bool
    ) -> int | None:
        """The channel whose running fair session a roll draws from, if any."""
        channel_id = interaction.channel_id
        if hidden:
            channel_id = await SettingsRepository(reading, self.database.reads).gm_channel(interaction.guild_id)
        if channel_id is None or not await FairRepository(reading, self.database.reads).runs(channel_id):
            return None
        return channel_id

    async def log_roll(self, record: RollRecord) -> None:
        """Write one roll to the roll log.

        Returns once the roll is committed: a roll is logged before its answer is posted, so that what a
        channel saw is never missing from the log (`note_answer` adds the message afterwards).
        """
        await self.roll_log.add(record)

    async def note_answer(self, interaction: discord.Interaction[DiceBot], message_id: int | None) -> None:
        """Record the message a roll's answer landed in (for /history's links), once the roll is logged.

        Best effort: the roll is already durable and answered, and its buttons find it by the interaction's id.
        """
        if message_id is None:
            return
        try:
            await self.roll_log.message(interaction.id, message_id)
        except Exception:
            log.warning("Could not record the message of roll %s", interaction.id, exc_info=True)


def _why(error: BaseException) -> str:
    """One line on why a command failed, for a fair log: a user error's own message, else the kind of error."""
    if isinstance(error, UserError):
        return " ".join(error.message.replace("*", "").replace("`", "").split())
    return f"an internal error ({type(error).__name__})"


class ShardedDiceBot(DiceBot, commands.AutoShardedBot):
    """The bot over the shards `settings.shard_ids` of `settings.shard_count`, as discord.py's AutoShardedBot.

    Processes with disjoint shard ranges share one PostgreSQL database, which also spaces their IDENTIFYs.
    """

    def __init__(
        self,
        *,
        settings: Settings,
        database: Database,
        dice: DiceSource,
        clock: Callable[[], datetime] = utc_now,
        **options: Any,
    ) -> None:
        super().__init__(
            settings=settings,
            database=database,
            dice=dice,
            clock=clock,
            shard_count=settings.shard_count,
            shard_ids=list(settings.shard_ids),
            **options,
        )
        self.max_concurrency: int | None = None

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """Wait for this shard's identify bucket across every process sharing the PostgreSQL database.

        discord.py's own hook spaces the IDENTIFYs of one process only, by 5 seconds; on SQLite (one machine,
        so presumably one process) that is kept.
        """
        if self.database.engine.dialect.name != "postgresql":
            await super().before_identify_hook(shard_id, initial=initial)
            return
        if self.max_concurrency is None:
            # With shard_count given, discord.py never asks /gateway/bot; the bucket size comes from there.
            try:
                self.max_concurrency = (await self.fetch_session_start_limits()).max_concurrency
            except discord.DiscordException:
                log.warning("No session start limits from Discord; identifying one shard at a time")
                self.max_concurrency = 1
        bucket = (shard_id or 0) % self.max_concurrency
        waited = await claim_identify(self.database, bucket, self.settings.identify_interval)
        log.info("Shard %s identifies (bucket %d of %d, waited %.2f s)", shard_id, bucket, self.max_concurrency, waited)
