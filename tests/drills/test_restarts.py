"""Drills: Redis, then PostgreSQL, restarted under load (docs/operations.md).

* Redis dies mid-advance while a client keeps queueing advances, players keep acting
  and the campaign's webhook fails (its receiver answers 500 from before the outage to
  3 s after it): every answer is 201, 202 or a clear 503 (never 500); no
  action whose resolution was written is answered 503 (each client acts on its own
  character, whose logged actions must be exactly those answered 201); a refused
  advance sent again once Redis is back (same ``request_id``) runs once; every accepted
  advance runs, no effect lost or doubled, no clock job failed; the webhook heals by
  itself: every event arrives, in order, once.
* PostgreSQL crashes (``pg_ctl stop -m immediate``) while six players act and an
  advance of a day runs (checked running just before the crash, finished after it): answers are
  201 or 503, never 500; each player's logged actions are exactly those answered 201
  (none lost, none doubled, none written and answered 503); the log, the sheets and the
  dice counter agree (nothing half-applied); the web app and the worker carry on
  without a restart, and the advance finishes, exactly once.

The clients send while a fault is injected and until each phase has the answers it needs,
and pause between phases, so the work they make (and the clock's backlog to drain) is a
count, not a rate times however long a busy machine takes; every wait lasts while the
work moves (``wait_while_moving``, issue 33).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.drills.stack import App, Receiver, free_port, wait_while_moving

pytestmark = pytest.mark.drill

CHARACTERS = 6
EVERY = 30
DAY = 24 * 60
FIRST = DAY  # the advance under way at the crash: 288 effects in batches of 4
PLAYERS = 6  # clients acting at once, each on its own character


def job_of(app: App, token: str, campaign: int, job: int) -> dict[str, Any]:
    status, body = app.get(f"/api/v1/campaigns/{campaign}/clock/jobs/{job}/", token)
    assert status == 200, body
    return dict(body)


def running_advance(app: App, token: str, campaign: int, request_id: str) -> int:
    """Start an advance of a day and wait until it is well under way."""
    status, body = app.request(
        "POST",
        f"/api/v1/campaigns/{campaign}/clock/advance/",
        {"minutes": FIRST, "request_id": request_id},
        token,
    )
    assert status == 202, body
    job = int(body["id"])
    wait_while_moving(
        lambda: job_of(app, token, campaign, job)["done"], (24).__le__, "the advance", app.logs
    )
    return job


class Client(threading.Thread):
    """Sends a request again and again while it may go (``go``), until stopped (a
    bounded number of times), counting the answers."""

    def __init__(self, send: Callable[[int], tuple[int, Any]]) -> None:
        super().__init__(daemon=True)
        self.send = send
        self.stop = threading.Event()
        self.go = threading.Event()
        self.go.set()
        self.answers: list[tuple[float, int, Any]] = []

    def run(self) -> None:
        n = 0
        while n < 2000 and not self.stop.is_set():  # far more than any drill sends
            if not self.go.wait(0.25):
                continue
            n += 1
            status, body = self.send(n)
            self.answers.append((time.monotonic(), status, body))
            time.sleep(0.25)

    def statuses(self, since: float = 0) -> Counter[int]:
        return Counter(status for at, status, _ in self.answers if at >= since)


def until(clients: Iterable[Client], enough: Callable[[], bool], what: str, app: App) -> None:
    """Let the clients go until ``enough`` holds, then pause them: each phase sends what
    it needs and no more, however long a busy machine takes over it."""
    clients = list(clients)
    for client in clients:
        client.go.set()

    def seen() -> tuple[int, bool]:  # the answers so far (the progress), and enough or not
        return sum(len(client.answers) for client in clients), enough()

    wait_while_moving(seen, lambda answers_and_enough: answers_and_enough[1], what, app.logs)
    for client in clients:
        client.go.clear()


def players(app: App, token: str, characters: list[int]) -> dict[int, Client]:
    """A client for each character, resting it again and again (each rest rolls the
    campaign's dice and writes a resolution); nobody else acts on these characters."""

    def rest(character: int) -> Callable[[int], tuple[int, Any]]:
        def send(n: int) -> tuple[int, Any]:
            body = {"action": "long_rest", "params": {}}
            return app.request("POST", f"/api/v1/characters/{character}/actions/", body, token)

        return send

    clients = {character: Client(rest(character)) for character in characters}
    for client in clients.values():
        client.start()
    return clients


def unanswered_writes(clients: dict[int, Client], logged: dict[str, list[int]]) -> dict[str, Any]:
    """Each character's logged actions against its client's answers: those logged and
    not answered 201 (doubled, or written and answered 503: the client would send it
    again), and those answered 201 and not logged (lost)."""
    answered = {
        character: [body["id"] for _, status, body in client.answers if status == 201]
        for character, client in clients.items()
    }
    return {
        "written, not answered 201": sum(
            len(set(logged.get(str(c), [])) - set(ids)) for c, ids in answered.items()
        ),
        "answered 201, not written": sum(
            len(set(ids) - set(logged.get(str(c), []))) for c, ids in answered.items()
        ),
        "answered 201 twice": sum(len(ids) - len(set(ids)) for ids in answered.values()),
        "answered 201": sum(len(ids) for ids in answered.values()),
    }


def test_redis_restarted_mid_advance_while_advances_are_queued(drill):
    app, world = drill.started(
        CHARACTERS,
        EVERY,
        resting=4,
        SAWBONES_WEBHOOK_ALLOW_PRIVATE="1",  # the receiver is on this machine
        SAWBONES_WEBHOOK_BACKOFF_SECONDS="0.5",
        # a delivery task whose message went with Redis is sent again within seconds, not
        # the deployment's minutes (a 60 s sweep, 120 s late): the drill waits on
        # progress, and three minutes without any would read as a stall
        SAWBONES_WEBHOOK_SWEEP_SECONDS="2",
        SAWBONES_WEBHOOK_LOST_TASK_SECONDS="10",
    )
    token, campaign = world["token"], world["campaign"]
    # deliveries on their own worker, as compose runs them: they go on while the clock's
    # work keeps the first worker busy
    app.start_worker("worker-webhooks", queues="webhooks")
    receiver = Receiver(free_port())
    try:
        # given a campaign with a webhook
        status, hook = app.request(
            "POST",
            f"/api/v1/campaigns/{campaign}/webhooks/",
            {"url": f"{receiver.url}/hook"},
            token,
        )
        assert status == 201, hook
        # and players acting
        acting = players(app, token, world["resting"])
        until(
            acting.values(),
            lambda: all(c.statuses()[201] >= 1 for c in acting.values()),
            "rests",
            app,
        )
        # and the webhook's receiver failing (its events wait, tried again and again)
        receiver.status = 500
        # and an advance of a day under way (each of its batches records events)
        first = running_advance(app, token, campaign, "first")

        # and a client queueing hour-long advances, each with its own request id, while
        # the players act
        def ask(n: int) -> tuple[int, Any]:
            body = {"minutes": 60, "request_id": f"hour-{n}"}
            return app.request("POST", f"/api/v1/campaigns/{campaign}/clock/advance/", body, token)

        client = Client(ask)
        client.start()
        everyone = [client, *acting.values()]
        for one in everyone:
            one.go.set()
        wait_while_moving(
            lambda: client.statuses()[202], (2).__le__, "advances to be queued", app.logs
        )

        # when Redis dies (every message it held is lost) mid-advance
        at_kill = job_of(app, token, campaign, first)
        down = time.monotonic()
        drill.redis.kill()
        assert at_kill["state"] == "running", at_kill

        # then the web app answers a clear 503 meanwhile, never a 500
        until(everyone, lambda: client.statuses(down)[503] >= 3, "503 answers", app)
        status, health = app.get("/health/")
        assert status == 503, health
        assert health["broker"].startswith("unreachable"), health

        # when Redis is back, and the receiver a little later
        drill.redis.start()
        back = time.monotonic()
        until(
            everyone,
            lambda: (
                client.statuses(back)[202] >= 2
                and all(c.statuses(back)[201] >= 1 for c in acting.values())
            ),
            "advances accepted and rests again",
            app,
        )
        time.sleep(max(0.0, back + 3 - time.monotonic()))
        receiver.status = 200
        for one in everyone:
            one.stop.set()
        for one in everyone:
            one.join()
        statuses = client.statuses()
        assert set(statuses) <= {202, 503}, statuses
        rests = sum((c.statuses() for c in acting.values()), Counter())
        assert set(rests) <= {201, 503}, rests

        # and the client sends each refused advance again, with its request id
        refused = [body for _, status, body in client.answers if status == 503]
        for n, (_, status, _) in enumerate(client.answers, start=1):
            if status == 503:
                again, body = ask(n)
                assert again == 202, body

        # then every advance runs, once, and none failed
        asked = len(client.answers)
        minutes = FIRST + 60 * asked

        def settled() -> dict[str, Any] | None:
            counts: dict[str, Any] = app.tool("count", str(campaign), str(minutes))
            unfinished = {"queued", "running", "waiting"} & {j["state"] for j in counts["jobs"]}
            return None if unfinished else counts

        wait_while_moving(
            lambda: app.tool("count", str(campaign), str(minutes))["effects_applied"],
            lambda _: settled() is not None,
            "every job to finish",
            app.logs,
        )
        # counted again: the first count may have read the effects before the last job's
        # last batch and its jobs after it
        counts = app.tool("count", str(campaign), str(minutes))
        assert {j["state"] for j in counts["jobs"]} == {"done"}, counts["jobs"]
        seen = (
            f"clock {counts['clock']} of {minutes}, {len(counts['jobs'])} jobs for "
            f"{1 + asked} asked, {counts['pending_due']} effects pending and due: "
            f"{counts['jobs']}; answers {client.answers}"
        )
        assert (counts["lost"], counts["doubled"], counts["problems"]) == (0, 0, ""), seen
        assert counts["clock"] == minutes, seen
        assert len(counts["jobs"]) == 1 + asked, seen
        assert counts["pending_due"] == 0
        assert all(body["detail"] for body in refused)
        # and no action was written and answered 503, none lost
        writes = unanswered_writes(acting, counts["actions"])
        assert writes["written, not answered 201"] == 0, writes
        assert writes["answered 201, not written"] == 0, writes
        assert writes["answered 201 twice"] == 0, writes

        # and the webhook heals by itself: every event arrives, in order, once
        rows = wait_while_moving(
            lambda: app.tool("webhook_events", str(hook["id"]))[str(hook["id"])],
            lambda rows: set(rows["states"]) == {"delivered"},
            "the webhook's events delivered",
            app.logs,
        )
        healed = time.monotonic() - back
        assert receiver.delivered() == rows["events"]
        failed = sum(status != 200 for *_, status in receiver.received)
        assert failed > 0  # the webhook did fail during the outage
        print(
            f"Redis drill: {asked} advances asked, answers {dict(statuses)}, {len(refused)} "
            f"sent again; rests answered {dict(rests)}, {writes}; "
            f"{counts['effects_applied']} effects, 0 lost, 0 doubled, no job failed, no 500; "
            f"webhook: {len(rows['events'])} events delivered in order once, {failed} tries "
            f"answered 500, all delivered {healed:.1f} s after Redis was back"
        )
    finally:
        receiver.close()


def test_postgres_restarted_while_actions_and_an_advance_run(drill):
    app, world = drill.started(CHARACTERS, EVERY, resting=PLAYERS)
    token, campaign = world["token"], world["campaign"]

    # given players resting, again and again, each rest rolling the campaign's dice
    clients = players(app, token, world["resting"])
    until(
        clients.values(),
        lambda: all(c.statuses()[201] >= 2 for c in clients.values()),
        "rests",
        app,
    )
    # and an advance of a day under way, and the players resting again
    job = running_advance(app, token, campaign, "first")
    for client in clients.values():
        client.go.set()
    wait_while_moving(
        lambda: sum(c.statuses()[201] for c in clients.values()),
        (3 * PLAYERS).__le__,
        "rests",
        app.logs,
    )

    # when PostgreSQL crashes (no clean shut-down: open transactions die) mid-advance
    at_crash = job_of(app, token, campaign, job)
    crashed_at = datetime.now(UTC)
    down = time.monotonic()
    drill.postgres.stop("immediate")
    assert at_crash["state"] == "running", at_crash
    assert at_crash["done"] < CHARACTERS * FIRST // EVERY, at_crash

    # then the web app answers a clear 503 meanwhile, never a 500
    until(
        clients.values(),
        lambda: sum(c.statuses(down)[503] for c in clients.values()) >= 4,
        "503 answers",
        app,
    )
    status, health = app.get("/health/")
    assert status == 503, health
    assert health["database"].startswith("unreachable"), health
    # and a page that needs the database (logging in) says so in a sentence
    status, page = app.post_form("/login/", {"username": "player", "password": "wrong"})
    assert status == 503, page
    assert "Sawbones cannot reach its records just now" in page

    # when PostgreSQL is back: the same web app and worker processes carry on
    drill.postgres.start()
    back = time.monotonic()
    until(
        clients.values(),
        lambda: all(c.statuses(back)[201] >= 2 for c in clients.values()),
        "rests again",
        app,
    )
    for client in clients.values():
        client.stop.set()
    for client in clients.values():
        client.join()
    finished = wait_while_moving(
        lambda: job_of(app, token, campaign, job),
        lambda job: job["state"] == "done",
        "the advance",
        app.logs,
    )
    # (the advance was cut by the crash: it finished after it, on the same worker)
    assert datetime.fromisoformat(finished["finished_at"]) > crashed_at, finished
    assert app.get("/health/")[0] == 200

    # then every answer was 201 or 503, each player's logged actions are exactly those
    # answered 201, and the log, the sheets and the dice counter agree: nothing
    # half-applied
    statuses = sum((c.statuses() for c in clients.values()), Counter())
    assert set(statuses) <= {201, 503}, statuses
    counts = app.tool("count", str(campaign), str(FIRST))
    writes = unanswered_writes(clients, counts["actions"])
    assert writes["written, not answered 201"] == 0, writes
    assert writes["answered 201, not written"] == 0, writes
    assert writes["answered 201 twice"] == 0, writes
    assert (counts["lost"], counts["doubled"], counts["problems"]) == (0, 0, "")
    assert counts["clock"] == FIRST
    replay = app.manage("replay_check", str(campaign))
    assert "0 divergences" in replay, replay
    print(
        f"PostgreSQL drill: {PLAYERS} players, rests answered {dict(statuses)}, {writes}; "
        f"advance at the crash: {at_crash['done']} effects done, running; "
        f"{counts['effects_applied']} effects, 0 lost, 0 doubled, no 500"
    )
