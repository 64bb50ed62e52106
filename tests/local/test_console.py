"""The console as a user runs it: a subprocess, a script of lines in, JSON (or text) out."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import discord
import pytest
from discord import app_commands

from bot.__main__ import prepare_database
from bot.commandline import CommandLineError, parse_line
from bot.config import Settings
from bot.local import console
from bot.local.driver import LocalDiscord
from tests.helpers import ROOT

pytestmark = pytest.mark.slow  # starts processes or runs for seconds: scheduled first (tests/conftest.py)

SCRIPT = """\
/roll expression:4d6kh3 label:"Strength score"
@200000000000000002 /roll expression:1d20+5 private:true
# a comment, then a blank line

/roll expression:1d20+)
/roll expression:1d6 private:maybe
/nope
"""


def _console(tmp_path: Path, *args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/console.db", "DISCORD_TOKEN": ""}
    env["PYTHONPATH"] = str(ROOT)  # this tree's bot, run from another folder
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )


def test_json_console_is_reproducible_and_switches_users(tmp_path: Path) -> None:
    # Reproducible on an empty database; a kept one moves the ids on (the kept-database test below).
    (tmp_path / "again").mkdir()
    first = _console(tmp_path, "console", "--json", "--seed", "1", stdin=SCRIPT)
    second = _console(tmp_path / "again", "console", "--json", "--seed", "1", stdin=SCRIPT)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    lines = [json.loads(line) for line in first.stdout.splitlines()]
    assert len(lines) == 5  # one request per command, one error per unusable line

    strength, private, syntax, boolean, unknown = lines
    assert strength["method"] == "POST"
    assert strength["path"].endswith("/callback?with_response=1")
    embed = strength["body"]["data"]["embeds"][0]
    assert embed["title"] == "Strength score"
    assert embed["author"]["name"] == "Player0001 rolls"
    assert embed["description"].startswith("4d6kh3 (")

    assert private["body"]["data"]["flags"] == 64
    assert private["body"]["data"]["embeds"][0]["author"]["name"] == "Player0002 rolls"

    assert syntax["body"]["data"]["embeds"][0]["title"] == "Can't roll that"
    assert boolean == {"error": "`private` must be true or false, not `maybe`."}
    assert unknown["error"].startswith("There is no /nope. Commands: /aliens, /answers, /character, ")
    assert "/roll" in unknown["error"]


def test_first_readme_command_opens_the_console_without_a_token(tmp_path: Path) -> None:
    result = _console(tmp_path, stdin="/roll expression:4d6kh3\n")
    assert result.returncode == 0, result.stderr
    assert "DISCORD_TOKEN is not set" in result.stderr
    assert result.stdout.splitlines()[:2] == ["Player0001 rolls", "== 4d6kh3 =="]
    assert result.stdout.splitlines()[2].startswith("4d6kh3 (")
    assert (tmp_path / "console.db").exists()


COMMANDS = [
    {
        "name": "roll",
        "description": "Roll dice",
        "options": [
            {"name": "expression", "type": 3, "description": "e", "required": True, "max_length": 200},
            {"name": "times", "type": 4, "description": "t", "min_value": 1, "max_value": 10},
            {"name": "mode", "type": 3, "description": "m", "choices": [{"name": "Advantage", "value": "adv"}]},
        ],
    },
    {
        "name": "character",
        "description": "Characters",
        "options": [{"name": "show", "type": 1, "description": "s", "options": []}],
    },
    {
        "name": "post",
        "description": "Post somewhere",
        "options": [
            {"name": "channel", "type": 7, "description": "c", "channel_types": [0]},
            {"name": "role", "type": 8, "description": "r"},
        ],
    },
]


def test_lines_are_checked_as_discord_client_checks_them() -> None:
    parsed = parse_line('@42 /roll expression:"1d20 + 5" mode:advantage times:3', COMMANDS)
    assert parsed.user_id == "42"
    assert parsed.options == [
        {"name": "expression", "type": 3, "value": "1d20 + 5"},
        {"name": "mode", "type": 3, "value": "adv"},
        {"name": "times", "type": 4, "value": 3},
    ]
    assert parse_line("/character show", COMMANDS).name == "character show"


@pytest.mark.parametrize(
    "line", ["/post channel:#77 role:&88", "/post channel:<#77> role:<@&88>", "/post channel:77 role:88"]
)
def test_channels_and_roles_are_ids_or_mentions(line: str) -> None:
    assert parse_line(line, COMMANDS).options == [
        {"name": "channel", "type": 7, "value": "77"},
        {"name": "role", "type": 8, "value": "88"},
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("roll expression:1", "A command starts with /"),
        ("/roll", "/roll needs expression."),
        ("/roll expression:1 times:11", "`times` must be at most 10."),
        ("/roll expression:1 times:x", "`times` must be a whole number"),
        ("/roll expression:1 mode:huh", "`mode` must be one of: Advantage."),
        ("/roll expression:" + "1" * 201, "`expression` must be 0 to 200 characters long."),
        ("/roll expr:1", "/roll has no option `expr`"),
        ('/roll expression:"1', "Could not read the line"),
        ("/character", "/character needs one of: show."),
        ("@abc /roll expression:1", "is not a user id"),
        ("/post channel:general", "`channel` must be a channel id or mention (#ID or <#ID>), not `general`."),
        ("/post role:@everyone", "`role` must be a role id or mention (&ID or <@&ID>), not `@everyone`."),
    ],
)
def test_unusable_lines_say_why(line: str, message: str) -> None:
    with pytest.raises(CommandLineError, match=re.escape(message)):
        parse_line(line, COMMANDS)


def test_only_a_seeded_console_repeats_its_fair_seeds(tmp_path: Path) -> None:
    # The docs' fair transcripts replay because --seed fixes the session's seed; without it the seed is secret.
    def folder() -> Path:
        made = tmp_path / str(len(list(tmp_path.iterdir())))
        made.mkdir()
        return made

    def commitment(*args: str) -> str:  # the process, as a user runs it
        result = _console(folder(), "console", *args, stdin="/fair start\n")
        assert result.returncode == 0, result.stderr
        return result.stdout.split("`")[1]

    async def in_process(seed: int | None) -> str:  # what the process runs, without starting one (4 s each)
        database = await prepare_database(Settings(database_url=f"sqlite+aiosqlite:///{folder()}/console.db"))
        printed: list[str] = []

        async def typed() -> AsyncIterator[str]:
            yield "/fair start"

        try:
            async with console.open_console(Settings(database_url=""), database, seed=seed) as local:
                assert await console.run(local, typed(), printed.append, as_json=False) == 0
        finally:
            await database.dispose()
        return "\n".join(printed).split("`")[1]

    async def in_processes() -> list[str]:
        return [await in_process(seed) for seed in (1, 2, None, None)]

    seeded, other, unseeded, another = asyncio.run(in_processes())
    assert commitment("--seed", "1") == seeded != other
    assert len({commitment(), unseeded, another, seeded}) == 4


MOD = "200000000000000009"
GM = "300000000000000077"


def test_the_console_acts_as_a_moderator_and_fills_a_channel_option(tmp_path: Path) -> None:
    script = f"""\
/settings gm-channel channel:#{GM}
@{MOD}! /settings gm-channel channel:#{GM}
@{MOD} /settings set setting:aliensrl.ring value:angband
/roll expression:1d20 hidden:true
"""
    result = _console(tmp_path, "console", "--seed", "1", stdin=script)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:3] == [
        "(only you can see this)",
        "== Not allowed ==",
        "Choosing the GM channel needs the Manage Server permission.",
    ]
    assert lines[3:5] == ["== GM channel saved ==", f"Hidden rolls (`hidden:true` on any roll) now go to <#{GM}>."]
    # `@ID` without the `!` is an ordinary member, whatever the console's own user may do.
    assert lines[6:8] == ["== Not allowed ==", "Changing the rules of this server needs the Manage Server permission."]
    assert lines[8] == "@player0001 made a hidden roll."
    # The GM channel's copy, which the bot posts there itself, not as an answer to the interaction.
    gm = lines.index(f"(posted in <#{GM}>)")
    assert lines[gm + 1 : gm + 3] == ["Hidden roll by Player0001 in #dice", "== 1d20 =="]
    manager = _console(tmp_path, "console", "--manager", stdin="/settings set setting:aliensrl.ring value:angband\n")
    assert manager.stdout.splitlines()[0] == "== Setting saved =="


async def test_a_command_that_hangs_is_stopped_and_the_console_goes_on(local: LocalDiscord) -> None:
    @app_commands.command(name="hang", description="Never answers")
    async def hang(interaction: discord.Interaction) -> None:
        await asyncio.Event().wait()

    local.bot.tree.add_command(hang)
    await local.bot.tree.sync()
    local.timeout = 0.5

    async def lines() -> AsyncIterator[str]:
        for line in ("/hang", "/roll expression:1d6"):
            yield line

    out: list[str] = []
    await console.run(local, lines(), out.append, as_json=False, folder=Path.cwd())
    assert out[
        0
    ] == "!! No answer within 0.5 s, so the command was stopped (python -m bot console --timeout SECONDS " + (
        "allows more)."
    )
    assert out[1:3] == ["Player0001 rolls", "== 1d6 =="]


def test_a_seeded_console_on_a_kept_database_never_reuses_an_earlier_run_s_ids(tmp_path: Path) -> None:
    # Roll again finds its roll by the interaction's id: a repeated id would replay the earlier run's roll.
    first = _console(tmp_path, "console", "--seed", "1", stdin="/roll expression:1d6 label:first\n")
    assert first.returncode == 0, first.stderr
    second = _console(
        tmp_path, "console", "--seed", "1", stdin="/roll expression:1d20 label:second\nclick Roll again\n"
    )
    assert second.returncode == 0, second.stderr
    titles = [line for line in second.stdout.splitlines() if line.startswith("== ")]
    assert titles == ["== second ==", "== second =="], second.stdout


def test_expect_checks_the_fight_and_a_failed_one_fails_the_run(tmp_path: Path) -> None:
    script = """\
/encounter start ruleset:dnd35 name:Cave
/encounter add name:Orc count:2 hp:8 initiative:0
expect not begun; Orc 1: 8 hp; Orc 2: 8 hp
expect round 1, Orc 1's turn; Orc 1: 7 hp; Zed: 3 hp
@200000000000000002 restart
together /encounter next
expect
"""
    result = _console(tmp_path, "console", "--seed", "1", stdin=script)
    assert result.returncode == 1, result.stderr
    out = result.stdout.splitlines()
    assert "ok" in out
    assert (
        "!! expect failed: round 1, Orc 1's turn, but not begun; Orc 1: 7 hp, but Orc 1: 8 hp; "
        "Zed: 3 hp, but no Zed is in the fight; Orc 2: 8 hp is not in the line"
    ) in out
    assert "!! the fight is: not begun; Orc 1: 8 hp; Orc 2: 8 hp" in out
    assert "!! `restart` is a line of its own (not after @ID, nor inside `together`)." in out
    assert "!! `together LINE || LINE` sends two or more lines at the same moment." in out
    assert any(line.startswith("!! `expect round N, NAME's turn;") for line in out), out


def test_help_names_the_console_s_own_lines(tmp_path: Path) -> None:
    result = _console(tmp_path, "console", stdin="?\n")
    assert result.returncode == 0, result.stderr
    for directive in ("click LABEL", "restart", "together LINE || LINE", "expect round N"):
        assert f"\n  {directive}" in result.stdout, directive
