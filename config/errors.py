"""The app's own error pages beside templates/404.html, 403.html and 500.html."""

from __future__ import annotations

import sys

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template import loader
from django.utils.translation import gettext
from django.views import defaults

from core.errors import RETRY_AFTER_SECONDS, UNAVAILABLE_ERRORS, UNAVAILABLE_MESSAGE
from core.middleware import is_api


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form refused by the CSRF check (an old tab, cookies off): say what to do."""
    return render(
        request,
        "403.html",
        {
            "message": gettext(
                "This form was too old to send, or your browser refused its cookie. "
                "Reload the page and try again."
            )
        },
        status=403,
    )


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: a 503 (JSON for the API, a sentence on pages) when the database or
    Redis is out of reach, e.g. restarting; the app's 500 page for anything else.

    Django calls it while handling the exception, so ``sys.exc_info()`` holds it. The
    page is rendered without the request: the session and user may need the database.
    """
    error = sys.exc_info()[1]
    if not isinstance(error, UNAVAILABLE_ERRORS):
        return defaults.server_error(request)
    response: HttpResponse
    if is_api(request):
        response = JsonResponse({"detail": str(UNAVAILABLE_MESSAGE)}, status=503)
    else:
        response = HttpResponse(loader.get_template("503.html").render(), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
