"""Whole-bot invariants: the rules core stays pure, the product leaves out the double, the tree is valid."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

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


# Imports every product module: the entry point (without running it), every module of the `bot` package
# outside bot/local (migrations run under Alembic, not on import), and every cog module.
PRODUCT_PROBE = """
import importlib, pkgutil, sys
import bot, cogs

def walk(package):
    for module in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
        if module.name in ("bot.local", "bot.db.migrations"):
            continue
        imported = importlib.import_module(module.name)
        if module.ispkg:
            walk(imported)

importlib.import_module("bot.__main__")
walk(bot)
walk(cogs)
print(sorted(m for m in sys.modules if m.split(".")[0] in ("bot", "cogs")))
print(sorted(m for m in sys.modules if m == "bot.local" or m.startswith("bot.local.")))
print("aiohttp.web" in sys.modules)
"""


def test_the_product_imports_neither_the_double_nor_a_web_server() -> None:
    result = subprocess.run([sys.executable, "-c", PRODUCT_PROBE], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    imported, local, web_server = (ast.literal_eval(line) for line in result.stdout.splitlines())
    # Really imported: the entry point, the client, the command-line parser and every cog.
    assert {"bot.__main__", "bot.client", "bot.commandline", "bot.discord_api", *extensions()} <= set(imported)
    assert local == [], "the running bot loads bot/local, the console's and the tests' Discord double"
    assert web_server is False, "the running bot loads aiohttp.web, which only the double serves with"


def test_the_console_loads_the_double_lazily(tmp_path: Path) -> None:
    probe = f"""
import asyncio, sys
from bot.__main__ import parse_args, run_console
from bot.config import Settings
assert "bot.local" not in sys.modules
settings = Settings(database_url="sqlite+aiosqlite:///{tmp_path / "bot.db"}")
assert asyncio.run(run_console(settings, parse_args(["console", "--seed", "1"]))) == 0
assert {{"bot.local.console", "bot.local.double", "bot.local.driver"}} <= set(sys.modules), sorted(sys.modules)
"""
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL
    )
    assert result.returncode == 0, result.stderr


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
