"""/roll through discord.py's real command tree, answered to the local Discord double."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from bot.db.engine import Database
from bot.db.models import RollLog
from bot.local.driver import LocalDiscord
from tests.dice_sources import NoDice, ScriptedDice


def outcome(embed: dict[str, object]) -> str:
    """The first line of an answer: the breakdown and the total (the odds line comes next)."""
    description = embed["description"]
    assert isinstance(description, str)
    return description.split("\n")[0]


async def test_seeded_roll_shows_every_die_and_the_total_in_bold(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([3, 6, 1, 5])
    exchange = await local.command("roll", {"expression": "4d6kh3+2", "label": "Strength score"})
    embed = exchange.embed
    assert embed["title"] == "Strength score"
    assert embed["author"]["name"] == "Player0001 rolls"
    # 4d6kh3 is 14 here: 836 of its 1296 outcomes are lower (64.5%), 160 equal (12.3%).
    assert embed["description"] == (
        "4d6kh3 (3, 6, ~~1~~, 5) + 2 = **16**\nOdds: mean 14.24 · better than 64.5% of rolls · 12.3% roll exactly 16"
    )
    assert exchange.response["type"] == 4
    assert not exchange.ephemeral
    assert exchange.rejected == []


async def test_without_label_the_title_is_the_expression_as_typed(local: LocalDiscord) -> None:
    exchange = await local.command("roll", {"expression": "d20adv + 5"})
    assert exchange.embed["title"] == "d20adv + 5"
    assert exchange.embed["description"].startswith("1d20adv (")


async def test_private_roll_is_ephemeral(local: LocalDiscord) -> None:
    exchange = await local.command("roll", {"expression": "1d20", "private": True})
    assert exchange.ephemeral
    assert exchange.embed["author"]["name"] == "Player0001 rolls"


async def test_multiplication_is_escaped_for_markdown(local: LocalDiscord) -> None:
    exchange = await local.command("roll", {"expression": "(1d4+1)*2"})
    assert " \\* 2 = **" in exchange.embed["description"]


@pytest.mark.parametrize(
    ("expression", "named_limit"),
    [
        ("1001d6", "the limit is 1000"),
        ("100000d100000", "between 1 and 10000 sides"),
        ("1d0", "between 1 and 10000 sides"),
        ("1d10001", "between 1 and 10000 sides"),
        ("600d6+500d6", "the limit is 1000"),
        ("1d6!>0", "every face"),
    ],
)
async def test_caps_are_refused_fast_with_a_message_naming_the_limit(
    local: LocalDiscord, expression: str, named_limit: str
) -> None:
    local.bot.dice = NoDice()  # refused before any die is rolled (how fast: python -m tests.perf.bench_offloop)
    exchange = await local.command("roll", {"expression": expression})
    assert exchange.ephemeral
    assert exchange.embed["title"] == "Can't roll that"
    assert named_limit in exchange.embed["description"]


async def test_exploding_dice_stop_at_the_extra_roll_cap_and_say_so(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([2] * 1001)
    exchange = await local.command("roll", {"expression": "1d2!"})
    assert exchange.embed["footer"]["text"] == "Exploding and rerolled dice stopped at the limit of 1000 extra rolls."
    assert outcome(exchange.embed).endswith("= **2002**")
    assert exchange.embed["description"].endswith("better than >99.9% of rolls · <0.1% roll exactly 2002")
    assert exchange.rejected == []


async def test_a_huge_pool_still_fits_the_embed(local: LocalDiscord) -> None:
    exchange = await local.command("roll", {"expression": "1000d10000"})
    assert exchange.rejected == []  # the double checked Discord's embed limits
    assert "(1000 dice: " in exchange.embed["description"]


async def test_parse_error_points_at_the_position(local: LocalDiscord) -> None:
    exchange = await local.command("roll", {"expression": "2d6 + (1d4"})
    description = exchange.embed["description"]
    assert exchange.ephemeral
    assert description.startswith("Unexpected end of expression at character 11. Expected +, -, *, / or ')' to close")
    assert "```\n2d6 + (1d4\n          ^\n```" in description


async def test_every_roll_is_logged(local: LocalDiscord, database: Database) -> None:
    exchange = await local.command("roll", {"expression": "2d6", "label": "damage", "private": True})
    async with database.read() as session:
        [row] = (await session.scalars(select(RollLog))).all()
    assert row.interaction_id == int(exchange.payload["id"])
    assert row.user_id == int(local.actor.user_id)
    assert row.channel_id == int(local.actor.channel_id)
    assert row.command == "roll"
    assert row.inputs == {"expression": "2d6", "label": "damage", "private": True}
    assert row.private is True
    assert row.result["total"] == int(exchange.embed["description"].split("**")[1])
    assert [d["face"] for d in row.result["tree"]["dice"]] == [
        int(f) for f in exchange.embed["description"].split("(")[1].split(")")[0].split(", ")
    ]


async def test_refused_rolls_are_not_logged(local: LocalDiscord, database: Database) -> None:
    await local.command("roll", {"expression": "1d"})
    async with database.read() as session:
        assert (await session.scalars(select(RollLog))).all() == []


async def test_roll_over_the_gateway(connected: LocalDiscord) -> None:
    exchange = await connected.command("roll", {"expression": "3d6"})
    assert exchange.embed["description"].startswith("3d6 (")
    assert connected.double.identify_count == 1


async def test_roll_again_rolls_the_same_expression_for_the_roller_only(
    local: LocalDiscord, database: Database
) -> None:
    local.bot.dice = ScriptedDice([2, 5, 6, 6])
    first = await local.command("roll", {"expression": "2d6+1", "label": "damage"})
    [row] = local.original(first)["components"]
    again_id = f"again:{first.payload['id']}"
    assert [b["custom_id"] for b in row["components"]] == [again_id]  # one line: nothing more to detail
    stranger = await local.click(local.original(first), again_id, actor=local.as_user("200000000000000002"))
    assert stranger.ephemeral and stranger.embed["title"] == "Not your roll"
    again = await local.click(local.original(first), again_id)
    assert again.response["type"] == 4  # a new answer, the first one stays as it was
    assert again.embed["title"] == "damage"
    assert outcome(again.embed) == "2d6 (6, 6) + 1 = **13**"
    async with database.read() as session:
        rows = (await session.scalars(select(RollLog).order_by(RollLog.id))).all()
    assert [(r.command, r.inputs) for r in rows] == [("roll", {"expression": "2d6+1", "label": "damage"})] * 2
    assert rows[1].interaction_id == int(again.payload["id"])


async def test_roll_again_works_on_private_and_long_rolls(local: LocalDiscord) -> None:
    private = await local.command("roll", {"expression": "1d6", "private": True})
    again = await local.click(local.original(private), f"again:{private.payload['id']}")
    assert again.ephemeral and again.embed["description"].startswith("1d6 (")
    long = "+".join(["1d4"] * 50)  # the expression no longer has to fit in the button's custom id
    first = await local.command("roll", {"expression": long})
    repeated = await local.click(local.original(first), f"again:{first.payload['id']}")
    assert repeated.embed["description"].startswith("1d4 (")


# ------------------------------------------------------------------ the dialects of other dice bots (issue 17)


@pytest.mark.parametrize(
    ("expression", "faces", "description"),
    [
        ("4d6/2", [3, 4, 5, 1], "4d6 (3, 4, 5, 1) / 2 = **6**"),  # 13 / 2 rounds down
        ("(1d8+3)/2", [4], "(1d8 (4) + 3) / 2 = **3**"),
        ("4d6k3", [3, 6, 1, 5], "4d6kh3 (3, 6, ~~1~~, 5) = **14**"),
        ("4d6 k3", [3, 6, 1, 5], "4d6kh3 (3, 6, ~~1~~, 5) = **14**"),
        ("4d6d1", [3, 6, 1, 5], "4d6dl1 (3, 6, ~~1~~, 5) = **14**"),
        ("1d20+5 adv", [7, 15], "1d20adv (~~7~~, 15) + 5 = **20**"),
        ("d20+3 dis", [7, 15], "1d20dis (7, ~~15~~) + 3 = **10**"),
        ("1d8[slashing] + 2d6[fire]", [5, 2, 6], "1d8 (5) \\[slashing\\] + 2d6 (2, 6) \\[fire\\] = **13**"),
        ("6d10 t7", [7, 3, 10, 1, 6, 9], "6d10t7 (**7**, 3, **10**, 1, 6, **9**) → 3 successes = **3**"),
        ("5d10 t8 f1", [8, 1, 2, 9, 1], "5d10t8f1 (**8**, __1__, 2, **9**, __1__) → 0 successes = **0**"),
        ("3d6>3", [3, 2, 6], "3d6t3 (**3**, 2, **6**) → 2 successes = **2**"),  # Roll20: >3 is 3 or more
        ("4dF", [-1, 0, 1, 1], "4dF (-1, 0, 1, 1) = **1**"),
        ("{4d6, 3d8}kh1", [1, 2, 3, 4, 8, 8, 8], "{~~4d6 (1, 2, 3, 4) = 10~~, 3d8 (8, 8, 8) = 24}kh1 = **24**"),
        ("1d20e20", [20, 20, 3], "1d20! (20!, 20!, 3) = **43**"),
        ("2d6rr1", [1, 1, 4, 5], "2d6r1 (~~1~~, 4, ~~1~~, 5) = **9**"),
        ("8d6mi2", [1, 2, 3, 4, 5, 6, 1, 1], "8d6mi2 (2, 2, 3, 4, 5, 6, 2, 2) = **26**"),
        ("5d6!!", [6, 2, 1, 1, 1, 6, 1], "5d6!! (13!, 2, 1, 1, 1) = **18**"),
        ("1d6!p", [6, 6, 3], "1d6!p (6!, 5!, 2) = **13**"),
        ("0d6", [], "0d6 () = **0**"),
        ("1d1", [1], "1d1 (1) = **1**"),
        ("5d10!>8", [8, 2, 3, 4, 5, 1], "5d10!>=8 (8!, 1, 2, 3, 4, 5) = **23**"),
    ],
)
async def test_other_bots_notations_roll_with_their_meaning(
    local: LocalDiscord, expression: str, faces: list[int], description: str
) -> None:
    dice = ScriptedDice(faces)
    local.bot.dice = dice
    exchange = await local.command("roll", {"expression": expression})
    assert exchange.rejected == []
    assert not exchange.ephemeral, exchange.embed
    assert outcome(exchange.embed) == description
    assert exchange.embed["description"].split("\n")[1].startswith("Odds: mean ")
    assert dice.exhausted


async def test_text_after_the_roll_is_its_label(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([12])
    exchange = await local.command("roll", {"expression": "1d20+5 Roll for Initiative"})
    assert exchange.embed["title"] == "Roll for Initiative"
    assert outcome(exchange.embed) == "1d20 (12) + 5 = **17**"
    local.bot.dice = ScriptedDice([3, 4])
    exchange = await local.command("roll", {"expression": "2d6 ! fire damage"})
    assert exchange.embed["title"] == "fire damage"


async def test_several_rolls_at_once_each_have_a_total(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([12, 3, 4])
    exchange = await local.command("roll", {"expression": "1d20+5; 2d6+3"})
    assert exchange.embed["description"] == (  # compact: the totals and the first roll's odds
        "Totals: **17**, **10**\n"
        "Odds of the first roll (1d20 + 5): mean 15.50 · better than 55.0% of rolls · 5.0% roll exactly 17"
    )
    local.bot.dice = ScriptedDice([3, 6, 1, 5] * 6)
    exchange = await local.command("roll", {"expression": "6 4d6k3", "label": "Abilities"})
    assert exchange.embed["description"].startswith("Totals: " + ", ".join(["**14**"] * 6))
    assert "k3 keeps the highest 3" in exchange.embed["footer"]["text"]


async def test_the_reading_used_is_said_where_bots_disagree(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([3, 6, 1, 5])
    exchange = await local.command("roll", {"expression": "4d6k3"})
    assert "Avrae's k3 keeps dice showing 3: write k=3" in exchange.embed["footer"]["text"]


@pytest.mark.parametrize(
    ("expression", "teaches"),
    [
        ("3d6xo", "write ! to explode"),
        ("1d20advantage", "Write adv"),
        ("1d20+5 3 goblins", "use the label: option"),
        ("10d20r<20", "write r<19, or Avrae's rr<20"),
        ("2d20+1 adv", "this roll has 0"),
    ],
)
async def test_errors_teach_the_spelling_that_works(local: LocalDiscord, expression: str, teaches: str) -> None:
    local.bot.dice = NoDice()
    exchange = await local.command("roll", {"expression": expression})
    assert exchange.ephemeral
    assert teaches in exchange.embed["description"]


async def test_the_largest_rolls_still_fit_discords_limits(local: LocalDiscord) -> None:
    for expression in ("20 " + "+".join(["50d6!"] * 1), "10 100d10000", "1d2!; " * 9 + "1d2!"):
        exchange = await local.command("roll", {"expression": expression})
        assert exchange.rejected == [], expression


# ------------------------------------------------------------------------------------ the odds of every roll


async def test_target_shows_the_exact_chance_to_reach_it(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([4, 5])
    exchange = await local.command("roll", {"expression": "2d6+1", "target": 9})
    # 2d6 is 9 here: 26 of its 36 outcomes are lower, 4 equal; 15 reach 8 (41.7%).
    assert exchange.embed["description"] == (
        "2d6 (4, 5) + 1 = **10**\n"
        "Odds: mean 8.00 · better than 72.2% of rolls · 11.1% roll exactly 10 · at least 9: 41.7%"
    )


async def test_target_counts_successes_for_a_success_roll(local: LocalDiscord) -> None:
    local.bot.dice = ScriptedDice([7, 3, 10])
    exchange = await local.command("roll", {"expression": "3d10 t7", "target": 2})
    # Each die succeeds with 4/10: two or more of three is 3 * 0.16 * 0.6 + 0.064 = 35.2%.
    line = exchange.embed["description"].split("\n")[1]
    assert line == "Odds: mean 1.20 · better than 64.8% of rolls · 28.8% roll exactly 2 · at least 2 successes: 35.2%"


async def test_an_estimate_is_marked_with_how_close_it_is(local: LocalDiscord) -> None:
    exchange = await local.command("roll", {"expression": "1000d10000"})
    line = exchange.embed["description"].split("\n")[1]
    assert line.startswith("Odds (normal approximation, Berry-Esseen bounds): mean 5000500.00 · better than ")
    exchange = await local.command("roll", {"expression": "3d6!kh2"})
    line = exchange.embed["description"].split("\n")[1]
    assert line.startswith("Odds (sampled: ") and " rolls, 99% intervals): mean ≈" in line


async def test_the_odds_draw_no_die_of_the_roll(local: LocalDiscord) -> None:
    dice = ScriptedDice([3, 6, 1, 5])
    local.bot.dice = dice
    exchange = await local.command("roll", {"expression": "4d6k3", "target": 15})
    assert dice.exhausted  # the four faces of the roll, no more: the odds are counted from the expression
    assert exchange.embed["description"].endswith("at least 15: 23.1%")  # 300 of 1296 outcomes
    exchange = await local.command("roll", {"expression": "3d6!kh2"})  # sampled, on the estimate's own dice
    assert exchange.rejected == []


async def test_odds_posts_the_chart_and_the_at_least_table(local: LocalDiscord, database: Database) -> None:
    local.bot.dice = NoDice()  # /odds rolls nothing
    exchange = await local.command("odds", {"expression": "4d6k3", "target": 15})
    assert exchange.rejected == []
    embed = exchange.embed
    assert embed["title"] == "Odds of 4d6k3"
    lines = embed["description"].split("\n")
    assert lines[0] == "exact · mean 12.24 · totals 3 to 18"
    assert lines[1] == "At least 15: **23.1%**"
    assert lines[3].split() == ["total", "chance", "at", "least"]
    assert lines[4].split() == ["3", "0.1%", "100.0%"]
    assert lines[-2].split() == ["18", "1.6%", "1.6%"]
    assert embed["image"]["url"] == "attachment://odds.png"
    [png] = exchange.files.values()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    async with database.read() as session:
        assert (await session.scalars(select(RollLog))).all() == []  # and logs nothing


async def test_odds_of_a_huge_spread_fits_the_embed_in_bins(local: LocalDiscord) -> None:
    exchange = await local.command("odds", {"expression": "1000d10000!", "private": True})
    assert exchange.rejected == []
    assert exchange.ephemeral
    rows = exchange.embed["description"].split("```")[1].strip().split("\n")
    assert 10 < len(rows) <= 31
    assert rows[1].split()[1:3] == ["or", "less"]  # the low tail folded
    assert "-" in rows[2]  # then bins of totals


async def test_odds_refuses_what_roll_refuses(local: LocalDiscord) -> None:
    exchange = await local.command("odds", {"expression": "1d6!>0"})
    assert exchange.ephemeral
    assert exchange.embed["title"] == "Can't roll that"


async def test_odds_of_several_rolls_say_which_roll_they_are_about(local: LocalDiscord) -> None:
    exchange = await local.command("odds", {"expression": "1d20+5; 2d6"})
    assert exchange.embed["description"].startswith("Of the first roll: exact · mean 15.50 · totals 6 to 25\n")
    exchange = await local.command("odds", {"expression": "6 4d6k3"})
    assert exchange.embed["description"].startswith("Of each roll: exact · mean 12.24 · totals 3 to 18\n")
