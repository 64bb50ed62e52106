"""/encounter: a combat tracker per channel that knows the three rulesets (docs/encounters.md).

Every change is one write transaction: the channel's encounter is read (its row locked where the database can),
the rules core makes the next state, and the store writes it only if the version is still the one read. The
tracker's Next button names the turn it was shown at, so two presses at once pass one turn; the button's custom
id is all it needs, so it keeps working after a restart; `/encounter next` is guarded as safely (`TurnGuard`).
Whoever starts an encounter runs it (turns, reordering, its own quick creatures), as the server's game masters
(Manage Server, or the `/settings gm-role` role) may run any; a combatant's owner may change that combatant too.
Running a fight is not seeing its secrets: what each viewer sees asks the audience policy (`bot.rules.audience`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import logging
import zlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, TypeVar

import discord
from discord import app_commands
from discord.ext import commands
from sqlalchemy.ext.asyncio import AsyncSession

from bot import offload
from bot.client import DiceBot
from bot.db.characters import CharacterError, CharacterRecord, CharacterRepository
from bot.db.encounters import EncounterRecord, EncounterRepository
from bot.db.fair import FairRepository
from bot.db.rolls import LoggedRoll, RollRecord, RollRepository, log_in
from bot.errors import UserError
from bot.rules import encounter as rules
from bot.rules import encounter_attacks as stored
from bot.rules import health as health_input
from bot.rules import replay, rulesets
from bot.rules.audience import Viewer, Visibility, applies_hit
from bot.rules.encounter import Combatant, Encounter, EncounterError, Hit, Side, StoredAttack
from bot.rules.names import name_key
from bot.rules.rulesets import Quick
from bot.ui import encounter as ui
from bot.ui import map as map_ui
from bot.ui.embeds import clip, fit
from cogs._audience import is_game_master, viewer
from cogs._buttons import NOT_FOUND, OnRoll, Pressed
from cogs._replay import replay as run_roll
from cogs._replay import roll_command, without
from cogs._shared import (
    STRIKE,
    Drawn,
    Interaction,
    Rolled,
    character_choices,
    draw,
    drawn_record,
    find,
    guild_of,
    stamp,
)

log = logging.getLogger(__name__)

T = TypeVar("T")
Step = Callable[[EncounterRecord, AsyncSession], Awaitable[tuple[Encounter, T]]]
# A change that may roll initiative: given where its initiative comes from (`with_initiative`).
RollingStep = Callable[[EncounterRecord, AsyncSession, rules.Prerolled], Awaitable[tuple[Encounter, T]]]

RULESET_CHOICES = [app_commands.Choice(name=r.brief_title, value=r.key) for r in rulesets.every() if r.fighting]
SIDE_CHOICES = [app_commands.Choice(name=s.value, value=s.value) for s in Side]
MOVED_ON = "Someone already moved the fight on: this is where it stands."
CHANGED_MEANWHILE = "The fight changed while its initiative was being rolled: please try again."
NOT_NEEDED = "The fight changed while its initiative was being rolled, and the change no longer needed it."
RUNNING_HERE = "`/encounter show` shows the fight running in this channel, if there is one."
FIGHT_OVER = f"This button is from a fight that is over, so it passes no turn. {RUNNING_HERE}"
EARLIER_FIGHT = (
    "That button is from an earlier fight, or its attacker or attack has changed: "
    "`/encounter attack` rolls what the fight has now."
)


class NotAllowed(EncounterError):
    """A change only whoever runs the fight, a game master (or the combatant's owner) may make."""

    title = "Not allowed"


class TooMany(EncounterError):
    """More combatants of one player than a fight takes."""

    title = "Too many combatants"


def channel_of(interaction: Interaction) -> int:
    """The channel an encounter lives in."""
    if interaction.channel_id is None:
        raise UserError("An encounter lives in a channel: use this command in one.")
    return interaction.channel_id


def runs(asker: Viewer, encounter: Encounter) -> bool:
    """Whether `asker` may run this fight: whoever started it, or one of the server's game masters.

    Running a fight (turns, order, its own quick creatures) opens no secret: seeing asks the audience policy.
    """
    return asker.game_master or asker.user_id == encounter.gm_id


def require_runner(asker: Viewer, encounter: Encounter, doing: str) -> None:
    """Refuse anyone but whoever runs the fight."""
    if not runs(asker, encounter):
        raise NotAllowed(f"Only whoever runs this fight (<@{encounter.gm_id}>) or a game master can {doing}.")


def require_owner(asker: Viewer, encounter: Encounter, combatant: Combatant, doing: str) -> None:
    """Refuse anyone but whoever runs the fight and the combatant's owner."""
    if asker.user_id != combatant.owner_id and not runs(asker, encounter):
        raise NotAllowed(f"Only whoever runs this fight or <@{combatant.owner_id}> can {doing} **{combatant.name}**.")


def within_cap(asker: Viewer, encounter: Encounter, adding: int) -> None:
    """Refuse a player (not a game master) more than `rules.MAX_OWN_COMBATANTS` combatants of their own."""
    if asker.game_master:
        return
    own = sum(c.owner_id == asker.user_id for c in encounter.combatants)
    if own + adding > rules.MAX_OWN_COMBATANTS:
        raise TooMany(
            f"A player brings at most {rules.MAX_OWN_COMBATANTS} combatants of their own to a fight; you have "
            f"{own} here. A game master (Manage Server or the game master role) adds more."
        )


def tracker_view(encounter: Encounter, fight: int, page: int, pages: int) -> discord.ui.View:
    """The tracker's buttons: Next, naming the turn it was shown at, then the pages before and after `page`."""
    view = discord.ui.View(timeout=None)
    view.add_item(NextTurn(fight, encounter.steps))
    for n in (page - 1, page + 1):
        if 1 <= n <= pages:
            view.add_item(TrackerPage(fight, n))
    return view


def tracker(encounter: Encounter, fight: int, *, page: int | None = None) -> dict[str, Any]:
    """The channel's tracker of the fight `fight` as a message: a page (default: whose turn it is) and its buttons."""
    pages, turn = ui.paged_tracker(encounter)
    shown = max(1, min(turn if page is None else page, len(pages)))
    return {"embed": pages[shown - 1], "view": tracker_view(encounter, fight, shown, len(pages))}


def turn_buttons(encounter: Encounter, fight: int, combatant: Combatant) -> list[discord.ui.Item[Any]]:
    """The buttons a combatant's turn message carries besides Next (at most 4 more: one row): its stored attacks.

    A quick creature's attacks are stored with it, so its turn offers them at one press each (`attack_buttons`);
    a character's are its sheet's weapons, read by `/encounter attack`, which shows them to its roller.
    """
    return list(attack_buttons(encounter, fight, combatant, combatant.attacks)[:4]) if combatant.attacks else []


def turn_view(encounter: Encounter, fight: int) -> discord.ui.View:
    """A turn message's buttons: Next (naming the fight and the turn, as the tracker's does), then the combatant's."""
    view = discord.ui.View(timeout=None)
    view.add_item(NextTurn(fight, encounter.steps))
    if encounter.current is not None:
        for item in turn_buttons(encounter, fight, encounter.current)[:4]:
            view.add_item(item)
    return view


async def pin(bot: DiceBot, channel_id: int, message_id: int, *, replacing: int | None = None) -> None:
    """Pin the tracker where the bot may (Manage Messages, or Pin Messages), and unpin the one it replaces.

    Where the bot may not, it says nothing: a tracker not pinned is only harder to find (`/encounter show`).
    """
    try:
        await bot.http.pin_message(channel_id, message_id, reason="The encounter's tracker")
        if replacing is not None and replacing != message_id:
            await bot.http.unpin_message(channel_id, replacing, reason="An older tracker of the encounter")
    except discord.HTTPException as error:
        log.info("Could not pin the tracker %s in channel %s: %s", message_id, channel_id, error.status)


async def keep_tracker(interaction: Interaction, sent: discord.InteractionCallbackResponse[Any] | int | None) -> None:
    """Remember a tracker just posted in the channel as the one that shows the fight (edited after changes), pinned.

    `sent`: the response or the id of the message that shows it.
    """
    message_id = sent if isinstance(sent, int) or sent is None else sent.message_id
    if message_id is None:
        return
    guild_id, channel_id = guild_of(interaction), channel_of(interaction)
    async with interaction.client.database.write.begin() as session:
        repository = EncounterRepository(session)
        record = await repository.get(guild_id=guild_id, channel_id=channel_id)
        await repository.keep_tracker(guild_id=guild_id, channel_id=channel_id, message_id=message_id)
    replacing = record.tracker_id if record is not None else None
    allowed = interaction.app_permissions
    if allowed.manage_messages or allowed.pin_messages:
        # Asked only where it may: Discord counts every refused request against the bot (10,000 in 10 minutes
        # and it is banned for an hour), and a tracker a server did not let it pin is fine unpinned.
        await pin(interaction.client, channel_id, message_id, replacing=replacing)


async def refresh_tracker(bot: DiceBot, guild_id: int, channel_id: int) -> bool:
    """Edit the channel's tracker to the fight as it now stands, after a change said in a note of its own.

    The fight is read again, so the tracker shows the latest change even when two come at once. A tracker that
    cannot be edited (deleted, the channel closed to the bot) is only a stale picture: the note said the change,
    and the next Next or `/encounter show` posts a fresh one.
    """
    async with bot.database.read() as session:
        record = await EncounterRepository(session, bot.database.reads).get(guild_id=guild_id, channel_id=channel_id)
    if record is None or record.tracker_id is None:
        return False
    message = bot.get_partial_messageable(channel_id, guild_id=guild_id).get_partial_message(record.tracker_id)
    try:
        await message.edit(**tracker(record.encounter, record.id))
    except discord.HTTPException as error:
        log.info("Could not edit the tracker %s in channel %s: %s", record.tracker_id, channel_id, error)
        return False
    return True


async def show_turn(
    interaction: Interaction, turn: rules.Turn, drawn: Drawn[Any] | None, fight: int, note: str = ""
) -> int | None:
    """Answer a pass of the turn with its turn message, then bring the channel's one tracker up to date.

    The turn message pings only the player whose turn it is (`ui.pinged`), after `note` when the pass was not a
    Next (a delay); the tracker is edited in place, or, when the channel has none left (deleted, never posted),
    posted again under the turn message and pinned; either way it shows the page with whose turn it now is.
    `fight`: the fight's id, which the tracker's Page buttons name. Returns the turn message's id (the snowflake
    that shows the pass).
    """
    shown = ui.turn_message(turn, note)
    embed = fit(stamp(shown.embed, drawn.dice)) if drawn is not None else shown.embed
    mentions = (
        discord.AllowedMentions(everyone=False, roles=False, replied_user=False, users=[discord.Object(shown.mention)])
        if shown.mention is not None
        else discord.AllowedMentions.none()
    )
    kwargs: dict[str, Any] = {"content": shown.content} if shown.content else {}
    sent = await interaction.response.send_message(
        embed=embed, view=turn_view(turn.encounter, fight), allowed_mentions=mentions, **kwargs
    )
    bot = interaction.client
    if not await refresh_tracker(bot, guild_of(interaction), channel_of(interaction)):
        posted = await interaction.followup.send(**tracker(turn.encounter, fight), wait=True)
        await keep_tracker(interaction, posted.id)
    return sent.message_id


async def using_drawn(
    interaction: Interaction,
    drawn: Drawn[Any],
    attempt: Callable[[], Awaitable[T]],
    *,
    stale: tuple[type[Exception], ...],
) -> T:
    """Make a change with a roll drawn for it outside the write; a change that fails gives the roll up.

    A `stale` failure means the fight changed meanwhile so that the roll no longer fits it: the asker is told so.
    Either way the roll is abandoned with its reason, so a fair number taken for it says why nothing came of it.
    """
    try:
        return await attempt()
    except stale:
        changed = EncounterError(CHANGED_MEANWHILE)
        await interaction.client.abandon_roll(drawn.dice, changed)
        raise changed from None
    except Exception as error:
        await interaction.client.abandon_roll(drawn.dice, error)
        raise


async def with_initiative(
    interaction: Interaction, command: str, attempt: Callable[[rules.Prerolled], Awaitable[T]]
) -> tuple[T, Drawn[rules.Initiative] | None]:
    """Make a change that may roll initiative, its roll drawn as every roll is (a fair session's dice, if one runs).

    `attempt` runs the change in one write transaction. It runs first with no roll made; a change that needs
    initiative raises `rules.Unrolled` there, so nothing was written. The roll it asked for is then drawn through
    `draw` (under the replay kind of `command`, outside any write transaction, as taking a fair number needs),
    and the change runs again with it, logging it in its write transaction (`LoggedInitiative`): the fight never
    keeps an initiative the log lacks, nor the log one the fight lost. A fight that changed in between so that it
    needs another roll is refused, and a roll the change did not use (a Next that found the turn passed) is not
    answered: either way the fair number says why. Returns the roll when the change used it: the caller stamps its
    answer.
    """
    bot = interaction.client
    try:
        return await attempt(rules.Prerolled()), None
    except rules.Unrolled as needed:
        asked = needed.asked
    # The tracker's initiative is the channel's: `/encounter add`'s `hidden` hides hit points, not the roll.
    drawn = await draw(bot, interaction, replay.INITIATIVE[command], asked, hidden=False)
    rolled = Rolled(ruleset=drawn.result.asked.ruleset)
    record = drawn_record(bot, interaction, drawn, result=drawn.proof.outcome, rolled=rolled)
    made = LoggedInitiative(drawn.result, record)
    done = await using_drawn(interaction, drawn, lambda: attempt(made), stale=(rules.Unrolled,))
    if not made.used:  # a Next that found the turn passed meanwhile, say
        await bot.abandon_roll(drawn.dice, EncounterError(NOT_NEEDED))
        return done, None
    return done, drawn


class LoggedInitiative(rules.Prerolled):
    """Initiative rolled before its change, with the log's record of the roll: the change logs it if it takes it."""

    __slots__ = ("record",)

    def __init__(self, made: rules.Initiative, record: RollRecord) -> None:
        super().__init__(made)
        self.record = record


async def log_taken(session: AsyncSession, dice: rules.Dice) -> None:
    """In a change's write transaction: log the initiative it took from `dice`, if they were rolled for it."""
    if isinstance(dice, LoggedInitiative) and dice.used:
        await log_in(session, dice.record)


class TurnGuard:
    """Makes `/encounter next` as safe as the Next button: two typed at once pass one turn.

    The button names the step it was shown at; a typed command cannot, so the guard remembers, per channel, the
    message that showed the last pass (its snowflake). A Next command made before that message existed could not
    have seen that pass: it was aimed at the turn already passed, and passes nothing. While a pass is still being
    answered every Next command is refused the same way. Kept in the bot's memory: a restart forgets only passes
    shown before it, which no command still in flight can have missed.
    """

    PASSING: Final = 1 << 64  # above every snowflake: a pass not yet shown
    LOCKS_KEPT: Final = 1024  # channels whose lock is kept between passes (an idle one is made again when needed)

    def __init__(self) -> None:
        self._shown: dict[int, int] = {}  # channel -> the snowflake of the message that showed its last pass
        self._locks: dict[int, asyncio.Lock] = {}

    def lock(self, channel_id: int) -> asyncio.Lock:
        """The channel's passes, one at a time in the order they arrived in this process.

        The database's row lock alone lets whichever connection is ready first win, so of two presses at once
        the later could pass the turn and the earlier be told that someone already had.
        """
        if len(self._locks) >= self.LOCKS_KEPT:
            self._locks = {c: held for c, held in self._locks.items() if held.locked()}
        return self._locks.setdefault(channel_id, asyncio.Lock())

    def blind(self, channel_id: int, interaction_id: int) -> bool:
        """Whether a Next command made as `interaction_id` was made before the channel's last pass was shown."""
        return interaction_id < self._shown.get(channel_id, 0)

    def passing(self, channel_id: int) -> int:
        """A pass is being made and not yet shown; what the guard held before (to `shown` it back on failure)."""
        before = self._shown.get(channel_id, 0)
        self._shown[channel_id] = self.PASSING
        return before

    def shown(self, channel_id: int, snowflake: int) -> None:
        """The channel's last pass was shown by the message (or the button press) `snowflake`."""
        self._shown[channel_id] = snowflake


def turn_guard(bot: DiceBot) -> TurnGuard | None:
    """The encounter cog's guard of typed Next commands (None when the cog is not loaded)."""
    cog = bot.get_cog("Encounters")
    return cog.turns if isinstance(cog, Encounters) else None


async def pass_turn(interaction: Interaction, *, seen_step: int | None, seen_fight: int | None = None) -> None:
    """End the current turn (the first call rolls initiative) and answer with the turn message (`show_turn`).

    A button names the step it was shown at (`seen_step`): when the encounter has moved on since, nothing passes
    and the asker sees, privately, where it stands, so two presses at once pass one turn. It names its fight too
    (`seen_fight`): one that has ended passes no turn of the channel's next fight. A typed command (no
    `seen_step`) is held to the same by the `TurnGuard`, told once the pass is shown by which
    message. Initiative is drawn as every roll is and logged in the pass's own transaction (`with_initiative`), its
    answer stamped. The dying combatants' d% on the way are drawn the same way in a channel with a fair session
    (`rules.Foretold`), else they roll the bot's dice (and so does a first Next, whose one fair number is
    initiative's: an interaction rolls once).
    """
    bot = interaction.client
    guild_id, channel_id = guild_of(interaction), channel_of(interaction)
    guard = turn_guard(bot)
    held = None
    made: rules.DyingFaces | None = None  # the dying's d% drawn for this pass, once a try asked for them
    fated: Drawn[rules.DyingFaces] | None = None  # the roll that drew them
    took = False  # whether the pass took them
    fight = 0  # the fight's id, once read
    drawn: Drawn[Any] | None

    async def attempt(dice: rules.Prerolled) -> tuple[rules.Turn, bool]:
        nonlocal held, took, fight
        async with bot.database.write.begin() as session:
            repository = EncounterRepository(session)
            record = await repository.current(guild_id=guild_id, channel_id=channel_id, for_update=True)
            if seen_fight is not None and seen_fight != record.id:
                raise EncounterError(FIGHT_OVER, title="Fight over")
            fight = record.id
            before = record.encounter
            if seen_step is not None and seen_step != before.steps:
                return rules.Turn(before), False
            if seen_step is None and guard is not None and guard.blind(channel_id, interaction.id):
                return rules.Turn(before), False
            # Asked under the lock: awaited before it, a settings read let a later press overtake an earlier one.
            asker = await viewer(bot, interaction)
            current = before.current
            if current is None:
                require_runner(asker, before, "roll initiative and start the fight")
            else:
                require_owner(asker, before, current, "end the turn of")
            fair = before.begun and await FairRepository(session).open(channel_id) is not None
            fate = rules.Foretold(made) if fair else bot.dice
            turn = rules.advance_turn(before, dice, fate)
            if isinstance(fate, rules.Foretold):
                fate.settle(turn.encounter)  # raises for the d% this pass needs: drawn below, and tried again
                took = fate.used
            # Under the fight's lock, before it is committed: a Next command waiting for the lock sees it.
            held = guard.passing(channel_id) if guard is not None else None
            await repository.save(
                record, turn.encounter, now=bot.clock(), what=ui.pass_line(before, turn), at=interaction.id
            )
            # The rolls the pass took, logged with it: the fight never keeps a roll the log lacks.
            await log_taken(session, dice)
            if took and fated is not None:
                rolled = Rolled(ruleset=before.ruleset)
                await log_in(session, drawn_record(bot, interaction, fated, result=fated.proof.outcome, rolled=rolled))
        return turn, True

    one_at_a_time = guard.lock(channel_id) if guard is not None else contextlib.nullcontext()
    # The pass is shown under the channel's lock too: a second press waits until the first is answered and the
    # tracker edited, so the two answers always come in the same order.
    async with one_at_a_time:
        try:
            try:
                (turn, passed), drawn = await with_initiative(interaction, "encounter next", attempt)
            except rules.Unfated as needed:
                # As initiative (`with_initiative`): drawn outside the write, as a fair number needs, then used.
                fated = await draw(bot, interaction, replay.DYING, needed.asked, hidden=False)
                made = fated.result
                stale = (rules.Unfated, rules.Unrolled)
                turn, passed = await using_drawn(interaction, fated, lambda: attempt(rules.Prerolled()), stale=stale)
                drawn = fated if took else None
                if not took:  # the turn passed meanwhile, say
                    await bot.abandon_roll(fated.dice, EncounterError(NOT_NEEDED))
        except BaseException:
            if guard is not None and held is not None:
                guard.shown(channel_id, held)
            raise
        shown = interaction.id
        try:
            if not passed:
                # Pressed or typed at the same time as another Next that passed this turn: where it stands, privately.
                embed = ui.tracker_embed(turn.encounter, note=MOVED_ON)
                await interaction.response.send_message(embed=embed, ephemeral=True)
                return
            shown = await show_turn(interaction, turn, drawn, fight) or shown
        finally:
            # The turn passed: a failed log or answer must not hold every later Next command back.
            if passed and guard is not None:
                guard.shown(channel_id, shown)


async def fight_here(session: AsyncSession, interaction: Interaction) -> EncounterRecord | None:
    """This channel's encounter, for autocomplete: None outside a server's channel or where no fight runs."""
    if interaction.guild_id is None or interaction.channel_id is None:
        return None
    fights = EncounterRepository(session, interaction.client.database.reads)
    return await fights.get(guild_id=interaction.guild_id, channel_id=interaction.channel_id)


async def combatant_choices(bot: DiceBot, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Autocomplete: the combatants of this channel's encounter whose name contains what was typed.

    For any option that names a combatant (an attack's `target:` too); nothing outside the encounter's channel.
    """
    async with bot.database.read() as session:
        record = await fight_here(session, interaction)
    if record is None:
        return []
    typed = name_key(current)
    names = [c.name for c in record.encounter.combatants if typed in name_key(c.name)]
    return [app_commands.Choice(name=name, value=name) for name in names][:25]


class NextTurn(Pressed, template=r"encounter:next:(?P<fight>[0-9]+):(?P<step>[0-9]+)"):
    """The tracker's Next button: ends the current turn and edits the tracker in place.

    Who may pass the turn, and in which channel's fight, `pass_turn` asks as `/encounter next` does. The button names
    its fight as well as its turn: each fight counts its turns from 0, so an ended fight's Next would otherwise pass
    the turns of the channel's next fight.
    """

    def __init__(self, fight: int, step: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Next", style=discord.ButtonStyle.primary, custom_id=f"encounter:next:{fight}:{step}"
            )
        )
        self.fight, self.step = fight, step

    async def press(self, interaction: Interaction) -> None:
        """Pass the turn (unless someone already did) and post the turn message; the tracker is edited in place.

        A press that finds the turn passed already (two at once, or an old turn message's) shows the presser,
        privately, the tracker as it now stands.
        """
        # A press is `/encounter next` made with a button: so the roll log and a fair log name it.
        interaction.extras["command"] = "encounter next"
        await pass_turn(interaction, seen_step=self.step, seen_fight=self.fight)


class TrackerPage(Pressed, template=r"encounter:page:(?P<fight>[0-9]+):(?P<page>[0-9]+)"):
    """A Page button of the channel's tracker: shows that page in place, as the channel sees it.

    The tracker is public, so anyone in the channel turns its pages (passing the turn stays Next's, which asks who
    may); the button names the fight, so a page of one that ended is not taken from the channel's next fight.
    """

    prefix = "encounter:page"

    def __init__(self, fight: int, page: int) -> None:
        ids = f"{self.prefix}:{fight}:{page}"
        super().__init__(discord.ui.Button(label=f"Page {page}", style=discord.ButtonStyle.secondary, custom_id=ids))
        self.fight = fight
        self.page = page

    async def fighting(self, interaction: Interaction) -> EncounterRecord:
        """The fight the button names, if it still runs in this channel; else why not."""
        if interaction.guild_id is not None and interaction.channel_id is not None:
            async with interaction.client.database.read() as session:
                record = await fight_here(session, interaction)
            if record is not None and record.id == self.fight:
                return record
        raise UserError(f"This fight is over, so its tracker turns no more pages. {RUNNING_HERE}", title="Fight over")

    async def press(self, interaction: Interaction) -> None:
        """Show the page of the fight as it stands now, in place."""
        record = await self.fighting(interaction)
        await interaction.response.edit_message(**tracker(record.encounter, record.id, page=self.page))


class PrivatePage(TrackerPage, template=r"encounter:mine:(?P<fight>[0-9]+):(?P<page>[0-9]+)"):
    """A Page button of a private tracker (`/encounter show private`): the page as its presser may see it, privately.

    Only ever answered privately: a made-up id pressed under the channel's tracker shows the presser alone what
    they may see, and changes nothing the channel sees.
    """

    prefix = "encounter:mine"

    async def press(self, interaction: Interaction) -> None:
        """Show the page as the presser sees it: in place on their private tracker, else in a private answer."""
        record = await self.fighting(interaction)
        presser = await viewer(interaction.client, interaction)
        pages = ui.tracker_pages(record.encounter, viewer=presser)
        page = max(1, min(self.page, len(pages)))
        embed, view = pages[page - 1], private_view(record.id, page, len(pages))
        if interaction.message is not None and interaction.message.flags.ephemeral:
            await interaction.response.edit_message(embed=embed, view=view)
        else:
            await interaction.response.send_message(embed=embed, view=view, ephemeral=True)


def private_view(fight: int, page: int, pages: int) -> discord.ui.View:
    """A private tracker's buttons: the pages before and after `page` (it passes no turn: the channel's does)."""
    view = discord.ui.View(timeout=None)
    for n in (page - 1, page + 1):
        if 1 <= n <= pages:
            view.add_item(PrivatePage(fight, n))
    return view


def dump_hits(hits: Sequence[tuple[str, Hit]], *, fight: int | None) -> list[dict[str, Any]]:
    """What the roll log keeps of hits waiting for a hand: the fight's id, each combatant (`#3`), and its hit."""
    return [{"fight": fight, "target": target, **dataclasses.asdict(hit)} for target, hit in hits]


def load_hits(raw: Sequence[dict[str, Any]]) -> tuple[int | None, list[tuple[str, Hit]]]:
    """The fight and the hits `dump_hits` kept."""
    hits = [
        (h["target"], Hit(damage=h["damage"], knockout_turns=h.get("knockout_turns"), stun_turns=h.get("stun_turns")))
        for h in raw
    ]
    return (raw[0].get("fight") if raw else None), hits


def apply_label(hits: Sequence[tuple[str, Hit]]) -> str:
    """The Apply button's label: whom the hits are on, never what they do (a hidden combatant's numbers)."""
    names = list(dict.fromkeys(target for target, _ in hits))
    return f"Apply the hit to {names[0]}" if len(names) == 1 else f"Apply the hits to {', '.join(names)}"


class ApplyHits(OnRoll, template=r"strike:(?P<interaction_id>[0-9]+)"):
    """Apply a private or hidden roll's hits on the fight, once: then the tracker shows them to the table.

    What is applied, and to whom, is read from the roll log (the bot wrote it there), never from the button; who
    may press it asks the audience policy (`applies_hit`): a private roll's roller or a game master, a hidden
    roll's game master (its button is under the GM channel's copy, so not in the roll's channel).
    """

    in_channel = False
    game_masters = True

    def __init__(self, interaction_id: int, label: str = "Apply the hit") -> None:
        button = discord.ui.Button[Any](
            label=label[:80], style=discord.ButtonStyle.danger, custom_id=f"strike:{interaction_id}"
        )
        super().__init__(interaction_id, button)

    def may_press(self, presser: Viewer, roll: LoggedRoll, shown: Visibility) -> bool:
        """The audience policy's: a private roll's roller or a game master, a hidden roll's game master."""
        return applies_hit(presser, roll.user_id, shown)

    def refused(self, roll: LoggedRoll, shown: Visibility) -> UserError:
        """Who may apply it."""
        who = "a game master" if roll.hidden else f"<@{roll.user_id}>, who rolled it, or a game master"
        return NotAllowed(f"Only {who} applies this {shown.value} roll's hit to the fight.")

    def unseen(self, roll: LoggedRoll, shown: Visibility) -> UserError:
        """The button is in the roller's answer or the GM channel: whoever else presses it is told who may."""
        return self.refused(roll, shown)

    async def on_roll(self, interaction: Interaction, roll: LoggedRoll, presser: Viewer) -> None:
        """Apply the hits in one transaction, take the button away, and bring the fight's tracker up to date."""
        bot = interaction.client
        raw = (roll.details or {}).get(STRIKE)
        if raw is None or roll.guild_id is None or roll.channel_id is None:
            raise UserError(NOT_FOUND)
        async with bot.database.write.begin() as session:
            if not await RollRepository(session).claim(self.interaction_id, STRIKE):
                raise UserError("This roll's hit was applied already.", title="Applied already")
            fight, hits = load_hits(raw)
            record, changes = await EncounterRepository(session).apply_hits(
                guild_id=roll.guild_id,
                channel_id=roll.channel_id,
                hits=hits,
                now=bot.clock(),
                fight=fight,
                describe=lambda fought, changes: "; ".join(ui.change_line(fought, c) for c in changes),
                at=interaction.id,
            )
        await interaction.response.edit_message(view=without(interaction, f"strike:{self.interaction_id}"))
        lines = "\n".join(ui.change_line(record.encounter, change, presser) for change in changes)
        note = ui.change_embed(f"Applied by {interaction.user.display_name}", lines)
        await interaction.followup.send(embed=note, ephemeral=True)
        await refresh_tracker(bot, roll.guild_id, roll.channel_id)


def default_target(encounter: Encounter, attacker: Combatant) -> Combatant | None:
    """Whom an attack strikes when no target is named: the next living foe after the attacker in turn order.

    A default: the table names another with `/encounter attack target:`.
    """
    at = next(i for i, c in enumerate(encounter.combatants) if c.number == attacker.number)
    ring = [*encounter.combatants[at + 1 :], *encounter.combatants[:at]]
    return next((c for c in ring if c.side is not attacker.side and rules.can_act(encounter.ruleset, c)), None)


async def fighting_attacks(
    session: AsyncSession, guild_id: int, encounter: Encounter, who: Combatant
) -> tuple[StoredAttack, ...]:
    """A combatant's attacks: its stored ones, and a character's weapons read from its sheet."""
    sheet = None
    if who.character_id is not None:
        record = await CharacterRepository(session).get(who.character_id, guild_id=guild_id)
        sheet = record.sheet if record is not None and record.ruleset.key == encounter.ruleset else None
    return stored.attacks_of(encounter.ruleset, who, sheet)


def turn_to(encounter: Encounter, attacker: Combatant, target: Combatant) -> list[Combatant]:
    """Whom a full attack turns to when its target drops: the next living foes after the target, in turn order.

    A default (the SRD lets each attack of a full attack pick its foe): at most 4, and none whose hit points the
    game master keeps (they would be in the roll's input).
    """
    at = next(i for i, c in enumerate(encounter.combatants) if c.number == target.number)
    ring = [*encounter.combatants[at + 1 :], *encounter.combatants[:at]]
    foes = [c for c in ring if c.side is not attacker.side and c.number != attacker.number and not c.hidden]
    return [c for c in foes if rules.can_act(encounter.ruleset, c)][:4]


def attack_buttons(
    encounter: Encounter, fight: int, combatant: Combatant, attacks: Sequence[StoredAttack]
) -> list[AttackButton]:
    """The buttons of a combatant's attacks in the fight `fight` (at most 5: one row), labelled "Goblin 1: greatclub".

    Each rolls that attack at the next foe in order (`default_target`) as `/encounter attack` would. For a turn
    message: under the turn of whoever has it. `/encounter attack` shows them to its roller.
    """
    return [
        AttackButton(
            fight,
            combatant.number,
            index,
            encounter.steps,
            attack_mark(combatant, attack),
            f"{combatant.name}: {attack.name}",
        )
        for index, attack in enumerate(attacks[:5])
    ]


async def roll_stored(
    interaction: Interaction,
    *,
    attacker: str | None,
    target: str | None,
    attack: str | None,
    hidden: bool,
    distance: str | None = None,
    fight: int | None = None,
) -> tuple[int, Encounter, Combatant, tuple[StoredAttack, ...]]:
    """Roll a combatant's stored attack as its ruleset's own roll command (the one roll path, `cogs._replay`).

    Returns the fight's id, the fight, the attacker and its attacks. `fight`: the fight a button was shown in, which
    must still run here (else `EARLIER_FIGHT`).

    The attacker is `attacker` or whoever has the turn; who may: whoever runs the fight, or the attacker's owner.
    The dead, the dying and the helpless are refused (`encounter_attacks.able_to_attack`). Its hit is applied
    as any attack's on a combatant; the roll is logged as that command with these options.
    """
    bot = interaction.client
    guild_id, channel_id = guild_of(interaction), channel_of(interaction)
    asker = await viewer(bot, interaction)
    async with bot.database.read() as session:
        record = await EncounterRepository(session).current(guild_id=guild_id, channel_id=channel_id)
        if fight is not None and record.id != fight:
            raise EncounterError(EARLIER_FIGHT, title="No such attack")
        encounter = record.encounter
        if attacker is not None:
            who = rules.find(encounter, attacker)
        elif encounter.current is not None:
            who = encounter.current
        else:
            raise EncounterError("The fight has not begun: name the `attacker`, or roll initiative with Next.")
        require_owner(asker, encounter, who, "attack with")
        stored.able_to_attack(encounter, who)
        attacks = await fighting_attacks(session, guild_id, encounter, who)
        chosen = stored.choose(who, attacks, attack)
    struck = rules.find(encounter, target) if target is not None else default_target(encounter, who)
    if struck is None:
        raise EncounterError(f"**{who.name}** has nobody of the other side left to attack: name a `target`.")
    options: dict[str, Any] = {**chosen.typed, "target": struck.name}
    if chosen.named_by:
        options[chosen.named_by] = who.name  # a stored attack is quick mode, under the combatant's name
    if hidden:
        options["hidden"] = True
    if distance is not None:
        options["distance"] = distance
    command = roll_command(bot.tree, chosen.command)
    turns = command is not None and any(p.display_name == "then" for p in command.parameters)
    # A full attack turns to the next foes in turn order when its target drops (SRD, Full Attack).
    if turns and (then := turn_to(encounter, who, struck)):
        options["then"] = ", ".join(c.name for c in then)
    await run_roll(interaction, chosen.command, options)
    return record.id, encounter, who, attacks


class AttackButton(
    Pressed,
    template=(
        r"encounter:attack:(?P<fight>[0-9]+):(?P<number>[0-9]+):(?P<index>[0-9]+):(?P<step>[0-9]+)"
        r":(?P<mark>[0-9a-f]{8})"
    ),
):
    """One of a combatant's attacks as a button: rolls it at the next foe in order, as `/encounter attack`.

    Who may press it, and whether the attacker can still attack, `roll_stored` asks; the step it was shown at only
    tells the button apart from an older one's. The id names the fight, which must still run in the channel (the
    channel's next fight numbers its combatants again), and the combatant by its number in it: its mark
    (`attack_mark`) must still match that combatant's name and attack, so an old button never rolls a new fight's
    creature, nor a renamed one's or a changed attack.
    """

    TEXT = frozenset({"mark"})  # eight hex digits, all of them digits now and then: "69605404" is not a number

    def __init__(self, fight: int, number: int, index: int, step: int, mark: str, label: str = "Attack") -> None:
        super().__init__(
            discord.ui.Button(
                label=label[:80],
                style=discord.ButtonStyle.secondary,
                custom_id=f"encounter:attack:{fight}:{number}:{index}:{step}:{mark}",
            )
        )
        self.fight, self.number, self.index, self.step, self.mark = fight, number, index, step, mark

    async def press(self, interaction: Interaction) -> None:
        """Roll the attack at the next foe in order."""
        bot = interaction.client
        async with bot.database.read() as session:
            record = await EncounterRepository(session).current(
                guild_id=guild_of(interaction), channel_id=channel_of(interaction)
            )
            try:
                who = rules.find(record.encounter, f"#{self.number}") if record.id == self.fight else None
            except EncounterError:
                who = None
            attacks = await fighting_attacks(session, guild_of(interaction), record.encounter, who) if who else ()
        if who is None or self.index >= len(attacks) or attack_mark(who, attacks[self.index]) != self.mark:
            raise EncounterError(EARLIER_FIGHT, title="No such attack")
        await roll_stored(
            interaction,
            attacker=f"#{self.number}",
            target=None,
            attack=attacks[self.index].name,
            hidden=False,
            fight=self.fight,
        )


class OlderButton(Pressed, template=r"encounter:(?P<old>next:[0-9]+|attack:[0-9]+:[0-9]+:[0-9]+:[0-9a-f]{8})"):
    """Next and attack buttons as the bot made them before they named their fight.

    Naming no fight, they could act on the channel's next one: a press is told how to go on instead.
    """

    def __init__(self, old: str) -> None:
        super().__init__(discord.ui.Button(label="Old", custom_id=f"encounter:{old}"))

    async def press(self, interaction: Interaction) -> None:
        """Refuse, with what to do instead."""
        raise EncounterError(
            "This button is from an older version of the bot and no longer works. `/encounter show` posts the "
            "fight's tracker with new buttons; `/encounter next` passes the turn and `/encounter attack` attacks.",
            title="An old button",
        )


def attack_mark(who: Combatant, attack: StoredAttack) -> str:
    """Eight hex digits of the combatant's name and the attack's: what an attack button checks it still names."""
    named = "\0".join((who.name, attack.name)).encode()
    return f"{zlib.crc32(named):08x}"


@app_commands.guild_only()
class Encounters(commands.GroupCog, group_name="encounter", group_description="A combat tracker for this channel"):
    """One encounter per channel: combatants, initiative, turns, health and conditions."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        self.turns = TurnGuard()
        self.quiet = QuietRolls()
        super().__init__()

    # -- the one write path ------------------------------------------------------------------------------
    async def change(
        self, interaction: Interaction, step: Step[T], *, undoable: bool = True, dice: rules.Dice | None = None
    ) -> tuple[Encounter, T]:
        """Run `step` on the channel's encounter in one transaction and save what it returns (version-checked).

        `dice`: the initiative the step may take, logged in the same transaction if it does (`log_taken`).
        """
        guild_id, channel_id = guild_of(interaction), channel_of(interaction)
        async with self.bot.database.write.begin() as session:
            repository = EncounterRepository(session)
            record = await repository.current(guild_id=guild_id, channel_id=channel_id, for_update=True)
            after, extra = await step(record, session)
            what = ui.change_line(after, extra) if isinstance(extra, rules.Change) else str(extra)
            await repository.save(
                record, after, now=self.bot.clock(), undoable=undoable, what=what.split("\n")[0], at=interaction.id
            )
            if dice is not None:
                await log_taken(session, dice)
        return after, extra

    async def rolling_change(
        self, interaction: Interaction, command: str, step: RollingStep[T]
    ) -> tuple[Encounter, T, Drawn[rules.Initiative] | None]:
        """`change` for a step that may roll initiative (`with_initiative`): the roll it made and logged, if any."""

        async def attempt(dice: rules.Prerolled) -> tuple[Encounter, T]:
            return await self.change(interaction, lambda record, session: step(record, session, dice), dice=dice)

        (after, extra), drawn = await with_initiative(interaction, command, attempt)
        return after, extra, drawn

    async def read(self, interaction: Interaction) -> EncounterRecord:
        """The channel's encounter, read only."""
        async with self.bot.database.read() as session:
            return await EncounterRepository(session).current(
                guild_id=guild_of(interaction), channel_id=channel_of(interaction)
            )

    async def answer(
        self, interaction: Interaction, encounter: Encounter, note: str, drawn: Drawn[rules.Initiative] | None = None
    ) -> None:
        """Answer a change with a short public note, then bring the tracker up to date (its Next stays valid).

        A change that rolled initiative (`drawn`) carries its fair roll's stamp.
        """
        title = clip(f"{encounter.name}: {encounter.current.name}'s turn" if encounter.current else encounter.name, 256)
        embed = ui.change_embed(title, note)
        if drawn is not None:
            embed = fit(stamp(embed, drawn.dice))
        await interaction.response.send_message(embed=embed)
        await refresh_tracker(self.bot, guild_of(interaction), channel_of(interaction))

    # -- autocomplete -----------------------------------------------------------------------------------
    async def combatants(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The combatants of this channel's encounter whose name contains what was typed."""
        return await combatant_choices(self.bot, interaction, current)

    async def condition_names(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The conditions the encounter's ruleset gives effects, that start with (or contain) what was typed.

        Any other name is taken as a label: what was typed stays a choice of its own.
        """
        async with self.bot.database.read() as session:
            record = await fight_here(session, interaction)
        if record is None:
            return []
        typed = " ".join(current.split()).casefold()
        names = rulesets.fighting(record.encounter.ruleset).conditions
        found = sorted((n for n in names if typed in n), key=lambda n: (not n.startswith(typed), n))
        return [app_commands.Choice(name=n, value=n) for n in found[:25]]

    async def characters(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Characters of the encounter's ruleset: yours for join, anyone's here for add."""
        async with self.bot.database.read() as session:
            record = await fight_here(session, interaction)
        if record is None:
            return []
        anyone = interaction.command is not None and interaction.command.name == "add"
        return await character_choices(self.bot, interaction, current, rules=record.encounter.ruleset, anyone=anyone)

    # -- commands ---------------------------------------------------------------------------------------
    @app_commands.command(name="start")
    @app_commands.choices(ruleset=RULESET_CHOICES)
    async def start(
        self,
        interaction: Interaction,
        ruleset: str,
        name: app_commands.Range[str, 1, 40] = "Encounter",
        hide_hp: bool = False,
    ) -> None:
        """Start an encounter in this channel; you run it (turns, your quick creatures).

        Args:
            ruleset: The rules the fight uses
            name: What to call the fight (default: Encounter)
            hide_hp: Hide quick creatures' hit points from players (they see a health word)
        """
        guild_id, channel_id = guild_of(interaction), channel_of(interaction)
        settings = await self.bot.server_settings(guild_id)
        if settings.encounter_gm_only and not is_game_master(interaction, settings):
            raise NotAllowed(
                "On this server only the game masters (Manage Server or the game master role) start a fight "
                "(`/settings` `encounter.who`)."
            )
        encounter = rules.new_encounter(
            ruleset, name, interaction.user.id, by_side=settings.by_side(ruleset), hide_hp=hide_hp
        )
        async with self.bot.database.write.begin() as session:
            started = await EncounterRepository(session).start(
                guild_id=guild_id, channel_id=channel_id, encounter=encounter, now=self.bot.clock()
            )
        sent = await interaction.response.send_message(**tracker(encounter, started.id))
        await keep_tracker(interaction, sent)

    @app_commands.command(name="show")
    async def show(self, interaction: Interaction, private: bool = False) -> None:
        """Post this channel's tracker with its Next button; private shows you every number you may see.

        Args:
            private: Only you see it (a game master, or a combatant's owner, sees its hidden hit points too)
        """
        # A private view shows what the asker may see (the audience policy); the channel's shows what anyone may.
        record = await self.read(interaction)
        if private:
            asker = await viewer(self.bot, interaction)
            pages, page = ui.paged_tracker(record.encounter, viewer=asker)
            view = private_view(record.id, page, len(pages))
            await interaction.response.send_message(embed=pages[page - 1], view=view, ephemeral=True)
            return
        await keep_tracker(interaction, await interaction.response.send_message(**tracker(record.encounter, record.id)))

    @app_commands.command(name="next")
    async def next_(self, interaction: Interaction) -> None:
        """End the current turn (the first Next rolls initiative): a short turn message pings whose turn it is."""
        await pass_turn(interaction, seen_step=None)

    @app_commands.command(name="end")
    async def end(self, interaction: Interaction) -> None:
        """End this channel's encounter (whoever runs it, or a game master)."""
        guild_id, channel_id = guild_of(interaction), channel_of(interaction)
        asker = await viewer(self.bot, interaction)
        async with self.bot.database.write.begin() as session:
            repository = EncounterRepository(session)
            record = await repository.current(guild_id=guild_id, channel_id=channel_id, for_update=True)
            require_runner(asker, record.encounter, "end the encounter")
            await repository.end(record)
        await interaction.response.send_message(embed=ui.ended_embed(record.encounter))

    @app_commands.command(name="join")
    @app_commands.autocomplete(character=characters)
    @app_commands.choices(side=SIDE_CHOICES)
    async def join(
        self,
        interaction: Interaction,
        character: app_commands.Range[str, 1, 40] | None = None,
        side: str = Side.PARTY.value,
        improved_initiative: bool = False,
        initiative_bonus: app_commands.Range[int, -20, 20] = 0,
        rolled: app_commands.Range[int, -rules.MAX_GIVEN, rules.MAX_GIVEN] | None = None,
    ) -> None:
        """Join the fight with your active character of its ruleset (or the one you name).

        Args:
            character: One of your characters (default: your active one of the encounter's ruleset)
            side: Which side you fight on (default: party)
            improved_initiative: D&D: you have the Improved Initiative feat (+4)
            initiative_bonus: D&D: any other initiative modifier
            rolled: The initiative you rolled with your own dice, its total: taken as given, not rolled
        """
        asker = await viewer(self.bot, interaction)

        async def step(record: EncounterRecord, session: AsyncSession, dice: rules.Prerolled) -> tuple[Encounter, str]:
            encounter = record.encounter
            within_cap(asker, encounter, 1)
            found = await self._own_character(interaction, session, character, encounter.ruleset)
            entry = rules.from_sheet(
                encounter.ruleset,
                found.name,
                found.sheet,
                owner_id=interaction.user.id,
                side=Side(side),
                character_id=found.id,
                improved_initiative=improved_initiative,
                misc=initiative_bonus,
            )
            entries = rules.with_given(encounter, [_hidden(entry, found.secret)], rolled)
            after = rules.add(encounter, entries, dice)
            return after, self._entered(after, [entry.name])

        after, note, drawn = await self.rolling_change(interaction, "encounter join", step)
        await self.answer(interaction, after, note, drawn)

    async def _own_character(
        self, interaction: Interaction, session: AsyncSession, text: str | None, ruleset: str
    ) -> CharacterRecord:
        repository = CharacterRepository(session)
        title = ui.fight_title(ruleset)
        if text is None:
            active = await repository.active(guild_id=guild_of(interaction), user_id=interaction.user.id, rules=ruleset)
            if active is None:
                raise CharacterError(
                    f"You have no active {title} character here: pick one with `/character use`, or name it.",
                    title="Which character?",
                )
            return active
        found = await find(repository, interaction, text, owner_id=interaction.user.id)
        if found.ruleset.key != ruleset:
            raise CharacterError(f"**{found.name}** is a {found.ruleset.title} character; this fight is {title}.")
        return found

    @staticmethod
    def _entered(encounter: Encounter, names: list[str], *, grouped: bool = False) -> str:
        placed = [rules.find(encounter, name) for name in names]
        together = " as a group: one initiative, acting together" if grouped else ""
        if not encounter.begun:
            return f"{', '.join(names)} joined the fight{together}."
        rolled = [
            f"{rules.unit_name(unit)}: {ui.roll_text(unit[0].initiative)}"
            for unit in rules.units(placed)
            if unit[0].initiative
        ]
        return "\n".join([f"{', '.join(names)} joined the fight under way{together}.", *rolled])

    @app_commands.command(name="add")
    @app_commands.autocomplete(character=characters)
    @app_commands.choices(side=SIDE_CHOICES)
    async def add(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, 32] | None = None,
        character: app_commands.Range[str, 1, 40] | None = None,
        count: app_commands.Range[int, 1, rules.MAX_COUNT] = 1,
        hp: app_commands.Range[int, 1, rules.MAX_HP] | None = None,
        ac: app_commands.Range[int, 0, 100] | None = None,
        initiative: app_commands.Range[int, -20, 40] = 0,
        rs: app_commands.Range[int, 1, 100] | None = None,
        rw: app_commands.Range[int, 0, 200] | None = None,
        mw: app_commands.Range[int, 0, 200] | None = None,
        rank: app_commands.Range[int, 0, 4] | None = None,
        side: str = Side.FOES.value,
        hidden: bool | None = None,
        improved_initiative: bool = False,
        rolled: app_commands.Range[int, -rules.MAX_GIVEN, rules.MAX_GIVEN] | None = None,
        group: bool | None = None,
        attacks: app_commands.Range[str, 1, stored.MAX_TEXT] | None = None,
    ) -> None:
        """Add quick creatures or a character to the fight (whoever runs it; another's character: a game master).

        Args:
            name: A quick creature's name; with count 4, Goblin becomes Goblin 1-4
            character: Instead, a character of this server: #12 or its name
            count: How many of the quick creature (1-10)
            hp: Its hit points (Star Frontiers: Stamina; AliensRL: health)
            ac: D&D: its Armor Class (default 10)
            initiative: D&D: its initiative modifier; with a character, any other initiative modifier
            rs: Star Frontiers: its Reaction Speed (default 45, the average score)
            rw: Star Frontiers: its ranged weapon score
            mw: Star Frontiers: its melee weapon score
            rank: AliensRL: its skill rank, 0 (untrained) to 4 (master)
            side: Which side it fights on (default: foes)
            hidden: Hide its hit points from players (default: as the encounter was started)
            improved_initiative: D&D: it has the Improved Initiative feat (+4)
            rolled: The initiative its player rolled with their own dice, its total: taken as given, not rolled
            group: Like creatures roll one initiative and act together (default: the encounter.groups setting)
            attacks: Its attacks, ; between: greatclub +8 2d8+7 x3 (D&D), claws mw55/1 2d10 (SF), bite 5 (AliensRL)
        """
        if (name is None) == (character is None):
            raise UserError("Give a quick creature's `name` and `hp`, or a `character`, one of the two.")
        if attacks is not None and character is not None:
            raise UserError("A character's attacks are its weapons: `attacks` is for a quick creature.")

        asker = await viewer(self.bot, interaction)
        together = (await self.bot.server_settings(guild_of(interaction))).encounter_groups if group is None else group

        async def step(record: EncounterRecord, session: AsyncSession, dice: rules.Prerolled) -> tuple[Encounter, str]:
            encounter = record.encounter
            require_runner(asker, encounter, "add combatants")
            within_cap(asker, encounter, 1 if character is not None else count)
            secret = encounter.hide_hp if hidden is None else hidden
            if character is not None:
                found = await find(CharacterRepository(session), interaction, character)
                if found.owner_id != interaction.user.id and not asker.game_master:
                    raise NotAllowed(
                        f"**{found.name}** is <@{found.owner_id}>'s: they `/encounter join` with it, or a game master "
                        "adds it."
                    )
                if found.ruleset.key != encounter.ruleset:
                    raise CharacterError(f"**{found.name}** is a {found.ruleset.title} character, not this fight's.")
                entry = rules.from_sheet(
                    encounter.ruleset,
                    found.name,
                    found.sheet,
                    owner_id=found.owner_id,
                    side=Side(side),
                    character_id=found.id,
                    improved_initiative=improved_initiative,
                    misc=initiative,
                )
                # A secret character's hit points are the game master's in the fight too, unless `hidden` says.
                entries = [_hidden(entry, found.secret if hidden is None else hidden)]
            else:
                assert name is not None
                if hp is None:
                    raise UserError("A quick creature needs its `hp` (Star Frontiers: Stamina; AliensRL: health).")
                taken = [c.name for c in encounter.combatants]
                numbers = Quick(hp, ac, initiative, rs, rw, mw, rank, improved_initiative)
                entries = [
                    rulesets.fighting(encounter.ruleset).quick(each, numbers)
                    for each in rules.numbered(name, count, taken)
                ]
                entries = [_hidden(_owned(e, interaction.user.id, Side(side)), secret) for e in entries]
                if attacks is not None:
                    carried = stored.read_attacks(encounter.ruleset, attacks)
                    entries = [dataclasses.replace(e, attacks=carried) for e in entries]
            entries = rules.with_given(encounter, entries, rolled)
            grouped = together and len(entries) > 1 and rules.rolls_each(encounter)
            after = rules.add(encounter, entries, dice, group=grouped)
            return after, self._entered(after, [e.name for e in entries], grouped=grouped)

        after, note, drawn = await self.rolling_change(interaction, "encounter add", step)
        await self.answer(interaction, after, note, drawn)

    @app_commands.command(name="remove")
    @app_commands.autocomplete(combatant=combatants)
    async def remove(self, interaction: Interaction, combatant: app_commands.Range[str, 1, 40]) -> None:
        """Take a combatant out of the fight (game master, or its owner).

        Args:
            combatant: Who leaves the fight
        """
        asker = await viewer(self.bot, interaction)

        async def step(record: EncounterRecord, session: AsyncSession, dice: rules.Prerolled) -> tuple[Encounter, str]:
            target = rules.find(record.encounter, combatant)
            require_owner(asker, record.encounter, target, "remove")
            return rules.remove(record.encounter, target.number, dice, self.bot.dice), f"{target.name} left the fight."

        after, note, drawn = await self.rolling_change(interaction, "encounter remove", step)
        await self.answer(interaction, after, note, drawn)

    @app_commands.command(name="hp")
    @app_commands.autocomplete(combatant=combatants)
    async def hp(
        self,
        interaction: Interaction,
        combatant: app_commands.Range[str, 1, 40],
        amount: app_commands.Range[str, 1, 20],
    ) -> None:
        """Heal, hurt or set a combatant's hit points (game master, or its owner; heals: encounter.heals).

        Args:
            combatant: Whose hit points change
            amount: +5 heals 5 (up to the most), -7 hurts by 7, =12 sets 12, =12/30 sets the most too
        """
        change = health_input.read_change(amount, what="`amount`", signed=True)

        asker = await viewer(self.bot, interaction)
        heals = (
            change.op is health_input.Op.ADD and (await self.bot.server_settings(guild_of(interaction))).encounter_heals
        )

        async def step(record: EncounterRecord, session: AsyncSession) -> tuple[Encounter, rules.Change]:
            target = rules.find(record.encounter, combatant)
            # `encounter.heals` fighters: anyone with a combatant in the fight heals any combatant (never hurts).
            if not (heals and any(c.owner_id == asker.user_id for c in record.encounter.combatants)):
                require_owner(asker, record.encounter, target, "change the hit points of")
            return rules.change_health(record.encounter, target.number, change)

        after, changed = await self.change(interaction, step)
        await self.answer(interaction, after, ui.change_line(after, changed))

    @app_commands.command(name="condition")
    @app_commands.autocomplete(combatant=combatants, name=condition_names)
    async def condition(
        self,
        interaction: Interaction,
        combatant: app_commands.Range[str, 1, 40],
        name: app_commands.Range[str, 1, 32],
        rounds: app_commands.Range[int, 1, rules.MAX_CONDITION_ROUNDS] | None = None,
        remove: bool = False,
    ) -> None:
        """Put a condition on a combatant for some rounds, or take it off (game master, or its owner).

        Args:
            combatant: Who has the condition
            name: The condition: prone, stunned, helpless... (autocomplete lists the ruleset's); others are labels
            rounds: How many of its turns it lasts (default: until taken off)
            remove: Take the condition off instead
        """
        asker = await viewer(self.bot, interaction)

        async def step(record: EncounterRecord, session: AsyncSession) -> tuple[Encounter, str]:
            encounter = record.encounter
            target = rules.find(encounter, combatant)
            require_owner(asker, encounter, target, "change the conditions of")
            if remove:
                return rules.clear_condition(encounter, target.number, name), f"{target.name} is no longer {name}."
            lasting = f" for {rounds} round(s)" if rounds else ""
            effect = rulesets.fighting(encounter.ruleset).condition(name)
            said = f"{target.name} is {name}{lasting}." + (f"\n{effect[0].upper()}{effect[1:]}." if effect else "")
            return rules.set_condition(encounter, target.number, name, rounds), said

        after, note = await self.change(interaction, step)
        await self.answer(interaction, after, note)

    async def attack_names(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The attacks of the attacker named (or of whoever has the turn) whose name contains what was typed."""
        async with self.bot.database.read() as session:
            record = await fight_here(session, interaction)
            if record is None:
                return []
            named = getattr(interaction.namespace, "attacker", None)
            try:
                who = rules.find(record.encounter, named) if named else record.encounter.current
            except EncounterError:
                return []
            if who is None:
                return []
            attacks = await fighting_attacks(session, record.guild_id, record.encounter, who)
        typed = current.casefold()
        return [app_commands.Choice(name=a.name, value=a.name) for a in attacks if typed in a.name.casefold()][:25]

    @app_commands.command(name="attack")
    @app_commands.autocomplete(target=combatants, attack=attack_names, attacker=combatants)
    async def attack(
        self,
        interaction: Interaction,
        target: app_commands.Range[str, 1, 40] | None = None,
        attack: app_commands.Range[str, 1, 40] | None = None,
        attacker: app_commands.Range[str, 1, 40] | None = None,
        hidden: bool = False,
        distance: app_commands.Range[str, 1, 20] | None = None,
    ) -> None:
        """Roll a combatant's stored attack (or a character's weapon) at a combatant; its hit is applied.

        Args:
            target: Who is attacked (default: the next foe in turn order who is not dead)
            attack: Which of its attacks (default: its first)
            attacker: Who attacks (default: whoever has the turn); a player may attack with their own
            hidden: Send the result to the GM channel; this channel only sees that you rolled
            distance: Star Frontiers shots: the range band (point blank, short, ...) or metres
        """
        fight, encounter, who, attacks = await roll_stored(
            interaction, attacker=attacker, target=target, attack=attack, hidden=hidden, distance=distance
        )
        if len(attacks) > 1:
            view = discord.ui.View(timeout=None)
            for button in attack_buttons(encounter, fight, who, attacks):
                view.add_item(button)
            note = ui.change_embed(f"{who.name}'s attacks", "A button rolls it at the next foe in turn order.")
            await interaction.followup.send(embed=note, view=view, ephemeral=True)

    @app_commands.command(name="move")
    @app_commands.autocomplete(combatant=combatants)
    async def move(
        self,
        interaction: Interaction,
        combatant: app_commands.Range[str, 1, 40],
        position: app_commands.Range[int, 1, rules.MAX_COMBATANTS],
    ) -> None:
        """Move a combatant to another place in the turn order (whoever runs the fight).

        Args:
            combatant: Who moves
            position: Its new place in the order, 1 acts first
        """
        asker = await viewer(self.bot, interaction)

        async def step(record: EncounterRecord, session: AsyncSession) -> tuple[Encounter, str]:
            require_runner(asker, record.encounter, "reorder the fight")
            target = rules.find(record.encounter, combatant)
            return rules.move(record.encounter, target.number, position), f"{target.name} now acts {position}."

        after, note = await self.change(interaction, step)
        await self.answer(interaction, after, note)

    @app_commands.command(name="delay")
    @app_commands.autocomplete(after=combatants)
    async def delay(self, interaction: Interaction, after: app_commands.Range[str, 1, 40] | None = None) -> None:
        """Delay this turn: act later this round, after the one named or last (owner, or whoever runs it).

        Args:
            after: Act right after this combatant, still to act this round (default: last in the round)
        """
        asker = await viewer(self.bot, interaction)

        turned: list[tuple[rules.Turn, int]] = []  # the pass the delay made and the fight's id, for its turn message

        async def step(record: EncounterRecord, session: AsyncSession) -> tuple[Encounter, str]:
            encounter = record.encounter
            current = encounter.current
            if current is None:
                raise EncounterError("The fight has not begun: nobody has a turn to delay yet.")
            require_owner(asker, encounter, current, "delay the turn of")
            named = rules.find(encounter, after) if after is not None else None
            # A dying combatant passed on the way rolls its d% with the bot's dice, as on a Next.
            delayed = rules.delay_turn(encounter, named.number if named is not None else None, self.bot.dice)
            turned.append((delayed, record.id))
            when = f"after **{named.name}**" if named is not None else "last this round"
            return delayed.encounter, f"{current.name} delays to act {when}."  # one phone line of the four

        # The turn is someone else's now: a turn message pings them, with whoever was passed on the way.
        _, note = await self.change(interaction, step)
        delayed, fight = turned[-1]
        await show_turn(interaction, delayed, None, fight, note)

    @app_commands.command(name="ready")
    @app_commands.autocomplete(now=combatants)
    async def ready(
        self,
        interaction: Interaction,
        trigger: app_commands.Range[str, 1, rules.MAX_TRIGGER] | None = None,
        now: app_commands.Range[str, 1, 40] | None = None,
    ) -> None:
        """Ready an action on your turn; when its trigger comes, it acts before the turn under way.

        Args:
            trigger: On your turn: what your readied action waits for, e.g. "the ogre steps in"
            now: The trigger came: this readied combatant acts now, before whoever has the turn
        """
        if (trigger is None) == (now is None):
            raise UserError("Give a `trigger` to ready an action on your turn, or `now` to act on one.", title="Ready")
        asker = await viewer(self.bot, interaction)

        async def step(record: EncounterRecord, session: AsyncSession) -> tuple[Encounter, str]:
            encounter = record.encounter
            current = encounter.current
            if now is not None:
                acting = rules.find(encounter, now)
                require_owner(asker, encounter, acting, "act on the readied action of")
                before = f" before **{current.name}**" if current is not None else ""
                done = rules.act_readied(encounter, acting.number)
                return done, f"{acting.name} takes the readied action ({acting.readied}){before}; Next ends its turn."
            assert trigger is not None
            if current is None:
                raise EncounterError("The fight has not begun: nobody has a turn to ready an action in yet.")
            require_owner(asker, encounter, current, "ready an action for")
            readied = rules.ready(encounter, trigger)
            waits = readied.combatants[readied.turn].readied
            return readied, (
                f"{current.name} readies an action until: {waits}. Next ends the turn; when it comes, "
                f"`/encounter ready now:{current.name}`."
            )

        after, note = await self.change(interaction, step)
        await self.answer(interaction, after, note)

    @app_commands.command(name="place")
    @app_commands.autocomplete(combatant=combatants)
    async def place(
        self,
        interaction: Interaction,
        combatant: app_commands.Range[str, 1, 40] | None = None,
        x: app_commands.Range[int, 0, rules.MAP_SIZE - 1] | None = None,
        y: app_commands.Range[int, 0, rules.MAP_SIZE - 1] | None = None,
        by: app_commands.Range[str, 1, 40] | None = None,
        squares: app_commands.Range[str, 1, rules.MAX_PLACES] | None = None,
    ) -> None:
        """Stand combatants on squares of an AliensRL fight's map, or move them (game master, or the owner).

        Args:
            combatant: Who stands there (or moves)
            x: The square's column, counted from 0 at the left
            y: The square's row, counted from 0 at the top
            by: Instead of x and y, a move from where it stands: +1,-2 (x, y) or compass steps n, ne, 3e
            squares: Several at once: Vasquez 1,3; Hicks 4,3; Alien 1 +1,0; #4 2ne
        """
        if squares is not None:
            if combatant is not None or x is not None or y is not None or by is not None:
                raise UserError("`squares` places everyone it names: leave `combatant`, `x`, `y` and `by` out.")
            typed = rules.read_squares(squares)
        elif combatant is None:
            raise UserError("Name the `combatant` with its `x` and `y` (or `by`), or give `squares` for several.")
        elif by is not None:
            if x is not None or y is not None:
                raise UserError("Give `x` and `y` for a square, or `by` for a move from where it stands, not both.")
            typed = [(combatant, rules.read_square(by, relative=True))]
        elif x is None or y is None:
            raise UserError("A square needs both `x` and `y` (or `by`: a move such as `+1,-2` or `ne`).")
        else:
            typed = [(combatant, rules.Square(x, y))]
        asker = await viewer(self.bot, interaction)

        async def step(record: EncounterRecord, session: AsyncSession) -> tuple[Encounter, str]:
            moves = []
            for name, square in typed:
                target = rules.find(record.encounter, name)
                require_owner(asker, record.encounter, target, "place")
                moves.append((target.number, square))
            after, moved = rules.place_all(record.encounter, moves)
            return after, "\n".join(f"{c.name} stands on {c.position}." for c in moved)

        after, note = await self.change(interaction, step)
        await self.answer(interaction, after, note)

    @app_commands.command(name="map")
    @app_commands.autocomplete(shooter=combatants, target=combatants)
    async def map_(
        self,
        interaction: Interaction,
        shooter: app_commands.Range[str, 1, 40] | None = None,
        target: app_commands.Range[str, 1, 40] | None = None,
        private: bool = False,
    ) -> None:
        """Post the AliensRL fight's map as a picture: who stands on which square, whose turn it is.

        Args:
            shooter: With target: draw the line of fire from this combatant
            target: With shooter: the combatant fired at; the map shows where a stray may land
            private: Only you see it
        """
        if (shooter is None) != (target is None):
            raise UserError("A line of fire needs both: `shooter` and `target`.", title="Line of fire")
        encounter = (await self.read(interaction)).encounter
        if not rulesets.fighting(encounter.ruleset).has_map:
            raise EncounterError(
                f"Only an AliensRL fight has a map; this one is {ui.fight_title(encounter.ruleset)}: "
                "`/encounter show` posts its tracker.",
                title="No map",
            )
        if not map_ui.placed(encounter):
            raise EncounterError(
                "Nobody stands on the map yet: `/encounter place combatant x y` puts a combatant on a square "
                f"(x across from 0 at the left, y down from 0 at the top, each 0 to {rules.MAP_SIZE - 1}).",
                title="Nobody placed",
            )
        shown, fire = map_ui.board(encounter), None
        if shooter is not None and target is not None:
            # A fight with a map reads where its shots stray from its ruleset's readings (AliensRL's `ring`).
            ring = (await self.bot.server_settings(guild_of(interaction))).variants(encounter.ruleset).ring
            line = map_ui.line_of_fire(encounter, rules.find(encounter, shooter), rules.find(encounter, target), ring)
            shown, fire = map_ui.board(encounter, path=line.path, strays=line.strays), map_ui.fire_lines(line, ring)
        # Drawing takes tens of milliseconds of CPU: in the worker process, so the loop every server shares stays free.
        png = await offload.in_process(map_ui.draw_map, shown)
        picture = discord.File(io.BytesIO(png), filename=map_ui.MAP_FILE)
        embed = map_ui.map_embed(encounter, map_ui.view(shown), fire)
        await interaction.response.send_message(embed=embed, file=picture, ephemeral=private)

    @app_commands.command(name="undo")
    async def undo(self, interaction: Interaction) -> None:
        """Take back the last change to the encounter, named (whoever runs it, or a game master)."""
        guild_id, channel_id = guild_of(interaction), channel_of(interaction)
        asker = await viewer(self.bot, interaction)
        async with self.bot.database.write.begin() as session:
            repository = EncounterRepository(session)
            record = await repository.current(guild_id=guild_id, channel_id=channel_id, for_update=True)
            require_runner(asker, record.encounter, "undo changes")
            what, at = record.last_change
            quiet = self.quiet.since(channel_id, at)
            if quiet is None:
                undone = await repository.undo(record, now=self.bot.clock())
        if quiet is not None:
            # The last thing done here changed nothing: taking back the change before it (a Next, say) would
            # rewind more than the game master meant. Said once; the next undo takes that change back.
            self.quiet.forget(channel_id)
            earlier = f" `/encounter undo` again takes back the change before it: {what.rstrip('.')}." if what else ""
            note = f"Nothing to undo: the last roll here, {quiet}, changed nothing in the fight.{earlier}"
            await interaction.response.send_message(embed=ui.change_embed(record.encounter.name, note), ephemeral=True)
            return
        await self.answer(interaction, undone.encounter, ui.undo_note(what))


class QuietRolls:
    """The rolls at a fight's combatants that changed nothing (a miss), per channel: the last one's snowflake.

    Not an undo entry, as nothing changed; but `/encounter undo` right after one would take back the change
    before it (the turn passed), which nobody asked for: so undo says so instead, once. Kept in the bot's memory
    (a restart forgets only what a game master would undo at once).
    """

    KEPT: Final = 1024  # channels remembered at most (the oldest forgotten first)

    def __init__(self) -> None:
        self._last: dict[int, tuple[int, str]] = {}  # channel -> (snowflake, what the roll was)

    def rolled(self, channel_id: int, snowflake: int, what: str) -> None:
        """A roll at a combatant of this channel's fight changed nothing."""
        self._last.pop(channel_id, None)
        self._last[channel_id] = (snowflake, what)
        while len(self._last) > self.KEPT:
            del self._last[next(iter(self._last))]

    def since(self, channel_id: int, snowflake: int) -> str | None:
        """What the channel's last quiet roll was, if it came after the change `snowflake` made."""
        found = self._last.get(channel_id)
        return found[1] if found is not None and found[0] > snowflake else None

    def forget(self, channel_id: int) -> None:
        """The game master was told: the next undo takes back the change before it."""
        self._last.pop(channel_id, None)


def quiet_roll(bot: DiceBot, channel_id: int, snowflake: int, what: str) -> None:
    """Note a public roll at a combatant that changed nothing in the fight (a miss), for undo (`QuietRolls`)."""
    cog = bot.get_cog("Encounters")
    if isinstance(cog, Encounters):
        cog.quiet.rolled(channel_id, snowflake, what)


def _owned(entry: Combatant, owner_id: int, side: Side) -> Combatant:
    return dataclasses.replace(entry, owner_id=owner_id, side=side)


def _hidden(entry: Combatant, hidden: bool) -> Combatant:
    return dataclasses.replace(entry, hidden=hidden)


async def setup(bot: DiceBot) -> None:
    """Load the cog and its persistent Next button."""
    await bot.add_cog(Encounters(bot))
    bot.add_dynamic_items(NextTurn, TrackerPage, PrivatePage, ApplyHits, AttackButton, OlderButton)
