"""/character through the real command tree, with several users and servers."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from bot.db.engine import Database
from bot.db.models import Character
from bot.local.driver import LocalDiscord
from bot.local.payloads import MANAGER_PERMISSIONS, Actor, user_object
from tests.helpers import ALICE, BOB, MOD, character, count, export, fields, import_


def bob(local: LocalDiscord) -> Actor:
    return local.as_user(BOB)


async def test_create_show_set_use_rename_delete(local: LocalDiscord, database: Database) -> None:
    number = await character(local, "aliensrl", "Vasquez")
    shown = await local.command("character show", {"character": "vasquez"})
    assert not shown.ephemeral
    assert shown.embed["title"] == "Vasquez"
    assert shown.embed["author"]["name"] == "AliensRL character"
    assert shown.embed["description"] == f"of <@{ALICE}>"
    assert shown.embed["footer"]["text"] == f"#{number} · version 1 · active"

    changed = await local.command("character set", {"character": f"#{number}", "field": "rifle", "value": "3"})
    assert changed.embed["description"] == "**Vasquez**: `rifle` 0 → 3"
    assert "3 (expert)" in fields(await local.command("character show", {"character": "Vasquez"}))["Skills"]

    refused = await local.command("character set", {"character": "Vasquez", "field": "rifle", "value": "9"})
    assert refused.ephemeral and refused.embed["color"] == 0xE74C3C
    assert refused.embed["description"] == "`rifle` takes a whole number from 0 to 4, not `9`."

    second = await character(local, "aliensrl", "Hicks")
    used = await local.command("character use", {"character": "Hicks"})
    assert used.embed["description"] == "Your AliensRL rolls now use **Hicks**."
    listing = await local.command("character list")
    assert fields(listing)["AliensRL"] == f"Hicks (#{second}) · active\nVasquez (#{number})"

    taken = await local.command("character rename", {"character": "Hicks", "new_name": "VASQUEZ"})
    assert taken.embed["title"] == "Name taken"
    renamed = await local.command("character rename", {"character": "Hicks", "new_name": "Dwayne Hicks"})
    assert renamed.embed["description"] == "**Hicks** is now **Dwayne Hicks**."

    asked = await local.command("character delete", {"character": "Vasquez"})
    assert asked.embed["title"] == "Delete Vasquez?" and await count(database, Character) == 2
    cancelled = await local.click(local.original(asked), "cancel")
    assert cancelled.response["data"]["embeds"][0]["title"] == "Cancelled" and await count(database, Character) == 2
    asked = await local.command("character delete", {"character": "Vasquez"})
    deleted = await local.click(local.original(asked), "confirm")
    assert deleted.response["data"]["embeds"][0]["title"] == "Deleted"
    assert deleted.response["data"]["components"] == []
    assert await count(database, Character) == 1


async def test_only_the_owner_changes_a_character(local: LocalDiscord) -> None:
    number = await character(local, "aliensrl", "Vasquez")
    other = bob(local)
    for name, options in [
        ("character set", {"character": f"#{number}", "field": "pain", "value": "5"}),
        ("character rename", {"character": f"#{number}", "new_name": "Mine now"}),
        ("character use", {"character": f"#{number}"}),
        ("character weapon add", {"character": f"#{number}", "name": "Smartgun"}),
        ("character delete", {"character": f"#{number}"}),
    ]:
        exchange = await local.command(name, options, actor=other)
        assert exchange.embed["title"] == "Not your character", name
    # By name Bob finds Alice's character too (he has none of that name), and is told whose it is.
    theirs = await local.command("character set", {"character": "Vasquez", "field": "pain", "value": "5"}, actor=other)
    assert theirs.embed["title"] == "Not your character"
    missing = await local.command("character set", {"character": "Nobody", "field": "pain", "value": "5"}, actor=other)
    assert missing.embed["title"] == "No such character"
    # Anyone may look.
    shown = await local.command("character show", {"character": f"#{number}"}, actor=other)
    assert shown.embed["title"] == "Vasquez"
    # Only the person who asked can confirm.
    asked = await local.command("character delete", {"character": "Vasquez"})
    hijack = await local.click(local.original(asked), "confirm", actor=other)
    assert hijack.response["data"]["embeds"][0]["title"] == "Not your question"


async def test_a_moderator_may_delete_any_character(local: LocalDiscord, database: Database) -> None:
    await character(local, "aliensrl", "Troll", actor=bob(local))
    moderator = local.as_user(MOD, permissions=MANAGER_PERMISSIONS)
    options = [{"name": "character", "type": 3, "value": "Troll"}, {"name": "user", "type": 6, "value": BOB}]
    resolved = {"users": {BOB: user_object(BOB)}}
    asked = await local.command("character delete", options, actor=moderator, resolved=resolved)
    done = await local.click(local.original(asked), "confirm", actor=moderator)
    assert done.response["data"]["embeds"][0]["title"] == "Deleted"
    assert await count(database, Character) == 0


async def test_characters_are_invisible_in_other_servers(local: LocalDiscord) -> None:
    number = await character(local, "aliensrl", "Vasquez")
    elsewhere = Actor(user_id=ALICE, guild_id="400000000000000001", channel_id="400000000000000002")
    shown = await local.command("character show", {"character": f"#{number}"}, actor=elsewhere)
    assert shown.embed["description"] == f"There is no character #{number} in this server."
    listing = await local.command("character list", actor=elsewhere)
    assert listing.embed["description"] == f"<@{ALICE}> has no characters here yet. `/character create` makes one."


async def test_names_are_unique_per_owner_and_ruleset_in_any_case(local: LocalDiscord) -> None:
    await character(local, "aliensrl", "Vasquez")
    again = await local.command("character create", {"ruleset": "aliensrl", "name": "vAsQuEz"})
    assert again.embed["title"] == "Name taken"
    await character(local, "dnd35", "Vasquez")  # another ruleset
    await character(local, "aliensrl", "Vasquez", actor=bob(local))  # another owner
    ambiguous = await local.command("character show", {"character": "Vasquez"})
    assert "several characters called **Vasquez**" in ambiguous.embed["description"]


async def test_weapons_are_added_validated_and_removed(local: LocalDiscord) -> None:
    await character(local, "aliensrl", "Vasquez")
    added = await local.command(
        "character weapon add", {"character": "Vasquez", "name": "Smartgun", "details": "type=heavy accuracy=2 shots=3"}
    )
    assert "Smartgun" in fields(added)["Weapons"]
    bad = await local.command("character weapon add", {"character": "Vasquez", "name": "Pulse", "details": "power=9"})
    assert "AliensRL weapons take: `type`: pistol, rifle, heavy" in bad.embed["description"]
    removed = await local.command("character weapon remove", {"character": "Vasquez", "name": "smartgun"})
    assert removed.embed["description"] == "**Vasquez** no longer carries **smartgun**."


async def test_set_takes_several_fields_with_the_short_names_players_use(local: LocalDiscord) -> None:
    await character(local, "dnd35", "Lira")
    options = {"character": "Lira", "values": "str=12 DEX=17 hp=28/30 bab=3 finesse=yes"}
    changed = await local.command("character set", options)
    assert changed.embed["title"] == "Saved", changed.embed
    assert changed.embed["description"] == (
        "**Lira**: `strength` 10 → 12; `dexterity` 10 → 17; `bab` 0 → 3; `hit_points` 10 → 28; "
        "`max_hit_points` 10 → 30; `weapon_finesse` no → yes"
    )
    shown = await local.command("character show", {"character": "Lira"})
    assert "28 / 30" in json.dumps(shown.embed)
    # One field and several together; a bad value anywhere changes nothing.
    both = await local.command("character set", {"character": "Lira", "field": "con", "value": "14", "values": "wis=8"})
    assert both.embed["description"] == "**Lira**: `constitution` 10 → 14; `wisdom` 10 → 8"
    refused = await local.command("character set", {"character": "Lira", "values": "str=14 bab=99"})
    assert (
        refused.embed["title"] == "Not a valid character"
        and refused.embed["description"] == "`bab` takes a whole number from 0 to 60, not `99`."
    )
    again = await local.command("character set", {"character": "Lira", "values": "str=12"})
    assert again.embed["description"] == "**Lira**: nothing changed"  # str=14 was not kept either


async def test_set_errors_are_short_and_name_the_closest_fields(local: LocalDiscord) -> None:
    await character(local, "dnd35", "Lira")
    typo = await local.command("character set", {"character": "Lira", "field": "strenght", "value": "12"})
    assert typo.embed["description"] == (
        "`strenght` is not a field of a D&D 3.5 / NWN character. Did you mean `strength`?"
    )
    for word, named in (("feats", "`weapon_finesse`"), ("ac", "`armor_bonus`")):
        pointed = await local.command("character set", {"character": "Lira", "field": word, "value": "1"})
        assert pointed.embed["title"] == "Not a valid character"
        assert len(pointed.embed["description"]) < 300 and named in pointed.embed["description"], word
    lonely = await local.command("character set", {"character": "Lira", "field": "str"})
    assert "`field` and `value` go together" in lonely.embed["description"]
    nothing = await local.command("character set", {"character": "Lira"})
    assert "values:str=12 dex=17" in nothing.embed["description"]
    garbled = await local.command("character set", {"character": "Lira", "values": "str 12"})
    assert "is not `field=value`" in garbled.embed["description"]


async def test_field_autocomplete_knows_short_names_and_feats(local: LocalDiscord) -> None:
    number = await character(local, "dnd35", "Lira")

    async def offered(typed: str) -> list[str]:
        options = {"character": f"#{number}", "field": typed}
        return [c["value"] for c in (await local.autocomplete("character set", options, focused="field")).choices]

    assert await offered("sneak") == ["rogue_level"]
    assert (await offered("feat"))[:2] == ["weapon_finesse", "weapon_focus"]
    assert (await offered("dex"))[0] == "dexterity"
    everything = await offered("")
    assert everything[:5] == ["strength", "dexterity", "bab", "hit_points", "armor_bonus"] and len(everything) == 25


async def test_armor_by_its_srd_name_fills_its_numbers_and_shows_in_dnd_ac(local: LocalDiscord) -> None:
    number = await character(local, "dnd35", "Vex")
    await local.command("character set", {"character": "Vex", "field": "dex", "value": "16"})
    offered = await local.autocomplete(
        "character set", {"character": f"#{number}", "field": "armor", "value": "plate"}, focused="value"
    )
    assert [c["value"] for c in offered.choices] == ["Breastplate", "Half-plate", "Full plate"]
    shields = await local.autocomplete(
        "character set", {"character": f"#{number}", "field": "shield", "value": ""}, focused="value"
    )
    assert [c["value"] for c in shields.choices][:5] == ["none", "buckler", "light", "heavy", "tower"]
    assert "Full plate" not in [c["value"] for c in shields.choices]
    # dnd35.md §10: Full plate is heavy armor, +8, Max Dex +1, check penalty -6.
    saved = await local.command("character set", {"character": "Vex", "field": "armor", "value": "full plate"})
    assert saved.embed["description"] == (
        "**Vex**: `armor` none → heavy; `armor_name` none → Full plate; `armor_bonus` 0 → 8; `max_dex` none → 1; "
        "`armor_check_penalty` 0 → -6"
    )
    ac = await local.command("dnd ac", {"character": "Vex"})
    assert ac.embed["fields"][0] == {
        "name": "AC: 19",
        "value": "19 = 10 + 8 armor (Full plate) + 1 Dex (max +1)",
        "inline": False,
    }
    # A tower shield's Max Dex +2 does not loosen the plate's +1; a masterwork one has a check penalty 1 smaller.
    both = await local.command("character set", {"character": "Vex", "values": "shield='masterwork tower shield'"})
    assert "`shield_check_penalty` 0 → -9" in both.embed["description"], both.embed
    assert "`max_dex`" not in both.embed["description"]
    ac = await local.command("dnd ac", {"character": "Vex"})
    assert ac.embed["fields"][0]["value"] == (
        "23 = 10 + 8 armor (Full plate) + 4 shield (Masterwork tower shield) + 1 Dex (max +1)"
    )
    wrong = await local.command("character set", {"character": "Vex", "field": "armor", "value": "buckler"})
    assert wrong.embed["description"] == "The Buckler is a shield: set it as `shield`."
    unknown = await local.command("character set", {"character": "Vex", "field": "armor", "value": "mithral shirt"})
    assert unknown.embed["description"].startswith("`mithral shirt` is neither a kind of armor (none, light, medium")
    # A plain kind keeps the numbers and forgets the name.
    plain = await local.command("character set", {"character": "Vex", "field": "armor", "value": "heavy"})
    assert plain.embed["description"] == "**Vex**: `armor_name` Full plate → none"
    # What /dnd ac shows of the armor worn, once the command passes it.
    from bot.ui.dnd35 import ac_embed

    embed = ac_embed("Vex", [], worn="Full plate (heavy): +8, max Dex +1, check penalty -6")
    assert embed.fields[0].name == "Armor and shield" and embed.fields[0].value is not None


async def test_armor_and_shield_set_to_none_leave_no_numbers_behind(local: LocalDiscord) -> None:
    # Issue #25: full plate and a tower shield on Dex 14 make AC 23; taken off, AC is 12, not still 23.
    await character(local, "dnd35", "Vex")
    pairs = "dex=14 armor='full plate' shield='tower shield'"
    worn = await local.command("character set", {"character": "Vex", "values": pairs})
    assert worn.embed["description"].startswith("**Vex**: `dexterity` 10 → 14"), worn.embed
    ac = await local.command("dnd ac", {"character": "Vex"})
    assert ac.embed["fields"][0]["name"] == "AC: 23"
    off = await local.command("character set", {"character": "Vex", "field": "armor", "value": "none"})
    assert off.embed["description"] == (
        "**Vex**: `armor` heavy → none; `armor_name` Full plate → none; `armor_bonus` 8 → 0; `max_dex` 1 → 2; "
        "`armor_check_penalty` -6 → 0"
    )
    shield = await local.command("character set", {"character": "Vex", "values": "shield=none"})
    assert shield.embed["description"] == (
        "**Vex**: `max_dex` 2 → none; `shield` tower → none; `shield_name` Tower shield → none; `shield_bonus` 4 → 0; "
        "`shield_check_penalty` -10 → 0"
    )
    ac = await local.command("dnd ac", {"character": "Vex"})
    assert ac.embed["fields"][0] == {"name": "AC: 12", "value": "12 = 10 + 2 Dex", "inline": False}


async def test_a_weapon_named_alone_must_be_in_the_table(local: LocalDiscord) -> None:
    number = await character(local, "sf", "Riker")
    typo = await local.command("character weapon add", {"character": "Riker", "name": "Auto rifle"})
    assert typo.embed["title"] == "Unknown weapon"
    assert typo.embed["description"].startswith(
        "**Auto rifle** is not in the Star Frontiers weapon table. Did you mean **Automatic rifle** or "
    )
    own = {"character": "Riker", "name": "Auto rifle", "details": "damage=1d10 skill=projectile"}
    assert (await local.command("character weapon add", own)).messages[0]["content"] == "Added **Auto rifle**."
    table = await local.command("character weapon add", {"character": "Riker", "name": "laser pistol"})
    assert table.messages[0]["content"] == "Added **laser pistol**.", table.embed
    offered = await local.autocomplete(
        "character weapon add", {"character": f"#{number}", "name": "auto"}, focused="name"
    )
    assert [c["value"] for c in offered.choices] == ["Automatic pistol", "Automatic rifle"]
    await character(local, "dnd35", "Regis")
    srd = await local.command("character weapon add", {"character": "Regis", "name": "bastard sword"})
    assert srd.messages[0]["content"] == "Added **bastard sword**.", srd.embed
    await character(local, "aliensrl", "Hicks")  # AliensRL has no table: a name alone takes the defaults
    assert (await local.command("character weapon add", {"character": "Hicks", "name": "Pulse rfle"})).messages


async def test_a_weapons_bad_damage_dice_are_refused_with_the_caret(local: LocalDiscord) -> None:
    await character(local, "sf", "Riker")
    own = {"character": "Riker", "name": "Zapper", "details": "damage=2d1 skill=beam"}
    bad = await local.command("character weapon add", own)
    shorthand = await local.command("character weapon add", {**own, "details": "damage=d8 skill=beam"})
    assert "`damage`: Unexpected 'd' at character 1. Damage dice are written NdM" in shorthand.embed["description"]
    assert bad.ephemeral and bad.embed["title"] == "Not a valid character"
    assert bad.embed["description"].startswith(
        "`damage`: Can't roll a d1 at character 3. Dice have 2 to 999 sides.\n```\n2d1\n  ^\n```\n"
    ), bad.embed["description"]


async def test_hp_hurts_heals_and_sets_for_the_owner_or_the_game_master(local: LocalDiscord) -> None:
    number = await character(local, "dnd35", "Lira")
    await local.command("character set", {"character": "Lira", "values": "hp=28/30"})

    async def hp(options: dict[str, str], actor: Actor | None = None) -> str:
        exchange = await local.command("character hp", {"character": f"#{number}", **options}, actor=actor)
        assert exchange.ephemeral
        return str(exchange.embed["description"])

    assert await hp({"change": "-13"}) == (
        f"**Lira**: Hit points 28 → **15** of 30\nTo undo: `/character hp character:#{number} change:=28`"
    )
    assert (await hp({"change": "+50"})).startswith("**Lira**: Hit points 15 → **30** of 30")  # up to the maximum
    assert (await hp({"change": "=35"})).startswith("**Lira**: Hit points 30 → **35** of 30")  # set: may pass it
    assert (await hp({"change": "-5", "max": "+4"})).startswith(
        "**Lira**: Hit points 35 → **30** of 34 (maximum was 30)"
    )
    assert "`change` is `+5` (add 5), `-13` (lose 13)" in await hp({"change": "thirteen"})
    stranger = await hp({"change": "-1"}, actor=bob(local))
    assert "only they or a game master" in stranger
    moderator = local.as_user(MOD, permissions=MANAGER_PERMISSIONS)
    assert (await hp({"change": "-4"}, actor=moderator)).startswith("**Lira**: Hit points 30 → **26** of 34")
    marine = await character(local, "sf", "Riker")
    stamina = await local.command("character hp", {"character": f"#{marine}", "change": "-20"})
    assert stamina.embed["description"].startswith("**Riker**: Stamina 45 → **25** of 45"), stamina.embed


async def test_a_number_means_one_thing_in_every_hit_point_command(local: LocalDiscord) -> None:
    """+5 adds, -13 loses, =28 sets, 28/30 sets both, in /character set (field or values) and /character hp.

    Before, `/character set field:hit_points value:+5` set 5 and `/character hp change:13` set 13 while
    `/encounter hp amount:5` healed 5: a number alone in a change is now refused with the forms spelled out.
    """
    number = await character(local, "dnd35", "Lira")

    async def set_(**options: str) -> str:
        exchange = await local.command("character set", {"character": f"#{number}", **options})
        assert exchange.ephemeral
        return str(exchange.embed["description"])

    assert await set_(values="hp=20/30") == "**Lira**: `hit_points` 10 → 20; `max_hit_points` 10 → 30"
    assert await set_(field="hit_points", value="+5") == "**Lira**: `hit_points` 20 → 25"
    assert await set_(field="hp", value="-13") == "**Lira**: `hit_points` 25 → 12"
    assert await set_(values="hp=+50") == "**Lira**: `hit_points` 12 → 30"  # a heal stops at the maximum
    assert await set_(values="hp=28") == "**Lira**: `hit_points` 30 → 28"  # a number alone sets the field
    assert await set_(values="hp==-3") == "**Lira**: `hit_points` 28 → -3"  # dying: set with its sign
    assert await set_(field="max_hp", value="+4") == "**Lira**: `max_hit_points` 30 → 34"
    assert "A maximum goes with a value that is set" in await set_(values="hp=+5/30")
    assert "`max_hp` takes one number" in await set_(field="max_hp", value="=20/30")

    bare = await local.command("character hp", {"character": f"#{number}", "change": "13"})
    assert bare.ephemeral and bare.embed["title"] == "Which one?"
    assert bare.embed["description"] == (
        "`13` alone could mean heal or set: write `+13` to add 13, `-13` to lose 13, or `=13` to set it."
    )
    healed = await local.command("character hp", {"character": f"#{number}", "change": "+13"})
    assert healed.embed["description"].startswith("**Lira**: Hit points -3 → **10** of 34")
    shown = fields(await local.command("character show", {"character": f"#{number}"}))
    assert "10 / 34" in json.dumps(shown)


async def test_setting_a_maximum_on_an_unhurt_character_sets_its_hit_points_too(local: LocalDiscord) -> None:
    """sta=50 on a new Star Frontiers character is 50/50 (was 45/50), AliensRL hp=35 is 35/35 (was 35/10)."""
    riker = await character(local, "sf", "Riker")
    changed = await local.command("character set", {"character": f"#{riker}", "field": "sta", "value": "50"})
    assert changed.embed["description"] == "**Riker**: `stamina` 45 → 50; `current_stamina` 45 → 50"
    hicks = await character(local, "aliensrl", "Hicks")
    changed = await local.command("character set", {"character": f"#{hicks}", "values": "hp=35"})
    assert changed.embed["description"] == "**Hicks**: `hit_points` 10 → 35; `max_hit_points` 10 → 35"
    lira = await character(local, "dnd35", "Lira")
    changed = await local.command("character set", {"character": f"#{lira}", "values": "max_hp=30"})
    assert changed.embed["description"] == "**Lira**: `hit_points` 10 → 30; `max_hit_points` 10 → 30"

    # A hurt character keeps its value, no higher than the new maximum.
    await local.command("character hp", {"character": f"#{lira}", "change": "-12"})
    changed = await local.command("character set", {"character": f"#{lira}", "values": "max_hp=40"})
    assert changed.embed["description"] == "**Lira**: `max_hit_points` 30 → 40"
    changed = await local.command("character set", {"character": f"#{lira}", "values": "max_hp=10"})
    assert changed.embed["description"] == "**Lira**: `hit_points` 18 → 10; `max_hit_points` 40 → 10"
    changed = await local.command("character set", {"character": f"#{riker}", "values": "hp=-20 sta=60"})
    assert changed.embed["description"] == "**Riker**: `stamina` 50 → 60; `current_stamina` 50 → 30"


async def test_edit_form_changing_stamina_alone_carries_the_current_stamina(local: LocalDiscord) -> None:
    """The form shows Star Frontiers' maximum twice (STA, and now/max): the box left alone does not undo the other."""
    await character(local, "sf", "Riker")
    form = (await local.command("character edit", {"character": "Riker"})).modal
    saved = await local.submit(form, {"stamina": "50"})
    assert "50 / 50" in json.dumps(saved.embed), saved.embed


async def test_edit_form_sets_current_and_maximum_hit_points(local: LocalDiscord) -> None:
    await character(local, "dnd35", "Lira")
    form = (await local.command("character edit", {"character": "Lira"})).modal
    saved = await local.submit(form, {"hit_points": "28/30"})
    assert saved.embed["footer"]["text"].endswith("version 2"), saved.embed
    assert "28 / 30" in json.dumps(saved.embed)


async def test_edit_form_saves_unless_changed_meanwhile(local: LocalDiscord) -> None:
    await character(local, "aliensrl", "Vasquez")
    opened = await local.command("character edit", {"character": "Vasquez"})
    form = opened.modal
    saved = await local.submit(form, {"rifle": "4", "pain": "2"})
    assert saved.embed["footer"]["text"].endswith("version 2")
    # A second form opened at version 2, then a set (version 3), then the stale form is submitted.
    stale = (await local.command("character edit", {"character": "Vasquez"})).modal
    await local.command("character set", {"character": "Vasquez", "field": "heavy", "value": "1"})
    refused = await local.submit(stale, {"pistol": "4"})
    assert refused.embed["title"] == "Changed meanwhile"
    shown = fields(await local.command("character show", {"character": "Vasquez"}))
    assert "Heavy**: 1" in shown["Skills"] and "Pistol**: 0" in shown["Skills"]


async def test_concurrent_sets_keep_every_acknowledged_write(local: LocalDiscord) -> None:
    await character(local, "aliensrl", "Vasquez")
    keys = ["pistol", "rifle", "heavy", "pain"]

    def options(i: int) -> dict[str, Any]:
        key = keys[i % 4]
        return {"character": "Vasquez", "field": key, "value": str(i % 5 if key != "pain" else i)}

    exchanges = await asyncio.gather(*(local.command("character set", options(i)) for i in range(100)))
    acknowledged = [e for e in exchanges if e.embed["title"] == "Saved"]
    refused = [e for e in exchanges if e.embed["title"] != "Saved"]
    assert all(e.embed["title"] == "Changed meanwhile" for e in refused)
    shown = await local.command("character show", {"character": "Vasquez"})
    version = int(shown.embed["footer"]["text"].split("version ")[1].split()[0])
    assert version == 1 + len(acknowledged)  # every acknowledged write applied once, none lost
    assert len(acknowledged) == 100  # writers queue on the write lock: nothing even needs refusing


async def test_forget_me_deletes_characters_and_rolls_after_confirmation(
    local: LocalDiscord, database: Database
) -> None:
    await character(local, "aliensrl", "Vasquez")
    await local.command("roll", {"expression": "1d6"})
    await character(local, "aliensrl", "Troll", actor=bob(local))
    asked = await local.command("character forget-me")
    done = await local.click(local.original(asked), "confirm")
    assert done.response["data"]["embeds"][0]["description"] == "Deleted 1 characters and 1 logged rolls."
    assert await count(database, Character) == 1  # Bob's is still there


async def test_export_then_import_round_trips(local: LocalDiscord, database: Database) -> None:
    await character(local, "aliensrl", "Vasquez")
    await local.command("character set", {"character": "Vasquez", "field": "rifle", "value": "3"})
    await local.command(
        "character weapon add", {"character": "Vasquez", "name": "Pulse rifle", "details": "accuracy=1 shots=3"}
    )
    await character(local, "dnd35", "Regis")
    await character(local, "sf", "Dralasite Bob")
    first = await export(local)
    document = json.loads(first)
    assert [c["name"] for c in document["characters"]] == ["Vasquez", "Regis", "Dralasite Bob"]

    asked = await local.command("character forget-me")
    await local.click(local.original(asked), "confirm")
    assert await count(database, Character) == 0

    planned = await import_(local, first)
    assert planned.requests[0].body == {"type": 5, "data": {"flags": 64}}
    summary = local.original(planned)["embeds"][0]["description"]
    assert summary.startswith("**Create 3:** Vasquez (AliensRL), Regis (D&D 3.5 / NWN)")
    assert await count(database, Character) == 0  # nothing is written before the confirmation
    done = await local.click(local.original(planned), "confirm")
    assert done.response["data"]["embeds"][0]["description"] == "Created 3, replaced 0."
    second = await export(local)
    strip = lambda raw: {k: v for k, v in json.loads(raw).items() if k != "exported_at"}  # noqa: E731
    assert strip(second) == strip(first)

    again = await import_(local, second)
    assert "**Replace 3**" in local.original(again)["embeds"][0]["description"]


async def test_hostile_imports_are_refused_and_write_nothing(local: LocalDiscord, database: Database) -> None:
    await character(local, "aliensrl", "Vasquez")
    good = json.loads(await export(local))

    def variant(change: Any) -> bytes:
        document = json.loads(json.dumps(good))
        change(document)
        return json.dumps(document).encode()

    cases = {
        b"not json at all": "not JSON",
        b"[" * 100000: "not JSON",
        json.dumps({"format": "something else"}).encode(): "not a character export",
        variant(lambda d: d["characters"][0]["sheet"].update(rifle="3")): "`rifle`: Input should be a valid integer",
        variant(lambda d: d["characters"][0]["sheet"].update(laser=1)): "`laser`: Extra inputs are not permitted",
        variant(lambda d: d["characters"][0]["sheet"].update(pain=10**40)): "`pain`: Input should be less than",
        variant(lambda d: d["characters"][0].update(ruleset="gurps")): "unknown ruleset 'gurps'",
        variant(lambda d: d["characters"].append(d["characters"][0])): "two AliensRL characters called **Vasquez**",
        variant(lambda d: d["characters"][0]["sheet"].update(schema=99)): "`schema` must be a schema version",
        variant(lambda d: d["characters"][0].update(name="`@everyone`")): "backticks",
        variant(lambda d: d.update(characters=d["characters"] * 51)): "at most 50 fit",
    }
    for data, message in cases.items():
        exchange = await import_(local, data)
        text = json.dumps([m.get("embeds") for m in exchange.messages])
        assert message in text, (message, text[:500])
        assert "Import these characters?" not in text
    huge = await import_(local, b" " * (10 * 1024 * 1024))
    assert huge.embed["title"] == "File too large"
    assert huge.requests[0].body["type"] == 4  # refused before deferring or downloading anything
    assert await count(database, Character) == 1


async def test_autocomplete_offers_characters_and_fields(local: LocalDiscord) -> None:
    number = await character(local, "aliensrl", "Vasquez")
    await character(local, "aliensrl", "Troll", actor=bob(local))
    mine = await local.autocomplete("character set", {"character": "vas"}, focused="character")
    assert mine.choices == [{"name": "Vasquez · AliensRL", "value": f"#{number}"}]
    theirs = await local.autocomplete("character show", {"character": ""}, focused="character", actor=bob(local))
    assert [c["name"] for c in theirs.choices] == ["Troll · AliensRL"]
    options = {"character": f"#{number}", "field": "pa"}
    fields_offered = await local.autocomplete("character set", options, focused="field")
    assert fields_offered.choices == [{"name": "pain: a whole number from 0 to 100", "value": "pain"}]


async def test_the_fifty_first_character_is_refused(local: LocalDiscord, database: Database) -> None:
    for i in range(50):
        await character(local, "aliensrl", f"Marine {i}")
    refused = await local.command("character create", {"ruleset": "sf", "name": "One too many"})
    assert refused.embed["title"] == "Too many characters"
    assert await count(database, Character) == 50


async def test_an_import_that_fails_midway_writes_nothing(local: LocalDiscord, database: Database) -> None:
    for i in range(47):
        await character(local, "aliensrl", f"Marine {i}")
    await character(local, "aliensrl", "Apone")
    await character(local, "aliensrl", "Gorman")
    data = await export(local)
    for name in ("Apone", "Gorman"):
        asked = await local.command("character delete", {"character": name})
        await local.click(local.original(asked), "confirm")
    planned = await import_(local, data)  # would create Apone and Gorman again: 49 characters
    await character(local, "aliensrl", "Drake")  # meanwhile a 48th, so the second creation is the 51st
    await character(local, "aliensrl", "Frost")
    failed = await local.click(local.original(planned), "confirm")
    assert failed.embed["title"] == "Too many characters"
    assert await count(database, Character) == 49  # neither Apone nor Gorman: the import's transaction rolled back
