"""Table play through the command tree: the buttons under every roll, saved rolls, /stats and /history filters."""

from __future__ import annotations

import math
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from fractions import Fraction
from itertools import product
from typing import Any

import pytest
from sqlalchemy import select

from bot.db.engine import Database
from bot.db.macros import MAX_MACROS
from bot.db.models import RollLog
from bot.local.double import UPDATE_MESSAGE
from bot.local.driver import LocalDiscord
from bot.local.payloads import MANAGER_PERMISSIONS
from tests.dice_sources import ScriptedDice
from tests.helpers import BOB as STRANGER
from tests.helpers import buttons, create_vasquez, dnd_character, logged, resolved, user_option

QUICK = {"attack_bonus": 5, "damage": "1d8+3", "target_ac": 15}  # hit 55%, 20/x2
PNG = b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------------------------------------------------
# Compact answers and the Details toggle.


async def test_an_attack_answers_compact_and_details_switches_the_message(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([12, 5])
    first = await local.command("dnd attack", QUICK)
    embed = first.embed
    assert (
        embed["description"]
        == "**Hit**: **8** damage\nd20 **12** +5 = **17** vs AC 15\nOdds: hit 55.0% · crit 2.8% · avg 4.33"
    )
    assert "footer" not in embed  # the rule variants are the reference's: nothing to say on a phone
    assert not embed.get("fields")  # the steps wait behind Details
    message = local.original(first)
    assert buttons(message) == {
        "Roll again": f"again:{first.payload['id']}",
        "Details": f"details:{first.payload['id']}:full",
    }

    full = await local.click(message, buttons(message)["Details"])
    assert full.response["type"] == UPDATE_MESSAGE  # the same message, edited
    shown = full.response["data"]["embeds"][0]
    assert shown["description"] == "**Hit**: **8** damage\nOdds: hit 55.0% · crit 2.8% · avg 4.33"
    assert shown["fields"][0]["name"] == "Attack roll"
    assert "d20 **12** +5 = **17** vs AC 15 → hit" in shown["fields"][0]["value"]
    assert [c["label"] for c in full.response["data"]["components"][0]["components"]] == ["Roll again", "Less"]

    edited = local.original(first)
    back = await local.click(edited, buttons(edited)["Less"])
    assert back.response["type"] == UPDATE_MESSAGE
    assert back.response["data"]["embeds"][0] == embed
    assert buttons(local.original(first))["Details"] == f"details:{first.payload['id']}:full"


async def test_less_on_a_roll_logged_with_its_full_answer_only_says_so(local: LocalDiscord, database: Database) -> None:
    """Rows logged before both forms were kept hold the full answer alone: Details works, Less explains."""
    local.bot.dice = ScriptedDice([12, 5])
    first = await local.command("dnd attack", QUICK)
    async with database.write.begin() as session:
        row = (await session.scalars(select(RollLog))).one()
        assert row.details is not None
        row.details = row.details["full"]  # as the log kept it before
    message = local.original(first)
    full = await local.click(message, buttons(message)["Details"])
    assert full.response["data"]["embeds"][0]["fields"][0]["name"] == "Attack roll"
    less = await local.click(local.original(first), buttons(local.original(first))["Less"])
    assert less.ephemeral and "before its short form was kept" in less.embed["description"]
    assert local.original(first)["embeds"][0]["fields"]  # the message still shows the details


async def test_someone_else_pressing_details_sees_the_steps_privately(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([3])
    first = await local.command("dnd attack", QUICK)
    message = local.original(first)
    peek = await local.click(message, buttons(message)["Details"], actor=local.as_user(STRANGER))
    assert peek.ephemeral and peek.response["type"] == 4
    assert peek.embed["fields"][0]["name"] == "Attack roll"
    assert local.original(first)["embeds"][0] == first.embed  # the roller's message is untouched


async def test_a_server_can_start_answers_full(local: LocalDiscord, full_answers: None) -> None:
    local.bot.dice = ScriptedDice([3])
    first = await local.command("dnd attack", QUICK)
    assert first.embed["fields"][0]["name"] == "Attack roll"
    assert list(buttons(local.original(first))) == ["Roll again", "Less"]


async def test_one_line_answers_have_no_details_button(local: LocalDiscord) -> None:
    first = await local.command("roll", {"expression": "1d20"})
    assert list(buttons(local.original(first))) == ["Roll again"]


# Every roll command's compact answer, made from its result: the outcome, the damage and the odds line.
SF_QUICK_SHOT = {"score": 40, "skill": 1, "damage": "1d10", "distance": "point_blank"}  # chance 50
SF_QUICK_MELEE = {"score": 40, "skill": 1, "damage": "1d10"}  # chance 50
SF_HIT = "**Hit**: 20 is at or under 50\nDamage 1d10 (7) = **7** (quick-mode weapon)"
SF_ODDS = "Odds: hit 50.0% · knock-out 2.0% · expected damage 2.75"
ALIENS_ODDS = "critical 2%, full damage 0%, may stray 0%, expected damage to the target 5.22"
COMPACT = [
    ("sf shoot", SF_QUICK_SHOT, [20, 7], f"{SF_HIT}\n{SF_ODDS}", "Hit: 7 damage"),
    ("sf melee", SF_QUICK_MELEE, [20, 7], f"{SF_HIT}\n{SF_ODDS}", "Hit: 7 damage"),
    ("sf shoot", SF_QUICK_SHOT, [77], f"**Miss**: 77 is over 50\n{SF_ODDS}", "Miss: 77 is over 50"),
    (
        "aliens fire",
        {"skill_rank": 2, "distance": 2},
        [42],
        f"d100 42 (rating 0, skill 5): **hits**: **5** damage to the target\nOdds: {ALIENS_ODDS}",
        "hits: 5 damage to the target",
    ),
    (
        "dnd attack",
        QUICK,
        [12, 5],
        "**Hit**: **8** damage\nd20 **12** +5 = **17** vs AC 15\nOdds: hit 55.0% · crit 2.8% · avg 4.33",
        "Hit: 8 damage",
    ),
]


@pytest.mark.parametrize(("command", "options", "faces", "compact", "history"), COMPACT, ids=[c[0] for c in COMPACT])
async def test_the_compact_answer_carries_the_outcome_and_the_odds_line(
    local: LocalDiscord,
    database: Database,
    command: str,
    options: dict[str, Any],
    faces: list[int],
    compact: str,
    history: str,
) -> None:
    local.bot.dice = ScriptedDice(faces)
    first = await local.command(command, options)
    assert first.embed["description"] == compact
    assert not first.embed.get("fields")  # the steps wait behind Details
    [row] = await logged(database)
    assert row.summary == history  # the /history line, from the same result

    message = local.original(first)
    full = await local.click(message, buttons(message)["Details"])
    assert full.response["data"]["embeds"][0]["fields"]  # every step
    back = await local.click(local.original(first), buttons(local.original(first))["Less"])
    assert back.response["data"]["embeds"][0] == first.embed  # the compact form the log kept, as it was


async def test_a_multi_shot_weapon_answers_every_shot_and_the_total_compact(
    local: LocalDiscord, database: Database
) -> None:
    await create_vasquez(local, heavy=2, pain=1, details="type=heavy accuracy=2 shots=3")
    local.bot.dice = ScriptedDice([42, 99, 3])
    first = await local.command("aliens fire", {"distance": 3})
    assert first.embed["description"].split("\n") == [
        "Shot 1: d100 42 (rating 0, skill 5): **hits**: **5** damage to the target",
        "Shot 2: d100 99 (rating 4, skill 5): **barely grazes**: **1** damage to the target",
        "Shot 3: d100 3 (rating -3, skill 5): **hits very hard**: **8** damage to the target",  # once in Details only
        "Total to the target: **14**",
        f"Odds (each shot): {ALIENS_ODDS}",
    ]
    [row] = await logged(database)
    assert row.summary == "3 shots: 14 damage to the target"


async def test_alien_melee_answers_with_its_odds_line_and_no_details(local: LocalDiscord) -> None:
    first = await local.command("aliens melee")
    assert first.embed["description"].split("\n") == [
        "**Hits** (melee always hits): **5**† damage",
        "Odds: hit 100% · the damage is fixed, no dice are rolled",
    ]
    assert list(buttons(local.original(first))) == ["Roll again"]  # nothing more to show


async def test_a_full_attack_answers_compact_with_its_odds_line(local: LocalDiscord, database: Database) -> None:
    await dnd_character(local, "Kara", {"Longsword": None})
    local.bot.dice = ScriptedDice([15, 6])
    first = await local.command("dnd full-attack", {"character": "Kara", "target_ac": 10})
    lines = first.embed["description"].split("\n")
    assert lines[:3] == [
        "**6** damage in total: 1 of 1 attacks hit",
        "1. d20 **15** -4 = **11** vs AC 10: hit **6**",
        "From the sheet: -4 not proficient",  # Kara has no martial proficiency: said without Details (#25)
    ]
    assert re.fullmatch(r"Odds: avg \d+\.\d\d for the whole full attack", lines[3]), lines
    assert not first.embed.get("fields")
    [row] = await logged(database)
    assert row.summary == "6 damage in total: 1 of 1 attacks hit"


async def test_history_lists_the_line_each_result_gives(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([20, 7, 42])
    await local.command("sf shoot", SF_QUICK_SHOT)
    await local.command("aliens fire", {"skill_rank": 2, "distance": 2})
    shown = await local.command("history")
    lines = shown.embed["description"].splitlines()
    assert "`/aliens fire`: hits: 5 damage to the target [jump]" in lines[0]
    assert "`/sf shoot`: Hit: 7 damage [jump]" in lines[1]


# ---------------------------------------------------------------------------------------------------------
# Roll again.


async def test_roll_again_repeats_a_character_attack_with_the_same_options(
    local: LocalDiscord, database: Database
) -> None:
    await dnd_character(local, "Kara", {"Longsword": None})
    local.bot.dice = ScriptedDice([12, 5, 2])
    options = {"character": "Kara", "target_ac": 10, "situation": "+2"}
    first = await local.command("dnd attack", options)
    refused = await local.click(local.original(first), f"again:{first.payload['id']}", actor=local.as_user(STRANGER))
    assert refused.ephemeral and refused.embed["title"] == "Not your roll"
    again = await local.click(local.original(first), f"again:{first.payload['id']}")
    assert again.response["type"] == 4 and again.embed["title"] == "Kara: Longsword"
    assert again.embed["description"].startswith("**Miss**")  # the 2 rolled for the second attack
    made = await logged(database)
    assert [(r.command, r.inputs) for r in made] == [("dnd attack", options)] * 2
    assert made[0].character_id == made[1].character_id is not None
    assert [r.ruleset for r in made] == ["dnd35", "dnd35"]


async def test_roll_again_in_a_fair_session_takes_the_next_roll_number(local: LocalDiscord) -> None:
    await local.command("fair start")
    first = await local.command("dnd attack", QUICK)
    assert "Fair roll #1" in first.embed["footer"]["text"]
    again = await local.click(local.original(first), f"again:{first.payload['id']}")
    assert "Fair roll #2" in again.embed["footer"]["text"]


async def test_roll_again_of_a_deleted_character_says_what_is_wrong(local: LocalDiscord) -> None:
    await dnd_character(local, "Kara", {"Longsword": None})
    first = await local.command("dnd attack", {"character": "Kara", "target_ac": 10})
    confirm = await local.command("character delete", {"character": "Kara"})
    await local.click(local.original(confirm), buttons(local.original(confirm))["Delete"])
    again = await local.click(local.original(first), f"again:{first.payload['id']}")
    assert again.ephemeral and again.embed["title"] == "No such character"


# ---------------------------------------------------------------------------------------------------------
# Saved rolls.


async def test_a_saved_roll_runs_as_if_typed(local: LocalDiscord, database: Database) -> None:
    line = "/dnd attack attack_bonus:5 damage:1d8+3 target_ac:15"
    saved = await local.command("macro save", {"name": "Axe", "command": line})
    assert saved.ephemeral and saved.embed["title"] == "Roll saved"
    local.bot.dice = ScriptedDice([12, 5, 2])
    ran = await local.command("macro run", {"name": "axe"})  # names match in any case
    assert ran.embed["description"].startswith("**Hit**: **8** damage\n")
    again = await local.click(local.original(ran), f"again:{ran.payload['id']}")
    assert again.embed["title"] == "Player0001: attack 1d8+3"
    made = await logged(database)
    assert [(r.command, r.inputs) for r in made] == [("dnd attack", QUICK)] * 2
    listed = await local.command("macro list")
    assert listed.embed["description"] == f"**Axe**: `{line}`"
    choices = await local.autocomplete("macro run", {"name": "a"}, "name")
    assert choices.choices == [{"name": f"Axe: {line}", "value": "Axe"}]
    assert (await local.autocomplete("macro run", {"name": "a"}, "name", actor=local.as_user(STRANGER))).choices == []


async def test_a_saved_roll_takes_this_run_s_options(local: LocalDiscord, database: Database) -> None:
    await local.command(
        "macro save", {"name": "axe", "command": "/dnd attack attack_bonus:5 damage:1d8+3 target_ac:15"}
    )
    local.bot.dice = ScriptedDice([12])
    harder = await local.command("macro run", {"name": "axe", "options": "target_ac:18 'damage:1d8 + 3'"})
    assert harder.rejected == [], harder.requests
    assert harder.embed["description"].startswith("**Miss**"), harder.embed  # 12 + 5 = 17 misses AC 18
    made = await logged(database)
    assert made[-1].inputs == {**QUICK, "target_ac": 18, "damage": "1d8 + 3"}
    local.bot.dice = ScriptedDice([3])
    private = await local.command("macro run", {"name": "axe", "options": "private:true"})
    assert private.ephemeral and private.embed["description"].startswith("**Miss**"), private.embed
    for bad, message in (
        ("target_ac:x", "must be a whole number"),
        ("nope:1", "has no option `nope`"),
        ("18", "`name:value`"),
    ):
        refused = await local.command("macro run", {"name": "axe", "options": bad})
        assert message in refused.embed["description"], (bad, refused.embed)


async def test_saved_rolls_are_checked_when_saved(local: LocalDiscord) -> None:
    cases = {
        "/character list": "Not a roll",
        "/roll expr:1d6": "Can't read that command",
        "/roll": "Can't read that command",
        "/dnd attack target_ac:high": "Can't read that command",
        "@200000000000000002 /roll expression:1d6": "Saved roll",
        "/nothing": "Can't read that command",
    }
    for line, title in cases.items():
        refused = await local.command("macro save", {"name": "x", "command": line})
        assert refused.ephemeral and refused.embed["title"] == title, (line, refused.embed)
    ok = await local.command("macro save", {"name": "d20", "command": "roll expression:1d20+2"})  # the / is optional
    assert ok.embed["title"] == "Roll saved"
    taken = await local.command("macro save", {"name": "D20", "command": "/roll expression:1d20"})
    assert taken.embed["title"] == "Name taken"


async def test_at_most_fifty_saved_rolls_and_delete(local: LocalDiscord) -> None:
    for number in range(MAX_MACROS):
        saved = await local.command("macro save", {"name": f"r{number}", "command": f"/roll expression:1d{number + 2}"})
        assert saved.embed["title"] == "Roll saved", saved.embed
    over = await local.command("macro save", {"name": "one more", "command": "/roll expression:1d6"})
    assert over.embed["title"] == "Too many saved rolls"
    other = await local.command(
        "macro save", {"name": "mine", "command": "/roll expression:1d6"}, actor=local.as_user(STRANGER)
    )
    assert other.embed["title"] == "Roll saved"  # the limit is per user
    stranger_delete = await local.command("macro delete", {"name": "r0"}, actor=local.as_user(STRANGER))
    assert stranger_delete.embed["title"] == "Saved roll"  # nobody else's name reaches your rolls
    gone = await local.command("macro delete", {"name": "R0"})
    assert gone.embed["title"] == "Saved roll deleted"
    missing = await local.command("macro run", {"name": "r0"})
    assert missing.embed["title"] == "No such saved roll"


# ---------------------------------------------------------------------------------------------------------
# /stats on a seeded history, against an independent enumeration of the attack's odds.


def quick_attack_damage() -> dict[int, Fraction]:
    """AB +5 against AC 15, 1d8+3, 20/x2, by enumerating the attack d20, the confirmation d20 and the d8s."""
    out: dict[int, Fraction] = {}
    for face, confirm, first, second in product(range(1, 21), range(1, 21), range(1, 9), range(1, 9)):
        p = Fraction(1, 20 * 20 * 8 * 8)
        hit = face == 20 or (face != 1 and face + 5 >= 15)
        critical = hit and face == 20 and confirm != 1 and (confirm == 20 or confirm + 5 >= 15)
        damage = 0 if not hit else first + 3 + (second + 3 if critical else 0)
        out[damage] = out.get(damage, Fraction(0)) + p
    return out


async def test_stats_adds_up_the_seeded_history(local: LocalDiscord) -> None:
    # A confirmed critical (20, 15 confirms, d8s 3 and 4: 13 damage), a natural 1, and a plain hit of 8.
    local.bot.dice = ScriptedDice([20, 15, 3, 4, 1, 12, 5])
    for _ in range(3):
        await local.command("dnd attack", QUICK)
    stats = await local.command("stats", user_option(local.actor.user_id), resolved=resolved(local.actor.user_id))
    embed = stats.embed
    assert embed["title"] == "Luck of Player0001"
    distribution = quick_attack_damage()
    mean = sum(v * p for v, p in distribution.items())
    variance = sum((v - mean) ** 2 * p for v, p in distribution.items())
    hits_z = (2 - 3 * 0.55) / math.sqrt(3 * 0.55 * 0.45)
    damage_z = (21 - 3 * float(mean)) / math.sqrt(3 * float(variance))
    nat_z = (1 - 4 / 20) / math.sqrt(4 * (1 / 20) * (19 / 20))  # four d20s: 20, 15, 1, 12
    crits_z = (1 - 3 * 0.0275) / math.sqrt(3 * 0.0275 * 0.9725)  # 11/400 a confirmed critical
    table = embed["description"].split("```")[1].strip().split("\n")
    assert table[1:] == [
        f"Hits                   2      1.65  {hits_z:+.2f}",
        f"Critical hits          1      0.08  {crits_z:+.2f}",
        f"Damage                21     {3 * float(mean):.2f}  {damage_z:+.2f}",
        f"Natural 20s            1      0.20  {nat_z:+.2f}",
        f"Natural 1s             1      0.20  {nat_z:+.2f}",
    ]
    assert embed["description"].startswith("**Within ordinary luck** over 3 rolls.\n")
    assert f"Critical hits: remarkably lucky (z = {crits_z:+.2f}, 3 rolls)" in embed["description"]
    assert embed["image"]["url"] == "attachment://luck.png"
    assert stats.files["luck.png"].startswith(PNG)


async def test_a_run_of_natural_ones_is_called_unlucky(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([1] * 20)
    for _ in range(20):
        await local.command("dnd attack", {"attack_bonus": 19, "damage": "1d6", "target_ac": 10})
    stats = await local.command("stats", {"ruleset": "dnd35"})
    z = (0 - 20 * 0.95) / math.sqrt(20 * 0.95 * 0.05)
    assert stats.embed["description"].startswith("**Remarkably unlucky** over 20 rolls.\n")
    assert f"Hits: remarkably unlucky (z = {z:+.2f}, 20 rolls)" in stats.embed["description"]
    assert "Natural 1s: remarkably unlucky" in stats.embed["description"]  # many 1s are bad luck


async def test_stats_keep_private_rolls_to_their_roller(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([20, 20, 3, 3])
    await local.command("dnd attack", {**QUICK, "private": True})
    # A private roll counts only in a private answer about yourself: a public one would show the channel its luck.
    mine = await local.command(
        "stats",
        [*user_option(local.actor.user_id), {"name": "private", "type": 5, "value": True}],
        resolved=resolved(local.actor.user_id),
    )
    assert mine.ephemeral and "over 1 rolls" in mine.embed["description"]
    shown = await local.command("stats", user_option(local.actor.user_id), resolved=resolved(local.actor.user_id))
    assert not shown.ephemeral and shown.embed["description"].startswith("No rolls with odds yet")
    theirs = await local.command(
        "stats", user_option(local.actor.user_id), actor=local.as_user(STRANGER), resolved=resolved(local.actor.user_id)
    )
    assert theirs.embed["description"].startswith("No rolls with odds yet")
    assert "luck.png" not in theirs.files


# ---------------------------------------------------------------------------------------------------------
# /history of one character.


async def test_history_of_one_character(local: LocalDiscord) -> None:
    await dnd_character(local, "Kara", {"Longsword": None})
    await dnd_character(local, "Brom", {"Longsword": None})
    await local.command("dnd attack", {"character": "Kara", "target_ac": 10})
    await local.command("dnd attack", {"character": "Brom", "target_ac": 10})
    await local.command("dnd attack", {"character": "Kara", "target_ac": 12})
    kara = await local.command("history", {"character": "Kara"})
    assert kara.embed["title"] == "Latest rolls with Kara"
    assert len(kara.embed["description"].split("\n")) == 2
    everyone = await local.command("history")
    assert len(everyone.embed["description"].split("\n")) == 3


async def test_history_and_stats_suggest_any_ruleset_and_the_chosen_users_characters(local: LocalDiscord) -> None:
    await dnd_character(local, "Kara", {"Longsword": None})
    await local.command("character create", {"ruleset": "aliensrl", "name": "Karl"})
    await local.command("character create", {"ruleset": "sf", "name": "Kato"}, actor=local.as_user(STRANGER))
    everyone = await local.autocomplete("history", {"character": "ka"}, "character")
    assert sorted(c["name"].split(" (")[0] for c in everyone.choices) == ["Kara", "Karl", "Kato"]
    options = [{"name": "user", "type": 6, "value": STRANGER}, {"name": "character", "type": 3, "value": "ka"}]
    theirs = await local.autocomplete("stats", options, "character")
    assert [c["name"].split(" (")[0] for c in theirs.choices] == ["Kato"]


# ---------------------------------------------------------------------------------------------------------
# One read transaction per roll, in every ruleset.


async def test_every_ruleset_reads_a_character_roll_in_as_many_transactions_as_dnd(local: LocalDiscord) -> None:
    """With nothing kept in memory (settings, the channel's fair session), /dnd attack reads everything in one
    read transaction; Star Frontiers and AliensRL took three, and a melee against a character one more."""
    await dnd_character(local, "Kara", {"Longsword": None})
    await local.command("character create", {"ruleset": "sf", "name": "Zix"})
    await local.command("character create", {"ruleset": "sf", "name": "Lean"})
    await local.command("character weapon add", {"character": "Zix", "name": "Laser pistol"})
    await create_vasquez(local, details="type=heavy")
    original = local.bot.database
    reads: list[None] = []

    @asynccontextmanager
    async def counted() -> AsyncIterator[Any]:
        reads.append(None)
        async with original.read() as session:
            yield session

    async def count(command: str, options: dict[str, Any]) -> int:
        local.bot.forget_server_settings(int(local.actor.guild_id))
        local.bot.fair_session_started(int(local.actor.channel_id))  # the channel's session is read again
        local.bot.forget_user_answers(int(local.actor.user_id))
        reads.clear()
        local.bot.database = replace(original, read=counted)
        try:
            exchange = await local.command(command, options)
        finally:
            local.bot.database = original
        assert exchange.rejected == [] and not exchange.ephemeral, exchange.embed
        return len(reads)

    dnd = await count("dnd attack", {"character": "Kara", "target_ac": 10})
    assert await count("sf shoot", {"character": "Zix", "distance": 3, "setting": 1}) == dnd
    assert await count("sf melee", {"character": "Zix", "target": "Lean"}) == dnd
    assert await count("aliens fire", {"character": "Vasquez", "distance": 3}) == dnd


async def test_the_compact_answer_names_the_rule_variants_only_when_the_server_changed_them(
    local: LocalDiscord,
) -> None:
    moderator = local.as_user("200000000000000099", permissions=MANAGER_PERMISSIONS)
    saved = await local.command("settings set", {"setting": "dnd35.confirmation", "value": "nwn"}, actor=moderator)
    assert saved.embed["title"] == "Setting saved", saved.embed
    local.bot.dice = ScriptedDice([12, 5])
    first = await local.command("dnd attack", QUICK)
    assert first.embed["footer"]["text"] == "multipliers add up (seed) · NWN confirmation · /settings"


async def test_the_compact_answer_names_the_defender_when_it_is_a_character(local: LocalDiscord) -> None:
    await dnd_character(local, "Kara", {"Longsword": None})
    await dnd_character(local, "Ogre", {"Longsword": None})  # a new sheet: AC 10
    local.bot.dice = ScriptedDice([12, 5])
    quick = await local.command("dnd attack", {"attack_bonus": 5, "damage": "1d8+3", "target": "Ogre"})
    assert quick.embed["description"].split("\n")[1] == "d20 **12** +5 = **17** vs Ogre's AC 10"
    local.bot.dice = ScriptedDice([15, 6])
    full = await local.command("dnd full-attack", {"character": "Kara", "target": "Ogre"})
    assert full.embed["description"].split("\n")[1] == "1. d20 **15** -4 = **11** vs Ogre's AC 10: hit **6**"
