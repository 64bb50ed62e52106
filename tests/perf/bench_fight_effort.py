"""The game master's effort in one D&D fight of 4 players and 6 monsters: commands, presses, typing, phone lines (#28).

    .venv/bin/python -m tests.perf.bench_fight_effort [--show]

The same fight is played by the same plan on whichever checkout runs it: three goblins, a hobgoblin, an ogre and a
bugbear against Aria, Brom, Cai and Dara, for three rounds, on the seeded console's bot (seed 1). Each creature
on its turn attacks the next living foe after it in turn order; Dara's spell holds the bugbear (paralyzed, two
rounds) before the first round; whoever has the turn ends it. What the game master must do differs with the
tracker:

- **before** (the tracker before #28, e.g. `git worktree add /tmp/before 3544026`, and this file run there): a
  monster's attack is typed with its numbers (`/dnd attack attack_bonus:.. damage:.. name:..`); a dying
  combatant's turn is the game master's d% (`/roll`) and, unless it stabilizes, `/encounter hp amount:-1`; the
  turns of the dying, the dead and the paralyzed are passed by hand; a turn ends with `/encounter next`, which
  posts the whole tracker again (its Next button is on a message the attacks have scrolled away).
- **after** (this branch): a monster's turn message carries its stored attacks, so its attack is one press; the
  tracker passes whoever cannot act and rolls the dying's d% itself; group initiative for the goblins; a player
  attacks with `/encounter attack` (the next foe, by the character's weapon); a turn ends with the Next button of
  the turn message, the channel's latest.

Counted from `/encounter start` to `/encounter end` (the players' characters are made before): the commands typed
and the buttons pressed, by the game master and by the players, the characters typed, and the phone lines of every
message posted where the table sees it (`bot.ui.embeds.phone_lines`, 38 characters a line; a mention line is one
more), the ephemeral answers counted apart. Edits of a message already posted (the pinned tracker) scroll nothing
and are not counted. The dice are the console's seeded ones, so a checkout prints the same figures every run;
the two checkouts roll differently, so who drops when differs between them (the figures say how many turns were
passed). `--show` prints every line played, as the console would take it.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import importlib.util
import tempfile
import textwrap
from collections.abc import Sequence
from typing import Any

import discord

from bot.config import Settings
from bot.db.encounters import EncounterRepository
from bot.db.engine import open_database
from bot.db.migrate import upgrade
from bot.local import console
from bot.local.driver import DEFAULT_CHANNEL, DEFAULT_GUILD, Exchange, LocalDiscord
from bot.rules.encounter import Combatant, Encounter, Side
from bot.ui.embeds import PHONE_WIDTH, phone_lines

AFTER = importlib.util.find_spec("bot.rules.encounter_attacks") is not None  # stored attacks: the tracker of #28
ROUNDS = 3
EPHEMERAL = 1 << 6
ERROR = 0xE74C3C  # an error answer's colour
GM = "200000000000000001"  # the console's own user runs the fight
PLAYERS = {  # name: (player, sheet)
    "Aria": ("200000000000000002", "str=16 dex=14 hp=24/24 bab=6 weapon_groups=martial"),
    "Brom": ("200000000000000003", "str=17 dex=10 hp=28/28 bab=5 weapon_groups=martial"),
    "Cai": ("200000000000000004", "str=14 dex=16 hp=18/18 bab=4 weapon_groups=martial"),
    "Dara": ("200000000000000005", "str=10 dex=14 hp=12/12 bab=2 weapon_groups=simple"),
}
WEAPONS = {"Aria": "longsword", "Brom": "battleaxe", "Cai": "rapier", "Dara": "quarterstaff"}


@dataclasses.dataclass(frozen=True)
class Monster:
    """A quick creature of the fight and its one attack, as a stat block gives it."""

    name: str
    count: int
    hp: int
    ac: int
    initiative: int
    weapon: str
    bonus: int
    damage: str
    crit: str = ""

    def notation(self) -> str:
        return f"{self.weapon} +{self.bonus} {self.damage}" + (f" {self.crit}" if self.crit else "")


MONSTERS = (
    Monster("Goblin", 3, 6, 15, 1, "morningstar", 2, "1d6"),
    Monster("Hobgoblin", 1, 8, 15, 1, "longsword", 2, "1d8+1", "19-20/x2"),
    Monster("Ogre", 1, 29, 16, -1, "greatclub", 8, "2d8+7", "x3"),
    Monster("Bugbear", 1, 16, 17, 1, "morningstar", 5, "1d8+2"),
)
HELD = "Bugbear"  # Dara's hold: paralyzed for two rounds


@dataclasses.dataclass
class Tally:
    """What one side of the table did, and what the channel was shown."""

    commands: int = 0
    presses: int = 0
    typed: int = 0  # characters typed, the slash and the option names included
    passes: int = 0  # turns the game master passed by hand (the dying, the dead, the helpless)


@dataclasses.dataclass
class Effort:
    gm: Tally = dataclasses.field(default_factory=Tally)
    players: Tally = dataclasses.field(default_factory=Tally)
    public_lines: int = 0
    public_messages: int = 0
    private_lines: int = 0
    passed_by_bot: int = 0
    rounds: int = 0
    played: list[str] = dataclasses.field(default_factory=list)
    refused: list[str] = dataclasses.field(default_factory=list)  # the plan went wrong: an error answer
    standing: str = ""  # every combatant's hit points at the end


def typed_line(name: str, options: dict[str, Any]) -> str:
    """The line a member types for a command, as the console takes it."""
    parts = [f"/{name}"]
    for key, value in options.items():
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        parts.append(f'{key}:"{shown}"' if " " in shown else f"{key}:{shown}")
    return " ".join(parts)


def message_lines(body: dict[str, Any]) -> int:
    """A message's phone lines: its text wrapped at 38 characters, then each embed."""
    content = body.get("content") or ""
    lines = sum(max(1, len(textwrap.wrap(line, PHONE_WIDTH))) for line in content.split("\n")) if content else 0
    return lines + sum(phone_lines(discord.Embed.from_dict(e)) for e in body.get("embeds") or [])


class Table:
    """The fight's table on the local double: who types or presses what, and what the channel is shown."""

    def __init__(self, local: LocalDiscord) -> None:
        self.local = local
        self.effort = Effort()
        self.next_from: dict[str, Any] | None = None  # the last message with a Next button
        self.deferred: set[str] = set()

    def _count(self, mark: int) -> None:
        for request in self.local.double.requests[mark:]:
            body = request.body if isinstance(request.body, dict) else {}
            if request.status >= 400:
                continue
            path = request.path
            if path.endswith("/callback"):
                if body.get("type") == 5:
                    self.deferred.add(path.split("/")[3])
                if body.get("type") != 4:
                    continue  # an edit of the pressed message, a form, suggestions, a deferral
                message = body.get("data") or {}
            elif path.startswith("/webhooks/") and request.method == "POST":
                message = body
            elif path.startswith("/webhooks/") and request.method == "PATCH" and path.endswith("/@original"):
                if path.split("/")[3] not in self.deferred:
                    continue
                self.deferred.discard(path.split("/")[3])
                message = body
            elif request.method == "POST" and path.startswith("/channels/") and path.endswith("/messages"):
                message = body
            else:
                continue  # an edit of an earlier message (the tracker), a pin
            if message.get("flags", 0) & EPHEMERAL:
                self.effort.private_lines += message_lines(message)
            else:
                self.effort.public_lines += message_lines(message)
                self.effort.public_messages += 1

    def _remember(self, exchange: Exchange) -> None:
        first = exchange.messages[0] if exchange.messages else {}
        embed = (first.get("embeds") or [{}])[0]
        if first.get("flags", 0) & EPHEMERAL and embed.get("color") == ERROR:
            self.effort.refused.append(f"{self.effort.played[-1]}: {embed.get('description', '')[:120]}")
        message = self.local.original(exchange) if exchange.response.get("type") in (4, 5) else None
        if message is not None and self._button(message, "Next") is not None:
            self.next_from = message

    @staticmethod
    def _button(message: dict[str, Any], label: str) -> str | None:
        for row in message.get("components") or []:
            for item in row.get("components", []):
                if item.get("type") == 2 and item.get("label") == label:
                    return str(item["custom_id"])
        return None

    async def type(self, who: str, name: str, options: dict[str, Any] | None = None) -> Exchange:
        options = options or {}
        line = typed_line(name, options)
        tally = self.effort.gm if who == GM else self.effort.players
        tally.commands += 1
        tally.typed += len(line)
        self.effort.played.append(f"@{who} {line}")
        mark = len(self.local.double.requests)
        exchange = await self.local.command(name, options, actor=self.local.as_user(who))
        self._count(mark)
        self._remember(exchange)
        return exchange

    async def press(self, who: str, message: dict[str, Any], label: str) -> Exchange:
        custom_id = self._button(message, label)
        assert custom_id is not None, f"no button {label}"
        tally = self.effort.gm if who == GM else self.effort.players
        tally.presses += 1
        self.effort.played.append(f"@{who} click {label}")
        mark = len(self.local.double.requests)
        exchange = await self.local.click(message, custom_id, actor=self.local.as_user(who))
        self._count(mark)
        self._remember(exchange)
        return exchange

    async def next(self, who: str) -> Exchange:
        """End the turn: after #28 the Next button of the turn message, the channel's latest; before, the
        tracker's Next was on a message the attacks since had scrolled away (and it edited that message in
        place), so the table typed `/encounter next`, which posted the tracker again."""
        if not AFTER:
            return await self.type(who, "encounter next")
        assert self.next_from is not None
        return await self.press(who, self.next_from, "Next")

    async def fight(self) -> Encounter:
        async with self.local.bot.database.read() as session:  # type: ignore[attr-defined]
            record = await EncounterRepository(session).current(
                guild_id=int(DEFAULT_GUILD), channel_id=int(DEFAULT_CHANNEL)
            )
        return record.encounter


def dying(hp: int) -> bool:
    return -10 < hp < 0


def dead(hp: int) -> bool:
    return hp <= -10


def foe_after(encounter: Encounter, attacker: Combatant) -> Combatant | None:
    """The next foe after the attacker in turn order who is not dead (the tracker's default target, #28)."""
    at = next(i for i, c in enumerate(encounter.combatants) if c.number == attacker.number)
    ring = [*encounter.combatants[at + 1 :], *encounter.combatants[:at]]
    return next((c for c in ring if c.side is not attacker.side and not dead(c.hp)), None)


def monster_of(name: str) -> Monster:
    return next(m for m in MONSTERS if name == m.name or name.startswith(m.name + " "))


def owner(combatant: Combatant) -> str:
    return PLAYERS[combatant.name][0] if combatant.name in PLAYERS else GM


async def setup(table: Table) -> None:
    """The players' characters, made before the fight (not counted)."""
    for name, (player, sheet) in PLAYERS.items():
        actor = table.local.as_user(player)
        await table.local.command("character create", {"ruleset": "dnd35", "name": name}, actor=actor)
        await table.local.command("character set", {"character": name, "values": sheet}, actor=actor)
        await table.local.command("character weapon add", {"character": name, "name": WEAPONS[name]}, actor=actor)
    table.local.double.requests.clear()


async def start(table: Table) -> None:
    await table.type(GM, "encounter start", {"ruleset": "dnd35", "name": "Keep"})
    for name, (player, _) in PLAYERS.items():
        await table.type(player, "encounter join", {"character": name})
    for m in MONSTERS:
        options: dict[str, Any] = {"name": m.name, "hp": m.hp, "ac": m.ac, "initiative": m.initiative}
        if m.count > 1:
            options["count"] = m.count
        if AFTER:
            options["attacks"] = m.notation()
            if m.count > 1:
                options["group"] = True
        await table.type(GM, "encounter add", options)
    # Dara's hold person: the game master, who runs the fight, puts its condition on the bugbear.
    await table.type(GM, "encounter condition", {"combatant": HELD, "name": "paralyzed", "rounds": 2})
    await table.type(GM, "encounter show")  # the tracker, with its Next button: the first press rolls initiative


def cannot_act(combatant: Combatant) -> bool:
    return dying(combatant.hp) or dead(combatant.hp) or any(c.name == "paralyzed" for c in combatant.conditions)


async def turn(table: Table, encounter: Encounter, turn_message: dict[str, Any] | None) -> None:
    """Whoever has the turn acts by the plan, then its turn ends."""
    who = encounter.current
    assert who is not None
    if not AFTER and cannot_act(who):  # the tracker after #28 passes them itself
        table.effort.gm.passes += 1
        if dying(who.hp) and not any(c.name == "stable" for c in who.conditions):
            face = await table.type(GM, "roll", {"expression": "1d100"})
            if _stabilized(face):
                await table.type(GM, "encounter condition", {"combatant": who.name, "name": "stable"})
            else:
                await table.type(GM, "encounter hp", {"combatant": who.name, "amount": "-1"})
        await table.next(GM)
        return
    target = foe_after(encounter, who)
    if target is not None:
        if who.name in PLAYERS:
            player = PLAYERS[who.name][0]
            if AFTER:
                await table.type(player, "encounter attack", {})
            else:
                await table.type(player, "dnd attack", {"character": who.name, "target": target.name})
        elif AFTER and turn_message is not None:
            await table.press(GM, turn_message, f"{who.name}: {monster_of(who.name).weapon}")
        else:
            m = monster_of(who.name)
            options: dict[str, Any] = {"target": target.name, "attack_bonus": m.bonus, "damage": m.damage}
            if m.crit:
                options["crit"] = m.crit
            options["name"] = f"{who.name}'s {m.weapon}"
            await table.type(GM, "dnd attack", options)
    await table.next(owner(who))


def _stabilized(exchange: Exchange) -> bool:
    """Whether the game master's d% was 01-10 (the total is the answer's first bold number)."""
    first = exchange.messages[0] if exchange.messages else {}
    text = str((first.get("embeds") or [{}])[0].get("description", ""))
    numbers = [int(part) for part in text.replace("*", " ").split() if part.isdigit()]
    return bool(numbers) and numbers[-1] <= 10


async def play(show: bool) -> Effort:
    folder = tempfile.mkdtemp(prefix="dicebot-effort-")
    url = f"sqlite+aiosqlite:///{folder}/effort.db"
    database = open_database(url)
    await upgrade(database)
    try:
        async with console.open_console(Settings(database_url=url), database, seed=1) as local:
            table = Table(local)
            await setup(table)
            await start(table)
            await table.next(GM)  # rolls initiative
            while True:
                encounter = await table.fight()
                if encounter.round > ROUNDS or _over(encounter):
                    break
                await turn(table, encounter, table.next_from if AFTER else None)
            table.effort.rounds = min(encounter.round, ROUNDS)
            table.effort.standing = ", ".join(f"{c.name} {c.hp}" for c in encounter.combatants)
            await table.type(GM, "encounter end")
    finally:
        await database.dispose()
    if show:
        print("\n".join(table.effort.played))
    assert not table.effort.refused, table.effort.refused
    return table.effort


def _over(encounter: Encounter) -> bool:
    sides = {c.side for c in encounter.combatants if not dead(c.hp) and not dying(c.hp)}
    return len(sides) < 2 or Side.PARTY not in sides


def report(effort: Effort) -> list[str]:
    gm, players = effort.gm, effort.players
    return [
        f"Tracker: {'after #28 (stored attacks, turn messages)' if AFTER else 'before #28'}; "
        f"{len(PLAYERS)} players, {sum(m.count for m in MONSTERS)} monsters, {effort.rounds} rounds",
        f"  game master: {gm.commands} commands + {gm.presses} presses = {gm.commands + gm.presses} actions, "
        f"{gm.typed} characters typed, {gm.passes} turns passed by hand",
        f"  players:     {players.commands} commands + {players.presses} presses = "
        f"{players.commands + players.presses} actions, {players.typed} characters typed",
        f"  channel:     {effort.public_lines} phone lines in {effort.public_messages} messages posted "
        f"({effort.public_lines / max(1, effort.public_messages):.1f} a message); "
        f"{effort.private_lines} lines of ephemeral answers",
        f"  at the end:  {effort.standing}",
    ]


def rows(figures: dict[str, Any] | None) -> list[tuple[str, str, str, str, str]]:
    """(area, measure, value, target, verdict) for `python -m tests.perf`'s table, from `Effort` as a dict."""
    if not figures:
        return []
    gm, players = figures["gm"], figures["players"]
    per = figures["public_lines"] / max(1, figures["public_messages"])
    return [
        ("effort", "D&D fight, 4 players and 6 monsters, 3 rounds", "before #28" if not AFTER else "after #28", "", ""),
        ("effort", "  game master: commands + presses", f"{gm['commands']} + {gm['presses']}", "", ""),
        ("effort", "  game master: characters typed", str(gm["typed"]), "", ""),
        ("effort", "  game master: turns passed by hand", str(gm["passes"]), "", ""),
        ("effort", "  players: commands + presses", f"{players['commands']} + {players['presses']}", "", ""),
        ("effort", "  phone lines posted", str(figures["public_lines"]), "", ""),
        ("effort", "  messages posted", str(figures["public_messages"]), "", ""),
        ("effort", "  phone lines a message", f"{per:.1f}", "", ""),
    ]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.perf.bench_fight_effort", description=__doc__)
    parser.add_argument("--show", action="store_true", help="print every line played")
    args = parser.parse_args(argv)
    print("\n".join(report(asyncio.run(play(args.show)))))


if __name__ == "__main__":
    main()
