"""The rules variants a server uses: anyone may look (/house-rules), Manage Server changes them (/settings).

Discord hides a command from members by its default member permissions, which only a top-level command carries:
so the commands that need Manage Server are one group, `/settings`, offered only to members who have it (a
server's admins may grant it further under Integrations), and each still checks the permission itself, since the
server's admins can change who sees it. What every member may use is beside it: `/house-rules` shows the
settings and `/answers` is a user's own choice, in every server and in direct messages too.
"""

from __future__ import annotations

from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import DiceBot
from bot.db.settings import GM_CHANNEL, PreferencesRepository, SettingsRepository
from bot.errors import UserError
from bot.rules import settings as rules_settings
from bot.rules.settings import SETTINGS
from bot.ui.characters import done_embed
from bot.ui.embeds import ROLL_COLOUR, clip, paged
from cogs._audience import can_moderate
from cogs._buttons import Pressed
from cogs._shared import Interaction, guild_of

# Where the bot can post a message: text and announcement channels and their threads. Not categories, forums
# or media channels (posts there are threads), nor voice and stage channels.
TEXT_CHANNELS = (
    discord.ChannelType.text,
    discord.ChannelType.news,
    discord.ChannelType.public_thread,
    discord.ChannelType.private_thread,
    discord.ChannelType.news_thread,
)
GmChannel = app_commands.AppCommandChannel | app_commands.AppCommandThread


class PostableChannel(app_commands.Transformer):
    """A channel option whose picker lists only TEXT_CHANNELS; the value is Discord's resolved channel."""

    @property
    def type(self) -> discord.AppCommandOptionType:
        """A channel option."""
        return discord.AppCommandOptionType.channel

    @property
    def channel_types(self) -> list[discord.ChannelType]:
        """What Discord's picker offers."""
        return list(TEXT_CHANNELS)

    # Any client's interaction: discord.py's Transformer.transform takes any client's, so an override cannot narrow it.
    async def transform(self, interaction: discord.Interaction[Any], value: Any, /) -> GmChannel:
        """The channel as Discord resolved it (no cache is needed to save its id)."""
        if not isinstance(value, (app_commands.AppCommandChannel, app_commands.AppCommandThread)):
            raise app_commands.TransformerError(value, self.type, self)
        return value


class ModeratorsGroup(app_commands.Group):
    """A top-level group offered to the members with its default permissions only, in servers only."""

    def to_dict(self, tree: app_commands.CommandTree[Any]) -> dict[str, Any]:
        """The group as a sync sends it, its permission bit set a string of digits as Discord's schema writes it.

        discord.py sends the integer, which Discord's API schema does not describe.
        """
        payload = super().to_dict(tree)
        if payload.get("default_member_permissions") is not None:
            payload["default_member_permissions"] = str(payload["default_member_permissions"])
        return payload


class Settings(commands.Cog):
    """Per-server variant readings of the rules, the GM channel and the game master role: for Manage Server."""

    group = ModeratorsGroup(
        name="settings",
        description="Change this server's rules and game masters (Manage Server)",
        guild_only=True,
        allowed_contexts=app_commands.AppCommandContext(guild=True),
        default_permissions=discord.Permissions(manage_guild=True),
    )

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot

    async def keys(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """Every setting, with its title."""
        return [
            app_commands.Choice(name=clip(f"{key}: {spec.title}", 100), value=key)
            for key, spec in SETTINGS.items()
            if current.lower() in key
        ][:25]

    async def values(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The choices of the chosen setting, with what each means."""
        spec = SETTINGS.get(getattr(interaction.namespace, "setting", "") or "")
        if spec is None:
            return []
        return [
            app_commands.Choice(name=clip(f"{value}: {meaning}", 100), value=value)
            for value, meaning in spec.choices.items()
            if current.lower() in value
        ][:25]

    @group.command(name="set")
    @app_commands.autocomplete(setting=keys, value=values)
    async def set_(
        self,
        interaction: Interaction,
        setting: app_commands.Range[str, 1, 64],
        value: app_commands.Range[str, 1, 64],
    ) -> None:
        """Change a rules setting of this server (needs Manage Server).

        Args:
            setting: Which setting (autocomplete lists them)
            value: Its new value (autocomplete lists the choices)
        """
        guild_id = guild_of(interaction)
        if not can_moderate(interaction):
            raise UserError(
                "Changing the rules of this server needs the Manage Server permission.", title="Not allowed"
            )
        spec = rules_settings.setting(setting)
        value = rules_settings.check(spec.key, value)
        async with self.bot.database.write.begin() as session:
            await SettingsRepository(session).set(
                guild_id, spec.key, value, user_id=interaction.user.id, now=self.bot.clock()
            )
        self.bot.forget_server_settings(guild_id)
        message = f"`{spec.key}` is now **{value}**: {spec.choices[value]}."
        await interaction.response.send_message(embed=done_embed("Setting saved", message))

    @group.command(name="gm-channel")
    async def gm_channel(
        self, interaction: Interaction, channel: app_commands.Transform[GmChannel, PostableChannel]
    ) -> None:
        """Name the channel hidden rolls go to (needs Manage Server).

        Args:
            channel: The game master's channel
        """
        guild_id = guild_of(interaction)
        if not can_moderate(interaction):
            raise UserError("Choosing the GM channel needs the Manage Server permission.", title="Not allowed")
        if channel.type not in TEXT_CHANNELS:
            raise UserError(f"{channel.mention} is not a text channel: hidden rolls need one to be posted in.")
        async with self.bot.database.write.begin() as session:
            await SettingsRepository(session).set(
                guild_id, GM_CHANNEL, str(channel.id), user_id=interaction.user.id, now=self.bot.clock()
            )
        message = f"Hidden rolls (`hidden:true` on any roll) now go to {channel.mention}."
        await interaction.response.send_message(embed=done_embed("GM channel saved", message))

    @group.command(name="gm-role")
    async def gm_role(self, interaction: Interaction, role: discord.Role | None = None) -> None:
        """Name the role whose members are game masters here: they see secrets (needs Manage Server).

        Args:
            role: The game masters' role (leave it out: only Manage Server is a game master)
        """
        guild_id = guild_of(interaction)
        if not can_moderate(interaction):
            raise UserError("Choosing the game master role needs the Manage Server permission.", title="Not allowed")
        if role is not None and role.is_default():
            raise UserError(
                "@everyone cannot be the game master role: every member would see every secret. Name a role "
                "only the game masters have.",
                title="Not that role",
            )
        async with self.bot.database.write.begin() as session:
            repository = SettingsRepository(session)
            if role is None:
                await repository.forget(guild_id, rules_settings.GM_ROLE)
            else:
                await repository.set(
                    guild_id, rules_settings.GM_ROLE, str(role.id), user_id=interaction.user.id, now=self.bot.clock()
                )
        self.bot.forget_server_settings(guild_id)
        if role is None:
            message = "Only members with Manage Server are game masters here now."
        else:
            message = (
                f"Members of {role.mention} are game masters here now, as Manage Server is: they see secret "
                "characters' numbers and hidden rolls, and run any fight."
            )
        await interaction.response.send_message(embed=done_embed("Game master role saved", message))


class HouseRules(commands.Cog):
    """What every member may use: this server's settings to read, and their own choice of answers."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot

    @app_commands.command(name="house-rules")
    @app_commands.guild_only()
    async def show(self, interaction: Interaction) -> None:
        """Show this server's rules settings and what each choice means."""
        pages = await settings_pages(self.bot, interaction)
        await interaction.response.send_message(embed=pages[0], view=settings_view(1, len(pages)), ephemeral=True)

    @app_commands.command(name="answers")
    async def answers(self, interaction: Interaction, start: Literal["short", "full", "server"]) -> None:
        """Your own choice, in every server: start your roll answers short or full.

        Args:
            start: short (the outcome and odds), full (every step), or server (each server's choice)
        """
        chosen = None if start == "server" else start
        async with self.bot.database.write.begin() as session:
            await PreferencesRepository(session).set_answers(interaction.user.id, chosen, now=self.bot.clock())
        self.bot.forget_user_answers(interaction.user.id)
        if chosen is None:
            message = "Your roll answers start as each server chose (`/house-rules`)."
        else:
            message = f"Your roll answers now start **{chosen}** in every server; Details switches them."
        await interaction.response.send_message(embed=done_embed("Your answers", message), ephemeral=True)


async def settings_pages(bot: DiceBot, interaction: Interaction) -> list[discord.Embed]:
    """This server's settings, each with what its choice means, in pages that fit a phone screen."""
    async with bot.database.read() as session:
        current = await SettingsRepository(session).effective(guild_of(interaction))
    embed = discord.Embed(title="Rules settings of this server", colour=ROLL_COLOUR)
    for key, spec in SETTINGS.items():
        value = current[key]
        default = " (default)" if value == spec.default else ""
        embed.add_field(
            name=clip(spec.title, 256),
            value=clip(f"`{key}` = **{value}**{default}: {spec.choices[value]}\n{spec.help}", 1024),
            inline=False,
        )
    embed.set_footer(text="Members with Manage Server change them with /settings set; /answers is yours.")
    return paged(embed)


class SettingsPage(Pressed, template=r"settings:(?P<page>[0-9]{1,2})"):
    """Show another page of /house-rules, read again from the store (so it works after a restart too)."""

    def __init__(self, page: int) -> None:
        super().__init__(
            discord.ui.Button(label=f"Page {page}", style=discord.ButtonStyle.secondary, custom_id=f"settings:{page}")
        )
        self.page = page

    async def press(self, interaction: Interaction) -> None:
        """Edit the message to the page: anyone may read the settings of the server it is pressed in."""
        pages = await settings_pages(interaction.client, interaction)
        page = min(self.page, len(pages))
        await interaction.response.edit_message(embed=pages[page - 1], view=settings_view(page, len(pages)))


def settings_view(page: int, pages: int) -> discord.ui.View:
    """Buttons to the pages before and after `page` of /house-rules."""
    view = discord.ui.View(timeout=None)
    for n in (page - 1, page + 1):
        if 1 <= n <= pages:
            view.add_item(SettingsPage(n))
    return view


async def setup(bot: DiceBot) -> None:
    """Load the cog."""
    await bot.add_cog(Settings(bot))
    await bot.add_cog(HouseRules(bot))
    bot.add_dynamic_items(SettingsPage)
