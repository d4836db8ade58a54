"""The advance's follow-up with a real Celery worker (marker ``celery_worker``): the clock
job is recorded before Discord gets its deferred answer, the worker runs it, and the
follow-up task, sent once the answer has gone, waits for the job and edits the answer at
the local receiver."""

from __future__ import annotations

import uuid

import pytest

from discord_play.tests.conftest import APPLICATION_ID, SITE, command
from rules.clock.models import ClockJob, ClockJobState
from rules.clock.tests.clock_helpers import wounded
from webhooks.tests.worker import REDIS_URL, Worker, clear_queue, needs_worker, tasks_to, wait_for

pytestmark = [pytest.mark.celery_worker, needs_worker, pytest.mark.django_db(transaction=True)]


def test_a_workers_advance_is_reported_once_its_job_is_done(send, table, receiver, player):
    wounded(table["campaign"], player, "Cato", every=60)  # something falls due every hour
    queue = f"sawbones-test-{uuid.uuid4().hex}"
    worker = Worker(
        queue,
        "discord",
        concurrency=2,
        SAWBONES_DISCORD_API_BASE=receiver.url + "/api/v10",
        SAWBONES_DISCORD_APPLICATION_ID=APPLICATION_ID,
        SAWBONES_SITE_URL=SITE,
    )
    try:
        with tasks_to(REDIS_URL, queue):
            interaction = command("referee", "advance", hours=6)
            assert send.answer(interaction) == {"type": 5}
            job = ClockJob.objects.get(request_id=f"discord:{interaction['id']}")
            wait_for(lambda: len(receiver.received) == 1, 60, "the follow-up", worker)
        job.refresh_from_db()
        assert job.state == ClockJobState.DONE
        [edit] = receiver.received
        assert edit["method"] == "PATCH"
        assert edit["path"].endswith(f"/{interaction['token']}/messages/@original")
        told = "\n".join(e.get("description", "") for e in edit["body"]["embeds"])
        assert "Cato" in " ".join(e["title"] for e in edit["body"]["embeds"])
        assert "Day 1, 01:00" in told
    finally:
        worker.stop()
        clear_queue(queue)
