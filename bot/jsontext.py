"""JSON text written fast where that keeps the value exactly: orjson first, the json module where it would not.

Every roll writes JSON twice on its way to the log: its rules inputs, read back as the verifier reads them
(`bot.rules.replay.roll`), and its row (`bot.db.codec`). The json module is slow on a roll's values, whose odds
are floats: 40 µs for the 750 bytes of a `/roll 4d6kh3+1d20` row, where orjson takes 3 µs. But orjson writes
NaN and infinities as null, reads a tuple back as a list, and refuses keys that are not text, integers beyond
64 bits and lone surrogates, all of which the json module keeps. So orjson's text is taken only when it reads
back equal to the value; anything else is written by the json module, as before.
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def exact(value: Any) -> tuple[bytes, Any] | None:
    """The compact UTF-8 text orjson writes for `value`, and what it reads back, when that equals `value`."""
    try:
        text = orjson.dumps(value)
        back = orjson.loads(text)
    except (TypeError, orjson.JSONDecodeError):  # JSONEncodeError is a TypeError
        return None
    return (text, back) if back == value else None  # None: NaN != NaN, and a tuple is not the list read back


def compact(value: Any) -> bytes:
    """`value` as compact JSON text in UTF-8 (no spaces) that `json.loads` reads back as the same value.

    Lone surrogates, which the json module keeps, are written as their UTF-8 bytes (`surrogatepass`).
    """
    found = exact(value)
    if found is not None:
        return found[0]
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")
