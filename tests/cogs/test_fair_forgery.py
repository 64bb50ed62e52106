"""A forged fair log is rejected: `python -m bot verify` exits 1 and names the roll, whatever was changed.

The session is played through the bot (every kind of roll, a character's full attack, a mistyped command, a
private roll), revealed, and its log then doctored one way at a time: a face, a range, draws inserted or
removed, an outcome, typed options, inputs (a character's numbers among them), a roll number skipped or
repeated, rolls reordered or moved to another number; and what no replay decides (a reason, an author, a seal, a
public roll relabelled private, a number filled with a private roll), which each entry's digest names.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.__main__ import main
from bot.local.driver import LocalDiscord
from bot.rules.fair import FairDice, seed_from_hex
from bot.rules.fair_log import filename
from tests.dice_sources import NoDice
from tests.helpers import BOB, QUICK_MELEE, QUICK_SHOT, dnd_character, start_fair

Document = dict[str, Any]

SEED = bytes(range(32))  # the worked example's seed (bot.rules.fair)

SESSION = [
    ("roll", {"expression": "3d6", "label": "Strength"}),  # 1
    ("dnd attack", {"attack_bonus": 5, "damage": "1d8+3", "target_ac": 15}),  # 2
    ("roll", {"expression": "1d20+"}),  # 3: refused, its number used up
    ("dnd full-attack", {"target_ac": 15}),  # 4: Kara's numbers
    ("sf shoot", QUICK_SHOT),  # 5
    ("sf melee", QUICK_MELEE),  # 6
    ("aliens fire", {"skill_rank": 2, "distance": 2}),  # 7
    ("roll", {"expression": "1d20", "private": True}),  # 8
]


@pytest.fixture
async def exported(local: LocalDiscord) -> Document:
    """A revealed session's log, as /fair reveal attached it.

    The seed is fixed, so each forgery's verdict is too: with a fresh seed a forgery can match by chance (a
    moved roll whose first faces happen to agree), and the line naming it would change from run to run.
    """
    local.bot.fair_seeds = lambda: SEED
    local.bot.dice = NoDice()
    await dnd_character(local, "Kara", {"Greatsword": ""}, strength=16, bab=11, weapon_groups="martial")
    commitment = await start_fair(local)
    for name, options in SESSION:
        await local.command(name, options, actor=local.as_user(BOB) if name == "dnd attack" else None)
    revealed = await local.command("fair reveal")
    document: Document = json.loads(revealed.files[filename(commitment)])
    return document


def verify(capsys: pytest.CaptureFixture[str], tmp_path: Path, document: Document) -> tuple[int, list[str]]:
    path = tmp_path / "log.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    code = main(["verify", str(path)])
    out, err = capsys.readouterr()
    assert err == ""
    return code, out.splitlines()


def test_the_honest_log_replays_every_kind_of_roll(
    exported: Document, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    kinds = [r.get("kind") for r in exported["rolls"]]
    assert kinds == ["dice", "dnd.attack", None, "dnd.full-attack", "sf.shoot", "sf.melee", "aliens.fire", "dice"]
    # The character's numbers entered the roll, and are in the log: Kara's BAB 11 and Str 16 (+3).
    terms = exported["rolls"][3]["input"]["attacks"][0]["attack_terms"]
    assert terms[:2] == [
        {"name": "BAB", "value": 11, "source": "character"},
        {"name": "Str", "value": 3, "source": "Str 16, melee"},
    ]
    code, lines = verify(capsys, tmp_path, exported)
    assert code == 0, lines
    for number in (1, 2, 4, 5, 6, 7):
        assert any(line.startswith(f"roll {number}: ok, /") for line in lines), (number, lines)
    assert lines[-1].startswith("summary: ok: every roll number from 1 to 8 is accounted for; 6 rolls replayed")


def _face(seed_hex: str, roll: int, a: int, b: int) -> int:
    return FairDice(seed_from_hex(seed_hex), roll).randint(a, b)


def changed_face(d: Document) -> None:
    a, b, face = d["rolls"][0]["draws"][0]
    d["rolls"][0]["draws"][0][2] = a + (face - a + 1) % (b - a + 1)


def changed_range(d: Document) -> None:
    d["rolls"][1]["draws"][0][:2] = [19, 38]


def critical_hit_from_the_seed(d: Document) -> None:
    """The issue's forgery: a range whose face the seed really gives is 20, outcome and summary to match."""
    roll = d["rolls"][1]
    roll["draws"] = [[19, 38, _face(d["session"]["seed"], 2, 19, 38)]]
    roll["outcome"].update(d20=20, outcome="critical")
    roll["summary"] = "Critical hit!"


def inserted_draws(d: Document) -> None:
    d["rolls"][0]["draws"][0:0] = [[1, 1, 1]] * 3


def removed_draw(d: Document) -> None:
    d["rolls"][0]["draws"].pop()


def changed_outcome(d: Document) -> None:
    d["rolls"][0]["outcome"]["total"] += 1


def changed_options(d: Document) -> None:
    d["rolls"][0]["options"]["expression"] = "4d6"


def changed_input(d: Document) -> None:
    d["rolls"][1]["input"]["attack"]["target"]["ac"] = 5


def changed_character_value(d: Document) -> None:
    d["rolls"][3]["input"]["attacks"][0]["attack_terms"][0]["value"] += 5


def changed_sf_attacker(d: Document) -> None:
    d["rolls"][4]["input"]["attack"]["attacker"]["base"]["value"] += 30


def changed_aliens_aim(d: Document) -> None:
    d["rolls"][6]["input"]["distance"] = 9


def changed_aliens_option(d: Document) -> None:
    d["rolls"][6]["options"]["distance"] = 3


def input_that_does_not_decode(d: Document) -> None:
    d["rolls"][5]["input"]["attack"]["situation"]["stunned"] = "yes"


def stripped_input(d: Document) -> None:
    d["rolls"][0].update(kind=None, input=None, outcome=None)


def changed_command(d: Document) -> None:
    d["rolls"][0]["command"] = "dnd attack"


def skipped_number(d: Document) -> None:
    del d["rolls"][2]


def removed_roll(d: Document) -> None:
    del d["rolls"][1]


def reordered_rolls(d: Document) -> None:
    d["rolls"][0], d["rolls"][1] = d["rolls"][1], d["rolls"][0]


def repeated_roll(d: Document) -> None:
    d["rolls"].insert(1, copy.deepcopy(d["rolls"][0]))


def moved_roll(d: Document) -> None:
    """Roll 4 (a full attack: several dice, so no chance match) under number 1 and roll 1 under 4, in order."""
    d["rolls"][0]["roll"], d["rolls"][3]["roll"] = 4, 1
    d["rolls"][0], d["rolls"][3] = d["rolls"][3], d["rolls"][0]


def roll_past_the_last(d: Document) -> None:
    d["rolls"].append({**copy.deepcopy(d["rolls"][0]), "roll": 9})


# Edits that break no rule of the file and no replay: before each entry carried its digest, only the signature
# caught them, on a line that named no roll.


def rewritten_reason(d: Document) -> None:
    d["rolls"][2]["unanswered"] = "the command failed (internal error)"


def changed_author(d: Document) -> None:
    """A roll given to another player: the interaction and the dice stay, so no replay can tell."""
    d["rolls"][1]["user_id"] = "200000000000000009"


def relabelled_private(d: Document) -> None:
    """A public roll made private after the fact, its fields nulled and a seal made up: only its faces are checked."""
    d["rolls"][0] |= dict.fromkeys(("options", "input", "outcome", "summary"))
    d["rolls"][0] |= {"private": True, "sealed": {"commitment": "ab" * 32}}


def answered_privately(d: Document) -> None:
    """An unanswered number filled with a private roll whose face does come from the seed and its interaction."""
    gap = d["rolls"][2]
    dice = FairDice(seed_from_hex(d["session"]["seed"]), 3, interaction_id=int(gap["interaction_id"]))
    dice.randint(1, 20)
    d["rolls"][2] = {
        "roll": 3,
        "interaction_id": gap["interaction_id"],
        "command": "roll",
        "options": None,
        "user_id": gap["user_id"],
        "private": True,
        "hidden": False,
        "kind": "dice",
        "input": None,
        "draws": [list(draw) for draw in dice.draws],
        "outcome": None,
        "summary": None,
        "sealed": {"commitment": "cd" * 32},
        "digest": gap["digest"],
    }


def changed_seal(d: Document) -> None:
    d["rolls"][7]["sealed"]["commitment"] = "ef" * 32


def changed_private_kind(d: Document) -> None:
    d["rolls"][7]["kind"] = "dnd.attack"


UNSIGNED = "MISMATCH it is not the entry the bot signed: it hashes to "


def changed_summary(d: Document) -> None:
    """The audit's "Critical hit!" over a miss: a summary that says what the roll did not do."""
    d["rolls"][1]["summary"] = "Critical hit! 30 damage"


def typed_attack_bonus(d: Document) -> None:
    d["rolls"][1]["options"]["attack_bonus"] = 15


def null_options(d: Document) -> None:
    d["rolls"][0]["options"] = None


def duplicated_interaction(d: Document) -> None:
    d["rolls"][1]["interaction_id"] = d["rolls"][0]["interaction_id"]


def interaction_before_the_commitment(d: Document) -> None:
    d["rolls"][0]["interaction_id"] = str(int(d["session"]["commitment_message"]) - 1000)


def another_sessions_roll(d: Document) -> None:
    """A roll of an earlier session appended as this one's: its interaction is older than this commitment."""
    stranger = {**copy.deepcopy(d["rolls"][2]), "roll": 9, "interaction_id": "1000000000000000000"}
    d["rolls"].append(stranger)
    d["session"]["last_roll"] = 9


FORGERIES: list[tuple[Callable[[Document], None], int, str]] = [
    (changed_summary, 2, "summary 'Critical hit! 30 damage' is not what the roll did"),
    (typed_attack_bonus, 2, "option `attack_bonus` is 15, but the roll was made with 5"),
    (null_options, 1, "a public roll shows its options and summary"),
    (duplicated_interaction, 2, "already took roll 1: an interaction rolls once"),
    (interaction_before_the_commitment, 1, "was made before the message that posted the commitment"),
    (another_sessions_roll, 9, "was made before the message that posted the commitment"),
    (changed_face, 1, "draw 1: the replay draws 1..6 and gets"),
    (changed_range, 2, "draw 1: the replay draws 1..20 and gets"),
    (critical_hit_from_the_seed, 2, "draw 1: the replay draws 1..20 and gets"),
    (inserted_draws, 1, "draw 1: the replay draws 1..6 and gets"),
    (removed_draw, 1, "the log lists 2 draws, the replay makes 3"),
    (changed_outcome, 1, "outcome.total: the replay gives"),
    (changed_options, 1, "option `expression` is '4d6', but the roll was made with '3d6'"),
    (changed_input, 2, ""),  # a miss may turn into a hit (more draws), else outcome.ac differs
    (changed_character_value, 4, ""),  # a hit may turn into a miss (fewer draws), else outcome.ab differs
    (changed_sf_attacker, 5, ""),
    (changed_aliens_aim, 7, ""),
    (changed_aliens_option, 7, "option `distance` is 3, but the roll was made with 2"),
    (input_that_does_not_decode, 6, "input: input.attack.situation.stunned: expected true or false"),
    (stripped_input, 1, "every roll of a version 4 log has its kind"),
    (changed_command, 1, "command /dnd attack does not make a dice roll"),
    (skipped_number, 3, "MISSING: the log neither has its roll nor says why it went unanswered"),
    (removed_roll, 2, "MISSING"),
    (reordered_rolls, 1, "out of order: listed after roll 2"),
    (repeated_roll, 1, "listed twice"),
    # Each roll's dice follow from its interaction, which moves with it, so the swap gains nothing: every roll
    # still replays to its own faces and outcome. The roll numbers are in the entries' digests, so both are
    # named; a forger who rewrote the two digests as well would fail only the signature, as the order the bot
    # signed the entries in is in the signature alone (and the swap would still gain nothing).
    (moved_roll, 1, UNSIGNED),
    (roll_past_the_last, 9, "past the session's last roll number, 8"),
    (rewritten_reason, 3, UNSIGNED),
    (changed_author, 2, UNSIGNED),
    (relabelled_private, 1, UNSIGNED),
    (answered_privately, 3, UNSIGNED),
    (changed_seal, 8, UNSIGNED),
    (changed_private_kind, 8, UNSIGNED),
]
# The forgeries that move, drop or repeat whole entries, each as the bot signed it: the list of digests is not
# the one signed, so the signature fails; the others edit an entry in place, whose digest then names it.
MOVED = {skipped_number, removed_roll, reordered_rolls, repeated_roll, another_sessions_roll}


@pytest.mark.parametrize(("forge", "roll", "says"), FORGERIES, ids=[f.__name__ for f, _, _ in FORGERIES])
def test_a_forged_log_is_rejected_naming_the_roll(
    exported: Document,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    forge: Callable[[Document], None],
    roll: int,
    says: str,
) -> None:
    forge(exported)
    code, lines = verify(capsys, tmp_path, exported)
    assert code == 1, lines
    named = [line for line in lines if line.startswith(f"roll {roll}: ") and ("MISMATCH" in line or "MISSING" in line)]
    assert any(says in line for line in named), lines
    if forge in MOVED:
        assert "signature: MISMATCH: the log is not the one the bot signed at the reveal" in "\n".join(lines)
    else:
        assert f"roll {roll}: {UNSIGNED}" in "\n".join(lines), lines
    assert lines[-1].startswith("summary: MISMATCH"), lines
    assert not any(line.startswith("summary: ok") for line in lines)


def test_what_breaks_no_other_rule_is_named_by_its_digest_alone(
    exported: Document, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Finding: an edit no seed or replay decides failed only the signature, on a line that named no roll."""
    forgeries = [(rewritten_reason, 3), (changed_author, 2), (relabelled_private, 1), (answered_privately, 3)]
    forgeries += [(changed_seal, 8), (changed_private_kind, 8)]
    for forge, roll in forgeries:
        document = copy.deepcopy(exported)
        forge(document)
        code, lines = verify(capsys, tmp_path, document)
        assert code == 1, lines
        assert [line.partition(" it hashes")[0] for line in lines[:-1] if "MISMATCH" in line] == [
            f"roll {roll}: MISMATCH it is not the entry the bot signed:",
        ], (forge.__name__, lines)
        signature = next(line for line in lines if line.startswith("signature: "))
        assert signature.startswith("signature: ok for the entries' digests as the file lists them, but"), lines


def test_a_digest_rewritten_to_match_fails_the_signature(
    exported: Document, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """An editor who also rewrote the entry's digest changed what the bot signed: the signature says so."""
    for forge, roll in [(rewritten_reason, 3), (changed_author, 2), (relabelled_private, 1), (changed_face, 1)]:
        document = copy.deepcopy(exported)
        forge(document)
        entry = document["rolls"][roll - 1]
        unsigned = {k: v for k, v in entry.items() if k != "digest"}
        entry["digest"] = hashlib.sha256(
            json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")
        ).hexdigest()
        code, lines = verify(capsys, tmp_path, document)
        assert code == 1, lines
        assert not any(UNSIGNED in line for line in lines), lines
        assert "signature: MISMATCH: the log is not the one the bot signed at the reveal" in "\n".join(lines)
        assert lines[-1].startswith("summary: MISMATCH"), lines


def file_verdict(tmp_path: Path, data: bytes, *extra: str) -> tuple[int, str]:
    """`python -m bot verify` on raw bytes: its exit code and everything it printed.

    Called in this process (a process costs seconds; tests/cogs/test_fair.py runs `verify` as one): an exception
    it does not turn into one line fails the test instead of printing a traceback.
    """
    path = tmp_path / "log.json"
    path.write_bytes(data)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        code = main(["verify", str(path), *extra])
    return code, printed.getvalue()


def test_what_decides_the_checks_is_the_commitment_not_the_file(exported: Document, tmp_path: Path) -> None:
    """Finding: relabelled `"version": 1`, a log skipped its replay. A layout-4 session is checked as one."""
    for version in (1, 2, 3):
        relabelled = {**copy.deepcopy(exported), "version": version}
        code, said = file_verdict(tmp_path, json.dumps(relabelled).encode())
        assert code == 1 and "Traceback" not in said, said
    # Stripped to a version 3 layout as well: the commitment covers a signing key, which the file no longer has.
    downgraded = copy.deepcopy(exported)
    downgraded["version"] = 3
    for key in ("signing_key", "commitment_message", "signature"):
        del downgraded["session"][key]
    for entry in downgraded["rolls"]:
        for key in ("interaction_id", "hidden", "digest"):
            entry.pop(key, None)
        if entry.get("private"):
            entry.update(kind=None, sealed=None)
    code, said = file_verdict(tmp_path, json.dumps(downgraded).encode())
    assert code == 1 and "commitment: MISMATCH: the seed's SHA-256 is" in said, said


def test_the_file_must_agree_with_itself_and_the_channel(exported: Document, tmp_path: Path) -> None:
    genuine = json.dumps(exported).encode()
    # Genuine logs pass however they are spelled: an upper-case commitment, a byte-order mark.
    shouted = copy.deepcopy(exported)
    shouted["session"]["commitment"] = shouted["session"]["commitment"].upper()
    for data in (json.dumps(shouted).encode(), b"\xef\xbb\xbf" + genuine):
        code, said = file_verdict(tmp_path, data, "--commitment", exported["session"]["commitment"])
        assert code == 0, said
    # The commitment the channel saw is another: another session's file.
    code, said = file_verdict(tmp_path, genuine, "--commitment", "ab" * 32)
    assert code == 1 and "commitment: MISMATCH: the file's commitment is" in said, said
    # Revealed before it started.
    backwards = copy.deepcopy(exported)
    backwards["session"]["revealed_at"] = "2000-01-01T00:00:00+00:00"
    code, said = file_verdict(tmp_path, json.dumps(backwards).encode())
    assert code == 1 and "times: MISMATCH: the session is revealed before it started" in said, said
    # An id of thousands of digits (Python refuses to read such a number): refused in one line, no traceback.
    huge = copy.deepcopy(exported)
    huge["rolls"][0]["user_id"] = "9" * 5000
    code, said = file_verdict(tmp_path, json.dumps(huge).encode())
    assert code == 1 and "must be a Discord id" in said and "Traceback" not in said, said
    # A key named twice: readers disagree on which value such a file means.
    first = genuine.index(b'{"roll": 1, ')
    doubled = genuine[:first] + b'{"roll": 1, "roll": 2, ' + genuine[first + len(b'{"roll": 1, ') :]
    code, said = file_verdict(tmp_path, doubled)
    assert code == 1 and "names the key 'roll' twice in one object" in said and "Traceback" not in said, said
