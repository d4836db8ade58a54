"""Benchmark of open live pages (issue 16): what 200 open pages cost the server, and
what they do to the actions beside them: polling with ETag (304), without it (200), and
holding the product's event stream instead (web/streams.py), as docker-compose.yml
deploys it.

Starts two gunicorns itself (production settings, on free ports) on a database of its own
(``<DATABASE_URL's name>_livebench``, dropped and made anew): 10 campaigns of a referee
and 6 players with a character each, and one more campaign whose ``--actors`` players
act. The ``--pages`` open pages are the players' sheets and dashboards and the referees'
dashboards and views of the sheets, each loaded once as a browser does; their polls
use what the page says (the ``hx-get`` URL and the ``data-etag`` stamp) and send what
htmx sends (``HX-Request``, ``HX-Current-URL``, ``HX-Target``, ``HX-Trigger``, the
session cookie and the stamp as ``If-None-Match``), each page every ``--interval``
seconds (1: the sheet's rate; dashboards poll every 2 s, so this is the worst case),
skipping a tick while its previous poll is still out (htmx's ``hx-sync`` drop). The
pollers run as asyncio tasks in ``--poller-processes`` processes; nothing they watch
changes during the run (the actors play their own campaign), so every poll is the
unchanged case.

Beside them each of the ``--actors`` client processes posts
``POST /api/v1/characters/{id}/actions/`` hit_dice ``long_rest`` (as bench/actions.py)
every ``--action-interval`` seconds (paced, so the server is not saturated and its CPU
says something). Phases, each ``--seconds`` long, ``--rounds`` times in turn so a
change of the machine's load falls on all:

* ``baseline``: the actions alone, on the web server (``--workers`` sync workers, as
  bench/actions.py and docker-compose.yml's ``web``);
* ``etag``: + the pollers on the web server, with If-None-Match (304s);
* ``no etag``: + the pollers without it (every poll a whole fragment);
* ``sse``: + one event stream per page (``GET /live/events/?watch=...``, the key the
  page's live region names) on the events server, docker-compose.yml's ``events``: 2
  gthread workers of 250 threads, a pool of 4 database connections a worker. The
  streams are opened (25 at a time) before the phase's window; nothing they watch
  changes, so they carry comments only.

Measured over each phase's window: both gunicorns' CPU (masters and workers, utime+stime
from /proc) and PostgreSQL's (every postgres process, and the backends it reaped: the
server is shared, so its figure holds others' work too), as % of one core; the
machine's busy share (/proc/stat, both cores, everyone's); the clients' own CPU; the
actions' median and p95 and the polls' median and p95 in ms.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sawbones REDIS_URL=redis://127.0.0.1:6379/6 \\
        .venv/bin/python bench/live_pages.py [--pages 200] [--seconds 10] [--rounds 2]

``DATABASE_CONN_MAX_AGE`` is 60 unless set (docker-compose.yml's). The actions' clock
tasks go to REDIS_URL's database (no worker runs): give the bench a Redis database of
its own; its ``celery`` queue is emptied at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import http.client
import json
import multiprocessing
import os
import random
import re
import secrets
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# bench/ is on the path of a bench script
import servers as srv  # noqa: E402

CSRF = "benchbenchbenchbenchbenchbench42"  # 32 characters: a CSRF secret as the cookie
CAMPAIGNS = 10
PLAYERS = 6  # a campaign's players, a character each


# -- the people, their pages -------------------------------------------------------------


def make_people(actors: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The pages one may open (who and which URL) and the actors (who and what)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from campaigns.models import Membership, Role
    from campaigns.services import campaign_create
    from rules.play.services import character_create

    users = get_user_model().objects

    def session(user: Any) -> str:
        web = Client()
        web.force_login(user)
        return str(web.cookies["sessionid"].value)

    pages: list[dict[str, Any]] = []
    for c in range(CAMPAIGNS):
        referee = users.create_user(username=f"bench-referee{c}", password=secrets.token_hex(16))
        boss = session(referee)
        campaign = campaign_create(user=referee, name=f"Watched {c}", ruleset="hit_dice")
        pages.append({"session": boss, "url": f"/campaigns/{campaign.pk}/"})
        for n in range(PLAYERS):
            player = users.create_user(
                username=f"bench-player{c}-{n}", password=secrets.token_hex(16)
            )
            membership = Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER)
            hero = character_create(
                membership=membership, name=f"Hero {c}-{n}", sheet={"level": 3, "hp": 5}
            )
            mine = session(player)
            pages += [
                {"session": mine, "url": f"/characters/{hero.pk}/"},
                {"session": mine, "url": f"/campaigns/{campaign.pk}/"},
                {"session": boss, "url": f"/characters/{hero.pk}/"},
            ]
    referee = users.create_user(username="bench-actor-referee", password=secrets.token_hex(16))
    table = campaign_create(user=referee, name="Acting", ruleset="hit_dice")
    acting = []
    for n in range(actors):
        player = users.create_user(username=f"bench-actor{n}", password=secrets.token_hex(16))
        membership = Membership.objects.create(campaign=table, user=player, role=Role.PLAYER)
        hero = character_create(
            membership=membership, name=f"Actor {n}", sheet={"level": 3, "hp": 5}
        )
        acting.append({"session": session(player), "character": hero.pk})
    return pages, acting


LIVE = re.compile(r"<div [^>]*data-live-key=[^>]*>")  # the live region's opening tag


def attribute(tag: str, name: str) -> str:
    found = re.search(rf' {name}="([^"]*)"', tag)
    return html.unescape(found[1]) if found else ""


def open_page(port: int, page: dict[str, Any]) -> dict[str, Any]:
    """Load the page as a browser does: its live region's poll URL, target and stamp."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", page["url"], headers={"Cookie": cookie(page["session"])})
    response = connection.getresponse()
    body = response.read().decode()
    connection.close()
    found = LIVE.search(body)
    if response.status != 200 or found is None:
        raise SystemExit(f"GET {page['url']}: {response.status}, no live region")
    region = found[0]
    return page | {
        "poll": attribute(region, "hx-get"),
        "target": attribute(region, "id"),
        "tag": attribute(region, "data-etag"),
        "events": "/live/events/?watch=" + attribute(region, "data-live-key"),  # as sawbones.js
    }


def cookie(session: str) -> str:
    return f"sessionid={session}; csrftoken={CSRF}"


# -- the clients -------------------------------------------------------------------------


def wait_until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.time()))


def actor(args: tuple[int, dict[str, Any], float, float, float]) -> dict[str, Any]:
    """One player acting every ``interval`` seconds within the window; each latency in ms."""
    port, who, interval, start, end = args
    headers = {
        "Cookie": cookie(who["session"]),
        "Host": "127.0.0.1",
        "Content-Type": "application/json",
        "X-CSRFToken": CSRF,
    }
    url = f"/api/v1/characters/{who['character']}/actions/"
    body = json.dumps({"action": "long_rest", "params": {}}).encode()
    latencies = []
    moment = start + random.uniform(0, interval)
    wait_until(start)
    cpu = time.process_time()
    while moment < end:
        wait_until(moment)
        began = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("POST", url, body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        connection.close()
        if response.status != 201:
            raise SystemExit(f"POST {url}: {response.status}, not 201")
        latencies.append((time.perf_counter() - began) * 1000)
        moment = max(moment + interval, time.time())
    return {"actions": latencies, "cpu": time.process_time() - cpu}


async def exchange(port: int, request: bytes) -> tuple[int, dict[str, str]]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        await reader.read()  # the body, to the end (the request asked to close)
        return int(lines[0].split()[1]), headers
    finally:
        writer.close()


def poll_request(page: dict[str, Any], etag: bool) -> bytes:
    path = page["poll"]
    lines = [
        f"GET {path} HTTP/1.1",
        "Host: 127.0.0.1",
        f"Cookie: {cookie(page['session'])}",
        "Accept: */*",
        "HX-Request: true",
        f"HX-Current-URL: http://127.0.0.1{page['url']}",
        f"HX-Target: {page['target']}",
        f"HX-Trigger: {page['target']}",
        "Connection: close",
    ]
    if etag:
        lines.append(f"If-None-Match: {page['tag']}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def poll_page(
    port: int,
    page: dict[str, Any],
    etag: bool,
    interval: float,
    start: float,
    end: float,
    out: dict[str, Any],
) -> None:
    moment = start + random.uniform(0, interval)
    out_now: asyncio.Task[None] | None = None

    async def once() -> None:
        began = time.perf_counter()
        status, headers = await exchange(port, poll_request(page, etag))
        out["polls"].append((time.perf_counter() - began) * 1000)
        out["status"][status] = out["status"].get(status, 0) + 1
        if status == 200 and "etag" in headers:
            page["tag"] = headers["etag"]  # the swapped-in region carries the new stamp

    while moment < end:
        await asyncio.sleep(max(0.0, moment - time.time()))
        if out_now is not None and not out_now.done():
            out["dropped"] += 1
        else:
            out_now = asyncio.create_task(once())
        moment += interval
    if out_now is not None:
        await out_now


async def listen(
    port: int,
    page: dict[str, Any],
    opening: asyncio.Semaphore,
    ready: asyncio.Event,
    end: float,
    out: dict[str, Any],
) -> None:
    """One page's event stream: opened ``opening`` at a time (each opening borrows a
    database connection from the events server's pool for its access check), held from
    the window's start to its end."""
    lines = [
        f"GET {page['events']} HTTP/1.1",
        "Host: 127.0.0.1",
        f"Cookie: {cookie(page['session'])}",
        "Accept: text/event-stream",
        "Cache-Control: no-cache",
    ]
    async with opening:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = await reader.readuntil(b"\r\n\r\n")
    if b" 200 " not in head.split(b"\r\n")[0] + b" ":
        raise SystemExit(f"GET {page['events']}: {head.splitlines()[0]!r}")
    out["streams"] += 1
    await ready.wait()
    try:
        while (left := end - time.time()) > 0:
            try:
                chunk = await asyncio.wait_for(reader.read(4096), left)
            except TimeoutError:
                break
            if not chunk:
                out["closed"] += 1
                break
            out["events"] += chunk.count(b"event: changed")
    finally:
        writer.close()


def pollers(args: tuple[int, list[dict[str, Any]], str, float, float, float]) -> dict[str, Any]:
    """A process of pages: polling (``etag`` / ``no etag``) or holding a stream (``sse``)."""
    port, pages, mode, interval, start, end = args
    out: dict[str, Any] = {
        "polls": [],
        "status": {},
        "dropped": 0,
        "streams": 0,
        "events": 0,
        "closed": 0,
        "late": 0,
    }

    async def run() -> float:
        if mode == "sse":
            ready, opening = asyncio.Event(), asyncio.Semaphore(25)
            tasks = [
                asyncio.create_task(listen(port, page, opening, ready, end, out)) for page in pages
            ]
            await asyncio.sleep(max(0.0, start - time.time()))
            cpu = time.process_time()
            out["late"] = len(pages) - out["streams"]  # still opening when the window began
            ready.set()
        else:
            await asyncio.sleep(max(0.0, start - time.time()))
            cpu = time.process_time()
            tasks = [
                asyncio.create_task(
                    poll_page(port, page, mode == "etag", interval, start, end, out)
                )
                for page in pages
            ]
        await asyncio.gather(*tasks)
        return time.process_time() - cpu

    out["cpu"] = asyncio.run(run())
    return out


# -- the phases --------------------------------------------------------------------------


def phase(
    pool: Any,
    ports: dict[str, int],
    masters: list[int],
    pages: list[dict[str, Any]],
    acting: list[dict[str, Any]],
    mode: str,
    args: argparse.Namespace,
) -> dict[str, Any]:
    lead = 10.0 if mode == "sse" else 1.0  # streams are opened before the window
    start = time.time() + lead
    end = start + args.seconds
    jobs = []
    web = ports["web"]
    if mode != "baseline":
        share = [pages[n :: args.poller_processes] for n in range(args.poller_processes)]
        at = ports["events"] if mode == "sse" else web
        jobs.append(
            pool.map_async(pollers, [(at, part, mode, args.interval, start, end) for part in share])
        )
    acts = pool.map_async(actor, [(web, who, args.action_interval, start, end) for who in acting])

    def servers_cpu() -> float:
        return sum(srv.gunicorn_cpu(master) for master in masters)

    wait_until(start)
    before = (servers_cpu(), srv.postgres_cpu(), srv.machine_busy())
    wait_until(end)
    after = (servers_cpu(), srv.postgres_cpu(), srv.machine_busy())
    acted = acts.get(timeout=args.seconds + 60)
    polled = jobs[0].get(timeout=args.seconds + 60) if jobs else []
    busy, total = (after[2][0] - before[2][0], after[2][1] - before[2][1])
    status: dict[int, int] = {}
    for part in polled:
        for code, n in part["status"].items():
            status[code] = status.get(code, 0) + n
    return {
        "seconds": args.seconds,
        "gunicorn": after[0] - before[0],
        "postgres": after[1] - before[1],
        "machine": busy / total if total else 0.0,
        "clients": sum(part["cpu"] for part in polled),
        "actors": sum(run["cpu"] for run in acted),
        "actions": [ms for run in acted for ms in run["actions"]],
        "polls": [ms for part in polled for ms in part["polls"]],
        "status": status,
        "dropped": sum(part["dropped"] for part in polled),
        "streams": sum(part["streams"] for part in polled),
        "events": sum(part["events"] for part in polled),
        "closed": sum(part["closed"] for part in polled),
        "late": sum(part["late"] for part in polled),
    }


def merged(runs: list[dict[str, Any]]) -> dict[str, Any]:
    total: dict[str, Any] = {"status": {}}
    for run in runs:
        for key, value in run.items():
            if key == "status":
                for code, n in value.items():
                    total["status"][code] = total["status"].get(code, 0) + n
            elif key == "machine":
                total[key] = total.get(key, 0.0) + value / len(runs)
            else:
                total[key] = total.get(key, type(value)()) + value
    return total


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else float("nan")


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def report(results: dict[str, dict[str, Any]]) -> None:
    base = results["baseline"]
    per_action = base["gunicorn"] / len(base["actions"])  # the server's CPU of an action
    for mode, run in results.items():
        seconds = run["seconds"]
        polls = len(run["polls"]) / seconds
        codes = " ".join(f"{code}:{n}" for code, n in sorted(run["status"].items()))
        extra = ""
        if run["polls"]:
            # what is left of the server's CPU once the actions' share is taken out
            each = (run["gunicorn"] - per_action * len(run["actions"])) / len(run["polls"])
            extra = f"{polls:.0f} polls/s ({codes}) drop {run['dropped']}"
            extra += f", {1000 * each:.1f} ms CPU/poll"
        if mode == "sse":
            extra = (
                f"{run['streams']} streams ({run['late']} opened late), {run['events']} "
                f"events, {run['closed']} closed"
            )
        print(
            f"{mode:<10}"
            f"{100 * run['gunicorn'] / seconds:>8.1f}{100 * run['postgres'] / seconds:>8.1f}"
            f"{100 * run['machine']:>8.0f}{100 * run['clients'] / seconds:>8.1f}"
            f"{len(run['actions']):>6}{median(run['actions']):>8.1f}{p95(run['actions']):>8.1f}"
            f"{median(run['actions']) / median(base['actions']):>7.2f}"
            f"{p95(run['actions']) / p95(base['actions']):>7.2f}"
            f"{median(run['polls']):>9.1f}{p95(run['polls']):>9.1f}  {extra}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument(
        "--interval", type=float, default=1.0, help="seconds between a page's polls"
    )
    parser.add_argument("--seconds", type=float, default=10.0, help="per phase")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--actors", type=int, default=4)
    parser.add_argument("--action-interval", type=float, default=0.25)
    parser.add_argument("--poller-processes", type=int, default=2)
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        raise SystemExit("DATABASE_URL must name a PostgreSQL server (its own database is made)")
    env = srv.bench_env(os.environ["DATABASE_URL"])
    os.environ.update(env)
    srv.make_database(env)
    import django

    django.setup()
    from django.db import connections

    candidates, acting = make_people(args.actors)
    connections.close_all()  # the clients are forked: none may share a connection
    pages = [dict(candidates[n % len(candidates)]) for n in range(args.pages)]
    # docker-compose.yml's web and events services
    servers = {
        "web": (env, ["config.wsgi:application", f"--workers={args.workers}"]),
        "events": (
            {**env, "DATABASE_CONN_MAX_AGE": "0", "DATABASE_POOL_MAX_SIZE": "4"},
            [
                "config.wsgi:application",
                "--workers=2",
                "--worker-class=gthread",
                f"--threads={max(250, args.pages + 8)}",  # every stream on one worker
            ],
        ),
    }
    modes = ["baseline", "etag", "no etag", "sse"]
    print(
        f"{args.pages} pages ({len(candidates)} distinct: sheets and dashboards of "
        f"{CAMPAIGNS} campaigns) every {args.interval:g} s, {args.actors} actors every "
        f"{args.action_interval:g} s, {args.seconds:g} s a phase x {args.rounds}, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, "
        f"DATABASE_CONN_MAX_AGE={env['DATABASE_CONN_MAX_AGE']}"
    )
    print(
        f"{'phase':<10}{'gunicorn':>8}{'postgres':>8}{'machine':>8}{'client':>8}"
        f"{'acts':>6}{'act p50':>8}{'act p95':>8}{'x p50':>7}{'x p95':>7}"
        f"{'poll p50':>9}{'poll p95':>9}"
    )
    print(f"{'':<10}{'% core':>8}{'% core':>8}{'% busy':>8}{'% core':>8}{'':>6}{'ms':>8}{'ms':>8}")
    processes = args.actors + args.poller_processes
    ports = {name: srv.free_port() for name in servers}
    started = {
        name: srv.start_server(server_env, ports[name], options)
        for name, (server_env, options) in servers.items()
    }
    masters = [server.pid for server in started.values()]
    try:
        opened = [open_page(ports["web"], page) for page in pages]
        results: dict[str, list[dict[str, Any]]] = {mode: [] for mode in modes}
        with multiprocessing.get_context("fork").Pool(processes) as pool:
            warm = argparse.Namespace(**{**vars(args), "seconds": 2.0})
            phase(pool, ports, masters, opened, acting, "baseline", warm)
            for _ in range(args.rounds):
                for mode in modes:
                    results[mode].append(phase(pool, ports, masters, opened, acting, mode, args))
        report({mode: merged(runs) for mode, runs in results.items()})
    finally:
        for server in started.values():
            srv.stop_server(server)
    redis_url = env.get("REDIS_URL", "")
    if redis_url:
        import redis

        redis.Redis.from_url(redis_url).delete("celery")  # the clock tasks queued


if __name__ == "__main__":
    main()
