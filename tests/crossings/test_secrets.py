"""A game master's secret characters: its numbers reach its owner, Manage Server and the GM channel only.

Everyone else finds no such character (not even its name: tests/crossings/test_leaks.py) and sees "vs AC ?" in attacks
against it, and cannot roll with it, ask its AC or the odds against it, nor read its numbers through
autocomplete, Details or an error message.
"""

from __future__ import annotations

import json

from bot.local.driver import LocalDiscord
from bot.local.payloads import MANAGER_PERMISSIONS
from tests.dice_sources import ScriptedDice
from tests.helpers import GM, buttons, gm_post, resolved, secret_ogre, set_gm_channel, text, user_option

# AC 15 (natural armor 5, Dex 10), 15 of 30 hit points, DR 5/magic: none of it may reach a player.
SECRET_NUMBERS = ("15 / 30", "AC 15", "5/magic", "5 natural", "45.0%")


async def test_a_player_finds_no_secret_and_the_owner_the_numbers(local: LocalDiscord) -> None:
    ogre = await secret_ogre(local)
    # A secret is not even named to a player (tests/crossings/test_leaks.py): for them there is no such character.
    options = [{"name": "character", "type": 3, "value": "Ogre"}, *user_option(GM)]
    seen = await local.command("character show", options, resolved=resolved(GM))
    assert seen.ephemeral and seen.embed["title"] == "No such character"
    assert not any(secret in text(seen) for secret in SECRET_NUMBERS)
    private = await local.command("character show", {"character": ogre, "private": True})
    assert private.ephemeral and private.embed["description"] == f"There is no character {ogre} in this server."

    own = await local.command("character show", {"character": ogre}, actor=local.as_user(GM))
    assert own.ephemeral  # a secret's numbers never go to the channel, even when its owner asks
    assert "15 / 30" in text(own) and "secret: only its owner sees" in own.embed["description"]
    moderator = local.as_user("200000000000000011", permissions=MANAGER_PERMISSIONS)
    assert "15 / 30" in text(await local.command("character show", {"character": ogre}, actor=moderator))

    listed = await local.command("character list", user_option(GM), resolved=resolved(GM), actor=moderator)
    assert "Ogre (#" in text(listed) and "· secret" in text(listed)


async def test_an_attack_against_a_secret_says_ac_question_mark(local: LocalDiscord) -> None:
    await secret_ogre(local)
    await set_gm_channel(local)
    local.bot.dice = ScriptedDice([14, 6])
    attack = await local.command("dnd attack", {"attack_bonus": 3, "damage": "1d8+2", "target": "Ogre"})
    assert attack.embed["description"] == (
        "**Hit**: **3** damage\nd20 **14** +3 = **17** vs Ogre's AC ?\n"
        "Odds: the GM's secret (they follow from the target's AC)"
    )
    message = local.original(attack)
    details_id = buttons(message)["Details"]
    # Its owner sees the numbers: in the GM channel, and privately under the public answer.
    posted = gm_post(local).body["embeds"][0]
    assert "vs AC 15 → hit" in text(posted) and "DR 5/magic: -5" in text(posted)
    assert posted["author"]["name"].startswith("Against a secret, by Player0001")
    peek = await local.click(message, details_id, actor=local.as_user(GM))
    assert peek.ephemeral and "vs AC 15 → hit" in text(peek) and "AC 15 = 10 + 5 natural" in text(peek)
    stranger = await local.click(message, details_id, actor=local.as_user("200000000000000012"))
    assert stranger.ephemeral and "vs AC ? → hit" in text(stranger)
    assert not any(secret in text(stranger) for secret in SECRET_NUMBERS)
    # The roller switches the public message: it keeps the secret too.
    details = await local.click(message, details_id)
    shown = text(details)
    assert "vs AC ? → hit" in shown and "the target's damage reduction: -5" in shown
    assert not any(secret in shown for secret in SECRET_NUMBERS)


async def test_a_full_attack_against_a_secret_keeps_it(local: LocalDiscord) -> None:
    await secret_ogre(local)
    created = await local.command("character create", {"ruleset": "dnd35", "name": "Lira"})
    assert created.rejected == []
    await local.command("character set", {"character": "Lira", "values": "bab=6 str=14"})
    await local.command("character weapon add", {"character": "Lira", "name": "Longsword"})
    local.bot.dice = ScriptedDice([14, 6, 3, 5])
    full = await local.command("dnd full-attack", {"target": "Ogre"})
    assert "vs Ogre's AC ?" in full.embed["description"] and "AC 15" not in text(full)
    assert full.embed["description"].endswith("Odds: the GM's secret (they follow from the target's AC)")


async def test_a_player_cannot_reach_the_numbers_another_way(local: LocalDiscord) -> None:
    ogre = await secret_ogre(local)
    refused = [
        await local.command("dnd ac", {"character": ogre}),
        await local.command("dnd odds", {"target": "Ogre", "attack_bonus": 3, "damage": "1d8"}),
        await local.command("dnd attack", {"character": ogre, "target_ac": 10}),
        await local.command("character set", {"character": ogre, "field": "hp", "value": "1"}),
        await local.command("character hp", {"character": ogre, "change": "-1"}),
        await local.command("character edit", {"character": ogre}),
    ]
    for answer in refused:
        assert answer.ephemeral and answer.embed["color"] == 0xE74C3C, answer.response
        assert not any(secret in text(answer) for secret in SECRET_NUMBERS), text(answer)
    # Its number names nothing (tests/crossings/test_leaks.py); the odds against it, typed by name, say why not.
    assert refused[0].embed["description"] == f"There is no character {ogre} in this server."
    assert "secret" in refused[1].embed["description"]
    weapons = await local.autocomplete("dnd attack", {"character": ogre, "weapon": "club"}, "weapon")
    assert weapons.choices == [  # the SRD table's, not the ogre's own
        {"name": "Club", "value": "Club"},
        {"name": "Greatclub", "value": "Greatclub"},
    ]
    exported = await local.command("character export")
    assert b"Ogre" not in b"".join(exported.files.values())
    # Its owner may: the AC privately, the odds privately.
    gm = local.as_user(GM)
    ac = await local.command("dnd ac", {"character": ogre}, actor=gm)
    assert ac.ephemeral and "AC: 15" in text(ac)
    odds = await local.command("dnd odds", {"target": "Ogre", "attack_bonus": 3, "damage": "1d8"}, actor=gm)
    assert odds.ephemeral and "vs AC 15" in text(odds)


async def test_secret_false_shows_it_again(local: LocalDiscord) -> None:
    ogre = await secret_ogre(local)
    gm = local.as_user(GM)
    shown = await local.command("character secret", {"character": ogre, "secret": False}, actor=gm)
    assert "shown to everyone again" in shown.embed["description"]
    assert "15 / 30" in text(await local.command("character show", {"character": ogre}))


async def test_its_owner_rolling_against_it_switches_the_public_message_and_peeks_privately(
    local: LocalDiscord,
) -> None:
    ogre = await secret_ogre(local)
    gm = local.as_user(GM)
    await local.command("answers", {"start": "full"}, actor=gm)
    local.bot.dice = ScriptedDice([14, 6])
    attack = await local.command("dnd attack", {"attack_bonus": 3, "damage": "1d8+2", "target": ogre}, actor=gm)
    assert "vs AC ? → hit" in text(attack)  # public: the table reads it too
    message = local.original(attack)
    less, details_id = buttons(message)["Less"], buttons(message)["Less"].replace(":short", ":full")
    switched = await local.click(message, less, actor=gm)
    assert switched.response["type"] == 7 and "vs Ogre's AC ?" in text(switched)
    peek = await local.click(local.original(attack), details_id, actor=gm)
    assert peek.ephemeral and "vs AC 15 → hit" in text(peek)
    assert "AC 15" not in text(local.original(attack))


async def test_a_hidden_attack_against_a_secret_shows_the_gm_channel_its_numbers(local: LocalDiscord) -> None:
    await secret_ogre(local)
    await set_gm_channel(local)
    local.bot.dice = ScriptedDice([14, 6])
    options = {"attack_bonus": 3, "damage": "1d8+2", "target": "Ogre", "hidden": True}
    notice = await local.command("dnd attack", options)
    assert "AC" not in text(notice) and "made a hidden roll" in text(notice)
    posted = gm_post(local).body["embeds"][0]
    assert "vs AC 15 → hit" in text(posted) and posted["author"]["name"].startswith("Hidden roll by Player0001")


async def test_a_secret_fighting_here_keeps_its_ac_and_hit_points_from_players(local: LocalDiscord) -> None:
    ogre = await secret_ogre(local)
    gm = local.as_user(GM, permissions=MANAGER_PERMISSIONS)
    started = await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}, actor=gm)
    assert started.rejected == [], started.requests
    added = await local.command("encounter add", {"character": ogre}, actor=gm)
    assert added.embed["description"] == "Ogre joined the fight.", added.embed
    local.bot.dice = ScriptedDice([14, 6])  # 14 + 5 = 19 against its flat-footed AC 15: a hit, 1d8 6
    attack = await local.command("dnd attack", {"target": "Ogre", "attack_bonus": 5, "damage": "1d8"})
    assert "vs Ogre's flat-footed AC ?" in text(attack), text(attack)
    seen = json.dumps(attack.messages, ensure_ascii=False)
    assert not any(secret in seen for secret in ("AC 15", "15/30", "15 → 9")), seen
    assert attack.messages[-1]["embeds"][0]["description"] == "Ogre: badly hurt"
    refused = await local.command("dnd odds", {"target": "Ogre", "attack_bonus": 5, "damage": "1d8"})
    assert refused.embed["title"] == "A secret", refused.embed
