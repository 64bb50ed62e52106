"""The tracker's known gaps of #28, closed: each attack of a turned full attack reads its own target's conditions,
a delay passes whoever cannot act as Next does, and `stable` goes when a dying combatant is healed."""

from __future__ import annotations

import pytest

from bot.db.engine import Database
from bot.local.driver import LocalDiscord
from bot.rules.fair_log import LogRoll, check_log, filename, parse_log
from tests.dice_sources import NoDice, ScriptedDice
from tests.helpers import conditions, ok, start_fair, state, stored, whose_turn

pytestmark = pytest.mark.usefixtures("full_answers")


async def ogre_and_two(local: LocalDiscord) -> None:
    """An ogre with a full attack, and Lira and Bram on the players' side (quick creatures, no initiative yet)."""
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    ogre = {"name": "Ogre", "hp": 30, "ac": 13, "initiative": 5, "attacks": "greatclub +8/+3 2d8+7"}
    ok(await local.command("encounter add", ogre))
    ok(await local.command("encounter add", {"name": "Lira", "hp": 6, "ac": 14, "side": "party"}))
    ok(await local.command("encounter add", {"name": "Bram", "hp": 12, "ac": 12, "side": "party"}))


async def test_a_turned_full_attack_meets_the_next_target_at_its_own_ac_not_the_prone_first_ones(
    local: LocalDiscord, database: Database
) -> None:
    await ogre_and_two(local)
    ok(await local.command("encounter condition", {"combatant": "Lira", "name": "prone"}))
    # +8: d20 10 = 18 hits the prone Lira (AC 14 - 4 in melee), 2d8 1 1 + 7 = 9: 6 → -3, dying. +3: d20 8 = 11
    # against Bram, who stands: his AC 12, a miss. Read with Lira's prone -4 it would be AC 8 and a hit, and the
    # script has no damage dice left for it.
    local.bot.dice = ScriptedDice([10, 1, 1, 8])
    attack = await local.command("encounter attack", {"attacker": "Ogre", "target": "Lira"})
    at = {field["name"]: field["value"] for field in attack.embed["fields"]}
    assert "vs flat-footed AC 10 → hit" in at["1. attack 2d8+7 (+8) at Lira"], at
    assert "vs flat-footed AC 12 → miss" in at["2. attack 2d8+7 (+3) at Bram"], at
    assert state(await stored(database)) == [("Ogre", 30), ("Lira", -3), ("Bram", 12)]


async def given_order(local: LocalDiscord, *names: str) -> None:
    """A D&D fight of quick creatures with given initiatives, in the order named (Hero on the players' side)."""
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    for place, name in enumerate(names):
        side = {"side": "party"} if name == "Hero" else {}
        ok(await local.command("encounter add", {"name": name, "hp": 10, "ac": 12, "rolled": 20 - 5 * place, **side}))
    local.bot.dice = NoDice()
    ok(await local.command("encounter next"))  # initiative as given: the first named has the turn


async def test_a_delay_passes_whoever_cannot_act_as_next_would(local: LocalDiscord, database: Database) -> None:
    await given_order(local, "Hero", "Imp", "Orc", "Wolf")
    ok(await local.command("encounter condition", {"combatant": "Imp", "name": "stunned", "rounds": 1}))
    ok(await local.command("encounter hp", {"combatant": "Orc", "amount": "=-3"}))
    local.bot.dice = ScriptedDice([50])  # the dying Orc's d%: not stable, -3 → -4
    delayed = await local.command("encounter delay")
    said = ok(delayed)["description"]
    assert "Passed: Imp (stunned); Orc (dying, d% 50: -3 → -4 hp)" in said, said
    fight = await stored(database)
    assert whose_turn(fight) == (1, "Wolf")
    assert state(fight) == [("Imp", 10), ("Orc", -4), ("Wolf", 10), ("Hero", 10)]
    assert conditions(fight.combatants[0]) == []  # its one round of stun went with the turn it lost


async def test_a_stable_combatant_healed_is_no_longer_stable_and_rolls_again_when_it_falls_again(
    local: LocalDiscord, database: Database
) -> None:
    await given_order(local, "Hero", "Orc")
    ok(await local.command("encounter hp", {"combatant": "Orc", "amount": "=-3"}))
    local.bot.dice = ScriptedDice([5])  # d% 05: stable
    ok(await local.command("encounter next"))  # Hero ends: the Orc is passed, stable; round 2, Hero
    [orc] = [c for c in (await stored(database)).combatants if c.name == "Orc"]
    assert (orc.hp, conditions(orc)) == (-3, [("stable", None)])
    ok(await local.command("encounter hp", {"combatant": "Orc", "amount": "+5"}))
    [orc] = [c for c in (await stored(database)).combatants if c.name == "Orc"]
    assert (orc.hp, conditions(orc)) == (2, [])
    ok(await local.command("encounter hp", {"combatant": "Orc", "amount": "-5"}))  # dying again: its d% again
    local.bot.dice = ScriptedDice([50])
    passing = await local.command("encounter next")
    assert "Orc (dying, d% 50: -3 → -4 hp)" in passing.messages[0]["embeds"][0]["description"]
    assert ("Orc", -4) in state(await stored(database))


async def test_a_dying_combatant_s_d_percent_comes_from_the_channel_s_fair_session(local: LocalDiscord) -> None:
    local.bot.dice = NoDice()  # every die comes from the session's seed
    # A seed of its own, so that the d% is always the same: under a random one, an Orc stable on its first d%
    # (one time in ten) rolled no second.
    local.bot.fair_seeds = lambda: bytes(range(32))
    commitment = await start_fair(local)
    await given_order(local, "Hero", "Orc")  # fair roll #1: initiative (given, so no die)
    ok(await local.command("encounter hp", {"combatant": "Orc", "amount": "=-3"}))
    passing = await local.command("encounter next")  # Hero ends: the dying Orc's d%, fair roll #2
    embed = ok(passing)
    assert f"Fair roll #2 · commitment {commitment[:16]}…" in (embed.get("footer") or {}).get("text", ""), embed
    ok(await local.command("encounter next"))  # Hero ends again: the Orc's d% again, fair roll #3
    revealed = await local.command("fair reveal")
    data = revealed.files[filename(commitment)]
    rolls = [r for r in parse_log(data).rolls if isinstance(r, LogRoll)]
    dying = [r for r in rolls if r.kind == "encounter.dying"]
    assert [(r.roll, r.command, r.inputs["dying"]) for r in dying] == [
        (2, "encounter next", ["Orc"]),
        (3, "encounter next", ["Orc"]),
    ]
    assert dying[0].summary is not None and dying[0].summary.startswith("Dying d%, Cave round "), dying[0].summary
    face = dying[0].outcome["faces"][0]
    assert f"Orc (dying, d% {face}:" in embed["description"], embed
    checked = check_log(parse_log(data))
    assert checked.ok, checked.lines
    assert any(line.startswith("roll 2: ok, /encounter next replayed") for line in checked.lines), checked.lines
