"""The monitoring profile's files hold together (no Docker needed: read as Prometheus,
Grafana and Compose read them): every metric an alert or a dashboard panel asks for is
in a real GET /metrics, the five alerts the operator needs exist and are explained in
docs/operations.md, and compose starts Prometheus and Grafana only with --profile
monitoring, on this host only, with the files mounted where their configuration says."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from core.health import mark_worker_seen
from webhooks.tests.worker import tasks_to

ROOT = Path(__file__).resolve().parent.parent.parent
DEPLOY = ROOT / "deploy"
TOKEN = "monitoring-files-token"  # noqa: S105 - tests only
NEEDED = {  # what each must watch: an alert of each
    "clock lag": "sawbones_clock_lag_seconds",
    "queue depth": "sawbones_celery_queue_length",
    "failing webhooks": "sawbones_webhook_failed_attempts",
    "no worker heartbeat": "sawbones_worker_heartbeat_timestamp_seconds",
    "5xx rate": "sawbones_http_requests_total",
}
PROMQL_WORDS = {"sawbones"}  # the job's name, not a metric


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


def metrics_in(expr: str) -> set[str]:
    return set(re.findall(r"\bsawbones_[a-z0-9_]+", expr)) - PROMQL_WORDS


def alerts() -> list[dict[str, Any]]:
    return [rule for group in load(DEPLOY / "alerts.yml")["groups"] for rule in group["rules"]]


def dashboard_exprs() -> list[str]:
    board = json.loads((DEPLOY / "grafana" / "sawbones.json").read_text())
    return [t["expr"] for panel in board["panels"] for t in panel["targets"]]


@pytest.fixture
def exposed(settings, db) -> set[str]:
    """Every metric name a real scrape offers (a request answered, a worker seen)."""
    settings.METRICS_TOKEN = TOKEN
    Client().get("/health/")
    mark_worker_seen()
    scraper = Client(HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    if os.environ.get("REDIS_URL"):  # the queues' lengths are read from Redis
        with tasks_to(os.environ["REDIS_URL"]):
            body = scraper.get("/metrics").content.decode()
    else:
        body = scraper.get("/metrics").content.decode()
    names: set[str] = set()
    for family in text_string_to_metric_families(body):
        names.add(family.name)
        names.update(sample.name for sample in family.samples)
        if family.type == "counter":
            names.add(family.name + "_total")
        if family.type == "histogram":
            names.update(family.name + s for s in ("_bucket", "_count", "_sum"))
    if not os.environ.get("REDIS_URL"):
        names.add("sawbones_celery_queue_length")  # checked where CI gives a Redis
    return names


def test_every_alert_and_panel_asks_for_metrics_the_app_exposes(exposed):
    asked = {m for rule in alerts() for m in metrics_in(rule["expr"])}
    asked |= {m for expr in dashboard_exprs() for m in metrics_in(expr)}
    assert asked - exposed == set()
    assert len(asked) >= 15


def test_the_five_alerts_the_issue_asks_for_exist_and_are_explained():
    rules = alerts()
    docs = (ROOT / "docs" / "operations.md").read_text()
    for what, metric in NEEDED.items():
        assert any(metric in rule["expr"] for rule in rules), what
    for rule in rules:
        assert re.fullmatch(r"Sawbones\w+", rule["alert"])
        assert rule["annotations"]["summary"]
        assert rule["labels"]["severity"] in {"info", "warning", "critical"}
        assert f"`{rule['alert']}`" in docs, f"docs/operations.md says nothing of {rule['alert']}"


def test_prometheus_scrapes_every_web_copy_with_the_token_and_loads_the_alerts():
    config = load(DEPLOY / "prometheus.yml")
    assert config["rule_files"] == ["/etc/prometheus/alerts.yml"]
    (job,) = config["scrape_configs"]
    assert job["metrics_path"] == "/metrics"
    assert job["authorization"] == {"type": "Bearer", "credentials_file": "/tmp/metrics_token"}
    (dns,) = job["dns_sd_configs"]
    assert (sorted(dns["names"]), dns["type"], dns["port"]) == (["events", "web"], "A", 8000)
    assert "TOKEN" not in (DEPLOY / "prometheus.yml").read_text().upper().replace(
        "METRICS_TOKEN", ""
    )


def test_compose_starts_monitoring_only_with_its_profile_and_on_this_host_only():
    services = load(ROOT / "docker-compose.yml")["services"]
    monitoring = {name for name, s in services.items() if "monitoring" in s.get("profiles", [])}
    assert monitoring == {"prometheus", "grafana"}
    for name in monitoring:
        for port in services[name]["ports"]:
            assert str(port).startswith("127.0.0.1:"), port
    prometheus = services["prometheus"]
    mounts = dict(v.split(":")[:2] for v in prometheus["volumes"] if v.startswith("./"))
    assert mounts == {
        "./deploy/prometheus.yml": "/etc/prometheus/prometheus.yml",
        "./deploy/alerts.yml": "/etc/prometheus/alerts.yml",
    }
    assert "/tmp/metrics_token" in prometheus["command"][0]
    assert prometheus["environment"]["METRICS_TOKEN"].startswith("${METRICS_TOKEN:?")
    grafana = services["grafana"]
    mounts = dict(v.split(":")[:2] for v in grafana["volumes"] if v.startswith("./"))
    board = mounts["./deploy/grafana/sawbones.json"]
    provisioning = load(DEPLOY / "grafana/provisioning/dashboards/sawbones.yml")
    assert Path(board).parent == Path(provisioning["providers"][0]["options"]["path"])
    source = load(DEPLOY / "grafana/provisioning/datasources/prometheus.yml")["datasources"][0]
    uids = {
        t["datasource"]["uid"]
        for p in json.loads((DEPLOY / "grafana/sawbones.json").read_text())["panels"]
        for t in p["targets"]
    }
    assert uids == {source["uid"]}
    assert source["url"] == "http://prometheus:9090"
    # the app's services need no profile: `docker compose up` runs them as before
    assert "profiles" not in services["web"]
