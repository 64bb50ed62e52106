"""The encounter tracker's initiative inside a fair session: the session's dice, logged, replayed, forgeries caught."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from bot.__main__ import main
from bot.db.encounters import EncounterRecord, EncounterRepository
from bot.db.engine import Database
from bot.db.fair import FairRepository
from bot.db.models import RollLog
from bot.local.driver import DEFAULT_CHANNEL, DEFAULT_GUILD, LocalDiscord
from bot.rules import encounter as rules
from bot.rules.fair_log import LogRoll, Unanswered, check_log, filename, parse_log
from bot.tree import command_name
from cogs.encounter import CHANGED_MEANWHILE, NOT_NEEDED
from tests.dice_sources import NoDice, ScriptedDice
from tests.helpers import ALICE as GM
from tests.helpers import BOB as PLAYER
from tests.helpers import ok, start_fair, tracker_of


def stamp_of(embed: dict[str, Any]) -> str:
    return str((embed.get("footer") or {}).get("text", ""))


def next_button(message: dict[str, Any]) -> str:
    return next(c["custom_id"] for row in message["components"] for c in row["components"] if c["label"] == "Next")


def meanwhile(local: LocalDiscord, command: str, change: Callable[[EncounterRecord, EncounterRepository], Any]) -> None:
    """While `command` takes its dice (after it asked for its initiative roll), the channel's fight is changed.

    Through the store every command writes with (a command run from inside another would wait for it to end).
    """
    real = local.bot.dice_for
    pending = [change]

    async def taking(interaction: Any, reading: Any = None, *, hidden: bool | None = None) -> Any:
        if command_name(interaction) == command and pending:
            async with local.bot.database.write.begin() as session:
                repository = EncounterRepository(session)
                record = await repository.current(
                    guild_id=int(DEFAULT_GUILD), channel_id=int(DEFAULT_CHANNEL), for_update=True
                )
                await pending.pop()(record, repository)
        return await real(interaction, reading, hidden=hidden)

    local.bot.dice_for = taking  # type: ignore[method-assign]


async def revealed_log(local: LocalDiscord, commitment: str) -> tuple[bytes, list[LogRoll]]:
    revealed = await local.command("fair reveal")
    data = revealed.files[filename(commitment)]
    rolls = parse_log(data).rolls
    assert all(isinstance(r, LogRoll) for r in rolls), rolls
    return data, [r for r in rolls if isinstance(r, LogRoll)]


def forge_a_face(data: bytes, index: int) -> bytes:
    """Roll `index`'s first initiative check shows another face, its draw and its total changed to agree."""
    document = json.loads(data)
    entry = document["rolls"][index]
    check = entry["outcome"]["initiative"][0]
    roller = [r["name"] for r in entry["input"]["rollers"]].index(check["name"])
    _, sides, face = entry["draws"][roller]
    forged = face % sides + 1
    entry["draws"][roller][2] = forged
    check["total"] += forged - check["face"]
    check["face"] = forged
    return json.dumps(document).encode()


async def test_dnd_initiative_in_a_fair_session_is_a_roll_the_log_replays(
    local: LocalDiscord, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    local.bot.dice = NoDice()  # type: ignore[attr-defined] # every die of the session comes from its seed
    commitment = await start_fair(local)
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    ok(await local.command("encounter add", {"name": "Goblin", "count": 2, "hp": 6, "initiative": 1}))
    passed = await local.command("encounter next")
    board = ok(passed)  # the turn message carries the stamp of the initiative the pass rolled
    assert f"Fair roll #1 · commitment {commitment[:16]}…" in stamp_of(board)
    late = ok(await local.command("encounter add", {"name": "Ogre", "hp": 30, "initiative": -1}))
    assert late["description"].startswith("Ogre joined the fight under way.")
    assert "Fair roll #2 ·" in stamp_of(late)
    assert "Fair roll #3 ·" in stamp_of(ok(await local.command("roll", {"expression": "1d6"})))

    data, (first, ogre, dice) = await revealed_log(local, commitment)
    assert (first.command, first.kind, first.options) == ("encounter next", "encounter.next", {})
    assert first.inputs["ruleset"] == "dnd35" and first.inputs["entering"] is False
    assert [(r["name"], r["modifiers"]) for r in first.inputs["rollers"]] == [
        ("Goblin 1", [{"value": 1, "source": "initiative"}]),
        ("Goblin 2", [{"value": 1, "source": "initiative"}]),
    ]
    # What the tracker showed is what the log holds: each check's face and total.
    shown = tracker_of(passed)["fields"][0]["value"]
    for check in first.outcome["initiative"]:
        assert f"{check['name']}: d20 {check['face']} + 1 initiative = **{check['total']}**" in shown
    assert first.summary is not None and first.summary.startswith("Initiative, Cave round 1: ")
    assert (ogre.command, ogre.kind) == ("encounter add", "encounter.add")
    assert ogre.inputs["entering"] is True and [r["name"] for r in ogre.inputs["rollers"]] == ["Ogre"]
    assert f"Ogre: d20 {ogre.draws[0][2]} - 1 initiative" in late["description"]
    assert dice.kind == "dice"

    checked = check_log(parse_log(data))
    assert checked.ok, checked.lines
    assert any(line.startswith("roll 1: ok, /encounter next replayed") for line in checked.lines)
    assert any(line.startswith("roll 2: ok, /encounter add replayed") for line in checked.lines)
    path = tmp_path / "log.json"
    path.write_bytes(data)
    assert main(["verify", str(path)]) == 0, capsys.readouterr().out

    for index in (0, 1):
        forged = check_log(parse_log(forge_a_face(data, index)))
        assert not forged.ok
        assert any(line.startswith(f"roll {index + 1}: MISMATCH") for line in forged.lines), forged.lines
    path.write_bytes(forge_a_face(data, 0))
    assert main(["verify", str(path)]) == 1
    assert "roll 1: MISMATCH" in capsys.readouterr().out

    # The options as typed must agree with the input: the Ogre was added with initiative -1, not +4.
    document = json.loads(data)
    document["rolls"][1]["options"]["initiative"] = 4
    forged = check_log(parse_log(json.dumps(document).encode()))
    assert not forged.ok and any(line.startswith("roll 2: MISMATCH option `initiative`") for line in forged.lines)


async def test_every_star_frontiers_round_rolls_from_the_session_by_button_and_by_removal(
    local: LocalDiscord, database: Database
) -> None:
    local.bot.dice = NoDice()  # type: ignore[attr-defined]
    commitment = await start_fair(local)
    ok(await local.command("encounter start", {"ruleset": "sf", "name": "Dock"}))  # by side, the default
    ok(await local.command("encounter add", {"name": "Kel", "hp": 30, "rs": 55, "side": "party"}))
    ok(await local.command("encounter add", {"name": "Sathar", "hp": 20, "rs": 40}))
    first = await local.command("encounter next")
    assert "Fair roll #1 ·" in stamp_of(ok(first))

    # The turn message's Next button: the second turn of round 1 rolls nothing, the end of the round rolls round 2.
    pressed = await local.click(local.original(first), next_button(first.messages[0]))
    assert "Fair roll" not in stamp_of(pressed.messages[0]["embeds"][0])
    pressed = await local.click(local.original(pressed), next_button(local.original(pressed)))
    round_two = pressed.messages[0]["embeds"][0]
    assert round_two["title"].startswith("Round 2 · ") and "Fair roll #2 ·" in stamp_of(round_two)

    # The last to act in round 2 leaves: the turn passes to round 3, whose initiative the removal rolls.
    assert "Fair roll" not in stamp_of(ok(await local.command("encounter next")))
    async with database.read() as session:
        fight = (
            await EncounterRepository(session).current(guild_id=int(DEFAULT_GUILD), channel_id=int(DEFAULT_CHANNEL))
        ).encounter
    assert fight.round == 2 and fight.turn == len(fight.combatants) - 1 and fight.current is not None
    left = ok(await local.command("encounter remove", {"combatant": fight.current.name}))
    assert "Fair roll #3 ·" in stamp_of(left)

    data, rolls = await revealed_log(local, commitment)
    assert [(r.command, r.kind) for r in rolls] == [
        ("encounter next", "encounter.next"),
        ("encounter next", "encounter.next"),
        ("encounter remove", "encounter.remove"),
    ]
    assert all(r.inputs["by_side"] for r in rolls)
    assert all({c["name"] for c in r.outcome["initiative"]} <= {"party", "foes"} for r in rolls)
    checked = check_log(parse_log(data))
    assert checked.ok, checked.lines


async def test_hiding_hit_points_is_not_a_hidden_roll(local: LocalDiscord) -> None:
    """`/encounter add hidden:true` hides a creature's hit points: its initiative is still the channel's roll."""
    local.bot.dice = NoDice()  # type: ignore[attr-defined] # the GM channel runs no session: only the channel's
    commitment = await start_fair(local)
    ok(await local.command("encounter start", {"ruleset": "dnd35"}))
    ok(await local.command("encounter add", {"name": "Goblin", "hp": 6}))
    ok(await local.command("encounter next"))
    late = ok(await local.command("encounter add", {"name": "Ghost", "hp": 9, "hidden": True}))
    assert f"Fair roll #2 · commitment {commitment[:16]}…" in stamp_of(late)
    _, (_, ghost) = await revealed_log(local, commitment)
    # The log keeps the options as typed.
    assert ghost.options is not None and ghost.options["hidden"] is True and not ghost.private


async def test_a_fight_that_changed_while_initiative_was_drawn_refuses_and_its_number_says_why(
    local: LocalDiscord, database: Database
) -> None:
    local.bot.dice = NoDice()  # type: ignore[attr-defined]
    commitment = await start_fair(local)
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    ok(await local.command("encounter add", {"name": "Goblin", "hp": 6}))
    ok(await local.command("encounter next"))  # fair roll 1

    # The Orc's check is asked for round 1; before it is drawn, the Goblin's turn ends and round 2 begins.
    async def next_round(record: EncounterRecord, repository: EncounterRepository) -> None:
        await repository.save(record, rules.advance(record.encounter, NoDice()), now=local.bot.clock())

    meanwhile(local, "encounter add", next_round)
    late = await local.command("encounter add", {"name": "Orc", "hp": 6})
    assert late.ephemeral and late.embed["description"] == (
        f"{CHANGED_MEANWHILE}\n\nFair roll #2 went to this command; the session's log lists it as not answered."
    )
    async with database.read() as session:
        fight = (
            await EncounterRepository(session).current(guild_id=int(DEFAULT_GUILD), channel_id=int(DEFAULT_CHANNEL))
        ).encounter
    assert fight.round == 2 and [c.name for c in fight.combatants] == ["Goblin"]

    revealed = await local.command("fair reveal")
    log = parse_log(revealed.files[filename(commitment)])
    first, orc = log.rolls
    assert isinstance(first, LogRoll) and isinstance(orc, Unanswered)
    assert orc.command == "encounter add" and CHANGED_MEANWHILE in orc.reason
    assert check_log(log).ok


async def test_a_reveal_between_initiative_s_number_and_its_fight_leaves_the_fight_unbegun(
    local: LocalDiscord, database: Database
) -> None:
    """Finding: the fight was saved with its initiative, then the roll's log was refused (the session's log had
    been closed meanwhile): the fight went on with a roll the signed log lists as never answered. The roll is now
    logged in the fight's own transaction, so the refusal undoes the change too."""
    local.bot.dice = NoDice()  # type: ignore[attr-defined]
    await start_fair(local)
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    ok(await local.command("encounter add", {"name": "Goblin", "count": 2, "hp": 6}))
    real = local.bot.dice_for

    async def revealed_once_taken(interaction: Any, reading: Any = None, *, hidden: bool | None = None) -> Any:
        dice = await real(interaction, reading, hidden=hidden)
        if command_name(interaction) == "encounter next":  # the reveal and its close come after the number
            async with local.bot.database.write.begin() as session:
                fair = FairRepository(session)
                revealed = await fair.reveal(int(DEFAULT_CHANNEL), now=local.bot.clock())
                await fair.close(revealed.id, now=local.bot.clock())
        return dice

    local.bot.dice_for = revealed_once_taken  # type: ignore[method-assign]
    refused = await local.command("encounter next")
    assert refused.ephemeral and refused.embed["description"].endswith(
        "Fair roll #1 went to this command; the session's log lists it as not answered."
    ), refused.embed
    async with database.read() as session:
        fight = (
            await EncounterRepository(session).current(guild_id=int(DEFAULT_GUILD), channel_id=int(DEFAULT_CHANNEL))
        ).encounter
        logged = (await session.scalars(select(RollLog))).all()
    assert not fight.begun and [c.initiative for c in fight.combatants] == [None, None]
    assert logged == []


async def test_a_roll_drawn_for_a_change_that_no_longer_needs_it_is_left_unanswered(local: LocalDiscord) -> None:
    local.bot.dice = NoDice()  # type: ignore[attr-defined]
    commitment = await start_fair(local)
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    ok(await local.command("encounter add", {"name": "Goblin", "hp": 6}))
    ok(await local.command("encounter next"))

    # While the Orc's check is drawn the fight ends and a new one starts: nobody rolls before it begins.
    async def new_fight(record: EncounterRecord, repository: EncounterRepository) -> None:
        await repository.end(record)
        hall = rules.new_encounter("dnd35", "Hall", int(GM))
        await repository.start(
            guild_id=int(DEFAULT_GUILD), channel_id=int(DEFAULT_CHANNEL), encounter=hall, now=local.bot.clock()
        )

    meanwhile(local, "encounter add", new_fight)
    late = ok(await local.command("encounter add", {"name": "Orc", "hp": 6}))
    assert late["description"] == "Orc joined the fight." and "Fair roll" not in stamp_of(late)
    revealed = await local.command("fair reveal")
    log = parse_log(revealed.files[filename(commitment)])
    assert isinstance(log.rolls[1], Unanswered) and NOT_NEEDED in log.rolls[1].reason
    assert check_log(log).ok


async def test_a_refused_next_takes_no_fair_number(local: LocalDiscord) -> None:
    local.bot.dice = NoDice()  # type: ignore[attr-defined]
    commitment = await start_fair(local)
    ok(await local.command("encounter start", {"ruleset": "dnd35"}))
    ok(await local.command("encounter add", {"name": "Goblin", "hp": 6}))
    refused = await local.command("encounter next", actor=local.as_user(PLAYER))
    assert refused.ephemeral and refused.embed["title"] == "Not allowed"
    before = await local.command("encounter add", {"name": "Orc", "hp": 6})
    assert "Fair roll" not in stamp_of(ok(before))  # nothing to roll before the fight begins
    _, rolls = await revealed_log(local, commitment)
    assert rolls == []


async def test_outside_a_session_initiative_uses_the_bots_dice_and_is_logged(
    local: LocalDiscord, database: Database
) -> None:
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    ok(await local.command("encounter add", {"name": "Goblin", "hp": 6, "initiative": 2}))
    local.bot.dice = ScriptedDice([12, 7])  # type: ignore[attr-defined]
    board = tracker_of(await local.command("encounter next"))
    assert "Goblin: d20 12 + 2 initiative = **14**" in board["fields"][0]["value"]
    late = ok(await local.command("encounter add", {"name": "Orc", "hp": 6}))
    assert "Orc: d20 7 + 0 initiative = **7**" in late["description"] and "Fair roll" not in stamp_of(late)
    async with database.read() as session:
        rows = (await session.scalars(select(RollLog).order_by(RollLog.id))).all()
    assert [(r.command, r.summary, r.fair_roll, r.proof) for r in rows] == [
        ("encounter next", "Initiative, Cave round 1: Goblin 14", None, None),
        ("encounter add", "Initiative on entering Cave, round 1: Orc 7", None, None),
    ]
