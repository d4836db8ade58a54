"""Middleware of our own: an id for each request (on its log lines), a cap on request
bodies before anything reads them, ``Cache-Control`` for answers about a person, API
paths answered with or without their trailing slash, every error of the API in JSON,
and writes with an idempotency key acting once (``core.idempotency``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import sentry_sdk
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import Resolver404, get_urlconf, is_valid_path, resolve
from django.utils import translation
from django.utils.cache import patch_cache_control
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.utils.translation.trans_real import parse_accept_lang_header
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings

from core.idempotency import (
    Claim,
    Claimed,
    fingerprint,
    idempotency_claim,
    idempotency_finish,
    idempotency_lookup,
    idempotency_release,
    valid_key,
)
from core.logs import current_request_id

API_PREFIX = "/api/"


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def accept_language(request: HttpRequest) -> str:
    """The first language of the request's Accept-Language this site speaks, else
    English (``LANGUAGE_CODE``): the API's language (``accounts.language``)."""
    for code, _quality in parse_accept_lang_header(request.headers.get("Accept-Language", "")):
        if code == "*":
            break
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            continue
    return str(settings.LANGUAGE_CODE)


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
            status = 411
        elif length < 0:
            status = 400
        elif limit is not None and length > limit:
            status = 413
        else:
            return self.get_response(request)
        # Refused before LocaleMiddleware: said in the language it would have found (the
        # API's Accept-Language; a page's cookie or Accept-Language).
        api = is_api(request)
        language = (
            accept_language(request) if api else translation.get_language_from_request(request)
        )
        with translation.override(language):
            message = _body_refusal(status, limit)
        response: HttpResponse
        if api:
            response = JsonResponse({"detail": message}, status=status)
        else:
            response = HttpResponse(
                message, status=status, content_type="text/plain; charset=utf-8"
            )
        response["Content-Language"] = language
        return response


def _body_refusal(status: int, limit: int | None) -> str:
    """Why a body is refused (:class:`BodySizeLimitMiddleware`), in the active language."""
    if status == 411:
        # Django reads no more than Content-Length bytes: a chunked body would be read
        # as empty ("field required"). Refused instead, so nothing is half understood.
        return gettext("Send the body with a Content-Length header: chunked bodies are not read.")
    if status == 400:
        return gettext("The Content-Length header is not a number.")
    return gettext("The request body is larger than %(limit)s bytes.") % {"limit": limit}


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
        detail = gettext(
            "No API endpoint at %(path)s: the endpoints are listed at /api/schema/."
        ) % {"path": request.path}
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


# -- idempotency keys (core.idempotency, docs/api.md) -----------------------------------------
WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
IDEMPOTENCY_HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
FORM_KEY_FIELD = "idempotency_key"  # the one-time key of a page's form (web: {% form_key %})
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
# Statuses answered before the view acted, or by a failure: not kept, a retry acts.
NOT_KEPT = {401, 403, 429}
# Headers of the first answer sent again with it (htmx's say where a page goes next).
KEPT_HEADERS = ("Content-Type", "Location", "Cache-Control", "Allow", "Retry-After")
PAGE_WAIT_SECONDS = 10.0


def idempotency_exempt(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Mark a page's view that answers a POST without changing anything (the odds of an
    action, asked with its form's fields): its requests are never keyed."""
    view.idempotency_exempt = True  # type: ignore[attr-defined]
    return view


def _exempt(request: HttpRequest) -> bool:
    try:
        match = resolve(request.path_info, get_urlconf())
    except Resolver404:
        return True  # no page there: nothing to act on
    return bool(getattr(match.func, "idempotency_exempt", False))


def _form_fields(request: HttpRequest) -> list[tuple[str, Any]]:
    """A page form's fields as pairs, but the CSRF token and the key; files by name
    and size."""
    fields: list[tuple[str, Any]] = [
        (name, value)
        for name, values in request.POST.lists()
        if name not in ("csrfmiddlewaretoken", FORM_KEY_FIELD)
        for value in values
    ]
    fields += [
        (f"file:{name}", f"{upload.name}:{upload.size}")
        for name, uploads in request.FILES.lists()
        for upload in uploads
    ]
    return fields


def _is_form(request: HttpRequest) -> bool:
    return request.content_type in FORM_TYPES


def _user_id(request: HttpRequest) -> int | None:
    """The person sending the request: the session's, else the API token's (the API's
    own authenticators, as the view will run them). None when nobody is signed in."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return int(user.pk)
    if not is_api(request) or "HTTP_AUTHORIZATION" not in request.META:
        return None
    api_request = Request(request)
    authenticators: list[Any] = list(api_settings.DEFAULT_AUTHENTICATION_CLASSES)
    for authenticator_class in authenticators:
        try:
            found = authenticator_class().authenticate(api_request)
        except APIException:
            return None  # the view answers 401 or 403 itself
        if found is not None:
            return int(found[0].pk)
    return None


def _replay(record: Any) -> HttpResponse:
    response = HttpResponse(bytes(record.body), status=record.status_code)
    for name, value in record.headers.items():
        response[name] = value
    response[REPLAYED_HEADER] = "true"
    return response


def _kept_headers(response: HttpResponse) -> dict[str, str]:
    return {
        name: value
        for name, value in response.items()
        if name in KEPT_HEADERS or name.lower().startswith("hx-")
    }


class IdempotencyMiddleware:
    """A write with a key acts once (``core.idempotency``): the API's ``Idempotency-Key``
    header, or the one-time key a page's form carries (``idempotency_key``).

    The API answers Stripe's way: the first answer again (``Idempotent-Replayed: true``),
    422 for the key with another request, 409 while the first is still answered. A page
    waits for the first answer instead and shows it (a double click, a form sent again),
    and sends a form sent again with other values back to where it came from, saying so.
    Only a signed-in person's requests are keyed (keys are per person).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method not in WRITE_METHODS:
            return self.get_response(request)
        api = is_api(request)
        key = request.headers.get(IDEMPOTENCY_HEADER)
        if key is None and not api and _is_form(request) and not _exempt(request):
            key = request.POST.get(FORM_KEY_FIELD) or None
        if key is None:
            return self.get_response(request)
        if not valid_key(key):
            if api:
                return JsonResponse(
                    {
                        "detail": gettext("%(header)s must be 1 to 255 printable ASCII characters.")
                        % {"header": IDEMPOTENCY_HEADER}
                    },
                    status=400,
                )
            return self.get_response(request)  # a page's key made by hand: act as without
        user_id = _user_id(request)
        if user_id is None:
            return self.get_response(request)
        return self._keyed(request, user_id, key, api)

    def _keyed(self, request: HttpRequest, user_id: int, key: str, api: bool) -> HttpResponse:
        body = _form_fields(request) if _is_form(request) else request.body
        claim = idempotency_claim(
            user_id=user_id,
            key=key,
            fingerprint=fingerprint(request.method or "", request.path, body),
        )
        if claim.outcome is Claimed.RUNNING and not api:
            claim = self._wait(user_id, key, claim)
        if claim.outcome is Claimed.REPLAY and claim.record is not None:
            return _replay(claim.record)
        if claim.outcome is Claimed.MISMATCH:
            return self._mismatch(request, api)
        if claim.outcome is not Claimed.NEW or claim.record is None:
            return self._running(api)
        record = claim.record
        try:
            response = self.get_response(request)
        except BaseException:
            idempotency_release(record)
            raise
        status = response.status_code
        if status >= 500 or status in NOT_KEPT or response.streaming:
            idempotency_release(record)
        else:
            idempotency_finish(
                record, status=status, headers=_kept_headers(response), body=response.content
            )
        return response

    @staticmethod
    def _wait(user_id: int, key: str, claim: Claim) -> Claim:
        """A page's second click waits for the first one's answer, then shows it."""
        seconds = float(getattr(settings, "SAWBONES_IDEMPOTENCY_PAGE_WAIT", PAGE_WAIT_SECONDS))
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            time.sleep(0.1)
            record = idempotency_lookup(user_id=user_id, key=key)
            if record is None:
                return Claim(Claimed.RUNNING, None)  # the first one failed: send it again
            if record.state == "done":
                return Claim(Claimed.REPLAY, record)
        return claim

    @staticmethod
    def _running(api: bool) -> HttpResponse:
        if api:
            response: HttpResponse = JsonResponse(
                {
                    "detail": gettext(
                        "A request with this %(header)s is still being answered: send it "
                        "again in a moment for its answer."
                    )
                    % {"header": IDEMPOTENCY_HEADER}
                },
                status=409,
            )
        else:
            response = HttpResponse(
                gettext(
                    "This form is still being sent. Reload the page in a moment to see what it did."
                ),
                status=409,
                content_type="text/plain; charset=utf-8",
            )
        response["Retry-After"] = "1"
        return response

    @staticmethod
    def _mismatch(request: HttpRequest, api: bool) -> HttpResponse:
        if api:
            return JsonResponse(
                {
                    "detail": gettext(
                        "This %(header)s was used for another request (another method, "
                        "path or body): use a new key for a new request."
                    )
                    % {"header": IDEMPOTENCY_HEADER}
                },
                status=422,
            )
        messages.warning(
            request,
            gettext(
                "That form was sent already, with other values; nothing more was done. "
                "Here it is again: send it anew if you meant to."
            ),
        )
        back = request.headers.get("Referer", "")
        if not url_has_allowed_host_and_scheme(back, {request.get_host()}):
            back = "/"
        response = HttpResponse(status=204)
        if request.headers.get("HX-Request"):
            response["HX-Redirect"] = back  # htmx loads the page, with the message
            return response
        response = HttpResponse(status=303)
        response["Location"] = back
        return response
