"""Slash commands written as one line of text, as in Discord's message box: `/dnd attack target_ac:15`.

The offline console reads such lines, and saved rolls (`/macro save`) keep them. A line is checked against
the commands' schema (what `tree.sync()` sends) the way Discord's client checks what it sends: command and
option names, types, choices, ranges, required options.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

from bot.errors import UserError

SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = 3, 4, 5, 6, 7, 8, 9, 10, 11
TRUE, FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


class CommandLineError(UserError):
    """A command line that does not fit the commands; the message says why."""

    title = "Can't read that command"


@dataclass(frozen=True, slots=True)
class Parsed:
    """A console line, understood: who runs which command with which options."""

    user_id: str | None
    name: str
    options: list[dict[str, Any]]
    # The users the options name; a channel's or role's object (its type, its server) is the caller's to add.
    resolved: dict[str, Any] | None
    files: dict[str, str]  # attachment option -> local path, uploaded when the line runs


def parse_line(line: str, commands: list[dict[str, Any]]) -> Parsed:
    """Turn one console line into a command name and typed options, checked against the synced schema."""
    user_id, text = split_user(line)
    if not text.startswith("/"):
        raise CommandLineError("A command starts with /, e.g. /roll expression:1d20+5 (type ? for the list).")
    try:
        words = shlex.split(text[1:])
    except ValueError as error:
        raise CommandLineError(f"Could not read the line: {error}.") from None
    if not words:
        raise CommandLineError("Type a command name after the /.")
    by_name = {c["name"]: c for c in commands}
    if words[0] not in by_name:
        raise CommandLineError(f"There is no /{words[0]}. Commands: {', '.join('/' + n for n in sorted(by_name))}.")
    node = by_name[words[0]]
    path = [words[0]]
    rest = words[1:]
    while any(o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in node.get("options", [])):
        subs = {o["name"]: o for o in node["options"]}
        if not rest or rest[0] not in subs:
            raise CommandLineError(f"/{' '.join(path)} needs one of: {', '.join(sorted(subs))}.")
        node = subs[rest[0]]
        path.append(rest.pop(0))
    options, resolved = _options(node, rest, "/" + " ".join(path))
    files = {o["name"]: o["value"] for o in options if o["type"] == ATTACHMENT}
    return Parsed(user_id, " ".join(path), options, resolved, files)


def _options(node: dict[str, Any], words: list[str], where: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    schema = {o["name"]: o for o in node.get("options", [])}
    given: dict[str, str] = {}
    for word in words:
        name, colon, value = word.partition(":")
        if not colon:
            raise CommandLineError(f"Write options as name:value; `{word}` has no colon.")
        if name not in schema:
            known = ", ".join(schema) or "none"
            raise CommandLineError(f"{where} has no option `{name}`. Its options: {known}.")
        if name in given:
            raise CommandLineError(f"Option `{name}` is given twice.")
        given[name] = value
    missing = [n for n, o in schema.items() if o.get("required") and n not in given]
    if missing:
        raise CommandLineError(f"{where} needs {', '.join(missing)}.")
    options = []
    resolved: dict[str, Any] = {}
    for name, raw in given.items():
        option = schema[name]
        value = _value(option, raw)
        if option["type"] == USER:
            resolved.setdefault("users", {})[value] = user_object(value)
        options.append({"name": name, "type": option["type"], "value": value})
    return options, resolved or None


def _value(option: dict[str, Any], raw: str) -> Any:
    name, kind = option["name"], option["type"]
    value: Any
    if kind == STRING:
        value = raw
        if not option.get("min_length", 0) <= len(raw) <= option.get("max_length", 6000):
            low, high = option.get("min_length", 0), option.get("max_length", 6000)
            raise CommandLineError(f"`{name}` must be {low} to {high} characters long.")
    elif kind in (INTEGER, NUMBER):
        try:
            value = int(raw) if kind == INTEGER else float(raw)
        except ValueError:
            what = "a whole number" if kind == INTEGER else "a number"
            raise CommandLineError(f"`{name}` must be {what}, not `{raw}`.") from None
        if "min_value" in option and value < option["min_value"]:
            raise CommandLineError(f"`{name}` must be at least {option['min_value']}.")
        if "max_value" in option and value > option["max_value"]:
            raise CommandLineError(f"`{name}` must be at most {option['max_value']}.")
    elif kind == BOOLEAN:
        if raw.lower() not in TRUE + FALSE:
            raise CommandLineError(f"`{name}` must be true or false, not `{raw}`.")
        value = raw.lower() in TRUE
    elif kind == ATTACHMENT:
        value = raw  # a local path; uploaded to the double when the line runs
    elif kind == USER:
        value = raw.strip("<@!>")
        if not value.isdecimal():
            raise CommandLineError(f"`{name}` must be a user id or mention, not `{raw}`.")
    elif kind == CHANNEL:
        value = raw.removeprefix("<#").removesuffix(">").removeprefix("#")
        if not value.isdecimal():
            raise CommandLineError(f"`{name}` must be a channel id or mention (#ID or <#ID>), not `{raw}`.")
    elif kind == ROLE:
        value = raw.removeprefix("<@&").removesuffix(">").removeprefix("&")
        if not value.isdecimal():
            raise CommandLineError(f"`{name}` must be a role id or mention (&ID or <@&ID>), not `{raw}`.")
    else:
        raise CommandLineError(f"The console cannot fill an option of this type yet (`{name}`).")
    choices = option.get("choices")
    if choices:
        for choice in choices:
            if str(choice["value"]) == str(value) or choice["name"].lower() == raw.lower():
                return choice["value"]
        raise CommandLineError(f"`{name}` must be one of: {', '.join(c['name'] for c in choices)}.")
    return value


def user_object(user_id: str, username: str = "") -> dict[str, Any]:
    """A user object as Discord puts it in an interaction's `resolved` data; the name is made up if not given."""
    name = username or f"player{user_id[-4:]}"
    return {
        "id": user_id,
        "username": name,
        "discriminator": "0",
        "global_name": name.title(),
        "avatar": None,
        "public_flags": 0,
    }


def split_user(text: str) -> tuple[str | None, str]:
    """`@ID rest` -> (ID, rest); a line without it acts as the console's user."""
    text = text.strip()
    if not text.startswith("@"):
        return None, text
    head, _, rest = text.partition(" ")
    if not head[1:].isdecimal():
        raise CommandLineError(f"`{head}` is not a user id: write @ followed by digits, e.g. @200000000000000002.")
    return head[1:], rest.strip()
