"""D&D 3.5 attacks as answers: outcome and damage first (they must read well on a phone), then every step.

Each answer's forms (full, compact, /history line) are made from the frozen result, never from one another.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Final

import discord

from bot.rules import dnd35 as dnd
from bot.rules.dnd35 import replay
from bot.rules.dnd35.ruleset import DND35
from bot.rules.dnd35.tables import threat_text
from bot.ui.embeds import (
    FIELD_VALUE_LIMIT,
    TITLE_LIMIT,
    Answer,
    Defender,
    clip,
    fit,
    fixed,
    hides,
    percent,
    signed,
)
from bot.ui.rulesets import Presenters, Start

COLOURS = {
    dnd.Outcome.MISS: discord.Colour.dark_grey(),
    dnd.Outcome.HIT: discord.Colour.green(),
    dnd.Outcome.CRITICAL: discord.Colour.gold(),
}
BAR_WIDTH = 16
MAX_CHART_ROWS = 16
SECRET_ODDS = "Odds: the GM's secret (they follow from the target's AC)"


def odds_line(odds: dnd.AttackOdds) -> str:
    """`Odds: hit 55.0% · crit 5.5% · avg 4.54`, computed before the roll; `avg ≈` when the damage is approximate."""
    line = f"Odds: hit {percent(odds.hit)} · crit {percent(odds.critical)} · avg {odds_average(odds)}"
    if odds.approximation is not None:
        line += " · damage chances approximate"
    return line


def odds_average(odds: dnd.AttackOdds) -> str:
    """The expected damage, marked ≈ when it is approximate."""
    average = fixed(odds.expected_damage, 2)
    return f"≈{average}" if odds.approximation is not None and not odds.approximation.expected_exact else average


def approximation_text(approximation: dnd.Approximation) -> str:
    """How approximate odds were computed and how close they are (hit and critical chances stay exact)."""
    bound = percent(Fraction(approximation.error), 1)
    return (
        f"Approximate damage: {approximation.method}. Hit and critical chances are exact; each chance of dealing "
        f"at most (or more than) a total is within ±{bound} (Berry-Esseen bound; usually far closer)"
        + (
            "; the expected damage is exact."
            if approximation.expected_exact
            else f"; the expected damage is within ±{fixed(Fraction(approximation.expected_error), 2)}."
        )
    )


def terms_text(terms: Sequence[dnd.Term]) -> str:
    """Each named part of a bonus, with where it came from."""
    return " ".join(f"{signed(t.value)} {t.name}" + (f" ({t.source})" if t.source else "") for t in terms) or "+0"


def variants_text(variants: dnd.Variants) -> str:
    """The server's readings that an attack's numbers depend on."""
    multipliers = "multipliers add up (seed)" if variants.multipliers is dnd.MultiplierRule.SEED else "SRD multipliers"
    confirmation = (
        "natural 20/1 decide confirmation (SRD)"
        if variants.confirmation is dnd.ConfirmationRule.SRD
        else "NWN confirmation"
    )
    return f"{multipliers} · {confirmation} · /settings"


def _changed(variants: dnd.Variants) -> bool:
    """Whether the server reads the rules an attack's numbers depend on differently from the reference."""
    default = dnd.DEFAULT_VARIANTS
    return variants.multipliers is not default.multipliers or variants.confirmation is not default.confirmation


def headline(result: dnd.AttackResult, *, bold: bool = True) -> str:
    """The outcome and the damage, in one line (`bold=False`: plain text, for /history)."""
    b = (lambda text: f"**{text}**") if bold else (lambda text: text)
    natural = " (natural 20)" if result.face == 20 else " (natural 1)" if result.face == 1 else ""
    if result.concealed:
        return f"{b('Miss')}: concealment{natural}"
    if result.critical:
        return f"{b('Critical hit!')} {b(result.damage)} damage{natural}"
    if result.hit:
        threat = ", threat not confirmed" if result.threat else ""
        return f"{b('Hit')}: {b(result.damage)} damage{natural}{threat}"
    return f"{b('Miss')}{natural}"


def attack_roll_text(result: dnd.AttackResult, *, secret: bool = False) -> str:
    """The d20, the attack bonus by its parts, the total against the AC, and why it hit or missed.

    `secret`: the defender's numbers are the game master's; its AC shows as "?" and its formula not at all.
    """
    attack = result.attack
    target = attack.target
    lines = [verdict_line(result, secret=secret), *concealment_lines(result), bonus_text(attack)]
    if target.explanation != "given" and not secret:
        lines.append(f"{target.kind[0].upper()}{target.kind[1:]} {target.explanation}")
    lines += adjustment_lines(target, secret=secret)
    return "\n".join(lines)


def adjustment_lines(target: dnd.Target, *, secret: bool = False) -> list[str]:
    """§5: what the situation added to the defender's AC (cover, prone, helpless), by its parts."""
    if not target.adjustments:
        return []
    parts = terms_text(target.adjustments)
    if secret:
        return [f"The defender's AC {parts}"]
    return [f"{target.kind[0].upper()}{target.kind[1:]} {target.ac} = {target.base_ac} {parts}"]


def concealment_lines(result: dnd.AttackResult) -> list[str]:
    """§6 item 7: concealment's d100 after a hit, and whether the hit stood."""
    if result.concealment is None:
        return []
    chance = result.attack.miss_chance
    verdict = "miss" if result.concealed else "the hit stands"
    return [f"concealment {chance}%: d100 **{result.concealment}** → {verdict}"]


def verdict_line(result: dnd.AttackResult, *, secret: bool = False) -> str:
    """The d20 and the attack bonus against the AC, and why it hit or missed, in one line."""
    target = result.attack.target
    verdict = "hit" if result.hit or result.concealed else "miss"
    if result.face == 20:
        verdict += ": a natural 20 always hits"
    elif result.face == 1:
        verdict += ": a natural 1 always misses"
    elif result.hit and result.total == target.ac and not secret:
        verdict += ": equal to the AC hits"
    ac = "?" if secret else target.ac
    bonus = signed(result.attack.attack_bonus)
    return f"d20 **{result.face}** {bonus} = **{result.total}** vs {target.kind} {ac} → {verdict}"


def bonus_text(attack: dnd.Attack) -> str:
    """The attack bonus by its parts."""
    return f"Attack bonus {signed(attack.attack_bonus)} = {terms_text(attack.attack_terms)}"


def threat_text_of(result: dnd.AttackResult, *, secret: bool = False) -> str | None:
    """The threat and its confirmation roll, when there was one (`secret`: against AC ?)."""
    attack = result.attack
    if not result.threat:
        return None
    head = f"{threat_text(attack.threat)} threat ({attack.threat_source})"
    c = result.confirmation
    if c is None:
        return f"{head}: the target is immune to critical hits"
    why = " (natural 20)" if c.automatic and c.face == 20 else " (natural 1)" if c.automatic and c.face == 1 else ""
    verdict = "confirmed" if c.confirmed else "not confirmed"
    roll = (
        f"confirm d20 **{c.face}** {signed(attack.attack_bonus)} = {c.total} vs {'?' if secret else attack.target.ac}"
    )
    return f"{head}: {roll} → {verdict}{why}"


def damage_text(result: dnd.AttackResult, *, secret: bool = False, bonus: bool = True) -> str | None:
    """Each damage roll with its faces, the multiplier as extra rolls, precision, minimum 1, DR, energy.

    `secret`: the defender's damage reduction is the game master's; only what it took is shown. `bonus`: with
    the damage bonus by its parts (a full attack shows it once per weapon instead).
    """
    if not result.hit:
        return None
    attack = result.attack
    lines = []
    if result.multipliers:
        multipliers = " and ".join(f"x{m.value} ({m.source})" for m in result.multipliers)
        lines.append(f"{multipliers}: {result.roll_count} damage rolls")
    for i, roll in enumerate(result.weapon_rolls, start=1):
        faces = ", ".join(map(str, roll.faces))
        dice = f"{attack.damage} ({faces})" if roll.faces else ""
        step = signed(attack.damage_bonus) if dice else attack.damage_bonus
        lines.append(f"Roll {i}: {dice} {step} = {roll.total}".replace("  ", " "))
    if attack.damage_terms and bonus:
        lines.append(damage_bonus_text(attack))
    for rider in result.precision:
        lines.append(
            f"{rider.label} {rider.dice} ({', '.join(map(str, rider.faces))}) = {rider.total}, never multiplied"
        )
    if result.minimum_applied:
        lines.append(f"{result.physical} is less than 1: a hit deals at least 1")
    dr = attack.target.dr
    if dr is not None and secret:
        lines.append(
            "the target's damage reduction: " + ("bypassed" if result.dr_bypassed else f"-{result.dr_reduction}")
        )
    elif dr is not None:
        if result.dr_bypassed:
            lines.append(f"DR {dr} bypassed by the weapon")
        else:
            lines.append(f"DR {dr}: -{result.dr_reduction}")
    for rider in result.energy:
        lines.append(
            f"{rider.label} {rider.dice} ({', '.join(map(str, rider.faces))}) = {rider.total}, DR does not apply"
        )
    lines.append(f"Damage **{result.damage}**")
    return "\n".join(lines)


def damage_bonus_text(attack: dnd.Attack) -> str:
    """The bonus added to each damage roll, by its parts."""
    return f"Each roll's bonus {signed(attack.damage_bonus)} = {terms_text(attack.damage_terms)}"


def attack_answer(
    result: dnd.AttackResult, odds: dnd.AttackOdds, *, attacker: str, defender: Defender | None = None
) -> Answer:
    """The answer to /dnd attack in its forms; `defender` is the target's character, if any.

    Against a secret defender the forms everyone sees keep its numbers out: "vs AC ?", no AC formula, no damage
    reduction, no notes, and no odds (a hit chance gives the AC away); `secret` is the full answer with them,
    for its owner and the GM channel.
    """
    secret = hides(defender)
    return Answer(
        full=attack_embed(result, odds, attacker=attacker, secret=secret),
        compact=attack_compact(result, odds, attacker=attacker, defender=defender),
        secret=attack_embed(result, odds, attacker=attacker) if secret else None,
        secret_owner=defender.owner_id if secret and defender else None,
    )


def unasked_line(attacks: Sequence[dnd.Attack]) -> str | None:
    """The penalties the character's sheet brought unasked (not proficient, armor), each once: the short answer's.

    A player who did not type a -4 should not have to open Details to learn why the bonus is low.
    """
    terms = dict.fromkeys((t.name, t.value) for attack in attacks for t in attack.unasked_penalties)
    if not terms:
        return None
    return "From the sheet: " + ", ".join(f"{signed(value)} {name}" for name, value in terms)


def attack_compact(
    result: dnd.AttackResult, odds: dnd.AttackOdds, *, attacker: str, defender: Defender | None = None
) -> discord.Embed:
    """The short answer to /dnd attack: the outcome and damage, the d20 against the AC, and the odds line.

    The penalties the sheet brought unasked are named; the server's rule variants only when it changed them;
    every other step waits behind Details.
    """
    embed = _attack_head(result, attacker=attacker)
    lines = [headline(result), roll_line(result, defender=defender), *concealment_lines(result)]
    if (unasked := unasked_line([result.attack])) is not None:
        lines.append(unasked)
    c = result.confirmation
    if c is not None:
        verdict = "confirmed" if c.confirmed else "not confirmed"
        lines.append(f"confirm d20 **{c.face}** {signed(result.attack.attack_bonus)} = {c.total} → {verdict}")
    embed.description = "\n".join([*lines, SECRET_ODDS if hides(defender) else odds_line(odds)])
    if _changed(result.variants):
        embed.set_footer(text=variants_text(result.variants))
    return embed


def roll_line(result: dnd.AttackResult, *, defender: Defender | None = None, named: bool = True) -> str:
    """The d20, the attack bonus and the total against the AC (of `defender`, if `named`), in one short line."""
    attack = result.attack
    whose = f"{defender.name}'s " if defender and named else ""
    ac = "?" if hides(defender) else attack.target.ac
    return (
        f"d20 **{result.face}** {signed(attack.attack_bonus)} = **{result.total}** vs {whose}{attack.target.kind} {ac}"
    )


def _attack_head(result: dnd.AttackResult, *, attacker: str) -> discord.Embed:
    return discord.Embed(title=clip(f"{attacker}: {result.attack.label}", TITLE_LIMIT), colour=COLOURS[result.outcome])


def attack_embed(
    result: dnd.AttackResult, odds: dnd.AttackOdds, *, attacker: str, secret: bool = False
) -> discord.Embed:
    """The full answer to /dnd attack: the outcome and the odds, then every step (`secret`: see `attack_answer`)."""
    attack = result.attack
    embed = _attack_head(result, attacker=attacker)
    embed.description = f"{headline(result)}\n{SECRET_ODDS if secret else odds_line(odds)}"
    embed.add_field(
        name="Attack roll", value=clip(attack_roll_text(result, secret=secret), FIELD_VALUE_LIMIT), inline=False
    )
    threat = threat_text_of(result, secret=secret)
    if threat:
        embed.add_field(name="Threat", value=clip(threat, FIELD_VALUE_LIMIT), inline=False)
    damage = damage_text(result, secret=secret)
    if damage:
        embed.add_field(name="Damage", value=clip(damage, FIELD_VALUE_LIMIT), inline=False)
    # The engine copies the target's notes into the attack's; show each once, and a secret target's not at all.
    notes = tuple(dict.fromkeys((*attack.notes, *attack.target.notes)))
    if secret:
        notes = tuple(n for n in notes if n not in attack.target.notes)
    if notes:
        embed.add_field(name="Notes", value=clip("\n".join(notes), FIELD_VALUE_LIMIT), inline=False)
    embed.set_footer(text=variants_text(result.variants))
    return embed


def full_attack_answer(
    full: dnd.FullAttackResult,
    expected: Fraction,
    *,
    attacker: str,
    weapon: str,
    exact: bool = True,
    defender: Defender | None = None,
    at: Sequence[Defender | None] | None = None,
) -> Answer:
    """The answer to /dnd full-attack in its forms (`exact`: whether the expected damage is exact).

    Against a secret defender, as in `attack_answer`. `at`: a full attack that turned to other targets, the
    defender each attack was at (each named where the attacks turn to it).
    """
    secret = hides(defender)
    return Answer(
        full=full_attack_embed(full, expected, attacker=attacker, weapon=weapon, exact=exact, secret=secret, at=at),
        compact=full_attack_compact(
            full, expected, attacker=attacker, weapon=weapon, exact=exact, defender=defender, at=at
        ),
        secret=full_attack_embed(full, expected, attacker=attacker, weapon=weapon, exact=exact) if secret else None,
        secret_owner=defender.owner_id if secret and defender else None,
    )


def full_attack_total(full: dnd.FullAttackResult, *, bold: bool = True) -> str:
    """The whole full attack in one line: the damage, the hits and the criticals."""
    hits = sum(r.hit for r in full.results)
    crits = sum(r.critical for r in full.results)
    damage = f"**{full.total_damage}**" if bold else str(full.total_damage)
    return f"{damage} damage in total: {hits} of {len(full.results)} attacks hit" + (
        f", {crits} critical" if crits else ""
    )


def full_attack_odds_line(expected: Fraction, *, exact: bool) -> str:
    """The expected damage of the whole full attack, computed before the roll."""
    average = fixed(expected, 2) if exact else f"≈{fixed(expected, 2)}"
    return f"Odds: avg {average} for the whole full attack"


def _full_attack_head(full: dnd.FullAttackResult, *, attacker: str, weapon: str) -> discord.Embed:
    hits = any(r.hit for r in full.results)
    crits = any(r.critical for r in full.results)
    colour = COLOURS[dnd.Outcome.CRITICAL if crits else dnd.Outcome.HIT if hits else dnd.Outcome.MISS]
    return discord.Embed(title=clip(f"{attacker}: full attack with {weapon}", TITLE_LIMIT), colour=colour)


def full_attack_compact(
    full: dnd.FullAttackResult,
    expected: Fraction,
    *,
    attacker: str,
    weapon: str,
    exact: bool = True,
    defender: Defender | None = None,
    at: Sequence[Defender | None] | None = None,
) -> discord.Embed:
    """The short answer to /dnd full-attack: the total, each attack's d20 against the AC and damage, the odds.

    Between them, the penalties the sheet brought unasked, once for all the attacks. `at`: see
    `full_attack_answer`.
    """
    embed = _full_attack_head(full, attacker=attacker, weapon=weapon)
    lines = [full_attack_total(full)]
    for i, result in enumerate(full.results, start=1):
        what = "critical" if result.critical else "hit" if result.hit else "miss"
        damage = f" **{result.damage}**" if result.hit else ""
        # The defender's name once is enough on a phone: at the first attack, and where the attacks turn.
        whom = at[i - 1] if at else defender
        named = i == 1 or (at is not None and at[i - 1] != at[i - 2])
        lines.append(f"{i}. {roll_line(result, defender=whom, named=named)}: {what}{damage}")
    if (unasked := unasked_line([r.attack for r in full.results])) is not None:
        lines.append(unasked)
    odds = SECRET_ODDS if hides(defender) else full_attack_odds_line(expected, exact=exact)
    embed.description = "\n".join([*lines, odds])
    if full.results and _changed(full.results[0].variants):
        embed.set_footer(text=variants_text(full.results[0].variants))
    return embed


def full_attack_embed(
    full: dnd.FullAttackResult,
    expected: Fraction,
    *,
    attacker: str,
    weapon: str,
    exact: bool = True,
    secret: bool = False,
    at: Sequence[Defender | None] | None = None,
) -> discord.Embed:
    """The full answer to /dnd full-attack: the total first, then each attack on its own.

    `exact`: the expected damage is exact; else it is shown as approximate. `secret`: see `attack_answer`.
    `at`: see `full_attack_answer`.
    """
    embed = _full_attack_head(full, attacker=attacker, weapon=weapon)
    odds = SECRET_ODDS if secret else full_attack_odds_line(expected, exact=exact)
    embed.description = f"{full_attack_total(full)}\n{odds}"
    embed.set_footer(text=variants_text(full.results[0].variants) if full.results else "")
    # Each weapon's bonuses by their parts once, at its first attack; a later one names only what it adds (the
    # iterative step): on a phone the same terms under every attack were half the answer.
    firsts: dict[str, tuple[int, dnd.Attack]] = {}
    for i, result in enumerate(full.results[:20], start=1):
        attack = result.attack
        first = firsts.setdefault(attack.label, (i, attack))
        parts = [
            headline(result),
            verdict_line(result, secret=secret),
            *concealment_lines(result),
            _bonus_after(attack, *first),
        ]
        if (threat := threat_text_of(result, secret=secret)) is not None:
            parts.append(threat)
        if (damage := damage_text(result, secret=secret, bonus=first[1] is attack)) is not None:
            parts.append(damage)
        name = f"{i}. {attack.label} ({signed(attack.attack_bonus)})"
        if at and (whom := at[i - 1]) is not None:
            name += f" at {whom.name}"
        embed.add_field(name=clip(name, 256), value=clip("\n".join(parts), FIELD_VALUE_LIMIT), inline=False)
    if not secret and (explained := _target_text(full)):
        embed.add_field(name="The defender", value=clip(explained, FIELD_VALUE_LIMIT), inline=False)
    return embed


def _bonus_after(attack: dnd.Attack, number: int, first: dnd.Attack) -> str:
    """The attack bonus by its parts, or, after the weapon's first attack (`number`), what this one adds to it."""
    extra = [t for t in attack.attack_terms if t not in first.attack_terms]
    if attack is first or not extra or any(t not in attack.attack_terms for t in first.attack_terms):
        return bonus_text(attack)
    since = f"{signed(first.attack_bonus)} as attack {number}"
    return f"Attack bonus {signed(attack.attack_bonus)} = {since} {terms_text(extra)}"


def _target_text(full: dnd.FullAttackResult) -> str | None:
    """How the defender's AC was computed, once for the whole full attack."""
    if not full.results:
        return None
    target = full.results[0].attack.target
    lines = [] if target.explanation == "given" else [f"{target.kind[0].upper()}{target.kind[1:]} {target.explanation}"]
    return "\n".join(lines + adjustment_lines(target)) or None


def chart(odds: dnd.AttackOdds) -> str:
    """The damage distribution as text bars, totals grouped into ranges when there are many.

    0 (a miss, or DR taking everything) has a row of its own, so that misses never blur into small hits.
    """
    rows: list[tuple[str, Fraction]] = []
    if zero := odds.damage_at_most(0):
        rows.append(("0", zero))
    low, high = odds.damage_range() or (1, 0)
    width = max(1, -(-(high - low + 1) // MAX_CHART_ROWS))
    start = low
    while start <= high:
        end = start + width - 1
        chance = odds.damage_between(start, end)
        label = str(start) if width == 1 else f"{start}-{end}"
        rows.append((label, chance))
        start = end + 1
    if not rows:
        return "no damage"
    top = max(c for _, c in rows)
    pad = max(len(label) for label, _ in rows)
    return "\n".join(
        f"`{label:>{pad}} {percent(c):>6}` {'█' * round(BAR_WIDTH * c / top) if c else ''}" for label, c in rows
    )


def odds_embed(attack: dnd.Attack, odds: dnd.AttackOdds, *, attacker: str, variants: dnd.Variants) -> discord.Embed:
    """The answer to /dnd odds: the outcome chances, the damage chart and the expected damage."""
    embed = discord.Embed(title=clip(f"Odds: {attacker}, {attack.label}", TITLE_LIMIT), colour=discord.Colour.blurple())
    embed.description = (
        f"Hit **{percent(odds.hit)}** · threat **{percent(odds.threat)}** · "
        f"confirmed critical **{percent(odds.critical)}** · miss {percent(odds.miss)}\n"
        f"Expected damage **{odds_average(odds)}**"
    )
    embed.add_field(
        name="The attack",
        value=clip(
            f"Attack bonus {signed(attack.attack_bonus)} = {terms_text(attack.attack_terms)}\n"
            f"vs {attack.target.kind} {attack.target.ac}; damage {attack.damage} {signed(attack.damage_bonus)}, "
            f"{threat_text(attack.threat)}/x{attack.critical_multiplier}",
            FIELD_VALUE_LIMIT,
        ),
        inline=False,
    )
    lines = adjustment_lines(attack.target)
    if attack.miss_chance:
        lines.append(f"Concealment: a hit misses on a d100 of {attack.miss_chance} or less (§6 item 7), counted above")
    if lines:
        embed.add_field(name="The situation", value=clip("\n".join(lines), FIELD_VALUE_LIMIT), inline=False)
    if odds.approximation is not None:
        embed.description += "\n" + approximation_text(odds.approximation)
    embed.add_field(name="Damage (a miss counts as 0)", value=clip(chart(odds), FIELD_VALUE_LIMIT), inline=False)
    embed.set_footer(text=variants_text(variants))
    return fit(embed)


def ac_embed(name: str, sheet_ac: Sequence[tuple[str, int, str]], *, worn: str | None = None) -> discord.Embed:
    """The answer to /dnd ac: normal, touch and flat-footed AC with every component; `worn`: the armor's numbers."""
    embed = discord.Embed(title=clip(f"Armor class of {name}", TITLE_LIMIT), colour=discord.Colour.blurple())
    for label, value, explained in sheet_ac:
        embed.add_field(name=f"{label}: {value}", value=clip(explained, FIELD_VALUE_LIMIT), inline=False)
    if worn is not None:
        embed.add_field(name="Armor and shield", value=clip(worn, FIELD_VALUE_LIMIT), inline=False)
    return fit(embed)


# What the shared answers, lists and pages ask of this ruleset (`bot.ui.rulesets`).
PRESENTERS: Final = Presenters(
    key=DND35.key,
    summaries={
        replay.DND_ATTACK.name: lambda result, secret: headline(result, bold=False),  # a secret AC is not in it
        replay.DND_FULL_ATTACK.name: lambda result, secret: full_attack_total(result, bold=False),
    },
    start=Start(
        DND35.key,
        DND35.title,
        (
            "/character create ruleset:dnd35 name:Lira",
            '/character set character:Lira values:"str=12 dex=17 hp=28/28 bab=3 finesse=yes weapon_groups=martial"',
            "/dnd attack weapon:Rapier target_ac:15",
        ),
        "/dnd attack attack_bonus:5 damage:1d8+3 target_ac:15",
        "`/dnd full-attack` for every iterative attack, `/dnd odds` before you roll, `/character hp` keeps hit points.",
    ),
    odds=(("dnd attack", "dnd odds"),),
)
