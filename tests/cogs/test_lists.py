"""Lists page instead of clipping, wide tables keep their columns, and members are offered what they may use.

Every list the bot answers with (/character list, /macro list, /history) shows a page that fits a phone screen and
Page buttons for the rest, which are rebuilt from their custom id after a restart; a private list's pages turn
for its asker only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import discord

from bot.client import DiceBot
from bot.discord_api import sync_payload
from bot.local.driver import LocalDiscord, local_discord
from bot.local.limits import validate_command_set
from bot.local.payloads import Actor, Snowflakes
from bot.rules.luck import Row
from bot.ui.embeds import PHONE_LINES
from cogs.stats import table
from tests.helpers import BOB as STRANGER
from tests.helpers import ROOT, button, height, pages

SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
GUILD_CONTEXT = 0


def test_the_stats_table_keeps_its_columns_past_100000_expected_damage() -> None:
    rows = [
        Row("hit", observed=61_234, expected=60_000.5, variance=24_000.0, rolls=100_000),
        Row("damage", observed=412_345, expected=398_765.25, variance=9_000_000.0, rolls=100_000),
    ]
    lines = table(rows).strip("`\n").splitlines()
    header, *body = lines
    # Every cell is right-aligned to the end of its header, and two spaces at least part the columns.
    ends = [header.index(name) + len(name) for name in ("observed", "expected")] + [len(header)]
    for line in body:
        assert len(line) == len(header)
        for end, cell in zip(ends, line.split()[-3:], strict=True):
            assert line[end - len(cell) : end] == cell and line[end - len(cell) - 2 : end - len(cell)] == "  "
    assert "398,765.25" in body[1] and "412,345" in body[1]


def command_paths(payload: list[dict[str, Any]]) -> list[list[str]]:
    """Every command a member can run, as its path of names: `/roll`, `/character weapon add`, ..."""

    def walk(prefix: list[str], options: list[dict[str, Any]]) -> list[list[str]]:
        found = [o for o in options if o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)]
        if not found:
            return [prefix]
        return [path for o in found for path in walk([*prefix, o["name"]], o.get("options", []))]

    return [path for command in payload for path in walk([command["name"]], command.get("options", []))]


def readme_rows() -> dict[str, set[str]]:
    """The README's command table: each row's command, with every word of its cell's code spans."""
    rows: dict[str, set[str]] = {}
    for line in (ROOT / "README.md").read_text().splitlines():
        if not line.startswith("| `/"):
            continue
        spans = re.findall(r"`([^`]*)`", line.split("|")[1])
        words = {word.removeprefix("/") for span in spans for word in span.split() if not word.startswith("[")}
        rows[spans[0].split()[0].removeprefix("/")] = words
    return rows


async def test_the_readme_command_table_names_every_command_and_subcommand(local: LocalDiscord) -> None:
    rows = readme_rows()
    missing = [
        "/" + " ".join(path)
        for path in command_paths(sync_payload(local.bot.tree))
        if path[0] not in rows or not set(path[1:]) <= rows[path[0]]
    ]
    assert missing == []


async def test_the_edit_form_says_what_a_field_takes_in_the_bots_own_words(local: LocalDiscord) -> None:
    await local.command("character create", {"ruleset": "dnd35", "name": "Lira"})
    form = (await local.command("character edit", {"character": "Lira"})).modal
    refused = await local.submit(form, {"strength": "strong", "bab": "1.5"})
    assert refused.ephemeral and refused.embed["title"] == "Not a valid character"
    assert refused.embed["description"] == (
        "`strength` takes a whole number from 1 to 99, not `strong`.\n"
        "`bab` takes a whole number from 0 to 60, not `1.5`."
    )
    assert "Input should" not in str(refused.embed)


SERVER_ONLY = {"character", "encounter", "macro", "stats", "house-rules", "settings"}


async def test_moderator_commands_are_offered_to_manage_server_only(local: LocalDiscord) -> None:
    payload = sync_payload(local.bot.tree)
    assert validate_command_set(payload) == []  # the bit set is a string of digits, as the API schema has it
    offered = {c["name"]: c.get("default_member_permissions") for c in payload}
    assert offered.pop("settings") == str(discord.Permissions(manage_guild=True).value)
    assert set(offered.values()) == {None}  # every other command is every member's
    [settings] = [c for c in payload if c["name"] == "settings"]
    assert {o["name"] for o in settings["options"]} == {"set", "gm-channel", "gm-role"}
    # An admin may grant the group to anyone under Integrations: each subcommand still checks Manage Server.
    for refused in (
        await local.command("settings set", {"setting": "aliensrl.ring", "value": "angband"}),
        await local.command("settings gm-role"),
    ):
        assert refused.ephemeral and refused.embed["title"] == "Not allowed"
    # What members use stays theirs: the settings to read, and their own answers.
    assert (await local.command("house-rules")).embed["title"].startswith("Rules settings of this server")
    assert "now start **full**" in (await local.command("answers", {"start": "full"})).embed["description"]


async def test_server_only_commands_are_not_offered_in_direct_messages(local: LocalDiscord) -> None:
    payload = {c["name"]: c for c in sync_payload(local.bot.tree)}
    assert {name for name, c in payload.items() if c.get("dm_permission", True) is False} == SERVER_ONLY
    assert all(payload[name]["contexts"] == [GUILD_CONTEXT] for name in SERVER_ONLY)
    # A user's own choice of answers is for every server, so it is offered in a direct message too.
    direct = Actor(user_id=local.actor.user_id, guild_id=None, channel_id=local.actor.channel_id)
    chosen = await local.command("answers", {"start": "short"}, actor=direct)
    assert chosen.rejected == [] and "now start **short**" in chosen.embed["description"]


def described(page: dict[str, Any]) -> list[str]:
    return str(page.get("description", "")).splitlines()


async def test_macro_list_pages_every_saved_roll_and_only_for_its_asker(
    local: LocalDiscord, make_bot: Callable[[], DiceBot]
) -> None:
    for n in range(30):
        await local.command("macro save", {"name": f"attack{n:02}", "command": f"/roll expression:1d20+{n}"})
    listed = await local.command("macro list")
    assert listed.ephemeral and height(listed.embed) <= PHONE_LINES
    shown = await pages(local, listed)
    assert len(shown) > 1 and all(height(page) <= PHONE_LINES for page in shown)
    assert shown[0]["title"] == f"Your saved rolls (30 of 50) · 1/{len(shown)}"
    names = [line.split("**")[1] for page in shown for line in described(page)]
    assert names == [f"attack{n:02}" for n in range(30)]  # every one, in order, none twice
    message = local.original(listed)
    back = button(message, f"Page {len(shown) - 1}")
    assert back is not None
    refused = await local.click(message, back, actor=local.as_user(STRANGER))
    assert refused.ephemeral and refused.embed["title"] == "Not yours"
    # Another process on the same database turns the page: the button names all it needs.
    async with local_discord(make_bot, ids=Snowflakes(1767225600000 + 86_400_000)) as restarted:
        clicked = await restarted.click(message, back)
    assert clicked.response["type"] == 7
    assert clicked.response["data"]["embeds"][0]["title"] == shown[-2]["title"]


async def test_character_list_pages_every_character(local: LocalDiscord, make_bot: Callable[[], DiceBot]) -> None:
    for n in range(24):
        await local.command("character create", {"ruleset": "aliensrl" if n % 2 else "dnd35", "name": f"Hero {n:02}"})
    listed = await local.command("character list")
    assert listed.ephemeral and height(listed.embed) <= PHONE_LINES
    shown = await pages(local, listed)
    assert len(shown) > 1 and all(height(page) <= PHONE_LINES for page in shown)
    entries = [entry.split(" (#")[0] for page in shown for f in page["fields"] for entry in f["value"].splitlines()]
    assert sorted(entries) == [f"Hero {n:02}" for n in range(24)] and len(set(entries)) == 24
    message = local.original(listed)
    back = button(message, f"Page {len(shown) - 1}")
    assert back is not None
    refused = await local.click(message, back, actor=local.as_user(STRANGER))
    assert refused.ephemeral and refused.embed["title"] == "Not yours"
    async with local_discord(make_bot, ids=Snowflakes(1767225600000 + 86_400_000)) as restarted:
        clicked = await restarted.click(message, back)
    assert clicked.response["data"]["embeds"][0]["title"] == shown[-2]["title"]


async def test_history_pages_every_roll_asked_for(local: LocalDiscord, make_bot: Callable[[], DiceBot]) -> None:
    for n in range(25):
        await local.command("roll", {"expression": f"1d20+{n}", "label": f"Attempt number {n:02} at the gate"})
    asked = await local.command("history", {"count": 25})
    assert asked.ephemeral and height(asked.embed) <= PHONE_LINES
    shown = await pages(local, asked)
    assert len(shown) > 1 and all(height(page) <= PHONE_LINES for page in shown)
    rolls = [entry for page in shown for entry in described(page)]
    assert len(rolls) == 25 and all("/roll" in entry and "[jump](" in entry for entry in rolls)
    assert all(page["footer"]["text"] == "Private rolls are never listed." for page in shown)
    message = local.original(asked)
    back = button(message, f"Page {len(shown) - 1}")
    assert back is not None
    refused = await local.click(message, back, actor=local.as_user(STRANGER))
    assert refused.ephemeral and refused.embed["title"] == "Not yours"
    async with local_discord(make_bot, ids=Snowflakes(1767225600000 + 86_400_000)) as restarted:
        clicked = await restarted.click(message, back)
    assert clicked.response["data"]["embeds"][0]["description"] == shown[-2]["description"]
