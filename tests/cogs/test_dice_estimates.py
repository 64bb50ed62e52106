"""Estimated odds through the real command tree: every chance with its interval, and no estimate from a handful."""

from __future__ import annotations

import re

from bot.local.driver import LocalDiscord
from tests.dice_sources import ScriptedDice


async def test_a_sampled_estimate_shows_each_chance_with_its_99_percent_interval(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([6, 2, 5, 4])
    exchange = await local.command("roll", {"expression": "3d6!kh2", "target": 9})
    line = exchange.embed["description"].split("\n")[1]
    assert re.fullmatch(
        r"Odds \(sampled: [\d,]+ rolls, 99% intervals\): mean ≈[\d.]+ \([\d.]+ to [\d.]+\) · "
        r"better than [\d.]+% \([\d.]+–[\d.]+%\) of rolls · [\d.]+% \([\d.]+–[\d.]+%\) roll exactly 11 · "
        r"at least 9: [\d.]+% \([\d.]+–[\d.]+%\)",
        line,
    ), line


async def test_odds_of_an_estimate_say_how_far_the_table_may_be(local: LocalDiscord) -> None:
    exchange = await local.command("odds", {"expression": "3d6!kh2"})
    assert "99% intervals" in exchange.embed["description"]
    assert "each chance within ±" in exchange.embed["description"]
    assert "at 99% confidence" in exchange.embed["description"]
    exchange = await local.command("odds", {"expression": "1000d10000"})
    assert "each chance within ±4.7% for certain" in exchange.embed["description"]


async def test_what_is_too_costly_to_sample_says_so_instead_of_a_handful_of_rolls(local: LocalDiscord) -> None:
    exchange = await local.command("roll", {"expression": "1000d2r1"})
    line = exchange.embed["description"].split("\n")[1]
    assert line == "Odds: too costly to estimate: not even 100 sample rolls fit the budget."
    exchange = await local.command("odds", {"expression": "1000d2r1"})
    assert exchange.rejected == []
    assert exchange.embed["description"] == "too costly to estimate: not even 100 sample rolls fit the budget"
