"""The one path every ruleset's roll takes: load, build, odds, draw, resolve, present, make durable, answer.

A ruleset supplies one coroutine per kind of roll, its planner: given what this roll may read (`Reading`) and
the command's options, it builds the rules inputs, prices and computes their odds and says how to present
the result (`Plan`). Everything else is here, once: the reads (`Reading`), the dice (a fair session's
next number, if one runs), the rules core run through the replay registry, the log written before the answer,
and the odds-only answer of the matching odds command, which rolls nothing.

Every roll command takes it: the rulesets' attacks, /roll, and /aliens melee, whose plan has no dice (`Plan.kind`
None). A name the roll reads (`target:`) is looked up once (`Reading.combatant`); the combatant found then
travels by its number in the fight the roll read (`Struck`), to its sealing, its Apply button and its hit.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

import discord
from sqlalchemy.ext.asyncio import AsyncSession

from bot.client import DiceBot
from bot.db.characters import CharacterRecord, CharacterRepository
from bot.db.encounters import EncounterRepository
from bot.db.memory import MemoryRepository, Remembered
from bot.errors import UserError
from bot.rules import encounter as encounter_rules
from bot.rules.audience import Creature as Audience
from bot.rules.audience import Viewer, changes_public, visibility
from bot.rules.encounter import Change, Combatant, Encounter, EncounterError, Hit
from bot.rules.luck import Luck
from bot.rules.replay import Kind
from bot.rules.settings import ServerSettings
from bot.rules.sheets.base import Sheet, name_key
from bot.ui.embeds import Answer, Defender
from bot.ui.encounter import change_embed, change_line
from cogs._audience import is_game_master
from cogs._options import Hidden, Shown
from cogs._shared import Drawn, Hurt, Interaction, Rolled, Waiting, answer_roll, draw, find
from cogs.encounter import ApplyHits, apply_label, dump_hits, quiet_roll, refresh_tracker

I = TypeVar("I")  # noqa: E741 - a roll's rules inputs
R = TypeVar("R")  # the rules core's result
log = logging.getLogger(__name__)

O = TypeVar("O", bound=Shown)  # noqa: E741 - a command's options


@dataclass(frozen=True, slots=True)
class Reading:
    """What a roll may read before its dice: the characters, the channel's fight and the settings, as committed.

    On an SQLite file each read of a character or a fight is a transaction of its own on a reader thread
    (`bot.db.engine.Readers`), elsewhere they share the roll's read session: reads a moment apart may straddle
    another command's commit. What they read is only shown and logged; a change the roll makes (a hit) is
    applied by a write that locks and reads again (`strike`).

    It also collects what a character's roll teaches its habits (the weapon named, a laser's dial), kept once
    the roll is answered.
    """

    bot: DiceBot
    interaction: Interaction
    session: AsyncSession
    settings: ServerSettings
    learned: dict[tuple[int, datetime], Remembered] = field(default_factory=dict)  # habits this roll changed
    # This channel's fight of a ruleset, once read: its stored id and the fight.
    fights: dict[str, tuple[int, Encounter] | None] = field(default_factory=dict)
    # The combatants named so far, by ruleset and name (or `#number`): a name is looked up once per roll, and the
    # roll's hits, its sealing and its Apply button then take the combatant found (`struck`).
    named: dict[tuple[str, str], Combatant | None] = field(default_factory=dict)

    async def fight(self, ruleset: str) -> Encounter | None:
        """This channel's encounter of `ruleset`, if one runs (read once per roll)."""
        found = await self._fight(ruleset)
        return found[1] if found is not None else None

    async def _fight(self, ruleset: str) -> tuple[int, Encounter] | None:
        guild_id, channel_id = self.interaction.guild_id, self.interaction.channel_id
        if guild_id is None or channel_id is None:
            return None
        if ruleset not in self.fights:
            fights = EncounterRepository(self.session, self.bot.database.reads)
            record = await fights.get(guild_id=guild_id, channel_id=channel_id)
            running = record is not None and record.encounter.ruleset == ruleset
            self.fights[ruleset] = (record.id, record.encounter) if record is not None and running else None
        return self.fights[ruleset]

    async def struck(self, plan: Plan[Any, R], result: R) -> Struck:
        """What the result does to this channel's fight: its hits, on the combatants the roll already found.

        The target is the one the roll's planner looked up (`combatant`, `creature`); the others a result hit (an
        AliensRL shot's strays) are found in the fight this roll read. From here on they travel by number, in this
        fight, so a hit lands on the combatant the roll was against even if a newcomer takes a name meanwhile.
        """
        if plan.strikes is None or plan.ruleset is None:
            return Struck()
        hits = plan.strikes.of(result)
        target = await self.combatant(plan.strikes.target, plan.ruleset)
        found = await self._fight(plan.ruleset)
        if found is None:
            return Struck(named=hits, numbered=hits, ruleset=plan.ruleset)
        fight, encounter = found
        numbered = [(self._number(encounter, name, plan.ruleset), hit) for name, hit in hits]
        return Struck(fight, target[1] if target else None, hits, numbered, plan.ruleset)

    async def held(self, struck: Struck, *, private: bool, hidden: bool = False) -> Waiting | None:
        """The Apply button of hits that may not change what the channel sees at once (`audience.changes_public`).

        The tracker would tell the table what a private or hidden roll keeps from it: such a roll's hits wait for
        a hand (`audience.applies_hit`). They are kept by the fight's id and each combatant's number, never
        reused, so a later press cannot land on another fight, nor on a newcomer who took a removed one's name.
        None: a public roll's hits, which `strike` applies at once.
        """
        if not struck.named or changes_public(visibility(private=private, hidden=hidden)):
            return None
        return Waiting(
            dump_hits(struck.numbered, fight=struck.fight), ApplyHits(self.interaction.id, apply_label(struck.named))
        )

    def _number(self, encounter: Encounter, text: str, ruleset: str) -> str:
        """The number (`#3`) in `encounter` of the combatant `text` names, as found before in this roll if it was.

        A name the fight does not have stays a name: applying its hit says so, and the roll stands.
        """
        key = (ruleset, name_key(text.strip()))
        fighting = self.named.get(key)
        if fighting is None:
            try:
                fighting = self._remember(ruleset, encounter_rules.find(encounter, text))
            except EncounterError:
                return text
        return f"#{fighting.number}"

    def _remember(self, ruleset: str, fighting: Combatant) -> Combatant:
        """Keep a combatant found, under its name and its number, for the rest of the roll."""
        self.named[(ruleset, name_key(fighting.name))] = fighting
        self.named[(ruleset, f"#{fighting.number}")] = fighting
        return fighting

    async def combatant(self, text: str, ruleset: str) -> tuple[Encounter, Combatant] | None:
        """The combatant `text` names in this channel's encounter of `ruleset`, if one runs and has it.

        Looked up once per roll: the planner's lookup is the one its hits and its sealing read again.
        """
        encounter = await self.fight(ruleset)
        if encounter is None:
            return None
        key = (ruleset, name_key(text.strip()))
        if key not in self.named:
            try:
                self.named[key] = self._remember(ruleset, encounter_rules.find(encounter, text))
            except EncounterError:
                self.named[key] = None  # not a combatant: a character of the server, or nobody
        fighting = self.named[key]
        return (encounter, fighting) if fighting is not None else None

    async def fighter(self, record: CharacterRecord) -> tuple[Encounter, Combatant] | None:
        """The character as a combatant of this channel's encounter of its ruleset, if it fights here."""
        encounter = await self.fight(record.ruleset.key)
        if encounter is None:
            return None
        fighting = next((c for c in encounter.combatants if c.character_id == record.id), None)
        return (encounter, self._remember(record.ruleset.key, fighting)) if fighting is not None else None

    async def creature(self, text: str, ruleset: str, title: str) -> Creature:
        """Whom `text` names, as every roll reads it: a combatant of this channel's fight, else a character here.

        The one place a creature's numbers come from, in a fight and out of it: a character is its sheet, and
        a fight adds only what is the fight's (its current hit points or Stamina; `Creature.fight` says the rest,
        such as whether it has had its first turn). A quick creature of the fight is the fight's numbers alone.
        """
        guild_id = self.interaction.guild_id
        fought = await self.combatant(text, ruleset)
        if fought is None:
            named = await find(self.characters, self.interaction, text)
            if named.ruleset.key != ruleset:
                raise UserError(f"**{named.name}** is a {named.ruleset.title} character, not {title}.")
            fought = await self.fighter(named)
            if fought is None:
                return Creature(named.name, named, named.sheet)
        encounter, fighting = fought
        record = None
        if fighting.character_id is not None and guild_id is not None:
            record = await self.characters.get(fighting.character_id, guild_id=guild_id)
        if record is None or record.ruleset.key != ruleset:  # its character was deleted: the fight's numbers
            return Creature(fighting.name, None, None, encounter, fighting)
        return Creature(fighting.name, record, encounter_rules.as_fought(record.sheet, fighting), encounter, fighting)

    async def as_fought(self, record: CharacterRecord) -> Sheet:
        """A character's sheet as this roll reads it: its hit points (Stamina) the fight's if it fights here."""
        fought = await self.fighter(record)
        return record.sheet if fought is None else encounter_rules.as_fought(record.sheet, fought[1])

    async def habits(self, record: CharacterRecord) -> Remembered:
        """What the character used last, as this roll leaves it so far (kept by the bot between rolls)."""
        key = (record.id, record.created_at)
        if key in self.learned:
            return self.learned[key]
        kept = self.bot.kept_habits(key)
        if kept is None:
            kept = await MemoryRepository(self.session).get(record.id)
            self.bot.keep_habits(key, kept)
        return kept

    async def weapon(
        self,
        record: CharacterRecord,
        kind: str,
        given: str | None,
        carried: Sequence[str],
        otherwise: Callable[[], str],
    ) -> str:
        """The weapon a character's roll of `kind` uses, the one named being remembered.

        Else the one it used last for this kind of roll if it still carries it, else `otherwise()` (its only
        one, or the question).
        """
        habits = await self.habits(record)
        if given is not None:
            if habits.weapon(kind) != given:
                self.learned[(record.id, record.created_at)] = habits.with_weapon(kind, given)
            return given
        last = habits.weapon(kind)
        if last is not None and name_key(last) in {name_key(w) for w in carried}:
            return last
        return otherwise()

    async def dial(self, record: CharacterRecord, weapon: str, given: int | None) -> int | None:
        """A laser's dial: the one given (remembered for this weapon), else the one it was set to last."""
        habits = await self.habits(record)
        if given is not None:
            if habits.dial(weapon) != given:
                self.learned[(record.id, record.created_at)] = habits.with_dial(weapon, given)
            return given
        return habits.dial(weapon)

    @property
    def characters(self) -> CharacterRepository:
        """The server's characters, as this roll reads them: committed, each read in one trip (`Readers`)."""
        return CharacterRepository(self.session, self.bot.database.reads)

    @property
    def viewer(self) -> Viewer:
        """Who is rolling, as the audience policy sees them (a game master sees secrets)."""
        return Viewer(self.interaction.user.id, game_master=is_game_master(self.interaction, self.settings))

    @property
    def user_name(self) -> str:
        """Who is rolling, as the table sees them (a quick-mode attack is theirs)."""
        return self.interaction.user.display_name


@dataclass(frozen=True, slots=True)
class Creature:
    """Whom a roll is against, read in one place (`Reading.creature`), the same in a fight and out of it.

    Attributes:
        name: As the answer names it (a combatant's name in a fight).
        record: Its character, if it is one (a quick creature of a fight is not).
        sheet: The character's sheet, as the fight holds it when it fights here (`encounter.as_fought`).
        fight: This channel's fight, when the creature is in it.
        combatant: The creature in that fight.
    """

    name: str
    record: CharacterRecord | None = None
    sheet: Sheet | None = None
    fight: Encounter | None = None
    combatant: Combatant | None = None

    @property
    def named(self) -> Defender | None:
        """Its name in an answer, which tells the audience policy what the answer may show of it.

        A character's: whether its numbers are a game master's secret. A combatant's, a quick creature's too,
        whether the fight keeps its hit points from the players; a quick creature's name is said in the answer
        (a miss too) even when it keeps nothing. None only without a character or a combatant.
        """
        hidden_hp = self.combatant is not None and self.combatant.hidden
        if self.record is not None:
            return Defender(self.name, self.record.secret, self.record.owner_id, hidden_hp=hidden_hp)
        if self.combatant is not None:
            return Defender(self.name, owner_id=self.combatant.owner_id, hidden_hp=hidden_hp)
        return None

    @property
    def conditions(self) -> tuple[str, ...]:
        """The names of the conditions its fight has on it, which the rules read (none outside a fight)."""
        return tuple(c.name for c in self.combatant.conditions) if self.combatant is not None else ()

    @property
    def hurt(self) -> CharacterRecord | None:
        """The character an Apply damage button hurts: one outside this channel's fight (the fight takes its own)."""
        return self.record if self.fight is None else None


@dataclass(frozen=True, slots=True)
class Plan(Generic[I, R]):
    """A roll built and priced before any die is drawn, and how its result is shown and counted.

    Attributes:
        kind: The replay registry's kind: the rules core that resolves `inputs`, as the verifier replays it. None
            for a roll without dice (an AliensRL melee attack always hits for its damage): `inputs` is its result.
        inputs: The rules inputs, logged and replayed.
        ruleset: The ruleset's key, for the luck tallies and `/history` (None: plain dice, /roll).
        answer: The presenter: the result to its full and compact answers and /history line.
        luck: The luck tallies of the result, from the draws.
        odds: The odds command's answer, the same roll priced and explained without rolling (if it has one).
        odds_private: The odds answer is the asker's alone whatever `private` says (a secret defender's).
        character_id: The character who rolls, if any (quick mode has none).
        hurts: The character here the roll is against, if any, and the damage a result deals it.
        strikes: The combatant of this channel's fight the roll is against, if any: its hit is applied.
        logged: What the roll log keeps of the result (default: the kind's outcome, which a fair log compares).
    """

    kind: Kind[I, R] | None
    inputs: I
    ruleset: str | None
    answer: Callable[[R], Answer]
    luck: Callable[[Drawn[R]], Luck | None]
    odds: Callable[[], discord.Embed] | None = None
    odds_private: bool = False
    character_id: int | None = None
    hurts: Hurts[R] | None = None
    strikes: Strikes[R] | None = None
    logged: Callable[[R], dict[str, Any]] | None = None


@dataclass(frozen=True, slots=True)
class Struck:
    """A result's hits on this channel's fight (`Reading.struck`): by name for the table, by number to apply.

    Attributes:
        fight: The stored fight's id, which the hits are for.
        target: The combatant the roll was against, as the roll found it.
        named: Each combatant hit, by its name, and the hit.
        numbered: The same hits, each combatant by its number in the fight (`#3`).
        ruleset: The fight's ruleset.
    """

    fight: int | None = None
    target: Combatant | None = None
    named: list[tuple[str, Hit]] = field(default_factory=list)
    numbered: list[tuple[str, Hit]] = field(default_factory=list)
    ruleset: str | None = None


@dataclass(frozen=True, slots=True)
class Strikes(Generic[R]):
    """The combatant of this channel's encounter a roll is against, and what a result does to it.

    `others`: the other combatants a result hit (an AliensRL shot on the map may hit a being in the way, or one
    where it strayed), with their hits; all are applied as one change.
    """

    target: str  # as the roll names it
    hit: Callable[[R], Hit | None]
    others: Callable[[R], Sequence[tuple[str, Hit]]] | None = None

    def of(self, result: R) -> list[tuple[str, Hit]]:
        """Every combatant the result hit, the target first, with what it does to each."""
        hit = self.hit(result)
        hits = [(self.target, hit)] if hit is not None else []
        return hits + list(self.others(result) if self.others is not None else ())


@dataclass(frozen=True, slots=True)
class Hurts(Generic[R]):
    """The character here a roll is against, and the damage a result deals it (for Apply damage)."""

    character_id: int
    name: str
    damage: Callable[[R], int | None]  # None: the result rolled no damage
    secret: bool = False  # the damage is the game master's secret: the button and the channel do not say it

    def of(self, result: R) -> Hurt | None:
        """What the result's Apply damage button applies, if it dealt any damage.

        A secret's button shows under every hit that rolled damage, even one its defenses took to nothing: the
        button missing would tell the table what the answer keeps from it.
        """
        amount = self.damage(result)
        if amount is None or (amount <= 0 and not self.secret):
            return None
        return Hurt(self.character_id, self.name, amount, self.secret)


Planner = Callable[[Reading, O], Awaitable[Plan[Any, Any]]]


async def _plan(
    bot: DiceBot, interaction: Interaction, options: O, planner: Planner[O], session: AsyncSession
) -> tuple[Plan[Any, Any], Reading]:
    settings = await bot.server_settings(interaction.guild_id, session)
    reading = Reading(bot, interaction, session, settings)
    return await planner(reading, options), reading


async def roll(bot: DiceBot, interaction: Interaction, options: O, planner: Planner[O]) -> None:
    """Plan, draw and resolve a roll in one read session (`Reading`), then log it and answer.

    The dice come last, once nothing can fail any more, so that a fair session never skips a roll number; should
    something fail all the same between the draw and the log (a read of the fight, say), its number is given up
    with the reason, as `answer_roll` gives it up should the log or the answer fail.
    """
    hidden = isinstance(options, Hidden) and options.hidden
    async with bot.database.read() as session:
        plan, reading = await _plan(bot, interaction, options, planner, session)
        drawn = None if plan.kind is None else await draw(bot, interaction, plan.kind, plan.inputs, session)
        try:
            result = plan.inputs if drawn is None else drawn.result
            struck = await reading.struck(plan, result)
            waiting = await reading.held(struck, private=options.private, hidden=hidden)
            if plan.logged is not None:
                logged = plan.logged(result)
            else:
                assert drawn is not None, "a roll without dice says what the log keeps of it"
                logged = drawn.proof.outcome
            answer = plan.answer(result)
            rolled = Rolled(plan.character_id, plan.ruleset, None if drawn is None else plan.luck(drawn))
            # A combatant's hit is applied to the fight, and so to its character's sheet: no Apply damage button too.
            hurt = plan.hurts.of(result) if plan.hurts is not None and plan.strikes is None else None
        except Exception as error:
            if drawn is not None:
                await bot.abandon_roll(drawn.dice, error)
            raise
    await answer_roll(
        bot,
        interaction,
        answer,
        result=logged,
        private=options.private,
        dice=None if drawn is None else drawn.dice,
        hidden=hidden,
        rolled=rolled,
        read=_hidden_hp(plan, struck),
        proof=None if drawn is None else drawn.proof,
        hurt=hurt,
        waiting=waiting,
    )
    by = (answer.compact or answer.full).title or ""
    if struck.named and waiting is None:
        await strike(bot, interaction, struck, private=options.private or hidden, by=by)
    elif struck.target is not None and not struck.named and not (options.private or hidden):
        # A public roll at a combatant that changed nothing (a miss): undo must not take back what came before.
        quiet_roll(bot, interaction.channel_id or 0, interaction.id, f"{by} at {struck.target.name}")
    if reading.learned:
        await _remember(bot, reading.learned)


def _hidden_hp(plan: Plan[Any, Any], struck: Struck) -> list[Audience]:
    """The combatant a roll is against, if the fight hides its hit points and the roll's logged input holds them.

    A fair log seals such a roll, as it does one against a secret (`answer_roll`, `bot.rules.audience`).
    """
    if plan.kind is None or not plan.kind.hit_points or struck.target is None or not struck.target.hidden:
        return []
    return [Audience(struck.target.owner_id, hidden_hp=True)]


async def strike(bot: DiceBot, interaction: Interaction, struck: Struck, *, private: bool, by: str = "") -> None:
    """Apply a logged, answered roll's hits to their combatants, and say what they did under the answer.

    The hits name the combatants by number in the fight the roll read (`Struck`). The roll stands whatever
    happens here; hits that cannot be applied (a combatant left the fight, the fight ended) are said, and
    `/encounter hp` applies them by hand. `by`: the roll as the channel saw it, which undo names with the change.
    """

    def describe(encounter: Encounter, changes: Sequence[Change]) -> str:
        said = "; ".join(change_line(encounter, change) for change in changes)
        return f"{said} ({by})" if by else said

    assert interaction.guild_id is not None and interaction.channel_id is not None  # a combatant was found
    try:
        async with bot.database.write.begin() as session:
            record, changes = await EncounterRepository(session).apply_hits(
                guild_id=interaction.guild_id,
                channel_id=interaction.channel_id,
                hits=struck.numbered,
                now=bot.clock(),
                fight=struck.fight,
                describe=describe,
                at=interaction.id,
            )
    except EncounterError as error:
        note = f"The roll stands, but its hit was not applied: {error.message} `/encounter hp` applies it by hand."
        await interaction.followup.send(embed=change_embed("Not applied", note), ephemeral=True)
        return
    lines = "\n".join(change_line(record.encounter, change) for change in changes)
    await interaction.followup.send(embed=change_embed("The fight", lines), ephemeral=private)
    await refresh_tracker(bot, interaction.guild_id, interaction.channel_id)


async def _remember(bot: DiceBot, learned: dict[tuple[int, datetime], Remembered]) -> None:
    """Keep what a roll taught its character's habits, once it is answered; a habit lost is only a habit."""
    try:
        async with bot.database.write.begin() as session:
            for (character_id, _), habits in learned.items():
                await MemoryRepository(session).put(character_id, habits)
    except Exception:
        log.warning("Could not keep the habits of characters %s", sorted(k[0] for k in learned), exc_info=True)
        return
    for key, habits in learned.items():
        bot.keep_habits(key, habits)


async def odds(bot: DiceBot, interaction: Interaction, options: O, planner: Planner[O]) -> None:
    """The odds of the roll `planner` builds from `options`, rolling and logging nothing."""
    async with bot.database.read() as session:
        plan, _ = await _plan(bot, interaction, options, planner, session)  # pricing a roll teaches no habit
    assert plan.odds is not None, f"{getattr(plan.kind, 'name', plan.ruleset)} has no odds command"
    await interaction.response.send_message(embed=plan.odds(), ephemeral=options.private or plan.odds_private)
