"""A real Celery worker for tests (marker ``celery_worker``): a subprocess on its own
queue on REDIS_URL, with the test database, and this process sending tasks to it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import kombu.pools
import pytest
from django.conf import settings
from django.db import connection

from config.celery_app import app as celery_app

REDIS_URL = os.environ.get("REDIS_URL", "")
ROOT = Path(settings.BASE_DIR)

needs_worker = pytest.mark.skipif(
    connection.vendor != "postgresql" or not REDIS_URL,
    reason="a real worker needs PostgreSQL and Redis (CI sets DATABASE_URL and REDIS_URL)",
)


def database_url() -> str:
    db = connection.settings_dict
    password = f":{quote(db['PASSWORD'])}" if db.get("PASSWORD") else ""
    return (
        f"postgres://{quote(db['USER'] or '')}{password}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}"
    )


class Worker:
    """One ``celery worker`` process group on ``queue``."""

    def __init__(self, queue: str, name: str, concurrency: int = 2, **env: str) -> None:
        """``queue``: one or more, comma-separated (``-Q``)."""
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed in stop()
            prefix=f"{name}-", suffix=".log", delete=False
        )
        self.process = subprocess.Popen(
            [
                str(Path(sys.executable).with_name("celery")),
                "-A",
                "config",
                "worker",
                "-Q",
                queue,
                "-n",
                f"{name}@%h",
                "--pool=prefork",
                f"--concurrency={concurrency}",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "--loglevel=INFO",
            ],
            cwd=ROOT,
            env={
                **os.environ,
                "DJANGO_SETTINGS_MODULE": "webhooks.tests.worker_settings",
                "DATABASE_URL": database_url(),
                "REDIS_URL": REDIS_URL,
                "SAWBONES_TEST_QUEUE": queue,
                "PYTHONPATH": str(ROOT),
                **env,
            },
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def output(self) -> str:
        return Path(self.log.name).read_text(errors="replace")

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)
        self.log.close()
        Path(self.log.name).unlink(missing_ok=True)


def reset_broker_connections() -> None:
    kombu.pools.reset()
    celery_app._pool = None  # type: ignore[attr-defined]
    celery_app.amqp._producer_pool = None  # type: ignore[attr-defined]


def _rebuild_router() -> None:
    """The app built its queues and routes from the settings once: again, from conf."""
    for cached in ("queues", "router", "default_queue", "default_exchange"):
        celery_app.amqp.__dict__.pop(cached, None)
    celery_app.amqp.flush_routes()


@contextlib.contextmanager
def tasks_to(
    broker_url: str,
    queue: str = "celery",
    routes: dict[str, Any] | None = None,
    queues: list[Any] | None = None,
) -> Iterator[None]:
    """This process sends tasks to ``broker_url`` (``queue``, or by ``routes`` to
    ``queues``) instead of running them in-process."""
    conf = celery_app.conf  # read from Django settings: its keys carry the CELERY_ prefix
    keys = (
        "CELERY_TASK_ALWAYS_EAGER",
        "CELERY_BROKER_URL",
        "CELERY_TASK_DEFAULT_QUEUE",
        "CELERY_TASK_ROUTES",
        "CELERY_TASK_QUEUES",
    )
    # the values in effect (a key Django's settings leave out reads None with its prefix,
    # and writing that None back would leave Celery without, say, a default queue)
    saved = {key: conf[key.removeprefix("CELERY_").lower()] for key in keys}
    conf.update(dict(zip(keys, (False, broker_url, queue, routes or {}, queues), strict=True)))
    _rebuild_router()
    assert (conf.task_always_eager, conf.broker_url) == (False, broker_url)
    reset_broker_connections()
    try:
        yield
    finally:
        reset_broker_connections()
        conf.update(saved)
        _rebuild_router()


def clear_queue(queue: str) -> None:
    """Leave Redis as it was: the queue's keys go."""
    with celery_app.connection_for_write() as broker:
        client = broker.default_channel.client  # type: ignore[attr-defined]  # Redis
        leftover = list(client.scan_iter(match=f"*{queue}*"))
        if leftover:
            client.delete(*leftover)


def wait_for(check: Callable[[], bool], timeout: float, what: str, *workers: Worker) -> float:
    """Seconds until ``check()`` held; fails the test after ``timeout``."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if check():
            return time.monotonic() - start
        time.sleep(0.05)
    logs = "\n".join(w.output()[-4000:] for w in workers)
    pytest.fail(f"timed out waiting for {what}; worker output:\n{logs}")
