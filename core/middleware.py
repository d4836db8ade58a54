"""Middleware of our own: an id for each request (on its log lines), a cap on request
bodies before anything reads them, ``Cache-Control`` for answers about a person, and API
paths answered with or without their trailing slash, every error of the API in JSON."""

from __future__ import annotations

from collections.abc import Callable

import sentry_sdk
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import get_urlconf, is_valid_path
from django.utils.cache import patch_cache_control
from rest_framework.response import Response

from core.logs import current_request_id

API_PREFIX = "/api/"


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


class BodySizeLimitMiddleware:
    """413 for a body larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE``, before any parsing;
    411 for a chunked body without ``Content-Length`` (Django would read it as empty).

    Django enforces the limit only when ``request.body`` is read; DRF's parsers read the
    stream themselves, so without this an unauthenticated request could make a worker
    parse a body of any size. Django reads no more than ``Content-Length`` bytes, so the
    header is what is checked.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = -1
        chunked = "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower()
        if chunked and not request.META.get("CONTENT_LENGTH"):
            # Django reads no more than Content-Length bytes: a chunked body would be read
            # as empty ("field required"). Refused instead, so nothing is half understood.
            message = "Send the body with a Content-Length header: chunked bodies are not read."
            status = 411
        elif length < 0:
            message = "The Content-Length header is not a number."
            status = 400
        elif limit is not None and length > limit:
            message = f"The request body is larger than {limit} bytes."
            status = 413
        else:
            return self.get_response(request)
        if is_api(request):
            return JsonResponse({"detail": message}, status=status)
        return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")


class PrivateCacheMiddleware:
    """``Cache-Control: private, no-store`` on every API answer and on every page for a
    signed-in person: nothing about a campaign stays in a shared or browser cache."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if is_api(request) or getattr(user, "is_authenticated", False):
            patch_cache_control(response, private=True, no_store=True)
        return response


class ApiPathMiddleware:
    """API paths with or without the trailing slash, and JSON for every API error.

    ``POST /api/v1/campaigns`` is served as ``POST /api/v1/campaigns/``: no redirect
    (a 301 makes clients re-send a POST as a GET, and ``APPEND_SLASH`` cannot redirect a
    POST at all). An API answer that is an error and not JSON (an unknown path's 404, a
    405 or 500 from outside DRF) becomes ``{"detail": ...}`` with the same status.
    Placed before ``CommonMiddleware``, which would otherwise redirect.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not is_api(request):
            return self.get_response(request)
        path = request.path_info
        if not path.endswith("/") and is_valid_path(path + "/", get_urlconf()):
            request.path_info = path + "/"
            request.path = request.path + "/"
        response = self.get_response(request)
        content_type = response.get("Content-Type", "")
        from_drf = isinstance(response, Response)  # DRF's own errors keep their shape
        if response.status_code >= 400 and "json" not in content_type and not from_drf:
            return _json_error(request, response)
        return response


def _json_error(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    if response.status_code == 404:
        detail = f"No API endpoint at {request.path}: the endpoints are listed at /api/schema/."
    else:
        detail = response.reason_phrase
    answer = JsonResponse({"detail": detail}, status=response.status_code)
    # Every header the answer had (Allow, Retry-After, Cache-Control, the CSP...) but
    # the ones about its old body.
    for header, value in response.items():
        if header.lower() not in {"content-type", "content-length"}:
            answer[header] = value
    return answer


class RequestIdMiddleware:
    """The request's id (core.logs) in the answer's ``X-Request-ID`` and on its Sentry
    events; on every log line of the request and of the tasks it enqueues."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = current_request_id()
        sentry_sdk.set_tag("request_id", request_id)  # nothing when Sentry is off
        response = self.get_response(request)
        response["X-Request-ID"] = request_id
        return response
