"""Star Frontiers ranged and melee hit procedures, the d100 roll, knock-outs and damage (star_frontiers.md).

The chance to hit is the sum of the procedure's steps; every step is recorded with its number and reason, even
one that adds 0.

Ranged hit procedure (§4):

1. Base: RW = ½ DEX, rounded up (§1).
2. Skill: +10 a level of the weapon's skill; a heavy weapon counts one level lower, -10 untrained (§2).
3. Range: the distance's band on the weapon's own bands, each upper bound inclusive (§7, §10 item 17): point
   blank 0, short -10, medium -20, long -40, extreme -80. A telescopic sight moves it one class closer, short to
   point blank included unless the server's variant stops at medium to short (§10 item 7).
4. Movement: the target's row (stationary +10, walking 0, running -10, dodging -20; instead, a running animal
   -10/-20/-30 or a moving vehicle -10) plus the attacker's (walking 0, running -10, dodging -20; in a vehicle
   -10, or -20 above 150 m/turn), added (§10 item 8).
5. Careful aim +15, only standing still.
6. Burst +20.
7. Cover: soft -10, hard -20.
8. Target size: tiny -10, small -5, medium 0, large +5, giant +10.
9. Attacker wounded -10: current Stamina x 2 <= the STA score (§10 item 10).
10. Target prone -5.
11. Wrong hand -10; Vrusk are ambidextrous (§10 item 9).
12. Two weapons -10, on both shots (§10 item 9).

Melee hit procedure (§5), the fighters within 2 m:

1. Base: MW = ½ the greater of STR and DEX, rounded up (§10 item 12).
2. Skill: +10 a level of melee weapons, or of martial arts bare-handed.
3. Weapon modifier (§8; every one is a proposed default).
4. Helpless defender +20: from behind or unaware, or stunned; +20 once when both (§10 item 6).
5. Battle rage +20: Yazirians only.
6. Target encumbered +10.
7. Attacker encumbered -10.
8. Attacker wounded -10.
9. Target defending instead of attacking -15.

The roll (§3, §10 items 1-5):

- d100, 00 = 100. 01-05 always hits. 96-00 always misses under the Expanded rules (`Variants.automatic_miss`,
  the default; the Basic game has no automatic miss). Otherwise a roll at or under the chance hits. The chance
  is never clamped: 120 hits 95% of the time under Expanded, -20 hits 5%.
- Knock-outs need a hit and last d100 turns: any hit on 01-02 (shock, ranged and melee); a melee hit with a
  blunt weapon or bare hands on a roll ending in 0, 00 included; bare-handed martial arts widen 01-02 to 01 to
  05 + level (a secondary source).
- Damage on a hit (§6): the weapon's dice; lasers 1d10 per SEU set before the roll; the sonic disruptor by the
  band the target is really in (the sight changes the modifier, not the distance); a burst 5d10 + 1d10 per
  target after the first, split evenly with the leftover lost; bare hands the fixed punching damage from STR;
  on a stun setting only the damage the stun still does (§11 item 5).

Defenses and stuns (§11, `defenses`):

- A suit or screen of the target that stops the weapon's kind of hit makes the hit do nothing: no damage, no
  knock-out, no stun, no dice. Each one that halves it halves the target's share in turn, fractions dropped.
- A stun setting's hit: an anti-shock implant makes an electric stun's target immune; otherwise the target's
  d100 at or under its current Stamina avoids it, and over it the target is out for d100 turns.

Dice are drawn in this order: the d100; on a hit the damage dice, left to right; on a knock-out the d100 of its
turns; on a stun the target's d100, and on a failed one the d100 of its turns.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Final

from bot.rules.dice import DiceSource
from bot.rules.sheets.star_frontiers import Defense
from bot.rules.star_frontiers.defenses import (
    STUN_DIE,
    DefenseStep,
    Setting,
    avoidance,
    halve,
    halvers,
    stop_step,
    stopper,
)
from bot.rules.star_frontiers.model import (
    AIM_BONUS,
    ATTACKER_ENCUMBERED_PENALTY,
    ATTACKER_MOVEMENT,
    BATTLE_RAGE_BONUS,
    BURST_BONUS,
    BURST_DICE,
    COVER,
    DEFAULT_VARIANTS,
    DEFENDING_PENALTY,
    HELPLESS_BONUS,
    PRONE_PENALTY,
    RANGE_MODIFIER,
    SIZE,
    TARGET_ENCUMBERED_BONUS,
    TARGET_MOVEMENT,
    TWO_WEAPONS_PENALTY,
    WOUNDED_PENALTY,
    WRONG_HAND_PENALTY,
    Attack,
    MeleeAttack,
    RangedAttack,
    Step,
    Variants,
)
from bot.rules.star_frontiers.tables import AttackError, Band, Dice

AUTO_HIT_MAX: Final = 5  # 01-05 always hits (§3)
AUTO_MISS_MIN: Final = 96  # 96-00 always misses under the Expanded rules (§3)
SHOCK_MAX: Final = 2  # a hit on 01-02 knocks out (§3, §10 item 1)
MARTIAL_ARTS_BASE: Final = 5  # bare-handed martial arts knock out on 01 to 05 + level (§3)
KNOCKOUT_TURNS_DIE: Final = 100  # unconscious d100 turns


# ----------------------------------------------------------------------------------------------------- steps


def _flag(number: int, name: str, on: bool, value: int, yes: str, no: str = "no") -> Step:
    return Step(number, name, value if on else 0, yes if on else no)


def sighted(band: Band, variants: Variants) -> Band:
    """§10 item 7: a telescopic sight moves the shot one range class closer (not below point blank)."""
    order = list(Band)
    closer = order[max(order.index(band) - 1, 0)]
    if closer is Band.POINT_BLANK and not variants.sight_to_point_blank:
        return band
    return closer


def _situational(number: int, modifier: int) -> tuple[Step, ...]:
    # Not a rule of the procedure: what the referee adds, recorded after it only when there is one.
    return (Step(number, "Situational", modifier, "given by the player or referee"),) if modifier else ()


def ranged_steps(attack: RangedAttack, variants: Variants = DEFAULT_VARIANTS) -> tuple[Step, ...]:
    """§4 steps 1-12, every one recorded (a step that does not apply adds 0), then any situational modifier."""
    s, a, band = attack.situation, attack.attacker, attack.band
    klass = sighted(band.band, variants) if s.sight else band.band
    range_reason = band.text
    if s.sight:
        if klass is not band.band:
            moved = f"moves it to {klass.label}"
        elif band.band is Band.POINT_BLANK:
            moved = "has nothing closer to move it to"
        else:
            moved = "leaves it there under this server's rule"
        range_reason += f"; the telescopic sight {moved}"
    burst = f"10 rounds at {s.targets} target{'s' if s.targets > 1 else ''}"
    if a.ambidextrous and s.wrong_hand:
        wrong_hand = Step(11, "Wrong hand", 0, f"{(a.race or '').title()}s are ambidextrous: no penalty")
    else:
        wrong_hand = _flag(11, "Wrong hand", s.wrong_hand, WRONG_HAND_PENALTY, "firing with the wrong hand")
    return (
        a.base,
        a.skill,
        Step(3, "Range", RANGE_MODIFIER[klass], range_reason, default=band.default),
        Step(4, "Target movement", *TARGET_MOVEMENT[s.target]),
        Step(4, "Attacker movement", *ATTACKER_MOVEMENT[s.attacker]),
        _flag(5, "Careful aim", s.aim, AIM_BONUS, "standing still and aiming"),
        _flag(6, "Burst", s.burst, BURST_BONUS, burst),
        Step(7, "Cover", *COVER[s.cover]),
        Step(8, "Target size", SIZE[s.size], f"{s.size.value} target"),
        _flag(9, "Attacker wounded", a.wounded, WOUNDED_PENALTY, a.wounded_reason, a.wounded_reason),
        _flag(
            10, "Target prone", s.prone or bool(s.prone_condition), PRONE_PENALTY, s.prone_condition or "target prone"
        ),
        wrong_hand,
        _flag(12, "Two weapons", s.two_weapons, TWO_WEAPONS_PENALTY, "firing two weapons: -10 to both shots"),
        *_situational(13, s.modifier),
    )


def melee_steps(attack: MeleeAttack) -> tuple[Step, ...]:
    """§5 steps 1-9, every one recorded (a step that does not apply adds 0)."""
    s, a, weapon = attack.situation, attack.attacker, attack.weapon
    helpless = [
        why
        for on, why in (
            (s.unaware, "attacked from behind or unaware"),
            (s.stunned, "stunned"),
            (bool(s.helpless_condition), s.helpless_condition),
        )
        if on
    ]
    helpless_reason = " and ".join(helpless) + (": +20 once (§10 item 6)" if len(helpless) > 1 else "")
    return (
        a.base,
        a.skill,
        Step(3, "Weapon modifier", weapon.modifier, weapon.name, default=weapon.is_default("modifier")),
        _flag(4, "Helpless defender", bool(helpless), HELPLESS_BONUS, helpless_reason),
        _flag(5, "Battle rage", s.battle_rage, BATTLE_RAGE_BONUS, "a Yazirian in battle rage"),
        _flag(6, "Target encumbered", s.target_encumbered, TARGET_ENCUMBERED_BONUS, "target carries over half"),
        _flag(
            7,
            "Attacker encumbered",
            a.encumbered,
            ATTACKER_ENCUMBERED_PENALTY,
            a.encumbered_reason,
            a.encumbered_reason,
        ),
        _flag(8, "Attacker wounded", a.wounded, WOUNDED_PENALTY, a.wounded_reason, a.wounded_reason),
        _flag(9, "Target defending", s.defending, DEFENDING_PENALTY, "target defends instead of attacking"),
        *_situational(10, s.modifier),
    )


def attack_steps(attack: Attack, variants: Variants = DEFAULT_VARIANTS) -> tuple[Step, ...]:
    """The steps of whichever procedure the attack follows."""
    return ranged_steps(attack, variants) if isinstance(attack, RangedAttack) else melee_steps(attack)


# ------------------------------------------------------------------------------------------------- the roll


class Decision(StrEnum):
    """What decided the roll (§3)."""

    AUTOMATIC_HIT = "automatic hit"
    AUTOMATIC_MISS = "automatic miss"
    HIT = "hit"
    MISS = "miss"

    @property
    def hit(self) -> bool:
        """Whether the attack hits."""
        return self in (Decision.AUTOMATIC_HIT, Decision.HIT)


def face_text(face: int) -> str:
    """A d100 face as rolled: 01-99, and 00 for 100."""
    return "00" if face == 100 else f"{face:02d}"


def decide(face: int, chance: int, variants: Variants = DEFAULT_VARIANTS) -> Decision:
    """§3: 01-05 always hits, 96-00 always misses (Expanded), otherwise at or under the chance hits."""
    if face <= AUTO_HIT_MAX:
        return Decision.AUTOMATIC_HIT
    if variants.automatic_miss and face >= AUTO_MISS_MIN:
        return Decision.AUTOMATIC_MISS
    return Decision.HIT if face <= chance else Decision.MISS


def decision_reason(face: int, chance: int, decision: Decision) -> str:
    """Why the roll hit or missed, in words."""
    shown = face_text(face)
    return {
        Decision.AUTOMATIC_HIT: f"{shown} is 01-05: always a hit (§3)",
        Decision.AUTOMATIC_MISS: f"{shown} is 96-00: always a miss under the Expanded rules (§3)",
        Decision.HIT: f"{shown} is at or under {chance}",
        Decision.MISS: f"{shown} is over {chance}",
    }[decision]


class KnockoutRule(StrEnum):
    """Which rule knocked the target out (§3)."""

    SHOCK = "shock"  # any hit on 01-02
    MARTIAL_ARTS = "martial arts"  # a bare-handed hit on 01 to 05 + level
    BLUNT = "blunt"  # a blunt or bare-handed melee hit on a roll ending in 0


def knockout_rule(face: int, *, hit: bool, blunt: bool = False, martial_arts: int = 0) -> KnockoutRule | None:
    """§3 and §10 items 1, 4, 5: which knock-out rule a roll meets; none without a hit."""
    if not hit:
        return None
    if face <= SHOCK_MAX:
        return KnockoutRule.SHOCK
    if martial_arts and face <= MARTIAL_ARTS_BASE + martial_arts:
        return KnockoutRule.MARTIAL_ARTS
    if blunt and face % 10 == 0:  # 00 is 100, which ends in 0
        return KnockoutRule.BLUNT
    return None


def _knockout_inputs(attack: Attack) -> tuple[bool, int]:
    if isinstance(attack, RangedAttack):
        return False, 0  # blunt knock-outs are a melee rule
    return attack.weapon.blunt, attack.attacker.martial_arts


@dataclass(frozen=True, slots=True)
class Knockout:
    """The target is unconscious for `turns` (d100) turns."""

    rule: KnockoutRule
    reason: str
    turns: int
    default: bool = False  # rests on a proposed "blunt" entry of the weapon table


@dataclass(frozen=True, slots=True)
class DamagePlan:
    """The damage dice a hit rolls, and between how many targets the total is split (a burst)."""

    dice: Dice
    targets: int
    reason: str
    default: bool = False


@dataclass(frozen=True, slots=True)
class DamageRoll:
    """The damage dice rolled: faces, total, each target's share (leftover points are lost) and what it takes.

    `dealt` is the share after the target's suits and screens (`defenses`, §11); the share itself without any.
    """

    plan: DamagePlan
    faces: tuple[int, ...]
    total: int
    share: int
    lost: int
    defenses: tuple[DefenseStep, ...] = ()
    dealt: int | None = None  # None: no defense changed the share

    @property
    def taken(self) -> int:
        """The points the target takes off its Stamina (a burst: each target's)."""
        return self.share if self.dealt is None else self.dealt


@dataclass(frozen=True, slots=True)
class StunRoll:
    """A stun setting's hit (§11 item 5): immune, or the target's d100 against its Stamina and the turns out."""

    name: str
    stamina: int
    immune: str | None  # the defense that makes the target immune
    face: int | None  # the avoidance d100; None when immune
    turns: int | None  # d100 turns out; None when avoided or immune

    @property
    def stunned(self) -> bool:
        """Whether the target is out."""
        return self.turns is not None

    @property
    def reason(self) -> str:
        """Why, in words."""
        if self.immune is not None:
            return f"the {self.immune} makes the target immune to the {self.name} (§11 item 5)"
        assert self.face is not None
        shown = face_text(self.face)
        if self.turns is None:
            return f"the target's d100 {shown} is at or under its Stamina {self.stamina}: avoided (§11 item 5)"
        return f"the target's d100 {shown} is over its Stamina {self.stamina}, out for d100 turns (§11 item 5)"


def damage_plan(attack: Attack) -> DamagePlan | None:
    """§6: which dice a hit rolls with this weapon, situation and attacker; None: the hit deals no damage."""
    weapon = attack.weapon
    if attack.situation.setting is Setting.STUN:
        stun = weapon.stun
        if stun is None or stun.damage is None:  # construction refuses a stun without a setting
            return None
        return DamagePlan(stun.damage, 1, f"{stun.name}: {stun.damage}", weapon.is_default("stun"))
    if isinstance(attack, RangedAttack):
        s = attack.situation
        if s.burst:
            burst = Dice(BURST_DICE.count + s.targets - 1, BURST_DICE.sides)
            split = f", split {s.targets} ways, leftover lost" if s.targets > 1 else ""
            return DamagePlan(burst, s.targets, f"burst: 5d10 + 1d10 for each target after the first{split}")
        if weapon.band_damage:
            band = attack.band.band
            default = weapon.is_default(f"band_damage.{band.value}")
            return DamagePlan(dict(weapon.band_damage)[band], 1, f"{band.label} band", default)
    dice = weapon.damage
    if dice is None:  # the attack's construction refuses this; kept for the type checker
        raise AttackError(f"The **{weapon.name}** has no damage to roll.")
    default = weapon.is_default("damage")
    if isinstance(attack, RangedAttack) and weapon.per_seu:
        seu = attack.situation.seu or 0
        per_seu = Dice(dice.count * seu, dice.sides, dice.bonus * seu)
        return DamagePlan(per_seu, 1, f"{dice} per SEU at {seu} SEU", default)
    if weapon.punch:
        reason = attack.attacker.punching_reason + (f" + {dice}" if dice.count or dice.bonus else "")
        return DamagePlan(dice.plus(attack.attacker.punching_damage), 1, reason, default)
    return DamagePlan(dice, 1, weapon.name, default)


# ---------------------------------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class AttackResult:
    """A whole attack: every step, the chance, the d100, what decided it, the knock-out, the damage, the stun.

    `stopped` is the target's defense that stopped a hit, which then did nothing (§11 item 3).
    """

    attack: Attack
    variants: Variants
    steps: tuple[Step, ...]
    chance: int
    roll: int
    decision: Decision
    reason: str
    knockout: Knockout | None
    damage: DamageRoll | None
    stopped: DefenseStep | None = None
    stun: StunRoll | None = None

    @property
    def hit(self) -> bool:
        """Whether the attack hit."""
        return self.decision.hit

    def to_dict(self) -> dict[str, object]:
        """The attack, for the roll log; defenses and stuns only when they played a part (older logs lack them)."""
        logged: dict[str, object] = {
            "kind": "ranged" if isinstance(self.attack, RangedAttack) else "melee",
            "weapon": self.attack.weapon.name,
            "steps": [[s.number, s.name, s.value] for s in self.steps],
            "chance": self.chance,
            "d100": self.roll,
            "decision": self.decision.value,
            "knockout": None if self.knockout is None else [self.knockout.rule.value, self.knockout.turns],
            "damage": None
            if self.damage is None
            else {"dice": str(self.damage.plan.dice), "faces": list(self.damage.faces), "share": self.damage.share},
            "variants": {"automatic_miss": self.variants.automatic_miss, "sight": self.variants.sight_to_point_blank},
        }
        if self.stopped is not None:
            logged["stopped"] = self.stopped.defense
        if self.damage is not None and self.damage.defenses:
            logged["defenses"] = [[s.defense, s.after] for s in self.damage.defenses]
        if self.stun is not None:
            logged["stun"] = {"immune": self.stun.immune, "d100": self.stun.face, "turns": self.stun.turns}
        return logged


def _stopped(attack: Attack) -> DefenseStep | None:
    """§11 item 3: the target's defense that stops this weapon's hit, as a step."""
    kind = attack.weapon.kind
    defense = stopper(kind, attack.defender.defenses)
    if defense is None or kind is None:
        return None
    return stop_step(defense, kind, kind_default=attack.weapon.is_default("kind"))


def _damage(attack: Attack, rng: DiceSource) -> DamageRoll | None:
    plan = damage_plan(attack)
    if plan is None:
        return None
    faces = tuple(rng.randint(1, plan.dice.sides) for _ in range(plan.dice.count))
    total = sum(faces) + plan.dice.bonus
    share = total // plan.targets
    kind_default = attack.weapon.is_default("kind")
    dealt, defended = halve(share, attack.weapon.kind, attack.defender.defenses, kind_default=kind_default)
    return DamageRoll(plan, faces, total, share, total % plan.targets, defended, dealt if defended else None)


def burst_share(result: AttackResult, defenses: frozenset[Defense]) -> int:
    """What a burst's other target takes when the burst hits (§6): the same share, after its own defenses.

    A burst "split between N targets" is one d100 and one damage roll, each target taking an even share (the
    leftover lost); each target's suits and screens stop or halve its share as they would a hit of its own
    (§10 item 16, §11 items 2-3). Nothing when the burst missed or rolled no damage.
    """
    if not result.hit or result.damage is None:
        return 0
    kind = result.attack.weapon.kind
    if stopper(kind, defenses) is not None:
        return 0
    dealt, _ = halve(result.damage.share, kind, defenses)
    return dealt


def _stun(attack: Attack, rng: DiceSource) -> StunRoll | None:
    stun, stamina = attack.weapon.stun, attack.defender.stamina
    if attack.situation.setting is not Setting.STUN or stun is None or stamina is None:
        return None
    immune = next((d for d in sorted(stun.immune) if d in attack.defender.defenses), None)
    if immune is not None:
        return StunRoll(stun.name, stamina, immune, None, None)
    face = rng.randint(1, STUN_DIE)
    turns = None if avoidance(face, stamina) else rng.randint(1, STUN_DIE)
    return StunRoll(stun.name, stamina, None, face, turns)


def _resolve(attack: Attack, steps: tuple[Step, ...], rng: DiceSource, variants: Variants) -> AttackResult:
    chance = sum(step.value for step in steps)
    face = rng.randint(1, 100)
    decision = decide(face, chance, variants)
    stopped = _stopped(attack) if decision.hit else None
    landed = decision.hit and stopped is None
    damage = _damage(attack, rng) if landed else None
    blunt, martial_arts = _knockout_inputs(attack)
    rule = knockout_rule(face, hit=landed, blunt=blunt, martial_arts=martial_arts)
    knockout = None
    if rule is not None:
        top = MARTIAL_ARTS_BASE + martial_arts
        reason = {
            KnockoutRule.SHOCK: "a hit on 01-02 knocks the target out (§3)",
            KnockoutRule.MARTIAL_ARTS: f"martial arts {martial_arts}: a hit on 01-{top:02d} knocks out",
            KnockoutRule.BLUNT: "a blunt weapon's hit on a roll ending in 0 knocks out (§3)",
        }[rule]
        default = rule is KnockoutRule.BLUNT and attack.weapon.is_default("blunt")
        knockout = Knockout(rule, reason, rng.randint(1, KNOCKOUT_TURNS_DIE), default)
    stun = _stun(attack, rng) if landed else None
    reason = decision_reason(face, chance, decision)
    return AttackResult(attack, variants, steps, chance, face, decision, reason, knockout, damage, stopped, stun)


def shoot(attack: RangedAttack, rng: DiceSource, variants: Variants = DEFAULT_VARIANTS) -> AttackResult:
    """§4 and §3: the ranged hit procedure, the d100, the knock-out and the damage."""
    return _resolve(attack, ranged_steps(attack, variants), rng, variants)


def melee(attack: MeleeAttack, rng: DiceSource, variants: Variants = DEFAULT_VARIANTS) -> AttackResult:
    """§5 and §3: the melee hit procedure, the d100, the knock-out and the damage."""
    return _resolve(attack, melee_steps(attack), rng, variants)


# -------------------------------------------------------------------------------------------------------- odds


@dataclass(frozen=True, slots=True)
class Odds:
    """Exact chances of an attack before it is rolled; damage is per target (a burst's share, after defenses).

    `hit` counts every hit, a stopped one too; `stopped` names the defense that makes every hit do nothing;
    `stun` is the chance that the target is put out by a stun setting (not counting knock-outs).
    """

    chance: int
    hit: Fraction
    knockout: Fraction
    damage: DamagePlan | None
    expected_damage_on_hit: Fraction
    expected_damage: Fraction  # over every outcome: a miss counts 0
    stopped: str | None = None
    stun: Fraction = Fraction(0)


def _mean_share(plan: DamagePlan, halvings: int = 0) -> Fraction:
    """E[floor(total / targets)] halved `halvings` times, each dropping the fraction (§6, §10 item 16).

    Splitting and then halving in turn is one floor division, by m = targets x 2^halvings; and
    E[floor(X / m)] = (E[X] - E[X mod m]) / m, where X mod m needs only the dice's residues modulo m, so the
    work is m x m a die however many faces it has.
    """
    m = plan.targets << halvings
    if m == 1:
        return plan.dice.mean
    residues = [0] * m
    residues[plan.dice.bonus % m] = 1
    face = [0] * m
    for value in range(1, plan.dice.sides + 1):
        face[value % m] += 1
    for _ in range(plan.dice.count):
        added = [0] * m
        for r, ways in enumerate(residues):
            if ways:
                for s, n in enumerate(face):
                    added[(r + s) % m] += ways * n
        residues = added
    remainder = Fraction(sum(r * ways for r, ways in enumerate(residues)), sum(residues))
    return (plan.dice.mean - remainder) / m


def _stun_chance(attack: Attack) -> Fraction:
    """§11 item 5: the chance that a landed stun puts the target out (its d100 over its Stamina)."""
    stun, stamina = attack.weapon.stun, attack.defender.stamina
    if attack.situation.setting is not Setting.STUN or stun is None or stamina is None:
        return Fraction(0)
    if stun.immune & attack.defender.defenses:
        return Fraction(0)
    avoided = sum(avoidance(face, stamina) for face in range(1, STUN_DIE + 1))
    return Fraction(STUN_DIE - avoided, STUN_DIE)


def odds(attack: Attack, variants: Variants = DEFAULT_VARIANTS) -> Odds:
    """Exact chances of a hit, a knock-out and a stun over the faces, and the expected damage (§3, §6, §11)."""
    chance = sum(step.value for step in attack_steps(attack, variants))
    plan = damage_plan(attack)
    hit = Fraction(sum(decide(face, chance, variants).hit for face in range(1, 101)), 100)
    stopped = _stopped(attack)
    if stopped is not None:  # every hit does nothing (§11 item 3)
        return Odds(chance, hit, Fraction(0), plan, Fraction(0), Fraction(0), stopped.defense)
    blunt, martial_arts = _knockout_inputs(attack)
    knockouts = 0
    for face in range(1, 101):
        if decide(face, chance, variants).hit:
            knockouts += knockout_rule(face, hit=True, blunt=blunt, martial_arts=martial_arts) is not None
    halvings = len(halvers(attack.weapon.kind, attack.defender.defenses))
    on_hit = Fraction(0) if plan is None else _mean_share(plan, halvings)
    return Odds(chance, hit, Fraction(knockouts, 100), plan, on_hit, hit * on_hit, stun=hit * _stun_chance(attack))
