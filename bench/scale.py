"""Benchmark of Sawbones at scale (issue 39, docs/performance.md, "Scale").

Two databases of the same campaigns, one of 21 and one of 10,000 (``--scale 1``): each
campaign has its referee and its player (their own accounts, the player's e-mail digest
on), 5 characters with 40 log entries each and 4 pending effects each (so 50,000
characters, 2,000,000 entries and 200,000 pending effects in the big one), two clock jobs
done, a live clock, and a webhook URL with two deliveries done (20,000) and, at every
fifth campaign, one pending (2,000) whose task is on its way. In both, the same work
waits for beat: at 10 campaigns the live clock is due a tick, a webhook delivery is due
with no task on its way and a digest is due; at 10 others a clock job lost its task (its
heartbeat is stale); everywhere else the live clock ticked just now, the digests went
out today and the tasks are on their way. The small database is those 20 and the one
campaign the requests read. Seeded in SQL (``INSERT ... SELECT`` from that one campaign,
made through the services), then analyzed.

Measured in each, in one run:

* the p95 of the pages a referee and a player open and of the API's lists and details,
  on the one campaign, the same in both (Django's test client, in-process), the
  databases taking turns round after round: wall clock and CPU (this process and its
  PostgreSQL backend, /proc/PID/schedstat), and the ratios big/small;
* one beat tick of the live clocks (which runs the watchdog too), the clock watchdog,
  the webhook sweep and the digest sweep, called in-process with the tasks they send
  published to an in-memory broker (the work they hand on is other benchmarks'), beat's
  work set again before each (:func:`arm`): once unmeasured, then ``--tick-rounds``
  times (default 5), the median CPU as above, and the ratio big/small.

Run it on PostgreSQL (it creates and drops its own databases, ``<name>_scale_small`` and
``<name>_scale_big``):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/sawbones .venv/bin/python bench/scale.py

Options: ``--scale F`` (the big database's campaigns, 10,000 times F; 0.05 for a quick
run), ``--rounds N`` (requests of each kind per database, default 30),
``--tick-rounds N``, ``--keep``.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # its helpers, also when loaded by path
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402
from pgtools import _clone, _sql, _table, measured  # noqa: E402  # bench/pgtools.py
from rest_framework.test import APIClient  # noqa: E402

from campaigns.models import Campaign, Membership, Role  # noqa: E402
from campaigns.services import campaign_create  # noqa: E402
from characters.models import Character  # noqa: E402
from rules.clock.models import ClockJob, ClockReport  # noqa: E402
from rules.clock.tasks import queue_digests, tick_live_campaigns, watch_clock_jobs  # noqa: E402
from rules.log.models import Resolution, ScheduledEffect  # noqa: E402
from rules.play.services import character_create  # noqa: E402
from webhooks.models import WebhookDelivery, WebhookEndpoint, WebhookEvent  # noqa: E402
from webhooks.tasks import deliver_due_webhooks  # noqa: E402

FULL_CAMPAIGNS = 10_000
# the one the requests read, and twice WITH_WORK: beat's work (module docstring)
SMALL_CAMPAIGNS = 21
WITH_WORK = 10
CHARACTERS = 5  # per campaign
ENTRIES = 40  # per character, the creation included
EFFECTS = 4  # pending, per character
DONE_DELIVERIES = 2  # per campaign
PENDING_EVERY = 5  # one pending delivery at every 5th campaign
USER = get_user_model()


def template() -> Campaign:
    """The campaign the requests read, made through the services: its referee and player,
    its characters (the player's first), its webhook URL."""
    referee = USER.objects.create_user(username="bench-referee", password="-")
    player = USER.objects.create_user(
        username="bench-player", password="-", email="player@example.org"
    )
    campaign = campaign_create(user=referee, name="Bench 0", ruleset="hit_dice")
    Membership.objects.create(campaign=campaign, user=player, role=Role.PLAYER, email_digest=True)
    mine = Membership.objects.get(campaign=campaign, user=player)
    theirs = Membership.objects.get(campaign=campaign, user=referee)
    for i in range(CHARACTERS):
        character_create(
            membership=mine if i < 2 else theirs,
            name=f"Hero {i + 1}",
            sheet={"level": 2, "hit_dice": 2, "hp": 30},
        )
    WebhookEndpoint.objects.create(campaign=campaign, url="https://example.org/hook")
    return campaign


def seed(campaigns: int) -> Campaign:
    """A database of ``campaigns`` campaigns like :func:`template`'s (module docstring);
    the template returned. Everything but the template in a few SQL statements."""
    first = template()
    others = campaigns - 1
    _seed_people_and_characters(first, others)
    _seed_log_effects_and_jobs(first)
    _seed_webhooks(first)
    camp, member = _table(Campaign), _table(Membership)
    # everyone's live clock ticked just now; the digests went out today
    _sql(f"UPDATE {camp} SET live_ratio = 1, {_TICKED_AT.format(at='now()', ratio=1)}")
    _sql(f"UPDATE {member} SET digest_sent_at = now() WHERE email_digest")
    _work(WITH_WORK)
    arm(WITH_WORK)
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE bench_map")
        cursor.execute("ANALYZE")
    return first


def _seed_people_and_characters(first: Campaign, others: int) -> None:
    """The template's people, campaign, memberships and characters, ``others`` times."""
    user = _table(USER)
    camp = _table(Campaign)
    member = _table(Membership)
    character = _table(Character)
    # the people: a referee and a player per campaign
    for who in ("referee", "player"):
        _clone(
            USER,
            f"{user} t, generate_series(1, {others}) g",
            {"username": f"'bench-{who}-' || g", "email": f"'{who}-' || g || '@example.org'"},
            f"t.username = 'bench-{who}'",
        )
    _sql(
        f"CREATE TEMP TABLE bench_map AS SELECT g, r.id AS referee, p.id AS player, "
        f"0 AS campaign FROM generate_series(0, {others}) g "
        f"JOIN {user} r ON r.username = CASE WHEN g = 0 THEN 'bench-referee' "
        f"ELSE 'bench-referee-' || g END "
        f"JOIN {user} p ON p.username = CASE WHEN g = 0 THEN 'bench-player' "
        f"ELSE 'bench-player-' || g END"
    )
    _clone(
        Campaign,
        f"{camp} t, bench_map m",
        {"name": "'Bench ' || m.g", "created_by_id": "m.referee"},
        f"t.id = {first.pk} AND m.g > 0",
    )
    _sql(f"UPDATE bench_map m SET campaign = c.id FROM {camp} c WHERE c.name = 'Bench ' || m.g")
    _sql("CREATE INDEX ON bench_map (campaign)")
    _sql("ANALYZE bench_map")
    _clone(
        Membership,
        f"{member} t, bench_map m",
        {
            "campaign_id": "m.campaign",
            "user_id": "CASE WHEN t.role = 'player' THEN m.player ELSE m.referee END",
        },
        f"t.campaign_id = {first.pk} AND m.g > 0",
    )
    _clone(
        Character,
        f"{character} t, bench_map m",
        {
            "campaign_id": "m.campaign",
            "owner_id": f"CASE WHEN t.owner_id = {first.created_by_id} THEN m.referee "
            "ELSE m.player END",
        },
        f"t.campaign_id = {first.pk} AND m.g > 0",
    )


def _seed_log_effects_and_jobs(first: Campaign) -> None:
    """Every character's log, its pending effects, two done clock jobs per campaign."""
    camp = _table(Campaign)
    character = _table(Character)
    log = _table(Resolution)
    effects = _table(ScheduledEffect)
    jobs = _table(ClockJob)
    # the log: each character's creation, then entries at every ten in-game minutes
    _clone(
        Resolution,
        f"{log} t, bench_map m, {character} c",
        {"campaign_id": "m.campaign", "character_id": "c.id", "actor_id": "NULL"},
        f"t.campaign_id = {first.pk} AND m.g > 0 AND c.campaign_id = m.campaign "
        f"AND c.name = (SELECT name FROM {character} WHERE id = t.character_id)",
    )
    _clone(
        Resolution,
        f"{log} t, generate_series(1, {ENTRIES - 1}) g",
        {"version": "t.version + g", "clock": "g * 10", "kind": "'action'", "action": "'rest'"},
        "t.kind = 'create'",
    )
    _sql(f"UPDATE {character} SET version = {ENTRIES}")
    _sql(f"UPDATE {camp} SET clock = {ENTRIES * 10}")
    # pending effects, due a day from now in game time (ten at the campaigns with work)
    _sql(
        f"INSERT INTO {effects} (campaign_id, character_id, kind, key, due_at, payload, "
        f"hidden, state, created_at) SELECT c.campaign_id, c.id, 'rest', '', "
        f"{ENTRIES * 10} + 1440 * g, '{{}}'::jsonb, false, 'pending', now() "
        f"FROM {character} c, generate_series(1, {EFFECTS}) g"
    )
    # clock jobs: two done per campaign
    _sql(
        f"INSERT INTO {jobs} (campaign_id, kind, request_id, minutes, state, clock_start, "
        f"target, clock_reached, done, total, reason, skipped, created_at, started_at, "
        f"finished_at, updated_at, heartbeat_at) SELECT c.id, 'advance', '', 60, 'done', "
        f"g * 60, g * 60 + 60, g * 60 + 60, 0, 0, '', '[]'::jsonb, now(), now(), now(), "
        f"now(), now() FROM {camp} c, generate_series(1, 2) g"
    )


def _seed_webhooks(first: Campaign) -> None:
    """A URL per campaign, its deliveries done, every fifth campaign's newest pending."""
    camp = _table(Campaign)
    hooks = _table(WebhookEndpoint)
    events = _table(WebhookEvent)
    deliveries = _table(WebhookDelivery)
    # webhooks: a URL per campaign, its deliveries done, every fifth a pending one
    _clone(
        WebhookEndpoint,
        f"{hooks} t, bench_map m",
        {"campaign_id": "m.campaign", "secret": "md5(m.g::text) || md5(m.g::text)"},
        f"t.campaign_id = {first.pk} AND m.g > 0",
    )
    _sql(
        f"INSERT INTO {events} (campaign_id, uuid, type, body, created_at) "
        f"SELECT c.id, gen_random_uuid(), 'resolution.created', '{{}}', now() "
        f"FROM {camp} c, generate_series(1, {DONE_DELIVERIES + 1}) g "
        f"WHERE g <= {DONE_DELIVERIES} OR c.id % {PENDING_EVERY} = 0"
    )
    _sql(
        f"INSERT INTO {deliveries} (endpoint_id, event_id, state, attempts, "
        f"next_attempt_at, last_status, last_error, delivered_at, created_at) "
        f"SELECT h.id, e.id, 'delivered', 1, now(), 200, '', now(), now() "
        f"FROM {events} e JOIN {hooks} h ON h.campaign_id = e.campaign_id"
    )
    newest = f"(SELECT MAX(x.id) FROM {events} x WHERE x.campaign_id = h.campaign_id)"
    _sql(
        f"UPDATE {deliveries} d SET state = 'pending', delivered_at = NULL, "
        f"last_status = 503, next_attempt_at = now() + interval '10 minutes' FROM {hooks} h "
        f"WHERE h.id = d.endpoint_id AND h.campaign_id % {PENDING_EVERY} = 0 "
        f"AND d.event_id = {newest}"
    )
    _sql(
        f"UPDATE {hooks} h SET task_due_at = now() + interval '10 minutes' WHERE EXISTS "
        f"(SELECT 1 FROM {deliveries} d WHERE d.endpoint_id = h.id AND d.state = 'pending')"
    )


def _work(count: int) -> None:
    """Something due for beat at ``count`` campaigns, a lost clock job at ``count`` others
    (the newest campaigns, never the template: its pages are the same in both databases).
    A campaign with an unfinished job takes no live tick, hence two sets."""
    camp, member, jobs = _table(Campaign), _table(Membership), _table(ClockJob)
    hooks, deliveries = _table(WebhookEndpoint), _table(WebhookDelivery)
    due = f"(SELECT id FROM {camp} ORDER BY id DESC LIMIT {count})"
    lost = f"(SELECT id FROM {camp} ORDER BY id DESC LIMIT {count} OFFSET {count})"
    _sql(f"UPDATE {member} SET digest_sent_at = NULL WHERE email_digest AND campaign_id IN {due}")
    # a delivery due now with no task on its way
    _sql(
        f"UPDATE {deliveries} d SET state = 'pending', delivered_at = NULL, "
        f"next_attempt_at = now() - interval '1 minute' FROM {hooks} h WHERE "
        f"h.id = d.endpoint_id AND h.campaign_id IN {due} AND d.id = "
        f"(SELECT MAX(x.id) FROM {deliveries} x WHERE x.endpoint_id = h.id)"
    )
    _sql(f"UPDATE {hooks} SET task_due_at = NULL WHERE campaign_id IN {due}")
    # a lost task: the newest job of each, queued again (its heartbeat stale: arm)
    _sql(
        f"UPDATE {jobs} SET state = 'queued' "
        f"WHERE id IN (SELECT MAX(id) FROM {jobs} WHERE campaign_id IN {lost} "
        f"GROUP BY campaign_id)"
    )


# A live clock's last tick and its next (campaigns.models.live_next_tick), in SQL; the
# ratio as the row will have it (an UPDATE's expressions read the row before it).
_TICKED_AT = (
    "live_last_tick = {at}, "
    "live_next_tick = {at} + interval '1 microsecond' * ceil(60000000 / {ratio})"
)


def arm(count: int) -> None:
    """Beat's work set again right before each tick is measured, minutes after the
    seeding (the clocks ran on meanwhile; the live tick runs the watchdog too): every live
    clock ticked just now but at ``count`` campaigns (the newest), five minutes ago, and
    the queued jobs (:func:`_work`'s lost ones) an hour without a heartbeat."""
    camp, jobs = _table(Campaign), _table(ClockJob)
    due = f"(SELECT id FROM {camp} ORDER BY id DESC LIMIT {count})"
    now, ago = "now()", "now() - interval '5 minutes'"
    _sql(f"UPDATE {camp} SET {_TICKED_AT.format(at=now, ratio='live_ratio')} WHERE live_ratio > 0")
    _sql(f"UPDATE {camp} SET {_TICKED_AT.format(at=ago, ratio='live_ratio')} WHERE id IN {due}")
    _sql(
        f"UPDATE {jobs} SET heartbeat_at = now() - interval '1 hour' WHERE state = 'queued' "
        "AND kind = 'advance'"
    )


@dataclass
class Database:
    """One of the two databases, and how its requests sign in."""

    label: str
    name: str
    campaign: Campaign | None = None
    clients: dict[str, Any] | None = None


def use(database: Database) -> None:
    """Point Django's connection at ``database`` (the next query opens it)."""
    connection.close()
    connection.settings_dict["NAME"] = database.name


TICKS: list[tuple[str, Callable[[], Any]]] = [
    ("live clocks (tick_live_campaigns)", tick_live_campaigns),
    ("clock watchdog (watch_clock_jobs)", watch_clock_jobs),
    ("webhook sweep (deliver_due_webhooks)", deliver_due_webhooks),
    ("digest sweep (queue_digests)", queue_digests),
]


def requests(campaign: Campaign) -> list[tuple[str, str]]:
    """(who, path) of the pages a referee and a player open and the API's lists and
    details, on ``campaign``."""
    c = campaign.pk
    heroes = list(Character.objects.filter(campaign=campaign).order_by("id"))
    hero = heroes[0].pk  # the player's
    hook = WebhookEndpoint.objects.get(campaign=campaign).pk
    api = "/api/v1"
    both = [
        reverse("campaign", args=[c]),
        reverse("campaign-log", args=[c]),
        reverse("character", args=[hero]),
        reverse("campaign-recap", args=[c]),
        reverse("campaign-dice", args=[c]),
        f"{api}/campaigns/",
        f"{api}/campaigns/{c}/",
        f"{api}/campaigns/{c}/characters/",
        f"{api}/characters/{hero}/",
        f"{api}/characters/{hero}/resolutions/",
        f"{api}/campaigns/{c}/resolutions/",
        f"{api}/campaigns/{c}/resolutions/?page=2",
        f"{api}/campaigns/{c}/effects/",
        f"{api}/campaigns/{c}/clock/log/",
    ]
    referee = [
        reverse("party", args=[c]),
        reverse("campaign-manage", args=[c]),
        f"{api}/campaigns/{c}/clock/jobs/",
        f"{api}/campaigns/{c}/webhooks/{hook}/deliveries/",
    ]
    return [
        *((who, path) for path in both for who in ("referee", "player")),
        *(("referee", path) for path in referee),
    ]


def sign_in(campaign: Campaign) -> dict[str, Any]:
    referee = USER.objects.get(username="bench-referee")
    player = USER.objects.get(username="bench-player")
    clients: dict[str, Any] = {}
    for who, user in (("referee", referee), ("player", player)):
        page = Client()
        page.force_login(user)
        api = APIClient()
        api.force_authenticate(user)
        clients[who] = (page, api)
    return clients


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


Costs = dict[tuple[str, str, str], list[float]]  # (database, person, path) -> seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--tick-rounds", type=int, default=5, help="ticks of each beat task")
    parser.add_argument("--keep", action="store_true", help="keep the benchmark databases")
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("the benchmark measures PostgreSQL's plans: run it on PostgreSQL")
    # Beat's tasks send theirs to an in-memory broker: the sweeps are measured, not the
    # work they hand on (the clock's jobs, the deliveries, the mails).
    # (Django's setting: Celery reads it once, on its first task.)
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = "memory://"
    base = connection.settings_dict["NAME"]
    big_campaigns = max(SMALL_CAMPAIGNS, round(FULL_CAMPAIGNS * args.scale))
    databases = [
        Database("small", f"{base}_scale_small"),
        Database("big", f"{base}_scale_big"),
    ]
    sizes = {"small": SMALL_CAMPAIGNS, "big": big_campaigns}
    connection.settings_dict.setdefault("TEST", {})
    created: list[Database] = []
    try:
        _create_and_seed(databases, sizes, base, created)
        print(
            f"scale {args.scale}; {os.cpu_count()} CPUs; load average "
            f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
        paths, walls, cpus = _measure_requests(databases, args.rounds)
        _print_requests(paths, walls, cpus, args.rounds)
        _measure_ticks(databases, args.tick_rounds)
    finally:
        for database in created:
            _leave(database, base, keep=args.keep)


def _create_and_seed(
    databases: list[Database], sizes: dict[str, int], base: str, created: list[Database]
) -> None:
    """Each benchmark database made, seeded and signed in to (``created`` lists them)."""
    for database in databases:
        connection.settings_dict["NAME"] = base
        connection.settings_dict["TEST"]["NAME"] = database.name
        connection.creation.create_test_db(verbosity=0, autoclobber=True)
        created.append(database)
        start = time.perf_counter()
        database.campaign = seed(sizes[database.label])
        database.clients = sign_in(database.campaign)
        counts = {
            model.__name__: model.objects.count()
            for model in (Campaign, Character, Resolution, ScheduledEffect, WebhookDelivery)
        }
        print(
            f"{database.label}: {database.name}, seeded in "
            f"{time.perf_counter() - start:.1f} s: "
            + ", ".join(f"{n:,} {name}" for name, n in counts.items())
        )


def _measure_requests(
    databases: list[Database], rounds: int
) -> tuple[
    list[tuple[str, str]],
    Costs,
    Costs,
]:
    """Every request, ``rounds`` times in each database (taking turns): wall and CPU."""
    # the requests, the databases taking turns
    first = databases[0].campaign
    assert first is not None
    use(databases[0])
    paths = requests(first)
    walls: Costs = {}
    cpus: Costs = {}
    for round_ in range(rounds + 1):  # the first warms up: not counted
        for database in databases:
            use(database)
            assert database.clients is not None
            for who, path in paths:
                page, api = database.clients[who]
                client = api if path.startswith("/api/") else page
                cache.clear()  # the request limits' counters
                # A collection of the whole heap (100-150 ms) falls on any request,
                # in either database: taken here, outside the figures, or it is
                # what a p95 measures.
                gc.collect()
                with measured() as cost:
                    response = client.get(path)
                assert response.status_code == 200, (database.label, who, path, response)
                if not round_:
                    continue
                walls.setdefault((database.label, who, path), []).append(cost.wall)
                cpus.setdefault((database.label, who, path), []).append(cost.cpu)
    return paths, walls, cpus


def _print_requests(
    paths: list[tuple[str, str]],
    walls: Costs,
    cpus: Costs,
    rounds: int,
) -> None:
    """The p95 of each request in each database, and their ratios."""
    print()
    print(f"p95 of {rounds} requests each, ms{'wall':>29}{'':>14}{'CPU (ours + PostgreSQL)':>26}")
    print(f"{'':<60}{'small':>8}{'big':>8}{'ratio':>7}{'small':>8}{'big':>8}{'ratio':>7}")
    ratios: dict[str, list[float]] = {"wall": [], "cpu": []}
    for who, path in paths:
        line = f"  {who:<8}{path:<50}"
        for kind, table in (("wall", walls), ("cpu", cpus)):
            small = p95(table[("small", who, path)]) * 1000
            big = p95(table[("big", who, path)]) * 1000
            ratios[kind].append(big / small)
            line += f"{small:>8.1f}{big:>8.1f}{big / small:>7.2f}"
        print(line)
    for kind, values in ratios.items():
        print(
            f"  ratio big/small, {kind}: median {statistics.median(values):.2f}, "
            f"max {max(values):.2f}"
        )


def _measure_ticks(databases: list[Database], rounds: int) -> None:
    """Each of beat's tasks ticked in each database, once unmeasured (what a process does
    once: queries compiled, modules loaded) and then ``rounds`` times, the work set
    again before each (:func:`arm`, :func:`_rearm`): the median CPU, and what it sent."""
    print()
    print(
        f"one beat tick, CPU ms (ours + PostgreSQL), median of {rounds}"
        f"{'small':>8}{'big':>8}{'ratio':>7}   (what it sent: small and big)"
    )
    for name, tick in TICKS:
        costs: dict[str, list[float]] = {database.label: [] for database in databases}
        done = []
        for round_ in range(rounds + 1):
            for database in databases:
                use(database)
                _rearm()
                with measured() as cost:
                    sent = tick()
                if round_:
                    costs[database.label].append(cost.cpu * 1000)
                if round_ == rounds:
                    done.append(sent)
        small, big = (statistics.median(costs[database.label]) for database in databases)
        line = f"  {name:<44}{small:>8.1f}{big:>8.1f}{big / max(small, 0.1):>7.2f}"
        print(f"{line}   ({' and '.join(str(d) for d in done)})")


def _rearm() -> None:
    """:func:`arm`, and what an earlier tick did undone: the live clocks' jobs and
    reports it made, the task it marked on its way to each URL with a delivery due."""
    campaigns = f"(SELECT id FROM {_table(Campaign)} ORDER BY id DESC LIMIT {WITH_WORK})"
    ClockJob.objects.filter(kind="live", state="queued").delete()
    ClockReport.objects.filter(kind="live").delete()
    _sql(
        f"UPDATE {_table(WebhookEndpoint)} SET task_due_at = NULL WHERE campaign_id IN {campaigns}"
    )
    arm(WITH_WORK)


def _leave(database: Database, base: str, *, keep: bool) -> None:
    """Drop the benchmark's database, or say that it stays (``--keep``)."""
    connection.close()
    connection.settings_dict["NAME"] = database.name
    if not keep:
        connection.creation.destroy_test_db(base, verbosity=0)
        return
    print(f"kept database {database.name}")


if __name__ == "__main__":
    main()
