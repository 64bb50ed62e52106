"""AliensRL ranged accuracy, damage and strays; melee (docs/rules/aliensrl.md).

One d100 roll per projectile decides both where the shot goes and how much of the ammunition's damage it
deals (§1). The steps, each recorded in the result:

1. d100 -> roll rating from `ROLL_TABLE` (§3; lower is better; 1-2 is the critical, -100).
2. Skill rating = 1, + rank (or -1 untrained), - pain, + weapon accuracy, - long-range term
   max((d - 5) // 3, 0), + point-blank term (4 - d when d < 4: the 2012-10-11 correction adds it) (§4).
3. Quality = skill - roll rating, clamped to 1..10; the critical sets quality 11 without either (§5, §9.5).
4. Damage = max(1, floor((ammo damage + weapon damage modifier) x quality / 10)), x 2 for quality 11 (§5).
5. Stray: only when roll rating - skill > 0 (never on a critical), and then by distance: under 5 no stray,
   5 to 8 one of the 8 neighbours, 9 and more one of the squares two tiles away (§6, §9.3, §9.6).
6. A being met off the aimed square is missed on 6 in 10 (d10 of 1-6); a missed being lets the shot fly on
   to its target square (§6.5, §9.13).
7. A strayed projectile that reaches a being on the square it strayed to (`crowded`: a being on every square
   around the aim) hits it outright when the relocated square counts as targeted (the reference's default),
   or rolls the 6 in 10 too when only the aimed square does (the server setting `aliensrl.targeted`, §9.11).

The dice are drawn per projectile: the d100; the stray square; the d10 of a being in the way; the d10 of a
being on the landing square (only under the aimed-square reading).

On a map (`Field`: the shooter's square, the aimed square and who stands where) the beings are found instead of
typed in: the projectile flies along the line of squares from the shooter to its target square (the aimed one,
or the one it strayed to), each being on the way rolls the 6 in 10 in turn until one is hit, and a being on the
square it ends on is hit outright (the aimed square, or a strayed-to one under the reference's reading), else it
rolls the 6 in 10 too. The line is Bresenham's (a default: the reference does not say how a shot's path is
drawn), and a shot that reaches an empty target square is spent there (§9.13).

Everything the reference marks NOT FOUND is data below, labelled as a default: the roll-table rows past
d100 = 20, the quality words, ammo damage 10, alien melee damage 5, and the two-tile ring (Chebyshev).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Final

from bot.errors import UserError
from bot.rules.dice import DiceSource

CRITICAL_RATING: Final = -100
CRITICAL_QUALITY: Final = 11
MIN_QUALITY, MAX_QUALITY = 1, 10
MISS_ON_D10: Final = 6  # a being off the aimed square is missed on 1..6 of a d10 (6 in 10, §6.5)
MAX_DISTANCE: Final = 1000
MAX_SHOTS: Final = 20


@dataclass(frozen=True, slots=True)
class RollBand:
    """A row of the roll-rating table: d100 faces `low`..`high` give `rating`."""

    low: int
    high: int
    rating: int
    default: bool  # True where the reference proposes the row (its source is cut off there)


# §3. Rows from d100 = 21 on (and the end of the -1 row) are the reference's placeholder mirror table.
ROLL_TABLE: Final = (
    RollBand(1, 2, CRITICAL_RATING, default=False),
    RollBand(3, 5, -3, default=False),
    RollBand(6, 10, -2, default=False),
    RollBand(11, 20, -1, default=True),
    RollBand(21, 80, 0, default=True),
    RollBand(81, 90, 1, default=True),
    RollBand(91, 95, 2, default=True),
    RollBand(96, 98, 3, default=True),
    RollBand(99, 100, 4, default=True),
)

# §5. Default words for each quality (the source's description table was not found).
QUALITY_WORDS: Final = {
    1: "barely grazes",
    2: "grazes",
    3: "nicks",
    4: "hits lightly",
    5: "hits",
    6: "hits solidly",
    7: "hits hard",
    8: "hits very hard",
    9: "hits squarely",
    10: "hits perfectly",
    11: "CRITICALLY hits",
}
DEFAULT_AMMO_DAMAGE: Final = 10  # §5 default: quality then equals damage points
RANK_NAMES: Final = ("untrained", "basic", "advanced", "expert", "master")
# §2 default: the source gives no numbers for alien melee damage.
ALIEN_MELEE_DAMAGE: Final = {"worker": 5, "warrior": 5, "hunter": 5}


class Ring(StrEnum):
    """Which squares count as "two tiles away" for a stray at distance 9 and more (§9.6, a setting)."""

    CHEBYSHEV = "chebyshev"  # the 16 squares at Chebyshev distance 2 (the reference's default)
    ANGBAND = "angband"  # the 12 squares at Angband distance 2
    WITHIN_TWO = "within-two"  # the 24 squares within two


DEFAULT_RING: Final = Ring.CHEBYSHEV


class Targeted(StrEnum):
    """Which square is "the targeted square" of the 6-in-10 rule for a strayed shot (§9.11, a setting)."""

    RELOCATED = "relocated"  # the square it strayed to: a being there is hit outright (the reference's default)
    AIMED = "aimed"  # only the aimed square: a being on the strayed-to square rolls the 6 in 10 too


DEFAULT_TARGETED: Final = Targeted.RELOCATED


class ShotError(UserError):
    """A shot the rules cannot resolve as asked."""

    title = "Can't take that shot"


def angband_distance(dx: int, dy: int) -> int:
    """§4: d = max(|dx|, |dy|) + floor(min(|dx|, |dy|) / 2), Angband's distance()."""
    ax, ay = abs(dx), abs(dy)
    return max(ax, ay) + min(ax, ay) // 2


def roll_band(face: int) -> RollBand:
    """§3: the roll-table row of a d100 face."""
    for band in ROLL_TABLE:
        if band.low <= face <= band.high:
            return band
    raise ValueError(f"not a d100 face: {face}")


@dataclass(frozen=True, slots=True)
class Term:
    """One step of the skill rating: what it is, and what it adds."""

    label: str
    value: int


@dataclass(frozen=True, slots=True)
class Shooter:
    """Everything about the shooter and the weapon that the accuracy rules use."""

    rank: int  # 0 untrained .. 4 master
    pain: int  # a magnitude: "Pain (-3)" is 3
    accuracy: int
    ammo_damage: int = DEFAULT_AMMO_DAMAGE
    damage_modifier: int = 0
    shots: int = 1
    weapon: str = ""


def skill_terms(shooter: Shooter, distance: int) -> tuple[Term, ...]:
    """§4: the skill rating, term by term, in the reference's order."""
    rank = shooter.rank
    long_range = max((distance - 5) // 3, 0)
    point_blank = 4 - distance if distance < 4 else 0
    return (
        Term("base", 1),
        Term(f"{RANK_NAMES[rank]} skill" if rank else "untrained", rank if rank > 0 else -1),
        Term("pain", -shooter.pain),
        Term("weapon accuracy", shooter.accuracy),
        Term(f"long range (d {distance})", -long_range),
        Term(f"point blank (d {distance})", point_blank),
    )


def skill_rating(shooter: Shooter, distance: int) -> int:
    """§4: the sum of the skill terms."""
    return sum(term.value for term in skill_terms(shooter, distance))


def quality(skill: int, rating: int) -> int:
    """§5: skill - roll rating clamped to 1..10; the critical rating gives 11 directly."""
    if rating == CRITICAL_RATING:
        return CRITICAL_QUALITY
    return min(max(skill - rating, MIN_QUALITY), MAX_QUALITY)


def damage(shooter: Shooter, q: int) -> int:
    """§5 (default combination): max(1, floor((ammo + modifier) x share)), share q/10, or 2 at quality 11."""
    base = shooter.ammo_damage + shooter.damage_modifier
    dealt = base * 2 if q == CRITICAL_QUALITY else base * q // 10
    return max(1, dealt)


def may_stray(skill: int, rating: int) -> bool:
    """§6.2 and §9.3: only a roll worse than the skill (roll - skill > 0) may stray; a critical never does."""
    return rating != CRITICAL_RATING and rating - skill > 0


def _ring(ring: Ring) -> tuple[tuple[int, int], ...]:
    squares = [(x, y) for y in range(-2, 3) for x in range(-2, 3) if (x, y) != (0, 0)]
    if ring is Ring.CHEBYSHEV:
        return tuple(s for s in squares if max(abs(s[0]), abs(s[1])) == 2)
    if ring is Ring.ANGBAND:
        return tuple(s for s in squares if angband_distance(*s) == 2)
    return tuple(squares)


NEIGHBOURS: Final = tuple((x, y) for y in (-1, 0, 1) for x in (-1, 0, 1) if (x, y) != (0, 0))


def stray_offsets(distance: int, ring: Ring = DEFAULT_RING) -> tuple[tuple[int, int], ...]:
    """§6.3: where a shot allowed to stray may land, relative to the aimed square (empty: it cannot)."""
    if distance < 5:
        return ()
    if distance < 9:
        return NEIGHBOURS
    return _ring(ring)


Square = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Field:
    """The map a shot crosses: the shooter's square, the aimed square, and the beings standing on other squares."""

    origin: Square
    aim: Square
    beings: tuple[tuple[str, Square], ...]  # (name, square), the shooter's own square left out

    @property
    def offset(self) -> Square:
        """The aim as squares across and down from the shooter (dx, dy)."""
        return self.aim[0] - self.origin[0], self.aim[1] - self.origin[1]

    def at(self, square: Square) -> str | None:
        """The being on `square`, if any."""
        return next((name for name, where in self.beings if where == square), None)


def line(start: Square, end: Square) -> tuple[Square, ...]:
    """The squares a shot crosses from `start` to `end`, `end` included, `start` not (Bresenham's line, a default)."""
    (x, y), (x1, y1) = start, end
    dx, dy = abs(x1 - x), -abs(y1 - y)
    sx, sy = (1 if x1 > x else -1), (1 if y1 > y else -1)
    error = dx + dy
    squares = []
    while (x, y) != (x1, y1):
        doubled = 2 * error
        if doubled >= dy:
            error += dy
            x += sx
        if doubled <= dx:
            error += dx
            y += sy
        squares.append((x, y))
    return tuple(squares)


@dataclass(frozen=True, slots=True)
class Meeting:
    """A being a projectile reached on the map: where, its d10 (None: hit outright), and whether it was hit."""

    being: str
    square: Square
    face: int | None
    hit: bool
    at_end: bool  # on the square the shot was flying at (aimed or strayed-to), not one on the way


def _meetings(field: Field, end: Square, strayed: bool, targeted: Targeted) -> list[tuple[str, Square, bool]]:
    """The beings a shot at `end` reaches in order, each with whether it rolls the 6 in 10 (else it is hit outright)."""
    met = []
    for square in line(field.origin, end):
        being = field.at(square)
        if being is None:
            continue
        if square != end:
            met.append((being, square, True))
        else:  # §6.1: on target; a strayed shot's square counts as targeted under the reference's reading (§9.11)
            met.append((being, square, strayed and targeted is Targeted.AIMED))
    return met


@dataclass(frozen=True, slots=True)
class Projectile:
    """One projectile, every step recorded."""

    face: int
    band: RollBand
    terms: tuple[Term, ...]
    skill: int
    quality: int
    damage: int
    may_stray: bool
    stray_choices: int  # how many squares it could have strayed to (0: it could not)
    stray_offset: tuple[int, int] | None  # where it strayed, relative to the aimed square
    intervening_face: int | None  # the d10 for a being in the way, if there was one
    intervening_missed: bool
    landing_being: bool = False  # a strayed projectile reached a being on the square it strayed to (§9.11)
    landing_face: int | None = None  # that being's d10, under the aimed-square reading only
    landing_missed: bool = False
    meetings: tuple[Meeting, ...] = ()  # on a map: every being it reached, in order

    @property
    def struck(self) -> str | None:
        """On a map: the being it hit, if any."""
        return next((m.being for m in self.meetings if m.hit), None)

    @property
    def critical(self) -> bool:
        """Quality 11, 200% damage."""
        return self.quality == CRITICAL_QUALITY

    @property
    def hits_landing_being(self) -> bool:
        """Whether the being on the strayed-to square is hit (outright, or on a d10 of 7-10)."""
        return self.landing_being and not self.landing_missed


@dataclass(frozen=True, slots=True)
class ShotOdds:
    """Exact chances for one projectile, before it is fired."""

    quality: dict[int, Fraction]  # quality 1..11 -> probability
    may_stray: Fraction
    landing: dict[tuple[int, int], Fraction]  # offset from the aimed square -> probability (strays only)
    on_target: Fraction  # reaches the aimed square (not strayed, not stopped by a being in the way)
    expected_to_target: Fraction
    expected_to_being: Fraction  # to a being in the way (0 without one)
    to_landing: Fraction = Fraction(0)  # hits a being on the strayed-to square (`crowded` only)
    expected_to_landing: Fraction = Fraction(0)
    beings: tuple[tuple[str, Fraction, Fraction], ...] = ()  # on a map: (being, chance hit, expected damage)

    @property
    def critical(self) -> Fraction:
        """Chance of quality 11."""
        return self.quality.get(CRITICAL_QUALITY, Fraction(0))

    @property
    def full(self) -> Fraction:
        """Chance of quality 10 (100% of the ammo damage)."""
        return self.quality.get(MAX_QUALITY, Fraction(0))


@dataclass(frozen=True, slots=True)
class Shot:
    """A whole `fire`: the shooter, the aim, the odds, and each projectile."""

    shooter: Shooter
    dx: int | None
    dy: int | None
    distance: int
    intervening: bool
    ring: Ring
    odds: ShotOdds
    projectiles: tuple[Projectile, ...]
    crowded: bool = False
    targeted: Targeted = DEFAULT_TARGETED
    field: Field | None = None

    def damage_to(self) -> dict[str, int]:
        """On a map: the damage each being hit takes, in the order they were first hit."""
        dealt: dict[str, int] = {}
        for p in self.projectiles:
            if (being := p.struck) is not None:
                dealt[being] = dealt.get(being, 0) + p.damage
        return dealt

    @property
    def total_to_target(self) -> int:
        """Damage that reached the aimed square."""
        return sum(p.damage for p in self.projectiles if reaches_target(p))

    @property
    def total_to_landing(self) -> int:
        """Damage dealt to beings on the squares strayed projectiles landed on."""
        return sum(p.damage for p in self.projectiles if p.hits_landing_being)

    def to_dict(self) -> dict[str, object]:
        """The whole shot, for the roll log; the landing squares' beings only when `crowded` (older logs lack them)."""
        logged: dict[str, object] = {
            "distance": self.distance,
            "offset": [self.dx, self.dy],
            "intervening": self.intervening,
            "projectiles": [
                {
                    "d100": p.face,
                    "rating": p.band.rating,
                    "skill": p.skill,
                    "quality": p.quality,
                    "damage": p.damage,
                    "stray_offset": p.stray_offset,
                    "d10": p.intervening_face,
                    "missed_being": p.intervening_missed,
                }
                for p in self.projectiles
            ],
            "total_to_target": self.total_to_target,
        }
        if self.field is not None:
            logged["targeted"] = self.targeted.value
            logged["meetings"] = [
                [[m.being, list(m.square), m.face, m.hit] for m in p.meetings] for p in self.projectiles
            ]
            logged["damage_to"] = self.damage_to()
        if self.crowded:
            logged["targeted"] = self.targeted.value
            logged["landing"] = [[p.landing_being, p.landing_face, p.hits_landing_being] for p in self.projectiles]
            logged["total_to_landing"] = self.total_to_landing
        return logged


def reaches_target(projectile: Projectile) -> bool:
    """Whether the projectile ends on the aimed square: not strayed, and not stopped by a being on the way."""
    stopped = projectile.intervening_face is not None and not projectile.intervening_missed
    stopped = stopped or any(m.hit and not m.at_end for m in projectile.meetings)
    return projectile.stray_offset is None and not stopped


def check_aim(dx: int | None, dy: int | None, distance: int | None) -> tuple[int | None, int | None, int]:
    """The aim as (dx, dy, d): an offset or a distance, not both; d at least 1 (§9.12)."""
    if distance is not None and (dx is not None or dy is not None):
        raise ShotError("Give the target as `dx`/`dy` or as `distance`, not both.")
    if distance is None and dx is None and dy is None:
        raise ShotError("Say where the target is: `dx` and `dy` (squares across and down) or `distance`.")
    if distance is None:
        dx, dy = dx or 0, dy or 0
        distance = angband_distance(dx, dy)
    if not 1 <= distance <= MAX_DISTANCE:
        raise ShotError(f"A ranged shot needs a target 1 to {MAX_DISTANCE} squares away, not {distance}.")
    return dx, dy, distance


def check_shooter(shooter: Shooter) -> None:
    """Refuse numbers outside what the rules and the stat block allow."""
    if not 0 <= shooter.rank <= 4:
        raise ShotError("A skill rank is 0 (untrained) to 4 (master).")
    if not 0 <= shooter.pain <= 100:
        raise ShotError('Pain is 0 to 100 (the number in "Pain (-N)").')
    if not 1 <= shooter.shots <= MAX_SHOTS:
        raise ShotError(f"A weapon fires 1 to {MAX_SHOTS} projectiles.")


def odds(
    shooter: Shooter,
    distance: int,
    *,
    intervening: bool = False,
    ring: Ring = DEFAULT_RING,
    crowded: bool = False,
    targeted: Targeted = DEFAULT_TARGETED,
    field: Field | None = None,
) -> ShotOdds:
    """Exact chances for one projectile, by enumerating every d100 face, stray square and d10."""
    if field is not None:
        return _map_odds(shooter, distance, field, ring, targeted)
    skill = skill_rating(shooter, distance)
    offsets = stray_offsets(distance, ring)
    by_quality: Counter[int] = Counter()
    landing: dict[tuple[int, int], Fraction] = {}
    strays = Fraction(0)
    on_target = expected_target = expected_being = to_landing = expected_landing = Fraction(0)
    face_chance = Fraction(1, 100)
    hit_being = Fraction(10 - MISS_ON_D10, 10)
    # A strayed projectile past the being in the way (if any) meets the being where it lands: hit outright when
    # that square counts as targeted, else on the same 4 in 10 (§9.11).
    passes = 1 - hit_being if intervening else Fraction(1)
    hits_landing = Fraction(1) if targeted is Targeted.RELOCATED else hit_being
    for face in range(1, 101):
        rating = roll_band(face).rating
        q = quality(skill, rating)
        dealt = damage(shooter, q)
        by_quality[q] += 1
        strayed = may_stray(skill, rating) and bool(offsets)
        if may_stray(skill, rating):
            strays += face_chance
        if strayed:
            for offset in offsets:
                landing[offset] = landing.get(offset, Fraction(0)) + face_chance / len(offsets)
            if crowded:
                to_landing += face_chance * passes * hits_landing
                expected_landing += face_chance * passes * hits_landing * dealt
        if intervening:
            expected_being += face_chance * hit_being * dealt
        if not strayed:
            reach = face_chance * (1 - hit_being if intervening else 1)
            on_target += reach
            expected_target += reach * dealt
    return ShotOdds(
        quality={q: Fraction(n, 100) for q, n in sorted(by_quality.items())},
        may_stray=strays,
        landing=landing,
        on_target=on_target,
        expected_to_target=expected_target,
        expected_to_being=expected_being,
        to_landing=to_landing,
        expected_to_landing=expected_landing,
    )


def _map_odds(shooter: Shooter, distance: int, field: Field, ring: Ring, targeted: Targeted) -> ShotOdds:
    """Exact chances for one projectile on a map: per d100 face, per square it may fly at, per being in order."""
    skill = skill_rating(shooter, distance)
    offsets = stray_offsets(distance, ring)
    miss = Fraction(MISS_ON_D10, 10)

    def reached(end: Square, strayed: bool) -> tuple[list[tuple[str, Fraction]], Fraction]:
        """Each being's chance to be hit by a shot flying at `end`, and the chance it gets to `end` unstopped."""
        chances, going = [], Fraction(1)
        for being, square, rolls in _meetings(field, end, strayed, targeted):
            if square != end:  # on the way: hit on 4 in 10, else it flies on (§9.13)
                chances.append((being, going * (1 - miss)))
                going *= miss
            else:
                chances.append((being, going * (1 - miss) if rolls else going))
        return chances, going

    aimed, aimed_reach = reached(field.aim, False)
    # A strayed shot flies at each square around the aim alike: each being's chance, averaged over those squares.
    astray: dict[str, Fraction] = {}
    for ox, oy in offsets:
        for being, chance in reached((field.aim[0] + ox, field.aim[1] + oy), True)[0]:
            astray[being] = astray.get(being, Fraction(0)) + chance / len(offsets)
    # The d100 faces only matter by whether the shot strays and what it deals: a dozen classes, not 100 faces.
    by_quality: Counter[int] = Counter()
    classes: Counter[tuple[bool, int]] = Counter()
    may = Fraction(0)
    for face in range(1, 101):
        rating = roll_band(face).rating
        q = quality(skill, rating)
        by_quality[q] += 1
        stray = may_stray(skill, rating)
        may += Fraction(1, 100) if stray else 0
        classes[(stray and bool(offsets), damage(shooter, q))] += 1
    chance_of: dict[str, Fraction] = {}
    expected_of: dict[str, Fraction] = {}
    on_target = expected_target = Fraction(0)
    for (strays, dealt), faces in classes.items():
        weight = Fraction(faces, 100)
        if strays:
            chances = astray.items()
        else:
            chances = dict(aimed).items()
            on_target += weight * aimed_reach
            expected_target += weight * aimed_reach * dealt
        for being, chance in chances:
            chance_of[being] = chance_of.get(being, Fraction(0)) + weight * chance
            expected_of[being] = expected_of.get(being, Fraction(0)) + weight * chance * dealt
    landing = {offset: may / len(offsets) for offset in offsets} if may else {}
    return ShotOdds(
        quality={q: Fraction(n, 100) for q, n in sorted(by_quality.items())},
        may_stray=may,
        landing=landing,
        on_target=on_target,
        expected_to_target=expected_target,
        expected_to_being=Fraction(0),
        beings=tuple((b, chance_of[b], expected_of[b]) for b in chance_of),
    )


def fire(
    shooter: Shooter,
    rng: DiceSource,
    *,
    dx: int | None = None,
    dy: int | None = None,
    distance: int | None = None,
    intervening: bool = False,
    ring: Ring = DEFAULT_RING,
    crowded: bool = False,
    targeted: Targeted = DEFAULT_TARGETED,
    field: Field | None = None,
) -> Shot:
    """Fire every projectile of the weapon at the aimed square, each with its own rolls (§5 default).

    `crowded`: a being stands on every square a projectile may stray to, so a strayed projectile that gets past
    the being in the way meets one; `targeted` (the server's reading, §9.11) says whether it then rolls the 6 in 10.
    `field`: the map instead, which gives the aim and finds the beings on the way and where a shot lands.
    """
    check_shooter(shooter)
    if field is not None:
        if intervening or crowded or dx is not None or dy is not None or distance is not None:
            raise ShotError("On the map the squares say where the target is and who stands in the way.")
        dx, dy = field.offset
    dx, dy, d = check_aim(dx, dy, distance)
    terms = skill_terms(shooter, d)
    skill = sum(t.value for t in terms)
    offsets = stray_offsets(d, ring)
    projectiles = []
    for _ in range(shooter.shots):
        face = rng.randint(1, 100)
        band = roll_band(face)
        q = quality(skill, band.rating)
        stray = may_stray(skill, band.rating)
        offset = offsets[rng.randint(0, len(offsets) - 1)] if stray and offsets else None
        d10 = rng.randint(1, 10) if intervening else None
        stopped = d10 is not None and d10 > MISS_ON_D10
        landing_being = crowded and offset is not None and not stopped
        landing_d10 = rng.randint(1, 10) if landing_being and targeted is Targeted.AIMED else None
        meetings = () if field is None else _walk(field, offset, targeted, rng)
        projectiles.append(
            Projectile(
                face=face,
                band=band,
                terms=terms,
                skill=skill,
                quality=q,
                damage=damage(shooter, q),
                may_stray=stray,
                stray_choices=len(offsets) if stray else 0,
                stray_offset=offset,
                intervening_face=d10,
                intervening_missed=d10 is not None and d10 <= MISS_ON_D10,
                landing_being=landing_being,
                landing_face=landing_d10,
                landing_missed=landing_d10 is not None and landing_d10 <= MISS_ON_D10,
                meetings=meetings,
            )
        )
    return Shot(
        shooter=shooter,
        dx=dx,
        dy=dy,
        distance=d,
        intervening=intervening,
        ring=ring,
        odds=odds(shooter, d, intervening=intervening, ring=ring, crowded=crowded, targeted=targeted, field=field),
        projectiles=tuple(projectiles),
        crowded=crowded,
        field=field,
        targeted=targeted,
    )


def _walk(field: Field, offset: Square | None, targeted: Targeted, rng: DiceSource) -> tuple[Meeting, ...]:
    """A projectile's flight over the map to its target square: each being met, in order, until one is hit."""
    end = field.aim if offset is None else (field.aim[0] + offset[0], field.aim[1] + offset[1])
    met = []
    for being, square, rolls in _meetings(field, end, offset is not None, targeted):
        face = rng.randint(1, 10) if rolls else None
        hit = face is None or face > MISS_ON_D10
        met.append(Meeting(being, square, face, hit, at_end=square == end))
        if hit:
            break
    return tuple(met)


@dataclass(frozen=True, slots=True)
class Melee:
    """§2: a melee attack always hits; an alien deals its fixed damage (a default: 5)."""

    attacker: str
    damage: int
    default: bool


def melee(attacker: str, damage_override: int | None = None, *, kind: str | None = None) -> Melee:
    """§2: melee skips the accuracy rules and always hits.

    `attacker` names it in the answer: an alien kind, or a combatant of the fight, whose default damage is that of
    the alien `kind` (a combatant's: the warrior's, a proposed default).
    """
    if damage_override is not None:
        if not 0 <= damage_override <= 10000:
            raise ShotError("Melee damage is 0 to 10000.")
        return Melee(attacker, damage_override, default=False)
    kind = attacker if kind is None else kind
    if kind not in ALIEN_MELEE_DAMAGE:
        raise ShotError(f"Unknown alien `{kind}`; known: {', '.join(ALIEN_MELEE_DAMAGE)}. Or give `damage`.")
    return Melee(attacker, ALIEN_MELEE_DAMAGE[kind], default=True)
