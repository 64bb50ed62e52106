"""The exported log of a fair session: everything a player needs to check every roll offline, as JSON.

The file (`/fair reveal` attaches it, `/fair log` downloads it again, `python -m bot verify FILE` checks it):

    {
      "format": "rules-dice-bot/fair-session",
      "version": 3,
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
         "private": false, "kind": "dice", "input": {"expression": "3d6"},
         "draws": [[1, 6, 4], [1, 6, 2], [1, 6, 5]], "outcome": {"total": 11, ...}, "summary": "3d6 (4, 2, 5) = 11",
         "sealed": null},
        {"roll": 2, "unanswered": "<why>", "command": "roll", "user_id": "<digits>"},
        ...
      ]
    }

`rolls` lists every roll number from 1 to `last_roll` once, in order. A number that was answered has its roll:
`command` and `options` as typed, `kind` and `input` (the rules core's input, `bot.rules.replay`: the options
as resolved and the character's numbers that entered the roll), `draws` in the order they were made, each
[a, b, face] (the range asked for and the face given), `outcome` (the structured result the answer showed) and
`summary` (its first line). A number that was never answered says why under `unanswered` (the command failed
before it rolled, or the bot stopped before it answered). A private or hidden roll publishes only its draws:
its options, input, outcome and summary are null.

A roll whose input holds a secret creature's numbers, or the hit points of a creature whose hit points are hidden
(`bot.rules.audience`), is sealed: in the copy anyone gets (`/fair reveal`), its `input` and `outcome` are null
and `sealed` is {"commitment": "<64 hex digits>"}, the SHA-256 of `seal_text` (the session, the roll number, its
kind, input and outcome and a secret random salt of 256 bits, so that nobody can try every AC until one fits).
The copy its game master gets (`/fair log` asked by a game master or by the secret's owner) opens it: `input` and
`outcome` are there and `sealed` holds the salt as well, {"commitment": ..., "salt": "<64 hex digits>"}.

What `check_log` (`python -m bot verify`) proves, for a revealed log: the seed is the one committed to before
the first roll; every roll number is accounted for, in order; and each public roll, run again through the
rules core from its logged input with dice from the seed, asks for exactly the logged ranges, in the logged
order and number, gets the logged faces and gives the logged outcome; options typed that the input must
reflect (a /roll expression, a given AC) agree with it. What it cannot prove: that the logged input is what
the command was really given (a character's numbers are the bot's word; compare the log with what the channel
saw), what a private roll rolled for (only its faces are checked), or why a number went unanswered (the reason
is the bot's word; a number the channel saw answered must not be listed as unanswered). A sealed roll of the
public copy has only its faces checked, and is named as checked in part; in an opened copy its input and outcome
must hash, with its salt, to its commitment, and then it is replayed like any other. The seals' digest it prints
is the same for every copy of one session: an opened copy whose digest differs from the public copy's is not
that session's.

A version 4 log (a session whose commitment covers a signing key as well as the seed) adds `signing_key`,
`commitment_message` and `signature` to `session`, and `interaction_id` (second) and `hidden` (after `private`)
to its entries; each entry, answered or not, ends with `"digest": "<64 hex digits>"`, the SHA-256 of the
canonical JSON (`canonical`) of the entry's public form (`public_form`) without its `digest`. The signature, made
once at the reveal, signs `signed_digest`: the session and the list of those digests, in file order. So every
copy (public, or opened) carries the same digests and signature; an entry edited since is named by its digest,
and an edit that rewrote the digest to match fails the signature.

Version 2 files (no `sealed`) are read and checked as they always were.

Version 1 files (no `kind`, `input`, `outcome`, no unanswered entries) are still read and checked as before:
each face against the seed and its logged range only, which proves much less.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import string
import zlib
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from bot.errors import UserError
from bot.rules import fair, replay, signing

FORMAT: Final = "rules-dice-bot/fair-session"
FORMAT_VERSION: Final = 4
LEGACY: Final = 3  # the layout of sessions started before version 4, exported as they always were
READS: Final = (1, 2, 3, 4)
REPLAYED: Final = 2  # the first version whose rolls carry their inputs and outcomes, so are replayed
BOUND: Final = 4  # the first version whose dice follow from each roll's interaction and whose log is signed
_SESSION_KEYS: Final = {"commitment", "seed", "channel_id", "started_at", "revealed_at", "last_roll"}
_SESSION_KEYS_V4: Final = _SESSION_KEYS | {"signing_key", "commitment_message", "signature"}
_ROLL_KEYS_V1: Final = {"roll", "command", "options", "user_id", "private", "draws", "summary"}
_ROLL_KEYS: Final = _ROLL_KEYS_V1 | {"kind", "input", "outcome"}
_ROLL_KEYS_V3: Final = _ROLL_KEYS | {"sealed"}
_ROLL_KEYS_V4: Final = _ROLL_KEYS_V3 | {"interaction_id", "hidden", "digest"}
_UNANSWERED_KEYS: Final = {"roll", "unanswered", "command", "user_id"}
_UNANSWERED_KEYS_V4: Final = _UNANSWERED_KEYS | {"interaction_id", "digest"}
LOG_DOMAIN: Final = "rules-dice-bot/fair-log/4"


class FairLogError(UserError):
    """A file that is not a readable fair-session log; the message says where it went wrong."""

    title = "Can't read that log"


@dataclass(frozen=True, slots=True)
class Seal:
    """The commitment to a sealed roll's input and outcome; `salt` opens it (None: the copy anyone gets)."""

    commitment: str
    salt: str | None = None

    @property
    def opened(self) -> bool:
        """Whether this copy holds the salt, and with it the roll's input and outcome."""
        return self.salt is not None


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
    kind: str | None = None  # None: a private roll of versions 2-3, or one of a version 1 log
    inputs: Any = None
    outcome: Any = None
    sealed: Seal | None = None  # a roll against a secret: its input and outcome are committed to (version 3)
    interaction_id: int | None = None  # the interaction its dice follow from (version 4)
    hidden: bool = False  # made with hidden:true, so private too (version 4 says which)


SEAL_DOMAIN: Final = "rules-dice-bot/sealed-roll"
SEAL_DOMAIN_V4: Final = "rules-dice-bot/sealed-roll/4"


def canonical(value: Any) -> bytes:
    """JSON as every hash of a fair log reads it: sorted keys, no spaces, ASCII only (escapes for the rest)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def seal_text(session: str, roll: int, kind: str, inputs: Any, outcome: Any, salt: str) -> bytes:
    """What a sealed roll's commitment hashes: canonical JSON of it all (sorted keys, no spaces, ASCII only).

    The session's commitment and the roll number bind the seal to its place; the salt (256 random bits the bot
    keeps until its game master asks) keeps a guess at the secret numbers from being checked against it.
    """
    body = {
        "domain": SEAL_DOMAIN,
        "session": session,
        "roll": roll,
        "kind": kind,
        "input": inputs,
        "outcome": outcome,
        "salt": salt,
    }
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


def seal(session: str, roll: int, kind: str, inputs: Any, outcome: Any, salt: str) -> str:
    """The commitment to a sealed roll of a version 3 log: the SHA-256 of `seal_text`, in hex."""
    return hashlib.sha256(seal_text(session, roll, kind, inputs, outcome, salt)).hexdigest()


def seal_v4(session: str, entry: LogRoll, salt: str) -> str:
    """The commitment to a sealed roll of version 4: everything its public copy leaves out, and where it sits.

    The session, the roll number and its interaction bind it to its place; options and summary are in it too,
    as a private roll's public copy has neither.
    """
    body = {
        "domain": SEAL_DOMAIN_V4,
        "session": session,
        "roll": entry.roll,
        "interaction_id": str(entry.interaction_id),
        "kind": entry.kind,
        "options": entry.options,
        "input": entry.inputs,
        "outcome": entry.outcome,
        "summary": entry.summary,
        "salt": salt,
    }
    return hashlib.sha256(canonical(body)).hexdigest()


@dataclass(frozen=True, slots=True)
class Unanswered:
    """A roll number given out that has no roll: the command that took it, and why it was never answered."""

    roll: int
    command: str
    user_id: int
    reason: str
    interaction_id: int | None = None  # the interaction that took the number (version 4)


@dataclass(frozen=True, slots=True)
class FairLog:
    """A fair session and its rolls (in file order); `seed` is None until the session is revealed.

    A version 4 log also has the key its commitment covers, the message that posted the commitment and the
    signature; `source` is the file's JSON as read, which the signature is checked on (None: built by the bot).
    """

    commitment: str
    seed: str | None
    channel_id: int
    started_at: datetime
    revealed_at: datetime | None
    last_roll: int
    rolls: tuple[LogRoll | Unanswered, ...]
    version: int = LEGACY
    signing_key: str | None = None
    commitment_message: int | None = None
    signature: str | None = None
    source: Any = None


def filename(commitment: str, *, compressed: bool = False) -> str:
    """The attachment's name: the session's commitment prefix, as footers and `/fair log` show it.

    `compressed`: the name of the log gzipped (`pack`), as a log too large for one attachment comes.
    """
    return f"fair-session-{commitment[:16]}.json{'.gz' if compressed else ''}"


def part_names(commitment: str, count: int) -> list[str]:
    """The names of a gzipped log cut into `count` attachments; in name order they join into the `.json.gz`."""
    whole = filename(commitment, compressed=True)
    if count == 1:
        return [whole]
    width = len(str(count))
    return [f"{whole}.part{n:0{width}d}" for n in range(1, count + 1)]


def split(data: bytes, limit: int) -> list[bytes]:
    """A file cut into pieces of `limit` bytes (the last one shorter) that join back into it.

    Only a gzipped log is ever cut (`pack`): the JSON is posted whole when it fits one attachment.
    """
    if limit < 1:
        raise ValueError("limit must be positive")
    return [data[start : start + limit] for start in range(0, len(data), limit)] or [b""]


def _stamp(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    # SQLite hands back the stored UTC time without its offset.
    return (moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)).isoformat()


def _session_json(log: FairLog) -> dict[str, Any]:
    session: dict[str, Any] = {
        "commitment": log.commitment,
        "seed": log.seed,
        "channel_id": str(log.channel_id),
        "started_at": _stamp(log.started_at),
        "revealed_at": _stamp(log.revealed_at),
        "last_roll": log.last_roll,
    }
    if log.version >= BOUND:
        session["signing_key"] = log.signing_key
        session["commitment_message"] = None if log.commitment_message is None else str(log.commitment_message)
        session["signature"] = log.signature
    return session


def log_json(log: FairLog) -> dict[str, Any]:
    """The log as the file's JSON: what `dump_log` writes (with one roll per line) and a signature covers."""
    if log.source is not None:
        return dict(log.source)
    rolls = [_entry(r, log.version) for r in log.rolls]
    return {"format": FORMAT, "version": log.version, "session": _session_json(log), "rolls": rolls}


def dump_log(log: FairLog) -> bytes:
    """The file's bytes: the session indented, then one roll per line, so that a log of many rolls stays small."""
    document = log_json(log)
    rolls = [json.dumps(r, ensure_ascii=False) for r in document["rolls"]]
    head = json.dumps({k: v for k, v in document.items() if k != "rolls"}, indent=2)
    body = ",\n".join(f"    {line}" for line in rolls)
    listed = f"[\n{body}\n  ]" if rolls else "[]"
    return f'{head[:-2]},\n  "rolls": {listed}\n}}\n'.encode()


def _entry(roll: LogRoll | Unanswered, version: int) -> dict[str, Any]:
    bound = version >= BOUND
    entry: dict[str, Any] = {"roll": roll.roll}
    if bound:
        entry["interaction_id"] = str(roll.interaction_id)
    if isinstance(roll, Unanswered):
        entry |= {"unanswered": roll.reason, "command": roll.command, "user_id": str(roll.user_id)}
    else:
        entry |= {"command": roll.command, "options": roll.options, "user_id": str(roll.user_id)}
        entry["private"] = roll.private
        if bound:
            entry["hidden"] = roll.hidden
        entry |= {
            "kind": roll.kind,
            "input": roll.inputs,
            "draws": [list(d) for d in roll.draws],
            "outcome": roll.outcome,
            "summary": roll.summary,
            "sealed": _sealed(roll.sealed),
        }
    if bound:
        entry["digest"] = entry_digest(entry)  # last, so that each line reads as the entry, then its digest
    return entry


def public_form(entry: dict[str, Any]) -> dict[str, Any]:
    """A version 4 entry as the copy anyone gets has it: an opened seal closed again (every copy signs the same)."""
    sealed = entry.get("sealed")
    if not isinstance(sealed, dict) or "salt" not in sealed:
        return entry
    closed = {**entry, "sealed": {k: v for k, v in sealed.items() if k != "salt"}, "input": None, "outcome": None}
    if entry.get("private"):
        closed |= {"options": None, "summary": None}
    return closed


def entry_digest(entry: dict[str, Any]) -> str:
    """What a version 4 entry's `digest` is: the SHA-256 (hex) of the canonical JSON of its public form, less `digest`.

    An opened copy's entry has its public copy's digest, as the salt and what it opens are left out.
    """
    public = {k: v for k, v in public_form(entry).items() if k != "digest"}
    return hashlib.sha256(canonical(public)).hexdigest()


def signed_digest(document: dict[str, Any]) -> bytes:
    """What a version 4 log's signature signs: the session (less its signature) and every entry's `digest`.

    The SHA-256 of the canonical JSON of {"domain": LOG_DOMAIN, "session": ..., "rolls": [each entry's `digest`,
    in file order]}. `document` is the file's JSON (`log_json`): the digests are taken as the file gives them, so
    an entry edited since the reveal is named by its own digest (`check_log`), and one whose digest was rewritten
    to match fails the signature.
    """
    session = {k: v for k, v in document["session"].items() if k != "signature"}
    # Hex is hex in either case: a genuine log whose commitment was upper-cased on the way is still the one signed.
    session |= {k: session[k].lower() for k in ("commitment", "seed", "signing_key") if isinstance(session.get(k), str)}
    rolls = [str(r["digest"]).lower() for r in document["rolls"]]
    return hashlib.sha256(canonical({"domain": LOG_DOMAIN, "session": session, "rolls": rolls})).digest()


def _sealed(sealed: Seal | None) -> dict[str, str] | None:
    if sealed is None:
        return None
    if sealed.salt is None:
        return {"commitment": sealed.commitment}
    return {"commitment": sealed.commitment, "salt": sealed.salt}


class _Twice(dict[str, Any]):
    """A JSON object that named a key twice (`parse_log` refuses it, saying where)."""

    twice: str = ""


class _Unique:
    """JSON's object hook: each object, marked if it names a key twice, and whether any was.

    JSON readers disagree on which value such a file means. A log that has none (every log the bot wrote) is
    never walked again to find one: its 2,000 rolls of 1,000 draws would be millions of values.
    """

    def __init__(self) -> None:
        self.seen_twice = False

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        found = dict(pairs)
        if len(found) == len(pairs):
            return found
        seen: set[str] = set()
        marked = _Twice(found)
        marked.twice = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        self.seen_twice = True
        return marked


def _twice(value: Any) -> str | None:
    """A key named twice in one object anywhere inside `value`, or None."""
    if isinstance(value, _Twice):
        return value.twice
    inner = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return next((key for key in map(_twice, inner) if key is not None), None)


def parse_log(raw: bytes) -> FairLog:
    """A log file, validated as a whole; refuses it at the first problem, saying where.

    Strict JSON (a key named twice in an object is refused); a byte-order mark before it is fine.

    Raises:
        FairLogError: Not JSON, not a fair-session log, a version this bot does not read, or a bad field.
    """
    unique = _Unique()
    try:
        document = json.loads(raw.decode("utf-8-sig"), object_pairs_hook=unique)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise FairLogError("That file is not JSON (cut short, or not a log at all).") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise FairLogError(f"That JSON is not a fair-session log (its `format` is not {FORMAT!r}).")
    twice = (
        None
        if not unique.seen_twice
        else document.twice
        if isinstance(document, _Twice)
        else _twice({k: v for k, v in document.items() if k != "rolls"})
    )
    if twice is not None:
        raise FairLogError(f"The file names the key {twice[:40]!r} twice in one object: a log never does.")
    version = document.get("version")
    if version not in READS or isinstance(version, bool):
        raise FairLogError(f"This bot reads log versions 1 to {FORMAT_VERSION}, not {version!r}.")
    _keys(document, {"format", "version", "session", "rolls"}, "The file")
    session = document["session"]
    if not isinstance(session, dict):
        raise FairLogError("`session` must be an object.")
    bound = version >= BOUND
    _keys(session, _SESSION_KEYS_V4 if bound else _SESSION_KEYS, "`session`")
    commitment = session["commitment"]
    if not _hex64(commitment):
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
    signing_key = signature = None
    posted = None
    if bound:
        signing_key, signature = session["signing_key"], session["signature"]
        if not _hex64(signing_key):
            raise FairLogError("`session.signing_key` must be 64 hex digits.")
        if signature is not None and not (isinstance(signature, str) and set(signature) <= set(string.hexdigits)):
            raise FairLogError("`session.signature` must be hex digits, or null before the reveal.")
        posted = _snowflake(session["commitment_message"], "session.commitment_message")
    rolls = document["rolls"]
    if not isinstance(rolls, list):
        raise FairLogError("`rolls` must be a list.")
    # Order, gaps and duplicates are the checker's findings (naming the roll), not reasons to refuse the file.
    parsed = tuple(_roll(index, entry, version, unique.seen_twice) for index, entry in enumerate(rolls, start=1))
    return FairLog(
        commitment=commitment.lower(),
        seed=seed.lower() if seed is not None else None,
        channel_id=_snowflake(session["channel_id"], "session.channel_id"),
        started_at=_moment(session["started_at"], "session.started_at"),
        revealed_at=revealed_at,
        last_roll=last_roll,
        rolls=parsed,
        version=version,
        signing_key=signing_key.lower() if signing_key is not None else None,
        commitment_message=posted,
        signature=signature.lower() if signature is not None else None,
        source=document if bound else None,
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
    # A Discord id fits 64 bits: 20 digits at most (and Python will not read a number of thousands of digits).
    if not isinstance(value, str) or not value.isdecimal() or not value.isascii() or len(value) > 20:
        raise FairLogError(f"`{where}` must be a Discord id, a string of digits.")
    if str(int(value)) != value:
        raise FairLogError(f"`{where}` must be a Discord id, a string of digits.")
    return int(value)


def _are_draws(value: Any) -> bool:
    """Whether `value` is a list of [a, b, face] lists of whole numbers (not true or false).

    Checked for every draw of a log, so written as a plain loop (a third of the time of nested `all`s).
    """
    if type(value) is not list:
        return False
    for draw in value:
        if type(draw) is not list or len(draw) != 3:
            return False
        a, b, face = draw
        if type(a) is not int or type(b) is not int or type(face) is not int:
            return False
    return True


def _moment(value: Any, where: str) -> datetime:
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise FairLogError(f"`{where}` must be an ISO 8601 time with its UTC offset.")
    return moment


def _roll(index: int, entry: Any, version: int, seen_twice: bool = True) -> LogRoll | Unanswered:
    where = f"Entry {index} of `rolls`"
    if not isinstance(entry, dict):
        raise FairLogError(f"{where} must be an object.")
    if seen_twice and (twice := _twice(entry)) is not None:
        named = f"Roll {entry['roll']}" if isinstance(entry.get("roll"), int) else where
        raise FairLogError(f"{named} names the key {twice[:40]!r} twice in one object: a log never does.")
    bound = version >= BOUND
    if isinstance(entry.get("roll"), int) and not isinstance(entry.get("roll"), bool):
        where = f"Roll {entry['roll']} (entry {index} of `rolls`)"
    if version >= REPLAYED and "unanswered" in entry:
        _keys(entry, _UNANSWERED_KEYS_V4 if bound else _UNANSWERED_KEYS, where)
        number = _number(entry["roll"], f"rolls[{index - 1}].roll", low=1)
        if not isinstance(entry["unanswered"], str) or not isinstance(entry["command"], str):
            raise FairLogError(f"Roll {number}: `unanswered` and `command` must be text.")
        user = _snowflake(entry["user_id"], f"rolls[{index - 1}].user_id")
        interaction = _snowflake(entry["interaction_id"], f"rolls[{index - 1}].interaction_id") if bound else None
        if bound:
            _digest(entry, f"Roll {number}")
        return Unanswered(number, entry["command"], user, entry["unanswered"], interaction)
    keys = _ROLL_KEYS_V4 if bound else _ROLL_KEYS_V3 if version >= 3 else _ROLL_KEYS
    _keys(entry, keys if version >= REPLAYED else _ROLL_KEYS_V1, where)
    number = _number(entry["roll"], f"rolls[{index - 1}].roll", low=1)
    where = f"Roll {number}"
    draws = entry["draws"]
    if not _are_draws(draws):
        raise FairLogError(f"{where}: `draws` must be a list of [a, b, face], whole numbers.")
    if not isinstance(entry["command"], str):
        raise FairLogError(f"{where}: `command` must be text.")
    if entry["options"] is not None and not isinstance(entry["options"], dict):
        raise FairLogError(f"{where}: `options` must be an object, or null for a private roll.")
    if entry["summary"] is not None and not isinstance(entry["summary"], str):
        raise FairLogError(f"{where}: `summary` must be text, or null for a private roll.")
    if not isinstance(entry["private"], bool):
        raise FairLogError(f"{where}: `private` must be true or false.")
    kind = entry.get("kind")
    if kind is not None and not isinstance(kind, str):
        raise FairLogError(f"{where}: `kind` must be text, or null for a private roll.")
    sealed = _seal(entry.get("sealed"), where)
    hidden = entry.get("hidden", False)
    if not isinstance(hidden, bool):
        raise FairLogError(f"{where}: `hidden` must be true or false.")
    if bound:
        interaction = _snowflake(entry["interaction_id"], f"rolls[{index - 1}].interaction_id")
        _digest(entry, where)
    elif sealed is not None and (kind is None or entry["private"]):
        raise FairLogError(f"{where}: only a public roll with its `kind` is sealed.")
    if sealed is not None and not sealed.opened:
        if entry["input"] is not None or entry["outcome"] is not None:
            raise FairLogError(f"{where}: a sealed roll without its salt has a null `input` and `outcome`.")
    elif kind is not None and not isinstance(entry["outcome"], dict):
        raise FairLogError(f"{where}: `outcome` must be an object when `kind` is given.")
    return LogRoll(
        roll=number,
        command=entry["command"],
        options=entry["options"],
        user_id=_snowflake(entry["user_id"], f"rolls[{index - 1}].user_id"),
        private=entry["private"],
        draws=tuple((a, b, face) for a, b, face in draws),
        summary=entry["summary"],
        kind=kind,
        inputs=entry.get("input"),
        outcome=entry.get("outcome"),
        sealed=sealed,
        interaction_id=interaction if bound else None,
        hidden=hidden,
    )


def _digest(entry: dict[str, Any], where: str) -> None:
    if not _hex64(entry["digest"]):
        raise FairLogError(f"{where}: `digest` must be 64 hex digits.")


def _hex64(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 64 and set(value) <= set(string.hexdigits)


def _seal(value: Any, where: str) -> Seal | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not {"commitment"} <= value.keys() <= {"commitment", "salt"}:
        raise FairLogError(f"{where}: `sealed` must be null, or an object with `commitment` (and `salt` opened).")
    if not _hex64(value["commitment"]) or ("salt" in value and not _hex64(value["salt"])):
        raise FairLogError(f"{where}: a seal's `commitment` and `salt` are 64 hex digits each.")
    return Seal(value["commitment"].lower(), value["salt"].lower() if "salt" in value else None)


@dataclass(frozen=True, slots=True)
class LogCheck:
    """The outcome of checking a log: one line per roll checked, a summary, and whether everything matched."""

    ok: bool
    lines: tuple[str, ...]


def _dice(faces: tuple[int, ...]) -> str:
    if not faces:
        return "no dice"
    return f"{len(faces)} {'die' if len(faces) == 1 else 'dice'}: {', '.join(map(str, faces))}"


Summaries = Callable[[str, Any, bool], Collection[str]]  # kind, result, sealed: the summaries it may have


def check_log(
    log: FairLog, *, roll: int | None = None, commitment: str | None = None, summaries: Summaries | None = None
) -> LogCheck:
    """Step 4 of `bot.rules.fair` for a whole log: the commitment once, every roll number, then every roll.

    Which checks a log gets follows from its commitment, never from a field of the file: one that covers a
    signing key is a version 4 session's, whose log must carry that key's signature over all of it, whose
    dice follow from each roll's interaction, and whose private, hidden and secret rolls are sealed (and
    replayed in full in a copy that opens them). A legacy session (the commitment covers the seed alone) is
    checked as its version says: version 2-3 rolls are replayed (`bot.rules.replay`); a version 1 log only has
    its faces checked against the seed and the logged ranges. `roll` limits the per-roll checks to one number;
    the accounting of every number (order, duplicates, gaps) is always done. `commitment`, the one the channel
    saw, must be the file's. `summaries` gives the lines a roll's summary may be, from its replayed result
    (`bot.ui.summaries.accepted`: the presenters live above the rules), so that a summary cannot say what the
    roll did not do. The module docstring says what this proves and what it cannot.
    """
    logged = sum(isinstance(r, LogRoll) for r in log.rolls)
    lines = [f"session {log.commitment[:16]}…: log version {log.version}, {_count(logged)} logged"]
    if commitment is not None and commitment.strip().lower() != log.commitment:
        lines.append(
            f"commitment: MISMATCH: the file's commitment is {log.commitment}, the channel's is "
            f"{commitment.strip().lower()}"
        )
        lines.append("summary: MISMATCH: this file is not the log of the session the channel saw.")
        return LogCheck(False, tuple(lines))
    if log.version < REPLAYED:
        lines.append(
            f"version {log.version}: this log holds no inputs or outcomes, so only each face is checked against "
            "the seed and its logged range; it does not prove the ranges, the number of draws or the outcomes "
            "are what the commands asked for"
        )
    if log.seed is None:
        lines.append("summary: NOT CHECKED: the session is not revealed yet, so its seed is still secret.")
        return LogCheck(False, tuple(lines))
    seed = fair.seed_from_hex(log.seed)
    layout = _layout(log, seed)
    if layout is None:
        actual = fair.commitment(seed, log.signing_key) if log.signing_key else fair.commitment(seed)
        what = "the SHA-256 of the seed and the signing key" if log.signing_key else "the seed's SHA-256"
        lines.append(f"commitment: MISMATCH: {what} is {actual}, the log's commitment is {log.commitment}")
        lines.append("summary: MISMATCH: the seed is not the one committed to, so no roll of this log can be trusted.")
        return LogCheck(False, tuple(lines))
    bad = 0
    if layout >= BOUND:
        lines.append("commitment: ok, it is the SHA-256 of the seed and the log's signing key")
        bad += _check_signature(log, lines)
    else:
        lines.append("commitment: ok, the seed's SHA-256 is the commitment")
    if log.revealed_at is not None and log.revealed_at < log.started_at:
        bad += 1
        lines.append("times: MISMATCH: the session is revealed before it started")
    bad += _account(log, lines)
    if layout >= BOUND:
        bad += _interactions(log, lines)
    chosen = [r for r in log.rolls if roll is None or r.roll == roll]
    if roll is not None and not chosen:
        lines.append(f"roll {roll}: NOT IN THE LOG (the log lists {_numbers([r.roll for r in log.rolls])})")
    faces_only: list[int] = []
    unanswered: list[int] = []
    partly: list[int] = []
    for entry in chosen:
        if isinstance(entry, Unanswered):
            unanswered.append(entry.roll)
            lines.append(f"roll {entry.roll}: not answered (/{entry.command} by {entry.user_id}): {entry.reason}")
            continue
        problem: str | None = _rule(entry) if layout >= BOUND else None
        if problem is not None:
            pass
        elif entry.sealed is not None and not entry.sealed.opened:
            problem = _faces(log, entry)
            if problem is None:
                partly.append(entry.roll)
                lines.append(f"roll {entry.roll}: {_partly(entry)}")
                continue
        elif entry.kind is None and not entry.private and log.version >= REPLAYED:
            problem = "a public roll without its input: it cannot be replayed, so the log does not prove it"
        elif entry.kind is None or log.version < REPLAYED:
            problem = _faces(log, entry)
            if problem is None:
                faces_only.append(entry.roll)
                faces = _dice(tuple(d[2] for d in entry.draws))
                lines.append(f"roll {entry.roll}: faces ok, {faces}{_why_faces(entry)}")
                continue
        else:
            problem = _unsealed(log, entry) or _replay(seed, entry, summaries)
            if problem is None:
                opened = "; its secret opens its seal" if entry.sealed is not None else ""
                lines.append(
                    f"roll {entry.roll}: ok, /{entry.command} replayed: {_dice(tuple(d[2] for d in entry.draws))}; "
                    f"same ranges, faces and outcome{opened}"
                )
                continue
        bad += 1
        lines.append(f"roll {entry.roll}: MISMATCH {problem}")
    if roll is not None and not chosen:
        lines.append(f"summary: NOT CHECKED: roll {roll} is not in the log.")
        return LogCheck(False, tuple(lines))
    if bad:
        found = f"{bad} problem{'s' if bad > 1 else ''}"
        lines.append(f"summary: MISMATCH: {found} found; the log does not prove its rolls.")
        return LogCheck(False, tuple(lines))
    replayed = len(chosen) - len(faces_only) - len(unanswered) - len(partly)
    what = "checked for faces only" if log.version < REPLAYED else "checked for faces only (private)"
    parts = [f"{_count(replayed)} replayed through the rules core with the committed seed's dice"]
    if faces_only:
        parts.append(f"{_count(len(faces_only))} {what}: {_numbers(faces_only)}")
    if partly:
        what = "sealed, checked only in part (faces only; the log its roller or the game master downloads"
        if layout < BOUND:
            what = "checked only in part, against a secret (faces only; the game master's log"
        parts.append(f"{_count(len(partly))} {what} replays them): {_numbers(partly)}")
    if unanswered:
        parts.append(f"{_count(len(unanswered))} never answered, for the reasons above: {_numbers(unanswered)}")
    scope = f"every roll number from 1 to {log.last_roll} is accounted for" if roll is None else f"roll {roll}"
    if layout < BOUND:
        lines.extend(_seals(log))
        lines.append(
            "legacy: a session started before version 4: its dice follow from the roll numbers and its log is not "
            "signed, so this proves less (the bot could have chosen its seed, and an edited copy may pass)"
        )
    lines.append(f"summary: ok: {scope}; {'; '.join(parts)}.")
    return LogCheck(True, tuple(lines))


def _layout(log: FairLog, seed: bytes) -> int | None:
    """The session's layout, from what its commitment covers (None: the seed is not the one committed to).

    A file cannot choose its checks: a commitment to a seed and a signing key is a version 4 session's whatever
    the file's `version` says, and a legacy commitment cannot be made to cover a key after the fact.
    """
    if log.signing_key is not None and fair.commitment(seed, log.signing_key) == log.commitment:
        return BOUND
    if log.signing_key is None and fair.commitment(seed) == log.commitment:
        return min(log.version, LEGACY)
    return None


def _check_signature(log: FairLog, lines: list[str]) -> int:
    """Each entry against its digest, then the signature over the digests, by the key the commitment covers.

    An entry edited since the reveal no longer hashes to its `digest`: a line names its roll. An editor who
    rewrote the digest too changed what the signature signs, so the signature fails (it cannot say which entry).
    """
    assert log.signing_key is not None
    document = log_json(log)
    edited = []
    for entry, listed in zip(log.rolls, document["rolls"], strict=True):
        again, given = entry_digest(listed), str(listed["digest"]).lower()
        if again != given:
            edited.append(
                f"roll {entry.roll}: MISMATCH it is not the entry the bot signed: it hashes to {again[:16]}…, its "
                f"digest is {given[:16]}… (something in it was changed since the reveal)"
            )
    if log.signature is None:
        lines.append("signature: MISMATCH: the log is not signed, and every revealed log is")
        lines.extend(edited)
        return 1 + len(edited)
    if not signing.verify(log.signing_key, signed_digest(document), log.signature):
        lines.append(
            "signature: MISMATCH: the log is not the one the bot signed at the reveal (with the key its commitment "
            "covers): something in it was changed, added or removed since"
        )
        lines.extend(edited)
        return 1 + len(edited)
    if edited:
        lines.append(
            "signature: ok for the entries' digests as the file lists them, but the entries named below are not the "
            "ones those digests are of"
        )
    else:
        lines.append("signature: ok, the bot signed this log at the reveal with the key the commitment covers")
    lines.extend(edited)
    return len(edited)


def _interactions(log: FairLog, lines: list[str]) -> int:
    """Each interaction takes one number, and each was made after the message that posted the commitment."""
    bad = 0
    first: dict[int, int] = {}
    posted = log.commitment_message or 0
    for entry in log.rolls:
        interaction = entry.interaction_id
        assert interaction is not None
        problem = None
        if interaction in first:
            problem = f"interaction {interaction} already took roll {first[interaction]}: an interaction rolls once"
        elif interaction <= posted:
            problem = (
                f"interaction {interaction} was made before the message that posted the commitment ({posted}), "
                "so the seed could have been chosen knowing it"
            )
        first.setdefault(interaction, entry.roll)
        if problem is not None:
            bad += 1
            lines.append(f"roll {entry.roll}: MISMATCH {problem}")
    return bad


def _rule(entry: LogRoll) -> str | None:
    """Why a version 4 roll breaks the layout's rules (what must be sealed, what must be there), or None."""
    if entry.hidden and not entry.private:
        return "a hidden roll is private too"
    if entry.kind is None:
        return "every roll of a version 4 log has its kind"
    if entry.private and entry.sealed is None:
        return "a private or hidden roll is sealed in a version 4 log, and this one is not"
    if not entry.private and (entry.options is None or entry.summary is None):
        return "a public roll shows its options and summary, and this one does not"
    if entry.sealed is None and (entry.inputs is None or entry.outcome is None):
        return "an unsealed roll has its input and outcome"
    return None


def _partly(entry: LogRoll) -> str:
    assert entry.sealed is not None
    what = "hidden" if entry.hidden else "private" if entry.private else "against a secret"
    whose = "the game master's log" if not entry.private or entry.hidden else "its roller's log"
    return (
        f"{what}: faces ok, {_dice(tuple(d[2] for d in entry.draws))}; its input and outcome are sealed "
        f"({entry.sealed.commitment[:16]}…), so its outcome can be checked with {whose}"
    )


def seals_digest(log: FairLog) -> str | None:
    """One hash over every seal of the log, in roll order: the same in the public copy and an opened one."""
    commitments = [r.sealed.commitment for r in log.rolls if isinstance(r, LogRoll) and r.sealed is not None]
    if not commitments:
        return None
    return hashlib.sha256("\n".join(commitments).encode()).hexdigest()


def _seals(log: FairLog) -> list[str]:
    digest = seals_digest(log)
    if digest is None:
        return []
    return [
        f"seals: digest {digest[:16]}…, the same in every copy of this session's log; an opened copy whose digest "
        "differs from the public copy's is not the session's"
    ]


def _unsealed(log: FairLog, entry: LogRoll) -> str | None:
    """Why an opened roll's input and outcome are not what its seal committed to, or None (or not sealed)."""
    if entry.sealed is None:
        return None
    assert entry.sealed.salt is not None and entry.kind is not None
    if log.version >= BOUND:
        again = seal_v4(log.commitment, entry, entry.sealed.salt)
    else:
        again = seal(log.commitment, entry.roll, entry.kind, entry.inputs, entry.outcome, entry.sealed.salt)
    if again != entry.sealed.commitment:
        return (
            "the opened input and outcome do not match their seal: with its salt they hash to "
            f"{again[:16]}…, the seal is {entry.sealed.commitment[:16]}…"
        )
    return None


def _account(log: FairLog, lines: list[str]) -> int:
    """Every roll number once, in order, none past `last_roll`, none missing (version 2); the problems found."""
    bad = 0
    seen: set[int] = set()
    previous = 0
    for entry in log.rolls:
        number = entry.roll
        if number in seen:
            problem = "listed twice"
        elif number < previous:
            problem = f"out of order: listed after roll {previous}"
        elif number > log.last_roll:
            problem = f"past the session's last roll number, {log.last_roll}"
        else:
            problem = None
        if problem is not None:
            bad += 1
            lines.append(f"roll {number}: MISMATCH {problem}")
        seen.add(number)
        previous = max(previous, number)
    missing = [n for n in range(1, log.last_roll + 1) if n not in seen]
    if not missing:
        return bad
    if log.version < REPLAYED:
        lines.append(f"not logged: roll {_numbers(missing)} (a version 1 log does not say why a number has no roll)")
        return bad
    for number in missing[:20]:
        lines.append(f"roll {number}: MISSING: the log neither has its roll nor says why it went unanswered")
    if len(missing) > 20:
        lines.append(f"and {len(missing) - 20} more roll numbers MISSING")
    return bad + len(missing)


def _faces(log: FairLog, entry: LogRoll) -> str | None:
    assert log.seed is not None
    result = fair.verify(
        log.seed,
        log.commitment,
        entry.roll,
        entry.draws,
        interaction_id=entry.interaction_id,
        signing_key=log.signing_key,
    )
    return None if result.ok else result.reason.removesuffix(".")


def _why_faces(entry: LogRoll) -> str:
    if entry.private:
        return " (private: its command, input and outcome are withheld, so only its faces are checked)"
    return ""


def _replay(seed: bytes, entry: LogRoll, summaries: Summaries | None = None) -> str | None:
    """Why a version 2 roll does not replay to what the log says, or None when it does."""
    kind = replay.KINDS.get(entry.kind or "")
    if kind is None:
        return f"kind {entry.kind!r} is not a kind of roll this bot makes"
    if kind.command != entry.command:
        return f"command /{entry.command} does not make a {kind.name} roll (/{kind.command} does)"
    try:
        again = replay.replay(kind.name, entry.inputs, seed, entry.roll, interaction_id=entry.interaction_id)
        disagreement = replay.disagreement(kind.name, entry.inputs, entry.options)
    except replay.InputError as error:
        return f"input: {error}"
    if again.draws != entry.draws:
        for index, (made, logged) in enumerate(zip(again.draws, entry.draws, strict=False), start=1):
            if made != logged:
                return (
                    f"draw {index}: the replay draws {made[0]}..{made[1]} and gets {made[2]}, "
                    f"the log says {logged[0]}..{logged[1]} and {logged[2]}"
                )
        return f"the log lists {_draws(len(entry.draws))}, the replay makes {len(again.draws)}"
    difference = replay.first_difference(again.outcome, entry.outcome)
    if difference is not None:
        return difference
    if disagreement is not None:
        return disagreement
    if summaries is not None and entry.summary is not None and again.result is not None:
        allowed = summaries(kind.name, again.result, entry.sealed is not None)
        if entry.summary not in allowed:
            return f"summary {entry.summary[:80]!r} is not what the roll did: {sorted(allowed)[0][:80]!r}"
    return None


def _draws(count: int) -> str:
    return "1 draw" if count == 1 else f"{count} draws"


def _count(rolls: int) -> str:
    return "1 roll" if rolls == 1 else f"{rolls} rolls"


def _numbers(numbers: list[int]) -> str:
    if not numbers:
        return "none"
    shown = ", ".join(map(str, numbers[:20]))
    return shown + (f" and {len(numbers) - 20} more" if len(numbers) > 20 else "")


# ---------------------------------------------------------------------------------------------------------
# A long session's log (#26 item 5): how it is packed, and how long a session may grow so that it always fits.

# discord.py's DEFAULT_FILE_SIZE_LIMIT_BYTES: the attachment limit of a server without boosts, the least
# `Interaction.filesize_limit` (Discord's `attachment_size_limit`) ever announces.
MIN_ATTACHMENT_BYTES: Final = 10 * 1024 * 1024
# A log larger than this many attachments is not posted: a channel flooded helps nobody.
MAX_PARTS: Final = 10
# The most bytes of log one reveal can post anywhere, uncompressed: so a log within it fits, gzipped or not.
LOG_CAPACITY: Final = MIN_ATTACHMENT_BYTES * MAX_PARTS
# Worst cases of the log's JSON, as `dump_log` writes it, in any copy (the public one, or one opened for a game
# master), measured with margin by tests/cogs/test_fair_size.py on the heaviest rolls the commands make:
HEADER_BYTES: Final = 8 * 1024  # the file's head and `session`, with a signature of 4,288 hex digits
ROLL_BYTES: Final = 16 * 1024  # one entry without its draws: ids, options, input (a character's), summary, seal
DRAW_BYTES: Final = 32  # one draw: `[1, 10000, 10000], ` and a face an outcome repeats (a D&D attack's damage)
# The most draws one roll makes: /roll at most dice.MAX_DICE dice and dice.MAX_EXTRA_ROLLS rerolls (2,000); a D&D
# full attack at most 8 attacks of two d20 (hit, confirmation) and dice.MAX_DICE damage dice each (8,016).
MAX_DRAWS_PER_ROLL: Final = 10_000
# gzip's level: 6 (zlib's default) shrinks a log of `1000d10000` rolls 7.1 times (2.6 bytes a draw, from 18.2),
# level 9 7.3 times at seven times the CPU (tests/cogs/test_fair_size.py measures the ratio on a real session).
GZIP_LEVEL: Final = 6
_GZIP_MAGIC: Final = b"\x1f\x8b"


def log_bound(rolls: int, draws: int) -> int:
    """The most bytes the log of a session can take with `rolls` roll numbers holding `draws` draws in all."""
    return HEADER_BYTES + rolls * ROLL_BYTES + draws * DRAW_BYTES


def session_full(rolls: int, draws: int) -> bool:
    """Whether a session must refuse another roll number, so that its log always fits the attachments of a reveal.

    `rolls`: the roll numbers given out so far. `draws`: the draws those numbers hold, counting each number not
    logged yet (a roll in flight) as `MAX_DRAWS_PER_ROLL`. True when one more roll of the most draws could take
    the log past `LOG_CAPACITY`: the log, uncompressed, then never needs more than `MAX_PARTS` attachments of
    the smallest limit Discord gives, and gzipped (`pack`) far fewer.
    """
    return log_bound(rolls + 1, draws + MAX_DRAWS_PER_ROLL) > LOG_CAPACITY


class SessionFull(UserError):
    """A fair session whose log is as long as one log can be: one more roll might not fit the reveal's files."""

    title = "Fair session full"

    def __init__(self, rolls: int, draws: int) -> None:
        super().__init__(
            f"This fair session holds {draws:,} dice in {rolls:,} rolls, the most one log can carry (its log must "
            f"fit {MAX_PARTS} files of {MIN_ATTACHMENT_BYTES // 1024 // 1024} MB): `/fair reveal` it and start "
            "another."
        )


def pack(data: bytes) -> bytes:
    """A log gzipped, as a log too large for one attachment is posted: the same bytes for the same log."""
    return gzip.compress(data, compresslevel=GZIP_LEVEL, mtime=0)


def unpack(raw: bytes) -> bytes:
    """A log file's JSON: a gzipped log (`.json.gz`, its parts joined) unpacked, anything else as it is.

    Raises:
        FairLogError: gzip that is cut short or damaged (a part missing, or the parts joined out of order).
    """
    if not raw.startswith(_GZIP_MAGIC):
        return raw
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError, zlib.error):
        raise FairLogError(
            "That file is gzipped but cut short or damaged: if it came in parts, join every part, in order."
        ) from None
