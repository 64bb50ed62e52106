"""How the roll log stores its JSON: compact bytes, read back as the same JSON values.

One `/roll 1000d10000` was about 86 KB as JSON text (the result tree names every die's keys a thousand times,
and a fair roll lists every draw as `[1,10000,face]`). The codec keeps any JSON value exactly, in one of
three forms told apart by the first byte:

* plain JSON (UTF-8, no spaces), for small values, and what rows written before this codec hold: JSON text
  always starts with one of `{["-0123456789tfnNI` (NaN and Infinity as Python's json writes them);
* `0x01` + zlib-compressed plain JSON, when that is smaller;
* `0x02` + packed draws: a list of `[a, b, face]` with `a <= face <= b` (a fair session's draws) written as
  runs of one range: the range once, then each face minus `a` in 1, 2, 4 or 8 bytes (as few as the range
  needs), the whole zlib-compressed. Anything else that looks like draws but is not (a face outside its
  range, a bool, a range wider than 64 bits) stays JSON, so a doctored log is stored as it was given.

The plain JSON is `bot.jsontext.compact`'s: orjson's where that keeps the value exactly, else the json module's.

`CompactJSON` is the column type that applies it; any JSON column of the roll log (new ones too) can use it.
"""

from __future__ import annotations

import json
import sys
import zlib
from array import array
from typing import Any

from sqlalchemy import LargeBinary
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

from bot.jsontext import compact

ZLIB = 0x01
DRAWS = 0x02
COMPRESS_FROM = 96  # bytes of plain JSON below which zlib's header and checksum cost more than it saves


def encode(value: Any) -> bytes:
    """A JSON value as the roll log stores it (`decode` gives it back)."""
    if (packed := _pack_draws(value)) is not None:
        return packed
    text = compact(value)
    if len(text) >= COMPRESS_FROM:
        squeezed = zlib.compress(text, 6)
        if len(squeezed) + 1 < len(text):
            return bytes((ZLIB,)) + squeezed
    return text


def decode(data: bytes | str) -> Any:
    """The JSON value `encode` stored; also reads plain JSON text (rows from before the codec)."""
    if isinstance(data, str):
        return json.loads(data)
    if data[:1] == bytes((ZLIB,)):
        data = zlib.decompress(data[1:])
    elif data[:1] == bytes((DRAWS,)):
        return _unpack_draws(zlib.decompress(data[1:]))
    return json.loads(data.decode("utf-8", "surrogatepass"))


def _is_draw(item: Any) -> bool:
    return (
        isinstance(item, list | tuple)
        and len(item) == 3
        and all(type(x) is int for x in item)
        and item[0] <= item[2] <= item[1]
    )


def _pack_draws(value: Any) -> bytes | None:
    """Draws as runs of one range: `a`, `b - a`, the run's length, then each `face - a` in 1, 2, 4 or 8 bytes."""
    if not isinstance(value, list) or not value or not all(_is_draw(item) for item in value):
        return None
    body = bytearray()
    start = 0
    while start < len(value):
        a, b = value[start][0], value[start][1]
        end = start
        while end < len(value) and value[end][0] == a and value[end][1] == b:
            end += 1
        typecode = _typecode(b - a)
        if typecode is None:
            return None  # a range wider than 64 bits: plain JSON
        faces = array(typecode, [item[2] - a for item in value[start:end]])
        if _SWAP:
            faces.byteswap()
        body += _varint(_zigzag(a)) + _varint(b - a) + _varint(end - start) + faces.tobytes()
        start = end
    return bytes((DRAWS,)) + zlib.compress(bytes(body), 6)


def _unpack_draws(body: bytes) -> list[list[int]]:
    draws: list[list[int]] = []
    position = 0
    while position < len(body):
        zigzag, position = _read_varint(body, position)
        span, position = _read_varint(body, position)
        count, position = _read_varint(body, position)
        a, b = _unzigzag(zigzag), _unzigzag(zigzag) + span
        faces = array(_typecode(span) or "B")
        faces.frombytes(body[position : position + count * faces.itemsize])
        if _SWAP:
            faces.byteswap()
        position += count * faces.itemsize
        draws += [[a, b, a + face] for face in faces]
    return draws


# Faces are stored little-endian, in the smallest of these that holds the range's span.
_TYPECODES = ("B", "H", "I", "Q")
assert [array(code).itemsize for code in _TYPECODES] == [1, 2, 4, 8]
_SWAP = sys.byteorder == "big"


def _typecode(span: int) -> str | None:
    for code in _TYPECODES:
        if span < 1 << (8 * array(code).itemsize):
            return code
    return None


def _zigzag(n: int) -> int:
    return 2 * n if n >= 0 else -2 * n - 1


def _unzigzag(n: int) -> int:
    return n // 2 if n % 2 == 0 else -(n + 1) // 2


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        low, n = n & 0x7F, n >> 7
        if n:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _read_varint(data: bytes, position: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, position


class CompactJSON(TypeDecorator[Any]):
    """A JSON column stored through `encode` (a BLOB on SQLite, bytea on PostgreSQL); None is SQL NULL."""

    impl = LargeBinary
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> bytes | None:
        """Encode on the way in."""
        return None if value is None else encode(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> Any:
        """Decode on the way out."""
        return None if value is None else decode(value)
