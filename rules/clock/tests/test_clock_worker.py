"""A real Celery worker on Redis runs the clock, and is killed mid-advance (SIGKILL).

The worker is a subprocess (``celery -A config worker``) with the settings of
``rules/clock/tests/clock_worker_settings.py``: the test's PostgreSQL database, its own queue
on REDIS_URL, batches of 5 effects. Each test compares the result with a twin campaign
(same seed, same party) advanced in-process: the same effects at the same minutes with
the same rolls, each exactly once.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import kombu.pools
import pytest
from django.conf import settings
from django.db import connection

from config.celery_app import app as celery_app
from rules.clock.models import ClockJob
from rules.clock.services import clock_advance_start
from rules.clock.tests.clock_helpers import (
    assert_whole,
    effect_rows,
    log_of,
    run_job,
    twin_campaign,
    wounded,
)

REDIS_URL = os.environ.get("REDIS_URL", "")
ROOT = Path(settings.BASE_DIR)

pytestmark = [
    pytest.mark.celery_worker,
    pytest.mark.skipif(
        connection.vendor != "postgresql" or not REDIS_URL,
        reason="a real worker needs PostgreSQL and Redis (CI sets DATABASE_URL and REDIS_URL)",
    ),
    pytest.mark.django_db(transaction=True),
]

CHARACTERS = 16
EVERY = 30
MINUTES = 24 * 60
EFFECTS = CHARACTERS * MINUTES // EVERY  # 768


def database_url() -> str:
    db = connection.settings_dict
    password = f":{quote(db['PASSWORD'])}" if db.get("PASSWORD") else ""
    return (
        f"postgres://{quote(db['USER'] or '')}{password}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}"
    )


class Worker:
    """One ``celery worker`` process group (the main process and its pool child)."""

    def __init__(self, queue: str, name: str) -> None:
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed in stop()
            prefix=f"{name}-", suffix=".log", delete=False
        )
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "rules.clock.tests.clock_worker_settings",
            "DATABASE_URL": database_url(),
            "REDIS_URL": REDIS_URL,
            "SAWBONES_TEST_QUEUE": queue,
            "PYTHONPATH": str(ROOT),
        }
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
                "--concurrency=1",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "--loglevel=INFO",
            ],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: kill the pool child too
        )

    def pool_children(self) -> list[int]:
        path = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(pid) for pid in path.read_text().split()]

    def kill(self) -> None:
        """SIGKILL the whole worker: no clean-up, no ack, its transaction dies with it."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def output(self) -> str:
        return Path(self.log.name).read_text(errors="replace")

    def stop(self) -> None:
        self.kill()
        self.log.close()
        Path(self.log.name).unlink(missing_ok=True)


def _reset_broker_connections() -> None:
    kombu.pools.reset()  # close and forget every pooled connection and producer
    # the app's private pools: kombu.pools.reset() closed what they hold
    celery_app._pool = None  # type: ignore[attr-defined]
    celery_app.amqp._producer_pool = None  # type: ignore[attr-defined]


@contextlib.contextmanager
def tasks_to_redis(queue: str) -> Iterator[None]:
    """This process sends tasks to the worker's queue instead of running them in-process."""
    conf = celery_app.conf  # read from Django settings, so its keys carry the CELERY_ prefix
    keys = ("CELERY_TASK_ALWAYS_EAGER", "CELERY_BROKER_URL", "CELERY_TASK_DEFAULT_QUEUE")
    # the values in effect (a key Django's settings leave out reads None with its prefix,
    # and writing that None back would leave Celery without, say, a default queue)
    saved = {key: conf[key.removeprefix("CELERY_").lower()] for key in keys}
    conf.update(dict(zip(keys, (False, REDIS_URL, queue), strict=True)))
    assert (conf.task_always_eager, conf.broker_url) == (False, REDIS_URL)
    _reset_broker_connections()
    try:
        yield
    finally:
        with celery_app.connection_for_write() as broker:  # leave Redis as it was
            client = broker.default_channel.client  # type: ignore[attr-defined]  # Redis
            leftover = list(client.scan_iter(match=f"*{queue}*"))
            if leftover:
                client.delete(*leftover)
        _reset_broker_connections()
        conf.update(saved)


@pytest.fixture
def start_worker() -> Iterator[Callable[[str, str], Worker]]:
    workers: list[Worker] = []

    def start(queue: str, name: str) -> Worker:
        worker = Worker(queue, name)
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        worker.stop()


def wait_for(check: Callable[[], bool], timeout: float, workers: list[Worker], what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    logs = "\n".join(w.output()[-4000:] for w in workers)
    pytest.fail(f"timed out waiting for {what}; worker output:\n{logs}")


def job_state(job_id: int) -> tuple[str, int]:
    job = ClockJob.objects.get(pk=job_id)
    return job.state, job.done


@pytest.fixture
def reference_and_campaign(campaign, player, other_player):
    """A twin advanced in-process (the reference), and the campaign with the same party."""
    twin = twin_campaign(campaign)
    for world in (campaign, twin):
        for i in range(CHARACTERS):
            wounded(world, player if i % 2 else other_player, f"Char{i:02d}", every=EVERY)
    run_job(twin, MINUTES)
    return twin, campaign


def test_a_worker_killed_mid_advance_leaves_nothing_half_applied_and_another_finishes(
    reference_and_campaign, start_worker
):
    twin, campaign = reference_and_campaign
    queue = f"sawbones-test-{uuid.uuid4().hex}"
    with tasks_to_redis(queue):
        first = start_worker(queue, "first")

        # given the referee's advance of a day is running on a real worker
        job = clock_advance_start(campaign_id=campaign.pk, minutes=MINUTES)
        wait_for(lambda: job_state(job.pk)[1] >= 100, 60, [first], "the advance to start")

        # when the worker is killed (SIGKILL, the whole process group) mid-advance
        first.kill()

        # then whole batches are applied, nothing half, and the job shows how far it got
        state, done = job_state(job.pk)
        assert state == "running"
        assert 100 <= done < EFFECTS
        assert done % 5 == 0  # batches of five: whole batches only
        assert_whole(campaign)
        assert log_of(campaign) == log_of(twin)[:done]

        # when another worker starts: the unacknowledged message comes back to the queue
        second = start_worker(queue, "second")
        wait_for(lambda: job_state(job.pk)[0] == "done", 90, [first, second], "the re-run")

    # then the job is finished exactly as the undisturbed run finished it
    assert job_state(job.pk) == ("done", EFFECTS)
    campaign.refresh_from_db()
    assert campaign.clock == MINUTES
    assert log_of(campaign) == log_of(twin)
    assert effect_rows(campaign) == effect_rows(twin)
    assert_whole(campaign)
    assert "advance_clock" in second.output()


def test_a_killed_pool_process_puts_the_task_back_and_the_worker_finishes_it(
    reference_and_campaign, start_worker
):
    twin, campaign = reference_and_campaign
    queue = f"sawbones-test-{uuid.uuid4().hex}"
    with tasks_to_redis(queue):
        worker = start_worker(queue, "pool")
        job = clock_advance_start(campaign_id=campaign.pk, minutes=MINUTES)
        wait_for(lambda: job_state(job.pk)[1] >= 100, 60, [worker], "the advance to start")

        # when the pool process running the task dies (out of memory, say)
        (child,) = worker.pool_children()
        os.kill(child, signal.SIGKILL)

        # then the worker rejects the task back to the queue (acks_late and
        # reject_on_worker_lost) and a new pool process finishes the job
        wait_for(lambda: job_state(job.pk)[0] == "done", 90, [worker], "the re-run")

    assert job_state(job.pk) == ("done", EFFECTS)
    assert log_of(campaign) == log_of(twin)
    assert effect_rows(campaign) == effect_rows(twin)
    assert_whole(campaign)
    assert "WorkerLostError" in worker.output()
