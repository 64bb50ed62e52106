"""Options declared once (cogs/_options.py): the commands they make, and the one roll path (cogs/_pipeline.py).

The roll commands and their odds commands are built from one options class each, so an odds command can never
miss an option its roll has; rule notations are read as the option arrives, before anything is looked up.
"""

from __future__ import annotations

import dataclasses
import enum
from datetime import UTC, datetime
from typing import Any

import discord
import pytest
from alembic import command as alembic
from discord import app_commands
from sqlalchemy import text, update

from bot.db.engine import Database
from bot.db.migrate import alembic_config
from bot.db.models import RollLog
from bot.local.driver import Exchange, LocalDiscord
from bot.ui import rulesets
from cogs._options import Hidden, Shown, names, option, slash
from tests.dice_sources import NoDice, ScriptedDice
from tests.helpers import RED, fields

# Each roll command and the odds command that prices it without rolling, as each ruleset registers them.
PAIRS = [pair for presenters in rulesets.every() for pair in presenters.odds]


def command(local: LocalDiscord, path: str) -> app_commands.Command[Any, ..., Any]:
    *groups, name = path.split()
    found: Any = local.bot.tree.get_command(groups[0])
    for part in [*groups[1:], name]:
        found = found.get_command(part)
    assert isinstance(found, app_commands.Command), path
    return found


def described(parameter: app_commands.Parameter) -> tuple[Any, ...]:
    choices = tuple((c.name, c.value) for c in parameter.choices)
    return (
        parameter.name,
        parameter.type,
        parameter.description,
        parameter.required,
        parameter.default,
        choices,
        parameter.min_value,
        parameter.max_value,
        parameter.autocomplete,
    )


@pytest.mark.parametrize(("roll", "odds"), PAIRS)
def test_an_odds_command_takes_every_option_of_its_roll_but_hidden(local: LocalDiscord, roll: str, odds: str) -> None:
    rolled = [described(p) for p in command(local, roll).parameters]
    priced = [described(p) for p in command(local, odds).parameters]
    assert [p for p in rolled if p[0] != "hidden"] == priced
    assert "hidden" in [p[0] for p in rolled] and rolled[-2:][0][0] == "private"


def test_sf_shoot_has_room_for_more_options(local: LocalDiscord) -> None:
    # Discord takes 25; /sf shoot had all 25 before `hands`, the band-or-metres `distance`, aiming as a way of
    # standing and the laser's dial as its `setting` (stun too); then it took `name` and `target`.
    assert len(command(local, "sf shoot").parameters) <= 24


class Colour(enum.Enum):
    RED = "red"
    DEEP_BLUE = "deep_blue"


@dataclasses.dataclass(frozen=True, kw_only=True)
class Brush:
    colour: Colour = option("Which colour", Colour.RED, labels={Colour.DEEP_BLUE: "deep blue (dark)"})
    coats: int = option("How many coats", low=1, high=3)
    note: str | None = option("A note", None, high=10)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Paint(Hidden, Shown, Brush):
    """The bases' fields come first, so `private` and `hidden` end the options, as in every roll command."""


def test_one_options_class_becomes_the_parameters_in_its_order() -> None:
    given: list[Paint] = []

    class Cog:
        @slash("paint", Paint)
        async def paint(self, interaction: Any, options: Paint) -> None:
            """Paint something."""
            given.append(options)

    built = Cog.paint
    assert built.description == "Paint something."
    shown = {p.name: p for p in built.parameters}
    # Required first, as Discord wants; otherwise the order of the fields, bases first.
    assert names(Paint) == ("colour", "coats", "note", "private", "hidden")
    assert list(shown) == ["coats", "colour", "note", "private", "hidden"]  # required first, as Discord wants
    assert [(c.name, c.value) for c in shown["colour"].choices] == [("red", "red"), ("deep blue (dark)", "deep_blue")]
    assert (shown["coats"].required, shown["coats"].min_value, shown["coats"].max_value) == (True, 1, 3)
    assert (shown["note"].required, shown["note"].max_value) == (False, 10)
    assert shown["hidden"].description == "Send the result to the GM channel; this channel only sees that you rolled"


def test_an_options_class_makes_the_command_discord_pys_own_decorators_make() -> None:
    # The builder goes through discord.py's public decorators (describe, choices, Range), as its hybrid commands
    # do: the payload Discord gets is the one of the same command written out by hand.
    class Built:
        @slash("paint", Paint)
        async def paint(self, interaction: Any, options: Paint) -> None:
            """Paint something."""

    class ByHand:
        @app_commands.command(name="paint")
        @app_commands.describe(
            colour="Which colour",
            coats="How many coats",
            note="A note",
            private="Show the result to you only",
            hidden="Send the result to the GM channel; this channel only sees that you rolled",
        )
        @app_commands.choices(
            colour=[
                app_commands.Choice(name="red", value="red"),
                app_commands.Choice(name="deep blue (dark)", value="deep_blue"),
            ]
        )
        async def paint(
            self,
            interaction: Any,
            *,
            colour: str = "red",
            coats: app_commands.Range[int, 1, 3],
            note: app_commands.Range[str, 1, 10] | None = None,
            private: bool = False,
            hidden: bool = False,
        ) -> None:
            """Paint something."""

    tree = app_commands.CommandTree(discord.Client(intents=discord.Intents.none()))
    assert Built.paint.to_dict(tree) == ByHand.paint.to_dict(tree)
    assert [p.name for p in Built.paint.parameters] == ["coats", "colour", "note", "private", "hidden"]


async def test_an_enum_option_arrives_as_its_member() -> None:
    given: list[Paint] = []

    class Cog:
        @slash("paint", Paint)
        async def paint(self, interaction: Any, options: Paint) -> None:
            """Paint something."""
            given.append(options)

    await Cog.paint.callback(Cog(), None, coats=2, colour="deep_blue")  # type: ignore[arg-type]
    assert given == [Paint(coats=2, colour=Colour.DEEP_BLUE)]


def test_a_description_over_discords_limit_is_refused_when_declared() -> None:
    with pytest.raises(ValueError, match="at most 100 characters"):
        option("x" * 101)


# ---------------------------------------------------------------------------------------------------------
# Notation read at the edge.


async def test_a_bad_notation_is_refused_before_anything_is_looked_up(local: LocalDiscord) -> None:
    local.bot.dice = NoDice()
    # No such character either: the notation is read first, as the option arrives.
    exchange = await local.command("dnd attack", {"target_ac": 15, "character": "Nobody", "precision": "3x6"})
    assert exchange.ephemeral and exchange.embed["color"] == RED
    assert exchange.embed["description"].startswith("`precision`: Unexpected 'x' at character 2.")
    assert exchange.embed["description"].endswith("```\n3x6\n ^\n```")
    quick = await local.command("sf shoot", {"score": 40, "skill": 1, "damage": "2x10", "distance": "short"})
    assert quick.embed["color"] == RED and quick.embed["description"].startswith("`damage`: ")


@pytest.mark.usefixtures("full_answers")
async def test_a_character_shot_takes_metres_and_quick_mode_a_band(local: LocalDiscord) -> None:
    created = await local.command("character create", {"ruleset": "sf", "name": "Kim"})
    assert created.embed["color"] != RED, created.embed
    added = await local.command("character weapon add", {"character": "Kim", "name": "Laser pistol"})
    assert added.rejected == []
    local.bot.dice = ScriptedDice([99])
    metres = await local.command("sf shoot", {"distance": "30 m", "setting": 1})
    assert metres.embed["color"] != RED, metres.embed
    local.bot.dice = NoDice()
    band = await local.command("sf shoot", {"distance": "short", "setting": 1})
    assert band.embed["color"] == RED
    assert band.embed["description"] == (
        "A character's shot takes the `distance` in metres; its weapon's bands give the range."
    )


async def test_distance_autocomplete_offers_the_metres_typed_and_the_bands(local: LocalDiscord) -> None:
    offered = (await local.autocomplete("sf shoot", {"distance": "3"}, focused="distance")).choices
    assert [c["name"] for c in offered] == ["3 m"]
    offered = (await local.autocomplete("sf shoot", {"distance": "o"}, focused="distance")).choices
    assert [c["value"] for c in offered] == ["point blank", "short", "long"]


# ---------------------------------------------------------------------------------------------------------
# A full attack takes the situation an attack takes.


@pytest.mark.usefixtures("full_answers")
async def test_a_ranged_full_attack_takes_the_range_penalty_of_a_single_attack(local: LocalDiscord) -> None:
    await local.command("character create", {"ruleset": "dnd35", "name": "Robin"})
    for field, value in (("bab", "6"), ("weapon_groups", "martial")):
        await local.command("character set", {"character": "Robin", "field": field, "value": value})
    await local.command("character weapon add", {"character": "Robin", "name": "Longbow"})
    options = {"target_ac": 40, "distance": 250}  # two range increments past the first: -4 (§2)
    local.bot.dice = ScriptedDice([1])
    single = await local.command("dnd attack", options)
    local.bot.dice = ScriptedDice([1, 1])
    full = await local.command("dnd full-attack", options)
    assert single.embed["color"] != RED and full.embed["color"] != RED, (single.embed, full.embed)
    attack_line = next(line for line in fields(single)["Attack roll"].split("\n") if line.startswith("Attack bonus"))
    assert "-4 range" in attack_line, attack_line
    first = next(iter(fields(full).values())).split("\n")
    assert attack_line in first, first


# ---------------------------------------------------------------------------------------------------------
# /sf shoot's renamed options: rolls logged and saved before keep their meaning.

OLD_SHOT = {
    "score": 40,
    "skill": 1,
    "damage": "1d10",
    "range": "short",
    "wrong_hand": True,
    "two_weapons": True,
    "aim": True,
}


def steps(exchange: Exchange) -> str:
    return "\n".join(fields(exchange).values())


@pytest.mark.usefixtures("full_answers")
async def test_roll_again_reads_a_shot_logged_with_the_old_options(local: LocalDiscord, database: Database) -> None:
    local.bot.dice = ScriptedDice([99])
    first = await local.command("sf shoot", {"score": 40, "skill": 1, "damage": "1d10", "distance": "short"})
    async with database.engine.begin() as connection:
        await connection.execute(update(RollLog).values(inputs=OLD_SHOT))
    message = local.original(first)
    again_id = next(
        c["custom_id"] for row in message["components"] for c in row["components"] if c["label"] == "Roll again"
    )
    local.bot.dice = ScriptedDice([99])
    again = await local.click(message, again_id)
    shown = steps(again)
    assert "3. Range **-10**: short (given)" in shown
    assert "11. Wrong hand **-10**" in shown and "12. Two weapons **-10**" in shown
    assert "5. Careful aim **+15**" in shown
    async with database.engine.begin() as connection:
        await connection.execute(update(RollLog).values(inputs={**OLD_SHOT, "laser_mode": "x"}))
    local.bot.dice = NoDice()
    refused = await local.click(message, again_id)
    assert refused.ephemeral and refused.embed["color"] == RED
    assert refused.embed["description"] == "`/sf shoot` no longer takes `laser_mode`: type the roll afresh."


@pytest.mark.usefixtures("full_answers")
async def test_a_shot_saved_with_the_old_options_is_rewritten_to_mean_the_same(
    local: LocalDiscord, database: Database
) -> None:
    async with database.engine.begin() as connection:
        await connection.run_sync(lambda sync: alembic.downgrade(alembic_config(sync), "0012"))
        await connection.execute(
            text(
                "INSERT INTO macros (guild_id, user_id, name, name_key, command, line, created_at) "
                "VALUES (:guild, :user, 'pew', 'pew', 'sf shoot', :line, :at)"
            ),
            {
                "guild": int(local.actor.guild_id or 0),
                "user": int(local.actor.user_id),
                "line": "/sf shoot score:40 skill:1 damage:1d10 range:short wrong_hand:true two_weapons:true aim:true",
                "at": datetime(2026, 1, 1, tzinfo=UTC),
            },
        )
        await connection.run_sync(lambda sync: alembic.upgrade(alembic_config(sync), "head"))
        line = (await connection.execute(text("SELECT line FROM macros"))).scalar_one()
    assert line == (
        "/sf shoot score:40 skill:1 damage:1d10 distance:short hands:two_weapons_wrong_hand attacker_movement:aiming"
    )
    local.bot.dice = ScriptedDice([99])
    ran = await local.command("macro run", {"name": "pew"})
    shown = steps(ran)
    assert "3. Range **-10**: short (given)" in shown and "12. Two weapons **-10**" in shown
    assert "5. Careful aim **+15**" in shown


# ---------------------------------------------------------------------------------------------------------
# A quick-mode attacker can be named.

NAMED = [
    ("dnd attack", {"attack_bonus": 5, "damage": "1d6", "target_ac": 10}, [10, 3]),
    ("dnd full-attack", {"attack_bonus": "+5", "damage": "1d6", "target_ac": 10}, [10, 3]),
    ("sf shoot", {"score": 40, "skill": 1, "damage": "1d10", "distance": "short"}, [99]),
    ("sf melee", {"score": 40, "skill": 1, "damage": "1d10"}, [99]),
    ("aliens fire", {"skill_rank": 1, "distance": 3}, [99, 99]),
]


@pytest.mark.parametrize(("name", "options", "faces"), NAMED)
async def test_a_quick_mode_attacker_is_named_in_both_forms(
    local: LocalDiscord, name: str, options: dict[str, Any], faces: list[int]
) -> None:
    local.bot.dice = ScriptedDice(faces * 3)
    short = await local.command(name, {**options, "name": "Goblin  2"})
    assert short.embed["color"] != RED, short.embed
    shown = short.embed.get("title", "") + short.embed.get("author", {}).get("name", "") + short.embed["description"]
    assert "Goblin 2" in shown and "Player0001" not in shown, short.embed
    local.bot.dice = NoDice()
    marked = await local.command(name, {**options, "name": "**Boss**"})
    assert marked.embed["color"] == RED and marked.embed["title"] == "Not a valid name", marked.embed


async def test_a_character_attacks_under_its_own_name(local: LocalDiscord) -> None:
    await local.command("character create", {"ruleset": "dnd35", "name": "Kara"})
    local.bot.dice = NoDice()
    refused = await local.command("dnd attack", {"target_ac": 10, "weapon": "Longsword", "name": "Goblin"})
    assert refused.embed["color"] == RED
    assert refused.embed["description"] == "`name` is for quick mode: a character attacks under its own name."


def test_a_lasers_old_dial_is_its_setting() -> None:
    from importlib import import_module

    from bot.rules.star_frontiers.replay import current_shot_options

    assert current_shot_options({"weapon": "Laser pistol", "seu": 2}) == {"weapon": "Laser pistol", "setting": "2"}
    migration = import_module("bot.db.migrations.versions.0016_sf_shot_options")
    assert migration.rewritten('/sf shoot weapon:"Laser pistol" distance:30 seu:2') == (
        "/sf shoot 'weapon:Laser pistol' distance:30 setting:2"
    )
