"""Each request has an id: in its answer's X-Request-ID, on every log line of the
request and of the tasks it enqueued (a real worker's JSON lines, LOG_FORMAT=json);
Sentry is off without SENTRY_DSN and on, with the Django and Celery integrations, with
it."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator

import pytest
import sentry_sdk
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse

from campaigns.models import Membership
from core.logs import JsonFormatter, RequestIdFilter
from rules.play.services import character_create
from webhooks.services import webhook_create
from webhooks.tests.test_delivery_tasks import dead_port
from webhooks.tests.worker import (
    REDIS_URL,
    Worker,
    clear_queue,
    needs_worker,
    tasks_to,
    wait_for,
)

ROOT = str(django_settings.BASE_DIR)


@pytest.fixture
def json_lines() -> Iterator[io.StringIO]:
    """What the root logger writes, as LOG_FORMAT=json writes it."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield stream
    finally:
        root.removeHandler(handler)


def parsed(stream: io.StringIO) -> list[dict[str, str]]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line]


@pytest.mark.django_db
def test_every_line_of_a_request_names_its_id_and_the_answer_says_it(json_lines):
    answer = Client().get("/api/v1/no-such-thing/", HTTP_X_REQUEST_ID="proxy-id-42")
    assert answer.status_code == 404
    assert answer["X-Request-ID"] == "proxy-id-42"  # the proxy's (nginx: $request_id)
    lines = parsed(json_lines)
    assert lines, "the 404 is logged (django.request)"
    assert {line["request_id"] for line in lines} == {"proxy-id-42"}
    assert {"time", "level", "logger", "message"} <= set(lines[0])

    # an id that is no sensible one is replaced; each request gets its own
    odd = Client().get("/health/", HTTP_X_REQUEST_ID="a b\nc")
    again = Client().get("/health/")
    assert odd["X-Request-ID"] != "a b\nc"
    assert len({odd["X-Request-ID"], again["X-Request-ID"]}) == 2
    logging.getLogger("test").warning("outside any request")
    assert parsed(json_lines)[-1]["request_id"] == "-"


@needs_worker
@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_a_task_a_request_enqueued_logs_with_the_requests_id(referee, player, campaign):
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 2, "hp": 9})
    webhook_create(campaign=campaign, url=f"http://127.0.0.1:{dead_port()}/hook", user=referee)
    queue = f"sawbones-test-{uuid.uuid4().hex}"
    worker = Worker(queue, "logs", concurrency=1, LOG_FORMAT="json")
    request_id = f"req-{uuid.uuid4().hex[:12]}"
    try:
        with tasks_to(REDIS_URL, queue):
            client = Client(HTTP_X_REQUEST_ID=request_id)
            client.force_login(player)
            answer = client.post(
                reverse("api-actions", kwargs={"character_id": aldo.pk}),
                {"action": "damage", "params": {"amount": 1}},
                content_type="application/json",
            )
            assert answer.status_code == 201
            assert answer["X-Request-ID"] == request_id

            def logged() -> list[dict[str, str]]:
                found = []
                for line in worker.output().splitlines():
                    if line.startswith("{"):
                        found.append(json.loads(line))
                return [e for e in found if e.get("logger") == "webhooks.services"]

            wait_for(lambda: bool(logged()), 30, "the delivery's log line", worker)
        line = logged()[0]
        assert line["request_id"] == request_id
        assert line["task"] == "webhooks.tasks.deliver_webhooks"
        assert "try 1" in line["message"]
    finally:
        worker.stop()
        clear_queue(queue)


def test_sentry_is_off_without_a_dsn():
    assert os.environ.get("SENTRY_DSN") is None
    assert django_settings.SENTRY_ENABLED is False
    assert not sentry_sdk.get_client().is_active()


def test_sentry_is_on_with_django_and_celery_with_a_dsn():
    probe = (
        "import django, sentry_sdk; django.setup(); client = sentry_sdk.get_client(); "
        "print(client.is_active(), sorted(client.integrations), client.options['send_default_pii'])"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "SENTRY_DSN": "http://public@127.0.0.1:9/1",  # nothing is sent in this probe
        },
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    active, *rest = out.split(" ", 1)
    assert active == "True"
    assert "'celery'" in rest[0] and "'django'" in rest[0]
    assert out.strip().endswith("False")  # no personal data
