"""/fair through the real command tree: commit, roll from the seed, reveal, verify; and what must be refused."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select, update

from bot.__main__ import main
from bot.db.engine import Database
from bot.db.models import FairSession, RollLog
from bot.local import payloads
from bot.local.driver import Exchange, LocalDiscord
from bot.local.payloads import MANAGER_PERMISSIONS, Actor
from bot.rules.fair_log import LogRoll, Unanswered, check_log, filename, parse_log, unpack
from tests.dice_sources import NoDice, ScriptedDice
from tests.helpers import BOB, ROOT, start_fair


def independent_faces(seed_hex: str, interaction: str, sides: list[int]) -> list[int]:
    """docs/fair.md's derivation, written again here without the bot's code: by the roll's interaction id."""
    seed, faces = bytes.fromhex(seed_hex), []
    for k, n in enumerate(sides):
        attempt = 0
        while True:
            digest = hmac.new(seed, f"{interaction}:{k}:{attempt}".encode(), hashlib.sha256).digest()
            x = int.from_bytes(digest, "big")
            if x < 2**256 - 2**256 % n:
                break
            attempt += 1
        faces.append(1 + x % n)
    return faces


async def test_a_session_commits_rolls_reveals_and_verifies(local: LocalDiscord, database: Database) -> None:
    local.bot.dice = NoDice()  # every die of the session must come from the seed
    commitment = await start_fair(local)
    assert len(commitment) == 64
    first = await local.command("roll", {"expression": "3d6"})
    second = await local.command("roll", {"expression": "1d20+2"}, actor=local.as_user(BOB))
    assert first.embed["footer"]["text"].startswith(f"Fair roll #1 · commitment {commitment[:16]}…")
    assert second.embed["footer"]["text"].startswith("Fair roll #2 ·")

    revealed = await local.command("fair reveal")
    seed, key = revealed.embed["description"].split("`")[1:4:2]
    domain = b"rules-dice-bot/fair-session/4\n"
    assert hashlib.sha256(domain + bytes.fromhex(seed) + bytes.fromhex(key)).hexdigest() == commitment
    assert "2 rolls were made" in revealed.embed["description"]

    # The faces shown are exactly what the seed gives for the command that rolled them, by an implementation
    # that shares no code with the bot.
    shown = [int(f) for f in first.embed["description"].split("(")[1].split(")")[0].split(", ")]
    assert shown == independent_faces(seed, first.payload["id"], [6, 6, 6])
    checked = await local.command("fair verify", {"roll": 2})
    assert checked.embed["title"] == "Fair roll #2: verified"
    assert f"`/roll` by <@{BOB}>: 1 dice" in checked.embed["description"]

    # After the reveal the channel rolls from the bot's own dice again.
    local.bot.dice = ScriptedDice([4])
    after = await local.command("roll", {"expression": "1d6"})
    assert after.embed["description"].split("\n")[0] == "1d6 (4) = **4**"  # then its odds line
    assert "footer" not in after.embed
    async with database.read() as session:
        rows = (
            await session.scalars(select(RollLog).where(RollLog.fair_roll.is_not(None)).order_by(RollLog.fair_roll))
        ).all()
    assert [r.fair_roll for r in rows] == [1, 2]


async def test_a_tampered_log_does_not_verify(local: LocalDiscord, database: Database) -> None:
    await start_fair(local)
    await local.command("roll", {"expression": "2d6"})
    await local.command("fair reveal")
    async with database.write.begin() as session:
        row = (await session.scalars(select(RollLog))).one()
        a, b, face = row.draws[1]
        forged = [row.draws[0], [a, b, face % 6 + 1]]
        await session.execute(update(RollLog).where(RollLog.id == row.id).values(draws=forged))
    checked = await local.command("fair verify", {"roll": 1})
    assert checked.embed["title"] == "Fair roll #1: does NOT match"
    assert f"draw 2: the seed gives {face}, the log says {face % 6 + 1}" in checked.embed["description"]


async def test_every_ruleset_rolls_from_the_session(local: LocalDiscord) -> None:
    local.bot.dice = NoDice()
    await start_fair(local)
    attack = await local.command("dnd attack", {"attack_bonus": 5, "damage": "1d8+2", "target_ac": 12})
    shot = await local.command("sf shoot", {"score": 30, "skill": 1, "damage": "2d10", "distance": "short"})
    fire = await local.command("aliens fire", {"skill_rank": 2, "distance": 3})
    for number, exchange in enumerate((attack, shot, fire), start=1):
        assert f"Fair roll #{number} ·" in exchange.embed["footer"]["text"], exchange.embed


async def test_sessions_are_per_channel_and_one_at_a_time(local: LocalDiscord) -> None:
    await start_fair(local)
    again = await local.command("fair start")
    assert again.ephemeral and "already runs in this channel" in again.embed["description"]
    elsewhere = Actor(user_id=BOB, guild_id=local.actor.guild_id, channel_id="300000000000000099")
    other = await local.command("roll", {"expression": "1d6"}, actor=elsewhere)
    assert "Fair roll" not in (other.embed.get("footer") or {}).get("text", "")


async def test_only_the_starter_or_a_moderator_reveals(local: LocalDiscord) -> None:
    await start_fair(local)
    refused = await local.command("fair reveal", actor=local.as_user(BOB))
    assert refused.ephemeral and refused.embed["description"].startswith("Only <@")
    moderator = local.as_user("200000000000000003", permissions=MANAGER_PERMISSIONS)
    done = await local.command("fair reveal", actor=moderator)
    assert done.embed["title"] == "Fair dice: seed revealed"


async def test_verify_needs_a_revealed_session_and_a_real_roll(local: LocalDiscord) -> None:
    nothing = await local.command("fair verify", {"roll": 1})
    assert nothing.embed["description"] == "This channel has had no fair session."
    await start_fair(local)
    secret = await local.command("fair verify", {"roll": 1})
    assert secret.embed["description"].startswith("The seed is still secret")
    await local.command("fair reveal")
    missing = await local.command("fair verify", {"roll": 5})
    assert missing.embed["description"] == "The session has no roll #5; it made 0."
    reveal_again = await local.command("fair reveal")
    assert reveal_again.embed["description"].startswith("No fair session runs in this channel")


async def test_a_new_session_never_reuses_a_seed(local: LocalDiscord) -> None:
    first = await start_fair(local)
    await local.command("fair reveal")
    second = await start_fair(local)
    assert first != second


# ---------------------------------------------------------------------------------------------------------
# The exported log: attached by /fair reveal, downloaded by /fair log, checked by `python -m bot verify`.

STRANGER = Actor(user_id="200000000000000009", guild_id="300000000000000001", channel_id="300000000000000099")


async def played_session(local: LocalDiscord) -> tuple[str, Exchange]:
    """/fair start, rolls by three commands and two users (one private, one mistyped), /fair reveal."""
    local.bot.dice = NoDice()
    commitment = await start_fair(local)
    await local.command("roll", {"expression": "3d6", "label": "Strength"})
    await local.command("dnd attack", {"attack_bonus": 5, "damage": "1d8+3", "target_ac": 15}, actor=local.as_user(BOB))
    await local.command("roll", {"expression": "1d20+"})  # refused, but its roll number is used up
    await local.command("roll", {"expression": "1d20", "private": True}, actor=local.as_user(BOB))
    return commitment, await local.command("fair reveal")


def verify(capsys: pytest.CaptureFixture[str], path: Path, *extra: str) -> tuple[int, list[str], str]:
    """`python -m bot verify` in this process: exit code, printed lines, error output."""
    code = main(["verify", str(path), *extra])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


async def test_reveal_attaches_a_log_that_verifies_offline(
    local: LocalDiscord, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    commitment, revealed = await played_session(local)
    name = filename(commitment)
    assert list(revealed.files) == [name]
    # The seed is the answer; the log follows in a message of its own.
    seed_message, log_message = revealed.messages
    assert seed_message["embeds"][0]["title"] == "Fair dice: seed revealed"
    note = log_message["embeds"][0]["description"]
    assert f"The attached `{name}` logs every roll (3 logged rolls (1 private), 1 number never answered;" in note
    log = parse_log(revealed.files[name])
    assert (log.commitment, log.last_roll, [r.roll for r in log.rolls]) == (commitment, 4, [1, 2, 3, 4])
    strength, attack, mistyped, private = log.rolls
    assert isinstance(strength, LogRoll) and isinstance(attack, LogRoll) and isinstance(private, LogRoll)
    faces = ", ".join(str(face) for _, _, face in strength.draws)
    assert (strength.command, strength.options) == ("roll", {"expression": "3d6", "label": "Strength"})
    assert strength.summary is not None and strength.summary.startswith(f"3d6 ({faces}) = ")
    assert [(a, b) for a, b, _ in strength.draws] == [(1, 6)] * 3
    # The rules input and the outcome shown, not only the draws: the label only dresses the answer.
    assert (strength.kind, strength.inputs) == ("dice", {"expression": "3d6"})
    assert strength.outcome["total"] == sum(face for _, _, face in strength.draws)
    assert attack.command == "dnd attack" and attack.user_id == int(BOB)
    assert attack.options == {"attack_bonus": 5, "damage": "1d8+3", "target_ac": 15}
    assert attack.draws[0][:2] == (1, 20)  # the attack roll; damage dice follow on a hit
    assert attack.kind == "dnd.attack" and attack.inputs["attack"]["target"]["ac"] == 15
    assert attack.outcome["d20"] == attack.draws[0][2] and attack.outcome["ac"] == 15
    # The mistyped roll used up its number, and the log says why.
    assert isinstance(mistyped, Unanswered) and mistyped.command == "roll"
    assert mistyped.reason.startswith("the command failed before it answered: Unexpected end of expression")
    # A private roll's draws are published, to be checked; what it was for is sealed, for its roller to open.
    assert private.private and private.options is None and private.summary is None and len(private.draws) == 1
    assert private.kind == "dice" and private.inputs is None and private.outcome is None
    assert private.sealed is not None and not private.sealed.opened
    assert check_log(log).ok

    path = tmp_path / name
    path.write_bytes(revealed.files[name])
    code, lines, _ = verify(capsys, path)
    assert code == 0, lines
    assert lines[1] == "commitment: ok, it is the SHA-256 of the seed and the log's signing key"
    assert lines[2] == "signature: ok, the bot signed this log at the reveal with the key the commitment covers"
    assert f"roll 1: ok, /roll replayed: 3 dice: {faces}; same ranges, faces and outcome" in lines
    assert lines[5].startswith("roll 3: not answered (/roll by 200000000000000001): the command failed")
    assert lines[6].startswith("roll 4: private: faces ok, 1 die: ") and "its roller's log" in lines[6]
    assert lines[-1] == (
        "summary: ok: every roll number from 1 to 4 is accounted for; 2 rolls replayed through the rules core "
        "with the committed seed's dice; 1 roll sealed, checked only in part (faces only; the log its roller or "
        "the game master downloads replays them): 4; 1 roll never answered, for the reasons above: 3."
    )

    document = json.loads(path.read_bytes())
    _, b, face = document["rolls"][1]["draws"][0]
    document["rolls"][1]["draws"][0][2] = face % b + 1
    path.write_text(json.dumps(document))
    code, lines, _ = verify(capsys, path)
    assert code == 1
    assert (
        f"roll 2: MISMATCH draw 1: the replay draws 1..20 and gets {face}, the log says 1..20 and {face % b + 1}"
        in lines
    )
    assert lines[3].startswith("roll 2: MISMATCH it is not the entry the bot signed: it hashes to ")
    assert lines[-1] == "summary: MISMATCH: 2 problems found; the log does not prove its rolls."

    document["rolls"][1]["draws"][0][2] = face
    document["session"]["seed"] = "00" * 32
    path.write_text(json.dumps(document))
    code, lines, _ = verify(capsys, path)
    assert code == 1
    assert lines[1].startswith("commitment: MISMATCH: the SHA-256 of the seed and the signing key is ")
    assert lines[-1].startswith("summary: MISMATCH: the seed is not the one committed to")


@pytest.mark.parametrize(
    ("content", "message", "exit_code"),
    [
        (b'{"format": "rules-dice-bot/fair-session", "vers', "Can't read that log: That file is not JSON", 1),
        (b"\x00\x01garbage", "Can't read that log: That file is not JSON", 1),
        (b"{}", "Can't read that log: That JSON is not a fair-session log", 1),
        (None, "Can't read ", 2),
    ],
)
def test_a_file_that_is_no_log_exits_1_and_an_unreadable_one_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None, message: str, exit_code: int
) -> None:
    path = tmp_path / "log.json"
    if content is not None:
        path.write_bytes(content)
    code, lines, err = verify(capsys, path)
    assert (code, lines) == (exit_code, [])
    assert message in err and "Traceback" not in err


@pytest.mark.slow
async def test_verify_runs_as_a_process_without_database_or_token(local: LocalDiscord, tmp_path: Path) -> None:
    commitment, revealed = await played_session(local)
    data = revealed.files[filename(commitment)]
    # Settings that would stop the bot itself: verify must not read them.
    env = {**os.environ, "DATABASE_URL": "nonsense://", "DISCORD_TOKEN": "", "LOG_LEVEL": "LOUD"}
    env.pop("PYTHONPATH", None)

    def run(*args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
        command = [sys.executable, "-m", "bot", "verify", *args]
        return subprocess.run(command, input=stdin, capture_output=True, env=env, cwd=ROOT, timeout=60, check=False)

    ok = run("-", "--roll", "2", stdin=data)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.decode().splitlines()[-2].startswith("roll 2: ok, ")
    cut = run("-", stdin=data[: len(data) // 2])
    assert cut.returncode == 1
    assert cut.stderr.decode().strip() == (
        "standard input: Can't read that log: That file is not JSON (cut short, or not a log at all)."
    )


async def test_fair_log_downloads_this_channels_sessions_only(local: LocalDiscord) -> None:
    commitment, revealed = await played_session(local)
    seed = revealed.embed["description"].split("`")[1]
    again = await local.command("fair log")
    assert again.ephemeral and again.embed["title"] == "Fair dice: session log"
    assert again.files == revealed.files
    named = await local.command("fair log", {"session": commitment[:8].upper()})
    assert named.files == revealed.files

    # Another channel learns nothing: no file, no seed, and no more of the commitment than it typed itself.
    for typed in ("", commitment[:8], commitment):
        elsewhere = await local.command("fair log", {"session": typed} if typed else None, actor=STRANGER)
        assert elsewhere.ephemeral and elsewhere.files == {}
        text = json.dumps(elsewhere.messages)
        assert seed not in text and (typed == commitment or commitment not in text)
        assert elsewhere.embed["description"].startswith("This channel has no revealed fair session")


async def test_fair_log_refuses_what_it_cannot_show(local: LocalDiscord) -> None:
    nothing = await local.command("fair log")
    assert nothing.embed["description"] == "This channel has no revealed fair session yet."
    commitment = await start_fair(local)
    await local.command("roll", {"expression": "1d6"})
    running = await local.command("fair log", {"session": commitment[:8]})
    assert running.files == {} and commitment[:8] in running.embed["description"]
    not_hex = await local.command("fair log", {"session": "not-a-hex"})
    assert not_hex.embed["description"].startswith("A commitment is written in hex")


def reveal_payload(local: LocalDiscord, limit: int) -> dict[str, object]:
    data = payloads.command_data("fair reveal", [])
    payload = payloads.interaction(local.ids, local.actor, payloads.APPLICATION_COMMAND, data)
    payload["attachment_size_limit"] = limit  # Discord announces the limit with every interaction
    return payload


async def test_a_log_larger_than_discord_takes_comes_in_parts_that_join(local: LocalDiscord) -> None:
    commitment = await start_fair(local)
    for _ in range(6):
        await local.command("roll", {"expression": "100d6"})
    revealed = await local.send(reveal_payload(local, 1024))
    assert revealed.embed["title"] == "Fair dice: seed revealed" and revealed.rejected == []
    parts = revealed.files
    name = filename(commitment, compressed=True)
    assert len(parts) > 1 and list(parts) == sorted(parts) == [f"{name}.part{n}" for n in range(1, len(parts) + 1)]
    assert all(len(data) <= 1024 for data in parts.values())
    # One part per message, the first saying how to join them.
    assert len(revealed.messages) == 1 + len(parts)
    first = revealed.messages[1]["embeds"][0]["description"]
    assert f"gzipped, in {len(parts)} parts, one per message" in first and f"cat {name}.part* > {name}" in first
    joined = parse_log(unpack(b"".join(parts.values())))
    assert [r.roll for r in joined.rolls] == list(range(1, 7)) and check_log(joined).ok


async def test_a_log_too_large_even_in_parts_is_said_so(local: LocalDiscord) -> None:
    await start_fair(local)
    await local.command("roll", {"expression": "1000d6"})
    revealed = await local.send(reveal_payload(local, 100))
    assert revealed.files == {}
    assert revealed.embed["title"] == "Fair dice: seed revealed"
    note = revealed.messages[1]["embeds"][0]["description"]
    assert "KB gzipped, more than the 10 attachments of 1 KB Discord lets me post here, so it is not attached" in note


async def test_a_hidden_roll_takes_no_number_from_the_play_channels_session(local: LocalDiscord) -> None:
    # A player may have started the play channel's session and may reveal it: a hidden roll never draws from it,
    # so the session's numbers and log have no trace of it, refused or not.
    commitment = await start_fair(local)
    refused = await local.command("roll", {"expression": "1d20", "hidden": True})
    assert refused.ephemeral and refused.embed["title"] == "No GM channel"
    await local.command("roll", {"expression": "1d6"})
    revealed = await local.command("fair reveal")
    log = parse_log(revealed.files[filename(commitment)])
    [answered] = log.rolls
    assert isinstance(answered, LogRoll) and answered.roll == 1 and answered.options == {"expression": "1d6"}
    assert check_log(log).ok


def test_a_version_1_log_is_still_checked_and_says_it_proves_less(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = bytes(range(32))
    document = {
        "format": "rules-dice-bot/fair-session",
        "version": 1,
        "session": {
            "commitment": hashlib.sha256(seed).hexdigest(),
            "seed": seed.hex(),
            "channel_id": "300000000000000002",
            "started_at": "2026-01-01T12:00:00+00:00",
            "revealed_at": "2026-01-01T13:30:00+00:00",
            "last_roll": 2,
        },
        "rolls": [
            {
                "roll": 1,
                "command": "roll",
                "options": {"expression": "3d20"},
                "user_id": "200000000000000001",
                "private": False,
                "draws": [[1, 20, 6], [1, 20, 17], [1, 20, 2]],
                "summary": "3d20 (6, 17, 2) = 25",
            }
        ],
    }
    path = tmp_path / "old.json"
    path.write_text(json.dumps(document))
    code, lines, _ = verify(capsys, path)
    assert code == 0, lines
    assert lines[1].startswith("version 1: this log holds no inputs or outcomes, so only each face is checked")
    assert "roll 1: faces ok, 3 dice: 6, 17, 2" in lines
    assert "not logged: roll 2 (a version 1 log does not say why a number has no roll)" in lines
    document["rolls"][0]["draws"][1][2] = 18  # type: ignore[index]
    path.write_text(json.dumps(document))
    code, lines, _ = verify(capsys, path)
    assert code == 1 and "roll 1: MISMATCH draw 2: the seed gives 17, the log says 18" in lines


async def test_a_legacy_session_running_at_the_upgrade_rolls_and_reveals_as_it_always_did(
    local: LocalDiscord, database: Database
) -> None:
    """A session started before layout 4 (migration 0021 gives it layout 3) keeps its dice and its checks."""
    await start_fair(local)
    async with database.write.begin() as session:
        row = (await session.scalars(select(FairSession))).one()
        seed = bytes.fromhex(row.seed)
        await session.execute(
            update(FairSession)
            .where(FairSession.id == row.id)
            .values(layout=3, signing_key=None, signing_secret=None, commitment=hashlib.sha256(seed).hexdigest())
        )
    local.bot.dice = NoDice()
    rolled = await local.command("roll", {"expression": "3d6"})
    shown = [int(f) for f in rolled.embed["description"].split("(")[1].split(")")[0].split(", ")]
    assert shown == independent_faces(seed.hex(), "1", [6, 6, 6])  # by roll number, as before
    revealed = await local.command("fair reveal")
    assert "Signing key" not in revealed.embed["description"]
    [data] = revealed.files.values()
    log = parse_log(data)
    checked = check_log(log)
    assert log.version == 3 and log.signature is None and checked.ok, checked.lines
    assert checked.lines[-2].startswith("legacy: a session started before version 4")
