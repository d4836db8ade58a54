"""The drills' servers: one throwaway PostgreSQL cluster and Redis for the module, a
migrated template database, and a fresh database and app processes for each drill."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.drills.stack import App, Postgres, Redis, have_servers, servers

TEMPLATE = "drill_template"
# The drills' knobs (the production defaults are 500, 30 s and 10 s): small batches so
# there is a "mid-advance" to break, and a quick watchdog so the drills stay short.
DRILL_ENV = {
    "SAWBONES_CLOCK_BATCH_SIZE": "4",
    "SAWBONES_CLOCK_STALE_SECONDS": "4",
    "SAWBONES_CLOCK_WATCHDOG_SECONDS": "1",
}
_names = itertools.count(1)


@pytest.fixture(scope="session")
def drill_servers() -> Iterator[tuple[Path, Postgres, Redis]]:
    if not have_servers():
        pytest.fail("the drills need PostgreSQL's server binaries and redis-server")
    with servers() as (base, postgres, redis):
        postgres.psql(f"CREATE DATABASE {TEMPLATE}")
        App(base, postgres.url(TEMPLATE), redis.url).manage("migrate", "--noinput")
        yield base, postgres, redis


class Drill:
    """One drill: fresh databases (copies of the migrated template), a clean Redis, and
    the apps it started, whose processes are all killed at the end."""

    def __init__(self, base: Path, postgres: Postgres, redis: Redis) -> None:
        self.base, self.postgres, self.redis = base, postgres, redis
        self.apps: list[App] = []

    def app(self, **env: str) -> App:
        name = f"drill_{next(_names)}"
        self.postgres.psql(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
        folder = self.base / name
        folder.mkdir()
        app = App(folder, self.postgres.url(name), self.redis.url, **{**DRILL_ENV, **env})
        app.database = name
        self.apps.append(app)
        return app

    def started(
        self, characters: int, every: int, worker: str = "worker", resting: int = 2, **env: str
    ) -> tuple[App, Any]:
        """An app whose campaign has ``characters`` wounded every ``every`` minutes and
        ``resting`` characters for players' actions, with its web app, a worker and beat
        running; ``env`` on top of the drills' settings."""
        app = self.app(**env)
        world = app.tool("setup", str(characters), str(every), str(resting))
        app.start_web()
        app.start_worker(worker)
        app.start_beat()
        return app, world


@pytest.fixture
def drill(drill_servers) -> Iterator[Drill]:
    base, postgres, redis = drill_servers
    redis.kill()  # a broker with nothing left from another drill
    redis.start()
    started = time.monotonic()
    one = Drill(base, postgres, redis)
    try:
        yield one
    finally:
        for app in one.apps:
            app.stop_all()
        if redis.process is None:
            redis.start()
        if postgres.psql_ok() is False:
            postgres.start()
        print(f"drill took {time.monotonic() - started:.1f} s")
