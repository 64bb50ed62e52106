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


def test_a_channel_option_may_list_only_the_schemas_channel_types() -> None:
    # discord.py's plain channel annotation sends 16 (media), which the API schema's ChannelTypes lacks.
    tree: app_commands.CommandTree[discord.Client] = app_commands.CommandTree(
        discord.Client(intents=discord.Intents.none())
    )

    @app_commands.command(name="where", description="Pick a channel")
    async def where(interaction: discord.Interaction, channel: app_commands.AppCommandChannel) -> None: ...

    tree.add_command(where)
    assert validate_command_set(sync_payload(tree)) == [
        "/where.channel: channel_types [16] are not in the API schema's ChannelTypes"
    ]


def _option(**fields: object) -> dict[str, object]:
    return {"name": "x", "description": "d", **fields}


@pytest.mark.parametrize(
    ("option", "error"),
    [
        (_option(type=3, channel_types=[0]), "only channel options take channel_types"),
        (_option(type=7, channel_types=[0, 0]), "a channel type is listed twice"),
        (_option(type=5, choices=[{"name": "yes", "value": True}]), "only string, integer and number options take"),
        (_option(type=6, autocomplete=True), "only string, integer and number options autocomplete"),
        (_option(type=4, choices=[{"name": "half", "value": 0.5}]), "choice value 0.5 does not fit a type 4"),
        (_option(type=3, choices=[{"name": "one", "value": 1}]), "choice value 1 does not fit a type 3"),
        (_option(type=10, min_value=-(2**54)), "min_value -18014398509481984 does not fit"),
        (_option(type=3, min_value=1), "min_value only apply to option types (4, 10)"),
        (_option(type=4, max_length=5), "max_length only apply to option types (3,)"),
        (_option(type=4, min_value=6, max_value=1), "min_value 6 > max_value 1"),
        (_option(type=3, min_length=7, max_length=6), "min_length 7 > max_length 6"),
        (_option(type=3, max_length=6001), "max_length out of 1..6000"),
        (_option(type=12), "unknown option type 12"),
    ],
)
def test_each_option_rule_of_the_schema_is_checked(option: dict[str, object], error: str) -> None:
    errors = validate_command_set([{"name": "cmd", "description": "d", "type": 1, "options": [option]}])
    assert len(errors) == 1 and errors[0].startswith("/cmd.x: " + error), errors


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"contexts": [0, 3]}, "/cmd: contexts [3] are not in the API schema"),
        ({"integration_types": [2]}, "/cmd: integration_types [2] are not in the API schema"),
        ({"default_member_permissions": 32}, "/cmd: default_member_permissions must be a bit set"),
        ({"type": 2, "description": "d"}, "'cmd': a context-menu command has no description and no options"),
        ({"type": 4}, "'cmd': unknown command type 4"),
    ],
)
def test_each_command_rule_of_the_schema_is_checked(fields: dict[str, object], error: str) -> None:
    errors = validate_command_set([{"name": "cmd", "description": "d", "type": 1, **fields}])
    assert len(errors) == 1 and errors[0].startswith(error)
