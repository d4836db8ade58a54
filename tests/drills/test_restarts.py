"""Drills: Redis, then PostgreSQL, restarted under load (docs/operations.md).

* Redis dies mid-advance while a client keeps queueing advances: every answer is 202 or
  a clear 503 (never 500); a refused advance sent again once Redis is back (same
  ``request_id``) runs once; every accepted advance runs, no effect lost or doubled.
* PostgreSQL crashes (``pg_ctl stop -m immediate``) while players act and an advance
  runs: answers are 201 or 503, never 500; every action answered 201 is in the log; the
  log, the sheets and the dice counter agree (nothing half-applied); the web app and the
  worker carry on without a restart, and the advance finishes, exactly once.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

import pytest

from tests.drills.stack import App, wait_for

pytestmark = pytest.mark.drill

CHARACTERS = 6
EVERY = 30
DAY = 24 * 60


def jobs_done(app: App, token: str, campaign: int) -> bool:
    status, body = app.get(f"/api/v1/campaigns/{campaign}/clock/jobs/", token)
    assert status == 200, body
    jobs = body["results"] if isinstance(body, dict) else body
    return all(job["state"] == "done" for job in jobs)


def running_advance(app: App, token: str, campaign: int, request_id: str) -> int:
    """Start an advance of a day and wait until it is well under way."""
    status, body = app.request(
        "POST",
        f"/api/v1/campaigns/{campaign}/clock/advance/",
        {"minutes": DAY, "request_id": request_id},
        token,
    )
    assert status == 202, body
    path = f"/api/v1/campaigns/{campaign}/clock/jobs/{body['id']}/"
    wait_for(lambda: app.get(path, token)[1]["done"] >= 24, 120, "the advance", app.logs)
    return int(body["id"])


class Client(threading.Thread):
    """Sends a request again and again until stopped, counting the answers."""

    def __init__(self, send) -> None:
        super().__init__(daemon=True)
        self.send = send
        self.stop = threading.Event()
        self.answers: list[tuple[float, int, Any]] = []

    def run(self) -> None:
        n = 0
        while not self.stop.is_set():
            n += 1
            status, body = self.send(n)
            self.answers.append((time.monotonic(), status, body))
            time.sleep(0.25)

    def statuses(self, since: float = 0) -> Counter:
        return Counter(status for at, status, _ in self.answers if at >= since)


def test_redis_restarted_mid_advance_while_advances_are_queued(drill):
    app, world = drill.started(CHARACTERS, EVERY)
    token, campaign = world["token"], world["campaign"]
    running_advance(app, token, campaign, "first")

    # given a client queueing hour-long advances, each with its own request id
    def ask(n: int) -> tuple[int, Any]:
        body = {"minutes": 60, "request_id": f"hour-{n}"}
        return app.request("POST", f"/api/v1/campaigns/{campaign}/clock/advance/", body, token)

    client = Client(ask)
    client.start()
    wait_for(lambda: client.statuses()[202] >= 2, 60, "advances to be queued", app.logs)

    # when Redis dies (every message it held is lost) mid-advance
    down = time.monotonic()
    drill.redis.kill()

    # then the web app answers a clear 503 meanwhile, never a 500
    wait_for(lambda: client.statuses(down)[503] >= 3, 120, "503 answers", app.logs)
    status, health = app.get("/health/")
    assert status == 503, health
    assert health["broker"].startswith("unreachable"), health

    # when Redis is back
    drill.redis.start()
    back = time.monotonic()
    wait_for(lambda: client.statuses(back)[202] >= 2, 120, "advances accepted again", app.logs)
    client.stop.set()
    client.join(timeout=120)
    statuses = client.statuses()
    assert set(statuses) <= {202, 503}, statuses

    # and the client sends each refused advance again, with its request id
    refused = [body for _, status, body in client.answers if status == 503]
    for n, (_, status, _) in enumerate(client.answers, start=1):
        if status == 503:
            again, body = ask(n)
            assert again == 202, body

    # then every advance runs, once
    asked = len(client.answers)
    wait_for(lambda: jobs_done(app, token, campaign), 240, "every job to finish", app.logs)
    minutes = DAY + 60 * asked
    counts = app.tool("count", str(campaign), str(minutes))
    assert (counts["lost"], counts["doubled"], counts["problems"]) == (0, 0, "")
    assert counts["clock"] == minutes
    assert len(counts["jobs"]) == 1 + asked
    assert counts["pending_due"] == 0
    assert all(body["detail"] for body in refused)
    print(
        f"Redis drill: {asked} advances asked, answers {dict(statuses)}, {len(refused)} sent "
        f"again, {counts['effects_applied']} effects, 0 lost, 0 doubled, no 500"
    )


def test_postgres_restarted_while_actions_and_an_advance_run(drill):
    app, world = drill.started(CHARACTERS, EVERY)
    token, campaign = world["token"], world["campaign"]
    job = running_advance(app, token, campaign, "first")

    # given players resting, again and again, each rest rolling the campaign's dice
    def rest(character: int):
        def send(n: int) -> tuple[int, Any]:
            body = {"action": "long_rest", "params": {}}
            return app.request("POST", f"/api/v1/characters/{character}/actions/", body, token)

        return send

    clients = [Client(rest(character)) for character in world["resting"]]
    for client in clients:
        client.start()
    wait_for(lambda: all(c.statuses()[201] >= 2 for c in clients), 60, "rests", app.logs)

    # when PostgreSQL crashes (no clean shut-down: open transactions die)
    down = time.monotonic()
    drill.postgres.stop("immediate")

    # then the web app answers a clear 503 meanwhile, never a 500
    wait_for(lambda: sum(c.statuses(down)[503] for c in clients) >= 4, 120, "503 answers", app.logs)
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
    wait_for(lambda: all(c.statuses(back)[201] >= 2 for c in clients), 120, "rests again", app.logs)
    for client in clients:
        client.stop.set()
    for client in clients:
        client.join(timeout=120)
    path = f"/api/v1/campaigns/{campaign}/clock/jobs/{job}/"
    wait_for(lambda: app.get(path, token)[1]["state"] == "done", 240, "the advance", app.logs)
    assert app.get("/health/")[0] == 200

    # then every answer was 201 or 503, every rest answered 201 is in the log, and the
    # log, the sheets and the dice counter agree: nothing half-applied
    statuses = sum((c.statuses() for c in clients), Counter())
    assert set(statuses) <= {201, 503}, statuses
    counts = app.tool("count", str(campaign), str(DAY))
    answered = [body["id"] for c in clients for _, s, body in c.answers if s == 201]
    lost_actions = len(set(answered) - set(counts["resolutions"]))
    doubled_actions = len(answered) - len(set(answered))
    assert (lost_actions, doubled_actions) == (0, 0)
    assert (counts["lost"], counts["doubled"], counts["problems"]) == (0, 0, "")
    assert counts["clock"] == DAY
    replay = app.manage("replay_check", str(campaign))
    assert "0 divergences" in replay, replay
    print(
        f"PostgreSQL drill: rests answered {dict(statuses)}, {len(answered)} in the log, "
        f"0 lost, 0 doubled; {counts['effects_applied']} effects, 0 lost, 0 doubled, no 500"
    )
