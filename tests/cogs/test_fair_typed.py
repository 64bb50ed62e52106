"""Typed options re-derived from a fair roll's logged input (`bot.rules.replay.disagreement`), through the real path.

Each kind's rolls are made through the command tree in a fair session, with as many options as each command takes,
quick mode and with characters. Every genuine roll's options agree with its logged input; a forged option (changed,
added or dropped) disagrees, for every option a kind reads. Every option of every roll command is read, or listed
with why the input cannot reflect it (`replay.UNREFLECTED`), so a new option cannot be forgotten.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from bot.db.engine import Database
from bot.local.driver import LocalDiscord
from bot.rules import replay
from bot.ui.summaries import SUMMARIES, accepted, summary
from tests.helpers import LASER, RED, logged, secret_sathar


async def dnd_characters(local: LocalDiscord) -> None:
    await make(local, "dnd35", "Aric", strength=16, dexterity=14, bab=6, rogue_level=4, weapon_groups="martial")
    await make(local, "dnd35", "Ogre", strength=20, armor_bonus=3, damage_reduction="5/magic")


async def sf_characters(local: LocalDiscord) -> None:
    await make(local, "sf", "Kim", weapons=(("Laser pistol", ""),))
    await make(local, "sf", "Zix", race="yazirian")


async def aliens_characters(local: LocalDiscord) -> None:
    await make(local, "aliensrl", "Vasquez", heavy=2, pain=1, weapons=(("Smartgun", "type=heavy accuracy=2"),))


async def make(
    local: LocalDiscord, ruleset: str, name: str, weapons: tuple[tuple[str, str], ...] = (), **values: Any
) -> None:
    created = await local.command("character create", {"ruleset": ruleset, "name": name})
    assert created.rejected == [] and created.embed.get("color") != RED, created.embed
    for field, value in values.items():
        changed = await local.command("character set", {"character": name, "field": field, "value": str(value)})
        assert changed.embed["title"] == "Saved", changed.embed
    for weapon, details in weapons:
        added = await local.command("character weapon add", {"character": name, "name": weapon, "details": details})
        assert added.embed.get("color") != RED, added.embed


DND_ATTACKS: list[dict[str, Any]] = [
    {
        "attack_bonus": 5,
        "damage": "1d8+3",
        "crit": "19-20/x2",
        "target_ac": 15,
        "situation": "flanking into melee cover prone +2",
        "damage_bonus": 1,
        "multiplier": 2,
        "precision": "2d6",
        "dr": "5/magic",
        "touch": True,
        "flat_footed": True,
        "attack_number": 2,
        "name": "Goblin 2",
    },
    {"attack_bonus": 3, "damage": "1d6", "target_ac": 12, "crit_immune": True, "off_hand": True},
    {"attack_bonus": 3, "damage": "1d6", "target_ac": 12, "situation": "ranged helpless total concealment"},
    {"character": "Aric", "weapon": "longsword", "target_ac": 14, "situation": "sneak attack flanking charge"},
    {"character": "Aric", "weapon": "Longbow", "target_ac": 13, "distance": 130, "situation": "into melee"},
    {"character": "Aric", "weapon": "LONGSWORD", "target": "Ogre", "touch": True, "dr": "5/-", "attack_number": 2},
    {"character": "Aric", "weapon": "Dagger", "off_hand": True, "target_ac": 10, "situation": "higher ground"},
    {"character": "Aric", "weapon": "Longsword", "target": "Ogre", "situation": "helpless improved cover"},
]
DND_FULL_ATTACKS: list[dict[str, Any]] = [
    {"attack_bonus": "+11/+6/+1", "damage": "1d8+4", "crit": "19-20/x2", "target_ac": 18, "situation": "-1"},
    {"attack_bonus": "+4", "damage": "2d4", "target": "Ogre", "flat_footed": True, "precision": "1d6"},
    {"character": "Aric", "weapon": "Longsword", "off_hand_weapon": "Dagger", "target_ac": 15, "damage_bonus": 2},
]
SF_SHOTS: list[dict[str, Any]] = [
    {
        "score": 50,
        "skill": 2,
        "damage": "2d10 laser",
        "distance": "short",
        "race": "vrusk",
        "wounded": True,
        "heavy": True,
        "target_movement": "running",
        "attacker_movement": "aiming",
        "cover": "soft",
        "target_size": "large",
        "hands": "wrong_hand",
        "situation": "prone sight -5",
        "target": "albedo suit",
    },
    {"score": 40, "skill": 1, "damage": "1d10", "distance": "Point Blank", "burst": True, "targets": 2},
    {"score": 40, "skill": 0, "damage": "1d10 needle", "distance": "medium", "setting": "stun", "target": "Kim"},
    {"character": "Kim", "weapon": "laser pistol", "distance": 30, "setting": "2"},
    {"character": "Kim", "distance": "20 m", "attacker_movement": "walking"},
]
SF_MELEES: list[dict[str, Any]] = [
    {
        "score": 60,
        "skill": 1,
        "damage": "1d10 ballistic",
        "weapon_modifier": 5,
        "blunt": True,
        "race": "yazirian",
        "battle_rage": True,
        "wounded": True,
        "helpless": "unaware",
        "target_defending": True,
        "distance": 1.5,
        "modifier": 3,
        "target_encumbered": True,
    },
    {"score": 55, "skill": 2, "damage": "1d5", "martial_arts": True, "helpless": "stunned"},
    {"character": "Kim", "target": "Zix", "setting": "damage"},
    {"character": "Zix", "weapon": "bare hands", "battle_rage": True},
]
ALIENS_SHOTS: list[dict[str, Any]] = [
    {"skill_rank": 2, "accuracy": 3, "ammo_damage": 12, "dx": 3, "dy": 4, "intervening": True, "crowded": True},
    {"distance": 5, "pain": 2},
    {"character": "Vasquez", "weapon": "smartgun", "distance": 3, "pain": 0},
    {"character": "Vasquez", "dx": -2, "dy": 6},
]
ROLLS: list[dict[str, Any]] = [{"expression": "3d6+2", "label": "Str", "target": 12}, {"expression": "4d6kh3"}]

KINDS: dict[str, tuple[str, list[dict[str, Any]], Any]] = {
    "dice": ("roll", ROLLS, None),
    "dnd.attack": ("dnd attack", DND_ATTACKS, dnd_characters),
    "dnd.full-attack": ("dnd full-attack", DND_FULL_ATTACKS, dnd_characters),
    "sf.shoot": ("sf shoot", SF_SHOTS, sf_characters),
    "sf.melee": ("sf melee", SF_MELEES, sf_characters),
    "aliens.fire": ("aliens fire", ALIENS_SHOTS, aliens_characters),
}

# Another value of an option, of the type Discord sends for it, by option (a text option's alternatives).
TEXTS: dict[str, list[str]] = {
    "expression": ["1d7", "3d6+3"],
    "dr": ["15/-", "10/silver"],
    "precision": ["9d6", "1d4"],
    "crit": ["17-20/x4", "20/x3"],
    "weapon": ["Club", "Rifle"],
    "off_hand_weapon": ["Handaxe", "Club"],
    "race": ["dralasite", "human"],
    "target_movement": ["stationary", "dodging"],
    "attacker_movement": ["dodging", "running"],
    "cover": ["hard", "none"],
    "target_size": ["tiny", "giant"],
    "hands": ["two_weapons", "one"],
    "helpless": ["stunned", "none"],
    "target": ["Somebody"],
    "situation": ["charge", "-3"],
    "character": ["#999"],
}
KIND_TEXTS: dict[tuple[str, str], list[str]] = {
    ("dnd.attack", "damage"): ["2d4+7", "1d8"],
    ("dnd.full-attack", "damage"): ["2d4+7", "1d8"],
    ("dnd.full-attack", "attack_bonus"): ["+20/+15", "+4/+0"],
    ("sf.shoot", "damage"): ["3d6 needle", "1d10"],
    ("sf.melee", "damage"): ["3d6 needle", "1d10"],
    ("sf.shoot", "distance"): ["long", "77"],
    ("sf.shoot", "setting"): ["7", "stun"],
    ("sf.melee", "setting"): ["stun", "damage"],
    ("sf.shoot", "situation"): ["prone", "telescopic sight +4"],
}
NUMBERS: dict[tuple[str, str], list[Any]] = {
    ("sf.melee", "distance"): [0.5, 2.0],
    ("dnd.attack", "multiplier"): [5, 3],
    ("dnd.full-attack", "multiplier"): [5, 3],
    ("dnd.attack", "attack_number"): [3, 1],
    ("sf.shoot", "targets"): [4, 1],
}


def alternatives(kind: str, option: str, genuine: Any) -> list[Any]:
    """Other values of an option than the one typed (or one at all, when it was not typed)."""
    if (kind, option) in NUMBERS:
        return [v for v in NUMBERS[(kind, option)] if v != genuine]
    if (kind, option) in KIND_TEXTS or option in TEXTS:
        return [v for v in KIND_TEXTS.get((kind, option), TEXTS.get(option, [])) if v != genuine]
    if isinstance(genuine, bool) or genuine is None:
        return [not genuine]
    if isinstance(genuine, int | float):
        return [genuine + 3]
    raise AssertionError(f"no alternative value for {kind} option {option}")


async def fair_rolls(local: LocalDiscord, database: Database, kind: str) -> list[tuple[dict[str, Any], Any]]:
    """Every roll of a kind made in a fair session: (options as logged, input as logged)."""
    command, rolls, characters = KINDS[kind]
    if characters is not None:
        await characters(local)
    started = await local.command("fair start")
    assert not started.ephemeral
    for options in rolls:
        made = await local.command(command, options)
        assert made.embed.get("color") != RED, (options, made.embed)
        assert "Fair roll #" in made.embed["footer"]["text"], made.embed
    found = [(row.inputs, row.proof) for row in await logged(database) if row.fair_roll is not None]
    assert len(found) == len(rolls)
    assert all(proof["kind"] == kind for _, proof in found)
    return [(options, proof["input"]) for options, proof in found]


@pytest.mark.parametrize("kind", sorted(KINDS))
async def test_every_typed_option_agrees_with_the_input_and_a_forged_one_does_not(
    local: LocalDiscord, database: Database, kind: str
) -> None:
    rolls = await fair_rolls(local, database, kind)
    for options, inputs in rolls:
        assert replay.disagreement(kind, inputs, options) is None, options
    caught: dict[str, list[str]] = {}
    for option in replay.KINDS[kind].typed:
        for options, inputs in rolls:
            forgeries = [{**options, option: value} for value in alternatives(kind, option, options.get(option))]
            if option in options:
                forgeries.append({k: v for k, v in options.items() if k != option})
            for forged in forgeries:
                found = replay.disagreement(kind, inputs, forged)
                if found is not None:
                    assert f"option `{option}`" in found, (forged, found)
                    caught.setdefault(option, []).append(found)
    assert sorted(caught) == sorted(replay.KINDS[kind].typed), "options whose forgery went unnoticed"


async def test_every_option_of_a_roll_command_is_read_or_said_why_not(local: LocalDiscord) -> None:
    """A new option must be compared with the input (`Kind.typed`), or listed in `replay.UNREFLECTED` with why."""
    commands = {command.qualified_name: command for command in local.bot.tree.walk_commands()}
    for kind in replay.KINDS.values():
        command = commands.get(kind.command)
        if command is None or not hasattr(command, "parameters"):
            continue  # a kind rolled by a button or a tracker, with no options typed
        options = {parameter.name for parameter in command.parameters}
        read, unread = set(kind.typed), set(replay.UNREFLECTED.get(kind.command, {}))
        assert options == read | unread, (
            f"/{kind.command}: not read nor said why: {sorted(options - read - unread)}; "
            f"no longer options: {sorted((read | unread) - options)}"
        )
        assert not read & unread, f"/{kind.command}: both read and said unread: {sorted(read & unread)}"
    assert {k.command for k in replay.KINDS.values() if k.command in commands} <= set(replay.UNREFLECTED)


# -- summaries ------------------------------------------------------------------------------------------------


def replayed(kind: str, row: Any, seed: bytes) -> replay.Replayed:
    """A logged roll run again from the seed; where dice follow the roll's interaction (layout 4), from it."""
    by_interaction = "interaction_id" in inspect.signature(replay.replay).parameters
    extra = {"interaction_id": row.interaction_id} if by_interaction else {}
    return replay.replay(kind, row.proof["input"], seed, row.fair_roll, **extra)


async def reveal(local: LocalDiscord) -> bytes:
    revealed = await local.command("fair reveal")
    return bytes.fromhex(revealed.embed["description"].split("`")[1])


@pytest.mark.parametrize("kind", sorted(KINDS))
async def test_a_logged_summary_is_the_summary_of_the_replayed_result(
    local: LocalDiscord, database: Database, kind: str
) -> None:
    await fair_rolls(local, database, kind)
    seed = await reveal(local)
    rows = [row for row in await logged(database) if row.fair_roll is not None]
    assert rows
    for row in rows:
        again = replayed(kind, row, seed)
        assert again.outcome == row.proof["outcome"]
        assert row.summary == summary(kind, again.result, secret=False)
        assert accepted(kind, again.result, sealed=False) == {row.summary}
        # A summary that says another outcome than the replay's ("Critical hit!" over a miss) is not it.
        for forged in ("Critical hit! 40 damage", "Miss", "Totals: 1, 2", row.summary + " "):
            if forged != row.summary:
                assert summary(kind, again.result, secret=False) != forged


async def test_a_shot_at_a_secret_logs_the_summary_the_channel_saw(local: LocalDiscord, database: Database) -> None:
    """Against a game master's secret, the line says the damage rolled, never what its defenses left of it."""
    await secret_sathar(local)
    await local.command("fair start")
    for _ in range(6):
        shot = await local.command("sf shoot", LASER)
        assert shot.embed.get("color") != RED, shot.embed
    seed = await reveal(local)
    rows = [row for row in await logged(database) if row.fair_roll is not None]
    assert len(rows) == 6
    hits = 0
    for row in rows:
        again = replayed("sf.shoot", row, seed)
        assert row.summary == summary("sf.shoot", again.result, secret=True)
        assert row.summary in accepted("sf.shoot", again.result, sealed=True)
        assert row.summary not in accepted("sf.shoot", again.result, sealed=False) or not again.result.hit
        if again.result.hit and again.result.damage is not None:
            hits += 1
            assert row.summary != summary("sf.shoot", again.result, secret=False)  # its defenses are the GM's
            assert "before its defenses" in row.summary
    assert hits, "no hit to check: change the number of shots"


def test_every_kind_has_a_summary() -> None:
    assert set(SUMMARIES) == set(replay.KINDS)


async def test_rolls_at_a_fight_rolled_again_saved_or_private_agree_with_their_options(
    local: LocalDiscord, database: Database
) -> None:
    """The fight decides numbers the options do not (a first turn's flat-footed AC, the map's aim): never a mismatch."""
    await local.command("fair start")
    ok = [await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"})]
    ok.append(await local.command("encounter add", {"name": "Goblin", "count": 2, "hp": 60, "ac": 15, "initiative": 1}))
    first = await local.command("dnd attack", {"target": "Goblin 1", "attack_bonus": 5, "damage": "1d8+3"})
    ok.append(first)
    ok.append(
        await local.command("dnd attack", {"target": "goblin 2", "attack_bonus": 2, "damage": "1d4", "dr": "2/-"})
    )
    ok.append(await local.command("dnd full-attack", {"target": "Goblin 1", "attack_bonus": "+6/+1", "damage": "1d6"}))
    ok.append(await local.click(local.original(first), f"again:{first.payload['id']}"))
    ok.append(await local.command("encounter end"))
    ok.append(await local.command("encounter start", {"ruleset": "sf", "name": "Port Loren"}))
    ok.append(await local.command("encounter add", {"name": "Sathar", "hp": 30, "rs": 40}))
    ok.append(
        await local.command(
            "sf shoot", {"score": 40, "skill": 1, "damage": "1d10", "distance": "short", "target": "Sathar"}
        )
    )
    ok.append(await local.command("sf melee", {"score": 40, "skill": 1, "damage": "1d10", "target": "Sathar"}))
    ok.append(await local.command("encounter end"))
    await aliens_characters(local)
    ok.append(await local.command("encounter start", {"ruleset": "aliensrl", "name": "Hadley's Hope"}))
    ok.append(await local.command("encounter join"))
    ok.append(await local.command("encounter add", {"name": "Alien", "hp": 20, "rank": 1}))
    for who, x in (("Vasquez", 0), ("Alien", 6)):
        ok.append(await local.command("encounter place", {"combatant": who, "x": x, "y": 0}))
    ok.append(await local.command("aliens fire", {"target": "Alien"}))
    ok.append(await local.command("macro save", {"name": "burst", "command": "/roll expression:3d6 private:true"}))
    ok.append(await local.command("macro run", {"name": "burst"}))
    ok.append(await local.command("roll", {"expression": "1d20+4", "private": True}))
    for exchange in ok:
        assert exchange.embed.get("color") != RED, exchange.embed
    rows = [row for row in await logged(database) if row.fair_roll is not None]
    assert len(rows) == 9
    for row in rows:
        assert replay.disagreement(row.proof["kind"], row.proof["input"], row.inputs) is None, row.inputs
    # Dropped, the target would say the attack was at a given AC, which it was not.
    attack = rows[0]
    without = {k: v for k, v in attack.inputs.items() if k != "target"}
    assert replay.disagreement("dnd.attack", attack.proof["input"], without) is not None
