"""/sf: Star Frontiers ranged and melee attacks, and their exact odds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Literal, NamedTuple, TypeVar, get_args

from discord import app_commands
from discord.ext import commands

from bot.client import DiceBot
from bot.db.characters import CharacterRecord
from bot.errors import UserError
from bot.rules import star_frontiers as sf
from bot.rules.audience import public_hit_points, sees_hit_points
from bot.rules.encounter import Hit
from bot.rules.replay import Kind
from bot.rules.sheets.star_frontiers import Defense, SfSheet
from bot.rules.star_frontiers import conditions as sf_conditions
from bot.rules.star_frontiers import replay
from bot.rules.star_frontiers.ruleset import STAR_FRONTIERS, attack_luck
from bot.rules.star_frontiers.situation import NOTHING, ShotSituation, parse_shot_situation, suggest
from bot.rules.star_frontiers.tables import MAX_DISTANCE_M
from bot.ui.embeds import Defender, clip, hides
from bot.ui.star_frontiers import attack_answer, odds_embed
from cogs import _pipeline as pipeline
from cogs._options import Hidden, Named, Shown, notation, option, slash
from cogs._pipeline import Hurts, Plan, Reading, Strikes
from cogs._replay import RENAMED, ROLLS
from cogs._shared import (
    Interaction,
    character_choices,
    find_for_roll,
    only_weapon,
    quick_mode,
    secret_to_you,
    weapon_choices,
)

I = TypeVar("I", replay.SfShot, replay.SfMelee)  # noqa: E741 - the inputs of a shot or a melee attack

RULESET = "sf"
MAX_SEU = 20  # a laser's dial: the most SEU per shot the options accept (the weapon's own limit is checked too)
TITLE = "Star Frontiers"
QUICK = ("score", "skill", "damage")  # the options that make an attack quick mode
Race = Literal["human", "dralasite", "vrusk", "yazirian"]
RACE_NAMES: tuple[Race, ...] = get_args(Race)
RACES = [app_commands.Choice(name=r.title(), value=r) for r in RACE_NAMES]
HELPLESS = [
    app_commands.Choice(name="no", value="none"),
    app_commands.Choice(name="from behind or unaware", value="unaware"),
    app_commands.Choice(name="stunned", value="stunned"),
]


Damage = notation("damage", replay.sf_damage, longest=40)


class Said(notation("situation", parse_shot_situation, longest=60)):  # type: ignore[misc]
    """A shot's `situation` text, read as it arrives, completed word by word as it is typed."""

    # Any client's interaction: discord.py's Transformer methods take any, so an override cannot narrow it.
    async def autocomplete(self, interaction: Any, value: int | float | str, /) -> list[app_commands.Choice[str]]:
        """The text typed so far with its last word completed, or each word that may follow."""
        return [app_commands.Choice(name=text, value=text) for text in suggest(str(value)) if len(text) <= 100]


class Hands(StrEnum):
    """Which hand fires (§4 steps 11 and 12), one option for the two penalties."""

    ONE = "one"
    WRONG_HAND = "wrong_hand"
    TWO_WEAPONS = "two_weapons"
    BOTH = "two_weapons_wrong_hand"

    @property
    def wrong_hand(self) -> bool:
        """Fired with the wrong hand (-10 unless ambidextrous)."""
        return self in (Hands.WRONG_HAND, Hands.BOTH)

    @property
    def two_weapons(self) -> bool:
        """One of two weapons fired at once (-10 to both)."""
        return self in (Hands.TWO_WEAPONS, Hands.BOTH)


class Moving(StrEnum):
    """How the attacker moves (§4 step 4), with careful aim as one more way (§4 step 5: standing still only)."""

    STANDING = "standing"
    AIMING = "aiming"
    WALKING = "walking"
    RUNNING = "running"
    DODGING = "dodging"
    VEHICLE = "vehicle"
    FAST_VEHICLE = "fast_vehicle"

    @property
    def movement(self) -> sf.AttackerMovement:
        """The rules core's movement: aiming is standing still."""
        return sf.AttackerMovement.STANDING if self is Moving.AIMING else sf.AttackerMovement(self.value)


MOVING = {
    Moving.STANDING: "standing",
    Moving.AIMING: "standing and aiming carefully (+15)",
    Moving.VEHICLE: "in a vehicle, 150 m a turn or less",
    Moving.FAST_VEHICLE: "in a vehicle, faster",
}
HANDS = {
    Hands.ONE: "one weapon, in the good hand",
    Hands.WRONG_HAND: "the wrong hand (-10)",
    Hands.TWO_WEAPONS: "two weapons (-10 each)",
    Hands.BOTH: "two weapons, this one in the wrong hand",
}


class Target(NamedTuple):
    """What an attack is against, as the planners found it.

    Attributes:
        text: The target as the roll names it.
        record: Its character here, to which Apply damage applies the hit (a combatant takes it itself).
        fighting: Its name in this channel's fight, if it is a combatant there.
        named: Its character as the answer names it, a game master's secret one included (a combatant's too).
        sheet: Its character's sheet as the roll reads it (the fight's Stamina when it fights here).
        conditions: The names of its conditions in this channel's fight (§12: stunned, unconscious, prone ...).
    """

    text: str | None
    record: CharacterRecord | None
    fighting: str | None
    named: Defender | None = None
    sheet: SfSheet | None = None
    conditions: tuple[str, ...] = ()

    def helpless(self) -> str:
        """Why melee step 4 holds by its conditions, or "" (§12)."""
        return sf_conditions.helpless_because(self.fighting or "", self.conditions)

    def prone(self) -> str:
        """Why ranged step 10 holds by its conditions, or "" (§12)."""
        return sf_conditions.prone_because(self.fighting or "", self.conditions)


class Dial(app_commands.Transformer):
    """A weapon's setting: a laser's SEU per shot (1-20), or `stun` for one with a stun setting (§6, §11)."""

    # Any client's interaction: discord.py's Transformer methods take any, so an override cannot narrow it.
    async def transform(self, interaction: Any, value: Any, /) -> int | sf.Setting:
        """The SEU or the setting typed."""
        try:
            found = replay.sf_setting(str(value))
        except ValueError:
            found = 0
        if isinstance(found, sf.Setting) or 1 <= found <= MAX_SEU:
            return found
        raise UserError(
            f"`setting`: `{clip(str(value), 20)}` is neither a laser's SEU per shot (1 to {MAX_SEU}) nor `stun`.",
            title="Which setting?",
        )

    async def autocomplete(
        self, interaction: Any, value: int | float | str, /
    ) -> list[app_commands.Choice[int | float | str]]:
        """The SEU typed, then stun."""
        typed = str(value).strip()
        choices: list[app_commands.Choice[int | float | str]] = []
        if typed.isdecimal():
            choices.append(app_commands.Choice(name=f"{typed} SEU per shot", value=typed))
        if typed.casefold() in sf.Setting.STUN.value:
            choices.append(app_commands.Choice(name="stun (a weapon with a stun setting)", value="stun"))
        return choices


class Distance(app_commands.Transformer):
    """Metres to the target, or a range band by name (quick mode has no weapon to measure metres against)."""

    # Any client's interaction: discord.py's Transformer methods take any, so an override cannot narrow it.
    async def transform(self, interaction: Any, value: Any, /) -> float | sf.Band:
        """The metres or the band typed."""
        try:
            metres = replay.sf_distance(str(value))  # "30", "30 m", or a band: "short", "point blank"
        except ValueError:
            bands = ", ".join(b.label for b in sf.Band)
            raise UserError(
                f"`distance`: `{clip(str(value), 20)}` is neither metres (like 30) nor a range band ({bands}).",
                title="Where is the target?",
            ) from None
        if isinstance(metres, sf.Band):
            return metres
        if not 0 <= metres <= MAX_DISTANCE_M:
            raise UserError(
                f"`distance`: give 0 to {MAX_DISTANCE_M:,} metres, not {value}.", title="Where is the target?"
            )
        return metres

    async def autocomplete(
        self, interaction: Any, value: int | float | str, /
    ) -> list[app_commands.Choice[int | float | str]]:
        """The metres typed, then the bands that match."""
        typed = str(value).strip()
        choices: list[app_commands.Choice[int | float | str]] = []
        if typed.replace(".", "", 1).isdecimal():
            choices.append(app_commands.Choice(name=f"{typed} m", value=typed))
        bands = [b.label for b in sf.Band if typed.casefold() in b.label]
        return choices + [app_commands.Choice(name=f"{band} (a band)", value=band) for band in bands]


@dataclass(frozen=True, kw_only=True)
class Gun:
    """Who shoots, with what."""

    weapon: str | None = option(
        "The character's weapon or one from the table (default: its only ranged weapon)", None, high=40
    )
    character: str | None = option("Who shoots (default: your active Star Frontiers character)", None, high=40)
    target: str | None = option(
        "A character here, or what it wears (albedo suit); a burst's other targets after ; (Kel; Sathar)",
        None,
        high=130,
    )

    def aimed(self) -> tuple[str | None, list[str]]:
        """The target, and a burst's other targets in this fight: `target` with `;` between them."""
        first, *others = (self.target or "").split(";")
        named = [" ".join(n.split()) for n in others if n.strip()]
        return (" ".join(first.split()) or None) if self.target is not None else None, named


@dataclass(frozen=True, kw_only=True)
class Sighting:
    """What only the moment knows about a shot (§4 steps 3-12)."""

    distance: float | sf.Band | None = option(
        "Metres to the target (the weapon's bands give the range), or a band in quick mode", None, transform=Distance
    )
    target_movement: sf.TargetMovement = option("How the target moves", sf.TargetMovement.WALKING)
    attacker_movement: Moving = option(
        "How you move; careful aim needs standing still (+15)", Moving.STANDING, labels=MOVING
    )
    burst: bool = option("Fire a burst (+20; automatic weapons)", False)
    targets: int = option("Adjacent targets a burst covers (damage is split)", 1, low=1, high=5)
    setting: int | sf.Setting | None = option(
        "A laser's dial, SEU per shot (1d10 damage each), or stun for a weapon that has it", None, transform=Dial
    )
    cover: sf.Cover = option("The target's cover", sf.Cover.NONE)
    target_size: sf.Size = option("The target's size", sf.Size.MEDIUM)
    hands: Hands = option("The wrong hand (-10) or two weapons (-10 each)", Hands.ONE, labels=HANDS)
    situation: ShotSituation | None = option(
        "prone (the target, -5), telescopic sight, and the referee's modifier: prone sight -5", None, transform=Said
    )

    def circumstances(self) -> sf.RangedSituation:
        """The shot's situation as the rules core takes it."""
        given = sf.RangedSituation(
            target=self.target_movement,
            attacker=self.attacker_movement.movement,
            aim=self.attacker_movement is Moving.AIMING,
            burst=self.burst,
            targets=self.targets,
            cover=self.cover,
            size=self.target_size,
            wrong_hand=self.hands.wrong_hand,
            two_weapons=self.hands.two_weapons,
            seu=self.setting if isinstance(self.setting, int) else None,
            setting=sf.Setting.STUN if self.setting is sf.Setting.STUN else sf.Setting.DAMAGE,
        )
        return (self.situation or NOTHING).apply(given)


@dataclass(frozen=True, kw_only=True)
class QuickShooter:
    """Quick mode: a shooter by the numbers."""

    score: int | None = option("Quick mode: the RW score", None, low=0, high=100)
    skill: int | None = option("Quick mode: the weapon skill level", None, low=0, high=6)
    damage: tuple[sf.Dice, sf.DamageKind | None] | None = option(
        "Quick mode: damage dice and what they are to a suit or screen, e.g. 2d10 laser", None, transform=Damage
    )
    race: str | None = option("Quick mode: the race (Vrusk ignore the wrong-hand penalty)", None, choices=RACES)
    wounded: bool = option("Quick mode: the attacker is wounded (-10)", False)
    heavy: bool = option("Quick mode: a heavy weapon (skill counts one level lower)", False)


@dataclass(frozen=True, kw_only=True)
class ShotOdds(Shown, Named, QuickShooter, Sighting, Gun):
    """The options of `/sf odds shoot`: those of a shot, priced without rolling."""


@dataclass(frozen=True, kw_only=True)
class ShootOptions(Hidden, ShotOdds):
    """The options of `/sf shoot`."""


@dataclass(frozen=True, kw_only=True)
class Blade:
    """Who attacks in melee, with what."""

    weapon: str | None = option(
        "The character's melee weapon or one from the table (default: bare hands)", None, high=40
    )
    character: str | None = option("Who attacks (default: your active Star Frontiers character)", None, high=40)


@dataclass(frozen=True, kw_only=True)
class Fight:
    """What only the moment knows about a melee attack (§5 steps 4-6 and 9)."""

    target: str | None = option(
        "A character here (its load, suits, screens and Stamina count), or what the defender wears: skeinsuit",
        None,
        high=40,
    )
    target_encumbered: bool = option("The defender carries over half its capacity (+10)", False)
    helpless: str = option(
        "The defender is attacked from behind or unaware, or stunned (+20)", "none", choices=HELPLESS
    )
    battle_rage: bool = option("A Yazirian in battle rage (+20)", False)
    target_defending: bool = option("The defender defends instead of attacking (-15)", False)
    distance: float | None = option("Metres between the fighters: melee needs 2 or less (§5)", None, low=0, high=1000)
    setting: sf.Setting = option("A stunstick's (or any stun weapon's) setting", sf.Setting.DAMAGE)
    modifier: int = option("Anything else the referee rules", 0, low=-100, high=100)


@dataclass(frozen=True, kw_only=True)
class QuickFighter:
    """Quick mode: a fighter by the numbers."""

    score: int | None = option("Quick mode: the MW score", None, low=0, high=100)
    skill: int | None = option("Quick mode: the melee skill level", None, low=0, high=6)
    weapon_modifier: int = option("Quick mode: the weapon's modifier", 0, low=-100, high=100)
    damage: tuple[sf.Dice, sf.DamageKind | None] | None = option(
        "Quick mode: damage dice and what they are to a suit or screen, e.g. 1d10 ballistic", None, transform=Damage
    )
    blunt: bool = option("Quick mode: a blunt weapon (a hit on a roll ending in 0 knocks out)", False)
    martial_arts: bool = option("Quick mode: a martial arts attack (skill is martial arts; knocks out more)", False)
    race: str | None = option("Quick mode: the race (battle rage is for Yazirians)", None, choices=RACES)
    wounded: bool = option("Quick mode: the attacker is wounded (-10)", False)


@dataclass(frozen=True, kw_only=True)
class MeleeOdds(Shown, Named, QuickFighter, Fight, Blade):
    """The options of `/sf odds melee`: those of a melee attack, priced without rolling."""


@dataclass(frozen=True, kw_only=True)
class MeleeOptions(Hidden, MeleeOdds):
    """The options of `/sf melee`."""


class StarFrontiers(commands.GroupCog, group_name="sf", group_description="Star Frontiers attacks and odds"):
    """The Star Frontiers hit procedures, step by step."""

    odds = app_commands.Group(name="odds", description="The exact odds of a shot or melee attack, rolling nothing")

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        super().__init__()

    # -- autocomplete ------------------------------------------------------------------------------------
    async def weapons(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The character's weapons first, then the weapon table."""
        return await weapon_choices(
            self.bot, interaction, current, rules=RULESET, title=TITLE, table=sf.weapon_names(), quick=QUICK
        )

    async def characters(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Your Star Frontiers characters."""
        return await character_choices(self.bot, interaction, current, rules=RULESET)

    async def targets(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Star Frontiers characters of anyone in this server, then the suits and screens a quick target wears."""
        found = await character_choices(self.bot, interaction, current, rules=RULESET, anyone=True)
        worn = [app_commands.Choice(name=d, value=d) for d in sf.DEFENSES if current.casefold() in d]
        return (found + worn)[:25]

    # -- planners ------------------------------------------------------------------------------------------
    async def character(self, reading: Reading, text: str | None) -> tuple[CharacterRecord, SfSheet]:
        """The attacking character (named, or the active one) and its sheet, its Stamina the fight's if it fights here.

        Its wounds are read from that Stamina (§4 step 9, §5 step 8): hurt in this channel's fight is hurt.
        """
        record = await find_for_roll(reading.characters, reading.interaction, text, RULESET, TITLE)
        sheet = await reading.as_fought(record)
        assert isinstance(sheet, SfSheet)
        return record, sheet

    async def plan_shot(self, reading: Reading, options: ShotOdds) -> Plan[replay.SfShot, sf.AttackResult]:
        """A shot from quick-mode numbers, or from a character and one of its (or the table's) weapons."""
        distance, situation = options.distance, options.circumstances()
        if distance is None:
            raise UserError(
                "Give the distance in metres (`distance:30`), or the range band in quick mode (`distance:short`).",
                title="Where is the target?",
            )
        needs = (
            "Quick mode needs `score` (the RW score), `skill` (the level), `damage` (dice) and a range band as "
            "`distance`."
        )
        quick = (options.score, options.skill, options.damage)
        defender, target = await self.defender(reading, options.aimed()[0])
        situation = replace(situation, prone_condition=target.prone())
        attack: sf.RangedAttack
        if quick_mode(quick, needed=quick, needs=needs, character=options.character, weapon=options.weapon):
            assert options.score is not None and options.skill is not None and options.damage is not None
            if not isinstance(distance, sf.Band):
                raise UserError(
                    needs + " Without a weapon there are no bands to measure metres against.", title="Quick mode"
                )
            dice, kind = options.damage
            attack = sf.quick_ranged(
                options.score,
                options.skill,
                dice,
                distance,
                situation,
                heavy=options.heavy,
                wounded=options.wounded,
                race=_race(options.race),
                kind=kind,
                defender=defender,
            )
            name, character_id = options.attacker(reading.user_name, quick=True), None
        else:
            options.attacker("", quick=False)  # a character shoots under its own name
            record, sheet = await self.character(reading, options.character)
            ranged = _weapons(sheet, melee=False)
            chosen = await reading.weapon(
                record, "sf shoot", options.weapon, ranged, lambda: only_weapon(record, ranged, table="the table")
            )
            if situation.setting is not sf.Setting.STUN:
                dial = options.setting if isinstance(options.setting, int) else None
                situation = replace(situation, seu=await reading.dial(record, chosen, dial))
            if isinstance(distance, sf.Band):
                raise UserError("A character's shot takes the `distance` in metres; its weapon's bands give the range.")
            attack = sf.ranged_attack(sheet, chosen, distance, situation, name=record.name, defender=defender)
            name, character_id = record.name, record.id
        inputs = replay.SfShot(attack, reading.settings.variants(STAR_FRONTIERS.key))
        others = await self.burst(reading, options, situation, target)
        return self.plan(reading, replay.SF_SHOT, inputs, name, character_id, target, others)

    async def burst(
        self, reading: Reading, options: ShotOdds, situation: sf.RangedSituation, target: Target
    ) -> tuple[tuple[str, frozenset[Defense]], ...]:
        """A burst's other targets in this fight (`target` after `;`), each with its suits and screens (§6, §11).

        A burst split between several targets hits each of them: with one of them a combatant, the others must be
        named too, so that each takes its share (one change, which one undo takes back).
        """
        named = options.aimed()[1]
        if not named:
            # A roll (not its odds) at a combatant must say whom else the burst hits.
            if situation.targets > 1 and target.fighting is not None and isinstance(options, ShootOptions):
                raise UserError(
                    f"A burst split between {situation.targets} targets hits each: name the other "
                    f"{situation.targets - 1} in `target` after a `;` (`Sathar 1; Sathar 2`), so that the fight "
                    "takes each one's share.",
                    title="Which targets?",
                )
            return ()
        if target.fighting is None:
            raise UserError(
                "After `;`, `target` names a burst's other targets in this fight: the first one must be too."
            )
        if len(named) != situation.targets - 1:
            raise UserError(
                f"`target` names {len(named)} other target(s) after `;`: a burst at {situation.targets} targets "
                f"(`targets`) has {situation.targets - 1} besides the first.",
                title="Which targets?",
            )
        others: list[tuple[str, frozenset[Defense]]] = []
        for text in named:
            found, other = await self.defender(reading, text)
            if other.fighting is None:
                raise UserError(f"**{clip(text, 40)}** is not a combatant of this channel's fight.", title="Who?")
            if other.fighting in {target.fighting, *(n for n, _ in others)}:
                raise UserError(f"**{other.fighting}** is named twice among the burst's targets.", title="Who?")
            others.append((other.fighting, found.defenses))
        return tuple(others)

    async def plan_melee(self, reading: Reading, options: MeleeOdds) -> Plan[replay.SfMelee, sf.AttackResult]:
        """A melee attack from quick-mode numbers or from a character."""
        defender, target = await self.defender(reading, options.target)
        encumbered = target.sheet.encumbered if target.sheet is not None else None
        situation = sf.MeleeSituation(
            unaware=options.helpless == "unaware",
            stunned=options.helpless == "stunned",
            battle_rage=options.battle_rage,
            target_encumbered=options.target_encumbered if encumbered is None else encumbered,
            defending=options.target_defending,
            distance=options.distance,
            setting=options.setting,
            modifier=options.modifier,
            helpless_condition=target.helpless(),
        )
        needs = "Quick mode needs `score` (the MW score), `skill` (the level) and `damage` (dice)."
        quick = (options.score, options.skill, options.damage)
        attack: sf.MeleeAttack
        if quick_mode(quick, needed=quick, needs=needs, character=options.character, weapon=options.weapon):
            assert options.score is not None and options.skill is not None and options.damage is not None
            dice, kind = options.damage
            attack = sf.quick_melee(
                options.score,
                options.skill,
                dice,
                situation,
                weapon_modifier=options.weapon_modifier,
                blunt=options.blunt,
                martial_arts=options.martial_arts,
                wounded=options.wounded,
                race=_race(options.race),
                kind=kind,
                defender=defender,
            )
            name, character_id = options.attacker(reading.user_name, quick=True), None
        else:
            options.attacker("", quick=False)  # a character attacks under its own name
            record, sheet = await self.character(reading, options.character)
            melee = _weapons(sheet, melee=True)
            weapon = await reading.weapon(record, "sf melee", options.weapon, melee, lambda: "Bare hands")
            attack = sf.melee_attack(sheet, weapon, situation, name=record.name, defender=defender)
            name, character_id = record.name, record.id
        inputs = replay.SfMelee(attack, reading.settings.variants(STAR_FRONTIERS.key))
        return self.plan(reading, replay.SF_MELEE, inputs, name, character_id, target)

    def plan(
        self,
        reading: Reading,
        kind: Kind[I, sf.AttackResult],
        inputs: I,
        name: str,
        character_id: int | None,
        target: Target,
        others: tuple[tuple[str, frozenset[Defense]], ...] = (),
    ) -> Plan[I, sf.AttackResult]:
        """Price an attack and say how it is shown, and what its hit does to its target: the same for both kinds.

        A character here gets an Apply damage button; a combatant of this channel's fight takes the hit itself.
        Against a game master's secret character, the channel sees neither its defenses nor what they left of
        the damage, and only its owner (or Manage Server) the odds, privately.
        """
        attack: sf.Attack = inputs.attack
        variants: sf.Variants = reading.settings.variants(STAR_FRONTIERS.key)
        chances = sf.odds(attack, variants)
        what = "melee attack" if kind is replay.SF_MELEE else "shot"
        secret = hides(target.named)
        creature = target.named.creature if target.named is not None else None
        # A combatant whose Stamina the fight hides: the odds leave it out (and the stun's chance that follows
        # from it) for whoever may not see it, and go to the asker alone when they show what the channel may not.
        stamina_hidden = creature is not None and not sees_hit_points(reading.viewer, creature)
        return Plan(
            kind,
            inputs,
            RULESET,
            answer=lambda result: attack_answer(result, chances, attacker=name, defender=target.named),
            luck=lambda drawn: attack_luck(drawn.result, chances),
            odds=lambda: secret_to_you(
                reading.viewer,
                target.named,
                odds_embed(
                    chances,
                    sf.attack_steps(attack, variants),
                    title=f"Odds: {name}'s {what} with {attack.weapon.name}",
                    variants=variants,
                    target=attack.defender,
                    stamina_hidden=stamina_hidden,
                ),
            ),
            odds_private=creature is not None and not public_hit_points(creature),
            character_id=character_id,
            hurts=Hurts(target.record.id, target.record.name, _dealt, secret) if target.record else None,
            strikes=Strikes(target.fighting, _hit, _shares(others)) if target.fighting is not None else None,
        )

    async def defender(self, reading: Reading, text: str | None) -> tuple[sf.Defender, Target]:
        """The target as the damage step sees it, and as the planners take it (`Target`).

        The creature `text` names (`Reading.creature`): a character brings its suits, screens, Stamina and (in
        melee) its load from its sheet, in this channel's fight or out of it, the fight supplying only its Stamina
        as the fight holds it; a quick creature of the fight brings that Stamina alone. A defense's name is a
        quick target wearing it (§11).
        """
        if text is None:
            return sf.NO_DEFENDER, Target(None, None, None)
        worn = next((d for d in sf.DEFENSES if d == " ".join(text.split()).casefold()), None)
        if worn is not None and await reading.combatant(text, RULESET) is None:
            return sf.quick_defender(worn), Target(text, None, None)
        creature = await reading.creature(text, RULESET, TITLE)
        fighting = creature.combatant.name if creature.combatant is not None else None
        sheet = creature.sheet if isinstance(creature.sheet, SfSheet) else None
        if sheet is not None:
            found = sf.defender(sheet, name=creature.name)
        else:
            assert creature.combatant is not None  # a character found is a Star Frontiers one (`Reading.creature`)
            found = sf.Defender(creature.name, frozenset(), creature.combatant.hp)
        return found, Target(text, creature.hurt, fighting, creature.named, sheet, creature.conditions)

    # -- commands ----------------------------------------------------------------------------------------
    @app_commands.autocomplete(weapon=weapons, character=characters, target=targets)
    @slash("shoot", ShootOptions, extras={**ROLLS, RENAMED: replay.current_shot_options})
    async def shoot(self, interaction: Interaction, options: ShootOptions) -> None:
        """Shoot: the 12-step ranged procedure, the d100, knock-out and damage, step by step."""
        await pipeline.roll(self.bot, interaction, options, self.plan_shot)

    @app_commands.autocomplete(weapon=weapons, character=characters, target=targets)
    @slash("melee", MeleeOptions, extras=ROLLS)
    async def melee(self, interaction: Interaction, options: MeleeOptions) -> None:
        """Melee: the 9-step procedure, the d100, knock-out and damage, step by step."""
        await pipeline.roll(self.bot, interaction, options, self.plan_melee)

    @app_commands.autocomplete(weapon=weapons, character=characters, target=targets)
    @slash("shoot", ShotOdds, parent=odds)
    async def odds_shoot(self, interaction: Interaction, options: ShotOdds) -> None:
        """The exact odds of a shot, rolling nothing: hit, knock-out, expected damage."""
        await pipeline.odds(self.bot, interaction, options, self.plan_shot)

    @app_commands.autocomplete(weapon=weapons, character=characters, target=targets)
    @slash("melee", MeleeOdds, parent=odds)
    async def odds_melee(self, interaction: Interaction, options: MeleeOdds) -> None:
        """The exact odds of a melee attack, rolling nothing: hit, knock-out, expected damage."""
        await pipeline.odds(self.bot, interaction, options, self.plan_melee)


def _taken(result: sf.AttackResult) -> int:
    """The Stamina a hit takes off its target: its share of a burst, after its suits and screens."""
    return result.damage.taken if result.hit and result.damage is not None else 0


def _dealt(result: sf.AttackResult) -> int | None:
    """What Apply damage takes off a character: `_taken`, or None when the result rolled no damage."""
    return _taken(result) if result.hit and result.damage is not None else None


def _hit(result: sf.AttackResult) -> Hit | None:
    """What a hit does to a combatant: its Stamina, and a knock-out's or a stun's turns (§3, §11)."""
    if not result.hit:
        return None
    knockout = result.knockout.turns if result.knockout is not None else None
    stun = result.stun.turns if result.stun is not None and result.stun.stunned else None
    return Hit(_taken(result), knockout_turns=knockout, stun_turns=stun)


def _shares(
    others: tuple[tuple[str, frozenset[Defense]], ...],
) -> Callable[[sf.AttackResult], list[tuple[str, Hit]]] | None:
    """A burst's hits on its other targets: each its share after its own defenses (`sf.burst_share`)."""
    if not others:
        return None

    def hits(result: sf.AttackResult) -> list[tuple[str, Hit]]:
        shares = [(name, sf.burst_share(result, defenses)) for name, defenses in others]
        return [(name, Hit(share)) for name, share in shares if share > 0]

    return hits


def _race(text: str | None) -> Race | None:
    """The race a `race` option names (Discord sends only its choices, RACES)."""
    if text is None:
        return None
    for race in RACE_NAMES:
        if race == text:
            return race
    raise UserError(f"There is no race `{text}`: pick one of {', '.join(RACE_NAMES)}.", title="No such race")


def _weapons(sheet: SfSheet, *, melee: bool) -> list[str]:
    """The character's weapons of one kind (melee or ranged) that can be used as they stand."""
    fitting = []
    for weapon in sheet.weapons:
        try:
            if sf.character_weapon(sheet, weapon.name).melee == melee:
                fitting.append(weapon.name)
        except sf.AttackError:
            continue  # a weapon that cannot be used as it stands is never the default
    return fitting


async def setup(bot: DiceBot) -> None:
    """Load the cog."""
    await bot.add_cog(StarFrontiers(bot))
