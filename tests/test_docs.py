"""The documents stay true to the code: rules citations, the module layout, the data tables and the links.

- Every `dnd35.md §n`, `star_frontiers.md §n` and `aliensrl.md §n` cited in bot/ and cogs/ (also `§a-§b`,
  `§a-b`, `§a, §b`, `§a.k`, `§a item k`, `§a step k`) names a section heading of docs/rules/<file>, and a
  numbered item k inside section a where one is named: a fresh clone can read every rule its code cites.
- docs/development.md names every module of bot/ and cogs/.
- The weapon and armor tables of docs/rules/dnd35.md §9-§10 are the SRD data files the bot reads, row by row.
- Every relative link in the README and docs/ points at a file that exists, and every `#anchor` at a heading.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.rules import rulesets
from tests.helpers import ROOT

RULES = ROOT / "docs" / "rules"
DATA = ROOT / "bot" / "rules" / "data"
# Every registered ruleset's rules reference (`Ruleset.reference`): docs/rules/<reference>.md.
REFERENCES = tuple(r.reference for r in rulesets.every() if r.reference is not None)

_REF = r"§ ?\d+(?:\.\d+)?(?:-§?\d+)?(?: (?:item|step) \d+)?"
_CITATION = re.compile(rf"\b({'|'.join(REFERENCES)})\.md((?:,? (?:and )?{_REF})*)")
_ONE = re.compile(r"§ ?(\d+)(?:\.(\d+))?(?:-§?(\d+))?(?: (?:item|step) (\d+))?")
_SECTIONS_WORD = re.compile(rf"\b({'|'.join(REFERENCES)})\.md sections? (\d+)(?: and (\d+))?")


def sections(reference: str) -> dict[int, str]:
    """The numbered sections of docs/rules/<reference>.md (`## n. Title`), each with its text."""
    text = (RULES / f"{reference}.md").read_text(encoding="utf-8")
    found: dict[int, str] = {}
    parts = re.split(r"^## (\d+)\. .*$", text, flags=re.MULTILINE)
    for number, body in zip(parts[1::2], parts[2::2], strict=True):
        found[int(number)] = body
    return found


def citations() -> list[tuple[str, str, int, int | None]]:
    """(where, reference, section, item or None) for every citation of a rules reference in bot/ and cogs/."""
    found = []
    for path in sorted([*(ROOT / "bot").rglob("*.py"), *(ROOT / "cogs").rglob("*.py"), *DATA.glob("*.json")]):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            where = f"{path.relative_to(ROOT)}:{number}"
            for match in _CITATION.finditer(line):
                for one in _ONE.finditer(match.group(2)):
                    first, dotted, last, item = one.groups()
                    found.append((where, match.group(1), int(first), int(dotted or item) if dotted or item else None))
                    if last:
                        found.append((where, match.group(1), int(last), None))
            for match in _SECTIONS_WORD.finditer(line):
                found += [(where, match.group(1), int(n), None) for n in match.groups()[1:] if n]
    return found


def test_the_code_cites_the_references() -> None:
    cited = {(reference, section) for _, reference, section, _ in citations()}
    assert {("dnd35", 7), ("dnd35", 13), ("star_frontiers", 4), ("aliensrl", 9)} <= cited


@pytest.mark.parametrize("reference", REFERENCES)
def test_every_citation_is_a_section_of_the_reference(reference: str) -> None:
    known = sections(reference)
    missing = []
    for where, cited, section, item in citations():
        if cited != reference:
            continue
        if section not in known:
            missing.append(f"{where}: §{section}")
        elif item is not None and not re.search(rf"^{item}\. ", known[section], flags=re.MULTILINE):
            missing.append(f"{where}: §{section} item {item}")
    assert not missing, f"docs/rules/{reference}.md lacks what the code cites: {missing}"


@pytest.mark.parametrize("reference", REFERENCES)
def test_each_reference_ends_with_its_ambiguities(reference: str) -> None:
    known = sections(reference)
    assert sorted(known) == list(range(1, max(known) + 1)), "sections are numbered 1, 2, ... without gaps"
    last = known[max(known)]
    assert re.search(r"^1\. ", last, flags=re.MULTILINE), "the closing section lists the ambiguities, numbered"
    assert "Implemented" in last


def modules() -> list[str]:
    """Every Python module of the product, as a path."""
    found = [*(ROOT / "bot").rglob("*.py"), *(ROOT / "cogs").glob("*.py")]
    return sorted(str(p.relative_to(ROOT)) for p in found if "migrations" not in p.parts and p.name != "__init__.py")


def test_the_development_layout_names_every_module() -> None:
    text = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    layout = text[text.index("## Layout") : text.index("## Tests")]
    missing = []
    for module in modules():
        parent, name = module.split("/")[-2] + "/", module.split("/")[-1]
        # Named by its full path, or by its file name in the block of its folder (`sheets/ ... base.py`).
        if module not in layout and not (parent in layout and re.search(rf"\b{re.escape(name)}\b", layout)):
            missing.append(module)
    assert not missing, f"docs/development.md's layout misses {missing}"


def _critical(threat: int, multiplier: int) -> str:
    return f"x{multiplier}" if threat == 20 else f"{threat}-20/x{multiplier}"


def weapon_table() -> str:
    """docs/rules/dnd35.md §9's table, from bot/rules/data/srd_weapons.json."""
    weapons = json.loads((DATA / "srd_weapons.json").read_text(encoding="utf-8"))["weapons"]
    rows = [
        "| Weapon | Group | Small | Medium | Critical | Range | Type | Hands | Notes |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for w in weapons:
        second = w["second_end"]
        small, medium = w["damage_small"] or "-", w["damage_medium"] or "-"
        critical = _critical(w["threat"], w["multiplier"]) if w["multiplier"] else "-"
        if second:
            small, medium = f"{small}/{second['damage_small']}", f"{medium}/{second['damage_medium']}"
            if second.get("multiplier", w["multiplier"]) != w["multiplier"]:
                critical += f"/x{second['multiplier']}"
        reach = f"{w['range_increment']} ft" if w["range_increment"] else "-"
        rows.append(
            f"| {w['name']} | {w['category']} | {small} | {medium} | {critical} | {reach} | {w['damage_type'] or '-'} "
            f"| {w['handedness']}{' (ranged)' if w['ranged'] else ''} | {w['notes']} |"
        )
    return "\n".join(rows) + "\n"


def armor_table() -> str:
    """docs/rules/dnd35.md §10's table, from bot/rules/data/srd_armor.json."""
    armor = json.loads((DATA / "srd_armor.json").read_text(encoding="utf-8"))["armor"]
    rows = [
        "| Armor | Kind | Bonus | Max Dex | Check penalty | Spell failure | Speed 30 / 20 ft | Attack |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for a in armor:
        dex = "-" if a["max_dex"] is None else f"+{a['max_dex']}"
        speed = "-" if a["speed_30"] is None else f"{a['speed_30']} / {a['speed_20']}"
        rows.append(
            f"| {a['name']} | {a['kind']} | +{a['bonus']} | {dex} | {a['check_penalty']} | {a['spell_failure']}% "
            f"| {speed} | {a['attack_penalty'] or '-'} |"
        )
    return "\n".join(rows) + "\n"


def test_the_dnd_tables_are_the_data_the_bot_reads() -> None:
    known = sections("dnd35")
    assert weapon_table() in known[9]
    assert armor_table() in known[10]


def _anchor(heading: str) -> str:
    # GitHub's rule: lowercase, drop punctuation other than hyphens and spaces, spaces become hyphens.
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("document", DOCUMENTS, ids=[str(d.relative_to(ROOT)) for d in DOCUMENTS])
def test_links_point_at_what_exists(document: Path) -> None:
    text = re.sub(r"^(```|~~~).*?^\1", "", document.read_text(encoding="utf-8"), flags=re.MULTILINE | re.DOTALL)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        file = (document.parent / path).resolve() if path else document
        if not file.exists():
            broken.append(target)
        elif anchor and file.is_file():
            headings = re.findall(r"^#+ (.*)$", file.read_text(encoding="utf-8"), flags=re.MULTILINE)
            if anchor not in {_anchor(h) for h in headings}:
                broken.append(target)
    assert not broken, f"{document.relative_to(ROOT)}: broken links {broken}"


def _value(value: object) -> str:
    """A table cell of sf_weapons.json: a proposed default is marked †, as the answers mark it."""
    if isinstance(value, dict) and "default" in value:
        return f"{_value(value['value'])}†" if value["default"] else _value(value["value"])
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "-" if value is None else str(value)


def sf_ranged_table() -> str:
    """docs/rules/star_frontiers.md §7's table, from bot/rules/data/sf_weapons.json."""
    weapons = json.loads((DATA / "sf_weapons.json").read_text(encoding="utf-8"))["ranged"]
    bands = ("point_blank", "short", "medium", "long", "extreme")
    rows = [
        "| Weapon | Skill | Damage | Shots a turn | PB | Short | Medium | Long | Extreme |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for w in weapons:
        if "band_damage" in w:
            damage = ", ".join(f"{band.replace('_', ' ')} {dice}" for band, dice in w["band_damage"].items())
        else:
            damage = _value(w["damage"]) + (" per SEU" if w.get("per_seu") else "")
            damage += " (burst: 5d10 + 1d10 per extra target)" if w.get("burst") else ""
        skill = _value(w["skill"]) + (" (heavy)" if w.get("heavy") else "")
        cells = [_value(w["bands"].get(band)) for band in bands]
        rows.append(f"| {w['name']} | {skill} | {damage} | {_value(w['rate_of_fire'])} | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


def sf_melee_table() -> str:
    """docs/rules/star_frontiers.md §8's table, from bot/rules/data/sf_weapons.json."""
    weapons = json.loads((DATA / "sf_weapons.json").read_text(encoding="utf-8"))["melee"]
    rows = ["| Weapon | Skill | Damage | Weapon modifier | Blunt |", "|---|---|---|---|---|"]
    for w in weapons:
        damage = (
            ("punch" + (" + " + _value(w["damage"]) if _value(w["damage"]) != "0" else ""))
            if w.get("punch")
            else _value(w["damage"])
        )
        rows.append(
            f"| {w['name']} | {_value(w['skill'])} | {damage} | {_value(w['modifier'])} | {_value(w['blunt'])} |"
        )
    return "\n".join(rows) + "\n"


def sf_kind_table() -> str:
    """docs/rules/star_frontiers.md §11's table of what each weapon's hit is to a defense, from sf_weapons.json."""
    data = json.loads((DATA / "sf_weapons.json").read_text(encoding="utf-8"))
    rows = ["| Weapon | Kind of hit |", "|---|---|"]
    for w in (*data["ranged"], *data["melee"], *data["not_found"]):
        if "kind" in w:
            rows.append(f"| {w['name']} | {_value(w['kind'])} |")
    return "\n".join(rows) + "\n"


def test_the_star_frontiers_tables_are_the_data_the_bot_reads() -> None:
    known = sections("star_frontiers")
    assert sf_ranged_table() in known[7]
    assert sf_melee_table() in known[8]
    assert sf_kind_table() in known[11]


def test_the_privacy_policy_names_every_table() -> None:
    """A new table is a new kind of data kept: docs/privacy.md must say what it holds and why."""
    from bot.db.models import Base

    policy = (ROOT / "docs" / "privacy.md").read_text()
    missing = [table for table in Base.metadata.tables if f"`{table}`" not in policy and table != "alembic_version"]
    assert missing == []
