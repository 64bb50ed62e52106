"""Check provably fair rolls yourself; it needs nothing but Python, so read every line before you trust it.

python verify_roll.py SEED_HEX ROLL_NUMBER SIDES [SIDES ...]  prints roll ROLL_NUMBER's faces; SIDES is 20 for
    a d20, or LOW..HIGH for any other range, listed in the order the bot's log shows them.
python verify_roll.py fair-session-....json  checks every roll of the log /fair reveal attached.
"""

import hashlib
import hmac
import json
import sys


def faces(seed, roll_number, ranges):
    """The faces of roll `roll_number`, one per range (LOW, HIGH), as the README derives them."""
    for k, (low, high) in enumerate(ranges):
        n, attempt = high - low + 1, 0
        limit = 2**256 - 2**256 % n  # digests from here up are redrawn, so that every face is equally likely
        while (x := int.from_bytes(hmac.digest(seed, f"{roll_number}:{k}:{attempt}".encode(), "sha256"))) >= limit:
            attempt += 1
        yield low + x % n


if sys.argv[1].endswith(".json"):
    with open(sys.argv[1], encoding="utf-8") as file:
        log = json.load(file)
    seed = bytes.fromhex(log["session"]["seed"])
    print("commitment", "ok" if hashlib.sha256(seed).hexdigest() == log["session"]["commitment"] else "MISMATCH")
    for roll in log["rolls"]:
        ok = list(faces(seed, roll["roll"], [d[:2] for d in roll["draws"]])) == [d[2] for d in roll["draws"]]
        print(f"roll {roll['roll']}", "ok" if ok else "MISMATCH")
else:
    seed, ranges = bytes.fromhex(sys.argv[1]), [s.split("..") if ".." in s else (1, s) for s in sys.argv[3:]]
    print("commitment", hashlib.sha256(seed).hexdigest())
    print("faces", *faces(seed, int(sys.argv[2]), [(int(low), int(high)) for low, high in ranges]))
