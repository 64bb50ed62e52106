"""A fair session's log keeps a secret's numbers sealed (#25, item 5): the public copy commits, the GM's opens.

The session below is started and revealed by a player (the default `fair.who=anyone`), and rolls at a game
master's secret D&D ogre, a secret Star Frontiers Sathar and a quick creature of a fight that hides hit points.
On the main of the day the log the reveal posted held the ogre's AC formula and damage reduction, the Sathar's
suits and Stamina and the creature's Stamina, in the clear, for anyone to read.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.local.driver import LocalDiscord
from bot.local.payloads import GM_ROLE, MANAGER_PERMISSIONS
from bot.rules.fair_log import LogRoll, parse_log
from tests.helpers import CAROL as PLAYER
from tests.helpers import GM, ROOT, SLITH_HP, attached, copy_for, name_gm_role, secret_session

GM_MEMBER = "200000000000000020"  # a member of the server's game master role, once it names one
# What the public copy must not hold: the keys of the secrets' numbers and the values they had.
SECRET_KEYS = ('"ac"', '"dr"', '"immune_to_criticals"', '"defenses"', '"stamina"', '"explanation"')
# "5 natural" is the ogre's natural armor in an AC formula; a bare "natural" is also a natural 20 or 1 in a summary.
SECRET_TEXT = ("5 natural", "magic", "albedo", "skeinsuit")


def secrets_in(data: bytes) -> list[str]:
    """The secrets' numbers a log holds in the clear."""
    text = data.decode()
    found = [key for key in SECRET_KEYS if key in text] + [word for word in SECRET_TEXT if word in text]
    # Slith's Stamina as the roll's input held it, wherever a number 41 stands alone outside ids, hex and the
    # dice (a face of 41 on a d100 is the seed's, not the secret: with a fresh seed it came up now and then).
    bare = re.sub(r'"draws": \[[^"]*\]|[0-9a-f]{16,}|\d{12,}', "<id>", text)
    return found + ([f"Stamina {SLITH_HP}"] if re.search(rf"(?<![\d.]){SLITH_HP}(?![\d.])", bare) else [])


def script(path: Path, data: bytes) -> int:
    """tools/verify_roll.py, the standard library's own check, on `data`: its exit code."""
    path.write_bytes(data)
    return subprocess.run([sys.executable, str(ROOT / "tools" / "verify_roll.py"), str(path)], check=False).returncode


def verify(capsys: pytest.CaptureFixture[str], path: Path, data: bytes) -> tuple[int, list[str]]:
    """`python -m bot verify` on `data`: its exit code and lines."""
    path.write_bytes(data)
    code = main(["verify", str(path)])
    return code, capsys.readouterr().out.splitlines()


async def test_the_public_log_holds_none_of_the_secrets_numbers(local: LocalDiscord) -> None:
    """Finding: a fair log publishes secret numbers (AC formula, DR, suits, Stamina, a hidden Stamina)."""
    revealed, numbers = await secret_session(local)
    public = attached(revealed)
    assert secrets_in(public) == [], secrets_in(public)
    log = parse_log(public)
    rolls = {r.roll: r for r in log.rolls if isinstance(r, LogRoll)}
    for name in ("ogre", "sathar", "slith"):
        sealed = rolls[numbers[name]]
        assert sealed.sealed is not None and not sealed.sealed.opened, name
        assert sealed.inputs is None and sealed.outcome is None, name
        assert sealed.draws and sealed.summary  # the faces and the line the channel saw stay public
    assert rolls[numbers["roll"]].sealed is None and rolls[numbers["roll"]].inputs == {"expression": "2d6"}
    # A player asking for the log again, even the one who started and revealed it, gets the same sealed copy.
    again = await copy_for(local, local.as_user(PLAYER))
    assert again == public


async def test_the_public_log_verifies_what_it_can_and_names_the_rolls_it_checks_in_part(
    local: LocalDiscord, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Finding: the public copy must stay checkable: seed, faces, order and count; the sealed rolls named."""
    revealed, numbers = await secret_session(local)
    code, lines = verify(capsys, tmp_path / "public.json", attached(revealed))
    assert code == 0, lines
    assert lines[0].endswith("log version 4, 4 rolls logged")
    assert lines[1] == "commitment: ok, it is the SHA-256 of the seed and the log's signing key"
    assert lines[2] == "signature: ok, the bot signed this log at the reveal with the key the commitment covers"
    assert lines[3].startswith("roll 1: ok, /roll replayed: 2 dice: ")
    for name in ("ogre", "sathar", "slith"):
        line = next(x for x in lines if x.startswith(f"roll {numbers[name]}: "))
        assert line.startswith(f"roll {numbers[name]}: against a secret: faces ok, "), line
        assert line.endswith("so its outcome can be checked with the game master's log"), line
    assert lines[-1] == (
        "summary: ok: every roll number from 1 to 4 is accounted for; 1 roll replayed through the rules core with "
        "the committed seed's dice; 3 rolls sealed, checked only in part (faces only; the log its roller or the "
        "game master downloads replays them): 2, 3, 4."
    )
    # A face changed in a sealed roll is still caught: the faces never depended on the secret.
    document = json.loads(attached(revealed))
    _, high, face = document["rolls"][1]["draws"][0]
    document["rolls"][1]["draws"][0][2] = face % high + 1
    code, lines = verify(capsys, tmp_path / "public.json", json.dumps(document).encode())
    assert code == 1 and any(x.startswith("roll 2: MISMATCH ") for x in lines), lines


async def test_the_game_masters_log_opens_every_seal_and_verifies_in_full(
    local: LocalDiscord, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Finding: the game master's copy (the secrets' owner, or Manage Server) replays every roll."""
    revealed, numbers = await secret_session(local)
    public = attached(revealed)
    opened = await copy_for(local, local.as_user(GM))
    moderator = await copy_for(local, local.as_user("200000000000000011", permissions=MANAGER_PERMISSIONS))
    assert moderator == opened
    assert set(secrets_in(opened)) >= {'"ac"', '"dr"', '"defenses"', "albedo", "magic", f"Stamina {SLITH_HP}"}
    log = parse_log(opened)
    rolls = {r.roll: r for r in log.rolls if isinstance(r, LogRoll)}
    salts = [rolls[numbers[name]].sealed.salt for name in ("ogre", "sathar", "slith")]  # type: ignore[union-attr]
    assert all(salt is not None and len(salt) == 64 for salt in salts) and len(set(salts)) == 3
    assert not any(salt in public.decode() for salt in salts if salt)  # the public copy cannot be opened
    assert rolls[numbers["ogre"]].inputs["attack"]["target"]["explanation"] == "15 = 10 + 5 natural"
    assert rolls[numbers["slith"]].inputs["attack"]["defender"]["stamina"] == SLITH_HP

    code, lines = verify(capsys, tmp_path / "gm.json", opened)
    assert code == 0, lines
    for number in (2, 3, 4):
        line = next(x for x in lines if x.startswith(f"roll {number}: "))
        assert line.startswith(f"roll {number}: ok, /") and line.endswith("its secret opens its seal"), line
    assert lines[-1] == (
        "summary: ok: every roll number from 1 to 4 is accounted for; 4 rolls replayed through the rules core "
        "with the committed seed's dice."
    )
    # Both copies carry the one signature, which covers every seal: the opened copy is the session's.
    _, public_lines = verify(capsys, tmp_path / "public.json", public)
    assert parse_log(opened).signature == parse_log(public).signature
    assert (
        lines[2]
        == public_lines[2]
        == ("signature: ok, the bot signed this log at the reveal with the key the commitment covers")
    )
    # The standalone script checks the faces of both copies, and the opened seals of the game master's.
    assert script(tmp_path / "gm.json", opened) == 0 and script(tmp_path / "public.json", public) == 0


async def test_a_forged_opening_is_rejected(
    local: LocalDiscord, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Finding: an "opened" log whose values do not match their commitment must not verify."""
    revealed, numbers = await secret_session(local)
    opened = await copy_for(local, local.as_user(GM))
    index = numbers["ogre"] - 1

    # The ogre's AC claimed lower, in its input and in the outcome, so that the replay agrees with itself.
    document = json.loads(opened)
    document["rolls"][index]["input"]["attack"]["target"]["ac"] = 5
    document["rolls"][index]["outcome"]["ac"] = 5
    code, lines = verify(capsys, tmp_path / "forged.json", json.dumps(document).encode())
    assert code == 1
    assert any(
        x.startswith(f"roll {numbers['ogre']}: MISMATCH the opened input and outcome do not match their seal")
        for x in lines
    ), lines

    # Another salt does not open the seal either.
    document = json.loads(opened)
    document["rolls"][index]["sealed"]["salt"] = "0" * 64
    code, lines = verify(capsys, tmp_path / "forged.json", json.dumps(document).encode())
    assert code == 1 and any(f"roll {numbers['ogre']}: MISMATCH the opened input" in x for x in lines), lines
    assert script(tmp_path / "forged.json", json.dumps(document).encode()) == 1

    # Values slipped into the public copy without a salt are refused outright.
    public = json.loads(attached(revealed))
    public["rolls"][index]["input"] = document["rolls"][index]["input"]
    code, lines = verify(capsys, tmp_path / "forged.json", json.dumps(public).encode())
    assert code == 1  # not a log this bot reads: refused outright


async def test_a_member_of_the_gm_role_gets_the_opened_copy_and_a_player_the_sealed_one(
    connected: LocalDiscord,
) -> None:
    """Finding: `/fair log` asks the audience policy: the server's game master role opens the seals too."""
    local = connected  # the role is read from the guild cache, which a connected bot has, as on Discord
    revealed, _ = await secret_session(local)
    public = attached(revealed)
    await name_gm_role(local)
    game_master = await copy_for(local, local.as_user(GM_MEMBER, roles=(GM_ROLE,)))
    assert game_master == await copy_for(local, local.as_user(GM))
    assert game_master != public and secrets_in(game_master)
    assert await copy_for(local, local.as_user(GM_MEMBER)) == public  # without the role: the sealed copy
