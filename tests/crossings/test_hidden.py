"""Hidden rolls: the full result goes to the GM channel, the table sees only that a roll was made."""

from __future__ import annotations

from bot.db.engine import Database
from bot.local.driver import LocalDiscord
from bot.local.payloads import MANAGER_PERMISSIONS, Actor
from tests.dice_sources import ScriptedDice
from tests.helpers import GM_CHANNEL, MOD, gm_post, in_gm_channel, logged, set_gm_channel


async def test_a_hidden_roll_goes_to_the_gm_channel(local: LocalDiscord) -> None:
    saved = await set_gm_channel(local)
    assert saved.embed["description"] == f"Hidden rolls (`hidden:true` on any roll) now go to <#{GM_CHANNEL}>."
    local.bot.dice = ScriptedDice([17])
    exchange = await local.command("roll", {"expression": "1d20+3", "hidden": True})
    [notice] = exchange.requests
    posted = gm_post(local)
    assert notice.body["data"]["embeds"][0]["description"] == f"<@{local.actor.user_id}> made a hidden roll."
    [row] = notice.body["data"]["components"]  # Roll again only: the notice has no details to show
    assert [b["label"] for b in row["components"]] == ["Roll again"]
    embed = posted.body["embeds"][0]
    assert embed["description"] == (  # the GM sees the odds too
        "1d20 (17) + 3 = **20**\nOdds: mean 13.50 · better than 80.0% of rolls · 5.0% roll exactly 20"
    )
    assert embed["author"]["name"].startswith("Hidden roll by Player0001")
    history = await local.command("history")
    assert history.embed["description"] == "No public rolls here yet."  # hidden rolls are never listed


async def test_a_hidden_attack_of_the_gm_channels_fair_session_shows_its_roll_number(local: LocalDiscord) -> None:
    await set_gm_channel(local)
    gm = Actor(user_id=MOD, guild_id=local.actor.guild_id, channel_id=GM_CHANNEL, permissions=MANAGER_PERMISSIONS)
    started = await local.command("fair start", actor=gm)
    commitment = started.embed["description"].split("`")[1]
    exchange = await local.command("dnd attack", {"attack_bonus": 4, "damage": "1d8", "target_ac": 14, "hidden": True})
    [notice] = exchange.requests
    posted = gm_post(local)
    assert notice.body["data"]["embeds"][0]["description"].endswith(
        f"made a hidden roll (the GM's fair roll #1, commitment `{commitment[:16]}…`)."
    )
    assert "Fair roll #1" in posted.body["embeds"][0]["footer"]["text"]


async def test_hidden_without_a_gm_channel_is_refused(local: LocalDiscord) -> None:
    exchange = await local.command(
        "sf shoot", {"score": 30, "skill": 1, "damage": "2d10", "distance": "short", "hidden": True}
    )
    assert exchange.ephemeral and exchange.embed["title"] == "No GM channel"


async def test_only_manage_server_names_the_gm_channel(local: LocalDiscord) -> None:
    refused = await set_gm_channel(local, permissions="2248473465835073")
    assert refused.ephemeral and refused.embed["title"] == "Not allowed"


async def test_an_unreachable_gm_channel_is_explained(local: LocalDiscord) -> None:
    await set_gm_channel(local)
    local.double.inject("POST", f"/channels/{GM_CHANNEL}/messages", 403, {"message": "Missing Access", "code": 50001})
    exchange = await local.command("roll", {"expression": "1d6", "hidden": True})
    followup = exchange.requests[-1]
    assert followup.path.startswith("/webhooks/") and followup.body["flags"] & 64
    assert followup.body["embeds"][0]["title"] == "GM channel unreachable"


async def test_a_logged_hidden_fair_roll_whose_gm_copy_fails_is_not_called_unanswered(
    local: LocalDiscord, database: Database
) -> None:
    """The roll was logged (the GM's fair session lists it) and the table was told its number; only its copy to the
    GM channel failed. Its roller must not be told that the number went unanswered: the signed log says otherwise."""
    await set_gm_channel(local)
    await local.command("fair start", actor=in_gm_channel(local))
    local.double.inject("POST", f"/channels/{GM_CHANNEL}/messages", 403, {"message": "Missing Access", "code": 50001})
    exchange = await local.command("roll", {"expression": "1d20", "hidden": True})
    notice, *_, followup = exchange.requests
    assert "(the GM's fair roll #1" in notice.body["data"]["embeds"][0]["description"]
    told = followup.body["embeds"][0]
    assert told["title"] == "GM channel unreachable" and "not answered" not in told["description"], told
    assert [r.fair_roll for r in await logged(database)] == [1]
