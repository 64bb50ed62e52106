"""Room for options: no command comes within 3 of Discord's 25 options or within 500 of its 8,000 characters.

Discord refuses a sync past 25 options on a command (or subcommand) and past 8,000 characters per top-level
command, counted over the names, descriptions and choices of the command, its groups and its subcommands. A
command at the cap cannot take the next rule a table asks for, so the house keeps room: this walks the bot's
real command tree, as a sync would send it, and counts independently of `bot.local.limits`.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

import pytest
from sqlalchemy import update

from bot.db.engine import Database
from bot.db.models import Macro, RollLog
from bot.discord_api import sync_payload
from bot.local.driver import Exchange, LocalDiscord
from bot.rules import dnd35 as dnd
from bot.rules import replay
from bot.rules.dnd35 import replay as dnd_replay
from bot.rules.fair import FairDice
from tests.dice_sources import NoDice, ScriptedDice
from tests.helpers import RED, button, fields, logged

MOST_OPTIONS = 22  # Discord's 25, less 3 of room
MOST_CHARACTERS = 7_500  # Discord's 8,000, less 500 of room
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2


def characters(node: dict[str, Any]) -> int:
    """Discord's count for one command, group, subcommand or option: name, description, choices, its options."""
    total = max([len(node["name"]), *(len(n) for n in (node.get("name_localizations") or {}).values())])
    total += max(
        [len(node.get("description") or ""), *(len(d) for d in (node.get("description_localizations") or {}).values())]
    )
    for choice in node.get("choices") or []:
        shown = max([len(choice["name"]), *(len(n) for n in (choice.get("name_localizations") or {}).values())])
        total += shown + len(str(choice["value"]))
    return total + sum(characters(option) for option in node.get("options") or [])


def option_counts(node: dict[str, Any], path: str) -> dict[str, int]:
    """Every command and subcommand under `node`, by its path, with how many options it takes."""
    options = node.get("options") or []
    nested = [o for o in options if o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)]
    if not nested:
        return {path: len(options)}
    counts: dict[str, int] = {}
    for sub in nested:
        counts.update(option_counts(sub, f"{path} {sub['name']}"))
    return counts


def test_the_count_is_discords() -> None:
    command = {
        "name": "sf",  # 2
        "description": "Star",  # 4
        "options": [
            {
                "name": "shoot",  # 5
                "description": "Fire",  # 4
                "type": SUB_COMMAND,
                "options": [
                    {"name": "hands", "description": "Which", "type": 3, "choices": [{"name": "one", "value": "1"}]},
                ],  # 5 + 5 + 3 + 1
            }
        ],
    }
    assert characters(command) == 2 + 4 + 5 + 4 + 5 + 5 + 3 + 1
    assert option_counts(command, "/sf") == {"/sf shoot": 1}
    near = {"name": "x", "description": "d" * 7_499}
    assert characters(near) == 7_500


def test_every_command_leaves_room_for_three_options_and_500_characters(local: LocalDiscord) -> None:
    payload = sync_payload(local.bot.tree)
    assert len(payload) > 10  # the real tree, every cog loaded
    crowded: list[str] = []
    for command in payload:
        used = characters(command)
        if used > MOST_CHARACTERS:
            crowded.append(f"/{command['name']}: {used} of 8,000 characters (at most {MOST_CHARACTERS:,})")
        for path, count in option_counts(command, "/" + command["name"]).items():
            if count > MOST_OPTIONS:
                crowded.append(f"{path}: {count} of 25 options (at most {MOST_OPTIONS})")
    assert crowded == []


# ---------------------------------------------------------------------------------------------------------
# /dnd's `situation`: the SRD's combat modifiers as words (§2, §5, §6 item 7), through the slash path, dice forced.

QUICK = {"attack_bonus": 5, "damage": "1d8+3", "target_ac": 15}


def steps(exchange: Exchange) -> str:
    return "\n".join([exchange.embed.get("description", ""), *fields(exchange).values()])


async def attack(local: LocalDiscord, faces: list[int], **options: Any) -> Exchange:
    local.bot.dice = ScriptedDice(faces)
    made = await local.command("dnd attack", {**QUICK, **options})
    assert made.embed.get("color") != RED, made.embed
    assert local.bot.dice.exhausted, "every forced face was drawn"
    return made


@pytest.mark.usefixtures("full_answers")
@pytest.mark.parametrize(
    ("situation", "face", "shown"),
    [
        # AB +5 +2 = +7 against AC 15: an 8 hits only with the charge.
        ("charge", 8, "Attack bonus +7 = +5 attack bonus (given) +2 charge (§2)"),
        ("higher ground", 9, "Attack bonus +6 = +5 attack bonus (given) +1 higher ground (§2)"),
        ("flanking +1", 7, "Attack bonus +8 = +5 attack bonus (given) +2 flanking (§2) +1 situational (given)"),
    ],
)
async def test_an_attack_roll_modifier_is_a_term_of_the_bonus(
    local: LocalDiscord, situation: str, face: int, shown: str
) -> None:
    hit = await attack(local, [face, 4], situation=situation)
    assert shown in steps(hit), steps(hit)
    assert "→ hit" in steps(hit)
    missed = await attack(local, [face - 1], situation=situation)
    assert "→ miss" in steps(missed)


@pytest.mark.usefixtures("full_answers")
@pytest.mark.parametrize(
    ("situation", "ac", "shown"),
    [
        ("cover", 19, "AC 19 = 15 +4 cover"),
        ("improved cover", 23, "AC 23 = 15 +8 improved cover"),
        ("prone", 11, "AC 11 = 15 -4 prone"),  # in melee
        ("prone ranged", 19, "AC 19 = 15 +4 prone"),
        ("helpless", 11, "AC 11 = 15 -4 helpless"),
        ("helpless ranged", 15, "AC 15 = 15 +0 helpless"),
    ],
)
async def test_an_ac_modifier_moves_the_defenders_ac(local: LocalDiscord, situation: str, ac: int, shown: str) -> None:
    hit = await attack(local, [ac - 5, 4], situation=situation)  # d20 + 5 meets the AC exactly
    text = steps(hit)
    assert shown in text and f"vs AC {ac} → hit" in text, text
    missed = await attack(local, [ac - 6], situation=situation)
    assert f"vs AC {ac} → miss" in steps(missed)


@pytest.mark.usefixtures("full_answers")
async def test_concealment_rolls_a_d100_after_a_hit(local: LocalDiscord) -> None:
    # d20 15 hits; the d100 of 20 is within concealment's 20%: a miss, and no damage is rolled.
    missed = await attack(local, [15, 20], situation="concealment")
    text = steps(missed)
    assert missed.embed["description"].startswith("**Miss**: concealment"), text
    assert "concealment 20%: d100 **20** → miss" in text
    stood = await attack(local, [15, 21, 6], situation="concealment")
    assert "concealment 20%: d100 **21** → the hit stands" in steps(stood)
    assert "Damage **9**" in steps(stood)
    total = await attack(local, [15, 50], situation="total concealment")
    assert "concealment 50%: d100 **50** → miss" in steps(total)
    # A miss on the d20 rolls no d100.
    await attack(local, [2], situation="total concealment")


@pytest.mark.usefixtures("full_answers")
async def test_concealment_stops_sneak_attack_dice(local: LocalDiscord) -> None:
    made = await attack(local, [15, 90, 6], situation="concealment flanking", precision="3d6")
    text = steps(made)
    assert "precision damage (sneak attack) does nothing" in text and "Damage **9**" in text, text


@pytest.mark.usefixtures("full_answers")
async def test_a_helpless_characters_dex_counts_as_zero(local: LocalDiscord) -> None:
    await local.command("character create", {"ruleset": "dnd35", "name": "Sleeper"})
    for field, value in (("dexterity", "16"), ("armor_bonus", "4")):
        await local.command("character set", {"character": "Sleeper", "field": field, "value": value})
    # AC 10 + 4 armor + 3 Dex = 17; helpless: 10 + 4 - 5 = 9, -4 against melee: 5.
    made = await attack(local, [1], target_ac=None, target="Sleeper", situation="helpless")
    text = steps(made)
    assert "Helpless AC 9 = 10 + 4 armor - 5 Dex 0 (helpless)" in text, text
    assert "Helpless AC 5 = 9 -4 helpless" in text, text


async def test_a_word_it_does_not_know_gets_a_caret(local: LocalDiscord) -> None:
    local.bot.dice = NoDice()
    refused = await local.command("dnd attack", {**QUICK, "situation": "flanking charj"})
    assert refused.ephemeral and refused.embed["color"] == RED
    description = refused.embed["description"]
    assert description.startswith("`situation`: Not a situation word: 'charj' at character 10."), description
    assert description.endswith("```\nflanking charj\n         ^\n```")
    clash = await local.command("dnd odds", {**QUICK, "situation": "cover improved cover"})
    assert clash.embed["color"] == RED and clash.embed["description"].endswith(
        "```\ncover improved cover\n      ^\n```"
    )
    ranged = await local.command("dnd attack", {**QUICK, "situation": "charge ranged"})
    assert ranged.embed["color"] == RED and "melee attacks" in ranged.embed["description"]


async def test_situation_autocomplete_completes_the_last_word(local: LocalDiscord) -> None:
    offered = (await local.autocomplete("dnd attack", {"situation": "flanking hi"}, focused="situation")).choices
    assert [c["value"] for c in offered] == ["flanking higher ground"]
    offered = (await local.autocomplete("dnd full-attack", {"situation": "cover "}, focused="situation")).choices
    values = [c["value"] for c in offered]
    assert "cover charge" in values and "cover improved cover" in values and "cover cover" not in values


# ---------------------------------------------------------------------------------------------------------
# Rolls made with the options `situation` replaced keep their meaning: Roll again, saved rolls, fair logs.

OLD_ATTACK = {**QUICK, "flanking": True, "modifier": 2, "into_melee": False}


async def roll_again(local: LocalDiscord, database: Database, logged_as: dict[str, Any], faces: list[int]) -> Exchange:
    local.bot.dice = ScriptedDice([2])
    first = await local.command("dnd attack", QUICK)
    async with database.engine.begin() as connection:
        await connection.execute(update(RollLog).values(inputs=logged_as))
    message = local.original(first)
    again = button(message, "Roll again")
    assert again is not None
    local.bot.dice = ScriptedDice(faces)
    return await local.click(message, again)


@pytest.mark.usefixtures("full_answers")
async def test_roll_again_reads_an_attack_logged_with_the_old_options(local: LocalDiscord, database: Database) -> None:
    again = await roll_again(local, database, OLD_ATTACK, [11, 4])
    text = steps(again)
    assert "Attack bonus +9 = +5 attack bonus (given) +2 flanking (§2) +2 situational (given)" in text, text
    refused = await roll_again(local, database, {**OLD_ATTACK, "bravado": True}, [])
    assert refused.embed["color"] == RED
    assert refused.embed["description"] == "`/dnd attack` no longer takes `bravado`: type the roll afresh."


@pytest.mark.usefixtures("full_answers")
async def test_a_roll_saved_with_the_old_options_runs_as_the_same_roll(local: LocalDiscord, database: Database) -> None:
    async with database.write.begin() as session:
        session.add(
            Macro(
                guild_id=int(local.actor.guild_id or 0),
                user_id=int(local.actor.user_id),
                name="stab",
                name_key="stab",
                command="dnd attack",
                line="/dnd attack attack_bonus:5 damage:1d8+3 target_ac:15 "
                "flanking:true sneak_attack:false modifier:-1",
                created_at=datetime(2026, 1, 1, tzinfo=UTC),
            )
        )
        session.add(
            Macro(
                guild_id=int(local.actor.guild_id or 0),
                user_id=int(local.actor.user_id),
                name="snipe",
                name_key="snipe",
                command="sf shoot",
                line="/sf shoot score:40 skill:1 damage:1d10 distance:short "
                "prone:true telescopic_sight:true modifier:3",
                created_at=datetime(2026, 1, 1, tzinfo=UTC),
            )
        )
    local.bot.dice = ScriptedDice([10, 4])
    ran = await local.command("macro run", {"name": "stab"})
    assert "Attack bonus +6 = +5 attack bonus (given) +2 flanking (§2) -1 situational (given)" in steps(ran)
    local.bot.dice = ScriptedDice([99])
    shot = await local.command("macro run", {"name": "snipe"})
    assert shot.embed.get("color") != RED, shot.embed
    text = steps(shot)
    assert "10. Target prone **-5**" in text and "13. Situational **+3**" in text, text
    assert "the telescopic sight moves it to point blank" in text


async def test_a_fair_log_with_the_old_options_still_checks(local: LocalDiscord, database: Database) -> None:
    started = await local.command("fair start")
    assert not started.ephemeral
    made = await local.command("dnd attack", {**QUICK, "situation": "flanking +2"})
    assert made.embed.get("color") != RED, made.embed
    shot = await local.command(
        "sf shoot", {"score": 40, "skill": 1, "damage": "1d10", "distance": "short", "situation": "prone sight -5"}
    )
    assert shot.embed.get("color") != RED, shot.embed
    rows = {row.proof["kind"]: row.proof["input"] for row in await logged(database) if row.fair_roll is not None}
    # As the roll log of an older version typed them: today's reading of them agrees with the input...
    assert replay.disagreement("dnd.attack", rows["dnd.attack"], OLD_ATTACK) is None
    old_shot = {"score": 40, "skill": 1, "damage": "1d10", "range": "short", "prone": True, "telescopic_sight": True}
    assert replay.disagreement("sf.shoot", rows["sf.shoot"], {**old_shot, "modifier": -5}) is None
    # ... and a forged one does not.
    forged = replay.disagreement("dnd.attack", rows["dnd.attack"], {**OLD_ATTACK, "flanking": False})
    assert forged is not None and "option `situation`" in forged, forged
    forged = replay.disagreement("sf.shoot", rows["sf.shoot"], {**old_shot, "modifier": 5})
    assert forged is not None and "option `situation`" in forged, forged


# ---------------------------------------------------------------------------------------------------------
# The rules core: the modifiers priced exactly, against an independent enumeration, and replayed by fair logs.

SITUATIONS = [
    "charge cover concealment",
    "higher ground improved cover total concealment",
    "prone ranged concealment",
    "helpless flanking +3",
    "prone",
    "total concealment",
]


def enumerated(ab: int, ac: int, threat: int, sides: int, bonus: int, miss_chance: int) -> dict[int, Fraction]:
    """Damage -> chance of a quick 1d`sides`+`bonus` x2 attack, face by face: d20, then the d100, then confirm."""
    chances: dict[int, Fraction] = {}

    def add(total: int, chance: Fraction) -> None:
        chances[total] = chances.get(total, Fraction(0)) + chance

    def hit(face: int) -> bool:
        return face == 20 or (face != 1 and face + ab >= ac)

    for face in range(1, 21):
        if not hit(face):
            add(0, Fraction(1, 20))
            continue
        for percent in range(1, 101):
            chance = Fraction(1, 20 * 100)
            if percent <= miss_chance:
                add(0, chance)
                continue
            for confirm in range(1, 21):
                rolls = 2 if face >= threat and hit(confirm) else 1
                for faces in itertools.product(range(1, sides + 1), repeat=rolls):
                    add(max(sum(faces) + rolls * bonus, 1), chance / 20 / sides**rolls)
    return chances


@pytest.mark.parametrize("text", SITUATIONS)
def test_the_odds_of_a_situation_are_an_exact_count(text: str) -> None:
    situation = dnd.parse_situation(text).apply(dnd.Situation())
    attack = dnd.quick_attack(6, "1d4+1", 16, situation, crit="19-20/x2")
    chances = dnd.odds(attack)
    assert chances.exact
    expected = enumerated(attack.attack_bonus, attack.target.ac, 19, 4, 1, attack.miss_chance)
    assert chances.damage == {total: chance for total, chance in expected.items() if chance}
    assert chances.expected_damage == sum(total * chance for total, chance in expected.items())
    assert chances.hit == 1 - expected.get(0, Fraction(0))  # nothing here deals 0 on a hit


def test_the_terms_and_the_ac_of_each_word() -> None:
    def built(text: str, **more: Any) -> dnd.Attack:
        return dnd.quick_attack(5, "1d8", 15, dnd.parse_situation(text).apply(dnd.Situation(**more)))

    assert built("charge").attack_bonus == 7 and built("higher ground").attack_bonus == 6
    assert [built(w).target.ac for w in ("cover", "improved cover", "prone", "helpless")] == [19, 23, 11, 11]
    assert [built(w).target.ac for w in ("prone ranged", "helpless ranged", "cover ranged")] == [19, 15, 19]
    assert built("helpless").target.denied_dex and not built("prone").target.denied_dex
    assert (built("concealment").miss_chance, built("total concealment").miss_chance) == (20, 50)
    assert built("concealment", precision=(dnd.Dice(3, 6),)).precision == ()
    with pytest.raises(dnd.AttackError, match="melee"):
        built("higher ground ranged")


def test_a_concealed_roll_replays_from_its_log_and_an_old_log_still_does() -> None:
    seed = bytes(range(32))
    attack = dnd.quick_attack(30, "1d8", 10, dnd.parse_situation("total concealment").apply(dnd.Situation()))
    inputs = dnd_replay.DndAttackRoll(attack, dnd.Variants())
    for number in range(1, 6):
        proof = replay.roll(dnd_replay.DND_ATTACK, inputs, FairDice(seed, number))
        again = replay.replay("dnd.attack", proof.inputs, seed, number)
        assert again.outcome == proof.outcome
        if proof.outcome["d20"] != 1:  # a hit: the d100 is drawn and logged
            assert 1 <= proof.outcome["concealment_d100"] <= 100
    # An attack without them is logged as before they existed (so its fair log's seal is the same), and reads back.
    plain = replay.encode(dnd_replay.DndAttackRoll(dnd.quick_attack(5, "1d8", 15), dnd.Variants()))
    assert "miss_chance" not in plain["attack"] and "adjustments" not in plain["attack"]["target"]
    assert replay.encode(inputs)["attack"]["miss_chance"] == 50
    proof = replay.roll(dnd_replay.DND_ATTACK, replay.decode(dnd_replay.DndAttackRoll, plain), FairDice(seed, 1))
    assert "concealment_d100" not in proof.outcome
    assert replay.replay("dnd.attack", plain, seed, 1).outcome == proof.outcome


def test_a_situation_reads_its_words_and_refuses_the_rest() -> None:
    read = dnd.parse_situation("High-Ground, flanked  sneak -2")
    assert str(read) == "flanking higher ground sneak attack -2"
    for text, at in (("cover +1 +2", 9), ("concealment total concealment", 12), ("+101", 0), ("x", 0)):
        with pytest.raises(dnd.SituationError) as refused:
            dnd.parse_situation(text)
        assert refused.value.position == at, (text, refused.value.message)


@pytest.mark.usefixtures("full_answers")
async def test_a_full_attack_and_the_odds_take_the_situation_too(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([12, 10, 15, 5])  # +11 hits, the d100 10 misses; +6 hits, the d100 5 misses
    full = await local.command(
        "dnd full-attack",
        {"attack_bonus": "+11/+6", "damage": "1d8", "target_ac": 14, "situation": "cover concealment"},
    )
    assert full.embed.get("color") != RED, full.embed
    text = steps(full)
    assert text.count("concealment 20%: d100 **") == 2 and "vs AC 18 → hit" in text, text
    assert "AC 18 = 14 +4 cover (§5)" in text, text
    # AB +5 against AC 15 + 4: a d20 of 14 or more hits (7 in 20), and 4 in 5 of those get through concealment.
    odds = await local.command("dnd odds", {**QUICK, "situation": "cover concealment"})
    assert "Hit **28.0%**" in odds.embed["description"], odds.embed
    assert "Concealment: a hit misses on a d100 of 20 or less" in fields(odds)["The situation"]


async def test_a_shots_situation_gets_a_caret_and_completes(local: LocalDiscord) -> None:
    local.bot.dice = NoDice()
    shot = {"score": 40, "skill": 1, "damage": "1d10", "distance": "short"}
    refused = await local.command("sf shoot", {**shot, "situation": "prone cover"})
    assert refused.ephemeral and refused.embed["color"] == RED
    assert refused.embed["description"].startswith("`situation`: Not a situation word: 'cover' at character 7.")
    assert refused.embed["description"].endswith("```\nprone cover\n      ^\n```")
    offered = (await local.autocomplete("sf odds shoot", {"situation": "prone s"}, focused="situation")).choices
    assert [c["value"] for c in offered] == ["prone telescopic sight"]  # a word that holds what was typed
