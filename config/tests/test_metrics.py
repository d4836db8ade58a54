"""GET /metrics: never public (404 without METRICS_TOKEN, or with another token), and
every family an operator watches is there and moves with real traffic: requests and
their latency by view and status, resolutions by ruleset, effects applied, clock jobs
by state, how long queued jobs wait, live clocks' lag, webhook deliveries by outcome
and backlog per URL, queue lengths, the workers' heartbeat, throttled requests, login
lockouts."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from decimal import Decimal
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse
from prometheus_client.parser import text_string_to_metric_families
from rest_framework.test import APIClient

from campaigns.models import Membership
from config.queues import QUEUES
from core.health import mark_worker_seen
from rules.clock.live import clock_live_set
from rules.clock.models import ClockJobKind
from rules.clock.services import clock_advance_start
from rules.clock.tests.clock_helpers import wounded
from rules.log.models import Resolution
from rules.play.services import character_create
from webhooks.models import WebhookDelivery
from webhooks.tests.worker import tasks_to

pytestmark = pytest.mark.django_db

ROOT = str(django_settings.BASE_DIR)
TOKEN = "metrics-test-token"  # noqa: S105 - tests only

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(token: str | None = TOKEN, **extra: Any) -> Any:
    headers: dict[str, Any] = {} if token is None else {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    return Client().get("/metrics", **{**headers, **extra})


def samples(body: bytes) -> Samples:
    found: Samples = {}
    for family in text_string_to_metric_families(body.decode()):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(found: Samples, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    matching = [v for (n, ls), v in found.items() if n == name and set(labels.items()) <= set(ls)]
    assert matching, f"no sample {name} {labels}"
    return sum(matching)


def test_without_a_token_configured_it_is_404(settings):
    settings.METRICS_TOKEN = ""
    assert scrape().status_code == 404
    assert scrape(None).status_code == 404


def test_a_wrong_or_missing_token_is_404_and_the_right_one_200(settings):
    settings.METRICS_TOKEN = TOKEN
    assert scrape(None).status_code == 404
    assert scrape("wrong").status_code == 404
    assert scrape(TOKEN + "x").status_code == 404
    answer = Client().post("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert answer.status_code == 404
    ok = scrape(TOKEN, HTTP_HOST="10.0.0.7:8000")  # by address: no Host check
    assert ok.status_code == 200
    assert ok["Content-Type"].startswith("text/plain")


def _dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/hook"


def test_every_family_moves_with_real_traffic(
    settings,
    referee,
    player,
    make_campaign,
    make_user,
    client_for,
    django_capture_on_commit_callbacks,
):
    settings.METRICS_TOKEN = TOKEN
    before = samples(scrape().content)
    referee_api, player_api = client_for(referee), client_for(player)

    # actions in a hit_dice campaign, and a clock advance in an old_school one
    campaign = make_campaign("hit_dice")
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 3, "hp": 9})
    for _ in range(3):
        answer = player_api.post(
            reverse("api-actions", kwargs={"character_id": aldo.pk}),
            {"action": "damage", "params": {"amount": 1}},
            format="json",
        )
        assert answer.status_code == 201
    ward = make_campaign("hit_dice")
    wounded(ward, player, "Ida", every=30)  # a worsening wound: an effect every 30 minutes
    # a webhook that refuses everything: its events wait, its first one failed
    hook = referee_api.post(
        reverse("api-webhooks", kwargs={"campaign_id": ward.pk}), {"url": _dead_url()}, "json"
    ).json()
    with django_capture_on_commit_callbacks(execute=True):  # the task runs in-process
        advance = referee_api.post(
            reverse("api-clock-advance", kwargs={"campaign_id": ward.pk}),
            {"minutes": 600},
            "json",
        )
    assert advance.status_code == 202
    # a job that waits its turn (its task never ran), and a live clock
    quiet = make_campaign("hit_dice")
    clock_advance_start(campaign_id=quiet.pk, minutes=60, kind=ClockJobKind.ACTION)
    clock_live_set(campaign_id=quiet.pk, ratio=Decimal(1))
    # a worker's sign of life
    mark_worker_seen()
    # a request over its limit, and a username locked out
    settings.SAWBONES_THROTTLE_RATES = {**settings.SAWBONES_THROTTLE_RATES, "user": "2/min"}
    busy = client_for(make_user("busy"))
    throttled = [busy.get(reverse("api-campaigns")).status_code for _ in range(3)]
    assert throttled == [200, 200, 429]
    settings.SAWBONES_THROTTLE_RATES = {**settings.SAWBONES_THROTTLE_RATES, "user": "600/min"}
    make_user("ada")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        APIClient().post(
            reverse("api-token"), {"username": "ada", "password": "wrong"}, format="json"
        )

    if os.environ.get("REDIS_URL"):  # the queues' lengths are read from Redis
        with tasks_to(os.environ["REDIS_URL"]):
            after = samples(scrape().content)
        for queue in QUEUES:
            assert value(after, "sawbones_celery_queue_length", queue=queue) >= 0
    else:
        after = samples(scrape().content)

    def moved(name: str, **labels: str) -> float:
        old = sum(
            v for (n, ls), v in before.items() if n == name and set(labels.items()) <= set(ls)
        )
        return value(after, name, **labels) - old

    # requests by view and status, and their latency
    assert moved("sawbones_http_requests_total", view="api-actions", status="201") == 3
    assert moved("sawbones_http_requests_total", view="api-clock-advance", status="202") == 1
    assert moved("sawbones_http_requests_total", view="api-campaigns", status="429") == 1
    assert moved("sawbones_http_request_duration_seconds_count", view="api-actions") == 3
    assert value(after, "sawbones_http_request_duration_seconds_sum", view="api-actions") > 0
    # resolutions by ruleset, effects applied
    actions = Resolution.objects.filter(kind="action", campaign__ruleset="hit_dice").count()
    assert actions >= 3  # the three damages, and the wound the ward's character came with
    assert moved("sawbones_resolutions_total", ruleset="hit_dice", kind="action") == actions
    effects = moved("sawbones_effects_applied_total", ruleset="hit_dice")
    assert effects == 20
    assert moved("sawbones_resolutions_total", ruleset="hit_dice", kind="effect") == effects
    # clock jobs by state, how long a queued one waits, a live clock's lag
    assert moved("sawbones_clock_jobs", state="done") == 1
    assert moved("sawbones_clock_jobs", state="queued") == 1
    assert value(after, "sawbones_clock_jobs", state="failed") == 0
    assert value(after, "sawbones_clock_job_queued_seconds", campaign=str(quiet.pk)) >= 0
    # 60 queued minutes at one game minute per real minute: an hour behind
    lag = value(after, "sawbones_clock_lag_seconds", campaign=str(quiet.pk))
    assert 3600 <= lag < 3660
    # webhooks: deliveries by outcome, the refusing URL's backlog and failed tries
    pending = WebhookDelivery.objects.filter(endpoint_id=hook["id"]).count()
    assert pending > 1
    assert value(after, "sawbones_webhook_deliveries", state="pending") == pending
    assert value(after, "sawbones_webhook_deliveries", state="delivered") == 0
    ids = {"webhook": str(hook["id"]), "campaign": str(ward.pk)}
    assert value(after, "sawbones_webhook_backlog", **ids) == pending
    assert value(after, "sawbones_webhook_failed_attempts", **ids) == 1
    assert value(after, "sawbones_webhook_oldest_pending_seconds", **ids) >= 0
    # the workers' heartbeat, throttled requests, login lockouts
    assert value(after, "sawbones_worker_heartbeat_timestamp_seconds") > 0
    assert moved("sawbones_throttled_requests_total", scope="user") == 1
    assert value(after, "sawbones_login_lockouts") == 1
    assert value(after, "sawbones_metrics_database_up") == 1


@pytest.mark.slow
def test_gunicorns_processes_are_added_up(tmp_path):
    """Under gunicorn each worker process counts its own requests; with
    PROMETHEUS_MULTIPROC_DIR a scrape answered by any of them adds up all of them."""
    env = {
        **os.environ,
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "prometheus"),
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'empty.sqlite3'}",  # no tables in it
    }
    count = (
        "import django; django.setup(); from core.metrics import REQUESTS; "
        "REQUESTS.labels(view='home', method='GET', status='200').inc()"
    )
    for _ in range(2):  # two worker processes, one request each
        subprocess.run([sys.executable, "-c", count], env=env, check=True, cwd=ROOT)
    scrape_in_a_third = (
        "import django; django.setup(); from config.metrics import exposition; "
        "import sys; sys.stdout.write(exposition().decode())"
    )
    out = subprocess.run(
        [sys.executable, "-c", scrape_in_a_third],
        env=env,
        check=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout
    found = samples(out.encode())
    assert value(found, "sawbones_http_requests_total", view="home", status="200") == 2
    # that process's database has no tables: the process counts are still answered
    assert value(found, "sawbones_metrics_database_up") == 0
