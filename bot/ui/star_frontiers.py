"""Star Frontiers attacks and odds as answers: the outcome and damage first, then every step, defaults marked †.

Each answer's forms (full, compact, /history line) are made from the frozen result, never from one another.

Against a game master's secret character the forms everyone sees show what the attacker's side of the table
knows: its own d100 against its chance, its damage dice, a knock-out, whether a stun took, whether the hit had
any effect. The target's suits and screens, its Stamina, what the damage became after them and the odds that
follow from them stay out ("Defense: the GM's secret"); the answer in full goes to its owner and the GM channel.
"""

from __future__ import annotations

from typing import Final

import discord

from bot.rules import star_frontiers as sf
from bot.rules.audience import public_hit_points
from bot.rules.star_frontiers import replay
from bot.rules.star_frontiers.ruleset import STAR_FRONTIERS
from bot.ui.embeds import (
    DEFAULT_FOOTER,
    DEFAULT_MARK,
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

HIT_COLOUR = discord.Colour.green()
MISS_COLOUR = discord.Colour.dark_grey()
KNOCKOUT_COLOUR = discord.Colour.gold()
SECRET_DEFENSE = "Defense: the GM's secret (the target's suits and screens decide what it takes)"
SECRET_TARGET = "its suits, screens and Stamina are the GM's secret"


def hidden_odds_line(odds: sf.Odds) -> str:
    """The odds a player may see against a secret target: the hit chance is the attacker's, the rest is not."""
    return f"hit {percent(odds.hit)} · the rest is the GM's secret (it follows from the target's suits and Stamina)"


def odds_line(odds: sf.Odds, *, stamina_hidden: bool = False) -> str:
    """The exact odds of the attack before it was rolled (`stamina_hidden`: without a stun's, see `odds_embed`)."""
    if odds.stopped is not None:
        return f"hit {percent(odds.hit)}, but the {odds.stopped} stops every hit: nothing happens"
    line = f"hit {percent(odds.hit)} · knock-out {percent(odds.knockout)} · "
    if odds.stun and not stamina_hidden:
        line += f"stunned {percent(odds.stun)} · "
    return line + f"expected damage {fixed(odds.expected_damage, 2)}"


def defender_text(defender: sf.Defender, *, stamina_hidden: bool = False) -> str | None:
    """The target as the damage step saw it (§11), or None when nothing about it was given.

    `stamina_hidden`: its Stamina is the game master's (a fight's hidden hit points): said to be, not shown.
    """
    if not defender.defenses and defender.stamina is None and not defender.name:
        return None
    text = defender.described
    if stamina_hidden:
        return text + "; its Stamina is the game master's, and so is a stun's chance (it follows from it)"
    return text + (f"; current Stamina {defender.stamina}" if defender.stamina is not None else "")


def steps_text(steps: tuple[sf.Step, ...], chance: int) -> str:
    """Every step of the procedure: number, name, value, reason; then the chance."""
    lines = [
        f"{s.number}. {s.name} **{signed(s.value)}**{DEFAULT_MARK if s.default else ''}: {s.reason}" for s in steps
    ]
    lines.append(f"Chance to hit: **{chance}**")
    return "\n".join(lines)


def variants_text(variants: sf.Variants) -> str:
    """The server's readings that affect a roll."""
    miss = "96-00 always misses (Expanded)" if variants.automatic_miss else "no automatic miss (Basic)"
    sight = "a sight reaches point blank" if variants.sight_to_point_blank else "a sight stops at short"
    return f"This server: {miss}; {sight}. `/settings` changes them."


def _uses_defaults(result: sf.AttackResult, *, secret: bool = False) -> bool:
    """Whether a † shows; `secret`: not for a secret target's defenses (a † would tell which rule applied)."""
    return (
        any(s.default for s in result.steps)
        or (result.knockout is not None and result.knockout.default)
        or (result.damage is not None and result.damage.plan.default)
        or (not secret and result.damage is not None and any(s.default for s in result.damage.defenses))
        or (not secret and result.stopped is not None and result.stopped.default)
    )


def attack_answer(result: sf.AttackResult, odds: sf.Odds, *, attacker: str, defender: Defender | None = None) -> Answer:
    """The answer to /sf shoot and /sf melee in its forms; `defender` is the target's character, if any.

    Against a secret defender the forms everyone sees keep its numbers out (see the module's docstring), and
    `secret` is the full answer with them, for its owner and the GM channel. Against a combatant whose fight hides
    its hit points from the channel, they keep out its Stamina: its stun roll and the odds of a stun.
    """
    secret = hides(defender)
    stamina_hidden = defender is not None and not public_hit_points(defender.creature)
    return Answer(
        full=attack_embed(result, odds, attacker=attacker, secret=secret, stamina_hidden=stamina_hidden),
        compact=attack_compact(result, odds, attacker=attacker, secret=secret, stamina_hidden=stamina_hidden),
        secret=attack_embed(result, odds, attacker=attacker) if secret else None,
        secret_owner=defender.owner_id if secret and defender else None,
    )


def attack_history(result: sf.AttackResult, *, secret: bool = False) -> str:
    """An attack in one plain line: the outcome and the damage, or why it missed (`secret`: the damage rolled)."""
    d = result.damage
    if result.stopped is not None:
        return "Hit, no effect" if secret else f"Hit, stopped by the {result.stopped.defense}"
    if result.knockout is not None:
        text = f"Hit, knocked out for {result.knockout.turns} turns{DEFAULT_MARK if result.knockout.default else ''}"
    elif not result.hit:
        return f"Miss: {result.reason}"
    else:
        text = "Hit"
    if d is not None and secret:
        text += f": {d.share} damage each" if d.plan.targets > 1 else f": {d.total} damage"
        text += " before its defenses"
    elif d is not None:
        shown = d.taken if d.defenses or d.plan.targets > 1 else d.total
        text += f": {shown} damage each" if d.plan.targets > 1 else f": {shown} damage"
        if d.defenses:
            text += f" (after {', '.join(s.defense for s in d.defenses)})"
    if result.stun is not None:
        text += f"; stunned {result.stun.turns} turns" if result.stun.stunned else "; the stun is avoided"
    return text


def _outcome_lines(
    result: sf.AttackResult, *, marks: bool = True, secret: bool = False, stamina_hidden: bool = False
) -> list[str]:
    """The outcome, and the damage when it hit (`marks=False`: without the † of defaults, for the short answer).

    `secret`: against a secret target, the damage as rolled, and neither its defenses nor its stun roll.
    `stamina_hidden`: against a combatant whose fight hides its hit points, not its stun roll (it tells them).
    """

    def b(text: object) -> str:
        return f"**{text}**"

    def mark(default: bool) -> str:
        return DEFAULT_MARK if default and marks else ""

    if result.stopped is not None and secret:
        return [f"{b('Hit, no effect')}: {result.reason}; what stopped it is the GM's secret"]
    if result.stopped is not None:
        stop = result.stopped
        return [f"{b('Hit, stopped')}{mark(stop.default)}: {result.reason}; the {stop.reason}"]
    if result.knockout is not None:
        knockout = f"Hit, knocked out for {result.knockout.turns} turns"
        lines = [f"{b(knockout)}{mark(result.knockout.default)}: {result.knockout.reason}"]
    else:
        lines = [f"{b('Hit' if result.hit else 'Miss')}: {result.reason}"]
    if result.damage is not None:
        d = result.damage
        plan_mark = mark(d.plan.default)
        faces = ", ".join(map(str, d.faces))
        rolled = f"{d.plan.dice}{plan_mark} ({faces})" if d.faces else f"{d.plan.dice}{plan_mark}"
        bonus = f" + {d.plan.dice.bonus}" if d.faces and d.plan.dice.bonus else ""
        # The bold number is what the target takes: the share, after its suits and screens (a secret's: unsaid).
        if d.plan.targets > 1:
            share = d.share if d.defenses or secret else b(d.share)
            lines.append(
                f"Damage {rolled}{bonus} = {d.total}, split between {d.plan.targets} targets: {share} each"
                + (f" ({d.lost} lost)" if d.lost else "")
            )
        else:
            total = d.total if d.defenses or secret else b(d.total)
            lines.append(f"Damage {rolled}{bonus} = {total} ({d.plan.reason})")
        if secret:
            lines.append(SECRET_DEFENSE)
        for step in () if secret else d.defenses:
            after = b(step.after) if step is d.defenses[-1] else str(step.after)
            lines.append(f"Defense {step.before} → {after}{mark(step.default)}: {step.reason}")
    if result.stun is not None and secret:
        # Immune or avoided look the same from the attacker's side: the target stays up.
        stunned = result.stun.turns
        lines.append(
            f"{b(f'Stunned for {stunned} turns')}: its d100 against its Stamina is the GM's secret"
            if stunned is not None
            else f"{b('Stun avoided')}: why is the GM's secret (its Stamina, or what it wears)"
        )
    elif result.stun is not None:
        stun = result.stun
        if stun.immune is not None:
            lines.append(f"{b('Stun: immune')}: {stun.reason}")
        elif stamina_hidden:
            said = f"Stunned for {stun.turns} turns" if stun.stunned else "Stun avoided"
            lines.append(f"{b(said)}: its d100 against its Stamina is the GM's")
        elif stun.stunned:
            lines.append(f"{b(f'Stunned for {stun.turns} turns')}: {stun.reason}")
        else:
            lines.append(f"{b('Stun avoided')}: {stun.reason}")
    return lines


def _attack_head(result: sf.AttackResult, *, attacker: str) -> discord.Embed:
    attack = result.attack
    ranged = isinstance(attack, sf.RangedAttack)
    weapon = attack.weapon.name
    # The defender by name, when it has one (a character or a combatant): every answer says who was attacked.
    whom = f" {attack.defender.name}" if attack.defender.name else ""
    verb = f"shoots{whom} with the {weapon}" if ranged else f"attacks{whom} with {weapon}"
    if weapon == sf.QUICK_WEAPON:
        verb = f"shoots{whom}" if ranged else f"attacks{whom} in melee"
    colour = KNOCKOUT_COLOUR if result.knockout is not None else HIT_COLOUR if result.hit else MISS_COLOUR
    return discord.Embed(title=clip(f"{attacker} {verb}", TITLE_LIMIT), colour=colour)


def attack_compact(
    result: sf.AttackResult, odds: sf.Odds, *, attacker: str, secret: bool = False, stamina_hidden: bool = False
) -> discord.Embed:
    """The short answer to /sf shoot and /sf melee: the outcome (the d100 against the chance), damage, odds.

    The † of defaults and the note that explains it wait behind Details. `secret`, `stamina_hidden`: see
    `attack_answer`.
    """
    embed = _attack_head(result, attacker=attacker)
    odds_text = hidden_odds_line(odds) if secret else odds_line(odds, stamina_hidden=stamina_hidden)
    lines = _outcome_lines(result, marks=False, secret=secret, stamina_hidden=stamina_hidden)
    embed.description = "\n".join([*lines, f"Odds: {odds_text}"])
    return embed


def attack_embed(
    result: sf.AttackResult, odds: sf.Odds, *, attacker: str, secret: bool = False, stamina_hidden: bool = False
) -> discord.Embed:
    """The full answer to /sf shoot and /sf melee: the outcome and the damage, then every step.

    `secret`, `stamina_hidden`: see `attack_answer`.
    """
    embed = _attack_head(result, attacker=attacker)
    embed.description = "\n".join(_outcome_lines(result, secret=secret, stamina_hidden=stamina_hidden))
    # The d100 first: on a phone the steps to the chance are the part that may wait for a second page.
    roll = f"d100 **{sf.face_text(result.roll)}** → {result.decision.value}: {result.reason}"
    embed.add_field(name="The roll", value=f"{roll}\n{variants_text(result.variants)}", inline=False)
    embed.add_field(
        name="Odds before the roll",
        value=hidden_odds_line(odds) if secret else odds_line(odds, stamina_hidden=stamina_hidden),
        inline=False,
    )
    embed.add_field(
        name="Chance to hit", value=clip(steps_text(result.steps, result.chance), FIELD_VALUE_LIMIT), inline=False
    )
    attack = result.attack
    if isinstance(attack, sf.MeleeAttack) and attack.situation.distance is not None:
        reach = f"{attack.situation.distance:g} m apart: within the {sf.MELEE_REACH_M} m melee needs (§5)"
        embed.add_field(name="Reach", value=reach, inline=False)
    if secret:
        target: str | None = f"{attack.defender.name or 'the target'}: {SECRET_TARGET}"
    else:
        target = defender_text(attack.defender, stamina_hidden=stamina_hidden)
    if target is not None:
        embed.add_field(name="Target", value=clip(target, FIELD_VALUE_LIMIT), inline=False)
    if _uses_defaults(result, secret=secret):
        embed.set_footer(text=DEFAULT_FOOTER)
    return embed


def odds_embed(
    odds: sf.Odds,
    steps: tuple[sf.Step, ...],
    *,
    title: str,
    variants: sf.Variants,
    target: sf.Defender | None = None,
    stamina_hidden: bool = False,
) -> discord.Embed:
    """The answer to /sf odds; `target` (the attack's defender) adds what the damage step saw of it.

    `stamina_hidden`: the target's Stamina is not the asker's to see; nor is the chance of a stun, which follows
    from it.
    """
    embed = discord.Embed(title=clip(title, TITLE_LIMIT), colour=discord.Colour.blurple())
    plan = odds.damage
    if odds.stopped is not None:
        embed.description = (
            f"Chance **{odds.chance}** → hit **{percent(odds.hit)}**, but the {odds.stopped} stops every hit: "
            "no damage, knock-out or stun (§11 item 3)"
        )
    else:
        stun = f", stunned **{percent(odds.stun)}**" if odds.stun and not stamina_hidden else ""
        if plan is None:
            dice = "no damage"
        else:
            dice = str(plan.dice) + (f" split between {plan.targets}" if plan.targets > 1 else "")
        embed.description = (
            f"Chance **{odds.chance}** → hit **{percent(odds.hit)}**, knock-out **{percent(odds.knockout)}**{stun}\n"
            f"Expected damage **{fixed(odds.expected_damage, 2)}** "
            f"({fixed(odds.expected_damage_on_hit, 2)} on a hit, {dice})"
        )
    embed.add_field(name="Chance to hit", value=clip(steps_text(steps, odds.chance), FIELD_VALUE_LIMIT), inline=False)
    if target is not None and (text := defender_text(target, stamina_hidden=stamina_hidden)) is not None:
        embed.add_field(name="Target", value=clip(text, FIELD_VALUE_LIMIT), inline=False)
    embed.add_field(name="Rules", value=variants_text(variants), inline=False)
    if any(s.default for s in steps) or (plan is not None and plan.default):
        embed.set_footer(text=DEFAULT_FOOTER)
    return fit(embed)


# What the shared answers, lists and pages ask of this ruleset (`bot.ui.rulesets`).
PRESENTERS: Final = Presenters(
    key=STAR_FRONTIERS.key,
    summaries={
        replay.SF_SHOT.name: lambda result, secret: attack_history(result, secret=secret),
        replay.SF_MELEE.name: lambda result, secret: attack_history(result, secret=secret),
    },
    start=Start(
        STAR_FRONTIERS.key,
        STAR_FRONTIERS.title,
        (
            "/character create ruleset:sf name:Riker",
            '/character set character:Riker values:"dex=55 rs=50 beam=2"',
            '/sf shoot weapon:"Laser pistol" distance:30 setting:2',
        ),
        "/sf shoot score:23 skill:2 damage:2d10 distance:short",
        "`/sf melee` for hand-to-hand, `/sf odds shoot` before you roll.",
    ),
    odds=(("sf shoot", "sf odds shoot"), ("sf melee", "sf odds melee")),
)
