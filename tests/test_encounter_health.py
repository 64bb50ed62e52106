"""Hit points in a fight: written as everywhere else, and a character's are the character's (issue #25)."""

from __future__ import annotations

from bot.db.engine import Database
from bot.local.driver import LocalDiscord
from bot.rules import encounter as rules
from tests.test_encounter import ok, stored


async def test_encounter_hp_reads_numbers_as_every_other_command(local: LocalDiscord, database: Database) -> None:
    """+5 heals, -7 hurts, =12 sets, =12/30 sets the most too; `5` alone (which used to heal) asks which."""
    ok(await local.command("encounter start", {"ruleset": "dnd35", "name": "Cave"}))
    ok(await local.command("encounter add", {"name": "Ogre", "hp": 30, "ac": 14}))

    async def hp(amount: str) -> str:
        return str(ok(await local.command("encounter hp", {"combatant": "Ogre", "amount": amount}))["description"])

    assert await hp("-12") == "Ogre: 30 → 18 hp"
    assert await hp("+5") == "Ogre: 18 → 23 hp"
    assert await hp("+50") == "Ogre: 23 → 30 hp"  # a heal stops at the most
    assert await hp("=12") == "Ogre: 30 → 12 hp"
    assert await hp("=12/40") == "Ogre: 12 hp"
    ogre = rules.find(await stored(database), "Ogre")
    assert (ogre.hp, ogre.max_hp) == (12, 40)

    bare = await local.command("encounter hp", {"combatant": "Ogre", "amount": "5"})
    assert bare.ephemeral and bare.embed["title"] == "Which one?"
    assert bare.embed["description"] == (
        "`5` alone could mean heal or set: write `+5` to add 5, `-5` to lose 5, or `=5` to set it."
    )
    wrong = await local.command("encounter hp", {"combatant": "Ogre", "amount": "heal 5"})
    assert wrong.ephemeral and "`amount` is `+5` (add 5), `-13` (lose 13)" in wrong.embed["description"]
    too_big = await local.command("encounter hp", {"combatant": "Ogre", "amount": "=5/0"})
    assert too_big.ephemeral and "the most at least 1" in too_big.embed["description"]
    assert rules.find(await stored(database), "Ogre").hp == 12
