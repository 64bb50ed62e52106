"""The bot's two seams with Discord's API that are not discord.py's own: where it connects, what a sync sends.

Production code reaches Discord only through discord.py; these two helpers are what the running bot, the
deploy steps and saved rolls need besides. The local double (bot/local) uses them too, never the reverse.
"""

from __future__ import annotations

from typing import Any

import discord.gateway
import discord.http
import yarl
from discord import app_commands


def point_discord_at(api_base: str | None, gateway_url: str | None) -> None:
    """Send discord.py's REST requests to `api_base` and its gateway connection to `gateway_url`.

    Both are class attributes read whenever a request or connection is made, so this reaches interaction
    responses too (they bypass `HTTPClient.request`, which is why patching that is not enough). `None`
    leaves Discord's own endpoint in place.
    """
    if api_base:
        discord.http.Route.BASE = api_base.rstrip("/")
    if gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


def sync_payload(tree: app_commands.CommandTree[Any]) -> list[dict[str, Any]]:
    """Exactly what `tree.sync()` would send for the global scope, built without a network."""
    return [command.to_dict(tree) for command in tree.get_commands()]
