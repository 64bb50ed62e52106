"""tools/verify_roll.py, the players' standard-library checker, run as a player runs it, on logs made here.

The layout-4 logs below are made by a second implementation of docs/fair.md's layout 4 (issue #26), written in
this file from the specification alone: W-OTS signing, the interaction-bound dice, the seals, the public form.
It imports nothing from `bot`, so the checker and the bot cannot share a mistake through it. Each forgery is one
an operator or a player could make to the file; each must exit 1 with a line naming what it broke.
"""

from __future__ import annotations

import ast
import copy
import gzip
import hashlib
import hmac
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ALICE as PLAYER
from tests.helpers import ROOT

TOOL = ROOT / "tools" / "verify_roll.py"
FAIR_DOC = ROOT / "docs" / "fair.md"

# ---------------------------------------------------------------------------------------------------------
# A second implementation of layout 4, from the specification.


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def canon(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def chain(i: int, value: bytes, start: int, steps: int) -> bytes:
    for j in range(start, start + steps):
        value = sha256(f"{i}:{j}:".encode() + value)
    return value


def wots_digits(digest: bytes) -> list[int]:
    message = [int(c, 16) for c in digest.hex()]
    checksum = sum(15 - m for m in message)
    assert checksum < 4096
    return [*message, checksum >> 8, (checksum >> 4) & 15, checksum & 15]


def wots_starts(secret: bytes) -> list[bytes]:
    return [hmac.new(secret, f"wots:{i}".encode(), hashlib.sha256).digest() for i in range(67)]


def signing_key(secret: bytes) -> str:
    ends = [chain(i, x, 0, 15) for i, x in enumerate(wots_starts(secret))]
    return sha256(b"rules-dice-bot/wots\n" + b"".join(ends)).hex()


def wots_sign(secret: bytes, digest: bytes) -> str:
    steps = wots_digits(digest)
    return "".join(chain(i, x, 0, steps[i]).hex() for i, x in enumerate(wots_starts(secret)))


def session_commitment(seed: bytes, key: str) -> str:
    return sha256(b"rules-dice-bot/fair-session/4\n" + seed + bytes.fromhex(key)).hex()


def draw(seed: bytes, prefix: int | str, ranges: list[tuple[int, int]]) -> list[list[int]]:
    """[a, b, face] for each range, the way a layout-4 roll (prefix: interaction id) or a legacy one draws."""
    out = []
    for k, (a, b) in enumerate(ranges):
        n = b - a + 1
        attempt = 0
        while True:
            x = int.from_bytes(hmac.new(seed, f"{prefix}:{k}:{attempt}".encode(), hashlib.sha256).digest(), "big")
            if x < 2**256 - 2**256 % n:
                out.append([a, b, a + x % n])
                break
            attempt += 1
    return out


SEAL_FIELDS = ("kind", "options", "input", "outcome", "summary")


def seal_of(commitment: str, entry: dict[str, Any], salt: str) -> str:
    body = {k: entry[k] for k in ("roll", "interaction_id", *SEAL_FIELDS)}
    body |= {"domain": "rules-dice-bot/sealed-roll/4", "session": commitment, "salt": salt}
    return hashlib.sha256(canon(body)).hexdigest()


def public_form(entry: dict[str, Any]) -> dict[str, Any]:
    if "unanswered" in entry or not entry["sealed"] or "salt" not in entry["sealed"]:
        return entry
    closed = dict(entry, input=None, outcome=None, sealed={"commitment": entry["sealed"]["commitment"]})
    if entry["private"]:
        closed |= {"options": None, "summary": None}
    return closed


def entry_digest(entry: dict[str, Any]) -> str:
    """An entry's `digest`: the SHA-256 of its public form's canonical JSON, without the digest itself."""
    return sha256(canon({k: v for k, v in public_form(entry).items() if k != "digest"})).hex()


def with_digest(entry: dict[str, Any]) -> dict[str, Any]:
    """The entry with its `digest` (last, as the bot writes it), as an editor who knows the rule would write it."""
    return {k: v for k, v in entry.items() if k != "digest"} | {"digest": entry_digest(entry)}


def log_digest(session: dict[str, Any], rolls: list[dict[str, Any]]) -> bytes:
    """What the signature signs: the session without its signature, and the entries' digests in order."""
    unsigned = {k: v for k, v in session.items() if k != "signature"}
    digests = [entry["digest"] for entry in rolls]
    return sha256(canon({"domain": "rules-dice-bot/fair-log/4", "session": unsigned, "rolls": digests}))


SEED = bytes.fromhex("5e" * 32)
SECRET = bytes.fromhex("a7" * 32)
MESSAGE = 1_300_000_000_000_000_000  # the id of the message that posted the commitment


def roll_entry(
    seed: bytes,
    commitment: str,
    number: int,
    interaction: int,
    ranges: list[tuple[int, int]],
    *,
    private: bool = False,
    hidden: bool = False,
    sealed: bool = False,
) -> dict[str, Any]:
    """A roll as an opened copy lists it (a sealed one with its salt)."""
    draws = draw(seed, interaction, ranges)
    total = sum(face for _, _, face in draws)
    entry: dict[str, Any] = {
        "roll": number,
        "interaction_id": str(interaction),
        "user_id": PLAYER,
        "command": "roll",
        "private": private,
        "hidden": hidden,
        "kind": "dice",
        "options": {"expression": f"{len(ranges)}d{ranges[0][1]}"},
        "input": {"expression": f"{len(ranges)}d{ranges[0][1]}", "secret_ac": 17 if sealed else None},
        "draws": draws,
        "outcome": {"total": total},
        "summary": f"{len(ranges)}d{ranges[0][1]} = {total}",
        "sealed": None,
    }
    if private or sealed:
        salt = hashlib.sha256(f"salt {number}".encode()).hexdigest()
        entry["sealed"] = {"commitment": seal_of(commitment, entry, salt), "salt": salt}
    return entry


def unanswered(number: int, interaction: int, why: str) -> dict[str, Any]:
    return {"roll": number, "interaction_id": str(interaction), "user_id": PLAYER, "command": "roll", "unanswered": why}


D20_ROLL = 6  # a public d20 whose range can be shifted


def make_log(seed: bytes = SEED, secret: bytes = SECRET, *, opened: bool = False) -> dict[str, Any]:
    """A revealed layout-4 session of 6 numbers, signed: its public copy, or the copy with every seal opened."""
    key = signing_key(secret)
    commitment = session_commitment(seed, key)
    made = [
        roll_entry(seed, commitment, 1, MESSAGE + 11, [(1, 6)] * 3),
        roll_entry(seed, commitment, 2, MESSAGE + 25, [(1, 20), (1, 8)], sealed=True),
        roll_entry(seed, commitment, 3, MESSAGE + 31, [(1, 10)] * 2, private=True),
        unanswered(4, MESSAGE + 47, "the command failed before it answered: 1d20+"),
        roll_entry(seed, commitment, 5, MESSAGE + 52, [(1, 100)], private=True, hidden=True),
        roll_entry(seed, commitment, D20_ROLL, MESSAGE + 60, [(1, 20)]),
    ]
    rolls = [with_digest(entry) for entry in made]
    session = {
        "commitment": commitment,
        "seed": seed.hex(),
        "signing_key": key,
        "channel_id": "100000000000000001",
        "commitment_message": str(MESSAGE),
        "started_at": "2026-12-01T20:00:00+00:00",
        "revealed_at": "2026-12-01T23:30:00+00:00",
        "last_roll": len(rolls),
    }
    public = [public_form(entry) for entry in rolls]
    session["signature"] = wots_sign(secret, log_digest(session, public))
    return {
        "format": "rules-dice-bot/fair-session",
        "version": 4,
        "session": session,
        "rolls": rolls if opened else public,
    }


# ---------------------------------------------------------------------------------------------------------
# Running the checker.


def run(*args: str | Path) -> tuple[int, list[str]]:
    # -I: isolated mode, so the script cannot see this project even by accident.
    result = subprocess.run(
        [sys.executable, "-I", str(TOOL), *map(str, args)], capture_output=True, text=True, timeout=60, check=False
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stdout.splitlines()


def check(tmp_path: Path, document: Any, *args: str) -> tuple[int, list[str]]:
    path = tmp_path / "fair-session.json"
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")
    return run(path, *args)


def ok_lines(document: dict[str, Any]) -> list[str]:
    lines = ["commitment ok", "signature ok"]
    for entry in document["rolls"]:
        state = f"not answered: {entry['unanswered']}" if "unanswered" in entry else "ok"
        lines.append(f"roll {entry['roll']} {state}")
    return lines


def test_the_second_implementation_signs_and_verifies() -> None:
    # The test's own W-OTS, checked against itself: a signature verifies, and for another digest it does not.
    digest, other = sha256(b"a log"), sha256(b"another log")
    signature = bytes.fromhex(wots_sign(SECRET, digest))
    steps = wots_digits(digest)
    ends = [chain(i, signature[32 * i : 32 * i + 32], steps[i], 15 - steps[i]) for i in range(67)]
    assert sha256(b"rules-dice-bot/wots\n" + b"".join(ends)).hex() == signing_key(SECRET)
    steps = wots_digits(other)
    ends = [chain(i, signature[32 * i : 32 * i + 32], steps[i], 15 - steps[i]) for i in range(67)]
    assert sha256(b"rules-dice-bot/wots\n" + b"".join(ends)).hex() != signing_key(SECRET)
    # Every copy of one session has one digest: the opened copy's public form is the public copy.
    opened, public = make_log(opened=True), make_log()
    assert [public_form(e) for e in opened["rolls"]] == public["rolls"] != opened["rolls"]


# ---------------------------------------------------------------------------------------------------------
# Genuine logs pass.


@pytest.mark.parametrize("opened", [False, True], ids=["public copy", "opened copy"])
def test_a_genuine_log_passes(tmp_path: Path, opened: bool) -> None:
    document = make_log(opened=opened)
    assert check(tmp_path, document) == (0, ok_lines(document))


def test_a_genuine_log_passes_with_the_commitment_the_channel_saw(tmp_path: Path) -> None:
    document = make_log()
    code, lines = check(tmp_path, document, "--commitment", document["session"]["commitment"].upper())
    assert (code, lines) == (0, ok_lines(document))


def test_an_upper_case_commitment_passes(tmp_path: Path) -> None:
    """Finding: a genuine log whose commitment is upper-case was rejected."""
    document = make_log(opened=True)
    document["session"]["commitment"] = document["session"]["commitment"].upper()
    assert check(tmp_path, document) == (0, ok_lines(document))


def test_a_byte_order_mark_passes(tmp_path: Path) -> None:
    """Finding: a byte-order mark crashed the checker."""
    document = make_log()
    path = tmp_path / "fair-session.json"
    path.write_text(json.dumps(document), encoding="utf-8-sig")
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    assert run(path) == (0, ok_lines(document))


def test_a_gzipped_log_passes(tmp_path: Path) -> None:
    document = make_log(opened=True)
    path = tmp_path / "fair-session.json.gz"
    path.write_bytes(gzip.compress(json.dumps(document).encode()))
    assert run(path) == (0, ok_lines(document))
    document["rolls"][0]["draws"][0][2] ^= 1  # and a forged one inside is found
    path.write_bytes(gzip.compress(json.dumps(document).encode()))
    code, lines = run(path)
    assert code == 1 and "roll 1 MISMATCH: draw 1" in " | ".join(lines)


# ---------------------------------------------------------------------------------------------------------
# Forgeries: each exits 1, with a line naming the roll where the problem is in one roll.


def other_face(entry: dict[str, Any]) -> None:
    a, b, face = entry["draws"][0]
    entry["draws"][0][2] = a + (face - a + 1) % (b - a + 1)


def shifted_range(entry: dict[str, Any]) -> None:
    # The last audit's forgery: a natural 20 out of a range moved until 20 comes out.
    assert draw(SEED, entry["interaction_id"], [(19, 38)])[0][2] != 20
    entry["draws"] = [[19, 38, 20]]


def burnt_draw(entry: dict[str, Any]) -> None:
    # A dummy draw burnt before the real one, so the d20 takes the next number's face.
    real = entry["draws"][0]
    assert draw(SEED, entry["interaction_id"], [(1, 1), (1, 20)])[1] != real
    entry["draws"] = [[1, 1, 1], real]


def relabelled_private(entry: dict[str, Any]) -> None:
    # A public roll made private after the fact, to hide it from a replay: its fields nulled, a seal made up.
    entry |= dict.fromkeys(("options", "input", "outcome", "summary"))
    entry |= {"private": True, "sealed": {"commitment": "ab" * 32}}


def edited(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(entry: dict[str, Any]) -> None:
        assert entry[key] != value
        entry[key] = value

    return edit


def other_seal(entry: dict[str, Any]) -> None:
    entry["sealed"]["commitment"] = "ab" * 32


def extra_key(entry: dict[str, Any]) -> None:
    entry["note"] = "trust me"


def answered_from_the_seed(entry: dict[str, Any]) -> None:
    # An unanswered number filled with a roll whose faces do come from the seed and its interaction.
    made_up = roll_entry(SEED, "", entry["roll"], int(entry["interaction_id"]), [(1, 20)])
    made_up["digest"] = entry["digest"]
    entry.clear()
    entry.update(made_up)


NOT_A_DRAW = "a draw is not [LOW, HIGH, FACE] in whole numbers, with at most 2**64 faces"
TWICE = "the key 'hidden' is given twice"


# forgery: (the roll it forges, how, the start of the line that must name it).
UNSIGNED = "it is not the entry the bot signed: it was changed since the reveal (it does not hash to its digest)"
EARLY = "is not after the message that posted the commitment"
ROLL_FORGERIES: dict[str, tuple[int, Callable[[dict[str, Any]], None], str]] = {
    "changed face": (1, other_face, "roll 1 MISMATCH: draw 1"),
    "shifted range": (D20_ROLL, shifted_range, f"roll {D20_ROLL} MISMATCH: draw 1: 19..38 gives"),
    "burnt dummy draw": (D20_ROLL, burnt_draw, f"roll {D20_ROLL} MISMATCH: draw 2: 1..20 gives"),
    "shifted range of a sealed roll": (2, shifted_range, "roll 2 MISMATCH: draw 1: 19..38 gives"),
    "face of a hidden roll": (5, other_face, "roll 5 MISMATCH: draw 1"),
    "public roll relabelled private": (1, relabelled_private, f"roll 1 MISMATCH: {UNSIGNED}"),
    "summary edited": (D20_ROLL, edited("summary", "1d20 = 20 Critical hit!"), f"roll {D20_ROLL} MISMATCH: {UNSIGNED}"),
    "outcome edited": (D20_ROLL, edited("outcome", {"total": 20}), f"roll {D20_ROLL} MISMATCH: {UNSIGNED}"),
    "options edited": (1, edited("options", {"expression": "3d6+5"}), f"roll 1 MISMATCH: {UNSIGNED}"),
    "author changed": (D20_ROLL, edited("user_id", "200000000000000009"), f"roll {D20_ROLL} MISMATCH: {UNSIGNED}"),
    "seal changed": (2, other_seal, "roll 2 MISMATCH: "),  # the opened copy's seal check names it first
    "unanswered reason rewritten": (
        4,
        edited("unanswered", "the bot stopped before it answered"),
        f"roll 4 MISMATCH: {UNSIGNED}",
    ),
    "unanswered number answered from the seed": (4, answered_from_the_seed, f"roll 4 MISMATCH: {UNSIGNED}"),
    "interaction id at the commitment": (
        1,
        edited("interaction_id", str(MESSAGE)),
        f"roll 1 MISMATCH: interaction {MESSAGE} {EARLY}",
    ),
    "interaction id below the commitment": (
        4,
        edited("interaction_id", str(MESSAGE - 9)),
        f"roll 4 MISMATCH: interaction {MESSAGE - 9} {EARLY}",
    ),
    "duplicate interaction id": (
        4,
        edited("interaction_id", str(MESSAGE + 11)),
        f"roll 4 MISMATCH: interaction {MESSAGE + 11} took roll 1 too",
    ),
    "hidden but not private": (1, edited("hidden", True), "roll 1 MISMATCH: `private` and `hidden`"),
    "private without a seal": (3, edited("sealed", None), "roll 3 MISMATCH: a private roll is always sealed"),
    "public roll without its options": (1, edited("options", None), "roll 1 MISMATCH: kind is set"),
    "an extra key": (1, extra_key, "roll 1 MISMATCH: its keys"),
}


@pytest.mark.parametrize("opened", [False, True], ids=["public copy", "opened copy"])
@pytest.mark.parametrize("forgery", ROLL_FORGERIES, ids=list(ROLL_FORGERIES))
def test_a_forged_roll_is_named(tmp_path: Path, forgery: str, opened: bool) -> None:
    number, forge, line = ROLL_FORGERIES[forgery]
    document = make_log(opened=opened)
    forge(document["rolls"][number - 1])
    code, lines = check(tmp_path, document)
    assert code == 1, lines
    assert any(printed.startswith(line) for printed in lines), lines
    # Each edits one entry in place: the list of digests the bot signed is intact, so the signature holds, and
    # it is the entry's own digest (or a rule broken before it is checked) that names the roll.
    assert "signature ok" in lines


NO_SEED_DECIDES = (
    "public roll relabelled private",
    "summary edited",
    "author changed",
    "unanswered reason rewritten",
    "unanswered number answered from the seed",
)


@pytest.mark.parametrize("opened", [False, True], ids=["public copy", "opened copy"])
def test_what_no_seed_decides_is_named_by_its_digest(tmp_path: Path, opened: bool) -> None:
    """Finding: a rewritten reason, a made-up roll, a relabelled roll, edited outcomes failed only the signature.

    The checker cannot tell these from genuine entries by their rules, faces or seals: what names each is that
    the entry no longer hashes to the digest the bot signed for it.
    """
    for forgery in NO_SEED_DECIDES:
        number, forge, _ = ROLL_FORGERIES[forgery]
        document = make_log(opened=opened)
        forge(document["rolls"][number - 1])
        code, lines = check(tmp_path, document)
        assert code == 1
        assert [line for line in lines if "MISMATCH" in line] == [f"roll {number} MISMATCH: {UNSIGNED}"], forgery


@pytest.mark.parametrize("opened", [False, True], ids=["public copy", "opened copy"])
def test_a_digest_rewritten_to_match_fails_the_signature(tmp_path: Path, opened: bool) -> None:
    """An editor who also rewrote the entry's digest changed what the bot signed: only the signature can say so."""
    for forgery in NO_SEED_DECIDES:
        number, forge, _ = ROLL_FORGERIES[forgery]
        document = make_log(opened=opened)
        forge(document["rolls"][number - 1])
        document["rolls"][number - 1] = with_digest(document["rolls"][number - 1])
        code, lines = check(tmp_path, document)
        assert code == 1
        assert [line for line in lines if "MISMATCH" in line] == [
            "signature MISMATCH: this is not the file the bot signed at the reveal"
        ], forgery


def test_a_digest_edited_alone_is_named(tmp_path: Path) -> None:
    document = make_log()
    document["rolls"][2]["digest"] = "00" * 32
    code, lines = check(tmp_path, document)
    assert code == 1 and f"roll 3 MISMATCH: {UNSIGNED}" in lines
    assert "signature MISMATCH: this is not the file the bot signed at the reveal" in lines


def test_an_upper_case_digest_passes(tmp_path: Path) -> None:
    document = make_log(opened=True)
    for entry in document["rolls"]:
        entry["digest"] = entry["digest"].upper()
    assert check(tmp_path, document) == (0, ok_lines(document))


def test_an_opened_seal_with_another_salt_is_named(tmp_path: Path) -> None:
    document = make_log(opened=True)
    document["rolls"][1]["sealed"]["salt"] = "00" * 32
    code, lines = check(tmp_path, document)
    # The salt is not in the public form, so the signature still holds: the seal is what catches it.
    assert code == 1 and "signature ok" in lines
    assert "roll 2 MISMATCH: its opened copy does not hash to its seal: another input, outcome or salt" in lines


def test_an_opened_copy_with_another_secret_is_named(tmp_path: Path) -> None:
    document = make_log(opened=True)
    document["rolls"][1]["input"]["secret_ac"] = 12
    code, lines = check(tmp_path, document)
    assert code == 1 and "roll 2 MISMATCH: its opened copy does not hash to its seal" in " | ".join(lines)


@pytest.mark.parametrize("version", [1, 3])
def test_a_version_relabelled_switches_no_check_off(tmp_path: Path, version: int) -> None:
    """Finding: `"version": 1` turned the replay off; the layout follows from the commitment, not from the file."""
    document = make_log()
    document["version"] = version
    code, lines = check(tmp_path, document)
    assert code == 1
    assert "version MISMATCH: the commitment is layout 4's, the file is not a layout-4 log" in lines
    assert not any(line.startswith("legacy") for line in lines)
    shifted_range(document["rolls"][D20_ROLL - 1])  # and a forged roll is still found
    code, lines = check(tmp_path, document)
    assert code == 1 and any(line.startswith(f"roll {D20_ROLL} MISMATCH: draw 1") for line in lines)


def test_another_sessions_roll_appended_is_named(tmp_path: Path) -> None:
    document = make_log()
    other = make_log(bytes.fromhex("77" * 32), bytes.fromhex("78" * 32))
    stranger = copy.deepcopy(other["rolls"][0]) | {"roll": 7, "interaction_id": str(MESSAGE + 99)}
    document["rolls"].append(stranger)
    code, lines = check(tmp_path, document)
    assert code == 1
    assert "roll 7 MISMATCH: draw 1: 1..6 gives" in " | ".join(lines), lines
    document["session"]["last_roll"] = 7  # with its number given out too
    code, lines = check(tmp_path, document)
    assert code == 1 and "signature MISMATCH: this is not the file the bot signed at the reveal" in lines
    assert any(line.startswith("roll 7 MISMATCH") for line in lines)
    # The same roll taken as an unanswered entry: bound to nothing but the signature.
    document["rolls"][-1] = unanswered(7, MESSAGE + 99, "the bot stopped before it answered")
    code, lines = check(tmp_path, document)
    assert code == 1 and "signature MISMATCH: this is not the file the bot signed at the reveal" in lines


def test_numbers_missing_twice_or_out_of_order_are_named(tmp_path: Path) -> None:
    document = make_log()
    del document["rolls"][3]
    code, lines = check(tmp_path, document)
    assert code == 1 and "roll 4 MISMATCH: the entry here says roll 5" in lines
    assert "roll 6 MISMATCH: missing: the log lists 5 rolls, last_roll is 6" in lines
    document = make_log()
    document["rolls"][0], document["rolls"][1] = document["rolls"][1], document["rolls"][0]
    code, lines = check(tmp_path, document)
    assert code == 1 and "signature MISMATCH: this is not the file the bot signed at the reveal" in lines
    assert "roll 1 MISMATCH: the entry here says roll 2" in lines
    assert "roll 2 MISMATCH: the entry here says roll 1" in lines


def test_revealed_before_started_is_a_mismatch(tmp_path: Path) -> None:
    document = make_log()
    session = document["session"]
    session["started_at"], session["revealed_at"] = session["revealed_at"], session["started_at"]
    code, lines = check(tmp_path, document)
    assert code == 1 and "session MISMATCH: revealed before it started (or a time without its offset)" in lines


def test_a_wrong_commitment_is_a_mismatch(tmp_path: Path) -> None:
    document = make_log()
    channel = make_log(bytes.fromhex("77" * 32))["session"]["commitment"]
    code, lines = check(tmp_path, document, "--commitment", channel)
    assert code == 1
    assert (
        lines[0]
        == f"commitment MISMATCH: the file's is {document['session']['commitment']}, not the channel's {channel}"
    )


def test_a_seed_that_is_not_committed_is_a_mismatch(tmp_path: Path) -> None:
    document = make_log()
    document["session"]["seed"] = "77" * 32  # a seed ground until the dice suit, swapped in at the reveal
    code, lines = check(tmp_path, document)
    assert (code, len(lines)) == (1, 1) and lines[0].startswith("commitment MISMATCH")
    document = make_log()
    document["session"]["signing_key"] = signing_key(b"another key")  # a key whose secret the forger kept
    code, lines = check(tmp_path, document)
    assert (code, len(lines)) == (1, 1) and lines[0].startswith("commitment MISMATCH")


def test_a_bad_signature_is_a_mismatch(tmp_path: Path) -> None:
    document = make_log()
    signature = document["session"]["signature"]
    for forged in (signature[:-2], signature[:-1] + ("0" if signature[-1] != "0" else "1"), "zz" + signature[2:]):
        document["session"]["signature"] = forged
        code, lines = check(tmp_path, document)
        assert code == 1 and "signature MISMATCH: this is not the file the bot signed at the reveal" in lines


def test_duplicate_keys_are_refused(tmp_path: Path) -> None:
    """Finding: duplicate JSON keys were read, the last one winning."""
    text = json.dumps(make_log())
    path = tmp_path / "fair-session.json"
    path.write_text(text.replace('"hidden": false', '"hidden": true, "hidden": false', 1), encoding="utf-8")
    code, lines = run(path)
    assert (code, lines) == (1, [f"log MISMATCH: not a fair-session log: not strict JSON: {TWICE}"])


@pytest.mark.parametrize(
    "text",
    ['{"format": "rules-dice-bot/fair-session", "ver', "[]", '{"session": 3, "rolls": []}', "NaN", "\xff"],
    ids=["cut short", "a list", "a bad session", "NaN", "not UTF-8"],
)
def test_a_malformed_file_is_one_line_never_a_traceback(tmp_path: Path, text: str) -> None:
    path = tmp_path / "fair-session.json"
    path.write_bytes(text.encode("latin-1"))
    code, lines = run(path)  # `run` asserts no traceback
    assert code == 1 and len(lines) == 1 and lines[0].startswith("log MISMATCH: not a fair-session log:"), lines


def test_a_malformed_roll_is_named(tmp_path: Path) -> None:
    document = make_log()
    document["rolls"][0]["draws"] = [[1, 6]]
    document["rolls"][2] = ["not", "a", "roll"]
    document["rolls"][D20_ROLL - 1]["draws"] = [[1, 20.0, 7]]
    code, lines = check(tmp_path, document)
    assert code == 1
    assert f"roll 1 MISMATCH: {NOT_A_DRAW}" in lines
    assert any(line.startswith("roll 3 MISMATCH: not a roll or an unanswered number") for line in lines)
    assert f"roll {D20_ROLL} MISMATCH: {NOT_A_DRAW}" in lines


def test_a_range_too_wide_to_draw_is_named_not_drawn_forever(tmp_path: Path) -> None:
    # 2**256 % n is 2**256 for n above 2**256: no digest would ever be accepted, and the checker would loop.
    document = make_log()
    document["rolls"][0]["draws"][0] = [1, 2**300, 1]
    code, lines = check(tmp_path, document)
    assert code == 1 and f"roll 1 MISMATCH: {NOT_A_DRAW}" in lines


def test_a_reason_cannot_print_lines_of_its_own(tmp_path: Path) -> None:
    document = legacy_log()
    document["rolls"][1]["unanswered"] = "1d20+\nroll 3 ok\n"
    document["rolls"][2]["draws"][0][2] = 21
    code, lines = check(tmp_path, document)
    assert code == 1 and "roll 2 not answered: 1d20+ roll 3 ok" in lines and "roll 3 ok" not in lines


def test_a_deeply_nested_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "fair-session.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    code, lines = run(path)
    assert code == 1 and len(lines) == 1 and lines[0].startswith("log MISMATCH: not a fair-session log")


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    code, lines = run(tmp_path / "nowhere.json")
    assert code == 1 and len(lines) == 1 and lines[0].startswith("log MISMATCH")


# ---------------------------------------------------------------------------------------------------------
# Legacy logs (versions 1-3, commitment = SHA-256 of the seed): today's checks, and one line saying so.

LEGACY = "legacy log, version 3: nothing signs it, so it proves less than a layout-4 log"


def legacy_log(seed: bytes = SEED) -> dict[str, Any]:
    def legacy_roll(number: int, ranges: list[tuple[int, int]]) -> dict[str, Any]:
        draws = draw(seed, number, ranges)
        return {
            "roll": number,
            "command": "roll",
            "options": {},
            "user_id": PLAYER,
            "private": False,
            "kind": "dice",
            "input": {},
            "draws": draws,
            "outcome": {"total": sum(d[2] for d in draws)},
            "summary": "",
            "sealed": None,
        }

    session = {
        "commitment": hashlib.sha256(seed).hexdigest(),
        "seed": seed.hex(),
        "channel_id": "1",
        "started_at": "2026-01-01T00:00:00+00:00",
        "revealed_at": "2026-01-02T00:00:00+00:00",
        "last_roll": 3,
    }
    rolls = [legacy_roll(1, [(1, 6)] * 4), unanswered(2, 0, "1d20+"), legacy_roll(3, [(1, 20)])]
    del rolls[1]["interaction_id"]
    return {"format": "rules-dice-bot/fair-session", "version": 3, "session": session, "rolls": rolls}


def test_a_legacy_log_passes_and_says_it_proves_less(tmp_path: Path) -> None:
    """Finding: a genuine log with an upper-case commitment was rejected, and a byte-order mark crashed the checker."""
    document = legacy_log()
    expected = ["commitment ok", LEGACY, "roll 1 ok", "roll 2 not answered: 1d20+", "roll 3 ok"]
    assert check(tmp_path, document) == (0, expected)
    document["session"]["commitment"] = document["session"]["commitment"].upper()
    assert check(tmp_path, document) == (0, expected)
    path = tmp_path / "fair-session.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(document).encode())
    assert run(path) == (0, expected)


def test_a_legacy_log_keeps_todays_checks(tmp_path: Path) -> None:
    """Finding: only 5 of the checker's 10 roll-level rejections named the roll; each now says which, and why."""
    document = legacy_log()
    other_face(document["rolls"][2])
    code, lines = check(tmp_path, document)
    assert code == 1 and lines[-1].startswith("roll 3 MISMATCH: draw 1: 1..20 gives")
    document = legacy_log()
    del document["rolls"][1]  # a number without its roll or a reason
    code, lines = check(tmp_path, document)
    assert code == 1 and "roll 2 MISMATCH: the entry here says roll 3" in lines
    assert "roll 3 MISMATCH: missing: the log lists 2 rolls, last_roll is 3" in lines
    document = legacy_log()
    document["session"]["seed"] = "77" * 32
    code, lines = check(tmp_path, document)
    assert code == 1 and lines[0].startswith("commitment MISMATCH")
    document = legacy_log()
    document["version"] = 4  # a legacy commitment does not make a layout-4 log
    code, lines = check(tmp_path, document)
    assert code == 1 and lines[0].startswith("commitment MISMATCH")


def test_a_legacy_opened_seal_is_checked(tmp_path: Path) -> None:
    document = legacy_log()
    entry = document["rolls"][0]
    salt = "5a" * 32
    body = {k: entry[k] for k in ("kind", "input", "outcome", "roll")} | {"salt": salt}
    body |= {"domain": "rules-dice-bot/sealed-roll", "session": document["session"]["commitment"]}
    entry["sealed"] = {"commitment": hashlib.sha256(canon(body)).hexdigest(), "salt": salt}
    assert check(tmp_path, document)[0] == 0
    entry["outcome"] = {"total": 24}
    code, lines = check(tmp_path, document)
    assert code == 1 and "roll 1 MISMATCH: its opened copy does not hash to its seal" in " | ".join(lines)


# ---------------------------------------------------------------------------------------------------------
# One roll's faces by hand, and the script itself.


def test_the_faces_of_one_layout_4_roll() -> None:
    interaction = MESSAGE + 60
    expected = [face for _, _, face in draw(SEED, interaction, [(1, 20), (1, 20), (3, 8)])]
    code, lines = run(SEED.hex(), "6", "20", "20", "3..8", "--interaction", str(interaction))
    assert (code, lines) == (0, ["faces " + " ".join(map(str, expected))])
    legacy = [face for _, _, face in draw(SEED, 6, [(1, 20), (1, 20), (3, 8)])]
    code, lines = run(SEED.hex(), "6", "20", "20", "3..8")
    assert (code, lines) == (
        0,
        [f"commitment {hashlib.sha256(SEED).hexdigest()}", "faces " + " ".join(map(str, legacy))],
    )


def doc_block(language: str) -> str:
    text = FAIR_DOC.read_text(encoding="utf-8")
    start = text.index(f"```{language}\n") + len(f"```{language}\n")
    return text[start : text.index("```", start)]


def test_the_docs_show_the_tool_as_it_is() -> None:
    assert doc_block("python") == TOOL.read_text(encoding="utf-8")


def test_the_tool_is_short_and_standard_library_only() -> None:
    source = TOOL.read_text(encoding="utf-8")
    # Short enough to read whole before trusting it.
    assert len(source.splitlines()) <= 200
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported <= set(sys.stdlib_module_names)
