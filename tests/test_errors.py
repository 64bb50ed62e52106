"""The error funnel: every failure reaches the user as an ephemeral red embed, bugs are logged once."""

from __future__ import annotations

import asyncio
import io
import json
import logging

import discord
import pytest
from discord import app_commands

from bot import logs
from bot.errors import UserError
from bot.local.driver import LocalDiscord
from bot.tree import APOLOGY


def _add(local: LocalDiscord, command: app_commands.Command) -> None:  # type: ignore[type-arg]
    local.bot.tree.add_command(command)


async def test_a_bug_gets_an_apology_and_one_log_line(local: LocalDiscord, caplog: pytest.LogCaptureFixture) -> None:
    @app_commands.command(name="broken", description="Always fails")
    async def broken(interaction: discord.Interaction, value: str) -> None:
        raise ZeroDivisionError("boom")

    _add(local, broken)
    with caplog.at_level(logging.ERROR):
        exchange = await local.command("broken", {"value": "x"})
    assert exchange.ephemeral
    assert exchange.embed["description"] == APOLOGY
    assert exchange.embed["color"] == discord.Colour.red().value
    records = [r for r in caplog.records if r.name == "bot.tree"]
    assert len(records) == 1
    assert records[0].getMessage() == "Unhandled error in /broken with options {'value': 'x'}"
    assert isinstance(records[0].exc_info[1], ZeroDivisionError)  # type: ignore[index]


async def test_a_user_error_after_the_response_goes_in_a_followup(local: LocalDiscord) -> None:
    @app_commands.command(name="late", description="Answers, then fails")
    async def late(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("first")
        raise UserError("That character does not exist.", title="Not found")

    _add(local, late)
    exchange = await local.command("late")
    followup = exchange.requests[-1]
    assert followup.method == "POST" and followup.path.startswith("/webhooks/")
    assert followup.body["flags"] & 64
    assert followup.body["embeds"][0]["title"] == "Not found"


async def test_missing_permission_is_explained(local: LocalDiscord) -> None:
    @app_commands.command(name="admin", description="Managers only")
    @app_commands.checks.has_permissions(manage_guild=True)
    async def admin(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("ok")

    _add(local, admin)
    exchange = await local.command("admin", actor=local.as_user("200000000000000009", permissions="0"))
    assert exchange.embed["description"] == "This needs the Manage Guild permission."


async def test_the_double_enforces_the_three_second_deadline(
    local: LocalDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    local.double.ack_deadline = 0.05

    @app_commands.command(name="slow", description="Answers too late")
    async def slow(interaction: discord.Interaction) -> None:
        await asyncio.sleep(0.2)
        await interaction.response.send_message("too late")

    _add(local, slow)
    with caplog.at_level(logging.WARNING):
        exchange = await local.command("slow")
    [late] = exchange.rejected  # and the funnel does not try again on a dead interaction
    assert late.status == 404 and late.path.endswith("/callback")
    assert [r.getMessage() for r in caplog.records if r.name == "bot.tree"] == [
        "/slow missed Discord's 3-second deadline for a first response"
    ]


async def test_nul_characters_in_typed_text_are_harmless(local: LocalDiscord, caplog: pytest.LogCaptureFixture) -> None:
    """PostgreSQL refuses text with NUL in it; typed text never reaches a query with one (fuzzing found this)."""
    shown = await local.command("character weapon remove", {"character": "\x00", "name": "0"})
    assert shown.ephemeral and shown.embed["title"] == "No such character", shown.embed
    suggested = await local.autocomplete("dnd attack", {"character": "a\x00b"}, "character")
    assert suggested.choices == []
    assert "Unhandled error" not in caplog.text and "Ignoring exception" not in caplog.text


@pytest.mark.parametrize("form", ["plain", "json"])
async def test_a_bugs_log_line_names_the_server_channel_user_and_interaction(local: LocalDiscord, form: str) -> None:
    @app_commands.command(name="broken", description="Always fails")
    async def broken(interaction: discord.Interaction, value: str) -> None:
        raise ZeroDivisionError("boom")

    _add(local, broken)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(logs.Where())
    handler.setFormatter(logs.JsonLines() if form == "json" else logging.Formatter("{message}{where}", style="{"))
    logger = logging.getLogger("bot.tree")
    logger.addHandler(handler)
    try:
        exchange = await local.command("broken", {"value": "x"})
    finally:
        logger.removeHandler(handler)
    sent = exchange.payload
    ids = {
        "guild": int(sent["guild_id"]),
        "channel": int(sent["channel_id"]),
        "user": int(sent["member"]["user"]["id"]),
        "interaction": int(sent["id"]),
    }
    written = stream.getvalue()
    if form == "json":
        (line,) = [json.loads(line) for line in written.splitlines()]
        assert {k: line[k] for k in ids} == ids
        assert line["level"] == "ERROR" and line["message"].startswith("Unhandled error in /broken")
        assert "ZeroDivisionError: boom" in line["exception"]
    else:
        first = written.splitlines()[0]
        where = " ".join(f"{k}={v}" for k, v in ids.items())
        assert first == f"Unhandled error in /broken with options {{'value': 'x'}} [{where}]"
    assert "\x1b[" not in written  # no colour codes
