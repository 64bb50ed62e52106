"""Provably fair rolls: commit to a secret seed, derive every die from it, reveal it, let anyone check.

A fair session in a channel goes like this (layout 4; `bot.rules.fair_log` is the log, `bot.rules.signing` the
signature):

1. `/fair start`: the bot draws a secret 32-byte seed and the 32-byte secret of a one-time signing key from the
   operating system (`secrets.token_bytes`), and posts the commitment: the lowercase hex SHA-256 of the ASCII
   line "rules-dice-bot/fair-session/4" and a newline, the 32 raw seed bytes and the 32 bytes of the key's digest
   (`signing.public_key`). Only commands whose Discord interaction is newer than that message roll from it.
2. Each roll (one command's dice) in the channel gets the session's next roll number, and is made for one
   interaction, whose Discord id I it is derived from. Inside a roll the dice are drawn one after another,
   numbered k = 0, 1, 2, ... in the order the dice engine asks for them (the order is documented in
   `bot.rules.dice`). The log records every draw as (a, b, face): the range asked for and the face given.
3. `/fair reveal` publishes the seed and the key; a revealed seed is never used again. Once the rolls in flight
   are settled the log is signed, once, and the key's secret forgotten.
4. Anyone then recomputes every face from the seed, each roll's interaction and the logged ranges, checks the
   commitment, and the signature over the log. That alone (`verify` here, and tools/verify_roll.py) proves each
   face follows from the seed and its *logged* range, and that the file is the one the bot signed; `python -m
   bot verify` also proves the ranges, the number of draws and the outcomes are what the command asked for, by
   replaying each logged roll through the rules core (`bot.rules.replay`, `bot.rules.fair_log.check_log`).

The face of draw k of the roll for interaction I, for the range a..b (n = b - a + 1 faces, 1 <= n <= 2**64):

* message = the ASCII bytes of f"{I}:{k}:{attempt}": decimal, no sign, no padding, no spaces, no newline.
  attempt starts at 0 for every draw.
* x = HMAC-SHA256(key = the 32 seed bytes, msg = message), its 32-byte digest read as one big-endian
  unsigned integer (Python: `int.from_bytes(digest, "big")`), so 0 <= x < 2**256.
* limit = 2**256 - (2**256 mod n), the largest multiple of n not above 2**256.
* If x < limit the face is a + (x mod n). Otherwise the draw is rejected (keeping it would favour the low
  faces) and tried again with attempt + 1, same I and k. Rejection needs x >= limit, a chance below
  n / 2**256 <= 2**-192, so it is never seen in play; an implementation must still loop.

A draw depends only on the seed, I, k and its own range, never on earlier faces or the roll number, so the
ranges and the interaction in the log are all a checker of faces needs; and an interaction gets the same dice
under any roll number, so taking another number cannot re-draw a roll.

A legacy session (log versions 1 to 3, before layout 4) committed to the seed alone (SHA-256 of its 32 bytes)
and used the roll's number r in place of I: message f"{r}:{k}:{attempt}". Such logs are still checked.

Worked example (layout 4). Seed = the bytes 0, 1, 2, ..., 31, signing secret = the bytes 32, ..., 63: the key is
fa365168f165d0fb35e4dc206eda593294103e9a1aa8d258d54c5b4ae3a95308, the commitment
e7511823a2ed0ce8205c8171f6b39270820c220dc6265334afac9e75b67c3256, and three d20 for the interaction
1456074443980800012 are 11, 6, 16 (docs/fair.md's example log).

Worked example (legacy), to test an implementation's HMAC and rejection step against. Seed = the bytes 0, 1, 2,
..., 31 (hex 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f), whose legacy commitment is
630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd. Roll 1, three d20 (a = 1, b = 20):

    k  message   HMAC-SHA256(seed, message), hex                                    x mod 20  face
    0  b"1:0:0"  75cea03a7fd0f2f0bb28fb4d23234234de916e735d86de8f3d257461d62c382d         5     6
    1  b"1:1:0"  5793ed02865e5f66f83013efdc6255b0923478cd58fe911d33afd45e3cd74e74        16    17
    2  b"1:2:0"  4175e6042a531707d792bfc808605285c79e963af00dfbef8eecba6d68b7f49d         1     2

None of the three is rejected (2**256 mod 20 = 16, so only the top 16 values of x would be), so the faces
are 6, 17, 2. tests/rules/test_fair.py checks this example against the code and against a separate
implementation, and runs tools/verify_roll.py, the stand-alone checker a player can read in a minute.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from bot.errors import UserError

SEED_BYTES: Final = 32
MAX_FACES: Final = 2**64  # the widest range one draw may ask for
_SPACE: Final = 2**256  # how many values an HMAC-SHA256 digest can take


class FairError(UserError):
    """A fair-roll check the bot cannot run as asked (a seed that is not 32 bytes of hex, ...)."""

    title = "Can't check that roll"


def new_seed() -> bytes:
    """Step 1: a fresh secret seed of 32 bytes from the operating system's entropy."""
    return secrets.token_bytes(SEED_BYTES)


COMMITMENT_DOMAIN: Final = b"rules-dice-bot/fair-session/4\n"


def commitment(seed: bytes, signing_key: str | None = None) -> str:
    """Step 1: the commitment to a session, in lowercase hex.

    A session of layout 4 commits to its seed and to the key that will sign its log (`bot.rules.signing`):
    SHA-256 of the domain line, the 32 seed bytes and the key's 32 bytes. A legacy session (no key) committed
    to the seed alone, SHA-256 of its raw bytes; a checker tells the two apart by which formula gives the
    commitment, so no field of a log file decides which checks it gets.
    """
    if signing_key is None:
        return hashlib.sha256(seed).hexdigest()
    return hashlib.sha256(COMMITMENT_DOMAIN + seed + bytes.fromhex(signing_key)).hexdigest()


def seed_from_hex(seed_hex: str) -> bytes:
    """Step 4: a revealed seed as bytes, refusing anything that is not 64 hex digits (spaces are ignored)."""
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        raise FairError("A seed is written in hex: 64 characters from 0-9 and a-f.") from None
    if len(seed) != SEED_BYTES:
        raise FairError(f"A seed is {2 * SEED_BYTES} hex digits ({SEED_BYTES} bytes); that one has {2 * len(seed)}.")
    return seed


def digest_value(seed: bytes, label: int, draw: int, attempt: int) -> int:
    """The derivation's x: HMAC-SHA256(seed, b"label:draw:attempt") as a big-endian integer below 2**256.

    The label is the Discord id of the interaction the roll answers (layout 4), or the roll's number (legacy).
    """
    message = f"{label}:{draw}:{attempt}".encode("ascii")
    return int.from_bytes(hmac.digest(seed, message, "sha256"), "big")


def face_from_digest(x: int, a: int, b: int) -> int | None:
    """The rejection rule: a + x mod n when x is below the largest multiple of n, else None (try again)."""
    n = b - a + 1
    if x >= _SPACE - _SPACE % n:
        return None
    return a + x % n


def _range_problem(a: int, b: int) -> str | None:
    """Why a..b is not a range one draw may ask for, or None when it is."""
    if a > b:
        return f"the range {a}..{b} is empty"
    if b - a + 1 > MAX_FACES:
        return f"the range {a}..{b} has more than 2**64 faces"
    return None


class FairDice:
    """The dice source for one roll of a fair session: the k-th `randint` call is draw k of the roll.

    In a session of layout 4 the dice follow from the seed and the interaction the roll answers, an id Discord
    gives after the commitment is posted: the bot can neither grind a seed for rolls it cannot foresee nor get
    other dice for an interaction by giving it another roll number. A legacy session's follow from the number.

    Attributes:
        roll_number: The roll's number in its session.
        interaction_id: The interaction whose dice these are (layout 4), or None (legacy: by roll number).
    """

    __slots__ = ("_draws", "_label", "_seed", "interaction_id", "roll_number")

    def __init__(self, seed: bytes, roll_number: int, *, interaction_id: int | None = None) -> None:
        if len(seed) != SEED_BYTES:
            raise ValueError(f"a fair seed is {SEED_BYTES} bytes, not {len(seed)}")
        if roll_number < 0:
            raise ValueError(f"roll numbers are not negative: {roll_number}")
        if interaction_id is not None and interaction_id < 0:
            raise ValueError(f"interaction ids are not negative: {interaction_id}")
        self._seed = bytes(seed)
        self.roll_number = roll_number
        self.interaction_id = interaction_id
        self._label = roll_number if interaction_id is None else interaction_id
        self._draws: list[tuple[int, int, int]] = []

    @property
    def draws(self) -> tuple[tuple[int, int, int], ...]:
        """Every draw so far as (a, b, face), in order: what the roll log keeps."""
        return tuple(self._draws)

    def randint(self, a: int, b: int) -> int:
        """The next draw's face in a..b, by the derivation in the module docstring.

        Raises:
            ValueError: a > b, or more than 2**64 faces; the dice engine never asks for either.
        """
        problem = _range_problem(a, b)
        if problem is not None:
            raise ValueError(problem)
        draw = len(self._draws)
        attempt = 0
        while (face := face_from_digest(digest_value(self._seed, self._label, draw, attempt), a, b)) is None:
            attempt += 1
        self._draws.append((a, b, face))
        return face


@dataclass(frozen=True, slots=True)
class Verification:
    """The outcome of checking one logged roll against a revealed seed.

    Attributes:
        ok: The seed matches the commitment and gives every logged face.
        reason: One sentence for the player; draws in it are counted from 1 (draw 1 is k = 0).
        expected: The face the seed gives for each logged draw, in order (up to the first unusable range).
    """

    ok: bool
    reason: str
    expected: tuple[int, ...]


def verify(
    seed_hex: str,
    commitment_hex: str,
    roll_number: int,
    draws: Sequence[tuple[int, int, int]],
    *,
    interaction_id: int | None = None,
    signing_key: str | None = None,
) -> Verification:
    """Step 4: check the commitment, then replay the logged ranges in order and compare the faces.

    Args:
        seed_hex: The revealed seed, 64 hex digits.
        commitment_hex: The commitment posted at the start of the session (case does not matter).
        roll_number: The roll's number in the session.
        draws: The roll's log, (a, b, face) per draw.
        interaction_id: The interaction the roll answered (layout 4: its dice follow from it); None: legacy.
        signing_key: The key the session's log is signed with (layout 4, covered by the commitment); None: legacy.

    Raises:
        FairError: The seed is not 64 hex digits, or the roll number is negative.
    """
    seed = seed_from_hex(seed_hex)
    if roll_number < 0:
        raise FairError(f"Roll numbers start at 0; {roll_number} is not one.")
    replay = FairDice(seed, roll_number, interaction_id=interaction_id)
    expected: list[int] = []
    unusable = None
    for index, (a, b, _face) in enumerate(draws, start=1):
        problem = _range_problem(a, b)
        if problem is not None:
            unusable = f"draw {index}: {problem}, which the bot never rolls."
            break
        expected.append(replay.randint(a, b))
    faces = tuple(expected)

    actual = commitment(seed, signing_key)
    posted = commitment_hex.strip().lower()
    if actual != posted:
        reason = f"The seed does not match the commitment: its SHA-256 is {actual}, the commitment is {posted}."
        return Verification(False, reason, faces)
    if unusable is not None:
        return Verification(False, unusable, faces)
    wrong = [index for index, (draw, face) in enumerate(zip(draws, faces, strict=True), start=1) if draw[2] != face]
    if wrong:
        first = wrong[0]
        reason = f"draw {first}: the seed gives {faces[first - 1]}, the log says {draws[first - 1][2]}"
        more = len(wrong) - 1
        if more:
            reason += f" (and {more} more draw{'s' if more > 1 else ''} differ{'' if more > 1 else 's'})"
        return Verification(False, reason + ".", faces)
    dice = "no dice" if not faces else f"all {len(faces)} face{'s' if len(faces) > 1 else ''}"
    return Verification(True, f"The seed matches the commitment and gives {dice} of roll {roll_number}.", faces)
