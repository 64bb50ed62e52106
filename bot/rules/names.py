r"""One name policy for everything a user names: characters, weapons, list entries, saved rolls, imports.

A name is an identifier shown back to everyone in a server, so it is plain, visible, comparable text:

- **Unicode NFKC.** Compatibility forms become the ordinary letters they look like (fullwidth `U+FF22 U+FF4F U+FF42`,
  ligatures like U+FB01 `fi`, mathematical bold letters, non-breaking and ideographic spaces), so two names that read
  the same are the same name, the way Python identifiers are compared (PEP 3131). NFC alone would keep
  a mathematical bold Bob and `Bob` apart, an easy impersonation.
- **Whitespace collapsed:** every run of spaces is one space, none at either end.
- **No control or format characters** (Unicode categories Cc, Cf, Cs, Co, Cn, Zl, Zp): no newlines or
  tabs, no right-to-left overrides or isolates, no zero-width spaces or joiners, no private-use or
  unassigned code points.
- **Nothing that renders as nothing:** the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), the braille
  blank (U+2800) and the other blank letters are refused anywhere, and a name needs at least one letter,
  digit, punctuation mark or symbol: combining marks alone are not a name.
- **Markdown is shown as text** by refusing it here rather than escaping it at every place a name is shown
  (embeds, lists, errors, roll answers, in several cogs): a name may not contain Markdown's special
  characters `` ` * _ ~ | \ < > [ ] `` (so no masked links, mentions or custom emoji) nor a `://` link.
  Every place that shows a stored name is then safe by construction, including ones written later.
- **Length limits per field**, counted after normalization, and on the comparison key too: casefolding can
  lengthen a name (`ß` compares as `ss`) and the key has a column of its own.

Pure: the standard library only. `clean_name` refuses with a `NameRefused` that says what was wrong.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Final

from bot.errors import UserError

NORMAL_FORM: Final = "NFKC"
# Categories that never belong in a name: controls, format characters (bidi controls, zero-width spaces and
# joiners, soft hyphen, tags), surrogates, private use, unassigned, and the line and paragraph separators.
REFUSED_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Letters and symbols that are drawn as nothing (no category says so): the Hangul fillers, the braille blank,
# the combining grapheme joiner, Khmer's inherent vowels, Mongolian free variation selectors.
BLANK: Final = frozenset(
    {0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x034F, 0x17B4, 0x17B5, *range(0x180B, 0x1810), *range(0x1BCA0, 0x1BCA4)}
)
# What a name needs at least one of to be seen: a letter, digit, punctuation mark or symbol.
VISIBLE_CATEGORIES: Final = frozenset("LNPS")
MARKDOWN: Final = "`*_~|\\<>[]"
LINK: Final = "://"


class NameRefused(UserError):
    """A name the bot will not store; the message says which character or rule was the problem."""

    title = "Not a valid name"


@dataclass(frozen=True, slots=True)
class NameKind:
    """What is being named, for messages, and its limits."""

    # The start of a sentence: "A character name".
    what: str
    max_length: int
    # The comparison key's column size (the key is the casefolded name, which can be longer).
    max_key_length: int | None = None
    # Characters a name may not start with, and why.
    reserved_start: str = ""
    reserved_reason: str = ""


# `#12` names character number 12, so a character's name cannot start with `#`.
CHARACTER: Final = NameKind(
    "A character name", 32, max_key_length=64, reserved_start="#", reserved_reason="`#12` means character number 12"
)
WEAPON: Final = NameKind("A weapon name", 40)
LIST_ENTRY: Final = NameKind("A name in a list", 40)
MACRO: Final = NameKind("A saved roll's name", 32, max_key_length=32)
ATTACKER: Final = NameKind("A quick-mode attacker's name", 32)


def name_key(name: str) -> str:
    """What names are compared by: normalized, then case-insensitively, in every script."""
    return unicodedata.normalize(NORMAL_FORM, " ".join(unicodedata.normalize(NORMAL_FORM, name).split()).casefold())


def clean_name(text: str, kind: NameKind) -> str:
    """The name as stored, or `NameRefused` saying what is wrong with it (the name policy above)."""
    # Price the work first: an imported name can be a megabyte long, and no normalization shrinks text 8-fold
    # short of runs of spaces, which a name has no use for.
    if len(text) > 8 * kind.max_length:
        raise NameRefused(f"{kind.what} has at most {kind.max_length} characters; this one has {len(text)}.")
    # Checked as typed, so that the message names what the user wrote, and again as normalized.
    name = unicodedata.normalize(NORMAL_FORM, text)
    for character in (*text, *name):
        problem = _problem(character)
        if problem:
            raise NameRefused(f"{kind.what} may not contain {problem}.")
    # Only spaces are left to collapse: every other kind of whitespace is a control character or a
    # separator, refused above, or a space that NFKC turned into U+0020.
    name = " ".join(name.split())
    if not name:
        raise NameRefused(f"{kind.what} needs at least one visible character.")
    if len(name) > kind.max_length:
        raise NameRefused(f"{kind.what} has at most {kind.max_length} characters; this one has {len(name)}.")
    if not any(unicodedata.category(c)[0] in VISIBLE_CATEGORIES for c in name):
        raise NameRefused(f"{kind.what} needs at least one visible letter, digit or symbol, not only marks.")
    markup = sorted({c for c in name if c in MARKDOWN})
    if markup:
        shown = " ".join("backticks" if c == "`" else "\\" + c for c in markup)
        raise NameRefused(
            f"{kind.what} is shown as plain text, so it may not contain Markdown characters: {shown}. "
            "Letters, digits, spaces and punctuation such as - ' . , ( ) + ! ? are fine."
        )
    if LINK in name:
        raise NameRefused(f"{kind.what} may not be or contain a link.")
    if kind.reserved_start and name.startswith(kind.reserved_start):
        raise NameRefused(f"{kind.what} may not start with {kind.reserved_start}: {kind.reserved_reason}.")
    key = name_key(name)
    if kind.max_key_length is not None and len(key) > kind.max_key_length:
        raise NameRefused(
            f"{kind.what} is too long: compared without case it has {len(key)} characters (ß counts as ss), "
            f"more than {kind.max_key_length}."
        )
    return name


def _problem(character: str) -> str:
    code = ord(character)
    label = f"U+{code:04X}" + (f" ({unicodedata.name(character)})" if unicodedata.name(character, "") else "")
    if code in BLANK:
        return f"the invisible character {label}"
    category = unicodedata.category(character)
    if category in REFUSED_CATEGORIES:
        kind = {"Cc": "control", "Zl": "line break", "Zp": "paragraph break"}.get(category, "invisible formatting")
        return f"the {kind} character {label}"
    return ""
