"""The cycle collector's settings in the process that runs the bot (`bot.heap`), each in an interpreter of its own."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from sqlalchemy.sql.elements import ClauseElement

from bot import heap
from bot.local.driver import LocalDiscord, settle
from tests.helpers import QUICK_ATTACK, ROOT, buttons, dnd_character, goblin_fight, ok, set_gm_channel, start_fair

PROBE = """
import gc
from bot import heap
before = gc.get_threshold()
heap.tune()
kept = [[n] for n in range(1000)]  # alive at the start: frozen with the rest
frozen = heap.settle()
print(before, gc.get_threshold(), frozen, gc.get_freeze_count(), len(gc.get_objects()) < frozen)
"""


def test_the_youngest_generation_is_collected_less_often_and_the_start_is_frozen() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    before, after, rest = done.stdout.split(")", 2)
    assert before == "(700, 10, 10" and after.strip() == f"({heap.YOUNG}, 10, 10"
    frozen, counted, fewer_left = rest.split()
    # What settle froze is what the collector leaves out from then on, and more than what it still walks.
    assert int(frozen) == int(counted) > 1000 and fewer_left == "True"


# What a command is made of, which reference counting alone should free once it is done: its database queries too.
CYCLIC = (
    discord.Interaction,
    discord.InteractionResponse,
    discord.ui.View,
    discord.ui.Item,
    discord.Embed,
    ClauseElement,
)


async def garbage_of(local: LocalDiscord, run: Callable[[], Awaitable[object]], times: int = 10) -> list[object]:
    """What only the cycle collector could free of `times` runs: the objects in reference cycles, and all they hold."""
    await run()  # the first builds what is kept for later ones
    await settle()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds goes to gc.garbage instead of being freed
    try:
        for _ in range(times):
            await run()
        await settle()
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.garbage.clear()
        gc.set_debug(0)
        gc.enable()


async def test_a_command_its_answer_and_its_buttons_leave_no_reference_cycle(local: LocalDiscord) -> None:
    """Reference counting frees each command's objects when it is done: in cycles they waited for a collection, one
    every hundred or so commands, which held the loop up to 5.8 ms (the middle generation's up to 10.4 ms).

    The interaction and its response refer to each other until the command is done (`bot.deadline.unwatch`), and a
    roll's buttons refer to their view weakly (`cogs._buttons.Pressed`). (The local double's interactions come from a
    server the bot was never told of, whose member discord.py makes anew each time, in a cycle of its own.)
    """
    message: dict[str, Any] = {}

    async def attack() -> None:
        nonlocal message
        message = local.original(await local.command("dnd attack", QUICK_ATTACK))

    for run in (
        lambda: local.command("roll", {"expression": "4d6kh3+1d20"}),
        lambda: local.command("ping"),
        attack,
        lambda: local.click(message, list(buttons(message).values())[1]),  # Details, then Less, and so on
    ):
        left = [type(o).__qualname__ for o in await garbage_of(local, run) if isinstance(o, CYCLIC)]
        assert left == []


async def test_nor_do_a_hidden_a_private_a_deferred_a_fair_roll_or_an_attack_in_a_fight(local: LocalDiscord) -> None:
    """Where answers go another way: to the GM channel, privately, as the followup after "thinking…", with a fair
    session's number, and with a fight's hit and its Apply damage button. A fight's characters and a fair session's
    row are read by queries built once (`bot.db.characters`, `bot.db.fair`, `bot.db.rolls`): one built for each read,
    with its values in it, left them in cycles, 17-22 objects a roll."""

    def left(garbage: list[object]) -> list[str]:
        return [type(o).__qualname__ for o in garbage if isinstance(o, CYCLIC)]

    await set_gm_channel(local)
    assert left(await garbage_of(local, lambda: local.command("roll", {"expression": "1d20", "hidden": True}))) == []
    assert left(await garbage_of(local, lambda: local.command("roll", {"expression": "1d20", "private": True}))) == []
    admission = local.bot.tree.admission
    admission.backed_up, backed_up = 0.0, admission.backed_up  # every roll deferred before its work starts
    deferred = await garbage_of(local, lambda: local.command("roll", {"expression": "1d20"}))
    admission.backed_up = backed_up
    assert left(deferred) == []
    await goblin_fight(local)
    await dnd_character(local, "Kara", {"Longsword": ""}, bab=3, strength=14, hp=30, weapon_groups="martial")
    ok(await local.command("encounter join"))
    hit = {"weapon": "Longsword", "target": "Goblin"}
    assert left(await garbage_of(local, lambda: local.command("dnd attack", hit))) == []
    await start_fair(local)
    assert left(await garbage_of(local, lambda: local.command("roll", {"expression": "1d20"}))) == []
    assert left(await garbage_of(local, lambda: local.command("dnd attack", hit))) == []  # fair, in the fight
