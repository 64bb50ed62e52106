"""A one-time signature built from SHA-256 alone (Winternitz, w = 16): how a fair log proves it is the bot's.

A fair session's log is signed once, at the reveal, by a key the session committed to before its first roll
(`bot.rules.fair.commitment`). Whoever edits the file afterwards, knowing the revealed seed, cannot sign the
edited file: that needs the key's secret, which is never revealed. Only hashing is needed to check it, so the
standard-library checker (tools/verify_roll.py) checks it too. A Winternitz key may sign one message only (a
second signature would let others combine the two); a session signs exactly one digest, its log's.

The scheme, for a 32-byte message digest d (docs/fair.md prints the same):

* 67 hash chains i = 0..66 start at x_i = HMAC-SHA256(secret, b"wots:<i>"); one step of chain i from step j is
  F(i, j, v) = SHA-256(b"<i>:<j>:" + v). The public key is every chain's 15th step, pk_i = F^15(x_i), and its
  digest `key = SHA-256(the line "rules-dice-bot/wots" + pk_0 + ... + pk_66)` is what the commitment covers.
* The digits: the 64 hex digits of d, then the checksum c = sum(15 - m_i) as 3 hex digits. Lowering a digit
  needs a hash preimage, and raising one lowers the checksum, so no other digest can reuse a signature.
* The signature: s_i = F^{m_i}(x_i) for each digit m_i; checking walks each s_i the remaining 15 - m_i steps and
  compares the digest of the ends with `key`.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Final

CHAINS: Final = 67  # 64 digits of the digest and 3 of the checksum
STEPS: Final = 15  # a chain's length: the digits are base 16
SIGNATURE_HEX: Final = CHAINS * 64
_KEY_DOMAIN: Final = b"rules-dice-bot/wots\n"


def _step(chain: int, start: int, value: bytes, steps: int) -> bytes:
    for step in range(start, start + steps):
        value = hashlib.sha256(f"{chain}:{step}:".encode("ascii") + value).digest()
    return value


def digits(digest: bytes) -> list[int]:
    """The 67 base-16 digits a digest is signed by: its 64 hex digits, then their 3-digit checksum."""
    if len(digest) != 32:
        raise ValueError("a signed digest is 32 bytes")
    message = [int(c, 16) for c in digest.hex()]
    checksum = sum(STEPS - m for m in message)
    return message + [int(c, 16) for c in f"{checksum:03x}"]


def _starts(secret: bytes) -> list[bytes]:
    return [hmac.digest(secret, f"wots:{i}".encode("ascii"), "sha256") for i in range(CHAINS)]


def _key(ends: list[bytes]) -> str:
    return hashlib.sha256(_KEY_DOMAIN + b"".join(ends)).hexdigest()


def public_key(secret: bytes) -> str:
    """The digest of the key `secret` signs with, 64 hex digits: what a session's commitment covers."""
    return _key([_step(i, 0, x, STEPS) for i, x in enumerate(_starts(secret))])


def sign(secret: bytes, digest: bytes) -> str:
    """The signature of a 32-byte digest, 67 * 32 bytes in hex. Sign one digest per secret, never two."""
    chains = enumerate(zip(_starts(secret), digits(digest), strict=True))
    return "".join(_step(i, 0, start, m).hex() for i, (start, m) in chains)


def verify(key: str, digest: bytes, signature: str) -> bool:
    """Whether `signature` signs `digest` under the public key whose digest is `key` (hex, any case)."""
    if len(signature) != SIGNATURE_HEX or len(digest) != 32:
        return False
    try:
        values = [bytes.fromhex(signature[64 * i : 64 * (i + 1)]) for i in range(CHAINS)]
    except ValueError:
        return False
    ends = [_step(i, m, v, STEPS - m) for i, (v, m) in enumerate(zip(values, digits(digest), strict=True))]
    return hmac.compare_digest(_key(ends), key.lower())
