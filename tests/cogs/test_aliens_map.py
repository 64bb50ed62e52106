"""AliensRL shots on the fight's map (#18 item 5): `/encounter place`, and `/aliens fire|odds|melee target:`."""

from __future__ import annotations

import pytest

from bot.db.engine import Database
from bot.local.driver import LocalDiscord
from bot.rules import aliensrl
from bot.rules.fair_log import LogRoll, check_log, parse_log
from bot.ui.aliensrl import percent
from tests.dice_sources import NoDice, ScriptedDice
from tests.helpers import BOB as PLAYER
from tests.helpers import RED, create_vasquez, fields, ok, state, stored

pytestmark = pytest.mark.usefixtures("full_answers")


async def the_map(local: LocalDiscord) -> None:
    """Vasquez (heavy 2, pain 1, a smartgun) on (0, 0); Hicks on (3, 0) in the way; Aliens on (6, 0) and (7, 0)."""
    await create_vasquez(local, details="type=heavy")
    ok(await local.command("encounter start", {"ruleset": "aliensrl", "name": "Hadley's Hope"}))
    ok(await local.command("encounter join"))
    ok(await local.command("encounter add", {"name": "Hicks", "hp": 10, "rank": 2}))
    ok(await local.command("encounter add", {"name": "Alien", "count": 2, "hp": 20, "rank": 1}))
    for who, x in (("Vasquez", 0), ("Hicks", 3), ("Alien 1", 6), ("Alien 2", 7)):
        placed = ok(await local.command("encounter place", {"combatant": who, "x": x, "y": 0}))
        assert placed["description"] == f"{who} stands on ({x}, 0).", placed


async def test_a_shot_passes_the_marine_in_the_way_and_hits_the_alien(local: LocalDiscord, database: Database) -> None:
    await the_map(local)
    # Skill 1 + 2 heavy - 1 pain = 2 at distance 6; d100 50 is rating 0, quality 2, 2 damage, no stray.
    # Hicks on (3, 0) is on the line of fire: d10 4 misses him (6 in 10); Alien 1 is hit outright.
    local.bot.dice = ScriptedDice([50, 4])
    shot = await local.command("aliens fire", {"target": "Alien 1"})
    assert shot.embed["description"].startswith("misses Hicks and flies on; **grazes†**: **2** damage to **Alien 1**")
    steps = fields(shot)["The shot"]
    assert "Hicks at (3, 0), in the way: d10 **4** → missed (6 in 10)" in steps, steps
    assert "Alien 1 at (6, 0), on the aimed square: hit outright (on target)" in steps, steps
    assert "Skill rating at (6, 0) from (0, 0), distance 6" in fields(shot)
    note = shot.messages[-1]["embeds"][0]
    assert (note["title"], note["description"]) == ("The fight", "Alien 1: 20 → 18 hp")
    assert state(await stored(database)) == [("Vasquez", 10), ("Hicks", 10), ("Alien 1", 18), ("Alien 2", 20)]


async def test_a_stray_hits_whoever_stands_where_it_lands(local: LocalDiscord, database: Database) -> None:
    await the_map(local)
    # d100 99: rating +4 > skill 2, so it strays at distance 6 to a neighbour: choice 4 is (+1, 0), Alien 2's
    # square. On the way there it passes Hicks (d10 5) and Alien 1 (d10 6), both missed; Alien 2 is hit outright
    # (the square it strayed to counts as targeted, the reference's reading): quality 1, 1 damage.
    local.bot.dice = ScriptedDice([99, 4, 5, 6])
    shot = await local.command("aliens fire", {"target": "Alien 1"})
    assert shot.embed["description"].startswith(
        "misses Hicks, Alien 1 and flies on; **strays** to (7, 0); **barely grazes†**: **1** damage to **Alien 2**"
    )
    note = shot.messages[-1]["embeds"][0]["description"]
    assert note == "Alien 2: 20 → 19 hp"
    assert state(await stored(database))[2:] == [("Alien 1", 20), ("Alien 2", 19)]


async def test_a_burst_hitting_two_combatants_is_one_change_undone_at_once(
    local: LocalDiscord, database: Database
) -> None:
    await the_map(local)
    ok(
        await local.command(
            "character weapon add", {"character": "Vasquez", "name": "Pulse rifle", "details": "type=heavy shots=2"}
        )
    )
    # Shot 1: d100 50, Hicks's d10 9: he is hit (4 in 10), 2 damage. Shot 2: d100 3 (rating -3, quality 5, 5
    # damage), Hicks's d10 1 misses; Alien 1 hit outright.
    local.bot.dice = ScriptedDice([50, 9, 3, 1])
    shot = await local.command("aliens fire", {"target": "Alien 1", "weapon": "Pulse rifle"})
    assert "Damage: Hicks **2**, Alien 1 **5**" in shot.embed["description"], shot.embed
    assert shot.messages[-1]["embeds"][0]["description"] == "Alien 1: 20 → 15 hp\nHicks: 10 → 8 hp"
    assert state(await stored(database))[1:3] == [("Hicks", 8), ("Alien 1", 15)]
    ok(await local.command("encounter undo"))
    assert state(await stored(database))[1:3] == [("Hicks", 10), ("Alien 1", 20)]


async def test_a_quick_shooter_in_the_fight_fires_from_its_square_with_its_rank(
    local: LocalDiscord, database: Database
) -> None:
    await the_map(local)
    # Hicks (rank 2) on (3, 0) at Alien 1 on (6, 0): distance 3, skill 1 + 2 + 1 point blank = 4; d100 50 is
    # quality 4, 4 damage, and nobody stands between.
    local.bot.dice = ScriptedDice([50])
    shot = await local.command("aliens fire", {"name": "Hicks", "target": "Alien 1"})
    assert shot.embed["title"] == "Hicks fires"
    assert "**4** = 1 base + 2 advanced skill" in fields(shot)["Skill rating at (6, 0) from (3, 0), distance 3"]
    assert shot.messages[-1]["embeds"][0]["description"] == "Alien 1: 20 → 16 hp"


async def test_the_odds_at_a_combatant_are_the_map_s_exact_odds(local: LocalDiscord) -> None:
    await the_map(local)
    local.bot.dice = NoDice()
    answer = await local.command("aliens odds", {"target": "Alien 1"})
    shooter = aliensrl.Shooter(rank=2, pain=1, accuracy=0, weapon="Smartgun")
    field = aliensrl.Field((0, 0), (6, 0), (("Hicks", (3, 0)), ("Alien 1", (6, 0)), ("Alien 2", (7, 0))))
    exact = aliensrl.odds(shooter, 6, field=field)
    expected = fields(answer)["Expected damage (from the map)"]
    for being, chance, _ in exact.beings:
        assert f"{being}: hit {percent(chance)}" in expected, expected
    assert [b for b, _, _ in exact.beings] == ["Hicks", "Alien 1", "Alien 2"]


@pytest.mark.parametrize(
    ("options", "title", "says"),
    [
        ({"target": "Alien 1", "dx": 3}, "Aim from the map", "leave out `dx`, `dy`, `distance`"),
        ({"target": "Alien 1", "crowded": True}, "Aim from the map", "leave out `crowded`"),
        ({"target": "Bishop 2"}, "Who?", "there is none called **Bishop 2**"),
        ({"target": "Alien 1", "skill_rank": 2}, "Who fires?", "is not in this fight"),
        ({"target": "Vasquez"}, "Who?", "cannot fire at itself"),
        ({"name": "Bishop", "target": "Alien 1"}, "Who fires?", "**Bishop** is dead in this fight"),
    ],
)
async def test_what_a_shot_at_a_combatant_refuses(
    local: LocalDiscord, options: dict[str, object], title: str, says: str
) -> None:
    await the_map(local)
    ok(await local.command("encounter add", {"name": "Bishop", "hp": 10, "rank": 1}))
    ok(await local.command("encounter place", {"combatant": "Bishop", "x": 0, "y": 5}))
    ok(await local.command("encounter hp", {"combatant": "Bishop", "amount": "-10"}))
    local.bot.dice = NoDice()
    refused = await local.command("aliens fire", options)
    assert refused.ephemeral and refused.embed["color"] == RED and refused.embed["title"] == title, refused.embed
    assert says in refused.embed["description"], refused.embed


async def test_place_refuses_a_taken_square_other_rulesets_and_strangers(local: LocalDiscord) -> None:
    await the_map(local)
    taken = await local.command("encounter place", {"combatant": "Hicks", "x": 6, "y": 0})
    assert taken.ephemeral and "**Alien 1** stands on (6, 0) already." in taken.embed["description"]
    player = local.as_user(PLAYER)
    stranger = await local.command("encounter place", {"combatant": "Hicks", "x": 9, "y": 9}, actor=player)
    assert stranger.ephemeral and stranger.embed["color"] == RED
    ok(await local.command("encounter end"))
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    ok(await local.command("encounter add", {"name": "Goblin", "hp": 6, "ac": 15, "initiative": 1}))
    flat = await local.command("encounter place", {"combatant": "Goblin", "x": 1, "y": 1})
    assert flat.ephemeral and "Only an AliensRL fight has a map" in flat.embed["description"]


async def test_a_shooter_or_target_off_the_map_is_told_to_place_it(local: LocalDiscord) -> None:
    await create_vasquez(local, details="type=heavy")
    ok(await local.command("encounter start", {"ruleset": "aliensrl", "name": "Hope"}))
    ok(await local.command("encounter join"))
    ok(await local.command("encounter add", {"name": "Alien", "hp": 20, "rank": 1}))
    ok(await local.command("encounter place", {"combatant": "Vasquez", "x": 0, "y": 0}))
    local.bot.dice = NoDice()
    refused = await local.command("aliens fire", {"target": "Alien"})
    assert refused.embed["title"] == "Not on the map"
    assert refused.embed["description"].startswith("**Alien** has no square yet: `/encounter place combatant:Alien")


async def test_melee_at_a_combatant_takes_its_damage_off(local: LocalDiscord, database: Database) -> None:
    await the_map(local)
    local.bot.dice = NoDice()  # melee always hits: no dice
    bite = await local.command("aliens melee", {"attacker": "warrior", "target": "Hicks"})
    assert bite.messages[-1]["embeds"][0]["description"] == "Hicks: 10 → 5 hp"
    assert ("Hicks", 5) in state(await stored(database))
    nobody = await local.command("aliens melee", {"target": "Bishop"})
    assert nobody.ephemeral and nobody.embed["title"] == "Who?"


async def test_a_fair_session_s_shot_on_the_map_replays_from_its_log(local: LocalDiscord) -> None:
    await the_map(local)
    local.bot.dice = NoDice()  # the session's dice, not the bot's
    ok(await local.command("fair start"))
    shot = await local.command("aliens fire", {"target": "Alien 1"})
    assert shot.rejected == []
    revealed = await local.command("fair reveal")
    [log_file] = revealed.files.values()
    log = parse_log(log_file)
    [roll] = log.rolls
    assert isinstance(roll, LogRoll) and roll.kind == "aliens.fire"
    assert roll.inputs is not None and roll.inputs["field"]["aim"] == [6, 0]
    assert check_log(log).ok
