"""The export file: every character of a user in a server, as JSON, and its validation on the way back in.

An import is validated as a whole before anything is written: the file's shape, every stat block (strictly,
after upgrading old schema versions), names, duplicates and the per-user limit. One bad character refuses
the whole file, with the reason and where it is.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.rules import rulesets
from bot.rules.sheets.base import Ruleset, Sheet, SheetError, character_name, name_key

FORMAT = "rules-dice-bot/characters"
FORMAT_VERSION = 1
MAX_CHARACTERS = 50
# 50 blocks of at most 16 KB, with room for names and indentation; anything larger is not an export.
MAX_IMPORT_BYTES = 1024 * 1024


class ImportError_(SheetError):
    """A file that is not a valid export."""

    title = "Can't import that file"


@dataclass(frozen=True, slots=True)
class Portable:
    """One character as the export file holds it."""

    ruleset: Ruleset
    name: str
    sheet: Sheet

    def __reduce__(self) -> tuple[Any, ...]:
        # Across processes by its ruleset's key: the registered ruleset holds lambdas, which do not pickle.
        return _portable, (self.ruleset.key, self.name, self.sheet)


def _portable(key: str, name: str, sheet: Sheet) -> Portable:
    rules = rulesets.find(key)
    assert rules is not None, f"no ruleset {key!r} in this process"
    return Portable(rules, name, sheet)


def dump_export(characters: Iterable[Portable], *, exported_at: datetime) -> bytes:
    """The export file's bytes: indented JSON, stable key order, so that two exports can be compared."""
    document = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "exported_at": exported_at.isoformat(),
        "characters": [
            {"ruleset": c.ruleset.key, "name": c.name, "sheet": c.ruleset.dump(c.sheet)} for c in characters
        ],
    }
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False).encode()


def parse_export(raw: bytes) -> list[Portable]:
    """Every character of an export file, validated; refuses the whole file at the first problem."""
    if len(raw) > MAX_IMPORT_BYTES:
        raise ImportError_(f"An export is at most {MAX_IMPORT_BYTES // 1024} KB; this file is larger.")
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ImportError_("That file is not JSON. Use a file made by `/character export`.") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ImportError_("That JSON is not a character export. Use a file made by `/character export`.")
    if document.get("version") != FORMAT_VERSION:
        raise ImportError_(f"This bot reads export version {FORMAT_VERSION}, not {document.get('version')!r}.")
    unknown = set(document) - {"format", "version", "exported_at", "characters"}
    if unknown:
        raise ImportError_(f"Unknown keys in the file: {', '.join(sorted(map(str, unknown)))[:200]}.")
    entries = document.get("characters")
    if not isinstance(entries, list):
        raise ImportError_("`characters` must be a list.")
    if len(entries) > MAX_CHARACTERS:
        raise ImportError_(f"The file holds {len(entries)} characters; at most {MAX_CHARACTERS} fit in a server.")
    characters = [_entry(i, entry) for i, entry in enumerate(entries)]
    seen: set[tuple[str, str]] = set()
    for c in characters:
        key = (c.ruleset.key, name_key(c.name))
        if key in seen:
            raise ImportError_(f"The file holds two {c.ruleset.title} characters called **{c.name}**.")
        seen.add(key)
    return characters


def _entry(index: int, entry: Any) -> Portable:
    where = f"Character {index + 1}"
    if not isinstance(entry, dict) or set(entry) != {"ruleset", "name", "sheet"}:
        raise ImportError_(f"{where} must have exactly `ruleset`, `name` and `sheet`.")
    rules = rulesets.find(entry["ruleset"]) if isinstance(entry["ruleset"], str) else None
    if rules is None:
        raise ImportError_(
            f"{where}: unknown ruleset {str(entry['ruleset'])[:40]!r}; known: {', '.join(rulesets.registered_keys())}."
        )
    if not isinstance(entry["name"], str):
        raise ImportError_(f"{where}: `name` must be text.")
    try:
        name = character_name(entry["name"])
    except SheetError as error:
        raise ImportError_(f"{where}: {error.message}") from None  # a refused name is not shown back
    try:
        sheet = rules.load(entry["sheet"])
    except SheetError as error:
        raise ImportError_(f"{where} ({name}): {error.message}") from None
    return Portable(rules, name, sheet)


@dataclass(frozen=True, slots=True)
class ImportPlan:
    """What an import will do to a user's characters in a server."""

    characters: tuple[Portable, ...]
    created: tuple[str, ...]
    replaced: tuple[str, ...]

    @classmethod
    def make(cls, characters: list[Portable], owned: Iterable[tuple[str, str]]) -> ImportPlan:
        """Compare the file with what the user has, (ruleset key, name): same ruleset and name (any case) replaces."""
        existing = {(key, name_key(name)) for key, name in owned}
        created = tuple(
            f"{c.name} ({c.ruleset.title})" for c in characters if (c.ruleset.key, name_key(c.name)) not in existing
        )
        replaced = tuple(
            f"{c.name} ({c.ruleset.title})" for c in characters if (c.ruleset.key, name_key(c.name)) in existing
        )
        if len(existing) + len(created) > MAX_CHARACTERS:
            raise ImportError_(
                f"You have {len(existing)} characters here and the file would add {len(created)}: more than the "
                f"{MAX_CHARACTERS} a user may have in a server."
            )
        return cls(tuple(characters), created, replaced)

    def summary(self) -> str:
        """The plan in words, for the confirmation question."""
        parts = []
        if self.created:
            parts.append(f"**Create {len(self.created)}:** " + ", ".join(self.created))
        if self.replaced:
            parts.append(
                f"**Replace {len(self.replaced)}** (their current numbers are overwritten): " + ", ".join(self.replaced)
            )
        if not parts:
            parts.append("The file holds no characters; nothing would change.")
        text = "\n".join(parts)
        return text if len(text) <= 3900 else text[:3899] + "…"


def plan_import(raw: bytes, owned: list[tuple[str, str]]) -> ImportPlan:
    """The whole check of an import file against the user's characters (`parse_export`, `ImportPlan.make`).

    Run in the worker process: 50 blocks of 16 KB take a few hundred milliseconds to validate.
    """
    return ImportPlan.make(parse_export(raw[: MAX_IMPORT_BYTES + 1]), owned)
