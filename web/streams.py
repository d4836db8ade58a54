"""The live pages' event streams (server-sent events): an open page holds one stream and
fetches its fragment only when the stream says it changed, instead of polling.

``GET /live/events/?watch=sheet:12&watch=campaign:3`` (web/views/live.py) answers
``text/event-stream``: ``event: changed`` with ``data: sheet:12`` whenever that stamp
moves (web/live.py's stamps: the sheet, the dashboard, the battle board), a comment line
every ``SAWBONES_STREAM_KEEPALIVE_SECONDS`` otherwise (so a gone client is noticed and a
proxy keeps the connection), and the end after ``SAWBONES_STREAM_MAX_SECONDS``: the
browser's ``EventSource`` connects again on its own, and the reconnection checks access
again (a player taken off the campaign stops hearing of it).

Why a watcher and not a message from every writer: the stamps already change with every
write (every change is a resolution, the clock moves by compare-and-set), so one thread
per process reads the watched stamps every ``SAWBONES_STREAM_WATCH_SECONDS`` (one query
for the watched sheets, one for each watched campaign) and wakes the streams whose stamp
moved. What that costs grows with the campaigns watched, not with the open pages, and no
write path (services, the clock, battles, undo, imports) can forget to tell it.

A stream holds a thread of the server for as long as the page is open, never a database
connection: the request gives its connection back before it streams. A server whose
workers each serve one request at a time (gunicorn's sync workers report
``wsgi.multithread`` false) answers ``204 No Content``, which tells ``EventSource`` not
to connect again, and the page keeps polling (docs/deployment.md: the ``events`` service).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from time import monotonic, sleep

from django.conf import settings
from django.db import close_old_connections, connection

from rules.battles.selectors import LATEST_BATTLE
from rules.clock.selectors import LATEST_CLOCK_JOB
from rules.log.selectors import live_witness, sheets_versions
from web.live import board_stamp, party_stamp, sheet_stamp

logger = logging.getLogger(__name__)

KINDS = ("sheet", "campaign", "board")  # a character's sheet, a dashboard, a battle board
MAX_WATCHED = 4  # live regions a page may watch on one stream
Key = tuple[str, int]


def key_text(key: Key) -> str:
    return f"{key[0]}:{key[1]}"


def read_stamps(keys: Iterable[Key]) -> dict[Key, str]:
    """The current stamp of each key that still exists: one query for the sheets, one for
    each campaign (its dashboard and its battle board from the same row). A campaign's
    dashboard stamp is the referee's (it moves with the clock's jobs too): a player's page
    then asks once for nothing and gets a 304."""
    keys = list(keys)
    stamps: dict[Key, str] = {}
    sheets = [number for kind, number in keys if kind == "sheet"]
    if sheets:
        rows = sheets_versions(sheets)
        stamps |= {("sheet", pk): sheet_stamp(version, clock) for pk, version, clock in rows}
    for campaign_id in sorted({number for kind, number in keys if kind != "sheet"}):
        row = live_witness(campaign_id, latest=(LATEST_CLOCK_JOB, LATEST_BATTLE))
        if row is not None:
            stamps[("campaign", campaign_id)] = party_stamp(row, referee=True)
            stamps[("board", campaign_id)] = board_stamp(row)
    return {key: stamp for key, stamp in stamps.items() if key in keys}


@dataclass
class Watcher:
    """The process's watched stamps, read every ``period`` seconds by one thread that runs
    while anything is watched (and gives its database connection back when nothing is)."""

    period: float
    changed: threading.Condition = field(default_factory=threading.Condition)
    stamps: dict[Key, str] = field(default_factory=dict)
    watching: dict[Key, int] = field(default_factory=dict)
    running: bool = False
    reads: int = 0  # how many times the stamps were read (tests, the benchmark)

    def watch(self, stamps: dict[Key, str]) -> None:
        with self.changed:
            for key, stamp in stamps.items():
                self.watching[key] = self.watching.get(key, 0) + 1
                self.stamps.setdefault(key, stamp)
            if not self.running:
                self.running = True
                name = "sawbones-live-watcher"
                threading.Thread(target=self._run, name=name, daemon=True).start()

    def unwatch(self, keys: Iterable[Key]) -> None:
        with self.changed:
            for key in keys:
                if key not in self.watching:  # let go of already by stop()
                    continue
                self.watching[key] -= 1
                if not self.watching[key]:
                    del self.watching[key]
                    self.stamps.pop(key, None)

    def stop(self, timeout: float = 3.0) -> bool:
        """Forget everything watched, so the thread ends after its current read; whether it
        ended within ``timeout``. The streams still open end on their own (they hear no
        more changes). A server going down, and tests, which must not leave a thread
        reading a database that is about to go."""
        with self.changed:
            self.watching.clear()
            self.stamps.clear()
            self.changed.notify_all()
        deadline = monotonic() + timeout
        while self.running and monotonic() < deadline:
            sleep(min(self.period, 0.05) or 0.01)
        return not self.running

    def wait(self, seen: dict[Key, str], timeout: float) -> dict[Key, str]:
        """Block until a stamp in ``seen`` moves, or ``timeout``; the keys that moved, with
        their new stamps (empty on timeout)."""

        def moved() -> dict[Key, str]:
            return {k: s for k in seen if (s := self.stamps.get(k, seen[k])) != seen[k]}

        with self.changed:
            self.changed.wait_for(moved, timeout)
            return moved()

    def _run(self) -> None:
        stopped = False
        try:
            while keys := self._watched_or_stop():
                fresh = self._read(keys)
                with self.changed:
                    moved = {
                        key: stamp
                        for key, stamp in fresh.items()
                        if key in self.watching and self.stamps.get(key) != stamp
                    }
                    if moved:
                        self.stamps |= moved
                        self.changed.notify_all()
                sleep(self.period)
            stopped = True  # nothing watched: _watched_or_stop said so under the lock
        finally:
            if not stopped:  # an error ended the thread: the next watch starts another
                with self.changed:
                    self.running = False
            connection.close()  # the thread ends and keeps no connection

    def _watched_or_stop(self) -> list[Key]:
        with self.changed:
            keys = list(self.watching)
            if not keys:
                self.running = False
            return keys

    def _read(self, keys: list[Key]) -> dict[Key, str]:
        try:
            close_old_connections()  # as a request would: CONN_MAX_AGE, health checks
            stamps = read_stamps(keys)
            close_old_connections()  # and as a request ends
            return stamps
        except Exception as error:  # the database away: the streams wait, the next read catches up
            logger.warning("live stamps unreadable (%s); reading again next time", error)
            connection.close()
            return {}
        finally:
            self.reads += 1


_watcher: Watcher | None = None
_watcher_lock = threading.Lock()


def watcher() -> Watcher:
    """The process's one watcher."""
    global _watcher
    with _watcher_lock:
        if _watcher is None:
            _watcher = Watcher(period=float(settings.SAWBONES_STREAM_WATCH_SECONDS))
        return _watcher


def events(stamps: dict[Key, str]) -> Iterator[str]:
    """The stream's text: ``retry`` (how long the browser waits before it connects again),
    then an event for each watched stamp that moves, comments while none does, and the end
    after the stream's lifetime. ``stamps`` are the ones the page was checked against."""
    the = watcher()
    keepalive = float(settings.SAWBONES_STREAM_KEEPALIVE_SECONDS)
    ends = monotonic() + float(settings.SAWBONES_STREAM_MAX_SECONDS)
    seen = dict(stamps)
    the.watch(seen)
    try:
        yield "retry: 2000\n\n"
        while (left := ends - monotonic()) > 0:
            moved = the.wait(seen, min(keepalive, left))
            if not moved:
                yield ": nothing changed\n\n"
            for key, stamp in moved.items():
                seen[key] = stamp
                yield f"event: changed\ndata: {key_text(key)}\n\n"
    finally:
        the.unwatch(seen)
