"""Benchmark of actions against a trivial request, counting everything they cost (issues
16 and 30), through the real stack.

Starts its own PostgreSQL cluster and ``redis-server`` (initdb and pg_ctl in a temporary
directory, free ports: nothing else's work lands on them, so their CPU is the bench's),
gunicorn (production settings, ``--workers`` sync workers) and, with ``--tasks worker``
(the default, as deployed), one Celery worker (``celery -A config worker``, its default
concurrency); with ``--tasks in-process`` no Redis: the clock's tasks run in the web
process once the action commits (embedded mode). ``--clients`` client processes, each
signed in as its own player and playing its own characters, measure in the same run:

* GET: ``GET /api/v1/campaigns/{id}/`` (the session, the user, the membership: the
  trivial authenticated request);
* no time: hit_dice ``long_rest`` in a campaign whose actions do not move the clock
  (it rolls, writes the sheet, the dice counter and the log row);
* crosses nothing: the same in a campaign whose actions move the clock, nothing due in
  the 8 hours: the clock moves in the action's transaction (docs/clock.md);
* crosses effects: the same, each character with an effect due every 4 hours (a
  ``wound_worsens`` of a wound that no longer worsens: applied and logged, the sheet
  unchanged, so sheets do not grow during the run; the bench tops them up before each
  phase, as far ahead as the phase's rests can go): each rest queues a clock job that
  applies 2 effects per character of the campaign (the last line says how many each
  rest applied: 16 with the party in one campaign, 2 with a campaign each).

Each with the whole party in one campaign (the campaign's row lock is shared) and with a
campaign per client, and at each ``--conn-max-age`` (0, a connection per request, the
settings' default; 60, docker-compose.yml's). Phases alternate (GET, then each action,
``--rounds`` times) so a change of the machine's load falls on all; after each action
phase the bench waits until every clock job is done ("drain", s), and the CPU counted
for the phase runs until then: the web server's (gunicorn master and workers), the
worker's (master and pool), PostgreSQL's (the postmaster, its live backends, those it
reaped, its background processes) and Redis's, per request, from /proc. Rates are
requests per second over all clients, p95 in ms; the ratios action/GET are what travels
(the machine is shared). Goal (issue 30): rate ratio >= 0.6, p95 ratio <= 1.8 for the
first two actions; "cpu ratio" is GET's CPU per request over the action's, all counted.

    .venv/bin/python bench/actions.py [--seconds 8] [--rounds 2] [--clients 8] \\
        [--workers 3] [--conn-max-age 0 60] [--tasks worker|in-process] [--app DIR]

``--app`` serves another checkout of the project (an earlier commit: ``git worktree
add --detach DIR <commit>``) with the same setup, to compare by two runs.
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
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# bench/ is on the path of a bench script
import servers as srv  # noqa: E402

from tests.drills.stack import Postgres, Redis, have_servers  # noqa: E402

CSRF = "benchbenchbenchbenchbenchbench42"  # 32 characters: a CSRF secret as the cookie
SHAPES = ("one party", "a campaign each")
ACTIONS = ("no time", "crosses nothing", "crosses effects")
EFFECT_EVERY = 4 * 60  # minutes between a character's effects in "crosses effects"
# Effects are topped up for every rest a phase can make: a campaign's clock moves 8 hours
# with each of its clients' rests, so a campaign shared by the party moves eight times as
# fast. A fixed 400 rests ran out in the party's campaign once a phase made more than
# 400 (110 to 160 rests a second for 8 s): the rests after it crossed nothing, and the
# row read as a blend of the two actions.
RESTS_A_CLIENT_SECOND = 80  # above any client's rate so far (55 a second for the GET)


class BenchPostgres(Postgres):
    """The drills' throwaway cluster, with PostgreSQL's default durability (the drills
    turn fsync off: a commit here costs what it costs on the shared server)."""

    def start(self) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1"
        self._pg_ctl("-o", options, "-l", str(self.log), "start", check=True)

    def cpu(self) -> float:
        """Seconds of CPU of the whole cluster: the postmaster, its live processes, and
        the backends it reaped."""
        master = int((self.dir / "data" / "postmaster.pid").read_text().split()[0])
        return srv.process_cpu(master, reaped=True) + sum(
            srv.process_cpu(p) for p in srv.children(master)
        )


def tree_cpu(pid: int) -> float:
    return srv.process_cpu(pid, reaped=True) + sum(tree_cpu(child) for child in srv.children(pid))


def make_players(clients: int) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Per shape and action, each client's session, campaign and character."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from campaigns.models import Membership, Role
    from campaigns.services import campaign_create
    from rules.play.services import character_create

    users = get_user_model().objects
    referee = users.create_user(username="bench-referee", password=secrets.token_hex(16))

    def campaign(name: str, action: str) -> Any:
        made = campaign_create(user=referee, name=name, ruleset="hit_dice")
        if action == "no time":
            made.actions_move_clock = False
            made.save(update_fields=["actions_move_clock"])
        return made

    party = {action: campaign(f"Bench party, {action}", action) for action in ACTIONS}
    plan: dict[str, dict[str, list[dict[str, Any]]]] = {
        shape: {action: [] for action in ACTIONS} for shape in SHAPES
    }
    for n in range(clients):
        player = users.create_user(username=f"bench-player{n}", password=secrets.token_hex(16))
        web = Client()
        web.force_login(player)
        session = web.cookies["sessionid"].value
        for action in ACTIONS:
            own = campaign(f"Bench {n}, {action}", action)
            for shape, where in (("one party", party[action]), ("a campaign each", own)):
                membership = Membership.objects.create(
                    campaign=where, user=player, role=Role.PLAYER
                )
                sheet: dict[str, Any] = {"level": 3, "hp": 5}
                if action == "crosses effects":
                    sheet["wounds"] = [srv.still_wound("Old scar")]
                character = character_create(membership=membership, name=f"Hero {n}", sheet=sheet)
                plan[shape][action].append(
                    {"session": session, "campaign": where.pk, "character": character.pk}
                )
    return plan


def top_up(players: list[dict[str, Any]], seconds: float) -> None:
    """Pending effects every EFFECT_EVERY minutes for each character, as far ahead of
    its campaign's clock as the rests of a phase of ``seconds`` can take it (written by
    the bench between phases; RESTS_A_CLIENT_SECOND)."""
    from collections import Counter

    from django.db.models import Max

    from campaigns.models import Campaign
    from characters.models import Character
    from rules.log.models import ScheduledEffect

    clients = Counter(who["campaign"] for who in players)
    new = []
    for who in players:
        character = Character.objects.get(pk=who["character"])
        clock = Campaign.objects.get(pk=who["campaign"]).clock
        last = ScheduledEffect.objects.filter(character=character, state="pending").aggregate(
            Max("due_at")
        )["due_at__max"]
        rests = clients[who["campaign"]] * RESTS_A_CLIENT_SECOND * seconds
        due = max(clock, last or 0) + EFFECT_EVERY
        while due <= clock + rests * 8 * 60:
            new.append(
                ScheduledEffect(
                    campaign_id=who["campaign"],
                    character=character,
                    kind="wound_worsens",
                    due_at=due,
                    payload={"wound": 1},
                )
            )
            due += EFFECT_EVERY
    ScheduledEffect.objects.bulk_create(new, batch_size=2000)


def effects_applied(players: list[dict[str, Any]]) -> int:
    """The effects applied so far in the players' campaigns (their log's effect entries)."""
    from rules.log.models import Resolution

    campaigns = {who["campaign"] for who in players}
    return Resolution.objects.filter(campaign_id__in=campaigns, kind="effect").count()


def drained(timeout: float = 600) -> float:
    """Wait until no clock job is unfinished; the seconds it took."""
    from rules.clock.models import ClockJob, ClockJobState

    start = time.monotonic()
    while ClockJob.objects.filter(state__in=(ClockJobState.QUEUED, ClockJobState.RUNNING)).exists():
        if time.monotonic() - start > timeout:
            raise SystemExit("the clock jobs did not drain")
        time.sleep(0.05)
    failed = ClockJob.objects.exclude(state=ClockJobState.DONE).first()
    if failed is not None:
        raise SystemExit(f"a clock job did not finish: {failed} {failed.reason}")
    return time.monotonic() - start


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
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        connection.request(method, url, body=body, headers=headers)
        response = connection.getresponse()
        answer = response.read()
        connection.close()
        if response.status != expected:
            raise SystemExit(f"{method} {url}: {response.status}, not {expected}: {answer[:300]!r}")
        latencies.append((time.perf_counter() - start) * 1000)
    return latencies


class Meters:
    """CPU seconds of each part of the stack, read together."""

    def __init__(self, web: int, worker: int | None, pg: BenchPostgres, redis: int | None):
        self.web, self.worker, self.pg, self.redis = web, worker, pg, redis

    def read(self) -> dict[str, float]:
        return {
            "web": srv.gunicorn_cpu(self.web),
            "worker": tree_cpu(self.worker) if self.worker else 0.0,
            "pg": self.pg.cpu(),
            "redis": srv.process_cpu(self.redis) if self.redis else 0.0,
        }


def phase(
    pool: Any, port: int, meters: Meters, players: list[dict[str, Any]], kind: str, seconds: float
) -> tuple[list[float], dict[str, float], float]:
    """Each request's latency (ms), the CPU seconds of each part until every clock job
    the phase queued is done, and how long that took after the phase."""
    before = meters.read()
    runs = pool.map(client, [(port, who, kind, seconds) for who in players])
    drain = drained()
    after = meters.read()
    cpu = {part: after[part] - before[part] for part in before}
    return [latency for run in runs for latency in run], cpu, drain


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def start_worker(env: dict[str, str], app: Path, base: Path) -> subprocess.Popen[bytes]:
    log = open(base / "worker.log", "wb")  # noqa: SIM115 - kept open for the worker's life
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel=warning"],
        cwd=app,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while len(srv.children(worker.pid)) == 0:  # its pool is up
        if time.monotonic() > deadline or worker.poll() is not None:
            raise SystemExit(f"the Celery worker did not start: {base / 'worker.log'}")
        time.sleep(0.2)
    time.sleep(1)
    return worker


def measure(
    args: argparse.Namespace,
    env: dict[str, str],
    plan: dict[str, dict[str, list[dict[str, Any]]]],
    pg: BenchPostgres,
    redis: Redis | None,
    base: Path,
) -> None:
    app = args.app.resolve()
    port = srv.free_port()
    server = srv.start_server(
        env, port, ["config.wsgi:application", f"--workers={args.workers}"], app
    )
    worker = start_worker(env, app, base) if redis is not None else None
    try:
        redis_pid = redis.process.pid if redis is not None and redis.process else None
        meters = Meters(server.pid, worker.pid if worker else None, pg, redis_pid)
        print(
            f"\nDATABASE_CONN_MAX_AGE={env['DATABASE_CONN_MAX_AGE']}, tasks "
            f"{'in a Celery worker' if worker else 'in-process'}; load average "
            f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} at the start"
        )
        print(
            f"{'':<34}{'req/s':>7}{'p95':>8}{'rate r.':>8}{'p95 r.':>8}"
            f"{'web':>7}{'worker':>7}{'pg':>7}{'redis':>7}{'total':>7}{'cpu r.':>8}{'drain':>7}"
        )
        per_rest = dict.fromkeys(SHAPES, 0.0)  # effects the rests that cross effects applied
        with multiprocessing.get_context("fork").Pool(args.clients) as pool:
            phase(pool, port, meters, plan["one party"]["no time"], "get", 1.0)  # warm up
            for shape in SHAPES:
                got: list[float] = []
                get_cpu = dict.fromkeys(("web", "worker", "pg", "redis"), 0.0)
                acted: dict[str, list[float]] = {action: [] for action in ACTIONS}
                act_cpu = {action: dict(get_cpu) for action in ACTIONS}
                drains = dict.fromkeys(ACTIONS, 0.0)
                for _ in range(args.rounds):
                    players = plan[shape]["no time"]
                    latencies, cpu, _ = phase(pool, port, meters, players, "get", args.seconds)
                    got += latencies
                    for part, seconds in cpu.items():
                        get_cpu[part] += seconds
                    for action in ACTIONS:
                        players = plan[shape][action]
                        if action == "crosses effects":
                            top_up(players, args.seconds)
                            applied = effects_applied(players)
                        latencies, cpu, drain = phase(
                            pool, port, meters, players, "action", args.seconds
                        )
                        if action == "crosses effects":
                            per_rest[shape] += effects_applied(players) - applied
                        acted[action] += latencies
                        drains[action] += drain
                        for part, seconds in cpu.items():
                            act_cpu[action][part] += seconds
                rate = len(got) / (args.rounds * args.seconds)
                get_total = sum(get_cpu.values()) / len(got)
                print(row(f"{shape}: GET", rate, p95(got), got, get_cpu, None, None))
                for action in ACTIONS:
                    done = acted[action]
                    act_rate = len(done) / (args.rounds * args.seconds)
                    total = sum(act_cpu[action].values()) / len(done)
                    ratios = (act_rate / rate, p95(done) / p95(got), get_total / total)
                    if action == "crosses effects":
                        per_rest[shape] /= len(done)
                    print(row(f"  {action}", act_rate, p95(done), done, act_cpu[action], ratios,
                              drains[action] / args.rounds))  # fmt: skip
        print(
            f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} at the end; "
            "CPU in ms per request (drain: s per phase); effects applied per rest that "
            "crosses effects: " + ", ".join(f"{per_rest[shape]:.1f} ({shape})" for shape in SHAPES)
        )
    finally:
        if worker is not None:
            worker.terminate()
            worker.wait(timeout=60)
        srv.stop_server(server)


def row(
    label: str,
    rate: float,
    p: float,
    latencies: list[float],
    cpu: dict[str, float],
    ratios: tuple[float, float, float] | None,
    drain: float | None,
) -> str:
    per = {part: 1000 * seconds / len(latencies) for part, seconds in cpu.items()}
    text = f"{label:<34}{rate:>7.0f}{p:>8.1f}"
    text += f"{ratios[0]:>8.2f}{ratios[1]:>8.2f}" if ratios else " " * 16
    text += "".join(f"{per[part]:>7.2f}" for part in ("web", "worker", "pg", "redis"))
    text += f"{sum(per.values()):>7.2f}"
    text += f"{ratios[2]:>8.2f}" if ratios else " " * 8
    text += f"{drain:>7.1f}" if drain is not None else ""
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="per phase")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--conn-max-age", nargs="+", default=["0", "60"])
    parser.add_argument("--tasks", choices=("worker", "in-process"), default="worker")
    parser.add_argument("--app", type=Path, default=ROOT, help="the checkout gunicorn serves")
    args = parser.parse_args()
    if not have_servers():
        raise SystemExit("the bench needs PostgreSQL's server binaries and redis-server")
    with tempfile.TemporaryDirectory(prefix="sawbones-actionbench-") as tmp:
        base = Path(tmp)
        pg = BenchPostgres(base)
        pg.start()
        redis = Redis(base) if args.tasks == "worker" else None
        try:
            if redis is not None:
                redis.start()
            os.environ.pop("REDIS_URL", None)
            if redis is not None:
                os.environ["REDIS_URL"] = redis.url
            env = srv.bench_env(pg.url("sawbones"), "_actionbench")
            srv.make_database(env, args.app.resolve())
            os.environ.update(env)
            import django

            django.setup()
            plan = make_players(args.clients)
            print(
                f"gunicorn {args.workers} workers (production settings), {args.clients} "
                f"clients, {args.seconds:g} s a phase, {args.rounds} rounds, "
                f"{os.cpu_count()} cores; serving {args.app.resolve()}"
            )
            for conn_max_age in args.conn_max_age:
                from django.db import connections

                connections.close_all()
                measure(args, {**env, "DATABASE_CONN_MAX_AGE": conn_max_age}, plan, pg, redis, base)
        finally:
            if redis is not None:
                redis.kill()
            pg.stop("fast")


if __name__ == "__main__":
    main()
