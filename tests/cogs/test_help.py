"""/help: every command line it teaches runs, in order, through the command tree as a new player would type it."""

from __future__ import annotations

import pytest

from bot.commandline import parse_line
from bot.discord_api import sync_payload
from bot.local.driver import LocalDiscord
from bot.ui.help import BY_KEY, STARTS, Start
from tests.dice_sources import ScriptedDice
from tests.helpers import RED


@pytest.mark.parametrize("start", STARTS, ids=lambda s: s.key)
async def test_every_line_of_the_first_steps_works(local: LocalDiscord, start: Start) -> None:
    schema = sync_payload(local.bot.tree)
    for line in (*start.steps, *([start.quick] if start.quick else [])):
        parsed = parse_line(line, schema)
        exchange = await local.command(parsed.name, parsed.options)
        assert exchange.rejected == [], (line, exchange.requests)
        answer = exchange.embed or {}
        assert answer.get("color") != RED, (line, answer)
        assert exchange.messages or exchange.embed, line


async def test_help_answers_the_asker_with_each_ruleset(local: LocalDiscord) -> None:
    overview = await local.command("help")
    assert overview.ephemeral and overview.rejected == []
    assert [f["name"] for f in overview.embed["fields"]] == [s.title for s in STARTS]
    for start in STARTS:
        one = await local.command("help", {"ruleset": start.key})
        text = one.embed["description"]
        assert one.embed["title"] == f"Getting started: {start.title}"
        assert all(f"`{line}`" in text for line in start.steps) and "Details" in text
        assert len(text.splitlines()) <= 12  # one phone screen


async def test_the_dnd_first_steps_teach_an_attack_the_character_is_trained_for(local: LocalDiscord) -> None:
    # Issue #25: Lira had no proficiency, so the rapier she was taught attacked at -4 with nothing typed. With
    # martial weapons it is BAB +3 and Dex +3 (Weapon Finesse): +6, and no penalty from the sheet.
    schema = sync_payload(local.bot.tree)
    local.bot.dice = ScriptedDice([10, 4])  # type: ignore[attr-defined]
    for line in BY_KEY["dnd35"].steps:
        parsed = parse_line(line, schema)
        exchange = await local.command(parsed.name, parsed.options)
    answer = exchange.embed["description"]
    assert answer.split("\n")[:2] == ["**Hit**: **5** damage", "d20 **10** +6 = **16** vs AC 15"], answer
    assert "From the sheet" not in answer
