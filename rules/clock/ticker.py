"""The live clock's ticker for the embedded mode (``make run``), where no Celery beat runs.

Deployed, Celery beat calls ``rules.tasks.tick_live_campaigns`` every minute. The
embedded mode has no beat, so the process that serves the pages ticks itself: the
first request it serves starts one daemon thread that calls the same
:func:`rules.clock.live.clock_live_tick` every ``SAWBONES_TICKER_SECONDS`` (0, the default
outside the embedded mode, starts nothing). The tick moves each campaign's
``live_last_tick`` by compare-and-set and derives the minutes from real time elapsed,
so a tick that runs twice, late, or beside a beat advances nothing twice and loses no
time: the next tick catches up.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from django.conf import settings
from django.db import DatabaseError, close_old_connections
from django.http import HttpRequest, HttpResponse

from rules.clock.digest import digest_send, digests_due
from rules.clock.live import clock_live_tick

logger = logging.getLogger(__name__)

_started = threading.Event()
_start_lock = threading.Lock()


def tick_once() -> int:
    """One tick, as beat's task does; a database error waits for the next tick. The
    players' e-mail digests that are due go out too (beat's ``queue_digests``; here on the
    console, rules.clock.digest)."""
    close_old_connections()
    try:
        ticked = len(clock_live_tick())
    except DatabaseError:
        logger.exception("live clock tick failed; the next tick catches up")
        ticked = 0
    try:
        for membership_id in digests_due():
            digest_send(membership_id=membership_id)
    except Exception:  # a mail or the database: the next tick tries again
        logger.exception("e-mail digests failed; the next tick tries again")
    finally:
        close_old_connections()
    return ticked


def _run(interval: float, stop: threading.Event) -> None:
    while not stop.wait(interval):
        tick_once()


def start_ticker(interval: float) -> threading.Event | None:
    """Start the process's ticker thread once; returns the event that stops it (tests)."""
    if interval <= 0:
        return None
    with _start_lock:
        if _started.is_set():
            return None
        _started.set()
    stop = threading.Event()
    thread = threading.Thread(
        target=_run, args=(interval, stop), name="sawbones-live-clock", daemon=True
    )
    thread.start()
    logger.info("live clock ticker started: every %s s", interval)
    return stop


class TickerMiddleware:
    """Starts the ticker with the first request a process serves (embedded mode only)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.interval = float(getattr(settings, "SAWBONES_TICKER_SECONDS", 0) or 0)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if self.interval > 0 and not _started.is_set():
            start_ticker(self.interval)
        return self.get_response(request)
