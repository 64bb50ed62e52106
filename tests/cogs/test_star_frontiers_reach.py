"""Star Frontiers and AliensRL rules the commands now reach (#16 items 8-11), through the command tree."""

from __future__ import annotations

from typing import Any

import pytest

from bot.local.driver import Exchange, LocalDiscord
from tests.dice_sources import NoDice, ScriptedDice
from tests.helpers import RED, fields, sf_character

pytestmark = pytest.mark.usefixtures("full_answers")
QUICK = {"score": 40, "skill": 1, "distance": "point_blank"}


def shown(exchange: Exchange) -> str:
    embed = exchange.embed
    return "\n".join([embed.get("title", ""), embed.get("description", ""), *fields(exchange).values()])


async def roll(local: LocalDiscord, command: str, faces: list[int], options: dict[str, Any]) -> Exchange:
    dice = ScriptedDice(faces)
    local.bot.dice = dice
    exchange = await local.command(command, options)
    assert exchange.embed["color"] != RED, exchange.embed
    assert dice.exhausted, (dice.calls, faces)
    return exchange


async def test_an_albedo_suit_halves_a_lasers_damage_on_its_wearer(local: LocalDiscord) -> None:
    await sf_character(local, "Kim", (("Laser pistol", ""),))
    await sf_character(local, "Sathar", defenses="albedo suit")
    # 05 hits; 2 SEU: 2d10 = 7 + 8 = 15, halved by the suit to 7 (the half point dropped).
    shot = await roll(
        local, "sf shoot", [5, 7, 8], {"character": "Kim", "distance": 5, "setting": 2, "target": "Sathar"}
    )
    assert "albedo suit halves laser damage" in shown(shot), shown(shot)
    assert "15 → **7**" in shown(shot), shown(shot)


async def test_a_quick_target_wears_what_target_names(local: LocalDiscord) -> None:
    halved = await roll(local, "sf shoot", [5, 6, 7], {**QUICK, "damage": "2d10 ballistic", "target": "skeinsuit"})
    assert "skeinsuit" in shown(halved) and "13 → **6**" in shown(halved), shown(halved)
    stopped = await roll(local, "sf shoot", [5], {**QUICK, "damage": "1d10 needle", "target": "skeinsuit"})
    assert "stop" in shown(stopped).casefold(), shown(stopped)
    local.bot.dice = NoDice()
    bad = await local.command("sf shoot", {**QUICK, "damage": "2d10 plasma"})
    assert bad.embed["color"] == RED and bad.embed["description"].startswith("`damage`: "), bad.embed


async def test_a_stun_rolls_the_targets_avoidance_against_its_stamina(local: LocalDiscord) -> None:
    await sf_character(local, "Kim", (("Electrostunner", ""),))
    await sf_character(local, "Sathar", current_stamina=30)
    # 05 hits; the electrostunner on stun does no damage; Sathar's d100 60 is over its Stamina 30: out 7 turns.
    stunned = await roll(
        local, "sf shoot", [5, 60, 7], {"character": "Kim", "distance": 5, "setting": "stun", "target": "Sathar"}
    )
    text = shown(stunned)
    assert "60" in text and "30" in text and "7" in text and "stun" in text.casefold(), text
    local.bot.dice = NoDice()
    no_stamina = await local.command("sf shoot", {"character": "Kim", "distance": 5, "setting": "stun"})
    assert no_stamina.embed["color"] == RED, no_stamina.embed


async def test_melee_needs_reach_and_martial_arts_is_a_quick_mode_attack(local: LocalDiscord) -> None:
    local.bot.dice = NoDice()
    far = await local.command("sf melee", {"score": 40, "skill": 1, "damage": "1d10", "distance": 3})
    assert far.embed["color"] == RED
    assert far.embed["description"] == "Melee needs the fighters within 2 m of each other (§5), not 3 m."
    near = await roll(local, "sf melee", [99], {"score": 40, "skill": 1, "damage": "1d10", "distance": 1.5})
    assert "Reach" in fields(near), fields(near)
    martial = await roll(local, "sf melee", [99], {"score": 40, "skill": 2, "damage": "1d10", "martial_arts": True})
    assert "martial arts" in shown(martial), shown(martial)


async def test_the_odds_of_a_shot_take_its_target(local: LocalDiscord) -> None:
    odds = await local.command("sf odds shoot", {**QUICK, "damage": "2d10 laser", "target": "albedo suit"})
    plain = await local.command("sf odds shoot", {**QUICK, "damage": "2d10 laser"})
    assert odds.embed["color"] != RED, odds.embed
    # The same chance to hit; the suit halves the expected damage (half of 11 on a hit, rounded down each time).
    assert odds.embed["description"].split("\n")[0] == plain.embed["description"].split("\n")[0]
    assert odds.embed["description"] != plain.embed["description"]


async def test_a_crowded_aliensrl_shot_can_stray_into_a_being(local: LocalDiscord) -> None:
    aim = {"skill_rank": 0, "distance": 12, "intervening": True}
    odds = await local.command("aliens odds", {**aim, "crowded": True})
    plain = await local.command("aliens odds", aim)
    assert odds.embed["color"] != RED and plain.embed["color"] != RED, odds.embed
    assert odds.embed != plain.embed
