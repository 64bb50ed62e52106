"""Hit points in a fight: written as everywhere else, and a character's are the character's (issue #25)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest

from bot.db.characters import ChangedMeanwhile
from bot.db.encounters import EncounterRepository
from bot.db.engine import Database
from bot.local.driver import DEFAULT_CHANNEL, DEFAULT_GUILD, LocalDiscord
from bot.rules import encounter as rules
from bot.rules.encounter import Hit
from tests.dice_sources import ScriptedDice
from tests.helpers import BOB as PLAYER
from tests.helpers import fields, ok, stored, tracker_of

pytestmark = pytest.mark.usefixtures("full_answers")
NOW = datetime(2026, 12, 2, tzinfo=UTC)


async def test_encounter_hp_reads_numbers_as_every_other_command(local: LocalDiscord, database: Database) -> None:
    """+5 heals, -7 hurts, =12 sets, =12/30 sets the most too; `5` alone (which used to heal) asks which."""
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    ok(await local.command("encounter add", {"name": "Ogre", "hp": 30, "ac": 14}))

    async def hp(amount: str) -> str:
        return str(ok(await local.command("encounter hp", {"combatant": "Ogre", "amount": amount}))["description"])

    assert await hp("-12") == "Ogre: 30 → 18 hp"
    assert await hp("+5") == "Ogre: 18 → 23 hp"
    assert await hp("+50") == "Ogre: 23 → 30 hp"  # a heal stops at the most
    assert await hp("=12") == "Ogre: 30 → 12 hp"
    assert await hp("=12/40") == "Ogre: 12 hp"
    ogre = rules.find(await stored(database), "Ogre")
    assert (ogre.hp, ogre.max_hp) == (12, 40)

    bare = await local.command("encounter hp", {"combatant": "Ogre", "amount": "5"})
    assert bare.ephemeral and bare.embed["title"] == "Which one?"
    assert bare.embed["description"] == (
        "`5` alone could mean heal or set: write `+5` to add 5, `-5` to lose 5, or `=5` to set it."
    )
    wrong = await local.command("encounter hp", {"combatant": "Ogre", "amount": "heal 5"})
    assert wrong.ephemeral and "`amount` is `+5` (add 5), `-13` (lose 13)" in wrong.embed["description"]
    too_big = await local.command("encounter hp", {"combatant": "Ogre", "amount": "=5/0"})
    assert too_big.ephemeral and "the most at least 1" in too_big.embed["description"]
    assert rules.find(await stored(database), "Ogre").hp == 12


async def sheet_health(local: LocalDiscord, name: str) -> str:
    """A character's hit points as `/character show` gives them: "now / max"."""
    shown = await local.command("character show", {"character": name}, actor=local.as_user(PLAYER))
    hp = fields(shown)
    text = json.dumps(hp)
    match = re.search(r"(-?\d+) / (\d+)", text)
    assert match is not None, hp
    return match.group(0)


async def aria_in_a_fight(local: LocalDiscord) -> None:
    player = local.as_user(PLAYER)
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    ok(await local.command("character create", {"ruleset": "dnd35", "name": "Aria"}, actor=player))
    ok(await local.command("character set", {"character": "Aria", "values": "hp=12/12"}, actor=player))
    ok(await local.command("encounter join", {}, actor=player))
    ok(await local.command("encounter add", {"name": "Ogre", "hp": 30, "ac": 14}))


async def test_a_hit_in_a_fight_is_on_the_sheet_and_undo_gives_it_back(local: LocalDiscord, database: Database) -> None:
    """The issue: damage taken in a fight never reached the sheet. Now an attack's hit, /encounter hp and a heal
    write the sheet in the fight's own transaction, and undo gives back both."""
    await aria_in_a_fight(local)
    local.bot.dice = ScriptedDice([12, 4])  # d20 12 + 5 = 17: a hit; 1d8 4 + 3 = 7
    attack = await local.command("dnd attack", {"target": "Aria", "attack_bonus": 5, "damage": "1d8+3"})
    note = attack.messages[-1]["embeds"][0]
    assert note["title"] == "The fight" and note["description"].startswith("Aria: 12 → 5 hp"), note
    assert not any(
        c.get("label", "").startswith("Apply")
        for m in attack.messages
        for r in m.get("components", [])
        for c in r["components"]
    ), "the hit is applied once, to the fight and so to the sheet: no Apply damage button as well"
    assert await sheet_health(local, "Aria") == "5 / 12"

    assert ok(await local.command("encounter hp", {"combatant": "Aria", "amount": "-2"}))["description"] == (
        "Aria: 5 → 3 hp"
    )
    assert await sheet_health(local, "Aria") == "3 / 12"
    ok(await local.command("encounter hp", {"combatant": "Aria", "amount": "+4"}))
    assert await sheet_health(local, "Aria") == "7 / 12"
    ok(await local.command("encounter hp", {"combatant": "Ogre", "amount": "-10"}))  # a quick creature's own
    assert await sheet_health(local, "Aria") == "7 / 12"

    for expected in ["7 / 12", "3 / 12", "5 / 12", "12 / 12"]:
        exchange = await local.command("encounter undo")
        ok(exchange)
        assert await sheet_health(local, "Aria") == expected
        assert f"{expected.replace(' ', '')} hp" in json.dumps(tracker_of(exchange)), exchange.requests
    assert rules.find(await stored(database), "Ogre").hp == 30


async def test_a_change_outside_the_fight_shows_in_it(local: LocalDiscord, database: Database) -> None:
    """/character hp and /character set on a character in a fight: the tracker, its turns and attacks see it."""
    await aria_in_a_fight(local)
    player = local.as_user(PLAYER)
    ok(await local.command("character hp", {"character": "Aria", "change": "-4"}, actor=player))
    shown = ok(await local.command("encounter show"))
    assert "8/12 hp" in json.dumps(shown), shown
    ok(await local.command("character set", {"character": "Aria", "values": "max_hp=20"}, actor=player))
    assert "8/20 hp" in json.dumps(ok(await local.command("encounter show")))

    local.bot.dice = ScriptedDice([12, 4])
    attack = await local.command("dnd attack", {"target": "Aria", "attack_bonus": 5, "damage": "1d8+3"})
    assert attack.messages[-1]["embeds"][0]["description"].startswith("Aria: 8 → 1 hp")
    assert await sheet_health(local, "Aria") == "1 / 20"

    # Dead on the sheet: the fight skips the turn.
    ok(await local.command("character hp", {"character": "Aria", "change": "=-10"}, actor=player))
    local.bot.dice = ScriptedDice([20, 1])  # Aria would act first
    first = ok(await local.command("encounter next"))
    assert first["title"] == "Round 1 · Ogre's turn" and first["description"] == "Passed: Aria (dead)", first


async def test_undo_keeps_a_change_made_outside_the_fight_since(local: LocalDiscord) -> None:
    """Undo gives back what the fight's change did, and never overwrites a /character hp made after it."""
    await aria_in_a_fight(local)
    player = local.as_user(PLAYER)
    ok(await local.command("encounter hp", {"combatant": "Aria", "amount": "-7"}))  # 12 -> 5
    ok(await local.command("character hp", {"character": "Aria", "change": "-2"}, actor=player))  # 3
    ok(await local.command("encounter undo"))
    assert await sheet_health(local, "Aria") == "10 / 12"  # the 7 given back, the 2 kept
    ok(await local.command("encounter hp", {"combatant": "Aria", "amount": "-4"}))  # 6
    ok(await local.command("character hp", {"character": "Aria", "change": "+3"}, actor=player))  # 9
    ok(await local.command("encounter undo"))
    assert await sheet_health(local, "Aria") == "12 / 12"  # given back up to the maximum


async def test_a_deleted_character_leaves_the_fight_its_own_numbers(local: LocalDiscord, database: Database) -> None:
    await aria_in_a_fight(local)
    player = local.as_user(PLAYER)
    ok(await local.command("encounter hp", {"combatant": "Aria", "amount": "-3"}))
    asked = await local.command("character delete", {"character": "Aria"}, actor=player)
    await local.click(local.original(asked), "confirm", actor=player)
    assert "9/12 hp" in json.dumps(ok(await local.command("encounter show")))
    assert ok(await local.command("encounter hp", {"combatant": "Aria", "amount": "-4"}))["description"] == (
        "Aria: 9 → 5 hp"
    )
    ok(await local.command("encounter undo"))
    assert rules.find(await stored(database), "Aria").hp == 9


@pytest.mark.parametrize(
    ("ruleset", "values", "shown"),
    [("sf", "sta=50", "50 / 50"), ("aliensrl", "hp=35", "35 / 35"), ("dnd35", "max_hp=30", "30 / 30")],
)
async def test_every_rulesets_health_in_a_fight_is_the_sheets(
    local: LocalDiscord, ruleset: str, values: str, shown: str
) -> None:
    """Star Frontiers Stamina and AliensRL hit points too; the sheet's numbers come in when the character joins."""
    player = local.as_user(PLAYER)
    ok(await local.command("encounter start", {"ruleset": ruleset}))
    ok(await local.command("character create", {"ruleset": ruleset, "name": "Kel"}, actor=player))
    ok(await local.command("character set", {"character": "Kel", "values": values}, actor=player))
    assert await sheet_health(local, "Kel") == shown
    ok(await local.command("encounter join", {}, actor=player))
    top = shown.split(" / ")[1]
    ok(await local.command("encounter hp", {"combatant": "Kel", "amount": "-9"}))
    assert await sheet_health(local, "Kel") == f"{int(top) - 9} / {top}"
    ok(await local.command("encounter undo"))
    assert await sheet_health(local, "Kel") == shown


async def test_a_fight_change_against_a_character_changed_meanwhile_saves_nothing(
    local: LocalDiscord, database: Database
) -> None:
    """The fight's write and the sheet's are one transaction: a character changed after the fight was read is not
    overwritten, and the fight is not changed either."""
    await aria_in_a_fight(local)
    guild, channel = int(DEFAULT_GUILD), int(DEFAULT_CHANNEL)
    async with database.read() as session:
        record = await EncounterRepository(session).current(guild_id=guild, channel_id=channel)
    ok(await local.command("character hp", {"character": "Aria", "change": "-1"}, actor=local.as_user(PLAYER)))
    hurt, _ = rules.apply_hit(record.encounter, rules.find(record.encounter, "Aria").number, Hit(damage=5))
    with pytest.raises(ChangedMeanwhile):
        async with database.write.begin() as session:
            await EncounterRepository(session).save(record, hurt, now=NOW)
    assert await sheet_health(local, "Aria") == "11 / 12"
    async with database.read() as session:
        again = await EncounterRepository(session).current(guild_id=guild, channel_id=channel)
    assert again.version == record.version and again.undoable == record.undoable
    assert rules.find(again.encounter, "Aria").hp == 11
