"""/fair through the real command tree: commit, roll from the seed, reveal, verify; and what must be refused."""

from __future__ import annotations

import hashlib
import hmac

from sqlalchemy import select, update

from bot.db.engine import Database
from bot.db.models import RollLog
from bot.local.driver import LocalDiscord
from bot.local.payloads import MANAGER_PERMISSIONS, Actor
from tests.dice_sources import NoDice, ScriptedDice

BOB = "200000000000000002"


def independent_faces(seed_hex: str, roll_number: int, sides: list[int]) -> list[int]:
    """The README's derivation, written again here without the bot's code."""
    seed, faces = bytes.fromhex(seed_hex), []
    for k, n in enumerate(sides):
        attempt = 0
        while True:
            digest = hmac.new(seed, f"{roll_number}:{k}:{attempt}".encode(), hashlib.sha256).digest()
            x = int.from_bytes(digest, "big")
            if x < 2**256 - 2**256 % n:
                break
            attempt += 1
        faces.append(1 + x % n)
    return faces


async def start(local: LocalDiscord) -> str:
    started = await local.command("fair start")
    assert not started.ephemeral
    return started.embed["description"].split("`")[1]


async def test_a_session_commits_rolls_reveals_and_verifies(local: LocalDiscord, database: Database) -> None:
    local.bot.dice = NoDice()  # every die of the session must come from the seed
    commitment = await start(local)
    assert len(commitment) == 64
    first = await local.command("roll", {"expression": "3d6"})
    second = await local.command("roll", {"expression": "1d20+2"}, actor=local.as_user(BOB))
    assert first.embed["footer"]["text"].startswith(f"Fair roll #1 · commitment {commitment[:16]}…")
    assert second.embed["footer"]["text"].startswith("Fair roll #2 ·")

    revealed = await local.command("fair reveal")
    seed = revealed.embed["description"].split("`")[1]
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commitment
    assert "2 rolls were made" in revealed.embed["description"]

    # The faces shown are exactly what the seed gives, by an implementation that shares no code with the bot.
    shown = [int(f) for f in first.embed["description"].split("(")[1].split(")")[0].split(", ")]
    assert shown == independent_faces(seed, 1, [6, 6, 6])
    checked = await local.command("fair verify", {"roll": 2})
    assert checked.embed["title"] == "Fair roll #2: verified"
    assert f"`/roll` by <@{BOB}>: 1 dice" in checked.embed["description"]

    # After the reveal the channel rolls from the bot's own dice again.
    local.bot.dice = ScriptedDice([4])
    after = await local.command("roll", {"expression": "1d6"})
    assert after.embed["description"] == "1d6 (4) = **4**"
    assert "footer" not in after.embed
    async with database.read() as session:
        rows = (await session.scalars(select(RollLog).where(RollLog.fair_roll.is_not(None)))).all()
    assert [r.fair_roll for r in rows] == [1, 2]


async def test_a_tampered_log_does_not_verify(local: LocalDiscord, database: Database) -> None:
    await start(local)
    await local.command("roll", {"expression": "2d6"})
    await local.command("fair reveal")
    async with database.write.begin() as session:
        row = (await session.scalars(select(RollLog))).one()
        a, b, face = row.draws[1]
        forged = [row.draws[0], [a, b, face % 6 + 1]]
        await session.execute(update(RollLog).where(RollLog.id == row.id).values(draws=forged))
    checked = await local.command("fair verify", {"roll": 1})
    assert checked.embed["title"] == "Fair roll #1: does NOT match"
    assert f"draw 2: the seed gives {face}, the log says {face % 6 + 1}" in checked.embed["description"]


async def test_every_ruleset_rolls_from_the_session(local: LocalDiscord) -> None:
    local.bot.dice = NoDice()
    await start(local)
    attack = await local.command("dnd attack", {"attack_bonus": 5, "damage": "1d8+2", "target_ac": 12})
    shot = await local.command("sf shoot", {"score": 30, "skill": 1, "damage": "2d10", "range": "short"})
    fire = await local.command("aliens fire", {"skill_rank": 2, "distance": 3})
    for number, exchange in enumerate((attack, shot, fire), start=1):
        assert f"Fair roll #{number} ·" in exchange.embed["footer"]["text"], exchange.embed


async def test_sessions_are_per_channel_and_one_at_a_time(local: LocalDiscord) -> None:
    await start(local)
    again = await local.command("fair start")
    assert again.ephemeral and "already runs in this channel" in again.embed["description"]
    elsewhere = Actor(user_id=BOB, guild_id=local.actor.guild_id, channel_id="300000000000000099")
    other = await local.command("roll", {"expression": "1d6"}, actor=elsewhere)
    assert "Fair roll" not in (other.embed.get("footer") or {}).get("text", "")


async def test_only_the_starter_or_a_moderator_reveals(local: LocalDiscord) -> None:
    await start(local)
    refused = await local.command("fair reveal", actor=local.as_user(BOB))
    assert refused.ephemeral and refused.embed["description"].startswith("Only <@")
    moderator = local.as_user("200000000000000003", permissions=MANAGER_PERMISSIONS)
    done = await local.command("fair reveal", actor=moderator)
    assert done.embed["title"] == "Fair dice: seed revealed"


async def test_verify_needs_a_revealed_session_and_a_real_roll(local: LocalDiscord) -> None:
    nothing = await local.command("fair verify", {"roll": 1})
    assert nothing.embed["description"] == "This channel has had no fair session."
    await start(local)
    secret = await local.command("fair verify", {"roll": 1})
    assert secret.embed["description"].startswith("The seed is still secret")
    await local.command("fair reveal")
    missing = await local.command("fair verify", {"roll": 5})
    assert missing.embed["description"] == "The session has no roll #5; it made 0."
    reveal_again = await local.command("fair reveal")
    assert reveal_again.embed["description"].startswith("No fair session runs in this channel")


async def test_a_new_session_never_reuses_a_seed(local: LocalDiscord) -> None:
    first = await start(local)
    await local.command("fair reveal")
    second = await start(local)
    assert first != second
