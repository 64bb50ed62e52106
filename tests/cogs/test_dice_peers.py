"""/roll and /odds with the peers' notations (#30 item 5), through discord.py's real command tree and the double."""

from __future__ import annotations

from bot.local.driver import LocalDiscord
from tests.dice_sources import ScriptedDice


async def test_roll20s_group_keep_keeps_the_highest_dice_and_says_so(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([6, 2, 5, 1, 8, 3, 7])
    exchange = await local.command("roll", {"expression": "{4d6+3d8}k4"})
    assert exchange.rejected == []
    description = exchange.embed["description"]
    # The three lowest of the seven dice are struck through; the total is the four left.
    assert description.split("\n")[0] == "{4d6 (6, ~~2~~, 5, ~~1~~) + 3d8 (8, ~~3~~, 7) = 26}kh4 = **26**"
    assert "keeps the highest 4 of all the group's dice, as in Roll20" in exchange.embed["footer"]["text"]


async def test_the_odds_of_a_group_keep_are_the_kept_dice(local: LocalDiscord) -> None:
    exchange = await local.command("odds", {"expression": "{4d6+3d8}k4"})
    # The highest 4 of 4d6 and 3d8, exact: not the whole sum's mean of 27.5.
    assert exchange.embed["description"].startswith("exact · mean 20.89 · totals 4 to 30\n")
