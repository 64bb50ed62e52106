"""One roll path (cogs/_pipeline.py) every roll command takes: the text parsed once, the target resolved once.

/roll and /aliens melee used to answer on a path of their own: /roll read its expression twice (the rules core,
then its odds, a third time in the worker when they are heavy), and an attack at a combatant looked its name up
again after the roll (for its sealing, its Apply button and the hit applied).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, cast

import pytest
from discord import app_commands
from sqlalchemy import Connection, event
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database, LazySession
from bot.local.driver import LocalDiscord
from bot.local.payloads import MANAGER_PERMISSIONS
from bot.rules import dice
from bot.rules import encounter as encounter_rules
from cogs import _pipeline as pipeline
from cogs._replay import ROLL
from tests.dice_sources import ScriptedDice
from tests.helpers import (
    MOD,
    ON_GOBLIN,
    QUICK_ATTACK,
    RED,
    dnd_character,
    goblin_fight,
    logged,
    ok,
    state,
    stored,
)

ROLLS = [
    ("roll", {"expression": "1d6"}, [4]),
    ("aliens melee", {"attacker": "warrior"}, []),
    ("dnd attack", {"attack_bonus": 5, "damage": "1d6", "target_ac": 10}, [10, 3]),
    ("dnd full-attack", {"attack_bonus": "+5", "damage": "1d6", "target_ac": 10}, [10, 3]),
    ("sf shoot", {"score": 40, "skill": 1, "damage": "1d10", "distance": "short"}, [99]),
    ("sf melee", {"score": 40, "skill": 1, "damage": "1d10"}, [99]),
    ("aliens fire", {"skill_rank": 1, "distance": 3}, [99, 99]),
]


def test_every_roll_command_is_tried_below(local: LocalDiscord) -> None:
    def walk(node: Any, path: str) -> list[str]:
        if isinstance(node, app_commands.Group):
            return [name for child in node.commands for name in walk(child, f"{path}{child.name} ")]
        return [path.strip()] if node.extras.get(ROLL) else []

    found = [name for command in local.bot.tree.get_commands() for name in walk(command, f"{command.name} ")]
    assert sorted(found) == sorted(name for name, _, _ in ROLLS)


@pytest.mark.parametrize(("name", "options", "faces"), ROLLS)
async def test_every_roll_command_takes_the_one_roll_path(
    local: LocalDiscord, monkeypatch: pytest.MonkeyPatch, name: str, options: dict[str, Any], faces: list[int]
) -> None:
    planned: list[str] = []
    plan = pipeline._plan

    async def counted(*arguments: Any) -> Any:
        planned.append(name)
        return await plan(*arguments)

    monkeypatch.setattr(pipeline, "_plan", counted)
    local.bot.dice = ScriptedDice(faces)
    answered = await local.command(name, options)
    assert answered.embed["color"] != RED, answered.embed
    assert planned == [name]


async def test_a_roll_reads_its_text_once(
    local: LocalDiscord, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[str] = []
    parse = dice._Parser.parse

    def counted(self: Any) -> Any:
        read.append(self._text)
        return parse(self)

    monkeypatch.setattr(dice._Parser, "parse", counted)
    expression = "2d6+1d4+13"  # no other test rolls it, so no parse of it is kept from before
    local.bot.dice = ScriptedDice([6, 6, 4])
    answered = await local.command("roll", {"expression": expression, "target": 20})
    assert "**29**" in answered.embed["description"] and "at least 20" in answered.embed["description"]
    assert read == [expression]
    [row] = await logged(database)
    assert row.result["total"] == 29 and "tree" in row.result  # the log keeps every die, as before


async def test_a_mistyped_roll_is_refused_by_the_rules_core(local: LocalDiscord) -> None:
    refused = await local.command("roll", {"expression": "2d6+"})
    assert refused.ephemeral and refused.embed["description"].startswith("Unexpected end of expression")


@pytest.mark.parametrize("private", [False, True])
async def test_an_attack_at_a_combatant_looks_its_name_up_once(
    local: LocalDiscord, database: Database, monkeypatch: pytest.MonkeyPatch, private: bool
) -> None:
    await goblin_fight(local)
    named: list[str] = []
    find = encounter_rules.find

    def counted(encounter: encounter_rules.Encounter, text: str) -> encounter_rules.Combatant:
        if not text.startswith("#"):
            named.append(text)
        return find(encounter, text)

    monkeypatch.setattr(encounter_rules, "find", counted)
    local.bot.dice = ScriptedDice([15, 8])  # 15 + 5 hits flat-footed AC 10: 8 + 3 = 11
    attack = await local.command("dnd attack", {**ON_GOBLIN, "private": private})
    assert attack.embed["color"] != RED, attack.embed
    # After the planner's lookup, the combatant travels by its number in the fight the roll read.
    assert named == ["Goblin"]
    if private:
        [row] = [r for r in await logged(database) if r.command == "dnd attack"]
        assert row.details is not None and [h["target"] for h in row.details["strike"]] == ["#1"]
        assert state(await stored(database)) == [("Goblin", 30)]
    else:
        assert state(await stored(database)) == [("Goblin", 19)]


@contextmanager
def tables_read(database: Database) -> Iterator[dict[str, list[str]]]:
    """The tables each SELECT outside a writer's transaction reads from, by where it ran: "session" (aiosqlite, or
    PostgreSQL) or "readers" (`Readers`)."""
    ran: dict[str, list[str]] = {}

    def seen(where: str) -> Any:
        def add(conn: Connection, cursor: object, statement: str, *_: object) -> None:
            writing = conn.get_execution_options().get("immediate")  # a writer's transaction (`open_database`)
            if statement.startswith("SELECT") and not writing:
                ran.setdefault(where, []).append(statement.split("FROM", 1)[1].split()[0])

        return add

    watched = [(database.engine.sync_engine, seen("session"))]
    if database.reads is not None:
        watched.append((database.reads.engine, seen("readers")))
    for engine, listener in watched:
        event.listen(engine, "before_cursor_execute", listener)
    try:
        yield ran
    finally:
        for engine, listener in watched:
            event.remove(engine, "before_cursor_execute", listener)


@pytest.mark.parametrize(("name", "options", "faces"), ROLLS)
async def test_a_roll_makes_its_read_session_only_if_it_reads_through_it(
    local: LocalDiscord, database: Database, name: str, options: dict[str, Any], faces: list[int]
) -> None:
    """Once the server's settings and the roller's choice are kept, a roll reads nothing through its read session
    (on SQLite nothing ever does, `Readers`): that session is never made (`LazySession`)."""
    original = local.bot.database
    opened: list[LazySession] = []

    def watched() -> AsyncSession:
        session = original.read()
        opened.append(cast(LazySession, session))
        return session

    for _ in range(2):  # the first reads what it keeps
        opened.clear()
        local.bot.dice = ScriptedDice(faces)
        local.bot.database = replace(original, read=watched)
        try:
            with tables_read(database) as ran:
                ok(await local.command(name, options))
        finally:
            local.bot.database = original
        assert opened, "the roll opens its read session"
        assert any(session.made for session in opened) == ("session" in ran), ran
    assert "session" not in ran or database.reads is None  # a slow machine may find its settings stale again


async def test_a_character_s_roll_in_a_fight_reads_on_the_reader_threads_and_sees_every_committed_change(
    local: LocalDiscord, database: Database
) -> None:
    """On SQLite a roll's reads (its character, the channel's fight, the fight's characters) go to the reader
    threads, those asked for at once in one trip (`Readers`), none through the session's aiosqlite connection; and
    what they read is what was committed last, by the fight and by the character commands alike."""
    await dnd_character(local, "Kara", {"Longsword": ""}, bab=3, strength=14, hp=12, weapon_groups="martial")
    await goblin_fight(local)
    ok(await local.command("encounter join"))

    async def attack(dice: list[int]) -> dict[str, list[str]]:
        local.bot.dice = ScriptedDice(dice)
        with tables_read(database) as ran:
            ok(await local.command("dnd attack", {"weapon": "Longsword", "target": "Goblin"}))
        return dict(ran)

    # Her active character, the fight, then its characters (her hit points are her sheet's); after the hit, the
    # tracker redrawn from the fight as it stands.
    reads = ["characters", "encounters", "characters", "encounters", "characters"]
    where = "readers" if database.reads is not None else "session"
    # What the bot keeps in memory once read (some for seconds, so a slow machine may read them again).
    kept = {"character_memory", "fair_sessions", "user_preferences", "guild_settings"}
    for drawn in ([15, 5], [15, 6]):  # 15 + 3 + 2 hits AC 10: 1d8 5 + 2 = 7, then 6 + 2 = 8
        found = await attack(drawn)
        assert [table for table in found.get(where, ()) if table not in kept] == reads, found
        assert set(found.get("session", ())) - set(reads) <= kept, found
        if drawn == [15, 5]:
            ok(await local.command("character hp", {"character": "Kara", "change": "-4"}))
    assert state(await stored(database)) == [("Goblin", 15), ("Kara", 8)]  # 30 - 7 - 8; 12 - 4


async def test_what_a_roll_keeps_for_seconds_is_read_again_in_one_trip_each(
    local: LocalDiscord, database: Database
) -> None:
    """Once what the bot kept has gone stale, a roll reads the server's settings, its roller's choice of answers and
    whether the channel runs a fair session again: on SQLite on the reader threads too, so that a plain roll takes
    no connection from the session's pool. A burst of new rollers once queued there for seconds
    (tests/test_overload.py).
    """
    moderator = local.as_user(MOD, permissions=MANAGER_PERMISSIONS)
    ok(await local.command("settings set", {"setting": "rolls.answers", "value": "full"}, actor=moderator))
    ok(await local.command("answers", {"start": "short"}))
    where = "readers" if database.reads is not None else "session"

    async def stale_roll() -> tuple[dict[str, Any], dict[str, list[str]]]:
        local.bot._server_settings.clear()
        local.bot._user_answers.clear()
        local.bot._unfair.clear()
        local.bot.dice = ScriptedDice([12, 5])
        with tables_read(database) as ran:
            answer = await local.command("dnd attack", QUICK_ATTACK)
        return answer.embed, dict(ran)

    embed, ran = await stale_roll()
    assert sorted(ran.pop(where)) == ["fair_sessions", "guild_settings", "user_preferences"]
    assert ran == {}  # nothing else, and on SQLite nothing through the session
    assert not embed.get("fields")  # the choice it read: short, over the server's full
    ok(await local.command("answers", {"start": "server"}))
    embed, _ = await stale_roll()
    assert embed["fields"]  # the server's setting it read: full
    ok(await local.command("fair start"))
    embed, ran = await stale_roll()
    assert "\nFair roll #1 ·" in embed["footer"]["text"]  # the running session it read
    assert sorted(ran.pop(where)) == ["fair_sessions", "guild_settings", "user_preferences"]
