"""/roll with the operation written in words, through discord.py's real command tree and the local Discord double."""

from __future__ import annotations

import pytest

from bot.local.driver import LocalDiscord
from tests.dice_sources import NoDice, ScriptedDice


async def test_with_advantage_in_words_rolls_with_advantage_and_says_so(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([4, 17])
    exchange = await local.command("roll", {"expression": "1d20+5 with advantage"})
    embed = exchange.embed
    # The breakdown shows the reading: two d20, the lower struck through; the odds are advantage's.
    assert embed["description"].split("\n")[0] == "1d20adv (~~4~~, 17) + 5 = **22**"
    assert "Odds: mean 18.83" in embed["description"]
    assert embed["footer"]["text"] == "'with advantage' is read as adv: a second d20 is rolled, the higher counts."
    assert embed["title"] == "1d20+5 with advantage"
    assert exchange.rejected == []


async def test_drop_lowest_in_words_drops_it_and_the_rest_is_the_label(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([3, 6, 1, 5])
    exchange = await local.command("roll", {"expression": "4d6 drop lowest Strength"})
    assert exchange.embed["title"] == "Strength"
    assert exchange.embed["description"].startswith("4d6dl1 (3, 6, ~~1~~, 5) = **14**\n")
    assert "'drop lowest' is read as dl1" in exchange.embed["footer"]["text"]


@pytest.mark.parametrize(
    ("expression", "teaches"),
    [
        ("6d10 km3", "keep the highest N with khN"),
        ("4d6 keep the good ones", "Write keep highest 3"),
        ("1d20 + 4d6 drop lowest", "Write dl1 right after the dice it is for"),
    ],
)
async def test_words_that_do_not_say_enough_are_refused_with_a_caret(
    local: LocalDiscord, expression: str, teaches: str
) -> None:
    local.bot.dice = NoDice()
    exchange = await local.command("roll", {"expression": expression})
    assert exchange.ephemeral
    assert exchange.embed["title"] == "Can't roll that"
    assert teaches in exchange.embed["description"]
    assert f"```\n{expression}\n" in exchange.embed["description"]


async def test_odds_read_the_words_too(local: LocalDiscord) -> None:
    exchange = await local.command("odds", {"expression": "2d20 keep highest"})
    assert "mean 13.83" in exchange.embed["description"]
