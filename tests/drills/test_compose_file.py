"""docker-compose.yml scales out as docs/deployment.md says (no Docker needed: the file is
read with PyYAML, as Compose reads it, merge keys and all).

``docker compose up --scale web=3 --scale worker-clock=2`` must work: no service that may
run several copies has a fixed container name or a host port of its own; the proxy is the
one published port and finds every web container; every copy of the app has the same
configuration; the migrations run once, before any copy starts; beat is one; every Celery
queue has workers, and the clock's are never the deliveries'.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from config.queues import CLOCK, DEFAULT, HOUSEKEEPING, QUEUES, WEBHOOKS

ROOT = Path(__file__).resolve().parent.parent.parent
WORKERS = ("worker-clock", "worker-webhooks", "worker-housekeeping")  # one per queue
SCALED = ("web", "events", *WORKERS)  # any number of copies
APP = ("migrate", "web", *WORKERS, "beat")  # the app's image and configuration
POOLED = {"DATABASE_CONN_MAX_AGE": "0", "DATABASE_POOL_MAX_SIZE": "4"}  # the events' own


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    found: dict[str, Any] = compose["services"]
    return found


def host_port(mapping: Any) -> str | None:
    """The host side of a ``ports`` entry ("8000:8000", "127.0.0.1:80:80", long form)."""
    if isinstance(mapping, dict):
        published = mapping.get("published")
        return None if published is None else str(published)
    parts = str(mapping).split(":")
    return ":".join(parts[:-1]) or None


def test_no_service_has_a_fixed_container_name(services):
    assert [name for name, s in services.items() if "container_name" in s] == []


@pytest.mark.parametrize("name", SCALED)
def test_a_scaled_service_publishes_no_host_port(services, name):
    # Two copies cannot bind one host port: the proxy reaches them on the network.
    assert all(host_port(p) is None for p in services[name].get("ports", [])), services[name]


def test_the_proxy_is_the_one_published_port_and_reaches_every_web_container(services):
    published = {
        name
        for name, s in services.items()
        if "profiles" not in s and any(map(host_port, s.get("ports", [])))
    }
    assert published == {"proxy"}  # the monitoring profile's are this host's only
    proxy = services["proxy"]
    assert proxy["image"].startswith("nginx:")
    # nginx 1.27.3 or later: `resolve` in an upstream block (deploy/nginx.conf)
    major, minor = (int(n) for n in proxy["image"].split(":")[1].split(".")[:2])
    assert (major, minor) >= (1, 28)
    mounted = {v.split(":")[0]: v.split(":")[1] for v in proxy["volumes"]}
    assert mounted == {"./deploy/nginx.conf": "/etc/nginx/conf.d/default.conf"}
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    # the service's name, asked again of Docker's DNS, so every copy is found
    assert re.search(r"^resolver 127\.0\.0\.11 valid=\d+s", conf, re.MULTILINE)
    upstream = re.search(r"upstream (\w+) \{(.*?)\}", conf, re.DOTALL)
    assert upstream
    assert re.search(r"server web:8000 resolve;", upstream[2])
    assert "zone " in upstream[2]  # `resolve` needs the upstream in shared memory
    assert f"proxy_pass http://{upstream[1]};" in conf
    # the web containers listen where the proxy sends
    assert "--bind 0.0.0.0:8000" in services["web"]["command"]
    assert services["web"]["expose"] == ["8000"]


def test_every_copy_of_the_app_has_the_same_configuration(services):
    environments = [services[name]["environment"] for name in APP]
    assert all(env == environments[0] for env in environments)
    env = environments[0]
    for shared in ("DJANGO_SECRET_KEY", "DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"):
        assert env[shared], shared
    assert env["DJANGO_SETTINGS_MODULE"] == "config.settings.production"
    # behind the proxy the client's address is the one it appends to X-Forwarded-For
    assert env["DJANGO_NUM_PROXIES"].startswith("${DJANGO_NUM_PROXIES:-1}")
    assert all(services[name]["build"] == "." for name in APP)
    # the event streams: the same, with a pool of connections instead of kept ones
    events = services["events"]
    assert events["build"] == "."
    assert events["environment"] == {**env, **POOLED}


def test_the_event_streams_have_threads_and_the_proxy_streams_them(services):
    events = services["events"]
    assert "--worker-class gthread" in events["command"]
    threads = re.search(r"--threads (\d+)", events["command"])
    assert threads and int(threads[1]) >= 100
    assert "--bind 0.0.0.0:8000" in events["command"]
    assert events["expose"] == ["8000"]
    assert "events" in services["proxy"]["depends_on"]
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    upstream = re.search(r"upstream (\w+) \{[^}]*server events:8000 resolve;", conf)
    assert upstream
    location = re.search(r"location /live/events/ \{(.*?)\}", conf, re.DOTALL)
    assert location
    assert f"proxy_pass http://{upstream[1]};" in location[1]
    assert "proxy_buffering off;" in location[1]


def test_the_migrations_run_once_before_any_copy_starts(services):
    migrate = services["migrate"]
    assert migrate["command"] == "python manage.py migrate --noinput"
    assert migrate["restart"] == "no"
    for name in ("web", "events", *WORKERS, "beat"):
        assert "migrate" not in services[name]["command"]
        needs = services[name]["depends_on"]
        assert needs["migrate"] == {"condition": "service_completed_successfully"}, name
        assert needs["postgres"] == {"condition": "service_healthy"}, name
        assert needs["redis"] == {"condition": "service_healthy"}, name


def test_beat_is_one_and_can_write_its_schedule(services):
    beats = [name for name, s in services.items() if " beat" in str(s.get("command", ""))]
    assert beats == ["beat"]
    beat = services["beat"]
    assert beat.get("deploy", {}).get("replicas", 1) == 1
    assert "scale" not in beat
    # the image runs as a user who cannot write the app's folder (Dockerfile)
    assert "--schedule /tmp/" in beat["command"]
    assert "USER sawbones" in (ROOT / "Dockerfile").read_text()
    for name in SCALED:
        assert "beat" not in services[name]["command"]


def consumed(command: str) -> list[str]:
    """The queues a ``celery worker`` command takes (``-Q a,b``)."""
    found = re.search(r"(?:-Q|--queues)[ =](\S+)", command)
    assert found, f"a worker service names its queues: {command}"
    return found[1].split(",")


def test_every_queue_has_its_workers_and_the_clock_shares_with_no_delivery(services):
    workers = {
        name: consumed(s["command"])
        for name, s in services.items()
        if re.search(r"celery -A config worker\b", str(s.get("command", "")))
    }
    assert set(workers) == set(WORKERS)
    assert sorted(q for queues in workers.values() for q in queues) == sorted(QUEUES)
    assert workers["worker-clock"] == [CLOCK]
    assert workers["worker-webhooks"] == [WEBHOOKS]
    assert HOUSEKEEPING in workers["worker-housekeeping"]
    assert DEFAULT in workers["worker-housekeeping"]  # a task nobody routed still runs
    for name in WORKERS:  # each checked on its own, scaled on its own
        worker = services[name]
        assert "inspect ping" in str(worker["healthcheck"]["test"])
        assert "scale" not in worker and "container_name" not in worker
