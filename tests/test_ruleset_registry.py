"""A fourth ruleset plugs in through the registry alone and takes every shared path (tests/rulesets/pool.py).

The pool game is registered by the `pool` fixture (`plugged_in()` and its cog's extension) and touches no shared
file: roll, odds, Roll again, a fair log that `check_log` replays, /history, /stats, /help, /settings, and a fight
(start, join with a character, a quick creature, initiative, a roll's hit applied).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Iterator
from fractions import Fraction
from itertools import product

import pytest
import pytest_asyncio
from discord import app_commands

from bot.db.engine import Database
from bot.local.driver import LocalDiscord
from bot.rules import dnd35 as dnd
from bot.rules import replay, rulesets
from bot.rules.aliensrl import Ring, Shooter
from bot.rules.aliensrl import replay as aliens_replay
from bot.rules.dnd35 import replay as dnd_replay
from bot.rules.encounter import Health
from bot.rules.fair import FairDice
from bot.rules.fair_log import LogRoll, check_log, parse_log
from bot.rules.settings import every_setting
from bot.ui import rulesets as presenters
from bot.ui.help import starts
from bot.ui.summaries import summaries
from tests.dice_sources import ScriptedDice
from tests.helpers import ROOT, button, logged, ok, state, stored, tracker_of
from tests.rulesets.pool import KEY, POOL, PoolRoll, plugged_in, pool_luck, roll_pool, success_odds

BUILT_IN = ("dnd35", "sf", "aliensrl")


@pytest.fixture
def registered() -> Iterator[None]:
    with plugged_in():
        yield


@pytest_asyncio.fixture
async def pool(local: LocalDiscord, registered: None) -> AsyncIterator[LocalDiscord]:
    await local.bot.load_extension("tests.rulesets.pool_cog")
    with offered(local):
        yield local


@contextlib.contextmanager
def offered(local: LocalDiscord) -> Iterator[None]:
    """The pool in every menu of rulesets, as a game registered before the cogs are imported is.

    The menus are read from the registry when their cog is imported, once per test process, before this test
    game registers; and the bot refuses a value its menu does not offer (bot.tree `check_options`).
    """
    added = []
    for command in local.bot.tree.walk_commands():
        parameter = getattr(command, "_params", {}).get("ruleset")
        if parameter is not None and any(choice.value in BUILT_IN for choice in parameter.choices):
            choice = app_commands.Choice(name=POOL.title, value=KEY)
            parameter.choices.append(choice)
            added.append((parameter, choice))
    local.bot.tree._schemas.clear()  # type: ignore[attr-defined]  # the options are checked against the new menus
    try:
        yield
    finally:
        for parameter, choice in added:
            parameter.choices.remove(choice)
        local.bot.tree._schemas.clear()  # type: ignore[attr-defined]


# ------------------------------------------------------------------------------------------- the registry


def test_the_built_in_rulesets_declare_one_spelling_each() -> None:
    assert rulesets.registered_keys() == BUILT_IN
    words = {r.key: (r.title, r.brief_title, r.health, r.health_short) for r in rulesets.every()}
    assert words == {
        "dnd35": ("D&D 3.5 / NWN", "D&D 3.5", "Hit points", "hp"),
        "sf": ("Star Frontiers", "Star Frontiers", "Stamina", "STA"),
        "aliensrl": ("AliensRL", "AliensRL", "Hit points", "hp"),
    }
    assert [p.key for p in presenters.every()] == list(BUILT_IN)


def test_a_registered_ruleset_reaches_every_shared_registry_and_leaves_with_its_block() -> None:
    with plugged_in():
        assert rulesets.registered_keys() == (*BUILT_IN, KEY)
        assert "pool.roll" in replay.kinds() and "pool.roll" in summaries()
        assert "pool.sixes" in every_setting()
        assert KEY in [s.key for s in starts()]
    assert rulesets.find(KEY) is None and "pool.roll" not in replay.kinds()
    assert "pool.sixes" not in every_setting() and KEY not in [s.key for s in starts()]


def test_two_rulesets_cannot_share_a_key() -> None:
    with plugged_in(), pytest.raises(ValueError, match="two rulesets"):
        rulesets.register(rulesets.Ruleset(key=KEY, title="Other", sheet=POOL.sheet, version=1))


# ------------------------------------------------------------------------------------------- the pure core


@pytest.mark.parametrize("sixes_twice", [False, True])
@pytest.mark.parametrize("dice", [1, 2, 3])
def test_the_pool_odds_are_exact_by_enumeration(dice: int, sixes_twice: bool) -> None:
    asked = PoolRoll(dice, sixes_twice)
    counted: dict[int, Fraction] = {}
    for faces in product(range(1, 7), repeat=dice):
        result = roll_pool(asked, ScriptedDice(faces))
        counted[result.successes] = counted.get(result.successes, Fraction(0)) + Fraction(1, 6**dice)
    assert counted == success_odds(asked)


def test_a_pool_s_luck_is_measured_against_its_odds() -> None:
    tally = pool_luck(roll_pool(PoolRoll(2), ScriptedDice([5, 6])))
    assert tally["hits"].observed == 1 and tally["hits"].expected == pytest.approx(20 / 36)
    assert tally["damage"].observed == 2 and tally["damage"].expected == pytest.approx(2 / 3)


# ------------------------------------------------------------------------------------------- every shared path


async def test_a_pool_rolls_on_the_one_path_and_prices_its_odds(pool: LocalDiscord, database: Database) -> None:
    pool.bot.dice = ScriptedDice([5, 1, 6, 2])
    rolled = ok(await pool.command("pool roll", {"dice": 4}))
    assert rolled["description"] == "**5**, 1, **6**, 2\n**2** successes"
    [row] = await logged(database)
    assert row.ruleset == KEY and row.command == "pool roll"
    priced = ok(await pool.command("pool odds", {"dice": 2}))
    assert priced["description"].startswith("At least one success: **55.6%**")
    assert len(await logged(database)) == 1  # odds roll nothing


async def test_roll_again_repeats_a_pool(pool: LocalDiscord) -> None:
    pool.bot.dice = ScriptedDice([5, 5, 1])
    first = await pool.command("pool roll", {"dice": 3})
    again = button(pool.original(first), "Roll again")
    assert again is not None
    pool.bot.dice = ScriptedDice([1, 1, 6])
    repeated = await pool.click(pool.original(first), again)
    assert repeated.messages[-1]["embeds"][0]["description"] == "1, 1, **6**\n**1** successes"


async def test_a_fair_session_s_pool_replays_from_its_log(pool: LocalDiscord) -> None:
    ok(await pool.command("fair start"))
    ok(await pool.command("pool roll", {"dice": 5}))
    revealed = await pool.command("fair reveal")
    [log_file] = revealed.files.values()
    log = parse_log(log_file)
    [roll] = log.rolls
    assert isinstance(roll, LogRoll) and roll.kind == "pool.roll" and roll.inputs == {"dice": 5, "sixes_twice": False}
    assert check_log(log).ok


async def test_history_stats_and_help_show_the_pool(pool: LocalDiscord) -> None:
    pool.bot.dice = ScriptedDice([6, 6, 2])
    ok(await pool.command("pool roll", {"dice": 3}))
    history = ok(await pool.command("history"))
    assert "3d6 pool: 2 successes" in str(history)
    luck = ok(await pool.command("stats", {"ruleset": KEY}))
    assert luck["title"] == "Luck of this server · Pool" and "over 1 rolls" in luck["description"]
    page = ok(await pool.command("help", {"ruleset": KEY}))
    assert page["title"] == "Getting started: Pool"
    overview = ok(await pool.command("help"))
    assert "Pool" in [f["name"] for f in overview["fields"]]


async def test_the_help_page_s_first_steps_run(pool: LocalDiscord) -> None:
    ok(await pool.command("character create", {"ruleset": KEY, "name": "Tess"}))
    ok(await pool.command("character set", {"character": "Tess", "values": "dice=5 hp=8/8"}))
    pool.bot.dice = ScriptedDice([5, 5, 5, 1, 1])
    rolled = ok(await pool.command("pool roll", {"character": "Tess"}))
    assert rolled["title"] == "Tess: 5d6 pool" and rolled["description"].endswith("**3** successes")
    hurt = ok(await pool.command("character hp", {"character": "Tess", "change": "-3"}))
    assert hurt["description"].startswith("**Tess**: Grit 8 → **5** of 8")


async def test_a_server_setting_of_the_pool_reaches_its_rolls(pool: LocalDiscord) -> None:
    manager = pool.as_user("200000000000000099", permissions=str(1 << 5))
    ok(await pool.command("settings set", {"setting": "pool.sixes", "value": "twice"}, actor=manager))
    pool.bot.dice = ScriptedDice([6, 1])
    rolled = ok(await pool.command("pool roll", {"dice": 2}))
    assert rolled["description"].endswith("**2** successes")


async def test_a_pool_fight_joins_rolls_initiative_and_takes_a_hit(pool: LocalDiscord, database: Database) -> None:
    ok(await pool.command("character create", {"ruleset": KEY, "name": "Tess"}))
    ok(await pool.command("character set", {"character": "Tess", "values": "dice=4 hp=8/8"}))
    started = ok(await pool.command("encounter start", {"ruleset": KEY, "name": "Pit"}))
    assert started["title"].startswith("Pit · Pool")
    ok(await pool.command("encounter join", {"character": "Tess"}))
    ok(await pool.command("encounter add", {"name": "Rat", "hp": 3, "initiative": 1}))
    pool.bot.dice = ScriptedDice([2, 6])  # Tess d6 2 + 2 = 4, Rat d6 6 + 1 = 7: the Rat goes first
    tracker = tracker_of(await pool.command("encounter next"))
    assert "8/8 grit" in tracker["description"]
    fight = await stored(database)
    assert [c.name for c in fight.combatants] == ["Rat", "Tess"] and fight.current is not None
    assert [c.initiative.die for c in fight.combatants if c.initiative] == [6, 6]
    pool.bot.dice = ScriptedDice([5, 6, 1, 2])
    ok(await pool.command("pool roll", {"character": "Tess", "target": "Rat"}))
    fight = await stored(database)
    assert state(fight) == [("Rat", 1), ("Tess", 8)]
    pool.bot.dice = ScriptedDice([5, 5])
    ok(await pool.command("pool roll", {"dice": 2, "target": "Rat"}))
    rat = (await stored(database)).combatants[0]
    assert rat.hp == -1 and rulesets.fighting(KEY).health is not None
    assert rulesets.fighting(KEY).health(rat.hp) is Health.DYING  # the pool's own health states


# Files every ruleset shares: they read the registries and never name a game (the registries' lists of built-in
# games excepted). Each game's kinds of roll are in its package (bot/rules/<game>/replay.py); bot/rules/encounter.py
# still holds the map.
SHARED = (
    "bot/rules/replay.py",
    "bot/rules/luck.py",
    "bot/rules/settings.py",
    "bot/rules/sheets/__init__.py",
    "bot/rules/sheets/transfer.py",
    "bot/rules/rulesets.py",
    "bot/ui/rulesets.py",
    "bot/ui/help.py",
    "bot/ui/summaries.py",
    "bot/ui/encounter.py",
    "bot/ui/characters.py",
    "cogs/stats.py",
    "cogs/help.py",
    "cogs/characters.py",
)
GAME = re.compile(
    r"""["'](?:dnd35|sf|aliensrl)["']|\bStamina\b|\bSTA\b|bot\.rules(?:\.| import )(?:dnd35|star_frontiers|aliensrl)"""
    r"|bot\.ui(?:\.| import )(?:dnd35|star_frontiers|aliensrl)"
)


@pytest.mark.parametrize("path", SHARED)
def test_a_shared_file_names_no_game(path: str) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    named = [
        line.strip()
        for line in text.splitlines()
        if GAME.search(line) and not line.strip().startswith("#") and "BUILT_IN" not in line
    ]
    registered = [line for line in named if re.fullmatch(r'"bot\.(?:rules|ui)\.[\w.]+:\w+",?', line)]
    assert named == registered, f"{path} names a game outside the registry's list"


# ------------------------------------------------------------------------------------------- kinds of roll


def test_each_built_in_game_declares_its_kinds_of_roll_in_its_own_package() -> None:
    for entry, rules in zip(rulesets.BUILT_IN, rulesets.every(), strict=True):
        package = entry.split(":")[0].removesuffix(".ruleset")  # bot.rules.dnd35.ruleset:DND35 -> bot.rules.dnd35
        for kind in rules.kinds:
            assert kind.inputs.__module__ == f"{package}.replay", (rules.key, kind.name)
            assert kind.run.__module__ == f"{package}.replay", (rules.key, kind.name)
    assert {k.name for r in rulesets.every() for k in r.kinds} == {
        "dnd.attack",
        "dnd.full-attack",
        "sf.shoot",
        "sf.melee",
        "aliens.fire",
    }


# Inputs as a fair log of a past session holds them (logged before the kinds moved into their games' packages).
PAST_ATTACK = {
    "attack": {
        "label": "Attack",
        "attack_terms": [{"name": "attack bonus", "value": 5, "source": "given"}],
        "damage": {"count": 1, "sides": 8},
        "damage_terms": [],
        "threat": 20,
        "threat_source": "20 (given)",
        "critical_multiplier": 2,
        "multipliers": [],
        "precision": [],
        "energy": [],
        "target": {
            "ac": 15,
            "kind": "AC",
            "explanation": "given",
            "dr": None,
            "immune_to_criticals": False,
            "denied_dex": False,
            "notes": [],
        },
        "properties": [],
        "ranged": False,
        "notes": [],
    },
    "variants": {"multipliers": "seed", "confirmation": "srd", "finesse_shield": "srd", "monk_step": "srd"},
}
PAST_SHOT = {
    "shooter": {"rank": 2, "pain": 1, "accuracy": 3, "ammo_damage": 10, "damage_modifier": 0, "shots": 1, "weapon": ""},
    "dx": 3,
    "dy": 4,
    "distance": None,
    "intervening": False,
    "ring": "angband",
    "crowded": False,
    "targeted": "relocated",
    "field": None,
}


def test_a_past_session_s_rolls_log_and_replay_as_they_did() -> None:
    attack = dnd_replay.DndAttackRoll(dnd.quick_attack(5, "1d8", 15), dnd.Variants())
    shot = aliens_replay.AliensShot(Shooter(rank=2, pain=1, accuracy=3), 3, 4, None, False, Ring.ANGBAND)
    seed = bytes(range(32))
    for kind, value, past, typed in (
        (dnd_replay.DND_ATTACK, attack, PAST_ATTACK, {"attack_bonus": 5, "damage": "1d8", "target_ac": 15}),
        (aliens_replay.ALIENS_SHOT, shot, PAST_SHOT, {"skill_rank": 2, "pain": 1, "accuracy": 3, "dx": 3, "dy": 4}),
    ):
        proof = replay.roll(kind, value, FairDice(seed, 1))
        assert proof.inputs == past and proof.to_log()["kind"] == kind.name
        again = replay.replay(kind.name, past, seed, 1)
        assert again.outcome == proof.outcome
        assert replay.disagreement(kind.name, past, typed) is None
        assert replay.disagreement(kind.name, past, {**typed, "dx" if "dx" in typed else "target_ac": 5}) is not None
