"""Answering inside Discord's 3-second window when the work takes longer (a slow database, say).

Discord drops an interaction that gets no first response within 3 seconds and shows the user a failure.
Each slash command therefore runs with a watchdog: if it has not answered after `DEFER_AFTER` seconds, the
watchdog defers ("Bot is thinking…"), which gives the command 15 minutes. The command does not need to
know: its `interaction.response.send_message` then goes out as the followup that replaces the thinking
message (or, when the answer is ephemeral and the thinking was not, as an ephemeral followup after the
thinking message is deleted). A lock keeps the watchdog and the answer from racing each other.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

import discord

log = logging.getLogger(__name__)

DEFER_AFTER = 2.0  # seconds: a second of margin before Discord's 3 for the defer to arrive
FORM_COMMAND = "opens_form"  # extras key of a command whose first answer may be a form: forms cannot follow a defer


@dataclass(frozen=True, slots=True)
class Followed:
    """What `send_message` returns once the answer went out as a followup: the message it made."""

    message_id: int


class PatientResponse(discord.InteractionResponse[Any]):
    """An interaction's response that a watchdog may defer; an answer after that goes out as the followup."""

    def __init__(self, parent: discord.Interaction[Any]) -> None:
        super().__init__(parent)
        self.lock = asyncio.Lock()
        self.deferred_ephemeral: bool | None = None  # set when the watchdog deferred
        self.followed = False  # the thinking message has been replaced by an answer
        self.watchdog: asyncio.TimerHandle | None = None
        self.deferring: asyncio.Task[None] | None = None

    async def defer_if_silent(self) -> None:
        """The watchdog: defer, unless the command has answered meanwhile."""
        async with self.lock:
            if self.is_done():
                return
            ephemeral = bool(getattr(self._parent.namespace, "private", False))
            try:
                await super().defer(thinking=True, ephemeral=ephemeral)
            except discord.HTTPException:
                log.warning("Could not defer a slow interaction", exc_info=True)
                return
            self.deferred_ephemeral = ephemeral
            log.info(
                "Deferred /%s: it took longer than %.1f s", getattr(self._parent.command, "name", "?"), DEFER_AFTER
            )

    async def send_message(self, *args: Any, ephemeral: bool = False, **kwargs: Any) -> Any:
        """Answer; after the watchdog's defer, as the followup that replaces the thinking message."""
        if self.watchdog is not None:
            self.watchdog.cancel()
        async with self.lock:
            if self.deferred_ephemeral is None:
                return await super().send_message(*args, ephemeral=ephemeral, **kwargs)
            if ephemeral and not self.deferred_ephemeral and not self.followed:
                # A public "thinking…" cannot turn private: remove it and answer privately.
                await self._parent.delete_original_response()
            kwargs.pop("delete_after", None)
            sent = await self._parent.followup.send(*args, ephemeral=ephemeral, wait=True, **kwargs)
            self.followed = True
            return Followed(sent.id)

    @property
    def deferred(self) -> bool:
        """Whether the watchdog deferred this interaction."""
        return self.deferred_ephemeral is not None


def watch(interaction: discord.Interaction[Any], after: float = DEFER_AFTER) -> None:
    """Give a slash command's interaction the watchdog (before anything has answered it)."""
    command = interaction.command
    if interaction.type is not discord.InteractionType.application_command or command is None:
        return
    if command.extras.get(FORM_COMMAND):
        return
    response = PatientResponse(interaction)
    # discord.py builds `interaction.response` lazily into this slot; filling it first swaps in ours.
    interaction._cs_response = response  # type: ignore[attr-defined]
    loop = asyncio.get_running_loop()

    def fire() -> None:
        response.deferring = loop.create_task(response.defer_if_silent())  # kept, so it is not collected

    response.watchdog = loop.call_later(after, fire)
