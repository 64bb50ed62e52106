"""Hostile input: Hypothesis sends every command of the tree whatever Discord would let a user send.

The payloads are generated from the command schema the bot syncs (types, choices, ranges, lengths,
required), so a new command or option is fuzzed without touching this file. Every answer must come within
Discord's 3-second deadline, pass the double's checks of Discord's limits, and no bug may reach the error
funnel's log. `FUZZ_EXAMPLES=2000 pytest tests/test_fuzz.py` runs a longer search than the default.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
import pytest_asyncio
from discord import app_commands
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.local.driver import LocalDiscord
from bot.local.payloads import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    GM_ROLE,
    MANAGER_PERMISSIONS,
    MODAL_SUBMIT,
    Actor,
    channel_object,
    command_data,
    interaction,
    member_object,
    modal_submit_data,
    role_object,
    user_object,
)
from bot.rules import rulesets
from bot.rules.settings import SETTINGS
from tests.helpers import ALICE, BOB, COMMANDS, GM_CHANNEL, MOD, OTHER_GUILD, answered_cleanly

pytestmark = pytest.mark.slow  # starts processes or runs for seconds: scheduled first (tests/conftest.py)

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "12"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,  # the double enforces Discord's own deadline on every answer
    derandomize=True,  # the same examples on every run, so CI is reproducible
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, ATTACHMENT, NUMBER = 3, 4, 5, 6, 7, 8, 11, 10
DISCORD_MAX_STRING = 6000
DISCORD_MAX_INTEGER = 2**53

# Text a user could plausibly type where autocomplete would have helped, plus the awkward cases of it.
HINTS = [
    "Vasquez",
    "vasquez ",
    "Regis",
    "Dralasite",
    "Troll",
    *(f"#{n}" for n in range(1, 7)),
    "#0",
    "#-1",
    "#99999999999999999999999",
    "#²",
    "#١٢",
    "# 1",
    "@everyone",
    "<@200000000000000002>",
    "`",
    "**",
    "||x||",
    "none",
    "4d6kh3",
    "1d20+5",
    "1000d10000",
    "d%",
    "Longsword",
    "Laser pistol",
    "Smartgun",
    "19-20/x2",
    "5/magic",
    *(key for rules in rulesets.every() for key in rules.sheet.settable),
    *SETTINGS,
    *(value for spec in SETTINGS.values() for value in spec.choices),
]


AUTOCOMPLETING = [name for name, schema in COMMANDS.items() if any(o.get("autocomplete") for o in schema["options"])]


# -- strategies -------------------------------------------------------------------------------------------
def texts(min_size: int, max_size: int) -> st.SearchStrategy[str]:
    """Any text Discord carries (no lone surrogates: they cannot be sent as JSON), short and full length."""
    alphabet = st.characters(exclude_categories=("Cs",))
    return st.one_of(
        st.text(alphabet, min_size=min_size, max_size=min(max_size, 60)),
        st.sampled_from([h for h in HINTS if min_size <= len(h) <= max_size]),
        st.builds(
            lambda c, n: c * n, st.characters(exclude_categories=("Cs",)), st.integers(max(min_size, 1), max_size)
        ),
        # Full length without drawing thousands of characters one by one (Hypothesis caps an example's size).
        st.builds(lambda s, n: (s * n)[:max_size], st.text(alphabet, min_size=1, max_size=20), st.just(max_size)),
    )


def snowflakes() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from([ALICE, BOB, MOD]), st.integers(1, 2**63 - 1).map(str))


@st.composite
def actors(draw: st.DrawFn, dm_allowed: bool) -> Actor:
    """Someone who may send the command: a member, a stranger, a moderator, in a DM, in another server."""
    choices = [
        Actor(user_id=ALICE, guild_id=ALICE_GUILD, channel_id=ALICE_CHANNEL),
        Actor(user_id=BOB, guild_id=ALICE_GUILD, channel_id=ALICE_CHANNEL),
        Actor(user_id=MOD, guild_id=ALICE_GUILD, channel_id=ALICE_CHANNEL, permissions=MANAGER_PERMISSIONS),
        Actor(user_id=ALICE, guild_id=OTHER_GUILD, channel_id="400000000000000002"),
    ]
    if dm_allowed:
        choices.append(Actor(user_id=ALICE, guild_id=None, channel_id="500000000000000001"))
    return draw(st.sampled_from(choices))


ALICE_GUILD = "300000000000000001"
ALICE_CHANNEL = "300000000000000002"


@st.composite
def option_values(
    draw: st.DrawFn, option: dict[str, Any], local: LocalDiscord, actor: Actor
) -> tuple[dict[str, Any], dict[str, Any]]:
    """One option as Discord sends it, and the `resolved` data it needs."""
    kind = option["type"]
    raw: dict[str, Any] = {"name": option["name"], "type": kind}
    resolved: dict[str, Any] = {}
    if option.get("choices"):
        raw["value"] = draw(st.sampled_from([c["value"] for c in option["choices"]]))
    elif kind == STRING:
        low, high = max(option.get("min_length", 1), 1), option.get("max_length", DISCORD_MAX_STRING)
        typed = texts(low, high)
        if option.get("autocomplete"):
            # Names and #numbers of existing characters, fields, weapons: half the time, what autocomplete offers.
            typed = st.one_of(st.sampled_from([h for h in HINTS if low <= len(h) <= high]), typed)
        raw["value"] = draw(typed)
    elif kind == INTEGER:
        low = option.get("min_value", -DISCORD_MAX_INTEGER)
        high = option.get("max_value", DISCORD_MAX_INTEGER)
        raw["value"] = draw(st.one_of(st.integers(low, high), st.sampled_from([low, high])))
    elif kind == NUMBER:
        low = option.get("min_value", -float(DISCORD_MAX_INTEGER))
        high = option.get("max_value", float(DISCORD_MAX_INTEGER))
        raw["value"] = draw(st.floats(low, high, allow_nan=False, allow_infinity=False))
    elif kind == BOOLEAN:
        raw["value"] = draw(st.booleans())
    elif kind == USER:
        user_id = raw["value"] = draw(snowflakes())
        resolved["users"] = {user_id: user_object(user_id)}
        if actor.guild_id and draw(st.booleans()):
            member = member_object(Actor(user_id=user_id, guild_id=actor.guild_id, channel_id=actor.channel_id))
            resolved["members"] = {user_id: {k: v for k, v in member.items() if k != "user"}}
    elif kind == CHANNEL:
        channel_id = raw["value"] = draw(st.one_of(st.just(GM_CHANNEL), snowflakes()))
        channel_type = draw(st.sampled_from(option.get("channel_types") or [0]))
        name = draw(texts(1, 100))
        resolved["channels"] = {channel_id: channel_object(channel_id, actor, kind=channel_type, name=name)}
    elif kind == ROLE:
        # The game master role, @everyone (the server's own id), or any role.
        role_id = raw["value"] = draw(st.one_of(st.just(GM_ROLE), st.just(actor.guild_id or GM_ROLE), snowflakes()))
        resolved["roles"] = {role_id: role_object(role_id, name=draw(texts(1, 100)))}
    elif kind == ATTACHMENT:
        data = draw(
            st.one_of(
                st.binary(max_size=4096),
                st.text(max_size=2000).map(str.encode),
                st.sampled_from([b"{}", b"[]", b'{"format": null}', b"null", b'{"characters": [{}]}', b"\xff\xfe"]),
            )
        )
        content_type = draw(st.sampled_from(["application/json", "image/png", "text/plain", "", "x/\u202e"]))
        # Discord hands out URL-safe file names; the content and the size it reports are the uploader's.
        filename = draw(st.text("abcXYZ019._-", min_size=1, max_size=40))
        attachment = local.double.host_file(filename, data, content_type=content_type)
        attachment["size"] = draw(st.one_of(st.just(len(data)), st.integers(0, 2**31)))
        raw["value"] = attachment["id"]
        resolved["attachments"] = {attachment["id"]: attachment}
    else:  # a new option type: teach this test to send it rather than silently skip it
        raise AssertionError(f"no strategy for option type {kind} of {option['name']}")
    return raw, resolved


@st.composite
def invocations(draw: st.DrawFn, name: str, local: LocalDiscord, kind: int) -> dict[str, Any]:
    """A whole interaction payload for command `name`: some options, all required ones, from someone."""
    schema = COMMANDS[name]
    actor = draw(actors(schema["dm_permission"]))
    options: list[dict[str, Any]] = []
    resolved: dict[str, Any] = {}
    for option in schema["options"]:
        if option.get("required") or draw(st.booleans()):
            raw, extra = draw(option_values(option, local, actor))
            options.append(raw)
            for key, values in extra.items():
                resolved.setdefault(key, {}).update(values)
    if kind == AUTOCOMPLETE:
        focused = draw(st.sampled_from([o for o in schema["options"] if o.get("autocomplete")]))
        typed = draw(texts(0, focused.get("max_length", 100)))
        options = [o for o in options if o["name"] != focused["name"]]
        options.append({"name": focused["name"], "type": focused["type"], "value": typed, "focused": True})
    data = command_data(name, options, resolved=resolved or None)
    return interaction(local.ids, actor, kind, data)


# -- fixtures ---------------------------------------------------------------------------------------------
@pytest_asyncio.fixture
async def table(local: LocalDiscord, caplog: pytest.LogCaptureFixture) -> AsyncIterator[LocalDiscord]:
    """A server with something to find: characters of every ruleset, a stranger's, a GM channel, a fair session."""
    caplog.set_level(logging.WARNING)
    alice = local.actor
    bob = local.as_user(BOB)
    moderator = local.as_user(MOD, permissions=MANAGER_PERMISSIONS)
    for ruleset, name, actor in [
        ("aliensrl", "Vasquez", alice),
        ("dnd35", "Regis", alice),
        ("sf", "Dralasite", alice),
        ("aliensrl", "Troll", bob),
    ]:
        await local.command("character create", {"ruleset": ruleset, "name": name}, actor=actor)
    await local.command("character weapon add", {"character": "Regis", "name": "Longsword"})
    options = [{"name": "channel", "type": CHANNEL, "value": GM_CHANNEL}]
    channel = {"id": GM_CHANNEL, "type": 0, "name": "gm", "permissions": MANAGER_PERMISSIONS, "parent_id": None}
    await local.command("settings gm-channel", options, actor=moderator, resolved={"channels": {GM_CHANNEL: channel}})
    await local.command("fair start")
    await local.command("roll", {"expression": "2d6", "private": True})
    yield local


# -- the fuzz tests ---------------------------------------------------------------------------------------
def test_every_command_of_the_tree_is_fuzzed() -> None:
    assert len(COMMANDS) >= 30  # the walk reached the subcommands, not just the groups
    assert {"roll", "character weapon add", "settings gm-channel", "character import"} <= set(COMMANDS)
    assert AUTOCOMPLETING


@FUZZ
@given(data=st.data())
async def test_any_options_get_a_clean_answer(
    table: LocalDiscord, caplog: pytest.LogCaptureFixture, data: st.DataObject
) -> None:
    # One example sends every command once, so each command gets exactly FUZZ_EXAMPLES payloads.
    for name in COMMANDS:
        payload = data.draw(invocations(name, table, APPLICATION_COMMAND), label=f"/{name}")
        await answered_cleanly(table, payload, caplog)


@FUZZ
@given(data=st.data())
async def test_any_typing_gets_valid_suggestions(
    table: LocalDiscord, caplog: pytest.LogCaptureFixture, data: st.DataObject
) -> None:
    for name in AUTOCOMPLETING:
        payload = data.draw(invocations(name, table, AUTOCOMPLETE), label=f"/{name}")
        await answered_cleanly(table, payload, caplog)


@FUZZ
@given(values=st.dictionaries(st.sampled_from(["rifle", "pistol", "heavy", "pain"]), texts(0, 200)))
async def test_any_edit_form_gets_a_clean_answer(
    table: LocalDiscord, caplog: pytest.LogCaptureFixture, values: dict[str, str]
) -> None:
    opened = await table.command("character edit", {"character": "Vasquez"})
    payload = interaction(table.ids, table.actor, MODAL_SUBMIT, modal_submit_data(opened.modal, values))
    await answered_cleanly(table, payload, caplog)


@FUZZ
@given(
    roll=st.one_of(st.just("shown"), st.integers(0, 2**64 - 1).map(str)),
    button=st.sampled_from(["again:{}", "details:{}:full", "details:{}:short"]),
)
async def test_any_roll_button_gets_a_clean_answer(
    table: LocalDiscord, caplog: pytest.LogCaptureFixture, roll: str, button: str
) -> None:
    """Roll again and Details of the roll shown, or of any roll id at all (a roll forgotten, say)."""
    shown = await table.command("roll", {"expression": "1d6"})
    custom_id = button.format(shown.payload["id"] if roll == "shown" else roll)
    component = {"type": 2, "style": 2, "label": "Roll again", "custom_id": custom_id}
    message = {**table.original(shown), "components": [{"type": 1, "components": [component]}]}
    payload = interaction(
        table.ids, table.as_user(BOB), 3, {"custom_id": custom_id, "component_type": 2}, message=message
    )
    await answered_cleanly(table, payload, caplog)


async def test_the_checks_catch_a_bug(table: LocalDiscord, caplog: pytest.LogCaptureFixture) -> None:
    """The fuzz tests can fail: a command that crashes, or answers twice or never, is caught."""

    @app_commands.command(name="broken", description="Fails")
    async def broken(interaction: discord.Interaction) -> None:
        raise KeyError("boom")

    @app_commands.command(name="silent", description="Never answers")
    async def silent(interaction: discord.Interaction) -> None:
        return None

    table.bot.tree.add_command(broken)
    table.bot.tree.add_command(silent)
    for name in ("broken", "silent"):
        payload = interaction(table.ids, table.actor, APPLICATION_COMMAND, command_data(name, []))
        with pytest.raises(AssertionError):
            await answered_cleanly(table, payload, caplog)


# -- what the fuzzing found -------------------------------------------------------------------------------
@pytest.mark.parametrize("reference", ["#99999999999999999999999", "#2147483648", "#²"])
@pytest.mark.parametrize(
    ("name", "option"),
    [
        ("character show", "character"),
        ("character set", "character"),
        ("character delete", "character"),
        ("dnd attack", "target"),
        ("sf shoot", "character"),
    ],
)
async def test_character_numbers_beyond_the_database_or_in_other_digits_are_just_not_found(
    table: LocalDiscord, caplog: pytest.LogCaptureFixture, name: str, option: str, reference: str
) -> None:
    # A number past the id column (32 bits on PostgreSQL, 64 on SQLite) overflowed the query, and digits
    # such as "²" passed str.isdigit() but not int(): both were logged as bugs instead of "no such character".
    options = {option: reference, **({"field": "pain", "value": "1"} if name == "character set" else {})}
    payload = interaction(table.ids, table.actor, APPLICATION_COMMAND, command_data(name, _raw(options)))
    exchange = await answered_cleanly(table, payload, caplog)
    assert exchange.ephemeral and exchange.embed["color"] == discord.Colour.red().value


def _raw(options: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": key, "type": STRING, "value": value} for key, value in options.items()]


async def test_an_upload_discord_cannot_serve_is_explained(
    table: LocalDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    # A failed download of the attachment (an expired or missing file) was logged as a bug with an apology.
    value, resolved = table.upload("characters.json", b"{}")
    del table.double.files[value]
    options = [{"name": "file", "type": ATTACHMENT, "value": value}]
    payload = interaction(
        table.ids, table.actor, APPLICATION_COMMAND, command_data("character import", options, resolved=resolved)
    )
    exchange = await answered_cleanly(table, payload, caplog)
    assert exchange.messages[-1]["embeds"][0]["title"] == "Upload failed"


async def test_roll_again_works_for_an_expression_with_a_line_break(
    table: LocalDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    # The button's template did not match across a line break, so its presses were never answered.
    shown = await table.command("roll", {"expression": "1d6\n+1"})
    [row] = table.original(shown)["components"]
    custom_id = row["components"][0]["custom_id"]
    payload = interaction(
        table.ids, table.actor, 3, {"custom_id": custom_id, "component_type": 2}, message=table.original(shown)
    )
    again = await answered_cleanly(table, payload, caplog)
    assert again.embed["description"].startswith("1d6 (")
