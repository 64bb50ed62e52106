"""bot.rules.replay: rules inputs survive the log, and a logged roll replays to the same draws and outcome."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.rules import aliensrl, replay
from bot.rules import dnd35 as dnd
from bot.rules import encounter as fight
from bot.rules import star_frontiers as sf
from bot.rules.aliensrl import replay as aliens_replay
from bot.rules.dnd35 import replay as dnd_replay
from bot.rules.fair import FairDice
from bot.rules.sheets.dnd35 import DndSheet
from bot.rules.star_frontiers import replay as sf_replay

SEED = bytes(range(32))


def fighter() -> DndSheet:
    """Str 16, Dex 12, BAB +6: two iterative attacks with the SRD longsword."""
    return DndSheet.model_validate({"strength": 16, "dexterity": 12, "bab": 6, "weapon_groups": ["martial"]})


def inputs() -> list[tuple[replay.Kind[Any, Any], Any]]:
    """One input of every kind, quick mode and from a character, with most of their parts set."""
    target = dnd.target_ac(15, dr="5/magic")
    quick = dnd.quick_attack(
        5,
        "1d8+4",
        target,
        dnd.Situation(precision=dnd.parse_dice("2d6"), multipliers=(2,)),
        crit="19-20/x2",
        energy="1d6 fire",
    )
    variants = dnd.Variants(confirmation=dnd.ConfirmationRule.NWN)
    ranged = sf.quick_ranged(50, 2, "2d10", sf.Band("short"), sf.RangedSituation(cover=sf.Cover("soft"), modifier=-5))
    melee = sf.quick_melee(60, 1, "1d10", sf.MeleeSituation(stunned=True, distance=1.5))
    stun = sf.quick_ranged(
        70,
        1,
        "1d10",
        sf.Band("short"),
        sf.RangedSituation(setting=sf.Setting.STUN),
        kind=sf.DamageKind.NEEDLE,
        defender=sf.Defender("Kira", frozenset({"albedo suit"}), 50),
    )
    shooter = aliensrl.Shooter(rank=2, pain=1, accuracy=3, shots=3, weapon="Shotgun")
    full = tuple(dnd.full_attack(fighter(), "Longsword", 18))
    return [
        (replay.DICE, replay.DiceRoll("4d6kh3+2d8!+d%")),
        (dnd_replay.DND_ATTACK, dnd_replay.DndAttackRoll(quick, variants)),
        (
            dnd_replay.DND_FULL_ATTACK,
            dnd_replay.DndFullAttackRoll(full, variants),
        ),
        (sf_replay.SF_SHOT, sf_replay.SfShot(ranged, sf.Variants(automatic_miss=False))),
        (sf_replay.SF_SHOT, sf_replay.SfShot(stun, sf.Variants())),
        (sf_replay.SF_MELEE, sf_replay.SfMelee(melee, sf.Variants())),
        (aliens_replay.ALIENS_SHOT, aliens_replay.AliensShot(shooter, 3, 4, None, True, aliensrl.Ring.ANGBAND)),
        (replay.DYING, fight.DyingInput("dnd35", "Cave", 3, ("Goblin 1", "Ogre"))),
    ]


@pytest.mark.parametrize(("kind", "value"), inputs(), ids=lambda v: getattr(v, "name", ""))
def test_inputs_survive_the_log_exactly(kind: replay.Kind[Any, Any], value: Any) -> None:
    logged = json.loads(json.dumps(replay.encode(value)))
    assert replay.decode(kind.inputs, logged) == value


@pytest.mark.parametrize(("kind", "value"), inputs(), ids=lambda v: getattr(v, "name", ""))
def test_a_roll_logs_its_inputs_as_the_json_module_reads_them_back(kind: replay.Kind[Any, Any], value: Any) -> None:
    """orjson writes them (`bot.jsontext`); what the log keeps is what the json module's round trip gave."""
    logged = replay.roll(kind, value, FairDice(SEED, 1)).inputs
    assert json.dumps(logged) == json.dumps(json.loads(json.dumps(replay.encode(value))))


@pytest.mark.parametrize(("kind", "value"), inputs(), ids=lambda v: getattr(v, "name", ""))
def test_a_roll_replays_to_its_draws_and_outcome(kind: replay.Kind[Any, Any], value: Any) -> None:
    for number in range(1, 30):
        dice = FairDice(SEED, number)
        proof = replay.roll(kind, value, dice)
        again = replay.replay(kind.name, json.loads(json.dumps(proof.inputs)), SEED, number)
        assert again.draws == dice.draws and again.outcome == proof.outcome
        # The outcome is what the rules core's result says, not a rendering of it.
        assert proof.outcome == json.loads(json.dumps(kind.outcome(proof.result)))


def test_the_registry_names_every_kind_once_with_its_command() -> None:
    assert sorted(replay.KINDS) == [
        "aliens.fire",
        "dice",
        "dnd.attack",
        "dnd.full-attack",
        "encounter.add",
        "encounter.dying",
        "encounter.join",
        "encounter.next",
        "encounter.remove",
        "sf.melee",
        "sf.shoot",
    ]
    assert {k.command for k in replay.KINDS.values()} == {
        "roll",
        "dnd attack",
        "dnd full-attack",
        "sf shoot",
        "sf melee",
        "aliens fire",
        "encounter next",
        "encounter join",
        "encounter add",
        "encounter remove",
    }


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"expression": 3}, "input.expression: expected text"),
        ({"expression": "1d6", "extra": 1}, "keys differ from a DiceRoll (extra ['extra'], missing [])"),
        ({}, "missing ['expression']"),
        ([], "input: expected an object"),
    ],
)
def test_decoding_is_strict_and_says_where(data: Any, says: str) -> None:
    with pytest.raises(replay.InputError, match=None) as caught:
        replay.decode(replay.DiceRoll, data)
    assert says in str(caught.value)


def test_decoding_refuses_json_types_that_only_look_right() -> None:
    attack = replay.encode(dnd_replay.DndAttackRoll(dnd.quick_attack(5, "1d8", 15), dnd.Variants()))
    attack["attack"]["threat"] = True  # a bool is not a whole number
    with pytest.raises(replay.InputError, match=r"input\.attack\.threat: expected a whole number"):
        replay.decode(dnd_replay.DndAttackRoll, attack)
    attack["attack"]["threat"] = 20
    attack["variants"]["confirmation"] = "house"
    with pytest.raises(replay.InputError, match=r"input\.variants\.confirmation: 'house' is not a ConfirmationRule"):
        replay.decode(dnd_replay.DndAttackRoll, attack)


def test_inputs_the_rules_refuse_are_an_input_error_not_a_crash() -> None:
    melee = replay.encode(sf_replay.SfMelee(sf.quick_melee(60, 1, "1d10", sf.MeleeSituation()), sf.Variants()))
    melee["attack"]["situation"]["distance"] = 50.0  # melee reaches 2 m
    with pytest.raises(replay.InputError, match="the rules refuse it"):
        replay.replay("sf.melee", melee, SEED, 1)
    with pytest.raises(replay.InputError, match="the rules core refuses"):
        replay.replay("dice", {"expression": "1d20+"}, SEED, 1)
    with pytest.raises(replay.InputError, match="unknown kind"):
        replay.replay("poker", {}, SEED, 1)


def test_typed_options_must_agree_with_the_inputs() -> None:
    logged = replay.encode(replay.DiceRoll("3d6"))
    assert replay.disagreement("dice", logged, {"expression": "3d6", "label": "Str"}) is None
    assert replay.disagreement("dice", logged, {"expression": "4d6"}) == (
        "option `expression` is '4d6', but the roll was made with '3d6'"
    )
    attack = replay.encode(dnd_replay.DndAttackRoll(dnd.quick_attack(5, "1d8", 15), dnd.Variants()))
    typed = {"attack_bonus": 5, "damage": "1d8", "target_ac": 15}
    assert replay.disagreement("dnd.attack", attack, typed) is None
    assert replay.disagreement("dnd.attack", attack, {**typed, "target_ac": 16}) == (
        "option `target_ac` is 16, but the roll was made with 15"
    )
    # An option not typed is its default: a roll made with another value was made with other options.
    assert replay.disagreement("dnd.attack", attack, {**typed, "crit": "19-20/x2"}) == (
        "option `crit` is '19-20/x2', but the roll was made with '20/x2'"
    )
    assert replay.disagreement("dnd.attack", attack, {"damage": "1d8", "target_ac": 15}) == (
        "option `attack_bonus` was not given (so none), but the roll was made with 5"
    )
    assert replay.disagreement("dnd.attack", attack, {**typed, "damage": "1d8+"}) == (
        "option `damage` is '1d8+', which the command does not read"
    )


@given(st.text(alphabet="0123456789d+-*()khl!r% ", min_size=1, max_size=40))
def test_any_expression_that_rolls_replays(expression: str) -> None:
    try:
        proof = replay.roll(replay.DICE, replay.DiceRoll(expression), FairDice(SEED, 7))
    except Exception as error:
        assert getattr(error, "message", None), error  # refused with a user's message, never a crash
        return
    again = replay.replay("dice", proof.inputs, SEED, 7)
    assert again.outcome == proof.outcome


def test_the_star_frontiers_notations_read_as_the_command_reads_them() -> None:
    assert sf_replay.sf_distance(" 30 m") == 30.0 and sf_replay.sf_distance("Point Blank") is sf.Band.POINT_BLANK
    assert sf_replay.sf_distance("point_blank") is sf.Band.POINT_BLANK and sf_replay.sf_distance("12.5") == 12.5
    with pytest.raises(ValueError):
        sf_replay.sf_distance("near")
    assert sf_replay.sf_setting("5 SEU") == 5 and sf_replay.sf_setting("stun") is sf.Setting.STUN
    with pytest.raises(ValueError):
        sf_replay.sf_setting("max")
    assert sf_replay.sf_damage("2d10  laser") == (sf.Dice(2, 10), sf.DamageKind.LASER)
    assert sf_replay.sf_damage("1d10 sonic knife") == (sf.Dice(1, 10), sf.DamageKind.SONIC_KNIFE)
    assert sf_replay.sf_damage("3d6") == (sf.Dice(3, 6), None)


def test_a_typed_flag_is_not_a_number_and_a_full_attack_agrees_with_itself() -> None:
    attack = replay.encode(dnd_replay.DndAttackRoll(dnd.quick_attack(5, "1d8", 15), dnd.Variants()))
    typed = {"attack_bonus": 5, "damage": "1d8", "target_ac": 15}
    assert replay.disagreement("dnd.attack", attack, {**typed, "touch": False}) is None
    assert replay.disagreement("dnd.attack", attack, {**typed, "touch": 0}) == (
        "option `touch` is 0, but the roll was made with False"
    )
    situation = dnd.Situation(modifier=2)
    full = replay.encode(
        dnd_replay.DndFullAttackRoll(dnd.quick_full_attack((11, 6), "1d8+4", 18, situation), dnd.Variants())
    )
    typed = {"attack_bonus": "+11/+6", "damage": "1d8+4", "target_ac": 18, "situation": "+2"}
    assert replay.disagreement("dnd.full-attack", full, typed) is None
    # Typed as before `situation` took the modifier: the same roll.
    old = {key: value for key, value in typed.items() if key != "situation"}
    assert replay.disagreement("dnd.full-attack", full, {**old, "modifier": 2}) is None
    full["attacks"][1]["attack_terms"] = full["attacks"][1]["attack_terms"][:1]  # the second without its +2
    assert replay.disagreement("dnd.full-attack", full, typed) == (
        "option `situation` is '+2', but the roll was made with different values in different attacks ('+2', 'nothing')"
    )


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


@pytest.mark.parametrize(("kind", "value"), inputs(), ids=lambda v: getattr(v, "name", ""))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_typed_value_is_a_sentence_or_none_never_a_crash(
    kind: replay.Kind[Any, Any], value: Any, data: Any
) -> None:
    logged = json.loads(json.dumps(replay.encode(value)))
    # A kind with no typed options (the dying's d%: Next has none) still checks an empty set of them.
    options = data.draw(st.lists(st.sampled_from(sorted(kind.typed)), max_size=4, unique=True)) if kind.typed else []
    typed = {option: data.draw(JSON_VALUES) for option in options}
    found = replay.disagreement(kind.name, logged, typed)
    assert found is None or (isinstance(found, str) and found.startswith("option `"))


def test_inputs_logged_again_are_read_back_once_and_roll_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """A player's rolls repeat their inputs: the same logged text is decoded once, and rolls as it did."""
    decoded: list[Any] = []
    decode = replay.decode

    def counted(kind: Any, data: Any, where: str = "input") -> Any:
        if where == "input":
            decoded.append(kind)
        return decode(kind, data, where)

    monkeypatch.setattr(replay, "decode", counted)
    replay._read_back.cache_clear()
    kind, value = inputs()[1]  # a quick attack
    first = replay.roll(kind, value, FairDice(SEED, 1))
    again = replay.roll(kind, dataclasses.replace(value), FairDice(SEED, 1))  # equal inputs, another object
    assert decoded == [kind.inputs] and (again.inputs, again.outcome) == (first.inputs, first.outcome)
    other = dataclasses.replace(value, attack=dataclasses.replace(value.attack, threat=18))
    assert replay.roll(kind, other, FairDice(SEED, 1)).inputs["attack"]["threat"] == 18
    assert decoded == [kind.inputs, kind.inputs]
    for many in range(replay.KEPT_INPUTS + 5):  # at most KEPT_INPUTS are kept
        replay.roll(replay.DICE, replay.DiceRoll(f"1d20+{many}"), FairDice(SEED, 1))
    assert replay._read_back.cache_info().currsize == replay.KEPT_INPUTS
