"""The exported fair-session log: its format, its validation, and the offline check of every roll."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.rules.fair import FairDice, commitment
from bot.rules.fair_log import (
    FORMAT,
    FairLog,
    FairLogError,
    LogRoll,
    check_log,
    dump_log,
    filename,
    parse_log,
)

SEED = bytes(range(32))
STARTED = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
REVEALED = datetime(2026, 1, 1, 13, 30, tzinfo=UTC)
USER = 200000000000000001


def logged(number: int, ranges: list[tuple[int, int]], *, private: bool = False) -> LogRoll:
    dice = FairDice(SEED, number)
    for a, b in ranges:
        dice.randint(a, b)
    return LogRoll(
        roll=number,
        command="roll",
        options=None if private else {"expression": f"{len(ranges)}d20"},
        user_id=USER,
        private=private,
        draws=dice.draws,
        summary=None if private else "a summary",
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


LOG = session_log(logged(1, [(1, 20)] * 3), logged(2, [(1, 8), (1, 6)], private=True), logged(3, []))


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
    running = session_log(logged(1, [(1, 6)]), revealed=False)
    assert parse_log(dump_log(running)) == running


def test_the_file_is_the_documented_json() -> None:
    doc = document()
    assert doc["format"] == FORMAT and doc["version"] == 1
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
        "draws": [[1, 20, 6], [1, 20, 17], [1, 20, 2]],  # the worked example of bot.rules.fair
        "summary": "a summary",
    }
    assert doc["rolls"][1]["options"] is None and doc["rolls"][1]["summary"] is None


def test_one_roll_per_line_keeps_a_long_session_small() -> None:
    text = dump_log(LOG).decode()
    assert sum(line.lstrip().startswith('{"roll": ') for line in text.splitlines()) == 3
    # 10,000 rolls of 4d6 and a d20: a long evening's play is a small fraction of Discord's 10 MB.
    rolls = tuple(logged(n, [(1, 6)] * 4 + [(1, 20)]) for n in range(1, 10_001))
    size = len(dump_log(session_log(*rolls)))
    assert size < 3 * 1024 * 1024, size


def test_a_session_without_a_reveal_has_no_seed() -> None:
    doc = document(session_log(logged(1, [(1, 6)]), revealed=False))
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
        (edit(lambda d: d.update(version=2)), "reads log version 1, not 2"),
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
        (edit(lambda d: d["rolls"][0].pop("draws")), "Entry 1 of `rolls` lacks draws."),
        (edit(lambda d: d["rolls"][0].update(roll=0)), "`rolls[0].roll` must be a whole number from 1 up."),
        (edit(lambda d: d["rolls"][2].update(roll=9)), "Roll 9 is past `session.last_roll` (3)."),
        (edit(lambda d: d["rolls"].reverse()), "in roll-number order"),
        (edit(lambda d: d["rolls"][0]["draws"].append([1, 20])), "`draws` must be a list of [a, b, face]"),
        (edit(lambda d: d["rolls"][0]["draws"].append([1, 20, "6"])), "`draws` must be a list of [a, b, face]"),
        (edit(lambda d: d["rolls"][0]["draws"].append([1, 20, True])), "`draws` must be a list of [a, b, face]"),
        (edit(lambda d: d["rolls"][0].update(options="3d6")), "`options` must be an object"),
        (edit(lambda d: d["rolls"][0].update(summary=5)), "`summary` must be text"),
        (edit(lambda d: d["rolls"][0].update(private="no")), "`private` must be true or false"),
        (edit(lambda d: d["rolls"][0].update(command=None)), "`command` must be text"),
        (edit(lambda d: d["rolls"][0].update(user_id="@me")), "`rolls[0].user_id` must be a Discord id"),
    ],
)
def test_a_bad_file_is_refused_saying_where(data: bytes, message: str) -> None:
    with pytest.raises(FairLogError) as refused:
        parse_log(data)
    assert message in refused.value.message, refused.value.message


# ---------------------------------------------------------------------------------------------------------
# The check.


def test_a_true_log_checks_out_roll_by_roll() -> None:
    checked = check_log(LOG)
    assert checked.ok
    assert checked.lines == (
        f"session {commitment(SEED)[:16]}…: 3 rolls logged",
        "commitment: ok, the seed's SHA-256 is the commitment",
        "roll 1: ok, 3 dice: 6, 17, 2",
        f"roll 2: ok, 2 dice: {LOG.rolls[1].draws[0][2]}, {LOG.rolls[1].draws[1][2]}",
        "roll 3: ok, no dice",
        "summary: ok: 3 rolls checked, every face follows from the committed seed.",
    )


def test_a_tampered_face_is_named() -> None:
    doc = document()
    doc["rolls"][0]["draws"][0][2] = 7
    checked = check_log(parse_log(raw(doc)))
    assert not checked.ok
    assert "roll 1: MISMATCH draw 1: the seed gives 6, the log says 7" in checked.lines
    assert "roll 3: ok, no dice" in checked.lines
    assert checked.lines[-1] == "summary: MISMATCH: 1 of 3 rolls checked does not match the seed."


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
        "roll 1: ok, 3 dice: 6, 17, 2",
        "summary: ok: 1 roll checked, every face follows from the committed seed.",
    )
    missing = check_log(LOG, roll=9)
    assert not missing.ok
    assert missing.lines[2] == "roll 9: NOT IN THE LOG: the session gave out no such number (the log lists 1, 2, 3)"


def test_numbers_given_out_but_never_logged_are_listed() -> None:
    gappy = session_log(logged(1, [(1, 6)]), logged(4, [(1, 6)]), last_roll=5)
    checked = check_log(gappy)
    assert checked.ok
    assert "not logged: roll 2, 3, 5 (a command that failed before it answered uses up its number)" in checked.lines
    alone = check_log(gappy, roll=2)
    assert not alone.ok
    assert alone.lines[2].startswith("roll 2: NOT IN THE LOG: its command failed before it answered")


def test_an_empty_session_checks_out() -> None:
    checked = check_log(session_log())
    assert checked.ok
    assert checked.lines[-1] == "summary: ok: the seed matches the commitment, and the log holds no rolls."
