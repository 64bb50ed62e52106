"""A game master's secret Star Frontiers character: attacks on it keep its suits, screens and Stamina its owner's.

A player's shot or melee attack on it shows what the attacker's side of the table knows (the d100 against its
chance, the damage dice, a knock-out, whether a stun took or the hit did anything) in every message the player
can reach: the answer, Details and its pages, /history, Roll again, the Apply damage button and what it posts.
Its owner and Manage Server see the numbers, privately or in the GM channel. Each test failed on the main of
the day: the breakdown named the suit, the Stamina and what the damage came to after them.
"""

from __future__ import annotations

import json
import re
from typing import Any

from bot.local.driver import Exchange, LocalDiscord
from bot.local.payloads import MANAGER_PERMISSIONS, Actor
from tests.dice_sources import ScriptedDice
from tests.helpers import CAROL as PLAYER
from tests.helpers import GM, LASER, gm_post, secret_sathar, set_gm_channel

# Sathar wears an albedo suit and a skeinsuit and has 37 of 50 Stamina: none of it may reach a player. A laser's
# 19 points (10 + 9) come to 9 after the suit: that 9 would tell the suit too.
SECRETS = (
    r"albedo",
    r"skeinsuit",
    r"\b37\b",
    r"\b50\b",
    r"halves",
    r"Defense \d",
    r"stops the",
    r"(?<![0-9])9 damage",
    r"\*\*9\*\*",
    r"Stamina \d",
    r"expected damage",
    r"knock-out \*\*",
)


def seen(exchange: Exchange | dict[str, Any]) -> str:
    """Everything the bot sent in an exchange (every message, the initial response) or one message, as text."""
    if isinstance(exchange, dict):
        return json.dumps(exchange, ensure_ascii=False)
    bodies = [*exchange.messages, exchange.response.get("data") or {}]
    return json.dumps(bodies, ensure_ascii=False)


def leaks(text: str) -> list[str]:
    """The secret's numbers a text gives away: the patterns it matches."""
    # Ids and timestamps are digits too: only what a reader sees counts, so the numbers of ids are dropped.
    shown = re.sub(r"\d{12,}", "<id>", text)
    return [pattern for pattern in SECRETS if re.search(pattern, shown)]


def buttons(message: dict[str, Any]) -> dict[str, str]:
    return {c["label"]: c["custom_id"] for row in message.get("components", []) for c in row["components"]}


async def press(local: LocalDiscord, roll: Exchange, custom_id: str, *, actor: str | Actor) -> Exchange:
    """Press a button of `roll`'s message by its custom id, whichever buttons it shows now (a client may)."""
    button = {"type": 2, "style": 2, "label": "Press", "custom_id": custom_id}
    message = {**local.original(roll), "components": [{"type": 1, "components": [button]}]}
    return await local.click(message, custom_id, actor=local.as_user(actor) if isinstance(actor, str) else actor)


async def every_page(local: LocalDiscord, shot: Exchange, *, actor: str) -> list[Exchange]:
    """Every page of a roll's breakdown as `actor` gets it, pressed as a client may press it: by its custom id."""
    pages: list[Exchange] = []
    for number in range(1, 10):
        page = await press(local, shot, f"page:{shot.payload['id']}:{number}", actor=actor)
        pages.append(page)
        if f"· {number}/{number}" in page.messages[-1]["embeds"][0].get("title", ""):
            return pages
    raise AssertionError("a breakdown of more than nine pages")


async def test_a_players_shot_on_a_secret_shows_the_damage_rolled_not_its_defenses(local: LocalDiscord) -> None:
    await secret_sathar(local)
    await set_gm_channel(local)
    local.bot.dice = ScriptedDice([31, 10, 9])  # 31 hits a chance of 70; 2d10 → 19, halved to 9 by the suit
    shot = await local.command("sf shoot", LASER)
    assert shot.embed["description"] == (
        "**Hit**: 31 is at or under 70\n"
        "Damage 2d10 (10, 9) = 19 (quick-mode weapon)\n"
        "Defense: the GM's secret (the target's suits and screens decide what it takes)\n"
        "Odds: hit 70.0% · the rest is the GM's secret (it follows from the target's suits and Stamina)"
    )
    assert leaks(seen(shot)) == []
    message = local.original(shot)
    assert list(buttons(message)) == ["Roll again", "Details", "Apply the damage to Sathar"]

    # Details: the roller switches the public message, anyone else peeks privately; every page keeps it.
    details_id = buttons(message)["Details"]
    stranger = await local.click(message, details_id, actor=local.as_user(PLAYER))
    assert stranger.ephemeral
    details = await local.click(message, details_id)
    assert details.response["type"] == 7
    pages = [stranger, details]
    for actor in (PLAYER, local.actor.user_id):
        pages += await every_page(local, shot, actor=actor)
    assert len(pages) >= 6  # two pages each
    for page in pages:
        assert leaks(seen(page)) == [], seen(page)
    assert any(
        {"name": "Target", "value": "Sathar: its suits, screens and Stamina are the GM's secret", "inline": False}
        in page.messages[-1]["embeds"][0]["fields"]
        for page in pages
    )

    history = await local.command("history", actor=local.as_user(PLAYER))
    assert "Hit: 19 damage before its defenses" in seen(history) and leaks(seen(history)) == []

    # Its owner sees the numbers: in the GM channel, and privately under the public answer.
    posted = seen(gm_post(local).body)
    assert "Defense 19 → **9**†: albedo suit halves laser damage" in posted
    assert "Sathar: albedo suit, skeinsuit; current Stamina 37" in posted
    peek = await press(local, shot, f"details:{shot.payload['id']}:full", actor=GM)
    assert peek.ephemeral and "albedo suit halves" in seen(peek)
    assert any("current Stamina 37" in seen(page) for page in await every_page(local, shot, actor=GM))
    moderator = local.as_user("200000000000000011", permissions=MANAGER_PERMISSIONS)
    manager = await press(local, shot, details_id, actor=moderator)
    assert manager.ephemeral and "albedo suit halves" in seen(manager)

    # Roll again is a new roll on the same path: it keeps the secret too.
    local.bot.dice = ScriptedDice([12, 4, 4])
    again = await local.click(local.original(shot), f"again:{shot.payload['id']}")
    assert "Damage 2d10 (4, 4) = 8" in again.embed["description"] and leaks(seen(again)) == []


async def test_applying_a_secrets_damage_tells_the_channel_a_health_word(local: LocalDiscord) -> None:
    sathar = await secret_sathar(local)
    local.bot.dice = ScriptedDice([31, 10, 9])
    shot = await local.command("sf shoot", LASER)
    message = local.original(shot)
    hurt = buttons(message)["Apply the damage to Sathar"]
    applied = await local.click(message, hurt, actor=local.as_user(GM))
    public, private = applied.messages[-2:]
    assert public["content"] == f"**Sathar** takes the hit: wounded (applied by <@{GM}>)."
    assert not public.get("flags", 0) & 64 and leaks(seen(public)) == []
    assert private["flags"] & 64 and private["content"].startswith("**Sathar**: 37 → **28** stamina of 50 (9 damage")
    assert f"/character hp character:{sathar} change:+9" in private["content"]

    # 1 point of laser the suit halves to nothing: the button still shows, or its absence would tell the suit.
    local.bot.dice = ScriptedDice([31, 1])
    graze = await local.command("sf shoot", {**LASER, "damage": "1d10 laser"})
    assert "Apply the damage to Sathar" in buttons(local.original(graze)) and leaks(seen(graze)) == []
    nothing = await local.click(local.original(graze), f"hurt:{graze.payload['id']}", actor=local.as_user(GM))
    public, private = nothing.messages[-2:]
    assert public["content"] == f"**Sathar** takes the hit: wounded (applied by <@{GM}>)."
    assert private["content"].startswith("**Sathar**: 28 → **28** stamina of 50 (0 damage")


async def test_a_stopped_hit_and_a_stun_on_a_secret_say_only_what_the_table_sees(local: LocalDiscord) -> None:
    await secret_sathar(local)
    local.bot.dice = ScriptedDice([31])  # needles hit, and the skeinsuit stops them
    needles = await local.command("sf shoot", {**LASER, "damage": "2d10 needle"})
    assert needles.embed["description"].startswith(
        "**Hit, no effect**: 31 is at or under 70; what stopped it is the GM's secret\n"
    )
    assert leaks(seen(needles)) == []
    details = await local.click(local.original(needles), buttons(local.original(needles))["Details"])
    assert leaks(seen(details)) == []
    history = await local.command("history")
    assert "Hit, no effect" in seen(history) and leaks(seen(history)) == []

    # A stun: the target's d100 (90) over its Stamina (37) puts it out for 12 turns; neither number is said.
    local.bot.dice = ScriptedDice([31, 3, 90, 12])
    stun = {"target": "Sathar", "score": 60, "skill": 2, "damage": "1d4", "setting": "stun"}
    stunned = await local.command("sf melee", stun)
    description = stunned.embed["description"]
    assert "**Stunned for 12 turns**: its d100 against its Stamina is the GM's secret" in description
    assert "90" not in description and leaks(seen(stunned)) == []
    local.bot.dice = ScriptedDice([31, 3, 20])  # 20 is at or under 37: avoided
    avoided = await local.command("sf melee", stun)
    assert "**Stun avoided**: why is the GM's secret (its Stamina, or what it wears)" in avoided.embed["description"]
    assert leaks(seen(avoided)) == []


async def test_the_odds_against_a_secret_are_its_owners(local: LocalDiscord) -> None:
    await secret_sathar(local)
    melee = {"target": "Sathar", "score": 60, "skill": 2, "damage": "1d10"}
    for command, options in (("sf odds shoot", LASER), ("sf odds melee", melee)):
        refused = await local.command(command, options)
        assert refused.ephemeral and refused.embed["title"] == "A secret", refused.embed
        assert leaks(seen(refused)) == []
        # Its owner and Manage Server may, privately.
        for actor in (local.as_user(GM), local.as_user("200000000000000011", permissions=MANAGER_PERMISSIONS)):
            odds = await local.command(command, options, actor=actor)
            assert odds.ephemeral and "Sathar: albedo suit, skeinsuit; current Stamina 37" in seen(odds)


async def test_a_target_that_is_no_secret_still_shows_its_defenses(local: LocalDiscord) -> None:
    sathar = await secret_sathar(local)
    await local.command("character secret", {"character": sathar, "secret": False}, actor=local.as_user(GM))
    local.bot.dice = ScriptedDice([31, 10, 9])
    shot = await local.command("sf shoot", LASER)
    assert "Defense 19 → **9**: albedo suit halves laser damage" in shot.embed["description"]
    assert "Apply 9 damage to Sathar" in buttons(local.original(shot))
    odds = await local.command("sf odds shoot", LASER)
    assert not odds.ephemeral and "current Stamina 37" in seen(odds)


async def test_a_secret_fighting_here_keeps_its_suits_in_the_answer(local: LocalDiscord) -> None:
    sathar = await secret_sathar(local)
    gm = local.as_user(GM, permissions=MANAGER_PERMISSIONS)
    started = await local.command("encounter start", {"ruleset": "sf", "name": "Port Loren"}, actor=gm)
    assert started.rejected == [] and started.embed["color"] != 0xE74C3C, started.embed
    added = await local.command("encounter add", {"character": sathar}, actor=gm)
    assert added.embed["color"] != 0xE74C3C, added.embed
    local.bot.dice = ScriptedDice([31, 10, 9])
    shot = await local.command("sf shoot", LASER)
    assert "Defense: the GM's secret" in shot.embed["description"]
    # A secret is hidden in the fight too: the fight's own note says a word.
    assert shot.messages[-1]["embeds"][0]["description"] == "Sathar: hurt" and leaks(seen(shot)) == []
    refused = await local.command("sf odds shoot", LASER)
    assert refused.embed["title"] == "A secret" and leaks(seen(refused)) == []
