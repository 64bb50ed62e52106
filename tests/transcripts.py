"""Transcripts in the README and docs/: finding them, the lines typed, and what the console printed for each.

tests/test_transcripts.py runs every transcript; tests/test_fights.py runs the fight scripts some of them show.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tests.helpers import ROOT

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_BLOCK = re.compile(r"^(```|~~~)text\n(.*?)^\1$", re.MULTILINE | re.DOTALL)
MARK = "click"
MARKED = "!! `click LABEL` presses a button of the bot's last answer."
PROMPTS = {"console": "> ", "shell": "$ "}
# A session log's name holds its commitment: a rewrite renames it wherever the document mentions it.
_LOG_NAME = re.compile(r"fair-session-[0-9a-f]{16}\.json")
_SCRIPT = re.compile(r"<!-- script: (\S+) -->\n\Z")


def script_lines(script: Path) -> tuple[str, ...]:
    """The lines of a console script the console runs: without comments and blank lines."""
    lines = (line.strip() for line in script.read_text(encoding="utf-8").splitlines())
    return tuple(line for line in lines if line and not line.startswith("#"))


@dataclass(frozen=True)
class Block:
    """One transcript: where its body sits in the document, its kind, and (input, printed lines) pairs."""

    document: Path
    start: int
    end: int
    kind: str
    steps: tuple[tuple[str, tuple[str, ...]], ...]
    script: Path | None = None  # the console script whose transcript this is

    @property
    def typed(self) -> tuple[str, ...]:
        """What is typed: the script's lines, else the ones the block shows."""
        return script_lines(self.script) if self.script else tuple(typed for typed, _ in self.steps)

    def text(self, printed: list[list[str]], renames: dict[str, str]) -> str:
        """The block's body with each input (its file names renamed) followed by `printed` for it."""
        prompt = PROMPTS[self.kind]
        return "".join(
            prompt + renamed(typed, renames) + "\n" + "".join(line + "\n" for line in out)
            for typed, out in zip(self.typed, printed, strict=True)
        )


def blocks(document: Path) -> list[Block]:
    """Every transcript of a document, in order: a `text` block whose first line is typed."""
    found = []
    text = document.read_text(encoding="utf-8")
    for match in _BLOCK.finditer(text):
        named = _SCRIPT.search(text, 0, match.start())
        script = ROOT / named[1] if named else None
        lines = match.group(2).splitlines()
        kind = next((k for k, prompt in PROMPTS.items() if lines and lines[0].startswith(prompt)), None)
        if kind is None:
            continue
        steps: list[tuple[str, list[str]]] = []
        for line in lines:
            if line.startswith(PROMPTS[kind]):
                steps.append((line[len(PROMPTS[kind]) :], []))
            else:
                steps[-1][1].append(line)
        shown = tuple((t, tuple(o)) for t, o in steps)
        found.append(Block(document, match.start(2), match.end(2), kind, shown, script))
    return found


def log_names(lines: Iterable[str]) -> list[str]:
    """The fair session logs named in these lines, in order of first mention."""
    return list(dict.fromkeys(name for line in lines for name in _LOG_NAME.findall(line)))


def renamed(text: str, renames: dict[str, str]) -> str:
    """`text` with every log name in `renames` replaced by its new one."""
    return _LOG_NAME.sub(lambda match: renames.get(match[0], match[0]), text)


def split_printed(lines: list[str]) -> list[list[str]]:
    """What the console printed for each typed line, when a `MARK` line was typed after each."""
    printed: list[list[str]] = [[]]
    for line in lines:
        if line == MARKED:
            printed.append([])
        else:
            printed[-1].append(line)
    assert printed.pop() == [], "the console printed after its last line"
    return printed
