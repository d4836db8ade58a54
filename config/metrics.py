"""``GET /metrics``: the numbers an operator watches, in Prometheus' text format
(docs/operations.md, "Metrics"; alerts in deploy/alerts.yml).

Never public: it answers only a request with ``Authorization: Bearer <METRICS_TOKEN>``;
without the setting, or with another token, it is a 404 like any unknown path. It is
answered by the outermost middleware, before anything checks the Host header or
redirects to HTTPS: Prometheus scrapes each web container by its address, inside the
deployment.

What each process counts (requests, throttled requests: core/metrics.py) is added up
over gunicorn's worker processes (prometheus-client's multiprocess mode, with
``PROMETHEUS_MULTIPROC_DIR``); the rest is read when scraped, from the database (clock
jobs, clock lag, resolutions, webhooks, login lockouts), the broker (queue lengths) and
the cache (the workers' last sign of life), so no code of the apps counts it.
"""

from __future__ import annotations

import hmac
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from decimal import Decimal

from django.apps import apps
from django.conf import settings
from django.db.models import Count, Min
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from campaigns.models import Campaign
from config.celery_app import app as celery_app
from config.queues import QUEUES
from core.errors import UNAVAILABLE_ERRORS
from core.health import worker_seen
from core.metrics import REQUEST_SECONDS, REQUESTS
from rules.clock.models import UNFINISHED_JOB_STATES, ClockJob, ClockJobState
from rules.log.models import Resolution
from webhooks.selectors import deliveries_by_state, webhook_backlogs

logger = logging.getLogger(__name__)

PATH = "/metrics"
# kombu's Redis transport keeps a queue's prioritised messages in lists of their own.
_PRIORITY_SUFFIXES = ("", "\x06\x163", "\x06\x166", "\x06\x169")


def _families(now: datetime) -> Iterator[Metric]:
    try:
        read = [*_resolutions(), *_clock(now), *_webhooks(now), *_lockouts(now)]
    except UNAVAILABLE_ERRORS as error:
        # The database is out of reach: say so, and still give what the rest knows.
        logger.warning("metrics: the database is unreachable (%s)", type(error).__name__)
        read = []
    yield from read
    yield GaugeMetricFamily(
        "sawbones_metrics_database_up",
        "1 when this scrape could read the database, 0 when it could not.",
        value=1 if read else 0,
    )
    yield from _workers(now)
    yield from _queues()


def _resolutions() -> Iterator[Metric]:
    resolved = CounterMetricFamily(
        "sawbones_resolutions",
        "Resolutions written (actions, the clock's effects, choices, undos...), by ruleset "
        "and kind.",
        labels=["ruleset", "kind"],
    )
    effects = CounterMetricFamily(
        "sawbones_effects_applied",
        "Scheduled effects the clock applied, by ruleset.",
        labels=["ruleset"],
    )
    rows = (
        Resolution.objects.order_by()
        .values_list("campaign__ruleset", "kind")
        .annotate(n=Count("id"))
    )
    for ruleset, kind, count in rows:
        resolved.add_metric([ruleset, kind], count)
        if kind == "effect":
            effects.add_metric([ruleset], count)
    yield resolved
    yield effects


def _clock(now: datetime) -> Iterator[Metric]:
    by_state = GaugeMetricFamily(
        "sawbones_clock_jobs", "Clock jobs in each state.", labels=["state"]
    )
    counts = dict.fromkeys(ClockJobState.values, 0)
    for state, count in ClockJob.objects.order_by().values_list("state").annotate(n=Count("id")):
        counts[state] = count
    for state, count in counts.items():
        by_state.add_metric([state], count)
    yield by_state

    waiting = GaugeMetricFamily(
        "sawbones_clock_job_queued_seconds",
        "For each campaign with a queued clock job: how long its oldest has waited.",
        labels=["campaign"],
    )
    oldest = (
        ClockJob.objects.filter(state=ClockJobState.QUEUED)
        .order_by()
        .values_list("campaign_id")
        .annotate(oldest=Min("created_at"))
    )
    for campaign_id, created in oldest:
        waiting.add_metric([str(campaign_id)], max((now - created).total_seconds(), 0.0))
    yield waiting

    lag = GaugeMetricFamily(
        "sawbones_clock_lag_seconds",
        "For each live campaign: how far its clock trails real time (up to a minute "
        "between ticks is normal).",
        labels=["campaign"],
    )
    live = Campaign.objects.filter(
        live_ratio__gt=0, live_last_tick__isnull=False, archived_at__isnull=True
    ).values_list("pk", "clock", "live_ratio", "live_last_tick")
    remaining: dict[int, int] = {}
    unfinished = ClockJob.objects.filter(
        campaign__live_ratio__gt=0, state__in=UNFINISHED_JOB_STATES
    ).values_list("campaign_id", "minutes", "target", "campaign__clock")
    for campaign_id, minutes, target, clock in unfinished:
        left = minutes if target is None else max(target - clock, 0)
        remaining[campaign_id] = remaining.get(campaign_id, 0) + left
    for campaign_id, _clock_now, ratio, last_tick in live:
        if last_tick is None:
            continue  # not live after all (filtered above; the type does not know)
        # The clock stands at the last tick's moment less what the unfinished jobs
        # have yet to apply, in real seconds at the campaign's ratio.
        behind = Decimal(remaining.get(campaign_id, 0)) * 60 / Decimal(ratio)
        lag.add_metric([str(campaign_id)], (now - last_tick).total_seconds() + float(behind))
    yield lag


def _webhooks(now: datetime) -> Iterator[Metric]:
    by_state = GaugeMetricFamily(
        "sawbones_webhook_deliveries",
        "Webhook deliveries by outcome: pending, delivered, failed (given up).",
        labels=["state"],
    )
    for state, count in deliveries_by_state().items():
        by_state.add_metric([state], count)
    yield by_state
    # Labelled by ids, never by URL: a webhook's URL may hold the receiver's secret.
    labels = ["webhook", "campaign"]
    backlog = GaugeMetricFamily(
        "sawbones_webhook_backlog", "Pending deliveries per webhook URL.", labels=labels
    )
    oldest = GaugeMetricFamily(
        "sawbones_webhook_oldest_pending_seconds",
        "Age of each webhook URL's oldest pending delivery.",
        labels=labels,
    )
    tries = GaugeMetricFamily(
        "sawbones_webhook_failed_attempts",
        "Failed tries of the delivery first in line for each webhook URL (0: it answers).",
        labels=labels,
    )
    for row in webhook_backlogs(now):
        ids = [str(row.webhook), str(row.campaign)]
        backlog.add_metric(ids, row.pending)
        oldest.add_metric(ids, row.oldest_seconds)
        tries.add_metric(ids, row.first_attempts)
    yield backlog
    yield oldest
    yield tries


def _lockouts(now: datetime) -> Iterator[Metric]:
    attempts = apps.get_model("axes", "AccessAttempt")  # django-axes ships no types
    locked = attempts.objects.filter(
        failures_since_start__gte=settings.AXES_FAILURE_LIMIT,
        attempt_time__gte=now - settings.AXES_COOLOFF_TIME,
    ).count()
    yield GaugeMetricFamily(
        "sawbones_login_lockouts",
        "Usernames locked out from an address now (django-axes: too many wrong passwords).",
        value=locked,
    )


def _workers(now: datetime) -> Iterator[Metric]:
    try:
        seen = worker_seen()
    except UNAVAILABLE_ERRORS:
        return  # the cache is unreachable: no reading rather than a wrong one
    if seen is None and celery_app.conf.task_always_eager:
        return  # embedded mode: no worker
    yield GaugeMetricFamily(
        "sawbones_worker_heartbeat_timestamp_seconds",
        "When a Celery worker last ran beat's watchdog (Unix time; 0: never seen).",
        value=0.0 if seen is None else seen.timestamp(),
    )


def _queues() -> Iterator[Metric]:
    broker_url = str(celery_app.conf.broker_url or "")
    if not broker_url.startswith(("redis://", "rediss://")):
        return  # embedded mode: tasks run in-process
    try:
        with celery_app.connection_for_read() as broker:
            client = broker.default_channel.client  # type: ignore[attr-defined]
            lengths = {
                queue: sum(int(client.llen(queue + suffix)) for suffix in _PRIORITY_SUFFIXES)
                for queue in QUEUES
            }
    except UNAVAILABLE_ERRORS:
        return
    depth = GaugeMetricFamily(
        "sawbones_celery_queue_length", "Messages waiting in each Celery queue.", labels=["queue"]
    )
    for queue, length in lengths.items():
        depth.add_metric([queue], length)
    yield depth


class _ReadAtScrape(Collector):
    def collect(self) -> Iterable[Metric]:
        return list(_families(timezone.now()))


class _ThisProcess(Collector):
    """This process's own counts, when gunicorn's processes do not share theirs."""

    def collect(self) -> Iterable[Metric]:
        return REGISTRY.collect()


def exposition() -> bytes:
    """Every family, as Prometheus reads it."""
    registry = CollectorRegistry(auto_describe=False)
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry.register(_ThisProcess())
    registry.register(_ReadAtScrape())
    return generate_latest(registry)


def _allowed(request: HttpRequest) -> bool:
    token = str(getattr(settings, "METRICS_TOKEN", "") or "")
    given = request.headers.get("Authorization", "")
    return bool(token) and hmac.compare_digest(given.encode(), f"Bearer {token}".encode())


class MetricsMiddleware:
    """Outermost: answers ``GET /metrics`` (to its token only), and times and counts
    every other request by the name of the view that answered it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path == PATH:
            return self._scrape(request)
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        view = (match.view_name or match._func_path) if match is not None else "unmatched"
        labels = {"view": view, "method": request.method or "", "status": str(response.status_code)}
        REQUESTS.labels(**labels).inc()
        REQUEST_SECONDS.labels(**labels).observe(time.perf_counter() - started)
        return response

    def _scrape(self, request: HttpRequest) -> HttpResponse:
        if request.method != "GET" or not _allowed(request):
            # like any unknown path: nothing says there is something here
            return HttpResponse("Not found", status=404, content_type="text/plain")
        return HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)
