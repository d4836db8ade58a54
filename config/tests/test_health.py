"""The health endpoints, and 503 (not 500) while the database or Redis is out of reach."""

from __future__ import annotations

import sys
from datetime import timedelta

import pytest
from django.db import OperationalError
from django.test import RequestFactory
from django.utils import timezone

from config.errors import server_error
from core.health import mark_worker_seen
from rules.clock.models import ClockJob

pytestmark = pytest.mark.django_db


def test_the_web_health_endpoint_answers_without_a_login(client):
    response = client.get("/health/")
    assert response.status_code == 200
    assert response.json() == {"database": "ok", "broker": "embedded", "status": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_the_worker_health_endpoint_names_stuck_clock_jobs(client, campaign, settings):
    assert client.get("/health/worker/").status_code == 200
    # a job whose task is lost for longer than the watchdog ever lets happen
    job = ClockJob.objects.create(campaign=campaign, minutes=60)
    ClockJob.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(minutes=5))
    response = client.get("/health/worker/")
    assert response.status_code == 503
    assert response.json()["stuck_jobs"] == 1


def test_the_worker_health_endpoint_tells_a_failed_job_and_stays_green(client, campaign):
    assert client.get("/health/worker/").json()["last_failed_job"] is None
    job = ClockJob.objects.create(
        campaign=campaign,
        minutes=60,
        state="failed",
        reason="failed: OperationalError: Error 111 connecting to redis",
        finished_at=timezone.now(),
    )
    response = client.get("/health/worker/")
    assert response.status_code == 200  # the worker is well: a person fixes the job
    body = response.json()
    assert body["failed_jobs_last_day"] == 1
    failed = body["last_failed_job"]
    assert (failed["id"], failed["campaign"]) == (job.pk, campaign.pk)
    assert failed["reason"].startswith("failed: OperationalError")


def test_a_silent_worker_is_unhealthy(client, settings):
    from config.celery_app import app as celery_app

    conf = celery_app.conf
    saved = conf.task_always_eager
    conf.update({"CELERY_TASK_ALWAYS_EAGER": False})  # as in a deployment with Redis
    try:
        mark_worker_seen(timezone.now() - timedelta(minutes=5))
        silent = client.get("/health/worker/")
        mark_worker_seen()
        seen = client.get("/health/worker/")
    finally:
        conf.update({"CELERY_TASK_ALWAYS_EAGER": saved})
    assert (silent.status_code, silent.json()["worker"]) == (503, "silent")
    assert (seen.status_code, seen.json()["worker"]) == (200, "ok")


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/api/v1/campaigns/", "application/json"),
        ("/campaigns/1/", "text/html"),
    ],
)
def test_the_database_out_of_reach_is_a_503_with_a_sentence_not_a_500(path, expected):
    request = RequestFactory().get(path)
    try:
        raise OperationalError("connection refused")
    except OperationalError:
        assert sys.exc_info()[0] is OperationalError
        response = server_error(request)
    assert response.status_code == 503
    assert response["Content-Type"].startswith(expected)
    assert int(response["Retry-After"]) > 0
    text = response.content.decode()
    assert "try again" in text.lower()
    assert "OperationalError" not in text


def test_any_other_error_is_still_the_500_page():
    request = RequestFactory().get("/campaigns/1/")
    try:
        raise ValueError("a bug")
    except ValueError:
        response = server_error(request)
    assert response.status_code == 500
