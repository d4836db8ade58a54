"""The app's own error pages beside templates/404.html, 403.html and 500.html."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form refused by the CSRF check (an old tab, cookies off): say what to do."""
    return render(
        request,
        "403.html",
        {
            "message": "This form was too old to send, or your browser refused its cookie. "
            "Reload the page and try again."
        },
        status=403,
    )
