"""/aliens: AliensRL shots (accuracy, damage, strays), melee, and exact odds."""

from __future__ import annotations

from dataclasses import dataclass

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import DiceBot
from bot.errors import UserError
from bot.rules import aliensrl as rules
from bot.rules import encounter as encounter_rules
from bot.rules.aliensrl import replay
from bot.rules.aliensrl.ruleset import ALIENSRL, Readings, shot_luck
from bot.rules.encounter import Combatant, Encounter, EncounterError, Hit
from bot.rules.encounter_attacks import able_to_attack
from bot.rules.sheets.aliensrl import AliensSheet
from bot.rules.sheets.aliensrl import Weapon as AliensWeapon
from bot.ui.aliensrl import melee_answer, odds_embed, shot_answer, skill_text
from bot.ui.embeds import clip
from cogs import _pipeline as pipeline
from cogs._options import Hidden, Named, Shown, option, slash
from cogs._pipeline import Plan, Reading, Strikes
from cogs._replay import ROLLS
from cogs._shared import (
    Interaction,
    character_choices,
    find_for_roll,
    only_weapon,
    quick_mode,
    weapon_choices,
)
from cogs.encounter import combatant_choices

RULESET = "aliensrl"
TITLE = "AliensRL"
QUICK = ("skill_rank", "accuracy", "ammo_damage")  # the options that make a shot quick mode
MAX = rules.MAX_DISTANCE  # squares, either way
MELEE_ATTACKERS = [app_commands.Choice(name=a.title(), value=a) for a in rules.ALIEN_MELEE_DAMAGE]


@dataclass(frozen=True, kw_only=True)
class Aim:
    """Who fires, with what, at which square."""

    weapon: str | None = option("One of the character's weapons (default: its only one)", None, high=40)
    character: str | None = option("Who fires (default: your active AliensRL character)", None, high=40)
    dx: int | None = option(
        "Squares to the target across (with dy; the distance is Angband's)", None, low=-MAX, high=MAX
    )
    dy: int | None = option("Squares to the target down (with dx)", None, low=-MAX, high=MAX)
    distance: int | None = option("Distance to the target in squares, instead of dx and dy", None, low=1, high=MAX)
    intervening: bool = option("A being stands in the shot's way: it is missed on 6 in 10", False)
    crowded: bool = option(
        "Beings stand all around the target: a stray may hit one (the targeted-square setting)", False
    )
    pain: int | None = option(
        "The pain on the status line, e.g. 3 for Pain (-3) (default: the character's)", None, low=0, high=100
    )
    target: str | None = option(
        "A combatant of this channel's fight: the map gives the aim, who is in the way, where strays land",
        None,
        high=40,
    )


@dataclass(frozen=True, kw_only=True)
class QuickShooter:
    """Quick mode: a shooter by the numbers (each has a default, so none is needed)."""

    skill_rank: int | None = option(
        "Quick mode: rank in the weapon's skill, 0 untrained to 4 master", None, low=0, high=4
    )
    accuracy: int | None = option("Quick mode: the weapon's accuracy", None, low=-20, high=20)
    ammo_damage: int | None = option(
        "Quick mode: the ammunition's damage (default 10, a proposed default)", None, low=1, high=1000
    )


@dataclass(frozen=True, kw_only=True)
class FireOdds(Shown, Named, QuickShooter, Aim):
    """The options of `/aliens odds`: those of a shot, priced without rolling."""


@dataclass(frozen=True, kw_only=True)
class FireOptions(Hidden, FireOdds):
    """The options of `/aliens fire`."""


@dataclass(frozen=True, kw_only=True)
class MeleeOptions(Hidden, Shown):
    """The options of `/aliens melee`."""

    attacker: str = option(
        "The alien (worker, warrior, hunter: 5 damage, a proposed default) or a combatant of this fight",
        "warrior",
        high=40,
    )
    damage: int | None = option("The damage of this attack instead of the alien's default", None, low=0, high=10000)
    target: str | None = option("A combatant of this channel's fight: the damage is taken off it", None, high=40)


class Aliens(commands.GroupCog, group_name="aliens", group_description="AliensRL shots, melee and odds"):
    """The AliensRL accuracy model, step by step."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        super().__init__()

    async def weapons(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The weapons of the chosen (or active) character."""
        return await weapon_choices(
            self.bot, interaction, current, rules=RULESET, title=TITLE, label=_weapon_label, quick=QUICK
        )

    async def characters(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Your AliensRL characters."""
        return await character_choices(self.bot, interaction, current, rules=RULESET)

    async def fighters(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The combatants of this channel's fight."""
        return await combatant_choices(self.bot, interaction, current)

    async def shooter(
        self, reading: Reading, options: FireOdds, fight: Encounter | None = None
    ) -> tuple[rules.Shooter, str, int | None]:
        """The shooter from quick-mode numbers, or from a character and one of its weapons; their name and id.

        In a fight, quick mode's `name` may be a combatant's, and its skill rank is then the shooter's own.
        """
        fighter = _named(fight, options.name) if fight is not None else None
        # Every quick-mode number has a default, so none is needed; in a fight the combatant's name is enough.
        quick = (options.skill_rank, options.accuracy, options.ammo_damage, fighter)
        if quick_mode(quick, needed=(), needs="", character=options.character, weapon=options.weapon):
            rank = options.skill_rank
            if rank is None:
                rank = (fighter.stat("rank") if fighter is not None else None) or 0
            shooter = rules.Shooter(
                rank=rank,
                pain=options.pain or 0,
                accuracy=options.accuracy or 0,
                ammo_damage=rules.DEFAULT_AMMO_DAMAGE if options.ammo_damage is None else options.ammo_damage,
            )
            return shooter, options.attacker(reading.user_name, quick=True), None
        options.attacker("", quick=False)  # a character fires under its own name
        record = await find_for_roll(reading.characters, reading.interaction, options.character, RULESET, TITLE)
        sheet = record.sheet
        assert isinstance(sheet, AliensSheet)
        if not sheet.weapons:
            raise UserError(
                f"**{record.name}** carries no weapon: `/character weapon add` gives one.", title="No weapon"
            )
        carried = [w.name for w in sheet.weapons]
        wanted = await reading.weapon(record, RULESET, options.weapon, carried, lambda: only_weapon(record, carried))
        matches = [w for w in sheet.weapons if w.name.casefold() == wanted.casefold()]
        if not matches:
            names = ", ".join(w.name for w in sheet.weapons)
            raise UserError(f"**{record.name}** has no weapon `{clip(wanted, 40)}`; it carries {names}.")
        chosen = matches[0]
        shooter = rules.Shooter(
            rank=sheet.rank(chosen.type),
            pain=sheet.pain if options.pain is None else options.pain,
            accuracy=chosen.accuracy,
            ammo_damage=chosen.ammo_damage,
            damage_modifier=chosen.damage_modifier,
            shots=chosen.shots,
            weapon=chosen.name,
        )
        return shooter, record.name, record.id

    async def plan_shot(self, reading: Reading, options: FireOdds) -> Plan[replay.AliensShot, rules.Shot]:
        """A shot, priced, with its presenters; a bad aim is reported before anything is looked up.

        At a combatant (`target:`) the fight's map gives the aim: the shot flies from the shooter's square to the
        target's, the beings standing on the way and where it may stray are the fight's, and what it hits is
        taken off them once the roll is logged.
        """
        fight = aimed = None
        if options.target is None:
            rules.check_aim(options.dx, options.dy, options.distance)
        else:
            fight, aimed = await _fight(reading, options)
        shooter, name, character_id = await self.shooter(reading, options, fight)
        field = _field(fight, aimed, options, name, character_id) if fight and aimed else None
        readings: Readings = reading.settings.variants(ALIENSRL.key)
        ring, targeted = readings.ring, readings.targeted
        inputs = replay.AliensShot(
            shooter,
            options.dx,
            options.dy,
            options.distance,
            options.intervening,
            ring,
            options.crowded,
            targeted,
            field=field,
        )

        def explained() -> discord.Embed:
            rules.check_shooter(shooter)
            if field is not None:
                dx, dy, d = rules.check_aim(*field.offset, None)
            else:
                dx, dy, d = rules.check_aim(options.dx, options.dy, options.distance)
            chances = rules.odds(
                shooter,
                d,
                intervening=options.intervening,
                ring=ring,
                crowded=options.crowded,
                targeted=targeted,
                field=field,
            )
            aim = f"({dx}, {dy}), distance {d}" if dx is not None else f"distance {d}"
            if field is not None:
                aim = f"{options.target} on {field.aim}, distance {d}"
            what = f"{name} with {shooter.weapon}" if shooter.weapon else name
            return odds_embed(
                chances,
                title=f"Odds: {what} at {aim}",
                skill=skill_text(rules.skill_terms(shooter, d)),
                shots=shooter.shots,
                distance=d,
            )

        return Plan(
            replay.ALIENS_SHOT,
            inputs,
            RULESET,
            answer=lambda shot: shot_answer(shot, shooter=name, weapon=shooter.weapon),
            luck=lambda drawn: shot_luck(drawn.result),
            odds=explained,
            character_id=character_id,
            strikes=_strikes(aimed.name) if aimed is not None else None,
        )

    @app_commands.autocomplete(weapon=weapons, character=characters, target=fighters)
    @slash("fire", FireOptions, extras=ROLLS)
    async def fire(self, interaction: Interaction, options: FireOptions) -> None:
        """Fire a ranged weapon: d100 roll rating, skill rating, quality, damage and strays, step by step."""
        await pipeline.roll(self.bot, interaction, options, self.plan_shot)

    @app_commands.autocomplete(weapon=weapons, character=characters, target=fighters)
    @slash("odds", FireOdds)
    async def odds(self, interaction: Interaction, options: FireOdds) -> None:
        """The exact odds of a shot, rolling nothing: quality 1-11, strays, expected damage."""
        await pipeline.odds(self.bot, interaction, options, self.plan_shot)

    async def plan_melee(self, reading: Reading, options: MeleeOptions) -> Plan[rules.Melee, rules.Melee]:
        """A melee attack: no dice (it always hits), so its result is planned whole; at a combatant, its damage.

        The attacker is an alien kind, or a combatant of this channel's fight (answered under its name; the dead
        and the helpless do not attack), whose damage is the warrior's unless `damage` says.
        """
        kind = " ".join(options.attacker.split()).casefold()
        if kind in rules.ALIEN_MELEE_DAMAGE:
            result = rules.melee(kind, options.damage)
        else:
            found = await reading.combatant(options.attacker, RULESET)
            if found is None:
                raise UserError(
                    f"`attacker` is an alien ({', '.join(rules.ALIEN_MELEE_DAMAGE)}) or a combatant of this channel's "
                    f"AliensRL fight, and there is none called **{clip(options.attacker, 40)}**.",
                    title="Who attacks?",
                )
            fight, biter = found
            able_to_attack(fight, biter)
            result = rules.melee(biter.name, options.damage, kind="warrior")
        bitten = (await _fight(reading, options))[1] if options.target is not None else None
        return Plan(
            None,
            result,
            RULESET,
            answer=lambda melee: melee_answer(melee, target=bitten.name if bitten is not None else None),
            luck=lambda drawn: None,
            logged=lambda melee: {"attacker": options.attacker, "damage": melee.damage},
            strikes=Strikes(bitten.name, _bite) if bitten is not None else None,
        )

    async def biters(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The alien kinds, then the combatants of this channel's fight."""
        kinds = [c for c in MELEE_ATTACKERS if current.casefold() in c.value]
        return (kinds + await combatant_choices(self.bot, interaction, current))[:25]

    @app_commands.autocomplete(target=fighters, attacker=biters)
    @slash("melee", MeleeOptions, extras=ROLLS)
    async def melee(self, interaction: Interaction, options: MeleeOptions) -> None:
        """A melee attack: it always hits; shows the damage (and takes it off a combatant named as target)."""
        await pipeline.roll(self.bot, interaction, options, self.plan_melee)


def _bite(melee: rules.Melee) -> Hit | None:
    """A melee attack's hit on the combatant it is against: its damage, if any."""
    return Hit(melee.damage) if melee.damage else None


async def _fight(reading: Reading, options: FireOdds | MeleeOptions) -> tuple[Encounter, Combatant]:
    """The channel's AliensRL fight and the combatant `target` names; a fire at it takes its aim from the map."""
    assert options.target is not None
    if isinstance(options, FireOdds) and (
        options.dx is not None or options.dy is not None or options.distance is not None or options.intervening
    ):
        raise UserError(
            "At a combatant the map gives the aim and finds who is in the way: leave out `dx`, `dy`, `distance` "
            "and `intervening`.",
            title="Aim from the map",
        )
    if isinstance(options, FireOdds) and options.crowded:
        raise UserError(
            "At a combatant the map says who stands around it: leave out `crowded`.", title="Aim from the map"
        )
    found = await reading.combatant(options.target, RULESET)
    if found is None:
        raise UserError(
            f"`target` names a combatant of this channel's AliensRL fight, and there is none called "
            f"**{clip(options.target, 40)}** (`/encounter show` lists them).",
            title="Who?",
        )
    return found


def _strikes(aimed: str) -> Strikes[rules.Shot]:
    """What a shot on the map does to the fight: its damage to the aimed combatant and to any other it hit."""

    def hit(shot: rules.Shot) -> Hit | None:
        dealt = shot.damage_to().get(aimed)
        return Hit(dealt) if dealt else None

    def others(shot: rules.Shot) -> list[tuple[str, Hit]]:
        return [(being, Hit(dealt)) for being, dealt in shot.damage_to().items() if being != aimed]

    return Strikes(aimed, hit, others)


def _named(fight: Encounter, name: str | None) -> Combatant | None:
    """The combatant a quick-mode `name` names in the fight, if any."""
    if name is None:
        return None
    try:
        return encounter_rules.find(fight, name)
    except EncounterError:
        return None


def _field(
    fight: Encounter, target: Combatant, options: FireOdds, shooter: str, character_id: int | None
) -> rules.Field:
    """The map as the shot sees it, from the square of the combatant who fires: its character's, or `name`'s."""
    if character_id is not None:
        firing = next((c for c in fight.combatants if c.character_id == character_id), None)
    else:
        firing = _named(fight, options.name)
    if firing is None:
        raise UserError(
            f"**{shooter}** is not in this fight, so the map has no square to fire from: `/encounter join` "
            "the character, or in quick mode give `name` a combatant's name.",
            title="Who fires?",
        )
    if firing.number != target.number and not encounter_rules.can_act(fight.ruleset, firing):
        raise UserError(f"**{firing.name}** is dead in this fight, and the dead do not fire.", title="Who fires?")
    return encounter_rules.shot_field(fight, firing, target)


def _weapon_label(weapon: AliensWeapon) -> str:
    return f"{weapon.name} ({weapon.type}, accuracy {weapon.accuracy:+d})"


async def setup(bot: DiceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Aliens(bot))
