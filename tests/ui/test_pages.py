"""Phone first: every answer's pages fit a phone screen (about 25 lines of 38 characters), the rest behind buttons.

Long breakdowns (a two-weapon full attack, an AliensRL burst, a Star Frontiers shot), a D&D sheet and
/house-rules are laid out in pages of whole steps; the Page buttons find what they show in the store, so they
keep working after a restart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord
from sqlalchemy import select

from bot.client import DiceBot
from bot.db.engine import Database
from bot.db.models import RollLog
from bot.local.driver import Exchange, LocalDiscord, local_discord
from bot.local.payloads import Snowflakes
from bot.ui.embeds import PHONE_LINES, paged, phone_lines
from tests.dice_sources import ScriptedDice
from tests.helpers import BOB as STRANGER
from tests.helpers import GM, button, create_vasquez, height, pages, secret_ogre

TWO_WEAPONS = {"character": "Duo", "target_ac": 16, "weapon": "Longsword", "off_hand_weapon": "Short sword"}


async def two_weapon_fighter(local: LocalDiscord) -> None:
    await local.command("character create", {"ruleset": "dnd35", "name": "Duo"})
    values = "bab=6 str=16 dex=15 twf=yes hp=40/40"
    assert (await local.command("character set", {"character": "Duo", "values": values})).embed["title"] == "Saved"
    await local.command("character set", {"character": "Duo", "field": "weapon_groups", "value": "martial"})
    for weapon in ("Longsword", "Short sword"):
        await local.command("character weapon add", {"character": "Duo", "name": weapon})


async def details(local: LocalDiscord, exchange: Exchange) -> dict[str, Any]:
    """Press Details under a roll's short answer: the message then shows the first page."""
    message = local.original(exchange)
    details_id = button(message, "Details")
    assert details_id is not None
    await local.click(message, details_id)
    return local.original(exchange)


async def logged_full(database: Database) -> list[dict[str, Any]]:
    async with database.read() as session:
        row = (await session.scalars(select(RollLog).order_by(RollLog.id.desc()))).first()
    assert row is not None and row.details is not None
    fields: list[dict[str, Any]] = row.details["full"]["fields"]
    return fields


def test_a_phone_line_holds_38_characters_and_markdown_marks_take_none() -> None:
    embed = discord.Embed(title="x" * 38, description="**" + "y" * 39 + "**\nshort")
    embed.add_field(name="Field", value="<@200000000000000002> " + "z" * 30)
    assert phone_lines(embed) == 1 + 2 + 1 + 1 + 2


def test_pages_take_whole_fields_in_order_and_the_footer_goes_last() -> None:
    embed = discord.Embed(title="Long", description="first")
    for n in range(8):
        embed.add_field(name=f"Step {n}", value="\n".join(["a line"] * 6), inline=False)
    embed.set_footer(text="the footer")
    laid_out = paged(embed)
    assert [page.title for page in laid_out] == ["Long · 1/3", "Long · 2/3", "Long · 3/3"]
    assert [f.name for page in laid_out for f in page.fields] == [f.name for f in embed.fields]
    assert all(phone_lines(page) <= PHONE_LINES for page in laid_out)
    assert [page.footer.text for page in laid_out] == [None, None, "the footer"]
    assert laid_out[0].description == "first" and laid_out[1].description is None


async def test_a_two_weapon_full_attack_pages_its_details(local: LocalDiscord, database: Database) -> None:
    await two_weapon_fighter(local)
    local.bot.dice = ScriptedDice([15, 5, 4, 12, 3])
    attack = await local.command("dnd full-attack", TWO_WEAPONS)
    assert height(attack.embed) <= PHONE_LINES
    first = await details(local, attack)
    assert first["embeds"][0]["title"] == "Duo: full attack with Longsword · 1/2"
    assert [c["label"] for row in first["components"] for c in row["components"]] == ["Roll again", "Less", "Page 2"]
    shown = await pages(local, attack)
    assert len(shown) == 2 and all(height(page) <= PHONE_LINES for page in shown)
    # The pages are the whole breakdown, step by step: nothing cut, nothing repeated.
    assert [f for page in shown for f in page["fields"]] == await logged_full(database)
    back = local.original(attack)
    assert [c["label"] for row in back["components"] for c in row["components"]] == ["Roll again", "Less", "Page 1"]
    # Someone else sees a page privately; the roller's message stays where it is.
    peek = await local.click(back, button(back, "Page 1") or "", actor=local.as_user(STRANGER))
    assert peek.ephemeral and peek.embed["title"].endswith("· 1/2")
    assert local.original(attack)["embeds"][0]["title"].endswith("· 2/2")


async def test_page_buttons_work_after_a_restart(
    local: LocalDiscord, make_bot: Callable[[], DiceBot], database: Database
) -> None:
    await two_weapon_fighter(local)
    local.bot.dice = ScriptedDice([15, 5, 4, 12, 3])
    attack = await local.command("dnd full-attack", TWO_WEAPONS)
    message = await details(local, attack)
    page_2 = button(message, "Page 2")
    assert page_2 is not None
    # Another process on the same database, which never saw the roll: the button names it, the log has it.
    async with local_discord(make_bot, ids=Snowflakes(1767225600000 + 86_400_000)) as restarted:
        clicked = await restarted.click(message, page_2)
    assert clicked.response["type"] == 7
    page = clicked.response["data"]["embeds"][0]
    full = await logged_full(database)
    assert page["title"].endswith("· 2/2") and page["fields"] == full[len(full) - len(page["fields"]) :]


async def test_an_aliens_burst_and_a_star_frontiers_shot_fit_in_pages(local: LocalDiscord) -> None:
    await create_vasquez(local, details="type=heavy shots=4")
    burst = await local.command("aliens fire", {"character": "Vasquez", "dx": 9, "dy": 3, "intervening": True})
    await details(local, burst)
    shown = await pages(local, burst)
    assert len(shown) > 1 and all(height(page) <= PHONE_LINES for page in shown)
    await local.command("character create", {"ruleset": "sf", "name": "Zix"})
    await local.command("character weapon add", {"character": "Zix", "name": "Laser pistol"})
    local.bot.dice = ScriptedDice([12])
    shot = await local.command("sf shoot", {"character": "Zix", "distance": 30, "setting": 2})
    await details(local, shot)
    assert all(height(page) <= PHONE_LINES for page in await pages(local, shot))


async def test_a_dnd_sheet_shows_one_screen_and_the_rest_behind_buttons(local: LocalDiscord) -> None:
    await two_weapon_fighter(local)
    shown = await local.command("character show", {"character": "Duo"})
    assert height(shown.embed) <= PHONE_LINES and button(local.original(shown), "Page 2") is not None
    sheet = await pages(local, shown, actor=local.as_user(STRANGER))  # anyone may turn a public sheet's pages
    assert all(height(page) <= PHONE_LINES for page in sheet)
    sections = [f["name"] for page in sheet for f in page["fields"]]
    assert sections[0] == "Abilities" and "Weapons" in sections and sections[-1] == "Derived"


async def test_a_sheet_made_secret_after_it_was_shown_turns_no_page_for_the_table(local: LocalDiscord) -> None:
    ogre = await secret_ogre(local)
    gm = local.as_user(GM)
    await local.command("character secret", {"character": ogre, "secret": False}, actor=gm)
    shown = await local.command("character show", {"character": ogre})  # public, with its Page 2 button
    page_2 = button(local.original(shown), "Page 2")
    assert not shown.ephemeral and page_2 is not None
    await local.command("character secret", {"character": ogre}, actor=gm)
    peek = await local.click(local.original(shown), page_2)
    # A secret is not named to a player any more (tests/crossings/test_leaks.py): for them it is gone.
    assert peek.ephemeral and peek.embed["description"] == "This character was deleted."
    assert "Health" not in str(peek.embed)
    own = await local.click(local.original(shown), page_2, actor=gm)
    assert own.ephemeral and own.embed["title"].endswith("· 2/2")  # privately: the message is the channel's
    assert local.original(shown)["embeds"][0]["title"].endswith("· 1/2")


async def test_settings_show_fits_in_pages(local: LocalDiscord) -> None:
    shown = await local.command("house-rules")
    laid_out = await pages(local, shown)
    assert len(laid_out) > 1 and all(height(page) <= PHONE_LINES for page in laid_out)
