"""The offline console: slash commands typed as in Discord's message box, run through the real bot.

A line is `/command [subcommand] option:value option:"a value with spaces"`, optionally preceded by
`@USER_ID ` to act as another user, `@USER_ID! ` as another user with Manage Server. An attachment option
takes a local path (`file:characters.json`), a channel option `#ID` (a text channel of the console's
server), a role option `&ID`.
`click LABEL` presses a button of the bot's last answer and `submit field:value ...` fills in the form it
just showed. Three directives script a whole fight (`DIRECTIVES` below says what each does): `restart`,
`together LINE || LINE` and `expect ...`. The line becomes a real interaction payload, checked the way Discord's
client checks what it sends (option names, types, choices, ranges, required options), and goes through the
gateway of the local double to discord.py's own command tree. What the bot sends back is printed as text,
or with `--json` as one object per request: `{"method", "path", "body"}`. A line the bot takes longer than
the timeout to finish is stopped with an error line, and the console reads the next.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import shlex
import sys
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, TextIO, cast

from bot.client import DiceBot
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
from bot.config import Settings
from bot.db.encounters import EncounterRepository
from bot.db.engine import Database
from bot.db.rolls import RollRepository
from bot.local.double import AUTOCOMPLETE_RESULT, DEFERRED_MESSAGE, EPHEMERAL, MODAL, Captured
from bot.local.driver import (
    DEFAULT_CHANNEL,
    DEFAULT_GUILD,
    DEFAULT_USER,
    Exchange,
    LocalDiscord,
    cancel_interactions,
    local_discord,
)
from bot.local.payloads import (
    APPLICATION_COMMAND,
    MANAGER_PERMISSIONS,
    MEMBER_PERMISSIONS,
    Actor,
    Snowflakes,
    channel_object,
    command_data,
    interaction,
    role_object,
)
from bot.rules import fair
from bot.rules.dice import DiceSource
from bot.rules.encounter import Encounter
from bot.rules.system_dice import SystemDice
from bot.tree import BotTree

MENTION = re.compile(r"<@!?(\d+)>")
UPLOAD_LIMIT = 10 * 1024 * 1024  # the attachment_size_limit the double's interactions announce
# With a seed the console's ids start from a fixed instant, so its whole output is reproducible.
SEEDED_EPOCH_MS = 1767225600000

DIRECTIVES = """\
Lines the console itself understands (everything else is a slash command; @ID or @ID! before a command, a
click or a form acts as that user, ! with Manage Server):
  click LABEL               press a button of the bot's last answer
  submit field:value ...    fill in the form the bot just showed
  restart                   stop the bot and start a new one over the same database, as a restarted process
                            would; the messages and buttons already shown stay, and still work (the dice
                            and ids go on from where they were)
  together LINE || LINE     send the lines at the same moment (two game masters pressing Next at once); each
                            one's answer is printed in the order typed, under a line naming it
  expect round N, NAME's turn; NAME: HP hp, CONDITION ROUNDS; ...
                            check this channel's fight: whose turn it is, and every combatant's hit points and
                            conditions (`not begun` before initiative); prints ok, else !! and what it is
                            (and the console then exits with status 1)
  # ...                     a comment
"""


@contextlib.asynccontextmanager
async def open_console(
    settings: Settings,
    database: Database,
    *,
    seed: int | None = None,
    user: str | None = None,
    guild: str | None = None,
    manager: bool = False,
) -> AsyncIterator[LocalDiscord]:
    """The console's bot over `database`, logged into a double; with a seed its dice, ids and fair seeds repeat.

    `python -m bot console` and the tests that run console scripts both start here, so they print the same.
    """
    seeded = seed is not None
    dice: DiceSource = random.Random(seed) if seeded else SystemDice()
    # A seeded console's fair seeds are reproducible too (so never secret): its transcripts then replay exactly.
    fair_seeds = partial(random.Random(f"fair {seed}").randbytes, fair.SEED_BYTES) if seeded else fair.new_seed
    # A kept database remembers the ids of earlier runs (Roll again finds a roll by its interaction's id).
    async with database.read() as session:
        latest = await RollRepository(session).latest_interaction()
    ids = Snowflakes(SEEDED_EPOCH_MS, after=latest) if seeded else Snowflakes()
    actor = Actor(
        user_id=user or DEFAULT_USER,
        guild_id=guild or DEFAULT_GUILD,
        channel_id=DEFAULT_CHANNEL,
        permissions=MANAGER_PERMISSIONS if manager else MEMBER_PERMISSIONS,
    )
    # The console registers its commands with the double itself; a dev server sync would only add noise.
    # Its one typist is no crowd to protect Discord from, and a script would only trip the rate limit.
    settings = replace(settings, dev_guild_id=None, rate_limit=None)
    async with local_discord(
        lambda: DiceBot(settings=settings, database=database, dice=dice, fair_seeds=fair_seeds),
        connect=True,
        ids=ids,
        actor=actor,
    ) as local:
        if seeded:
            unhurried(local)
        yield local


PATIENCE = 3600.0  # seconds a seeded console waits for an answer: a busy machine must not change what it prints


def unhurried(local: LocalDiscord) -> None:
    """A seeded console's bot never defers for slowness, and its double never drops a slow answer.

    A seeded run prints every byte the same each time (transcripts are checked against it), so what it prints
    may not hang on how busy the machine is: on a loaded one, a fight's Next that took 2 seconds printed "the bot
    is thinking" once in a while. The watchdog and its clock are tested where they matter (tests/test_faults.py,
    tests/db/test_slow_database.py); here nobody waits but the typist.
    """
    tree = cast(BotTree, local.bot.tree)
    tree.defer_after = PATIENCE
    tree.admission.backed_up = PATIENCE
    local.double.ack_deadline = PATIENCE


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
    """Lines of `stream`, read without blocking the event loop; a prompt is shown when interactive.

    Each line is read in a daemon thread, not the loop's executor: at Ctrl-C `asyncio.run` waits for its
    executor's threads, and one blocked reading a terminal or a pipe nobody closes would never end.
    """
    loop = asyncio.get_running_loop()
    while True:
        if prompt:
            print("> ", end="", flush=True)
        read: asyncio.Future[str] = loop.create_future()

        def reader(read: asyncio.Future[str] = read) -> None:
            try:
                line = stream.readline()
            except (OSError, ValueError):  # closed under us
                line = ""

            def give() -> None:
                if not read.done():
                    read.set_result(line)

            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits for the line
                loop.call_soon_threadsafe(give)

        threading.Thread(target=reader, name="console input", daemon=True).start()
        line = await read
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
        self.failed = 0  # `expect` lines that did not hold

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
        word, _, rest = text.partition(" ")
        if word == "restart" and not rest:
            await self.local.restart()
            return self._note("the bot restarted over the same database")
        if word == "together":
            return await self._together(rest)
        if word == "expect":
            return await self._expect(rest.strip())
        mark = len(self.local.double.requests)
        self.last = await self._exchange(text)
        return self._printed(self.last, mark)

    async def _exchange(self, text: str) -> Exchange:
        """Send the interaction a line stands for (a command, a click, a form) and wait for its answer."""
        actor, rest = self.actor(text)
        word = rest.split(maxsplit=1)[0] if rest else ""
        if word == "click":
            return await self._click(rest[len(word) :].strip(), actor)
        if word == "submit":
            return await self._submit(rest[len(word) :].strip(), actor)
        if word in ("restart", "together", "expect"):
            raise ConsoleError(f"`{word}` is a line of its own (not after @ID, nor inside `together`).")
        parsed = self._resolve(parse_line(rest, self.commands), actor)
        data = command_data(parsed.name, parsed.options, resolved=parsed.resolved)
        return await self.local.send(interaction(self.local.ids, actor, APPLICATION_COMMAND, data))

    def _printed(self, exchange: Exchange, mark: int) -> list[str]:
        # What the bot posted in a channel on its own (a hidden roll's GM copy) carries no interaction token.
        mine = {id(r) for r in exchange.requests}
        requests = [r for r in self.local.double.requests[mark:] if id(r) in mine or _channel_post(r)]
        return render_json(requests) if self.as_json else render_text(requests, self.folder)

    def _note(self, text: str) -> list[str]:
        return [json.dumps({"console": text})] if self.as_json else [f"({text})"]

    async def _together(self, rest: str) -> list[str]:
        """The lines sent at once: every one is in flight before any is answered; answers in the order typed."""
        parts = [part.strip() for part in rest.split("||")]
        if len(parts) < 2 or not all(parts):
            raise ConsoleError("`together LINE || LINE` sends two or more lines at the same moment.")
        mark = len(self.local.double.requests)
        # Every click presses a button of the answer before this line, not of another part's.
        results = await asyncio.gather(*(self._exchange(part) for part in parts), return_exceptions=True)
        out: list[str] = []
        for number, (part, result) in enumerate(zip(parts, results, strict=True), start=1):
            out.extend(self._note(f"{number} of {len(parts)}: {part}"))
            if isinstance(result, CommandLineError):
                out.append(json.dumps({"error": str(result)}) if self.as_json else f"!! {result}")
            elif isinstance(result, BaseException):
                raise result
            else:
                out.extend(self._printed(result, mark))
                self.last = result
        return out

    async def _expect(self, rest: str) -> list[str]:
        """Check this channel's fight against the line: `ok`, else `!!` lines with what differs and what it is."""
        expected = [" ".join(part.split()) for part in rest.split(";")]
        if not expected[0]:
            raise ConsoleError("`expect round N, NAME's turn; NAME: HP hp, CONDITION ROUNDS; ...` checks the fight.")
        bot = cast(DiceBot, self.local.bot)
        async with bot.database.read() as session:
            record = await EncounterRepository(session).get(
                guild_id=int(self.local.actor.guild_id or 0), channel_id=int(self.local.actor.channel_id)
            )
        actual = fight_state(record.encounter if record else None)
        wrong = differences(expected, actual)
        if not wrong:
            return [json.dumps({"expect": "ok"})] if self.as_json else ["ok"]
        self.failed += 1
        lines = [f"expect failed: {'; '.join(wrong)}", f"the fight is: {'; '.join(actual)}"]
        return [json.dumps({"error": line}) for line in lines] if self.as_json else [f"!! {line}" for line in lines]

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


def fight_state(encounter: Encounter | None) -> list[str]:
    """A fight as `expect` words it: whose turn, then each combatant's hit points, square and conditions, in order."""
    if encounter is None:
        return ["no fight"]
    current = encounter.current
    parts = [f"round {encounter.round}, {current.name}'s turn" if current else "not begun"]
    for combatant in encounter.combatants:
        conditions = "".join(
            f", {condition.name} {condition.rounds}" if condition.rounds else f", {condition.name}"
            for condition in combatant.conditions
        )
        square = f" at ({combatant.position[0]}, {combatant.position[1]})" if combatant.position is not None else ""
        parts.append(f"{combatant.name}: {combatant.hp} hp{square}{conditions}")
    return parts


def differences(expected: list[str], actual: list[str]) -> list[str]:
    """What an `expect` line says that the fight does not (the turn first, then combatants by name)."""
    wrong = [] if expected[0] == actual[0] else [f"{expected[0]}, but {actual[0]}"]
    have = {part.split(":")[0]: part for part in actual[1:]}
    want = {part.split(":")[0]: part for part in expected[1:]}
    for name, part in want.items():
        if name not in have:
            wrong.append(f"{part}, but no {name} is in the fight")
        elif have[name] != part:
            wrong.append(f"{part}, but {have[name]}")
    wrong.extend(f"{have[name]} is not in the line" for name in have if name not in want)
    return wrong


async def run(
    local: LocalDiscord,
    lines: AsyncIterator[str],
    write: Callable[[str], None],
    *,
    as_json: bool,
    folder: Path | None = None,
) -> int:
    """Run every line through the bot and write what it sent back; how many `expect` lines did not hold."""
    session = Session(local, as_json=as_json, folder=folder or Path.cwd())
    async for line in lines:
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if text in ("?", "help") and not as_json:  # /help is the bot's own command
            write(DIRECTIVES + "\nCommands:\n" + command_list(session.commands))
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
    return session.failed


def stdout_writer(line: str) -> None:
    """Print a line and flush, so a pipe sees each answer as soon as it is made."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()
