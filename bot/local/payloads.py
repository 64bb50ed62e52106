"""Raw gateway payloads, shaped as Discord sends them (discord.py 2.7 reads every key used here)."""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Any

# The bot fills `resolved` users of a saved roll's line with it too; the tests use it for someone not acting.
from bot.commandline import user_object as user_object

DISCORD_EPOCH_MS = 1420070400000
# The permissions of an ordinary member (no Manage Server), and of a moderator who has Manage Server too.
MEMBER_PERMISSIONS = "2248473465835073"
MANAGER_PERMISSIONS = str(int(MEMBER_PERMISSIONS) | 1 << 5)
APPLICATION_ID = "1100000000000000002"
BOT_USER: dict[str, Any] = {
    "id": "1100000000000000001",
    "username": "dicebot",
    "discriminator": "0",
    "global_name": None,
    "avatar": None,
    "bot": True,
    "flags": 0,
}
OWNER: dict[str, Any] = {
    "id": "1100000000000000003",
    "username": "owner",
    "discriminator": "0",
    "global_name": "Owner",
    "avatar": None,
}
JOINED_AT = "2025-01-01T00:00:00+00:00"
# A role of the local server that `/settings gm-role` can name: its members are game masters there.
GM_ROLE = "1100000000000000010"

APPLICATION_COMMAND, COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 2, 3, 4, 5
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
THREAD_TYPES = (10, 11, 12)  # announcement, public and private threads


class Snowflakes:
    """Well-formed, increasing snowflakes; with a fixed `epoch_ms` the sequence is reproducible.

    `after` is a snowflake every new one must exceed (the last id a kept database knows): a fixed `epoch_ms`
    at or before its time moves one millisecond past it, so a second seeded run never repeats the first's ids.
    """

    def __init__(self, epoch_ms: int | None = None, *, after: int | None = None) -> None:
        if epoch_ms is not None and after is not None:
            epoch_ms = max(epoch_ms, (after >> 22) + DISCORD_EPOCH_MS + 1)
        self._epoch_ms = epoch_ms
        self._counter = itertools.count(1)

    def __call__(self) -> str:
        """The next snowflake."""
        now = self._epoch_ms if self._epoch_ms is not None else int(time.time() * 1000)
        return str(((now - DISCORD_EPOCH_MS) << 22) | (next(self._counter) & 0x3FFFFF))


@dataclass(frozen=True, slots=True)
class Actor:
    """Who sends an interaction, and from where (`guild_id=None` for a direct message)."""

    user_id: str
    guild_id: str | None
    channel_id: str
    username: str = ""
    permissions: str = MEMBER_PERMISSIONS
    roles: tuple[str, ...] = ()  # the ids of the server's roles this member has

    @property
    def name(self) -> str:
        """The username, or one made from the id."""
        return self.username or f"player{self.user_id[-4:]}"

    def user(self) -> dict[str, Any]:
        """The user object of this actor."""
        return user_object(self.user_id, self.name)


def member_object(actor: Actor) -> dict[str, Any]:
    """A guild member object with permissions, as interactions carry it."""
    return {
        "user": actor.user(),
        "roles": list(actor.roles),
        "nick": None,
        "avatar": None,
        "flags": 0,
        "joined_at": JOINED_AT,
        "deaf": False,
        "mute": False,
        "permissions": actor.permissions,
        "pending": False,
    }


def channel_object(
    channel_id: str, actor: Actor, *, kind: int = 0, name: str = "", parent_id: str | None = None
) -> dict[str, Any]:
    """A channel as an interaction's `resolved.channels` carries it; a thread has its parent and metadata."""
    channel: dict[str, Any] = {
        "id": channel_id,
        "type": kind,
        "name": name or f"channel-{channel_id[-4:]}",
        "guild_id": actor.guild_id,
        "permissions": actor.permissions,
        "parent_id": parent_id,
    }
    if kind in THREAD_TYPES:
        channel |= {
            "parent_id": parent_id or actor.channel_id,
            "owner_id": actor.user_id,
            "member_count": 1,
            "message_count": 0,
            "thread_metadata": {
                "archived": False,
                "auto_archive_duration": 1440,
                "archive_timestamp": JOINED_AT,
                "locked": False,
            },
        }
    return channel


def role_object(role_id: str, *, name: str = "", permissions: str = MEMBER_PERMISSIONS) -> dict[str, Any]:
    """A role as an interaction's `resolved.roles` carries it."""
    return {
        "id": role_id,
        "name": name or f"role-{role_id[-4:]}",
        "color": 0,
        "hoist": False,
        "icon": None,
        "unicode_emoji": None,
        "position": 1,
        "permissions": permissions,
        "managed": False,
        "mentionable": True,
        "flags": 0,
    }


def interaction(
    ids: Snowflakes,
    actor: Actor,
    kind: int,
    data: dict[str, Any],
    *,
    message: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An INTERACTION_CREATE payload of the given `kind` from `actor`."""
    iid = ids()
    payload: dict[str, Any] = {
        "id": iid,
        "application_id": APPLICATION_ID,
        "type": kind,
        "data": data,
        "token": "aW50ZXJhY3Rpb246" + iid,
        "version": 1,
        "locale": "en-US",
        "app_permissions": MEMBER_PERMISSIONS,
        # discord.py raises KeyError without it.
        "attachment_size_limit": 10 * 1024 * 1024,
        "entitlements": [],
        "authorizing_integration_owners": {"0": actor.guild_id} if actor.guild_id else {"1": actor.user_id},
        "context": 0 if actor.guild_id else 1,
        "channel_id": actor.channel_id,
    }
    if actor.guild_id:
        payload["channel"] = {
            "id": actor.channel_id,
            "type": 0,
            "name": "dice",
            "guild_id": actor.guild_id,
            "position": 0,
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
            "permissions": actor.permissions,
        }
        payload["guild_id"] = actor.guild_id
        payload["guild"] = {"id": actor.guild_id, "locale": "en-US", "features": []}
        payload["guild_locale"] = "en-US"
        payload["member"] = member_object(actor)
    else:
        payload["channel"] = {"id": actor.channel_id, "type": 1, "recipients": [actor.user()], "flags": 0}
        payload["user"] = actor.user()
    if message is not None:
        payload["message"] = message
    return payload


def command_data(
    name: str,
    options: list[dict[str, Any]],
    *,
    command_id: str = "0",
    guild_id: str | None = None,
    resolved: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The `data` of a slash command; `name` may be "group sub" for subcommands.

    discord.py looks commands up by name, and by `data.guild_id` for commands registered to a guild.
    """
    top, *path = name.split()
    for depth in reversed(range(len(path))):
        kind = SUB_COMMAND if depth == len(path) - 1 else SUB_COMMAND_GROUP
        options = [{"type": kind, "name": path[depth], "options": options}]
    data: dict[str, Any] = {"id": command_id, "name": top, "type": 1, "options": options}
    if guild_id:
        data["guild_id"] = guild_id
    if resolved:
        data["resolved"] = resolved
    return data


def button_data(custom_id: str) -> dict[str, Any]:
    """The `data` of a button click."""
    return {"custom_id": custom_id, "component_type": 2}


def modal_submit_data(modal: dict[str, Any], values: dict[str, str]) -> dict[str, Any]:
    """The `data` of a submitted form, shaped like the form the bot sent (`modal` is the callback's data).

    Inputs not in `values` are submitted with the text the form showed (its default value).
    """

    def answer(component: dict[str, Any]) -> dict[str, Any]:
        key = component["custom_id"]
        return {"type": component["type"], "custom_id": key, "value": values.get(key, component.get("value", ""))}

    components = []
    for row in modal.get("components", []):
        if row["type"] == 1:  # an action row holding text inputs
            components.append({"type": 1, "components": [answer(c) for c in row["components"]]})
        elif row["type"] == 18:  # a label holding one component
            components.append({"type": 18, "component": answer(row["component"])})
    return {"custom_id": modal["custom_id"], "components": components}


def guild_create(guild_id: str, channel_id: str) -> dict[str, Any]:
    """A GUILD_CREATE payload: one text channel, an @everyone role and a Game Master role, the bot as member."""
    return {
        "id": guild_id,
        "name": "Local Table",
        "icon": None,
        "owner_id": OWNER["id"],
        "unavailable": False,
        "member_count": 2,
        "large": False,
        "features": [],
        "emojis": [],
        "stickers": [],
        "premium_tier": 0,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "mfa_level": 0,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "vanity_url_code": None,
        "preferred_locale": "en-US",
        "nsfw_level": 0,
        "premium_progress_bar_enabled": False,
        "afk_timeout": 300,
        "roles": [
            {
                "id": guild_id,
                "name": "@everyone",
                "permissions": MEMBER_PERMISSIONS,
                "position": 0,
                "color": 0,
                "hoist": False,
                "managed": False,
                "mentionable": False,
                "flags": 0,
            },
            {
                "id": GM_ROLE,
                "name": "Game Master",
                "permissions": MEMBER_PERMISSIONS,
                "position": 1,
                "color": 0,
                "hoist": False,
                "managed": False,
                "mentionable": True,
                "flags": 0,
            },
        ],
        "channels": [
            {
                "id": channel_id,
                "type": 0,
                "name": "dice",
                "position": 0,
                "permission_overwrites": [],
                "nsfw": False,
                "parent_id": None,
                "topic": None,
                "rate_limit_per_user": 0,
            }
        ],
        "members": [{"user": BOT_USER, "roles": [], "joined_at": JOINED_AT, "deaf": False, "mute": False, "flags": 0}],
        "threads": [],
        "voice_states": [],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "joined_at": JOINED_AT,
    }
