"""Discord's documented limits for application commands and messages, checked offline.

Sources: the API docs' application-commands page (name pattern, 1-32 / 1-100 characters, at most 25
options and choices, required options first, 8000 combined characters per command since 2024-02-20,
100 slash commands per scope) and the message resource page (embed limits, 6000 characters summed over all
embeds of a message). discord.py accepts many payloads that Discord then rejects with 400 / 50035, so the
double applies these checks to every sync and every response.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from bot.discord_api import sync_payload as sync_payload  # what is checked here; the bot needs it too

SUB_COMMAND, SUB_COMMAND_GROUP, STRING = 1, 2, 3
CHAT_INPUT, USER, MESSAGE = 1, 2, 3
COMMAND_TOTAL_CHARS = 8000
MESSAGE_CONTENT = 2000
EMBEDS_PER_MESSAGE = 10
EMBED_LIMITS = {
    "title": 256,
    "description": 4096,
    "fields": 25,
    "field.name": 256,
    "field.value": 1024,
    "footer.text": 2048,
    "author.name": 256,
    "total": 6000,
}


def _name_ok(name: str) -> bool:
    r"""The pattern ``^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$``, lowercase where a lowercase exists."""
    if not 1 <= len(name) <= 32:
        return False
    for ch in name:
        deva_thai = 0x0900 <= ord(ch) <= 0x097F or 0x0E00 <= ord(ch) <= 0x0E7F
        if not (ch in "-_'" or unicodedata.category(ch)[0] in "LN" or deva_thai):
            return False
        if ch.lower() != ch:
            return False
    return True


def _longest(value: str | None, localizations: dict[str, str] | None) -> int:
    return max([len(value or "")] + [len(v) for v in (localizations or {}).values()])


def _chars(option: dict[str, Any]) -> int:
    total = _longest(option["name"], option.get("name_localizations")) + _longest(
        option.get("description"), option.get("description_localizations")
    )
    for choice in option.get("choices") or []:
        total += _longest(choice["name"], choice.get("name_localizations")) + len(str(choice["value"]))
    for sub in option.get("options") or []:
        total += _chars(sub)
    return total


def _check_options(options: list[dict[str, Any]], where: str, errors: list[str], depth: int) -> None:
    if len(options) > 25:
        errors.append(f"{where}: {len(options)} options > 25")
    names = [o["name"] for o in options]
    if len(names) != len(set(names)):
        errors.append(f"{where}: duplicate option names")
    if len({o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in options}) > 1:
        errors.append(f"{where}: subcommands cannot be mixed with plain options")
    seen_optional = False
    for option in options:
        at = f"{where}.{option['name']}"
        if not _name_ok(option["name"]):
            errors.append(f"{at}: bad option name")
        description = option.get("description") or ""
        if not 1 <= len(description) <= 100:
            errors.append(f"{at}: description must be 1-100 characters (got {len(description)})")
        kind = option["type"]
        if kind in (SUB_COMMAND, SUB_COMMAND_GROUP):
            if kind == SUB_COMMAND_GROUP and depth != 0:
                errors.append(f"{at}: groups can only be nested one level")
            if kind == SUB_COMMAND_GROUP and any(s["type"] != SUB_COMMAND for s in option.get("options") or []):
                errors.append(f"{at}: a group may only contain subcommands")
            _check_options(option.get("options") or [], at, errors, depth + 1)
            continue
        if option.get("required"):
            if seen_optional:
                errors.append(f"{at}: required option listed after an optional one")
        else:
            seen_optional = True
        choices = option.get("choices") or []
        if len(choices) > 25:
            errors.append(f"{at}: {len(choices)} choices > 25")
        if choices and option.get("autocomplete"):
            errors.append(f"{at}: autocomplete may not be set together with choices")
        for choice in choices:
            if not 1 <= len(choice["name"]) <= 100:
                errors.append(f"{at}: choice name must be 1-100 characters")
            if kind == STRING and not 1 <= len(str(choice["value"])) <= 100:
                errors.append(f"{at}: string choice value must be at most 100 characters")
        if "min_length" in option and not 0 <= option["min_length"] <= 6000:
            errors.append(f"{at}: min_length out of 0..6000")
        if "max_length" in option and not 1 <= option["max_length"] <= 6000:
            errors.append(f"{at}: max_length out of 1..6000")


def validate_command(command: dict[str, Any]) -> list[str]:
    """Problems Discord would report for one command as `Command.to_dict(tree)` produces it."""
    errors: list[str] = []
    name = command["name"]
    if command.get("type", CHAT_INPUT) == CHAT_INPUT:
        if not _name_ok(name):
            errors.append(f"/{name}: name must be 1-32 lowercase letters, digits, - _ or '")
        description = command.get("description") or ""
        if not 1 <= len(description) <= 100:
            errors.append(f"/{name}: description must be 1-100 characters (got {len(description)})")
        _check_options(command.get("options") or [], "/" + name, errors, 0)
        total = _chars({**command, "choices": None})
        if total > COMMAND_TOTAL_CHARS:
            errors.append(f"/{name}: {total} combined characters > {COMMAND_TOTAL_CHARS}")
    elif not 1 <= len(name) <= 32:
        errors.append(f"{name!r}: context-menu name must be 1-32 characters")
    return errors


def validate_command_set(commands: list[dict[str, Any]]) -> list[str]:
    """Problems Discord would report for a bulk overwrite (`PUT .../commands`, what `tree.sync()` sends)."""
    errors = [error for command in commands for error in validate_command(command)]
    for kind, cap in ((CHAT_INPUT, 100), (USER, 15), (MESSAGE, 15)):
        names = [c["name"] for c in commands if c.get("type", CHAT_INPUT) == kind]
        if len(names) > cap:
            errors.append(f"{len(names)} commands of type {kind} > {cap}")
        if len(names) != len(set(names)):
            errors.append(f"duplicate command names for type {kind}")
    return errors


def validate_message(body: dict[str, Any]) -> list[str]:
    """Problems Discord would report for a message or interaction-response body."""
    errors: list[str] = []
    if len(body.get("content") or "") > MESSAGE_CONTENT:
        errors.append(f"content > {MESSAGE_CONTENT} characters")
    embeds = body.get("embeds") or []
    if len(embeds) > EMBEDS_PER_MESSAGE:
        errors.append(f"more than {EMBEDS_PER_MESSAGE} embeds")
    total = 0
    for i, embed in enumerate(embeds):
        texts = [
            ("title", embed.get("title")),
            ("description", embed.get("description")),
            ("footer.text", (embed.get("footer") or {}).get("text")),
            ("author.name", (embed.get("author") or {}).get("name")),
        ]
        fields = embed.get("fields") or []
        if len(fields) > EMBED_LIMITS["fields"]:
            errors.append(f"embeds[{i}]: {len(fields)} fields > {EMBED_LIMITS['fields']}")
        for field in fields:
            texts += [("field.name", field.get("name")), ("field.value", field.get("value"))]
            for part in ("name", "value"):
                if not (field.get(part) or "").strip():
                    errors.append(f"embeds[{i}]: empty field {part}")
        for label, raw in texts:
            # Discord trims surrounding whitespace before it counts.
            length = len((raw or "").strip())
            total += length
            if length > EMBED_LIMITS[label]:
                errors.append(f"embeds[{i}].{label}: {length} > {EMBED_LIMITS[label]}")
    if total > EMBED_LIMITS["total"]:
        errors.append(f"embeds total {total} > {EMBED_LIMITS['total']}")
    return errors
