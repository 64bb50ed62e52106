"""Whole-bot invariants: the rules core stays pure, the product leaves out the double, the tree is valid."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from bot.client import extensions
from bot.local.driver import LocalDiscord
from bot.local.limits import sync_payload, validate_command_set
from tests.helpers import ROOT


@pytest.mark.slow
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


@pytest.mark.slow
def test_the_product_imports_neither_the_double_nor_a_web_server() -> None:
    result = subprocess.run([sys.executable, "-c", PRODUCT_PROBE], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    imported, local, web_server = (ast.literal_eval(line) for line in result.stdout.splitlines())
    # Really imported: the entry point, the client, the command-line parser and every cog.
    assert {"bot.__main__", "bot.client", "bot.commandline", "bot.discord_api", *extensions()} <= set(imported)
    assert local == [], "the running bot loads bot/local, the console's and the tests' Discord double"
    assert web_server is False, "the running bot loads aiohttp.web, which only the double serves with"


@pytest.mark.slow
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


def _modules() -> dict[str, Path]:
    """Every module of the bot and its cogs (migrations run under Alembic, not as imports), by dotted name."""
    found: dict[str, Path] = {}
    for top in ("bot", "cogs"):
        for path in (ROOT / top).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if "migrations" in parts:
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported(tree: ast.AST) -> list[str]:
    """Every name an import statement of the module reaches, at module level or inside a function.

    An `if TYPE_CHECKING:` block is left out (its `else:` is not): it never runs.
    """
    names: list[str] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _checking_only(child):
                for other in child.orelse:
                    visit_one(other)
            else:
                visit_one(child)

    def visit_one(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0 and node.module is not None, "the house imports absolutely"
            names.append(node.module)
            names.extend(f"{node.module}.{alias.name}" for alias in node.names)
        visit(node)

    visit(tree)
    return names


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Which modules each module's imports run: the module named, and every package above it.

    Python runs a package's `__init__` before any module in it, so importing `bot.rules.dnd35.tables` runs
    `bot.rules.dnd35` too; the packages a module lives in are already running when it is imported, so they are
    left out of its own edges.
    """
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges: set[str] = set()
        for target in _imported(ast.parse(path.read_text(encoding="utf-8"))):
            parts = target.split(".")
            for end in range(1, len(parts) + 1):
                reached = ".".join(parts[:end])
                if reached in modules and reached != name and not name.startswith(reached + "."):
                    edges.add(reached)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of `graph`: its strongly connected parts of more than one module (Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for reached in sorted(graph[module]):
            if reached not in index:
                visit(reached)
                low[module] = min(low[module], low[reached])
            elif reached in stack:
                low[module] = min(low[module], index[reached])
        if low[module] == index[module]:
            part = []
            while True:
                top = stack.pop()
                part.append(top)
                if top == module:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_no_module_of_the_bot_imports_itself_round_about() -> None:
    graph = import_graph(_modules())
    assert len(graph) > 50 and "bot.rules.dnd35.tables" in graph["bot.rules.dnd35.engine"]
    assert cycles(graph) == []


def test_the_cycle_finder_sees_one_through_a_function_and_a_package() -> None:
    # tables -> sheet at the top, sheet -> the package (through a function-level import of a sibling of tables)
    graph = {"p": {"p.tables"}, "p.tables": {"s"}, "s": {"p", "p.armor"}, "p.armor": set()}
    assert cycles(graph) == [["p", "p.tables", "s"]]
    checked = ast.parse("if TYPE_CHECKING:\n    import a\nelse:\n    import b\ndef f():\n    from c import d\n")
    assert _imported(checked) == ["b", "c", "c.d"]


def test_presentation_never_imports_storage() -> None:
    graph = import_graph(_modules())
    reached = sorted(
        (m, t) for m, edges in graph.items() for t in edges if m.startswith("bot.ui") and t.startswith("bot.db")
    )
    assert reached == [], "bot.ui is handed plain values (or rules-level types), never bot.db's"


def test_no_test_file_imports_another() -> None:
    """Shared test code lives in tests/helpers.py (and the support modules beside it), never in a test file."""
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for module in _imported(ast.parse(path.read_text(encoding="utf-8"))):
            if module.startswith("tests.") and module.rsplit(".", 1)[-1].startswith("test_"):
                found.append(f"{path.relative_to(ROOT)} imports {module}")
    assert found == []
