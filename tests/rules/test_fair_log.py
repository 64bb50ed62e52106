"""The exported fair-session log: its format, its validation, and the offline check of every roll."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.rules import replay, signing
from bot.rules.fair import FairDice, commitment
from bot.rules.fair_log import (
    FORMAT,
    FairLog,
    FairLogError,
    LogRoll,
    Seal,
    Unanswered,
    check_log,
    dump_log,
    entry_digest,
    filename,
    log_json,
    parse_log,
    seal,
    seal_v4,
    signed_digest,
)

SEED = bytes(range(32))
STARTED = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
REVEALED = datetime(2026, 1, 1, 13, 30, tzinfo=UTC)
USER = 200000000000000001


def logged(number: int, expression: str, *, private: bool = False) -> LogRoll:
    """Roll `number` of the session, `/roll expression` rolled as the bot rolls it."""
    dice = FairDice(SEED, number)
    proof = replay.roll(replay.DICE, replay.DiceRoll(expression), dice)
    return LogRoll(
        roll=number,
        command="roll",
        options=None if private else {"expression": expression},
        user_id=USER,
        private=private,
        draws=dice.draws,
        summary=None if private else "a summary",
        kind=None if private else "dice",
        inputs=None if private else proof.inputs,
        outcome=None if private else proof.outcome,
    )


def session_log(*rolls: LogRoll, last_roll: int | None = None, revealed: bool = True) -> FairLog:
    return FairLog(
        commitment=commitment(SEED),
        seed=SEED.hex() if revealed else None,
        channel_id=300000000000000002,
        started_at=STARTED,
        revealed_at=REVEALED if revealed else None,
        last_roll=max((r.roll for r in rolls), default=0) if last_roll is None else last_roll,
        rolls=rolls,
    )


LOG = session_log(logged(1, "3d20"), logged(2, "1d8+1d6", private=True), logged(3, "5"))


def document(log: FairLog = LOG) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(dump_log(log))
    return loaded


def raw(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc).encode()


# ---------------------------------------------------------------------------------------------------------
# The format.


def test_a_log_survives_the_round_trip() -> None:
    assert parse_log(dump_log(LOG)) == LOG
    empty = session_log()
    assert parse_log(dump_log(empty)) == empty
    running = session_log(logged(1, "1d6"), revealed=False)
    assert parse_log(dump_log(running)) == running


def test_the_file_is_the_documented_json() -> None:
    doc = document()
    assert doc["format"] == FORMAT and doc["version"] == 3
    assert doc["session"] == {
        "commitment": commitment(SEED),
        "seed": SEED.hex(),
        "channel_id": "300000000000000002",
        "started_at": "2026-01-01T12:00:00+00:00",
        "revealed_at": "2026-01-01T13:30:00+00:00",
        "last_roll": 3,
    }
    first = doc["rolls"][0]
    assert first == {
        "roll": 1,
        "command": "roll",
        "options": {"expression": "3d20"},
        "user_id": str(USER),
        "private": False,
        "kind": "dice",
        "input": {"expression": "3d20"},
        "draws": [[1, 20, 6], [1, 20, 17], [1, 20, 2]],  # the worked example of bot.rules.fair
        "outcome": {"expression": "3d20", "total": 25, "capped": False},
        "summary": "a summary",
        "sealed": None,
    }
    private = doc["rolls"][1]
    assert [private[k] for k in ("options", "summary", "kind", "input", "outcome")] == [None] * 5
    assert len(private["draws"]) == 2


def test_an_unanswered_number_is_an_entry_with_its_reason() -> None:
    reason = "the command failed before it answered: no GM channel"
    log = session_log(logged(1, "1d6"), Unanswered(2, "roll", USER, reason))
    doc = document(log)
    assert doc["rolls"][1] == {"roll": 2, "unanswered": reason, "command": "roll", "user_id": str(USER)}
    assert parse_log(dump_log(log)) == log


def test_one_roll_per_line_keeps_a_long_session_small() -> None:
    text = dump_log(LOG).decode()
    assert sum(line.lstrip().startswith('{"roll": ') for line in text.splitlines()) == 3
    # 10,000 rolls of 4d6 and a d20, each with its input and outcome: a long evening's play, well under
    # Discord's 10 MB (3.4 MB measured).
    rolls = tuple(logged(n, "4d6+1d20") for n in range(1, 10_001))
    size = len(dump_log(session_log(*rolls)))
    assert size < 4 * 1024 * 1024, size


def test_a_session_without_a_reveal_has_no_seed() -> None:
    doc = document(session_log(logged(1, "1d6"), revealed=False))
    assert doc["session"]["seed"] is None and doc["session"]["revealed_at"] is None
    checked = check_log(parse_log(raw(doc)))
    assert not checked.ok
    assert checked.lines[-1] == "summary: NOT CHECKED: the session is not revealed yet, so its seed is still secret."


def test_naive_times_from_sqlite_are_written_as_utc() -> None:
    naive = replace(LOG, started_at=STARTED.replace(tzinfo=None))
    assert document(naive)["session"]["started_at"] == "2026-01-01T12:00:00+00:00"


def test_the_file_name_carries_the_commitment_prefix() -> None:
    assert filename(commitment(SEED)) == f"fair-session-{commitment(SEED)[:16]}.json"


def edit(change: Any) -> bytes:
    doc = document()
    change(doc)
    return raw(doc)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "not JSON"),
        (dump_log(LOG)[:200], "not JSON"),
        (b"\xff\xfe garbage", "not JSON"),
        (b"[1, 2]", "not a fair-session log"),
        (b'{"format": "rules-dice-bot/characters", "version": 1}', "not a fair-session log"),
        (edit(lambda d: d.update(version=5)), "reads log versions 1 to 4, not 5"),
        (edit(lambda d: d.update(extra=1)), "The file has unknown keys extra."),
        (edit(lambda d: d["session"].pop("last_roll")), "`session` lacks last_roll."),
        (edit(lambda d: d["session"].update(commitment="xyz")), "`session.commitment` must be 64 hex digits."),
        (edit(lambda d: d["session"].update(seed="ab" * 31)), "`session.seed`: A seed is 64 hex digits"),
        (edit(lambda d: d["session"].update(seed="zz" * 32)), "`session.seed`: A seed is written in hex"),
        (edit(lambda d: d["session"].update(revealed_at=None)), "both set after the reveal"),
        (edit(lambda d: d["session"].update(started_at="yesterday")), "`session.started_at` must be an ISO 8601"),
        (edit(lambda d: d["session"].update(started_at="2026-01-01T12:00:00")), "with its UTC offset"),
        (edit(lambda d: d["session"].update(channel_id=300)), "`session.channel_id` must be a Discord id"),
        (edit(lambda d: d["session"].update(last_roll=True)), "`session.last_roll` must be a whole number"),
        (edit(lambda d: d.update(rolls={})), "`rolls` must be a list."),
        (edit(lambda d: d["rolls"].append(7)), "Entry 4 of `rolls` must be an object."),
        (edit(lambda d: d["rolls"][0].pop("draws")), "Roll 1 (entry 1 of `rolls`) lacks draws."),
        (edit(lambda d: d["rolls"][0].update(roll=0)), "`rolls[0].roll` must be a whole number from 1 up."),
        (edit(lambda d: d["rolls"][0].update(kind=5)), "`kind` must be text"),
        (edit(lambda d: d["rolls"][0].update(outcome=None)), "`outcome` must be an object"),
        (edit(lambda d: d["rolls"][0].pop("input")), "Roll 1 (entry 1 of `rolls`) lacks input."),
        (edit(lambda d: d["rolls"].append({"roll": 4, "unanswered": 1, "command": "roll", "user_id": "1"})), "text"),
        (edit(lambda d: d["rolls"][0]["draws"].append([1, 20])), "`draws` must be a list of [a, b, face]"),
        (edit(lambda d: d["rolls"][0]["draws"].append([1, 20, "6"])), "`draws` must be a list of [a, b, face]"),
        (edit(lambda d: d["rolls"][0]["draws"].append([1, 20, True])), "`draws` must be a list of [a, b, face]"),
        (edit(lambda d: d["rolls"][0].update(options="3d6")), "`options` must be an object"),
        (edit(lambda d: d["rolls"][0].update(summary=5)), "`summary` must be text"),
        (edit(lambda d: d["rolls"][0].update(private="no")), "`private` must be true or false"),
        (edit(lambda d: d["rolls"][0].update(command=None)), "`command` must be text"),
        (edit(lambda d: d["rolls"][0].update(user_id="@me")), "`rolls[0].user_id` must be a Discord id"),
        (edit(lambda d: d["rolls"][0].pop("sealed")), "Roll 1 (entry 1 of `rolls`) lacks sealed."),
        (edit(lambda d: d["rolls"][0].update(sealed="ab" * 32)), "`sealed` must be null, or an object"),
        (edit(lambda d: d["rolls"][0].update(sealed={"commitment": "ab"})), "64 hex digits each"),
        (edit(lambda d: d["rolls"][0].update(sealed={"commitment": "ab" * 32, "salt": 1})), "64 hex digits each"),
        (edit(lambda d: d["rolls"][0].update(sealed={"commitment": "ab" * 32})), "has a null `input` and `outcome`"),
        (edit(lambda d: d["rolls"][1].update(sealed={"commitment": "ab" * 32})), "only a public roll"),
    ],
)
def test_a_bad_file_is_refused_saying_where(data: bytes, message: str) -> None:
    with pytest.raises(FairLogError) as refused:
        parse_log(data)
    assert message in refused.value.message, refused.value.message


# ---------------------------------------------------------------------------------------------------------
# The check.


LEGACY_LINE = (
    "legacy: a session started before version 4: its dice follow from the roll numbers and its log is not signed, "
    "so this proves less (the bot could have chosen its seed, and an edited copy may pass)"
)


def test_a_true_log_checks_out_roll_by_roll() -> None:
    checked = check_log(LOG)
    assert checked.ok
    second = ", ".join(str(face) for _, _, face in LOG.rolls[1].draws)  # type: ignore[union-attr]
    assert checked.lines == (
        f"session {commitment(SEED)[:16]}…: log version 3, 3 rolls logged",
        "commitment: ok, the seed's SHA-256 is the commitment",
        "roll 1: ok, /roll replayed: 3 dice: 6, 17, 2; same ranges, faces and outcome",
        f"roll 2: faces ok, 2 dice: {second} (private: its command, input and outcome are withheld, so only its "
        "faces are checked)",
        "roll 3: ok, /roll replayed: no dice; same ranges, faces and outcome",
        LEGACY_LINE,
        "summary: ok: every roll number from 1 to 3 is accounted for; 2 rolls replayed through the rules core "
        "with the committed seed's dice; 1 roll checked for faces only (private): 2.",
    )


def test_a_tampered_face_is_named() -> None:
    doc = document()
    doc["rolls"][0]["draws"][0][2] = 7
    checked = check_log(parse_log(raw(doc)))
    assert not checked.ok
    assert "roll 1: MISMATCH draw 1: the replay draws 1..20 and gets 6, the log says 1..20 and 7" in checked.lines
    assert checked.lines[-1] == "summary: MISMATCH: 1 problem found; the log does not prove its rolls."
    private = document()
    private["rolls"][1]["draws"][0][2] += 1
    checked = check_log(parse_log(raw(private)))
    assert not checked.ok and checked.lines[3].startswith("roll 2: MISMATCH draw 1: the seed gives ")


def test_a_changed_seed_fails_the_commitment() -> None:
    doc = document()
    doc["session"]["seed"] = "01" * 32
    checked = check_log(parse_log(raw(doc)))
    assert not checked.ok
    assert checked.lines[1].startswith(f"commitment: MISMATCH: the seed's SHA-256 is {commitment(bytes([1] * 32))}")
    assert checked.lines[-1].startswith("summary: MISMATCH: the seed is not the one committed to")


def test_one_roll_can_be_checked_alone() -> None:
    checked = check_log(LOG, roll=1)
    assert checked.ok
    assert checked.lines[2:] == (
        "roll 1: ok, /roll replayed: 3 dice: 6, 17, 2; same ranges, faces and outcome",
        LEGACY_LINE,
        "summary: ok: roll 1; 1 roll replayed through the rules core with the committed seed's dice.",
    )
    missing = check_log(LOG, roll=9)
    assert not missing.ok
    assert missing.lines[2] == "roll 9: NOT IN THE LOG (the log lists 1, 2, 3)"


def test_every_number_given_out_is_accounted_for() -> None:
    gappy = session_log(logged(1, "1d6"), logged(4, "1d6"), last_roll=5)
    checked = check_log(gappy)
    assert not checked.ok
    for number in (2, 3, 5):
        assert f"roll {number}: MISSING: the log neither has its roll nor says why it went unanswered" in checked.lines
    explained = session_log(
        logged(1, "1d6"),
        *(Unanswered(n, "roll", USER, "the bot stopped before it answered") for n in (2, 3)),
        logged(4, "1d6"),
        Unanswered(5, "dnd attack", USER, "the command failed before it answered: no GM channel"),
    )
    checked = check_log(explained)
    assert checked.ok, checked.lines
    assert f"roll 5: not answered (/dnd attack by {USER}): the command failed before it answered: no GM channel" in (
        checked.lines
    )
    assert checked.lines[-1].endswith("3 rolls never answered, for the reasons above: 2, 3, 5.")
    # A checker of one roll still accounts for every number: a gap elsewhere is not hidden by --roll.
    assert not check_log(gappy, roll=1).ok


def test_an_empty_session_checks_out() -> None:
    checked = check_log(session_log())
    assert checked.ok
    assert checked.lines[-1] == (
        "summary: ok: every roll number from 1 to 0 is accounted for; 0 rolls replayed through the rules core "
        "with the committed seed's dice."
    )


# ---------------------------------------------------------------------------------------------------------
# Sealed rolls: a roll against a secret, committed to in the copy anyone gets, opened in its game master's.

SALT = "5a" * 32


def sealed(number: int, expression: str, *, opened: bool) -> LogRoll:
    """Roll `number` as if it were made against a secret: sealed with `SALT`, `opened` or not."""
    roll = logged(number, expression)
    assert roll.kind is not None
    kept = seal(commitment(SEED), number, roll.kind, roll.inputs, roll.outcome, SALT)
    if opened:
        return replace(roll, sealed=Seal(kept, SALT))
    return replace(roll, inputs=None, outcome=None, sealed=Seal(kept))


def test_a_seal_is_a_salted_hash_of_the_roll_in_its_place() -> None:
    kept = seal(commitment(SEED), 1, "dice", {"expression": "1d20"}, {"total": 7}, SALT)
    assert len(kept) == 64
    # Each part counts: the salt, the value, the roll's number and session.
    assert kept != seal(commitment(SEED), 1, "dice", {"expression": "1d20"}, {"total": 7}, "5b" * 32)
    assert kept != seal(commitment(SEED), 1, "dice", {"expression": "1d20"}, {"total": 8}, SALT)
    assert kept != seal(commitment(SEED), 2, "dice", {"expression": "1d20"}, {"total": 7}, SALT)
    assert kept != seal("00" * 32, 1, "dice", {"expression": "1d20"}, {"total": 7}, SALT)
    # Canonical: the order of keys does not change it.
    assert seal("s", 1, "k", {"a": 1, "b": 2}, {}, SALT) == seal("s", 1, "k", {"b": 2, "a": 1}, {}, SALT)


def test_a_sealed_roll_round_trips_in_both_copies() -> None:
    for opened in (False, True):
        log = session_log(logged(1, "1d6"), second := sealed(2, "2d8", opened=opened))
        assert parse_log(dump_log(log)) == log
        entry = document(log)["rolls"][1]
        kept = second.sealed
        assert kept is not None and entry["sealed"] == {
            "commitment": kept.commitment,
            **({"salt": SALT} if opened else {}),
        }
        assert (entry["input"] is None) is not opened and (entry["outcome"] is None) is not opened


def test_the_public_copy_checks_a_sealed_rolls_faces_and_names_it() -> None:
    log = session_log(logged(1, "1d6"), sealed(2, "2d8", opened=False))
    checked = check_log(log)
    assert checked.ok
    faces = ", ".join(str(face) for _, _, face in log.rolls[1].draws)  # type: ignore[union-attr]
    kept = log.rolls[1].sealed.commitment  # type: ignore[union-attr]
    assert checked.lines[3] == (
        f"roll 2: against a secret: faces ok, 2 dice: {faces}; its input and outcome are sealed ({kept[:16]}…), "
        "so its outcome can be checked with the game master's log"
    )
    assert checked.lines[-1] == (
        "summary: ok: every roll number from 1 to 2 is accounted for; 1 roll replayed through the rules core with "
        "the committed seed's dice; 1 roll checked only in part, against a secret (faces only; the game master's "
        "log replays them): 2."
    )
    # The faces are still the seed's: a changed one is caught without the secret.
    entry = log.rolls[1]
    assert isinstance(entry, LogRoll)
    (a, b, face), *rest = entry.draws
    forged = replace(log, rolls=(log.rolls[0], replace(entry, draws=((a, b, face % b + 1), *rest))))
    assert not check_log(forged).ok


def test_the_opened_copy_replays_and_shows_the_same_digest() -> None:
    public = check_log(session_log(logged(1, "1d6"), sealed(2, "2d8", opened=False)))
    opened = check_log(session_log(logged(1, "1d6"), sealed(2, "2d8", opened=True)))
    assert opened.ok
    assert opened.lines[3].startswith("roll 2: ok, /roll replayed: 2 dice: ")
    assert opened.lines[3].endswith("same ranges, faces and outcome; its secret opens its seal")
    digests = [[x for x in c.lines if x.startswith("seals: digest ")] for c in (public, opened)]
    assert len(digests[0]) == 1 and digests[0] == digests[1]


def test_an_opening_that_does_not_match_its_seal_is_a_mismatch() -> None:
    log = session_log(sealed(1, "2d8", opened=True))
    entry = log.rolls[0]
    assert isinstance(entry, LogRoll) and entry.sealed is not None
    for forged in (
        replace(entry, inputs={"expression": "2d8+1"}),  # a replay would agree with neither draws nor outcome
        replace(entry, outcome={**entry.outcome, "total": 99}),
        replace(entry, sealed=Seal(entry.sealed.commitment, "00" * 32)),
        replace(entry, inputs={"expression": "2d8\ud800"}),  # not even UTF-8: refused, not a crash
    ):
        checked = check_log(replace(log, rolls=(forged,)))
        assert not checked.ok
        assert checked.lines[2].startswith("roll 1: MISMATCH the opened input and outcome do not match their seal")


def test_a_version_2_log_still_checks_as_before() -> None:
    doc = document()
    doc["version"] = 2
    for entry in doc["rolls"]:
        entry.pop("sealed")
    log = parse_log(raw(doc))
    assert log.version == 2
    assert check_log(log).lines[1:] == check_log(LOG).lines[1:]
    doc["rolls"][0]["sealed"] = None  # a version 2 roll has no seal to give
    with pytest.raises(FairLogError, match="unknown keys sealed"):
        parse_log(raw(doc))


# ---------------------------------------------------------------------------------------------------------
# Version 4: each entry carries the digest of its public form, and the signature signs the list of digests.

SECRET = bytes(range(32, 64))
KEY = signing.public_key(SECRET)
MESSAGE = 1_300_000_000_000_000_000  # the id of the message that posted the commitment
COMMITMENT = commitment(SEED, KEY)
UNSIGNED = "MISMATCH it is not the entry the bot signed: it hashes to "


def bound(number: int, expression: str) -> LogRoll:
    """Roll `number` of a version 4 session, made for interaction MESSAGE + number, as the bot rolls it."""
    interaction = MESSAGE + number
    dice = FairDice(SEED, number, interaction_id=interaction)
    proof = replay.roll(replay.DICE, replay.DiceRoll(expression), dice)
    return LogRoll(
        roll=number,
        command="roll",
        options={"expression": expression},
        user_id=USER,
        private=False,
        draws=dice.draws,
        summary=f"{expression} = {proof.outcome['total']}",
        kind="dice",
        inputs=proof.inputs,
        outcome=proof.outcome,
        interaction_id=interaction,
    )


def private(number: int, expression: str, *, opened: bool) -> LogRoll:
    """A private roll: sealed, and opened (its input, outcome, options and summary there) or not."""
    entry = replace(bound(number, expression), private=True)
    kept = Seal(seal_v4(COMMITMENT, entry, SALT), SALT)
    if opened:
        return replace(entry, sealed=kept)
    return replace(entry, sealed=Seal(kept.commitment), inputs=None, outcome=None, options=None, summary=None)


def signed_log(*, opened: bool = False) -> FairLog:
    """A revealed version 4 session of three numbers (one never answered), signed as the bot signs it."""
    reason = "the command failed before it answered: 1d20+"
    rolls = (bound(1, "3d6"), Unanswered(2, "roll", USER, reason, MESSAGE + 2), private(3, "1d20", opened=opened))
    log = FairLog(
        commitment=COMMITMENT,
        seed=SEED.hex(),
        channel_id=300000000000000002,
        started_at=STARTED,
        revealed_at=REVEALED,
        last_roll=3,
        rolls=rolls,
        version=4,
        signing_key=KEY,
        commitment_message=MESSAGE,
    )
    return replace(log, signature=signing.sign(SECRET, signed_digest(log_json(log))))


def by_hand(entry: dict[str, Any]) -> str:
    """The SHA-256 of an entry's canonical JSON without its digest, computed here from the specification."""
    unsigned = {k: v for k, v in entry.items() if k != "digest"}
    text = json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def test_each_version_4_entry_ends_with_the_digest_of_its_public_form() -> None:
    public, opened = document(signed_log()), document(signed_log(opened=True))
    for entry in public["rolls"]:
        assert list(entry)[-1] == "digest" and entry["digest"] == by_hand(entry)
    # The opened copy's entries carry the public copy's digests: the salt and what it opens are left out.
    assert opened["rolls"][2] != public["rolls"][2]
    assert [e["digest"] for e in opened["rolls"]] == [e["digest"] for e in public["rolls"]]
    assert opened["session"]["signature"] == public["session"]["signature"]
    # One roll per line, its digest last, so that each line reads as the entry, then its digest.
    lines = [line for line in dump_log(signed_log()).decode().splitlines() if line.lstrip().startswith('{"roll"')]
    assert len(lines) == 3 and all(
        line.rstrip(",").endswith(f'"digest": "{e["digest"]}"}}')
        for line, e in zip(lines, public["rolls"], strict=True)
    )


def test_the_signature_signs_the_session_and_the_list_of_digests() -> None:
    doc = document(signed_log())
    session = {k: v for k, v in doc["session"].items() if k != "signature"}
    body = {"domain": "rules-dice-bot/fair-log/4", "session": session, "rolls": [e["digest"] for e in doc["rolls"]]}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")
    assert signed_digest(doc) == hashlib.sha256(text).digest()
    for opened in (False, True):
        checked = check_log(parse_log(dump_log(signed_log(opened=opened))))
        assert checked.ok, checked.lines
        assert (
            "signature: ok, the bot signed this log at the reveal with the key the commitment covers" in checked.lines
        )


def test_an_entry_edited_since_the_reveal_is_named_by_its_digest() -> None:
    """Finding: an edit that broke no other rule failed only the signature, on a line that named no roll."""
    for opened in (False, True):
        doc = document(signed_log(opened=opened))
        doc["rolls"][0]["summary"] = "3d6 = 18"  # no summaries given to check_log: only the digest sees it
        doc["rolls"][1]["unanswered"] = "the bot stopped before it answered"
        doc["rolls"][2]["kind"] = "dnd.attack" if not opened else "dice"
        doc["rolls"][2]["user_id"] = "200000000000000009"
        checked = check_log(parse_log(raw(doc)))
        assert not checked.ok
        named = [line.partition(" it hashes")[0] for line in checked.lines if UNSIGNED in line]
        assert named == [f"roll {n}: MISMATCH it is not the entry the bot signed:" for n in (1, 2, 3)], checked.lines
        assert any(
            line.startswith("signature: ok for the entries' digests as the file lists them") for line in checked.lines
        )
        assert checked.lines[-1] == "summary: MISMATCH: 3 problems found; the log does not prove its rolls."


def test_a_digest_rewritten_to_match_fails_the_signature() -> None:
    doc = document(signed_log())
    doc["rolls"][1]["unanswered"] = "the bot stopped before it answered"
    doc["rolls"][1]["digest"] = entry_digest(doc["rolls"][1])
    checked = check_log(parse_log(raw(doc)))
    assert not checked.ok and not any(UNSIGNED in line for line in checked.lines)
    assert checked.lines[2].startswith("signature: MISMATCH: the log is not the one the bot signed at the reveal")


def test_a_digest_in_upper_case_is_the_same_digest() -> None:
    doc = document(signed_log())
    for entry in doc["rolls"]:
        entry["digest"] = entry["digest"].upper()
    assert check_log(parse_log(raw(doc))).ok


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda e: e.pop("digest"), "Roll 1 (entry 1 of `rolls`) lacks digest."),
        (lambda e: e.update(digest="zz" * 32), "Roll 1: `digest` must be 64 hex digits."),
        (lambda e: e.update(digest=None), "Roll 1: `digest` must be 64 hex digits."),
    ],
    ids=["missing", "not hex", "null"],
)
def test_a_version_4_entry_without_a_digest_is_refused(edit: Any, message: str) -> None:
    doc = document(signed_log())
    edit(doc["rolls"][0])
    with pytest.raises(FairLogError) as refused:
        parse_log(raw(doc))
    assert refused.value.message == message
