"""Encounters as embeds: the tracker (order, whose turn, round, health, conditions, initiative), turns, changes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import discord

from bot.rules import encounter as rules
from bot.rules import rulesets
from bot.rules.audience import ANYONE, Creature, Viewer, sees_hit_points
from bot.rules.encounter import Change, Combatant, Encounter, InitiativeRoll, SideInitiative
from bot.ui.embeds import (
    DESCRIPTION_LIMIT,
    EMBED_TOTAL_LIMIT,
    FIELD_VALUE_LIMIT,
    ROLL_COLOUR,
    TITLE_LIMIT,
    clip,
    fit,
    phone_lines,
)

TURN_LINES = 4  # phone lines a turn message takes at most (its mention, its title, who was passed)

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


def dying_line(rolled: rules.DyingFaces) -> str:
    """The dying's d% in one line, from the roll alone: its /history line and fair log summary (`summaries`)."""
    asked = rolled.asked
    parts = ", ".join(
        f"{name} {face}" + (" (stable)" if face <= rules.STABILIZE else "")
        for name, face in zip(asked.dying, rolled.faces, strict=True)
    )
    return f"Dying d%, {asked.fight} round {asked.round}: {parts}"


def side_text(side: SideInitiative) -> str:
    """A Star Frontiers side's initiative: its roll, whose modifier, and its best RS for ties; or why it has none."""
    if side.roll is None:
        return f"{side.side.value.title()}: nobody able to act (dead, unconscious or stunned), so last and no roll"
    return f"{side.side.value.title()}: {roll_text(side.roll)} ({side.leader}'s IM; best RS {side.roll.tiebreak})"


def tracker_pages(encounter: Encounter, *, viewer: Viewer = ANYONE, note: str | None = None) -> list[discord.Embed]:
    """The tracker in pages: round and whose turn, then the order with health and conditions, then initiative steps.

    Every combatant is on one page, in turn order, each page as many as Discord takes in one embed (its
    description, its initiative field, its total); each page has the status, whoever runs it and the initiative
    of its own combatants, so none needs another to be read. `viewer`: who reads it (ANYONE for the channel's);
    each combatant's hit points show as the policy lets them.
    """
    return paged_tracker(encounter, viewer=viewer, note=note)[0]


def paged_tracker(
    encounter: Encounter, *, viewer: Viewer = ANYONE, note: str | None = None
) -> tuple[list[discord.Embed], int]:
    """The tracker's pages (`tracker_pages`) and the number of the one with whose turn it is (1 before round 1)."""
    lines = [_order_line(encounter, index, viewer) for index in range(len(encounter.combatants))]
    rolled = _rolled(encounter)
    groups = _page_groups(encounter, viewer, note, lines, rolled)
    turn = 1
    if encounter.current is not None:
        turn = next(n for n, group in enumerate(groups, 1) if encounter.turn in group)
    if len(groups) == 1:
        return [fit(_tracker_page(encounter, groups[0], viewer, note, lines, rolled))], turn
    pages = [
        fit(_tracker_page(encounter, group, viewer, note, lines, rolled, numbered=(n, len(groups))))
        for n, group in enumerate(groups, 1)
    ]
    return pages, turn


def tracker_embed(encounter: Encounter, *, viewer: Viewer = ANYONE, note: str | None = None) -> discord.Embed:
    """The page of the tracker (`tracker_pages`) that shows whose turn it is."""
    pages, turn = paged_tracker(encounter, viewer=viewer, note=note)
    return pages[turn - 1]


def _page_groups(
    encounter: Encounter, viewer: Viewer, note: str | None, lines: list[str], rolled: list[tuple[frozenset[int], str]]
) -> list[range]:
    """The combatants (their indices in turn order) of each page: as many in a row as one embed holds.

    `lines`: each combatant's line in the order (`_order_line`); `rolled`: the fight's initiative checks (`_rolled`).

    Counted from the parts' lengths, not by building trial embeds: the tracker is laid out again at every change,
    on the event loop, and 25 trial embeds took 12 ms of it.
    """
    combatants = encounter.combatants
    unit_of = {number: n for n, (numbers, _) in enumerate(rolled) for number in numbers}
    sides = _sides_field(encounter)
    widest = _title(encounter, (len(combatants), len(combatants)))  # the longest page number a page may get
    frame = "\n".join([*_head(encounter, note), "", _run_by(encounter)])
    fixed = len(widest) + len(_footer(encounter, viewer)) + (len(sides[0]) + len(sides[1]) if sides else 0)
    groups: list[range] = []
    first = 0
    description = len(frame)
    units: set[int] = set()
    field = -1  # the initiative field's length (-1: no field yet: the first line has no newline before it)
    for index, line in enumerate(lines):
        unit = unit_of.get(combatants[index].number)
        added = len(rolled[unit][1]) + 1 if unit is not None and unit not in units else 0
        trial_description, trial_field = description + len(line) + 1, field + added
        named = len("Initiative") if trial_field >= 0 else 0
        total = fixed + trial_description + max(trial_field, 0) + named
        crowded = trial_description > DESCRIPTION_LIMIT or trial_field > FIELD_VALUE_LIMIT or total > EMBED_TOTAL_LIMIT
        if index > first and crowded:
            groups.append(range(first, index))
            first, units = index, set()
            description = len(frame) + len(line) + 1
            field = len(rolled[unit][1]) if unit is not None else -1
        else:
            description, field = trial_description, trial_field
        if unit is not None:
            units.add(unit)
    groups.append(range(first, len(combatants)))
    return groups


def _title(encounter: Encounter, numbered: tuple[int, int] | None) -> str:
    """A tracker page's title: the fight and its ruleset, and "· 1/2" on a page of several."""
    title = f"{encounter.name} · {fight_title(encounter.ruleset)}"
    if numbered is None:
        return clip(title, TITLE_LIMIT)
    return f"{clip(title, TITLE_LIMIT - 12)} · {numbered[0]}/{numbered[1]}"


def _head(encounter: Encounter, note: str | None) -> list[str]:
    """The lines that open every page: the note if any, then the round and whose turn it is, or how it begins."""
    current = encounter.current
    if current is None:
        status = (
            "Not begun: the first **Next** rolls initiative."
            if rulesets.fighting(encounter.ruleset).die is not None
            else ("Not begun: the first **Next** starts round 1 in this order (`/encounter move` reorders).")
        )
    else:
        status = f"Round **{encounter.round}** · **{current.name}**'s turn (<@{current.owner_id}>)"
    return [status, ""] if not note else [note, "", status, ""]


def _run_by(encounter: Encounter) -> str:
    """Who runs the fight: its starter (running a fight is not being a game master)."""
    return f"Run by: <@{encounter.gm_id}>"


def _order_line(encounter: Encounter, index: int, viewer: Viewer) -> str:
    """One combatant's line in the order: whose turn, its count, name, health and whatever else marks it."""
    combatant = encounter.combatants[index]
    marker = "▶" if encounter.current is not None and index == encounter.turn else "·"
    rank = f"{combatant.standing} " if combatant.standing is not None and encounter.begun else ""
    line = f"{marker} {rank}**{combatant.name}** {health_text(encounter, combatant, viewer)}"
    extras = [f"on {combatant.position}"] if combatant.position is not None else []
    if rules.flat_footed(encounter, combatant) and encounter.begun:
        extras.append("flat-footed")
    if combatant.conditions:
        extras.append(conditions_text(combatant))
    if combatant.readied is not None:
        extras.append(f"readied: {combatant.readied}")
    return line + (f" · {', '.join(extras)}" if extras else "")


def _rolled(encounter: Encounter) -> list[tuple[frozenset[int], str]]:
    """Each initiative check of the fight (a unit's: like creatures roll one), with the combatants it was for."""
    if not encounter.begun or encounter.sides or rulesets.fighting(encounter.ruleset).die is None:
        return []
    return [
        (frozenset(member.number for member in unit), f"{rules.unit_name(unit)}: {roll_text(unit[0].initiative)}")
        for unit in rules.units(encounter.combatants)
        if unit[0].initiative
    ]


def _sides_field(encounter: Encounter) -> tuple[str, str] | None:
    """Star Frontiers by side: this round's initiative of each side, as a field's name and value, on every page."""
    if not (encounter.begun and encounter.sides):
        return None
    return f"Initiative, round {encounter.round}", "\n".join(side_text(s) for s in encounter.sides)


def _footer(encounter: Encounter, viewer: Viewer) -> str:
    """Whose view the tracker is."""
    if viewer == ANYONE:
        return "Next ends the turn of whoever has it."
    if not all(shows_numbers(c, viewer) for c in encounter.combatants):
        return "Your view: hit points hidden from you show as a health word."
    return "The game master's view: every number shown." if viewer.game_master else "Your view: every number shown."


def _tracker_page(
    encounter: Encounter,
    shown: range,
    viewer: Viewer,
    note: str | None,
    lines: list[str],
    rolled: list[tuple[frozenset[int], str]],
    *,
    numbered: tuple[int, int] | None = None,
) -> discord.Embed:
    """The page of the tracker that lists the combatants `shown` (indices in turn order), numbered n of m if given.

    `lines` and `rolled` are every combatant's, as `_page_groups` has them.
    """
    described = [*_head(encounter, note), *(lines[index] for index in shown)]
    if not encounter.combatants:
        described.append("Nobody yet: players `/encounter join`, whoever runs it `/encounter add`.")
    described += ["", _run_by(encounter)]
    embed = discord.Embed(title=_title(encounter, numbered), description="\n".join(described), colour=ROLL_COLOUR)
    sides = _sides_field(encounter)
    if sides is not None:
        embed.add_field(name=sides[0], value=sides[1], inline=False)
    # A group of like creatures rolled one check: one line names them all, on each page that shows one of them.
    here = {encounter.combatants[index].number for index in shown}
    checks = [line for numbers, line in rolled if numbers & here]
    if checks:
        embed.add_field(name="Initiative", value="\n".join(checks), inline=False)
    embed.set_footer(text=_footer(encounter, viewer))
    return embed


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


@dataclass(frozen=True, slots=True)
class TurnMessage:
    """The short message a pass of the turn posts: whom it pings (`mention`, or nobody), its text and embed."""

    content: str | None
    embed: discord.Embed
    mention: int | None


def pinged(encounter: Encounter) -> int | None:
    """Whom a turn pings: a character's owner, whose turn it is; a quick creature's turn pings nobody.

    The game master plays the quick creatures and is the one pressing Next on their turns: a ping every monster
    turn would only be noise (a choice, docs/encounters.md).
    """
    current = encounter.current
    if current is None or current.character_id is None:
        return None
    return current.owner_id


def turn_message(turn: rules.Turn, note: str = "") -> TurnMessage:
    """A pass of the turn in at most `TURN_LINES` phone lines: whose turn (pinging its player), who was passed.

    `note` says how the turn came to pass when it was not a Next ("Aria delays, ..."). Everyone in the channel
    reads it: a hidden combatant's dying check says what happened, never its hit points.
    """
    encounter = turn.encounter
    current = encounter.current
    assert current is not None, "a turn passes in a fight under way"
    mention = pinged(encounter)
    content = f"<@{mention}>, your turn." if mention is not None else None
    title = clip(f"Round {encounter.round} · {current.name}'s turn", 256)
    stuck = rules.why_passed(encounter.ruleset, current) is not None
    embed = discord.Embed(title=title, colour=ROLL_COLOUR)
    budget = TURN_LINES - (1 if content else 0)
    passed = [p for p in turn.passed if not (stuck and p.number == current.number)]
    lead = f"Nobody can act: the turn rests with {_passed_text(encounter, turn.passed[-1])}." if stuck else ""
    lead = "\n".join(line for line in (note, lead) if line)
    embed.description = _fitted(embed, lead, encounter, passed, budget) or None
    return TurnMessage(content, embed, mention)


def passed_line(encounter: Encounter, passed: Sequence[rules.Passed]) -> str:
    """Everyone a move of the turn passed, as a turn message says it: "Passed: Goblin 2 (stunned); ..."."""
    return "Passed: " + "; ".join(_passed_parts(encounter, list(passed)))


def _passed_parts(encounter: Encounter, passed: list[rules.Passed]) -> list[str]:
    """Who was passed, in turn order, neighbours passed for the same reason together: "Goblin 1, Goblin 2 (dead)"."""
    groups: list[tuple[str, list[str], rules.Passed]] = []
    for one in passed:
        if one.dying is None and groups and groups[-1][0] == one.why and groups[-1][2].dying is None:
            groups[-1][1].append(one.name)
        else:
            groups.append((one.why, [one.name], one))
    return [
        f"{', '.join(names)} ({why})" if first.dying is None else _passed_text(encounter, first)
        for why, names, first in groups
    ]


def _passed_text(encounter: Encounter, passed: rules.Passed) -> str:
    """One combatant passed: "Goblin 1 (dead)", "Ogre (dying, d% 47: -3 → -4 hp)" (hit points if the channel may)."""
    check = passed.dying
    if check is None:
        return f"{passed.name} ({passed.why})"
    combatant = next((c for c in encounter.combatants if c.number == passed.number), None)
    if check.stable:
        what = "stable"
    elif combatant is not None and not shows_numbers(combatant, ANYONE):
        what = "loses 1 hp" + (", dead" if rules.health(encounter.ruleset, check.after) is rules.Health.DEAD else "")
    else:
        state = rules.health(encounter.ruleset, check.after)
        what = f"{check.before} → {check.after} hp" + (", dead" if state is rules.Health.DEAD else "")
    return f"{passed.name} ({passed.why}, d% {check.face}: {what})"


def _fitted(embed: discord.Embed, lead: str, encounter: Encounter, passed: list[rules.Passed], budget: int) -> str:
    """`lead` and "Passed: ..." with as many of the passed as the embed's `budget` of phone lines holds."""
    for kept in range(len(passed), -1, -1):
        left = len(passed) - kept
        shown = "; ".join(_passed_parts(encounter, passed[:kept]))
        if left:
            shown = f"{shown} and {left} more (the tracker shows them)" if kept else f"{left} (the tracker shows them)"
        text = "\n".join(line for line in (lead, f"Passed: {shown}" if passed else "") if line)
        trial = embed.copy()
        trial.description = text or None
        if phone_lines(trial) <= budget:
            return text
    return lead


def undo_note(what: str) -> str:
    """What undo took back, as the channel saw it when it was made."""
    return f"Undid: {what.rstrip('.')}." if what else "Undid the last change."


def pass_line(before: Encounter, turn: rules.Turn) -> str:
    """A pass of the turn as undo names it: "the turn passed from Goblin 1 to Aria (round 1)"."""
    after = turn.encounter.current
    whose = after.name if after is not None else "nobody"
    if not before.begun:
        return f"initiative rolled: round 1 began with {whose}"
    ending = before.current.name if before.current is not None else "nobody"
    return f"the turn passed from {ending} to {whose} (round {turn.encounter.round})"
