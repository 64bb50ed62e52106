"""Every transcript in the README and in docs/ is what the console, or the shell, really prints.

A transcript is a fenced `text` block of one of two kinds:

- **console**: lines starting with "> " are typed into `python -m bot console --seed 1` on an empty database;
  the lines after each are what the console printed for it, button lines included. The test runs the console
  in this process, through the same functions the command runs (a process per block cost seconds each);
  `test_the_console_process_prints_what_the_transcripts_show` checks the real process against one block.
- **shell**: lines starting with "$ " are run by `sh`, with this interpreter first on PATH (so `python` is the
  project's); the lines after each are what it printed, standard error included, as a terminal shows it.

A console transcript may be a script's: right after the line `<!-- script: docs/fights/dnd35.txt -->` its typed
lines are that file's (without its comments and blank lines), and a rewrite copies them in, so the file a
reader runs and the transcript the document shows cannot drift apart (tests/test_fights.py runs those scripts).

The blocks of one document run in order in one folder, so that a shell block can check the file a console
transcript before it saved (each console transcript still starts from an empty database). The folder also
holds `verify_roll.py` (tools/verify_roll.py, as a player would have saved it) and, once a fair session's log
is there, the doctored copies `tampered.json` and `padded.json` made from it by `doctor` below.

Nothing is masked: with `--seed` the console draws its dice, its ids and even its fair sessions' seeds from
the seed, so every byte it prints is reproducible. To tell which typed line printed what, the test types a bare
`click` after each line: it prints one fixed complaint and changes nothing.

After a change to what the bot prints, rewrite every block from the real output and review the diff:
`UPDATE_TRANSCRIPTS=1 .venv/bin/python -m pytest tests/test_transcripts.py`, or `.venv/bin/python -m
tests.test_transcripts` (which rewrites and prints the documents it changed).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot import __main__ as main_module
from bot.config import Settings
from bot.local import console
from tests.transcripts import (
    DOCUMENTS,
    MARK,
    PROMPTS,
    ROOT,
    Block,
    blocks,
    log_names,
    renamed,
    split_printed,
)

pytestmark = pytest.mark.slow  # starts processes or runs for seconds: scheduled first (tests/conftest.py)


def doctor(folder: Path) -> None:
    """`tampered.json`: roll 2's first draw forged to [19, 38, 20]; `padded.json`: a draw [1, 1, 1] put before it.

    The forgeries docs/fair.md shows being caught: a natural 20 from a moved range, and a burnt draw.
    """
    logs = sorted(folder.glob("fair-session-*.json"))
    if not logs:
        return
    log = json.loads(logs[-1].read_text(encoding="utf-8"))
    roll = next(r for r in log["rolls"] if r["roll"] == 2)
    real = roll["draws"]
    roll["draws"] = [[19, 38, 20], *real[1:]]
    (folder / "tampered.json").write_text(json.dumps(log, indent=2), encoding="utf-8")
    roll["draws"] = [[1, 1, 1], *real]
    (folder / "padded.json").write_text(json.dumps(log, indent=2), encoding="utf-8")


def run_console(block: Block, folder: Path, database: Path, template: Path | None = None) -> list[list[str]]:
    """What the seeded console prints for each typed line of the block, as `python -m bot console --seed 1` would.

    Run in this process, through what `python -m bot console` runs (`bot.__main__.prepare_database`, then
    `bot.local.console.open_console` and `run` with the command line's defaults), in `folder`, on a new SQLite
    database at `database`: a copy of the migrated `template` when given, else migrated from scratch.
    `test_the_console_process_prints_what_the_transcripts_show` checks the real process prints the same.
    """
    if template is not None:
        shutil.copyfile(template, database)
    printed: list[str] = []

    def write(text: str) -> None:  # line by line, as the process's pipe reads what it prints
        printed.extend((text + "\n").splitlines())

    async def typed() -> AsyncIterator[str]:
        for line in block.typed:  # a bare `click` after each line marks where its output ends
            yield line
            yield MARK

    async def console_run() -> int:
        args = main_module.parse_args(["console", "--seed", "1"])
        settings = Settings.from_env({"DATABASE_URL": f"sqlite+aiosqlite:///{database}", "DISCORD_TOKEN": ""})
        opened = await main_module.prepare_database(settings)
        try:
            async with console.open_console(
                settings, opened, seed=args.seed, user=args.user, guild=args.guild, manager=args.manager
            ) as local:
                local.timeout = args.timeout
                return await console.run(local, typed(), write, as_json=args.json, folder=folder)
        finally:
            await opened.dispose()

    with contextlib.chdir(folder):  # the console names the files it saves relative to where it runs
        failed = asyncio.run(console_run())
    assert failed == 0, printed  # the process's exit status: 1 when an `expect` line did not hold
    return split_printed(printed)


def run_console_process(block: Block, folder: Path, database: Path) -> list[list[str]]:
    """What the real `python -m bot console --seed 1` prints for each typed line of the block."""
    typed = "".join(f"{line}\n{MARK}\n" for line in block.typed)
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{database}", "DISCORD_TOKEN": ""}
    env["PYTHONPATH"] = str(ROOT)  # this tree's bot, also where the virtual environment installed another
    result = subprocess.run(
        [sys.executable, "-m", "bot", "console", "--seed", "1"],
        input=typed,
        capture_output=True,
        text=True,
        env=env,
        cwd=folder,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, result.stderr + result.stdout
    return split_printed(result.stdout.splitlines())


def run_shell(block: Block, folder: Path, renames: dict[str, str]) -> list[list[str]]:
    """What each command of the block prints, run in the folder."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env["PYTHONPATH"] = str(ROOT)  # `python -m bot` from the folder imports this tree's bot
    printed = []
    for command, _ in block.steps:
        result = subprocess.run(
            ["sh", "-c", renamed(command, renames)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            cwd=folder,
            timeout=180,
            check=False,
        )
        printed.append(result.stdout.splitlines())
    return printed


@dataclass
class Run:
    """A document's transcripts run in order: what printed for each, and the log names that changed."""

    document: Path
    printed: list[tuple[Block, list[list[str]]]]
    renames: dict[str, str]


def run_document(document: Path, folder: Path, template: Path | None = None) -> Run:
    """Every transcript of the document with what really printed for it, run in order in `folder`.

    `template`: a migrated SQLite database each console transcript starts from a copy of (else each migrates one).
    """
    shutil.copy(ROOT / "tools" / "verify_roll.py", folder / "verify_roll.py")
    run = Run(document, [], {})
    for number, block in enumerate(blocks(document), start=1):
        if block.kind == "console":
            printed = run_console(block, folder, folder / f"console-{number}.db", template)
            shown = log_names(line for _, out in block.steps for line in out)
            made = log_names(line for out in printed for line in out)
            run.renames.update((old, new) for old, new in zip(shown, made, strict=False) if old != new)
            doctor(folder)
        else:
            printed = run_shell(block, folder, run.renames)
        run.printed.append((block, printed))
    return run


def rewrite(run: Run) -> bool:
    """Put what really printed into the document's blocks, and the new log names; whether anything changed."""
    text = original = run.document.read_text(encoding="utf-8")
    for block, printed in sorted(run.printed, key=lambda pair: pair[0].start, reverse=True):
        text = text[: block.start] + block.text(printed, run.renames) + text[block.end :]
    text = renamed(text, run.renames)
    run.document.write_text(text, encoding="utf-8")
    return text != original


DOCUMENTED = [document for document in DOCUMENTS if blocks(document)]


def test_the_documents_have_transcripts() -> None:
    where = {str(document.relative_to(ROOT)) for document in DOCUMENTED}
    assert {"README.md", "docs/dice.md", "docs/fair.md", "docs/commands.md"} <= where
    kinds = {block.kind for document in DOCUMENTED for block in blocks(document)}
    assert kinds == {"console", "shell"}


@pytest.mark.parametrize("document", DOCUMENTED, ids=[str(d.relative_to(ROOT)) for d in DOCUMENTED])
def test_transcripts_are_what_really_prints(tmp_path: Path, document: Path, sqlite_template: Path) -> None:
    run = run_document(document, tmp_path, sqlite_template)
    if os.environ.get("UPDATE_TRANSCRIPTS"):
        rewrite(run)
        return
    for block, printed in run.printed:
        shown = tuple(typed for typed, _ in block.steps)
        assert shown == block.typed, f"{document.relative_to(ROOT)} shows another version of {block.script}"
        for (typed, expected), out in zip(block.steps, printed, strict=True):
            assert list(expected) == out, f"{document.relative_to(ROOT)}: {PROMPTS[block.kind]}{typed}"


def test_the_console_process_prints_what_the_transcripts_show(tmp_path: Path) -> None:
    """The transcripts run the console in-process: the real `python -m bot console` prints the same, byte for byte."""
    block = next(block for block in blocks(ROOT / "README.md") if block.kind == "console")
    process = run_console_process(block, tmp_path, tmp_path / "process.db")
    assert process == [list(out) for _, out in block.steps]
    (tmp_path / "in-process").mkdir()
    assert run_console(block, tmp_path / "in-process", tmp_path / "in-process.db") == process


def main() -> int:
    """Rewrite every transcript from what really prints; name the documents that changed."""
    for document in DOCUMENTED:
        with tempfile.TemporaryDirectory() as folder:
            if rewrite(run_document(document, Path(folder))):
                sys.stdout.write(f"rewrote {document.relative_to(ROOT)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
