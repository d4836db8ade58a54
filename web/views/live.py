"""The live pages' event stream (web/streams.py): one per open page, for its live regions."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseBase,
    StreamingHttpResponse,
)
from django.views.decorators.http import require_GET

from campaigns.access import access_campaign
from characters.access import access_character
from rules.battles.selectors import access_battles
from web.streams import KINDS, MAX_WATCHED, Key, events, read_stamps

NOT_WATCHABLE = (
    "This page asked to follow something it cannot follow; it keeps asking the server "
    "for news instead."
)


def _watched(request: HttpRequest) -> list[Key] | None:
    """The ``watch`` parameters as keys (``sheet:12``), None when any is malformed."""
    keys: list[Key] = []
    for text in request.GET.getlist("watch"):
        kind, _, number = text.partition(":")
        if kind not in KINDS or not number.isdigit() or len(number) > 18:
            return None
        if (kind, int(number)) not in keys:
            keys.append((kind, int(number)))
    return keys if 0 < len(keys) <= MAX_WATCHED else None


def _check(request: HttpRequest, key: Key) -> None:
    """The same check as the region's own fragment: 404 for what the viewer may not see."""
    kind, number = key
    if kind == "sheet":
        access_character(request.user, number)
    elif kind == "campaign":
        access_campaign(request.user, number)
    else:
        access_battles(request.user, number)


@login_required
@require_GET
def live_events(request: HttpRequest) -> HttpResponseBase:
    """``text/event-stream`` of the watched regions' changes (web/streams.py)."""
    keys = _watched(request)
    if keys is None:
        return HttpResponseBadRequest(NOT_WATCHABLE, content_type="text/plain; charset=utf-8")
    for key in keys:
        _check(request, key)
    if not request.META.get("wsgi.multithread"):
        # A worker that serves one request at a time would be held by one open page:
        # 204 tells EventSource not to connect again, and the page goes on polling.
        return HttpResponse(status=204)
    stamps = read_stamps(keys)
    connection.close()  # the stream holds a thread, never a database connection
    response = StreamingHttpResponse(events(stamps), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx passes each event on at once
    return response
