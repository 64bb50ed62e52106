"""Who is asking, as the audience policy (`bot.rules.audience`) sees them: the one place a cog learns it."""

from __future__ import annotations

import discord

from bot.client import DiceBot
from bot.rules.audience import Viewer
from bot.rules.settings import ServerSettings

Interaction = discord.Interaction[DiceBot]


def can_moderate(interaction: Interaction) -> bool:
    """Whether the asker has Manage Server here (a game master whatever the server's role says)."""
    permissions = interaction.permissions
    return permissions.manage_guild


def is_game_master(interaction: Interaction, settings: ServerSettings) -> bool:
    """One of the server's game masters: Manage Server, or a member of its game master role (`/settings gm-role`).

    The role is read from the guild cache, as discord.py's own `has_role` check reads it.
    """
    if can_moderate(interaction):
        return True
    role, user = settings.gm_role, interaction.user
    return role is not None and isinstance(user, discord.Member) and user.get_role(role) is not None


async def viewer(bot: DiceBot, interaction: Interaction) -> Viewer:
    """Who is asking, as the audience policy (`bot.rules.audience`) sees them."""
    settings = await bot.server_settings(interaction.guild_id)
    return Viewer(interaction.user.id, game_master=is_game_master(interaction, settings))
