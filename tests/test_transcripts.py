"""Every /roll transcript in the README and in docs/ is what the console really prints.

A transcript is a fenced block of kind `text` whose lines starting with "> " are typed into the console; the
other lines are what it printed. Each block runs in a fresh console with `--seed 1` on an empty database, and
must print exactly its lines, the "Buttons:" lines (the console's hint for clicking) left out.

Only blocks that type nothing but /roll are run here: the README's /fair and /aliens transcripts show a
session's random secret and other commands' answers, which belong to those commands' own tests.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"^(```|~~~)text\n(.*?)^\1$", re.MULTILINE | re.DOTALL)


def transcripts() -> list[tuple[str, str]]:
    """(where, block) for every transcript: a `text` block with at least one typed line."""
    found = []
    for document in DOCUMENTS:
        for number, match in enumerate(_BLOCK.finditer(document.read_text(encoding="utf-8")), start=1):
            block = match.group(2)
            typed = [line for line in block.splitlines() if line.startswith("> ")]
            if typed and all(re.match(r"> (@\d+ )?/roll ", line) for line in typed):
                found.append((f"{document.relative_to(ROOT)} #{number}", block))
    return found


def test_the_documents_have_transcripts() -> None:
    where = {name.split(" ")[0] for name, _ in transcripts()}
    assert {"README.md", "docs/dice.md"} <= where


@pytest.mark.parametrize(("where", "block"), transcripts(), ids=[name for name, _ in transcripts()])
def test_transcript_is_what_the_console_prints(tmp_path: Path, where: str, block: str) -> None:
    lines = block.splitlines()
    typed = "".join(line[2:] + "\n" for line in lines if line.startswith("> "))
    expected = [line for line in lines if not line.startswith("> ")]
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/console.db", "DISCORD_TOKEN": ""}
    result = subprocess.run(
        [sys.executable, "-m", "bot", "console", "--seed", "1"],
        input=typed,
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    printed = [line for line in result.stdout.splitlines() if not line.startswith("Buttons:")]
    assert printed == expected, where
