"""Running a roll command again: the buttons under every roll, and saved rolls (`/macro run`).

A roll's answer carries two buttons whose custom ids name the interaction that made the roll: **Roll again**
(the same command with the same options, for the user who rolled) and **Details** (the full breakdown in place
of the compact one, and back: the log keeps both forms, `stored_details`). A breakdown longer than a phone
screen is laid out in pages (`bot.ui.embeds.paged`) with a **Page N** button to each neighbour. All of them
find the roll in the roll log, so they keep working after the bot restarts. A custom id is the client's to
make up, so every press is checked against the log once, by their base (`cogs._buttons.OnRoll`): this server
and channel, and a private or hidden roll for whoever may see it.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.client import DiceBot
from bot.db.characters import CharacterDeleted, CharacterRepository, stamp
from bot.db.rolls import LoggedRoll
from bot.errors import UserError
from bot.rules.audience import Creature, Viewer, Visibility, sees_numbers
from bot.ui.embeds import paged
from cogs._audience import viewer
from cogs._buttons import NEVER, OnRoll

ROLL = "roll"  # the extras key that marks a command as a roll: `@app_commands.command(..., extras=ROLLS)`
ROLLS = {ROLL: True}
# The extras key of a roll command whose options were renamed: old typed options -> today's, for Roll again.
RENAMED = "renamed"


def roll_command(tree: app_commands.CommandTree[Any], name: str) -> app_commands.Command[Any, ..., Any] | None:
    """The roll command called `name` ("dnd attack"), or None when there is no such roll command."""
    first, *rest = name.split() or [""]
    node: Any = tree.get_command(first)
    for part in rest:
        node = node.get_command(part) if isinstance(node, app_commands.Group) else None
    if isinstance(node, app_commands.Command) and node.extras.get(ROLL):
        return node
    return None


async def replay(interaction: discord.Interaction[DiceBot], name: str, options: dict[str, Any]) -> None:
    """Run the roll command `name` with `options` (as typed) for this interaction's user.

    The options go through the command's own transformers (ranges, choices) as if Discord had sent them,
    and the roll is logged under the command it ran, with those options. Options a command renamed are read
    under their new names (its `RENAMED` extra); one it no longer takes refuses the roll.
    """
    command = roll_command(interaction.client.tree, name)
    if command is None:
        raise UserError(f"`/{name}` is not a roll command (any more).", title="Can't roll that")
    options = command.extras.get(RENAMED, dict)(options)
    taken = {parameter.display_name for parameter in command._params.values()}
    if unknown := sorted(set(options) - taken):
        # Never roll without an option that was given: a dropped penalty would be a different roll.
        listed = ", ".join(f"`{option}`" for option in unknown)
        raise UserError(f"`/{name}` no longer takes {listed}: type the roll afresh.", title="Can't roll that")
    interaction.extras["command"] = name
    interaction.extras["options"] = options
    arguments: dict[str, Any] = {}
    # CommandParameter.transform is what discord.py itself runs on each option (discord.py is pinned < 3).
    for parameter in command._params.values():
        if parameter.display_name in options:
            arguments[parameter.name] = await parameter.transform(interaction, options[parameter.display_name])
        elif parameter.required:
            raise UserError(f"`/{name}` now needs `{parameter.display_name}`: save it again.", title="Can't roll that")
        else:
            arguments[parameter.name] = parameter.default
    if command.binding is not None:
        await command.callback(command.binding, interaction, **arguments)
    else:
        await command.callback(interaction, **arguments)  # type: ignore[call-arg]


class RollAgain(OnRoll, template=r"again:(?P<interaction_id>[0-9]+)"):
    """Roll the same command with the same options again, as a new answer; only for the user who rolled."""

    def __init__(self, interaction_id: int) -> None:
        button = discord.ui.Button[Any](
            label="Roll again", style=discord.ButtonStyle.secondary, custom_id=f"again:{interaction_id}"
        )
        super().__init__(interaction_id, button)

    def may_press(self, presser: Viewer, roll: LoggedRoll, shown: Visibility) -> bool:
        """Its roller alone."""
        return presser.user_id == roll.user_id

    def refused(self, roll: LoggedRoll, shown: Visibility) -> UserError:
        """Anyone else may run the command themselves."""
        return UserError(
            f"Only <@{roll.user_id}>, who made this roll, can roll it again. Run `/{roll.command}` "
            "yourself, or save it with `/macro save`.",
            title="Not your roll",
        )

    async def on_roll(self, interaction: discord.Interaction[DiceBot], roll: LoggedRoll, presser: Viewer) -> None:
        """Replay the roll."""
        await replay(interaction, roll.command, roll.inputs)


class ShowsDetails(OnRoll, template=NEVER):
    """Details and Page: a hidden roll's notice shows nothing of it, not even to its roller."""

    def may_press(self, presser: Viewer, roll: LoggedRoll, shown: Visibility) -> bool:
        """Not on a hidden roll: editing its public notice would show the roll to all."""
        return not roll.hidden

    def refused(self, roll: LoggedRoll, shown: Visibility) -> UserError:
        """Where a hidden roll's details are."""
        return UserError("A hidden roll shows its details in the GM channel only.", title="Hidden roll")


class Details(ShowsDetails, template=r"details:(?P<interaction_id>[0-9]+):(?P<show>full|short)"):
    """Switch an answer between its compact form and the full breakdown.

    The user who rolled switches the message itself; anyone else is shown the full breakdown privately.
    """

    def __init__(self, interaction_id: int, show: str) -> None:
        label = "Details" if show == "full" else "Less"
        button = discord.ui.Button[Any](
            label=label, style=discord.ButtonStyle.secondary, custom_id=f"details:{interaction_id}:{show}"
        )
        super().__init__(interaction_id, button)
        self.show = show

    async def on_roll(self, interaction: discord.Interaction[DiceBot], roll: LoggedRoll, presser: Viewer) -> None:
        """Edit the message to the other form (or show the details privately to someone else)."""
        if roll.details is None:
            raise UserError("This roll has no more details than it shows.")
        full, short = stored_forms(roll.details)
        # Less is the roller's switch back, whoever they are; anything else may be a private look.
        if (self.show == "full" or roll.user_id != interaction.user.id) and await show_page(interaction, roll, 1):
            return
        if self.show == "full":
            pages = paged(full)
            view = roll_view(
                self.interaction_id, details="short", page=1, pages=len(pages), hurt=hurt_label(roll.details)
            )
            await interaction.response.edit_message(embed=pages[0], view=view)
            return
        if short is None:
            raise UserError("This roll was logged before its short form was kept: it has only its details.")
        view = roll_view(self.interaction_id, details="full", hurt=hurt_label(roll.details))
        await interaction.response.edit_message(embed=short, view=view)


class Page(ShowsDetails, template=r"page:(?P<interaction_id>[0-9]+):(?P<page>[0-9]{1,2})"):
    """Show another page of a roll's full breakdown: in place for the user who rolled, privately for anyone else."""

    def __init__(self, interaction_id: int, page: int) -> None:
        button = discord.ui.Button[Any](
            label=f"Page {page}", style=discord.ButtonStyle.secondary, custom_id=f"page:{interaction_id}:{page}"
        )
        super().__init__(interaction_id, button)
        self.page = page

    async def on_roll(self, interaction: discord.Interaction[DiceBot], roll: LoggedRoll, presser: Viewer) -> None:
        """Edit the message to the page (or show it privately to someone else)."""
        if roll.details is None:
            raise UserError("This roll has no more details than it shows.")
        if await show_page(interaction, roll, self.page):
            return
        pages = paged(stored_forms(roll.details)[0])
        page = min(self.page, len(pages))
        view = roll_view(
            self.interaction_id, details="short", page=page, pages=len(pages), hurt=hurt_label(roll.details)
        )
        await interaction.response.edit_message(embed=pages[page - 1], view=view)


class ApplyDamage(OnRoll, template=r"hurt:(?P<interaction_id>[0-9]+)"):
    """Take a hit's damage off the hit points (stamina) of the character it hit, once; for its owner or the GM.

    What is applied, and to whom, is read from the roll log (the bot wrote it there), never from the button. Who
    owns the character is read with it, locked, in the transaction that applies the damage.
    """

    def __init__(self, interaction_id: int, label: str = "Apply damage") -> None:
        button = discord.ui.Button[Any](
            label=label[:80], style=discord.ButtonStyle.danger, custom_id=f"hurt:{interaction_id}"
        )
        super().__init__(interaction_id, button)

    async def on_roll(self, interaction: discord.Interaction[DiceBot], roll: LoggedRoll, presser: Viewer) -> None:
        """Apply the damage in one transaction, then take the button away and say what changed."""
        hurt = (roll.details or {}).get(HURT)
        if hurt is None or roll.guild_id is None:
            raise UserError("This roll hit no character here: there is no damage to apply.")
        bot = interaction.client
        async with bot.database.write.begin() as session:
            repository = CharacterRepository(session)
            record = await repository.get(hurt["character_id"], guild_id=roll.guild_id, for_update=True)
            # Created after the roll: not the character it hit, but a newer one that a database from before
            # migration 0020 gave the deleted one's id.
            if record is None or stamp(record.created_at) > stamp(roll.created_at):
                raise CharacterDeleted(hurt["name"])
            if record.owner_id != interaction.user.id and not presser.game_master:
                raise UserError(
                    f"Only **{record.name}**'s owner, <@{record.owner_id}>, or a game master applies damage to it.",
                    title="Not your character",
                )
            before = record.sheet
            after = await repository.apply_damage(
                record, hurt["amount"], interaction_id=self.interaction_id, by=interaction.user.id, now=bot.clock()
            )
        if after is None:
            raise UserError("This roll's damage was applied already.", title="Applied already")
        health = record.ruleset.sheet.health
        assert health is not None  # change_health refused a ruleset without
        now_key, top_key = health
        was, now, top = getattr(before, now_key), getattr(after.sheet, now_key), getattr(after.sheet, top_key)
        word = "stamina" if now_key == "current_stamina" else "hp"
        by = f"applied by {interaction.user.mention}"
        applied = f"{hurt['amount']} damage, {by}"
        numbers = (
            f"**{record.name}**: {was} → **{now}** {word} of {top} ({applied}). "
            f"To undo: `/character hp character:#{record.id} change:+{was - now}`"
        )
        await interaction.response.edit_message(view=without(interaction, f"hurt:{self.interaction_id}"))
        quiet = discord.AllowedMentions.none()
        if record.secret:
            # A game master's secret: the table sees how hurt it looks, the presser (owner or GM) its numbers.
            looks = after.sheet.health_word() or "hurt"
            # A damage the answer kept secret (it tells what the target wears) is not said here either.
            told = by if hurt.get("secret") else applied
            await interaction.followup.send(
                f"**{record.name}** takes the hit: {looks} ({told}).", allowed_mentions=quiet
            )
            await interaction.followup.send(numbers, ephemeral=True, allowed_mentions=quiet)
        else:
            await interaction.followup.send(numbers, allowed_mentions=quiet)


def without(interaction: discord.Interaction[Any], custom_id: str) -> discord.ui.View:
    """The message's buttons as they are (Details or Less, pages), less the one pressed."""
    view = discord.ui.View(timeout=None)
    if interaction.message is not None:
        for item in discord.ui.View.from_message(interaction.message, timeout=None).children:
            if getattr(item, "custom_id", None) != custom_id:
                view.add_item(item)
    return view


HURT = "hurt"  # the stored details' key of the damage a roll dealt to a character here (ApplyDamage)


def hurt_label(details: dict[str, Any] | None) -> str | None:
    """The Apply damage button's label for a roll whose stored details say it hurt a character here.

    A damage the answer kept secret (`Hurt.secret`) the label does not say either.
    """
    hurt = (details or {}).get(HURT)
    if hurt is None:
        return None
    return (
        f"Apply the damage to {hurt['name']}"
        if hurt.get("secret")
        else f"Apply {hurt['amount']} damage to {hurt['name']}"
    )


async def show_page(interaction: discord.Interaction[Any], roll: LoggedRoll, page: int) -> bool:
    """Show a page of the breakdown privately, if the presser is not the roller or may see a secret's numbers.

    A secret defender's owner (or a game master) sees its numbers, privately: the message is public. Whether
    it was shown that way; if not, the roller's message is theirs to switch.
    """
    # Here, not at the top: cogs._shared imports this module for the buttons it puts under every roll.

    assert roll.details is not None
    secret = secret_form(roll.details, await viewer(interaction.client, interaction))
    if secret is None and roll.user_id == interaction.user.id:
        return False
    pages = paged(secret if secret is not None else stored_forms(roll.details)[0])
    page = min(page, len(pages))
    view = discord.ui.View(timeout=None)
    for item in page_buttons(roll.interaction_id, page, len(pages)):
        view.add_item(item)
    await interaction.response.send_message(embed=pages[page - 1], view=view, ephemeral=True)
    return True


def stored_details(
    full: discord.Embed,
    compact: discord.Embed | None,
    *,
    secret: discord.Embed | None = None,
    owner: int | None = None,
    hurt: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """What the roll log keeps for Details and Less: both forms of an answer that has a short one.

    With a secret defender, also the full answer with its numbers and whose they are (`secret_form`); with
    `hurt` (the character a hit damaged, and by how much), what the Apply damage button applies.
    """
    if compact is None and secret is None:
        return None
    kept = {"full": dict(full.to_dict()), "compact": dict((compact or full).to_dict())}
    if secret is not None and owner is not None:
        kept["secret"] = {"owner": owner, "full": dict(secret.to_dict())}
    if hurt is not None:
        kept[HURT] = hurt
    return kept


def secret_form(details: dict[str, Any], presser: Viewer) -> discord.Embed | None:
    """The full answer with a secret defender's numbers, if the roll has one and the presser may see it."""
    secret = details.get("secret")
    if not isinstance(secret, dict):
        return None
    if not sees_numbers(presser, Creature(secret.get("owner"), secret=True)):
        return None
    return discord.Embed.from_dict(secret["full"])


def stored_forms(details: dict[str, Any]) -> tuple[discord.Embed, discord.Embed | None]:
    """The full and the compact answer `stored_details` kept; a row logged before it kept only the full one."""
    if "full" in details and "compact" in details:
        return discord.Embed.from_dict(details["full"]), discord.Embed.from_dict(details["compact"])
    return discord.Embed.from_dict(details), None


def roll_view(
    interaction_id: int, *, details: str | None, page: int = 1, pages: int = 1, hurt: str | None = None
) -> discord.ui.View:
    """The buttons under a roll: Roll again, Details (or Less) when it has a breakdown, and pages of it.

    `pages`: how many pages the breakdown shown has; `page`: which of them is shown, with buttons to its neighbours.
    `hurt`: the label of the Apply damage button under a hit on a character here.
    """
    view = discord.ui.View(timeout=None)
    view.add_item(RollAgain(interaction_id))
    if details is not None:
        view.add_item(Details(interaction_id, details))
    for item in page_buttons(interaction_id, page, pages):
        view.add_item(item)
    if hurt is not None:
        view.add_item(ApplyDamage(interaction_id, hurt))
    return view


def page_buttons(interaction_id: int, page: int, pages: int) -> list[Page]:
    """Buttons to the pages before and after `page` of a breakdown `pages` long."""
    return [Page(interaction_id, n) for n in (page - 1, page + 1) if 1 <= n <= pages]
