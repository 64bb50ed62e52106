"""Provably fair rolls: the documented derivation, against a separate implementation, the stand-alone checker
in tools/ and the dice engine.

`reference_faces` below is written from the module docstring alone, with hmac and hashlib; it never calls the
module's helpers.
"""

from __future__ import annotations

import hashlib
import hmac
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from bot.errors import UserError
from bot.rules import fair
from bot.rules.dice import DiceResult, DieState, roll
from bot.rules.fair import (
    MAX_FACES,
    FairDice,
    FairError,
    Verification,
    commitment,
    digest_value,
    face_from_digest,
    new_seed,
    seed_from_hex,
    verify,
)
from bot.rules.fair_log import check_log, parse_log
from tests.stats import chi2_sf

ROOT = Path(__file__).resolve().parents[2]
FAIR_DOC = ROOT / "docs" / "fair.md"
TOOL = ROOT / "tools" / "verify_roll.py"


def doc_block(language: str) -> str:
    """The first block of `language` in docs/fair.md."""
    text = FAIR_DOC.read_text(encoding="utf-8")
    start = text.index(f"```{language}\n") + len(f"```{language}\n")
    return text[start : text.index("```", start)]


# The module docstring's worked example, computed once and typed in.
EXAMPLE_SEED = bytes(range(32))
EXAMPLE_SEED_HEX = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
EXAMPLE_COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
EXAMPLE_DIGESTS = (
    "75cea03a7fd0f2f0bb28fb4d23234234de916e735d86de8f3d257461d62c382d",
    "5793ed02865e5f66f83013efdc6255b0923478cd58fe911d33afd45e3cd74e74",
    "4175e6042a531707d792bfc808605285c79e963af00dfbef8eecba6d68b7f49d",
)
EXAMPLE_FACES = [6, 17, 2]

SEED = bytes.fromhex("9f" * 32)
RANGES = [(1, 2), (1, 4), (1, 6), (1, 20), (1, 100), (1, 10000), (0, 7), (-5, 5), (3, 3), (0, MAX_FACES - 1)]


def reference_faces(seed: bytes, roll_number: int, ranges: list[tuple[int, int]]) -> list[int]:
    faces = []
    for k, (a, b) in enumerate(ranges):
        n = b - a + 1
        limit = 2**256 - (2**256 % n)
        attempt = 0
        while True:
            mac = hmac.new(seed, f"{roll_number}:{k}:{attempt}".encode(), hashlib.sha256).digest()
            x = int.from_bytes(mac, "big")
            if x < limit:
                faces.append(a + x % n)
                break
            attempt += 1
    return faces


def fair_faces(seed: bytes, roll_number: int, ranges: list[tuple[int, int]]) -> list[int]:
    dice = FairDice(seed, roll_number)
    return [dice.randint(a, b) for a, b in ranges]


# ---------------------------------------------------------------------------------------------------------
# The worked example.


def test_worked_example_faces_are_the_documented_ones() -> None:
    d20s = [(1, 20)] * 3
    assert commitment(EXAMPLE_SEED) == EXAMPLE_COMMITMENT
    assert EXAMPLE_SEED.hex() == EXAMPLE_SEED_HEX
    assert fair_faces(EXAMPLE_SEED, 1, d20s) == EXAMPLE_FACES
    assert reference_faces(EXAMPLE_SEED, 1, d20s) == EXAMPLE_FACES
    for k, digest in enumerate(EXAMPLE_DIGESTS):
        assert digest_value(EXAMPLE_SEED, 1, k, 0) == int(digest, 16)
        assert hmac.new(EXAMPLE_SEED, f"1:{k}:0".encode(), hashlib.sha256).hexdigest() == digest


def test_the_docstring_quotes_the_example_the_code_gives() -> None:
    doc = fair.__doc__ or ""
    assert EXAMPLE_SEED_HEX in doc
    assert EXAMPLE_COMMITMENT in doc
    for digest in EXAMPLE_DIGESTS:
        assert digest in doc
    assert "are 6, 17, 2." in doc
    assert f"mod 20 = {2**256 % 20}," in doc


# ---------------------------------------------------------------------------------------------------------
# Seeds and commitments.


def test_new_seeds_are_32_fresh_bytes() -> None:
    seeds = {new_seed() for _ in range(100)}
    assert len(seeds) == 100
    assert all(isinstance(seed, bytes) and len(seed) == 32 for seed in seeds)


def test_commitment_is_lowercase_hex_sha256_of_the_raw_bytes() -> None:
    assert commitment(SEED) == hashlib.sha256(SEED).hexdigest()
    assert commitment(SEED) != hashlib.sha256(SEED.hex().encode()).hexdigest()
    assert len(commitment(SEED)) == 64 and commitment(SEED) == commitment(SEED).lower()


def test_seed_from_hex_accepts_the_revealed_spelling_and_refuses_the_rest() -> None:
    assert seed_from_hex(EXAMPLE_SEED_HEX) == EXAMPLE_SEED
    assert seed_from_hex(EXAMPLE_SEED_HEX.upper()) == EXAMPLE_SEED
    assert seed_from_hex(f" {EXAMPLE_SEED_HEX} ") == EXAMPLE_SEED
    with pytest.raises(FairError, match="64 characters from 0-9 and a-f"):
        seed_from_hex("zz" * 32)
    with pytest.raises(FairError, match=r"64 hex digits .* that one has 62"):
        seed_from_hex(EXAMPLE_SEED_HEX[:-2])
    assert issubclass(FairError, UserError)


# ---------------------------------------------------------------------------------------------------------
# The derivation.


def test_same_seed_roll_and_ranges_give_the_same_faces() -> None:
    ranges = [(1, 20)] * 50 + RANGES
    assert fair_faces(SEED, 7, ranges) == fair_faces(SEED, 7, ranges)
    assert fair_faces(SEED, 7, ranges) == reference_faces(SEED, 7, ranges)


def test_roll_numbers_and_seeds_give_different_faces() -> None:
    d20s = [(1, 20)] * 30  # equal by chance: 20**-30
    first = fair_faces(SEED, 1, d20s)
    assert fair_faces(SEED, 2, d20s) != first
    assert fair_faces(SEED, 0, d20s) != first
    assert fair_faces(EXAMPLE_SEED, 1, d20s) != first


def test_a_draw_depends_on_its_index_and_range_only() -> None:
    # The checker needs only the ranges: a draw's face does not depend on the faces before it.
    mixed = fair_faces(SEED, 3, [(1, 6), (1, 20), (1, 100)])
    assert fair_faces(SEED, 3, [(1, 4), (1, 8), (1, 100)])[2] == mixed[2]


@pytest.mark.parametrize(("a", "b"), RANGES)
def test_every_face_is_in_range_and_matches_the_reference(a: int, b: int) -> None:
    ranges = [(a, b)] * 2000
    faces = fair_faces(SEED, 11, ranges)
    assert all(a <= face <= b for face in faces)
    assert faces == reference_faces(SEED, 11, ranges)
    if b - a + 1 <= 8:
        assert set(faces) == set(range(a, b + 1))  # 2000 draws show every face of a small die


def test_draws_record_every_call_in_order() -> None:
    dice = FairDice(SEED, 4)
    faces = [dice.randint(a, b) for a, b in RANGES]
    assert dice.draws == tuple((a, b, face) for (a, b), face in zip(RANGES, faces, strict=True))
    assert dice.roll_number == 4


def test_ranges_the_engine_never_asks_for_are_programming_errors() -> None:
    dice = FairDice(SEED, 1)
    with pytest.raises(ValueError, match="empty"):
        dice.randint(6, 1)
    with pytest.raises(ValueError, match="more than 2\\*\\*64"):
        dice.randint(0, MAX_FACES)
    assert dice.draws == ()
    assert 0 <= dice.randint(0, MAX_FACES - 1) < MAX_FACES  # exactly 2**64 faces is allowed
    with pytest.raises(ValueError, match="32 bytes"):
        FairDice(SEED[:16], 1)
    with pytest.raises(ValueError, match="negative"):
        FairDice(SEED, -1)


# ---------------------------------------------------------------------------------------------------------
# Rejection sampling.


@pytest.mark.parametrize("n", [3, 6, 20, 100, 10000, 2**64 - 1])
def test_the_top_sliver_of_digests_is_rejected(n: int) -> None:
    remainder = 2**256 % n
    limit = 2**256 - remainder
    assert remainder > 0  # none of these n divides 2**256, so each has something to reject
    assert face_from_digest(limit - 1, 1, n) == n  # the last accepted x ends a full cycle of faces
    assert face_from_digest(0, 1, n) == 1
    assert face_from_digest(limit, 1, n) is None
    assert face_from_digest(2**256 - 1, 1, n) is None
    # Accepted digests give each face exactly limit / n times.
    assert limit % n == 0


@pytest.mark.parametrize("n", [1, 2, 4, 8, 2**64])
def test_powers_of_two_never_reject(n: int) -> None:
    assert face_from_digest(2**256 - 1, 0, n - 1) == n - 1


def test_a_rejected_draw_is_redrawn_with_the_next_attempt(monkeypatch: pytest.MonkeyPatch) -> None:
    # A real rejection has a chance below 2**-192 per draw, so force one: refuse the first digest once.
    real = fair.face_from_digest
    seen: list[int] = []

    def reject_first(x: int, a: int, b: int) -> int | None:
        seen.append(x)
        return None if len(seen) == 1 else real(x, a, b)

    monkeypatch.setattr(fair, "face_from_digest", reject_first)
    dice = FairDice(EXAMPLE_SEED, 1)
    first, second = dice.randint(1, 20), dice.randint(1, 20)
    attempt_1 = int(hmac.new(EXAMPLE_SEED, b"1:0:1", hashlib.sha256).hexdigest(), 16)
    assert seen == [int(EXAMPLE_DIGESTS[0], 16), attempt_1, int(EXAMPLE_DIGESTS[1], 16)]
    assert first == 1 + attempt_1 % 20
    assert second == EXAMPLE_FACES[1]  # the next draw starts again at attempt 0
    assert dice.draws == ((1, 20, first), (1, 20, second))  # one logged draw per call, however many attempts


# ---------------------------------------------------------------------------------------------------------
# Uniformity: 60,000 d6.


def uniform_p_value(counts: Counter[object], cells: list[object]) -> float:
    n = sum(counts.values())
    expected = n / len(cells)
    statistic = sum((counts[cell] - expected) ** 2 / expected for cell in cells)
    return chi2_sf(statistic, len(cells) - 1)


THRESHOLD = 1e-6


def test_60000_d6_are_uniform_and_consecutive_pairs_independent() -> None:
    # 6,000 rolls of 10 dice, so that both the roll number and the draw index vary.
    faces: list[int] = []
    for roll_number in range(1, 6001):
        faces.extend(fair_faces(SEED, roll_number, [(1, 6)] * 10))
    assert len(faces) == 60_000
    assert uniform_p_value(Counter(faces), list(range(1, 7))) > THRESHOLD
    pairs = Counter(zip(faces[::2], faces[1::2], strict=True))
    assert uniform_p_value(pairs, [(x, y) for x in range(1, 7) for y in range(1, 7)]) > THRESHOLD


def test_the_uniformity_test_catches_a_biased_die() -> None:
    # The modulo bias the rejection rule removes, made visible: 5 bits mod 6 give 1 and 2 six ways, the rest five.
    biased = [1 + (digest_value(SEED, 1, k, 0) & 0x1F) % 6 for k in range(60_000)]
    assert uniform_p_value(Counter(biased), list(range(1, 7))) < THRESHOLD


# ---------------------------------------------------------------------------------------------------------
# verify


def logged_roll(seed: bytes = SEED, roll_number: int = 5) -> list[tuple[int, int, int]]:
    dice = FairDice(seed, roll_number)
    for a, b in [(1, 20), (1, 6), (1, 6), (1, 6), (1, 100), (0, 7)]:
        dice.randint(a, b)
    return list(dice.draws)


def test_verify_passes_on_a_real_log() -> None:
    log = logged_roll()
    result = verify(SEED.hex(), commitment(SEED), 5, log)
    assert result == Verification(
        True, "The seed matches the commitment and gives all 6 faces of roll 5.", result.expected
    )
    assert result.expected == tuple(face for _, _, face in log)
    assert verify(SEED.hex().upper(), commitment(SEED).upper(), 5, log).ok
    empty = verify(SEED.hex(), commitment(SEED), 5, [])
    assert empty.ok and "no dice" in empty.reason


def test_verify_names_a_tampered_face() -> None:
    log = logged_roll()
    a, b, face = log[2]
    forged = b if face != b else a
    log[2] = (a, b, forged)
    result = verify(SEED.hex(), commitment(SEED), 5, log)
    assert not result.ok
    assert result.reason == f"draw 3: the seed gives {face}, the log says {forged}."
    assert result.expected[2] == face


def test_verify_counts_the_other_tampered_faces() -> None:
    log = [(a, b, b + 1) for a, b, _ in logged_roll()]  # every face out of range
    result = verify(SEED.hex(), commitment(SEED), 5, log)
    assert not result.ok
    assert result.reason.startswith("draw 1: the seed gives ")
    assert result.reason.endswith(" (and 5 more draws differ).")


def test_verify_refuses_a_seed_that_is_not_the_committed_one() -> None:
    other = bytes(range(1, 33))
    result = verify(other.hex(), commitment(SEED), 5, logged_roll())
    assert not result.ok
    assert result.reason == (
        f"The seed does not match the commitment: its SHA-256 is {commitment(other)}, "
        f"the commitment is {commitment(SEED)}."
    )
    # A seed with its own commitment still fails: it does not give the logged faces.
    result = verify(other.hex(), commitment(other), 5, logged_roll())
    assert not result.ok
    assert result.reason.startswith("draw ") and ": the seed gives " in result.reason


def test_verify_refuses_a_wrong_commitment_or_roll_number() -> None:
    wrong = verify(SEED.hex(), "00" * 32, 5, logged_roll())
    assert not wrong.ok
    assert wrong.reason.startswith("The seed does not match the commitment")
    assert wrong.reason.endswith(f"the commitment is {'00' * 32}.")
    other_roll = verify(SEED.hex(), commitment(SEED), 6, logged_roll())
    assert not other_roll.ok and other_roll.reason.startswith("draw ")


def test_verify_explains_unusable_input() -> None:
    log = logged_roll()
    log[1] = (6, 1, 3)
    result = verify(SEED.hex(), commitment(SEED), 5, log)
    assert not result.ok
    assert result.reason == "draw 2: the range 6..1 is empty, which the bot never rolls."
    assert len(result.expected) == 1
    with pytest.raises(FairError, match="64 hex digits"):
        verify("abcd", commitment(SEED), 5, logged_roll())
    with pytest.raises(FairError, match="Roll numbers"):
        verify(SEED.hex(), commitment(SEED), -1, logged_roll())


# ---------------------------------------------------------------------------------------------------------
# The stand-alone checker a player can write.


def run_script(*args: str, exit_code: int = 0) -> list[str]:
    # -I: isolated mode, so the script cannot see this project even by accident.
    result = subprocess.run([sys.executable, "-I", str(TOOL), *args], capture_output=True, text=True, timeout=30)
    assert result.returncode == exit_code, (result.stdout, result.stderr)
    return result.stdout.splitlines()


def run_tool(seed_hex: str, roll_number: int, *sides: str) -> tuple[str, list[int]]:
    commitment_line, faces_line = run_script(seed_hex, str(roll_number), *sides)
    assert commitment_line.startswith("commitment ") and faces_line.startswith("faces")
    return commitment_line.split()[1], [int(face) for face in faces_line.split()[1:]]


def test_the_tool_gives_the_worked_example() -> None:
    assert run_tool(EXAMPLE_SEED_HEX, 1, "20", "20", "20") == (EXAMPLE_COMMITMENT, EXAMPLE_FACES)


def test_the_tool_agrees_with_fair_dice() -> None:
    ranges = [(1, 6)] * 4 + RANGES
    sides = [str(b) if a == 1 else f"{a}..{b}" for a, b in ranges]
    assert run_tool(SEED.hex(), 42, *sides) == (commitment(SEED), fair_faces(SEED, 42, ranges))


EXAMPLE_SIGNING_SECRET = bytes(range(32, 64))
EXAMPLE_KEY = "fa365168f165d0fb35e4dc206eda593294103e9a1aa8d258d54c5b4ae3a95308"
EXAMPLE_COMMITMENT_4 = "e7511823a2ed0ce8205c8171f6b39270820c220dc6265334afac9e75b67c3256"
EXAMPLE_INTERACTION = 1456074443980800012


def test_the_layout_4_example_is_the_documented_one() -> None:
    """docs/fair.md and the docstring: the key, the commitment and an interaction's d20s, from the example seed."""
    from bot.rules import signing

    assert signing.public_key(EXAMPLE_SIGNING_SECRET) == EXAMPLE_KEY
    assert commitment(EXAMPLE_SEED, EXAMPLE_KEY) == EXAMPLE_COMMITMENT_4
    domain = b"rules-dice-bot/fair-session/4\n"
    assert hashlib.sha256(domain + EXAMPLE_SEED + bytes.fromhex(EXAMPLE_KEY)).hexdigest() == EXAMPLE_COMMITMENT_4
    dice = FairDice(EXAMPLE_SEED, 1, interaction_id=EXAMPLE_INTERACTION)
    assert [dice.randint(1, 20) for _ in range(3)] == [11, 6, 16]
    assert FairDice(EXAMPLE_SEED, 7, interaction_id=EXAMPLE_INTERACTION).randint(1, 20) == 11  # any roll number
    for text in ((fair.__doc__ or ""), FAIR_DOC.read_text(encoding="utf-8")):
        assert EXAMPLE_KEY in text and EXAMPLE_COMMITMENT_4 in text and str(EXAMPLE_INTERACTION) in text


def test_the_docs_example_log_and_transcript_check_out() -> None:
    from bot.ui.summaries import accepted_by_kind

    example = parse_log(doc_block("json").encode())
    assert (example.seed, example.commitment, example.signing_key) == (
        EXAMPLE_SEED_HEX,
        EXAMPLE_COMMITMENT_4,
        EXAMPLE_KEY,
    )
    checked = check_log(example, summaries=accepted_by_kind, commitment=EXAMPLE_COMMITMENT_4)
    assert checked.ok, checked.lines
    text = FAIR_DOC.read_text(encoding="utf-8")
    transcript = text[text.index("> /fair start") :]
    seed = transcript.split("Seed: `", 1)[1].split("`", 1)[0]
    key = transcript.split("Signing key: `", 1)[1].split("`", 1)[0]
    posted = transcript.split("the key that will sign the log):\n`", 1)[1].split("`", 1)[0]
    assert commitment(bytes.fromhex(seed), key) == posted


# ---------------------------------------------------------------------------------------------------------
# The dice engine with a fair source.


def test_roll_with_fair_dice_verifies() -> None:
    dice = FairDice(SEED, 1)
    result = roll("4d6kh3+1d20", dice)
    assert [(a, b) for a, b, _ in dice.draws] == [(1, 6)] * 4 + [(1, 20)]
    faces = [face for _, _, face in dice.draws]
    kept_d6 = sorted(faces[:4], reverse=True)[:3]
    assert result.total == sum(kept_d6) + faces[4]
    assert verify(SEED.hex(), commitment(SEED), 1, list(dice.draws)).ok
    assert run_tool(SEED.hex(), 1, "6", "6", "6", "6", "20")[1] == faces


def test_rerolls_and_explosions_draw_from_the_same_sequence() -> None:
    # Over many rolls, some reroll or explode: every extra die is one more logged draw, and the log verifies.
    extra = 0
    for roll_number in range(1, 101):
        dice = FairDice(SEED, roll_number)
        result = roll("4d6r1!", dice)
        assert isinstance(result.tree, DiceResult)
        # The pool lists each die with its rerolls and explosions; the log lists draws as they happened.
        assert sorted(die.face for die in result.tree.dice) == sorted(face for _, _, face in dice.draws)
        assert all(die.state in (DieState.KEPT, DieState.REROLLED) for die in result.tree.dice)
        extra += len(dice.draws) - 4
        assert verify(SEED.hex(), commitment(SEED), roll_number, list(dice.draws)).ok
    assert extra > 0
