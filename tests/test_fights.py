"""Whole fights (#18): every script in docs/fights/ runs through the console on the test database, checking itself.

A script is console lines: the fight's commands, a `restart` in the middle, a `together` double Next by two game
masters, and after every turn an `expect` line that the console checks against the stored fight (whose turn,
every combatant's hit points and conditions). The run here is the console's own (`bot.local.console.open_console`
and `run`, seed 1, as `python -m bot console --seed 1 < SCRIPT`), on this pass's database (SQLite or PostgreSQL),
and it must print exactly the walkthrough docs/encounters.md shows for it (tests/test_transcripts.py rewrites
that). A new ruleset's fight is one more file in docs/fights/ and its `<!-- script: ... -->` block in the docs.

The last tests break the bot on purpose (an attack that takes nothing off, conditions that never count down, a
restart that loses the fight, a double Next that passes two turns) and check that the scripts notice.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from bot.config import Settings
from bot.db.engine import Database
from bot.local import console
from bot.local.driver import LocalDiscord
from bot.rules import encounter as rules
from tests.transcripts import DOCUMENTS, MARK, ROOT, blocks, script_lines, split_printed

SCRIPTS = sorted((ROOT / "docs" / "fights").glob("*.txt"))
# A line that passes a turn: /encounter next, or a Next button pressed (alone or with others at once).
_PASSES = re.compile(r"(^|@\S+ )(/encounter next\b|click next\b)|^together .*click next\b", re.IGNORECASE)


def walkthrough(script: Path) -> list[tuple[str, tuple[str, ...]]]:
    """The transcript the docs show for a script: (typed line, printed lines) pairs."""
    shown = [block for document in DOCUMENTS for block in blocks(document) if block.script == script]
    assert len(shown) == 1, f"{script.relative_to(ROOT)} needs one `<!-- script: ... -->` transcript in docs/"
    return list(shown[0].steps)


async def run_script(settings: Settings, database: Database, lines: tuple[str, ...], folder: Path) -> Fight:
    """The lines through the seeded console, as `python -m bot console --seed 1` runs them."""

    async def typed() -> AsyncIterator[str]:
        for line in lines:  # a bare `click` after each line marks where its output ends
            yield line
            yield MARK

    printed: list[str] = []

    def write(text: str) -> None:  # line by line, as a terminal (or the transcripts' pipe) reads what it prints
        printed.extend((text + "\n").splitlines())

    async with console.open_console(settings, database, seed=1) as local:
        failed = await console.run(local, typed(), write, as_json=False, folder=folder)
    return Fight(split_printed(printed), failed)


@dataclasses.dataclass
class Fight:
    printed: list[list[str]]
    failed: int  # `expect` lines that did not hold


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
async def test_a_whole_fight_runs_as_its_walkthrough_shows(
    settings: Settings, database: Database, tmp_path: Path, script: Path
) -> None:
    lines = script_lines(script)
    for number, line in enumerate(lines):
        if _PASSES.search(line):
            following = lines[number + 1] if number + 1 < len(lines) else ""
            assert following.startswith("expect "), f"{script.name}: no `expect` after the turn `{line}`"
    assert "restart" in lines and any(line.startswith("together ") for line in lines), script.name
    fight = await run_script(settings, database, lines, tmp_path)
    assert fight.failed == 0, [out for out in fight.printed if out and out[0].startswith("!! expect failed")]
    shown = walkthrough(script)
    assert [typed for typed, _ in shown] == list(lines), (
        "the docs show another version: python -m tests.test_transcripts"
    )
    for (typed, expected), out in zip(shown, fight.printed, strict=True):
        assert out == list(expected), f"{script.name}: > {typed}"
    assert [out for out in fight.printed if out == ["ok"]] == [["ok"]] * sum(
        1 for x in lines if x.startswith("expect ")
    )


# -- the scripts notice a broken fight ---------------------------------------------------------------------
def _unhurt(original: Callable[..., tuple[rules.Encounter, rules.Change]]) -> Callable[..., object]:
    def apply_hit(encounter: rules.Encounter, number: int, hit: rules.Hit) -> tuple[rules.Encounter, rules.Change]:
        return original(encounter, number, dataclasses.replace(hit, damage=0))

    return apply_hit


def _counting(script: Path) -> bool:
    return any(re.search(r", [a-z ]+ \d+", line) for line in script_lines(script) if line.startswith("expect "))


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
async def test_the_fight_notices_an_attack_that_takes_nothing_off(
    settings: Settings, database: Database, tmp_path: Path, script: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rules, "apply_hit", _unhurt(rules.apply_hit))
    assert (await run_script(settings, database, script_lines(script), tmp_path)).failed


@pytest.mark.parametrize("script", [s for s in SCRIPTS if _counting(s)], ids=[s.stem for s in SCRIPTS if _counting(s)])
async def test_the_fight_notices_a_condition_that_never_counts_down(
    settings: Settings, database: Database, tmp_path: Path, script: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rules, "_ticked", lambda conditions, step: conditions)
    assert (await run_script(settings, database, script_lines(script), tmp_path)).failed


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
async def test_the_fight_notices_a_restart_that_loses_it(
    settings: Settings, database: Database, tmp_path: Path, script: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    restart = LocalDiscord.restart

    async def forgetful(local: LocalDiscord) -> None:
        await restart(local)
        await local.command("encounter end")  # the fight gone, as a restart that lost it would leave things

    monkeypatch.setattr(LocalDiscord, "restart", forgetful)
    assert (await run_script(settings, database, script_lines(script), tmp_path)).failed


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
async def test_the_fight_notices_a_double_next_that_passes_two_turns(
    settings: Settings, database: Database, tmp_path: Path, script: Path
) -> None:
    # Two presses that each passed a turn would leave the fight where two /encounter next leave it.
    lines = tuple(
        "/encounter next" if line.startswith("together ") else line
        for line in script_lines(script)
        for line in ([line, line] if line.startswith("together ") else [line])
    )
    assert (await run_script(settings, database, lines, tmp_path)).failed
