"""AliensRL shots, melee and odds as answers: the outcome first, then every step, defaults marked with †.

Each answer's forms (full, compact, /history line) are made from the frozen result, never from one another.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Final

import discord

from bot.rules import aliensrl as rules
from bot.rules.aliensrl import Projectile, Shot, ShotOdds, Term, replay
from bot.rules.aliensrl.ruleset import ALIENSRL
from bot.ui.embeds import (
    DEFAULT_FOOTER,
    DEFAULT_MARK,
    EMBED_TOTAL_LIMIT,
    FIELD_VALUE_LIMIT,
    ROLL_COLOUR,
    TITLE_LIMIT,
    Answer,
    clip,
    fit,
    fixed,
    history_text,
    term,
)
from bot.ui.embeds import percent as _percent
from bot.ui.rulesets import Presenters, Start

COMPACT_LINES_PER_FIELD = 8
MELEE_ODDS = "Odds: hit 100% · the damage is fixed, no dice are rolled"
COMPACT_SHOTS = 8  # shots a short answer lists one by one; a longer burst is counted after them


def percent(chance: Fraction) -> str:
    """A probability as a percentage with at most two decimals, rounded half up exactly: 2%, 0.63%, 33.33%."""
    return _percent(chance, 2, trim=True)


def _word(quality: int, *, marks: bool = True) -> str:
    return f"{rules.QUALITY_WORDS[quality]}{DEFAULT_MARK if marks else ''}"


def _landing(shot: Shot, p: Projectile) -> str:
    assert p.stray_offset is not None
    ox, oy = p.stray_offset
    if shot.field is not None:
        return str((shot.field.aim[0] + ox, shot.field.aim[1] + oy))
    if shot.dx is not None and shot.dy is not None:
        return f"({shot.dx + ox}, {shot.dy + oy})"
    return f"{ox:+d}, {oy:+d} from the aimed square"


def outcome(shot: Shot, p: Projectile, *, bold: bool = True, marks: bool = True) -> str:
    """What happened to one projectile, in one line (`bold=False`: plain, for /history; `marks`: the † too)."""
    b = (lambda text: f"**{text}**") if bold else (lambda text: text)
    crit = " (critical, 200%)" if p.critical else ""
    hit = f"{b(_word(p.quality, marks=marks))}: {b(p.damage)} damage{crit}"
    if shot.field is not None:
        return _map_outcome(shot, p, hit, b)
    if p.intervening_face is not None and not p.intervening_missed:
        return f"hits the being in the way: {hit}"
    prefix = "misses the being in the way and flies on; " if p.intervening_missed else ""
    if p.stray_offset is not None:
        if p.landing_being and p.hits_landing_being:
            return f"{prefix}{b('strays')} to {_landing(shot, p)}, onto the being there: {hit}"
        if p.landing_being:
            return f"{prefix}{b('strays')} to {_landing(shot, p)} and misses the being there (6 in 10)"
        return f"{prefix}{b('strays')} to {_landing(shot, p)}: {p.damage} damage to whatever stands there"
    return f"{prefix}{hit} to the target"


def _map_outcome(shot: Shot, p: Projectile, hit: str, b: Callable[[str], str]) -> str:
    """One projectile's flight over the map: the beings it passed, and who it hit or where it was spent."""
    passed = [m.being for m in p.meetings if not m.hit]
    prefix = f"misses {', '.join(passed)} and flies on; " if passed else ""
    if p.stray_offset is not None:
        prefix += f"{b('strays')} to {_landing(shot, p)}; "
    if (struck := p.struck) is not None:
        return f"{prefix}{hit} to {b(struck)}"
    return f"{prefix}spent on an empty square" if p.stray_offset is None else f"{prefix}nobody there is hit"


def odds_line(o: ShotOdds) -> str:
    """The exact odds of one projectile, as shown before every roll."""
    if o.beings:
        return (
            f"critical {percent(o.critical)}, full damage {percent(o.full)}, may stray {percent(o.may_stray)}; "
            + ", ".join(f"{being} hit {percent(chance)} ({fixed(mean, 2)} damage)" for being, chance, mean in o.beings)
        )
    return (
        f"critical {percent(o.critical)}, full damage {percent(o.full)}, may stray {percent(o.may_stray)}, "
        f"expected damage to the target {fixed(o.expected_to_target, 2)}"
        + (f", to the being in the way {fixed(o.expected_to_being, 2)}" if o.expected_to_being else "")
        + (
            f", hits a being where it strays {percent(o.to_landing)} ({fixed(o.expected_to_landing, 2)} damage)"
            if o.to_landing
            else ""
        )
    )


def targeted_text(targeted: rules.Targeted) -> str:
    """The server's reading of "the targeted square" (§9.11), for a shot that reached a being where it strayed."""
    if targeted is rules.Targeted.RELOCATED:
        return f"the square it strayed to counts as targeted{DEFAULT_MARK}: the being there is hit outright (§9.11)"
    return "only the aimed square is targeted, this server's setting: the being there rolls the 6 in 10 (§9.11)"


def skill_text(terms: tuple[Term, ...]) -> str:
    """The skill rating built term by term: **5** = 1 base + 2 advanced skill - 0 pain ..."""
    parts = " ".join(f"{term(t.value)} {t.label}" for t in terms[1:])
    return f"**{sum(t.value for t in terms)}** = {terms[0].value} {terms[0].label} {parts}"


def steps(shot: Shot, p: Projectile) -> str:
    """Every roll and check of one projectile."""
    band = p.band
    mark = DEFAULT_MARK if band.default else ""
    lines = [f"d100 **{p.face}** → roll rating **{band.rating}** (row {band.low}–{band.high}{mark})"]
    base = shot.shooter.ammo_damage + shot.shooter.damage_modifier
    ammo = f"{shot.shooter.ammo_damage}{DEFAULT_MARK if shot.shooter.ammo_damage == rules.DEFAULT_AMMO_DAMAGE else ''}"
    if shot.shooter.damage_modifier:
        ammo = f"({ammo} ammo {term(shot.shooter.damage_modifier)} weapon)"
    if p.critical:
        lines.append(f"Critical: quality **11**, 200% of {ammo} = **{p.damage}**")
    else:
        raw = p.skill - band.rating
        clamp = f", clamped to {p.quality}" if raw != p.quality else ""
        lines.append(
            f"Quality {p.skill} - ({band.rating}) = {raw}{clamp} → {p.quality * 10}% of {ammo} = **{p.damage}**"
        )
    if base * p.quality // 10 < 1 and not p.critical:
        lines.append("(at least 1 damage)")
    difference = band.rating - p.skill
    if band.rating == rules.CRITICAL_RATING:
        lines.append("Stray: a critical never strays")
    elif not p.may_stray:
        lines.append(f"Stray: rating - skill = {difference} ≤ 0, stays on target")
    elif p.stray_offset is None:
        lines.append(f"Stray: rating - skill = {difference} > 0, but at distance {shot.distance} < 5 it stays")
    else:
        how = f"{shot.ring}{DEFAULT_MARK}" if shot.ring is rules.DEFAULT_RING else f"{shot.ring}, this server's setting"
        ring = "the 8 neighbours" if shot.distance < 9 else f"the squares two tiles away ({how})"
        lines.append(
            f"Stray: rating - skill = {difference} > 0 at distance {shot.distance}: one of {ring} → {_landing(shot, p)}"
        )
    if p.intervening_face is not None:
        verdict = "missed (6 in 10)" if p.intervening_missed else "hit (4 in 10)"
        lines.append(f"Being in the way: d10 **{p.intervening_face}** → {verdict}")
    for m in p.meetings:
        if not m.at_end:
            where = "in the way"
        elif p.stray_offset is None:
            where = "on the aimed square"
        else:
            where = "where it strayed"
        if m.face is None:
            verdict = "hit outright (on target)" if p.stray_offset is None else f"hit: {targeted_text(shot.targeted)}"
        else:
            verdict = f"d10 **{m.face}** → {'hit (4 in 10)' if m.hit else 'missed (6 in 10)'}"
            if m.at_end:
                verdict += f"; {targeted_text(shot.targeted)}"
        lines.append(f"{m.being} at {m.square}, {where}: {verdict}")
    if shot.field is not None and p.struck is None:
        lines.append("Nobody was hit: the shot is spent on its target square (§9.13)")
    if p.landing_being:
        line = f"Being where it strayed: {targeted_text(shot.targeted)}"
        if p.landing_face is not None:
            line += f"; d10 **{p.landing_face}** → {'missed (6 in 10)' if p.landing_missed else 'hit (4 in 10)'}"
        lines.append(line)
    return "\n".join(lines)


def compact_steps(p: Projectile) -> str:
    """One projectile's rolls on one line, for weapons whose many shots would not fit in full."""
    stray = f"strays by {p.stray_offset}" if p.stray_offset else "may stray" if p.may_stray else "no stray"
    being = f" · d10 {p.intervening_face} {'missed' if p.intervening_missed else 'hit'}" if p.intervening_face else ""
    for m in p.meetings:
        face = f"d10 {m.face} " if m.face is not None else ""
        being += f" · {m.being} {face}{'hit' if m.hit else 'missed'}"
    mark = DEFAULT_MARK if p.band.default else ""
    return f"d100 {p.face} → {p.band.rating}{mark} · quality {p.quality} → {p.damage} · {stray}{being}"


def shot_answer(shot: Shot, *, shooter: str, weapon: str) -> Answer:
    """The answer to /aliens fire in its three forms."""
    return Answer(
        full=shot_embed(shot, shooter=shooter, weapon=weapon),
        compact=shot_compact(shot, shooter=shooter, weapon=weapon),
    )


def shot_history(shot: Shot) -> str:
    """A shot in one plain line: the outcome of a single projectile, or the total of several."""
    if len(shot.projectiles) == 1:
        return outcome(shot, shot.projectiles[0], bold=False, marks=False)
    if shot.field is not None:
        return f"{len(shot.projectiles)} shots: {_dealt(shot, bold=False)}"
    return f"{len(shot.projectiles)} shots: {shot.total_to_target} damage to the target"


def _dealt(shot: Shot, *, bold: bool = True) -> str:
    """On a map: the damage each being took, or that nobody was hit."""
    dealt = shot.damage_to()
    if not dealt:
        return "nobody hit"
    return ", ".join(f"{being} {f'**{amount}**' if bold else amount}" for being, amount in dealt.items())


def _shot_lines(shot: Shot, *, most: int | None = None, short: bool = False) -> list[str]:
    """Each shot's outcome (the first `most` of them), then the total when there are several.

    `short`: each with its d100 and the skill rating it was read against, without the † of defaults.
    """
    many = len(shot.projectiles) > 1
    shown = shot.projectiles if most is None else shot.projectiles[:most]
    lines = []
    for i, p in enumerate(shown, start=1):
        roll = f"d100 {p.face} (rating {p.band.rating}, skill {p.skill}): " if short else ""
        lines.append(f"{f'Shot {i}: ' if many else ''}{roll}{outcome(shot, p, marks=not short)}")
    if left := len(shot.projectiles) - len(shown):
        lines.append(f"… and {left} more shots (Details shows them)")
    if many and shot.field is not None:
        lines.append(f"Damage: {_dealt(shot)}")
    elif many:
        lines.append(f"Total to the target: **{shot.total_to_target}**")
        if shot.crowded:
            lines.append(f"Total to beings where shots strayed: **{shot.total_to_landing}**")
    return lines


def _shot_head(shot: Shot, *, shooter: str, weapon: str) -> discord.Embed:
    title = clip(f"{shooter} fires {weapon}" if weapon else f"{shooter} fires", TITLE_LIMIT)
    return discord.Embed(title=title, colour=ROLL_COLOUR)


def shot_compact(shot: Shot, *, shooter: str, weapon: str) -> discord.Embed:
    """The short answer to /aliens fire: each shot's outcome, the total and the odds line."""
    embed = _shot_head(shot, shooter=shooter, weapon=weapon)
    each = " (each shot)" if len(shot.projectiles) > 1 else ""
    lines = [*_shot_lines(shot, most=COMPACT_SHOTS, short=True), f"Odds{each}: {odds_line(shot.odds)}"]
    embed.description = "\n".join(lines)
    return embed


def shot_embed(shot: Shot, *, shooter: str, weapon: str) -> discord.Embed:
    """The answer to /aliens fire: every step of every shot, or one line per shot when that would not fit."""
    embed = _shot_embed(shot, shooter=shooter, weapon=weapon, compact=False)
    if len(embed) > EMBED_TOTAL_LIMIT:
        embed = _shot_embed(shot, shooter=shooter, weapon=weapon, compact=True)
    return embed


def _shot_embed(shot: Shot, *, shooter: str, weapon: str, compact: bool) -> discord.Embed:
    many = len(shot.projectiles) > 1
    embed = _shot_head(shot, shooter=shooter, weapon=weapon)
    embed.description = "\n".join(_shot_lines(shot))
    embed.set_footer(text=DEFAULT_FOOTER)
    aim = f"({shot.dx}, {shot.dy}), distance {shot.distance}" if shot.dx is not None else f"distance {shot.distance}"
    if shot.field is not None:
        aim = f"{shot.field.aim} from {shot.field.origin}, distance {shot.distance}"
    embed.add_field(name="Odds before the roll (each shot)", value=odds_line(shot.odds), inline=False)
    embed.add_field(name=f"Skill rating at {aim}", value=skill_text(shot.projectiles[0].terms), inline=False)
    if compact:
        lines = [f"{i}: {compact_steps(p)}" for i, p in enumerate(shot.projectiles, start=1)]
        for start in range(0, len(lines), COMPACT_LINES_PER_FIELD):
            chunk = "\n".join(lines[start : start + COMPACT_LINES_PER_FIELD])
            name = "Shots" if start == 0 else "Shots (cont.)"
            embed.add_field(name=name, value=clip(chunk, FIELD_VALUE_LIMIT), inline=False)
    else:
        for i, p in enumerate(shot.projectiles, start=1):
            name = f"Shot {i}" if many else "The shot"
            embed.add_field(name=name, value=clip(steps(shot, p), FIELD_VALUE_LIMIT), inline=False)
    return embed


def melee_answer(result: rules.Melee, *, target: str | None = None) -> Answer:
    """The answer to /aliens melee: it always hits, so the damage is its outcome and its odds; no Details.

    The title names the attacker (an alien kind, or a combatant by its name) and the `target`, if one was named.
    """
    mark = DEFAULT_MARK if result.default else ""
    who = result.attacker.title() if result.attacker in rules.ALIEN_MELEE_DAMAGE else result.attacker
    whom = f" {target}" if target else ""
    embed = discord.Embed(
        title=clip(f"{who} attacks{whom} in melee", TITLE_LIMIT),
        description=f"**Hits** (melee always hits): **{result.damage}**{mark} damage\n{MELEE_ODDS}",
        colour=ROLL_COLOUR,
    )
    if result.default:
        embed.set_footer(text=DEFAULT_FOOTER)
    return Answer(full=embed, compact=None, history=history_text(f"Hits: {result.damage} damage"))


def odds_embed(shot_odds: ShotOdds, *, title: str, skill: str, shots: int, distance: int) -> discord.Embed:
    """The answer to /aliens odds: the quality distribution as bars, the strays, the expected damage."""
    embed = discord.Embed(title=clip(title, TITLE_LIMIT), colour=ROLL_COLOUR)
    top = max(shot_odds.quality.values())
    bars = []
    for q in range(rules.MIN_QUALITY, rules.CRITICAL_QUALITY + 1):
        chance = shot_odds.quality.get(q, Fraction(0))
        bar = "█" * round(20 * chance / top) if chance else ""
        share = "200%" if q == rules.CRITICAL_QUALITY else f"{q * 10}%"
        bars.append(f"`{q:>2} {share:>4} {percent(chance):>6}` {bar}")
    embed.add_field(name="Quality (share of ammo damage)", value="\n".join(bars), inline=False)
    embed.add_field(name="Skill rating", value=skill, inline=False)
    if shot_odds.landing:
        chances = sorted(set(shot_odds.landing.values()))
        where = ", ".join(
            f"{sum(1 for v in shot_odds.landing.values() if v == c)} squares at {percent(c)} each" for c in chances
        )
        stray = f"May stray: {percent(shot_odds.may_stray)}; strays to {where} (around the aimed square)"
        if shot_odds.expected_to_being:
            stray += "; the being in the way may stop it first (4 in 10)"
    elif shot_odds.may_stray:
        stray = f"A bad roll ({percent(shot_odds.may_stray)}) could stray, but at distance {distance} < 5 none does"
    else:
        stray = "Cannot stray: the skill rating is at least every roll rating"
    embed.add_field(name="Strays", value=stray, inline=False)
    expected = shot_odds.expected_to_target
    if shot_odds.beings:
        value = "; ".join(
            f"{being}: hit {percent(chance)}, **{fixed(mean, 2)}** per shot"
            + (f", {fixed(mean * shots, 2)} for all {shots}" if shots > 1 else "")
            for being, chance, mean in shot_odds.beings
        )
        embed.add_field(name="Expected damage (from the map)", value=clip(value, FIELD_VALUE_LIMIT), inline=False)
        embed.set_footer(text=DEFAULT_FOOTER)
        return fit(embed)
    value = f"**{fixed(expected, 2)}** to the target per shot"
    if shots > 1:
        value += f", **{fixed(expected * shots, 2)}** for all {shots} shots"
    if shot_odds.expected_to_being:
        value += f"; {fixed(shot_odds.expected_to_being, 2)} per shot to the being in the way"
    if shot_odds.to_landing:
        value += (
            f"; a stray hits a being where it lands {percent(shot_odds.to_landing)} "
            f"({fixed(shot_odds.expected_to_landing, 2)} per shot)"
        )
    value += f"; reaches the target {percent(shot_odds.on_target)}"
    embed.add_field(name="Expected damage", value=value, inline=False)
    embed.set_footer(text=DEFAULT_FOOTER)
    return fit(embed)


# What the shared answers, lists and pages ask of this ruleset (`bot.ui.rulesets`).
PRESENTERS: Final = Presenters(
    key=ALIENSRL.key,
    summaries={replay.ALIENS_SHOT.name: lambda result, secret: shot_history(result)},
    start=Start(
        ALIENSRL.key,
        ALIENSRL.title,
        (
            "/character create ruleset:aliensrl name:Hicks",
            '/character set character:Hicks values:"rifle=2 hp=40/40"',
            '/character weapon add character:Hicks name:"Pulse rifle" details:"accuracy=1 shots=3"',
        ),
        "/aliens fire skill_rank:2 distance:6",
        "`/aliens fire` with your weapon, `/aliens melee` for aliens' claws, `/aliens odds` before you roll.",
    ),
    odds=(("aliens fire", "aliens odds"),),
)
