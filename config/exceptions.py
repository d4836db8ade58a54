"""One place that maps domain errors to HTTP answers (HackSoft styleguide).

Rule errors are bad input (400); a character that cannot act, a stale version or a
pending choice is a conflict (409); the database or Redis out of reach (restarting) is
503 with Retry-After. Anything else is left to DRF.

Error answers are capped (:func:`cap_errors`): a body with a thousand unknown fields
gets the first few named and a count of the rest, never an answer as large as the body.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext, gettext_lazy, ngettext
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from core.errors import (
    RETRY_AFTER_SECONDS,
    UNAVAILABLE_ERRORS,
    UNAVAILABLE_MESSAGE,
    NotAllowed,
    ResolutionConflict,
    ServiceUnavailable,
    error_text,
)
from core.throttles import refused_wait
from rules.engine.dice import DiceError
from rules.engine.interface import ActionBlocked, RuleError

logger = logging.getLogger(__name__)


class Unavailable(exceptions.APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = UNAVAILABLE_MESSAGE
    default_code = "unavailable"


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = gettext_lazy("The request conflicts with the character's current state.")
    default_code = "conflict"


# At most this many fields or messages are listed in an error answer, each message at
# most this long; the rest are counted.
MAX_LISTED_ERRORS = 20
MAX_MESSAGE_LENGTH = 500


def _cap_message(message: str) -> str:
    if len(message) <= MAX_MESSAGE_LENGTH:
        return message
    rest = len(message) - MAX_MESSAGE_LENGTH
    return gettext("%(start)s... (%(rest)s more characters)") % {
        "start": message[:MAX_MESSAGE_LENGTH],
        "rest": rest,
    }


def cap_errors(detail: Any, depth: int = 0) -> Any:
    """DRF error details with at most MAX_LISTED_ERRORS entries per level, short
    messages, and no deeper than a few levels."""
    if isinstance(detail, str):
        return _cap_message(detail)
    if depth >= 4:
        return [gettext("...(nested errors left out)")]
    if isinstance(detail, dict):
        keys = list(detail)
        capped = {key: cap_errors(detail[key], depth + 1) for key in keys[:MAX_LISTED_ERRORS]}
        if len(keys) > MAX_LISTED_ERRORS:
            count = len(keys) - MAX_LISTED_ERRORS
            more = ngettext(
                "...and %(count)s more fields with errors",
                "...and %(count)s more fields with errors",
                count,
            ) % {"count": count}
            if depth == 0:
                capped["non_field_errors"] = [*capped.get("non_field_errors", []), more]
            else:
                capped["..."] = [more]
        return capped
    if isinstance(detail, list):
        items = [cap_errors(item, depth + 1) for item in detail[:MAX_LISTED_ERRORS]]
        if len(detail) > MAX_LISTED_ERRORS:
            count = len(detail) - MAX_LISTED_ERRORS
            items.append(
                ngettext("...and %(count)s more errors", "...and %(count)s more errors", count)
                % {"count": count}
            )
        return items
    return detail


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, RuleError | DiceError):
        exc = exceptions.ValidationError({"detail": error_text(exc)})
    elif isinstance(exc, ActionBlocked | ResolutionConflict):
        exc = Conflict(error_text(exc))
    elif isinstance(exc, NotAllowed):
        exc = exceptions.PermissionDenied(error_text(exc))
    elif isinstance(exc, RecursionError):  # JSON nested thousands deep
        exc = exceptions.ParseError(gettext("the JSON is nested too deeply"))
    elif isinstance(exc, ServiceUnavailable):
        exc = Unavailable(error_text(exc))
    elif isinstance(exc, UNAVAILABLE_ERRORS):  # the database or Redis is restarting
        logger.warning("answered 503: %s: %s", type(exc).__name__, exc)
        exc = Unavailable()
    elif isinstance(exc, DjangoValidationError):
        detail: Any = exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}
        exc = exceptions.ValidationError(detail)
    elif isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
        # DRF refuses these before its throttles run: count them here (issue 27).
        view, request = context.get("view"), context.get("request")
        wait = refused_wait(request, view) if view is not None and request is not None else None
        if wait is not None:
            exc = exceptions.Throttled(wait)
    response = exception_handler(exc, context)
    if isinstance(exc, Unavailable) and response is not None:
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    if response is not None and response.data is not None:
        response.data = cap_errors(response.data)
    return response
