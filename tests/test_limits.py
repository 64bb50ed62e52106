"""The offline validators catch what discord.py lets through and Discord then refuses."""

from __future__ import annotations

import discord
import pytest
from discord import app_commands

from bot.local.driver import LocalDiscord
from bot.local.limits import sync_payload, validate_command_set, validate_message


def _bad_tree() -> app_commands.CommandTree[discord.Client]:
    tree: app_commands.CommandTree[discord.Client] = app_commands.CommandTree(
        discord.Client(intents=discord.Intents.none())
    )

    @app_commands.command(name="bad", description="x" * 101)
    @app_commands.choices(face=[app_commands.Choice(name=str(i), value=i) for i in range(26)])
    async def bad(interaction: discord.Interaction, face: int) -> None: ...

    tree.add_command(bad)
    return tree


def test_validator_reports_what_discord_rejects() -> None:
    errors = validate_command_set(sync_payload(_bad_tree()))
    assert any("description must be 1-100" in e for e in errors)
    assert any("26 choices > 25" in e for e in errors)


def test_validator_checks_option_order_names_and_total() -> None:
    command = {
        "name": "Roll",
        "description": "d",
        "options": [
            {"name": "a", "description": "x", "type": 3},
            {"name": "b", "description": "y" * 100, "type": 3, "required": True},
        ]
        + [{"name": f"o{i}", "description": "z" * 100, "type": 3} for i in range(80)],
    }
    errors = validate_command_set([command])
    assert any("name must be" in e for e in errors)
    assert any("required option listed after an optional one" in e for e in errors)
    assert any("options > 25" in e for e in errors)
    assert any("combined characters > 8000" in e for e in errors)


def test_embed_limits() -> None:
    embed = discord.Embed(title="t" * 257, description="d" * 4000)
    for i in range(26):
        embed.add_field(name=f"f{i}", value="v" * 100)
    errors = validate_message({"embeds": [embed.to_dict()]})
    assert "embeds[0].title: 257 > 256" in errors
    assert "embeds[0]: 26 fields > 25" in errors
    assert any(e.startswith("embeds total") for e in errors)


async def test_double_refuses_a_bad_sync_like_discord(local: LocalDiscord) -> None:
    @app_commands.command(name="bad", description="x" * 101)
    async def bad(interaction: discord.Interaction) -> None: ...

    local.bot.tree.add_command(bad)
    with pytest.raises(discord.HTTPException) as caught:
        await local.bot.tree.sync()
    assert caught.value.status == 400 and caught.value.code == 50035
