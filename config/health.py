"""Health endpoints for load balancers and monitoring (docs/operations.md).

``GET /health/``: the web app can reach its database and its broker (200, else 503).
``GET /health/worker/``: a worker ran beat's watchdog recently (so beat, the broker and a
worker all work) and no clock job is stuck (200, else 503); it names the last clock job
that failed in the last day. Neither needs a login nor says anything of a campaign but
a failed job's ids and reason; neither reads the session.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from config.celery_app import app as celery_app
from core.errors import UNAVAILABLE_ERRORS
from core.health import worker_seen
from rules.clock.selectors import clock_jobs_health, last_failed_clock_job

# A worker that has not run the watchdog for this long (it runs every 10 s) is down.
WORKER_SILENT_AFTER_SECONDS = 120


def _check_database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except UNAVAILABLE_ERRORS as error:
        return f"unreachable: {type(error).__name__}"
    return "ok"


def _check_broker() -> str:
    if celery_app.conf.task_always_eager:
        return "embedded"  # tasks run in the web process: no broker
    try:
        with celery_app.connection_for_write() as broker:
            broker.ensure_connection(max_retries=1, timeout=2)
    except UNAVAILABLE_ERRORS as error:
        return f"unreachable: {type(error).__name__}"
    return "ok"


def _answer(body: dict[str, Any], healthy: bool) -> JsonResponse:
    body["status"] = "ok" if healthy else "unavailable"
    return JsonResponse(body, status=200 if healthy else 503)


@never_cache
@require_GET
def web_health(request: HttpRequest) -> JsonResponse:
    checks = {"database": _check_database(), "broker": _check_broker()}
    return _answer(checks, all(v in ("ok", "embedded") for v in checks.values()))


@never_cache
@require_GET
def worker_health(request: HttpRequest) -> JsonResponse:
    now = timezone.now()
    body: dict[str, Any] = {"database": _check_database()}
    if body["database"] != "ok":
        return _answer(body, False)
    body.update(clock_jobs_health(now))
    body["last_failed_job"] = last_failed_clock_job(now)
    if celery_app.conf.task_always_eager:
        body["worker"] = "embedded"
        return _answer(body, body["stuck_jobs"] == 0)
    try:
        seen = worker_seen()
    except UNAVAILABLE_ERRORS as error:
        body["worker"] = f"unknown: the cache is unreachable ({type(error).__name__})"
        return _answer(body, False)
    age = None if seen is None else (now - seen).total_seconds()
    body["worker"] = "never seen" if age is None else "ok"
    body["worker_seen_seconds_ago"] = None if age is None else round(age, 1)
    silent = age is None or age > getattr(
        settings, "SAWBONES_WORKER_SILENT_AFTER_SECONDS", WORKER_SILENT_AFTER_SECONDS
    )
    if silent and age is not None:
        body["worker"] = "silent"
    return _answer(body, not silent and body["stuck_jobs"] == 0)
