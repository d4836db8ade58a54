"""Drill: a flood of webhook events to dead URLs (issue 28, the webhook half).

20 campaigns whose webhooks point at a port where nothing listens get 1,500 events
(players' actions through the web app), on the production settings and compose's
layout of workers: one per queue (clock; webhooks with 2 processes; housekeeping),
and beat. Checked while it lasts: a working webhook of another campaign delivers
within 10 s; the delivery tasks in the broker (queued, or held by a worker for their
countdown) never exceed one per URL plus a small constant; /health/worker/ stays 200.
Then the dead port comes alive: every event arrives, in order, once per URL.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import redis

from tests.drills.stack import App, free_port, wait_for

pytestmark = pytest.mark.drill

CAMPAIGNS = 20
EVENTS = 1500
URLS = CAMPAIGNS + 1  # and the quiet campaign's
SLACK = 5  # tasks beyond one per URL: a worker's hand-over racing an event's send
ENV = {
    "SAWBONES_WEBHOOK_ALLOW_PRIVATE": "1",  # the receivers are on this machine
    "SAWBONES_WEBHOOK_BACKOFF_SECONDS": "0.25",  # 0.25, 0.5, 1 ... s: the drill stays short
    "SAWBONES_WEBHOOK_MAX_ATTEMPTS": "100",
    "SAWBONES_THROTTLE_USER": "100000/min",  # one player sends the whole flood
    "SAWBONES_THROTTLE_IP": "100000/min",
}


class Receiver:
    """Records every POST (path, event id, arrival) on ``port``; answers 200."""

    def __init__(self, port: int) -> None:
        self.received: list[tuple[str, dict[str, Any], float]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                receiver.received.append((self.path, body, time.monotonic()))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Sampler(threading.Thread):
    """Every quarter second: the delivery tasks in the broker, /health/worker/."""

    def __init__(self, app: App, redis_url: str) -> None:
        super().__init__(daemon=True)
        self.app = app
        self.client: Any = redis.Redis.from_url(redis_url)  # redis' types: sync or async
        self.most_tasks = 0
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
            self.health.append(self.app.get("/health/worker/")[0])
            time.sleep(0.25)


def arrived_at(receiver: Receiver, resolution: int) -> Callable[[], bool]:
    """Whether the event of ``resolution`` has reached ``receiver``."""
    return lambda: any(b["data"].get("id") == resolution for _, b, _ in receiver.received)


def act(app: App, token: str, character: int) -> int:
    status, body = app.request(
        "POST", f"/api/v1/characters/{character}/actions/", {"action": "long_rest"}, token
    )
    assert status == 201, body
    return int(body["id"])


def test_a_flood_to_dead_urls_holds_back_no_other_campaign_and_loses_nothing(drill):
    dead_port = free_port()
    live = Receiver(free_port())
    dead_prefix = f"http://127.0.0.1:{dead_port}/hook/"
    app = drill.app(**ENV)
    world = app.tool("setup_flood", str(CAMPAIGNS), dead_prefix, f"{live_url(live)}")
    token, quiet = world["token"], world["quiet"]
    app.start_web()
    app.start_worker("worker-clock", queues="clock")
    app.start_worker("worker-webhooks", queues="webhooks", concurrency=2)
    app.start_worker("worker-housekeeping", queues="housekeeping,email,celery")
    app.start_beat()
    wait_for(lambda: app.get("/health/worker/")[0] == 200, 60, "a worker's sign of life", app.logs)
    sampler = Sampler(app, drill.redis.url)
    sampler.start()
    revived: Receiver | None = None
    try:
        # when 20 campaigns get 1,500 events for URLs where nothing listens
        characters = [c["character"] for c in world["flooded"]]
        half = threading.Event()

        def flood() -> None:
            with ThreadPoolExecutor(6) as pool:
                for number, _ in enumerate(
                    pool.map(lambda n: act(app, token, characters[n % CAMPAIGNS]), range(EVENTS))
                ):
                    if number == EVENTS // 2:
                        half.set()

        flooding = threading.Thread(target=flood)
        flooding.start()
        # then the quiet campaign's webhook delivers within 10 s, mid-flood and after it
        latencies = []
        for moment in (half, None):
            if moment is not None:
                assert moment.wait(300)
            else:
                flooding.join(600)
            sent = time.monotonic()
            resolution = act(app, token, quiet["character"])
            wait_for(arrived_at(live, resolution), 30, "the quiet campaign's webhook", app.logs)
            arrived = next(t for _, b, t in live.received if b["data"].get("id") == resolution)
            latencies.append(arrived - sent)
        assert not flooding.is_alive()
        print(f"quiet webhook latencies: {[round(x, 2) for x in latencies]} s")
        assert max(latencies) < 10
        # the broker never held more than one delivery task per URL, plus a few
        print(f"most delivery tasks in the broker at once: {sampler.most_tasks}")
        assert sampler.most_tasks <= URLS + SLACK
        # and the workers' health stayed green (their watchdog has its own queue)
        assert set(sampler.health) == {200}, sampler.health

        # when the dead port comes alive, every event arrives, in order, once
        revived = Receiver(dead_port)
        hooks = [str(c["webhook"]) for c in world["flooded"]]

        def all_delivered() -> bool:
            states = app.tool("webhook_events", *hooks)
            return all(set(h["states"]) == {"delivered"} for h in states.values())

        started = time.monotonic()
        wait_for(all_delivered, 180, "every flooded event delivered", app.logs)
        print(f"backlog delivered {time.monotonic() - started:.1f} s after the port came alive")
        expected = app.tool("webhook_events", *hooks)
        total = 0
        for number, campaign in enumerate(world["flooded"]):
            got = [b["id"] for path, b, _ in revived.received if path == f"/hook/{number}"]
            assert got == expected[str(campaign["webhook"])]["events"], number
            total += len(got)
        assert total >= EVENTS
        assert sampler.most_tasks <= URLS + SLACK
    finally:
        sampler.done.set()
        live.close()
        if revived is not None:
            revived.close()


def live_url(receiver: Receiver) -> str:
    return f"http://127.0.0.1:{receiver.server.server_address[1]}/quiet"
