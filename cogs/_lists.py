"""Page buttons under the bot's lists (/character list, /macro list, /history), which survive a restart.

A list's button names the asker and the page, and whatever else the list was asked for; a press reads the list
again from the store (so it works after a restart too) and shows that page in place. The lists are answered
privately, and their buttons turn pages for the asker only: a custom id is whatever the client sends.
"""

from __future__ import annotations

import discord

from bot.client import DiceBot
from bot.errors import UserError
from cogs._buttons import MAX_ID, NEVER, Pressed


class ListPage(Pressed, template=NEVER):
    """A button to page `page` of a list asked for by `asker`; subclasses say how the list is read."""

    prefix = ""  # the custom id's first part, as the subclass's template has it

    def __init__(self, asker: int, page: int, *args: int, **named: int) -> None:
        # Rebuilt from a press, the template's groups after the page come by name, in the template's order.
        args = (*args, *named.values())
        ids = ":".join(str(part) for part in (self.prefix, asker, page, *args))
        super().__init__(discord.ui.Button(label=f"Page {page}", style=discord.ButtonStyle.secondary, custom_id=ids))
        self.asker = asker
        self.page = page
        self.args = args

    async def pages(self, interaction: discord.Interaction[DiceBot]) -> list[discord.Embed]:
        """The list as it stands now, laid out in pages."""
        raise NotImplementedError

    async def press(self, interaction: discord.Interaction[DiceBot]) -> None:
        """Show the page in place, to the asker only."""
        if interaction.user.id != self.asker:
            raise UserError("Only whoever asked for this list turns its pages; ask for your own.", title="Not yours")
        if any(arg > MAX_ID for arg in self.args):  # a crafted id: past any the database holds, it names nothing
            raise UserError("This button names nothing the bot keeps: ask for the list again.", title="No such list")
        pages = await self.pages(interaction)
        page = max(1, min(self.page, len(pages)))
        view = page_view(type(self), self.asker, page, len(pages), *self.args)
        await interaction.response.edit_message(embed=pages[page - 1], view=view)


def page_view(button: type[ListPage], asker: int, page: int, pages: int, *args: int) -> discord.ui.View:
    """Buttons to the pages before and after `page` of a list; none for a list of one page."""
    view = discord.ui.View(timeout=None)
    for n in (page - 1, page + 1):
        if 1 <= n <= pages:
            view.add_item(button(asker, n, *args))
    return view
