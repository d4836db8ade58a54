"""Drill: the worker dies mid-advance, then the whole worker host (worker, beat and the
Redis beside them) restarts mid-advance. Nobody presses resume: the job's heartbeat goes
stale and beat's watchdog sends it again (docs/clock.md, docs/operations.md).

The clock's watchdog runs as in production, at a third of production's periods (a job is
stale after 10 s without a heartbeat, not 30; beat runs the watchdog every 3 s, not 10;
the batch size is the drills' 4, so that there is a "mid-advance" to break): the drill
waits for them twice. Redis's visibility timeout is its default (an hour), so only the
watchdog can bring the job back within the drill. The job must be running again within
the stale period plus two watchdog periods (and a little) of the worker being available.
"""

from __future__ import annotations

import time

import pytest

from tests.drills.stack import App, wait_for, wait_while_moving

pytestmark = pytest.mark.drill

CHARACTERS = 6
EVERY = 30  # each wound worsens every 30 minutes: 48 effects a day per character
STALE = 10  # a third of the production defaults (config/settings/base.py: 30 s, 10 s)
WATCHDOG = 3
WATCHDOG_ENV = {
    "SAWBONES_CLOCK_STALE_SECONDS": str(STALE),
    "SAWBONES_CLOCK_WATCHDOG_SECONDS": str(WATCHDOG),
}
# once a worker takes tasks: the heartbeat goes stale, the next watchdog run sends it again
# (a watchdog run may wait behind other tasks)
RESUMED_WITHIN = STALE + 2 * WATCHDOG + 10


def job(app: App, token: str, campaign: int, job_id: int) -> dict:
    status, body = app.get(f"/api/v1/campaigns/{campaign}/clock/jobs/{job_id}/", token)
    assert status == 200, body
    return body


def advance(app: App, token: str, campaign: int, minutes: int) -> int:
    status, body = app.request(
        "POST", f"/api/v1/campaigns/{campaign}/clock/advance/", {"minutes": minutes}, token
    )
    assert status == 202, body
    return int(body["id"])


def test_a_job_whose_worker_died_finishes_by_itself(drill):
    app, world = drill.started(CHARACTERS, EVERY, worker="first", **WATCHDOG_ENV)
    token, campaign = world["token"], world["campaign"]

    # given an advance of a day (288 effects, batches of 4) running on the worker
    first = advance(app, token, campaign, 24 * 60)
    wait_while_moving(
        lambda: job(app, token, campaign, first)["done"], (24).__le__, "the advance", app.logs
    )

    # when the worker is killed (SIGKILL, its pool too: no ack, no clean-up)
    app.kill("first")
    stopped = job(app, token, campaign, first)
    assert stopped["state"] == "running"
    assert stopped["done"] < CHARACTERS * 48

    # and another worker becomes available (timed from when it takes tasks: how long a
    # busy machine takes to start one is not the watchdog's doing)
    app.start_worker("second")
    wait_while_moving(lambda: app.worker_ready("second"), bool, "the second worker", app.logs)
    available = time.monotonic()

    # then the job runs again, and finishes, by itself: nobody pressed resume
    wait_while_moving(
        lambda: job(app, token, campaign, first)["done"],
        stopped["done"].__lt__,
        "the job sent again",
        app.logs,
    )
    resumed = time.monotonic() - available
    wait_while_moving(
        lambda: job(app, token, campaign, first),
        lambda answer: answer["state"] == "done",
        "the job",
        app.logs,
    )
    healed = time.monotonic() - available
    assert resumed < RESUMED_WITHIN, resumed
    counts = app.tool("count", str(campaign), str(24 * 60))
    assert (counts["lost"], counts["doubled"], counts["problems"]) == (0, 0, "")
    assert counts["effects_applied"] == CHARACTERS * 48
    assert "heartbeat is stale; enqueued again" in app.everything_logged()

    # given a second day's advance running
    second = advance(app, token, campaign, 24 * 60)
    wait_while_moving(
        lambda: job(app, token, campaign, second)["done"], (24).__le__, "day 2", app.logs
    )
    cut = job(app, token, campaign, second)

    # when the whole worker host goes down: the worker, beat, and the Redis beside them
    # (no persistence: every message it held is lost)
    app.kill("second")
    app.kill("beat")
    drill.redis.kill()
    # (the web app, whose request limits live in Redis, answers a clear 503 meanwhile)
    status, body = app.get(f"/api/v1/campaigns/{campaign}/clock/jobs/{second}/", token)
    assert status == 503, body
    assert "Try again in a minute." in body["detail"]

    # and the host comes back
    drill.redis.start()
    app.start_worker("third")
    app.start_beat()
    wait_while_moving(lambda: app.worker_ready("third"), bool, "the third worker", app.logs)
    back = time.monotonic()

    # then the second job runs again and finishes by itself too, exactly once
    wait_while_moving(
        lambda: job(app, token, campaign, second)["done"],
        cut["done"].__lt__,
        "day 2 sent again",
        app.logs,
    )
    rerun = time.monotonic() - back
    wait_while_moving(
        lambda: job(app, token, campaign, second),
        lambda answer: answer["state"] == "done",
        "day 2",
        app.logs,
    )
    restarted = time.monotonic() - back
    assert rerun < RESUMED_WITHIN, rerun
    counts = app.tool("count", str(campaign), str(2 * 24 * 60))
    assert (counts["lost"], counts["doubled"], counts["problems"]) == (0, 0, "")
    assert counts["effects_applied"] == 2 * CHARACTERS * 48
    assert counts["pending_due"] == 0
    assert counts["clock"] == 2 * 24 * 60
    # and the worker's health shows it back: beat, Redis and a worker all work again
    wait_for(lambda: app.get("/health/worker/")[0] == 200, 120, "worker health", app.logs)
    print(
        f"worker killed: running again {resumed:.1f} s and done {healed:.1f} s after a "
        f"worker was available; host restarted: running again {rerun:.1f} s and done "
        f"{restarted:.1f} s after it was back; "
        f"{counts['effects_applied']} effects, 0 lost, 0 doubled"
    )
