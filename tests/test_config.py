"""Settings from the environment; the token never shows in a repr."""

from __future__ import annotations

import pytest

from bot.config import DEFAULT_DATABASE_URL, Settings, SettingsError
from tests.helpers import ROOT


def test_defaults_when_nothing_is_set() -> None:
    settings = Settings.from_env({})
    assert settings.token is None
    assert settings.database_url == DEFAULT_DATABASE_URL
    assert settings.dev_guild_id is None
    assert settings.log_level == "INFO"
    assert settings.api_base is None and settings.gateway_url is None
    assert not settings.sharded and settings.shard_ids == ()
    assert settings.identify_interval == 5.0


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


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DEV_GUILD_ID", "abc"),
        ("LOG_LEVEL", "LOUD"),
        ("IDENTIFY_INTERVAL", "0"),
        ("DATABASE_URL", "sqlite:///data/bot.db"),
        ("DATABASE_URL", "postgresql+psycopg2://h/db"),
        ("DATABASE_URL", "data/bot.db"),
    ],
)
def test_bad_values_are_refused_with_a_reason(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})


def test_a_database_url_is_never_echoed_with_its_password() -> None:
    for url in ("mysql://dice:secretpw@db/dice", "dice:secretpw@db", "postgresql://dice:secretpw@db/dice"):
        with pytest.raises(SettingsError) as refused:
            Settings.from_env({"DATABASE_URL": url})
        assert "secretpw" not in refused.value.message


def test_env_example_lists_every_setting() -> None:

    example = (ROOT / ".env.example").read_text()
    for name in (
        "DISCORD_TOKEN",
        "DEV_GUILD_ID",
        "LOG_LEVEL",
        "LOG_FORMAT",
        "DISCORD_API_BASE",
        "DISCORD_GATEWAY_URL",
        "SHARD_COUNT",
        "SHARD_IDS",
        "IDENTIFY_INTERVAL",
    ):
        assert f"\n{name}=" in example
    # Documented, but left unset: a value here would win over the Docker image's DATA_DIR (tests/test_docker.py).
    for name in ("DATABASE_URL", "DATA_DIR", "METRICS_PORT", "METRICS_HOST"):
        assert f"\n# {name}=" in example and f"\n{name}=" not in example


def test_the_default_database_lives_in_data_dir() -> None:
    assert Settings.from_env({}).database_url == "sqlite+aiosqlite:///data/bot.db"
    assert Settings.from_env({"DATA_DIR": "/data"}).database_url == "sqlite+aiosqlite:////data/bot.db"
    assert Settings.from_env({"DATA_DIR": "/data", "DATABASE_URL": ""}).database_url.endswith("////data/bot.db")
    named = "sqlite+aiosqlite:////srv/bot.db"
    assert Settings.from_env({"DATA_DIR": "/data", "DATABASE_URL": named}).database_url == named


@pytest.mark.parametrize(
    ("count", "ids", "expected"),
    [("2", "", (0, 1)), ("2", "1", (1,)), ("8", "0-3", (0, 1, 2, 3)), ("8", "6, 0-1,4", (0, 1, 4, 6))],
)
def test_shards_are_read_as_lists_and_ranges(count: str, ids: str, expected: tuple[int, ...]) -> None:
    settings = Settings.from_env({"SHARD_COUNT": count, "SHARD_IDS": ids})
    assert settings.sharded and settings.shard_count == int(count)
    assert settings.shard_ids == expected


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SHARD_IDS": "0"}, "SHARD_IDS needs SHARD_COUNT"),
        ({"SHARD_COUNT": "0"}, "SHARD_COUNT must be a whole number of shards, 1 or more, not '0'"),
        ({"SHARD_COUNT": "two"}, "SHARD_COUNT must be"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "0;1"}, "SHARD_IDS must list shard numbers or ranges"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "3-1"}, "SHARD_IDS must list shard numbers or ranges"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "0-2,2"}, "names a shard twice"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "1-2"}, "names shard 2, but shards are 0 to 1"),
        ({"IDENTIFY_INTERVAL": "soon"}, "IDENTIFY_INTERVAL must be seconds"),
        # Digits to str.isdigit that int() and float() refuse: they were a traceback, not a reason.
        ({"SHARD_COUNT": "²"}, "SHARD_COUNT must be a whole number"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "0-³"}, "SHARD_IDS must list shard numbers or ranges"),
        ({"IDENTIFY_INTERVAL": "⁵"}, "IDENTIFY_INTERVAL must be seconds"),
    ],
)
def test_bad_shards_are_refused_with_a_reason(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        Settings.from_env(env)


def test_log_format_is_plain_or_json() -> None:
    assert Settings.from_env({}).log_format == "plain"
    assert Settings.from_env({"LOG_FORMAT": "JSON"}).log_format == "json"
    with pytest.raises(SettingsError, match="LOG_FORMAT must be plain"):
        Settings.from_env({"LOG_FORMAT": "xml"})
