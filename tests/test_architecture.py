"""Whole-bot invariants: the rules core stays pure, the command tree is valid for Discord."""

from __future__ import annotations

import subprocess
import sys

from bot.client import extensions
from bot.local.driver import LocalDiscord
from bot.local.limits import sync_payload, validate_command_set


def test_rules_core_imports_no_discord_or_database() -> None:
    probe = (
        "import sys, pkgutil, importlib, bot.rules\n"
        "for m in pkgutil.walk_packages(bot.rules.__path__, 'bot.rules.'): importlib.import_module(m.name)\n"
        "bad = sorted({'discord', 'sqlalchemy', 'aiosqlite', 'aiohttp'} & set(sys.modules))\n"
        "assert not bad, bad\n"
        "print(len([m for m in sys.modules if m.startswith('bot.rules')]))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) >= 2  # the package and at least one module were really imported


def test_every_extension_is_found() -> None:
    assert "cogs.dice" in extensions()


async def test_sync_payload_is_valid_for_discord(local: LocalDiscord) -> None:
    payload = sync_payload(local.bot.tree)
    assert payload, "no commands registered"
    assert validate_command_set(payload) == []
    # The double received the same payload at sync time and accepted it.
    assert [c["name"] for c in local.double.commands[None]] == [c["name"] for c in payload]


async def test_every_command_and_option_has_real_help_text(local: LocalDiscord) -> None:
    def walk(node: dict, path: str) -> None:
        description = node.get("description", "")
        assert description and description != "…", f"{path} has no description"
        for option in node.get("options", []):
            walk(option, f"{path} {option['name']}")

    for command in sync_payload(local.bot.tree):
        walk(command, "/" + command["name"])
