"""Settings from the environment; the token never shows in a repr."""

from __future__ import annotations

import pytest

from bot.config import DEFAULT_DATABASE_URL, Settings, SettingsError


def test_defaults_when_nothing_is_set() -> None:
    settings = Settings.from_env({})
    assert settings.token is None
    assert settings.database_url == DEFAULT_DATABASE_URL
    assert settings.dev_guild_id is None
    assert settings.log_level == "INFO"
    assert settings.api_base is None and settings.gateway_url is None


def test_every_setting_is_read() -> None:
    settings = Settings.from_env(
        {
            "DISCORD_TOKEN": "secret-token-value",
            "DATABASE_URL": "sqlite+aiosqlite:///x.db",
            "DEV_GUILD_ID": "123",
            "LOG_LEVEL": "debug",
            "DISCORD_API_BASE": "http://127.0.0.1:1/api/v10",
            "DISCORD_GATEWAY_URL": "ws://127.0.0.1:1/",
        }
    )
    assert settings.token == "secret-token-value"
    assert settings.dev_guild_id == 123
    assert settings.log_level == "DEBUG"
    assert "secret-token-value" not in repr(settings)
    assert "secret-token-value" not in str(settings)


@pytest.mark.parametrize(("name", "value"), [("DEV_GUILD_ID", "abc"), ("LOG_LEVEL", "LOUD")])
def test_bad_values_are_refused_with_a_reason(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})


def test_env_example_lists_every_setting() -> None:
    from pathlib import Path

    example = (Path(__file__).parent.parent / ".env.example").read_text()
    for name in (
        "DISCORD_TOKEN",
        "DATABASE_URL",
        "DEV_GUILD_ID",
        "LOG_LEVEL",
        "DISCORD_API_BASE",
        "DISCORD_GATEWAY_URL",
    ):
        assert f"\n{name}=" in example
