"""What sessions in the cache save (issue 30, core/sessions.py), before and after in one
run: two checkouts served side by side on the same database, their phases interleaved.

Starts its own PostgreSQL cluster and ``redis-server`` (bench/actions.py's), then for each
checkout gunicorn as docker-compose.yml's ``web`` (3 sync workers, persistent
connections) and ``events`` (2 gthread workers of 250 threads, a pool of 4 connections)
services. ``--clients`` client processes, each signed in as its own player, measure:

* GET: ``GET /api/v1/campaigns/{id}/``, the trivial authenticated request;
* poll: an unchanged sheet's poll, ``GET /characters/{id}/live/`` answered 304;
* stream: a sheet's event stream opened (``GET /live/events/?watch=sheet:{id}``) and
  closed once its first line came (the opening: log-in, access check, first stamps).

For each, requests a second, p50 and p95 (ms) and the CPU per request (ms: the web
servers', PostgreSQL's, Redis's), from /proc.

    git worktree add --detach /tmp/before <commit>
    .venv/bin/python bench/sessions.py --before /tmp/before [--seconds 6] [--rounds 2]
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing
import os
import re
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# bench/ is on the path of a bench script
import servers as srv  # noqa: E402
from actions import BenchPostgres  # noqa: E402

from tests.drills.stack import Redis, have_servers  # noqa: E402

KINDS = ("GET", "poll", "stream")
EVENTS = ["config.wsgi:application", "--workers=2", "--worker-class=gthread", "--threads=250"]


def make_players(clients: int) -> list[dict[str, Any]]:
    from django.contrib.auth import get_user_model
    from django.test import Client

    from campaigns.models import Membership, Role
    from campaigns.services import campaign_create
    from rules.play.services import character_create

    users = get_user_model().objects
    referee = users.create_user(username="bench-referee", password=secrets.token_hex(16))
    campaign = campaign_create(user=referee, name="Bench", ruleset="hit_dice")
    players = []
    for n in range(clients):
        player = users.create_user(username=f"bench-player{n}", password=secrets.token_hex(16))
        web = Client()
        web.force_login(player)
        membership = Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
        character = character_create(
            membership=membership, name=f"Hero {n}", sheet={"level": 3, "hp": 5}
        )
        players.append(
            {
                "session": web.cookies["sessionid"].value,
                "campaign": campaign.pk,
                "character": character.pk,
            }
        )
    return players


def fetch(port: int, who: dict[str, Any], url: str) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", url, headers=headers(who))
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, body


def headers(who: dict[str, Any]) -> dict[str, str]:
    return {"Cookie": f"sessionid={who['session']}", "Host": "127.0.0.1"}


def client(args: tuple[dict[str, int], dict[str, Any], str, float]) -> list[float]:
    """One client: its request again and again for ``seconds``; each latency in ms."""
    ports, who, kind, seconds = args
    extra: dict[str, str] = {}
    if kind == "GET":
        port, url, expected = ports["web"], f"/api/v1/campaigns/{who['campaign']}/", 200
    elif kind == "poll":
        port, url, expected = ports["web"], f"/characters/{who['character']}/live/", 304
        url += f"?v={who['stamp']}"
        extra = {"If-None-Match": f'"{who["stamp"]}"', "HX-Request": "true"}
    else:
        port, url, expected = ports["events"], f"/live/events/?watch=sheet:{who['character']}", 200
    latencies = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        start = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("GET", url, headers=headers(who) | extra)
        response = connection.getresponse()
        if kind == "stream":
            line = response.readline()  # the stream's first line: "retry: 2000"
            if not line.startswith(b"retry"):
                raise SystemExit(f"{url}: {line!r}")
        else:
            response.read()
        connection.close()
        if response.status != expected:
            raise SystemExit(f"GET {url}: {response.status}, not {expected}")
        latencies.append((time.perf_counter() - start) * 1000)
    return latencies


Results = dict[tuple[str, str], tuple[list[float], dict[str, float]]]


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="the checkout before")
    parser.add_argument("--app", type=Path, default=ROOT, help="the checkout after")
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--clients", type=int, default=8)
    return parser.parse_args()


def start_servers(
    env: dict[str, str], apps: dict[str, Path], servers: list[Any]
) -> tuple[dict[str, dict[str, int]], dict[str, list[int]]]:
    """A web and an events server for each checkout: their ports and their masters' pids.
    Each server joins ``servers`` as it starts, so the caller stops whatever did."""
    events_env = {**env, "DATABASE_CONN_MAX_AGE": "0", "DATABASE_POOL_MAX_SIZE": "4"}
    ports: dict[str, dict[str, int]] = {}
    masters: dict[str, list[int]] = {}
    for label, app in apps.items():
        ports[label] = {"web": srv.free_port(), "events": srv.free_port()}
        web = srv.start_server(
            env, ports[label]["web"], ["config.wsgi:application", "--workers=3"], app
        )
        servers.append(web)
        events = srv.start_server(events_env, ports[label]["events"], EVENTS, app)
        servers.append(events)
        masters[label] = [web.pid, events.pid]
    return ports, masters


def stamp_sheets(port: int, players: list[dict[str, Any]]) -> None:
    """Each player's sheet's stamp, as its page carries it."""
    for who in players:
        status, page = fetch(port, who, f"/characters/{who['character']}/")
        assert status == 200, status
        who["stamp"] = re.search(rb"/live/\?v=([^\"&]+)", page).group(1).decode()  # type: ignore[union-attr]


def measure(
    args: argparse.Namespace,
    ports: dict[str, dict[str, int]],
    masters: dict[str, list[int]],
    players: list[dict[str, Any]],
    pg: BenchPostgres,
    redis: Redis,
) -> Results:
    """Every kind of request against each checkout in turn, ``--rounds`` times: the
    latencies and the CPU each part spent."""
    results: Results = {}
    for label in ports:
        for kind in KINDS:
            results[(label, kind)] = ([], dict.fromkeys(("web", "pg", "redis"), 0.0))
    with multiprocessing.get_context("fork").Pool(args.clients) as pool:
        for label in ports:  # warm every worker
            pool.map(client, [(ports[label], who, "GET", 1.0) for who in players])
        for _ in range(args.rounds):
            for kind in KINDS:
                for label in ports:
                    before = cpu(masters[label], pg, redis)
                    runs = pool.map(
                        client, [(ports[label], who, kind, args.seconds) for who in players]
                    )
                    after = cpu(masters[label], pg, redis)
                    latencies, spent = results[(label, kind)]
                    latencies += [latency for run in runs for latency in run]
                    for part in spent:
                        spent[part] += after[part] - before[part]
    return results


def report(args: argparse.Namespace, labels: list[str], results: Results) -> None:
    print(f"{'':<16}{'req/s':>7}{'p50':>7}{'p95':>7}{'web':>7}{'pg':>7}{'redis':>7}{'total':>7}")
    for kind in KINDS:
        for label in labels:
            latencies, spent = results[(label, kind)]
            per = {part: 1000 * s / len(latencies) for part, s in spent.items()}
            print(
                f"{kind + ', ' + label:<16}"
                f"{len(latencies) / (args.rounds * args.seconds):>7.0f}"
                f"{statistics.median(latencies):>7.1f}"
                f"{statistics.quantiles(latencies, n=20)[-1]:>7.1f}"
                + "".join(f"{per[part]:>7.2f}" for part in ("web", "pg", "redis"))
                + f"{sum(per.values()):>7.2f}"
            )
    print(
        f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} at the end; "
        "CPU in ms per request"
    )


def main() -> None:
    args = arguments()
    if not have_servers():
        raise SystemExit("the bench needs PostgreSQL's server binaries and redis-server")
    apps = {"before": args.before.resolve(), "after": args.app.resolve()}
    with tempfile.TemporaryDirectory(prefix="sawbones-sessionbench-") as tmp:
        base = Path(tmp)
        pg = BenchPostgres(base)
        pg.start()
        redis = Redis(base)
        servers: list[Any] = []
        try:
            redis.start()
            os.environ["REDIS_URL"] = redis.url
            # Closed streams end at their next keep-alive: soon, so threads come back.
            os.environ["SAWBONES_STREAM_KEEPALIVE_SECONDS"] = "0.5"
            env = srv.bench_env(pg.url("sawbones"), "_sessionbench", conn_max_age="60")
            srv.make_database(env, apps["after"])
            os.environ.update(env)
            import django

            django.setup()
            players = make_players(args.clients)
            ports, masters = start_servers(env, apps, servers)
            stamp_sheets(ports["after"]["web"], players)
            print(
                f"{args.clients} clients, {args.seconds:g} s a phase, {args.rounds} rounds, "
                f"{os.cpu_count()} cores, load average "
                f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} at the start"
            )
            results = measure(args, ports, masters, players, pg, redis)
            report(args, list(apps), results)
        finally:
            try:
                for server in servers:
                    srv.stop_server(server)
            finally:  # the cluster and Redis go even if a server would not stop
                redis.kill()
                pg.stop("fast")


def cpu(masters: list[int], pg: BenchPostgres, redis: Redis) -> dict[str, float]:
    assert redis.process is not None
    return {
        "web": sum(srv.gunicorn_cpu(master) for master in masters),
        "pg": pg.cpu(),
        "redis": srv.process_cpu(redis.process.pid),
    }


if __name__ == "__main__":
    main()
