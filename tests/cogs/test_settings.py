"""/settings: anyone may look, only Manage Server may change, and rolls follow the server's choice."""

from __future__ import annotations

from bot.local.driver import Exchange, LocalDiscord
from bot.local.limits import sync_payload
from bot.local.payloads import MANAGER_PERMISSIONS, Actor
from bot.rules.settings import SETTINGS
from tests.dice_sources import ScriptedDice
from tests.helpers import MOD, pages


async def shown_fields(local: LocalDiscord, exchange: Exchange) -> list[dict[str, str]]:
    """The fields of every page of /house-rules."""
    return [f for page in await pages(local, exchange) for f in page["fields"]]


async def ring_field(local: LocalDiscord, exchange: Exchange) -> dict[str, str]:
    [field] = [f for f in await shown_fields(local, exchange) if f["value"].startswith("`aliensrl.ring`")]
    return field


async def test_show_lists_every_setting_with_its_default(local: LocalDiscord) -> None:
    shown = await shown_fields(local, await local.command("house-rules"))  # pages it: read once
    assert [f["name"] for f in shown] == [spec.title for spec in SETTINGS.values()]
    [field] = [f for f in shown if f["value"].startswith("`aliensrl.ring`")]
    assert field["value"].startswith("`aliensrl.ring` = **chebyshev** (default): the 16 squares")


async def test_only_manage_server_changes_a_setting(local: LocalDiscord) -> None:
    refused = await local.command("settings set", {"setting": "aliensrl.ring", "value": "angband"})
    assert refused.ephemeral and refused.embed["description"].endswith("needs the Manage Server permission.")
    moderator = local.as_user(MOD, permissions=MANAGER_PERMISSIONS)
    bad = await local.command("settings set", {"setting": "aliensrl.ring", "value": "hexes"}, actor=moderator)
    assert bad.embed["description"] == "`aliensrl.ring` takes chebyshev, angband, within-two; not `hexes`."
    unknown = await local.command("settings set", {"setting": "dice.colour", "value": "red"}, actor=moderator)
    assert unknown.embed["description"].startswith("There is no setting `dice.colour`.")
    saved = await local.command("settings set", {"setting": "aliensrl.ring", "value": "Angband"}, actor=moderator)
    assert saved.embed["description"] == "`aliensrl.ring` is now **angband**: the 12 squares at Angband distance 2."
    assert "= **angband**: the 12" in (await ring_field(local, await local.command("house-rules")))["value"]


async def test_aliens_strays_follow_the_server_ring(local: LocalDiscord) -> None:
    moderator = local.as_user(MOD, permissions=MANAGER_PERMISSIONS)
    await local.command("settings set", {"setting": "rolls.answers", "value": "full"}, actor=moderator)
    await local.command("settings set", {"setting": "aliensrl.ring", "value": "angband"}, actor=moderator)
    odds = await local.command("aliens odds", {"skill_rank": 0, "distance": 10})
    assert "strays to 12 squares" in odds.embed["fields"][2]["value"]
    local.bot.dice = ScriptedDice([99, 11])  # rating +4 strays; index 11 is the last of the 12 squares, (1, 2)
    shot = await local.command("aliens fire", {"skill_rank": 0, "dx": 10, "dy": 0})
    steps = shot.embed["fields"][2]["value"]
    assert "two tiles away (angband, this server's setting) → (11, 2)" in steps


async def test_the_targeted_square_reading_is_chosen_per_server(local: LocalDiscord) -> None:
    moderator = local.as_user(MOD, permissions=MANAGER_PERMISSIONS)
    saved = await local.command("settings set", {"setting": "aliensrl.targeted", "value": "aimed"}, actor=moderator)
    assert saved.embed["description"].startswith("`aliensrl.targeted` is now **aimed**: only the aimed square")
    async with local.bot.database.read() as session:
        chosen = await local.bot.server_settings(int(local.actor.guild_id or 0), session)
    assert chosen.variants("aliensrl").targeted.value == "aimed"


async def test_settings_are_per_server(local: LocalDiscord) -> None:
    moderator = local.as_user(MOD, permissions=MANAGER_PERMISSIONS)
    await local.command("settings set", {"setting": "aliensrl.ring", "value": "within-two"}, actor=moderator)
    elsewhere = Actor(user_id=MOD, guild_id="400000000000000001", channel_id="400000000000000002")
    shown = await local.command("house-rules", actor=elsewhere)
    [field] = [
        f
        for page in await pages(local, shown, actor=elsewhere)
        for f in page["fields"]
        if f["value"].startswith("`aliensrl.ring`")
    ]
    assert "**chebyshev** (default)" in field["value"]


async def test_the_gm_channel_picker_lists_only_channels_the_bot_can_post_in(local: LocalDiscord) -> None:
    [settings] = [c for c in sync_payload(local.bot.tree) if c["name"] == "settings"]
    [gm] = [o for o in settings["options"] if o["name"] == "gm-channel"]
    [channel] = gm["options"]
    # Text, announcement, and their public, private and announcement threads: no category, forum, media,
    # voice or stage channel.
    assert sorted(channel["channel_types"]) == [0, 5, 10, 11, 12]


async def test_a_channel_of_another_type_is_refused(local: LocalDiscord) -> None:
    # Discord's picker would not offer it; an old client's request still gets an answer, and nothing is saved.
    category = {"id": "300000000000000078", "type": 4, "name": "Campaign", "permissions": "0", "parent_id": None}
    refused = await local.command(
        "settings gm-channel",
        [{"name": "channel", "type": 7, "value": category["id"]}],
        actor=local.as_user(MOD, permissions=MANAGER_PERMISSIONS),
        resolved={"channels": {category["id"]: category}},
    )
    assert refused.ephemeral and refused.embed["description"].endswith(
        "is not a text channel: hidden rolls need one to be posted in."
    )


QUICK_ATTACK = {"attack_bonus": 5, "damage": "1d8+3", "target_ac": 15}


def labels(local: LocalDiscord, exchange: Exchange) -> list[str]:
    message = local.original(exchange)
    return [c["label"] for row in message["components"] for c in row["components"]]


async def test_a_user_chooses_full_answers_for_themselves_only(local: LocalDiscord) -> None:
    other = local.as_user("200000000000000004")
    local.bot.dice = ScriptedDice([12, 5, 12, 5])
    chosen = await local.command("answers", {"start": "full"})
    assert chosen.ephemeral and "now start **full** in every server" in chosen.embed["description"]
    mine = await local.command("dnd attack", QUICK_ATTACK)
    assert mine.embed["fields"][0]["name"] == "Attack roll"  # every step at once
    assert labels(local, mine) == ["Roll again", "Less"]
    theirs = await local.command("dnd attack", QUICK_ATTACK, actor=other)
    assert not theirs.embed.get("fields") and labels(local, theirs) == ["Roll again", "Details"]


async def test_a_user_choice_outranks_the_server_and_server_gives_it_back(local: LocalDiscord) -> None:
    moderator = local.as_user(MOD, permissions=MANAGER_PERMISSIONS)
    await local.command("settings set", {"setting": "rolls.answers", "value": "full"}, actor=moderator)
    local.bot.dice = ScriptedDice([12, 5] * 3)
    assert (await local.command("dnd attack", QUICK_ATTACK)).embed["fields"]  # the server's full answers
    await local.command("answers", {"start": "short"})
    short = await local.command("dnd attack", QUICK_ATTACK)
    assert not short.embed.get("fields") and short.embed["description"].startswith("**Hit**: **8** damage")
    back = await local.command("answers", {"start": "server"})
    assert "as each server chose" in back.embed["description"]
    assert (await local.command("dnd attack", QUICK_ATTACK)).embed["fields"]


async def test_a_choice_made_in_one_process_is_read_by_another(local: LocalDiscord) -> None:
    """Stored, not kept in memory only: a bot that forgot its cache reads the choice from the database."""
    await local.command("answers", {"start": "full"})
    local.bot._user_answers.clear()
    local.bot.dice = ScriptedDice([12, 5])
    assert (await local.command("dnd attack", QUICK_ATTACK)).embed["fields"]
