"""The live regions' polls (the sheet, the dashboard, the battle board): each page
carries its stamp, sent back by the poll as ``If-None-Match`` (static/js/sawbones.js);
while the stamp holds the answer is ``304 Not Modified`` with no body, which htmx
leaves unswapped (base.html's ``responseHandling``), else the fresh fragment with its
new ``ETag``."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified


def etag(stamp: str) -> str:
    return f'"{stamp}"'


def unchanged(request: HttpRequest, stamp: str) -> HttpResponse | None:
    """304 when the poll's ``If-None-Match`` names the stamp still in force, else None."""
    sent = {tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")}
    if etag(stamp) not in sent:
        return None
    response = HttpResponseNotModified()
    response["ETag"] = etag(stamp)
    return response


def tagged(response: HttpResponse, stamp: str) -> HttpResponse:
    response["ETag"] = etag(stamp)
    return response
