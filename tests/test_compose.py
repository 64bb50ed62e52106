"""compose.yaml: PostgreSQL, one deploy step, two processes with half the shards each. No Docker here to run it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import Settings

yaml = pytest.importorskip("yaml", reason="PyYAML is not a dependency; this check runs where it is installed")


def test_compose_deploys_once_then_starts_two_halves_of_the_shards() -> None:
    compose = yaml.safe_load((Path(__file__).parent.parent / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"postgres", "deploy", "shard-0", "shard-1"}
    assert services["deploy"]["entrypoint"][-1] == "python -m bot migrate && python -m bot sync"
    assert services["deploy"]["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    shards = [Settings.from_env(services[f"shard-{i}"]["environment"]) for i in (0, 1)]
    assert [(s.shard_count, s.shard_ids) for s in shards] == [(2, (0,)), (2, (1,))]
    urls = {s.database_url for s in shards} | {services["deploy"]["environment"]["DATABASE_URL"]}
    assert len(urls) == 1 and urls.pop().startswith("postgresql+asyncpg://")
    for i in (0, 1):
        assert services[f"shard-{i}"]["depends_on"] == {"deploy": {"condition": "service_completed_successfully"}}
