"""Whether a page request came from htmx, as django-htmx's middleware found it.

``django_htmx.middleware.HtmxMiddleware`` (config/settings/base.py) sets
``request.htmx`` on every request; the views ask here so that one rule decides.
"""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


def is_htmx(request: HttpRequest) -> bool:
    """True for a request htmx made (``HX-Request: true``)."""
    details = getattr(request, "htmx", None)
    if not isinstance(details, HtmxDetails):
        details = HtmxDetails(request)
    return bool(details)
