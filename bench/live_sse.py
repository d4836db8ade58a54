"""Server-sent events for the live pages, for bench/live_pages.py only (not in the product).

The smallest honest SSE version of the live regions: the project's WSGI application
with two more URLs, served by gunicorn's ``gthread`` workers (a thread holds each open
stream)::

    gunicorn bench.live_sse:application --worker-class gthread --threads N

* ``GET /bench-sse/sheet/<id>/`` and ``GET /bench-sse/campaign/<id>/``: signed in and
  checked as the polls are (``access_character``, ``access_campaign``, through the whole
  middleware), then ``text/event-stream``: ``event: changed`` with the new stamp when the
  sheet or the dashboard changes (the page would then GET its fragment, as htmx's
  ``sse:changed`` trigger does), a comment line every ``KEEP_ALIVE`` seconds otherwise.
  The stream's thread gives its database connection back before streaming.
* One watcher thread per worker process reads every watched stamp once a second (one
  query for the watched sheets, ``live_witness`` for each watched campaign) and wakes
  the streams whose stamp changed: the database cost grows with the campaigns watched,
  not with the open pages. (The other way, Redis pub/sub published by every write path,
  costs an idle stream nothing either, but needs every writer to publish.)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

from django.core.wsgi import get_wsgi_application

application = get_wsgi_application()

from django.conf import settings  # noqa: E402  (after the application sets Django up)
from django.contrib.auth.decorators import login_required  # noqa: E402
from django.db import connection  # noqa: E402
from django.http import HttpRequest, StreamingHttpResponse  # noqa: E402
from django.urls import path  # noqa: E402

from campaigns.access import access_campaign  # noqa: E402
from characters.access import access_character  # noqa: E402
from characters.models import Character  # noqa: E402
from config.urls import urlpatterns as site  # noqa: E402
from rules.selectors import live_witness  # noqa: E402
from web.live import party_stamp, sheet_stamp  # noqa: E402

KEEP_ALIVE = 10.0  # seconds between comment lines on a quiet stream
Key = tuple[str, int]  # ("sheet", character id) or ("campaign", campaign id)


class Watcher:
    """The process's stamps of the watched sheets and campaigns, read once a second."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.stamps: dict[Key, str] = {}
        self.watching: dict[Key, int] = {}
        self.reads = 0
        thread = threading.Thread(target=self.run, name="bench-sse-watcher", daemon=True)
        thread.start()

    def watch(self, key: Key, stamp: str) -> None:
        with self.changed:
            self.watching[key] = self.watching.get(key, 0) + 1
            self.stamps.setdefault(key, stamp)

    def unwatch(self, key: Key) -> None:
        with self.changed:
            self.watching[key] -= 1
            if not self.watching[key]:
                del self.watching[key]

    def wait(self, key: Key, stamp: str, timeout: float) -> str:
        with self.changed:
            self.changed.wait_for(lambda: self.stamps.get(key, stamp) != stamp, timeout)
            return self.stamps.get(key, stamp)

    def read(self) -> dict[Key, str]:
        with self.changed:
            keys = list(self.watching)
        fresh: dict[Key, str] = {}
        sheets = [number for kind, number in keys if kind == "sheet"]
        if sheets:
            rows = Character.objects.filter(pk__in=sheets).values_list(
                "pk", "version", "campaign__clock"
            )
            fresh |= {("sheet", pk): sheet_stamp(version, clock) for pk, version, clock in rows}
        for kind, number in keys:
            if kind == "campaign" and (row := live_witness(number, job=True)) is not None:
                fresh[(kind, number)] = party_stamp(row, referee=True)
        self.reads += 1
        return fresh

    def run(self) -> None:
        while True:
            time.sleep(1.0)
            try:
                fresh = self.read()
            except Exception:  # a database hiccup: read again next second
                connection.close()
                continue
            with self.changed:
                moved = {key: s for key, s in fresh.items() if self.stamps.get(key) != s}
                if moved:
                    self.stamps |= moved
                    self.changed.notify_all()


_watcher: Watcher | None = None
_watcher_lock = threading.Lock()


def watcher() -> Watcher:
    global _watcher
    with _watcher_lock:
        if _watcher is None:
            _watcher = Watcher()
        return _watcher


def stream(key: Key, stamp: str) -> Iterator[str]:
    the = watcher()
    the.watch(key, stamp)
    try:
        yield "retry: 1000\n\n"
        while True:
            now = the.wait(key, stamp, KEEP_ALIVE)
            if now != stamp:
                stamp = now
                yield f"event: changed\ndata: {stamp}\n\n"
            else:
                yield ": still here\n\n"
    finally:
        the.unwatch(key)


def events(key: Key, stamp: str) -> StreamingHttpResponse:
    connection.close()  # the stream holds a thread, not a database connection
    response = StreamingHttpResponse(stream(key, stamp), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


@login_required
def sheet_events(request: HttpRequest, character_id: int) -> StreamingHttpResponse:
    character = access_character(request.user, character_id).character
    return events(("sheet", character.pk), sheet_stamp(character.version, character.campaign.clock))


@login_required
def campaign_events(request: HttpRequest, campaign_id: int) -> StreamingHttpResponse:
    membership = access_campaign(request.user, campaign_id)
    row = live_witness(membership.campaign_id, job=True)
    assert row is not None  # the membership's campaign
    return events(("campaign", membership.campaign_id), party_stamp(row, referee=True))


urlpatterns = [
    path("bench-sse/sheet/<int:character_id>/", sheet_events),
    path("bench-sse/campaign/<int:campaign_id>/", campaign_events),
    *site,
]
settings.ROOT_URLCONF = __name__  # before the first request resolves a URL
