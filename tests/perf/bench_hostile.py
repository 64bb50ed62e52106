"""CPU per command for the most expensive inputs a member can give (issue 13): `python -m tests.perf.bench_hostile`.

Each row does, in-process, the rules work its command does on the event loop: build the attack, the odds, the
roll, the luck tally and the embed (for /roll: parse, roll, embed), timed with `time.process_time` (CPU, not
wall time), the median and the worst of `--repeat` runs. The database and Discord are left out: their cost does
not depend on these inputs. A row whose odds are refused says so (main before issue 13 refused some).

The same file runs against another checkout for the "before" figures, from that checkout's folder:

    cd /work/main && .venv/bin/python /path/to/tests/perf/bench_hostile.py
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from bot.errors import UserError
from bot.rules import aliensrl
from bot.rules import dnd35 as dnd
from bot.rules import star_frontiers as sf
from bot.rules.aliensrl.ruleset import shot_luck
from bot.rules.dice import roll
from bot.rules.dnd35.ruleset import attack_luck
from bot.rules.sheets.dnd35 import DndSheet, DndWeapon
from bot.rules.sheets.star_frontiers import SfSheet
from bot.ui.aliensrl import shot_embed
from bot.ui.dice import roll_embed
from bot.ui.dnd35 import attack_embed, full_attack_embed, odds_embed

TARGET_MS = 50.0


def _sheet(damage: str, energy: Sequence[str]) -> DndSheet:
    """A character at the sheet's caps: 4 iterative attacks, 3 off-hand ones, a weapon of its own dice."""
    weapon = DndWeapon.model_validate({"name": "Longsword", "damage": damage, "energy": list(energy)})
    return DndSheet(
        strength=18,
        bab=16,
        weapon_groups=["simple", "martial"],
        two_weapon_fighting=True,
        improved_two_weapon_fighting=True,
        greater_two_weapon_fighting=True,
        weapons=(weapon,),
    )


def _odds_all(attacks: Sequence[dnd.Attack]) -> list[Any]:
    odds_for = getattr(dnd, "odds_for", None)  # one budget for the command; main computed each on its own
    return list(odds_for(attacks)) if odds_for else [dnd.odds(a) for a in attacks]


def dnd_attack(attack: Callable[[], dnd.Attack]) -> Callable[[random.Random], object]:
    def run(rng: random.Random) -> object:
        built = attack()
        chances = dnd.odds(built)
        result = dnd.resolve(built, rng)
        attack_luck(result, chances)
        return attack_embed(result, chances, attacker="Member").to_dict()

    return run


def dnd_odds(attack: Callable[[], dnd.Attack]) -> Callable[[random.Random], object]:
    def run(rng: random.Random) -> object:
        built = attack()
        chances = dnd.odds(built)
        return odds_embed(built, chances, attacker="Member", variants=dnd.DEFAULT_VARIANTS).to_dict()

    return run


def dnd_full_attack(sheet: DndSheet, off_hand: str | None) -> Callable[[random.Random], object]:
    def run(rng: random.Random) -> object:
        attacks = dnd.full_attack(sheet, "Longsword", 15, off_hand_weapon=off_hand)
        chances = _odds_all(attacks)
        expected = sum((c.expected_damage for c in chances), start=Fraction(0))
        full = dnd.resolve_all(attacks, rng)
        for result, odds in zip(full.results, chances, strict=True):
            attack_luck(result, odds)
        return full_attack_embed(full, expected, attacker="Member", weapon="Longsword").to_dict()

    return run


def dice_roll(expression: str) -> Callable[[random.Random], object]:
    def run(rng: random.Random) -> object:
        result = roll(expression, rng)
        return roll_embed(result, roller="Member", typed=expression, label=None).to_dict()

    return run


def dice_odds_row(expression: str, *, chart: bool = False) -> Callable[[random.Random], object]:
    """/roll's odds line (parse, count or estimate, the line), or /odds' whole answer with its chart."""
    # Imported here, not at the top: a checkout from before issue 17 has none of them, and its other rows run.
    from bot.rules import dice_odds
    from bot.ui.dice import odds_embed, odds_line
    from cogs.dice import odds_report

    def run(rng: random.Random) -> object:
        if chart:
            found, shown, png = odds_report(expression, 10, random.Random(dice_odds.SAMPLE_SEED))
            return odds_embed(found, shown, typed=expression, target=10).to_dict(), len(png)
        found = dice_odds.odds(dice_odds.parse(expression), random.Random(dice_odds.SAMPLE_SEED))
        return odds_line(roll(expression, rng), found, target=10)

    return run


def sf_burst(rng: random.Random) -> object:
    """The costliest Star Frontiers odds: a burst split between the most targets (9d10, every total counted)."""
    shooter = SfSheet(dexterity=55, beam=2)
    attack = sf.ranged_attack(shooter, "Automatic rifle", 150, sf.RangedSituation(burst=True, targets=5))
    return sf.odds(attack), sf.shoot(attack, rng)


def aliens_fire(rng: random.Random) -> object:
    """The costliest AliensRL shot: the most projectiles at the farthest distance, odds enumerated per face."""
    shooter = aliensrl.Shooter(rank=0, pain=100, accuracy=-100, shots=aliensrl.MAX_SHOTS)
    return aliensrl.fire(shooter, rng, distance=aliensrl.MAX_DISTANCE, intervening=True)


def aliens_map(rng: random.Random) -> object:
    """The costliest shot on a fight's map: 20 projectiles from a corner at 24 beings packed round the far one."""
    field = getattr(aliensrl, "Field", None)
    if field is None:  # a checkout from before the map
        return aliens_fire(rng)
    packed = [(f"Being {x},{y}", (x, y)) for x in range(55, 60) for y in range(55, 60) if (x, y) != (57, 57)]
    beings = (*packed[:23], ("Alien", (57, 57)))
    shooter = aliensrl.Shooter(rank=0, pain=100, accuracy=-100, shots=aliensrl.MAX_SHOTS)
    within_two = aliensrl.Ring.WITHIN_TWO
    shot = aliensrl.fire(shooter, rng, field=field((0, 0), (57, 57), beings), ring=within_two)
    shot_luck(shot)
    return shot_embed(shot, shooter="Member", weapon="Smartgun").to_dict()


def cases() -> dict[str, Callable[[random.Random], object]]:
    issue = _sheet("5d999", ["10d999 fire"])
    widest = _sheet("99d999", ["99d999 fire"] * 5)
    quick: dict[str, Any] = {"crit": "x6"}
    big = dnd.Situation(multipliers=(2,), precision=(dnd.Dice(99, 999), dnd.Dice(99, 999)))
    return {
        "/dnd attack weapon 5d999, energy 10d999 fire": dnd_attack(
            lambda: dnd.character_attack(issue, "Longsword", 15)
        ),
        "/dnd full-attack same weapon, 4 attacks": dnd_full_attack(issue, None),
        "/dnd full-attack same weapon, 4 + 3 off-hand": dnd_full_attack(issue, "Longsword"),
        "/dnd attack damage:10d999 target_ac:15": dnd_attack(lambda: dnd.quick_attack(5, "10d999", 15)),
        "/dnd attack damage:7d999 precision:3d999": dnd_attack(
            lambda: dnd.quick_attack(5, "7d999", 15, dnd.Situation(precision=(dnd.Dice(3, 999),)))
        ),
        "/dnd attack 99d999 x2 precision 2x99d999 crit x6": dnd_attack(
            lambda: dnd.quick_attack(5, "99d999", 15, big, **quick)
        ),
        "/dnd odds   99d999 x2 precision 2x99d999 crit x6": dnd_odds(
            lambda: dnd.quick_attack(5, "99d999", 15, big, **quick)
        ),
        "/dnd full-attack 99d999 + 5x99d999 fire, 7 attacks": dnd_full_attack(widest, "Longsword"),
        # The largest exact counts the budget lets through, of big and of small dice (found by odds_work).
        "/dnd attack damage:7d999 (exact, at the budget)": dnd_attack(lambda: dnd.quick_attack(5, "7d999", 15)),
        "/dnd odds   damage:7d999 (exact, at the budget)": dnd_odds(lambda: dnd.quick_attack(5, "7d999", 15)),
        "/dnd odds   damage:21d100 (exact)": dnd_odds(lambda: dnd.quick_attack(5, "21d100", 15)),
        "/dnd odds   damage:45d20 (exact)": dnd_odds(lambda: dnd.quick_attack(5, "45d20", 15)),
        "/dnd odds   damage:29d6 crit:x6 (exact)": dnd_odds(lambda: dnd.quick_attack(5, "29d6", 15, crit="x6")),
        "/sf attack burst at 5 targets (rules only)": sf_burst,
        "/aliens fire 20 shots at 1000 (rules only)": aliens_fire,
        "/aliens fire 20 shots on a packed map, 24 beings": aliens_map,
        "/roll 1000d10000": dice_roll("1000d10000"),
        "/roll 4d6kh3+1d20 (ordinary)": dice_roll("4d6kh3+1d20"),
        # The odds of /roll (issue 17): the ordinary, the largest counts the budget lets through, and the most
        # expensive estimates (a sum too big to count, a keep among 1000 dice, explosions that can hit the cap).
        "/roll odds 4d6kh3+1d20 (exact)": dice_odds_row("4d6kh3+1d20"),
        "/roll odds 5d10!>8 (exact, near the budget)": dice_odds_row("5d10!>8"),
        "/roll odds 10d6! (exact)": dice_odds_row("10d6!"),
        "/roll odds 1000d10000 (normal)": dice_odds_row("1000d10000"),
        "/roll odds 1000d10000! (sampled)": dice_odds_row("1000d10000!"),
        "/roll odds 1000d10000!kh500 (sampled)": dice_odds_row("1000d10000!kh500"),
        "/roll odds 1000d2r1 (cap binds: sampled)": dice_odds_row("1000d2r1"),
        "/roll odds 999d9999ra1 (sampled)": dice_odds_row("999d9999ra1"),
        "/roll odds {1d20 x 9}kh3 (sampled)": dice_odds_row("{" + ",".join(["1d10000"] * 9) + "}kh3"),
        "/roll odds 10 x 100d10000!!k50; (200 chars)": dice_odds_row("; ".join(["100d10000!!k50"] * 10)[:200]),
        "/roll odds 1d10000*1d10000*... (sampled)": dice_odds_row("*".join(["1d10000"] * 25)),
        "/odds 4d6k3 (chart, rules only)": dice_odds_row("4d6k3", chart=True),
        "/odds 1000d10000!kh500 (chart, rules only)": dice_odds_row("1000d10000!kh500", chart=True),
    }


def measure(run: Callable[[random.Random], object], repeat: int) -> tuple[float, float] | str:
    """(median, worst) CPU milliseconds over `repeat` runs, or why the command refused."""
    rng = random.Random(13)
    times = []
    for _ in range(repeat):
        started = time.process_time()
        try:
            run(rng)
        except UserError as error:
            return f"refused: {type(error).__name__}"
        times.append((time.process_time() - started) * 1000)
    return statistics.median(times), max(times)


def run(repeat: int = 5) -> dict[str, tuple[float, float] | str]:
    """Every hostile case's CPU figures."""
    return {name: measure(call, repeat) for name, call in cases().items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"CPU per command (time.process_time), median and worst of {args.repeat}; target {TARGET_MS:.0f} ms")
    for name, figures in run(args.repeat).items():
        if isinstance(figures, str):
            print(f"  {name:52} {figures}")
        else:
            median, worst = figures
            verdict = "ok" if worst <= TARGET_MS else "MISSED"
            print(f"  {name:52} median {median:9.1f} ms   worst {worst:9.1f} ms   {verdict}")


if __name__ == "__main__":
    main()
