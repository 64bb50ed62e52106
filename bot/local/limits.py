"""Discord's documented limits for application commands and messages, checked offline.

Sources: the API docs' application-commands page (name pattern, 1-32 / 1-100 characters, at most 25
options and choices, required options first, 8000 combined characters per command since 2024-02-20,
100 slash commands per scope; which option types take choices, ranges, lengths, autocomplete and channel
types), Discord's published OpenAPI schema (discord/discord-api-spec: the `ChannelTypes` a CHANNEL option may
list, which has no 16, media; the `contexts` and `integration_types` enums) and the message resource page
(embed limits, 6000 characters summed over all embeds of a message). discord.py accepts many payloads that
Discord then rejects with 400 / 50035, so the double applies these checks to every sync and every response.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from bot.discord_api import sync_payload as sync_payload  # what is checked here; the bot needs it too

SUB_COMMAND, SUB_COMMAND_GROUP, STRING, INTEGER, CHANNEL, NUMBER = 1, 2, 3, 4, 7, 10
OPTION_TYPES = range(1, 12)  # SUB_COMMAND .. ATTACHMENT
CHAT_INPUT, USER, MESSAGE = 1, 2, 3
# The schema's ChannelTypes: text, DM, voice, group DM, category, announcement, the three threads, stage,
# directory, forum. discord.py's channel annotations add 16 (media), which the schema refuses.
SCHEMA_CHANNEL_TYPES = frozenset({0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15})
CONTEXTS = frozenset({0, 1, 2})  # guild, bot DM, private channel
INTEGRATION_TYPES = frozenset({0, 1})  # guild install, user install
# Integer and number options, their choices and their ranges, lie within what a double holds exactly.
SAFE_NUMBER = 2**53
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
        if kind not in OPTION_TYPES:
            errors.append(f"{at}: unknown option type {kind}")
        choices = option.get("choices") or []
        if len(choices) > 25:
            errors.append(f"{at}: {len(choices)} choices > 25")
        if choices and kind not in (STRING, INTEGER, NUMBER):
            errors.append(f"{at}: only string, integer and number options take choices")
            choices = []
        if option.get("autocomplete") and kind not in (STRING, INTEGER, NUMBER):
            errors.append(f"{at}: only string, integer and number options autocomplete")
        if choices and option.get("autocomplete"):
            errors.append(f"{at}: autocomplete may not be set together with choices")
        for choice in choices:
            if not 1 <= len(choice["name"]) <= 100:
                errors.append(f"{at}: choice name must be 1-100 characters")
            if not _value_ok(kind, choice["value"]):
                errors.append(f"{at}: choice value {choice['value']!r} does not fit a type {kind} option")
        _check_bounds(option, at, errors)
        _check_channel_types(option, at, errors)


def _value_ok(kind: int, value: Any) -> bool:
    """A choice value of an option of type `kind`: a string of 1-100 characters, or a number Discord holds."""
    if kind == STRING:
        return isinstance(value, str) and 1 <= len(value) <= 100
    number = (int,) if kind == INTEGER else (int, float)
    return isinstance(value, number) and not isinstance(value, bool) and -SAFE_NUMBER <= value <= SAFE_NUMBER


def _check_bounds(option: dict[str, Any], at: str, errors: list[str]) -> None:
    """min_length/max_length only on strings, min_value/max_value only on numbers, each low <= high."""
    kind = option["type"]
    for low, high, cap, kinds in (
        ("min_length", "max_length", 6000, (STRING,)),
        ("min_value", "max_value", None, (INTEGER, NUMBER)),
    ):
        given = {key: option[key] for key in (low, high) if option.get(key) is not None}
        if given and kind not in kinds:
            errors.append(f"{at}: {', '.join(given)} only apply to option types {kinds}")
            continue
        for key, value in given.items():
            if cap is not None and not (0 if key == low else 1) <= value <= cap:
                errors.append(f"{at}: {key} out of {0 if key == low else 1}..{cap}")
            if cap is None and not _value_ok(kind, value):
                errors.append(f"{at}: {key} {value!r} does not fit a type {kind} option")
        if len(given) == 2 and given[low] > given[high]:
            errors.append(f"{at}: {low} {given[low]} > {high} {given[high]}")


def _check_channel_types(option: dict[str, Any], at: str, errors: list[str]) -> None:
    """channel_types only on CHANNEL options, each one the schema's ChannelTypes holds, none twice."""
    types = option.get("channel_types")
    if types is None:
        return
    if option["type"] != CHANNEL:
        errors.append(f"{at}: only channel options take channel_types")
    if unknown := sorted(set(types) - SCHEMA_CHANNEL_TYPES):
        errors.append(f"{at}: channel_types {unknown} are not in the API schema's ChannelTypes")
    if len(types) != len(set(types)):
        errors.append(f"{at}: a channel type is listed twice")


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
    elif command.get("type") in (USER, MESSAGE):
        if not 1 <= len(name) <= 32:
            errors.append(f"{name!r}: context-menu name must be 1-32 characters")
        if command.get("description") or command.get("options"):
            errors.append(f"{name!r}: a context-menu command has no description and no options")
    else:
        errors.append(f"{name!r}: unknown command type {command.get('type')}")
    errors.extend(_check_command_fields(command))
    return errors


def _check_command_fields(command: dict[str, Any]) -> list[str]:
    """The fields beside the options: the enums of the schema and a permission bit set written as a string."""
    errors: list[str] = []
    name = command["name"]
    if unknown := sorted(set(command.get("contexts") or ()) - CONTEXTS):
        errors.append(f"/{name}: contexts {unknown} are not in the API schema")
    if unknown := sorted(set(command.get("integration_types") or ()) - INTEGRATION_TYPES):
        errors.append(f"/{name}: integration_types {unknown} are not in the API schema")
    permissions = command.get("default_member_permissions")
    if permissions is not None and not (isinstance(permissions, str) and permissions.isdecimal()):
        errors.append(f"/{name}: default_member_permissions must be a bit set as a string of digits")
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
