"""Benchmark of an action against a trivial request (issue 16, P2), through a real server.

Starts gunicorn itself (production settings, ``--workers`` sync workers, on a free port)
on a database of its own (``<DATABASE_URL's name>_actionbench``, dropped and made
anew), then ``--clients`` client processes, each signed in as its own player and
playing its own character, measure side by side in the same run:

* GET: ``GET /api/v1/campaigns/{id}/`` (the session, the user, the membership: the
  trivial authenticated request);
* action: ``POST /api/v1/characters/{id}/actions/`` hit_dice ``long_rest`` (rolls dice,
  writes the sheet, the dice counter, the log row and the clock job of its 8 hours).

Both with the whole party in one campaign (the campaign's row lock is shared) and with a
campaign per client. Phases alternate (GET, action, GET, action) so a change of the
machine's load falls on both; rates are requests per second over all clients, p95 in
ms, and the ratios action/GET are what travels (the machine is shared). Goal: rate
ratio >= 0.5, p95 ratio <= 2. Beside them, the CPU gunicorn spent per request (ms, its
master and workers, from /proc; PostgreSQL's is left out: other work on the machine
shares it) and the ratio GET/action of that: the rate ratio a quiet machine would show
if the server's Python were all the cost; it moves far less with the machine's load.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sawbones REDIS_URL=redis://127.0.0.1:6379/6 \\
        .venv/bin/python bench/actions.py [--seconds 8] [--clients 8] [--workers 3] \\
        [--app DIR] [--before DIR]

``--app`` serves another checkout of the project with the same setup. ``--before DIR``
serves a second checkout (an earlier commit: ``git worktree add --detach DIR <commit>``)
beside it, on the same database and with the same clients, its phases interleaved with
the first's, so "before" and "after" are measured under the same load in one run.
The clock tasks the actions queue go to REDIS_URL's database (no worker runs):
give the bench a Redis database of its own; its ``celery`` queue is emptied at the end.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import secrets
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# bench/ is on the path of a bench script
from live_pages import (  # noqa: E402
    bench_env,
    free_port,
    gunicorn_cpu,
    make_database,
    start_server,
)

CSRF = "benchbenchbenchbenchbenchbench42"  # 32 characters: a CSRF secret as the cookie


def make_players(clients: int) -> dict[str, list[dict[str, Any]]]:
    """Per mode, each client's session, campaign and character."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from campaigns.models import Membership, Role
    from campaigns.services import campaign_create
    from rules.play.services import character_create

    users = get_user_model().objects
    referee = users.create_user(username="bench-referee", password=secrets.token_hex(16))
    party = campaign_create(user=referee, name="Bench party", ruleset="hit_dice")
    plan: dict[str, list[dict[str, Any]]] = {"one party": [], "a campaign each": []}
    for n in range(clients):
        player = users.create_user(username=f"bench-player{n}", password=secrets.token_hex(16))
        web = Client()
        web.force_login(player)
        session = web.cookies["sessionid"].value
        own = campaign_create(user=referee, name=f"Bench {n}", ruleset="hit_dice")
        for mode, campaign in (("one party", party), ("a campaign each", own)):
            membership = Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
            character = character_create(
                membership=membership, name=f"Hero {n}", sheet={"level": 3, "hp": 5}
            )
            plan[mode].append(
                {"session": session, "campaign": campaign.pk, "character": character.pk}
            )
    return plan


def client(args: tuple[int, dict[str, Any], str, float]) -> list[float]:
    """One client: its request again and again for ``seconds``; each latency in ms."""
    port, who, kind, seconds = args
    headers = {"Cookie": f"sessionid={who['session']}; csrftoken={CSRF}", "Host": "127.0.0.1"}
    if kind == "action":
        method, url = "POST", f"/api/v1/characters/{who['character']}/actions/"
        body: bytes | None = json.dumps({"action": "long_rest", "params": {}}).encode()
        headers |= {"Content-Type": "application/json", "X-CSRFToken": CSRF}
        expected = 201
    else:
        method, url, body, expected = "GET", f"/api/v1/campaigns/{who['campaign']}/", None, 200
    latencies = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        start = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request(method, url, body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        connection.close()
        if response.status != expected:
            raise SystemExit(f"{method} {url}: {response.status}, not {expected}")
        latencies.append((time.perf_counter() - start) * 1000)
    return latencies


def phase(
    pool: Any, server: tuple[int, Any], players: list[dict[str, Any]], kind: str, seconds: float
) -> tuple[list[float], float]:
    """Each request's latency (ms), and the seconds of CPU gunicorn (master and workers)
    spent meanwhile: the cost per request that other work on the machine does not move
    the way it moves rates."""
    port, process = server
    cpu = gunicorn_cpu(process.pid)
    runs = pool.map(client, [(port, who, kind, seconds) for who in players])
    return [latency for run in runs for latency in run], gunicorn_cpu(process.pid) - cpu


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="per phase (4 phases a mode)")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--app", type=Path, default=ROOT, help="the checkout gunicorn serves")
    parser.add_argument("--before", type=Path, help="a second checkout served beside it")
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        raise SystemExit("DATABASE_URL must name a PostgreSQL server (its own database is made)")
    # The settings' own default: a connection per request, unless DATABASE_CONN_MAX_AGE says
    env = bench_env(os.environ["DATABASE_URL"], "_actionbench", conn_max_age="0")
    os.environ.update(env)
    make_database(env, args.app.resolve())
    import django

    django.setup()
    plan = make_players(args.clients)
    apps = {"": args.app.resolve()}
    if args.before:
        apps = {"after: ": args.app.resolve(), "before: ": args.before.resolve()}
    servers: dict[str, tuple[int, subprocess.Popen[bytes]]] = {}
    try:
        for label, app in apps.items():
            port = free_port()
            servers[label] = (
                port,
                start_server(
                    env, port, ["config.wsgi:application", f"--workers={args.workers}"], app
                ),
            )
        print(
            f"gunicorn {args.workers} workers (production settings), {args.clients} clients, "
            f"{args.seconds:g} s a phase, {os.cpu_count()} cores, load average "
            f"{os.getloadavg()[0]:.1f}; serving "
            + ", ".join(f"{label}{app}" for label, app in apps.items())
        )
        print(
            f"{'':<24}{'GET/s':>8}{'GET p95':>9}{'act/s':>8}{'act p95':>9}"
            f"{'rate ratio':>12}{'p95 ratio':>11}{'GET cpu':>9}{'act cpu':>9}{'cpu ratio':>11}"
        )
        with multiprocessing.get_context("fork").Pool(args.clients) as pool:
            for server in servers.values():
                phase(pool, server, plan["one party"], "get", 1.0)  # warm every worker
            for mode, players in plan.items():
                got: dict[str, list[float]] = {label: [] for label in servers}
                acted: dict[str, list[float]] = {label: [] for label in servers}
                cpu = {label: {"get": 0.0, "action": 0.0} for label in servers}
                for _ in range(2):
                    for label, server in servers.items():
                        latencies, seconds = phase(pool, server, players, "get", args.seconds)
                        got[label] += latencies
                        cpu[label]["get"] += seconds
                        latencies, seconds = phase(pool, server, players, "action", args.seconds)
                        acted[label] += latencies
                        cpu[label]["action"] += seconds
                for label in servers:
                    get_rate = len(got[label]) / (2 * args.seconds)
                    act_rate = len(acted[label]) / (2 * args.seconds)
                    get_cpu = 1000 * cpu[label]["get"] / len(got[label])
                    act_cpu = 1000 * cpu[label]["action"] / len(acted[label])
                    print(
                        f"{label + mode:<24}{get_rate:>8.0f}{p95(got[label]):>9.1f}"
                        f"{act_rate:>8.0f}{p95(acted[label]):>9.1f}"
                        f"{act_rate / get_rate:>12.2f}{p95(acted[label]) / p95(got[label]):>11.2f}"
                        f"{get_cpu:>9.2f}{act_cpu:>9.2f}{get_cpu / act_cpu:>11.2f}"
                    )
    finally:
        for _, process in servers.values():
            process.terminate()
            process.wait(timeout=30)
        redis_url = env.get("REDIS_URL", "")
        if redis_url:
            import redis

            redis.Redis.from_url(redis_url).delete("celery")  # the clock tasks queued


if __name__ == "__main__":
    main()
