"""The offline console: slash commands typed as in Discord's message box, run through the real bot.

A line is `/command [subcommand] option:value option:"a value with spaces"`, optionally preceded by
`@USER_ID ` to act as another user, `@USER_ID! ` as another user with Manage Server. An attachment option
takes a local path (`file:characters.json`), a channel option `#ID` (a text channel of the console's
server), a role option `&ID`.
`click LABEL` presses a button of the bot's last answer and `submit field:value ...` fills in the form it
just showed. The line becomes a real interaction payload, checked the way Discord's
client checks what it sends (option names, types, choices, ranges, required options), and goes through the
gateway of the local double to discord.py's own command tree. What the bot sends back is printed as text,
or with `--json` as one object per request: `{"method", "path", "body"}`. A line the bot takes longer than
the timeout to finish is stopped with an error line, and the console reads the next.
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from bot.commandline import (
    CHANNEL,
    ROLE,
    SUB_COMMAND,
    SUB_COMMAND_GROUP,
    CommandLineError,
    Parsed,
    parse_line,
    split_user,
)
from bot.local.double import AUTOCOMPLETE_RESULT, DEFERRED_MESSAGE, EPHEMERAL, MODAL, Captured
from bot.local.driver import Exchange, LocalDiscord, cancel_interactions
from bot.local.payloads import (
    APPLICATION_COMMAND,
    MANAGER_PERMISSIONS,
    MEMBER_PERMISSIONS,
    Actor,
    channel_object,
    command_data,
    interaction,
    role_object,
)

MENTION = re.compile(r"<@!?(\d+)>")
UPLOAD_LIMIT = 10 * 1024 * 1024  # the attachment_size_limit the double's interactions announce


class ConsoleError(CommandLineError):
    """A console line (a click, a form, a file) the console cannot carry out; the message says why."""


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
    """One JSON object per request, exactly as it would reach Discord (attached files as text, if any)."""
    lines = []
    for r in requests:
        shown: dict[str, Any] = {"method": r.method, "path": r.target, "body": r.body}
        if r.files:
            shown["files"] = {name: data.decode("utf-8", "replace") for name, data in r.files.items()}
        lines.append(json.dumps(shown, sort_keys=True))
    return lines


def render_text(requests: list[Captured], folder: Path | None = None) -> list[str]:
    """The messages the bot sent, as readable text; files it attached are saved in `folder`."""
    out: list[str] = []
    for request in requests:
        for name, data in request.files.items():
            if folder is not None:
                (folder / name).write_bytes(data)
                out.append(f"(attached {name}, {len(data)} bytes: saved as {_shown(folder / name)})")
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
        elif _channel_post(request):
            out.append(f"(posted in <#{request.path.split('/')[2]}>)")
        elif request.method == "PATCH" and request.path.startswith("/channels/"):
            # An earlier message brought up to date (an encounter's tracker after a change): said, not repeated.
            titles = ", ".join(e["title"] for e in body.get("embeds") or [] if "title" in e)
            out.append(f"(edited an earlier message: {titles})")
            continue
        elif not request.path.startswith("/webhooks/") or request.method not in ("POST", "PATCH"):
            continue
        out.extend(render_message(body))
        buttons = [c for row in body.get("components") or [] for c in row.get("components", []) if c.get("type") == 2]
        if buttons:
            out.append("Buttons: " + "  ".join(f"[{b.get('label')}]" for b in buttons) + "   (type: click LABEL)")
        if request.path.endswith("/callback") and (request.body or {}).get("type") == MODAL:
            out.extend(render_modal((request.body or {}).get("data") or {}))
    return out


def _channel_post(request: Captured) -> bool:
    return request.method == "POST" and request.path.startswith("/channels/") and request.path.endswith("/messages")


def render_modal(modal: dict[str, Any]) -> list[str]:
    """A form the bot showed, and how to fill it in."""
    out = [f"Form: {modal.get('title', '')}"]
    for row in modal.get("components", []):
        for component in row.get("components", [row.get("component")] if row.get("component") else []):
            out.append(
                f"  {component['custom_id']}: {component.get('value', '')}  ({component.get('placeholder', '')})"
            )
    out.append("(type: submit field:value ..., fields left out keep their value)")
    return out


def _shown(path: Path) -> Path:
    # Relative to the working folder when inside it: shorter, and the same on every machine.
    return path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path


def _mentions(text: str) -> str:
    # Discord shows a user mention as the user's name; the console's users are named after their ids.
    return MENTION.sub(lambda m: "@" + Actor(user_id=m[1], guild_id=None, channel_id="0").name, text)


def render_message(body: dict[str, Any]) -> list[str]:
    """One message (content and embeds) as text, user mentions shown as names."""
    return [_mentions(line) for line in _message_lines(body)]


def _message_lines(body: dict[str, Any]) -> list[str]:
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


class Session:
    """A console run: the driver, and the last answer (for `click` and `submit` lines)."""

    def __init__(self, local: LocalDiscord, *, as_json: bool, folder: Path) -> None:
        self.local = local
        self.as_json = as_json
        self.folder = folder
        self.commands = local.double.commands.get(None, [])
        self.last: Exchange | None = None

    def actor(self, text: str) -> tuple[Actor, str]:
        """Who runs a line (`@ID`, `@ID!` with Manage Server, else the console's user), and the line without it."""
        head, space, rest = text.partition(" ")
        manager = head.startswith("@") and head.endswith("!")
        user_id, rest = split_user(head.removesuffix("!") + space + rest if manager else text)
        if user_id is None:
            return self.local.actor, rest
        return self.local.as_user(user_id, permissions=MANAGER_PERMISSIONS if manager else MEMBER_PERMISSIONS), rest

    async def line(self, text: str) -> list[str]:
        """Run one line; what to print."""
        actor, rest = self.actor(text)
        mark = len(self.local.double.requests)
        word = rest.split(maxsplit=1)[0] if rest else ""
        if word == "click":
            exchange = await self._click(rest[len(word) :].strip(), actor)
        elif word == "submit":
            exchange = await self._submit(rest[len(word) :].strip(), actor)
        else:
            parsed = self._resolve(parse_line(rest, self.commands), actor)
            data = command_data(parsed.name, parsed.options, resolved=parsed.resolved)
            exchange = await self.local.send(interaction(self.local.ids, actor, APPLICATION_COMMAND, data))
        self.last = exchange
        # What the bot posted in a channel on its own (a hidden roll's GM copy) carries no interaction token.
        mine = {id(r) for r in exchange.requests}
        requests = [r for r in self.local.double.requests[mark:] if id(r) in mine or _channel_post(r)]
        return render_json(requests) if self.as_json else render_text(requests, self.folder)

    def _resolve(self, parsed: Parsed, actor: Actor) -> Parsed:
        """The line's files uploaded, and its channels and roles described, as Discord's client sends them."""
        resolved: dict[str, Any] = dict(parsed.resolved or {})
        for option in parsed.options:
            if option["name"] in parsed.files:
                option["value"], uploaded = self._upload(parsed.files[option["name"]])
                resolved |= uploaded
            elif option["type"] == CHANNEL:
                if actor.guild_id is None:
                    raise ConsoleError("A channel option names a channel of a server; this line has none.")
                resolved.setdefault("channels", {})[option["value"]] = channel_object(option["value"], actor)
            elif option["type"] == ROLE:
                resolved.setdefault("roles", {})[option["value"]] = role_object(option["value"])
        return replace(parsed, resolved=resolved or None)

    def _upload(self, path: str) -> tuple[str, dict[str, Any]]:
        file = self.folder / path
        if not file.is_file():
            raise ConsoleError(f"There is no file {path}.")
        if file.stat().st_size > UPLOAD_LIMIT:
            raise ConsoleError(f"{path} is larger than Discord's upload limit of {UPLOAD_LIMIT // 1024 // 1024} MB.")
        return self.local.upload(file.name, file.read_bytes())

    async def _click(self, label: str, actor: Actor) -> Exchange:
        if self.last is None or not label:
            raise ConsoleError("`click LABEL` presses a button of the bot's last answer.")
        message = self.local.original(self.last)
        buttons = [c for row in message.get("components", []) for c in row.get("components", []) if c.get("type") == 2]
        for button in buttons:
            if label.lower() in (str(button.get("label", "")).lower(), str(button.get("custom_id", "")).lower()):
                return await self.local.click(message, button["custom_id"], actor=actor)
        names = ", ".join(str(b.get("label")) for b in buttons) or "none"
        raise ConsoleError(f"The last answer has no button `{label}`. Buttons: {names}.")

    async def _submit(self, rest: str, actor: Actor) -> Exchange:
        if self.last is None or self.last.response.get("type") != MODAL:
            raise ConsoleError("`submit field:value ...` fills in the form the bot just showed.")
        try:
            words = shlex.split(rest)
        except ValueError as error:
            raise ConsoleError(f"Could not read the line: {error}.") from None
        values = dict(word.partition(":")[::2] for word in words)
        return await self.local.submit(self.last.modal, values, actor=actor)


async def run(
    local: LocalDiscord,
    lines: AsyncIterator[str],
    write: Callable[[str], None],
    *,
    as_json: bool,
    folder: Path | None = None,
) -> None:
    """Run every line through the bot and write what it sent back."""
    session = Session(local, as_json=as_json, folder=folder or Path.cwd())
    async for line in lines:
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if text in ("?", "help") and not as_json:  # /help is the bot's own command
            write(command_list(session.commands))
            continue
        try:
            for out in await session.line(text):
                write(out)
        except CommandLineError as error:
            write(json.dumps({"error": str(error)}) if as_json else f"!! {error}")
        except TimeoutError:
            # A hung command must not hang the console, nor keep the next line's settle() waiting on it.
            await cancel_interactions()
            message = (
                f"No answer within {local.timeout:g} s, so the command was stopped "
                "(python -m bot console --timeout SECONDS allows more)."
            )
            write(json.dumps({"error": message}) if as_json else f"!! {message}")


def stdout_writer(line: str) -> None:
    """Print a line and flush, so a pipe sees each answer as soon as it is made."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()
