"""/character: create, show and change stat blocks; export and import them; forget a user.

Anyone in a server may look at a character there; only its owner may change it. Members with Manage Server
may also delete any character of their server. Every change is one transaction that checks the character
is still at the version it was read at, so a later write never silently undoes an earlier one.
"""

from __future__ import annotations

import difflib
import io
import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import offload
from bot.client import DiceBot
from bot.db.characters import CharacterDeleted, CharacterError, CharacterRecord, CharacterRepository, stamp
from bot.deadline import FORM_COMMAND
from bot.errors import UserError
from bot.rules import health as health_input
from bot.rules import rulesets
from bot.rules.audience import Viewer
from bot.rules.names import WEAPON, clean_name
from bot.rules.sheets.base import SheetError, allowed, character_name, name_key, parse_pairs
from bot.rules.sheets.transfer import MAX_CHARACTERS, MAX_IMPORT_BYTES, ImportPlan, Portable, dump_export, plan_import
from bot.tree import report
from bot.ui.characters import done_embed, list_pages, sheet_embed
from bot.ui.embeds import clip, error_embed, paged
from bot.ui.views import Confirm
from cogs._audience import viewer
from cogs._lists import ListPage, page_view
from cogs._shared import Interaction, NotYours, find, find_own, guild_of

EDIT_TIMEOUT = 15 * 60.0  # as long as Discord lets the bot answer the interaction that opened the form
RULESET_CHOICES = [app_commands.Choice(name=r.title, value=r.key) for r in rulesets.every()]


@app_commands.guild_only()
class Characters(commands.GroupCog, group_name="character", group_description="Your characters in this server"):
    """Stat blocks per user, server and ruleset."""

    weapon = app_commands.Group(name="weapon", description="Add or remove a character's weapons")

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        super().__init__()

    # -- autocomplete ------------------------------------------------------------------------------------
    async def own_characters(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Your characters whose name contains what you typed."""
        return await self._suggest(interaction, current, owner_id=interaction.user.id)

    async def any_characters(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Characters of the chosen user (default: you) whose name contains what you typed."""
        user = getattr(interaction.namespace, "user", None)
        return await self._suggest(interaction, current, owner_id=user.id if user else interaction.user.id)

    async def _suggest(
        self, interaction: Interaction, current: str, *, owner_id: int
    ) -> list[app_commands.Choice[str]]:
        if interaction.guild_id is None:
            return []
        asker = await viewer(self.bot, interaction)
        async with self.bot.database.read() as session:
            found = await CharacterRepository(session).summaries(
                guild_id=interaction.guild_id, owner_id=owner_id, text=current.lstrip("#"), shown_to=asker
            )
        return [
            app_commands.Choice(name=clip(f"{s.name} · {rulesets.get(s.ruleset).title}", 100), value=f"#{s.id}")
            for s in found
        ]

    async def settable_fields(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The fields of the chosen character's ruleset, with what each accepts; short names and `feat` work."""
        record = await self._chosen(interaction)
        if record is None:
            return []
        sheet = record.ruleset.sheet
        return [
            app_commands.Choice(name=clip(f"{key}: {allowed(sheet, key)}", 100), value=key)
            for key in record.ruleset.fields_matching(current)
        ][:25]

    async def field_values(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The chosen field's choices (an SRD armor or shield by name for D&D's `armor` and `shield`)."""
        record = await self._chosen(interaction)
        typed = getattr(interaction.namespace, "field", None)
        if record is None or not typed:
            return []
        try:
            key = record.ruleset.field_named(typed)
        except SheetError:
            return []
        found = [v for v in record.ruleset.sheet.suggested(key) if current.lower() in v.lower()]
        return [app_commands.Choice(name=v, value=v) for v in found][:25]

    async def table_weapons(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Weapons of the chosen character's ruleset table (D&D's SRD, Star Frontiers'), matching what was typed."""
        record = await self._chosen(interaction)
        names = rulesets.get(record.ruleset.key).weapon_table() if record is not None else ()
        return [app_commands.Choice(name=n, value=n) for n in names if current.lower() in n.lower()][:25]

    async def _chosen(self, interaction: Interaction) -> CharacterRecord | None:
        """For autocomplete: the character already filled in the `character` option, if it names one."""
        text = getattr(interaction.namespace, "character", None)
        if not text or interaction.guild_id is None:
            return None
        async with self.bot.database.read() as session:
            try:
                return await find(CharacterRepository(session), interaction, text)
            except UserError:
                return None

    # -- commands ----------------------------------------------------------------------------------------
    @app_commands.command(name="create")
    @app_commands.choices(ruleset=RULESET_CHOICES)
    async def create(self, interaction: Interaction, ruleset: str, name: app_commands.Range[str, 1, 32]) -> None:
        """Create a character with default numbers; change them with /character set or edit.

        Args:
            ruleset: The game the character is for
            name: Its name, unique among your characters of that game here (any case)
        """
        guild_id = guild_of(interaction)
        rules = rulesets.get(ruleset)
        name = character_name(name)
        async with self.bot.database.write.begin() as session:
            repository = CharacterRepository(session)
            record = await repository.create(
                guild_id=guild_id,
                owner_id=interaction.user.id,
                rules=rules,
                name=name,
                sheet=rules.blank(),
                now=self.bot.clock(),
            )
            # The first character of a ruleset is the one rolls use until another is chosen.
            first = await repository.set_active_if_none(record, user_id=interaction.user.id)
        pages = paged(sheet_embed(record, active=first), footer_everywhere=True)
        await interaction.response.send_message(
            content=f"Created **{record.name}**. Change numbers with `/character set` or `/character edit`.",
            embed=pages[0],
            view=sheet_view(record, 1, len(pages)),
            ephemeral=True,
        )

    @app_commands.command(name="show")
    @app_commands.autocomplete(character=any_characters)
    async def show(
        self,
        interaction: Interaction,
        character: str | None = None,
        user: discord.User | None = None,
        private: bool = False,
    ) -> None:
        """Show a character sheet to the channel, derived values included; a secret one's numbers to its owner.

        Args:
            character: Which character (default: the only or active one)
            user: Whose character (default: yours)
            private: Show it to you only
        """
        guild_id = guild_of(interaction)
        owner = user or interaction.user
        # A secret is not even named to whoever may not see it: for them it does not exist. Its sheet goes to
        # whoever may see it privately, so they are the answer's reader whatever `private` says.
        asker = await viewer(self.bot, interaction)
        async with self.bot.database.read() as session:
            repository = CharacterRepository(session)
            if character is None:
                record = await self._default(repository, guild_id, owner.id, asker)
            else:
                record = await find(repository, interaction, character, owner_id=owner.id, shown_to=asker)
            active = record.id in await repository.active_ids(guild_id=guild_id, user_id=record.owner_id)
        # A secret's numbers go to whoever may see them, never to the channel.
        pages = paged(sheet_embed(record, active=active), footer_everywhere=True)
        await interaction.response.send_message(
            embed=pages[0], view=sheet_view(record, 1, len(pages)), ephemeral=private or record.secret
        )

    async def _default(
        self, repository: CharacterRepository, guild_id: int, owner_id: int, asker: Viewer
    ) -> CharacterRecord:
        owned = [r for r in await repository.owned(guild_id=guild_id, owner_id=owner_id) if r.may_see(asker)]
        if len(owned) == 1:
            return owned[0]
        active = await repository.active_ids(guild_id=guild_id, user_id=owner_id)
        chosen = [r for r in owned if r.id in active]
        if len(chosen) == 1:
            return chosen[0]
        if not owned:
            raise CharacterError("No characters here yet. `/character create` makes one.", title="No characters")
        raise CharacterError("Several characters here: name one (autocomplete lists them).", title="Which one?")

    @app_commands.command(name="list")
    async def list_(self, interaction: Interaction, user: discord.User | None = None) -> None:
        """List the characters of a user in this server.

        Args:
            user: Whose characters (default: yours)
        """
        owner = user or interaction.user
        pages = await character_pages(self.bot, interaction, owner.id)
        view = page_view(CharacterListPage, interaction.user.id, 1, len(pages), owner.id)
        await interaction.response.send_message(embed=pages[0], view=view, ephemeral=True)

    @app_commands.command(name="use")
    @app_commands.autocomplete(character=own_characters)
    async def use(self, interaction: Interaction, character: str) -> None:
        """Roll with this character when a roll of its game names none.

        Args:
            character: One of your characters
        """
        async with self.bot.database.write.begin() as session:
            repository = CharacterRepository(session)
            record = await find_own(repository, interaction, character)
            await repository.set_active(record, user_id=interaction.user.id)
        message = f"Your {record.ruleset.title} rolls now use **{record.name}**."
        await interaction.response.send_message(embed=done_embed("Active character", message), ephemeral=True)

    @app_commands.command(name="secret")
    @app_commands.autocomplete(character=own_characters)
    async def secret(self, interaction: Interaction, character: str, secret: bool = True) -> None:
        """Keep a character to yourself and the game masters (a monster the table sees only in a fight).

        Args:
            character: One of your characters
            secret: true keeps it yours and the game masters'; false shows it to everyone again
        """
        async with self.bot.database.write.begin() as session:
            repository = CharacterRepository(session)
            record = await find_own(repository, interaction, character)
            record = await repository.set_secret(record, secret, now=self.bot.clock())
        if secret:
            message = (
                f"**{record.name}** is now yours and the game masters': others do not find it in lists, sheets or "
                "suggestions, a fight shows them how hurt it looks, and attacks against it leave its numbers out "
                "(`vs AC ?`, `Defense: the GM's secret`); the GM channel and you see them in full."
            )
        else:
            message = f"**{record.name}**'s numbers are shown to everyone again."
        await interaction.response.send_message(embed=done_embed("Secret", message), ephemeral=True)

    @app_commands.command(name="set")
    @app_commands.autocomplete(character=own_characters, field=settable_fields, value=field_values)
    async def set_(
        self,
        interaction: Interaction,
        character: str,
        field: app_commands.Range[str, 1, 40] | None = None,
        value: app_commands.Range[str, 0, 400] | None = None,
        values: app_commands.Range[str, 1, 1000] | None = None,
    ) -> None:
        """Change numbers or lists of a character: one field, or several at once; errors say what is allowed.

        Args:
            character: One of your characters
            field: What to change: its name or a short one (str, dex, hp); autocomplete lists them
            value: The new value: a number (hp: +5 adds, -3 loses, 28 sets), yes/no, a choice, or a list
            values: Several at once, e.g. str=12 dex=17 hp=28/28 bab=3 (hp=now/max; hp=+5 adds, hp=-3 loses)
        """
        pairs = _pairs(field, value, values)
        async with self.bot.database.write.begin() as session:
            repository = CharacterRepository(session)
            record = await find_own(repository, interaction, character)
            before = record.sheet
            sheet = record.ruleset.set_fields(before, pairs)
            record = await repository.save(record, sheet, now=self.bot.clock())
        changes = [
            f"`{key}` {_show(getattr(before, key))} → {_show(getattr(sheet, key))}"
            for key in record.ruleset.sheet.settable
            if getattr(before, key) != getattr(sheet, key)
        ]
        message = f"**{record.name}**: " + ("; ".join(changes) if changes else "nothing changed")
        await interaction.response.send_message(embed=done_embed("Saved", clip(message, 4000)), ephemeral=True)

    @app_commands.command(name="hp")
    @app_commands.rename(maximum="max")
    @app_commands.autocomplete(character=any_characters)
    async def hp(
        self,
        interaction: Interaction,
        character: str,
        change: app_commands.Range[str, 1, 20],
        maximum: app_commands.Range[str, 1, 20] | None = None,
    ) -> None:
        """Change a character's hit points (Star Frontiers: stamina): -13 hurts, +5 heals, =28 sets.

        Args:
            character: The character: yours, or anyone's here if you have Manage Server (the game master)
            change: -13 (lose 13), +5 (heal 5, up to the maximum), =28 (set), =28/30 (now and maximum)
            maximum: Change the maximum too: +5, -2 or =30
        """
        told = health_input.read_change(change, what="`change`", signed=True)
        told_maximum = None
        if maximum is not None:
            told_maximum = health_input.read_change(maximum, what="`max`", signed=True, with_maximum=False)
        asker = await viewer(self.bot, interaction)  # someone else's secret is not even named to them
        async with self.bot.database.write.begin() as session:
            repository = CharacterRepository(session)
            record = await find(repository, interaction, character, for_update=True, shown_to=asker)
            if record.owner_id != interaction.user.id and not asker.game_master:
                raise NotYours(
                    f"**{record.name}** belongs to <@{record.owner_id}>; only they or a game master can change its "
                    "hit points."
                )
            before = record.sheet
            sheet = record.ruleset.change_health(before, told, told_maximum)
            record = await repository.save(record, sheet, now=self.bot.clock())
        health = record.ruleset.sheet.health
        assert health is not None  # change_health refused a ruleset without
        now_key, top_key = health
        was, now, top = getattr(before, now_key), getattr(sheet, now_key), getattr(sheet, top_key)
        word = rulesets.get(record.ruleset.key).health
        message = f"**{record.name}**: {word} {was} → **{now}** of {top}"
        if getattr(before, top_key) != top:
            message += f" (maximum was {getattr(before, top_key)})"
        undo = f"`/character hp character:#{record.id} change:={was}"
        undo += f"/{getattr(before, top_key)}`" if getattr(before, top_key) != top else "`"
        message += f"\nTo undo: {undo}"
        await interaction.response.send_message(embed=done_embed("Hit points", message), ephemeral=True)

    @app_commands.command(name="edit", extras={FORM_COMMAND: True})
    @app_commands.autocomplete(character=own_characters)
    async def edit(self, interaction: Interaction, character: str) -> None:
        """Change a character's core numbers in a form.

        Args:
            character: One of your characters
        """
        asker = await viewer(self.bot, interaction)  # someone else's secret is not even named to them
        async with self.bot.database.read() as session:
            record = await find(CharacterRepository(session), interaction, character, shown_to=asker)
        if record.owner_id != interaction.user.id:
            raise NotYours(f"**{record.name}** belongs to <@{record.owner_id}>; only they can change it.")
        await interaction.response.send_modal(EditForm(self.bot, record, opened=interaction))

    @weapon.command(name="add")
    @app_commands.autocomplete(character=own_characters, name=table_weapons)
    async def weapon_add(
        self,
        interaction: Interaction,
        character: str,
        name: app_commands.Range[str, 1, 40],
        details: app_commands.Range[str, 0, 400] = "",
    ) -> None:
        """Give a character a weapon: a table weapon by name, or your own with details.

        Args:
            character: One of your characters
            name: The weapon's name
            details: key=value pairs, e.g. damage=1d8 threat=19 (a wrong key lists the right ones)
        """
        async with self.bot.database.write.begin() as session:
            repository = CharacterRepository(session)
            record = await find_own(repository, interaction, character)
            if not details.strip():
                _check_table_weapon(record.ruleset.key, record.ruleset.title, clean_name(name, WEAPON))
            sheet = record.ruleset.add_weapon(record.sheet, name, details)
            record = await repository.save(record, sheet, now=self.bot.clock())
        added = sheet.weapons[-1].name  # type: ignore[attr-defined]
        pages = paged(sheet_embed(record), footer_everywhere=True)
        await interaction.response.send_message(
            content=f"Added **{added}**.", embed=pages[0], view=sheet_view(record, 1, len(pages)), ephemeral=True
        )

    @weapon.command(name="remove")
    @app_commands.autocomplete(character=own_characters)
    async def weapon_remove(
        self, interaction: Interaction, character: str, name: app_commands.Range[str, 1, 40]
    ) -> None:
        """Take a weapon away from a character.

        Args:
            character: One of your characters
            name: The weapon's name
        """
        async with self.bot.database.write.begin() as session:
            repository = CharacterRepository(session)
            record = await find_own(repository, interaction, character)
            sheet = record.ruleset.remove_weapon(record.sheet, name)
            record = await repository.save(record, sheet, now=self.bot.clock())
        await interaction.response.send_message(
            embed=done_embed("Removed", f"**{record.name}** no longer carries **{name}**."), ephemeral=True
        )

    @app_commands.command(name="rename")
    @app_commands.autocomplete(character=own_characters)
    async def rename(self, interaction: Interaction, character: str, new_name: app_commands.Range[str, 1, 32]) -> None:
        """Give a character another name.

        Args:
            character: One of your characters
            new_name: The new name, unique among your characters of that game here
        """
        new_name = character_name(new_name)
        async with self.bot.database.write.begin() as session:
            repository = CharacterRepository(session)
            record = await find_own(repository, interaction, character)
            old = record.name
            record = await repository.rename(record, new_name, now=self.bot.clock())
        message = f"**{old}** is now **{record.name}**."
        await interaction.response.send_message(embed=done_embed("Renamed", message), ephemeral=True)

    @app_commands.command(name="delete")
    @app_commands.autocomplete(character=any_characters)
    async def delete(self, interaction: Interaction, character: str, user: discord.User | None = None) -> None:
        """Delete a character, after you confirm.

        Args:
            character: One of your characters (moderators: any character here)
            user: Whose character, for moderators (default: yours)
        """
        owner = user or interaction.user
        asker = await viewer(self.bot, interaction)  # someone else's secret is not even named to them
        async with self.bot.database.read() as session:
            record = await find(CharacterRepository(session), interaction, character, owner_id=owner.id, shown_to=asker)
        if record.owner_id != interaction.user.id and not asker.game_master:
            raise NotYours(
                f"**{record.name}** belongs to <@{record.owner_id}>; only they (or a game master) can delete it."
            )

        async def delete_it(click: Interaction) -> discord.Embed:
            async with self.bot.database.write.begin() as session:
                repository = CharacterRepository(session)
                current = await repository.again(record, for_update=True)
                if current is None:
                    return done_embed("Already gone", f"**{record.name}** was deleted meanwhile.")
                await repository.delete(current)
            return done_embed("Deleted", f"**{record.name}** is gone.")

        question = discord.Embed(
            title=f"Delete {record.name}?",
            description=f"The {record.ruleset.title} character **{record.name}** of <@{record.owner_id}> will be "
            "deleted for good. Export it first if you may want it back.",
            colour=discord.Colour.orange(),
        )
        view = Confirm(interaction.user.id, delete_it, label="Delete")
        await interaction.response.send_message(embed=question, view=view, ephemeral=True)

    @app_commands.command(name="export")
    async def export(self, interaction: Interaction) -> None:
        """Download all your characters in this server as a JSON file (import takes it back)."""
        guild_id = guild_of(interaction)
        async with self.bot.database.read() as session:
            owned = await CharacterRepository(session).owned(guild_id=guild_id, owner_id=interaction.user.id)
        data = dump_export([_portable(r) for r in owned], exported_at=self.bot.clock())
        file = discord.File(io.BytesIO(data), filename="characters.json")
        message = f"{len(owned)} character{'s' if len(owned) != 1 else ''}. `/character import` takes this file back."
        await interaction.response.send_message(content=message, file=file, ephemeral=True)

    @app_commands.command(name="import")
    async def import_(self, interaction: Interaction, file: discord.Attachment) -> None:
        """Load characters from an exported JSON file; shows what will change and asks first.

        Args:
            file: A file made by /character export
        """
        guild_id = guild_of(interaction)
        if file.size > MAX_IMPORT_BYTES:
            raise UserError(
                f"That file is {file.size // 1024} KB; an export of 50 characters is far smaller, so the limit is "
                f"{MAX_IMPORT_BYTES // 1024} KB.",
                title="File too large",
            )
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            raw = await file.read()
        except discord.HTTPException:
            raise UserError(
                "Discord could not hand me the file (it may have expired): upload it again.", title="Upload failed"
            ) from None
        async with self.bot.database.read() as session:
            owned = await CharacterRepository(session).summaries(
                guild_id=guild_id, owner_id=interaction.user.id, limit=MAX_CHARACTERS + 1
            )
        # Parsed and checked in the worker process: validating 50 blocks of 16 KB held the loop for 263-310 ms.
        plan = await offload.in_process(plan_import, raw, [(c.ruleset, c.name) for c in owned])

        async def import_it(click: Interaction) -> discord.Embed:
            async with self.bot.database.write.begin() as session:
                created, replaced = await apply_import(
                    CharacterRepository(session), plan, guild_id=guild_id, owner_id=interaction.user.id, bot=self.bot
                )
            return done_embed("Imported", f"Created {created}, replaced {replaced}.")

        summary = discord.Embed(
            title="Import these characters?", description=plan.summary(), colour=discord.Colour.orange()
        )
        await interaction.followup.send(embed=summary, view=Confirm(interaction.user.id, import_it, label="Import"))

    @app_commands.command(name="forget-me")
    async def forget_me(self, interaction: Interaction) -> None:
        """Delete everything the bot keeps about you in this server, after you confirm."""
        guild_id = guild_of(interaction)

        async def forget(click: Interaction) -> discord.Embed:
            async with self.bot.database.write.begin() as session:
                characters, rolls = await CharacterRepository(session).forget(
                    guild_id=guild_id, user_id=interaction.user.id
                )
            return done_embed("Forgotten", f"Deleted {characters} characters and {rolls} logged rolls.")

        question = discord.Embed(
            title="Forget everything about you here?",
            description="All your characters in this server and your rolls in its log will be deleted for good, "
            "except rolls of fair sessions: those are the channel's proof, kept until the log's retention ends. "
            "`/character export` first keeps a copy of your characters.",
            colour=discord.Colour.orange(),
        )
        await interaction.response.send_message(
            embed=question, view=Confirm(interaction.user.id, forget, label="Forget me"), ephemeral=True
        )


async def apply_import(
    repository: CharacterRepository, plan: ImportPlan, *, guild_id: int, owner_id: int, bot: DiceBot
) -> tuple[int, int]:
    """Write an import in the caller's transaction: replace same-named characters, create the rest.

    The plan's blocks were checked in the worker process (`plan_import`): they are written, not validated again.
    """
    created = replaced = 0
    now = bot.clock()
    for item in plan.characters:
        if await repository.put(
            guild_id=guild_id, owner_id=owner_id, rules=item.ruleset, name=item.name, sheet=item.sheet, now=now
        ):
            replaced += 1
        else:
            created += 1
    return created, replaced


async def character_pages(bot: DiceBot, interaction: Interaction, owner_id: int) -> list[discord.Embed]:
    """The characters of `owner_id` in this server, as the asker may see them, in pages."""
    guild_id = guild_of(interaction)
    async with bot.database.read() as session:
        repository = CharacterRepository(session)
        # A game master's secret characters are listed to whoever may see them only, and not counted either.
        found = await repository.summaries(
            guild_id=guild_id, owner_id=owner_id, limit=1000, shown_to=await viewer(bot, interaction)
        )
        active = await repository.active_ids(guild_id=guild_id, user_id=owner_id)
    return list_pages(found, owner_id=owner_id, active=active)


class CharacterListPage(
    ListPage, template=r"characters:(?P<asker>[0-9]{1,20}):(?P<page>[0-9]{1,3}):(?P<owner>[0-9]{1,20})"
):
    """A page of /character list, read again from the store as the asker may see it."""

    prefix = "characters"

    async def pages(self, interaction: Interaction) -> list[discord.Embed]:
        """The owner's characters in the server the button is pressed in."""
        return await character_pages(interaction.client, interaction, *self.args)


class EditForm(discord.ui.Modal):
    """The core numbers of a character in one form; saved only if nobody changed it meanwhile."""

    def __init__(self, bot: DiceBot, record: CharacterRecord, *, opened: Interaction) -> None:
        # discord.py keeps open forms by custom id alone: with one fixed id, whoever opened a form last received
        # every submission, and another user's numbers were saved into their character. So one id per opening,
        # and a timeout, so that forms closed without submitting do not pile up.
        super().__init__(
            title=clip(f"Edit {record.name}", 45), custom_id=f"character-edit:{opened.id}", timeout=EDIT_TIMEOUT
        )
        self.bot = bot
        self.record = record
        self.user_id = opened.user.id
        self.inputs: dict[str, discord.ui.TextInput[EditForm]] = {}
        self.shown: dict[str, str] = {}  # what each input held when the form opened
        health = record.ruleset.sheet.health
        for key in record.ruleset.sheet.core:
            label, default, placeholder = key.replace("_", " ").title(), _show(getattr(record.sheet, key)), None
            if health is not None and key == health[0]:
                # The form has room for five inputs: the maximum shares its box, as in `hp=28/30`.
                label, default = f"{label} (now/max)", f"{default}/{_show(getattr(record.sheet, health[1]))}"
                placeholder = "now/max, e.g. 28/30"
            text_input: discord.ui.TextInput[EditForm] = discord.ui.TextInput(
                label=clip(label, 45),
                custom_id=key,
                default=default,
                placeholder=clip(placeholder or allowed(record.ruleset.sheet, key), 100),
                max_length=200,
                required=False,
            )
            self.inputs[key] = text_input
            self.shown[key] = default
            self.add_item(text_input)

    # Any client's interaction: discord.py declares a form's own methods generic over the client, so an override
    # cannot narrow them to the bot (the form keeps it as `self.bot`).
    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """Only the user the form was shown to can submit it, in the character's server (the id is the client's)."""
        if interaction.user.id == self.user_id and interaction.guild_id == self.record.guild_id:
            return True
        embed = error_embed("Not your form", "Only the person who opened this form can submit it.")
        await interaction.response.send_message(embed=embed, ephemeral=True)
        return False

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        """Validate every field, then save against the version the form was opened at."""
        # Only the inputs the player changed: Star Frontiers shows the maximum Stamina twice (STA, and after the
        # current Stamina), and the box left as it was must not undo the one that was changed.
        pairs = [
            (key, text_input.value) for key, text_input in self.inputs.items() if text_input.value != self.shown[key]
        ]
        sheet = self.record.ruleset.set_fields(self.record.sheet, pairs)
        async with self.bot.database.write.begin() as session:
            repository = CharacterRepository(session)
            if await repository.again(self.record) is None:
                raise CharacterDeleted(self.record.name, "Nothing was saved.")
            record = await repository.save(self.record, sheet, now=self.bot.clock())
        pages = paged(sheet_embed(record), footer_everywhere=True)
        await interaction.response.send_message(embed=pages[0], view=sheet_view(record, 1, len(pages)), ephemeral=True)

    # discord.py's Modal.on_error itself drops the `item` argument of the View method it overrides.
    async def on_error(self, interaction: discord.Interaction[Any], error: Exception, /) -> None:  # type: ignore[override]
        """Failures go through the same funnel as commands."""
        await report(interaction, error)


def _pairs(field: str | None, value: str | None, values: str | None) -> list[tuple[str, str]]:
    """The (field, value) pairs one `/character set` asks for: `field` with `value`, then those of `values`."""
    if field is None and value is None and values is None:
        raise SheetError("Give `field` and `value`, or several at once: `values:str=12 dex=17 hp=28/28`.")
    if (field is None) != (value is None):
        missing = "value" if value is None else "field"
        raise SheetError(f"`field` and `value` go together: add `{missing}`, or use `values:str=12 dex=17`.")
    pairs = [] if field is None or value is None else [(field, value)]
    return pairs + (parse_pairs(values) if values is not None else [])


def _check_table_weapon(key: str, title: str, name: str) -> None:
    """A weapon added by name alone must be a table weapon: a misspelled one would fail only at the first shot."""
    rules = rulesets.get(key)
    names = rules.weapon_table()
    if not names or rules.reads_weapon(name):
        return
    keys = {name_key(n): n for n in names}
    if name_key(name) in keys:
        return
    close = difflib.get_close_matches(name_key(name), list(keys), n=3, cutoff=0.6)
    hint = f" Did you mean {' or '.join(f'**{keys[k]}**' for k in close)}?" if close else ""
    raise SheetError(
        f"**{clip(name, 40)}** is not in the {title} weapon table.{hint} Autocomplete lists the table; for a "
        "weapon of your own, give its `details` (a wrong key lists the right ones).",
        title="Unknown weapon",
    )


def _portable(record: CharacterRecord) -> Portable:
    return Portable(record.ruleset, record.name, record.sheet)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value)) or "none"
    return "none" if value is None or value == "" else str(value)


class SheetPage(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sheet:(?P<id>[0-9]+):(?P<page>[0-9]{1,2})(?::(?P<born>[0-9]{1,20}))?",
):
    """Show another page of a character sheet, read again from the store, so it works after a restart too.

    The custom id is the client's: the character must be of this server, and a secret one's numbers go only to
    whoever may see them, privately (editing the message would show them to the channel). It carries when the
    character was created (`bot.db.characters.stamp`), so a button of a deleted character never shows a newer one
    that a database from before migration 0020 gave its id; a button made before it was carried does without.
    """

    def __init__(self, character_id: int, page: int, born: int | None = None) -> None:
        custom_id = f"sheet:{character_id}:{page}" + (f":{born}" if born is not None else "")
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=f"Page {page}", style=discord.ButtonStyle.secondary, custom_id=custom_id
        )
        super().__init__(button)
        self.character_id = character_id
        self.page = page
        self.born = born

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> SheetPage:
        """Rebuild the button from a click."""
        return cls(int(match["id"]), int(match["page"]), int(match["born"]) if match["born"] else None)

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        """A press counts against the presser's rate limit, as a command would."""
        return bool(await interaction.client.tree.admit(interaction))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Edit the sheet to the page (privately for a secret one)."""
        try:
            guild_id = guild_of(interaction)
            async with interaction.client.database.read() as session:
                repository = CharacterRepository(session)
                record = await repository.get(self.character_id, guild_id=guild_id)
                # A forged id of a secret is as gone as a deleted one to whoever may not see it: not even its name.
                if (
                    record is None
                    or (self.born is not None and self.born != stamp(record.created_at))
                    or not record.may_see(await viewer(interaction.client, interaction))
                ):
                    raise CharacterError("This character was deleted.", title="Character deleted")
                active = record.id in await repository.active_ids(guild_id=guild_id, user_id=record.owner_id)
            pages = paged(sheet_embed(record, active=active), footer_everywhere=True)
            page = min(self.page, len(pages))
            view = sheet_view(record, page, len(pages))
            if record.secret:
                await interaction.response.send_message(embed=pages[page - 1], view=view, ephemeral=True)
            else:
                await interaction.response.edit_message(embed=pages[page - 1], view=view)
        except Exception as error:
            await report(interaction, error)


def sheet_view(record: CharacterRecord, page: int, pages: int) -> discord.ui.View:
    """Buttons to the pages before and after `page` of a sheet `pages` long (none for a one-page sheet)."""
    view = discord.ui.View(timeout=None)
    for n in (page - 1, page + 1):
        if 1 <= n <= pages:
            view.add_item(SheetPage(record.id, n, stamp(record.created_at)))
    return view


async def setup(bot: DiceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Characters(bot))
    bot.add_dynamic_items(SheetPage, CharacterListPage)
