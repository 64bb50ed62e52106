"""Check a fair session's log yourself; it needs nothing but Python, so read every line before you trust it.

python verify_roll.py fair-session-....json [--commitment HEX]  checks the log /fair reveal or /fair log gave
    (gzipped too, FILE.gz); HEX is the commitment the channel saw at /fair start. Exits 1 on any MISMATCH.
python verify_roll.py SEED_HEX ROLL_NUMBER SIDES [SIDES ...] [--interaction ID]  prints a roll's faces; SIDES
    is 20 for a d20, or LOW..HIGH, in the log's order; ID is the roll's interaction id (a layout-4 log).

A layout-4 log proves: each entry is the one the bot signed at the reveal (the signature, by a key the commitment
covers, signs the list of the entries' digests: the SHA-256 of each entry's public form); every face follows from
the seed and the interaction; every seal the copy opens opens; each number 1..last_roll is listed once, in order,
each interaction once and after the commitment was posted. An entry edited since (a summary, outcome, options, an
unanswered reason, a public roll relabelled private) fails its digest, or, if that was rewritten too, the signature.
It does not replay the rules (that the ranges, draws and outcome are what the command asked for): `python -m bot
verify` does. A legacy log (versions 1-3, commitment = SHA-256 of the seed) proves less: nothing signs it, so only
its faces, numbers and opened seals are checked.
"""

import datetime
import gzip
import hashlib
import hmac
import json
import sys
from collections import Counter

ENTRY = {"roll", "interaction_id", "user_id", "command", "digest"}
ROLL = ENTRY | {"private", "hidden", "kind", "options", "input", "draws", "outcome", "summary", "sealed"}
BAD = (ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError)  # what malformed files raise
problems = []


def sha(*parts):
    """SHA-256 of the parts, joined."""
    return hashlib.sha256(b"".join(parts)).digest()


def canon(value):
    """Canonical JSON, as the bot hashes it: sorted keys, no spaces, ASCII only."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def faces(seed, prefix, ranges):
    """Faces of draws k = 0, 1, ... of a roll; prefix: its interaction id (a legacy log: its roll number)."""
    for k, (low, high, *_) in enumerate(ranges):
        n, attempt = high - low + 1, 0
        limit = 2**256 - 2**256 % n  # digests from here up are redrawn, so that every face is equally likely
        while (x := int.from_bytes(hmac.digest(seed, f"{prefix}:{k}:{attempt}".encode(), "sha256"))) >= limit:
            attempt += 1
        yield low + x % n


def signs(signature, digest, key):
    """Whether the W-OTS `signature` (67 hash chains of 15 steps, docs/fair.md) signs `digest` for `key`."""
    m = [int(c, 16) for c in digest.hex()]
    m += [int(c, 16) for c in f"{sum(15 - d for d in m):03x}"]  # a checksum, so that no digit can only grow
    s, ends = bytes.fromhex(signature), []
    for i in range(67 if len(s) == 67 * 32 else 0):
        v = s[32 * i : 32 * i + 32]
        for j in range(m[i], 15):  # the rest of chain i, from step m_i to its public end
            v = sha(f"{i}:{j}:".encode(), v)
        ends.append(v)
    return len(ends) == 67 and sha(b"rules-dice-bot/wots\n", *ends).hex() == key


def digest(e):
    """What the entry's `digest` must be: the SHA-256 of its public form (an opened seal closed again), less it."""
    if "salt" in (e.get("sealed") or {}):
        hide = ("input", "outcome", "options", "summary")[: 4 if e["private"] else 2]
        e = e | dict.fromkeys(hide) | {"sealed": {"commitment": e["sealed"]["commitment"]}}
    return sha(canon({k: v for k, v in e.items() if k != "digest"})).hex()


def strict(pairs):
    """A JSON object whose keys are each given once; as `parse_constant`, it refuses NaN and Infinity."""
    if isinstance(pairs, str):
        raise ValueError(f"not strict JSON: {pairs} is not a number")
    if twice := [key for key, count in Counter(key for key, _ in pairs).items() if count > 1]:
        raise ValueError(f"not strict JSON: the key {twice[0]!r} is given twice")
    return dict(pairs)


def mismatch(where, why):
    """Print a problem, naming the roll (or the commitment, the signature, ...)."""
    print(f"{where} MISMATCH: {why}")
    problems.append(where)


def problem(e, n, layout, session, seen):
    """What is wrong with `e`, the log's n-th entry, or None; `seen` maps each interaction id to its roll."""
    if layout > 1 and e["roll"] != n:
        return f"the entry here says roll {e['roll']!r}"
    if layout == 4:
        if set(e) != (ENTRY | {"unanswered"} if "unanswered" in e else ROLL):
            return "its keys are not a roll's or an unanswered number's"
        i = int(e["interaction_id"])  # the signature binds how ids are written: digits
        if i <= int(session["commitment_message"]):
            return f"interaction {i} is not after the message that posted the commitment"
        if seen.setdefault(i, n) != n:
            return f"interaction {i} took roll {seen[i]} too"
    if "unanswered" in e:
        return None if isinstance(e["unanswered"], str) else "its reason is not text"
    sealed, private = e.get("sealed"), e.get("private")
    if sealed is not None and set(sealed) not in ({"commitment"}, {"commitment", "salt"}):
        return "`sealed` is neither {commitment} nor {commitment, salt}"
    if layout == 4:  # a sealed roll hides its input and outcome until opened; a private one all but its kind
        hidden = ("input", "outcome", "options", "summary")[: 4 if private else 2]
        closed = sealed is not None and "salt" not in sealed
        if type(private) is not bool or type(e["hidden"]) is not bool or e["hidden"] > private:
            return "`private` and `hidden` are true or false, and a hidden roll is private"
        if private and sealed is None:
            return "a private roll is always sealed"
        if any((e[k] is None) != (closed and k in hidden) for k in ("kind", "options", "input", "outcome", "summary")):
            return f"kind is set, and {', '.join(hidden)} are null exactly when sealed and not opened"
    draws = e["draws"]
    if not all(len(d) == 3 and all(type(x) is int for x in d) and 0 <= d[1] - d[0] < 2**64 for d in draws):
        return "a draw is not [LOW, HIGH, FACE] in whole numbers, with at most 2**64 faces"
    got = faces(bytes.fromhex(session["seed"]), e["interaction_id"] if layout == 4 else e["roll"], draws)
    for k, ((low, high, face), real) in enumerate(zip(draws, got, strict=True), start=1):
        if face != real:
            return f"draw {k}: {low}..{high} gives {real} from the seed, the log says {face}"
    if sealed and "salt" in sealed:  # an opened seal: the very input and outcome it committed to, with its salt
        keys = ("roll", "kind", "input", "outcome") + ("interaction_id", "options", "summary") * (layout == 4)
        body = {k: e[k] for k in keys} | {"salt": sealed["salt"], "session": session["commitment"]}
        body["domain"] = "rules-dice-bot/sealed-roll" + "/4" * (layout == 4)
        if sha(canon(body)).hex() != sealed["commitment"].lower():
            return "its opened copy does not hash to its seal: another input, outcome or salt"
    return None


args = sys.argv[1:]
flags = {flag: args.pop(args.index(flag) + 1) for flag in ("--commitment", "--interaction") if flag in args[:-1]}
args = [arg for arg in args if arg not in flags] or sys.exit(__doc__)
if len(args) > 1:  # one roll's faces, to check it by hand
    seed, ranges = bytes.fromhex(args[0]), [s.split("..") if ".." in s else (1, s) for s in args[2:]]
    if "--interaction" not in flags:  # a legacy session's commitment; layout 4's needs the signing key too
        print("commitment", hashlib.sha256(seed).hexdigest())
    prefix = flags.get("--interaction", int(args[1]))
    print("faces", *faces(seed, prefix, [(int(low), int(high)) for low, high in ranges]))
    sys.exit(0)
try:
    with (gzip.open if args[0].endswith(".gz") else open)(args[0], "rt", encoding="utf-8-sig") as file:
        log = json.load(file, object_pairs_hook=strict, parse_constant=strict)
    session, rolls, last = log["session"], log["rolls"], log["session"]["last_roll"]
    for k in {"commitment", "seed", "signing_key"} & set(session):  # hex digits, in either case
        session[k] = session[k] and session[k].lower()
    seed = bytes.fromhex(session["seed"] or sys.exit("the seed is not revealed yet: nothing to check"))
    key = bytes.fromhex(session.get("signing_key") or "")
    # The layout follows from the commitment, never from `version`, which anyone can edit.
    if len(key) == 32 and sha(b"rules-dice-bot/fair-session/4\n", seed, key).hex() == session["commitment"]:
        layout = 4
    elif hashlib.sha256(seed).hexdigest() == session["commitment"] and log["version"] in (1, 2, 3):
        layout = log["version"]
    else:
        mismatch("commitment", "neither layout 4's (seed, signing key) nor a legacy one (seed, version 1-3)")
        sys.exit(1)
    if flags.get("--commitment", session["commitment"]).lower() != session["commitment"]:
        mismatch("commitment", f"the file's is {session['commitment']}, not the channel's {flags['--commitment']}")
    else:
        print("commitment ok")
    if layout < 4:
        print(f"legacy log, version {layout}: nothing signs it, so it proves less than a layout-4 log")
    if type(last) is not int or type(rolls) is not list:
        raise ValueError("last_roll is not a whole number, or rolls not a list")
    if layout == 4:
        if (log["format"], log["version"]) != ("rules-dice-bot/fair-session", 4):
            mismatch("version", "the commitment is layout 4's, the file is not a layout-4 log")
        start, end = (datetime.datetime.fromisoformat(session[k]) for k in ("started_at", "revealed_at"))
        if not (start.tzinfo and end.tzinfo and start <= end):
            mismatch("session", "revealed before it started (or a time without its offset)")
except (OSError, EOFError, *BAD) as error:
    mismatch("log", f"not a fair-session log: {error}")
    sys.exit(1)
if layout == 4:  # the signed digest: the session without its signature, and the entries' digests as listed
    try:
        signed = {"domain": "rules-dice-bot/fair-log/4", "rolls": [e["digest"].lower() for e in rolls]}
        signed["session"] = {k: v for k, v in session.items() if k != "signature"}
        ok = signs(session["signature"], sha(canon(signed)), session["signing_key"])
    except BAD:
        ok = False
    if ok:
        print("signature ok")
    else:
        mismatch("signature", "this is not the file the bot signed at the reveal")
seen = {}
for n, e in enumerate(rolls, start=1):
    try:
        why = problem(e, n, layout, session, seen) or (f"beyond last_roll {last}" if layout > 1 and n > last else None)
        if not why and layout == 4 and digest(e) != e["digest"].lower():
            why = "it is not the entry the bot signed: it was changed since the reveal (it does not hash to its digest)"
    except BAD as error:
        why = f"not a roll or an unanswered number: {error!r}"
    if why:
        mismatch(f"roll {n}", why)
    else:
        print(f"roll {n}", f"not answered: {' '.join(e['unanswered'].split())}" if "unanswered" in e else "ok")
if layout > 1 and len(rolls) < last:
    mismatch(f"roll {len(rolls) + 1}", f"missing: the log lists {len(rolls)} rolls, last_roll is {last}")
sys.exit(1 if problems else 0)
