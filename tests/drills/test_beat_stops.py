"""Drill: beat stops (killed) for over half a minute, and a worker dies meanwhile
(docs/operations.md).

Beat sends the minute tick of live clocks, the clock's watchdog and the webhook sweep;
nothing else needs it. While it is down: actions are answered 201 and their webhook
events delivered (each URL's task sends the next one itself); a clock job whose worker
died is not sent again (only the watchdog does that); the live clock does not move;
/health/worker/ turns 503 (a stuck job, then the worker "silent" once no watchdog ran
for SILENT seconds). Once beat is back, with nobody pressing anything: the job
finishes, exactly once; the live clock catches up all the real time it missed in one
tick; /health/worker/ is 200 again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest

from tests.drills.stack import App, Receiver, free_port, wait_for, wait_while_moving

pytestmark = pytest.mark.drill

CHARACTERS = 6
EVERY = 30
RATIO = 60  # the live clock: an in-game hour a real minute
# /health/worker/'s "silent" and the live clock's tick, shorter than production's two
# minutes and one (the drill would wait for them): beat stays down over several ticks.
SILENT = 30
TICK = 10


def job_of(app: App, token: str, campaign: int, job: int) -> dict[str, Any]:
    status, body = app.get(f"/api/v1/campaigns/{campaign}/clock/jobs/{job}/", token)
    assert status == 200, body
    return dict(body)


def rest(app: App, token: str, character: int) -> int:
    body = {"action": "long_rest", "params": {}}
    status, answer = app.request("POST", f"/api/v1/characters/{character}/actions/", body, token)
    assert status == 201, answer
    return int(answer["id"])


def arrived(receiver: Receiver, resolution: int) -> Callable[[], bool]:
    """Whether the event of ``resolution`` has reached ``receiver``."""
    return lambda: any(b["data"].get("id") == resolution for _, b, _, _ in receiver.received)


def test_beat_stopped_then_back_heals_the_clock_and_the_live_tick(drill):
    app, world = drill.started(
        CHARACTERS,
        EVERY,
        worker="first",
        SAWBONES_WEBHOOK_ALLOW_PRIVATE="1",
        SAWBONES_WORKER_SILENT_AFTER_SECONDS=str(SILENT),
        SAWBONES_LIVE_TICK_SECONDS=str(TICK),
    )
    token, campaign = world["token"], world["campaign"]
    receiver = Receiver(free_port())
    try:
        status, hook = app.request(
            "POST",
            f"/api/v1/campaigns/{campaign}/webhooks/",
            {"url": f"{receiver.url}/hook"},
            token,
        )
        assert status == 201, hook
        wait_for(lambda: app.get("/health/worker/")[0] == 200, 60, "worker health", app.logs)
        # given a live clock and an advance of a day under way
        status, live = app.request(
            "PUT", f"/api/v1/campaigns/{campaign}/clock/live/", {"ratio": str(RATIO)}, token
        )
        assert status == 200, live
        live_from = datetime.fromisoformat(live["last_tick"])
        status, body = app.request(
            "POST", f"/api/v1/campaigns/{campaign}/clock/advance/", {"minutes": 24 * 60}, token
        )
        assert status == 202, body
        job = int(body["id"])
        wait_while_moving(
            lambda: job_of(app, token, campaign, job)["done"], (24).__le__, "the advance", app.logs
        )

        # when beat is killed, and then the worker running the advance
        app.kill("beat")
        down = time.monotonic()
        app.kill("first")
        # (the watchdog's messages beat sent before it died expire after 9 s unrun: no
        # watchdog may rescue the job but one beat sends once it is back)
        time.sleep(10)
        app.start_worker("second")
        wait_for(lambda: app.worker_ready("second"), 120, "the second worker", app.logs)
        stopped = job_of(app, token, campaign, job)
        assert stopped["state"] == "running", stopped

        # then actions are still answered and their events delivered, without beat
        for _ in range(3):
            resolution = rest(app, token, world["resting"][0])
            wait_for(arrived(receiver, resolution), 30, "the action's webhook", app.logs)
        # and /health/worker/ says so: a stuck job soon, the worker silent after SILENT
        # seconds without beat's watchdog
        status, health = wait_for(
            lambda: (answer := app.get("/health/worker/"))[0] == 503 and answer,
            60,
            "a stuck job on /health/worker/",
            app.logs,
        )
        assert health["stuck_jobs"] == 1, health
        stuck_after = time.monotonic() - down
        status, health = wait_for(
            lambda: (answer := app.get("/health/worker/"))[1]["worker"] == "silent" and answer,
            SILENT + 60,
            "the worker silent on /health/worker/",
            app.logs,
        )
        assert status == 503, health
        silent_after = time.monotonic() - down
        # and the job was never sent again: it has not moved, nor has the live clock
        assert job_of(app, token, campaign, job)["done"] == stopped["done"]
        assert (
            app.get(f"/api/v1/campaigns/{campaign}/clock/live/", token)[1]["last_tick"]
            == (live["last_tick"])
        )

        # when beat is back (its schedule file kept, as a restarted container's volume)
        app.start_beat()
        back = time.monotonic()
        back_at = datetime.now(live_from.tzinfo)

        # then the job finishes by itself, and the live clock catches up in one tick
        wait_while_moving(
            lambda: job_of(app, token, campaign, job),
            lambda answer: answer["state"] == "done",
            "the job",
            app.logs,
        )
        healed = time.monotonic() - back

        def caught_up() -> dict[str, Any] | None:
            now = app.get(f"/api/v1/campaigns/{campaign}/clock/live/", token)[1]
            return now if datetime.fromisoformat(now["last_tick"]) > back_at else None

        ticked = wait_for(caught_up, 150, "the live clock's tick", app.logs)
        missed = (back_at - live_from).total_seconds() // TICK
        assert missed >= 2, missed  # beat was down over ticks: the catch-up is a real one
        caught = time.monotonic() - back
        wait_for(lambda: app.get("/health/worker/")[0] == 200, 120, "worker health", app.logs)
        green = time.monotonic() - back
        # beat stops again, so that no tick lands between the count and the clock's read
        app.kill("beat")

        clock = wait_while_moving(
            lambda: app.tool("count", str(campaign), "0"),
            lambda counts: (
                not {"queued", "running", "waiting"} & {j["state"] for j in counts["jobs"]}
            ),
            "every job to finish",
            app.logs,
        )["clock"]
        counts = app.tool("count", str(campaign), str(clock))
        assert (counts["lost"], counts["doubled"], counts["problems"]) == (0, 0, "")
        assert counts["pending_due"] == 0
        live_jobs = [j for j in counts["jobs"] if j["kind"] == "live"]
        live_minutes = sum(j["minutes"] for j in live_jobs)
        live_now = app.get(f"/api/v1/campaigns/{campaign}/clock/live/", token)[1]
        last_tick = datetime.fromisoformat(live_now["last_tick"])
        covered = (last_tick - live_from).total_seconds()
        # the ticks moved the clock by exactly the real time run at the ratio, the
        # missed minutes included
        assert live_minutes == round(covered / 60 * RATIO), (live_minutes, covered)
        assert last_tick >= datetime.fromisoformat(ticked["last_tick"]) > back_at, live_now
        assert clock == 24 * 60 + live_minutes
        print(
            f"beat drill: beat down {back - down:.0f} s; /health/worker/ 503 {stuck_after:.1f} s "
            f"after (a stuck job), worker silent {silent_after:.1f} s after; beat back: the "
            f"job done {healed:.1f} s later, the live clock caught up {caught:.1f} s later "
            f"({live_minutes} in-game minutes in {len(live_jobs)} ticks), /health/worker/ 200 "
            f"{green:.1f} s later; {counts['effects_applied']} effects, 0 lost, 0 doubled"
        )
    finally:
        receiver.close()
