"""Drill: a flood of webhook events to dead URLs (issue 28), in two variants: the
flooded campaigns' actions move their clocks (each is a clock job; the campaign option's
default) or not.

20 campaigns whose webhooks point at a port where nothing listens get 400 events
(players' actions through the web app; 20 per URL: every dead URL has a backlog and every
flooded campaign a clock turn waiting at both checks, which is what the limits are about:
they count per URL and per campaign, not per event; 750 or 1,500 cost twice or four
times the time to check the same), on the production settings and compose's
layout of workers: one per queue (clock with 2 processes; webhooks with 2;
housekeeping), and beat. Checked while it lasts, mid-flood and once the last action is
answered, a 60-minute advance of a quiet campaign (5 characters, 10 effects due) and an
action of that campaign with a working webhook: the advance waits behind at most a turn
of each clock process and a few more (the other campaigns' jobs that started while it
waited: its place in the queue, whatever the machine's load), the clock's worker runs
nothing but the clock's tasks, and the quiet webhook's event arrives; the delivery tasks
in the broker (queued, or held by a worker for their countdown) never exceed one per URL
plus a small constant (so the quiet URL's task never waits behind the flood's events),
nor the clock's queued messages one per campaign plus the same constant;
/health/worker/ stays 200. Then the dead port comes alive: every event arrives, in order,
once per URL.

Every limit is a count of the system's own work, and every wait lasts while the work
moves (``wait_while_moving``): the drill holds on a busy machine as on a quiet one
(issue 33). The seconds are printed, for the record.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

import pytest
import redis

from tests.drills.stack import (
    App,
    Receiver,
    ReservedPort,
    free_port,
    wait_for,
    wait_while_moving,
)

pytestmark = pytest.mark.drill

CAMPAIGNS = 20
EVENTS = 400
URLS = CAMPAIGNS + 1  # and the quiet campaign's
SLACK = 5  # tasks beyond one per URL: a worker's hand-over racing an event's send
CLOCK_PROCESSES = 2  # the clock worker's, as compose runs it (App.start_queue_workers)
QUIET_EFFECTS = 10  # the quiet campaign's hour: 5 wounds worsening every 30 minutes
ENV = {
    "SAWBONES_WEBHOOK_ALLOW_PRIVATE": "1",  # the receivers are on this machine
    "SAWBONES_WEBHOOK_BACKOFF_SECONDS": "0.25",  # 0.25, 0.5, 1 ... s: the drill stays short
    "SAWBONES_WEBHOOK_MAX_ATTEMPTS": "100",
    "SAWBONES_THROTTLE_USER": "100000/min",  # one player sends the whole flood
    "SAWBONES_THROTTLE_IP": "100000/min",
    # The clock's production defaults (conftest's DRILL_ENV shortens them for the
    # other drills): a quick watchdog would send waiting jobs again and crowd the queue.
    "SAWBONES_CLOCK_BATCH_SIZE": "500",
    "SAWBONES_CLOCK_STALE_SECONDS": "30",
    "SAWBONES_CLOCK_WATCHDOG_SECONDS": "10",
}


class Sampler(threading.Thread):
    """Every quarter second: the delivery tasks in the broker, /health/worker/."""

    def __init__(self, app: App, redis_url: str) -> None:
        super().__init__(daemon=True)
        self.app = app
        self.client: Any = redis.Redis.from_url(redis_url)  # redis' types: sync or async
        self.most_tasks = 0
        self.most_clock = 0  # clock messages queued at once
        self.health: list[int] = []
        self.done = threading.Event()

    def delivery_tasks(self) -> int:
        queued = int(self.client.llen("webhooks"))
        held = 0  # reserved by a worker (a countdown's wait, or running)
        for raw in self.client.hvals("unacked"):
            message = json.loads(raw)[0]
            held += message["headers"].get("task") == "webhooks.tasks.deliver_webhooks"
        return queued + held

    def run(self) -> None:
        while not self.done.is_set():
            self.most_tasks = max(self.most_tasks, self.delivery_tasks())
            self.most_clock = max(self.most_clock, int(self.client.llen("clock")))
            self.health.append(self.app.get("/health/worker/")[0])
            time.sleep(0.25)


def arrived_at(receiver: Receiver, resolution: int) -> Callable[[], bool]:
    """Whether the event of ``resolution`` has reached ``receiver``."""
    return lambda: any(b["data"].get("id") == resolution for _, b, _, _ in receiver.received)


def act(app: App, token: str, character: int) -> int:
    status, body = app.request(
        "POST", f"/api/v1/characters/{character}/actions/", {"action": "long_rest"}, token
    )
    assert status == 201, body
    return int(body["id"])


def quiet_advance(app: App, token: str, campaign: int) -> dict[str, Any]:
    """A 60-minute advance of the quiet campaign, waited for: its job's id, the seconds
    from its creation to its end by the server's clock (what the queue and the worker
    add), the seconds the client waited, its requests included (what a referee sees), the
    seconds it waited in the queue (from its creation to its start), and the other
    campaigns' jobs that started meanwhile (its turns ahead)."""
    sent = time.monotonic()
    status, body = app.request(
        "POST", f"/api/v1/campaigns/{campaign}/clock/advance/", {"minutes": 60}, token
    )
    assert status == 202, body
    path = f"/api/v1/campaigns/{campaign}/clock/jobs/{body['id']}/"
    job: dict[str, Any] = wait_while_moving(
        lambda: app.get(path, token)[1],
        lambda job: job["state"] in ("done", "failed", "waiting"),
        "the quiet campaign's advance",
        app.logs,
    )
    waited = time.monotonic() - sent
    assert (job["state"], job["done"]) == ("done", QUIET_EFFECTS), job
    created = datetime.fromisoformat(job["created_at"])
    return {
        "job": job["id"],
        "took": (datetime.fromisoformat(job["finished_at"]) - created).total_seconds(),
        "waited": waited,
        "queued": (datetime.fromisoformat(job["started_at"]) - created).total_seconds(),
        "turns_ahead": app.tool("turns_ahead", str(job["id"])),
    }


@pytest.mark.parametrize(
    "moves", [False, True], ids=["actions-move-no-clock", "actions-move-clocks"]
)
def test_a_flood_to_dead_urls_holds_back_no_other_campaign_and_loses_nothing(drill, moves):
    dead = ReservedPort()  # refuses connections, and stays ours until revived
    dead_port = dead.port
    live = Receiver(free_port())
    dead_prefix = f"http://127.0.0.1:{dead_port}/hook/"
    app = drill.app(**ENV)
    world = app.tool(
        "setup_flood", str(CAMPAIGNS), dead_prefix, f"{live.url}/quiet", "1" if moves else "0"
    )
    token, referee, quiet = world["token"], world["referee"], world["quiet"]
    app.start_web()
    app.start_queue_workers()
    app.start_beat()
    wait_for(lambda: app.get("/health/worker/")[0] == 200, 60, "a worker's sign of life", app.logs)
    # The quiet campaign's advance before the flood, for the record: the median of three.
    before = sorted(
        (quiet_advance(app, referee, quiet["campaign"]) for _ in range(3)),
        key=lambda advance: advance["took"],
    )[1]
    sampler = Sampler(app, drill.redis.url)
    sampler.start()
    revived: Receiver | None = None
    try:
        # when 20 campaigns get 400 events for URLs where nothing listens
        characters = [c["character"] for c in world["flooded"]]
        answered = [0]
        flood_started = time.monotonic()

        def flood() -> None:
            numbers = range(EVENTS)
            with ThreadPoolExecutor(6) as pool:
                for _ in pool.map(lambda n: act(app, token, characters[n % CAMPAIGNS]), numbers):
                    answered[0] += 1

        flooding = threading.Thread(target=flood)
        flooding.start()
        # then, mid-flood and once its last action is answered (the clock's backlog at
        # its longest), the quiet campaign's advance waits behind at most a turn of each
        # clock process and a few more, and its webhook's event arrives
        latencies = []
        advances = []
        backlogs = []
        for share in (EVENTS // 2, EVENTS):
            wait_while_moving(lambda: answered[0], share.__le__, "the flood", app.logs)
            if share == EVENTS:
                flooding.join()
                flood_seconds = time.monotonic() - flood_started
            backlogs.append(app.tool("jobs_by_state"))
            advances.append(quiet_advance(app, referee, quiet["campaign"]))
            sent = time.monotonic()
            resolution = act(app, token, quiet["character"])
            wait_while_moving(
                arrived_at(live, resolution), bool, "the quiet campaign's webhook", app.logs
            )
            arrived = next(t for _, b, t, _ in live.received if b["data"].get("id") == resolution)
            latencies.append(arrived - sent)
        print(
            f"flood ({'actions move clocks' if moves else 'no clock'}): "
            f"{EVENTS} actions answered in {flood_seconds:.1f} s; "
            f"quiet advance before: {before['took']:.2f} s (client {before['waited']:.2f} s); "
            f"during: {[round(a['took'], 2) for a in advances]} s "
            f"(client {[round(a['waited'], 2) for a in advances]} s, "
            f"queued {[round(a['queued'], 2) for a in advances]} s, "
            f"behind {[a['turns_ahead'] for a in advances]} other campaigns' jobs); "
            f"clock jobs then: {backlogs}; "
            f"quiet webhook latencies: {[round(x, 2) for x in latencies]} s"
        )
        clock_log = (app.base / "worker-clock.log").read_text(errors="replace")
        turns = sorted(
            float(seconds)
            for seconds in re.findall(
                r"rules\.tasks\.advance_clock\[[^\]]+\] succeeded in ([\d.]+)s", clock_log
            )
        )
        if turns:  # what one turn of a campaign costs the clock's worker
            print(
                f"clock tasks: {len(turns)}, median {turns[len(turns) // 2] * 1000:.0f} ms, "
                f"90th percentile {turns[len(turns) * 9 // 10] * 1000:.0f} ms"
            )
        # the quiet advance went ahead of the backlog: while it waited, at most a job per
        # clock process (those running or taken already) and a few more started; without
        # its priority it would wait behind every busy campaign's turn (about 20)
        assert all(a["turns_ahead"] <= CLOCK_PROCESSES + SLACK for a in advances), advances
        # and the clock's worker ran nothing but the clock's tasks (no delivery, however
        # many, can hold the clock back)
        ran = set(re.findall(r"Task (\S+)\[[^\]]+\] received", clock_log))
        assert ran <= {"rules.tasks.advance_clock"}, ran
        # the broker never held more than one delivery task per URL, plus a few: the
        # quiet URL's task never waits behind the flood's events
        print(
            f"most delivery tasks in the broker at once: {sampler.most_tasks}; "
            f"most clock messages queued at once: {sampler.most_clock}"
        )
        assert sampler.most_tasks <= URLS + SLACK
        # and the clock's queue held one message per campaign with work, plus a few
        # (campaigns take turns: a backlog stays in the database, whatever the load)
        assert sampler.most_clock <= CAMPAIGNS + 1 + SLACK
        # and the workers' health stayed green (their watchdog has its own queue)
        assert set(sampler.health) == {200}, sampler.health

        # when the dead port comes alive (while the clocks' backlog is worked off, whose
        # jobs record more events), every event arrives, in order, once
        revived = Receiver(dead.release())
        started = time.monotonic()
        unfinished = {"queued", "running", "waiting"}
        jobs = wait_while_moving(
            lambda: app.tool("jobs_by_state"),
            lambda jobs: not unfinished & set(jobs),
            "the clocks",
            app.logs,
        )
        drained = time.monotonic() - flood_started - flood_seconds
        assert set(jobs) == {"done"}, jobs
        if moves:  # the flood's rests crossed worsenings: clock jobs, not the fast path
            assert jobs["done"] >= EVENTS, jobs
        hooks = [str(c["webhook"]) for c in world["flooded"]]
        expected = wait_while_moving(
            lambda: app.tool("webhook_events", *hooks),
            lambda states: all(set(h["states"]) == {"delivered"} for h in states.values()),
            "every flooded event delivered",
            app.logs,
        )
        print(
            f"clock jobs all done {drained:.1f} s after the flood's last answer ({jobs}); "
            f"backlog delivered {time.monotonic() - started:.1f} s after the port came alive"
        )
        total = 0
        for number, campaign in enumerate(world["flooded"]):
            got = revived.delivered(f"/hook/{number}")
            assert got == expected[str(campaign["webhook"])]["events"], number
            total += len(got)
        assert total >= EVENTS
        assert sampler.most_tasks <= URLS + SLACK
    finally:
        sampler.done.set()
        live.close()
        if revived is not None:
            revived.close()
