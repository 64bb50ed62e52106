"""Encounters as embeds: the tracker (order, whose turn, round, health, conditions, initiative) and changes."""

from __future__ import annotations

import discord

from bot.rules import encounter as rules
from bot.rules import rulesets
from bot.rules.audience import ANYONE, Creature, Viewer, sees_hit_points
from bot.rules.encounter import Change, Combatant, Encounter, InitiativeRoll, SideInitiative
from bot.ui.embeds import ROLL_COLOUR, clip, fit

BAR_WIDTH = 10
FULL, EMPTY = "█", "░"
ENDED_COLOUR = discord.Colour.dark_grey()


def fight_title(ruleset: str) -> str:
    """A fight's ruleset as its tracker names it (`Ruleset.brief_title`)."""
    return rulesets.get(ruleset).brief_title


def health_bar(hp: int, max_hp: int) -> str:
    """Hit points as a bar of BAR_WIDTH blocks (empty at 0 or less)."""
    filled = max(0, min(BAR_WIDTH, round(BAR_WIDTH * hp / max_hp))) if hp > 0 else 0
    if hp > 0 and filled == 0:
        filled = 1  # still standing shows
    return FULL * filled + EMPTY * (BAR_WIDTH - filled)


def creature(combatant: Combatant) -> Creature:
    """A combatant as the audience policy sees it: its owner's, its hit points hidden from the others or not."""
    return Creature(combatant.owner_id, hidden_hp=combatant.hidden)


def shows_numbers(combatant: Combatant, viewer: Viewer) -> bool:
    """Whether `viewer` sees a combatant's hit points as numbers (the audience policy decides)."""
    return sees_hit_points(viewer, creature(combatant))


def health_text(encounter: Encounter, combatant: Combatant, viewer: Viewer = ANYONE) -> str:
    """Health as a bar and numbers with its state, or a health word for a combatant hidden from `viewer`."""
    state = rules.health(encounter.ruleset, combatant.hp)
    if not shows_numbers(combatant, viewer):
        return rules.health_word(encounter.ruleset, combatant.hp, combatant.max_hp)
    word = rulesets.get(encounter.ruleset).health_short
    text = f"`{health_bar(combatant.hp, combatant.max_hp)}` {combatant.hp}/{combatant.max_hp} {word}"
    if state is not rules.Health.UP:
        text += f" **{state.value}**"
    return text


def conditions_text(combatant: Combatant) -> str:
    """A combatant's conditions with their rounds left: "prone, stunned (2)"."""
    return ", ".join(f"{c.name} ({c.rounds})" if c.rounds else c.name for c in combatant.conditions)


def roll_text(roll: InitiativeRoll) -> str:
    """One initiative check, every step: "d20 12 + 3 Dex + 4 Improved Initiative = 19", or "given **17**"."""
    if roll.given:  # rolled at the table with the player's own dice: the total as they gave it
        text = f"given **{roll.total}**"
        return text + (f" (tie: roll-off {', '.join(map(str, roll.rolloffs))})" if roll.rolloffs else "")
    parts = [f"d{roll.die} {roll.face}"]
    parts += [f"{'+' if m.value >= 0 else '-'} {abs(m.value)} {m.source}" for m in roll.modifiers]
    text = " ".join(parts) + f" = **{roll.total}**"
    if roll.rolloffs:
        text += f" (tie: roll-off {', '.join(map(str, roll.rolloffs))})"
    return text


def initiative_line(rolled: rules.Initiative) -> str:
    """An initiative roll in one line, from the roll alone: its /history line and fair log summary (`summaries`)."""
    asked = rolled.asked
    parts = ", ".join(f"{roller.name} {check.total}" for roller, check in rolled.in_order())
    if asked.entering:
        return f"Initiative on entering {asked.encounter}, round {asked.round}: {parts}"
    return f"Initiative, {asked.encounter} round {asked.round}: {parts}"


def side_text(side: SideInitiative) -> str:
    """A Star Frontiers side's initiative: its roll, whose modifier, and its best RS for ties; or why it has none."""
    if side.roll is None:
        return f"{side.side.value.title()}: nobody able to act (dead, unconscious or stunned), so last and no roll"
    return f"{side.side.value.title()}: {roll_text(side.roll)} ({side.leader}'s IM; best RS {side.roll.tiebreak})"


def tracker_embed(encounter: Encounter, *, viewer: Viewer = ANYONE, note: str | None = None) -> discord.Embed:
    """The tracker: round and whose turn, then the order with health and conditions, then initiative steps.

    `viewer`: who reads it (ANYONE for the channel's); each combatant's hit points show as the policy lets them.
    """
    title = f"{encounter.name} · {fight_title(encounter.ruleset)}"
    current = encounter.current
    if current is None:
        status = (
            "Not begun: the first **Next** rolls initiative."
            if rulesets.fighting(encounter.ruleset).die is not None
            else ("Not begun: the first **Next** starts round 1 in this order (`/encounter move` reorders).")
        )
    else:
        status = f"Round **{encounter.round}** · **{current.name}**'s turn (<@{current.owner_id}>)"
    lines = [status, ""] if not note else [note, "", status, ""]
    for index, combatant in enumerate(encounter.combatants):
        marker = "▶" if current is not None and index == encounter.turn else "·"
        rank = f"{combatant.standing} " if combatant.standing is not None and encounter.begun else ""
        line = f"{marker} {rank}**{combatant.name}** {health_text(encounter, combatant, viewer)}"
        extras = [f"on {combatant.position}"] if combatant.position is not None else []
        if rules.flat_footed(encounter, combatant) and encounter.begun:
            extras.append("flat-footed")
        if combatant.conditions:
            extras.append(conditions_text(combatant))
        if combatant.readied is not None:
            extras.append(f"readied: {combatant.readied}")
        if extras:
            line += f" · {', '.join(extras)}"
        lines.append(line)
    if not encounter.combatants:
        lines.append("Nobody yet: players `/encounter join`, whoever runs it `/encounter add`.")
    lines += ["", f"Run by: <@{encounter.gm_id}>"]  # its starter: running a fight is not being a game master
    embed = discord.Embed(title=clip(title, 256), description="\n".join(lines), colour=ROLL_COLOUR)
    if encounter.begun and encounter.sides:
        embed.add_field(
            name=f"Initiative, round {encounter.round}",
            value="\n".join(side_text(s) for s in encounter.sides),
            inline=False,
        )
    elif encounter.begun and rulesets.fighting(encounter.ruleset).die is not None:
        # A group of like creatures rolled one check: one line names them all.
        rolled = [
            f"{rules.unit_name(unit)}: {roll_text(unit[0].initiative)}"
            for unit in rules.units(encounter.combatants)
            if unit[0].initiative
        ]
        if rolled:
            embed.add_field(name="Initiative", value="\n".join(rolled), inline=False)
    if viewer == ANYONE:
        who = "Next ends the turn of whoever has it."
    elif not all(shows_numbers(c, viewer) for c in encounter.combatants):
        who = "Your view: hit points hidden from you show as a health word."
    else:
        who = "The game master's view: every number shown." if viewer.game_master else "Your view: every number shown."
    embed.set_footer(text=who)
    return fit(embed)


def change_line(encounter: Encounter, change: Change, viewer: Viewer = ANYONE) -> str:
    """A change to a combatant as `viewer` (the channel) sees it: numbers, or a health word for a hidden one."""
    combatant = next((c for c in encounter.combatants if c.number == change.number), None)
    if combatant is not None and not shows_numbers(combatant, viewer):
        word = rules.health_word(encounter.ruleset, change.after, change.max_hp)
        added = "".join(f", {c.name}" for c in change.conditions)
        return f"{change.name}: {word}{added}"
    return change.summary


def change_embed(title: str, text: str) -> discord.Embed:
    """A short public note of a change to the encounter."""
    return fit(discord.Embed(title=clip(title, 256), description=text, colour=ROLL_COLOUR))


def ended_embed(encounter: Encounter) -> discord.Embed:
    """The last word on an encounter: how many rounds it ran, and who stood where."""
    rounds = f"after {encounter.round} round(s)" if encounter.begun else "before it began"
    lines = [f"{c.name}: {health_text(encounter, c)}" for c in encounter.combatants]
    embed = discord.Embed(
        title=clip(f"{encounter.name} ended {rounds}", 256), description="\n".join(lines) or None, colour=ENDED_COLOUR
    )
    return fit(embed)
