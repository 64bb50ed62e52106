"""Check provably fair rolls yourself; it needs nothing but Python, so read every line before you trust it.

python verify_roll.py SEED_HEX ROLL_NUMBER SIDES [SIDES ...]  prints roll ROLL_NUMBER's faces; SIDES is 20 for
    a d20, or LOW..HIGH for any other range, listed in the order the bot's log shows them.
python verify_roll.py fair-session-....json  checks every roll of the log /fair reveal attached; exits 1 on any
    MISMATCH. It proves each face follows from the committed seed and its logged range, that every roll
    number is listed, and that each roll a game master's copy opens matches its seal; not that the ranges, the
    number of draws or the outcomes are what the commands asked for: `python -m bot verify` replays each roll
    through the bot's rules to check those.
"""

import hashlib
import hmac
import json
import sys


def faces(seed, roll_number, ranges):
    """The faces of roll `roll_number`, one per range (LOW, HIGH), as docs/fair.md derives them."""
    for k, (low, high) in enumerate(ranges):
        n, attempt = high - low + 1, 0
        limit = 2**256 - 2**256 % n  # digests from here up are redrawn, so that every face is equally likely
        while (x := int.from_bytes(hmac.digest(seed, f"{roll_number}:{k}:{attempt}".encode(), "sha256"))) >= limit:
            attempt += 1
        yield low + x % n


if sys.argv[1].endswith(".json"):
    with open(sys.argv[1], encoding="utf-8") as file:
        log = json.load(file)
    seed = bytes.fromhex(log["session"]["seed"] or sys.exit("the seed is not revealed yet: nothing to check"))
    ok = hashlib.sha256(seed).hexdigest() == log["session"]["commitment"]
    print("commitment", "ok" if ok else "MISMATCH")
    if [r["roll"] for r in log["rolls"]] != list(range(1, log["session"]["last_roll"] + 1)) and log["version"] > 1:
        print("roll numbers MISMATCH: not each number from 1 to last_roll once, in order")
        ok = False
    for roll in log["rolls"]:
        if "unanswered" in roll:
            print(f"roll {roll['roll']} not answered:", roll["unanswered"])
            continue
        same = list(faces(seed, roll["roll"], [d[:2] for d in roll["draws"]])) == [d[2] for d in roll["draws"]]
        if (sealed := roll.get("sealed")) and "salt" in sealed:  # an opened roll against a secret: its seal
            body = {k: roll[k] for k in ("kind", "input", "outcome", "roll")} | {"salt": sealed["salt"]}
            body |= {"domain": "rules-dice-bot/sealed-roll", "session": log["session"]["commitment"]}
            text = json.dumps(body, sort_keys=True, separators=(",", ":"))
            same = same and hashlib.sha256(text.encode()).hexdigest() == sealed["commitment"]
        ok = ok and same
        print(f"roll {roll['roll']}", "ok" if same else "MISMATCH")
    sys.exit(0 if ok else 1)
else:
    seed, ranges = bytes.fromhex(sys.argv[1]), [s.split("..") if ".." in s else (1, s) for s in sys.argv[3:]]
    print("commitment", hashlib.sha256(seed).hexdigest())
    print("faces", *faces(seed, int(sys.argv[2]), [(int(low), int(high)) for low, high in ranges]))
