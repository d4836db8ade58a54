"""Drills: several workers and several web processes at once (docs/deployment.md).

* Two Celery workers on one broker and one database advance two campaigns at once (each
  a long advance of many disease saves); each job is also delivered a second time while
  it runs, so the worker that finishes first joins the other on its campaign. Both
  workers take work, at the same time; afterwards each campaign is exactly right (every
  due effect applied once, versions and dice contiguous, the replay check passes) and
  equal, roll for roll, to what one process computes alone from the same seed.
* Two gunicorn masters (separate processes, separate ports) serve one campaign: players
  act on the same characters through both at once, half of the actions with the
  version they last saw. Every answer is 201 or 409 (never 500); the log has exactly the
  actions answered 201, each character's versions are contiguous, the dice counter is
  the dice used, and the replay check passes.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from datetime import datetime
from typing import Any

import pytest

from tests.drills.stack import App, wait_for, wait_while_moving

pytestmark = pytest.mark.drill

DAY = 24 * 60
ADVANCE = 10 * DAY + 60  # the week's incubation, the three days of saves, an hour more
# Patients per campaign, 18 saves each once the fever breaks out: a small ward, whose
# worker is free early, and a large one.
WARDS = (6, 18)
WORKERS = ("alpha", "beta")


def job(app: App, token: str, campaign: int, job_id: int) -> dict[str, Any]:
    status, body = app.get(f"/api/v1/campaigns/{campaign}/clock/jobs/{job_id}/", token)
    assert status == 200, body
    return body


# [2026-11-26 13:40:01,123: INFO/MainProcess] Task rules.tasks.advance_clock[<id>] received
_TASK_LINE = re.compile(
    r"^\[(?P<at>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}): [A-Z]+/[^\]]+\] "
    r"Task rules\.tasks\.advance_clock\[(?P<id>[^\]]+)\] (?P<what>received|succeeded)",
    re.MULTILINE,
)


def advance_tasks(app: App, worker: str) -> list[tuple[datetime, datetime]] | None:
    """When each advance task the worker ran began and ended, from its log; None while
    one has not ended yet."""
    began: dict[str, datetime] = {}
    spans = []
    log = (app.base / f"{worker}.log").read_text(errors="replace")
    for line in _TASK_LINE.finditer(log):
        at = datetime.strptime(line["at"], "%Y-%m-%d %H:%M:%S,%f")
        if line["what"] == "received":
            began[line["id"]] = at
        elif line["id"] in began:
            spans.append((began.pop(line["id"]), at))
    return None if began else spans


def span(job: dict[str, Any]) -> tuple[datetime, datetime]:
    return datetime.fromisoformat(job["started_at"]), datetime.fromisoformat(job["finished_at"])


def overlap(a: tuple[Any, Any], b: tuple[Any, Any]) -> float:
    """Seconds two spans of time share (0 when they do not meet)."""
    return max(0.0, (min(a[1], b[1]) - max(a[0], b[0])).total_seconds())


def test_two_workers_advance_two_campaigns_at_once(drill):
    app = drill.app()
    world = app.tool("setup_fever", *map(str, WARDS))
    token, campaigns = world["token"], world["campaigns"]
    app.start_web()
    for name in WORKERS:
        app.start_worker(name)
    app.start_beat()
    wait_for(lambda: all(map(app.worker_ready, WORKERS)), 120, "both workers", app.logs)

    # when both campaigns are advanced past the whole fever at once: one worker takes
    # each (a worker reserves one task at a time)
    jobs = {}
    for campaign in campaigns:
        status, body = app.request(
            "POST", f"/api/v1/campaigns/{campaign}/clock/advance/", {"minutes": ADVANCE}, token
        )
        assert status == 202, body
        jobs[campaign] = body["id"]
    # and each job's task is delivered once more while it runs (a duplicate, as after a
    # retry or the watchdog): the worker done with the small ward first takes its
    # duplicate (nothing left to do), then the large ward's, and joins the other worker
    # there, batch by batch under the campaign's lock
    for campaign, job_id in jobs.items():
        path = f"/api/v1/campaigns/{campaign}/clock/jobs/{job_id}/resume/"
        status, body = app.request("POST", path, None, token)
        assert status in (202, 409), body  # 409: that job was done already

    ended = wait_while_moving(
        lambda: {c: job(app, token, c, j) for c, j in jobs.items()},
        lambda now: all(j["state"] in ("done", "failed") for j in now.values()),
        "both advances",
        app.logs,
    )
    assert all(j["state"] == "done" for j in ended.values()), ended

    # then both workers took work, and at the same time
    def logged() -> dict[str, list[tuple[datetime, datetime]]] | None:
        found = {}
        for name in WORKERS:
            tasks = advance_tasks(app, name)
            if tasks is None:
                return None  # a task still running
            found[name] = tasks
        return found

    spans = wait_for(logged, 60, "the tasks to end", app.logs)
    assert all(spans.values()), spans
    assert sum(map(len, spans.values())) >= 4, spans  # every delivery ran
    shared = sum(overlap(a, b) for a in spans["alpha"] for b in spans["beta"])
    assert shared > 0, spans
    settled = app.tool("settled", *map(str, campaigns))
    small, large = (settled[str(c)]["jobs"][0] for c in campaigns)
    both_running = overlap(span(small), span(large))
    assert both_running > 0, (small, large)

    # and each campaign is exactly right: every due effect applied once, versions and
    # dice contiguous, the sheets the last logged ones, the replay agrees
    for campaign, size in zip(campaigns, WARDS, strict=True):
        state = settled[str(campaign)]
        assert state["problems"] == [], state["problems"]
        assert (state["doubled"], state["pending_due"]) == (0, 0), state
        assert state["clock"] == ADVANCE
        assert [j["state"] for j in state["jobs"]] == ["done"]
        assert state["effects_applied"] >= 18 * size, state["effects_applied"]
    replay = app.manage("replay_check", *map(str, campaigns))
    assert replay.count(" 0 divergences") == len(campaigns), replay

    # and each is what one process computes alone from the same seed, roll for roll
    # (the workers and beat stopped first)
    for name in (*WORKERS, "beat"):
        app.kill(name)
    alone = app.tool("reference", str(ADVANCE), *map(str, WARDS))
    for campaign, size in zip(campaigns, WARDS, strict=True):
        assert alone[str(size)]["problems"] == []
        done, computed = settled[str(campaign)], alone[str(size)]
        assert (done["log"], done["effects"]) == (computed["log"], computed["effects"])
    effects = [settled[str(c)]["effects_applied"] for c in campaigns]
    tasks = {name: [round((b - a).total_seconds(), 1) for a, b in s] for name, s in spans.items()}
    print(
        f"two workers: {effects} effects, the workers busy at once for {shared:.1f} s "
        f"(their tasks, s: {tasks}), both jobs running for {both_running:.1f} s; 0 doubled, "
        "0 lost, each campaign equal to one process's advance"
    )


class Player(threading.Thread):
    """Acts on one character again and again, through both web processes in turn."""

    def __init__(self, app: App, ports: list[int], token: str, character: int, n: int) -> None:
        super().__init__(daemon=True)
        self.app, self.ports, self.token, self.character, self.n = app, ports, token, character, n
        self.answers: list[tuple[int, int, Any]] = []  # port, status, body
        self.seen = 0  # the character's version as this player last saw it

    def run(self) -> None:
        path = f"/api/v1/characters/{self.character}/actions/"
        self.seen = self.app.get(f"/api/v1/characters/{self.character}/", self.token)[1]["version"]
        for i in range(self.n):
            port = self.ports[i % len(self.ports)]
            if i % 4 < 2:  # a night's sleep rolls the campaign's dice
                body: dict[str, Any] = {"action": "long_rest", "params": {}}
            else:  # a short rest without re-rolling rolls none
                body = {"action": "short_rest", "params": {"reroll": False}}
            if i % 2:  # with the version last seen: a 409 when another got there first
                body["expected_version"] = self.seen
            status, answer = self.app.request("POST", path, body, self.token, port=port)
            self.answers.append((port, status, answer))
            if status == 201:
                self.seen = answer["version"]
            elif status == 409:
                self.seen = self.app.get(f"/api/v1/characters/{self.character}/", self.token)[1][
                    "version"
                ]


def test_two_web_processes_serve_one_campaign(drill):
    app = drill.app()
    world = app.tool("setup", "0", "60")  # a hit_dice campaign with two resting characters
    token, campaign, characters = world["token"], world["campaign"], world["resting"]
    ports = [app.start_web("web"), app.start_web("web2")]
    before = {c: app.get(f"/api/v1/characters/{c}/", token)[1]["version"] for c in characters}

    # when eight players act at once, four on each character, through both processes
    players = [Player(app, ports, token, characters[i % 2], 24) for i in range(8)]
    for player in players:
        player.start()
    for player in players:
        player.join(timeout=300)
    answers = [answer for player in players for answer in player.answers]

    # then every answer is 201 or a 409 that says why, never a 500
    statuses = Counter(status for _, status, _ in answers)
    assert set(statuses) <= {201, 409}, [a for a in answers if a[1] not in (201, 409)][:3]
    assert statuses[409] > 0, statuses  # the players did get in each other's way
    conflicts = [body for _, status, body in answers if status == 409]
    assert all("is at version" in body["detail"] for body in conflicts), conflicts[:3]
    # and both processes wrote
    assert all(any(p == port and s == 201 for p, s, _ in answers) for port in ports)

    # and the log holds exactly the actions answered 201: nothing lost, nothing doubled
    state = app.tool("settled", str(campaign))[str(campaign)]
    created = sorted(body["id"] for _, status, body in answers if status == 201)
    assert sorted(state["actions"]) == created
    # each character's versions contiguous, one per action answered 201
    assert state["problems"] == [], state["problems"]
    for character in characters:
        mine = sum(
            1 for p in players if p.character == character for _, s, _ in p.answers if s == 201
        )
        assert state["versions"][str(character)] == before[character] + mine
    # and every die drawn once, the counter where the last one ended; the replay agrees
    replay = app.manage("replay_check", str(campaign))
    assert "0 divergences" in replay, replay
    print(
        f"two web processes: {len(answers)} actions on {len(characters)} characters, "
        f"answers {dict(statuses)}, {len(created)} in the log, dice counter "
        f"{state['dice_counter']}, 0 lost, 0 doubled, no 500"
    )
