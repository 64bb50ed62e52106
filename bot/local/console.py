"""The offline console: slash commands typed as in Discord's message box, run through the real bot.

A line is `/command [subcommand] option:value option:"a value with spaces"`, optionally preceded by
`@USER_ID ` to act as another user. The line becomes a real interaction payload, checked the way Discord's
client checks what it sends (option names, types, choices, ranges, required options), and goes through the
gateway of the local double to discord.py's own command tree. What the bot sends back is printed as text,
or with `--json` as one object per request: `{"method", "path", "body"}`.
"""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, TextIO

from bot.local.double import AUTOCOMPLETE_RESULT, DEFERRED_MESSAGE, EPHEMERAL, Captured
from bot.local.driver import LocalDiscord
from bot.local.payloads import APPLICATION_COMMAND, command_data, interaction, user_object

SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = 3, 4, 5, 6, 7, 8, 9, 10, 11
TRUE, FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


class ConsoleError(Exception):
    """A line the console cannot turn into an interaction; the message says why."""


@dataclass(frozen=True, slots=True)
class Parsed:
    """A console line, understood: who runs which command with which options."""

    user_id: str | None
    name: str
    options: list[dict[str, Any]]
    resolved: dict[str, Any] | None


def parse_line(line: str, commands: list[dict[str, Any]]) -> Parsed:
    """Turn one console line into a command name and typed options, checked against the synced schema."""
    user_id = None
    text = line.strip()
    if text.startswith("@"):
        head, _, text = text.partition(" ")
        user_id = head[1:]
        if not user_id.isdigit():
            raise ConsoleError(f"`{head}` is not a user id: write @ followed by digits, e.g. @200000000000000002.")
        text = text.strip()
    if not text.startswith("/"):
        raise ConsoleError("A command starts with /, e.g. /roll expression:1d20+5 (type ? for the list).")
    try:
        words = shlex.split(text[1:])
    except ValueError as error:
        raise ConsoleError(f"Could not read the line: {error}.") from None
    if not words:
        raise ConsoleError("Type a command name after the /.")
    by_name = {c["name"]: c for c in commands}
    if words[0] not in by_name:
        raise ConsoleError(f"There is no /{words[0]}. Commands: {', '.join('/' + n for n in sorted(by_name))}.")
    node = by_name[words[0]]
    path = [words[0]]
    rest = words[1:]
    while any(o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in node.get("options", [])):
        subs = {o["name"]: o for o in node["options"]}
        if not rest or rest[0] not in subs:
            raise ConsoleError(f"/{' '.join(path)} needs one of: {', '.join(sorted(subs))}.")
        node = subs[rest[0]]
        path.append(rest.pop(0))
    options, resolved = _options(node, rest, "/" + " ".join(path))
    return Parsed(user_id, " ".join(path), options, resolved)


def _options(node: dict[str, Any], words: list[str], where: str) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    schema = {o["name"]: o for o in node.get("options", [])}
    given: dict[str, str] = {}
    for word in words:
        name, colon, value = word.partition(":")
        if not colon:
            raise ConsoleError(f"Write options as name:value; `{word}` has no colon.")
        if name not in schema:
            known = ", ".join(schema) or "none"
            raise ConsoleError(f"{where} has no option `{name}`. Its options: {known}.")
        if name in given:
            raise ConsoleError(f"Option `{name}` is given twice.")
        given[name] = value
    missing = [n for n, o in schema.items() if o.get("required") and n not in given]
    if missing:
        raise ConsoleError(f"{where} needs {', '.join(missing)}.")
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
            raise ConsoleError(f"`{name}` must be {low} to {high} characters long.")
    elif kind in (INTEGER, NUMBER):
        try:
            value = int(raw) if kind == INTEGER else float(raw)
        except ValueError:
            what = "a whole number" if kind == INTEGER else "a number"
            raise ConsoleError(f"`{name}` must be {what}, not `{raw}`.") from None
        if "min_value" in option and value < option["min_value"]:
            raise ConsoleError(f"`{name}` must be at least {option['min_value']}.")
        if "max_value" in option and value > option["max_value"]:
            raise ConsoleError(f"`{name}` must be at most {option['max_value']}.")
    elif kind == BOOLEAN:
        if raw.lower() not in TRUE + FALSE:
            raise ConsoleError(f"`{name}` must be true or false, not `{raw}`.")
        value = raw.lower() in TRUE
    elif kind == USER:
        value = raw.strip("<@!>")
        if not value.isdigit():
            raise ConsoleError(f"`{name}` must be a user id or mention, not `{raw}`.")
    else:
        raise ConsoleError(f"The console cannot fill an option of this type yet (`{name}`).")
    choices = option.get("choices")
    if choices:
        for choice in choices:
            if str(choice["value"]) == str(value) or choice["name"].lower() == raw.lower():
                return choice["value"]
        raise ConsoleError(f"`{name}` must be one of: {', '.join(c['name'] for c in choices)}.")
    return value


def command_list(commands: list[dict[str, Any]]) -> str:
    """Every command with its options, for `?`."""
    lines = []

    def walk(node: dict[str, Any], path: str) -> None:
        options = node.get("options", [])
        if any(o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in options):
            for sub in options:
                walk(sub, f"{path} {sub['name']}")
            return
        shown = " ".join(f"{o['name']}:" if o.get("required") else f"[{o['name']}:]" for o in options)
        lines.append(f"{path} {shown}".rstrip() + f"\n    {node.get('description', '')}")

    for command in sorted(commands, key=lambda c: c["name"]):
        walk(command, "/" + command["name"])
    return "\n".join(lines)


# -- output ------------------------------------------------------------------------------------------------
def render_json(requests: list[Captured]) -> list[str]:
    """One JSON object per request, exactly as it would reach Discord."""
    return [json.dumps({"method": r.method, "path": r.target, "body": r.body}, sort_keys=True) for r in requests]


def render_text(requests: list[Captured]) -> list[str]:
    """The messages the bot sent, as readable text."""
    out: list[str] = []
    for request in requests:
        body = request.body if isinstance(request.body, dict) else {}
        if request.status >= 400:
            out.append(f"!! Discord would refuse this {request.method} ({request.status}): {json.dumps(body)[:300]}")
            continue
        if request.path.endswith("/callback"):
            kind = body.get("type")
            if kind == DEFERRED_MESSAGE:
                out.append("(the bot is thinking…)")
                continue
            if kind == AUTOCOMPLETE_RESULT:
                choices = body.get("data", {}).get("choices", [])
                out.append("Suggestions: " + (", ".join(c["name"] for c in choices) or "none"))
                continue
            body = body.get("data") or {}
        elif not request.path.startswith("/webhooks/") or request.method not in ("POST", "PATCH"):
            continue
        out.extend(render_message(body))
    return out


def render_message(body: dict[str, Any]) -> list[str]:
    """One message (content and embeds) as text."""
    out = []
    if body.get("flags", 0) & EPHEMERAL:
        out.append("(only you can see this)")
    if body.get("content"):
        out.append(body["content"])
    for embed in body.get("embeds") or []:
        if "author" in embed:
            out.append(embed["author"]["name"])
        if "title" in embed:
            out.append(f"== {embed['title']} ==")
        if "description" in embed:
            out.append(embed["description"])
        for field in embed.get("fields", []):
            out.append(f"{field['name']}: {field['value']}")
        if "footer" in embed:
            out.append(f"-- {embed['footer']['text']}")
    return out


# -- the loop ----------------------------------------------------------------------------------------------
async def read_lines(stream: TextIO, prompt: bool) -> AsyncIterator[str]:
    """Lines of `stream`, read without blocking the event loop; a prompt is shown when interactive."""
    while True:
        if prompt:
            print("> ", end="", flush=True)
        line = await asyncio.to_thread(stream.readline)
        if not line:
            return
        yield line


async def run(
    local: LocalDiscord,
    lines: AsyncIterator[str],
    write: Callable[[str], None],
    *,
    as_json: bool,
) -> None:
    """Run every line through the bot and write what it sent back."""
    commands = local.double.commands.get(None, [])
    async for line in lines:
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if text in ("?", "help", "/help") and not as_json:
            write(command_list(commands))
            continue
        try:
            parsed = parse_line(text, commands)
        except ConsoleError as error:
            write(json.dumps({"error": str(error)}) if as_json else f"!! {error}")
            continue
        actor = local.actor if parsed.user_id is None else local.as_user(parsed.user_id)
        data = command_data(parsed.name, parsed.options, resolved=parsed.resolved)
        exchange = await local.send(interaction(local.ids, actor, APPLICATION_COMMAND, data))
        for out in render_json(exchange.requests) if as_json else render_text(exchange.requests):
            write(out)


def stdout_writer(line: str) -> None:
    """Print a line and flush, so a pipe sees each answer as soon as it is made."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()
