"""One base for the buttons the bot leaves under its answers, so that every press is checked once, in one place.

A button outlives its answer (it is a `DynamicItem`: rebuilt from its custom id after a restart), and its custom
id is whatever the client sends, so nothing in it is trusted. `Pressed` is every button's base: the template's
named groups are its constructor's arguments, a press counts against the presser's rate limit as a command would,
and whatever fails goes through the error funnel (`bot.tree.report`) as an ephemeral answer.

`OnRoll` is the base of a button that names a roll by the interaction that made it (Roll again, Details, Page,
Apply damage, Apply the hit). It finds the roll in the log and checks, before the button does anything:

1. the roll was made in this server, and in this channel for a button on the roll's own answer (`in_channel`);
2. the presser may know of it (`audience.sees_roll`: a private roll is its roller's, a hidden one its roller's and
   the game masters'; `game_masters`: a button a game master may press on any roll here);
3. the presser may press this button on it (`may_press`, refused with `refused`).

A roll that fails 1 is answered as if there were none, and so by default is one that fails 2 (`unseen`), so a
made-up id learns nothing, not even that it exists; a hidden roll's notice is public, so its roller is named. An
id no database column holds (2^63 and up) names no roll either.
"""

from __future__ import annotations

import re
import weakref
from typing import Any, ClassVar, Self

import discord

from bot.client import DiceBot
from bot.db.rolls import LoggedRoll, RollRepository
from bot.errors import UserError
from bot.rules.audience import Viewer, Visibility, sees_roll, visibility
from bot.tree import report
from cogs._audience import viewer

# discord.py declares the interaction of an item's own methods (`from_custom_id`, `interaction_check`, `callback`)
# generic over the client, so an override cannot narrow it to the bot: those take any client's.
NEVER = r"(?!)"  # the bases' template, which matches nothing: only their subclasses are registered
MAX_ID = 2**63 - 1  # the largest id a database's integer column holds; a Discord snowflake is smaller
NOT_FOUND = "I can't find that roll in the log (it may still be being saved); try again in a moment."


class Pressed(discord.ui.DynamicItem[discord.ui.Button[Any]], template=NEVER):
    """A button of the bot's: rebuilt from its custom id, rate limited, its failures answered privately.

    It refers to its view weakly (discord.py keeps `_view` strongly): a view refers to its buttons, and with a
    button referring back, every answer's buttons were a reference cycle that only Python's cycle collector could
    free, a collection every hundred or so rolls (`bot.heap`). Whoever uses a button holds its view: the answer
    being built, or discord.py's handling of a press.
    """

    @property  # type: ignore[override]  # discord.py's plain attribute, kept weakly
    def _view(self) -> discord.ui.View | None:
        held = self.__dict__.get("_held_view")
        return None if held is None else held()

    @_view.setter
    def _view(self, view: discord.ui.View | None) -> None:
        self.__dict__["_held_view"] = None if view is None else weakref.ref(view)

    # The template's groups that stay text although they may be all digits (a hex mark such as "69605404").
    TEXT: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Self:
        """Rebuild the button from a press (after a restart too): the template's groups are its arguments.

        A group of digits is a number, but for those `TEXT` names.
        """
        given: dict[str, Any] = {
            name: int(value) if value.isdecimal() and name not in cls.TEXT else value
            for name, value in match.groupdict().items()
        }
        return cls(**given)

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """A press counts against the presser's rate limit, as a command would."""
        return bool(await interaction.client.tree.admit(interaction))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Do what the button does; failures go through the error funnel.

        Then the view discord.py made of the pressed message for the press is emptied: its other buttons refer to it
        strongly, a cycle, and nothing uses it once the press is handled.
        """
        try:
            await self.press(interaction)
        except Exception as error:
            await report(interaction, error)
        finally:
            if (view := self.view) is not None:
                view.clear_items()

    async def press(self, interaction: discord.Interaction[DiceBot]) -> None:
        """What the button does."""
        raise NotImplementedError


class OnRoll(Pressed, template=NEVER):
    """A button naming a roll (`interaction_id`): the roll is found and the press checked before `on_roll`.

    Subclasses declare what differs: `in_channel`, `game_masters`, `may_press` and its `refused`.
    """

    in_channel: ClassVar[bool] = True  # on the roll's own answer (False: on its copy in the GM channel)
    game_masters: ClassVar[bool] = False  # a game master may press it on any roll here, private ones too

    def __init__(self, interaction_id: int, button: discord.ui.Button[Any]) -> None:
        super().__init__(button)
        self.interaction_id = interaction_id

    def may_press(self, presser: Viewer, roll: LoggedRoll, shown: Visibility) -> bool:
        """Whether `presser`, who may know of the roll, may press this button on it (default: anyone)."""
        return True

    def refused(self, roll: LoggedRoll, shown: Visibility) -> UserError:
        """The answer to a press `may_press` refuses."""
        return UserError(NOT_FOUND)

    def unseen(self, roll: LoggedRoll, shown: Visibility) -> UserError:
        """The answer to whoever may not know of the roll: as if there were none; a hidden one's notice is public."""
        if shown is Visibility.HIDDEN:
            return UserError(
                f"This hidden roll is <@{roll.user_id}>'s: only they can roll it again, and what it was is for "
                "the GM channel only.",
                title="Not your roll",
            )
        return UserError(NOT_FOUND)

    async def on_roll(self, interaction: discord.Interaction[DiceBot], roll: LoggedRoll, presser: Viewer) -> None:
        """What the button does with the roll, once the press is allowed."""
        raise NotImplementedError

    async def press(self, interaction: discord.Interaction[DiceBot]) -> None:
        """Find the roll, check the press, then do what the button does."""
        roll, presser = await self.checked(interaction)
        await self.on_roll(interaction, roll, presser)

    async def checked(self, interaction: discord.Interaction[DiceBot]) -> tuple[LoggedRoll, Viewer]:
        """The roll the button names and who pressed it, if they may press it there; else the refusal."""
        roll = None
        if 0 < self.interaction_id <= MAX_ID:
            async with interaction.client.database.read() as session:
                roll = await RollRepository(session).made_by(self.interaction_id)
        if roll is None or roll.guild_id != interaction.guild_id:
            raise UserError(NOT_FOUND)
        if self.in_channel and roll.channel_id != interaction.channel_id:
            raise UserError(NOT_FOUND)
        shown = visibility(private=roll.private, hidden=roll.hidden)
        presser = await viewer(interaction.client, interaction)
        if not (sees_roll(presser, roll.user_id, shown) or (self.game_masters and presser.game_master)):
            raise self.unseen(roll, shown)
        if not self.may_press(presser, roll, shown):
            raise self.refused(roll, shown)
        return roll, presser
