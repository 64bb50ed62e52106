"""The name policy as a pure function: hostile names refused, the rest normalized, the result stable."""

from __future__ import annotations

import json
import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.aliensrl.ruleset import ALIENSRL
from bot.rules.dnd35.ruleset import DND35
from bot.rules.names import (
    BLANK,
    CHARACTER,
    LIST_ENTRY,
    MACRO,
    MARKDOWN,
    REFUSED_CATEGORIES,
    WEAPON,
    NameKind,
    NameRefused,
    clean_name,
    name_key,
)
from bot.rules.sheets.base import SheetError

KINDS = (CHARACTER, WEAPON, LIST_ENTRY, MACRO)

# What members tried, and what the refusal says.
HOSTILE = {
    "Bob\nSmith": "control character U+000A",
    "Bob\tSmith": "control character U+0009",
    "Bob\u202eevil": "U+202E (RIGHT-TO-LEFT OVERRIDE)",
    "Bob\u2067x\u2069": "U+2067 (RIGHT-TO-LEFT ISOLATE)",
    "a\u200bb": "U+200B (ZERO WIDTH SPACE)",
    "a\u200db": "U+200D (ZERO WIDTH JOINER)",
    "a\ufeffb": "U+FEFF (ZERO WIDTH NO-BREAK SPACE)",
    "a\u00adb": "U+00AD (SOFT HYPHEN)",
    "a\u2028b": "line break character U+2028",
    "a\ue000b": "U+E000",
    "\u3164": "U+3164 (HANGUL FILLER)",
    "\u3164\u3164\u3164": "U+3164 (HANGUL FILLER)",
    "Bob\u3164": "U+3164 (HANGUL FILLER)",
    "\u115f": "U+115F (HANGUL CHOSEONG FILLER)",
    "\uffa0": "U+FFA0 (HALFWIDTH HANGUL FILLER)",
    "\u2800": "U+2800 (BRAILLE PATTERN BLANK)",
    "\u0301\u0301": "not only marks",
    "   ": "at least one visible character",
    "": "at least one visible character",
    "`Bob`": "backticks",
    "[click](https://example.com)": r"\[ \]",
    "**Bob**": r"\*",
    "||spoiler||": r"\|",
    "~~Bob~~": r"\~",
    "<@123>": r"\< \>",
    "great_axe": r"\_",
    "back\\slash": "\\\\",
    "https://example.com": "link",
    "ｈｔｔｐｓ://example.com": "link",
    "x" * 33: "at most 32 characters; this one has 33",
    "y" * 10_000_000: "at most 32 characters; this one has 10000000",
}


@pytest.mark.parametrize(("text", "message"), HOSTILE.items(), ids=[repr(t[:12]) for t in HOSTILE])
def test_hostile_names_are_refused_saying_what_was_wrong(text: str, message: str) -> None:
    with pytest.raises(NameRefused) as refused:
        clean_name(text, MACRO)
    assert message in refused.value.message
    assert refused.value.message.startswith("A saved roll's name ")


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("  Bob   Smith ", "Bob Smith"),
        ("Bob\u00a0Smith", "Bob Smith"),  # no-break space
        ("Bob\u3000Smith", "Bob Smith"),  # ideographic space
        ("\uff22\uff4f\uff42", "Bob"),  # fullwidth
        ("\U0001d401\U0001d428\U0001d41b", "Bob"),  # mathematical bold
        ("\ufb01re", "fire"),  # ligature
        ("Cafe\u0301", "Caf\u00e9"),  # composed
        ("Łódź", "Łódź"),
        ("Дракон", "Дракон"),
        ("ドラゴン", "ドラゴン"),
        ("Sword +1 (keen)", "Sword +1 (keen)"),
        ("O'Neil-Smith, Jr.", "O'Neil-Smith, Jr."),
        ("🐉 Dragon", "🐉 Dragon"),
        ("#1 fan", "#1 fan"),
    ],
)
def test_names_are_normalized(text: str, stored: str) -> None:
    assert clean_name(text, MACRO) == stored


def test_each_field_has_its_limit() -> None:
    assert clean_name("x" * 40, WEAPON) == "x" * 40
    assert clean_name("x" * 40, LIST_ENTRY) == "x" * 40
    assert clean_name("x" * 32, CHARACTER) == "x" * 32
    for kind, text in ((WEAPON, "x" * 41), (LIST_ENTRY, "x" * 41), (CHARACTER, "x" * 33), (MACRO, "x" * 33)):
        with pytest.raises(NameRefused, match=f"at most {kind.max_length} characters"):
            clean_name(text, kind)
    with pytest.raises(NameRefused, match="may not start with #"):
        clean_name("#12", CHARACTER)
    # ß compares as ss: 20 of them make a 40-character key, more than a saved roll's key column holds.
    with pytest.raises(NameRefused, match="compared without case it has 40 characters"):
        clean_name("ß" * 20, MACRO)
    assert clean_name("ß" * 20, WEAPON) == "ß" * 20  # a weapon's name has no column of its own


def test_keys_compare_what_reads_the_same() -> None:
    assert name_key("Ｂｏｂ  SMITH") == name_key("bob smith") == "bob smith"
    assert name_key("Straße") == name_key("STRASSE")


def _check_invariants(name: str, kind: NameKind) -> None:
    assert unicodedata.normalize("NFKC", name) == name
    assert name == " ".join(name.split())
    assert 1 <= len(name) <= kind.max_length
    assert not any(unicodedata.category(c) in REFUSED_CATEGORIES or ord(c) in BLANK for c in name)
    assert not any(c in MARKDOWN for c in name) and "://" not in name
    assert any(unicodedata.category(c)[0] in "LNPS" for c in name)


@settings(max_examples=500, deadline=None)
@given(text=st.text(max_size=60), kind=st.sampled_from(KINDS))
def test_any_text_is_refused_or_a_clean_stable_name(text: str, kind: NameKind) -> None:
    try:
        name = clean_name(text, kind)
    except NameRefused as refused:
        assert refused.message.startswith(kind.what)
        return
    _check_invariants(name, kind)
    assert clean_name(name, kind) == name
    # What was typed finds what was stored.
    assert name_key(text) == name_key(name)


@settings(max_examples=300, deadline=None)
@given(
    base=st.text(st.characters(whitelist_categories=("Lu", "Ll", "Nd")), min_size=1, max_size=10),
    poison=st.sampled_from(["\n", "\u202e", "\u200b", "\u3164", "\u2800", "`", "[", "\u2066", "\x00", "\x1b"]),
    where=st.integers(0, 10),
)
def test_one_poisoned_character_anywhere_refuses_the_name(base: str, poison: str, where: int) -> None:
    with pytest.raises(NameRefused):
        clean_name(base[:where] + poison + base[where:], WEAPON)


# -- names inside stat blocks --------------------------------------------------------------------------------


def _aliens_block(weapon: str) -> dict[str, object]:
    data = ALIENSRL.dump(ALIENSRL.blank())
    data["weapons"] = [{"name": weapon}]
    return json.loads(json.dumps(data))


def test_a_block_from_outside_is_held_to_the_policy_and_a_stored_one_keeps_its_names() -> None:
    with pytest.raises(SheetError, match=r"`weapons.0.name`: A weapon name may not contain the control character"):
        ALIENSRL.load(_aliens_block("Pulse\nrifle"))
    # A character saved before the policy grew stricter still loads, and can still be changed.
    old = ALIENSRL.load(_aliens_block("pulse_rifle"), stored=True)
    assert old.weapons[0].name == "pulse_rifle"  # type: ignore[attr-defined]
    changed = ALIENSRL.set_field(old, "rifle", "3")
    assert changed.rifle == 3  # type: ignore[attr-defined]
    with pytest.raises(NameRefused, match="Markdown"):
        ALIENSRL.add_weapon(changed, "smart_gun")
    assert [w.name for w in ALIENSRL.add_weapon(changed, "Smart gun").weapons] == ["pulse_rifle", "Smart gun"]  # type: ignore[attr-defined]


def test_list_entries_are_held_to_the_policy() -> None:
    sheet = DND35.blank()
    assert DND35.set_field(sheet, "weapon_focus", " Ｌongsword ,  bastard   sword").weapon_focus == [  # type: ignore[attr-defined]
        "Longsword",
        "bastard sword",
    ]
    for value, message in (
        ("longsword, \u200bdagger", "U+200B"),
        ("longsword, [x](https://e.x)", "Markdown"),
        ("\u3164", "U+3164"),
    ):
        with pytest.raises(SheetError, match=re.escape(message)):
            DND35.set_field(sheet, "weapon_focus", value)
