"""What several cogs share: the roll path's lower half, and finding a character from what a user typed.

* Drawing, logging and answering a roll: `draw` takes the dice (a fair session's next number) and runs the rules
  core through the replay registry; `answer_roll` logs the roll, then answers it (the compact or full form, the
  buttons, a hidden roll's GM channel copy, a secret's); `drawn_record` is the record of a roll its command
  answers its own way (the tracker's initiative, logged with its change). Every roll command reaches them through
  `cogs._pipeline.roll`, which plans the roll above them; the encounter cog, which `_pipeline` itself reads, draws
  its initiative here directly.
* Characters: `find` (what a user typed, `#12` or a name), `find_own`, `find_for_roll`, quick mode, the weapon
  a roll uses, and the autocomplete of characters and weapons; `guild_of`, the server they live in.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, TypeVar

import discord
from discord import app_commands
from sqlalchemy.ext.asyncio import AsyncSession

from bot.client import DiceBot
from bot.db.characters import CharacterError, CharacterRecord, CharacterRepository
from bot.db.fair import SessionDice, sealing
from bot.db.rolls import RollRecord
from bot.db.settings import SettingsRepository
from bot.errors import UserError
from bot.rules import luck, replay
from bot.rules.audience import Creature, Viewer, sees_numbers
from bot.rules.dice import DiceSource
from bot.rules.luck import Luck
from bot.rules.replay import Kind, Proof
from bot.tree import command_name, given_options
from bot.ui.embeds import Answer, Defender, clip, fit, stamp_fair
from bot.ui.summaries import summary
from cogs._audience import viewer
from cogs._replay import hurt_label, roll_view, stored_details

Interaction = discord.Interaction[DiceBot]

log = logging.getLogger(__name__)

I = TypeVar("I")  # noqa: E741 - a roll's rules inputs
R = TypeVar("R")  # the rules core's result

GM_POST_TRIES = 3
QUICK_NOT_CHARACTER = "Quick mode takes no `character` or `weapon`: use one or the other."


class NotYours(CharacterError):
    """A change to someone else's character."""

    title = "Not your character"


def guild_of(interaction: Interaction) -> int:
    if interaction.guild_id is None:
        raise UserError("Characters live in a server: use this command in one.", title="Servers only")
    return interaction.guild_id


def secret_to_you(asker: Viewer, defender: Defender | None, odds: discord.Embed) -> discord.Embed:
    """The odds, refused against a game master's secret character to anyone who may not see it: they give it away.

    Any ruleset's odds against a character follow from its numbers (a D&D AC, Star Frontiers suits and Stamina).
    """
    if defender is not None and not sees_numbers(asker, defender.creature):
        raise UserError(
            f"**{defender.name}**'s numbers are the game master's secret, and the odds against it would tell "
            "them. Roll the attack: its answer says whether it hit.",
            title="A secret",
        )
    return odds


async def find(
    repository: CharacterRepository,
    interaction: Interaction,
    text: str,
    *,
    owner_id: int | None = None,
    for_update: bool = False,
    shown_to: Viewer | None = None,
) -> CharacterRecord:
    """The character `text` names: `#12` (what autocomplete fills in) or a name of `owner_id`'s.

    Without `owner_id`, a name is looked up among your characters first, then among everyone's in the server
    (the game master's ogre, typed in full); several of those are listed to pick from.

    `shown_to`: who reads the answer that names the character (a sheet, a list, a statistic, a history), when it
    is one that must not name a secret to whoever may not see it (`bot.rules.audience`): for them a secret
    character does not exist. Its owner and the game masters are told to ask privately instead. Without it, a
    `#number` still reaches a secret only for whoever may see it (the asker), since anyone can try numbers.
    """
    guild_id = guild_of(interaction)
    anyone = owner_id is None
    owner_id = interaction.user.id if owner_id is None else owner_id
    text = text.strip()
    # isdecimal, not isdigit: "²" is a digit that int() refuses.
    if text.startswith("#") and text[1:].isdecimal():
        record = await repository.get(int(text[1:]), guild_id=guild_id, for_update=for_update)
        # Anyone can try numbers: a number reaches a secret only for whoever may see it, whatever the answer
        # (an attack on it by name stays anyone's: the name is known to whoever types it).
        reader = shown_to
        if reader is None and record is not None and record.secret:
            reader = await viewer(interaction.client, interaction)
        if record is not None and reader is not None and not await _known_to(interaction, reader, [record]):
            record = None
        if record is None:
            raise CharacterError(f"There is no character {text} in this server.", title="No such character")
        return record
    matches = await repository.named(guild_id=guild_id, owner_id=owner_id, name=text)
    if shown_to is not None:
        matches = await _known_to(interaction, shown_to, matches)
    if not matches and anyone:
        matches = await repository.named(guild_id=guild_id, owner_id=None, name=text, limit=6)
        if shown_to is not None:
            matches = await _known_to(interaction, shown_to, matches)
        if len(matches) > 1:
            listed = ", ".join(f"#{m.id} ({m.ruleset.title}, <@{m.owner_id}>)" for m in matches[:5])
            raise CharacterError(
                f"Several characters here are called **{matches[0].name}**: {listed}. Pick one by number.",
                title="Which character?",
            )
    whose = "You have" if owner_id == interaction.user.id else f"<@{owner_id}> has"
    if not matches:
        name = clip(text, 40)
        said = f"Nobody here has a character called **{name}**" if anyone else f"{whose} no character called **{name}**"
        raise CharacterError(
            f"{said}. `/character list` shows yours; autocomplete finds everyone's.", title="No such character"
        )
    if len(matches) > 1:
        options = ", ".join(f"#{m.id} ({m.ruleset.title})" for m in matches)
        raise CharacterError(f"{whose} several characters called **{matches[0].name}**: {options}. Pick one.")
    if for_update:
        record = await repository.get(matches[0].id, guild_id=guild_id, for_update=True)
        assert record is not None
        return record
    return matches[0]


async def _known_to(interaction: Interaction, shown_to: Viewer, found: list[CharacterRecord]) -> list[CharacterRecord]:
    """The characters of `found` that an answer read by `shown_to` may name (a secret only to who may see it).

    A secret left out that the asker may see (theirs, or they are a game master) is refused with the way to see it:
    the answer was to go where others read it.
    """
    known = [record for record in found if record.may_see(shown_to)]
    left_out = [record for record in found if not record.may_see(shown_to)]
    if left_out and not known and left_out[0].may_see(await viewer(interaction.client, interaction)):
        raise CharacterError(
            f"**{left_out[0].name}** is a secret, and this answer would name it to the channel: ask with "
            "`private:true`.",
            title="A secret",
        )
    return known


async def find_own(repository: CharacterRepository, interaction: Interaction, text: str) -> CharacterRecord:
    """A character the user may change: their own, locked for the rest of the transaction.

    Someone else's secret that the user may not see is not named to them: for them it does not exist.
    """
    shown_to = await viewer(interaction.client, interaction)
    record = await find(repository, interaction, text, for_update=True, shown_to=shown_to)
    if record.owner_id != interaction.user.id:
        raise NotYours(f"**{record.name}** belongs to <@{record.owner_id}>; only they can change it.")
    return record


async def find_for_roll(
    repository: CharacterRepository, interaction: Interaction, text: str | None, rules: str, title: str
) -> CharacterRecord:
    """The character a roll uses: the one named, else your active one of the ruleset.

    A name reaches your own characters; `#12` (what autocomplete fills in) any character of the server, so a
    game master can roll for a player's character. Rolling changes nothing, so that needs no ownership; but a
    game master's secret character rolls for whoever may see its numbers only (its owner and the game masters),
    since its answer shows them: for anyone else it does not exist.
    """
    guild_id = guild_of(interaction)
    if text:
        # A secret is not even named to whoever may not roll with it: for them there is no such character.
        record = await find(repository, interaction, text, shown_to=await viewer(interaction.client, interaction))
        if record.ruleset.key != rules:
            raise CharacterError(f"**{record.name}** is a {record.ruleset.title} character, not {title}.")
        return record
    active = await repository.active(guild_id=guild_id, user_id=interaction.user.id, rules=rules)
    if active is None:
        raise CharacterError(
            f"You have no active {title} character here: name one with `character`, pick one with "
            "`/character use`, or give the numbers directly (quick mode).",
            title="Which character?",
        )
    return active


def quick_mode(
    given: Iterable[object], *, needed: Iterable[object], needs: str, character: str | None, weapon: str | None
) -> bool:
    """Whether a roll is in quick mode: any of the `given` numbers typed instead of a character.

    Refused when one of the `needed` options is missing (`needs` says which) or a character or weapon is named
    too, since a roll cannot be both.
    """
    if all(value is None for value in given):
        return False
    if any(value is None for value in needed):
        raise UserError(needs, title="Quick mode")
    if character is not None or weapon is not None:
        raise UserError(QUICK_NOT_CHARACTER, title="Quick mode")
    return True


def only_weapon(record: CharacterRecord, fitting: Sequence[str], *, table: str | None = None) -> str:
    """The weapon a roll uses when none is named: the character's only one that fits, else the question."""
    if len(fitting) == 1:
        return fitting[0]
    carried = ", ".join(w.name for w in getattr(record.sheet, "weapons", ())) or "none"
    also = f"; name one (or one from {table})" if table else ""
    raise UserError(f"Which weapon? **{record.name}** carries {carried}{also}.", title="Which weapon?")


async def weapon_choices(
    bot: DiceBot,
    interaction: Interaction,
    current: str,
    *,
    rules: str,
    title: str,
    table: Iterable[str] = (),
    label: Callable[[Any], str] = lambda weapon: str(weapon.name),
    quick: Sequence[str] = (),
) -> list[app_commands.Choice[str]]:
    """Autocomplete: the weapons of the character in the `character` option (or your active one), then `table`.

    Nothing is looked up once one of the `quick` options is filled in: quick mode takes no weapon.
    """
    found: list[tuple[str, str]] = []  # (shown, value)
    quick_given = any(getattr(interaction.namespace, name, None) is not None for name in quick)
    if interaction.guild_id is not None and not quick_given:
        async with bot.database.read() as session:
            try:
                record = await find_for_roll(
                    CharacterRepository(session, bot.database.reads),
                    interaction,
                    interaction.namespace.character,
                    rules,
                    title,
                )
                found = [(label(w), w.name) for w in getattr(record.sheet, "weapons", ())]
            except UserError:
                pass
    taken = {value.casefold() for _, value in found}
    found += [(name, name) for name in table if name.casefold() not in taken]
    typed = current.lower()
    return [
        app_commands.Choice(name=clip(shown, 100), value=value) for shown, value in found if typed in value.lower()
    ][:25]


def stamp(embed: discord.Embed, dice: DiceSource) -> discord.Embed:
    """Mark an answer rolled with a fair session's dice with its roll number and the commitment."""
    if isinstance(dice, SessionDice):
        stamp_fair(embed, dice.roll_number, dice.session.commitment)
    return embed


@dataclass(frozen=True, slots=True)
class Drawn(Generic[R]):
    """A roll run through the rules core: the dice it used, every draw, and the proof the log keeps."""

    dice: DiceSource
    counted: luck.CountingDice
    proof: Proof[R]

    @property
    def result(self) -> R:
        """The rules core's result."""
        return self.proof.result


async def draw(
    bot: DiceBot,
    interaction: Interaction,
    kind: Kind[I, R],
    inputs: I,
    reading: AsyncSession | None = None,
    *,
    hidden: bool | None = None,
) -> Drawn[R]:
    """Take the roll's dice (a fair session's next number, if one runs here) and run the rules core on `inputs`.

    Every roll command rolls through here, as `python -m bot verify` replays it (`bot.rules.replay`). A roll
    the rules core refuses (a mistyped expression, say), or whose read after the number fails, leaves its fair roll
    number with the reason. `hidden`: as `DiceBot.dice_for` takes it (by default the command's `hidden` option).
    """
    dice = await bot.dice_for(interaction, reading, hidden=hidden)
    counted = luck.CountingDice(dice)
    try:
        # Read with the roll's other reads: its answer asks for the roller's choice next (`_full_answers`). A read
        # that fails leaves the number taken just now with its reason too.
        await bot.user_answers(interaction.user.id, reading)
        proof = replay.roll(kind, inputs, counted)
    except Exception as error:
        await bot.abandon_roll(dice, error)
        raise
    return Drawn(dice, counted, proof)


STRIKE = "strike"  # the stored details' key of a private or hidden roll's hits on a fight, waiting for a hand


class Waiting(NamedTuple):
    """A private or hidden roll's hits on the fight here, left for a hand to apply (`audience.changes_public`).

    `hits` is what the roll log keeps of them (under STRIKE in its details); `button` applies them, once: under the
    roller's private answer, or the GM channel's copy of a hidden roll.
    """

    hits: list[dict[str, Any]]
    button: discord.ui.Item[Any]


class Hurt(NamedTuple):
    """A hit on a character here: the damage its Apply damage button takes off that character's hit points."""

    character_id: int
    name: str
    amount: int
    secret: bool = False  # the amount is the game master's: it would tell what the target wears


@dataclass(frozen=True, slots=True)
class Rolled:
    """What the roll log keeps of a roll besides its result: the character, its ruleset and its luck."""

    character_id: int | None = None
    ruleset: str | None = None
    luck: Luck | None = None


async def answer_roll(
    bot: DiceBot,
    interaction: Interaction,
    answer: Answer,
    *,
    result: dict[str, Any],
    private: bool,
    dice: DiceSource | None = None,
    command: str | None = None,
    hidden: bool = False,
    rolled: Rolled = Rolled(),
    proof: Proof[Any] | None = None,
    hurt: Hurt | None = None,
    read: Sequence[Creature] = (),
    waiting: Waiting | None = None,
) -> None:
    """Log a roll, then answer it: the fair-session stamp, its /history line, then the message it landed in.

    `answer` is the roll's presenter's work, its forms made from the result. The channel sees the compact form
    (the outcome and the odds) with a Details button for the full breakdown (the log keeps both forms for it)
    and a Roll again button. A hidden roll goes in full to the server's GM channel; the channel it was made in
    only learns that it was made (and its fair roll number, so it can be verified after the reveal). It is
    logged as private. A fair roll is logged with its `proof` (`draw` made it); if the command fails before
    its roll is logged, its fair roll number is left with the reason; it is sealed in the log anyone gets when
    its input holds numbers the channel may not see: a secret defender's (the answer's `secret_owner`), or the
    hit points of a creature that hides them (`read`). A hit on a character here (`hurt`) gets an Apply damage
    button; hits on the fight that wait for a hand (`waiting`) get theirs.
    """
    try:
        await _log_and_answer(
            bot,
            interaction,
            answer,
            result=result,
            private=private,
            dice=dice,
            command=command,
            hidden=hidden,
            rolled=rolled,
            proof=proof,
            hurt=hurt,
            read=read,
            waiting=waiting,
        )
    except Exception as error:
        # Harmless once the roll is logged (its answer failed): a logged roll outranks its number's reason.
        if dice is not None:
            await bot.abandon_roll(dice, error)
        raise


async def _log_and_answer(
    bot: DiceBot,
    interaction: Interaction,
    answer: Answer,
    *,
    result: dict[str, Any],
    private: bool,
    dice: DiceSource | None,
    command: str | None,
    hidden: bool,
    rolled: Rolled,
    proof: Proof[Any] | None,
    hurt: Hurt | None,
    read: Sequence[Creature],
    waiting: Waiting | None = None,
) -> None:
    embed, short, secret = answer.full, answer.compact, answer.secret
    for form in (f for f in (embed, short, secret) if f is not None):
        if dice is not None:
            stamp(form, dice)
        fit(form)  # the one step that keeps every answer, full (Details, the GM channel) or compact, in limits
    # The GM channel alone sees a hidden roll's answer: the log keeps no Details for the table's buttons.
    details = (
        None
        if hidden
        else stored_details(
            embed, short, secret=secret, owner=answer.secret_owner, hurt=hurt._asdict() if hurt else None
        )
    )
    if waiting is not None:
        details = {**(details or {}), STRIKE: waiting.hits}
    # A replayed kind's line is its summary of the result, as the verifier derives it again from the replay.
    line = answer.history if proof is None else summary(proof.kind, proof.result, secret=secret is not None)
    assert line is not None, "an answer without a proof brings its own /history line"
    record = _record(
        bot,
        interaction,
        result=result,
        summary=line,
        dice=dice,
        command=command,
        rolled=rolled,
        details=details,
        proof=proof,
        read=[*read, Creature(answer.secret_owner, secret=True)] if secret is not None else read,
        # True itself when hidden, as the branch below reads the option: the column takes only a bool.
        private=True if hidden else private,
        hidden=bool(hidden),
        # Against a secret, the roll's luck tally tells its numbers: /stats counts it only for who may see them.
        secret_of=answer.secret_owner,
    )
    if hidden:
        # The GM channel is the game master's: it sees a secret defender's numbers too.
        gm_view = None
        if waiting is not None:
            gm_view = discord.ui.View(timeout=None)
            gm_view.add_item(waiting.button)
        await answer_hidden(bot, interaction, secret or embed, record, dice=dice, private=private, gm_view=gm_view)
        return
    full_first = short is None or await _full_answers(bot, interaction)
    # Who chose full answers asked for every step at once; Details, from the short answer, shows pages of them.
    view = roll_view(
        interaction.id,
        details=None if short is None else ("short" if full_first else "full"),
        hurt=hurt_label(record.details),
    )
    if waiting is not None:
        view.add_item(waiting.button)
    shown = embed if full_first or short is None else short
    # Durable before shown: a crash between the two leaves a logged roll nobody saw, never the reverse.
    await bot.log_roll(record)
    sent = await interaction.response.send_message(embed=shown, ephemeral=private, view=view)
    await bot.note_answer(interaction, sent.message_id)
    if secret is not None:
        await _secret_to_gm(bot, interaction, secret)


def drawn_record(
    bot: DiceBot,
    interaction: Interaction,
    drawn: Drawn[Any],
    *,
    result: dict[str, Any],
    rolled: Rolled = Rolled(),
) -> RollRecord:
    """The log's record of a public roll that `draw` made and its command answers its own way (a fight's initiative).

    The record `answer_roll` writes (`_record`), its fair proof and its kind's summary included. The change the roll
    is for logs it in its own write transaction (`bot.db.rolls.log_in`); the caller stamps its answer (`stamp`).
    """
    return _record(
        bot,
        interaction,
        result=result,
        summary=summary(drawn.proof.kind, drawn.proof.result, secret=False),
        dice=drawn.dice,
        command=None,
        rolled=rolled,
        details=None,
        proof=drawn.proof,
        read=(),
        private=False,
        hidden=False,
    )


async def _secret_to_gm(bot: DiceBot, interaction: Interaction, embed: discord.Embed) -> None:
    """Post the answer with a secret defender's numbers to the GM channel, if the server has one.

    Best effort: the roll is answered already and its owner can still press Details for it.
    """
    async with bot.database.read() as session:
        gm_channel = await SettingsRepository(session).gm_channel(interaction.guild_id)
    if gm_channel is None:
        return
    embed.set_author(
        name=clip(f"Against a secret, by {interaction.user.display_name} in #{_channel_name(interaction)}", 256)
    )
    fit(embed)
    try:
        await post_to_gm(bot, gm_channel, embed, nonce=interaction.id)
    except discord.HTTPException as error:
        log.warning("Posting a secret's answer in channel %s failed with %s", gm_channel, error.status)


def _record(
    bot: DiceBot,
    interaction: Interaction,
    *,
    result: dict[str, Any],
    summary: str,
    dice: DiceSource | None,
    command: str | None,
    rolled: Rolled,
    details: dict[str, Any] | None,
    proof: Proof[Any] | None,
    read: Sequence[Creature],
    private: bool,
    hidden: bool,
    secret_of: int | None = None,
) -> RollRecord:
    """The roll log's record of a roll: the command and options exactly as the user gave them.

    A fair roll also records its session, roll number, every draw and its proof; other rolls keep no proof. The
    proof of one whose input read numbers the channel may not see keeps a fresh secret salt to seal it with.
    """
    fair = dice if isinstance(dice, SessionDice) else None
    logged = proof.to_log() if fair and proof else None
    if fair is not None and fair.session.bound and private:
        # A private or hidden roll of a version 4 session is sealed too: its roller and the game masters open it.
        read = [*read, Creature(interaction.user.id, secret=True)]
    # The salt is as secret and as random as a session's seed, and drawn the same way (the seeded console's too).
    if logged is not None and (sealed := sealing(read, bot.fair_seeds().hex())) is not None:
        logged["seal"] = sealed
    return RollRecord(
        interaction_id=interaction.id,
        guild_id=interaction.guild_id,
        channel_id=interaction.channel_id,
        user_id=interaction.user.id,
        command=command_name(interaction) if command is None else command,
        inputs=given_options(interaction),
        result=result,
        private=private,
        hidden=hidden,
        created_at=bot.clock(),
        fair_session_id=fair.session.id if fair else None,
        fair_roll=fair.roll_number if fair else None,
        draws=[list(d) for d in fair.draws] if fair else None,
        summary=summary,
        character_id=rolled.character_id,
        ruleset=rolled.ruleset,
        luck=rolled.luck,
        details=details,
        proof=logged,
        secret_of=secret_of,
    )


async def _full_answers(bot: DiceBot, interaction: Interaction) -> bool:
    """Whether a roll's answer starts full: the roller's own choice (`/answers`), else the server's."""
    chosen = await bot.user_answers(interaction.user.id)
    if chosen is not None:
        return chosen == "full"
    return (await bot.server_settings(interaction.guild_id)).full_answers


async def answer_hidden(
    bot: DiceBot,
    interaction: Interaction,
    embed: discord.Embed,
    record: RollRecord,
    *,
    dice: DiceSource | None,
    private: bool = False,
    gm_view: discord.ui.View | None = None,
) -> None:
    """Send a roll's full answer to the GM channel and a notice (with Roll again) where it was made.

    The notice says who rolled and, when the dice came from the GM channel's fair session (`DiceBot.dice_for`),
    its roll number and commitment, so the table can hold the GM to it once the GM reveals that session; nothing
    about the roll itself. With `private` too the notice is the roller's alone: the table learns nothing.
    `gm_view`: buttons for the GM channel's copy (the Apply button of a hit on the fight).
    """
    async with bot.database.read() as session:
        gm_channel = await SettingsRepository(session).gm_channel(interaction.guild_id)
    if gm_channel is None:
        raise UserError(
            "This server has no GM channel for hidden rolls: someone with Manage Server sets one with "
            "`/settings gm-channel`.",
            title="No GM channel",
        )
    embed.set_author(name=clip(f"Hidden roll by {interaction.user.display_name} in #{_channel_name(interaction)}", 256))
    fit(embed)  # the author line counts toward Discord's total too
    # Durable before shown, as in answer_roll: logged before the notice and the GM's copy.
    await bot.log_roll(record)
    fair = ""
    if isinstance(dice, SessionDice):
        fair = f" (the GM's fair roll #{dice.roll_number}, commitment `{dice.session.commitment[:16]}…`)"
    if private:
        notice = discord.Embed(description=f"You made a hidden roll{fair}: only the GM channel sees it.")
    else:
        notice = discord.Embed(description=f"{interaction.user.mention} made a hidden roll{fair}.")
    await interaction.response.send_message(
        embed=notice, view=roll_view(interaction.id, details=None), ephemeral=private
    )
    try:
        sent = await post_to_gm(bot, gm_channel, embed, nonce=interaction.id, view=gm_view)
    except (discord.Forbidden, discord.NotFound):
        raise UserError(
            f"The roll was made, but I cannot post in <#{gm_channel}>: give me Send Messages and Embed Links "
            "there, or name another channel with `/settings gm-channel`.",
            title="GM channel unreachable",
        ) from None
    except discord.DiscordServerError:
        raise UserError(
            f"The roll was made, but Discord kept failing to take it in <#{gm_channel}>, so the GM has not seen "
            "it. Please roll again in a minute.",
            title="GM channel unreachable",
        ) from None
    await bot.note_answer(interaction, sent.id)


async def post_to_gm(
    bot: DiceBot, channel_id: int, embed: discord.Embed, *, nonce: int, view: discord.ui.View | None = None
) -> discord.Message:
    """Post a hidden roll in the GM channel, once, through Discord's server errors.

    discord.py retries a channel message on 500, 502, 504 and 524 but not on 503, and the table has already
    been told the roll was made, so the bot tries again itself. The nonce (the interaction's id, enforced) makes
    Discord answer a repeat with the message it already made, so an attempt whose answer was lost after the
    message was posted does not post it twice.
    """
    channel = bot.get_partial_messageable(channel_id)
    for attempt in range(GM_POST_TRIES):
        try:
            if view is None:
                return await channel.send(embed=embed, nonce=nonce)
            return await channel.send(embed=embed, nonce=nonce, view=view)
        except discord.DiscordServerError as error:
            if attempt == GM_POST_TRIES - 1:
                raise
            log.warning("Posting a hidden roll in channel %s failed with %s; trying again", channel_id, error.status)
            await asyncio.sleep(1 + 2 * attempt)  # discord.py's own backoff for server errors
    raise AssertionError("unreachable")


def _channel_name(interaction: Interaction) -> str:
    channel = interaction.channel
    return getattr(channel, "name", None) or str(interaction.channel_id)


async def character_choices(
    bot: DiceBot, interaction: Interaction, current: str, *, rules: str, anyone: bool = False
) -> list[app_commands.Choice[str]]:
    """Autocomplete: characters of a ruleset whose name contains what was typed, yours or anyone's here."""
    return await _choices(bot, interaction, current, owner_id=None if anyone else interaction.user.id, rules=rules)


async def any_character_choices(bot: DiceBot, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Autocomplete: characters of any ruleset in this server, of the user chosen in the `user` option if any."""
    user = getattr(interaction.namespace, "user", None)
    return await _choices(bot, interaction, current, owner_id=user.id if user else None, rules=None)


async def _choices(
    bot: DiceBot, interaction: Interaction, current: str, *, owner_id: int | None, rules: str | None
) -> list[app_commands.Choice[str]]:
    if interaction.guild_id is None:
        return []
    asker = await viewer(bot, interaction)  # a secret character is suggested only to whoever may see it
    async with bot.database.read() as session:
        found = await CharacterRepository(session).summaries(
            guild_id=interaction.guild_id, owner_id=owner_id, text=current.lstrip("#"), rules=rules, shown_to=asker
        )
    return [app_commands.Choice(name=clip(f"{s.name} (#{s.id})", 100), value=f"#{s.id}") for s in found]
