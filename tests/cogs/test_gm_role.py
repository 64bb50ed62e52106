"""The server's game master role: its members see secrets as Manage Server does; only Manage Server names it."""

from __future__ import annotations

from bot.local.driver import LocalDiscord
from bot.local.payloads import GM_ROLE, MANAGER_PERMISSIONS
from tests.helpers import GM, name_gm_role, role_option, secret_ogre, text
from tests.helpers import MOD as MODERATOR

PLAYER = "200000000000000020"
GM_MEMBER = "200000000000000030"  # a member of the game master role, without Manage Server


async def test_a_member_of_the_gm_role_sees_a_secret_and_others_do_not(connected: LocalDiscord) -> None:
    local = connected  # the role is read from the guild cache, which a connected bot has, as on Discord
    ogre = await secret_ogre(local)
    game_master = local.as_user(PLAYER, roles=(GM_ROLE,))
    before = await local.command("character show", {"character": ogre}, actor=game_master)
    assert "15 / 30" not in text(before)  # the role means nothing until the server names it

    assert (await name_gm_role(local))["title"] == "Game master role saved"
    seen = await local.command("character show", {"character": ogre}, actor=game_master)
    assert "15 / 30" in text(seen) and seen.ephemeral  # a secret's numbers still never go to the channel
    odds = await local.command("dnd odds", {"attack_bonus": 4, "damage": "1d8", "target": ogre}, actor=game_master)
    assert odds.embed["title"] != "A secret", odds.embed

    member = await local.command("character show", {"character": ogre}, actor=local.as_user(PLAYER))
    assert "15 / 30" not in text(member)
    refused = await local.command("dnd odds", {"attack_bonus": 4, "damage": "1d8", "target": ogre})
    assert refused.embed["title"] == "No such character"  # its number names nothing (tests/crossings/test_leaks.py)
    refused = await local.command("dnd odds", {"attack_bonus": 4, "damage": "1d8", "target": "Ogre"})
    assert refused.embed["title"] == "A secret"


async def test_forgetting_the_role_closes_the_secrets_again(connected: LocalDiscord) -> None:
    local = connected  # the role is read from the guild cache, which a connected bot has, as on Discord
    ogre = await secret_ogre(local)
    await name_gm_role(local)
    moderator = local.as_user(MODERATOR, permissions=MANAGER_PERMISSIONS)
    cleared = await local.command("settings gm-role", {}, actor=moderator)
    assert "Only members with Manage Server" in cleared.embed["description"]
    seen = await local.command("character show", {"character": ogre}, actor=local.as_user(PLAYER, roles=(GM_ROLE,)))
    assert "15 / 30" not in text(seen)


async def test_only_manage_server_names_the_role_and_never_everyone(local: LocalDiscord) -> None:
    options, resolved = role_option(GM_ROLE)
    refused = await local.command("settings gm-role", options, resolved=resolved, actor=local.as_user(GM))
    assert refused.ephemeral and refused.embed["title"] == "Not allowed"
    everyone = await name_gm_role(local, local.actor.guild_id or "")
    assert everyone["title"] == "Not that role"


async def test_a_member_of_the_gm_role_changes_and_deletes_another_members_character(connected: LocalDiscord) -> None:
    """A game master is one in every check of who may change another's character, not only in who sees secrets."""
    local = connected
    await name_gm_role(local)
    player = local.as_user(PLAYER)
    created = await local.command("character create", {"ruleset": "dnd35", "name": "Aria"}, actor=player)
    aria = "#" + created.embed["footer"]["text"].split()[0].lstrip("#")
    stranger = await local.command("character hp", {"character": aria, "change": "-3"}, actor=local.as_user(GM))
    assert stranger.embed["title"] == "Not your character", stranger.embed
    game_master = local.as_user(GM_MEMBER, roles=(GM_ROLE,))
    hurt = await local.command("character hp", {"character": aria, "change": "-3"}, actor=game_master)
    assert hurt.embed.get("color") != 0xE74C3C and "7" in text(hurt), hurt.embed
    asked = await local.command("character delete", {"character": aria}, actor=game_master)
    assert asked.embed["title"] != "Not your character", asked.embed
