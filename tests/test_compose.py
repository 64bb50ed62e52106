"""compose.yaml: PostgreSQL, one deploy step, two processes with half the shards each. No Docker here to run it."""

from __future__ import annotations

from typing import Any

import yaml
from sqlalchemy.engine import make_url

from bot.config import Settings
from tests.helpers import ROOT

COMPOSE = ROOT / "compose.yaml"


def services() -> dict[str, Any]:
    found: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())["services"]
    return found


def test_compose_deploys_once_then_starts_two_halves_of_the_shards() -> None:
    compose = services()
    assert set(compose) == {"postgres", "deploy", "shard-0", "shard-1"}
    assert compose["deploy"]["entrypoint"][-1] == "python -m bot migrate && python -m bot sync"
    assert compose["deploy"]["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    shards = [Settings.from_env(compose[f"shard-{i}"]["environment"]) for i in (0, 1)]
    assert [(s.shard_count, s.shard_ids) for s in shards] == [(2, (0,)), (2, (1,))]
    urls = {s.database_url for s in shards} | {compose["deploy"]["environment"]["DATABASE_URL"]}
    assert len(urls) == 1 and urls.pop().startswith("postgresql+asyncpg://")
    for i in (0, 1):
        assert compose[f"shard-{i}"]["depends_on"] == {"deploy": {"condition": "service_completed_successfully"}}
        assert compose[f"shard-{i}"]["env_file"] == ".env"  # the token comes from there


def test_the_bots_database_url_is_the_postgres_service_it_waits_for() -> None:
    compose = services()
    url = make_url(compose["deploy"]["environment"]["DATABASE_URL"])
    server = compose["postgres"]["environment"]
    assert (url.host, url.port) == ("postgres", 5432)
    assert (url.username, url.password, url.database) == (
        server["POSTGRES_USER"],
        server["POSTGRES_PASSWORD"],
        server["POSTGRES_DB"],
    )
    assert f"-U {url.username} -d {url.database}" in compose["postgres"]["healthcheck"]["test"][-1]
