"""The short answer of a D&D attack names every penalty the sheet brought unasked (issue #25), within a phone screen."""

from __future__ import annotations

import discord

from bot.local.driver import LocalDiscord
from bot.ui.embeds import PHONE_LINES, phone_lines
from tests.dice_sources import ScriptedDice


async def fighter(local: LocalDiscord, name: str, values: str) -> None:
    assert (await local.command("character create", {"ruleset": "dnd35", "name": name})).rejected == []
    saved = await local.command("character set", {"character": name, "values": values})
    assert saved.embed["title"] == "Saved", saved.embed
    assert (await local.command("character weapon add", {"character": name, "name": "Longsword"})).rejected == []


async def test_a_short_attack_answer_names_the_penalties_nobody_typed(local: LocalDiscord) -> None:
    # Str 14 (+2), BAB +6, full plate and a tower shield worn without any proficiency, a martial longsword too:
    # -4 not proficient, -6 and -10 check penalties, -2 for the tower shield: +6 +2 -22 = -14.
    await fighter(local, "Bram", "str=14 bab=6 armor='full plate' shield='tower shield'")
    local.bot.dice = ScriptedDice([18])
    attack = await local.command("dnd attack", {"character": "Bram", "target_ac": 15})
    lines = attack.embed["description"].split("\n")
    assert lines[:3] == [
        "**Miss**",
        "d20 **18** -14 = **4** vs AC 15",
        "From the sheet: -4 not proficient, -6 armor check (not proficient), -10 shield check (not proficient), "
        "-2 tower shield",
    ], lines
    assert not attack.embed.get("fields")  # the rest still waits behind Details
    assert phone_lines(discord.Embed.from_dict(attack.embed)) <= PHONE_LINES


async def test_a_proficient_unarmored_attack_has_no_such_line(local: LocalDiscord) -> None:
    await fighter(local, "Aria", "str=16 bab=6 weapon_groups=martial")
    local.bot.dice = ScriptedDice([12, 5])
    attack = await local.command("dnd attack", {"character": "Aria", "target_ac": 15})
    lines = attack.embed["description"].split("\n")
    assert lines[1] == "d20 **12** +9 = **21** vs AC 15" and not any("From the sheet" in line for line in lines)


async def test_a_short_full_attack_names_them_once(local: LocalDiscord) -> None:
    await fighter(local, "Cato", "str=10 bab=11")  # three attacks, each -4 without the martial proficiency
    local.bot.dice = ScriptedDice([2, 2, 2])
    full = await local.command("dnd full-attack", {"character": "Cato", "target_ac": 30})
    lines = full.embed["description"].split("\n")
    assert lines[1:5] == [
        "1. d20 **2** +7 = **9** vs AC 30: miss",
        "2. d20 **2** +2 = **4** vs AC 30: miss",
        "3. d20 **2** -3 = **-1** vs AC 30: miss",
        "From the sheet: -4 not proficient",
    ], lines
