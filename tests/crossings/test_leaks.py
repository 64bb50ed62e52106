"""Secrets where features meet (issue #25, item 5): statistics, lists, odds, autocomplete and /history.

Each output asks the one audience policy (`bot.rules.audience`), so that a member who is neither a secret's owner
nor a game master learns nothing of a game master's secret character, not even its name, nor the hit points of a
combatant whose fight hides them. Each test names the finding it guards; each failed on the main of the day.
"""

from __future__ import annotations

import itertools
import re

from bot.db.characters import CharacterRepository
from bot.db.codec import encode
from bot.db.rolls import encode_luck, luck_tallies
from bot.local.driver import Exchange, LocalDiscord
from bot.local.payloads import GM_ROLE, MANAGER_PERMISSIONS
from bot.rules.audience import ANYONE, Viewer
from bot.rules.luck import Tally
from tests.dice_sources import ScriptedDice
from tests.helpers import CAROL as PLAYER
from tests.helpers import GM, buttons, name_gm_role, resolved, secret_ogre, text, user_option
from tests.helpers import MOD as MODERATOR

AT_OGRE = {"attack_bonus": 3, "damage": "1d8+2", "target": "Ogre"}
NO_ROLLS = "No rolls with odds yet"


async def attack_the_ogre(local: LocalDiscord, times: int = 3) -> None:
    """The default member's public attacks on the game master's secret ogre (AC 15): hits at +3 need 12."""
    local.bot.dice = ScriptedDice([14, 6] * times)
    for _ in range(times):
        attack = await local.command("dnd attack", AT_OGRE)
        assert "vs Ogre's AC ?" in attack.embed["description"], attack.embed


# -- /stats --------------------------------------------------------------------------------------------------


async def test_stats_in_the_channel_leave_out_rolls_against_a_secret(local: LocalDiscord) -> None:
    """Finding: /stats gave away a secret's AC (expected hits 0.45 at +3 is AC 15) to anyone, publicly."""
    await secret_ogre(local)
    await attack_the_ogre(local)
    for actor in (local.actor, local.as_user(PLAYER), local.as_user(GM)):
        for options in ({}, {"ruleset": "dnd35"}):
            report = await local.command("stats", options, actor=actor)
            assert NO_ROLLS in report.embed["description"], report.embed
            assert "1.35" not in text(report) and "0.45" not in text(report)
    # Nor in a private report about the roller, who may not see the ogre's numbers either.
    mine = await local.command(
        "stats",
        [*user_option(local.actor.user_id), {"name": "private", "type": 5, "value": True}],
        resolved=resolved(local.actor.user_id),
    )
    assert NO_ROLLS in mine.embed["description"], mine.embed


async def test_stats_count_rolls_against_a_secret_privately_for_its_owner_and_the_game_masters(
    local: LocalDiscord,
) -> None:
    """Finding: /stats and secrets. Who may see the secret's numbers still gets the whole count, privately."""
    await secret_ogre(local)
    await attack_the_ogre(local)
    for actor in (local.as_user(GM), local.as_user(MODERATOR, permissions=MANAGER_PERMISSIONS)):
        report = await local.command("stats", {"private": True}, actor=actor)
        assert report.ephemeral and "over 3 rolls" in report.embed["description"], report.embed
        table = report.embed["description"].split("```")[1]
        assert "Hits                   3      1.35" in table  # 3 x 45%: what a game master may know


async def test_stats_of_a_secret_character_find_no_such_character(local: LocalDiscord) -> None:
    """Finding: /stats character:#N named a secret character (its title "Luck of Ogre") to anyone."""
    ogre = await secret_ogre(local)
    report = await local.command("stats", {"character": ogre}, actor=local.as_user(PLAYER))
    assert report.embed["title"] == "No such character" and "Ogre" not in text(report)
    # Its owner is told to ask privately: a public report would name it to the channel.
    owners = await local.command("stats", {"character": ogre}, actor=local.as_user(GM))
    assert owners.ephemeral and owners.embed["title"] == "A secret", owners.embed
    private = await local.command("stats", {"character": ogre, "private": True}, actor=local.as_user(GM))
    assert private.embed["title"] == "Luck of Ogre", private.embed


def test_a_tally_against_a_secret_is_read_only_by_who_may_see_it() -> None:
    """Finding: /stats and secrets, in the store: the tally carries whose secret it was against."""
    owner, other = 11, 22
    plain = {"hits": Tally(1.0, 0.5, 0.25)}
    against = {"hits": Tally(1.0, 0.45, 0.2475)}
    stored = [encode(encode_luck(plain)), encode(encode_luck(against, secret_of=owner))]
    assert luck_tallies(stored) == [plain]  # the channel: the default reader
    assert luck_tallies(stored, ANYONE) == [plain]
    assert luck_tallies(stored, Viewer(other)) == [plain]
    assert luck_tallies(stored, Viewer(owner)) == [plain, against]
    assert luck_tallies(stored, Viewer(other, game_master=True)) == [plain, against]


# -- odds ----------------------------------------------------------------------------------------------------


async def hidden_goblin(local: LocalDiscord) -> None:
    """A Star Frontiers fight whose quick creatures' hit points are hidden, with a goblin of 37 Stamina."""
    gm = local.as_user(GM, permissions=MANAGER_PERMISSIONS)
    started = await local.command("encounter start", {"ruleset": "sf", "name": "Port Loren", "hide_hp": True}, actor=gm)
    assert started.rejected == [] and started.embed["color"] != 0xE74C3C, started.embed
    added = await local.command("encounter add", {"name": "Goblin", "hp": 37, "rs": 40}, actor=gm)
    assert added.embed["color"] != 0xE74C3C, added.embed


async def test_sf_odds_against_a_hidden_hit_points_combatant_keep_its_stamina(local: LocalDiscord) -> None:
    """Finding: /sf odds target: a hide_hp combatant printed its current Stamina (and a stun's chance from it)."""
    await hidden_goblin(local)
    shot = {"target": "Goblin", "score": 60, "skill": 2, "damage": "2d10 laser", "distance": "short"}
    stun = {"target": "Goblin", "score": 60, "skill": 2, "damage": "1d4", "setting": "stun"}
    for command, options in (("sf odds shoot", shot), ("sf odds melee", stun)):
        odds = await local.command(command, options, actor=local.as_user(PLAYER))
        shown = text(odds)
        assert odds.embed["title"].startswith("Odds"), odds.embed
        assert "37" not in shown and "stunned **" not in shown, odds.embed
        assert "its Stamina is the game master's" in shown
        # The fight's game master sees it, privately: the channel may not.
        gms = await local.command(command, options, actor=local.as_user(GM, permissions=MANAGER_PERMISSIONS))
        assert gms.ephemeral and "current Stamina 37" in text(gms), gms.embed
    melee = await local.command("sf odds melee", stun, actor=local.as_user(GM, permissions=MANAGER_PERMISSIONS))
    assert "stunned **" in text(melee)  # 63% of stuns take: the d100 over 37


async def test_sf_attack_on_a_hidden_hit_points_combatant_keeps_its_stamina(local: LocalDiscord) -> None:
    """Finding (where odds meet the answer): a stun on a hide_hp combatant said "over its Stamina 37" to all."""
    await hidden_goblin(local)
    stun = {"target": "Goblin", "score": 60, "skill": 2, "damage": "1d4", "setting": "stun"}
    local.bot.dice = ScriptedDice([31, 3, 90, 12, 31, 3, 20])  # stunned (90 over 37), then avoided (20)
    for said in ("Stunned for 12 turns", "Stun avoided"):
        melee = await local.command("sf melee", stun, actor=local.as_user(PLAYER))
        assert f"**{said}**: its d100 against its Stamina is the GM's" in melee.embed["description"], melee.embed
        details = await local.click(local.original(melee), buttons(local.original(melee))["Details"])
        for shown in (melee, details):
            assert "37" not in unsnowflaked(shown) and "stunned 6" not in text(shown), text(shown)
    history = await local.command("history", {}, actor=local.as_user(PLAYER))
    assert "stunned 12 turns" in text(history) and "37" not in unsnowflaked(history)


def unsnowflaked(exchange: Exchange) -> str:
    """What a message shows, without the ids in it (an interaction id may hold any two digits)."""
    return re.sub(r"[0-9]{17,20}", "<id>", text(exchange))


# -- /character list, show and autocomplete ------------------------------------------------------------------


async def test_character_list_leaves_out_a_game_masters_secrets(local: LocalDiscord) -> None:
    """Finding: /character list user: named the game master's secret monsters to anyone."""
    await secret_ogre(local)
    listed = await local.command("character list", user_option(GM), resolved=resolved(GM))
    assert "Ogre" not in text(listed) and "secret" not in text(listed)
    own = await local.command("character list", {}, actor=local.as_user(GM))
    assert "Ogre (#" in text(own) and "· secret" in text(own)
    moderator = local.as_user(MODERATOR, permissions=MANAGER_PERMISSIONS)
    theirs = await local.command("character list", user_option(GM), resolved=resolved(GM), actor=moderator)
    assert "Ogre (#" in text(theirs)


async def test_character_show_of_a_secret_is_no_such_character(local: LocalDiscord) -> None:
    """Finding: /character show #N gave a secret character's name (and health) to anyone who tried numbers."""
    ogre = await secret_ogre(local)
    by_number = await local.command("character show", {"character": ogre}, actor=local.as_user(PLAYER))
    assert by_number.embed["description"] == f"There is no character {ogre} in this server."
    by_name = await local.command(
        "character show", [{"name": "character", "type": 3, "value": "Ogre"}, *user_option(GM)], resolved=resolved(GM)
    )
    assert by_name.embed["title"] == "No such character", by_name.embed
    unnamed = await local.command("character show", user_option(GM), resolved=resolved(GM))
    assert "Ogre" not in text(unnamed)
    own = await local.command("character show", {"character": ogre}, actor=local.as_user(GM))
    assert own.ephemeral and own.embed["title"].startswith("Ogre")
    # A forged page button names nothing either.
    [page] = [c["custom_id"] for row in own.messages[0]["components"] for c in row["components"]]
    forged = await local.click(local.original(own), page, actor=local.as_user(PLAYER))
    assert forged.embed["description"] == "This character was deleted." and "Ogre" not in text(forged)


async def test_autocomplete_offers_a_secret_only_to_who_may_see_it(local: LocalDiscord) -> None:
    """Finding: autocomplete of characters offered a game master's secret characters by name to anyone."""
    await secret_ogre(local)
    for command, options, focused in (
        ("stats", {"character": "og"}, "character"),
        ("history", {"character": "og"}, "character"),
        ("dnd attack", {"target": "og"}, "target"),
    ):
        offered = await local.autocomplete(command, options, focused, actor=local.as_user(PLAYER))
        assert [c["name"] for c in offered.choices if "Ogre" in c["name"]] == [], (command, offered.choices)
        seen = await local.autocomplete(command, options, focused, actor=local.as_user(GM))
        assert any("Ogre" in c["name"] for c in seen.choices), (command, seen.choices)


async def test_the_secret_filter_of_the_store_agrees_with_the_policy(local: LocalDiscord) -> None:
    """Finding: autocomplete and lists: the store's filter is the audience policy in SQL, for every viewer."""
    owners = {GM: local.as_user(GM), PLAYER: local.as_user(PLAYER)}
    for (user, actor), secret in itertools.product(owners.items(), (False, True)):
        name = f"{'Hidden' if secret else 'Open'}{user[-2:]}"
        created = await local.command("character create", {"ruleset": "dnd35", "name": name}, actor=actor)
        assert created.rejected == [], created.requests
        if secret:
            await local.command("character secret", {"character": name}, actor=actor)
    guild_id = int(local.actor.guild_id or 0)
    async with local.bot.database.read() as session:
        repository = CharacterRepository(session)
        everyone = await repository.summaries(guild_id=guild_id, owner_id=None)
        assert len(everyone) == 4 and sum(s.secret for s in everyone) == 2
        for viewer in (ANYONE, Viewer(int(GM)), Viewer(int(PLAYER)), Viewer(1), Viewer(1, game_master=True)):
            shown = await repository.summaries(guild_id=guild_id, owner_id=None, shown_to=viewer)
            assert shown == [s for s in everyone if s.may_see(viewer)], viewer


# -- /history ------------------------------------------------------------------------------------------------


async def test_history_of_a_secret_character_finds_no_such_character(local: LocalDiscord) -> None:
    """Finding: /history character:#N named a secret character ("Latest rolls with Ogre") to anyone."""
    ogre = await secret_ogre(local)
    await attack_the_ogre(local, times=1)
    refused = await local.command("history", {"character": ogre}, actor=local.as_user(PLAYER))
    assert refused.embed["title"] == "No such character" and "Ogre" not in text(refused)
    # The lines of rolls against it carry what the channel saw, none of its numbers.
    history = await local.command("history", {}, actor=local.as_user(PLAYER))
    assert "Hit: 3 damage" in text(history), history.embed
    assert "AC 15" not in text(history) and "5/magic" not in text(history)
    own = await local.command("history", {"character": ogre}, actor=local.as_user(GM))
    assert own.embed["title"] == "Latest rolls with Ogre", own.embed


# -- other outputs that bypassed the policy ------------------------------------------------------------------


async def test_rolling_with_or_changing_a_secret_by_number_names_nothing(local: LocalDiscord) -> None:
    """Finding: a roll with, at, or a change to a secret's #number named it ("**Ogre** is <@GM>'s secret")."""
    ogre = await secret_ogre(local)
    player = local.as_user(PLAYER)
    for command, options in (
        ("dnd attack", {"character": ogre, "target_ac": 10}),
        ("dnd ac", {"character": ogre}),
        ("character hp", {"character": ogre, "change": "-1"}),
        ("character use", {"character": ogre}),
        ("character edit", {"character": ogre}),
        ("character delete", {"character": ogre}),
        ("dnd attack", {"attack_bonus": 3, "damage": "1d8", "target": ogre}),
        ("dnd odds", {"attack_bonus": 3, "damage": "1d8", "target": ogre}),
    ):
        refused = await local.command(command, options, actor=player)
        assert refused.ephemeral and refused.embed["description"] == f"There is no character {ogre} in this server."
        assert "Ogre" not in text(refused), (command, refused.embed)
    # Someone else's character that is no secret is still named: "not yours" is no secret.
    lira = await local.command("character create", {"ruleset": "dnd35", "name": "Lira"})
    mine = "#" + lira.embed["footer"]["text"].split()[0].lstrip("#")
    theirs = await local.command("character hp", {"character": mine, "change": "-1"}, actor=player)
    assert theirs.embed["title"] == "Not your character" and "Lira" in theirs.embed["description"]


async def test_the_game_master_role_sees_a_secrets_numbers_behind_details(connected: LocalDiscord) -> None:
    """Finding: Details checked "owner or Manage Server" itself, so the game master role saw "AC ?" there."""
    local = connected  # the role is read from the guild cache, which a connected bot has, as on Discord
    await secret_ogre(local)
    await name_gm_role(local)
    local.bot.dice = ScriptedDice([14, 6])
    attack = await local.command("dnd attack", AT_OGRE)
    message = local.original(attack)
    details = buttons(message)["Details"]
    game_master = await local.click(message, details, actor=local.as_user(PLAYER, roles=(GM_ROLE,)))
    assert game_master.ephemeral and "vs AC 15 → hit" in text(game_master), game_master.embed
    member = await local.click(message, details, actor=local.as_user(PLAYER))
    assert "AC 15" not in text(member) and "vs AC ? → hit" in text(member)
