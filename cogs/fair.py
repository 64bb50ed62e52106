"""/fair: provably fair dice for a channel: commit to a secret seed, roll from it, reveal it, verify any roll."""

from __future__ import annotations

import asyncio
import io
import string
import time
from datetime import UTC

import discord
from discord import app_commands
from discord.ext import commands

from bot import offload
from bot.client import DiceBot
from bot.db.fair import FairRepository, FairSessionError, RawLog, Session, decode_log, signature_of
from bot.rules import fair, fair_log, signing
from bot.rules.audience import ANYONE, Viewer
from bot.ui.embeds import clip
from cogs._audience import can_moderate, viewer
from cogs._shared import Interaction

FAIR_COLOUR = discord.Colour.teal()


class Fair(commands.GroupCog, group_name="fair", group_description="Provably fair dice for this channel"):
    """Dice nobody, the bot included, can bend: the seed is fixed before the first roll and shown after the last."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        super().__init__()

    def _channel(self, interaction: Interaction) -> int:
        if interaction.channel_id is None:
            raise FairSessionError("Fair sessions belong to a channel.")
        return interaction.channel_id

    async def _managers_only(self, interaction: Interaction) -> bool:
        """Whether this server lets only Manage Server start and reveal fair sessions (`fair.who`)."""
        return (await self.bot.server_settings(interaction.guild_id)).fair_managers_only

    @app_commands.command(name="start")
    async def start(self, interaction: Interaction) -> None:
        """Start a fair session here: every roll in this channel then comes from a committed secret seed."""
        channel_id = self._channel(interaction)
        if not can_moderate(interaction) and await self._managers_only(interaction):
            raise FairSessionError(
                "On this server only members with Manage Server start fair sessions (`/settings` `fair.who`)."
            )
        seed, secret = self.bot.fair_seeds(), self.bot.fair_seeds()
        key = signing.public_key(secret)
        async with self.bot.database.write.begin() as session:
            started = await FairRepository(session).start(
                guild_id=interaction.guild_id,
                channel_id=channel_id,
                seed=seed.hex(),
                signing_secret=secret.hex(),
                signing_key=key,
                commitment=fair.commitment(seed, key),
                user_id=interaction.user.id,
                now=self.bot.clock(),
            )
        embed = discord.Embed(
            title="Fair dice: session started",
            description=(
                f"Commitment (SHA-256 of the secret seed and the key that will sign the log):\n`{started.commitment}`\n"
                "Every die rolled in this channel from now on comes from that seed and the command that rolls it. "
                "`/fair reveal` shows the seed; then anyone can check any roll with `/fair verify` or the "
                "script in docs/fair.md."
            ),
            colour=FAIR_COLOUR,
        )
        try:
            sent = await interaction.response.send_message(embed=embed)
        except BaseException:
            # Nobody saw the commitment, so nothing may roll from it.
            async with self.bot.database.write.begin() as session:
                await FairRepository(session).discard(started.id)
            raise
        # Rolls draw from the session only once the commitment is out, and only for commands made after it: the
        # bot drew the seed before any of them existed, so it could not have chosen a seed that suits them.
        # (Were Discord not to say which message it made, the moment after sending stands in for its id.)
        posted = sent.message_id or discord.utils.time_snowflake(discord.utils.utcnow(), high=True)
        async with self.bot.database.write.begin() as session:
            await FairRepository(session).posted(started.id, posted)
        self.bot.fair_session_started(channel_id)

    @app_commands.command(name="reveal")
    async def reveal(self, interaction: Interaction) -> None:
        """End this channel's fair session and show its seed (who started it, or Manage Server)."""
        channel_id = self._channel(interaction)
        managers_only = not can_moderate(interaction) and await self._managers_only(interaction)
        async with self.bot.database.write.begin() as session:
            repository = FairRepository(session)
            running = await repository.open(channel_id)
            if running is not None and not can_moderate(interaction):
                if managers_only:
                    raise FairSessionError(
                        "On this server only members with Manage Server reveal fair sessions (`/settings` `fair.who`)."
                    )
                if running.started_by != interaction.user.id:
                    raise FairSessionError(
                        f"Only <@{running.started_by}>, who started it, or someone with Manage Server can reveal it."
                    )
            revealed = await repository.reveal(channel_id, now=self.bot.clock())
        # The seed is the answer, sent as soon as the reveal is committed; the log follows. Building the log of
        # a long session takes seconds, and an answer that waited for it would miss Discord's deadline with
        # the reveal already committed. Should this answer be lost (a crash, Discord down), the seed is not:
        # `/fair log` shows it to anyone in the channel from the committed session.
        rolls = revealed.next_roll - 1
        embed = discord.Embed(
            title="Fair dice: seed revealed",
            description=(
                f"Seed: `{revealed.seed}`\n{_key_line(revealed)}Commitment: `{revealed.commitment}`\n"
                f"{rolls} roll{'s' if rolls != 1 else ''} were made. `/fair verify roll:N` checks any of them; "
                "this seed is never used again. The log of every roll follows."
            ),
            colour=FAIR_COLOUR,
        )
        await interaction.response.send_message(embed=embed)
        await self._send_log(interaction, await self._close(revealed), ephemeral=False, reader=ANYONE)

    @app_commands.command(name="log")
    async def download_log(
        self, interaction: Interaction, session: app_commands.Range[str, 8, 64] | None = None
    ) -> None:
        """Download this channel's last revealed fair session as a file, to check every roll yourself.

        The copy a game master (or a secret's owner) gets opens the rolls sealed against their secrets.

        Args:
            session: The first digits (8 or more) of a revealed session's commitment; default: the latest here
        """
        channel_id = self._channel(interaction)
        prefix = (session or "").strip().lower()
        if not set(prefix) <= set(string.hexdigits):
            raise FairSessionError("A commitment is written in hex: the digits 0-9 and the letters a-f.")
        async with self.bot.database.read() as db:
            revealed = await FairRepository(db).latest_revealed(channel_id, prefix=prefix)
        if revealed is None:
            which = f"whose commitment starts with `{prefix}`" if prefix else "yet"
            raise FairSessionError(f"This channel has no revealed fair session {which}.")
        # As in `reveal`: the seed at once, the file once it is built.
        rolls = revealed.next_roll - 1
        embed = discord.Embed(
            title="Fair dice: session log",
            description=(
                f"Commitment: `{revealed.commitment}`\nSeed: `{revealed.seed}`\n{_key_line(revealed)}"
                f"{rolls} roll{'s' if rolls != 1 else ''} were made. The log of every roll follows."
            ),
            colour=FAIR_COLOUR,
        )
        await interaction.response.send_message(embed=embed, ephemeral=True)
        reader = await viewer(self.bot, interaction)
        await self._send_log(interaction, await self._close(revealed), ephemeral=True, reader=reader)

    async def _close(self, revealed: Session) -> Session:
        """A revealed session with its log final, and signed (version 4): what every copy of its log carries.

        The rolls that took a number before the reveal and are still being answered get SETTLE_SECONDS to be
        logged; then the log is closed (a roll that comes later is refused, so the log lists exactly what the
        channel saw) and signed, once, with the key the commitment covers, whose secret is then forgotten.
        """
        if revealed.signature is not None:
            return revealed
        if revealed.closed_at is None:
            # A legacy session too: its log is not signed, but it lists what the channel saw all the same. A
            # session revealed long ago (before this bot closed logs, or by a bot that stopped) has nothing in
            # flight any more: it closes at once.
            assert revealed.revealed_at is not None
            revealed_at = revealed.revealed_at.replace(tzinfo=revealed.revealed_at.tzinfo or UTC)
            waited = (self.bot.clock() - revealed_at).total_seconds()
            deadline = time.monotonic() + max(0.0, SETTLE_SECONDS - waited)
            while time.monotonic() < deadline:
                async with self.bot.database.read() as db:
                    if not await FairRepository(db).unsettled(revealed.id):
                        break
                await asyncio.sleep(SETTLE_POLL)
            async with self.bot.database.write.begin() as db:
                revealed = await FairRepository(db).close(revealed.id, now=self.bot.clock())
        if revealed.signature is None and revealed.signing_secret is not None:
            async with self.bot.database.read() as db:
                raw = await FairRepository(db).raw_log(revealed)
            signature = await offload.in_process(signature_of, raw)
            async with self.bot.database.write.begin() as db:
                await FairRepository(db).signed(revealed.id, signature)
        async with self.bot.database.read() as db:
            return await FairRepository(db).get(revealed.id) or revealed

    async def _send_log(self, interaction: Interaction, revealed: Session, *, ephemeral: bool, reader: Viewer) -> None:
        """Follow the answer with the session's log as `reader` may have it: built in the worker process, in parts.

        The channel's copy (`reveal`) seals every roll against a secret; an ephemeral copy opens those `reader`
        may see (`bot.rules.audience`).
        """
        async with self.bot.database.read() as db:
            raw = await FairRepository(db).raw_log(revealed)
        # The upload counts against the member's share of the workers, by its size, until it is sent: six long
        # logs at once uploaded 207 MB while another server's /odds waited.
        async with offload.share(weight=offload.upload_weight(raw.size())) as share:
            parts, note = await share.run(log_file, raw, interaction.filesize_limit, reader)
            if not parts:
                await interaction.followup.send(embed=_log_embed(note), ephemeral=ephemeral)
                return
            for number, (name, data) in enumerate(parts, start=1):
                text = note if number == 1 else f"Part {number} of {len(parts)} of the log."
                file = discord.File(io.BytesIO(data), filename=name)
                await interaction.followup.send(embed=_log_embed(text), file=file, ephemeral=ephemeral)

    @app_commands.command(name="verify")
    async def verify(self, interaction: Interaction, roll: app_commands.Range[int, 1, 1_000_000]) -> None:
        """Recompute a roll of this channel's last revealed session from its seed and the log.

        Args:
            roll: The fair roll number shown under the roll
        """
        channel_id = self._channel(interaction)
        async with self.bot.database.read() as session:
            repository = FairRepository(session)
            latest = await repository.latest(channel_id)
            if latest is None:
                raise FairSessionError("This channel has had no fair session.")
            if latest.revealed_at is None:
                raise FairSessionError("The seed is still secret: rolls can be checked after `/fair reveal`.")
            logged = await repository.roll(latest.id, roll)
        if logged is None:
            raise FairSessionError(f"The session has no roll #{roll}; it made {latest.next_roll - 1}.")
        draws = [(a, b, face) for a, b, face in logged.draws]
        result = fair.verify(
            latest.seed,
            latest.commitment,
            roll,
            draws,
            interaction_id=logged.interaction_id if latest.bound else None,
            signing_key=latest.signing_key,
        )
        faces = ", ".join(str(d[2]) for d in draws) or "none"
        embed = discord.Embed(
            title=f"Fair roll #{roll}: {'verified' if result.ok else 'does NOT match'}",
            description=clip(
                f"`/{logged.command}` by <@{logged.user_id}>: {len(draws)} dice, faces {faces}\n{result.reason}",
                4000,
            ),
            colour=discord.Colour.green() if result.ok else discord.Colour.red(),
        )
        embed.set_footer(text=f"Seed {latest.seed[:16]}… · commitment {latest.commitment[:16]}…")
        await interaction.response.send_message(embed=embed)


SETTLE_SECONDS = 10.0  # how long a reveal waits for the rolls in flight before it closes the log without them
SETTLE_POLL = 0.05


def log_file(raw: RawLog, limit: int, reader: Viewer = ANYONE) -> tuple[list[tuple[str, bytes]], str]:
    """A session's log as `reader` may have it, as attachments of at most `limit` bytes each, and a line about them.

    The JSON as it is when it fits one attachment; gzipped (`fair_log.pack`) when it does not, in parts when even
    that is larger than one; none, and why, when those would be more than `fair_log.MAX_PARTS` (a session the
    cap `fair_log.session_full` bounds always fits). Seconds of work for a long session: `Fair._send_log` runs it
    in the worker process.
    """
    log = decode_log(raw, reader)
    data = fair_log.dump_log(log)
    whole = fair_log.filename(log.commitment)
    logged = counts(log)
    if len(data) <= limit:
        return [(whole, data)], (
            f"The attached `{whole}` logs every roll ({logged}): `python -m bot verify {whole}`, or the script in "
            "docs/fair.md, checks them all offline."
        )
    packed = fair_log.pack(data)
    gz = fair_log.filename(log.commitment, compressed=True)
    pieces = fair_log.split(packed, limit)
    size = f"{_size(len(data))}, {_size(len(packed))} gzipped"
    if len(pieces) > fair_log.MAX_PARTS:
        return [], (
            f"The log ({logged}) is {size}, more than the {fair_log.MAX_PARTS} attachments of {_size(limit)} "
            "Discord lets me post here, so it is not attached; `/fair verify roll:N` still checks any roll."
        )
    names = fair_log.part_names(log.commitment, len(pieces))
    if len(pieces) == 1:
        return list(zip(names, pieces, strict=True)), (
            f"The attached `{gz}` logs every roll ({logged}). The log is {size}: more than the {_size(limit)} "
            f"Discord lets me attach, so it comes gzipped. `python -m bot verify {gz}` checks every roll offline "
            f"as it is; `gunzip {gz}` gives the JSON, for the script in docs/fair.md."
        )
    return list(zip(names, pieces, strict=True)), (
        f"The log ({logged}) is {size}: more than the {_size(limit)} Discord lets me attach at once, so it comes "
        f"gzipped, in {len(pieces)} parts, one per message. Join them in order into `{gz}` "
        f"(`cat {gz}.part* > {gz}`), then `python -m bot verify {gz}` checks every roll offline. "
        f"This is part 1 of {len(pieces)}."
    )


def _key_line(session: Session) -> str:
    """The signing key's line of a reveal: with the seed, what the commitment is the hash of (version 4)."""
    return f"Signing key: `{session.signing_key}`\n" if session.signing_key else ""


def counts(log: fair_log.FairLog) -> str:
    """What a log holds, as the channel is told at the reveal: a copy that says otherwise is not this log."""
    rolls = [r for r in log.rolls if isinstance(r, fair_log.LogRoll)]
    logged = f"{len(rolls)} logged roll{'s' if len(rolls) != 1 else ''}"
    kinds = [
        (sum(r.private and not r.hidden for r in rolls), "private"),
        (sum(r.hidden for r in rolls), "hidden"),
        (sum(not r.private and r.sealed is not None for r in rolls), "against a secret"),
    ]
    if shown := [f"{count} {what}" for count, what in kinds if count]:
        logged += f" ({', '.join(shown)})"
    if unanswered := len(log.rolls) - len(rolls):
        logged += f", {unanswered} number{'s' if unanswered != 1 else ''} never answered"
    if opened := sum(r.sealed is not None and r.sealed.opened for r in rolls):
        logged += f"; {opened} sealed roll{'s' if opened != 1 else ''} opened for you (keep this copy to yourself)"
    elif any(r.sealed is not None for r in rolls):
        logged += "; the sealed rolls' inputs and outcomes are left out"
    return logged


def _log_embed(text: str) -> discord.Embed:
    return discord.Embed(title="Fair dice: session log", description=text, colour=FAIR_COLOUR)


def _size(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MB" if size >= 1024 * 1024 else f"{-(-size // 1024)} KB"


async def setup(bot: DiceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Fair(bot))
