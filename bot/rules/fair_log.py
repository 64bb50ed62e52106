"""The exported log of a fair session: everything a player needs to check every roll offline, as JSON.

The file (`/fair reveal` attaches it, `/fair log` downloads it again, `python -m bot verify FILE` checks it):

    {
      "format": "rules-dice-bot/fair-session",
      "version": 1,
      "session": {
        "commitment": "<64 hex digits: SHA-256 of the seed, posted by /fair start>",
        "seed": "<64 hex digits>" or null while the session runs,
        "channel_id": "<the channel's id, a string of digits>",
        "started_at": "<ISO 8601 with offset>",
        "revealed_at": "<ISO 8601 with offset>" or null while the session runs,
        "last_roll": <the highest roll number the session gave out>
      },
      "rolls": [
        {"roll": 1, "command": "roll", "options": {"expression": "3d6"}, "user_id": "<digits>",
         "private": false, "draws": [[1, 6, 4], [1, 6, 2], [1, 6, 5]], "summary": "3d6 (4, 2, 5) = 11"},
        ...
      ]
    }

`rolls` is in roll-number order, one entry per logged roll. `draws` lists the roll's draws in the order they
were made, each [a, b, face]: the range asked for and the face given; with the seed and the roll number they
are all the derivation of `bot.rules.fair` needs. `options` are the command's options exactly as typed and
`summary` the first line of the answer; both are null for a private or hidden roll, whose draws alone are
published. A roll number from 1 to `last_roll` without an entry went to a command that failed before it
answered (a mistyped expression, say): its number is used up, it has no dice to check.
"""

from __future__ import annotations

import json
import string
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from bot.errors import UserError
from bot.rules import fair

FORMAT: Final = "rules-dice-bot/fair-session"
FORMAT_VERSION: Final = 1
_SESSION_KEYS: Final = {"commitment", "seed", "channel_id", "started_at", "revealed_at", "last_roll"}
_ROLL_KEYS: Final = {"roll", "command", "options", "user_id", "private", "draws", "summary"}


class FairLogError(UserError):
    """A file that is not a readable fair-session log; the message says where it went wrong."""

    title = "Can't read that log"


@dataclass(frozen=True, slots=True)
class LogRoll:
    """One logged roll of a fair session, as the file holds it."""

    roll: int
    command: str
    options: dict[str, Any] | None
    user_id: int
    private: bool
    draws: tuple[tuple[int, int, int], ...]
    summary: str | None


@dataclass(frozen=True, slots=True)
class FairLog:
    """A fair session and its rolls; `seed` is None until the session is revealed."""

    commitment: str
    seed: str | None
    channel_id: int
    started_at: datetime
    revealed_at: datetime | None
    last_roll: int
    rolls: tuple[LogRoll, ...]


def filename(commitment: str) -> str:
    """The attachment's name: the session's commitment prefix, as footers and `/fair log` show it."""
    return f"fair-session-{commitment[:16]}.json"


def part_names(commitment: str, count: int) -> list[str]:
    """The names of a log split into `count` attachments; in name order they join into the whole file."""
    if count == 1:
        return [filename(commitment)]
    width = len(str(count))
    return [f"{filename(commitment)}.part{n:0{width}d}" for n in range(1, count + 1)]


def split(data: bytes, limit: int) -> list[bytes]:
    """A file cut into pieces of at most `limit` bytes that join back into it, at line ends where it can be.

    A log holds one roll per line, so each piece but the last ends after a whole roll unless one line alone
    is longer than `limit`.
    """
    if limit < 1:
        raise ValueError("limit must be positive")
    pieces: list[bytes] = []
    start = 0
    while len(data) - start > limit:
        cut = data.rfind(b"\n", start, start + limit) + 1
        if cut <= start:
            cut = start + limit
        pieces.append(data[start:cut])
        start = cut
    pieces.append(data[start:])
    return pieces


def _stamp(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    # SQLite hands back the stored UTC time without its offset.
    return (moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)).isoformat()


def dump_log(log: FairLog) -> bytes:
    """The file's bytes: the session indented, then one roll per line, so that a log of many rolls stays small."""
    session = {
        "commitment": log.commitment,
        "seed": log.seed,
        "channel_id": str(log.channel_id),
        "started_at": _stamp(log.started_at),
        "revealed_at": _stamp(log.revealed_at),
        "last_roll": log.last_roll,
    }
    rolls = [
        json.dumps(
            {
                "roll": r.roll,
                "command": r.command,
                "options": r.options,
                "user_id": str(r.user_id),
                "private": r.private,
                "draws": [list(d) for d in r.draws],
                "summary": r.summary,
            },
            ensure_ascii=False,
        )
        for r in log.rolls
    ]
    head = json.dumps({"format": FORMAT, "version": FORMAT_VERSION, "session": session}, indent=2)
    body = ",\n".join(f"    {line}" for line in rolls)
    listed = f"[\n{body}\n  ]" if rolls else "[]"
    return f'{head[:-2]},\n  "rolls": {listed}\n}}\n'.encode()


def parse_log(raw: bytes) -> FairLog:
    """A log file, validated as a whole; refuses it at the first problem, saying where.

    Raises:
        FairLogError: Not JSON, not a fair-session log, a version this bot does not read, or a bad field.
    """
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise FairLogError("That file is not JSON (cut short, or not a log at all).") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise FairLogError(f"That JSON is not a fair-session log (its `format` is not {FORMAT!r}).")
    if document.get("version") != FORMAT_VERSION:
        raise FairLogError(f"This bot reads log version {FORMAT_VERSION}, not {document.get('version')!r}.")
    _keys(document, {"format", "version", "session", "rolls"}, "The file")
    session = document["session"]
    if not isinstance(session, dict):
        raise FairLogError("`session` must be an object.")
    _keys(session, _SESSION_KEYS, "`session`")
    commitment = session["commitment"]
    if not (isinstance(commitment, str) and len(commitment) == 64 and set(commitment) <= set(string.hexdigits)):
        raise FairLogError("`session.commitment` must be 64 hex digits.")
    seed = session["seed"]
    if seed is not None:
        if not isinstance(seed, str):
            raise FairLogError("`session.seed` must be 64 hex digits, or null before the reveal.")
        try:
            fair.seed_from_hex(seed)
        except fair.FairError as error:
            raise FairLogError(f"`session.seed`: {error.message}") from None
    revealed = session["revealed_at"]
    revealed_at = None if revealed is None else _moment(revealed, "session.revealed_at")
    if (seed is None) != (revealed_at is None):
        raise FairLogError("`session.seed` and `session.revealed_at` are both set after the reveal, both null before.")
    last_roll = _number(session["last_roll"], "session.last_roll", low=0)
    rolls = document["rolls"]
    if not isinstance(rolls, list):
        raise FairLogError("`rolls` must be a list.")
    parsed = tuple(_roll(index, entry, last_roll) for index, entry in enumerate(rolls, start=1))
    numbers = [r.roll for r in parsed]
    if numbers != sorted(set(numbers)):
        raise FairLogError("`rolls` must be in roll-number order, each number once.")
    return FairLog(
        commitment=commitment.lower(),
        seed=seed,
        channel_id=_snowflake(session["channel_id"], "session.channel_id"),
        started_at=_moment(session["started_at"], "session.started_at"),
        revealed_at=revealed_at,
        last_roll=last_roll,
        rolls=parsed,
    )


def _keys(entry: dict[str, Any], expected: set[str], where: str) -> None:
    if set(entry) != expected:
        missing, unknown = expected - set(entry), set(entry) - expected
        parts = [f"lacks {', '.join(sorted(missing))}" if missing else ""]
        parts.append(f"has unknown keys {', '.join(sorted(map(str, unknown)))[:200]}" if unknown else "")
        raise FairLogError(f"{where} {' and '.join(p for p in parts if p)}.")


def _number(value: Any, where: str, *, low: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise FairLogError(f"`{where}` must be a whole number from {low} up.")
    return value


def _snowflake(value: Any, where: str) -> int:
    if not isinstance(value, str) or not value.isdigit() or not value.isascii():
        raise FairLogError(f"`{where}` must be a Discord id, a string of digits.")
    return int(value)


def _moment(value: Any, where: str) -> datetime:
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise FairLogError(f"`{where}` must be an ISO 8601 time with its UTC offset.")
    return moment


def _roll(index: int, entry: Any, last_roll: int) -> LogRoll:
    where = f"Entry {index} of `rolls`"
    if not isinstance(entry, dict):
        raise FairLogError(f"{where} must be an object.")
    _keys(entry, _ROLL_KEYS, where)
    number = _number(entry["roll"], f"rolls[{index - 1}].roll", low=1)
    where = f"Roll {number}"
    if number > last_roll:
        raise FairLogError(f"{where} is past `session.last_roll` ({last_roll}).")
    draws = entry["draws"]
    if not isinstance(draws, list) or not all(
        isinstance(d, list) and len(d) == 3 and all(isinstance(v, int) and not isinstance(v, bool) for v in d)
        for d in draws
    ):
        raise FairLogError(f"{where}: `draws` must be a list of [a, b, face], whole numbers.")
    if not isinstance(entry["command"], str):
        raise FairLogError(f"{where}: `command` must be text.")
    if entry["options"] is not None and not isinstance(entry["options"], dict):
        raise FairLogError(f"{where}: `options` must be an object, or null for a private roll.")
    if entry["summary"] is not None and not isinstance(entry["summary"], str):
        raise FairLogError(f"{where}: `summary` must be text, or null for a private roll.")
    if not isinstance(entry["private"], bool):
        raise FairLogError(f"{where}: `private` must be true or false.")
    return LogRoll(
        roll=number,
        command=entry["command"],
        options=entry["options"],
        user_id=_snowflake(entry["user_id"], f"rolls[{index - 1}].user_id"),
        private=entry["private"],
        draws=tuple((a, b, face) for a, b, face in draws),
        summary=entry["summary"],
    )


@dataclass(frozen=True, slots=True)
class LogCheck:
    """The outcome of checking a log: one line per roll checked, a summary, and whether everything matched."""

    ok: bool
    lines: tuple[str, ...]


def _dice(faces: tuple[int, ...]) -> str:
    if not faces:
        return "no dice"
    return f"{len(faces)} {'die' if len(faces) == 1 else 'dice'}: {', '.join(map(str, faces))}"


def check_log(log: FairLog, *, roll: int | None = None) -> LogCheck:
    """Step 4 of `bot.rules.fair` for a whole log: the commitment once, then every roll (or only `roll`).

    Each roll is checked with `bot.rules.fair.verify`, from the seed, its number and its logged ranges.
    """
    lines = [f"session {log.commitment[:16]}…: {_count(len(log.rolls))} logged"]
    if log.seed is None:
        lines.append("summary: NOT CHECKED: the session is not revealed yet, so its seed is still secret.")
        return LogCheck(False, tuple(lines))
    actual = fair.commitment(fair.seed_from_hex(log.seed))
    if actual != log.commitment:
        lines.append(f"commitment: MISMATCH: the seed's SHA-256 is {actual}, the log's commitment is {log.commitment}")
        lines.append("summary: MISMATCH: the seed is not the one committed to, so no roll of this log can be trusted.")
        return LogCheck(False, tuple(lines))
    lines.append("commitment: ok, the seed's SHA-256 is the commitment")
    chosen = [r for r in log.rolls if roll is None or r.roll == roll]
    if roll is not None and not chosen:
        why = (
            "its command failed before it answered"
            if 1 <= roll <= log.last_roll
            else "the session gave out no such number"
        )
        lines.append(f"roll {roll}: NOT IN THE LOG: {why} (the log lists {_numbers([r.roll for r in log.rolls])})")
    bad = 0
    for entry in chosen:
        result = fair.verify(log.seed, log.commitment, entry.roll, entry.draws)
        if result.ok:
            lines.append(f"roll {entry.roll}: ok, {_dice(result.expected)}")
        else:
            bad += 1
            lines.append(f"roll {entry.roll}: MISMATCH {result.reason.removesuffix('.')}")
    if roll is None:
        logged = {r.roll for r in log.rolls}
        unused = [n for n in range(1, log.last_roll + 1) if n not in logged]
        if unused:
            lines.append(
                f"not logged: roll {_numbers(unused)} (a command that failed before it answered uses up its number)"
            )
    if roll is not None and not chosen:
        lines.append(f"summary: NOT CHECKED: roll {roll} is not in the log.")
    elif bad:
        verb = "does" if bad == 1 else "do"
        lines.append(f"summary: MISMATCH: {bad} of {len(chosen)} rolls checked {verb} not match the seed.")
    elif not chosen:
        lines.append("summary: ok: the seed matches the commitment, and the log holds no rolls.")
    else:
        lines.append(f"summary: ok: {_count(len(chosen))} checked, every face follows from the committed seed.")
    return LogCheck(not bad and (roll is None or bool(chosen)), tuple(lines))


def _count(rolls: int) -> str:
    return "1 roll" if rolls == 1 else f"{rolls} rolls"


def _numbers(numbers: list[int]) -> str:
    if not numbers:
        return "none"
    shown = ", ".join(map(str, numbers[:20]))
    return shown + (f" and {len(numbers) - 20} more" if len(numbers) > 20 else "")
