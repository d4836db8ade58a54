"""Drill: many open pages' event streams on the threaded server, with the database pool
(docs/deployment.md, the ``events`` service; web/streams.py).

* 30 players' pages open their streams at once against one gunicorn worker whose pool
  holds at most 2 connections: every stream opens (each opening request borrows a
  connection for its access check and gives it back before streaming), the database
  never sees more than the pool's 2 connections from the app, and one action reaches
  every stream as one ``changed`` event.
* A sync worker (one request at a time) answers the stream with 204, so the pages poll.
"""

from __future__ import annotations

import http.client
import re
import threading
import urllib.parse
from typing import Any

import psycopg
import pytest

from tests.drills.stack import App, wait_for

pytestmark = pytest.mark.drill

PAGES = 30
POOL = 2


def log_in(port: int, username: str, password: str) -> str:
    """A person signing in through the login page; their cookie header."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/login/")
    page = conn.getresponse()
    html = page.read().decode()
    cookies = {c.split(";", 1)[0] for c in page.headers.get_all("Set-Cookie") or []}
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert token, html
    body = urllib.parse.urlencode(
        {"username": username, "password": password, "csrfmiddlewaretoken": token[1]}
    )
    conn.request(
        "POST",
        "/login/",
        body,
        {"Cookie": "; ".join(cookies), "Content-Type": "application/x-www-form-urlencoded"},
    )
    answer = conn.getresponse()
    answer.read()
    assert answer.status == 302, answer.status
    cookies |= {c.split(";", 1)[0] for c in answer.headers.get_all("Set-Cookie") or []}
    conn.close()
    return "; ".join(sorted(cookies))


class Stream(threading.Thread):
    """One open page's stream, read line by line as EventSource does."""

    def __init__(self, port: int, cookie: str, path: str) -> None:
        super().__init__(daemon=True)
        self.port, self.cookie, self.path = port, cookie, path
        self.status = 0
        self.lines: list[str] = []

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        conn.request("GET", self.path, headers={"Cookie": self.cookie})
        response = conn.getresponse()
        self.status = response.status
        while self.status == 200 and (line := response.fp.readline()):
            self.lines.append(line.decode().rstrip("\n"))

    def heard(self, line: str) -> bool:
        return line in self.lines


class Peak(threading.Thread):
    """The most connections the app's database had at once, sampled every few
    milliseconds from pg_stat_activity until stopped."""

    def __init__(self, drill: Any, app: App) -> None:
        super().__init__(daemon=True)
        self.url, self.database = drill.postgres.url("postgres"), app.database
        self.most = 0
        self.stop = threading.Event()
        self.ready = threading.Event()

    def run(self) -> None:
        sql = "SELECT count(*) FROM pg_stat_activity WHERE datname = %s"
        with psycopg.connect(self.url, autocommit=True) as conn:
            self.ready.set()
            while not self.stop.is_set():
                row = conn.execute(sql, [self.database]).fetchone()
                self.most = max(self.most, row[0] if row else 0)
                self.stop.wait(0.002)

    def __enter__(self) -> Peak:
        self.start()
        self.ready.wait(30)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.join(30)


def test_many_streams_share_a_small_pool_and_all_hear_a_change(drill):
    app = drill.app(DATABASE_POOL_MAX_SIZE=str(POOL), DATABASE_CONN_MAX_AGE="0")
    world = app.tool("setup", "0", "60")
    character = world["resting"][0]
    port = app.start_web(threads=PAGES + 10)
    cookie = log_in(port, "player", "drill-player-pw")
    path = f"/live/events/?watch=sheet:{character}"

    streams = [Stream(port, cookie, path) for _ in range(PAGES)]
    with Peak(drill, app) as peak:
        for stream in streams:
            stream.start()  # all at once, as 30 pages loading together
        wait_for(
            lambda: all(s.heard("retry: 2000") for s in streams), 60, "every stream open", app.logs
        )
        assert {s.status for s in streams} == {200}

        body = {"action": "damage", "params": {"amount": 2}}
        status, answer = app.request(
            "POST", f"/api/v1/characters/{character}/actions/", body, world["token"]
        )
        assert status == 201, answer
        event = f"data: sheet:{character}"
        wait_for(lambda: all(s.heard(event) for s in streams), 30, "every stream told", app.logs)
    assert all(s.lines.count(event) == 1 for s in streams)
    # without the pool each opening request opens its own connection (tried: 8 at once)
    assert 0 < peak.most <= POOL


def test_a_sync_worker_sends_pages_back_to_polling(drill):
    app = drill.app()
    world = app.tool("setup", "0", "60")
    port = app.start_web(threads=1)
    cookie = log_in(port, "player", "drill-player-pw")
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(
        "GET", f"/live/events/?watch=sheet:{world['resting'][0]}", headers={"Cookie": cookie}
    )
    response = conn.getresponse()
    assert response.status == 204
    assert response.read() == b""
