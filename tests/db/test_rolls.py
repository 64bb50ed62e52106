"""The roll log stores compact rows with a stated maximum size, and reads every value back as it was given."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

import orjson
import pytest
from alembic import command
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select, text

from bot.db.codec import DRAWS, ZLIB, decode, encode
from bot.db.engine import Database
from bot.db.fair import FairRepository
from bot.db.migrate import alembic_config, current_revision, head_revision, migrating
from bot.db.models import RollLog
from bot.db.rolls import ROW_BYTES_MAX, RollRecord, RollRepository, luck_tallies
from bot.local.driver import LocalDiscord
from bot.rules import dnd35 as dnd
from bot.rules.dice import MAX_DICE, MAX_EXPRESSION_LENGTH, MAX_EXTRA_ROLLS, MAX_SIDES
from bot.rules.luck import CountingDice, Tally
from bot.rules.sheets.dnd35 import DndSheet
from bot.ui.dnd35 import full_attack_answer
from bot.ui.embeds import Defender, fit
from cogs._replay import stored_details
from tests.helpers import RED
from tests.roll_log_rows import stored_rows

# ------------------------------------------------------------------------------------------------ the codec

ANY_CHARACTER = st.characters(exclude_categories=())  # lone surrogates too: JSON from Discord may carry them
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(ANY_CHARACTER),
    lambda inner: st.lists(inner, max_size=8) | st.dictionaries(st.text(ANY_CHARACTER, max_size=8), inner, max_size=8),
    max_leaves=60,
)


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON, types included (True is not 1, 1.0 is not 1)."""
    return json.dumps(a) == json.dumps(b)


@given(json_values)
def test_any_json_value_comes_back_as_it_was(value: Any) -> None:
    assert same_json(decode(encode(value)), value)


@pytest.mark.parametrize(
    "value",
    [
        [float("nan"), 1.5],  # orjson writes NaN as null
        {"odds": float("inf"), "low": -float("inf")},
        {"pair": (1, 2)},  # orjson reads a tuple back as a list
        {7: "a key that is not text"},
        [2**64, -(2**63) - 1],  # beyond orjson's 64 bits
        {"name": "\ud800"},  # a lone surrogate
    ],
)
def test_values_orjson_would_change_are_written_by_the_json_module(value: Any) -> None:
    assert same_json(decode(encode(value)), value)
    by_json = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")
    assert encode(value) == by_json


def test_a_roll_s_values_are_written_by_orjson() -> None:
    value = {"odds": [2 / 3, 1e-05, 1.5e16], "kept": [True, 1, 1.0], "note": None, "by": "Zoë"}  # under 96 bytes
    assert encode(value) == orjson.dumps(value)
    assert same_json(decode(encode(value)), value)


@st.composite
def draws(draw: st.DrawFn) -> list[list[int]]:
    ranges = [(1, 20), (1, 100), (1, MAX_SIDES), (0, 0), (-5, 5), (1, 2**40)]
    out = []
    for _ in range(draw(st.integers(1, 40))):
        a, b = draw(st.sampled_from(ranges))
        out.append([a, b, draw(st.integers(a, b))])
    return out


@given(draws())
def test_draws_are_packed_and_come_back_as_lists(value: list[list[int]]) -> None:
    stored = encode(value)
    assert stored[0] == DRAWS
    assert decode(stored) == value


@pytest.mark.parametrize(
    "doctored",
    [
        [[1, 20, 25]],
        [[True, 20, 1]],
        [[1, 20]],
        [[1, 20, 2.0]],
        [[20, 1, 5]],
        [[1, 20, 3], [1, 20, 30]],
        [[0, 2**70, 5]],
    ],
)
def test_draws_that_are_not_draws_are_kept_exactly_as_given(doctored: list[list[Any]]) -> None:
    assert same_json(decode(encode(doctored)), doctored)


def test_a_thousand_d10000_draws_take_two_bytes_each() -> None:
    rng = random.Random(7)
    value = [[1, MAX_SIDES, rng.randint(1, MAX_SIDES)] for _ in range(MAX_DICE)]
    assert len(encode(value)) <= 2 * MAX_DICE + 40
    assert len(json.dumps(value)) > 7 * len(encode(value))


def test_large_json_is_compressed_and_small_json_stays_readable_text() -> None:
    big = {"dice": [{"face": n % 7, "state": "kept"} for n in range(200)]}
    assert encode(big)[0] == ZLIB and len(encode(big)) < len(json.dumps(big)) // 10
    assert encode({"total": 3}) == b'{"total":3}'


@pytest.mark.parametrize("legacy", ['{"total": 3, "dice": [1, 2]}', b"[[1, 20, 7]]", "null"])
def test_json_text_from_before_the_codec_is_read(legacy: str | bytes) -> None:
    assert decode(legacy) == json.loads(legacy)


# ----------------------------------------------------------------------------- the largest rows, by command


def assert_bounded(rows: list[dict[str, int]]) -> None:
    for row in rows:
        assert row["total"] <= ROW_BYTES_MAX, row


async def test_roll_at_the_caps_in_a_fair_session_stays_under_the_row_maximum(
    local: LocalDiscord, database: Database
) -> None:
    await local.command("fair start")
    label = "L" * 100
    half = MAX_DICE // 2
    expressions = [
        f"{MAX_DICE}d{MAX_SIDES}",
        # Nearly every die rerolled (`<` reads "or less"): 1,000 dice and the 1,000 extra draws the budget allows.
        f"{MAX_DICE}d{MAX_SIDES}r<{MAX_SIDES - 1}",
        f"{half}d{MAX_SIDES}kh{half // 2}+{half}d{MAX_SIDES}dl{half // 2}",
        f"{MAX_DICE}d{MAX_SIDES}!>2",  # explosions until the extra rolls run out
        "+".join(["10d10000"] * 66)[:MAX_EXPRESSION_LENGTH].rstrip("+1"),
    ]
    for expression in expressions:
        exchange = await local.command("roll", {"expression": expression, "label": label})
        assert exchange.embed["color"] != RED, exchange.embed
    rows = await stored_rows(database)
    async with database.read() as session:
        logged = list(await session.scalars(select(RollLog).order_by(RollLog.id)))
    assert len(logged[1].draws or []) == MAX_DICE + MAX_EXTRA_ROLLS
    assert_bounded(rows)


async def character(
    local: LocalDiscord, ruleset: str, name: str, values: dict[str, Any], weapons: dict[str, str]
) -> None:
    created = await local.command("character create", {"ruleset": ruleset, "name": name})
    assert created.rejected == [], created.requests
    for field, value in values.items():
        changed = await local.command("character set", {"character": name, "field": field, "value": str(value)})
        assert changed.embed["title"] == "Saved", changed.embed
    for weapon, details in weapons.items():
        added = await local.command("character weapon add", {"character": name, "name": weapon, "details": details})
        assert added.messages[0]["content"] == f"Added **{weapon}**.", added.messages


async def test_the_largest_attacks_of_each_ruleset_stay_under_the_row_maximum(
    local: LocalDiscord, database: Database, full_answers: None
) -> None:
    """The most dice each attack command rolls today; odds above their work budget are refused (issue #13)."""
    await local.command("fair start")
    feats = {"two_weapon_fighting": "yes", "improved_two_weapon_fighting": "yes", "greater_two_weapon_fighting": "yes"}
    heavy = "damage=2d20 threat=2 multiplier=6 keen=true energy='2d20 fire'"
    await character(
        local,
        "dnd35",
        "Max",
        {"bab": 20, "weapon_groups": "martial", **feats},
        {"Longsword": heavy, "Short sword": heavy},
    )
    await character(local, "aliensrl", "Vasquez", {"heavy": 2}, {"Smartgun": "type=heavy accuracy=2 shots=20"})
    commands: list[tuple[str, dict[str, Any]]] = [
        (
            "dnd full-attack",
            {
                "character": "Max",
                "weapon": "Longsword",
                "off_hand_weapon": "Short sword",
                "target_ac": -50,
                "precision": "3d20",
            },
        ),
        ("dnd attack", {"attack_bonus": 200, "damage": "20d20+20", "target_ac": -50, "multiplier": 6, "crit": "2-20"}),
        (
            "sf shoot",
            {"score": 100, "skill": 6, "damage": "20d10", "distance": "point_blank", "burst": True, "targets": 5},
        ),
        ("sf melee", {"score": 100, "skill": 6, "damage": "20d10"}),
        ("aliens fire", {"character": "Vasquez", "distance": 9, "intervening": True}),
    ]
    for name, options in commands:
        exchange = await local.command(name, options)
        assert exchange.embed.get("color") != RED, (name, exchange.embed)
    rows = await stored_rows(database)
    assert len(rows) == len(commands)
    assert_bounded(rows)


class CritDice:
    """Every d20 a 20 (every attack a confirmed critical), other dice at random; records each draw."""

    def __init__(self) -> None:
        self.rng = random.Random(3)
        self.draws: list[list[int]] = []

    def randint(self, a: int, b: int) -> int:
        face = b if (a, b) == (1, 20) else self.rng.randint(a, b)
        self.draws.append([a, b, face])
        return face


@pytest.mark.parametrize("secret", [False, True])
def test_the_largest_full_attack_the_sheet_allows_stays_under_the_row_maximum(secret: bool) -> None:
    """Beyond today's odds budget: the rules core rolls it as `/dnd full-attack` would, every attack critical.

    Four iterative and three off-hand attacks, each a x6 critical of 99d999 with 99d999 precision and 306 energy
    dice: 999 dice of 999 sides an attack, one under the engine's cap. The row adds the full answer (at most
    Discord's 6,000 characters) and its compact form; against a secret defender, its full answer with the
    defender's numbers too.
    """
    heavy = {
        "damage": "99d999",
        "threat": 2,
        "multiplier": 6,
        "keen": True,
        "energy": ["99d999 fire"] * 3 + ["9d999 cold"],  # with precision, 999 dice: the cap is 1,000 an attack
    }
    sheet = DndSheet.model_validate(
        {
            "bab": 60,
            "two_weapon_fighting": True,
            "improved_two_weapon_fighting": True,
            "greater_two_weapon_fighting": True,
            "weapons": ({"name": "Longsword", **heavy}, {"name": "Short sword", **heavy}),
        }
    )
    situation = dnd.Situation(precision=(dnd.Dice(99, 999),))
    attacks = dnd.full_attack(sheet, "Longsword", -50, situation, off_hand_weapon="Short sword")
    dice = CritDice()
    full = dnd.resolve_all(attacks, CountingDice(dice))
    defender = Defender("Ogre", secret=True, owner_id=1) if secret else None
    answer = full_attack_answer(full, Fraction(0), attacker="Max", weapon="Longsword", defender=defender)
    assert answer.compact is not None and (answer.secret is not None) == secret
    kept = fit(answer.secret) if answer.secret is not None else None
    details = stored_details(fit(answer.full), fit(answer.compact), secret=kept, owner=answer.secret_owner)
    outcome = {"attacks": [r.to_dict() for r in full.results], "total": full.total_damage}
    assert len(full.results) == 7 and len(dice.draws) == 7 * (2 + 999)
    fixed = 20 * 8 + 200 + 200 + 2000  # numbers, command, summary, inputs (options of at most 40 characters)
    size = fixed + sum(len(encode(value)) for value in (outcome, dice.draws, details))
    assert size <= ROW_BYTES_MAX, (size, [len(encode(v)) for v in (outcome, dice.draws, details)])


# -------------------------------------------------------------------------------------------- the migration

LEGACY_DRAWS = [[1, 20, 17], [1, 6, 4]]


async def test_a_luck_tally_is_stored_as_a_plain_list_and_read_back_as_a_tally(database: Database) -> None:
    """The stored JSON is what it always was ([observed, expected, variance]), so rows of older code still read."""
    tally = {"hits": Tally(1.0, 0.55, 0.2475), "nat20": Tally(0.0, 0.05, 0.0475)}
    roll = RollRecord(
        interaction_id=1,
        guild_id=1,
        channel_id=1,
        user_id=1,
        command="dnd attack",
        inputs={},
        result={},
        private=False,
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        luck=tally,
    )
    async with database.write.begin() as session:
        await RollRepository(session).add(roll)
    async with database.read() as session:
        stored = await RollRepository(session).luck(guild_id=1)
    assert [decode(data) for data in stored] == [{"hits": [1.0, 0.55, 0.2475], "nat20": [0.0, 0.05, 0.0475]}]
    older = json.dumps({"damage": [7.0, 5.5, 8.25]}).encode()  # a row written before the codec, as JSON text
    assert luck_tallies([*stored, older]) == [tally, {"damage": Tally(7.0, 5.5, 8.25)}]
    assert all(type(t) is Tally for read in luck_tallies(stored) for t in read.values())


async def test_rows_logged_before_the_codec_are_read_after_the_migration(database: Database) -> None:
    """Back to 0008 (the JSON columns), a row as the old code wrote it, then up again."""
    async with migrating(database) as connection:
        await connection.run_sync(lambda sync: command.downgrade(alembic_config(sync), "0008"))
        await connection.execute(
            text(
                "INSERT INTO fair_sessions (channel_id, commitment, seed, next_roll, started_by, started_at, "
                "revealed_at) VALUES (7, 'c', 's', 2, 1, :at, NULL)"
            ),
            {"at": datetime(2026, 1, 1, tzinfo=UTC)},
        )
        await connection.execute(
            text(
                "INSERT INTO roll_log (interaction_id, user_id, channel_id, command, inputs, result, private, "
                "created_at, fair_session_id, fair_roll, draws, luck, details) VALUES (1, 1, 7, 'roll', :inputs, "
                ":result, false, :at, 1, 1, :draws, :luck, :details)"
            ),
            {
                "inputs": json.dumps({"expression": "1d20+1d6"}),
                "result": json.dumps({"total": 21, "tree": {"dice": [{"face": 17}] * 50}}),
                "draws": json.dumps(LEGACY_DRAWS),
                "luck": json.dumps(None),
                "details": json.dumps({"title": "1d20+1d6", "description": "é ✓"}),
                "at": datetime(2026, 1, 1, tzinfo=UTC),
            },
        )
        await connection.run_sync(lambda sync: command.upgrade(alembic_config(sync), "head"))
    assert await current_revision(database) == head_revision()
    async with database.read() as session:
        roll = await RollRepository(session).made_by(1)
        session_row = await FairRepository(session).open(7)
        assert session_row is not None
        fair = await FairRepository(session).roll(session_row.id, 1)
        luck = await RollRepository(session).luck(guild_id=None)
    assert roll is not None and fair is not None
    assert roll.inputs == {"expression": "1d20+1d6"}
    assert roll.result == {"total": 21, "tree": {"dice": [{"face": 17}] * 50}}
    assert roll.details == {"title": "1d20+1d6", "description": "é ✓"}
    assert fair.draws == LEGACY_DRAWS
    assert luck == []
    # And down again: the old code's JSON, then up, still the same.
    async with migrating(database) as connection:
        await connection.run_sync(lambda sync: command.downgrade(alembic_config(sync), "0008"))
        stored = (await connection.execute(text("SELECT draws FROM roll_log"))).scalar_one()
        assert (json.loads(stored) if isinstance(stored, str | bytes) else stored) == LEGACY_DRAWS  # JSON again
        await connection.run_sync(lambda sync: command.upgrade(alembic_config(sync), "head"))
    async with database.read() as session:
        again = await RollRepository(session).made_by(1)
    assert again == roll
